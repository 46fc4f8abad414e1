"""The inject decision's research: features per ask (best cosine, generic closeness, the store's
crowding) on cached vectors, and the out-of-fold search of the margin with a crowding weight.

    python bench/decision_research.py rows FILE [HAYSTACK]   # writes /tmp/decision-rows-*.pkl
    python bench/decision_research.py fit NAME,NAME k10,k20  # margin and crowding weight, per fold

`rows` scores every question and negative of FILE (each sample's store, plus every other
sample of HAYSTACK when given) with the fused ranking of `rank_research`; `fit` chooses, on one
fold, the threshold of `(similarity - generic) + a * (similarity - mean of the top k)` that
answers most with each set's negative goals met, and reads it on the other fold.
"""

from __future__ import annotations

import json
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


def rows_for(path: str, hay: list | None) -> list[dict]:
    e5 = CachedE5()
    bank = json.loads(BANK.read_text())
    vectors = e5.embed_passages([p for k, v in bank.items() if k != "about" for p in v])
    negs = json.loads((DATA / "coding-dev" / "negatives.json").read_text())
    rows = []
    others = [sample_of(h) for h in hay] if hay else []
    for s in load(Path(path)):
        fold = "A" if s.id in FOLDS["A"] else "B"
        recs = list(s.records)
        for h in others:
            if h.id != s.id:
                recs += [Rec("H/" + r.id, r.text, r.created_at, "H" + h.id + r.session, r.seq) for r in h.records]
        ix = Index(e5, recs)
        asks = [("q", q.text, q) for q in s.questions]
        for g, ps in negs.items():
            asks += [(g, p, None) for i, p in enumerate(ps) if (i % 2 == 0) == (fold == "A")]
        for (kind, text, q), qv in zip(asks, e5.embed_queries([a[1] for a in asks]), strict=True):
            cos, bm = ix.cos(qv), ix.bm25(text)
            ok = kind == "q" and q.evidence <= {recs[i].id for i in rank(bm, cos, 60, 1.0)[:5]}
            top = np.sort(cos)[::-1]
            g = float(np.sort(vectors @ qv)[::-1][:5].mean())
            rows.append(
                {"fold": fold, "kind": kind, "ok": ok, "s1": top[0], "g": g}
                | {f"k{k}": top[:k].mean() for k in (5, 10, 20, 50)}
            )
    return rows


def fit(names: list[str], crowd: list[str]) -> None:
    sets = {n: pickle.loads(Path(f"/tmp/decision-rows-{n}.pkl").read_bytes()) for n in names}  # noqa: S301 - our own file

    def score(fold: str, a: float, kk: str, t: float) -> dict:
        out = {}
        for n, rows in sets.items():
            f = [(r, (r["s1"] - r["g"]) + a * (r["s1"] - r[kk])) for r in rows if r["fold"] == fold]
            ans = np.mean([r["ok"] and x > t for r, x in f if r["kind"] == "q"])
            neg = {g: np.mean([x > t for r, x in f if r["kind"] == g]) for g in ("off_topic", "generic_coding")}
            out[n] = (round(float(ans), 3), round(float(neg["off_topic"]), 3), round(float(neg["generic_coding"]), 3))
        return out

    for kk in crowd:
        for a in (0, 0.25, 0.5, 1, 2):
            for tune, test in (("A", "B"), ("B", "A")):
                best = None
                for t in np.arange(-0.05, 0.08, 0.0025):
                    r = score(tune, a, kk, t)
                    if all(r[n][1] <= LIMITS["off_topic"][n] and r[n][2] <= LIMITS["generic_coding"][n] for n in r):
                        v = np.mean([x[0] for x in r.values()])
                        if best is None or v > best[0]:
                            best = (v, t, r)
                if best is None:
                    print(kk, a, tune, "no threshold meets every goal")
                    continue
                print(
                    kk, a, "tuned on", tune, f"t={best[1]:.4f}", best[2], "read on", test, score(test, a, kk, best[1])
                )


def main() -> int:
    if sys.argv[1] == "rows":
        hay = json.loads(Path(sys.argv[3]).read_text()) if len(sys.argv) > 3 else None
        name = f"{Path(sys.argv[2]).stem}-{'hay' if hay else 'plain'}"
        Path(f"/tmp/decision-rows-{name}.pkl").write_bytes(pickle.dumps(rows_for(sys.argv[2], hay)))
        print(name)
    else:
        fit(sys.argv[2].split(","), sys.argv[3].split(","))
    return 0


if __name__ == "__main__":
    sys.exit(main())
