"""One background thread that runs a process's store work in order, with bounded waits.

For a process whose callers arrive on threads it does not own, and must not wait on the store
unbounded: Hermes calls its plugin's hooks synchronously on its agent thread (the gateway on
several), and the MCP server's event loop must stay free for its transport. Every job runs on
one daemon thread, in submission order, and a caller waits at most its timeout:

- The service (a `WarmService`), and the SQLite connection under it, are only ever touched by
  that thread, so concurrent callers cannot race on them.
- A job that outlives its caller's wait still runs to the end: a late capture is stored (or
  spooled), never dropped. A recall whose caller gave up before it started is dropped
  (`drop_if_late`), so a slow store cannot pile up recalls no one waits for; one already
  running finishes and its answer is discarded.
- At interpreter exit, queued jobs get up to `exit_grace` seconds to finish before the daemon
  thread dies with the process (an exit never hangs on a dead store). `close` stops the
  thread sooner, once the jobs queued before it ran.

Failure: `run` raises `TimeoutError` when the wait runs out, and re-raises what the job
raised; the thread itself never dies of a job's exception.
"""

from __future__ import annotations

import atexit
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["ServiceThread"]

T = TypeVar("T")


_Queue = queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None]
"""Jobs for one thread; None tells it to stop."""


class ServiceThread:
    """Runs callables on one lazily started daemon thread, in order.

    Args:
        name: The thread's name (seen in a traceback or a profiler).
        exit_grace: Seconds queued jobs get at interpreter exit.
    """

    def __init__(self, name: str, *, exit_grace: float) -> None:
        self._name = name
        self._exit_grace = exit_grace
        self._lock = threading.Lock()
        self._jobs: _Queue | None = None
        self._thread: threading.Thread | None = None
        self._at_exit = False

    def submit(self, job: Callable[[], T]) -> Future[T]:
        """Queue `job`; its future completes when the thread has run it."""
        future: Future[T] = Future()
        with self._lock:
            jobs = self._jobs if self._jobs is not None else self._start()
            jobs.put((future, job))
        return future

    def run(self, job: Callable[[], T], *, timeout: float, drop_if_late: bool = False) -> T:
        """Run `job` on the thread and wait at most `timeout` seconds for its result.

        With `drop_if_late`, a job that has not started when the wait runs out is dropped
        instead of run later: its answer would go to no one, and running it would only delay
        the jobs queued after it.
        """
        future = self.submit(job)
        try:
            return future.result(timeout=timeout)
        except TimeoutError:
            if drop_if_late:
                future.cancel()
            raise

    def drain(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for every job queued so far; returns whether they all ran."""
        if self._jobs is None:
            return True
        try:
            self.submit(lambda: None).result(timeout=timeout)
        except TimeoutError:
            return False
        return True

    def close(self, timeout: float | None = None) -> bool:
        """Stop the thread once the jobs queued so far ran, waiting up to `timeout` (None: no bound).

        Returns whether it stopped in time. A job submitted after `close` starts a new thread.
        """
        with self._lock:
            jobs, thread = self._jobs, self._thread
            self._jobs = self._thread = None
            if jobs is None or thread is None:
                return True
            jobs.put(None)
        thread.join(timeout)
        return not thread.is_alive()

    def _start(self) -> _Queue:
        # Each thread has its own queue, so a thread stopped by `close` never takes a job
        # meant for the one started after it.
        jobs: _Queue = queue.SimpleQueue()
        thread = threading.Thread(target=_serve, args=(jobs,), name=self._name, daemon=True)
        thread.start()
        self._jobs, self._thread = jobs, thread
        if not self._at_exit:
            atexit.register(self.drain, self._exit_grace)
            self._at_exit = True
        return jobs


def _serve(jobs: _Queue) -> None:
    while True:
        item = jobs.get()
        if item is None:
            return
        future, job = item
        if not future.set_running_or_notify_cancel():
            continue
        try:
            result = job()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller, never kills the thread
            future.set_exception(exc)
        else:
            future.set_result(result)
