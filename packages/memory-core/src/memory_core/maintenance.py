"""Deliberate operations over many stored records: prune, scrub and restore, and the export format.

`MemoryService` is the only caller (its `prune`, `scrub` and `restore` methods are the API the
CLI, the MCP server and a UI use); the functions here take the store and firewall they are
given and nothing else.

Promises: `prune` deletes only the oldest records of the scopes it is given, beyond `keep`;
`scrub` rewrites a record only when the firewall changed its text, and re-indexes it from the
new text, so a redacted secret leaves the index too (a turn's events are scrubbed the same way,
and the paths its events touched stay among its terms); `restore` passes every record through the
firewall before it is stored and never overwrites a record already there, and stores each turn's
events through the firewall and the 8 KiB cap again (`prepare(stored=True)`), each at most once.
A dry run reads and counts and writes nothing.

The export format (`export_entry` / `read_entry`): one JSON object a line, a record as the spool
writes it (`record_to_json`), with an `events` list (`TimelineEvent`'s fields) only when the turn
has events; a line without one restores as a turn without events.

Failure: `StoreUnavailable` / `StoreError` from the store stop an operation where it stands;
what was written stays written, and running it again finishes the job (every write is an
idempotent upsert keyed by the record's id).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, get_args

from memory_core.firewall import Firewall
from memory_core.localstate.spool import record_from_json, record_to_json
from memory_core.models import Record, Scope, TimelineEvent, TimelineKind
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.base import Store, Timelines

__all__ = [
    "Exported",
    "PruneReport",
    "ScrubReport",
    "RestoreReport",
    "export_entry",
    "read_entry",
    "prune",
    "scrub",
    "restore",
]

Exported = tuple[Record, Sequence[TimelineEvent]]
"""One line of an export: a record and its events, in order (empty for none)."""

_EVENT_FIELDS = frozenset(f.name for f in fields(TimelineEvent))


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What `prune` did (or, in a dry run, would do).

    Attributes:
        keep: The cap applied: records kept in the scopes, newest first. 0 means no cap was
            set, and nothing was looked at.
        total: Records in the scopes before pruning.
        excess: Records beyond the cap: the ones deleted (or that a dry run would delete).
        deleted: Records actually deleted (0 in a dry run).
        dry_run: Whether nothing was written.
        events_turns: Turns whose timeline was dropped (or would be) to keep the project's
            events within `MEMORY_EVENTS_MAX_BYTES`; the turns themselves stay.
        events_bytes: The bytes of text those timelines held.
    """

    keep: int
    total: int = 0
    excess: int = 0
    deleted: int = 0
    dry_run: bool = False
    events_turns: int = 0
    events_bytes: int = 0


@dataclass(frozen=True, slots=True)
class ScrubReport:
    """What `scrub` did (or would do).

    Attributes:
        changed: Records whose text the firewall changed.
        spooled: Spooled captures (not yet in the store) whose text it changed.
        counts: Redactions by kind (`firewall.<kind>` counter names), summed over those records.
        dry_run: Whether nothing was written.
    """

    changed: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    dry_run: bool = False
    spooled: int = 0


@dataclass(frozen=True, slots=True)
class RestoreReport:
    """What `restore` did.

    Attributes:
        written: Records stored.
        skipped: Records whose id was already stored (left as they were).
        events: Events stored (an event the turn already held is not stored again).
        events_left: Events the file held that were not stored: `MEMORY_EVENTS=0`, or a store
            that keeps no timelines.
    """

    written: int = 0
    skipped: int = 0
    events: int = 0
    events_left: int = 0


def export_entry(record: Record, events: Sequence[TimelineEvent] = ()) -> dict[str, Any]:
    """`record` as one line of `memory export`: with an `events` list when it has events."""
    data = record_to_json(record)
    if events:
        data["events"] = [asdict(event) for event in events]
    return data


def read_entry(data: object) -> Exported:
    """The inverse of `export_entry`. Raises `KeyError`/`TypeError`/`ValueError` on a malformed line."""
    if not isinstance(data, dict):
        raise TypeError("not a JSON object")
    rest = dict(data)
    events = rest.pop("events", [])
    if not isinstance(events, list):
        raise TypeError("events is not a list")
    return record_from_json(rest), tuple(_event_from_json(event) for event in events)


def _event_from_json(data: object) -> TimelineEvent:
    if not isinstance(data, dict) or not data.keys() <= _EVENT_FIELDS:
        raise TypeError(f"not an event: {data!r:.80}")
    event = TimelineEvent(**data)
    if event.kind not in get_args(TimelineKind):
        raise ValueError(f"unknown event kind {event.kind!r}")
    texts = (event.event_id, event.text, event.name, event.call_id)
    if not all(isinstance(text, str) for text in texts) or type(event.at) not in (int, float):
        raise TypeError(f"an event field of the wrong type: {data!r:.80}")
    return event


def _terms(record: Record) -> dict[str, int]:
    return index_terms(record.text) if record.searchable else {}


def _scrub_events(store: Store, firewall: Firewall, record: Record, counts: dict[str, int], *, dry_run: bool) -> bool:
    """Run `firewall` over a turn's events; rewrite them when it changed any. Whether it did."""
    if not isinstance(store, Timelines):
        return False
    from memory_core.timeline.attach import record_terms  # only scrub needs it, never a hook

    events = store.events(record.id)
    scrubbed = [replace(e, text=firewall.scrub(e.text).text) for e in events]
    if scrubbed == events:
        return False
    for before, after in zip(events, scrubbed, strict=True):
        if before.text != after.text:
            for kind, n in firewall.scrub(before.text).counts.items():
                counts[f"firewall.{kind}"] = counts.get(f"firewall.{kind}", 0) + n
    if not dry_run:
        # Events are stored once per id and never overwritten: drop them all and store the clean
        # ones again, in the same order.
        store.drop_events([record.id])
        store.put_events(record.id, scrubbed)
        store.put(record, record_terms(record, scrubbed), replace=True)
    return True


def prune(store: Store, scopes: Sequence[Scope], *, keep: int, dry_run: bool = False) -> PruneReport:
    """Delete the oldest records of `scopes` beyond the newest `keep` (nothing when `keep` is 0)."""
    if keep <= 0:
        return PruneReport(keep=0, dry_run=dry_run)
    ids = [record.id for record in store.scan(scopes)]  # oldest first
    excess = ids[: max(0, len(ids) - keep)]
    if dry_run or not excess:
        return PruneReport(keep=keep, total=len(ids), excess=len(excess), dry_run=dry_run)
    deleted = store.delete(excess)
    return PruneReport(keep=keep, total=len(ids), excess=len(excess), deleted=deleted)


def scrub(store: Store, firewall: Firewall, scopes: Sequence[Scope] | None, *, dry_run: bool = False) -> ScrubReport:
    """Run `firewall` over every record of `scopes` (None: the whole store), rewriting what it changes."""
    changed = 0
    counts: dict[str, int] = {}
    # Listed first: rewriting records while a server-side cursor walks them could revisit one.
    for record in list(store.scan(scopes)):
        scrubbed = firewall.scrub(record.text)
        if scrubbed.text == record.text:
            changed += _scrub_events(store, firewall, record, counts, dry_run=dry_run)
            continue
        changed += 1
        for kind, n in scrubbed.counts.items():
            counts[f"firewall.{kind}"] = counts.get(f"firewall.{kind}", 0) + n
        clean = replace(record, text=scrubbed.text)
        if not _scrub_events(store, firewall, clean, counts, dry_run=dry_run) and not dry_run:
            from memory_core.timeline.attach import record_terms

            events = store.events(record.id) if isinstance(store, Timelines) else []
            store.put(clean, record_terms(clean, events), replace=True)
    if not dry_run and counts:
        store.bump(counts)
    return ScrubReport(changed=changed, counts=counts, dry_run=dry_run)


def restore(store: Store, firewall: Firewall, entries: Iterable[Exported], *, events: bool = True) -> RestoreReport:
    """Store each record after the firewall (a record whose id is already stored is skipped), then
    its events after the firewall and the cap, behind it; with `events` False they are left out.
    """
    from memory_core.timeline.attach import keep  # only a restore with events needs them, never a hook
    from memory_core.timeline.prepare import prepare

    keeps = events and isinstance(store, Timelines)
    written = skipped = kept = left = 0
    for record, timeline in entries:
        # Restored text passes the firewall too: an export may predate it, or be edited.
        clean = replace(record, text=firewall.scrub(record.text).text)
        new = store.put(clean, _terms(clean))
        written += new
        skipped += not new
        if not timeline:
            continue
        if not keeps:
            left += len(timeline)
            continue
        # The record the events go behind is the stored one: a skipped record may differ from the file's.
        target = [clean] if new else store.get([clean.id])
        if target:
            kept += keep(store, target[0], prepare(timeline, firewall, stored=True).events)[0]
    return RestoreReport(written=written, skipped=skipped, events=kept, events_left=left)
