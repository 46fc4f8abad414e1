"""The conformance suite every `Store` must pass, so behaviour (ranking included) is one on every backend.

Use it by subclassing `StoreConformance` in a test module and providing a `store` fixture that
yields a fresh, empty store (and closes it afterwards)::

    class TestMyStore(StoreConformance):
        @pytest.fixture
        def store(self, tmp_path):
            store = MyStore.from_url(...)
            yield store
            store.close()

The suite uses only the `Store` protocol and `memory_core.retrieval.retriever`; it never looks inside a
backend. A failing test names the promise a backend broke.
"""

from __future__ import annotations

import random
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

import pytest
from memory_core.models import Hit, IndexStats, Record, Scope
from memory_core.retrieval.retriever import Retriever
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.base import (
    SUM_SLACK,
    NumberedPosting,
    PickedPostings,
    Posting,
    SessionState,
    Store,
    SummingPostings,
    TermPostings,
    Vectors,
)

from memory_testing.records import OTHER, PROJECT, T0, USER, make_record
from memory_testing.store_conformance_browse import BrowseConformance
from memory_testing.store_conformance_timeline import TimelineConformance
from memory_testing.store_conformance_vectors import VectorConformance

__all__ = ["StoreConformance", "PROJECT", "OTHER", "USER", "make_record", "ranking_corpus", "RANKING_QUERIES"]


def ranking_corpus() -> list[Record]:
    """A small project history of coding turns, with feedback, a hidden record and other scopes."""
    day = 86_400.0

    def turn(session: str, seq: int, text: str, **fields: object) -> Record:
        rid = f"{session}-{seq}"
        created = T0 + seq * 60 + (day if session == "s2" else 0)
        values: dict[str, object] = {"session_id": session, "seq": seq, "created_at": created, **fields}
        return make_record(rid, text, PROJECT, **values)

    return [
        turn(
            "s1",
            0,
            "Why does the billing retry policy time out?\n\nThe retry loop in src/billing/retry.py slept 30s "
            "between attempts; I switched it to exponential backoff capped at 5s.",
        ),
        turn("s1", 1, "Run the auth tests please.\n\n`pytest tests/auth -k login` passes: 42 tests, 0 failures."),
        turn(
            "s1",
            2,
            "Should we rename parsePayload to follow snake_case?\n\nYes, Python style says snake_case; I can "
            "rename it in every module that imports it.",
        ),
        turn("s1", 3, "ok go ahead\n\nDone: every call site is updated and the suite is green."),
        turn(
            "s1",
            4,
            "The SQLite store hits 'database is locked' under concurrent hooks.\n\nSet PRAGMA busy_timeout "
            "and use BEGIN IMMEDIATE so writers queue instead of failing.",
        ),
        turn("s1", 5, "What about WAL?\n\nWAL mode lets readers go on while one writer commits; enabled at connect."),
        turn(
            "s2",
            0,
            "Cache the stemmer results.\n\nAdded a bounded dict cache in stemmer.py, 50k entries, cleared when full.",
            harness="codex",
        ),
        turn(
            "s2",
            1,
            "The SQLite store hits 'database is locked' under concurrent hooks again.\n\nSet PRAGMA "
            "busy_timeout and use BEGIN IMMEDIATE so writers queue instead of failing.",
            harness="codex",
        ),
        turn(
            "s2",
            2,
            "Deploy checklist: run the migrations, then restart the workers, then flush the cache.",
            standing=2,
        ),
        turn("s2", 3, "Deploy checklist: restart the workers first and run migrations later.", standing=-1),
        turn("s2", 4, "Deploy checklist context kept beside a turn, never recalled.", searchable=False),
        make_record(
            "n-user",
            "I prefer pytest over unittest, and short commit messages.",
            scope=USER,
            kind="note",
            session_id=None,
            harness=None,
        ),
        make_record(
            "n-other",
            "The billing retry policy in gadgets uses a fixed 10s delay.",
            scope=OTHER,
            kind="note",
            session_id=None,
            harness=None,
        ),
    ]


RANKING_QUERIES = (
    "why does the billing retry policy time out?",
    "rename parsePayload",
    "database is locked",
    "what is on the deploy checklist?",
    "do I prefer pytest?",
    "WAL mode readers",
    "stemmer cache size",
    "what's the weather in Lisbon?",
)


def crowded_corpus() -> list[Record]:
    """Turns of which a query matches hundreds, more than recall orders (where `PickedPostings`
    narrows): runs of exact ties, a rare word, and phrases stated in two and in three turns.
    """
    rng = random.Random(13)
    words = ["cache", "worker", "queue", "retry", "socket", "parser", "schema", "index", "deploy", "config"]
    records: list[Record] = []
    for n in range(480):
        session, seq = divmod(n, 12)
        if n % 3 == 0:
            text = f"cache worker note k{n}"  # the same terms and length: exact ties
        else:
            text = " ".join(rng.choice(words) for _ in range(rng.randint(3, 9)))
        if n in (17, 250):
            text = "the cache worker build uses tox"
        if n in (33, 99, 301):
            text = "my cache worker cat is called Miso"
        if n % 97 == 5:
            text += " zebrafish"
        records.append(make_record(f"c{n:03d}", text, PROJECT, session_id=f"cs{session}", seq=seq, created_at=T0 + n))
    return records


CROWDED_QUERIES = (
    "cache worker zebrafish",
    "what does the build use?",
    "what is my cat called?",
    "cache worker queue",
    "socket parser zebrafish deploy",
    "retry schema",
    "cache worker tox",
    "cache worker Miso",
)


class HashEmbedder:
    """A stand-in sentence embedder for the conformance suite: each word hashed into 16 buckets,
    normalised. Deterministic on every machine, no model; words shared means vectors close.
    """

    model_id = "conformance-hash/1"
    dim = 16

    def _one(self, text: str) -> Any:
        import zlib

        import numpy as np

        vector = np.zeros(self.dim, dtype=np.float32)
        for word in index_terms(text):
            vector[zlib.crc32(word.encode()) % self.dim] += 1.0
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed_query(self, text: str) -> Any:
        return self._one(text)

    def embed_passages(self, texts: Sequence[str]) -> Any:
        import numpy as np

        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)


def _load_vectors(store: Store, records: list[Record], embedder: HashEmbedder, *, skip: Collection[str] = ()) -> None:
    """Each searchable record's vector (one passage), except those of `skip`."""
    assert isinstance(store, Vectors), "every store keeps vectors (store.base.Vectors)"
    for record in records:
        if record.searchable and record.id not in skip:
            vector = embedder.embed_passages([record.text])[0]
            store.put_vectors(record.id, embedder.model_id, [vector.astype("<f4").tobytes()])


def _ranked_with_vectors(store: Store, query: str, *, floor: bool) -> tuple[list[tuple[str, float, str]], Any]:
    ranking = Retriever(store, embedder=HashEmbedder()).ranking(query, [PROJECT, USER], limit=10, floor=floor)
    return [(h.record.id, round(h.score, 9), h.excerpt) for h in ranking.hits], dict(ranking.decision)


class WithoutPicking:
    """A store seen without its `PickedPostings` capability: the retriever reads every posting's id."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name == "picked_postings":
            raise AttributeError(name)
        return getattr(self._store, name)


def _load(store: Store, records: list[Record]) -> None:
    for record in records:
        store.put(record, index_terms(record.text) if record.searchable else {})


def _ranked(store: Store, query: str, *, floor: bool) -> list[tuple[str, float, str]]:
    hits: list[Hit] = Retriever(store).rank(query, [PROJECT, USER], limit=10, floor=floor)
    return [(h.record.id, round(h.score, 9), h.excerpt) for h in hits]


def _postings(result: TermPostings) -> set[tuple[str, int, int]]:
    return {(p.record_id, p.tf, p.length) for p in result.postings}


class StoreConformance(BrowseConformance, VectorConformance, TimelineConformance):
    """Tests every backend must pass. Subclasses provide the `store` fixture: a fresh, empty store."""

    @pytest.fixture
    def store(self) -> Iterator[Store]:
        raise NotImplementedError("a subclass provides the `store` fixture")

    # -- lifecycle -------------------------------------------------------------------------

    def test_is_a_store_and_pings(self, store: Store) -> None:
        assert isinstance(store, Store)
        assert store.backend in ("sqlite", "redis", "postgres")
        version = store.ping()
        assert isinstance(version, str)
        assert version
        assert "***" in store.display_url or "@" not in store.display_url

    def test_close_is_idempotent(self, store: Store) -> None:
        store.ping()
        store.close()
        store.close()

    # -- records ---------------------------------------------------------------------------

    def test_put_then_get_round_trips_every_field(self, store: Store) -> None:
        record = Record(
            id="r1",
            scope=PROJECT,
            text="Fix the flaky test\n\nDone: the retry loop now waits — ünïcode kept",
            kind="note",
            author="bob",
            created_at=T0 + 0.25,
            harness="codex",
            session_id="sess-9",
            turn_id="turn-3",
            seq=7,
            standing=2,
            searchable=True,
        )
        assert store.put(record, {"fix": 1, "flaki": 1, "test": 1}) is True
        assert store.get(["r1"]) == [record]
        bare = Record(id="r2", scope=USER, text="a note", kind="note", harness=None, session_id=None)
        store.put(bare, {"note": 1})
        assert store.get(["r2"]) == [bare]

    def test_get_keeps_the_order_asked_and_skips_unknown_ids(self, store: Store) -> None:
        for name in ("a", "b", "c"):
            store.put(make_record(name), {name: 1})
        assert [r.id for r in store.get(["c", "missing", "a"])] == ["c", "a"]
        assert store.get([]) == []

    def test_put_is_idempotent(self, store: Store) -> None:
        first = make_record("r1", "first text")
        assert store.put(first, {"first": 1}) is True
        assert store.put(make_record("r1", "second text"), {"second": 1}) is False
        assert store.get(["r1"]) == [first]
        assert store.postings([PROJECT], ["second"])["second"] == TermPostings(0, ())
        assert store.index_stats([PROJECT]) == IndexStats(1, 1)

    def test_put_replace_overwrites_record_and_index(self, store: Store) -> None:
        store.put(make_record("r1", "old text"), {"old": 2, "shared": 1})
        store.put(make_record("r2", "other"), {"shared": 1})
        replacement = make_record("r1", "new text", standing=1)
        assert store.put(replacement, {"new": 1, "shared": 3}, replace=True) is True
        assert store.get(["r1"]) == [replacement]
        found = store.postings([PROJECT], ["old", "new", "shared"])
        assert found["old"] == TermPostings(0, ())
        assert _postings(found["new"]) == {("r1", 1, 4)}
        assert found["shared"].df == 2
        assert _postings(found["shared"]) == {("r1", 3, 4), ("r2", 1, 1)}
        assert store.index_stats([PROJECT]) == IndexStats(2, 5)

    def test_replace_can_move_a_record_to_another_scope(self, store: Store) -> None:
        store.put(make_record("r1"), {"alpha": 1})
        store.put(make_record("r1", scope=USER), {"alpha": 1}, replace=True)
        assert store.index_stats([PROJECT]) == IndexStats(0, 0)
        assert store.index_stats([USER]) == IndexStats(1, 1)
        assert store.postings([PROJECT], ["alpha"])["alpha"] == TermPostings(0, ())
        assert store.count([PROJECT]) == 0
        assert store.count([USER]) == 1

    def test_delete_removes_records_and_their_index_entries(self, store: Store) -> None:
        store.put(make_record("r1"), {"alpha": 1, "beta": 1})
        store.put(make_record("r2"), {"alpha": 2})
        assert store.delete(["r1", "missing"]) == 1
        assert store.get(["r1"]) == []
        found = store.postings([PROJECT], ["alpha", "beta"])
        assert _postings(found["alpha"]) == {("r2", 2, 2)}
        assert found["alpha"].df == 1
        assert found["beta"] == TermPostings(0, ())
        assert store.index_stats([PROJECT]) == IndexStats(1, 2)
        assert store.delete(["r1"]) == 0
        assert store.count([PROJECT]) == 1

    def test_standing_moves_and_a_negative_standing_leaves_the_index(self, store: Store) -> None:
        store.put(make_record("r1"), {"alpha": 1})
        store.put(make_record("r2"), {"alpha": 1, "beta": 1})
        assert store.adjust_standing("r1", 1) == 1
        assert store.get(["r1"])[0].standing == 1
        assert store.adjust_standing("r2", -1) == -1
        found = store.postings([PROJECT], ["alpha", "beta"])
        assert _postings(found["alpha"]) == {("r1", 1, 1)}
        assert found["alpha"].df == 1
        assert found["beta"] == TermPostings(0, ())
        assert store.index_stats([PROJECT]) == IndexStats(1, 1)
        assert store.get(["r2"])[0].standing == -1
        assert store.count([PROJECT]) == 2
        assert store.adjust_standing("r2", 1) == 0
        assert store.postings([PROJECT], ["beta"])["beta"].df == 1
        assert store.index_stats([PROJECT]) == IndexStats(2, 3)
        assert store.adjust_standing("missing", 1) is None

    def test_a_record_put_with_negative_standing_is_not_indexed(self, store: Store) -> None:
        store.put(make_record("r1", standing=-1), {"alpha": 1})
        assert store.postings([PROJECT], ["alpha"])["alpha"] == TermPostings(0, ())
        assert store.index_stats([PROJECT]) == IndexStats(0, 0)
        assert store.adjust_standing("r1", 1) == 0
        assert _postings(store.postings([PROJECT], ["alpha"])["alpha"]) == {("r1", 1, 1)}

    def test_unsearchable_records_are_kept_but_never_indexed(self, store: Store) -> None:
        store.put(make_record("ctx", searchable=False), {})
        store.put(make_record("ctx2", searchable=False), {"alpha": 1})
        assert [r.id for r in store.get(["ctx", "ctx2"])] == ["ctx", "ctx2"]
        assert store.count([PROJECT]) == 2
        assert store.index_stats([PROJECT]) == IndexStats(0, 0)
        assert store.postings([PROJECT], ["alpha"])["alpha"] == TermPostings(0, ())
        assert store.adjust_standing("ctx2", 1) == 1
        assert store.postings([PROJECT], ["alpha"])["alpha"] == TermPostings(0, ())

    def test_a_searchable_record_with_no_terms_counts_as_an_empty_document(self, store: Store) -> None:
        store.put(make_record("r1"), {})
        assert store.index_stats([PROJECT]) == IndexStats(1, 0)

    def test_scan_is_oldest_first_then_by_id_and_filters(self, store: Store) -> None:
        store.put(make_record("b", created_at=T0 + 1), {})
        store.put(make_record("a", created_at=T0 + 1, session_id="s2", author="bob"), {})
        store.put(make_record("c", created_at=T0), {})
        store.put(make_record("u", scope=USER, created_at=T0 + 2), {})
        store.put(make_record("o", scope=OTHER, created_at=T0 + 3), {})
        assert [r.id for r in store.scan([PROJECT])] == ["c", "a", "b"]
        assert [r.id for r in store.scan([PROJECT, USER])] == ["c", "a", "b", "u"]
        assert [r.id for r in store.scan(None)] == ["c", "a", "b", "u", "o"]
        assert [r.id for r in store.scan([PROJECT], session_id="s2")] == ["a"]
        assert [r.id for r in store.scan([PROJECT], author="alice")] == ["c", "b"]
        assert [r.id for r in store.scan([PROJECT], before=T0 + 1)] == ["c"]
        assert [r.id for r in store.scan(None, before=T0 + 2.5, author="alice")] == ["c", "b", "u"]

    def test_scan_reads_past_any_page_size(self, store: Store) -> None:
        total = 1030
        for n in range(total):
            store.put(make_record(f"r{n:05d}", created_at=T0 + n // 3), {})
        seen = [r.id for r in store.scan([PROJECT])]
        assert seen == [f"r{n:05d}" for n in range(total)]

    def test_count(self, store: Store) -> None:
        store.put(make_record("a"), {"x": 1})
        store.put(make_record("b", searchable=False), {})
        store.put(make_record("c", scope=USER), {})
        assert store.count([PROJECT]) == 2
        assert store.count([PROJECT, USER]) == 3
        assert store.count([PROJECT, PROJECT]) == 2
        assert store.count(None) == 3
        assert store.count([]) == 0

    def test_session_records_by_position(self, store: Store) -> None:
        for seq in range(5):
            store.put(make_record(f"s1-{seq}", session_id="s1", seq=seq), {})
        store.put(make_record("s2-1", session_id="s2", seq=1), {})
        store.put(make_record("other-1", scope=OTHER, session_id="s1", seq=1), {})
        got = store.session_records(PROJECT, "s1", [3, 1, 9])
        assert [r.id for r in got] == ["s1-1", "s1-3"]
        assert store.session_records(PROJECT, "s1", []) == []
        assert store.session_records(PROJECT, "nope", [1]) == []

    def test_next_position_is_one_past_the_sessions_last(self, store: Store) -> None:
        assert store.next_position(PROJECT, "s1") == 0
        for seq in (0, 1, 4):
            store.put(make_record(f"s1-{seq}", session_id="s1", seq=seq), {})
        store.put(make_record("other-9", scope=OTHER, session_id="s1", seq=9), {})
        store.put(make_record("s2-7", session_id="s2", seq=7), {})
        assert store.next_position(PROJECT, "s1") == 5  # past the highest, not the count
        assert store.next_position(OTHER, "s1") == 10
        assert store.next_position(PROJECT, "nope") == 0
        assert store.next_position(Scope("project", ""), "s1") == 0
        store.delete(["s1-4"])
        assert store.next_position(PROJECT, "s1") == 2

    # -- scoping ---------------------------------------------------------------------------

    def test_an_empty_scope_matches_nothing(self, store: Store) -> None:
        store.put(make_record("r1", session_id="s1", seq=0), {"alpha": 1})
        empty = Scope("project", "")
        assert list(store.scan([empty])) == []
        assert list(store.scan([])) == []
        assert store.count([empty]) == 0
        assert store.index_stats([empty]) == IndexStats(0, 0)
        assert store.index_stats([]) == IndexStats(0, 0)
        assert store.postings([empty], ["alpha"]) == {"alpha": TermPostings(0, ())}
        assert store.postings([], ["alpha"]) == {"alpha": TermPostings(0, ())}
        assert store.session_records(empty, "s1", [0]) == []

    def test_scopes_are_kept_apart(self, store: Store) -> None:
        store.put(make_record("p1"), {"alpha": 1})
        store.put(make_record("o1", scope=OTHER), {"alpha": 2, "beta": 1})
        store.put(make_record("u1", scope=USER), {"alpha": 1})
        assert _postings(store.postings([PROJECT], ["alpha"])["alpha"]) == {("p1", 1, 1)}
        assert store.postings([PROJECT], ["beta"])["beta"] == TermPostings(0, ())
        both = store.postings([PROJECT, USER], ["alpha"])["alpha"]
        assert both.df == 2
        assert _postings(both) == {("p1", 1, 1), ("u1", 1, 1)}
        assert store.index_stats([PROJECT, USER]) == IndexStats(2, 2)
        assert store.index_stats([OTHER]) == IndexStats(1, 3)
        assert [r.id for r in store.scan([OTHER])] == ["o1"]
        assert store.session_records(OTHER, "s1", [0])[0].id == "o1"
        # A scope kind is part of the scope: a user with a project's key is another scope.
        assert store.count([Scope("user", PROJECT.key)]) == 0

    # -- lexical index ---------------------------------------------------------------------

    def test_postings_give_df_tf_and_length(self, store: Store) -> None:
        store.put(make_record("r1"), {"cache": 3, "redis": 1})
        store.put(make_record("r2"), {"cache": 1, "sqlite": 2, "wal": 1})
        found = store.postings([PROJECT], ["cache", "sqlite", "missing", "cache"])
        assert set(found) == {"cache", "sqlite", "missing"}
        assert found["cache"].df == 2
        assert _postings(found["cache"]) == {("r1", 3, 4), ("r2", 1, 4)}
        assert all(isinstance(p, Posting) for p in found["cache"].postings)
        assert found["sqlite"] == TermPostings(1, (Posting("r2", 2, 4),))
        assert found["missing"] == TermPostings(0, ())
        assert store.postings([PROJECT], []) == {}
        assert store.index_stats([PROJECT]) == IndexStats(2, 8)
        assert store.index_stats([PROJECT]).average_length == 4.0

    def test_max_df_skips_common_terms_but_reports_their_df(self, store: Store) -> None:
        for n in range(4):
            store.put(make_record(f"r{n}"), {"common": 1, f"rare{n}": 1})
        store.put(make_record("u0", scope=USER), {"common": 1})
        found = store.postings([PROJECT, USER], ["common", "rare1"], max_df=4)
        assert found["common"] == TermPostings(5, ())
        assert _postings(found["rare1"]) == {("r1", 1, 2)}
        at_limit = store.postings([PROJECT], ["common"], max_df=4)["common"]
        assert at_limit.df == 4
        assert len(at_limit.postings) == 4
        assert len(store.postings([PROJECT, USER], ["common"], max_df=None)["common"].postings) == 5

    def test_max_df_zero_gives_frequencies_without_postings(self, store: Store) -> None:
        store.put(make_record("r1"), {"alpha": 1})
        assert store.postings([PROJECT], ["alpha", "beta"], max_df=0) == {
            "alpha": TermPostings(1, ()),
            "beta": TermPostings(0, ()),
        }

    # -- summing in the store (optional: `SummingPostings`) --------------------------------

    def _summing(self, store: Store) -> SummingPostings:
        if not isinstance(store, SummingPostings):
            pytest.skip("this store does not sum postings itself")
        return store

    def test_top_postings_hold_every_record_that_can_rank_ties_included(self, store: Store) -> None:
        summing = self._summing(store)
        # 40 records over three terms with repeated (tf, length) pairs, so many scores tie, and
        # one in the user scope; a record of another project must never be counted.
        for n in range(40):
            terms = {"alpha": 1 + n % 3, f"pad{n % 4}": 1 + n % 2}
            if n % 5 == 0:
                terms["beta"] = 1
            store.put(make_record(f"r{n:02d}", scope=USER if n == 7 else PROJECT), terms)
        store.put(make_record("x-other", scope=OTHER), {"alpha": 9, "beta": 9})
        scopes, weights = [PROJECT, USER], {"alpha": 0.4, "beta": 1.7, "absent": 2.0}
        average = store.index_stats(scopes).average_length
        every = store.postings(scopes, list(weights))

        def score(record_id: str) -> float:
            total = 0.0
            for term, weight in weights.items():
                for p in every[term].postings:
                    if p.record_id == record_id:
                        total += weight * p.tf * 2.2 / (p.tf + 1.2 * (0.25 + 0.75 * p.length / average))
            return total

        scores = {p.record_id: score(p.record_id) for t in weights for p in every[t].postings}
        ranked = sorted(scores.values(), reverse=True)
        for depth in (1, 5, 12, 40, 100):
            top = summing.top_postings(scopes, weights, depth=depth, average=average, k1=1.2, b=0.75)
            assert set(top) == set(weights)
            assert top["absent"] == ()
            answered = {p.record_id for postings in top.values() for p in postings}
            cut = ranked[min(depth, len(ranked)) - 1] * (1 - SUM_SLACK)
            assert {rid for rid, value in scores.items() if value >= cut} <= answered, depth
            assert "x-other" not in answered
            for term in weights:  # each record answered comes with all of its postings
                assert {p for p in every[term].postings if p.record_id in answered} == set(top[term]), (depth, term)
        assert summing.top_postings(scopes, {}, depth=5, average=average, k1=1.2, b=0.75) == {}
        assert summing.top_postings([], weights, depth=5, average=average, k1=1.2, b=0.75)["alpha"] == ()

    def test_record_postings_read_only_the_records_asked(self, store: Store) -> None:
        summing = self._summing(store)
        store.put(make_record("r1"), {"cache": 3, "redis": 1})
        store.put(make_record("r2"), {"cache": 1, "sqlite": 2})
        store.put(make_record("r3"), {"cache": 2})
        store.put(make_record("u1", scope=USER), {"cache": 1})
        found = summing.record_postings([PROJECT, USER], ["cache", "sqlite", "missing"], ["r1", "u1", "r2", "nope"])
        assert {p.record_id for p in found["cache"]} == {"r1", "r2", "u1"}
        assert set(found["sqlite"]) == {Posting("r2", 2, 3)}
        assert found["missing"] == ()
        assert summing.record_postings([PROJECT], ["cache"], ["u1"]) == {"cache": ()}
        assert summing.record_postings([PROJECT], ["cache"], []) == {"cache": ()}
        # More terms and ids than one statement may bind still get every posting.
        for index in range(950):
            store.put(make_record(f"n{index}"), {"cache": 1, f"word{index}": 1})
        terms = ["cache", *(f"word{index}" for index in range(950))]
        ids = [f"n{index}" for index in range(950)]
        many = summing.record_postings([PROJECT], terms, ids)
        assert {p.record_id for p in many["cache"]} == set(ids)
        assert all({p.record_id for p in many[f"word{index}"]} == {f"n{index}"} for index in range(950))

    # -- picking records by number (optional: `PickedPostings`) -----------------------------

    def test_picked_postings_are_those_of_the_records_picked(self, store: Store) -> None:
        if not isinstance(store, PickedPostings):
            pytest.skip("this store does not number its records")
        store.put(make_record("r1"), {"cache": 3, "redis": 1})
        store.put(make_record("r2"), {"cache": 1, "sqlite": 2})
        store.put(make_record("u1", scope=USER), {"cache": 1})
        store.put(make_record("x1", scope=OTHER), {"cache": 5})
        scopes, terms = [PROJECT, USER], ["cache", "redis", "sqlite", "missing", "cache"]
        every = store.postings(scopes, terms)
        seen: list[Mapping[str, Sequence[NumberedPosting]]] = []

        def pick(found: Mapping[str, Sequence[NumberedPosting]]) -> Collection[int]:
            seen.append(found)
            return {number for number, tf, _ in found["cache"] if tf == 3}  # r1's number

        picked = store.picked_postings(scopes, terms, max_df=None, pick=pick)
        assert len(seen) == 1
        assert set(seen[0]) == {"cache", "redis", "sqlite"}
        for term, offered in seen[0].items():  # every posting is offered, by number
            assert sorted((tf, n) for _, tf, n in offered) == sorted((p.tf, p.length) for p in every[term].postings)
        assert picked == {
            "cache": TermPostings(3, (Posting("r1", 3, 4),)),
            "redis": TermPostings(1, (Posting("r1", 1, 4),)),
            "sqlite": TermPostings(1, ()),
            "missing": TermPostings(0, ()),
        }

        # Terms above max_df are not offered; their df is still given.
        def every_one(found: Mapping[str, Sequence[NumberedPosting]]) -> Collection[int]:
            return {number for offered in found.values() for number, _, _ in offered}

        capped = store.picked_postings(scopes, ["cache", "sqlite"], max_df=1, pick=every_one)
        assert capped == {"cache": TermPostings(3, ()), "sqlite": TermPostings(1, (Posting("r2", 2, 3),))}
        assert store.picked_postings(scopes, ["cache"], max_df=None, pick=lambda found: ())["cache"] == TermPostings(
            3, ()
        )
        assert store.picked_postings([], ["cache"], max_df=None, pick=pick)["cache"] == TermPostings(0, ())

    def test_ranking_of_crowded_queries_is_the_one_every_posting_gives(self, store: Store) -> None:
        from memory_core.store.sqlite import SQLiteStore

        reference = SQLiteStore.from_url("sqlite://")
        try:
            corpus = crowded_corpus()
            _load(reference, corpus)
            _load(store, corpus[::-1])
            plain = WithoutPicking(reference)
            for query in CROWDED_QUERIES:
                for floor in (True, False):
                    expected = _ranked(plain, query, floor=floor)
                    assert _ranked(store, query, floor=floor) == expected, (query, floor)
                    assert _ranked(reference, query, floor=floor) == expected, (query, floor)
        finally:
            reference.close()

    # -- ranking ---------------------------------------------------------------------------

    def test_ranking_finds_what_a_user_expects(self, store: Store) -> None:
        _load(store, ranking_corpus())

        def ids(query: str) -> list[str]:
            return [h.record.id for h in Retriever(store).rank(query, [PROJECT, USER], limit=5)]

        assert ids("why does the billing retry policy time out?")[0] == "s1-0"
        assert ids("rename parsePayload")[0] == "s1-2"
        locked = ids("database is locked")
        assert len({"s1-4", "s2-1"} & set(locked)) == 1  # near-duplicates collapse into one
        deploy = ids("what is on the deploy checklist?")
        assert deploy[0] == "s2-2"
        assert "s2-3" not in deploy  # contradicted
        assert "s2-4" not in deploy  # never searchable
        assert ids("do I prefer pytest?")[0] == "n-user"
        assert ids("what's the weather in Lisbon?") == []
        for query in RANKING_QUERIES:
            assert "n-other" not in ids(query)

    def test_ranking_is_identical_to_the_reference_store(self, store: Store) -> None:
        from memory_core.store.sqlite import SQLiteStore

        reference = SQLiteStore.from_url("sqlite://")
        try:
            corpus = ranking_corpus()
            _load(reference, corpus)
            # Another arrival order must not change anything either.
            _load(store, corpus[::-1])
            for query in RANKING_QUERIES:
                for floor in (True, False):
                    assert _ranked(store, query, floor=floor) == _ranked(reference, query, floor=floor), query
        finally:
            reference.close()

    def test_recall_with_vectors_is_identical_to_the_reference_store(self, store: Store) -> None:
        from memory_core.store.sqlite import SQLiteStore

        reference = SQLiteStore.from_url("sqlite://")
        embedder = HashEmbedder()
        try:
            corpus = ranking_corpus()
            _load(reference, corpus)
            _load_vectors(reference, corpus, embedder)
            _load(store, corpus[::-1])
            _load_vectors(store, corpus[::-1], embedder)
            for query in RANKING_QUERIES:
                for floor in (True, False):
                    got = _ranked_with_vectors(store, query, floor=floor)
                    assert got == _ranked_with_vectors(reference, query, floor=floor), query
        finally:
            reference.close()

    def test_a_record_with_no_vector_yet_is_ranked_by_bm25_alone(self, store: Store) -> None:
        corpus = ranking_corpus()
        _load(store, corpus)
        _load_vectors(store, corpus, HashEmbedder(), skip={"s1-0"})
        hits = Retriever(store, embedder=HashEmbedder()).rank(
            "why does the billing retry policy time out?", [PROJECT, USER], limit=5, floor=False
        )
        assert "s1-0" in [h.record.id for h in hits]

    # -- per-session state -----------------------------------------------------------------

    def test_stash_and_take_by_turn_id(self, store: Store) -> None:
        store.stash_prompt("claude:s1", "t1", "first prompt", ttl=60, keep=8)
        store.stash_prompt("claude:s1", "t2", "second prompt", ttl=60, keep=8)
        store.stash_prompt("claude:s2", "t1", "other session", ttl=60, keep=8)
        assert store.take_prompt("claude:s1", "t1") == "first prompt"
        assert store.take_prompt("claude:s1", "t1") is None
        assert store.take_prompt("claude:s1", "t9") is None
        assert store.take_prompt("claude:s2", "t1") == "other session"
        assert store.take_prompt("claude:s1", "t2") == "second prompt"

    def test_stashing_a_turn_again_replaces_its_prompt(self, store: Store) -> None:
        store.stash_prompt("k", "t1", "draft", ttl=60, keep=8)
        store.stash_prompt("k", "t1", "final", ttl=60, keep=8)
        assert store.take_prompt("k", "t1") == "final"
        assert store.take_prompt("k", "t1") is None

    def test_positional_fallback_takes_the_newest(self, store: Store) -> None:
        store.stash_prompt("k", None, "older", ttl=60, keep=8)
        store.stash_prompt("k", None, "newer", ttl=60, keep=8)
        assert store.take_prompt("k", None) == "newer"
        assert store.take_prompt("k", None) == "older"
        assert store.take_prompt("k", None) is None
        assert store.take_prompt("never-seen", None) is None

    def test_stashed_prompts_expire(self, store: Store) -> None:
        store.stash_prompt("k", "t1", "soon gone", ttl=0.2, keep=8)
        store.stash_prompt("k", None, "soon gone too", ttl=0.2, keep=8)
        store.stash_prompt("k", "t2", "kept", ttl=60, keep=8)
        time.sleep(0.4)
        assert store.take_prompt("k", "t1") is None
        assert store.take_prompt("k", None) == "kept"
        assert store.take_prompt("k", None) is None

    def test_at_most_keep_prompts_are_held_oldest_dropped_first(self, store: Store) -> None:
        for n in range(5):
            store.stash_prompt("k", f"t{n}", f"prompt {n}", ttl=60, keep=3)
        assert store.take_prompt("k", "t0") is None
        assert store.take_prompt("k", "t1") is None
        assert [store.take_prompt("k", f"t{n}") for n in (2, 3, 4)] == ["prompt 2", "prompt 3", "prompt 4"]

    def test_injected_set_and_reset(self, store: Store) -> None:
        assert store.load_session("k") == SessionState(frozenset(), 0.0)
        store.add_injected("k", ["r1", "r2"])
        store.add_injected("k", ["r2", "r3"])
        store.add_injected("k", [])
        store.add_injected("other", ["r9"])
        assert store.load_session("k") == SessionState(frozenset({"r1", "r2", "r3"}), 0.0)
        store.reset_session("k", T0 + 5)
        assert store.load_session("k") == SessionState(frozenset(), T0 + 5)
        store.add_injected("k", ["r4"])
        assert store.load_session("k") == SessionState(frozenset({"r4"}), T0 + 5)
        store.reset_session("k", T0 + 9)
        assert store.load_session("k").live_since == T0 + 9
        assert store.load_session("other").injected == frozenset({"r9"})

    # -- counters and metadata -------------------------------------------------------------

    def test_counters_add_up_from_zero(self, store: Store) -> None:
        assert store.counters() == {}
        store.bump({"recall": 1, "capture": 2})
        store.bump({"recall": 3})
        store.bump({})
        assert store.counters() == {"recall": 4, "capture": 2}

    def test_meta_set_and_overwrite(self, store: Store) -> None:
        assert store.meta() == {}
        store.set_meta({"last_recall": "1.5", "last_ids": "a,b"})
        store.set_meta({"last_recall": "2.5"})
        assert store.meta() == {"last_recall": "2.5", "last_ids": "a,b"}
