"""The service thread (Hermes's plugin, the MCP server): order, bounded waits, no job lost to a caller's timeout."""

from __future__ import annotations

import threading

import pytest
from memory_core.hookpath.service_thread import ServiceThread


def test_jobs_run_in_order_on_one_thread() -> None:
    thread = ServiceThread("test-worker", exit_grace=1.0)
    seen: list[tuple[int, str]] = []
    futures = [thread.submit(lambda i=i: seen.append((i, threading.current_thread().name))) for i in range(20)]
    for future in futures:
        future.result(timeout=5)
    assert [i for i, _ in seen] == list(range(20))
    assert {name for _, name in seen} == {"test-worker"}


def test_a_caller_stops_waiting_but_the_job_still_completes() -> None:
    thread = ServiceThread("test-worker", exit_grace=1.0)
    release = threading.Event()
    done = threading.Event()

    def slow() -> str:
        release.wait(5)
        done.set()
        return "late"

    with pytest.raises(TimeoutError):
        thread.run(slow, timeout=0.05)
    release.set()
    assert thread.drain(5)
    assert done.is_set()


def test_a_jobs_exception_reaches_its_caller_and_the_thread_survives() -> None:
    thread = ServiceThread("test-worker", exit_grace=1.0)

    def broken() -> None:
        raise RuntimeError("store exploded")

    with pytest.raises(RuntimeError, match="store exploded"):
        thread.run(broken, timeout=5)
    assert thread.run(lambda: 42, timeout=5) == 42


def test_drain_reports_jobs_still_running() -> None:
    thread = ServiceThread("test-worker", exit_grace=1.0)
    assert thread.drain(0.01)  # nothing ever ran: nothing to wait for
    release = threading.Event()
    thread.submit(lambda: release.wait(5))
    assert not thread.drain(0.05)
    release.set()
    assert thread.drain(5)


def test_a_late_job_marked_droppable_never_runs_but_a_capture_does() -> None:
    thread = ServiceThread("test-worker", exit_grace=1.0)
    release = threading.Event()
    ran: list[str] = []
    thread.submit(lambda: release.wait(5))  # a slow store call holds the thread
    with pytest.raises(TimeoutError):
        thread.run(lambda: ran.append("recall"), timeout=0.05, drop_if_late=True)
    with pytest.raises(TimeoutError):
        thread.run(lambda: ran.append("capture"), timeout=0.05)
    release.set()
    assert thread.drain(5)
    assert ran == ["capture"]


def test_close_runs_what_was_queued_then_stops_and_a_later_job_still_runs() -> None:
    thread = ServiceThread("test-worker", exit_grace=1.0)
    ran: list[int] = []
    for i in range(5):
        thread.submit(lambda i=i: ran.append(i))
    first = thread.run(threading.current_thread, timeout=5)
    assert thread.close(5)
    assert ran == [0, 1, 2, 3, 4]
    assert not first.is_alive()
    second = thread.run(threading.current_thread, timeout=5)
    assert second is not first
    assert second.name == "test-worker"
    assert thread.close(5)
    assert not second.is_alive()
