"""Capture cost against the length of one session: does turn 10,000 cost what turn 1 did?

    python bench/session_length.py [--turns 10000] [--stores sqlite,redis,postgres] [--json]

For each store, captures `--turns` turns into ONE session through `MemoryService.capture` (the
call the write hook makes), in a throwaway place (a temporary embedded file; Redis database 12
under a project key of its own; a temporary PostgreSQL schema, dropped afterwards). Then it
times 300 more turns of that session interleaved with the first turn of 300 new sessions, and
prints the median and p95 of each and their ratio (`long_x_fresh`: 1.0 means a turn's cost does
not grow with its session), and the store calls of the session's first and last capture (they
must be the same list; exit 1 otherwise). Interleaving makes machine load hit both alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from memory_core.config import Config
from memory_core.service import MemoryService
from memory_core.store import open_store
from memory_core.store.base import Store
from memory_testing.servers import drop_schema, new_schema_name, with_schema

_REDIS = "redis://127.0.0.1:6379/12"
_POSTGRES = "postgresql://127.0.0.1:5432/test?user=postgres"
_WINDOW = 300
"""Captures timed at the end, each series."""


class _Counting:
    """A store wrapper that records the name of every store call (to compare captures)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._store, name)
        if callable(value) and not name.startswith("_"):

            def counted(*args: Any, **kwargs: Any) -> Any:
                self.calls.append(name)
                return value(*args, **kwargs)

            return counted
        return value


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _run(backend: str, turns: int, folder: Path) -> dict[str, Any]:
    schema = None
    if backend == "sqlite":
        url = f"sqlite:///{folder / 'memory.db'}"
    elif backend == "redis":
        url = _REDIS
    else:
        schema = new_schema_name("benchsession")
        url = with_schema(_POSTGRES, schema)
    project = f"git:example.com/bench/session-{uuid.uuid4().hex[:10]}"
    config = Config.from_env(
        {"HOME": str(folder), "MEMORY_URL": url, "MEMORY_STATE_DIR": str(folder / backend), "MEMORY_PROJECT": project}
    )
    store = _Counting(open_store(url, timeout=5.0))
    service = MemoryService(config, store=store)  # type: ignore[arg-type]
    session = f"long-{uuid.uuid4().hex[:10]}"
    long_times: list[float] = []
    fresh_times: list[float] = []
    calls: dict[str, list[str]] = {}

    def capture(session_id: str, n: int) -> float:
        store.calls = []
        started = time.perf_counter()
        outcome = service.capture(
            harness="bench",
            session_id=session_id,
            turn_id=f"t{n}",
            prompt=f"turn {n}: how does the {n % 97} retry policy of module{n % 13} behave?",
            response=f"Module{n % 13} retries {n % 7} times with backoff capped at {n % 11} seconds.",
        )
        elapsed = time.perf_counter() - started
        if outcome.status != "stored":
            raise RuntimeError(f"turn {n} of {session_id} was {outcome.status}: {outcome.reason}")
        return elapsed

    try:
        capture(session, 0)
        calls["first"] = list(store.calls)
        for n in range(1, turns):
            capture(session, n)
        # Interleaved, so that machine load hits both series alike: the next turns of the long
        # session against the first turn of a new session each.
        for n in range(turns, turns + _WINDOW):
            long_times.append(capture(session, n))
            calls["last"] = list(store.calls)
            fresh_times.append(capture(f"fresh-{uuid.uuid4().hex[:10]}", 0))
    finally:
        service.close()
        if schema is not None:
            drop_schema(_POSTGRES, schema)
    result = {
        "store": backend,
        "turns": turns,
        "fresh_p50_ms": round(statistics.median(fresh_times) * 1000, 3),
        "fresh_p95_ms": round(_percentile(fresh_times, 0.95) * 1000, 3),
        "long_p50_ms": round(statistics.median(long_times) * 1000, 3),
        "long_p95_ms": round(_percentile(long_times, 0.95) * 1000, 3),
        "calls_first": calls.get("first", []),
        "calls_last": calls.get("last", []),
    }
    result["long_x_fresh"] = round(result["long_p50_ms"] / result["fresh_p50_ms"], 2)
    return result


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one line per store (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--stores", default="sqlite,redis,postgres")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="memory-bench-session-") as tmp:
        for backend in args.stores.split(","):
            results.append(_run(backend.strip(), args.turns, Path(tmp)))
    for result in results:
        if args.json:
            print(json.dumps(result, sort_keys=True))
            continue
        same = "same calls" if result["calls_first"] == result["calls_last"] else "CALLS DIFFER"
        print(
            f"{result['store']:9} capture at turn {result['turns']:,} of one session: p50 {result['long_p50_ms']} ms"
            f" against {result['fresh_p50_ms']} ms for a new session's first turn (x{result['long_x_fresh']});"
            f" p95 {result['long_p95_ms']} vs {result['fresh_p95_ms']} ms; {same}: {', '.join(result['calls_last'])}"
        )
    return 0 if all(r["calls_first"] == r["calls_last"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
