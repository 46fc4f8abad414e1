"""The timeline part of the store conformance suite (`memory_core.store.base.Timelines`).

Mixed into `StoreConformance`, so every backend proves the same promises: events stored once
per (record, event id), in the order first stored, deleted with their record, kept when the
record is rewritten, and never ranked.
"""

from __future__ import annotations

from memory_core.models import Record, Scope, TimelineEvent
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.base import Store, Timelines

__all__ = ["TimelineConformance"]

_PROJECT = Scope("project", "github.com/acme/timeline")
_OTHER = Scope("project", "github.com/acme/elsewhere")


def _record(record_id: str, text: str, scope: Scope = _PROJECT, created_at: float = 1_760_000_000.0) -> Record:
    return Record(id=record_id, scope=scope, text=text, author="alice", created_at=created_at, session_id="s1")


def _event(event_id: str, text: str = "", kind: str = "tool_result", name: str = "Bash") -> TimelineEvent:
    return TimelineEvent(kind=kind, event_id=event_id, text=text or f"output of {event_id}", name=name)  # type: ignore[arg-type]


def _put(store: Store, record: Record) -> None:
    store.put(record, index_terms(record.text))


class TimelineConformance:
    """Tests of `Timelines`; the subclass provides the `store` fixture."""

    def test_is_a_timeline_store(self, store: Store) -> None:
        assert isinstance(store, Timelines)

    def test_events_round_trip_in_order_with_every_field(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        _put(store, _record("r1", "fix the login bug"))
        events = [
            TimelineEvent("tool_call", "u1:call", '{"file_path": "src/auth/session.ts"}', "Edit", "c1", 1.5),
            TimelineEvent("tool_result", "u2:result", "ok \u00e9\n", "Edit", "c1", 2.0),
            TimelineEvent("injected", "u3", "a reminder", "system_reminder"),
        ]
        assert store.put_events("r1", events) == 3
        assert store.events("r1") == events

    def test_an_event_stored_again_is_stored_once_and_order_is_first_seen(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        _put(store, _record("r1", "a turn"))
        assert store.put_events("r1", [_event("a"), _event("b")]) == 2
        # A re-read from an earlier offset, then the rest of the turn: only c is new.
        assert store.put_events("r1", [_event("a"), _event("b", "changed"), _event("c")]) == 1
        assert [e.event_id for e in store.events("r1")] == ["a", "b", "c"]
        assert store.events("r1")[1].text == "output of b"

    def test_events_of_an_unknown_record_are_not_stored(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        assert store.put_events("nobody", [_event("a")]) == 0
        assert store.events("nobody") == []

    def test_the_same_event_id_behind_two_records_is_two_events(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        _put(store, _record("r1", "one"))
        _put(store, _record("r2", "two"))
        assert store.put_events("r1", [_event("a")]) == 1
        assert store.put_events("r2", [_event("a")]) == 1

    def test_deleting_a_record_deletes_its_events(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        _put(store, _record("r1", "one"))
        store.put_events("r1", [_event("a")])
        assert store.delete(["r1"]) == 1
        assert store.events("r1") == []
        _put(store, _record("r1", "one again"))
        assert store.events("r1") == []  # a record stored again under the id starts empty

    def test_rewriting_a_record_keeps_its_events(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        record = _record("r1", "one")
        _put(store, record)
        store.put_events("r1", [_event("a")])
        store.put(record, {**index_terms(record.text), "session.ts": 1}, replace=True)
        assert [e.event_id for e in store.events("r1")] == ["a"]

    def test_events_are_never_ranked(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        _put(store, _record("r1", "fix the login bug"))
        store.put_events("r1", [_event("a", "zanzibar printed by the migration")])
        assert store.postings([_PROJECT], ["zanzibar"])["zanzibar"].df == 0

    def test_event_usage_is_per_scope_newest_first_in_utf8_bytes(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        _put(store, _record("old", "old turn", created_at=1_760_000_000.0))
        _put(store, _record("new", "new turn", created_at=1_760_000_100.0))
        _put(store, _record("none", "no events", created_at=1_760_000_200.0))
        _put(store, _record("elsewhere", "other project", scope=_OTHER))
        store.put_events("old", [_event("a", "\u00e9\u00e9"), _event("b", "xyz")])
        store.put_events("new", [_event("a", "12345")])
        store.put_events("elsewhere", [_event("a", "zz")])
        assert store.event_usage(_PROJECT) == [("new", 5), ("old", 7)]
        assert store.event_usage(Scope("project", "")) == []

    def test_drop_events_keeps_the_records(self, store: Store) -> None:
        assert isinstance(store, Timelines)
        _put(store, _record("r1", "one"))
        store.put_events("r1", [_event("a"), _event("b")])
        assert store.drop_events(["r1", "r1", "unknown"]) == 2
        assert store.events("r1") == []
        assert store.get(["r1"])
