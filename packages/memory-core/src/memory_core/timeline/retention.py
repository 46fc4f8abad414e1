"""What bounds a project's events: `MEMORY_EVENTS_MAX_BYTES`, enforced by `memory prune`.

`trim` keeps the events of the newest turns whose events fit in the bound together and drops
the events of every older turn (the turns themselves stay, and still rank). Nothing is deleted
outside `prune`, so a capture never pays for it.
"""

from __future__ import annotations

from memory_core.models import Scope
from memory_core.store.base import Store, Timelines

__all__ = ["trim"]


def trim(store: Store, scope: Scope, *, max_bytes: int, dry_run: bool = False) -> tuple[int, int]:
    """Drop the events of `scope`'s older turns beyond `max_bytes` (0: no bound).

    Returns (turns whose events were, or in a dry run would be, dropped; bytes they held).
    """
    if max_bytes <= 0 or not isinstance(store, Timelines):
        return 0, 0
    total = 0
    over: list[str] = []
    freed = 0
    for record_id, size in store.event_usage(scope):  # newest first
        total += size
        if total > max_bytes:
            over.append(record_id)
            freed += size
    if over and not dry_run:
        store.drop_events(over)
    return len(over), freed
