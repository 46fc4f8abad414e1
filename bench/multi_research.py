"""Multi-evidence research (issue #24, chat ranking round 2, 2026-12-05): LoCoMo R@5 / R@10 all,
split by the number of evidence turns, through the product's retriever with one patch at a time.
Each fold's store is built once (throwaway SQLite, vectors through the bench's cache) and every
variant ranks the same questions.

    python bench/multi_research.py VARIANT [VARIANT ...]

Variants (constants from the environment; docs/retrieval.md, "Tried and not adopted", has the
figures; none was adopted): `base`; `prf` (RM3 feedback for BM25: PRF_K records, PRF_M words,
weight PRF_A, words in at most 1/PRF_DF of the records, PRF_MIN feedback records holding each,
PRF_NAMES=1 leaves the feedback records' authors' names out); `pf` (the same with the best fused
records as feedback); `div` (a record's fused score times DIV_L for each better record of its
session among the first DIV_N); `ses` (the best SES_L fused records lend SES_S of their score to
the other turns of their session in the vector list, by rank). The feedback as the product would
run it (postings budget, matches that hold the question only, a store that sums for itself) is
commit a37848a (`fb` variant, FB_A / FB_M / FB_SHARE), and as a fourth fused list commit 2bf6ad9
(FB_LIST), and with the gains only for records a list found commit f06e8f8
(`_FEEDBACK_FOUND_ONLY` patched to True); the coding, assemble and big-store rows came from
`fusion_research.run` with them.

Set BENCH_EMBED_CACHE and OMP_NUM_THREADS=1.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import heapq
import os

import chat_research  # noqa: F401  (the inline executor)
import fusion_research
import locomo
import memory_core.retrieval.retriever as retriever
from memory_core.models import Record, Scope
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store import open_store
from recall import FOLDS, evidence_ids

VARIANTS: dict[str, Callable[[], dict[tuple[Any, str], Any]]] = {"base": dict}


def env(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


def session_diversity() -> dict[tuple[Any, str], Any]:
    """After the context shares: among the first DIV_N fused records, each one's score times
    DIV_L for every better record of its session."""
    original = retriever.Retriever._context
    n, lam = int(env("DIV_N", 20)), env("DIV_L", 0.8)

    def context(self: retriever.Retriever, fused: dict[str, float], records: dict[str, Record]) -> None:
        original(self, fused, records)
        top = heapq.nsmallest(n, fused, key=lambda rid: (-fused[rid], rid))
        missing = [rid for rid in top if rid not in records]
        if missing:
            records.update((r.id, r) for r in self.store.get(missing))
        seen: dict[Any, int] = {}
        for rid in top:
            rec = records.get(rid)
            if rec is None or rec.session_id is None:
                continue
            key = (rec.scope, rec.session_id)
            fused[rid] *= lam ** seen.get(key, 0)
            seen[key] = seen.get(key, 0) + 1

    return {(retriever.Retriever, "_context"): context}


def prf() -> dict[tuple[Any, str], Any]:
    """RM3-style feedback for BM25: the PRF_M best terms of the PRF_K best records (each term's
    tf/length, weighted by the record's share of their BM25 scores), query terms and terms in
    more than half the records left out, added with weight PRF_A * w / max w in a second pass."""
    from memory_core.retrieval.tokenizer import index_terms as terms_of

    original = retriever.Retriever._lexical
    k, m, alpha = int(env("PRF_K", 5)), int(env("PRF_M", 10)), env("PRF_A", 0.3)
    least, names_out = int(env("PRF_MIN", 1)), bool(env("PRF_NAMES", 0))

    def lexical(self: retriever.Retriever, query: str, terms: Any, scopes: Any, *, floor: bool) -> Any:
        lex = original(self, query, terms, scopes, floor=floor)
        scores = lex.scores
        if not scores:
            return lex
        top = heapq.nsmallest(k, scores, key=lambda rid: (-scores[rid], rid))
        total = sum(scores[r] for r in top)
        weights: dict[str, float] = {}
        asked = set(terms)
        held: dict[str, int] = {}
        fed = self.store.get(sorted(top))
        if names_out:
            known: dict[str, Any] = {}
            for rec in fed:
                if rec.author:
                    asked |= retriever._names(rec.author, known)
        for rec in fed:
            counts = terms_of(rec.text)
            length = sum(counts.values()) or 1
            for t, tf in counts.items():
                if t not in asked and not retriever._IDENTIFIER.search(t):
                    weights[t] = weights.get(t, 0.0) + scores[rec.id] / total * tf / length
                    held[t] = held.get(t, 0) + 1
        feed(self, scores, scopes, {t: w for t, w in weights.items() if held[t] >= least}, m, alpha)
        return lex

    return {(retriever.Retriever, "_lexical"): lexical}


def session_signal() -> dict[tuple[Any, str], Any]:
    """After the context shares: the best SES_L fused records lend SES_S of their fused score to
    the other turns of their session in the raw vector list, scaled by cosine between the list's
    last and first."""
    original = retriever.Retriever._context
    lenders_n, share = int(env("SES_L", 5)), env("SES_S", 0.2)
    state: dict[str, Any] = {}
    orig_fused = retriever._fused_scores

    def fused_scores(scores: Any, by_meaning: Any) -> dict[str, float]:
        state["order"] = by_meaning[0]
        return orig_fused(scores, by_meaning)

    def context(self: retriever.Retriever, fused: dict[str, float], records: dict[str, Record]) -> None:
        original(self, fused, records)
        order = state.get("order") or []
        if not order:
            return
        lenders = heapq.nsmallest(lenders_n, fused, key=lambda rid: (-fused[rid], rid))
        missing = [rid for rid in set(lenders) | set(order) if rid not in records]
        if missing:
            records.update((r.id, r) for r in self.store.get(sorted(missing)))
        best: dict[Any, float] = {}
        for rid in lenders:
            rec = records.get(rid)
            if rec is not None and rec.session_id is not None:
                key = (rec.scope, rec.session_id)
                best[key] = max(best.get(key, 0.0), fused[rid])
        gains = {}
        for rank, rid in enumerate(order):
            rec = records.get(rid)
            if rec is None or rid in lenders or rec.session_id is None:
                continue
            lend = best.get((rec.scope, rec.session_id))
            if lend:
                gains[rid] = share * lend * (1 - rank / len(order))
        for rid, g in gains.items():
            fused[rid] = fused.get(rid, 0.0) + g

    return {(retriever.Retriever, "_context"): context, (retriever, "_fused_scores"): fused_scores}


def expand(
    self: retriever.Retriever, lex: Any, scopes: Any, fed: list[Record], shares: list[float], m: int, alpha: float
) -> None:
    """Add to `lex.scores` the BM25 of the `m` best feedback terms of `fed`, weight alpha * w / max w."""
    from memory_core.retrieval.tokenizer import index_terms as terms_of

    weights: dict[str, float] = {}
    asked = set(lex.asked)
    for rec, share in zip(fed, shares, strict=True):
        counts = terms_of(rec.text)
        length = sum(counts.values()) or 1
        for t, tf in counts.items():
            if t not in asked and not retriever._IDENTIFIER.search(t):
                weights[t] = weights.get(t, 0.0) + share * tf / length
    feed(self, lex.scores, scopes, weights, m, alpha)


def feed(
    self: retriever.Retriever, scores: dict[str, float], scopes: Any, weights: dict[str, float], m: int, alpha: float
) -> None:
    """Add to `scores` the BM25 of the `m` best-weighted feedback terms (df above 1 and at most the store's
    1/PRF_DF), each at alpha * its weight / the best weight: the one expansion both PRF variants apply."""
    stats = self.store.index_stats(scopes)
    docs = stats.documents
    cands = sorted(weights, key=lambda t: (-weights[t], t))[: 4 * m]
    if not cands:
        return
    probe = self.store.postings(scopes, cands, max_df=0)
    cands = [t for t in cands if 1 < probe[t].df <= docs // int(env("PRF_DF", 20))][:m]
    if not cands:
        return
    top_w = max(weights[t] for t in cands)
    read = self.store.postings(scopes, cands)
    average = stats.average_length or 1.0
    for t in cands:
        idf = retriever._idf(docs, probe[t].df)
        for p in read[t].postings:
            gain = alpha * weights[t] / top_w * retriever._bm25(idf, p.tf, p.length, average)
            scores[p.record_id] = scores.get(p.record_id, 0.0) + gain


def prf_fused() -> dict[tuple[Any, str], Any]:
    """Feedback from the PRF_K best fused records (every list, not BM25 alone), uniform shares,
    before the replies' shares; the fusion is computed again after."""
    original = retriever.Retriever._replies
    k, m, alpha = int(env("PRF_K", 5)), int(env("PRF_M", 10)), env("PRF_A", 0.3)
    state: dict[str, Any] = {}
    orig_lexical = retriever.Retriever._lexical

    def lexical(self: retriever.Retriever, query: str, terms: Any, scopes: Any, *, floor: bool) -> Any:
        state["scopes"] = scopes
        return orig_lexical(self, query, terms, scopes, floor=floor)

    def replies(self: retriever.Retriever, lex: Any, wanted: Any, read: Any = None) -> Any:
        fed = self.store.get(sorted(wanted[:k]))
        if fed:
            expand(self, lex, state["scopes"], fed, [1.0 / len(fed)] * len(fed), m, alpha)
        return original(self, lex, wanted, read)

    return {(retriever.Retriever, "_replies"): replies, (retriever.Retriever, "_lexical"): lexical}


VARIANTS.update(pf=prf_fused, div=session_diversity, prf=prf, ses=session_signal)


def build(fold: str, folder: str) -> tuple[Any, list[tuple[Scope, str, str, set[str]]]]:
    store = open_store(f"sqlite:///{folder}/{fold}.db", timeout=30)
    questions = []
    for sample in json.loads(fusion_research.LOCOMO.read_text()):
        if sample["sample_id"] not in FOLDS[fold]:
            continue
        scope = Scope("project", f"bench-locomo/{sample['sample_id']}")
        records = list(locomo.turns(sample, scope))
        for record in records:
            store.put(record, index_terms(record.text))
        locomo._vectors(store, fusion_research.E5, records)
        known = {r.id.split(":", 1)[1] for r in records}
        for qa in sample["qa"]:
            evidence = evidence_ids(qa.get("evidence", []), known)
            if evidence and qa.get("category") in locomo._SCORED:
                questions.append((scope, f"{sample['sample_id']}:", str(qa["question"]), evidence))
    return store, questions


def score(store: Any, questions: list[tuple[Scope, str, str, set[str]]]) -> str:
    r = retriever.Retriever(store, embedder=fusion_research.E5)
    tally = {"all": [0, 0, 0], "one": [0, 0, 0], "many": [0, 0, 0]}
    for scope, prefix, text, evidence in questions:
        hits = r.rank(text, [scope], limit=20, floor=False)
        ranked = [h.record.id.removeprefix(prefix) for h in hits]
        for group in ("all", "one" if len(evidence) == 1 else "many"):
            t = tally[group]
            t[0] += 1
            t[1] += evidence <= set(ranked[:5])
            t[2] += evidence <= set(ranked[:10])
    return " ".join(f"{g} {t[1] / t[0]:.3f}/{t[2] / t[0]:.3f}" for g, t in tally.items())


def main(names: list[str]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        built = {fold: build(fold, folder) for fold in "AB"}
        for name in names:
            patch = VARIANTS[name]()
            saved = {key: getattr(*key) for key in patch}
            for (owner, attr), value in patch.items():
                setattr(owner, attr, value)
            try:
                line = [name] + [f"{fold} " + score(*built[fold]) for fold in "AB"]
            finally:
                for (owner, attr), value in saved.items():
                    setattr(owner, attr, value)
            print(" | ".join(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["base"]))
