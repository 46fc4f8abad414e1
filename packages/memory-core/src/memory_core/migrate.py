"""Moving memories from one store to another (`memory migrate --to URL`).

`migrate(source, target)` copies every record of every scope, re-indexed from its text and the
paths and programs its events touched with the same tokenizer capture uses (so ranking on the
target is what it was on the source), each turn's timeline (its events, in order), and every
counter, the firewall's drop counts (`firewall.*`) among them.

Idempotent: a record already in the target (same id) is left alone and counted as skipped (its
events are still copied: an event the target holds is stored once),
and counters are copied as the difference between the source's value now and what earlier
runs from the same source already added (remembered in the target's metadata under
`migrate.counters:<source URL>`). Running it twice copies nothing twice; running it again
after the source grew copies only what is new.

Session state (the read-to-write handoff, injected sets) is not copied: it lives for a turn
or a session and is rebuilt by use. The source is only read.

Failure: `StoreUnavailable` / `StoreError` from either store stop the copy where it stands;
what was copied stays copied, and running it again resumes (records already there are
skipped).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from memory_core.store.base import Store, Timelines

__all__ = ["MigrateReport", "Progress", "migrate"]

Progress = Callable[[int, int], None]
"""Called as `progress(done, total)` after each record (done counts copied and skipped records)."""

_COUNTERS_META = "migrate.counters:"


@dataclass(frozen=True, slots=True)
class MigrateReport:
    """What a migration did.

    Attributes:
        source: The source store's display URL.
        target: The target store's display URL.
        copied: Records written to the target.
        skipped: Records the target already held (same id): left untouched.
        counters: Counter increments applied to the target, by name (zero increments left out).
        firewall: The firewall's drop counts as they now stand on the source, by reason.
    """

    source: str
    target: str
    copied: int = 0
    skipped: int = 0
    counters: dict[str, int] = field(default_factory=dict)
    firewall: dict[str, int] = field(default_factory=dict)


def migrate(source: Store, target: Store, *, progress: Progress | None = None) -> MigrateReport:
    """Copy records and counters from `source` to `target`, idempotently (see the module doc)."""
    if source.display_url == target.display_url and source.backend == target.backend:
        raise ValueError(f"source and target are the same store ({source.display_url})")
    total = source.count(None)
    copied = skipped = 0
    from memory_core.timeline.attach import record_terms  # only a migration needs it, never a hook

    reads = source if isinstance(source, Timelines) else None
    keeps = target if isinstance(target, Timelines) else None
    for record in source.scan(None):
        events = reads.events(record.id) if reads is not None and keeps is not None else []
        if target.put(record, record_terms(record, events)):
            copied += 1
        else:
            skipped += 1
        if events and keeps is not None:
            keeps.put_events(record.id, events)
        if progress is not None:
            progress(copied + skipped, max(total, copied + skipped))
    applied = _copy_counters(source, target)
    now = source.counters()
    firewall = {name.removeprefix("firewall."): n for name, n in now.items() if name.startswith("firewall.")}
    return MigrateReport(
        source=source.display_url,
        target=target.display_url,
        copied=copied,
        skipped=skipped,
        counters=applied,
        firewall=firewall,
    )


def _copy_counters(source: Store, target: Store) -> dict[str, int]:
    """Add to the target what the source counted since the last migration from it; remember the new mark."""
    key = _COUNTERS_META + source.display_url
    try:
        before = {str(k): int(v) for k, v in json.loads(target.meta().get(key, "{}")).items()}
    except (ValueError, TypeError, AttributeError):
        before = {}
    now = source.counters()
    delta = {name: value - before.get(name, 0) for name, value in now.items()}
    delta = {name: n for name, n in delta.items() if n}
    if delta:
        target.bump(delta)
    target.set_meta({key: json.dumps(now, sort_keys=True, separators=(",", ":"))})
    return delta
