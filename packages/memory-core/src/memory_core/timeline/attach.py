"""Storing a turn's events behind its record, and making what they touched find the turn.

`attach` is the one way events reach a store, from the hook path (a plugin's `HookEvent.events`),
the worker (a transcript read after the turn's capture) and `memory import` alike:

- every event passes `prepare` (the firewall, then the 8 KiB cap) before the store sees it;
- events land behind the record of (harness, session id, turn id), the id the hook and an
  import give the turn, so the same event from any of them is stored once (`Timelines`);
- when the new events touched a path or a program the stored ones had not, the record is
  re-indexed with its text's terms plus every touched term (`touched_terms`): the record is
  usually stored before its events are read, and only the record is ranked;
- a turn whose record is not stored (yet, or ever: a voided or spooled turn, a turn the hook
  never saw) keeps no events. A subagent's turn is its own session and names its parent; it
  gets a record of its own that is never recalled (`searchable=False`), so its events are kept
  and reached from it.

`keep` is the last two steps alone, for events whose record is known: `attach` and `memory
restore` (events read back from an export, prepared with `stored=True`) store through it.

Raises what the store raises (`StoreError`, `StoreUnavailable`): the caller decides whether a
lost batch of events is worth a log line (it always is) and never loses the turn for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_core.firewall import Firewall
from memory_core.ids import turn_record_id
from memory_core.models import Record, Scope, TimelineEvent, TurnTimeline
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.base import Store, Timelines
from memory_core.textnorm import clean_text
from memory_core.timeline.prepare import prepare
from memory_core.timeline.touched import touched_terms

__all__ = ["Attached", "attach", "keep", "record_terms"]


@dataclass
class Attached:
    """What `attach` did: events stored, turns re-indexed, and counts for the store's counters."""

    stored: int = 0
    reindexed: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, counts: dict[str, int]) -> None:
        """Add `counts` to the counters to bump."""
        for name, n in counts.items():
            self.counts[name] = self.counts.get(name, 0) + n


def record_terms(record: Record, events: Sequence[TimelineEvent]) -> dict[str, int]:
    """The index terms of a turn: its text's, plus each path and program its events touched once."""
    return _with_touched(record, touched_terms(events)) if record.searchable else {}


def _with_touched(record: Record, touched: dict[str, int]) -> dict[str, int]:
    terms = index_terms(record.text)
    for term in touched:
        terms[term] = terms.get(term, 0) + 1
    return terms


def keep(store: Store, record: Record, events: Sequence[TimelineEvent]) -> tuple[int, bool]:
    """Store `events` (prepared already) behind the stored `record`, re-indexing it when they
    touched a path or a program its stored events had not; returns (events new, re-indexed).
    """
    if not isinstance(store, Timelines):
        return 0, False
    before = touched_terms(store.events(record.id)) if record.searchable else {}
    added = store.put_events(record.id, events)
    if not added or not record.searchable:
        return added, False
    after = touched_terms(store.events(record.id))
    if not after.keys() - before.keys():
        return added, False
    store.put(record, _with_touched(record, after), replace=True)
    return added, True


def attach(
    store: Store,
    firewall: Firewall,
    harness: str,
    turns: Sequence[TurnTimeline],
    *,
    scope: Scope,
    author: str,
    now: float,
) -> Attached:
    """Store `turns`' events behind their records (see the module's promises).

    `scope`, `author` and `now` are those of a subagent's record when one must be made.
    """
    done = Attached()
    if not isinstance(store, Timelines):
        return done
    for turn in turns:
        if not turn.turn_id or not turn.events:
            continue
        prepared = prepare(turn.events, firewall)
        done.add(prepared.counts)
        if not prepared.events:
            continue
        session_id = clean_text(turn.session_id)
        record_id = turn_record_id(harness, session_id, clean_text(turn.turn_id))
        found = store.get([record_id])
        if not found and turn.parent_session_id:
            _subagent_record(store, record_id, harness, session_id, turn, scope=scope, author=author, now=now)
            found = store.get([record_id])
        if not found:
            done.add({"events.orphaned": len(prepared.events)})
            continue
        added, reindexed = keep(store, found[0], prepared.events)
        done.stored += added
        done.reindexed += reindexed
    if done.stored:
        done.add({"events.stored": done.stored})
    return done


def _subagent_record(
    store: Store,
    record_id: str,
    harness: str,
    session_id: str,
    turn: TurnTimeline,
    *,
    scope: Scope,
    author: str,
    now: float,
) -> None:
    """A subagent's turn: a session of its own, naming its parent, kept but never recalled."""
    parent = clean_text(turn.parent_session_id or "")
    first = min((e.at for e in turn.events if e.at > 0), default=now)
    record = Record(
        id=record_id,
        scope=scope,
        text=f"Subagent of session {parent}",
        kind="turn",
        author=author,
        created_at=first,
        harness=harness,
        session_id=session_id,
        turn_id=clean_text(turn.turn_id or ""),
        seq=store.next_position(scope, session_id),
        searchable=False,
    )
    store.put(record, {})
