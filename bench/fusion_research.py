"""Fusion research through the product's own code: patch one retriever constant or function, run
the benches (bench/locomo.py R@5 / R@10, bench/recall.py coding, LoCoMo and big-store figures) on
both folds, print one line per setting. The shipped constants' figures in `retrieval/retriever.py`
come from here (2026-12-05). The score-fusion sweep (scores in place of ranks, rejected) is
`python bench/fusion_research.py scores` at commit e92c707, before the two vector lists.

    python bench/fusion_research.py weight          # _VECTOR_WEIGHT 0.25 .. 0.5
    python bench/fusion_research.py short           # a larger neighbour share for short records
    python bench/fusion_research.py hub             # _HUB_WEIGHT 0 .. 1 (the second vector list)
    python bench/fusion_research.py ... --rows rat,cod,loc,hay

Rows: `rat` LoCoMo R@5 / R@10 (one record per utterance), `cod` coding-dev through `assemble`
with `--replay` (answered / off-topic / generic, replay tokens, stale wins), `loc` LoCoMo through
`assemble` (answered / unrelated injecting), `hay` coding-dev in the big store (`/tmp/hay.json`
from bench/haystack.py, see docs/performance.md). Set BENCH_EMBED_CACHE and OMP_NUM_THREADS=1.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo
import memory_core.retrieval.retriever as retriever
import recall
from embedcache import CachedE5
from memory_core.models import Record
from memory_core.store import open_store

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
LOCOMO = DATA / "locomo-dev" / "locomo-dev.json"
CODING = DATA / "coding-dev"
HAY = Path(os.environ.get("BENCH_HAYSTACK", "/tmp/hay.json"))
"""The big store's distractors (bench/haystack.py --include coding-dev.json --filler 1500)."""
E5 = CachedE5()


def r_at(fold: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(f"sqlite:///{folder}/b.db", timeout=30)
        try:
            scored, _, _ = locomo.run(LOCOMO, store, embedder=E5, fold=fold)
        finally:
            store.close()
    s = scored.summary()
    return f"R {s['r5_all']:.3f}/{s['r10_all']:.3f}"


def through_assemble(fold: str, row: str) -> str:
    data = LOCOMO if row == "loc" else CODING / "coding-dev.json"
    args = ["--data", str(data), "--negatives", str(CODING / "negatives.json"), "--fold", fold, "--vectors", "--json"]
    args += ["--replay"] if row == "cod" else ["--haystack", str(HAY)] if row == "hay" else []
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        recall.main(args)
    r = json.loads(out.getvalue())
    neg = r["negatives_injected"]
    text = f"{row} {r['answered']:.3f}/{neg.get('off_topic', 0):.3f}/{neg.get('generic_coding', 0):.3f}"
    if "replay_tokens_per_prompt" in r:
        text += f" replay {r['replay_tokens_per_prompt']}"
    return text + (f" stale {r['stale_wins']}" if "stale_wins" in r else "")


def run(label: str, patch: dict[tuple[Any, str], Any], rows: Sequence[str]) -> None:
    saved = {key: getattr(*key) for key in patch}
    for (owner, name), value in patch.items():
        setattr(owner, name, value)
    line = [label]
    try:
        for fold in "AB":
            line += [f"{fold} " + (r_at(fold) if row == "rat" else through_assemble(fold, row)) for row in rows]
    finally:
        for (owner, name), value in saved.items():
            setattr(owner, name, value)
    print(" | ".join(line), flush=True)


def short_context(extra: float, span: int) -> Callable[..., None]:
    """`Retriever._context` where a record shorter than a passage (600 characters) lends its
    neighbours up to `span` turns away `extra` more of its score, in proportion to how short it is.
    """

    def context(self: retriever.Retriever, fused: dict[str, float], records: dict[str, Record]) -> None:
        lenders = heapq.nsmallest(retriever._CONTEXT_LENDERS, fused, key=lambda rid: (-fused[rid], rid))
        missing = [rid for rid in lenders if rid not in records]
        if missing:
            records.update((r.id, r) for r in self.store.get(missing))
        gains: dict[str, float] = {}
        for rid in lenders:
            record = records.get(rid)
            if record is None or record.session_id is None:
                continue
            short = max(0.0, 1.0 - len(record.text) / 600)
            seqs = [record.seq + d for d in range(-span, span + 1) if d]
            for neighbour in self.store.session_records(record.scope, record.session_id, seqs):
                distance = abs(neighbour.seq - record.seq)
                share = (retriever._CONTEXT_SHARE if distance == 1 else 0.0) + extra * short * 0.5 ** (distance - 1)
                gains[neighbour.id] = gains.get(neighbour.id, 0.0) + share * fused[rid]
                records.setdefault(neighbour.id, neighbour)
        for rid in sorted(gains):
            fused[rid] = fused.get(rid, 0.0) + gains[rid]

    return context


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", choices=("weight", "short", "hub"))
    parser.add_argument("--rows", default="rat,cod")
    args = parser.parse_args()
    rows = args.rows.split(",")
    if args.sweep == "weight":
        for weight in (0.25, 0.3, 0.35, 0.4, 0.5):
            run(f"weight {weight}", {(retriever, "_VECTOR_WEIGHT"): weight}, rows)
    elif args.sweep == "hub":
        for weight in (0.0, 0.25, 0.5, 0.75, 1.0):
            run(f"hub {weight}", {(retriever, "_HUB_WEIGHT"): weight}, rows)
    else:
        for extra in (0.1, 0.2, 0.3):
            for span in (1, 2):
                patch = {(retriever.Retriever, "_context"): short_context(extra, span)}
                run(f"short +{extra} span {span}", patch, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
