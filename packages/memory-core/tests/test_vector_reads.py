"""The compact vector form's per-prompt work, each piece against a plain reference: the pool's
scattered reads (`store._rows`, with and without Linux's native asynchronous I/O), the work split
over two threads (`_halves`), the Hamming pool, the exact scores of several queries and the
records' order (`store._vectors`).
"""

from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pytest
from memory_core.store import _rows, _vectors

_DIM = 48


@pytest.fixture
def spill() -> tuple[_vectors._Spill, np.ndarray]:
    rows = np.random.default_rng(3).standard_normal((5_000, _DIM)).astype(np.float32)
    file = _vectors._Spill()
    file.append(rows)
    return file, rows


def _fresh_thread_context(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_rows, "_local", threading.local())


@pytest.mark.parametrize("native", [True, False])
def test_the_pool_reads_every_row_it_is_asked_for(
    spill: tuple[_vectors._Spill, np.ndarray], native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fresh_thread_context(monkeypatch)
    if not native:
        monkeypatch.setattr(_rows, "_CALLS", {})  # no architecture known: a read per row
    file, rows = spill
    rng = np.random.default_rng(4)
    for size in (0, 1, 7, _rows._BATCH + 3, 3 * _rows._BATCH):  # none, one, a few, past a batch
        picked = np.unique(rng.integers(0, len(rows), size)) if size else np.empty(0, dtype=np.intp)
        assert np.array_equal(file.rows(picked, _DIM), rows[picked])
    if not native:
        assert _rows._context() is None


@pytest.mark.skipif(sys.platform != "linux", reason="native asynchronous I/O is Linux's")
def test_linux_reads_a_batch_per_system_call(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_thread_context(monkeypatch)
    context = _rows._context()
    if os.environ.get("CI") and context is None:
        pytest.fail("io_setup refused: the native path is untested here")
    if context is None:
        pytest.skip("io_setup refused by this sandbox")


def test_a_failing_native_read_falls_back_to_a_read_per_row(
    spill: tuple[_vectors._Spill, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    _fresh_thread_context(monkeypatch)
    file, rows = spill
    context = _rows._context()
    if context is None:
        pytest.skip("no native asynchronous I/O here")
    monkeypatch.setattr(_rows._Context, "read", lambda *args: (_ for _ in ()).throw(OSError("refused")))
    picked = np.arange(0, len(rows), 3)
    assert np.array_equal(file.rows(picked, _DIM), rows[picked])
    assert _rows._context() is None  # this thread reads row by row from now on
    assert not context.destroy.alive  # its kernel context is gone (it waited for any read in flight)


def test_a_read_past_the_file_is_an_error(spill: tuple[_vectors._Spill, np.ndarray]) -> None:
    file, rows = spill
    with pytest.raises(OSError, match="read"):
        file.rows(np.array([len(rows) + 5]), _DIM)


def test_two_halves_cover_the_range_once_and_raise_what_fails() -> None:
    for count, least in ((0, 2), (1, 2), (10, 2), (10, 100), (1001, 512)):
        seen = np.zeros(count, dtype=int)

        def work(lo: int, hi: int) -> None:
            seen[lo:hi] += 1  # noqa: B023 - run at once, within the loop

        _vectors._halves(work, count, least)
        assert (seen == 1).all()

    def fails(lo: int, hi: int) -> None:
        if lo:
            raise OSError("the helper's half")

    with pytest.raises(OSError, match="helper"):
        _vectors._halves(fails, 100, 2)


def test_the_scan_is_the_same_split_or_not() -> None:
    rng = np.random.default_rng(8)
    count = 3 * _vectors._CHUNK + 17
    blocks = [rng.integers(0, 2**63, (6, _vectors._CHUNK), dtype=np.uint64) for _ in range(4)]
    queries = rng.integers(0, 2**63, (2, 6), dtype=np.uint64)
    got = _vectors._distances(blocks, count, queries)
    bits = np.concatenate(blocks, axis=1)[:, :count]
    for j, query in enumerate(queries):
        expected = np.bitwise_count(bits ^ query[:, None]).sum(axis=0)
        assert np.array_equal(got[j], expected)


def test_the_pool_is_the_nearest_with_ties_to_the_earlier_passage() -> None:
    rng = np.random.default_rng(9)
    for _ in range(200):
        distance = rng.integers(0, int(rng.integers(1, 40)), int(rng.integers(1, 3_000))).astype(np.uint16)
        take = int(rng.integers(1, len(distance) + 1))
        expected = np.sort(np.argsort(distance, kind="stable")[:take])
        assert np.array_equal(_vectors._pool(distance, take), expected)


def test_several_queries_score_each_row_as_one_query_does() -> None:
    rng = np.random.default_rng(10)
    rows = rng.standard_normal((1_300, _DIM)).astype(np.float32)
    queries = rng.standard_normal((3, _DIM)).astype(np.float32)
    for query, scores in zip(queries, _vectors._exact_each(rows, queries), strict=True):
        assert np.array_equal(scores, _vectors._exact(rows, query))


def test_records_come_best_first_ties_to_the_smaller_id() -> None:
    rng = np.random.default_rng(11)
    for _ in range(100):
        size = int(rng.integers(1, 3_000))
        names = [f"t{n:x}" + "a" * int(n % 13) for n in rng.integers(0, 60, size)]  # ids of several lengths
        ids = np.array([name.encode() for name in names])
        scores = np.round(rng.random(size), int(rng.integers(1, 4)))  # many exact ties
        best: dict[bytes, float] = {}
        for rid, score in zip(ids.tolist(), scores.tolist(), strict=True):
            best[rid] = max(best.get(rid, -2.0), score)
        expected = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        got_ids, got_scores = _vectors._best_first(ids, scores)
        assert list(zip(got_ids.tolist(), got_scores.tolist(), strict=True)) == expected
