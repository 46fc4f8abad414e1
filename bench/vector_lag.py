"""Seconds from a capture's return until its vectors are stored, turns arriving at a steady rate.

    python bench/vector_lag.py SECONDS_BETWEEN_TURNS TURNS CHARACTERS_PER_TURN

A long-lived service (as the worker's), the model warm first (as after SessionStart); each turn
is captured, then `Vectors.vector_counts` is polled until its vectors are there.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time

from memory_core.config import Config
from memory_core.service import MemoryService
from memory_core.store.base import Vectors

_WORDS = [
    "deploy",
    "port",
    "staging",
    "cache",
    "worker",
    "retry",
    "timeout",
    "schema",
    "migration",
    "index",
    "query",
    "token",
]


def main() -> int:
    every, turns, chars = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    folder = tempfile.mkdtemp()
    env = {"MEMORY_URL": f"sqlite:///{folder}/m.db", "MEMORY_STATE_DIR": folder, "HOME": folder}
    service = MemoryService(Config.from_env({**env, "MEMORY_PROJECT": "lag"}), long_lived=True)
    service.start_vectors()
    time.sleep(2)  # the model is warm, as after SessionStart
    embedder = service.embedder
    store = service.store
    assert embedder is not None
    assert isinstance(store, Vectors)
    rng = random.Random(1)
    lags: list[float] = []
    captures: list[float] = []
    for n in range(turns):
        text = " ".join(rng.choice(_WORDS) for _ in range(chars // 7))[:chars]
        began = time.monotonic()
        service.capture(harness="bench", session_id="s", turn_id=f"t{n}", prompt=f"question {n}", response=text)
        captures.append(time.monotonic() - began)
        while store.vector_counts(None, embedder.model_id)[0] < n + 1:
            time.sleep(0.01)
        lags.append(time.monotonic() - began)
        time.sleep(max(0.0, every - (time.monotonic() - began)))
    lags.sort()
    print(
        f"every {every} s, {turns} turns of {chars} characters: vectors after capture"
        f" p50 {statistics.median(lags):.3f} s, p95 {lags[round(0.95 * (len(lags) - 1))]:.3f} s,"
        f" max {lags[-1]:.3f} s; capture p50 {statistics.median(captures) * 1000:.1f} ms"
    )
    service.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
