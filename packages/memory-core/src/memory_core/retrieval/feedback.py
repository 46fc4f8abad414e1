"""Pseudo-relevance feedback for BM25: the words the best matches share, added to the prompt's.

A question whose answer is spread over several turns ("What activities does Melanie partake
in?") matches one of them by its words; the others say "pottery" or "camping", which the
question does not. The first BM25 matches say them, so a second BM25 pass over the words that
weigh most in those matches (RM3, Lavrenko and Croft's relevance model with the query kept)
reaches the other turns. This module picks the words; `Retriever._feedback` reads their postings
and adds their scores.

Standard library only (the hook client imports the retriever, and with it this module).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from memory_core.retrieval.tokenizer import index_terms

__all__ = ["FEEDBACK_TERMS", "FEEDBACK_WEIGHT", "FEEDBACK_MAX_SHARE", "feedback_weights", "kept_terms"]

FEEDBACK_TERMS = 10
FEEDBACK_WEIGHT = 0.4
"""The expansion: the `FEEDBACK_TERMS` words that weigh most in the five best BM25 matches each
add `FEEDBACK_WEIGHT * weight / best weight` of their BM25 score. Chosen out of fold
(bench/multi_research.py prf, 2026-12-05; docs/retrieval.md, "Feedback, measured" has the table)."""
FEEDBACK_MAX_SHARE = 0.05
"""A word held by more than this share of the records is not added: it says little about any
of them (and its postings are the most costly to read)."""
_CANDIDATES = 4
"""Words considered per word kept: the best `_CANDIDATES * FEEDBACK_TERMS` by weight are probed for
their document frequency, and the best that pass the share are kept."""


def feedback_weights(
    texts: Sequence[tuple[str, float]], asked: Collection[str], *, skip: Callable[[str], bool] = lambda _: False
) -> dict[str, float]:
    """Each word's weight in the feedback records, best first: for each record (its text, its
    BM25 score), the word's frequency over the record's length times the record's share of the
    scores, summed (RM3's relevance model). The prompt's own words (`asked`) and those `skip`
    says are not candidates; `_CANDIDATES * FEEDBACK_TERMS` words at most, ties by the word.

    Never raises; no records, or records with no scores, give no words.
    """
    total = sum(max(score, 0.0) for _, score in texts)
    if total <= 0:
        return {}
    weights: dict[str, float] = {}
    for text, score in texts:
        counts = index_terms(text)
        length = sum(counts.values())
        if length == 0 or score <= 0:
            continue
        share = score / total
        for term in sorted(counts):  # a fixed order: the same float sums everywhere
            if term in asked or skip(term):
                continue
            weights[term] = weights.get(term, 0.0) + share * counts[term] / length
    best = sorted(weights, key=lambda t: (-weights[t], t))[: _CANDIDATES * FEEDBACK_TERMS]
    return {t: weights[t] for t in best}


def kept_terms(weights: Mapping[str, float], df: Mapping[str, int], documents: int) -> list[str]:
    """The `FEEDBACK_TERMS` best words of `weights` (best first) that at most `FEEDBACK_MAX_SHARE`
    of the `documents` hold.
    """
    most = int(documents * FEEDBACK_MAX_SHARE)
    return [t for t in weights if 0 < df.get(t, 0) <= most][:FEEDBACK_TERMS]
