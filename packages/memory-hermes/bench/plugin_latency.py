"""Latency of the Hermes plugin's `pre_llm_call`, in-process, against the core's `assemble`.

    python packages/memory-hermes/bench/plugin_latency.py [--records 100000] [--runs 300] [--json]

Seeds N synthetic coding turns into one project of a throwaway embedded store (with the seeder
of `bench/latency.py`), then measures, interleaved run by run with a fresh session each time:

- `assemble`: `MemoryService.assemble` called directly (the in-process recall figure), on its
  own copy of the store;
- `pre_llm_call`: the plugin hook as Hermes calls it, `pre_llm_call(**kwargs)`, which parses
  the call, hands it to the plugin's worker thread and waits for the answer.

It then points the plugin at a Redis address that accepts connections and never answers, and
times the first turn (which pays the store's 1 s timeout) and the next (which skips the store
while the outage back-off runs). Figures are milliseconds; the plugin's overhead is reported
as the p50 difference and the p95 ratio to `assemble`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import socket
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[3]


def _latency_module() -> Any:
    spec = importlib.util.spec_from_file_location("bench_latency", _ROOT / "bench" / "latency.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] * 1000.0


def _kwargs(prompt: str, run: int) -> dict[str, Any]:
    session = f"bench-{run}"
    return {
        "session_id": session,
        "task_id": "task",
        "turn_id": f"{session}:task:{run:08x}",
        "user_message": prompt,
        "conversation_history": [{"role": "user", "content": prompt}],
        "is_first_turn": True,
        "model": "mock-model",
        "platform": "cli",
        "sender_id": "",
        "telemetry_schema_version": "hermes.observer.v1",
    }


def _silent_port() -> tuple[socket.socket, int]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)  # accepted by the kernel's backlog, never answered
    return listener, listener.getsockname()[1]


def measure(records: int, runs: int, workdir: Path) -> dict[str, Any]:
    """Every figure of the module docstring."""
    latency = _latency_module()
    project = "bench:hermes-plugin"
    url = f"sqlite:///{workdir / 'memory.db'}"
    os.environ.update(
        {
            "MEMORY_URL": url,
            "MEMORY_PROJECT": project,
            "MEMORY_STATE_DIR": str(workdir / "state"),
            "MEMORY_USER": "bench",
        }
    )
    latency.seed(url, project, records)
    # The direct series gets its own copy of the store: two connections writing one SQLite file
    # would make each drop its page cache after the other's writes, a cost neither path has alone.
    shutil.copyfile(workdir / "memory.db", workdir / "direct.db")

    from memory_core.config import Config
    from memory_core.service import MemoryService
    from memory_hermes import callbacks

    direct_config = replace(Config.from_env(), url=f"sqlite:///{workdir / 'direct.db'}", state_dir=workdir / "direct")
    service = MemoryService(direct_config, long_lived=True)
    rng = random.Random(7)
    series: dict[str, list[float]] = {"assemble": [], "pre_llm_call": []}
    injected = 0
    callbacks.pre_llm_call(**_kwargs(latency._QUERIES[0], -1))  # builds the plugin's service
    service.assemble(latency._QUERIES[0], harness="bench", session_id="warm", turn_id="w")
    for run in range(runs):
        query = rng.choice(latency._QUERIES)
        begin = time.perf_counter()
        service.assemble(query, harness="bench", session_id=f"direct-{run}", turn_id="t")
        series["assemble"].append(time.perf_counter() - begin)
        begin = time.perf_counter()
        returned = callbacks.pre_llm_call(**_kwargs(query, run))
        series["pre_llm_call"].append(time.perf_counter() - begin)
        injected += returned is not None

    listener, port = _silent_port()
    try:
        os.environ["MEMORY_URL"] = f"redis://127.0.0.1:{port}/5"
        callbacks._runtime = None  # a new Hermes process, with the store hung
        begin = time.perf_counter()
        callbacks.pre_llm_call(**_kwargs(latency._QUERIES[0], runs + 1))
        hung_first = time.perf_counter() - begin
        begin = time.perf_counter()
        callbacks.pre_llm_call(**_kwargs(latency._QUERIES[1], runs + 2))
        hung_next = time.perf_counter() - begin
    finally:
        listener.close()

    result = {
        "records": records,
        "runs": runs,
        "injected_share": round(injected / runs, 3),
        "assemble_p50_ms": round(_p(series["assemble"], 0.5), 3),
        "assemble_p95_ms": round(_p(series["assemble"], 0.95), 3),
        "pre_llm_call_p50_ms": round(_p(series["pre_llm_call"], 0.5), 3),
        "pre_llm_call_p95_ms": round(_p(series["pre_llm_call"], 0.95), 3),
        "overhead_p50_ms": round(
            statistics.median(b - a for a, b in zip(series["assemble"], series["pre_llm_call"], strict=True)) * 1000, 3
        ),
        "store_hung_first_turn_ms": round(hung_first * 1000, 1),
        "store_hung_next_turn_ms": round(hung_next * 1000, 3),
    }
    result["pre_llm_call_p95_x_assemble"] = round(result["pre_llm_call_p95_ms"] / result["assemble_p95_ms"], 3)
    return result


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--json", action="store_true", help="one JSON line instead of a table")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memory-hermes-bench-") as folder:
        result = measure(args.records, args.runs, Path(folder))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
