"""Ranking and decision research in numpy, on cached vectors: sweep fusion and decision constants
on one fold, report on the other (the product's figures come from `bench/recall.py`).

    python bench/rank_research.py [--haystack FILE]

Folds (by project, chosen to balance questions and languages; docs/performance.md):
  A: conneroisu-templar, raggios-jcode (it), applab-nl-dmux, 4alvit-fastapi-mqtt-gateway, ryanlisse-big3
  B: johannes0501-openshrooly, daniifrim-10-box-os, connix-labs-connix,
     tomselander-home-assistant-green-button, 4alvit-mcp-venus-os (ru), synthetic-ledgerly
Negatives: even-indexed prompts of each group tune fold A, odd-indexed ones fold B.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from embedcache import CachedE5
from memory_core.retrieval.tokenizer import index_terms, query_terms
from rankdata import load, passages

FOLD_A = {"conneroisu-templar", "raggios-jcode", "applab-nl-dmux", "4alvit-fastapi-mqtt-gateway", "ryanlisse-big3"}
DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
BANK = Path(__file__).resolve().parents[1] / "packages/memory-core/src/memory_core/retrieval/bank.json"


class Index:
    def __init__(self, e5: CachedE5, records: list) -> None:
        self.records = records
        self.terms = [index_terms(r.text) for r in records]
        self.lengths = np.array([sum(t.values()) for t in self.terms], dtype=float)
        self.df: dict[str, int] = {}
        for t in self.terms:
            for w in t:
                self.df[w] = self.df.get(w, 0) + 1
        owner, texts = [], []
        for i, r in enumerate(records):
            for p in passages(r.text):
                owner.append(i)
                texts.append(p)
        self.owner = np.array(owner)
        self.P = e5.embed_passages(texts) if texts else np.zeros((0, 384), np.float32)

    def bm25(self, query: str) -> np.ndarray:
        n = len(self.records)
        avg = self.lengths.mean() if n else 1.0
        s = np.zeros(n)
        for w in query_terms(query):
            df = self.df.get(w, 0)
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for i, t in enumerate(self.terms):
                tf = t.get(w)
                if tf:
                    s[i] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * self.lengths[i] / avg))
        return s

    def cos(self, qv: np.ndarray) -> np.ndarray:
        c = np.full(len(self.records), -1.0)
        np.maximum.at(c, self.owner, self.P @ qv)
        return c


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--haystack", type=Path)
    ap.parse_args()
    e5 = CachedE5()
    samples = load(DATA / "coding-dev" / "coding-dev.json") + load(Path(__file__).parent / "data" / "updates.json")
    negs = json.loads((DATA / "coding-dev" / "negatives.json").read_text())
    bank = json.loads(BANK.read_text())
    bank_texts = [p for k, v in bank.items() if k != "about" for p in v]
    BQ = e5.embed_queries(bank_texts)
    BP = e5.embed_passages(bank_texts)
    rows = []  # per ask: fold, kind, features
    for s in samples:
        fold = "A" if s.id in FOLD_A or s.id in ("synthetic-harbor", "synthetic-plotline") else "B"
        ix = Index(e5, s.records)
        asks = [("q", q.text, q) for q in s.questions]
        for g, ps in negs.items():
            for i, p in enumerate(ps):
                if (i % 2 == 0) == (fold == "A"):
                    asks.append((g, p, None))
        qvs = e5.embed_queries([a[1] for a in asks])
        for (kind, text, q), qv in zip(asks, qvs, strict=False):
            rows.append(
                (
                    fold,
                    kind,
                    s.id,
                    q,
                    ix.bm25(text),
                    ix.cos(qv),
                    float((BQ @ qv).max()),
                    float((BP @ qv).max()),
                    ix,
                    qv,
                    text,
                )
            )
    np.save("/tmp/rr_rows.npy", np.array([0]))
    evaluate(rows)
    misses(rows)
    sweep(rows)
    return 0


def rank(bm: np.ndarray, cos: np.ndarray, k: float, w_vec: float, depth: int = 50) -> list[int]:
    ob = [i for i in np.argsort(-bm, kind="stable")[:depth] if bm[i] > 0]
    ov = list(np.argsort(-cos, kind="stable")[:depth])
    score: dict[int, float] = {}
    for r, i in enumerate(ob):
        score[i] = score.get(i, 0) + 1 / (k + r + 1)
    for r, i in enumerate(ov):
        score[i] = score.get(i, 0) + w_vec / (k + r + 1)
    return sorted(score, key=lambda i: -score[i])


def evaluate(rows) -> None:
    # ranking ceiling: evidence within top 5 of fused ranking
    for k, w in [(60, 1.0), (10, 1.0), (20, 1.0), (60, 2.0), (10, 2.0), (60, 0.0), (60, 1e6)]:
        out = {}
        for fold in "AB":
            qs = [r for r in rows if r[0] == fold and r[1] == "q"]
            ok = sum(r[3].evidence <= {r[8].records[i].id for i in rank(r[4], r[5], k, w)[:5]} for r in qs)
            out[fold] = round(ok / len(qs), 3)
        print("rrf k", k, "w_vec", w, "top5", out)
    # decision features
    for fold in "AB":
        for kind in ("q", "off_topic", "generic_coding"):
            rs = [r for r in rows if r[0] == fold and r[1] == kind]
            s1 = np.array([r[5].max() for r in rs])
            bq = np.array([r[6] for r in rs])
            bp = np.array([r[7] for r in rs])
            print(
                fold,
                kind,
                len(rs),
                f"s1 {s1.mean():.3f}",
                f"bq {bq.mean():.3f}",
                f"bp {bp.mean():.3f}",
                f"s1-bp {(s1 - bp).mean():.3f}±{(s1 - bp).std():.3f}",
                f"s1-bq {(s1 - bq).mean():.3f}",
            )


def misses(rows, fold="B"):
    for r in rows:
        if r[0] == fold and r[1] == "q":
            top = rank(r[4], r[5], 60, 1.0)[:5]
            ids = [r[8].records[i].id for i in top]
            if not r[3].evidence <= set(ids):
                print(r[2], r[3].text[:80], "| ev", sorted(r[3].evidence), "| top", ids[:3])


def sweep(rows):
    for m in (-0.02, -0.01, 0.0, 0.005, 0.01, 0.02):
        out = []
        for fold in "AB":
            qs = [r for r in rows if r[0] == fold and r[1] == "q"]
            ok = sum(
                (r[5].max() - r[7] > m) and r[3].evidence <= {r[8].records[i].id for i in rank(r[4], r[5], 60, 1.0)[:5]}
                for r in qs
            ) / len(qs)
            neg = {
                g: round(np.mean([r[5].max() - r[7] > m for r in rows if r[0] == fold and r[1] == g]), 3)
                for g in ("off_topic", "generic_coding")
            }
            out.append((fold, round(ok, 3), neg))
        print("margin", m, out)


if __name__ == "__main__":
    sys.exit(main())
