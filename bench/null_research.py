"""The store's own null for the inject decision (issue #24): how close the bank's prompts come to
a store, measured on cached vectors, gate alone, out of fold.

    python bench/null_research.py rows FILE [--negatives FILE] [--haystack FILE] [--name NAME]
    python bench/null_research.py fit NAME,NAME,...            # each family's constant, out of fold
    python bench/null_research.py sweep NAME,NAME,...          # every constant on both folds
    python bench/null_research.py e2e Q -- RECALL.PY ARGS      # through assemble, bar = the store's Q quantile
    NULL_ONLY_LOWER=1 python bench/null_research.py e2e Q -- ...  # ... never above MARGIN (the shipped form)

`rows` scores every question and negative of FILE like `bench/decision_research.py rows` (each
sample's store, plus every other sample of the haystack when given; `ok` = the evidence is in the
fused top 5) and keeps, per sample, the store's null: for each bank prompt b, its best passage
cosine in the store minus its generic closeness with b left out of the bank (`support_b`). Those
prompts are about nothing the store holds, so their supports are what support looks like when
the store has nothing to say. `fit` searches, on one fold, the constant of each bar built from
that null (a quantile, mean + z sd) that answers most with every set's negative goals met, reads
it on the other fold, and prints main's fixed MARGIN beside it. Families: a quantile of the null,
its mean + z sd, the max or mean of the prompt's own nearest bank prompts' supports (`local-`),
the mean support of the bank prompts nearest the store (`nearest-store`), a quantile of the
supports of the bank prompts the store's passages are nearest to (`attracted`), and the quantile
only where it is below MARGIN. `e2e` runs `bench/recall.py` with the product's retriever and the
product's bar at quantile Q for every store size, uncapped (what was measured first, rejected)
or capped at MARGIN (NULL_ONLY_LOWER=1, as shipped with Q = 0.925, for scopes of up to 2,000
passages). Results: docs/retrieval.md ("A bar calibrated on the store itself").
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from embedcache import CachedE5
from rank_research import BANK, DATA, Index, rank
from rankdata import Rec, load, sample_of
from recall import FOLDS

LIMITS = {
    "off_topic": {"coding-dev-plain": 0.02, "locomo-dev-plain": 0.10, "coding-dev-hay": 0.15},
    "generic_coding": {"coding-dev-plain": 0.15, "locomo-dev-plain": 1.0, "coding-dev-hay": 0.30},
}
MARGIN = 0.0025
TOP = 5


def bank_vectors(e5: CachedE5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bank as passages (as shipped), as queries, and each prompt's generic closeness with
    itself left out (the mean of its `TOP` nearest other bank prompts)."""
    bank = json.loads(BANK.read_text())
    texts = [p for k, v in bank.items() if k != "about" for p in v]
    bp, bq = e5.embed_passages(texts), e5.embed_queries(texts)
    g = bq @ bp.T
    np.fill_diagonal(g, -np.inf)
    loo = np.sort(g, axis=1)[:, -TOP:].mean(axis=1)
    return bp, bq, loo


def rows_for(path: Path, negatives: Path, hay: list | None) -> list[dict]:
    e5 = CachedE5()
    bp, bq, loo = bank_vectors(e5)
    negs = json.loads(negatives.read_text())
    rows = []
    others = [sample_of(h) for h in hay] if hay else []
    for s in load(path):
        fold = "A" if s.id in FOLDS["A"] else "B" if s.id in FOLDS["B"] else "-"
        recs = list(s.records)
        for h in others:
            if h.id != s.id:
                recs += [Rec("H/" + r.id, r.text, r.created_at, "H" + h.id + r.session, r.seq) for r in h.records]
        ix = Index(e5, recs)
        best = (ix.P @ bq.T).max(axis=0)
        null = best - loo
        # How many of the store's passages have each bank prompt as their nearest one.
        attract = np.bincount((ix.P @ bq.T).argmax(axis=1), minlength=len(loo)) if len(ix.P) else np.zeros(len(loo))
        asks = [("q", q.text, q) for q in s.questions]
        for g, ps in negs.items():
            asks += [(g, p, None) for i, p in enumerate(ps) if fold == "-" or (i % 2 == 0) == (fold == "A")]
        for (kind, text, q), qv in zip(asks, e5.embed_queries([a[1] for a in asks]), strict=True):
            cos = ix.cos(qv)
            ok = kind == "q" and q.evidence <= {recs[i].id for i in rank(ix.bm25(text), cos, 60, 1.0)[:5]}
            g = float(np.sort(bp @ qv)[::-1][:TOP].mean())
            rows.append(
                {
                    "fold": fold,
                    "sample": s.id,
                    "kind": kind,
                    "ok": ok,
                    "support": float(cos.max()) - g,
                    "null": null,
                    "records": len(recs),
                    "best": best,
                    "attract": attract,
                    "near": np.argsort(-(bp @ qv))[:100],
                }
            )
    return rows


def bars(null: np.ndarray) -> dict[str, callable]:
    return {
        "quantile": lambda p: float(np.quantile(null, p)),
        "mean+z*sd": lambda p: float(null.mean() + p * null.std()),
        "margin": lambda p: p,
        "min(margin,quantile)": lambda p: min(MARGIN, float(np.quantile(null, p))),
    }


def attracted(row: dict, q: float) -> float:
    """The q-quantile of the supports of the bank prompts the store's passages are nearest to,
    each weighted by how many passages it attracts."""
    w = row["attract"].astype(float)
    order = np.argsort(row["null"])
    cum = np.cumsum(w[order]) / w.sum()
    return float(row["null"][order][np.searchsorted(cum, q)])


def local(row: dict, k: int, how: str) -> float:
    """The null of the prompt's own `k` nearest bank prompts: their max (or mean) support."""
    near = row["null"][row["near"][:k]]
    return float(near.max() if how == "max" else near.mean())


GRID = {
    "quantile": [0.8, 0.85, 0.875, 0.9, 0.91, 0.92, 0.925, 0.93, 0.935, 0.94, 0.945, 0.95, 0.96, 0.975, 0.99],
    "mean+z*sd": [0.0, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0],
    "margin": [MARGIN],
    "min(margin,quantile)": [0.8, 0.85, 0.9, 0.925, 0.95, 0.96, 0.97, 0.975, 0.98, 0.99, 1.0],
    "nearest-store": [5, 10, 20, 30, 50, 100, 150],
    "attracted": [0.5, 0.75, 0.9, 0.95, 0.99, 1.0],
    "local-max": [1, 2, 3, 5, 8, 10, 15, 20, 30, 50, 100],
    "local-mean": [1, 2, 3, 5, 8, 10],
}


def score(sets: dict, fold: str, family: str, p: float) -> dict:
    out = {}
    for name, rows in sets.items():
        f = [r for r in rows if r["fold"] == fold or r["fold"] == "-"]
        if not f:
            continue
        if family == "nearest-store":
            passed = [(r, r["support"] > float(r["null"][np.argsort(-r["best"])[: int(p)]].mean())) for r in f]
        elif family == "attracted":
            passed = [(r, r["support"] > attracted(r, p)) for r in f]
        elif family.startswith("local"):
            passed = [(r, r["support"] > local(r, int(p), family[6:])) for r in f]
        else:
            passed = [(r, r["support"] > bars(r["null"])[family](p)) for r in f]
        ans = np.mean([r["ok"] and x for r, x in passed if r["kind"] == "q"])
        neg = {g: np.mean([x for r, x in passed if r["kind"] == g] or [0]) for g in ("off_topic", "generic_coding")}
        out[name] = (round(float(ans), 3), round(float(neg["off_topic"]), 3), round(float(neg["generic_coding"]), 3))
    return out


def fit(names: list[str]) -> None:
    sets = {n: pickle.loads(Path(f"/tmp/null-rows-{n}.pkl").read_bytes()) for n in names}  # noqa: S301
    for n, rows in sets.items():
        for sample in sorted({r["sample"] for r in rows}):
            r0 = next(r for r in rows if r["sample"] == sample)
            nl = r0["null"]
            print(
                f"{n} {sample} records {r0['records']} null q50 {np.quantile(nl, 0.5):.4f}"
                f" q90 {np.quantile(nl, 0.9):.4f} q95 {np.quantile(nl, 0.95):.4f} max {nl.max():.4f}"
                f" mean {nl.mean():.4f} sd {nl.std():.4f}"
            )
    tuned = [n for n in names if n in LIMITS["off_topic"]]
    for family, grid in GRID.items():
        for tune, test in (("A", "B"), ("B", "A")):
            best = None
            for p in grid:
                r = score({n: sets[n] for n in tuned}, tune, family, p)
                if all(r[n][1] <= LIMITS["off_topic"][n] and r[n][2] <= LIMITS["generic_coding"][n] for n in r):
                    v = np.mean([x[0] for x in r.values()])
                    if best is None or v > best[0]:
                        best = (v, p, r)
            if best is None:
                print(family, "tuned on", tune, "no constant meets every goal")
                for p in grid:
                    print("   ", p, score({n: sets[n] for n in tuned}, tune, family, p))
                continue
            print(f"{family} tuned on {tune}: p={best[1]} {best[2]}")
            print(f"    read on {test}: {score(sets, test, family, best[1])}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("rows", "fit", "sweep"))
    ap.add_argument("what")
    ap.add_argument("--negatives", type=Path, default=DATA / "coding-dev" / "negatives.json")
    ap.add_argument("--haystack", type=Path)
    ap.add_argument("--name")
    if sys.argv[1] == "e2e":  # python bench/null_research.py e2e Q -- recall.py arguments
        return e2e(sys.argv[4:], float(sys.argv[2]))
    a = ap.parse_args()
    if a.mode == "rows":
        hay = json.loads(a.haystack.read_text()) if a.haystack else None
        name = a.name or f"{Path(a.what).stem}-{'hay' if hay else 'plain'}"
        Path(f"/tmp/null-rows-{name}.pkl").write_bytes(pickle.dumps(rows_for(Path(a.what), a.negatives, hay)))
        print(name)
    elif a.mode == "fit":
        fit(a.what.split(","))
    else:
        sets = {n: pickle.loads(Path(f"/tmp/null-rows-{n}.pkl").read_bytes()) for n in a.what.split(",")}  # noqa: S301
        for family, grid in GRID.items():
            for p in grid:
                print(family, p, {f: score(sets, f, family, p) for f in "AB"})
    return 0


def e2e(argv: list[str], q: float) -> int:
    """`bench/recall.py argv` with the product's store bar (`decision.Bank.bar`) at quantile `q`,
    for scopes of any size, and not capped at MARGIN unless NULL_ONLY_LOWER is set."""
    import memory_core.retrieval.decision as decision
    import memory_core.retrieval.retriever as retriever
    import recall

    retriever.NULL_PASSAGES = 10**9  # type: ignore[misc]
    decision.NULL_QUANTILE = q  # type: ignore[misc]
    if not os.environ.get("NULL_ONLY_LOWER"):

        def bar(self: decision.Bank, closest: list[float] | None) -> float:
            if not closest:
                return MARGIN
            return round(float(np.quantile(np.asarray(closest) - self._null()[1], q)), 4)

        decision.Bank.bar = bar  # type: ignore[method-assign]
    return recall.main(argv)


if __name__ == "__main__":
    sys.exit(main())
