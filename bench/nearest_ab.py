"""`nearest_each` of this checkout against another revision's, in one process, alternately.

    python bench/nearest_ab.py --against bff9fa1 --records 100000 --runs 100      # a copy of bench/latency.py's seed
    python bench/nearest_ab.py --against bff9fa1 --passages 1500000 --runs 60     # synthetic, fed from memory
    python bench/nearest_ab.py --against bff9fa1 --records 100000 --store redis://127.0.0.1:PORT/1  # latency.py --store

The other revision's `store/_vectors.py` (and `store/_rows.py` if it has one) is read with `git
show` and imported beside this checkout's under another name. With `--records`, two SQLite store
objects open one copy of the seed that `bench/latency.py --records N --vectors` cached (the
product's model and bank make recall's two query vectors from the bench's questions), one of them
given the other revision's cache (with `--store`, two store objects of that URL instead, seeded by
`bench/latency.py --store URL --records N --vectors`); with `--passages`, two caches are fed the same synthetic
passages (256 unit vectors plus noise, 1.5 passages a record, 20-character ids like recall's).
Each question is asked of both, in alternating order (a busy machine slows both alike), and the
answers must be identical. Prints, for each, the wall time and the process's CPU time (user and
system, every thread) per call, p50 and p95, and the ratios. Writes nothing to a store.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

_ROOT = Path(__file__).resolve().parent.parent
_STORE = "packages/memory-core/src/memory_core/store"
_DIM = 384


def _other(revision: str, folder: Path) -> ModuleType:
    """The revision's `_vectors` module, imported as `memory_ab_vectors` (its `_rows`, if any, as
    `memory_core.store._rows` is: the checkout's, replaced for the import)."""
    for name in ("_vectors", "_rows"):
        shown = subprocess.run(
            ["git", "-C", str(_ROOT), "show", f"{revision}:{_STORE}/{name}.py"], capture_output=True, text=True
        )
        if shown.returncode == 0:
            (folder / f"{name}.py").write_text(shown.stdout)
    rows = folder / "_rows.py"
    if rows.exists():
        spec = importlib.util.spec_from_file_location("memory_ab_rows", rows)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["memory_ab_rows"] = module
        spec.loader.exec_module(module)
        text = (folder / "_vectors.py").read_text().replace("memory_core.store._rows", "memory_ab_rows")
        (folder / "_vectors.py").write_text(text)
    spec = importlib.util.spec_from_file_location("memory_ab_vectors", folder / "_vectors.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["memory_ab_vectors"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class _Synthetic:
    """`rows` passages near 256 unit vectors, as a store hands them, a batch at a time."""

    def __init__(self, rows: int) -> None:
        rng = np.random.default_rng(3)
        self.bases = rng.standard_normal((256, _DIM)).astype(np.float32)
        self.bases /= np.linalg.norm(self.bases, axis=1, keepdims=True)
        self.rows = rows

    def state(self) -> tuple[int, int]:
        return self.rows, 0

    def rows_after(self, sequence: int, limit: int) -> list[tuple[str, int, bytes]]:
        end = min(self.rows, sequence + limit)
        rng = np.random.default_rng(sequence)
        block = self.bases[rng.integers(0, 256, end - sequence)]
        block = block + rng.standard_normal(block.shape).astype(np.float32) * 0.05
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        return [
            (f"t{(n // 3 * 2 + (n % 3 > 0)) * 7919 % 10**9:019x}", n + 1, block[n - sequence].tobytes())
            for n in range(sequence, end)
        ]

    def queries(self, n: int) -> list[bytes]:
        rng = np.random.default_rng(1000 + n)
        near = self.bases[rng.integers(0, 256)] + rng.standard_normal(_DIM).astype(np.float32) * 0.1
        near /= np.linalg.norm(near)
        beyond = near - 0.75 * self.bases.mean(axis=0)
        beyond /= np.linalg.norm(beyond)
        return [v.astype("<f4").tobytes() for v in (near, beyond)]


def _cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="the revision to compare with (git)")
    parser.add_argument("--records", type=int, help="a copy of bench/latency.py's seed of this size")
    parser.add_argument("--passages", type=int, help="synthetic passages fed from memory")
    parser.add_argument("--store", help="with --records: a store URL seeded by bench/latency.py --store")
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    if (args.records is None) == (args.passages is None):
        parser.error("one of --records and --passages")
    from memory_core.store import _vectors

    work = Path(tempfile.mkdtemp(prefix="nearest-ab-"))
    other = _other(args.against, work)
    ask: dict[str, Any] = {}
    stores: list[Any] = []
    try:
        if args.passages is not None:
            source = _Synthetic(args.passages)
            for name, module in (("before", other), ("after", _vectors)):
                cache = module.VectorCache()
                sources = [(("bench", "m"), source)]
                cache.nearest_each(sources, source.queries(0), 50, set)
                cache.wait(3600)
                ask[name] = lambda qs, c=cache, s=sources: c.nearest_each(s, qs, 50, lambda ids: set(ids))
            questions = [source.queries(n) for n in range(args.runs)]
        else:
            import latency
            from memory_core.embedding import load_embedder
            from memory_core.models import Scope
            from memory_core.retrieval.decision import Bank
            from memory_core.retrieval.retriever import _DEPTH, _HUB_WEIGHT
            from memory_core.store import open_store

            seed = Path(tempfile.gettempdir()) / f"memory-bench-seed-v2-{args.records}-vectors.db"
            url = args.store or f"sqlite:///{work / 'bench.db'}"
            if args.store is None:
                if not seed.exists():
                    raise SystemExit(
                        f"no seed at {seed}: run bench/latency.py --records {args.records} --vectors first"
                    )
                shutil.copyfile(seed, work / "bench.db")
            embedder, problem = load_embedder()
            if embedder is None:
                raise SystemExit(f"the embedding model: {problem}")
            bank = Bank(embedder)
            scope = [Scope("project", latency._project(args.records))]
            about_file = seed.with_name(f"memory-bench-seed-v2-{args.records}.about.json")
            about = json.loads(about_file.read_text()) if about_file.exists() else []
            for name in ("before", "after"):
                store = open_store(url, timeout=30.0, allow_db0=False)
                stores.append(store)
                if name == "before":
                    store._vectors = other.VectorCache()
                store.nearest(scope, embedder.model_id, embedder.embed_query("warm").astype("<f4").tobytes(), k=1)
                store._vectors.wait(3600)
                ask[name] = lambda qs, s=store: s.nearest_each(scope, embedder.model_id, qs, k=_DEPTH)
            rng = random.Random(latency._SEED + 1)
            questions = []
            for _ in range(args.runs):
                near = embedder.embed_query(latency._query(rng, about))
                beyond = near - _HUB_WEIGHT * bank.centre()
                beyond = beyond / max(float(np.linalg.norm(beyond)), 1e-12)
                questions.append([np.asarray(v, dtype="<f4").tobytes() for v in (near, beyond)])
        wall: dict[str, list[float]] = {"before": [], "after": []}
        cpu: dict[str, list[float]] = {"before": [], "after": []}
        for n, queries in enumerate(questions):
            answers = {}
            for name in ("before", "after") if n % 2 else ("after", "before"):
                began_cpu, began = _cpu_ms(), time.perf_counter()
                answers[name] = ask[name](queries)
                wall[name].append((time.perf_counter() - began) * 1000)
                cpu[name].append(_cpu_ms() - began_cpu)
            if answers["before"] != answers["after"]:
                raise SystemExit(f"question {n}: the answers differ")
        result: dict[str, Any] = {"runs": args.runs, "identical": args.runs, "against": args.against}
        for name in ("before", "after"):
            for label, values in (("wall", wall[name]), ("cpu", cpu[name])):
                result[f"{name}_{label}_p50_ms"] = round(float(np.percentile(values, 50)), 2)
                result[f"{name}_{label}_p95_ms"] = round(float(np.percentile(values, 95)), 2)
        for label in ("wall", "cpu"):
            result[f"{label}_p50_ratio"] = round(result[f"after_{label}_p50_ms"] / result[f"before_{label}_p50_ms"], 3)
        print(json.dumps(result))
    finally:
        for store in stores:
            store.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
