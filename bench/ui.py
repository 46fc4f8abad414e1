"""Time to a full `memory ui` page at N records, as ratios to the interpreter floor of the same run.

    python bench/ui.py --records 100000 [--store URL] [--runs 100] [--json]

Seeds N synthetic coding turns into one project (the latency bench's corpus; a throwaway
embedded store unless --store names one), starts the real `memory ui --no-open` on it, trades
the launch token for the cookie as a browser does, then measures, interleaved so that machine
noise hits every series alike, the wall time from opening a connection to the last byte of:

- `floor`: the interpreter floor, `python -c pass` as a subprocess;
- `overview`: the Overview (doctor's facts, each installed harness's hook check included);
- `memories`: the newest page of the Memories list (50 records, server-side);
- `memories_older`: a page deep in the list (a cursor half-way through the project);
- `memories_session`: the list filtered to one session;
- `search_recall`: Search as recall would inject it (floor, budget, the exact block);
- `search_deliberate`: Search as a deliberate search (floor off, 20 hits).

Goal: every page's p95 within 10x the floor's p95. `--json` prints one line with each series'
p50/p95 in ms and each p95's ratio to the floor (`*_p95_x_floor`).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

# Run as a script, so this folder is on sys.path: the latency bench's corpus is the same here.
from latency import _QUERIES, _project, print_timings, seed, seeded_copy
from memory_core.models import Scope
from memory_core.store import open_store

_GOAL_X_FLOOR = 10.0


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] * 1000.0


def _fetch(port: int, path: str, cookie: str) -> tuple[int, bytes]:
    """One request on a new connection, as a browser's first load of a page makes it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", "Cookie": cookie})
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def _cookie(port: int, launch: str) -> str:
    parts = urlsplit(launch)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", f"{parts.path}?{parts.query}", headers={"Host": f"127.0.0.1:{port}"})
        answer = conn.getresponse()
        answer.read()
        jar = SimpleCookie(answer.headers["set-cookie"])
    finally:
        conn.close()
    (name, morsel), *_ = jar.items()
    return f"{name}={morsel.value}"


def _paths(url: str, project: str, records: int) -> dict[str, str]:
    store = open_store(url, timeout=30.0)
    try:
        scope = Scope("project", project)
        middle = list(store.scan([scope], before=None))[records // 2] if records < 20_000 else None
        if middle is None:  # reading the whole scope to find its middle would dwarf the bench
            from memory_core.store.base import RecordFilter

            page = store.page(scope, RecordFilter(until=time.time() - records * 30.0), limit=1)
            middle = page[0]
        cursor = f"{middle.created_at!r}~{middle.id}"
    finally:
        store.close()
    q = quote(f"project:{project}", safe="")
    return {
        "overview": "/",
        "memories": f"/memories?scope={q}",
        "memories_older": f"/memories?scope={q}&after={quote(cursor, safe='')}",
        "memories_session": f"/memories?scope={q}&session=seed-{records // 48}",
        "search_recall": f"/search?q={quote(_QUERIES[0])}&mode=recall",
        "search_deliberate": f"/search?q={quote(_QUERIES[0])}&mode=search",
    }


def measure(url: str, project: str, runs: int, workdir: Path, records: int) -> dict[str, Any]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "MEMORY_URL": url,
        "MEMORY_PROJECT": project,
        "MEMORY_USER": "bench",
        "XDG_STATE_HOME": str(workdir / "state"),
        "XDG_CONFIG_HOME": str(workdir / "config"),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "memory_core.cli", "ui", "--no-open"],
        env=env,
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        launch = server.stdout.readline().strip()
        port = int(urlsplit(launch).port or 0)
        cookie = _cookie(port, launch)
        paths = _paths(url, project, records)
        series: dict[str, list[float]] = {"floor": [], **{name: [] for name in paths}}
        for name, path in paths.items():  # warm: the first request of each kind pays for imports
            status, body = _fetch(port, path, cookie)
            if status != 200:
                raise SystemExit(f"{name}: HTTP {status}: {body[:300]!r}")
        for _ in range(runs):
            begin = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=env, check=False)
            series["floor"].append(time.perf_counter() - begin)
            for name, path in paths.items():
                begin = time.perf_counter()
                status, _ = _fetch(port, path, cookie)
                series[name].append(time.perf_counter() - begin)
                assert status == 200, (name, status)
    finally:
        server.terminate()
        server.wait(timeout=10)
    floor = _p(series["floor"], 0.95)
    result: dict[str, Any] = {"runs": runs, "floor_p95_ms": round(floor, 2)}
    for name, values in series.items():
        if name == "floor":
            continue
        result[f"{name}_p50_ms"] = round(statistics.median(values) * 1000, 2)
        result[f"{name}_p95_ms"] = round(_p(values, 0.95), 2)
        result[f"{name}_p95_x_floor"] = round(_p(values, 0.95) / floor, 2) if floor else None
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10000)
    parser.add_argument("--store", default=None, help="a store URL (default: a throwaway embedded store)")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="memory-bench-ui-"))
    project = _project(args.records)
    try:
        began = time.perf_counter()
        # The latency bench's cached seed (a copy per run) unless a store is named: seeding
        # 100,000 records anew takes minutes and measures nothing of the pages.
        if args.store:
            url = args.store
            seed(url, project, args.records)
        else:
            url, _ = seeded_copy(args.records, workdir)
        seeded_s = time.perf_counter() - began
        result = measure(url, project, args.runs, workdir, args.records)
        result["records"] = args.records
        result["store"] = url.split(":", 1)[0] if args.store else "sqlite (throwaway)"
        result["seed_s"] = round(seeded_s, 1)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print(f"{result['records']} records in scope, {result['runs']} runs, store {result['store']}")
    print(f"interpreter floor p95       {result['floor_p95_ms']:8.2f} ms")
    print_timings(result)
    worst = max(v for k, v in result.items() if k.endswith("_p95_x_floor") and v is not None)
    print(f"worst page p95 is {worst:.2f}x the floor (goal <= {_GOAL_X_FLOOR:.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
