"""Ranking: which stored memories answer a prompt, best first, the same on every backend.

How a record is scored (docs/retrieval.md has the reasoning and the measured figures):
1. BM25 over the store's postings (`k1`, `b` below). Postings are read rarest term first within
   a budget; the commonest terms that would overflow it are not read at all: they say little,
   and reading them is most of the cost. A deliberate search of many postings on a store that
   sums them itself (`SummingPostings`) reads only those of the records that can rank, and
   sums them here all the same: the scores are the ones every posting gives. On a store that
   numbers its records (`PickedPostings`) the sums are first taken by number, and only the
   records that can rank have their ids read and their postings returned (`_pick`).
2. Session context: a record's meaning often sits in its neighbours (the answer is the reply
   to the turn that matches the question's words). The best candidates and the turns around
   them are scored together: a record gains a share of its neighbours' BM25 scores, the idf of
   each distinct query term found within three turns of it (window coverage), and a share of
   its session's best score.
3. Feedback: each `acted` adds a little (capped); a negative standing is already out of the
   index. A date the query names (`dates`) and an author it names lift matching records.
4. Ties go to the newer record, then to the smaller id, so the order is total and stable.

The relevance floor (recall; on by default) weighs each matched word by its rarity in the scope
times its strength in general language (`evidence`), keeps a record only when that support and
the share of the query's information its window covers are enough, and when it scores at least
half of the best hit: an unrelated prompt returns nothing, and `ranking` says why. With the
floor on, a later record restating an earlier one's subject is lifted above it (`recency`).
Near-duplicates (almost the same words as a better hit) are collapsed into the better one.
Each hit carries the best-matching excerpt of its record, not its head.

Everything is computed from store answers in a fixed order, and sums are taken in query-term
order, so a given store content gives the same ranking on SQLite, Redis and PostgreSQL. Store
errors propagate (`StoreUnavailable`, `StoreError`); the retriever itself does not raise.

Standard library only, plus the word lists `background` reads with msgpack at the first
recall: the hook path imports this module.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from memory_core.models import Hit, Record, Scope
from memory_core.retrieval.dates import QueryDate, date_match, query_dates
from memory_core.retrieval.evidence import term_strengths
from memory_core.retrieval.excerpt import EXCERPT_CHARS, excerpt, near_duplicate, signature
from memory_core.retrieval.recency import asks_current, prefer_newer
from memory_core.retrieval.render import approx_tokens, render_block
from memory_core.retrieval.tokenizer import query_terms, term_spans
from memory_core.store.base import (
    NEIGHBOUR_SPAN,
    NumberedPosting,
    PickedPostings,
    Posting,
    Store,
    SummingPostings,
    TermPostings,
)

__all__ = ["Retriever", "Ranking", "render_block", "approx_tokens", "BM25_K1", "BM25_B", "NEIGHBOUR_SPAN"]

BM25_K1 = 1.2
"""Term-frequency saturation: the third mention of a word adds little over the second."""
BM25_B = 0.75
"""Length normalisation: a long transcript does not win just by holding more words."""

_RECALL_POSTINGS = 800
_SEARCH_POSTINGS = 50_000
"""Postings read per query at most, recall (floor on) and deliberate search (floor off). Terms are
read rarest first; the commonest ones that would overflow the budget are skipped (their document
frequency is still known). This bounds a query's cost whatever the store's size or the prompt's
length, and costs little: a term in thousands of records says little about any of them. 800
rather than 1,200 changed no top-5 of the latency bench's questions at 100,000 records and took
a fifth off a recall; LoCoMo, scored with the search budget, is unaffected."""
_STORE_SUMS_FROM = 2_000
"""Deliberate search lets a store that can sum BM25 itself (`SummingPostings`, the embedded store)
pick the records that can rank once the admitted postings reach this many: carrying 50,000
postings into Python and summing them there was most of a search page at 100,000 records
(docs/retrieval.md). Below it one plain read is as cheap. The ranking is the same either way."""
_PICK_FROM = 2
"""On a store that numbers its records (`PickedPostings`), recall sums by number and reads the ids of
the records that can rank only once the admitted postings exceed this many times the depth it
orders: below it, reading every id costs about what picking saves."""
_CONTEXT: tuple[tuple[int, float], ...] = ((-2, 0.15), (-1, 0.3), (1, 0.15), (2, 0.05))
"""(offset in the session, share of that turn's score a record gains): a record may be the reply
to the turn before it, and the turn after it may say what it meant."""
_COVER_OFFSETS: tuple[int, ...] = (-3, -2, -1, 1, 2, 3)
_FETCH_OFFSETS = tuple(sorted({o for o, _ in _CONTEXT} | set(_COVER_OFFSETS)))
_WINDOW_COVER = 1.0
"""A record gains this times the idf of each distinct query term found in it or in the turns
within `_COVER_OFFSETS` of it: a passage that covers more of the question, across the turns
of one exchange, beats one that repeats a single word."""
_SESSION_WEIGHT = 0.25
"""Share of its session's best score every fetched record of that session gains: a session is
one task, and a task that matched the question well makes its other turns more likely."""
_AUTHOR_BOOST = 0.3
"""Score share a record gains when the query names its author ("what did Bob decide..."). In a
store with one author it lifts every record alike, so it changes nothing there."""
_STANDING_STEP = 0.05
_STANDING_CAP = 4
"""Each `acted` adds 5% to a record's score, up to four of them."""
_FLOOR_RELEVANCE = 0.9
_COVER_WEIGHT = 2.0
"""With the floor on, a hit needs `support + _COVER_WEIGHT * cover >= _FLOOR_RELEVANCE`. Support
is the evidence of the query words it matches, itself or through its neighbours: each word's
rarity in the scope (idf over the largest idf the scope allows) times its strength in general
language (`retrieval.evidence`), so one project identifier (about 1.0) passes alone and everyday
words add next to nothing. Cover is the share of the query's information (its words' strengths)
found in the hit's window of turns: a memory that holds most of what was asked about passes on
plainer words. Measured on the coding development set (`bench/recall.py`, docs/performance.md)."""
_FLOOR_SHARE = 0.5
"""A hit must score at least this share of the best hit's score (with the floor on): the item cap
is a maximum, and a hit far below the best one is mostly noise the model pays for."""
_RELEVANCE_SHARE = 0.35
"""...and, after the first hit, at least this share of the first hit's relevance: fewer items when
the others hold little of what was asked."""
_EVERYDAY_WEIGHT = 0.5
"""With the floor on, a query word's idf is scaled by `_EVERYDAY_WEIGHT + (1 - _EVERYDAY_WEIGHT)
* strength`: an everyday word ranks at half its store weight, so a match on the project's own
words outranks one on "tell", "box" or "day" (coding set: top-5 ceiling 0.835 -> 0.886)."""
_COVER_RARITY = 3.0
_COVER_ALONE = 0.5
"""A window covers something only when it holds two of the query's words that carry any evidence,
or one with at least this much, or the record itself holds every query word the store knows (two
or more): a prompt of plain words ("what causes the northern lights?") has so little information
that one of them found anywhere is most of it, and some turn of every store holds one; a turn
that holds all of "how do I run the tests before I push?" is no chance match, however plain the
words. Coding set, with the same day's word-list and number changes: off-topic 0.014 -> 0.002,
generic 0.143 -> 0.114, answered unchanged (docs/retrieval.md)."""
_LEAST_INFORMATION = 0.05
"""A query word's information for cover is its strength, but at least this: a question made of
plain words only still asks for all of them."""
_WORD_FLOOR = 0.05
"""With the floor on, nothing is recalled unless at least one matched word has this much evidence
(store rarity times general-language strength): a prompt whose matched words are all everyday
words ("good", "day", "keep") is about nothing the store knows."""
_FULL_EXCERPTS = 1
_SHORT_EXCERPT_SHARE = 0.5
"""The first `_FULL_EXCERPTS` hits show an `EXCERPT_CHARS` passage, the others half of it: every
injected token is paid on every turn, and a lower hit is more often a pointer than the answer
(every real prompt of the coding set replayed: 255 -> 225 tokens per prompt for 2 -> 1)."""
_PHRASE_RECORDS = 2
_PHRASE_SLACK = 2
"""A stated fact asked back: when every word of a question of two or more words stands, in the
order of a phrase (at most `_PHRASE_SLACK` other words between each two), in one memory, and at
most `_PHRASE_RECORDS` memories of the store hold all of those words at all, that memory passes
the floor however everyday the words are. "What is my cat called?" asks for "my cat is called
Miso", and "what does the build use?" for "the build uses tox": plain words, but said together in
one turn and almost nowhere else, which an off-topic prompt's words rarely are (they share a turn
by chance, far apart, or share many)."""
_NEWEST_FIRST = True
"""Lift a later restatement of a candidate's subject above it (`retrieval.recency`)."""
_LEND_SHARE = 0.2
"""With the floor on, a turn lends context to its neighbours only when its own score is at least
this share of the best one's divided by the largest context weight: weaker turns could not lift a
neighbour far, and reading their neighbours costs a query each."""
_POOL_LEAST = 12
_POOL_PER_ITEM = 2
_POOL_ROUNDS = 4
"""Candidates looked at in depth (fetched, given context): `max(_POOL_LEAST, limit *
_POOL_PER_ITEM)`, doubled when filters leave too few, at most `_POOL_ROUNDS` times. A deeper
pool changed no LoCoMo figure, and 12 instead of 20 changed no top-5 of the latency bench's
questions at 100,000 records while saving a tenth of a recall."""
_LENDERS_LEAST = 5
_LENDERS_PER_ITEM = 0.5
"""The best `max(_LENDERS_LEAST, limit * _LENDERS_PER_ITEM)` candidates have their session
neighbours read and lend them context: about as many as a block shows. Each costs one
`session_records` query (a round trip on a server store)."""
_DATE_BOOSTS: dict[str | None, float] = {"day": 1.0, "month": 0.3}
"""Score share a record gains when its date is the day the query names ("on October 13"), or
in the month it names ("in May 2023")."""


NO_TERMS = "no words to search for"
NO_MATCH = "no word of the prompt is in memory"
NOT_RARE = "no word rare enough"
BELOW_FLOOR = "best score below the floor"
ALL_FILTERED = "the relevant memories were already injected or are in the live context"
FOUND = "found"


@dataclass(frozen=True, slots=True)
class Ranking:
    """What recall found and, when it found nothing, why (one of the reasons above)."""

    hits: list[Hit]
    why: str


@dataclass
class _Matches:
    """What the postings said about one query: per record and per matched term."""

    terms: Sequence[str]
    dates: Sequence[QueryDate]
    information: float
    """The query's information: the sum of its words' strengths, found in the store or not."""
    current: bool
    """Whether the query asks how things are now (`recency.asks_current`)."""
    average: float
    """The scopes' average record length, in terms (BM25's length normalisation)."""
    weights: dict[str, float] = field(default_factory=dict)
    """Matched term -> its idf (everyday words scaled down when the floor is on)."""
    evidence: dict[str, float] = field(default_factory=dict)
    """Matched term -> the information a window holding it covers."""
    term_rarity: dict[str, float] = field(default_factory=dict)
    """Matched term -> its rarity in the scope times its strength (what `rarity` adds up)."""
    scores: dict[str, float] = field(default_factory=dict)
    rarity: dict[str, float] = field(default_factory=dict)
    matched: dict[str, list[str]] = field(default_factory=dict)
    stated: frozenset[str] = frozenset()
    """Records that may hold the question as a stated phrase (`_PHRASE_RECORDS`)."""
    stated_terms: list[str] = field(default_factory=list)
    """The question's terms that phrase must hold: those the store knows."""
    summed: _Summed | None = None
    """Set when the store summed the postings and returned only those of the records that can
    rank (`SummingPostings`): the scores of other records are read when they are needed."""


@dataclass
class _Summed:
    """What completing a record the store left out of `top_postings` takes."""

    scopes: Sequence[Scope]
    terms: Sequence[str]
    store: SummingPostings
    known: set[str]
    """Records whose score is complete: every one in the store's answer, and each one completed."""


def _bm25(idf: float, tf: int, length: int, average: float) -> float:
    """One term's BM25 share of a record's score: `_add_postings` and `_pick` sum the same floats."""
    return idf * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * (1.0 - BM25_B + BM25_B * length / average))


def _add_postings(m: _Matches, term: str, postings: Sequence[Posting]) -> None:
    """Add one term's postings to the records' BM25 scores, rarity and matched words."""
    scores, rarity, matched, average = m.scores, m.rarity, m.matched, m.average
    idf, rare = m.weights[term], m.term_rarity[term]
    for posting in postings:
        rid = posting.record_id
        scores[rid] = scores.get(rid, 0.0) + _bm25(idf, posting.tf, posting.length, average)
        rarity[rid] = rarity.get(rid, 0.0) + rare
        matched.setdefault(rid, []).append(term)


def _complete(m: _Matches, ids: Sequence[str]) -> None:
    """Give the records of `ids` the store left out of its answer (a top hit's session neighbours)
    their scores, term by term in query order as the first pass adds them: the same sums.
    """
    summed = m.summed
    assert summed is not None
    missing = [rid for rid in ids if rid not in summed.known]
    if not missing:
        return
    summed.known.update(missing)
    found = summed.store.record_postings(summed.scopes, summed.terms, missing)
    for term in m.terms:
        postings = found.get(term)
        if postings:
            _add_postings(m, term, postings)


def _pick(m: _Matches, found: Mapping[str, Sequence[NumberedPosting]], depth: int) -> set[int]:
    """The records (by the store's number) whose postings recall needs: those that can be among the
    `depth` best by BM25, ties included, and, when the question may be a stated phrase, up to
    three of the records holding all its known words, so `_stated_candidates` over the picked
    records decides as it would over all of them (none, one or two holders; or "more than two").
    """
    scores: dict[int, float] = {}
    holds: dict[int, int] = {}
    average = m.average
    for term in m.terms:  # query order, as the sums of the full read are taken
        postings = found.get(term)
        if not postings:
            continue
        idf = m.weights[term]
        for number, tf, length in postings:
            scores[number] = scores.get(number, 0.0) + _bm25(idf, tf, length, average)
            holds[number] = holds.get(number, 0) + 1
    if len(scores) <= depth:
        return set(scores)
    cut = heapq.nlargest(depth, scores.values())[-1]
    picked = {number for number, score in scores.items() if score >= cut}
    known = [t for t in m.terms if t in m.weights]  # what `_stated_candidates` will ask for
    if _may_be_stated(m.terms, known):
        picked.update(heapq.nsmallest(_PHRASE_RECORDS + 1, (n for n, held in holds.items() if held == len(known))))
    return picked


def _idf(documents: int, df: int) -> float:
    return math.log(1.0 + (documents - df + 0.5) / (df + 0.5))


def _names(author: str, known: dict[str, frozenset[str]]) -> frozenset[str]:
    """An author's name as query terms (`Bob Smith` -> {bob, smith}), memoised per call."""
    terms = known.get(author)
    if terms is None:
        terms = known[author] = frozenset(query_terms(author))
    return terms


def _may_be_stated(terms: Sequence[str], known: Sequence[str]) -> bool:
    """Whether a question may be a stated fact asked back: the terms the store knows (`known`) are
    two or more and most of the question, so a long prompt does not pass on two of its words.
    """
    wanted = set(known)
    return len(wanted) >= 2 and 2 * len(wanted) > len(set(terms))


def _stated_candidates(terms: Sequence[str], known: Sequence[str], matched: dict[str, list[str]]) -> frozenset[str]:
    """The records holding every `known` term of a question, when few do (`_PHRASE_RECORDS`).

    `known` are the question's terms the store holds at all: a word no memory has ("remind me,
    what does the build use?") asks nothing of them, but the known ones must be two or more and
    most of the question, so a long prompt does not pass on two of its words.
    """
    if not _may_be_stated(terms, known):
        return frozenset()
    wanted = set(known)
    holding = [rid for rid, found in matched.items() if wanted <= set(found)]
    return frozenset(holding) if len(holding) <= _PHRASE_RECORDS else frozenset()


def _states(text: str, terms: Sequence[str]) -> bool:
    """Whether `text` holds `terms` as one phrase: all of them within a run of words where at most
    `_PHRASE_SLACK` other words stand between each two (any order: "the build uses" and "uses for
    the build" state the same thing).
    """
    wanted = set(terms)
    span = len(wanted) + _PHRASE_SLACK * (len(wanted) - 1)
    recent: dict[str, int] = {}
    for position, (_, _, found) in enumerate(term_spans(text)):
        for term in found:
            if term in wanted:
                recent[term] = position
        if len(recent) == len(wanted) and position - min(recent.values()) < span:
            return True
    return False


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


class Retriever:
    """Ranks a store's records for a query. Holds no state beyond the store; cheap to build.

    Args:
        store: Where the records and postings are.
        author_boost: Lift the records of an author the query names (on by default; benches
            turn it off to show what it adds, docs/retrieval.md).
    """

    def __init__(self, store: Store, *, author_boost: bool = True) -> None:
        self.store = store
        self.author_boost = author_boost

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
            floor: Apply the relevance floor (recall); False for deliberate search and benches.
            author: Only records by this author.
        """
        terms = query_terms(query)
        if not terms or not scopes or limit <= 0:
            return Ranking([], NO_TERMS)
        stats = self.store.index_stats(scopes)
        documents = stats.documents
        if documents == 0:
            return Ranking([], NO_MATCH)
        average = stats.average_length or 1.0
        # First the document frequencies alone (max_df=0 reads no postings), then the postings
        # of the terms the budget admits: every backend makes the same cut from the same counts.
        probe = self.store.postings(scopes, terms, max_df=0)
        max_df = _df_cut({t: e.df for t, e in probe.items()}, _RECALL_POSTINGS if floor else _SEARCH_POSTINGS)
        admitted = [t for t in terms if 0 < probe[t].df <= max_df]
        top_idf = _idf(documents, 1)
        # With the floor on, a matched word is evidence by its rarity in the store times its
        # strength in general language (`evidence`): in a young store every word is rare.
        strengths = term_strengths(query) if floor else {}
        information = sum(max(strengths.get(t, 1.0), _LEAST_INFORMATION) for t in terms)
        m = _Matches(terms, query_dates(query), information, asks_current(query), average)
        strongest = 0.0
        for term in terms:
            df = probe[term].df
            if df == 0:
                continue
            strength = strengths.get(term, 1.0)
            rare = (_idf(documents, df) / top_idf if top_idf > 0 else 0.0) * strength
            m.weights[term] = _idf(documents, df) * (_EVERYDAY_WEIGHT + (1.0 - _EVERYDAY_WEIGHT) * strength)
            m.term_rarity[term] = rare
            # A word most memories share covers little of what was asked, however strong it is.
            m.evidence[term] = strength * min(1.0, _COVER_RARITY * rare / strength) if strength > 0 else 0.0
            strongest = max(strongest, rare)
        pool = max(_POOL_LEAST, limit * _POOL_PER_ITEM)
        depth = pool << (_POOL_ROUNDS - 1)
        found = dict(probe)
        if admitted:
            found.update(self._postings(scopes, admitted, probe, max_df, m, depth=depth, floor=floor))
        for term in terms:
            entry = found[term]
            if entry.postings:
                _add_postings(m, term, entry.postings)
        scores = m.scores
        if not scores:
            return Ranking([], NOT_RARE if m.weights else NO_MATCH)
        if floor:
            m.stated_terms = [t for t in terms if t in m.weights]
            m.stated = _stated_candidates(terms, m.stated_terms, m.matched)
            if strongest < _WORD_FLOOR and not m.stated:
                return Ranking([], NOT_RARE)
        # Only the deepest pool we may look at is ordered, not every record that matched a word.
        ordered = heapq.nsmallest(depth, scores, key=lambda rid: (-scores[rid], rid))
        for _ in range(_POOL_ROUNDS):
            hits, filtered = self._select(ordered[:pool], m, limit, exclude, floor, author)
            # A bigger pool can only help when filters (not the floor) left too few hits.
            if len(hits) >= limit or not filtered or pool >= len(ordered):
                break
            pool *= 2
        if hits:
            return Ranking(hits, FOUND)
        return Ranking(hits, ALL_FILTERED if filtered else BELOW_FLOOR)

    def _postings(
        self,
        scopes: Sequence[Scope],
        admitted: list[str],
        probe: dict[str, TermPostings],
        max_df: int,
        m: _Matches,
        *,
        depth: int,
        floor: bool,
    ) -> dict[str, TermPostings]:
        """The admitted terms' postings: all of them, or only those of the records that can rank.

        A record left out cannot be among the `depth` best by BM25; `_select` completes it when
        it reads it as a neighbour. Narrowed:

        - deliberate search with many postings, on a store that sums them (`SummingPostings`):
          the store picks them by its own sums;
        - otherwise, past `_PICK_FROM` times the depth, on a store that numbers its records
          (`PickedPostings`): `_pick` chooses them by number, stated-phrase holders included.
        """
        store = self.store
        postings = sum(probe[t].df for t in admitted)
        if not floor and isinstance(store, SummingPostings) and postings >= _STORE_SUMS_FROM:
            weights = {t: m.weights[t] for t in admitted}
            top = store.top_postings(scopes, weights, depth=depth, average=m.average, k1=BM25_K1, b=BM25_B)
            m.summed = _Summed(scopes, admitted, store, {p.record_id for entry in top.values() for p in entry})
            return {t: TermPostings(probe[t].df, top.get(t, ())) for t in admitted}
        if postings > _PICK_FROM * depth and isinstance(store, PickedPostings) and isinstance(store, SummingPostings):
            picked = store.picked_postings(scopes, admitted, max_df=max_df, pick=lambda found: _pick(m, found, depth))
            ids = {p.record_id for entry in picked.values() for p in entry.postings}
            m.summed = _Summed(scopes, admitted, store, ids)
            return picked
        return store.postings(scopes, admitted, max_df=max_df)

    def _select(
        self,
        pool_ids: Sequence[str],
        m: _Matches,
        limit: int,
        exclude: Callable[[Record], bool] | None,
        floor: bool,
        author: str | None,
    ) -> tuple[list[Hit], int]:
        """Hits from the pool and its session neighbours, and how many the filters (not the floor) removed."""
        scores, rarity, matched, weights, dates = m.scores, m.rarity, m.matched, m.weights, m.dates
        records = {r.id: r for r in self.store.get(pool_ids)}
        # Each session's fetched turns by position: (scope, session id) -> {seq: record}.
        sessions: dict[tuple[str, str], dict[int, Record]] = {}
        for record in records.values():
            if record.session_id is not None:
                sessions.setdefault((str(record.scope), record.session_id), {})[record.seq] = record
        # With the floor on, a turn lends context only if its share could lift a neighbour past the
        # floor; reading the neighbours of weaker turns would cost a query each and change nothing.
        best_own = scores[pool_ids[0]] if pool_ids else 0.0
        lend_from = _LEND_SHARE * best_own / max(w for _, w in _CONTEXT) if floor else 0.0
        lenders = set(pool_ids[: max(_LENDERS_LEAST, int(limit * _LENDERS_PER_ITEM))])
        wanted: dict[tuple[str, str], tuple[Scope, set[int]]] = {}
        for record in list(records.values()):
            if record.session_id is None or record.id not in lenders or scores.get(record.id, 0.0) < lend_from:
                continue
            place = (str(record.scope), record.session_id)
            known = sessions[place]
            for offset in _FETCH_OFFSETS:
                seq = record.seq + offset
                if seq >= 0 and seq not in known:
                    wanted.setdefault(place, (record.scope, set()))[1].add(seq)
        for place in sorted(wanted):
            scope, seqs = wanted[place]
            known = sessions[place]
            for neighbour in self.store.session_records(scope, place[1], sorted(seqs)):
                known.setdefault(neighbour.seq, neighbour)
                records.setdefault(neighbour.id, neighbour)
        if m.summed is not None:
            _complete(m, list(records))
        session_best = {place: max(scores.get(r.id, 0.0) for r in turns.values()) for place, turns in sessions.items()}

        # (record, score, support, cover): support is the rarity of the query terms it matches, with
        # context; cover the share of the query's information its window holds.
        candidates: list[tuple[Record, float, float, float]] = []
        asked = frozenset(m.terms)
        # The prompt's words the store knows, when there are two or more (see `_COVER_ALONE`).
        whole = frozenset(m.stated_terms) if len(m.stated_terms) >= 2 else frozenset()
        author_terms: dict[str, frozenset[str]] = {}
        for record in records.values():
            if not record.searchable or record.standing < 0:
                continue
            score = scores.get(record.id, 0.0)
            support = rarity.get(record.id, 0.0)
            window = set(matched.get(record.id, ()))
            if record.session_id is not None:
                place = (str(record.scope), record.session_id)
                turns = sessions[place]
                for offset, weight in _CONTEXT:
                    other = turns.get(record.seq + offset)
                    if other is not None and other.id != record.id:
                        score += weight * scores.get(other.id, 0.0)
                        support += weight * rarity.get(other.id, 0.0)
                for offset in _COVER_OFFSETS:
                    other = turns.get(record.seq + offset)
                    if other is not None:
                        window.update(matched.get(other.id, ()))
                score += _SESSION_WEIGHT * session_best[place]
                score += _WINDOW_COVER * sum(weights[t] for t in window)
            if score <= 0.0:
                continue
            if self.author_boost and record.author and _names(record.author, author_terms) & asked:
                score *= 1.0 + _AUTHOR_BOOST
            score *= 1.0 + _STANDING_STEP * min(record.standing, _STANDING_CAP)
            if dates:
                score *= 1.0 + _DATE_BOOSTS.get(date_match(record.created_at, dates), 0.0)
            held = [m.evidence[t] for t in window if m.evidence[t] > 0.0]
            # One weak word ("cause", "curl") is what any turn shares with a prompt by chance; a
            # turn holding every word of the prompt the store knows ("run the tests before I
            # push") is not.
            alone = (
                len(held) == 1 and held[0] < _COVER_ALONE and not (whole and whole <= set(matched.get(record.id, ())))
            )
            cover = 0.0 if alone else sum(held) / (m.information or 1.0)
            candidates.append((record, score, support, cover))
        # A query that names a date asks about that time, not about the current state of things.
        if _NEWEST_FIRST and floor and not dates:
            lifted = prefer_newer(
                [(r.id, sc, r.created_at, r.text) for r, sc, _, _ in candidates], matched, weights, current=m.current
            )
            candidates = [(r, lifted[r.id], support, cover) for r, _, support, cover in candidates]
        candidates.sort(key=lambda c: (-round(c[1], 9), -c[0].created_at, c[0].id))

        best = candidates[0][1] if candidates else 0.0
        hits: list[Hit] = []
        signatures: list[frozenset[str]] = []
        filtered = 0
        first_relevance = 0.0
        for record, score, support, cover in candidates:
            if len(hits) >= limit:
                break
            relevance = support + _COVER_WEIGHT * cover
            stated = record.id in m.stated and _states(record.text, m.stated_terms)
            if (
                floor
                and not stated
                and (
                    relevance < max(_FLOOR_RELEVANCE, _RELEVANCE_SHARE * first_relevance) or score < _FLOOR_SHARE * best
                )
            ):
                continue
            if (author is not None and record.author != author) or (exclude is not None and exclude(record)):
                filtered += 1
                continue
            record_words = signature(record.text)
            if any(near_duplicate(record_words, seen) for seen in signatures):
                filtered += 1
                continue
            signatures.append(record_words)
            first_relevance = first_relevance or relevance
            # The best hit shows a full passage; the rest a shorter one (memory_expand opens the whole).
            size = EXCERPT_CHARS if len(hits) < _FULL_EXCERPTS else int(EXCERPT_CHARS * _SHORT_EXCERPT_SHARE)
            hits.append(Hit(record, score, excerpt(record.text, weights, size=size)))
        return hits, filtered
