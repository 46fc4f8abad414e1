"""What every store's `Vectors` shares: one nearest-record computation, over one in-process cache.

Reading every vector of a project from a store on each prompt costs hundreds of milliseconds at
10,000 records (measured: 250 ms p50 on SQLite), so each store object keeps, per (scope, model),
the scope's passage vectors in memory (`VectorCache`), brought up to date before each query by
what the store reports as changed since (`VectorSource`); each store answers `nearest`,
`nearest_each` and `closest` through it by mixing in `CachedVectors`:

- vectors added since the cache's last look are appended (indexed reads of the new rows, `_BATCH`
  at a time; a store's change sequence grows in commit order within a scope);
- a removal anywhere (a record deleted or rewritten, vectors replaced or dropped) reloads the
  scope's entry whole, since which rows went is not recorded.

A query never waits for a big load: it reads at most `QUERY_ROWS` passages itself (a scope of up
to ~6,700 records loads within its first query), and hands the rest to one background thread of
the cache, which reads outside the cache's lock. Until the entry is loaded, queries answer no
neighbours from that scope (recall ranks it by BM25 alone, as records without vectors). Each load
fills its own entry: a removal replaces the scope's entry with a new one, and the loader drops
the one it was filling, so no query sees rows of two generations. A background load that fails
is logged once (`logging`) and hands the entry back: the next query reads on from where it
stopped.

Two forms, by the scope's size:

- **exact** (up to `EXACT_ROWS` passages): float32 rows in memory; a float32 product with the
  query picks candidates, and the answer is provably exact (the k-th record beats every row
  left out);
- **compact** (beyond): each passage is kept as its sign bits around the mean of the scope's
  first `EXACT_ROWS` passages (48 bytes for 384 values) and its float32 values go to an unlinked
  temporary file. A Hamming scan picks a pool of `POOL` times k passages (ties to the earlier
  passage), whose float32 values are read back from the file and scored exactly. The answer is
  exact whenever the true neighbours are in the pool (recall@10 against exact on the
  development sessions' real embeddings: `docs/performance.md`).

Several query vectors share one pass (`nearest_each`: recall's two lists): one product or Hamming
pass over the passages, the compact pools' rows read once for all; each answer is the one its
query gets alone.

Scoring is the same on every backend: candidates' scores are computed in float64 from the stored
float32 values and rounded to 1e-6, the best passage per record, ties to the smaller id. (A BLAS
kernel's summation order can depend on the rows around a row; the second pass sums each row on
its own, so the answer depends on the content only; the compact form's mean and bits depend on the passages and
their order only, which is the same on every store.) Candidates the store says are not in the
index (not searchable, negative standing, gone) are skipped and more are taken.

Bounds: a scope entry holds at most `MAX_ROWS` passages (~100 bytes each in memory in the
compact form, 1.5 KB each in the temporary file); a scope beyond it answers no neighbours (recall
ranks it by BM25 alone). Every array grows by blocks of `_CHUNK` passages (`_Blocks`), so loading
never holds an old and a new copy of what it has read, and the C heap's free pages go back to the
system when a load ends (`_release_heap`). numpy is imported on the first query, never when a
store is imported (the hook client imports stores without it).

Failure: a vector of another size than the query raises `StoreError`; what the source raises,
and an `OSError` of the temporary file, propagate (from the background load: logged, retried by
the next query).
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from memory_core._numpy import one_blas_thread
from memory_core.errors import StoreError
from memory_core.models import Scope
from memory_core.store._shared import live_names
from memory_core.store.base import Neighbour

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "VectorCache",
    "VectorSource",
    "CachedVectors",
    "check_vectors",
    "EXACT_ROWS",
    "MAX_ROWS",
    "POOL",
    "QUERY_ROWS",
]

EXACT_ROWS = 60_000
"""Passages a scope keeps as float32 in memory and scans exactly (~90 MB; ~40,000 records of the
development sessions' ~1.5 passages each). Measured: the exact scan of 75,000 passages costs
0.82x the floor at p95, the compact form over 150,000 0.42-0.57x (`docs/performance.md`)."""
MAX_ROWS = 1_600_000
"""Passages one scope entry holds at most (~1,070,000 records), where memory is the bound:
`bench/vectors.py --direct` at 1,500,000 passages (48 bytes of bits and ~13 of record id a
passage, numpy and the bench's own arrays) measured 151 MB more resident after the load and 184
MB more at its peak (the 92 MB exact form and a batch in flight, as the scope turns compact);
with the worker and its model (75 MB) that is ~225 MB at the peak, under the 300 MB goal with
room to spare. (Before the blocks and the heap's trim: 209 and 271 MB more.) A scope beyond it
answers no neighbours (BM25 alone)."""
POOL = 100
"""The compact scan's pool, in passages per neighbour asked for (2,000 at k = 20). Recall@10
against exact on the development sessions' real embeddings depends on the pool's share of the
scope (`bench/vectors.py --recall`, per half of the projects: 0.66-0.68 at a 1% share, 0.85-0.87
at 3%, 0.94-0.96 at 5-7%, 0.985 at 10-13%). The rerank cost ~4 ms per 1,000 passages with a read
each (~1 µs of it the kernel's, the floor of this form since the reads go in batches, `_rows`): at
2,000, `nearest` at 100,000 records measured 0.42-0.57x the floor on SQLite. A cost choice, not a
recall one: `docs/performance.md`."""
_log = logging.getLogger(__name__)

_BATCH = 5_000
"""Passages read from a store at once (~9 MB of Python objects): a whole 1,000,000-record scope at
once would hold ~2.5 GB."""
QUERY_ROWS = 10_000
"""Passages a query reads itself of a scope the cache lacks (whole batches, at least one); the rest
loads in the background. Loading 150,000 passages measured 0.97-3.4 s through the stores on a
quiet machine (6-23 ms per 1,000) and 1,500,000 from memory 27-53 s under load (18-35 ms per
1,000), so 10,000 cost ~0.06-0.35 s of a hook's 3 s, and a scope of up to 10,000 passages (~6,700
records) still loads within its first query."""
_CHUNK = 32_768
"""Passages the Hamming scan and the compaction take at once: temporaries under ~13 MB."""
_SIGN_ROWS = 4_096
"""Rows turned into sign bits at once when a scope turns compact: a 1.5 MB comparison at a time
beside the 92 MB exact form about to be freed, not 12 MB."""
_EXACT_ROWS = 512
"""Pool rows scored at once (a 1.5 MB float64 copy); the same sums as all at once, and as fast."""
_SPLIT_ROWS = 512
"""Pool rows read on two threads when there are at least this many (`_halves`): below, a thread's
hand-over costs about what it saves."""
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

    def rows_after(self, sequence: int, limit: int) -> list[Row]:
        """The scope's passages whose change sequence is above `sequence` (0: from the first), in
        change order, about `limit` of them (whole records: a few more, never fewer unless the
        scope has no more).
        """
        ...


class _Blocks:
    """Passages' values in blocks of `_CHUNK` along `axis`, so a growing scope never copies what it
    holds: a doubling array's copy (the old and the new arrays side by side) was the compact
    form's peak while a large scope loaded (docs/performance.md), and its spare room a quarter
    of the steady memory.
    """

    def __init__(self, axis: int) -> None:
        self.axis = axis
        self.blocks: list[Any] = []

    def put(self, start: int, values: Any) -> None:
        """Write `values` (along `axis`) at positions `start` onwards; a wider byte string widens
        only its own block.
        """
        import numpy as np

        done, total = 0, values.shape[self.axis]
        while done < total:
            index, offset = divmod(start + done, _CHUNK)
            if index == len(self.blocks):
                shape = list(values.shape)
                shape[self.axis] = _CHUNK
                self.blocks.append(np.empty(shape, dtype=values.dtype))
            block = self.blocks[index]
            if values.dtype.itemsize > block.dtype.itemsize:
                block = self.blocks[index] = block.astype(values.dtype)
            size = min(total - done, _CHUNK - offset)
            if self.axis == 0:
                block[offset : offset + size] = values[done : done + size]
            else:
                block[:, offset : offset + size] = values[:, done : done + size]
            done += size

    def nbytes(self) -> int:
        return sum(int(block.nbytes) for block in self.blocks)


def _filled(blocks: Sequence[Any], count: int) -> list[tuple[int, Any]]:
    """(first position, its rows) of each block kept along axis 0, cut to the first `count` rows."""
    return [(start, blocks[start // _CHUNK][: count - start]) for start in range(0, count, _CHUNK)]


def _take(blocks: Sequence[Any], picked: npt.NDArray[np.intp]) -> Any:
    """The rows `picked` (ascending positions) of blocks kept along axis 0, in that order."""
    import numpy as np

    if not len(picked):
        return blocks[0][:0] if blocks else np.empty(0, dtype="S1")
    where = picked // _CHUNK
    bounds = np.flatnonzero(np.diff(where)) + 1
    return np.concatenate([blocks[int(part[0]) // _CHUNK][part % _CHUNK] for part in np.split(picked, bounds)])


@dataclass
class _Entry:
    removed: int
    seen: int = 0
    count: int = 0
    ids: _Blocks | None = None
    """(`_CHUNK`,) byte strings a block: the record id of each passage, in change order."""
    matrix: _Blocks | None = None
    """Exact form: (`_CHUNK`, dim) float32 a block, the first `count` rows the passages."""
    bits: _Blocks | None = None
    """Compact form: (words, `_CHUNK`) uint64 a block, each passage's signs around `centre`, a
    column per passage (the scan runs word by word over contiguous rows: 4x faster than row by row)."""
    centre: Any = None
    file: _Spill | None = None
    """Compact form: the passages' float32 values, one after another."""
    dim: int = 0
    overflow: bool = False
    loading: bool = False
    """Handed to the loader thread: it alone appends, and no query reads the entry."""
    probed: dict[str, tuple[int, Any]] | None = None
    """`VectorCache.closest`: per probe set, (rows it has seen, each probe's best cosine so far)."""

    def append(self, rows: Sequence[Row], size: int) -> None:
        import numpy as np

        if any(len(blob) != size for _, _, blob in rows) or self.dim not in (0, size // 4):
            raise StoreError(f"a stored vector's size differs from the query's {size} bytes")
        self.dim = size // 4
        if self.bits is None and self.count + len(rows) > EXACT_ROWS:
            # Fill the exact form to its bound, then turn compact: the float32 matrix never
            # outgrows EXACT_ROWS rows, and the centre is the mean of exactly the first ones.
            cut = EXACT_ROWS - self.count
            if cut:
                self.append(rows[:cut], size)
            self._compact()
            rows = rows[cut:]
        block = np.frombuffer(b"".join(blob for _, _, blob in rows), dtype="<f4").reshape(-1, self.dim)
        count, need = self.count, self.count + len(rows)
        if self.ids is None:
            self.ids = _Blocks(axis=0)
        self.ids.put(count, np.array([record_id.encode() for record_id, _, _ in rows]))
        if self.bits is None:
            if self.matrix is None:
                self.matrix = _Blocks(axis=0)
            self.matrix.put(count, block)
        else:
            assert self.file is not None
            self.file.append(block)
            self.bits.put(count, _signs(block, self.centre).T)
        self.count = need

    def _compact(self) -> None:
        """Move the float32 rows to the file and keep their signs: the scope passed `EXACT_ROWS`."""
        import numpy as np

        assert self.matrix is not None
        blocks = _filled(self.matrix.blocks, self.count)
        # The first EXACT_ROWS passages, summed block by block in change order: the same centre
        # whatever batches the rows came in, so the same content gives the same bits.
        total = np.zeros(self.dim, dtype=np.float64)
        for _, block in blocks:
            total += block.sum(axis=0, dtype=np.float64)
        self.centre = (total / self.count).astype(np.float32)
        self.file = _Spill()
        self.bits = _Blocks(axis=1)
        for start, block in blocks:
            self.file.append(block)
            for at in range(0, len(block), _SIGN_ROWS):
                self.bits.put(start + at, _signs(block[at : at + _SIGN_ROWS], self.centre).T)
        self.matrix = None


class _Spill:
    """An unlinked temporary file of float32 rows: nothing is left behind whatever stops the
    process, and its descriptor closes when the last entry or query holding it is gone.
    """

    def __init__(self) -> None:
        fd, path = tempfile.mkstemp(prefix="memory-vectors-")
        os.unlink(path)
        self.fd, self.size = fd, 0
        weakref.finalize(self, os.close, fd)

    def append(self, rows: npt.NDArray[np.float32]) -> None:
        import numpy as np

        data = memoryview(np.ascontiguousarray(rows, dtype="<f4").data).cast("B")  # no copy of a contiguous block
        while data:
            written = os.pwrite(self.fd, data, self.size)
            data, self.size = data[written:], self.size + written

    def rows(self, picked: npt.NDArray[np.intp], dim: int) -> npt.NDArray[np.float32]:
        """The rows `picked`, read straight into the answer's array (`_rows.read_rows`: a batch of
        reads per system call on Linux, a `preadv` per row elsewhere; a `pread` per row made a
        bytes object each and then joined them, 2x slower for 8,000 rows).

        Not through a mapping: one made per query read 2,000 rows 2-7x faster, but the process's
        peak resident memory (VmHWM) rose to 1.9 GB over a 2.3 GB file (the mapped pages count,
        and the kernel maps the pages around each one touched, whatever `madvise` says), past the
        worker's 300 MB goal.
        """
        import numpy as np

        from memory_core.store._rows import read_rows  # on the first query: the hook client never needs it

        width, fd = 4 * dim, self.fd
        out = np.empty((len(picked), dim), dtype="<f4")
        offsets = picked.astype(np.int64) * width
        # The kernel's copy is most of a read (`_rows`), and it runs without the GIL: the two
        # halves on two threads (the prompt's other core waits on the embedding's thread meanwhile).
        read = lambda lo, hi: read_rows(fd, out[lo:hi], offsets[lo:hi], width)  # noqa: E731
        _halves(read, len(offsets), _SPLIT_ROWS)
        return out


def _words(dim: int) -> int:
    return (dim + 63) // 64


def _signs(rows: npt.NDArray[np.float32], centre: npt.NDArray[np.float32]) -> npt.NDArray[np.uint64]:
    """Each row's signs around `centre`, packed 64 to a word."""
    import numpy as np

    packed = np.packbits(rows > centre, axis=1)
    padded = np.zeros((len(rows), _words(rows.shape[1]) * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)


def _distances(blocks: Sequence[Any], count: int, queries: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint16]:
    """Each query's Hamming distance to each of the first `count` passages (columns of `blocks`),
    (queries, count). One pass: each word of a block is read once while every query uses it (two
    queries measured 10.4 ms at 1,500,000 passages against 12.4 ms for two passes).
    """
    import numpy as np

    distance = np.empty((len(queries), count), dtype=np.uint16)

    def scan(lo: int, hi: int) -> None:
        # Every query at once per word (a (queries, passages) operation): a third of the calls
        # of one query at a time, the same sums.
        word = np.empty((len(queries), _CHUNK), np.uint64)
        ones = np.empty((len(queries), _CHUNK), np.uint8)
        column = queries[:, :, None]
        for index in range(lo, hi):
            bits, start = blocks[index], index * _CHUNK
            size = min(count - start, _CHUNK)
            total = distance[:, start : start + size]
            for w in range(bits.shape[0]):
                np.bitwise_xor(bits[w, :size], column[:, w], out=word[:, :size])
                np.bitwise_count(word[:, :size], out=ones[:, :size])
                if w:
                    np.add(total, ones[:, :size], out=total)
                else:
                    total[...] = ones[:, :size]

    # numpy's loops run without the GIL: the blocks in two halves on two threads.
    _halves(scan, min(len(blocks), -(-count // _CHUNK)), 2)
    return distance


_helper: tuple[int, Any] | None = None
_helper_lock = threading.Lock()


def _halves(work: Callable[[int, int], None], count: int, least: int) -> None:
    """`work(0, count)`, as `work(0, half)` in this thread and `work(half, count)` in the cache's
    helper thread at the same time, when `count` is at least `least` (below, in this thread alone).

    A recall's nearest records run on the prompt's thread while the caller's thread, its BM25 read
    done long before the embedding, waits on it: the second core is idle for the scan and the pool's
    reads. Each half writes its own part of the answer, so the result is the one thread's. A
    failure in either half is raised here once both have ended.
    """
    global _helper  # one helper per process (a fork gets its own), like the retriever's threads
    if count < max(least, 2):
        work(0, count)
        return
    pid = os.getpid()
    if _helper is None or _helper[0] != pid:
        with _helper_lock:
            if _helper is None or _helper[0] != pid:
                from concurrent.futures import ThreadPoolExecutor

                _helper = (pid, ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-vectors-half"))
    half = count // 2
    other = _helper[1].submit(work, half, count)
    try:
        work(0, half)
    finally:
        other.result()


def _pool(distance: npt.NDArray[np.uint16], take: int) -> npt.NDArray[np.intp]:
    """The `take` passages nearest in Hamming `distance`, ties to the earlier passage, in passage order."""
    import numpy as np

    # The distance at which `take` passages are reached: every passage nearer, then the earliest at it.
    counts = np.cumsum(np.bincount(distance))
    cut = int(np.searchsorted(counts, take))
    near = np.flatnonzero(distance <= cut)  # one pass over the scope, then only the few kept
    keep = distance[near] < cut
    at = np.flatnonzero(~keep)
    keep[at[: take - (len(near) - len(at))]] = True
    return near[keep]  # in passage order, as `near` is


@dataclass
class _View:
    """What a query reads of one entry, taken under the lock (appends write past it only)."""

    count: int
    ids: list[Any]
    matrix: list[Any] | None
    bits: list[Any] | None
    centre: Any
    file: _Spill | None


class VectorCache:
    """One store object's cache of passage vectors, per (scope name, model). Thread-safe."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()
        self._jobs: dict[tuple[str, str], tuple[_Entry, VectorSource, int]] = {}
        """Entries handed to the loader, one per key (a newer generation replaces an older)."""
        self._loader: threading.Thread | None = None
        self._failed = False
        """A background load failed since the last one that ended: logged once."""

    def clear(self) -> None:
        """Forget every entry (the next query reloads)."""
        with self._lock:
            self._entries.clear()
            self._jobs.clear()

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the background load to end; whether it has. For
        benchmarks and tests: a query never waits.
        """
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                thread = self._loader
            if thread is None or not thread.is_alive():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            thread.join(min(left, 0.05))

    def _refresh(self, key: tuple[str, str], source: VectorSource, size: int) -> _Entry:
        """The key's entry brought up to date by reads of at most `QUERY_ROWS` passages; one still behind
        after them is handed to the loader (`loading`: no query reads it). Called under the lock.
        """
        latest, removed = source.state()
        entry = self._entries.get(key)
        if entry is None or entry.removed != removed:
            entry = _Entry(removed=removed)  # a new generation: the loader drops the old one
            self._entries[key] = entry
        elif entry.loading or latest <= entry.seen:
            return entry
        for _ in range(max(1, QUERY_ROWS // _BATCH)):
            if _read(entry, source, size):
                entry.seen = max(entry.seen, latest)
                return entry
        entry.loading = True
        self._jobs[key] = (entry, source, size)
        if self._loader is None or not self._loader.is_alive():
            self._loader = threading.Thread(target=self._load, name="memory-vectors-load", daemon=True)
            self._loader.start()
        return entry

    def _load(self) -> None:
        """The loader thread: each handed-over entry read to its end outside the lock, then shown
        to queries. An entry a removal or `clear` replaced is dropped; one whose read fails is
        handed back (the next query reads on from where it stopped), logged once.
        """
        while True:
            with self._lock:
                if not self._jobs:
                    self._loader = None
                    _release_heap()
                    return
                key, (entry, source, size) = self._jobs.popitem()
            try:
                # Bounded: each read takes a batch or ends the load, and the scope holds at most
                # MAX_ROWS passages (past them the entry overflows and stops reading).
                # (`_entries.get` outside the lock: a stale answer costs one batch more at most.)
                while self._entries.get(key) is entry and not _read(entry, source, size):
                    pass
                _, removed = source.state()
            except Exception as exc:  # noqa: BLE001 - a store's failure, logged; the next query retries
                if not self._failed:
                    self._failed = True
                    _log.warning("loading a scope's vectors failed, the next query retries: %s", exc)
                with self._lock:
                    entry.loading = False
                continue
            with self._lock:
                if removed != entry.removed and self._entries.get(key) is entry:
                    del self._entries[key]  # removed during the load: the next query reloads it
                entry.loading = False
                self._failed = False

    def closest(
        self, keys: Sequence[tuple[str, str]], probes: bytes, dim: int, key: str, most: int
    ) -> list[float] | None:
        """Each probe's best passage cosine over the passages of the (scope, model) `keys`
        (`probes`: float32 rows of `dim` values, named `key`), rounded to 1e-6: every passage the
        cache holds (records out of the index too) as the last `nearest` over them left it (a key
        it has no entry for has no passage); None when they hold none, more than `most` in all,
        or one is still loading. Kept per entry and brought up to date by the rows added since (a
        removal starts the entry over): a capture costs its own passages' products, and a scope
        `most` rows' at most once.
        """
        one_blas_thread()
        import numpy as np

        if not keys:
            return None
        with self._lock:
            entries = []
            for source_key in keys:
                # As the last `nearest` left it (the retriever asks right after one): no second
                # look at the store on the prompt's path.
                e = self._entries.get(source_key)
                if e is not None and (e.loading or e.overflow or e.bits is not None):
                    return None
                if e is not None:
                    entries.append(e)
            if not any(e.count for e in entries) or sum(e.count for e in entries) > most:
                return None
            best: Any = None
            rows: Any = None  # the probes as float64, made only when a passage is new to them
            for e in entries:
                if not e.count or e.matrix is None:
                    continue
                done, seen = (e.probed or {}).get(key, (0, np.full(len(probes) // (4 * dim), -np.inf)))
                for start, block in _filled(e.matrix.blocks, e.count):
                    part = block[max(0, done - start) :]
                    if len(part):
                        if rows is None:
                            rows = np.frombuffer(probes, dtype="<f4").reshape(-1, dim).astype(np.float64)
                        # float64 products: the same maxima whatever batches the rows came in.
                        seen = np.maximum(seen, (part.astype(np.float64) @ rows.T).max(axis=0))
                e.probed = (e.probed or {}) | {key: (e.count, seen)}
                best = seen if best is None else np.maximum(best, seen)
        if best is None:
            return None
        return [float(x) for x in np.round(best, _DIGITS)]

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
        return self.nearest_each(sources, [query], k, ranked)[0]

    def nearest_each(
        self,
        sources: Sequence[tuple[tuple[str, str], VectorSource]],
        queries: Sequence[bytes],
        k: int,
        ranked: Callable[[Sequence[str]], set[str]],
    ) -> list[list[Neighbour]]:
        """`nearest` for each of `queries`, in one pass over the passages: each answer is the one
        `nearest` gives for that query alone (the same rows, the same sums), but the scan reads
        the passages once (a (passages x dim) @ (dim x n) product, a Hamming pass holding each
        word of bits in the cache for every query), the compact pools' rows are read from the
        file once for all, and `ranked` is asked once per record.
        """
        if k <= 0 or not sources or not queries:
            return [[] for _ in queries]
        one_blas_thread()
        import numpy as np

        size = len(queries[0])
        if any(len(query) != size for query in queries):
            raise StoreError("the queries' vectors differ in size")
        with self._lock:
            views = []
            for key, source in sources:
                e = self._refresh(key, source, size)
                if e.count and not e.overflow and not e.loading and e.ids is not None:
                    bits = list(e.bits.blocks) if e.bits is not None else None
                    matrix = list(e.matrix.blocks) if e.matrix is not None else None
                    views.append(_View(e.count, list(e.ids.blocks), matrix, bits, e.centre, e.file))
        if not views:
            return [[] for _ in queries]
        q32 = np.stack([np.frombuffer(query, dtype="<f4") for query in queries])  # (queries, dim)
        dim = q32.shape[1]
        # Per view: for each query, its rows' float32 scores (exact form) or Hamming distances
        # (compact form), computed in one pass over the view's passages.
        plans: list[tuple[_View, Any, Any]] = []
        for view in views:
            if view.matrix is not None:
                rough = np.concatenate([block @ q32.T for _, block in _filled(view.matrix, view.count)])
                plans.append((view, np.ascontiguousarray(rough.T), None))
            else:
                plans.append((view, None, _distances(view.bits or [], view.count, _signs(q32, view.centre))))
        known: dict[str, bool] = {}

        def in_index(ids: Sequence[str]) -> set[str]:
            """`ranked`, asked only about records no earlier query asked about."""
            new = [rid for rid in ids if rid not in known]
            if new:
                kept = ranked(new)
                known.update((rid, rid in kept) for rid in new)
            return {rid for rid in ids if known[rid]}

        answers: list[list[Neighbour] | None] = [None] * len(queries)
        want = [k * _PER_RECORD] * len(queries)
        while True:
            todo = [j for j, answer in enumerate(answers) if answer is None]
            if not todo:
                return [answer or [] for answer in answers]
            found_ids: dict[int, list[Any]] = {j: [] for j in todo}
            found_scores: dict[int, list[Any]] = {j: [] for j in todo}
            settled = dict.fromkeys(todo, True)  # each view taken whole or its left-out rows provably beaten
            bounds: dict[int, list[float]] = {j: [] for j in todo}
            for view, rough, distance in plans:
                tops: dict[int, Any] = {}
                for j in todo:
                    if rough is not None:
                        take = min(want[j], view.count)
                        if take < view.count:
                            order = np.argpartition(-rough[j], take)
                            tops[j] = np.sort(order[:take])
                            bounds[j].append(float(rough[j][order[take]]))
                        else:
                            tops[j] = np.arange(view.count)
                    else:
                        take = min(POOL * (want[j] // _PER_RECORD), view.count)  # POOL * k, then 4x each round
                    settled[j] = settled[j] and take == view.count
                if rough is None:
                    # Each query's pool on its own thread (a pass over the scope's distances each).
                    takes = [(j, min(POOL * (want[j] // _PER_RECORD), view.count)) for j in todo]

                    def pools(lo: int, hi: int) -> None:
                        for j, take in takes[lo:hi]:  # noqa: B023 - run at once, within the loop
                            tops[j] = _pool(distance[j], take)  # noqa: B023

                    _halves(pools, len(takes), 2)
                if rough is not None:
                    assert view.matrix is not None
                    scores = {j: _exact(_take(view.matrix, top), q32[j]) for j, top in tops.items()}
                else:
                    # One read of every query's pool (the prompt's and the hub-free prompt's share
                    # a fifth of theirs at 100,000 records), each query's rows scored in place: a
                    # row's score is its own sum, whatever rows are scored beside it.
                    assert view.file is not None
                    every = np.unique(np.concatenate(list(tops.values())))
                    rows = view.file.rows(every, dim)
                    each = _exact_each(rows, q32[list(tops)])
                    scores = {j: part[np.searchsorted(every, tops[j])] for j, part in zip(tops, each, strict=True)}
                for j, top in tops.items():
                    found_ids[j].append(_take(view.ids, top))
                    found_scores[j].append(scores[j])
            for j in todo:
                best = _best_first(np.concatenate(found_ids[j]), np.concatenate(found_scores[j]))
                chosen_ids = _kept(*best, k, in_index)
                # Exact once the k-th record beats every row left out of an exact view (none of
                # them can rank); a compact view stops once k records are kept (its pool is the
                # approximation).
                if settled[j] or (len(chosen_ids) >= k and all(chosen_ids[k - 1][1] > b + _SLACK for b in bounds[j])):
                    answers[j] = chosen_ids[:k]
                else:
                    want[j] *= 4


class CachedVectors:
    """`Vectors.nearest`, `nearest_each` and `closest` as every store answers them: over the store
    object's `VectorCache`, keyed (scope name, model). A store mixes it in, sets `_vectors` and
    says where each scope's vectors are read (`_vector_sources`) and which records are in the
    index (`_ranked`).
    """

    _vectors: VectorCache

    def _vector_sources(self, names: Sequence[str], model: str) -> list[tuple[str, VectorSource]]:
        """(scope name, its source) of these scopes' vectors of `model` (a scope without any may be left out)."""
        raise NotImplementedError

    def _ranked(self, ids: Sequence[str]) -> set[str]:
        """Which of `ids` are in the index (searchable, standing not negative)."""
        raise NotImplementedError

    def nearest(self, scopes: Sequence[Scope], model: str, query: bytes, *, k: int) -> list[Neighbour]:
        """Over this store object's cache of the scopes' vectors (`store._vectors`)."""
        return self.nearest_each(scopes, model, [query], k=k)[0]

    def nearest_each(
        self, scopes: Sequence[Scope], model: str, queries: Sequence[bytes], *, k: int
    ) -> list[list[Neighbour]]:
        """`nearest` for each query, in one pass over this store object's cache (`store._vectors`)."""
        names = live_names(scopes)
        if not names or k <= 0:
            return [[] for _ in queries]
        sources = [((name, model), source) for name, source in self._vector_sources(names, model)]
        return self._vectors.nearest_each(sources, queries, k, self._ranked)

    def closest(
        self, scopes: Sequence[Scope], model: str, probes: bytes, *, dim: int, key: str, most: int
    ) -> list[float] | None:
        """Over the same cache as `nearest` (`store._vectors.VectorCache.closest`)."""
        return self._vectors.closest([(name, model) for name in live_names(scopes)], probes, dim, key, most)


def _release_heap() -> None:
    """Give the C heap's free pages back to the system (glibc's `malloc_trim`; nothing elsewhere).

    A load's batches (rows from the store, their joined bytes) are freed but stay resident in
    the heap: 48 MB after loading a 1,000,000-record scope (`bench/vectors.py --direct`: 200 MB
    resident before the trim, 151 MB after), a sixth of the worker's 300 MB goal.
    """
    import ctypes

    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except (OSError, TypeError):  # no C library to ask (Windows)
        return
    if trim is not None:
        trim(0)


def _read(entry: _Entry, source: VectorSource, size: int) -> bool:
    """Append one batch of the rows `entry` lacks; whether it has now caught up (or overflowed)."""
    if entry.overflow:
        return True
    read = source.rows_after(entry.seen, _BATCH)
    rows = [row for row in read if row[1] > entry.seen]
    if not rows:
        return True
    entry.seen = max(entry.seen, max(row[1] for row in rows))
    if entry.count + len(rows) > MAX_ROWS:
        entry.overflow = True
        entry.ids = entry.matrix = entry.bits = entry.file = None
        entry.count = 0
        return True
    entry.append(rows, size)
    return len(read) < _BATCH


def _kept(
    ids: npt.NDArray[np.bytes_], scores: npt.NDArray[np.float64], k: int, ranked: Callable[[Sequence[str]], set[str]]
) -> list[tuple[str, float]]:
    """The first `k` records of `ids` (best first, with their `scores`) that `ranked` keeps, asking
    it about `2k` records at a time: a compact pool holds ~1,300 records, and asking the store
    about all of them cost 40 ms at 100,000 records on SQLite.
    """
    kept: list[tuple[str, float]] = []
    for start in range(0, len(ids), 2 * k):
        part = list(
            zip(
                [i.decode() for i in ids[start : start + 2 * k].tolist()],
                scores[start : start + 2 * k].tolist(),
                strict=True,
            )
        )
        keep = ranked(sorted(rid for rid, _ in part))
        kept.extend(item for item in part if item[0] in keep)
        if len(kept) >= k:
            break
    return kept


def _exact(chosen: npt.NDArray[np.float32], query: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """Each chosen row's score, in float64 from the float32 values, rounded."""
    import numpy as np

    # einsum's own loop, not BLAS: each row's sum depends on that row alone, and for a 2,000-row
    # pool it measured 3-5x faster than a float64 BLAS product on this machine (0.5 against 1.6-14 ms).
    # `_EXACT_ROWS` rows at a time: the float64 copy of a whole 5,000-row pool (15 MB) stayed in
    # the prompt thread's own C heap after each recall (the worker's resident memory, docs).
    q64 = query.astype(np.float64)
    scores = np.empty(len(chosen), dtype=np.float64)
    for start in range(0, len(chosen), _EXACT_ROWS):
        part = chosen[start : start + _EXACT_ROWS].astype(np.float64)
        scores[start : start + len(part)] = np.einsum("ij,j->i", part, q64)
    return np.round(scores, _DIGITS)


def _exact_each(chosen: npt.NDArray[np.float32], queries: npt.NDArray[np.float32]) -> list[npt.NDArray[np.float64]]:
    """`_exact` of every row of `chosen` for each of `queries`: the same sums (the same einsum of
    the same float64 row and query), each block of rows turned to float64 once for all queries
    instead of once per query (the union of recall's two pools, ~8,000 rows at 100,000 records).
    """
    import numpy as np

    q64 = queries.astype(np.float64)
    scores = np.empty((len(queries), len(chosen)), dtype=np.float64)
    for start in range(0, len(chosen), _EXACT_ROWS):
        part = chosen[start : start + _EXACT_ROWS].astype(np.float64)
        for j in range(len(queries)):
            scores[j, start : start + len(part)] = np.einsum("ij,j->i", part, q64[j])
    return list(np.round(scores, _DIGITS))


def _best_first(
    ids: npt.NDArray[np.bytes_], scores: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.bytes_], npt.NDArray[np.float64]]:
    """Each record's best score, best first, ties to the smaller id (its UTF-8 bytes sort as the
    id does).

    The rows best first (a float sort), each record's first row kept (a dictionary, in C), then
    only the rows of runs of equal scores sorted by their ids: sorting all ~5,000 pool rows by
    their ids as byte strings (twice) was 1.5-2 ms a query.
    """
    import numpy as np

    order = np.argsort(-scores, kind="stable")  # best first; a record's first row is its best
    ranked = ids[order].tolist()
    # Each id's first position (assigned from the last to the first, so the first one stays).
    first = dict(zip(reversed(ranked), range(len(ranked) - 1, -1, -1), strict=True))
    picked = order[np.sort(np.fromiter(first.values(), dtype=np.intp, count=len(first)))]
    ids, scores = ids[picked], scores[picked]
    tied = np.zeros(len(ids), dtype=bool)
    same = scores[1:] == scores[:-1]
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():
        # The rows in runs of equal scores (hundreds in a pool of near-copies: scores are rounded
        # to 1e-6), each run in id order, in one sort of those rows alone by (run, id).
        run = np.cumsum(np.concatenate(([True], ~same)))
        where = np.flatnonzero(tied)
        placed = np.arange(len(ids))
        placed[where] = where[np.lexsort((ids[where], run[where]))]
        ids, scores = ids[placed], scores[placed]
    return ids, scores
