"""The vector cache at sizes the stores' conformance corpus does not reach (`store._vectors`).

Fed by an in-memory source (the rows a store would hand it), so a scope of 130,000 passages, past
the bound that used to answer no neighbours (120,000), costs seconds rather than a seeded store.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest
from memory_core.store import _vectors
from memory_core.store._vectors import VectorCache

_DIM = 32


class _Source:
    """`count` passages of random unit vectors, two per record, a batch at a time. Reads from
    another thread than the test's (the cache's loader) wait for `gate`.
    """

    def __init__(self, count: int, prefix: str = "r", seed: int = 5) -> None:
        rows = np.random.default_rng(seed).standard_normal((count, _DIM)).astype(np.float32)
        self.rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        self.prefix, self.removed, self.reads = prefix, 0, 0
        self.gate = threading.Event()
        self.gate.set()

    def state(self) -> tuple[int, int]:
        return len(self.rows), self.removed

    def rows_after(self, sequence: int, limit: int) -> list[tuple[str, int, bytes]]:
        if threading.current_thread() is not threading.main_thread():
            assert self.gate.wait(10)
        self.reads += 1
        rows, prefix = self.rows, self.prefix  # one generation per read, as a store's snapshot
        end = min(len(rows), sequence + limit)
        return [(f"{prefix}{n // 2:07d}", n + 1, rows[n].tobytes()) for n in range(sequence, end)]


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
    assert cache.nearest(sources, source.rows[0].tobytes(), 5, _everyone) == []  # loading
    assert cache.wait(120)
    for n in (7, 64_001, 129_998):  # in the exact part, past it, the last passage
        query = source.rows[n]
        found = cache.nearest(sources, query.tobytes(), 5, _everyone)
        assert found[0] == (f"r{n // 2:07d}", 1.0)
        assert [score for _, score in found] == sorted((score for _, score in found), reverse=True)
        assert dict(found).items() <= _exact(source, query).items()  # every score the exact one
    entry = cache._entries[("project", "m")]
    assert entry.matrix is None  # compact: no float32 kept in memory
    assert entry.bits is not None
    assert entry.ids is not None
    held = entry.bits.nbytes() + entry.ids.nbytes()
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

    cache = VectorCache()
    cache.nearest([(("project", "m"), source)], query.tobytes(), 3, in_index)
    assert cache.wait(60)
    found = cache.nearest([(("project", "m"), source)], query.tobytes(), 3, in_index)
    assert len(found) == 3
    assert not hidden & {rid for rid, _ in found}
    assert all(exact[rid] == score for rid, score in found)


def test_several_queries_get_each_its_own_answer_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall asks for two lists at once (the prompt, and the prompt beyond the generic prompts'
    centre): each is the answer its query gets alone, in the exact and in the compact form, and
    the store is asked at most once whether a record is in the index.
    """
    monkeypatch.setattr(_vectors, "EXACT_ROWS", 1_000)
    asked: list[str] = []

    def in_index(ids: Sequence[str]) -> set[str]:
        asked.extend(ids)
        return {rid for rid in ids if not rid.endswith("3")}

    for count in (800, 20_000):  # exact, compact
        source = _Source(count)
        cache = VectorCache()
        cache.nearest([(("project", "m"), source)], source.rows[0].tobytes(), 3, in_index)
        assert cache.wait(60)
        near = source.rows[count - 7]
        beyond = near - 0.75 * source.rows[:50].mean(axis=0)
        queries = [q.astype(np.float32).tobytes() for q in (near, beyond / np.linalg.norm(beyond), source.rows[5])]
        alone = [cache.nearest([(("project", "m"), source)], q, 20, in_index) for q in queries]
        asked.clear()
        together = cache.nearest_each([(("project", "m"), source)], queries, 20, in_index)
        assert together == alone
        assert all(len(found) == 20 for found in together)
        assert len(asked) == len(set(asked))
        exact = _exact(source, near)
        assert together[0][0] == (f"r{(count - 7) // 2:07d}", 1.0)
        assert all(exact[rid] == score for rid, score in together[0])


_BOUND = _vectors.QUERY_ROWS
_QUERY_READS = _vectors.QUERY_ROWS // _vectors._BATCH


def _waits_for(source: _Source, reads: int) -> None:
    for _ in range(1000):
        if source.reads >= reads:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{source.reads} reads, not {reads}")


def test_a_small_scope_answers_exactly_on_its_first_query() -> None:
    source, cache = _Source(_BOUND - 2), VectorCache()
    query = source.rows[_BOUND - 3]
    found = cache.nearest([(("project", "m"), source)], query.tobytes(), 5, _everyone)
    assert found[0] == (f"r{(_BOUND - 3) // 2:07d}", 1.0)
    assert dict(found).items() <= _exact(source, query).items()
    assert cache._loader is None  # no background load was needed


def test_a_large_scope_answers_none_at_once_then_the_exact_neighbours() -> None:
    source, cache = _Source(_BOUND + 3_000), VectorCache()
    sources = [(("project", "m"), source)]
    query = source.rows[_BOUND + 2_001]
    source.gate.clear()  # the loader cannot finish before the assertion
    assert cache.nearest(sources, query.tobytes(), 5, _everyone) == []
    assert source.reads == _QUERY_READS  # the query read its bound, no more
    assert cache.nearest(sources, query.tobytes(), 5, _everyone) == []  # still loading: no wait
    source.gate.set()
    assert cache.wait(30)
    found = cache.nearest(sources, query.tobytes(), 5, _everyone)
    assert found[0] == (f"r{(_BOUND + 2_001) // 2:07d}", 1.0)
    exact = _exact(source, query)
    assert found == sorted(exact.items(), key=lambda item: (-item[1], item[0]))[:5]


def test_a_removal_during_a_load_never_mixes_two_generations() -> None:
    source, cache = _Source(_BOUND + 3_000), VectorCache()
    sources = [(("project", "m"), source)]
    source.gate.clear()
    assert cache.nearest(sources, source.rows[0].tobytes(), 5, _everyone) == []
    old = cache._entries[("project", "m")]
    # A removal: the scope's rows are rewritten (other records, other vectors) mid-load.
    newer = _Source(_BOUND + 1_000, prefix="s", seed=6)
    source.rows, source.prefix, source.removed = newer.rows, "s", 1
    source.gate.set()
    _waits_for(source, _QUERY_READS + 1)  # the loader read on into the new generation
    query = source.rows[_BOUND + 501]
    cache.nearest(sources, query.tobytes(), 5, _everyone)
    assert cache.wait(30)
    found = cache.nearest(sources, query.tobytes(), 5, _everyone)
    assert found[0] == (f"s{(_BOUND + 501) // 2:07d}", 1.0)
    entry = cache._entries[("project", "m")]
    assert entry is not old
    assert entry.ids is not None
    ids = np.concatenate(entry.ids.blocks)[: entry.count]
    assert {rid[:1] for rid in ids.tolist()} == {b"s"}
    assert entry.count == len(source.rows)


def test_a_failing_background_load_is_logged_once_and_retried(caplog: pytest.LogCaptureFixture) -> None:
    source, cache = _Source(5 * _BOUND), VectorCache()
    sources = [(("project", "m"), source)]
    failing = True
    reads = source.rows_after

    def flaky(sequence: int, limit: int) -> list[tuple[str, int, bytes]]:
        if failing and threading.current_thread() is not threading.main_thread():
            raise OSError("store gone")
        return reads(sequence, limit)

    source.rows_after = flaky  # type: ignore[method-assign]
    with caplog.at_level("WARNING"):
        for _ in range(2):
            assert cache.nearest(sources, source.rows[0].tobytes(), 5, _everyone) == []
            assert cache.wait(30)
    assert len([r for r in caplog.records if "store gone" in r.getMessage()]) == 1
    failing = False
    cache.nearest(sources, source.rows[0].tobytes(), 5, _everyone)  # the next query retries
    assert cache.wait(30)
    assert cache.nearest(sources, source.rows[0].tobytes(), 5, _everyone)[0] == ("r0000000", 1.0)
