"""The worker's resident memory with the embedding model, as Claude Code's hooks drive it.

    python bench/worker_memory.py [MEMORY_EMBEDDINGS value] [--store URL --project KEY --settle S]

A real `memory-claude` hook sends `SessionStart` (which starts the worker and loads the model),
then five turns; prints the SessionStart hook's time and output, and the worker's VmRSS/VmHWM
after warming and after the turns. Pass `0` to measure without the model.

With `--store` and `--project`, the worker serves that store and project (say, a copy of
`bench/latency.py --vectors`'s seed, whose project key is `bench:latency-v2-<count>`); a first
prompt then starts the load of the project's vectors into the worker's cache (a `SessionStart`
that starts the worker does not: docs/performance.md), and the bench waits `--settle` seconds for
it before the turns: VmHWM is then the load's peak.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memory_claude.harness import ClaudeHarness
from memory_core.hookpath.client import socket_path, worker_environment
from memory_core.hookpath.worker import stop_worker

_FIXTURES = Path(__file__).resolve().parent.parent / "packages" / "memory-claude" / "fixtures"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("embeddings", nargs="?", help="MEMORY_EMBEDDINGS for the worker (0: no model)")
    parser.add_argument("--store", help="a store URL (default: a new embedded store)")
    parser.add_argument("--project", default="rss", help="the project key the hooks use")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait after SessionStart")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    (folder / "run").mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        {
            "MEMORY_URL": args.store or f"sqlite:///{folder}/m.db",
            "MEMORY_STATE_DIR": str(folder / "state"),
            "XDG_RUNTIME_DIR": str(folder / "run"),
            "MEMORY_PROJECT": args.project,
            "MEMORY_WORKER_IDLE": str(int(max(60, args.settle + 60))),
        }
    )
    if args.embeddings is not None:
        env["MEMORY_EMBEDDINGS"] = args.embeddings

    def hook(name: str, **changes: Any) -> tuple[bytes, float]:
        payload = {**json.loads((_FIXTURES / name).read_text()), **changes}
        began = time.perf_counter()
        done = subprocess.run(
            ClaudeHarness().hook_argv(), input=json.dumps(payload).encode(), env=env, cwd=folder, capture_output=True
        )
        return done.stdout, time.perf_counter() - began

    path = socket_path(worker_environment(env), env)
    out, took = hook("SessionStart.startup.json", session_id="s1")
    print(f"SessionStart printed {out!r} in {took * 1000:.0f} ms")
    lock = Path(path + ".lock")
    for _ in range(200):
        if lock.exists() and lock.read_text().strip():
            break
        time.sleep(0.05)
    pid = lock.read_text().strip()

    def rss() -> list[str]:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        return [line for line in lines if line.startswith(("VmRSS", "VmHWM"))]

    if args.store:
        hook("UserPromptSubmit.json", session_id="s1", prompt_id="p-load", prompt="how do we deploy?")
    time.sleep(args.settle)
    print("after warming", rss())
    answer = "We deploy with tox and a long answer. " * 16
    for n in range(5):
        prompt = f"how do we deploy service number {n}?"
        hook("UserPromptSubmit.json", session_id="s1", prompt_id=f"p{n}", prompt=prompt)
        hook("Stop.json", session_id="s1", prompt_id=f"p{n}", last_assistant_message=answer)
    time.sleep(8)
    print("after 5 turns", rss())
    stop_worker(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
