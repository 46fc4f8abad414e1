"""The plugin's worker thread: order, bounded waits, and no job lost to a caller's timeout."""

from __future__ import annotations

import threading

import pytest
from memory_hermes.worker import Worker


def test_jobs_run_in_order_on_one_thread() -> None:
    worker = Worker("test-worker", exit_grace=1.0)
    seen: list[tuple[int, str]] = []
    futures = [worker.submit(lambda i=i: seen.append((i, threading.current_thread().name))) for i in range(20)]
    for future in futures:
        future.result(timeout=5)
    assert [i for i, _ in seen] == list(range(20))
    assert {name for _, name in seen} == {"test-worker"}


def test_a_caller_stops_waiting_but_the_job_still_completes() -> None:
    worker = Worker("test-worker", exit_grace=1.0)
    release = threading.Event()
    done = threading.Event()

    def slow() -> str:
        release.wait(5)
        done.set()
        return "late"

    with pytest.raises(TimeoutError):
        worker.run(slow, timeout=0.05)
    release.set()
    assert worker.drain(5)
    assert done.is_set()


def test_a_jobs_exception_reaches_its_caller_and_the_thread_survives() -> None:
    worker = Worker("test-worker", exit_grace=1.0)

    def broken() -> None:
        raise RuntimeError("store exploded")

    with pytest.raises(RuntimeError, match="store exploded"):
        worker.run(broken, timeout=5)
    assert worker.run(lambda: 42, timeout=5) == 42


def test_drain_reports_jobs_still_running() -> None:
    worker = Worker("test-worker", exit_grace=1.0)
    assert worker.drain(0.01)  # nothing ever ran: nothing to wait for
    release = threading.Event()
    worker.submit(lambda: release.wait(5))
    assert not worker.drain(0.05)
    release.set()
    assert worker.drain(5)


def test_a_late_job_marked_droppable_never_runs_but_a_capture_does() -> None:
    worker = Worker("test-worker", exit_grace=1.0)
    release = threading.Event()
    ran: list[str] = []
    worker.submit(lambda: release.wait(5))  # a slow store call holds the worker
    with pytest.raises(TimeoutError):
        worker.run(lambda: ran.append("recall"), timeout=0.05, drop_if_late=True)
    with pytest.raises(TimeoutError):
        worker.run(lambda: ran.append("capture"), timeout=0.05)
    release.set()
    assert worker.drain(5)
    assert ran == ["capture"]
