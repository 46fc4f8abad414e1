"""`MemoryService`: the one API every harness, the CLI and the MCP server call.

Promises:
- Recall (`assemble`) returns the few most relevant memories of the project and the user,
  never one already injected in this session and never a turn of this session still in the
  harness's live context; nothing (an empty block) when nothing is relevant.
- Capture (`capture`) stores a turn verbatim after the firewall, once (ids derive from the
  harness's own ids), or spools it on any store failure (an outage, a read-only, missing or
  corrupt file, a refused value), logged and counted; it never loses a turn. Every text is
  normalised first (`textnorm`), so every backend keeps the same bytes.
- The hook path (`handle`) never raises: every swallowed error is one log line and a counter.
- In a hook process (`long_lived=False`) the first outage switches the store off for the rest
  of the process, so a hook never waits twice. A long-lived process skips the store for a
  back-off, while a background probe (`recovery`) pings it: its first answer ends the back-off,
  so recovery does not wait for the back-off to expire, and no request waits on the probe.

Nothing here touches a store when memory is off (`MEMORY_ENABLED=0`, or `memory off` in the
project); the firewall runs before anything is stored, indexed, spooled or logged.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memory_core import status
from memory_core.browse import (
    HISTORY_KEEP,
    Explanation,
    drop_forgotten,
    explain_hits,
    history_entry,
    parse_history,
    redact_entries,
    redact_span,
)
from memory_core.config import Config
from memory_core.errors import ConfigError, FirewallBlocked, NotFound, StoreError, StoreUnavailable
from memory_core.firewall import RULES_VERSION, Firewall
from memory_core.ids import note_record_id, turn_record_id
from memory_core.localstate.atomic import atomic_write
from memory_core.localstate.logbook import Logbook
from memory_core.localstate.spool import Spool
from memory_core.maintenance import (
    Exported,
    PruneReport,
    RestoreReport,
    ScrubReport,
    export_entry,
    prune,
    restore,
    scrub,
)
from memory_core.migrate import MigrateReport, Progress, migrate
from memory_core.models import (
    CaptureOutcome,
    EventKind,
    Hit,
    HookEvent,
    Outcome,
    Recall,
    Record,
    Scope,
    ScopeKind,
    TimelineEvent,
    TurnTimeline,
)
from memory_core.project import ProjectIdentity, is_disabled, resolve_project, set_disabled
from memory_core.retrieval.render import render_block
from memory_core.retrieval.retriever import Candidate, Retriever
from memory_core.retrieval.tokenizer import index_terms, query_terms
from memory_core.store import open_store
from memory_core.store.base import Checkpointing, PageCursor, RecordFilter, Store, Timelines
from memory_core.textnorm import clean_text
from memory_core.urls import redact_url, redact_urls_in

if TYPE_CHECKING:
    from memory_core.embedding import Embedder
    from memory_core.embedding.backfill import ReindexReport, VectorWriter
    from memory_core.recovery import RecoveryProbe

__all__ = ["MemoryService", "turn_record_id", "note_record_id"]

_T = TypeVar("_T")

_BACKOFF_FIRST_S = 2.0
_BACKOFF_MAX_S = 60.0
_VOID_MARKER = "#nomemory"
_HANDOFF_FALLBACK_KEEP = 16
"""Prompts kept per session in the local handoff file used while the store is down."""


_RANKED_SHOWN = 8
"""Candidates whose signals the last-recall record keeps, injected or not."""


def _signals(candidate: Candidate | None) -> dict[str, float | None]:
    """A candidate's similarity and BM25 score, rounded for the last-recall record."""
    if candidate is None:
        return {"similarity": None, "bm25": None}
    similarity, bm25 = candidate.similarity, candidate.bm25
    return {
        "similarity": None if similarity is None else round(similarity, 4),
        "bm25": None if bm25 is None else round(bm25, 3),
    }


def turn_text(prompt: str, response: str) -> str:
    """How a turn is stored: the user's words and the assistant's answer, labelled."""
    prompt, response = prompt.strip(), response.strip()
    if not prompt:
        return f"Assistant: {response}"
    return f"User: {prompt}\nAssistant: {response}"


class MemoryService:
    """Recall, capture and the deliberate operations, over one store.

    Args:
        config: The resolved configuration (default: `Config.from_env()`).
        store: An open store (default: opened lazily from `config.url`).
        long_lived: False in a hook process: after one outage every later store call in this
            process is skipped. True in the MCP server or an in-process plugin: retry after a
            back-off instead.
        cwd: The working directory used to resolve the project when a call does not pass one.
        clock: Seconds since the epoch; tests pass a fake one.
        embedder: The embedding model to use instead of loading the product's (tests pass a
            small one); see `embedder`.
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        store: Store | None = None,
        long_lived: bool = False,
        cwd: str | None = None,
        clock: Callable[[], float] = time.time,
        embedder: Embedder | None = None,
    ) -> None:
        self.config = config if config is not None else Config.from_env()
        self._store = store
        self._owns_store = store is None
        self._probe: RecoveryProbe | None = None
        self.long_lived = long_lived
        self.cwd = cwd
        self.clock = clock
        self._down_until = 0.0
        self._backoff = _BACKOFF_FIRST_S
        self._projects: dict[str | None, ProjectIdentity] = {}
        self._firewall: Firewall | None = None
        self._retriever: Retriever | None = None
        self.logbook = Logbook(self.config.log_path, self.config.state_dir, scrub=self._scrub_for_log)
        self.spool = Spool(self.config.spool_path, max_bytes=self.config.spool_max_bytes)
        self._embedder = embedder
        self._embedder_loaded = embedder is not None
        self._embedder_lock = threading.Lock()
        self.embedder_problem: str | None = None
        """Why `embedder` is None (off, the cold hook path, or why the model did not load); else None."""
        self._vector_writer: VectorWriter | None = None
        for warning in self.config.warnings:
            self.logbook.warning("config", warning)

    # -- plumbing --------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        """The store, opened on first use. Raises `ConfigError` for an unusable URL."""
        if self._store is None:
            self._store = open_store(
                self.config.url,
                timeout=self.config.timeout,
                allow_db0=self.config.allow_db0,
                pg_schema=self.config.pg_schema,
            )
            if self._store.backend == "sqlite":
                self._note_created_files(self._store)
        return self._store

    def _note_created_files(self, store: Store) -> None:
        """Have the embedded store note the file it creates.

        So doctor can tell a deleted or replaced database from one never created.
        """
        from memory_core.store.sqlite import SQLiteStore

        if not isinstance(store, SQLiteStore):
            return
        state_dir = self.config.state_dir

        def note(path: str, device: int, inode: int) -> None:
            from memory_core.store.sqlite_health import record_created

            record_created(state_dir, path, device, inode)

        store.on_create = note

    @property
    def firewall(self) -> Firewall:
        """The secret firewall, built on first use."""
        if self._firewall is None:
            self._firewall = Firewall(enabled=self.config.firewall)
        return self._firewall

    @property
    def retriever(self) -> Retriever:
        """The retriever over this store, built on first use."""
        if self._retriever is None:
            # The model, when this process has one: recall then fuses vectors with BM25 and
            # decides against the generic bank; without it, BM25 alone (docs/retrieval.md).
            self._retriever = Retriever(self.store, embedder=self.embedder)
        return self._retriever

    @property
    def embedder(self) -> Embedder | None:
        """The embedding model, loaded on first use and at most once per process; None without one.

        None when `MEMORY_EMBEDDINGS=0`, in a hook process of its own (`long_lived=False`: the
        cold path ranks by BM25 alone, docs/performance.md), or when the model cannot load;
        `embedder_problem` then says why, and a load failure is logged once. Safe from any thread.
        """
        if self._embedder_loaded:
            return self._embedder
        with self._embedder_lock:
            if not self._embedder_loaded:
                if not self.config.embeddings:
                    self.embedder_problem = "the embedding model is off (MEMORY_EMBEDDINGS=0): BM25 alone"
                elif not self.long_lived:
                    self.embedder_problem = "a hook process of its own (no worker) ranks by BM25 alone"
                else:
                    from memory_core.embedding import shared_embedder

                    self._embedder, self.embedder_problem = shared_embedder()
                    if self.embedder_problem:
                        self.logbook.warning("embedding", f"{self.embedder_problem}; recall ranks by BM25 alone")
                self._embedder_loaded = True
        return self._embedder

    def start_vectors(self, record_id: str | None = None, *, warm: Sequence[Scope] = ()) -> None:
        """Have the background thread embed `record_id` (None: only backfill what lacks vectors).

        Only a long-lived process with embeddings on has the thread; the model loads on it, so
        no caller waits for the load. `warm`: scopes whose vectors the thread loads into the
        store's cache first, so a session's first prompt does not pay for it. Never raises.
        """
        if not (self.long_lived and self.config.embeddings) or (self._embedder_loaded and self._embedder is None):
            return
        try:
            if self._vector_writer is None:
                from memory_core.embedding.backfill import VectorWriter

                self._vector_writer = VectorWriter(
                    lambda: self.store, lambda: self.embedder, self.logbook, present=self._store_present
                )
            if warm:
                self._vector_writer.warm(warm)
            if record_id is None:
                self._vector_writer.start()
            else:
                self._vector_writer.enqueue(record_id)
        except Exception as exc:  # noqa: BLE001 - vectors are an improvement; capture never fails for them
            self.logbook.error("vectors", exc)

    def warm(self, cwd: str | None = None) -> None:
        """Load the model and the vectors of `cwd`'s project (where memory is on) in the background,
        so the next prompt there is answered warm: a session's start, a worker a hook just started.
        Returns at once; only a long-lived process does anything. Raises what resolving the
        project raises.
        """
        if self.long_lived and self.active(cwd):
            self.start_vectors(warm=self.scopes(cwd))

    def vector_status(self) -> dict[str, Any]:
        """How many records of the store have vectors of this process's model, and how many lack them.

        `{"model": id or None, "with": n, "without": m, "problem": why there is no model or None}`;
        without a model every indexed record counts as lacking one. What `doctor`, `memory_status`
        and the UI show.
        """
        from memory_core.store.base import Vectors

        embedder = self.embedder
        store = self.store
        model = embedder.model_id if embedder is not None else ""
        have, lack = (0, 0)
        if isinstance(store, Vectors):
            have, lack = self._guard(lambda: store.vector_counts(None, model))
        return {
            "model": embedder.model_id if embedder is not None else None,
            "with": have,
            "without": lack,
            "problem": self.embedder_problem,
        }

    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> ReindexReport:
        """Embed every record that lacks vectors of this model (`memory reindex`); resumable.

        Raises `ConfigError` naming the fix when there is no model, `StoreError` from the store.
        """
        from memory_core.embedding.backfill import reindex

        embedder = self.embedder
        if embedder is None:
            raise ConfigError(self.embedder_problem or "no embedding model")
        return self._guard(lambda: reindex(self.store, embedder, progress=progress))

    def _store_present(self) -> bool:
        """False only for an embedded database whose file is gone (only a capture re-creates it)."""
        path = (
            getattr(self._store, "path", None) if self._store is not None and self._store.backend == "sqlite" else None
        )
        return path is None or path == ":memory:" or os.path.exists(path)

    def _scrub_for_log(self, text: str) -> str:
        try:
            # Always on, even with MEMORY_FIREWALL=0: turning off the firewall for stored
            # memories is the user's call; leaking a secret into a log nobody reads is not.
            # A URL in a message shows as everywhere else: no user, no token, no credential parameter.
            return redact_urls_in(Firewall(enabled=True).scrub(text).text)
        except Exception:  # noqa: BLE001 - if the firewall itself broke, log nothing of the text
            return "[message withheld: firewall unavailable]"

    @property
    def store_down(self) -> bool:
        """Whether an outage was seen and store calls are being skipped right now."""
        return self.clock() < self._down_until

    def _guard(self, call: Callable[[], _T]) -> _T:
        """Run a store call, turning an outage into the process's skip-the-store state."""
        if self.store_down:
            raise StoreUnavailable(f"{redact_url(self.config.url)} was unreachable moments ago; skipping the store")
        try:
            result = call()
        except StoreUnavailable:
            if self.long_lived:
                self._down_until = self.clock() + self._backoff
                self._backoff = min(self._backoff * 2, _BACKOFF_MAX_S)
                self._start_probe()
            else:
                self._down_until = float("inf")
            raise
        self._backoff = _BACKOFF_FIRST_S
        return result

    def _start_probe(self) -> None:
        """Ping the store in the background while it is down, so the first answer ends the back-off.

        Only for a store this service opened: the probe opens its own connection from the same
        settings (a store handed in is not shared across threads).
        """
        if not self._owns_store:
            return
        if self._probe is None:
            from memory_core.recovery import RecoveryProbe

            config = self.config

            def probe_store() -> Store:
                return open_store(
                    config.url, timeout=config.timeout, allow_db0=config.allow_db0, pg_schema=config.pg_schema
                )

            self._probe = RecoveryProbe(probe_store, self._store_is_back)
        self._probe.start()

    def _store_is_back(self) -> None:
        self._down_until = 0.0
        self._backoff = _BACKOFF_FIRST_S

    def project(self, cwd: str | None = None) -> ProjectIdentity:
        """The project of `cwd` (default: the service's, then the process's), resolved once."""
        directory = cwd or self.cwd
        found = self._projects.get(directory)
        if found is None:
            found = resolve_project(directory, override=self.config.project)
            self._projects[directory] = found
        return found

    def scopes(self, cwd: str | None = None, kind: ScopeKind | None = None) -> list[Scope]:
        """The scopes recall reads (project and user), or just one kind."""
        project = Scope("project", self.project(cwd).key)
        user = Scope("user", self.config.user)
        if kind == "project":
            return [project]
        if kind == "user":
            return [user]
        return [project, user]

    def active(self, cwd: str | None = None) -> bool:
        """Whether memory runs here: the kill switch is on and the project is not switched off."""
        return self.config.enabled and not is_disabled(self.config.state_dir, self.project(cwd).key)

    def refresh(self) -> None:
        """Forget what this process cached about projects and sessions.

        A long-lived process calls this per request, so a repository whose remote changed is
        seen under its new key.
        """
        self._projects.clear()

    def close(self) -> None:
        """Close the store if this service opened it, and stop a recovery probe. Idempotent; never raises."""
        if self._probe is not None:
            self._probe.stop()
        if self._vector_writer is not None:
            self._vector_writer.stop()
        if self._store is not None:
            try:
                self._store.close()
            except Exception:  # noqa: BLE001, S110 - closing is best effort
                pass

    # -- the hook path ---------------------------------------------------------------------

    def handle(self, event: HookEvent) -> Recall:
        """The hook path in one call. Never raises.

        READ assembles, WRITE captures, SKIP marks a turn that is not the user's, RESET resets,
        START warms the embedding model in the background.
        """
        try:
            if event.kind is EventKind.READ:
                return self.assemble(
                    event.prompt or "",
                    harness=event.harness,
                    session_id=event.session_id,
                    turn_id=event.turn_id,
                    cwd=event.cwd,
                )
            if event.kind is EventKind.WRITE:
                outcome = self.capture(
                    harness=event.harness,
                    session_id=event.session_id,
                    turn_id=event.turn_id,
                    response=event.response or "",
                    prompt=event.prompt,
                    cwd=event.cwd,
                )
                if event.events and outcome.status in ("stored", "duplicate"):
                    # A plugin that carries the turn's timeline in its payload (Hermes, OpenClaw).
                    turn = TurnTimeline(event.session_id, event.turn_id, event.events)
                    self.add_timeline(event.harness, [turn], cwd=event.cwd)
                return Recall("", reason=f"capture {outcome.status}: {outcome.reason}".rstrip(": "))
            if event.kind is EventKind.SKIP:
                if self.active(event.cwd):
                    self._stash(f"{event.harness}:{event.session_id}", event.turn_id, _VOID_MARKER)
                return Recall("", reason=event.reason or "not the user's turn")
            if event.kind is EventKind.RESET:
                self.reset_session(harness=event.harness, session_id=event.session_id, cwd=event.cwd)
                return Recall("", reason="session reset")
            if event.kind is EventKind.START:
                # A session begins: load the model (and backfill) in the background now, so its
                # first prompt is answered warm. Nothing reaches the model's context.
                self.warm(event.cwd)
                return Recall("", reason="session start")
            return Recall("", reason=event.reason or "ignored")
        except Exception as exc:  # noqa: BLE001 - a memory failure never fails a user's turn
            self.logbook.error(f"{event.harness}.{event.kind.value}", exc)
            return Recall("", reason=f"error: {type(exc).__name__}")

    def assemble(
        self, prompt: str, *, harness: str, session_id: str, turn_id: str | None = None, cwd: str | None = None
    ) -> Recall:
        """Recall for one prompt; also stashes the (firewalled) prompt for the turn's write event.

        Raises `StoreUnavailable` when the store is down (the hook path's `handle` swallows it);
        the prompt is then stashed locally so the capture can still pair it.
        """
        if not self.active(cwd):
            return Recall("", reason="memory is off here")
        prompt, session_id, turn_id = clean_text(prompt), clean_text(session_id), _clean_id(turn_id)
        harness = clean_text(harness)
        verdict = self.firewall.check_turn(prompt, "")
        session_key = f"{harness}:{session_id}"
        # A voided turn stashes the bare marker, so its capture is voided too and no word of
        # the prompt is kept anywhere.
        self._stash(session_key, turn_id, _VOID_MARKER if verdict.voided else verdict.prompt)
        query = verdict.prompt
        if not query.strip():
            return Recall("", reason="empty prompt")
        state = self._guard(lambda: self.store.load_session(session_key))

        def exclude(record: Record) -> bool:
            if record.id in state.injected:
                return True
            # A turn of this session newer than the last compaction is still in the live context.
            return record.session_id == session_id and record.created_at >= state.live_since

        ranking = self._guard(
            lambda: self.retriever.ranking(query, self.scopes(cwd), limit=self.config.max_items, exclude=exclude)
        )
        hits = ranking.hits
        text, kept = render_block(hits, max_tokens=self.config.max_tokens, max_items=self.config.max_items)
        now = self.clock()
        # Why nothing was injected (the decision said the prompt is generic, no memory held enough), so
        # `memory last` and the MCP status can show the decision.
        why = ranking.why if kept or not hits else "no hit fits the token budget"
        signals = {c.record_id: c for c in ranking.candidates}
        last = {
            "at": now,
            "harness": harness,
            "session": session_id,
            "query": "" if verdict.voided else query[:500],
            "injected": [
                {"id": h.record.id, "score": round(h.score, 4), **_signals(signals.get(h.record.id))} for h in kept
            ],
            "candidates": len(hits),
            "why": why,
            # The decision's inputs and the best candidates' two signals (`memory last`, Recalls).
            "decision": dict(ranking.decision),
            "ranked": [{"id": c.record_id, **_signals(c)} for c in ranking.candidates[:_RANKED_SHOWN]],
        }
        reason = f"{len(kept)} of {len(hits)} candidates fit" if kept else why
        entry = history_entry(last, turn_id=turn_id, project=self.project(cwd).key, reason=reason)
        try:
            self._guard(lambda: self._after_recall(session_key, kept, last, entry))
        except StoreUnavailable:
            raise
        except StoreError as exc:
            # A store that reads but cannot write (a read-only file) still recalls; only the
            # injected set and the counters are missed, and the log says why.
            self.logbook.error(f"{harness}.recall", exc)
        return Recall(text, kept, reason=reason)

    def _after_recall(self, session_key: str, kept: Sequence[Hit], last: dict[str, Any], entry: str) -> None:
        if kept:
            self.store.add_injected(session_key, [hit.record.id for hit in kept])
        self.store.bump({"recalls": 1, "recalls.injected": 1 if kept else 0, "recalls.items": len(kept)})
        # One write for the last-recall facts and this user's history entry: recall pays no extra trip.
        meta = {"last_recall_at": f"{last['at']:.3f}", "last_recall": json.dumps(last, sort_keys=True)}
        self.store.record_recall(self.config.user, entry, keep=HISTORY_KEEP, meta=meta)

    def capture(
        self,
        *,
        harness: str,
        session_id: str,
        turn_id: str | None,
        response: str,
        prompt: str | None = None,
        cwd: str | None = None,
        created_at: float | None = None,
    ) -> CaptureOutcome:
        """Store one turn. The prompt comes from the read event's handoff when not given.

        An unreachable store spools the firewalled record; the next successful capture writes
        the spool. Never stores a voided (`#nomemory`) turn. `created_at` dates a turn that
        happened earlier (a transcript import passes the turn's own time); default now.
        """
        if not self.active(cwd):
            return CaptureOutcome("dropped", reason="memory is off here")
        harness, session_id, turn_id = clean_text(harness), clean_text(session_id), _clean_id(turn_id)
        session_key = f"{harness}:{session_id}"
        if prompt is None:
            prompt = self._take_stashed(session_key, turn_id)
        verdict = self.firewall.check_turn(clean_text(prompt or ""), clean_text(response))
        counts = {f"firewall.{kind}": n for kind, n in verdict.counts.items() if n}
        if verdict.voided:
            self._count_quietly({"captures.dropped": 1, **counts})
            return CaptureOutcome("dropped", reason="#nomemory")
        if not verdict.response.strip() and not verdict.prompt.strip():
            return CaptureOutcome("dropped", reason="empty turn")
        now = self.clock()
        record_id = turn_record_id(harness, session_id, turn_id or _positional_id(verdict.prompt, verdict.response))
        record = Record(
            id=record_id,
            scope=Scope("project", self.project(cwd).key),
            text=turn_text(verdict.prompt, verdict.response),
            kind="turn",
            author=self.config.user,
            created_at=now if created_at is None else created_at,
            harness=harness,
            session_id=session_id,
            turn_id=turn_id,
            seq=-1,
        )
        try:
            new = self._guard(lambda: self._put_turn(record))
        except StoreError as exc:
            return self._keep_in_spool(record, exc)
        if new:
            self.start_vectors(record_id)
        self._quietly(harness, lambda: self._after_capture(now, {"captures": 1 if new else 0, **counts}))
        # The store just took a write: whatever waits in the spool goes now.
        self._quietly(harness, lambda: self._drain(proven=True))
        return CaptureOutcome("stored" if new else "duplicate", record_id)

    def _keep_in_spool(self, record: Record, exc: StoreError) -> CaptureOutcome:
        """The store did not take `record`: spool it, log why, count it. Never raises."""
        where = f"{record.harness or 'memory'}.capture"
        self.logbook.error(where, exc)
        try:
            dropped = self.spool.append(record)
        except OSError as lost:
            self.logbook.error("spool", f"turn {record.id} lost: the spool cannot be written: {lost}")
            return CaptureOutcome("dropped", record.id, reason="the store and the spool both failed")
        if dropped:
            bound = self.spool.max_bytes
            self.logbook.error("spool.full", f"the spool is full ({bound} bytes): dropped {dropped} old turns")
        state = "unreachable" if isinstance(exc, StoreUnavailable) else "refused the write"
        return CaptureOutcome("spooled", record.id, reason=f"store {state}; kept in the spool")

    def drain_spool(self) -> int:
        """Write what waits in the spool (a long-lived process calls it when idle).

        Returns how many turns were written; 0 when the store is down or refuses.
        """
        if not self.spool.pending_bytes() or self.store_down:
            return 0
        try:
            return self._guard(lambda: self._drain(proven=False))
        except StoreError as exc:
            self.logbook.error("spool.drain", exc)
            return 0

    def _drain(self, *, proven: bool) -> int:
        if not self.spool.pending_bytes():
            return 0

        def refused(record: Record, exc: Exception) -> None:
            self.logbook.error(
                "spool.quarantine",
                f"turn {record.id} refused by the store ({type(exc).__name__}: {exc});"
                f" moved to {self.spool.quarantine_path}",
            )

        drained = self.spool.drain(self._put_turn, proven=proven, on_refused=refused)
        if drained:
            self.store.bump({"spool.drained": drained})
        return drained

    def _quietly(self, harness: str, call: Callable[[], object]) -> None:
        """Run bookkeeping after a confirmed write: a failure is logged, never reported as a lost turn."""
        try:
            self._guard(call)
        except StoreError as exc:
            self.logbook.error(f"{harness}.capture", exc)

    def _put_turn(self, record: Record) -> bool:
        """Store one record; a turn's seq is assigned here, at the end of its session."""
        if record.seq < 0:
            if self.store.get([record.id]):
                return False
            # One indexed lookup of the session's last position, whatever its length: counting
            # the session's records made a capture's cost grow with the session. Another writer
            # of the same session at the same moment can at worst share a position, which only
            # blurs neighbour context.
            seq = self.store.next_position(record.scope, record.session_id) if record.session_id else 0
            record = replace(record, seq=seq)
            return self.store.put(record, index_terms(record.text) if record.searchable else {})
        return self.store.put(record, index_terms(record.text) if record.searchable else {})

    def _after_capture(self, now: float, counts: dict[str, int]) -> None:
        self.store.bump({k: v for k, v in counts.items() if v})
        # Which rule set scrubbed what was stored, and when: doctor compares it with the last scrub.
        rules = str(RULES_VERSION) if self.firewall.enabled else "off"
        self.store.set_meta({"last_capture_at": f"{now:.3f}", f"firewall.captured.{rules}": f"{now:.3f}"})

    def _count_quietly(self, counts: dict[str, int]) -> None:
        try:
            self._guard(lambda: self.store.bump(counts))
        except StoreError:
            pass

    def reset_session(self, *, harness: str, session_id: str, cwd: str | None = None) -> None:
        """A compaction emptied the live context: clear the injected set, and let this
        session's earlier turns be recalled again.
        """
        if not self.active(cwd):
            return
        now = self.clock()
        self._guard(lambda: self.store.reset_session(f"{harness}:{session_id}", now))

    # -- the read-to-write handoff ---------------------------------------------------------

    def _stash(self, session_key: str, turn_id: str | None, prompt: str) -> None:
        try:
            self._guard(
                lambda: self.store.stash_prompt(
                    session_key, turn_id, prompt, ttl=self.config.handoff_ttl, keep=self.config.handoff_keep
                )
            )
        except StoreError as exc:
            # The capture of this turn will be spooled; keep its prompt locally so it pairs.
            with self._local_handoff(session_key) as pending:
                pending.append({"turn": turn_id, "prompt": prompt, "at": self.clock()})
                del pending[:-_HANDOFF_FALLBACK_KEEP]
            if isinstance(exc, StoreUnavailable):
                raise
            # A store that refuses writes may still read: recall goes on, the log says why.
            self.logbook.error(f"{session_key.partition(':')[0]}.handoff", exc)

    def _take_stashed(self, session_key: str, turn_id: str | None) -> str | None:
        with self._local_handoff(session_key) as pending:
            for index in range(len(pending) - 1, -1, -1):
                if turn_id is None or pending[index].get("turn") == turn_id:
                    return str(pending.pop(index).get("prompt") or "")
        try:
            return self._guard(lambda: self.store.take_prompt(session_key, turn_id))
        except StoreError:
            return None

    @contextmanager
    def _local_handoff(self, session_key: str) -> Iterator[list[dict[str, Any]]]:
        """The outage fallback of the handoff: a small JSON file per session, read and rewritten."""
        digest = hashlib.sha256(session_key.encode()).hexdigest()[:32]
        path = self.config.state_dir / "handoff" / f"{digest}.json"
        try:
            pending = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pending = None
        if not isinstance(pending, list):
            pending = []
        before = list(pending)
        yield pending
        if pending == before:
            return
        if pending:
            atomic_write(path, json.dumps(pending), folder_mode=0o700)
        else:
            path.unlink(missing_ok=True)

    # -- deliberate operations -------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        scope: ScopeKind | None = None,
        limit: int = 10,
        author: str | None = None,
        cwd: str | None = None,
    ) -> list[Hit]:
        """Deliberate search (CLI, MCP): ranked hits in the project and user scopes (or one).

        Touches no session's injected set and is not counted as a recall.
        """
        query = self.firewall.scrub(clean_text(query)).text
        limit = max(1, min(int(limit), 100))
        # No relevance floor: someone who searches on purpose wants the weak matches too; a
        # record still needs at least one query term to be returned.
        scopes = self.scopes(cwd, scope)
        return self._guard(lambda: self.retriever.rank(query, scopes, limit=limit, author=author, floor=False))

    def save(self, content: str, *, scope: ScopeKind = "project", cwd: str | None = None) -> Record:
        """Save a deliberate note. Raises `FirewallBlocked` if nothing is left after the firewall."""
        content = clean_text(content)
        scrubbed = self.firewall.scrub(content)
        verdict = self.firewall.check_turn(content, "")
        if verdict.voided or not scrubbed.text.strip():
            raise FirewallBlocked("the firewall removed everything in that text, so nothing was saved")
        target = self.scopes(cwd, scope)[0]
        record = Record(
            id=note_record_id(target, scrubbed.text),
            scope=target,
            text=scrubbed.text.strip(),
            kind="note",
            author=self.config.user,
            created_at=self.clock(),
        )
        counts = {f"firewall.{kind}": n for kind, n in scrubbed.counts.items() if n}
        if self._guard(lambda: self.store.put(record, index_terms(record.text))):
            self.start_vectors(record.id)
        self._guard(lambda: self.store.bump({"saves": 1, **counts}))
        stored = self._guard(lambda: self.store.get([record.id]))
        return stored[0] if stored else record

    def _owned(self, record_id: str, cwd: str | None) -> Record:
        """The record `record_id` if it lives in this project's or user's scope, else `NotFound`.

        A record of another scope is answered exactly like an unknown id: ids appear in every
        injected block, and one project must not read, expand or mark another's records.
        """
        keys = {(s.kind, s.key) for s in self.scopes(cwd)}
        found = [r for r in self._guard(lambda: self.store.get([record_id])) if (r.scope.kind, r.scope.key) in keys]
        if not found:
            raise NotFound(f"no memory has the id {record_id!r} here")
        return found[0]

    def feedback(self, record_id: str, outcome: Outcome, *, cwd: str | None = None) -> int:
        """Raise (`acted`) or lower (`contradicted`) a record's standing; returns the new standing.

        A record with a negative standing is no longer recalled; it is not deleted.
        Raises `NotFound` for an id unknown in this project's and user's scopes, and
        `ValueError` for an unknown outcome.
        """
        if outcome not in ("acted", "contradicted"):
            raise ValueError(f"outcome must be 'acted' or 'contradicted', not {outcome!r}")
        self._owned(record_id, cwd)
        delta = 1 if outcome == "acted" else -1
        standing = self._guard(lambda: self.store.adjust_standing(record_id, delta))
        if standing is None:
            raise NotFound(f"no memory has the id {record_id!r}")
        self._guard(lambda: self.store.bump({f"feedback.{outcome}": 1}))
        return standing

    def forget(
        self,
        ids: Sequence[str] = (),
        *,
        session_id: str | None = None,
        before: float | None = None,
        cwd: str | None = None,
    ) -> int:
        """Delete records by id, or by session or age within this project's and user's scopes.

        Ids are deleted only when they belong to those scopes, so one project's `forget` never
        reaches another's records.
        """
        scopes = self.scopes(cwd)
        keys = {(s.kind, s.key) for s in scopes}
        targets: list[Record] = []
        if ids:
            found = self._guard(lambda: self.store.get(list(ids)))
            targets.extend(r for r in found if (r.scope.kind, r.scope.key) in keys)
        if session_id is not None or before is not None:
            matched = self._guard(lambda: list(self.store.scan(scopes, session_id=session_id, before=before)))
            targets.extend(matched)
        if not targets:
            return 0
        return self._delete(targets, sessions=[session_id] if session_id is not None else [])

    def _delete(self, targets: Sequence[Record], *, sessions: Sequence[str] = ()) -> int:
        """Delete records, then every trace of them in the recall histories that can hold them."""
        unique = sorted({r.id for r in targets})
        deleted = self._guard(lambda: self.store.delete(unique))
        self._guard(lambda: self.store.bump({"forgotten": deleted}))
        self._edit_histories({self.config.user, *(r.author for r in targets if r.author)}, targets, sessions)
        self.purge_log()
        return deleted

    def purge_log(self) -> None:
        """After text was removed, make the store drop its old copies now (the embedded store's
        write-ahead log). Best effort: a store with no such log has nothing to do.
        """
        store = self.store
        if isinstance(store, Checkpointing):
            try:
                store.checkpoint(truncate=True)
            except Exception as exc:  # noqa: BLE001 - the rows are gone; the log empties at the next checkpoint
                self.logbook.error("purge", exc)

    def tidy(self) -> None:
        """Housekeeping for a long-lived process while no turn waits: write what waits in the
        spool (the store may take writes again since the last turn), and fold the embedded
        store's log into its file. Does nothing before the store was opened; never raises.
        """
        if self._store is None:
            return
        if self.spool.pending_bytes():
            self.drain_spool()
        store: Store = self._store
        if isinstance(store, Checkpointing):
            try:
                store.checkpoint()
            except Exception:  # noqa: BLE001, S110 - the next idle moment tries again
                pass

    def expand(self, record_id: str, *, radius: int = 1, cwd: str | None = None) -> list[Record]:
        """A record with the turns just before and after it in its session, in order.

        Raises `NotFound` for an id unknown in this project's and user's scopes.
        """
        record = self._owned(record_id, cwd)
        if record.session_id is None:
            return [record]
        seqs = [record.seq + offset for offset in range(-radius, radius + 1) if record.seq + offset >= 0]
        session = record.session_id
        around = self._guard(lambda: self.store.session_records(record.scope, session, seqs))
        return sorted(around, key=lambda r: r.seq) or [record]

    def add_timeline(self, harness: str, turns: Sequence[TurnTimeline], *, cwd: str | None = None) -> int:
        """Keep `turns`' events behind their records (see `memory_core.timeline.attach`), firewalled
        and capped; returns how many events were new. Does nothing with `MEMORY_EVENTS=0` or
        memory off here.

        Raises `StoreUnavailable` / `StoreError` when the store fails: the events are lost (the
        caller logs it, and a transcript's offset is not moved, so the next read tries again);
        the turn, stored before, is not.
        """
        if not self.config.events or not turns or not self.active(cwd):
            return 0
        # Here, not at the top: a cold turn's hook process never needs it (1.8 ms of imports).
        from memory_core.timeline import attach as _timeline

        harness = clean_text(harness)
        scope = Scope("project", self.project(cwd).key)
        done = self._guard(
            lambda: _timeline.attach(
                self.store, self.firewall, harness, turns, scope=scope, author=self.config.user, now=self.clock()
            )
        )
        if done.counts:
            self._count_quietly({k: v for k, v in done.counts.items() if v})
        return done.stored

    def timeline(self, record_id: str, *, cwd: str | None = None) -> list[TimelineEvent]:
        """A turn's events in transcript order (tool calls, results, injected text), firewalled and
        capped as stored; empty for a record without any. Raises `NotFound` like `expand`.
        """
        self._owned(record_id, cwd)
        return self._events_of(record_id)

    def record_timeline(self, record_id: str) -> list[TimelineEvent]:
        """`timeline` of a record wherever it lives, as `record` finds it (the page it is shown on)."""
        self.record(record_id)
        return self._events_of(record_id)

    def _events_of(self, record_id: str) -> list[TimelineEvent]:
        store = self.store
        if not isinstance(store, Timelines):
            return []
        return self._guard(lambda: store.events(record_id))

    def records(self, ids: Sequence[str]) -> list[Record]:
        """The stored records with these ids, in the order asked; unknown ids are skipped."""
        return self._guard(lambda: self.store.get(list(ids)))

    # -- upkeep (CLI `prune`, `scrub`, `export`, `restore`, `migrate`; `doctor --fix`) -----

    def prune(self, keep: int | None = None, *, dry_run: bool = False) -> PruneReport:
        """Delete this project's oldest records beyond the newest `keep` (default `MEMORY_MAX_RECORDS`),
        and the events of its oldest turns beyond `MEMORY_EVENTS_MAX_BYTES` (the turns stay).

        With no cap set (`keep` 0 and no `MEMORY_MAX_RECORDS`) nothing is looked at: the report's
        `keep` is 0.
        """
        cap = self.config.max_records if keep is None else keep
        scopes = self.scopes(kind="project")
        report = self._guard(lambda: prune(self.store, scopes, keep=cap or 0, dry_run=dry_run))
        from memory_core.timeline import retention as _retention

        bound = self.config.events_max_bytes
        turns, freed = self._guard(lambda: _retention.trim(self.store, scopes[0], max_bytes=bound, dry_run=dry_run))
        report = replace(report, events_turns=turns, events_bytes=freed)
        if report.deleted or (turns and not dry_run):
            self.purge_log()
        return report

    def scrub(self, *, every_scope: bool = False, dry_run: bool = False) -> ScrubReport:
        """Run the firewall over stored records (this project's and user's, or `every_scope`) and
        rewrite each one it changes; the redactions are counted like a capture's.
        """
        scopes = None if every_scope else self.scopes()
        report = self._guard(lambda: scrub(self.store, self.firewall, scopes, dry_run=dry_run))
        if dry_run:
            return report
        # Turns still in the spool pass the current rules too: an upgrade protects them as well.
        spooled = self.spool.rewrite(lambda r: replace(r, text=self.firewall.scrub(r.text).text))
        # So do the prompts this user's recall history holds (the Recalls page of memory ui).
        self._rewrite_histories(
            {self.config.user},
            lambda entries: [{**e, "query": self.firewall.scrub(str(e.get("query", ""))).text} for e in entries],
        )
        if self.firewall.enabled:
            self._guard(
                lambda: self.store.set_meta(
                    {
                        "firewall.scrubbed_rules": str(RULES_VERSION),
                        "firewall.scrubbed_at": f"{time.time():.3f}",
                        "firewall.scrubbed_scope": "all" if every_scope else "project",
                    }
                )
            )
        if report.changed or spooled:
            self.purge_log()
        return replace(report, spooled=spooled)

    def export(self, *, every_scope: bool = False) -> Iterator[Record]:
        """Every record of this project and user (or of `every_scope`), oldest first."""
        if self.store_down:
            raise StoreUnavailable(f"{redact_url(self.config.url)} was unreachable moments ago; skipping the store")
        return self.store.scan(None if every_scope else self.scopes())

    def export_lines(self, *, every_scope: bool = False, events: bool = True) -> Iterator[dict[str, Any]]:
        """`export` as the JSON objects `memory export` writes, each turn's events with it unless
        `events` is False (a file any version of `memory restore` reads).
        """
        return self._export_lines(self.export(every_scope=every_scope), events=events)

    def _export_lines(self, records: Iterable[Record], *, events: bool = True) -> Iterator[dict[str, Any]]:
        store = self.store
        reads = store if events and isinstance(store, Timelines) else None
        for record in records:
            yield export_entry(record, reads.events(record.id) if reads is not None else ())

    def restore(self, entries: Iterable[Exported]) -> RestoreReport:
        """Store records written by `export`, and their events, after the firewall (and the events'
        cap); ids already stored are skipped, an event a turn holds is not stored again. With
        `MEMORY_EVENTS=0` the events are left out (counted in the report).

        An exception raised by `entries` itself (a malformed line) stops the restore there;
        what was stored before it stays stored.
        """
        return self._guard(lambda: restore(self.store, self.firewall, entries, events=self.config.events))

    def migrate_to(self, url: str, *, progress: Progress | None = None) -> MigrateReport:
        """Copy every record and counter of this store into the store `url` names (idempotent).

        Raises `ValueError` when `url` names this same store, `ConfigError` for an unusable URL.
        """
        target = open_store(url, timeout=max(self.config.timeout, 5.0), allow_db0=self.config.allow_db0)
        try:
            if self.store.display_url == target.display_url:
                raise ValueError("the target is the store MEMORY_URL already names")
            return migrate(self.store, target, progress=progress)
        finally:
            target.close()

    # -- browsing and correcting (memory ui) -------------------------------------------------
    # What `memory ui` reads and changes, and nothing else calls yet. Records are read a page at
    # a time on the server side; every change goes through the same store calls as the CLI's.

    def browse_scopes(self, cwd: str | None = None) -> list[Scope]:
        """The scopes a page may show: this folder's project first, then every other project in
        the store (a teammate's recall would show them anyway), then this user's own scope,
        never another user's.
        """
        keys = self._guard(lambda: self.store.scope_keys("project"))
        here = self.project(cwd).key
        projects = [Scope("project", here)] + [Scope("project", key) for key in keys if key != here]
        return [*projects, Scope("user", self.config.user)]

    def records_page(
        self, scope: Scope, where: RecordFilter | None = None, *, after: PageCursor | None = None, limit: int = 50
    ) -> list[Record]:
        """One page of a scope's records, newest first (see `Store.page`).

        Raises `PermissionError` for another user's scope: a user's scope is their own.
        """
        self._check_browsable(scope)
        limit = max(1, min(int(limit), 500))
        return self._guard(lambda: self.store.page(scope, where or RecordFilter(), after=after, limit=limit))

    def record(self, record_id: str) -> Record:
        """One record by id; raises `NotFound` (also for another user's scope)."""
        found = self._guard(lambda: self.store.get([record_id]))
        if not found or (found[0].scope.kind == "user" and found[0].scope.key != self.config.user):
            raise NotFound(f"no memory has the id {record_id!r}")
        return found[0]

    def _check_browsable(self, scope: Scope) -> None:
        if scope.kind == "user" and scope.key != self.config.user:
            raise PermissionError("a user's scope is theirs alone")

    def explain(self, query: str, *, mode: str = "recall", limit: int = 10, cwd: str | None = None) -> Explanation:
        """Rank `query` as recall (`mode="recall"`: floor, item cap and budget, and the exact block)
        or as a deliberate search (`mode="search"`), with each hit's matched words and share.

        Touches no session, counts nothing, stores nothing.
        """
        query = self.firewall.scrub(query).text
        terms = tuple(query_terms(query))
        why = ""
        decision: dict[str, float | str] = {}
        candidates: tuple[Candidate, ...] = ()
        if mode == "recall":
            ranking = self._guard(lambda: self.retriever.ranking(query, self.scopes(cwd), limit=self.config.max_items))
            hits = ranking.hits
            block, kept = render_block(hits, max_tokens=self.config.max_tokens, max_items=self.config.max_items)
            kept_ids = [h.record.id for h in kept]
            why = ranking.why if kept or not hits else "no hit fits the token budget"
            decision, candidates = dict(ranking.decision), ranking.candidates
        else:
            hits = self.search(query, limit=limit, cwd=cwd)
            block, kept_ids = "", []
        return Explanation(
            mode="recall" if mode == "recall" else "search",
            terms=terms,
            hits=explain_hits(query, hits, kept_ids),
            block=block,
            max_items=self.config.max_items,
            max_tokens=self.config.max_tokens,
            why=why,
            decision=decision,
            signals={c.record_id: _signals(c) for c in candidates},
        )

    def recall_history(self) -> list[dict[str, Any]]:
        """This user's recent recalls, newest first (at most `browse.HISTORY_KEEP`)."""
        return parse_history(self._guard(lambda: self.store.recalls(self.config.user)))

    def _edit_histories(self, users: set[str], forgotten: Sequence[Record], sessions: Sequence[str]) -> None:
        self._rewrite_histories(users, lambda entries: drop_forgotten(entries, forgotten, sessions))

    def _rewrite_histories(self, users: set[str], edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
        """Apply `edit` to each of these users' recall histories, writing back only what changed."""
        for user in sorted(users - {""}):
            raw = self._guard(lambda user=user: self.store.recalls(user))  # type: ignore[misc]
            entries = parse_history(raw)
            edited = edit(entries)
            if edited != entries or len(entries) != len(raw):
                self._guard(lambda user=user, edited=edited: self._write_history(user, edited))  # type: ignore[misc]

    def _write_history(self, user: str, entries: Sequence[dict[str, Any]]) -> None:
        self.store.set_recalls(user, [json.dumps(e, sort_keys=True, ensure_ascii=False) for e in entries])

    def forget_session(self, scope: Scope, session_id: str) -> int:
        """Delete one session's records in `scope` (any project; only this user's own user scope)."""
        self._check_browsable(scope)
        matched = self._guard(lambda: list(self.store.scan([scope], session_id=session_id)))
        return self._delete(matched, sessions=[session_id]) if matched else 0

    def forget_record(self, record_id: str) -> int:
        """Delete one record by id wherever it lives (the page it was shown on); 0 if unknown."""
        try:
            record = self.record(record_id)
        except NotFound:
            return 0
        return self._delete([record])

    def redact(self, record_id: str, start: int, end: int) -> Record:
        """Replace characters [start, end) of a record's text by the firewall's marker, in the record,
        the index and the recall histories. Raises `NotFound`, or `ValueError` for a bad span.
        """
        record = self.record(record_id)
        span = record.text[start:end]
        clean = replace(record, text=redact_span(record.text, start, end))
        from memory_core.timeline.attach import record_terms

        store = self.store
        events = self._guard(lambda: store.events(record_id)) if isinstance(store, Timelines) else []
        self._guard(lambda: store.put(clean, record_terms(clean, events), replace=True))
        self._guard(lambda: self.store.bump({"redactions": 1}))
        self._rewrite_histories({self.config.user, record.author}, lambda entries: redact_entries(entries, span))
        self.purge_log()
        return clean

    def set_active(self, project_key: str, active: bool) -> bool:
        """`memory on` / `memory off` for a project; returns whether anything changed."""
        return set_disabled(self.config.state_dir, project_key, not active)

    def project_active(self, project_key: str) -> bool:
        """Whether memory runs in this project (the kill switch, then the project's switch)."""
        return self.config.enabled and not is_disabled(self.config.state_dir, project_key)

    def activity(self) -> str:
        """A stamp that changes whenever a capture or a recall lands (from any process): what a
        live page watches to know it should refresh.
        """
        meta = self._guard(self.store.meta)
        return f"{meta.get('last_capture_at', '')}|{meta.get('last_recall_at', '')}"

    def export_scope(self, scope: Scope) -> Iterator[dict[str, Any]]:
        """Every record of one scope, with its events, oldest first, as `memory export` writes them."""
        self._check_browsable(scope)
        return self._export_lines(self.store.scan([scope]))

    # -- status ----------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """The facts `memory doctor --json` prints (keys documented in docs/doctor.md)."""
        return status.collect_status(self)

    def doctor_report(self, project_dir: Path | None = None, *, integrity: bool = True) -> dict[str, Any]:
        """`status()` plus each installed harness and whether its hook command still runs
        (what `memory doctor` and the MCP `memory_status` tool print). Never raises.

        `integrity=False` skips the embedded file's page-by-page check, which reads the whole
        file (`memory ui`'s Overview, shown again on every capture, passes it).
        """
        return status.doctor_report(self, project_dir, integrity=integrity)

    def repair(self, report: dict[str, Any] | None = None) -> list[str]:
        """`memory doctor --fix`: drain the spool and import turns hooks missed, when the store is
        reachable; one line per repair done. `report` is a fresh `doctor_report()` if given.
        """
        return status.repair(self, report if report is not None else status.doctor_report(self))

    def counters(self) -> dict[str, int]:
        """Every counter the store keeps (recalls, captures, firewall redactions, ...)."""
        return self._guard(lambda: self.store.counters())

    def last_recall(self) -> dict[str, Any] | None:
        """What the last recall injected and why (the `last_recall` key of `status()`), or None."""
        return status.parse_last_recall(self._guard(lambda: self.store.meta()))


def _clean_id(value: str | None) -> str | None:
    return None if value is None else clean_text(value)


def _positional_id(prompt: str, response: str) -> str:
    """A turn id for a harness that sent none: the turn's own content, so a retry matches."""
    return "p" + hashlib.sha256(f"{prompt}\0{response}".encode()).hexdigest()[:24]
