"""What every store's `Vectors` shares: one nearest-record computation, over one in-process cache.

Reading every vector of a project from a store on each prompt costs hundreds of milliseconds at
10,000 records (measured: 250 ms p50 on SQLite), so each store object keeps, per (scope, model),
the scope's passage vectors in memory (`VectorCache`), brought up to date before each query by
what the store reports as changed since (`VectorSource`):

- vectors added since the cache's last look are appended (one indexed read of the new rows; a
  store's change sequence grows in commit order within a scope);
- a removal anywhere (a record deleted or rewritten, vectors replaced or dropped) reloads the
  scope's entry whole, since which rows went is not recorded.

Scoring is the same on every backend: a float32 product of the cached rows with the query picks
candidates, whose scores are then computed again in float64 from the same float32 values and
rounded to 1e-6, the best passage per record, ties to the smaller id. (A BLAS kernel's summation
order can depend on the rows around a row; the exact second pass makes the answer depend on the
content only.) Candidates the store says are not in the index (not searchable, negative
standing, gone) are skipped and more are taken.

Bounds: a scope entry holds at most `MAX_ROWS` passages (~1.5 KB each); a scope beyond it
answers no neighbours (recall ranks it by BM25 alone; `docs/performance.md`). numpy is imported
on the first query, never when a store is imported (the hook client imports stores without it).

Failure: a vector of another size than the query raises `StoreError`; what the source raises
propagates.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from memory_core._numpy import one_blas_thread
from memory_core.errors import StoreError
from memory_core.store.base import Neighbour

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["VectorCache", "VectorSource", "check_vectors", "MAX_ROWS"]

MAX_ROWS = 120_000
"""Passages one scope entry holds at most: ~180 MB of float32, about 80,000 records of the
development sessions' ~1.5 passages each; beyond it the worker would pass the 300 MB goal."""
_DIGITS = 6
"""Cosines are compared to 1e-6: finer than any difference ranking can use."""
_SLACK = 1e-5
"""How far a float32 score may sit from its float64 recomputation (far less, for unit vectors)."""
_PER_RECORD = 8
"""Rows a record has at most (`embedding.MAX_PASSAGES`): k * this rows hold k distinct records."""

Row = tuple[str, int, bytes]
"""One passage as a source hands it: (record id, its change sequence, float32 bytes)."""


def check_vectors(vectors: Sequence[bytes]) -> None:
    """Raise `StoreError` unless every vector has the same non-zero size, a multiple of 4 bytes."""
    sizes = {len(v) for v in vectors}
    if len(sizes) > 1 or any(size == 0 or size % 4 for size in sizes):
        raise StoreError(f"vectors of one record must share one float32 size, got sizes {sorted(sizes)}")


class VectorSource(Protocol):
    """What a store tells its cache about one (scope, model)."""

    def state(self) -> tuple[int, int]:
        """(the highest change sequence of the scope's vectors, a counter every removal bumps)."""
        ...

    def rows_after(self, sequence: int) -> list[Row]:
        """The scope's passages whose change sequence is above `sequence` (0: all of them)."""
        ...


@dataclass
class _Entry:
    removed: int
    seen: int = 0
    ids: list[str] = field(default_factory=list)
    sequences: set[int] = field(default_factory=set)
    matrix: Any = None
    """(capacity, dim) float32; the first len(ids) rows are the passages. Grown by doubling, so
    a capture's append costs its own rows, not the scope's."""
    overflow: bool = False

    def append(self, rows: Sequence[Row], size: int) -> None:
        one_blas_thread()
        import numpy as np

        if any(len(blob) != size for _, _, blob in rows):
            raise StoreError(f"a stored vector's size differs from the query's {size} bytes")
        dim = size // 4
        count, need = len(self.ids), len(self.ids) + len(rows)
        if self.matrix is None or self.matrix.shape[0] < need or self.matrix.shape[1] != dim:
            grown = np.empty((max(need, 2 * count, 64), dim), dtype=np.float32)
            if self.matrix is not None and count:
                grown[:count] = self.matrix[:count]
            self.matrix = grown
        self.matrix[count:need] = np.frombuffer(b"".join(blob for _, _, blob in rows), dtype="<f4").reshape(-1, dim)
        for record_id, sequence, _ in rows:
            self.ids.append(record_id)
            self.sequences.add(sequence)


class VectorCache:
    """One store object's cache of passage vectors, per (scope name, model). Thread-safe."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every entry (the next query reloads)."""
        with self._lock:
            self._entries.clear()

    def _refresh(self, key: tuple[str, str], source: VectorSource, size: int) -> _Entry:
        latest, removed = source.state()
        entry = self._entries.get(key)
        if entry is None or entry.removed != removed:
            entry = _Entry(removed=removed)
            self._entries[key] = entry
            rows = source.rows_after(0)
        elif latest > entry.seen:
            rows = source.rows_after(entry.seen)
        else:
            return entry
        fresh = [row for row in rows if row[1] not in entry.sequences]
        entry.seen = max([latest, entry.seen, *(row[1] for row in fresh)])
        if not fresh or entry.overflow:
            return entry
        if len(entry.ids) + len(fresh) > MAX_ROWS:
            entry.overflow = True
            entry.ids, entry.sequences, entry.matrix = [], set(), None
            return entry
        entry.append(fresh, size)
        return entry

    def nearest(
        self,
        sources: Sequence[tuple[tuple[str, str], VectorSource]],
        query: bytes,
        k: int,
        ranked: Callable[[Sequence[str]], set[str]],
    ) -> list[Neighbour]:
        """The `k` records of the sources' scopes whose best passage is closest to `query`, among
        those `ranked` keeps (the ids in the index), best first, ties to the smaller id.
        """
        one_blas_thread()
        import numpy as np

        if k <= 0 or not sources:
            return []
        with self._lock:
            entries = [self._refresh(key, source, len(query)) for key, source in sources]
            parts = [e for e in entries if e.ids and not e.overflow]
            if not parts:
                return []
            # Snapshots: an append after the lock is released writes past these lengths only.
            matrices = [e.matrix[: len(e.ids)] for e in parts]
            names = [e.ids for e in parts]  # only ever appended to: indexes below the snapshot hold
        q32 = np.frombuffer(query, dtype="<f4")
        rough = np.concatenate([m @ q32 for m in matrices]) if len(matrices) > 1 else matrices[0] @ q32
        starts = np.cumsum([0, *(len(m) for m in matrices)])
        total = int(starts[-1])

        def gather(picked: Any) -> tuple[Any, list[str]]:
            # The picked rows and their ids without copying whole matrices: each from its own.
            part = np.searchsorted(starts, picked, side="right") - 1
            local = [(p, i - int(starts[p])) for p, i in zip(part.tolist(), picked.tolist(), strict=True)]
            return np.stack([matrices[p][i] for p, i in local]), [names[p][i] for p, i in local]

        want = k * _PER_RECORD
        while True:
            take = min(want, total)
            if take < total:
                order = np.argpartition(-rough, take)
                top, boundary = order[:take], float(rough[order[take]])
            else:
                top, boundary = np.arange(total), -2.0
            best = _exact(*gather(top), q32)
            keep = ranked(sorted(best))
            chosen = sorted(((rid, s) for rid, s in best.items() if rid in keep), key=lambda item: (-item[1], item[0]))
            # Exact once the k-th record beats every row left out: none of them can rank, and no
            # chosen record's best passage was left out.
            if take == total or (len(chosen) >= k and chosen[k - 1][1] > boundary + _SLACK):
                return chosen[:k]
            want *= 4


def _exact(chosen: npt.NDArray[np.float32], ids: Sequence[str], query: npt.NDArray[np.float32]) -> dict[str, float]:
    """Each chosen row's record and its best score, in float64 from the float32 values, rounded."""
    import numpy as np

    scores = np.round(chosen.astype(np.float64) @ query.astype(np.float64), _DIGITS).tolist()
    best: dict[str, float] = {}
    for record_id, score in zip(ids, scores, strict=True):
        if score > best.get(record_id, -2.0):
            best[record_id] = score
    return best
