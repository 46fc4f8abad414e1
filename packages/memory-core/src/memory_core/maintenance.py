"""Deliberate operations over many stored records: prune, scrub and restore.

`MemoryService` is the only caller (its `prune`, `scrub` and `restore` methods are the API the
CLI, the MCP server and a UI use); the functions here take the store and firewall they are
given and nothing else.

Promises: `prune` deletes only the oldest records of the scopes it is given, beyond `keep`;
`scrub` rewrites a record only when the firewall changed its text, and re-indexes it from the
new text, so a redacted secret leaves the index too (a turn's events are scrubbed the same way,
and the paths its events touched stay among its terms); `restore` passes every record through the
firewall before it is stored and never overwrites a record already there. A dry run reads and
counts and writes nothing.

Failure: `StoreUnavailable` / `StoreError` from the store stop an operation where it stands;
what was written stays written, and running it again finishes the job (every write is an
idempotent upsert keyed by the record's id).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from memory_core.firewall import Firewall
from memory_core.models import Record, Scope
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.base import Store, Timelines

__all__ = ["PruneReport", "ScrubReport", "RestoreReport", "prune", "scrub", "restore"]


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
    """What `restore` did: records written, and records skipped because their id was already stored."""

    written: int = 0
    skipped: int = 0


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


def restore(store: Store, firewall: Firewall, records: Iterable[Record]) -> RestoreReport:
    """Store each record after the firewall; a record whose id is already stored is skipped."""
    written = skipped = 0
    for record in records:
        # Restored text passes the firewall too: an export may predate it, or be edited.
        clean = replace(record, text=firewall.scrub(record.text).text)
        if store.put(clean, _terms(clean)):
            written += 1
        else:
            skipped += 1
    return RestoreReport(written=written, skipped=skipped)
