"""Conformance for what `memory ui` reads from a store: pages of records, the scope list, recall history.

`StoreConformance` inherits these tests, so every backend runs them with the rest of the suite;
they use only the `Store` protocol. A failing test names the promise a backend broke.
"""

from __future__ import annotations

from memory_core.models import Record
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.base import RecordFilter, Store

__all__ = ["BrowseConformance"]

_T0 = 1_760_000_000.0


def _browse_corpus() -> list[Record]:
    """Thirty records of one project across sessions, harnesses, authors and kinds, with time ties."""
    from memory_testing.records import OTHER, PROJECT, USER, make_record

    records = []
    for n in range(30):
        records.append(
            make_record(
                f"r{n:02d}",
                f"turn number {n}",
                PROJECT,
                # every third pair shares a timestamp, so paging must order ties by id
                created_at=_T0 + (n // 2) * 10.0,
                session_id=f"s{n % 3}",
                seq=n // 3,
                harness="codex" if n % 4 == 0 else "claude",
                author="bob" if n % 5 == 0 else "alice",
                kind="note" if n % 7 == 0 else "turn",
            )
        )
    records.append(make_record("other", "another project's turn", OTHER, created_at=_T0 + 1))
    records.append(make_record("mine", "a user preference", USER, created_at=_T0 + 2, kind="note", session_id=None))
    return records


def _newest_first(records: list[Record]) -> list[str]:
    return [r.id for r in sorted(records, key=lambda r: (r.created_at, r.id), reverse=True)]


class BrowseConformance:
    """Tests of `page`, `scope_keys` and the recall history; mixed into `StoreConformance`."""

    def _load_browse(self, store: Store) -> list[Record]:
        corpus = _browse_corpus()
        for record in corpus:
            store.put(record, index_terms(record.text))
        return corpus

    def test_pages_are_newest_first_and_a_cursor_walks_every_record_once(self, store: Store) -> None:
        from memory_testing.records import PROJECT

        corpus = [r for r in self._load_browse(store) if r.scope == PROJECT]
        for size in (1, 4, 7, 50):
            seen: list[str] = []
            after = None
            for _ in range(40):
                page = store.page(PROJECT, RecordFilter(), after=after, limit=size)
                assert len(page) <= size
                if not page:
                    break
                seen += [r.id for r in page]
                after = (page[-1].created_at, page[-1].id)
            assert seen == _newest_first(corpus), f"page size {size}"

    def test_page_filters_match_what_a_user_asked_for(self, store: Store) -> None:
        from memory_testing.records import PROJECT

        corpus = [r for r in self._load_browse(store) if r.scope == PROJECT]
        filters = [
            RecordFilter(session_id="s1"),
            RecordFilter(harness="codex"),
            RecordFilter(author="bob"),
            RecordFilter(kind="note"),
            RecordFilter(since=_T0 + 50, until=_T0 + 100),
            RecordFilter(session_id="s2", author="alice", kind="turn"),
            RecordFilter(harness="claude", author="alice", since=_T0 + 30),
            RecordFilter(harness="nobody"),
        ]
        for where in filters:

            def matches(r: Record, where: RecordFilter = where) -> bool:
                return (
                    (where.session_id is None or r.session_id == where.session_id)
                    and (where.harness is None or r.harness == where.harness)
                    and (where.author is None or r.author == where.author)
                    and (where.kind is None or r.kind == where.kind)
                    and (where.since is None or r.created_at >= where.since)
                    and (where.until is None or r.created_at < where.until)
                )

            expected = _newest_first([r for r in corpus if matches(r)])
            first = store.page(PROJECT, where, limit=3)
            assert [r.id for r in first] == expected[:3], where
            rest = store.page(PROJECT, where, after=(first[-1].created_at, first[-1].id), limit=100) if first else []
            assert [r.id for r in first + rest] == expected, where

    def test_a_page_reads_one_scope_and_an_empty_key_reads_nothing(self, store: Store) -> None:
        from memory_core.models import Scope

        from memory_testing.records import OTHER, USER

        self._load_browse(store)
        assert [r.id for r in store.page(OTHER, RecordFilter())] == ["other"]
        assert [r.id for r in store.page(USER, RecordFilter())] == ["mine"]
        assert store.page(Scope("project", ""), RecordFilter()) == []
        page = store.page(USER, RecordFilter())
        assert page[0].text == "a user preference"
        assert page[0].kind == "note"

    def test_scope_keys_list_every_project_and_user_that_holds_records(self, store: Store) -> None:
        from memory_testing.records import OTHER, PROJECT, USER

        assert store.scope_keys("project") == []
        self._load_browse(store)
        assert store.scope_keys("project") == sorted([PROJECT.key, OTHER.key])
        assert store.scope_keys("user") == [USER.key]
        store.delete(["other"])
        assert store.scope_keys("project") == [PROJECT.key]

    def test_recall_history_is_per_user_newest_first_and_bounded(self, store: Store) -> None:
        assert store.recalls("alice") == []
        for n in range(5):
            store.record_recall("alice", f'{{"n": {n}}}', keep=3, meta={"last_recall_at": str(n)})
        store.record_recall("bob", '{"n": "bob"}', keep=3, meta={})
        assert store.meta()["last_recall_at"] == "4"
        assert store.recalls("alice") == ['{"n": 4}', '{"n": 3}', '{"n": 2}']
        assert store.recalls("bob") == ['{"n": "bob"}']
        store.set_recalls("alice", ['{"n": 4}', '{"n": 2}'])
        assert store.recalls("alice") == ['{"n": 4}', '{"n": 2}']
        store.record_recall("alice", '{"n": 5}', keep=3, meta={"last_recall_at": "5", "last_recall": "{}"})
        assert store.meta() == {"last_recall_at": "5", "last_recall": "{}"}
        assert store.recalls("alice") == ['{"n": 5}', '{"n": 4}', '{"n": 2}']
        store.set_recalls("alice", [])
        assert store.recalls("alice") == []
        assert store.recalls("bob") == ['{"n": "bob"}']
