"""Outages at the store level, and a hook-style capture against a store that is down or silent.

A server that refuses connections, or accepts them and never answers, must cost a store
call at most its timeout (1 s on the hook path): the call raises `StoreUnavailable`, never
hangs, never retries. The hook-style checks run `MemoryService.handle` in a fresh process,
as a hook does, and compare it with the same hook against the machine's live server (so
imports and machine load count on both sides): the outage adds less than 1.5 s, the turn
lands in the spool, and the log says why.
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
from memory_testing.requirements import require
from memory_testing.servers import (
    closed_port,
    drop_schema,
    flush_redis,
    local_postgres_available,
    redis_server_available,
    silent_server,
    throwaway_redis_url,
)
from memory_testing.store_conformance import PROJECT, make_record

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


_POSTGRES = "postgresql://127.0.0.1:5432/test?user=postgres"
_LIVE = {
    "redis": (lambda: throwaway_redis_url(13), redis_server_available),
    "postgres": (lambda: f"{_POSTGRES}&schema=memtest_outage", local_postgres_available),
}


def _hook_env(url: str, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "MEMORY_URL": url,
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_LOG": str(tmp_path / "memory.log"),
        "MEMORY_PROJECT": "github.com/acme/outage",
        "MEMORY_TIMEOUT": str(_TIMEOUT_S),
        "MEMORY_CONFIG": str(tmp_path / "absent.toml"),
    }


def _run_hook(kind: str, env: dict[str, str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _HOOK, kind, str(cwd)], env=env, capture_output=True, text=True, timeout=60
    )
    return time.monotonic() - started, done


@pytest.mark.parametrize("backend", sorted(_LIVE))
def test_a_hook_facing_an_outage_exits_fast_and_spools_the_turn(
    backend: str, fault: tuple[str, tuple[str, int]], tmp_path: Path
) -> None:
    live, available = _LIVE[backend]
    require(available(), f"a {backend} server, for the no-outage baseline")
    live_url = live()
    try:
        baseline = {kind: min(_run_hook(kind, _hook_env(live_url, tmp_path / "live"), tmp_path)[0] for _ in range(2))
                    for kind in ("read", "write")}  # fmt: skip
    finally:
        if backend == "redis":
            flush_redis(live_url)
        else:
            drop_schema(live_url.split("&schema=", 1)[0], live_url.split("&schema=", 1)[1])
    _, (host, port) = fault
    env = _hook_env(_URLS[backend](host, port), tmp_path)
    for kind in ("read", "write"):
        elapsed, done = _run_hook(kind, env, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout == ""
        extra = elapsed - baseline[kind]
        assert extra < _BOUND_S, f"the outage made the {kind} hook {extra:.2f}s slower ({elapsed:.2f}s in all)"
    assert "spooled" in done.stderr
    spooled = [json.loads(line) for line in (tmp_path / "state" / "spool.jsonl").read_text().splitlines()]
    assert len(spooled) == 1
    assert "billing retry policy" in json.dumps(spooled[0])
    log = (tmp_path / "memory.log").read_text()
    assert str(port) in log


def test_a_long_lived_redis_store_reconnects_when_the_server_comes_back() -> None:
    import shutil

    from memory_testing.servers import redis_server

    require(bool(shutil.which("redis-server")), "redis-server")
    with redis_server() as (host, port):
        store = open_store(f"redis://{host}:{port}/1", timeout=_TIMEOUT_S)
        assert store.put(make_record("r1", "before the outage"), {"before": 1})
    with pytest.raises(StoreUnavailable):
        store.count([PROJECT])
    with redis_server(port=port):
        assert store.put(make_record("r2", "after the outage"), {"after": 1})
        assert store.count([PROJECT]) == 1  # a new, empty server: only what was written since
    store.close()


def test_a_long_lived_postgres_store_reconnects_after_losing_its_connection() -> None:
    import psycopg
    from memory_core.store.postgres import PostgresStore
    from memory_testing.servers import new_schema_name, with_schema

    url = "postgresql://127.0.0.1:5432/test?user=postgres"
    require(local_postgres_available(url), "PostgreSQL on 127.0.0.1:5432 with a database `test`")
    schema = new_schema_name("memoutage")
    store = PostgresStore.from_url(with_schema(f"{url}&application_name={schema}", schema), timeout=_TIMEOUT_S)
    try:
        assert store.put(make_record("r1", "before"), {"before": 1})
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", (schema,)
            )
        with pytest.raises(StoreUnavailable):
            store.count([PROJECT])
        assert store.put(make_record("r2", "after"), {"after": 1})
        assert store.count([PROJECT]) == 2
    finally:
        store.close()
        drop_schema(url, schema)
