"""Recall's two neighbour lists, in one pass (`nearest_each`) against two `nearest` calls.

    python bench/two_lists.py --store sqlite:////tmp/memory-bench-seed-v2-100000-vectors.db --records 100000
    python bench/two_lists.py --store redis://127.0.0.1:PORT/1 --records 100000

Reads a store seeded by `bench/latency.py --vectors` (its project, its questions), loads the
product's model, waits for the scope's vectors to load, then for each question times, in the same
process and alternately (so a busy machine slows both alike): the two lists as recall asked for
them before (`nearest` for the prompt's vector, then for it beyond the bank's centre) and as it
asks now (`nearest_each`, one pass), checking that both give the same answers. Prints p50/p95
of each, the interpreter floor's p95 and the ratios. Writes nothing to the store.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import latency
import numpy as np
from memory_core.embedding import load_embedder
from memory_core.models import Scope
from memory_core.retrieval.decision import Bank
from memory_core.retrieval.retriever import _DEPTH, _HUB_WEIGHT
from memory_core.store import open_store
from memory_core.store.base import Vectors


def _p(values: list[float], q: float) -> float:
    return float(latency._p(values, q))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True)
    parser.add_argument("--records", type=int, required=True, help="the seed's size (names its project)")
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    embedder, problem = load_embedder()
    if embedder is None:
        raise SystemExit(f"the embedding model: {problem}")
    bank = Bank(embedder)
    store = open_store(args.store, timeout=30.0, allow_db0=False)
    assert isinstance(store, Vectors)
    scope = [Scope("project", latency._project(args.records))]
    about_file = Path(tempfile.gettempdir()) / f"memory-bench-seed-v2-{args.records}.about.json"
    about = json.loads(about_file.read_text()) if about_file.exists() else []
    rng = random.Random(latency._SEED + 1)
    store.nearest(scope, embedder.model_id, embedder.embed_query("warm").astype("<f4").tobytes(), k=1)
    began = time.monotonic()
    store._vectors.wait(3600)  # type: ignore[attr-defined]
    loaded = time.monotonic() - began
    series: dict[str, list[float]] = {"floor": [], "two_calls": [], "one_pass": []}
    for run in range(args.runs):
        vector = embedder.embed_query(latency._query(rng, about))
        beyond = vector - _HUB_WEIGHT * bank.centre()
        beyond = beyond / max(float(np.linalg.norm(beyond)), 1e-12)
        queries = [np.asarray(v, dtype="<f4").tobytes() for v in (vector, beyond)]
        order = ("two_calls", "one_pass") if run % 2 else ("one_pass", "two_calls")
        answers = {}
        for way in order:
            start = time.perf_counter()
            if way == "two_calls":
                answers[way] = [store.nearest(scope, embedder.model_id, q, k=_DEPTH) for q in queries]
            else:
                answers[way] = store.nearest_each(scope, embedder.model_id, queries, k=_DEPTH)
            series[way].append(time.perf_counter() - start)
        assert answers["two_calls"] == answers["one_pass"], "one pass must answer as two calls do"
        if run % 4 == 0:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            series["floor"].append(time.perf_counter() - start)
    floor = _p(series["floor"], 0.95)
    result = {
        "records": args.records,
        "store": args.store.split(":")[0],
        "load_s": round(loaded, 1),
        "floor_p95_ms": round(floor, 2),
    }
    for way in ("two_calls", "one_pass"):
        result[f"{way}_p50_ms"] = round(_p(series[way], 0.5), 2)
        result[f"{way}_p95_ms"] = round(_p(series[way], 0.95), 2)
        result[f"{way}_p95_x_floor"] = round(_p(series[way], 0.95) / floor, 3)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
