"""`Store.nearest` cost at N records in one scope, on any store, against the interpreter floor.

    python bench/vectors.py --records 100000 [--store URL] [--passages 1.5] [--runs 50] [--json]

Records are the `retrieval_speed` seed (synthetic coding turns); each gets `--passages` random
unit vectors on average (the development sessions' turns average ~1.5 passages of 600
characters), 384 values like the product's model, written through `Vectors.put_vectors`. The
queries are perturbed copies of stored vectors, so each has a true nearest neighbour. Printed:
the first nearest (it loads the cache), nearest p50/p95 (wall clock), the interpreter floor p95
(`python -c pass`) and the ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_core.store import open_store
from memory_core.store.base import Vectors
from retrieval_speed import _SCOPE, seed

_DIM = 384
_MODEL = "bench-random-384"


def _unit(rng: random.Random) -> list[float]:
    values = [rng.gauss(0.0, 1.0) for _ in range(_DIM)]
    norm = sum(v * v for v in values) ** 0.5
    return [v / norm for v in values]


def _pack(values: Sequence[float]) -> bytes:
    return struct.pack(f"<{_DIM}f", *values)


def _p(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--store")
    parser.add_argument("--passages", type=float, default=1.5)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="vectors-") as folder:
        store = open_store(args.store or f"sqlite:///{folder}/bench.db", timeout=30.0)
        assert isinstance(store, Vectors)
        try:
            seed(store, args.records)
            kept: list[list[float]] = []
            missing = store.vector_counts([_SCOPE], _MODEL)[1]
            began = time.monotonic()
            done = 0
            while True:
                batch = store.unvectored([_SCOPE], _MODEL, limit=500)
                if not batch:
                    break
                for record in batch:
                    count = 1 + (rng.random() < args.passages - 1)
                    vectors = [_unit(rng) for _ in range(count)]
                    if len(kept) < 200:
                        kept.append(vectors[0])
                    store.put_vectors(record.id, _MODEL, [_pack(v) for v in vectors])
                    done += 1
                sys.stderr.write(f"\rvectors {done}/{missing} ({time.monotonic() - began:.0f} s)")
            sys.stderr.write("\n")
            if not kept:
                kept = [_unit(rng) for _ in range(50)]
            queries = []
            for n in range(args.runs):
                base = kept[n % len(kept)]
                noisy = [v + rng.gauss(0.0, 0.02) for v in base]
                norm = sum(v * v for v in noisy) ** 0.5
                queries.append(_pack([v / norm for v in noisy]))
            began = time.perf_counter()
            store.nearest([_SCOPE], _MODEL, queries[0], k=20)
            first = (time.perf_counter() - began) * 1000  # the cache's load: once per process and scope
            timings = []
            for query in queries:
                began = time.perf_counter()
                store.nearest([_SCOPE], _MODEL, query, k=20)
                timings.append((time.perf_counter() - began) * 1000)
        finally:
            store.close()
    floor = []
    for _ in range(20):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        floor.append((time.perf_counter() - began) * 1000)
    result = {
        "records": args.records,
        "first_nearest_ms": round(first, 1),
        "nearest_p50_ms": round(statistics.median(timings), 2),
        "nearest_p95_ms": round(_p(timings, 0.95), 2),
        "floor_p95_ms": round(_p(floor, 0.95), 2),
    }
    result["nearest_p95_x_floor"] = round(result["nearest_p95_ms"] / result["floor_p95_ms"], 3)
    print(json.dumps(result) if args.json else "\n".join(f"{k:>22}: {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
