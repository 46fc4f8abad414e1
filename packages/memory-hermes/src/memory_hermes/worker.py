"""One background thread that runs the plugin's store work in order, with bounded waits.

Hermes calls hooks synchronously on its agent thread (the gateway on several), and a hook
must return in bounded time whatever the store does. So every job runs on one daemon thread,
in submission order, and a caller waits at most its timeout:

- The service, and the SQLite connection under it, are only ever touched by that thread, so
  concurrent Hermes threads cannot race on them.
- A job that outlives its caller's wait still runs to the end: a late capture is stored (or
  spooled), never dropped. A recall whose caller gave up before it started is dropped
  (`drop_if_late`), so a slow store cannot pile up recalls no one waits for; one already
  running finishes and its answer is discarded.
- At interpreter exit, queued jobs get up to `exit_grace` seconds to finish before the daemon
  thread dies with the process (an exit never hangs on a dead store).

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

__all__ = ["Worker"]

T = TypeVar("T")


class Worker:
    """Runs callables on one lazily started daemon thread, in order."""

    def __init__(self, name: str, *, exit_grace: float) -> None:
        self._name = name
        self._exit_grace = exit_grace
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] = queue.SimpleQueue()
        self._start_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], T]) -> Future[T]:
        """Queue `job`; its future completes when the worker thread has run it."""
        future: Future[T] = Future()
        self._ensure_started()
        self._jobs.put((future, job))
        return future

    def run(self, job: Callable[[], T], *, timeout: float, drop_if_late: bool = False) -> T:
        """Run `job` on the worker and wait at most `timeout` seconds for its result.

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
        if self._thread is None:
            return True
        try:
            self.submit(lambda: None).result(timeout=timeout)
        except TimeoutError:
            return False
        return True

    def _ensure_started(self) -> None:
        with self._start_lock:
            if self._thread is None:
                thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                thread.start()
                atexit.register(self.drain, self._exit_grace)
                self._thread = thread

    def _loop(self) -> None:
        while True:
            future, job = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = job()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller, never kills the thread
                future.set_exception(exc)
            else:
                future.set_result(result)
