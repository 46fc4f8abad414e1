"""A short-lived cache of the records (and their session neighbours) a server store fetched with `get`.

Recall reads its candidates with `get`, then asks `session_records` for the turns up to
`NEIGHBOUR_SPAN` positions before and after its best ones, one session at a time: a round
trip each on a server. So the Redis and PostgreSQL stores fetch every record within that
span of each candidate in the same round trip as `get` and keep them here;
`session_records` answers from this cache when every position it is asked for was fetched,
and goes to the server otherwise. When recall widens its candidate pool it calls `get`
again with the first pool included: those records come from here too.

It can never answer wrongly for long: entries expire after `_TTL_S`, and any write through
the same store clears it. A neighbour changed by another process within that second is at
worst a second stale, which only shifts a context bonus.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence

from memory_core.models import Record, Scope
from memory_core.store.base import NEIGHBOUR_SPAN

__all__ = ["NeighbourCache", "NEIGHBOUR_SPAN"]

_TTL_S = 1.0
"""How long fetched neighbours are trusted: one recall takes milliseconds."""

_Place = tuple[str, str, str]
"""(scope kind, scope key, session id)."""


class NeighbourCache:
    """Records at (scope, session, seq) positions known to be complete, for a second."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._until = 0.0
        self._known: set[tuple[_Place, int]] = set()
        self._records: dict[tuple[_Place, int], dict[str, Record]] = {}
        self._by_id: dict[str, Record] = {}

    def clear(self) -> None:
        """Forget everything (a write went through this store)."""
        with self._lock:
            self._until = 0.0
            self._known = set()
            self._records = {}
            self._by_id = {}

    def fetched(self, ids: Iterable[str]) -> dict[str, Record]:
        """The records among `ids` that an earlier `get` fetched (with their neighbours) this second."""
        with self._lock:
            if time.monotonic() >= self._until:
                return {}
            return {i: self._by_id[i] for i in ids if i in self._by_id}

    def remember(self, targets: Iterable[Record], around: Iterable[Record]) -> None:
        """Record that every record within `NEIGHBOUR_SPAN` of each target's seq is among `around` or the targets.

        Adds to what is already known while it is fresh, and starts over once it has expired.
        """
        targets = list(targets)
        with self._lock:
            fresh = time.monotonic() < self._until
            known = self._known if fresh else set()
            records = self._records if fresh else {}
            by_id = self._by_id if fresh else {}
            for record in targets:
                by_id[record.id] = record
                if record.session_id:
                    place = (record.scope.kind, record.scope.key, record.session_id)
                    known.update((place, record.seq + offset) for offset in range(-NEIGHBOUR_SPAN, NEIGHBOUR_SPAN + 1))
            for record in [*targets, *around]:
                if record.session_id:
                    position = ((record.scope.kind, record.scope.key, record.session_id), record.seq)
                    if position in known:
                        records.setdefault(position, {})[record.id] = record
            if not fresh:
                self._until = time.monotonic() + _TTL_S
            self._known, self._records, self._by_id = known, records, by_id

    def lookup(self, scope: Scope, session_id: str, seqs: Sequence[int]) -> list[Record] | None:
        """The records at these positions in (seq, id) order, or None if any position was not fetched."""
        place = (scope.kind, scope.key, session_id)
        with self._lock:
            if time.monotonic() >= self._until:
                return None
            if any((place, seq) not in self._known for seq in seqs):
                return None
            found = [r for seq in sorted(set(seqs)) for r in self._records.get((place, seq), {}).values()]
        return sorted(found, key=lambda r: (r.seq, r.id))
