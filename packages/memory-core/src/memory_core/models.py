"""The value types every part of memory-core and every harness package exchange.

Plain frozen dataclasses from the standard library: the hook path imports this module, and
it must stay cheap to import (no pydantic, no typing tricks evaluated at run time).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

__all__ = [
    "Scope",
    "ScopeKind",
    "Record",
    "RecordKind",
    "Hit",
    "EventKind",
    "HookEvent",
    "Recall",
    "CaptureOutcome",
    "IndexStats",
    "Outcome",
]

ScopeKind = Literal["project", "user"]
"""A record is either one project's (the default) or one user's across all projects."""

RecordKind = Literal["turn", "note"]
"""`turn`: a captured prompt and answer. `note`: something saved on purpose (CLI, MCP)."""

Outcome = Literal["acted", "contradicted"]
"""Feedback on a recalled memory: it helped (`acted`) or it was wrong (`contradicted`)."""


@dataclass(frozen=True, slots=True)
class Scope:
    """Where a record lives: a project key or a user name.

    Every store query takes a `Scope`; an empty `key` matches nothing, never everything.
    """

    kind: ScopeKind
    key: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.key}"


@dataclass(frozen=True, slots=True)
class Record:
    """One stored memory, already through the firewall.

    Attributes:
        id: Stable id. For a captured turn it is derived from (harness, session id, turn id),
            so the same turn captured twice (hook, then transcript import) is stored once.
        scope: The project or user the record belongs to.
        text: The verbatim, firewalled text (for a turn: the prompt, a blank line, the answer).
        kind: `turn` or `note`.
        author: `MEMORY_USER` of whoever captured or saved it.
        created_at: Seconds since the epoch (UTC).
        harness: The harness that captured it (`claude`, `codex`, ...), or None for a note.
        session_id: The harness session the turn belongs to, if any.
        turn_id: The harness's own turn id, if it sent one.
        seq: Position of the turn within its session (0-based), for neighbour context.
        standing: Net feedback: +1 per `acted`, -1 per `contradicted`. A negative standing
            keeps the record out of recall without deleting it.
        searchable: False for context kept beside a turn that must never be recalled itself.
    """

    id: str
    scope: Scope
    text: str
    kind: RecordKind = "turn"
    author: str = ""
    created_at: float = 0.0
    harness: str | None = None
    session_id: str | None = None
    turn_id: str | None = None
    seq: int = 0
    standing: int = 0
    searchable: bool = True


@dataclass(frozen=True, slots=True)
class Hit:
    """A record with the score the retriever gave it and the excerpt it would show."""

    record: Record
    score: float
    excerpt: str


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What BM25 needs about a scope's lexical index: how many documents, and their total length."""

    documents: int
    total_length: int

    @property
    def average_length(self) -> float:
        """Mean document length (0.0 for an empty index)."""
        return self.total_length / self.documents if self.documents else 0.0


class EventKind(StrEnum):
    """What a harness payload asks of us."""

    READ = "read"
    """Recall: the user submitted a prompt; answer with context."""
    WRITE = "write"
    """Capture: the model finished a turn; store it."""
    SKIP = "skip"
    """This turn is not the user's (a background task reporting back): recall nothing for it,
    and drop its capture when the turn's write event comes."""
    RESET = "reset"
    """The live context was emptied (a compaction): forget what was injected in this session."""
    IGNORE = "ignore"
    """Nothing to do (a subagent's stop, a notification, an event we do not use)."""


@dataclass(frozen=True, slots=True)
class HookEvent:
    """A harness payload, normalised. Built by a harness package's `parse`, consumed by the core.

    Attributes:
        kind: What to do.
        harness: The harness name (`claude`, `codex`, `hermes`, `openclaw`).
        session_id: The harness's session id ("" when it sent none).
        turn_id: The id pairing a turn's read and write events, or None (positional fallback).
        cwd: The working directory the harness reported, or None (the process's own is used).
        prompt: The user's words (READ; also WRITE when the harness sends them there).
        response: The assistant's final text (WRITE).
        transcript_path: Where the harness keeps the session's transcript, if it said.
        reason: Why an event is IGNORE, for the log and `memory last`.
    """

    kind: EventKind
    harness: str
    session_id: str = ""
    turn_id: str | None = None
    cwd: str | None = None
    prompt: str | None = None
    response: str | None = None
    transcript_path: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Recall:
    """What `MemoryService.assemble` produced for one prompt.

    `text` is the rendered block, "" when nothing relevant was found (then a harness must
    emit nothing at all). `hits` are the records it holds, in order.
    """

    text: str
    hits: tuple[Hit, ...] = field(default_factory=tuple)
    reason: str = ""


@dataclass(frozen=True, slots=True)
class CaptureOutcome:
    """What `MemoryService.capture` did with one turn.

    `status` is `stored`, `duplicate` (already stored under the same id), `spooled` (the store
    was unreachable; kept in the local spool), `dropped` (the firewall voided it, or it was
    empty, or memory is off here), with `reason` saying which.
    """

    status: Literal["stored", "duplicate", "spooled", "dropped"]
    record_id: str | None = None
    reason: str = ""
