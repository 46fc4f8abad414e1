"""The vector cache at sizes the stores' conformance corpus does not reach (`store._vectors`).

Fed by an in-memory source (the rows a store would hand it), so a scope of 130,000 passages, past
the bound that used to answer no neighbours (120,000), costs seconds rather than a seeded store.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from memory_core.store import _vectors
from memory_core.store._vectors import VectorCache

_DIM = 32


class _Source:
    """`count` passages of random unit vectors, two per record, a batch at a time."""

    def __init__(self, count: int) -> None:
        rows = np.random.default_rng(5).standard_normal((count, _DIM)).astype(np.float32)
        self.rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        self.reads = 0

    def state(self) -> tuple[int, int]:
        return len(self.rows), 0

    def rows_after(self, sequence: int, limit: int) -> list[tuple[str, int, bytes]]:
        self.reads += 1
        end = min(len(self.rows), sequence + limit)
        return [(f"r{n // 2:07d}", n + 1, self.rows[n].tobytes()) for n in range(sequence, end)]


def _everyone(ids: Sequence[str]) -> set[str]:
    return set(ids)


def _exact(source: _Source, query: np.ndarray) -> dict[str, float]:
    """Every record's exact score: its best passage, in float64, rounded to 1e-6."""
    scores = np.round(source.rows.astype(np.float64) @ query.astype(np.float64), 6)
    best: dict[str, float] = {}
    for n, score in enumerate(scores.tolist()):
        record = f"r{n // 2:07d}"
        best[record] = max(best.get(record, -2.0), score)
    return best


def test_a_scope_past_the_old_bound_answers_neighbours_in_bounded_memory() -> None:
    source, cache = _Source(130_000), VectorCache()
    sources = [(("project", "m"), source)]
    for n in (7, 64_001, 129_998):  # in the exact part, past it, the last passage
        query = source.rows[n]
        found = cache.nearest(sources, query.tobytes(), 5, _everyone)
        assert found[0] == (f"r{n // 2:07d}", 1.0)
        assert [score for _, score in found] == sorted((score for _, score in found), reverse=True)
        assert dict(found).items() <= _exact(source, query).items()  # every score the exact one
    entry = cache._entries[("project", "m")]
    assert entry.matrix is None  # compact: no float32 kept in memory
    held = entry.bits.nbytes + entry.ids.nbytes
    assert held < 30 * len(source.rows), f"{held / len(source.rows):.0f} bytes a passage in memory"
    assert source.reads >= len(source.rows) // _vectors._BATCH  # read in batches, never whole


def test_a_scope_past_the_bound_answers_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_vectors, "MAX_ROWS", 1_000)
    source = _Source(1_001)
    assert VectorCache().nearest([(("project", "m"), source)], source.rows[0].tobytes(), 5, _everyone) == []


def test_a_compact_scope_takes_more_when_the_pool_is_mostly_out_of_the_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_vectors, "EXACT_ROWS", 1_000)
    source = _Source(20_000)
    query = source.rows[10_001]
    exact = _exact(source, query)
    ordered = sorted(exact, key=lambda r: (-exact[r], r))
    hidden = set(ordered[: _vectors.POOL * 3])  # more records than the first pool holds

    def in_index(ids: Sequence[str]) -> set[str]:
        return {rid for rid in ids if rid not in hidden}

    found = VectorCache().nearest([(("project", "m"), source)], query.tobytes(), 3, in_index)
    assert len(found) == 3
    assert not hidden & {rid for rid, _ in found}
    assert all(exact[rid] == score for rid, score in found)
