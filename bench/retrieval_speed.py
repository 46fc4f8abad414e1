"""In-process recall cost (rank + render) on the embedded store, at N records in one scope.

    python bench/retrieval_speed.py --records 100000 [--store URL] [--runs 300] [--json]

The records are synthetic coding turns with a long-tailed vocabulary (identifiers, paths,
error names and English words drawn from Zipf-like distributions), so queries meet both rare
and very common terms, as in a real project's history. Queries are built the way people ask:
two things some earlier turn named (a class, an identifier, an error, a path) among common
words, plus prompts about nothing stored (one in five). Measured: `Retriever.rank` with the floor on and a
`render_block` with the default budget, which is what `MemoryService.assemble` does besides
its session bookkeeping. `bench/latency.py` measures the whole `assemble` against the
interpreter floor.

The store is a throwaway SQLite file unless `--store` names one (seeded once under the
`bench-speed` project; an existing seed of the same size is reused). `--json` prints one line:
records, runs, rank_render_p50_ms, rank_render_p95_ms (wall clock), rank_render_cpu_p95_ms (CPU
time of this process: steadier on a shared machine), with_hits_p95_ms and with_hits_cpu_p95_ms
(prompts that injected something), hits_mean (items that would be injected).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence

from memory_core.models import Record, Scope
from memory_core.retrieval.retriever import Retriever, render_block
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store import Store, open_store

_SEED = 1130
_TURNS_PER_SESSION = 30
_SCOPE = Scope("project", "bench-speed")

_SYLLABLES_TEXT = """
ka lo mi re su ta no vi pe da zo ru fi ge ba xo ly qu ne wa
"""
_SYLLABLES = _SYLLABLES_TEXT.split()
_ENGLISH_TEXT = """
the a to of and in is it that for on with this we be as not are but can was so if have do at by or
from test fix error file function value call return run change need use check update add remove
config build issue case code data type path name line module import class method default option
setting version branch commit merge review deploy release server client request response timeout
retry cache queue database table index query schema migration column record field parse format
output input log trace failure flaky slow fast memory thread process lock race worker job task batch
stream buffer socket token secret key auth user session cookie header payload event handler hook
plugin adapter wrapper benchmark profile latency throughput regression coverage fixture mock stub
snapshot assert expect
"""
_ENGLISH = _ENGLISH_TEXT.split()


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))


class _Vocabulary:
    """Long-tailed pools: a few names recur everywhere, most occur a handful of times."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.modules = [_word(rng) for _ in range(300)]
        self.identifiers = [f"{_word(rng)}_{_word(rng)}" for _ in range(20_000)]
        self.classes = [_word(rng).capitalize() + _word(rng).capitalize() for _ in range(5_000)]
        self.errors = [f"{_word(rng).capitalize()}Error" for _ in range(400)]

    def pick(self, pool: Sequence[str]) -> str:
        # paretovariate gives a heavy head and a long tail over the pool's order.
        index = int(self.rng.paretovariate(1.1)) - 1
        return pool[index % len(pool)]


def _turn(vocab: _Vocabulary) -> str:
    rng = vocab.rng
    module, ident, klass, error = (
        vocab.pick(vocab.modules),
        vocab.pick(vocab.identifiers),
        vocab.pick(vocab.classes),
        vocab.pick(vocab.errors),
    )
    path = f"src/{module}/{vocab.pick(vocab.modules)}.py"
    prose = " ".join(vocab.pick(_ENGLISH) for _ in range(rng.randint(60, 180)))
    prompt = f"Why does {klass}.{ident} raise {error} in {path}? {' '.join(rng.sample(_ENGLISH, 8))}"
    answer = (
        f"I read `{path}`: {prose}. `{ident}` now checks the {vocab.pick(vocab.identifiers)} first; "
        f"see {vocab.pick(vocab.classes)} and {vocab.pick(vocab.identifiers)}."
    )
    return f"{prompt}\n\n{answer}"


def seed(store: Store, count: int) -> list[str]:
    """Write `count` turns (skipped when already there); returns the texts, for building queries."""
    rng = random.Random(_SEED)
    vocab = _Vocabulary(rng)
    texts: list[str] = []
    have = store.count([_SCOPE])
    start = time.time() - count * 60.0
    for index in range(count):
        text = _turn(vocab)
        texts.append(text)
        if index < have:
            continue
        session, seq = divmod(index, _TURNS_PER_SESSION)
        record = Record(
            id=f"speed-{index:07d}",
            scope=_SCOPE,
            text=text,
            author="bench",
            created_at=start + index * 60.0,
            harness="bench",
            session_id=f"speed-{session}",
            seq=seq,
        )
        store.put(record, index_terms(text))
        if index and index % 10_000 == 0:
            sys.stderr.write(f"seeded {index}/{count}\n")
    return texts


def queries(texts: Sequence[str], count: int) -> list[str]:
    """Prompts naming what some earlier turn named (its class, identifier, error, file), among common words."""
    rng = random.Random(_SEED + 1)
    out: list[str] = []
    for n in range(count):
        if n % 5 == 4:
            out.append(rng.choice(["what is a good name for a cat?", "summarise the weather in Lisbon today"]))
            continue
        prompt = rng.choice(texts).split("\n\n", 1)[0]
        named = [w.strip("?`.,:") for w in prompt.split()[2:7]]
        picked = rng.sample(named, 2)
        out.append(f"how did we handle {' '.join(picked)} last time? the test still fails")
    return out


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--store", help="a store URL (default: a throwaway SQLite file)")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="speed-") as folder:
        store = open_store(args.store or f"sqlite:///{folder}/bench.db", timeout=30.0)
        try:
            texts = seed(store, args.records)
            retriever = Retriever(store)
            asked = queries(texts, args.runs)
            for query in asked[:20]:
                retriever.rank(query, [_SCOPE], limit=10)
            timings: list[float] = []
            cpu: list[float] = []
            found: list[int] = []
            for query in asked:
                began, began_cpu = time.perf_counter(), time.process_time()
                # What assemble asks for: twice the item cap, so exclusions leave enough.
                hits = retriever.rank(query, [_SCOPE], limit=10)
                _, kept = render_block(hits, max_tokens=800, max_items=5)
                timings.append((time.perf_counter() - began) * 1000)
                cpu.append((time.process_time() - began_cpu) * 1000)
                found.append(len(kept))
        finally:
            store.close()
    result = {
        "records": args.records,
        "runs": len(timings),
        "rank_render_p50_ms": round(statistics.median(timings), 3),
        "rank_render_p95_ms": round(_p95(timings), 3),
        "rank_render_cpu_p95_ms": round(_p95(cpu), 3),
        "with_hits_p95_ms": round(_p95([t for t, n in zip(timings, found, strict=True) if n]), 3),
        "with_hits_cpu_p95_ms": round(_p95([t for t, n in zip(cpu, found, strict=True) if n]), 3),
        "hits_mean": round(statistics.fmean(found), 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
