"""Outages at the store level, and a hook-style capture against a store that is down or silent.

A server that refuses connections, or accepts them and never answers, must cost a store
call at most its timeout (1 s on the hook path): the call raises `StoreUnavailable`, never
hangs, never retries. The hook-style checks run `MemoryService.handle` in a fresh process,
as a hook does: the process finishes within 1.5 s over the interpreter floor, the turn lands
in the spool, and the log says why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from memory_core.errors import StoreUnavailable
from memory_core.store import open_store
from memory_core.testing.servers import closed_port, silent_server
from memory_core.testing.store_conformance import PROJECT, make_record

_TIMEOUT_S = 1.0
_BOUND_S = 1.5
"""The product's promise: a hook facing a dead or silent server is done within 1.5 s."""

_URLS: dict[str, Callable[[str, int], str]] = {
    "redis": lambda host, port: f"redis://{host}:{port}/13",
    "redis-cluster": lambda host, port: f"redis+cluster://{host}:{port}",
    "postgres": lambda host, port: f"postgresql://{host}:{port}/test?user=postgres",
}
_FAULTS: dict[str, Callable[[], AbstractContextManager[tuple[str, int]]]] = {
    "down": closed_port,
    "silent": silent_server,
}


@pytest.fixture(params=sorted(_FAULTS))
def fault(request: pytest.FixtureRequest) -> Iterator[tuple[str, tuple[str, int]]]:
    with _FAULTS[request.param]() as address:
        yield request.param, address


@pytest.mark.parametrize("backend", sorted(_URLS))
@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda store: store.count([PROJECT]), id="read"),
        pytest.param(lambda store: store.put(make_record("r1", "hello"), {"hello": 1}), id="write"),
        pytest.param(lambda store: store.postings([PROJECT], ["hello"]), id="postings"),
    ],
)
def test_a_down_or_silent_server_fails_fast_and_typed(
    backend: str, call: Callable[[object], object], fault: tuple[str, tuple[str, int]]
) -> None:
    _, (host, port) = fault
    store = open_store(_URLS[backend](host, port), timeout=_TIMEOUT_S)
    for _ in range(2):  # and again: a second call is as bounded as the first
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as caught:
            call(store)
        elapsed = time.monotonic() - started
        assert elapsed < _BOUND_S, f"{backend} took {elapsed:.2f}s"
        assert f"{port}" in str(caught.value)
    store.close()


def _floor_s() -> float:
    """The interpreter's own start-up on this machine right now (best of three)."""
    best = float("inf")
    for _ in range(3):
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        best = min(best, time.monotonic() - started)
    return best


_HOOK = """
import sys
from memory_core.models import EventKind, HookEvent
from memory_core.service import MemoryService
kind = EventKind(sys.argv[1])
event = HookEvent(kind=kind, harness="claude", session_id="s-outage", turn_id="t1", cwd=sys.argv[2],
                  prompt="how do we rotate the billing retry policy?" if kind is EventKind.READ else None,
                  response="Run make rotate in billing/." if kind is EventKind.WRITE else None)
recall = MemoryService().handle(event)
sys.stdout.write(recall.text)
sys.stderr.write(recall.reason)
"""


@pytest.mark.parametrize("backend", ["redis", "postgres"])
def test_a_hook_facing_an_outage_exits_fast_and_spools_the_turn(
    backend: str, fault: tuple[str, tuple[str, int]], tmp_path: Path
) -> None:
    _, (host, port) = fault
    env = {
        **os.environ,
        "MEMORY_URL": _URLS[backend](host, port),
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_LOG": str(tmp_path / "memory.log"),
        "MEMORY_PROJECT": "github.com/acme/outage",
        "MEMORY_TIMEOUT": str(_TIMEOUT_S),
        "MEMORY_CONFIG": str(tmp_path / "absent.toml"),
    }
    floor = _floor_s()
    for kind in ("read", "write"):
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", _HOOK, kind, str(tmp_path)], env=env, capture_output=True, text=True, timeout=30
        )
        elapsed = time.monotonic() - started
        assert done.returncode == 0, done.stderr
        assert done.stdout == ""
        assert elapsed - floor < _BOUND_S, f"{kind} hook took {elapsed:.2f}s over a {floor:.2f}s floor"
    assert "spooled" in done.stderr
    spooled = [json.loads(line) for line in (tmp_path / "state" / "spool.jsonl").read_text().splitlines()]
    assert len(spooled) == 1
    assert "billing retry policy" in json.dumps(spooled[0])
    log = (tmp_path / "memory.log").read_text()
    assert str(port) in log
