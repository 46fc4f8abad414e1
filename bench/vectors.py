"""`Store.nearest` cost at N records in one scope, on any store, against the interpreter floor.

    python bench/vectors.py --records 100000 [--store URL] [--passages 1.5] [--runs 50] [--json]
    python bench/vectors.py --records 1000000 --direct     # the cache alone, fed without a store
    python bench/vectors.py --embed DIR D/coding-dev/coding-dev.json D/locomo-dev/locomo-dev.json  # D=../shared/data
    python bench/vectors.py --recall DIR                    # the compact scan's recall@10, real vectors

`--direct` feeds `VectorCache` from an in-memory source (the same rows a store would hand it), for
sizes a store takes too long to seed here; it also prints the process's resident memory (VmHWM)
before and after. `--recall` reads `*.npz` files (`passages`, `owner`, `queries`: one per project,
made by embedding the development sessions with the product's model) and prints, for each half of
the projects, recall@10 of the compact scan's pool + exact rerank against the exact answer.
`--embed DIR FILE...` makes those files from LoCoMo-shaped data sets (each turn "speaker: text",
cut into passages as capture cuts them; the questions embedded as prompts), once: ~10 minutes.

Records are the `retrieval_speed` seed (synthetic coding turns); each gets `--passages` random
unit vectors on average (the development sessions' turns average ~1.5 passages of 600
characters), 384 values like the product's model, written through `Vectors.put_vectors`. The
queries are perturbed copies of stored vectors, so each has a true nearest neighbour. Printed:
the cache's load (the first nearest and the background load it starts), nearest p50/p95 (wall
clock), the interpreter floor p95 (`python -c pass`) and the ratio.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_core.store import open_store
from memory_core.store.base import Vectors
from retrieval_speed import _SCOPE, seed

_DIM = 384
_MODEL = "bench-random-384"


def _unit(rng: random.Random) -> list[float]:
    import numpy as np

    values = np.random.default_rng(rng.getrandbits(32)).standard_normal(_DIM)
    return list(values / np.linalg.norm(values))


def _pack(values: Sequence[float]) -> bytes:
    return struct.pack(f"<{_DIM}f", *values)


def _memory() -> dict[str, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {name: round(int(fields[name].split()[0]) / 1024, 1) for name in ("VmRSS", "VmHWM")}


class _Source:
    """`records` records' passages (1 or 2, `passages` on average) of random unit vectors, as a
    store hands them (`store._vectors.VectorSource`), generated a batch at a time."""

    def __init__(self, records: int, passages: float) -> None:
        import numpy as np

        rng = np.random.default_rng(7)
        self.owner = np.repeat(np.arange(records), 1 + (rng.random(records) < passages - 1))
        self.rows = len(self.owner)

    def state(self) -> tuple[int, int]:
        return self.rows, 0

    def rows_after(self, sequence: int, limit: int) -> list[tuple[str, int, bytes]]:
        import numpy as np

        end = min(self.rows, sequence + limit)
        block = np.random.default_rng(sequence).standard_normal((end - sequence, _DIM)).astype(np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        return [(f"speed-{int(self.owner[n]):07d}", n + 1, block[n - sequence].tobytes()) for n in range(sequence, end)]

    def query(self, n: int) -> bytes:
        import numpy as np

        rows = self.rows_after(n, 1)
        noisy = np.frombuffer(rows[0][2], dtype=np.float32) + np.random.default_rng(n).normal(0, 0.02, _DIM)
        return (noisy / np.linalg.norm(noisy)).astype(np.float32).tobytes()


def direct(records: int, passages: float, runs: int) -> dict[str, object]:
    """The cache's first load and query costs at `records` records, fed without a store."""
    from memory_core.store._vectors import VectorCache

    before = _memory()
    source, cache = _Source(records, passages), VectorCache()
    sources = [(("bench", _MODEL), source)]
    everyone = lambda ids: set(ids)  # noqa: E731 - every record counts as in the index
    began = time.perf_counter()
    cache.nearest(sources, source.query(0), 20, everyone)
    query_ms = (time.perf_counter() - began) * 1000  # what a prompt waits: the query's own share
    during = []  # queries while the rest loads in the background: no neighbours, no wait
    while not cache.wait(0.05) and len(during) < 100:
        query = source.query(len(during))
        at = time.perf_counter()
        cache.nearest(sources, query, 20, everyone)
        during.append((time.perf_counter() - at) * 1000)
    cache.wait(3600)
    first = (time.perf_counter() - began) * 1000
    timings = []
    for n in range(runs):
        query = source.query((n * 7919) % source.rows)
        began = time.perf_counter()
        cache.nearest(sources, query, 20, everyone)
        timings.append((time.perf_counter() - began) * 1000)
    return {
        "passages": source.rows,
        "first_ms": first,
        "first_query_ms": round(query_ms, 1),
        "during_load_max_ms": round(max(during, default=0.0), 1),
        "timings": timings,
        "before": before,
        "after": _memory(),
    }


def _top10(picked: Any, scores: Any, owner: Any) -> set[int]:
    """The 10 records whose best passage among `picked` scores highest, ties to the smaller."""
    best: dict[int, float] = {}
    for i in picked:
        record = int(owner[i])
        best[record] = max(best.get(record, -2.0), float(scores[i]))
    return set(sorted(best, key=lambda r: (-best[r], r))[:10])


def embed(folder: str, datasets: Sequence[str]) -> None:
    """Embed every turn and question of `datasets` with the product's model into `folder`, one
    `.npz` per project (sample)."""
    import numpy as np
    from memory_core.embedding import load_embedder, passages

    embedder, why = load_embedder()
    if embedder is None:
        raise SystemExit(f"no model: {why}")
    Path(folder).mkdir(parents=True, exist_ok=True)
    for path in datasets:
        for sample in json.loads(Path(path).read_text()):
            turns = [
                f"{turn['speaker']}: {turn['text']}"
                for key, session in sample["conversation"].items()
                if key.startswith("session_") and isinstance(session, list)
                for turn in session
            ]
            cut = [(n, part) for n, text in enumerate(turns) for part in passages(text)]
            texts = [part for _, part in cut]
            vectors = np.concatenate([embedder.embed_passages(texts[i : i + 32]) for i in range(0, len(texts), 32)])
            questions = np.stack([embedder.embed_query(qa["question"]) for qa in sample["qa"]])
            name = f"{Path(path).stem}-{sample['sample_id']}"
            np.savez(
                Path(folder) / f"{name}.npz", passages=vectors, owner=np.array([n for n, _ in cut]), queries=questions
            )
            sys.stderr.write(f"{name}: {len(turns)} turns, {len(texts)} passages, {len(questions)} questions\n")


def recall(folder: str) -> list[dict[str, object]]:
    """Recall@10 of the compact scan + rerank against exact, per half of the projects in `folder`."""
    import numpy as np
    from memory_core.store._vectors import _pool, _signs

    files = sorted(Path(folder).glob("*.npz"))
    report = []
    for half in (files[0::2], files[1::2]):
        loaded = [np.load(f) for f in half]
        rows = np.concatenate([d["passages"] for d in loaded])
        owner = np.concatenate([n * 100_000 + d["owner"] for n, d in enumerate(loaded)])
        queries = np.concatenate([d["queries"] for d in loaded])
        centre = rows.mean(axis=0, dtype=np.float64).astype(np.float32)
        bits = np.ascontiguousarray(_signs(rows, centre).T)
        exact_scores = rows.astype(np.float64) @ queries.astype(np.float64).T

        found: dict[str, float] = {}
        for pool in (20, 50, 100, 200, 400, 800):
            hits = 0
            for q in range(len(queries)):
                scores = exact_scores[:, q]
                truth = _top10(range(len(rows)), scores, owner)
                hits += len(truth & _top10(_pool(bits, _signs(queries[q : q + 1], centre)[0], pool), scores, owner))
            found[f"pool {pool} ({pool / len(rows):.1%})"] = round(hits / (10 * len(queries)), 3)
        report.append({"projects": len(half), "passages": len(rows), "queries": len(queries), "recall@10": found})
    return report


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
    parser.add_argument("--direct", action="store_true")
    parser.add_argument("--recall")
    parser.add_argument("--embed", nargs="+", metavar=("DIR", "FILE"))
    args = parser.parse_args(argv)
    if args.embed:
        embed(args.embed[0], args.embed[1:])
        return 0
    if args.recall:
        for line in recall(args.recall):
            print(json.dumps(line))
        return 0
    if args.direct:
        measured = direct(args.records, args.passages, args.runs)
        timings, first = measured["timings"], measured["first_ms"]
        assert isinstance(timings, list)
        assert isinstance(first, float)
        extra = {
            "passages": measured["passages"],
            "first_query_ms": measured["first_query_ms"],
            "during_load_max_ms": measured["during_load_max_ms"],
            "memory_before": measured["before"],
            "memory_after": measured["after"],
        }
    else:
        timings, first, extra = _through_store(args)
    floor = []
    for _ in range(20):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        floor.append((time.perf_counter() - began) * 1000)
    result: dict[str, object] = {
        "records": args.records,
        **extra,
        "first_nearest_ms": round(first, 1),
        "nearest_p50_ms": round(statistics.median(timings), 2),
        "nearest_p95_ms": round(_p(timings, 0.95), 2),
        "floor_p95_ms": round(_p(floor, 0.95), 2),
    }
    result["nearest_p95_x_floor"] = round(_p(timings, 0.95) / _p(floor, 0.95), 3)
    print(json.dumps(result) if args.json else "\n".join(f"{k:>22}: {v}" for k, v in result.items()))
    return 0


def _through_store(args: argparse.Namespace) -> tuple[list[float], float, dict[str, object]]:
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
            store._vectors.wait(3600)  # type: ignore[attr-defined]  # the rest loads in the background
            first = (time.perf_counter() - began) * 1000  # the cache's load: once per process and scope
            timings = []
            for query in queries:
                began = time.perf_counter()
                store.nearest([_SCOPE], _MODEL, query, k=20)
                timings.append((time.perf_counter() - began) * 1000)
            extra: dict[str, object] = {"memory": _memory()}
        finally:
            store.close()
    return timings, first, extra


if __name__ == "__main__":
    sys.exit(main())
