"""Ranking: which stored memories answer a prompt, best first, the same on every backend.

How a record is ranked (docs/retrieval.md has the reasoning and the measured figures):
1. Candidate lists: BM25 over the store's postings (`k1`, `b` below), and, when an embedder
   is loaded and the store keeps vectors, the records whose best passage is nearest the
   prompt's vector (`Vectors.nearest`), and nearest it with the generic prompts' common
   direction taken out (`_HUB_WEIGHT`). BM25 postings are read rarest term first within a
   budget; the commonest terms that would overflow it are not read (their df still counts). A
   store that can sum BM25 itself (`SummingPostings`, `PickedPostings`) returns only the
   postings of the records that can be in the list.
2. Reciprocal-rank fusion of the lists (`_RRF_K`, `_VECTOR_WEIGHT`). A record with no vector yet is ranked by
   BM25 alone; with no embedder (cold hook process, model missing) BM25 is the only list.
3. Recall (`floor=True`) then decides whether to inject at all (`decision`): the prompt's best
   passage cosine against its closeness to a bank of generic prompts, by the store's bar
   (`decision.Bank.bar`: `MARGIN`, or lower in a store the bank never comes near). Only records whose own
   cosine nearly passes the same bar (`_ITEM_SLACK`) are injected: the item cap is a maximum. A bar on the distance
   from the best record (0.01 to 0.05 below it) only lost answers: coding-dev answered, fold A
   0.66 / 0.78 / 0.85 / 0.88 at 0.01 / 0.02 / 0.03 / 0.05 and 0.88 with none; fold B 0.61 to
   0.71 and 0.71 with none; the stale statement won whenever the newer one fell outside it. With
   no vectors at all, a BM25-only bar (`_BM25_COVER`).
4. Among what is injected, a newer record whose cosine is within `_NEWER_BAND` of an older one's
   goes above it: the newer of two statements of the same thing is the one that holds now.
5. Feedback: each `acted` lifts a record a little (capped); a negative standing is out already.
   Near-duplicates (almost the same words as a better hit) are collapsed into the better one.
   Each hit carries the best-matching excerpt of its record, not its head.

A prompt token that no record of the scopes holds and that carries a digit (a ticket number, a
hash, a new error code) is left out of the text that is embedded: it cannot match anything, and
must not move the prompt's vector (BM25 ignores it already: its df is 0).
The names of the authors the prompt says are left out of it too (`_authors_named`): who wrote a
turn is not what it is about.

Everything is computed from store answers in a fixed order, so a given store content gives the
same ranking on SQLite, Redis and PostgreSQL. Store errors propagate (`StoreUnavailable`,
`StoreError`); the retriever itself does not raise. Standard library only until an embedder is
given (the hook client imports this module and never loads a model).
"""

from __future__ import annotations

import heapq
import math
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memory_core.models import Hit, Record, Scope
from memory_core.retrieval.decision import MARGIN, NULL_PASSAGES
from memory_core.retrieval.excerpt import EXCERPT_CHARS, excerpt, near_duplicate, signature
from memory_core.retrieval.render import approx_tokens, render_block
from memory_core.retrieval.tokenizer import query_terms, term_spans
from memory_core.store.base import (
    NEIGHBOUR_SPAN,
    Neighbour,
    NumberedPosting,
    PickedPostings,
    Posting,
    Store,
    SummingPostings,
    TermPostings,
    Vectors,
)

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import numpy.typing as npt

    from memory_core.embedding import Embedder
    from memory_core.retrieval.decision import Bank

__all__ = ["Retriever", "Ranking", "Candidate", "render_block", "approx_tokens", "BM25_K1", "BM25_B", "NEIGHBOUR_SPAN"]

BM25_K1 = 1.2
"""Term-frequency saturation: the third mention of a word adds little over the second."""
BM25_B = 0.75
"""Length normalisation: a long transcript does not win just by holding more words."""
_RECALL_POSTINGS = 800
_SEARCH_POSTINGS = 50_000
"""Postings read per query at most, recall and deliberate search. Terms are read rarest first; the
commonest ones that would overflow the budget are skipped (their df is still known). This bounds a
query's cost whatever the store's size; a term in thousands of records says little about any."""
_STORE_SUMS_FROM = 2_000
"""Deliberate search lets a store that sums BM25 itself pick the records that can rank once the
admitted postings reach this many; below it one plain read is as cheap. Same ranking either way."""
_PICK_FROM = 2
"""On a store that numbers its records, recall sums by number and reads the ids of the records
that can rank only past this many times the depth: below it reading every id costs as much."""
_DEPTH = 50
"""Candidates each list contributes to the fusion. The evidence of every coding-dev question that
either list finds at all is within its first 50."""
_RRF_K = 60.0
_VECTOR_WEIGHT = 0.35
"""Reciprocal-rank fusion: a record scores `1 / (_RRF_K + rank)` in the BM25 list and
`_VECTOR_WEIGHT / (_RRF_K + rank)` in the vector list. `_RRF_K` is the usual 60 (10 and 20 gave the
same top-5). The vector list counts about a third of BM25's because on chat its first places are
often short turns that share a topic or a speaker's name, not an answer ("Caroline: Cool! What did
it look like?" for "How long ago was Caroline's 18th birthday?"), while a word match is rarely
wrong. Chosen out of fold (bench/fusion_research.py, 2026-12-05): coding answered through
`assemble` and LoCoMo R@5 / R@10 (bench/locomo.py --vectors) at 0.25 / 0.3 / 0.35 / 0.4 / 0.5:
fold A coding 0.878 / 0.878 / 0.902 / 0.902 / 0.902, R 0.570 / 0.685, 0.570 / 0.676, 0.560 /
0.679, 0.556 / 0.679, 0.553 / 0.656; fold B coding 0.816 at every weight, R 0.543 / 0.613, 0.534 /
0.604, 0.523 / 0.592, 0.521 / 0.587, 0.506 / 0.589. Fold A chose 0.35 (coding answered plus mean
R); read on fold B every row held or rose (R@5 0.506 -> 0.523, LoCoMo answered through `assemble`
0.596 -> 0.606; coding, big store, off-topic, replay and stale figures unchanged). Fold B chose
0.25, which read on fold A cost a coding question (0.902 -> 0.878) and one in the big store: not
taken. Before (rank_research.py, turn pairs): 1.0 and 0.5 were compared, 0.5 kept. Swept again
with the two vector lists (`_HUB_WEIGHT`; each list gets half): fold A 0.35 again (0.3 and 0.4
cost LoCoMo answered, 0.25 and 0.3 the big store), fold B 0.3 (R@5 0.560 against 0.551 at 0.35),
which read on fold A cost a big-store question (0.829 -> 0.805): 0.35 kept."""
_HUB_WEIGHT = 0.75
"""A second vector list orders the records by closeness to the prompt's vector with this much of
the bank's centre taken out (`Bank.centre`, the direction every generic prompt shares): a record
then ranks by what its passage shares with this prompt beyond what it shares with any generic
one, the decision's own comparison applied to the passages. Short generic passages are near
every prompt and fill the raw list's first places (hubs: "Caroline: Cool! What did it look
like?" for "How long ago was Caroline's 18th birthday?"). The raw list stays beside it, each
counting half of `_VECTOR_WEIGHT`: the second list alone cost the big store a question on each
fold (Italian "Perché avevo contestato il verdetto di tenere Hermes?" among them). The raw
cosines still make the decision. Chosen out of fold (bench/fusion_research.py hub with
HUB_SPLIT=1, 2026-12-05, the 354-prompt bank), LoCoMo R@5 / R@10 and LoCoMo answered through
`assemble` at 0 / 0.25 / 0.5 / 0.75 / 1.0: fold A 0.560 / 0.679, 0.566 / 0.685, 0.573 / 0.695,
0.580 / 0.699, 0.586 / 0.702, answered 0.666 except 0.659 at 1.0; fold B 0.523 / 0.592, 0.534 /
0.609, 0.543 / 0.609, 0.551 / 0.611, 0.551 / 0.604, answered 0.606 / 0.604 / 0.606 / 0.609 /
0.609. Coding answered, off-topic, generic, replay tokens, stale wins and the big store were the
same at every weight on both folds. Both folds chose 0.75 (the best R@ with no row lower)."""
_REPLY_SHARE = 0.3
_REPLY_OFFSET = 1
_LENDERS = 5
"""A turn gains this share of the BM25 score of the turn before it in its session, for the
`_LENDERS` best turns by BM25: the answer is often the turn after the one that holds the
question's words (a LoCoMo reply, "ok, go ahead" after "should we rename parsePayload?").
Top 5 / top 10 with and without it (bench/rank_research.py, fused as shipped), fold A then B:
LoCoMo 0.596 / 0.669 -> 0.639 / 0.732 and 0.568 / 0.636 -> 0.591 / 0.662; coding-dev 0.927 / 0.976
-> 0.927 / 0.927 and 0.842 / 0.868 -> 0.868 / 0.895. Sharing with the two turns either side
(the retired context rule) was no better on LoCoMo and worse on coding (0.902, 0.816). Through
`assemble` (bench/recall.py --vectors), answered at 0 / 0.15 / 0.3: coding fold A 0.902 / 0.902 /
0.878, fold B 0.816 / 0.790 / 0.816; LoCoMo fold A 0.599 / 0.619 / 0.642, fold B 0.570 / 0.579 /
0.583. Fold A's sum chose 0.15 (by 0.001 over 0.3), fold B's 0.3."""
_CONTEXT_SHARE = 0.05
_CONTEXT_LENDERS = 10
_CONTEXT_SPAN = 1
"""After fusion, the turns just before and after each of the `_CONTEXT_LENDERS` best fused records
gain `_CONTEXT_SHARE` of its fused score: an answer is often split over a turn and its neighbour
(a chat reply, the turn that states what the matching one asked), whichever list found the match.
Chosen out of fold (bench/recall.py --vectors --replay and bench/locomo.py --vectors, 2026-12-05),
coding answered and LoCoMo R@5 / R@10 at share 0 / 0.025 / 0.05 / 0.075 / 0.1 / 0.2 (10 lenders):
fold A coding 0.878 / 0.902 / 0.902 / 0.902 / 0.878 / 0.659, LoCoMo 0.540 / 0.652, 0.550 / 0.662,
0.560 / 0.659, 0.556 / 0.659, 0.563 / 0.659, 0.563 / 0.656; fold B coding 0.816 / 0.816 / 0.816 /
0.790 / 0.790 / 0.790, LoCoMo 0.502 / 0.581, 0.504 / 0.581, 0.509 / 0.589, 0.517 / 0.589, 0.523 /
0.594, 0.540 / 0.615. Both folds chose 0.05 (coding answered plus mean R@5/R@10); larger shares
crowd coding's five items with the neighbours of its best turn. Lenders 5 / 10 / 20 at 0.05: fold
A 0.878 / 0.902 / 0.878 coding, fold B the same coding and R@5 0.506 / 0.509 / 0.515: A chose 10,
B 20 (by 0.004), each better than none on the other fold. Two or three turns either side (shares
0.1 to 0.3) raised LoCoMo R@5 to 0.57-0.59 (A) and 0.53-0.56 (B) but cost coding 7 to 29 points.
The neighbours are within `NEIGHBOUR_SPAN` of records the pool read: a server store prefetched them."""
_PROMPT_CHARS = 600
"""A longer prompt is embedded as its first passage (`embedding.passages`, the size records are
embedded at): the engine's cost grows faster than the text (on this machine ~25 ms for 90
characters, 0.23 s for 740, 3.8 s for 5,900; a pasted log of 28,000 would take minutes, past any
hook's timeout), and e5 reads 512 tokens at most. BM25 still reads the whole prompt."""
_POOL_LEAST = 12
_POOL_PER_ITEM = 2
_POOL_ROUNDS = 4
"""Fused candidates read in full: `max(_POOL_LEAST, limit * _POOL_PER_ITEM)`, doubled when the
filters (already injected, live context, another author) leave too few, at most this many times."""
_ITEM_SLACK = 0.02
"""Once the prompt passed, a record is injected when its own cosine is above the generic closeness
plus `MARGIN` minus this: the answer is often the second or third record, a little less close
than the best. Coding-dev (bench/recall.py --vectors --replay), answered / replay tokens per
prompt, fold A: 0.878 / 125 at 0, 0.902 / 200 at 0.02, 0.927 / 208 at 0.04, the same at 0.06 and
with no bar; fold B: 0.737 / 40 at 0, 0.816 / 59 at 0.02 and above. Both folds chose 0.02 (the
replay goal of 200 tokens bounds fold A)."""
_NEWER_BAND = 0.07
"""A newer injected record goes above an older one whose cosine is at most this much higher: two
statements of the same subject sit that close. Stale wins on the update questions (coding-dev's
and bench/data/updates.json's, 21): 0.57 with no lift, 0.29 at 0.03, 0.14 at 0.05, 0.05 at 0.07
and at 0.10."""
_BM25_COVER = 0.5
"""With no vectors (no embedder, or none stored yet), recall injects only a record holding at least
this share of the prompt's known words' idf (half of what was asked, not one word of it), counting
only words held by at most half of the records (more than one): words most memories share say
nothing."""
_AUTHOR_BOOST = 0.3
"""A record's fused score gains this share when the prompt names its author ("what did Bob decide
about the cache?" in a store Bob and Alice share). In a store with one author it lifts every
record alike and changes nothing (coding-dev and bench/recall.py: identical figures). LoCoMo
(bench/locomo.py --vectors, turns authored by their speaker), fold A R@5 / R@10: 0.500 / 0.619
without, 0.543 / 0.652 with."""
_IDENTIFIER_RECORDS = 3
"""A prompt naming an identifier (a path, `snake_case`, `dotted.name`: a term the tokenizer keeps
whole) that at most this many records of the store hold is about those records, whatever the
bank says: "what did we change in src/auth/session.ts?" shares only that path with the turn that
touched it. Coding-dev folds: no negative names one (figures unchanged)."""
_STANDING_STEP = 0.05
_STANDING_CAP = 4
"""Each `acted` adds 5% to a record's fused score, up to four of them."""
_FULL_EXCERPTS = 1
_SHORT_EXCERPT_SHARE = 0.5
"""The first hit shows an `EXCERPT_CHARS` passage, the others half of it: every injected token is
paid on every turn, and a lower hit is more often a pointer than the answer."""

NO_TERMS = "no words to search for"
NO_MATCH = "nothing in memory is near the prompt"
GENERIC = "the prompt is closer to generic prompts than to this project's memories"
BELOW_FLOOR = "no memory holds enough of the prompt"
ALL_FILTERED = "the relevant memories were already injected or are in the live context"
FOUND = "found"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One fused candidate and its signals: what `memory last` and the Recalls page show."""

    record_id: str
    fused: float
    similarity: float | None
    """Its best passage's cosine with the prompt; None when it has no vector or is not near."""
    bm25: float | None
    """Its BM25 score; None when it matched no word of the prompt."""


@dataclass(frozen=True, slots=True)
class Ranking:
    """What recall found and, when it found nothing, why (one of the reasons above)."""

    hits: list[Hit]
    why: str
    candidates: tuple[Candidate, ...] = ()
    decision: Mapping[str, float | str] = field(default_factory=dict)
    """The inject decision's inputs: `mode` (vectors or bm25), `similarity` (best cosine),
    `generic` (closeness to the bank), `support` (similarity - generic) and `margin`, the support
    this store asks (`MARGIN`, or the store's own lower bar: `decision.Bank.bar`)."""


_POSSESSIVES = ("'s", "\u2019s")
"""What follows a name in its possessive ("Caroline's"): left out of the embedded text with it."""

_IDENTIFIER = re.compile(r"\w[_./:\\-]+\w")
"""A whole-identifier term: word characters joined by an identifier or path separator."""


def _bm25(idf: float, tf: int, length: int, average: float) -> float:
    """One term's BM25 share of a record's score."""
    return idf * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * (1.0 - BM25_B + BM25_B * length / average))


def _idf(documents: int, df: int) -> float:
    return math.log(1.0 + (documents - df + 0.5) / (df + 0.5))


def _df_cut(dfs: dict[str, int], budget: int) -> int:
    """The largest document frequency whose terms (and every rarer one) fit `budget` postings in all."""
    cut, total = 0, 0
    for df in sorted(set(dfs.values())):
        if df == 0:
            continue
        total += df * sum(1 for v in dfs.values() if v == df)
        if total > budget:
            break
        cut = df
    return cut


def _embedded_text(query: str, unseen: set[str], names: frozenset[str] = frozenset()) -> str:
    """The prompt without its unseen tokens that carry a digit (ids, hashes, codes) and without
    the words of `names` (the authors' names it says, with a possessive "'s" after them).
    """
    if not unseen and not names:
        return query
    kept, at = [], 0
    for start, end, terms in term_spans(query):
        if start < at:
            continue  # the "s" of a possessive already left out with its name
        token = query[start:end]
        # The token as written (a compound's whole-identifier term is its last) is new to the store.
        new_id = bool(terms) and terms[-1] in unseen and any(c.isdigit() for c in token)
        named = bool(terms) and all(t in names for t in terms)
        if new_id or named:
            kept.append(query[at:start].rstrip(" \t"))
            at = end
            if named and query[end : end + 2] in _POSSESSIVES:
                at = end + 2
    if not kept:
        return query
    kept.append(query[at:])
    # The prompt as it would read without the tokens: "...port? m1-4ce67b" -> "...port?".
    return "".join(kept).strip()


def _vector_text(text: str) -> str:
    """What of the prompt is embedded: all of it up to `_PROMPT_CHARS`, else its first passage."""
    if len(text) <= _PROMPT_CHARS:
        return text
    from memory_core.embedding.passages import passages  # only where a model runs, never the hook client

    return (passages(text) or [text[:_PROMPT_CHARS]])[0]


@dataclass
class _Lexical:
    """BM25 over one query: the matched records' scores and the terms each holds."""

    weights: dict[str, float]
    scores: dict[str, float] = field(default_factory=dict)
    matched: dict[str, set[str]] = field(default_factory=dict)
    unseen: set[str] = field(default_factory=set)
    common: set[str] = field(default_factory=set)
    """Terms held by more than half of the records (and more than one)."""
    df: dict[str, int] = field(default_factory=dict)
    """Each known term's document frequency in the scopes."""
    asked: frozenset[str] = frozenset()
    """Every term of the prompt."""
    partial: tuple[Sequence[Scope], list[str], SummingPostings] | None = None
    """Set when the store returned only the postings of the records that can rank: what reading
    another record's postings takes (scopes, the terms read, the store)."""
    average: float = 1.0

    def add(self, term: str, postings: Sequence[Posting], average: float) -> None:
        idf = self.weights[term]
        for posting in postings:
            rid = posting.record_id
            self.scores[rid] = self.scores.get(rid, 0.0) + _bm25(idf, posting.tf, posting.length, average)
            self.matched.setdefault(rid, set()).add(term)

    def passes(self, rid: str) -> bool:
        """Whether the record holds enough of the prompt's known words (`_BM25_COVER`)."""
        held = sum(self.weights[t] for t in self.matched.get(rid, ()) if t not in self.common)
        return held > 0 and held >= _BM25_COVER * sum(self.weights.values())


class Retriever:
    """Ranks a store's records for a query. Holds no state beyond its store, embedder and bank.

    Args:
        store: Where the records, postings and (when it keeps them) vectors are.
        embedder: The sentence-embedding model; None ranks by BM25 alone.
        bank: The generic prompts' vectors for `embedder` (`decision.Bank`); built when None.
    """

    def __init__(self, store: Store, *, embedder: Embedder | None = None, bank: Bank | None = None) -> None:
        self.store = store
        self.embedder = embedder
        if embedder is not None and bank is None:
            from memory_core.retrieval.decision import Bank

            bank = Bank(embedder)
        self.bank = bank

    def rank(
        self,
        query: str,
        scopes: Sequence[Scope],
        *,
        limit: int,
        exclude: Callable[[Record], bool] | None = None,
        floor: bool = True,
        author: str | None = None,
    ) -> list[Hit]:
        """The best `limit` records for `query` in `scopes`, best first (`ranking` without the why)."""
        return self.ranking(query, scopes, limit=limit, exclude=exclude, floor=floor, author=author).hits

    def ranking(
        self,
        query: str,
        scopes: Sequence[Scope],
        *,
        limit: int,
        exclude: Callable[[Record], bool] | None = None,
        floor: bool = True,
        author: str | None = None,
    ) -> Ranking:
        """The best `limit` records for `query` in `scopes`, best first, and why there are none.

        Args:
            query: The prompt or search words.
            scopes: Where to look; an empty list finds nothing.
            limit: Hits returned at most.
            exclude: Records for which this returns True are skipped (already injected,
                still in the live context).
            floor: Decide whether to inject (recall); False for deliberate search and benches.
            author: Only records by this author.
        """
        terms = query_terms(query)
        if not scopes or limit <= 0 or not query.strip():
            return Ranking([], NO_TERMS)
        embedder, bank = self.embedder, self.bank
        semantic = None
        if embedder is not None and bank is not None and isinstance(self.store, Vectors):
            # The prompt's vector and its neighbours are computed in a thread while BM25 reads
            # the postings: the engine and numpy's scan release the GIL, so on two cores a recall
            # costs the larger of the two instead of their sum (docs/performance.md). Embedded as
            # written; in the rare turn where BM25 finds a new token to leave out, again without it.
            semantic = _threads().submit(self._semantic, _vector_text(query), scopes)
        lexical = self._lexical(query, terms, scopes, floor=floor)
        lexical.asked = frozenset(terms)
        near: dict[str, float] = {}
        by_meaning: tuple[list[str], list[str]] = ([], [])
        decision: dict[str, float | str] = {"mode": "bm25"}
        read: dict[str, Record] = {}
        if semantic is not None and bank is not None:
            # The names of the authors the prompt says ("When did Caroline paint a sunrise?") are
            # left out of what is embedded: who wrote a turn is not what it is about, and a name
            # brings every short turn of its author near the prompt (`_authors_named`).
            named, read = self._authors_named(lexical)
            text = _vector_text(_embedded_text(query, lexical.unseen, named))
            vector, found, beyond, bar = (
                semantic.result() if text == _vector_text(query) else self._semantic(text, scopes)
            )
            near = dict(found)
            if near:
                by_meaning = ([rid for rid, _ in found], [rid for rid, _ in beyond])
                similarity = max(near.values())
                generic = bank.generic(vector)
                decision = {
                    "mode": "vectors",
                    "similarity": round(similarity, 4),
                    "generic": round(generic, 4),
                    "support": round(similarity - generic, 4),
                    "margin": bar,
                }
        pool = max(_POOL_LEAST, limit * _POOL_PER_ITEM)
        # One read of the records the pool will most likely hold and of the BM25 lenders; their
        # replies come from `session_records` (a server store has them prefetched by that read).
        fused = _fused_scores(lexical.scores, by_meaning)
        records = self._replies(lexical, sorted(fused, key=lambda rid: (-fused[rid], rid))[:pool], read)
        fused = _fused_scores(lexical.scores, by_meaning)  # again: the replies' shares moved BM25's list
        self._context(fused, records)
        ordered = sorted(fused, key=lambda rid: (-fused[rid], rid))
        if not floor:
            # A deliberate search shows a record that shares no word with the query only when it
            # is nearer than generic prompts are (every store has a nearest record to anything):
            # a neighbour's share of a good hit orders the matches, it does not make one.
            least = float(decision["generic"]) + float(decision["margin"]) if near else math.inf
            ordered = [rid for rid in ordered if rid in lexical.scores or near.get(rid, -math.inf) > least]
        candidates = tuple(Candidate(rid, fused[rid], near.get(rid), lexical.scores.get(rid)) for rid in ordered)
        if not ordered:
            return Ranking([], NO_TERMS if not terms and not near else NO_MATCH, candidates, decision)
        admit = self._admission(lexical, near, decision) if floor else None
        if admit is not None and isinstance(admit, str):
            return Ranking([], admit, candidates, decision)
        eligible = [rid for rid in ordered if admit is None or rid in admit]
        for _ in range(_POOL_ROUNDS):
            hits, filtered = self._select(eligible[:pool], records, fused, near, lexical, limit, exclude, author, floor)
            if len(hits) >= limit or not filtered or pool >= len(eligible):
                break
            pool *= 2
        if hits:
            return Ranking(hits, FOUND, candidates, decision)
        return Ranking(hits, ALL_FILTERED if filtered else BELOW_FLOOR, candidates, decision)

    def _semantic(
        self, text: str, scopes: Sequence[Scope]
    ) -> tuple[npt.NDArray[np.float32], list[Neighbour], list[Neighbour], float]:
        """The prompt's vector, the `_DEPTH` records nearest it, the `_DEPTH` nearest it with the
        bank's centre taken out (`_HUB_WEIGHT`), and the support the decision asks of this store
        (`Bank.bar`); an embedder, a bank and vectors are there.
        """
        import numpy as np

        embedder, store, bank = self.embedder, self.store, self.bank
        assert embedder is not None
        assert bank is not None
        assert isinstance(store, Vectors)
        vector = embedder.embed_query(text)
        # The second vector list: closeness beyond what generic prompts share (`_HUB_WEIGHT`),
        # scored in the same pass over the passages as the first.
        beyond = vector - _HUB_WEIGHT * bank.centre()
        beyond = beyond / max(float(np.linalg.norm(beyond)), 1e-12)
        queries = [np.asarray(v, dtype="<f4").tobytes() for v in (vector, beyond)]
        found, hubless = store.nearest_each(scopes, embedder.model_id, queries, k=_DEPTH)
        if not found:
            return vector, found, [], MARGIN
        # The store's own bar: how close the bank's prompts come to it (kept by the store's cache,
        # brought up to date by each capture's passages; `MARGIN` past `NULL_PASSAGES`).
        probes, key = bank.probes()
        closest = store.closest(scopes, embedder.model_id, probes, dim=len(vector), key=key, most=NULL_PASSAGES)
        return vector, found, hubless, bank.bar(closest)

    def _lexical(self, query: str, terms: Sequence[str], scopes: Sequence[Scope], *, floor: bool) -> _Lexical:
        """BM25 scores of the records that can be among the `_DEPTH` best."""
        store = self.store
        if not terms:
            return _Lexical({})
        stats = store.index_stats(scopes)
        documents = stats.documents
        if documents == 0:
            return _Lexical({}, unseen=set(terms))
        average = stats.average_length or 1.0
        # First the document frequencies alone (max_df=0 reads no postings), then the postings
        # of the terms the budget admits: every backend makes the same cut from the same counts.
        probe = store.postings(scopes, terms, max_df=0)
        unseen = {t for t in terms if probe[t].df == 0}
        if unseen:
            # The pieces of a new id ("m1-4ce67b": m1, 4, ce67) must not match either.
            kept = set(query_terms(_embedded_text(query, unseen)))
            terms = [t for t in terms if t in kept]
        max_df = _df_cut({t: e.df for t, e in probe.items()}, _RECALL_POSTINGS if floor else _SEARCH_POSTINGS)
        admitted = [t for t in terms if 0 < probe[t].df <= max_df]
        lexical = _Lexical(
            {t: _idf(documents, probe[t].df) for t in terms if probe[t].df > 0},
            unseen=unseen,
            df={t: probe[t].df for t in terms if probe[t].df > 0},
            common={t for t in terms if probe[t].df > max(1, documents // 2)},
        )
        if not admitted:
            return lexical
        weights = {t: lexical.weights[t] for t in admitted}
        lexical.average = average
        postings = sum(probe[t].df for t in admitted)
        found: Mapping[str, Sequence[Posting]]
        if not floor and isinstance(store, SummingPostings) and postings >= _STORE_SUMS_FROM:
            found = store.top_postings(scopes, weights, depth=_DEPTH, average=average, k1=BM25_K1, b=BM25_B)
            lexical.partial = (scopes, admitted, store)
        elif (
            postings > _PICK_FROM * _DEPTH and isinstance(store, PickedPostings) and isinstance(store, SummingPostings)
        ):
            picked = store.picked_postings(
                scopes, admitted, max_df=max_df, pick=lambda numbered: _pick(numbered, weights, average)
            )
            found = {t: e.postings for t, e in picked.items()}
            lexical.partial = (scopes, admitted, store)
        else:
            read: dict[str, TermPostings] = store.postings(scopes, admitted, max_df=max_df)
            found = {t: e.postings for t, e in read.items()}
        for term in terms:  # query order: the same float sums on every backend
            if found.get(term):
                lexical.add(term, found[term], average)
        return lexical

    def _authors_named(self, lexical: _Lexical) -> tuple[frozenset[str], dict[str, Record]]:
        """The prompt's terms that name an author of one of the `_LENDERS` best records by BM25
        (the records `_replies` reads next), and those records by id.

        A name is said by whoever wrote a turn, not by what the turn is about: embedded with the
        prompt, "Caroline" put every short reply of Caroline's near "When did Caroline paint a
        sunrise?". The author lift (`_AUTHOR_BOOST`) and BM25 still read the name. LoCoMo
        (bench/locomo.py --vectors, turns authored by their speaker) R@5 / R@10, fold A 0.580 /
        0.699 -> 0.623 / 0.725, fold B 0.551 / 0.611 -> 0.589 / 0.640; coding-dev and LoCoMo
        through `assemble` (one author, never named) unchanged.
        """
        lenders = _best(lexical.scores, _LENDERS)
        records = {r.id: r for r in self.store.get(sorted(lenders))} if lenders else {}
        known: dict[str, frozenset[str]] = {}
        named = frozenset().union(*(_names(r.author, known) for r in records.values() if r.author))
        return named & lexical.asked, records

    def _replies(
        self, lexical: _Lexical, wanted: Sequence[str], read: Mapping[str, Record] | None = None
    ) -> dict[str, Record]:
        """Give the turn after each of the `_LENDERS` best a share of its score (`_REPLY_SHARE`);
        the records read on the way (the lenders, `wanted`, the followers), by id. `read`: records
        read already (not read again).
        """
        scores = lexical.scores
        lenders = _best(scores, _LENDERS)
        records = dict(read or {})
        ids = sorted((set(lenders) | set(wanted)) - records.keys())
        if ids:
            records.update((r.id, r) for r in self.store.get(ids))
        gains: dict[str, float] = {}
        followers: list[Record] = []
        for rid in lenders:
            record = records.get(rid)
            if record is None or record.session_id is None:
                continue
            for follower in self.store.session_records(record.scope, record.session_id, [record.seq + _REPLY_OFFSET]):
                gains[follower.id] = gains.get(follower.id, 0.0) + _REPLY_SHARE * scores[record.id]
                followers.append(follower)
                records.setdefault(follower.id, follower)
        if lexical.partial is not None:
            # A follower the store left out of its answer scores its own words first: the same
            # sums a full read gives.
            scopes, admitted, store = lexical.partial
            missing = sorted({f.id for f in followers} - scores.keys())
            if missing:
                found = store.record_postings(scopes, admitted, missing)
                for term in admitted:
                    if found.get(term):
                        lexical.add(term, found[term], lexical.average)
        for rid in sorted(gains):
            scores[rid] = scores.get(rid, 0.0) + gains[rid]
        return records

    def _context(self, fused: dict[str, float], records: dict[str, Record]) -> None:
        """Give the turns either side of each of the `_CONTEXT_LENDERS` best fused records a share of
        its fused score (`_CONTEXT_SHARE`), in place.
        """
        lenders = _best(fused, _CONTEXT_LENDERS)
        missing = [rid for rid in lenders if rid not in records]
        if missing:
            records.update((r.id, r) for r in self.store.get(missing))
        gains: dict[str, float] = {}
        for rid in lenders:
            record = records.get(rid)
            if record is None or record.session_id is None:
                continue
            seqs = [record.seq - _CONTEXT_SPAN, record.seq + _CONTEXT_SPAN]
            for neighbour in self.store.session_records(record.scope, record.session_id, seqs):
                # Shares of the scores before any gain: the same sums whatever the lenders' order.
                gains[neighbour.id] = gains.get(neighbour.id, 0.0) + _CONTEXT_SHARE * fused[rid]
                records.setdefault(neighbour.id, neighbour)
        for rid in sorted(gains):
            fused[rid] = fused.get(rid, 0.0) + gains[rid]

    def _admission(self, lexical: _Lexical, near: dict[str, float], decision: dict[str, float | str]) -> set[str] | str:
        """The records recall may inject, or why none: the calibrated decision (docs/retrieval.md)."""
        named = {
            rid
            for rid, held in lexical.matched.items()
            if any(lexical.df.get(t, 0) <= _IDENTIFIER_RECORDS and _IDENTIFIER.search(t) for t in held)
        }
        if decision["mode"] == "vectors":
            similarity, generic = float(decision["similarity"]), float(decision["generic"])
            bar = float(decision["margin"])  # MARGIN, or this store's own lower bar (`Bank.bar`)
            # Fewer neighbours than asked means every record with a vector is among them: the
            # others have none yet (captured a moment ago) and are judged by BM25 alone.
            waiting = {rid for rid in lexical.scores if rid not in near} if len(near) < _DEPTH else set()
            named |= {rid for rid in waiting if lexical.passes(rid)}
            if similarity - generic <= bar:
                return named or GENERIC
            # Each record passes the same bar as the prompt: fewer items when support is weak.
            return named | {rid for rid, cosine in near.items() if cosine - generic > bar - _ITEM_SLACK}
        admitted = named | {rid for rid in lexical.scores if lexical.passes(rid)}
        return admitted or BELOW_FLOOR

    def _select(
        self,
        pool_ids: Sequence[str],
        records: dict[str, Record],
        fused: dict[str, float],
        near: dict[str, float],
        lexical: _Lexical,
        limit: int,
        exclude: Callable[[Record], bool] | None,
        author: str | None,
        floor: bool,
    ) -> tuple[list[Hit], int]:
        """Hits from the pool, and how many the filters removed."""
        missing = [rid for rid in pool_ids if rid not in records]
        if missing:
            records.update((r.id, r) for r in self.store.get(missing))
        names: dict[str, frozenset[str]] = {}
        scored: list[tuple[Record, float]] = []
        for rid in pool_ids:
            record = records.get(rid)
            if record is None or not record.searchable or record.standing < 0:
                continue
            score = fused[rid] * (1.0 + _STANDING_STEP * min(record.standing, _STANDING_CAP))
            if record.author and _names(record.author, names) & lexical.asked:
                score *= 1.0 + _AUTHOR_BOOST
            scored.append((record, score))
        scored.sort(key=lambda c: (-round(c[1], 12), -c[0].created_at, c[0].id))
        kept: list[tuple[Record, float]] = []
        signatures: list[frozenset[str]] = []
        filtered = 0
        for record, score in scored:
            if len(kept) >= limit:
                break
            if (author is not None and record.author != author) or (exclude is not None and exclude(record)):
                filtered += 1
                continue
            words = signature(record.text)
            if any(near_duplicate(words, seen) for seen in signatures):
                filtered += 1
                continue
            signatures.append(words)
            kept.append((record, score))
        if floor:
            kept = _newer_first(kept, near)
        hits = []
        for index, (record, score) in enumerate(kept):
            # The first hit shows a full passage; the rest a shorter one (memory_expand opens the whole).
            size = EXCERPT_CHARS if index < _FULL_EXCERPTS else int(EXCERPT_CHARS * _SHORT_EXCERPT_SHARE)
            hits.append(Hit(record, score, excerpt(record.text, lexical.weights, size=size)))
        return hits, filtered


_executor: tuple[int, ThreadPoolExecutor] | None = None
_executor_lock = threading.Lock()


def _threads() -> ThreadPoolExecutor:
    """The process's threads for prompts' vectors: two, so two sessions' recalls do not queue
    (created at the first recall with a model; the hook client never gets here). A forked child
    gets its own: its parent's threads are not in it, and a pool that counts them runs nothing.
    """
    global _executor  # one small pool per process, like the model it feeds
    pid = os.getpid()
    if _executor is None or _executor[0] != pid:
        with _executor_lock:
            if _executor is None or _executor[0] != pid:
                from concurrent.futures import ThreadPoolExecutor

                _executor = (pid, ThreadPoolExecutor(max_workers=2, thread_name_prefix="memory-prompt-vector"))
    return _executor[1]


def _best(scores: Mapping[str, float], count: int) -> list[str]:
    """The `count` best ids of `scores`, best first; ties go to the smaller id (the same order on every store)."""
    return heapq.nsmallest(count, scores, key=lambda rid: (-scores[rid], rid))


def _fused_scores(scores: Mapping[str, float], by_meaning: tuple[list[str], list[str]]) -> dict[str, float]:
    """Reciprocal-rank fusion of the BM25 list (its `_DEPTH` best) and the two vector lists (by
    cosine, and by closeness beyond generic prompts, each half of `_VECTOR_WEIGHT`), by id.
    """
    bm25_order = _best(scores, _DEPTH)
    fused: dict[str, float] = {}
    half = _VECTOR_WEIGHT / 2
    for order, weight in ((bm25_order, 1.0), (by_meaning[0], half), (by_meaning[1], half)):
        for rank, rid in enumerate(order):
            fused[rid] = fused.get(rid, 0.0) + weight / (_RRF_K + rank + 1)
    return fused


def _newer_first(kept: list[tuple[Record, float]], near: dict[str, float]) -> list[tuple[Record, float]]:
    """`kept` with each newer record moved above the older ones whose cosine is within `_NEWER_BAND`."""
    out: list[tuple[Record, float]] = []
    for item in kept:
        record = item[0]
        cosine = near.get(record.id)
        place = len(out)
        while place > 0 and cosine is not None:
            above = out[place - 1][0]
            above_cosine = near.get(above.id)
            if above_cosine is None or record.created_at <= above.created_at or cosine < above_cosine - _NEWER_BAND:
                break
            place -= 1
        out.insert(place, item)
    return out


def _names(author: str, known: dict[str, frozenset[str]]) -> frozenset[str]:
    """An author's name as query terms (`Bob Smith` -> {bob, smith}), memoised per call."""
    terms = known.get(author)
    if terms is None:
        terms = known[author] = frozenset(query_terms(author))
    return terms


def _pick(found: Mapping[str, Sequence[NumberedPosting]], weights: Mapping[str, float], average: float) -> set[int]:
    """The records (by the store's number) that can be among the `_DEPTH` best by BM25, ties included."""
    scores: dict[int, float] = {}
    for term, idf in weights.items():  # query order, as `_Lexical.add` sums
        for number, tf, length in found.get(term, ()):
            scores[number] = scores.get(number, 0.0) + _bm25(idf, tf, length, average)
    if len(scores) <= _DEPTH:
        return set(scores)
    cut = heapq.nlargest(_DEPTH, scores.values())[-1]
    return {number for number, score in scores.items() if score >= cut}
