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
    "TimelineKind",
    "TimelineEvent",
    "TurnTimeline",
    "TimelineChunk",
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
    START = "start"
    """A session started (Claude Code's and Codex's `SessionStart`): warm the worker and its
    model in the background; write nothing to the model's context."""


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
    events: tuple[TimelineEvent, ...] = ()
    """WRITE: what the agent did in this turn, when the payload itself carries it (the in-process
    plugins); harnesses with a transcript leave it empty and the core reads `transcript_path`."""


TimelineKind = Literal["tool_call", "tool_result", "injected"]
"""What one entry of a turn's timeline is: a tool call (its name and arguments), a tool's result,
or text put into the context by something other than the user (a hook, a skill, a compaction
summary, a system reminder, a slash command)."""


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """One thing that happened inside a turn, as the harness recorded it, before the firewall.

    Attributes:
        kind: `tool_call`, `tool_result` or `injected`.
        event_id: The harness's own name for this entry (a transcript line's uuid, a call id plus
            the kind), the same on every read of the same transcript: the dedupe key, so a resumed
            or re-read transcript never stores an event twice.
        text: A call's arguments (JSON text, as the harness gave them), a result's output, or the
            injected passage. The core firewalls and caps it; a harness passes it whole.
        name: The tool's name (`Edit`, `Bash`, `shell`, ...) for a call or a result; where injected
            text came from for `injected`: `hook`, `skill`, `compaction`, `system_reminder`,
            `slash_command`, or another short word.
        call_id: Links a result to its call ("" when the harness gives none).
        at: When it happened (epoch seconds), 0.0 when the harness does not say.
    """

    kind: TimelineKind
    event_id: str
    text: str
    name: str = ""
    call_id: str = ""
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class TurnTimeline:
    """The events of one turn, in transcript order.

    `turn_id` is the harness's turn id (Claude Code `promptId`, Codex `turn_id`): the same id the
    hook gives the turn, so the events land behind the record the hook (or an import) stored.
    A subagent's turns are a session of their own (`session_id`) naming its parent's.
    """

    session_id: str
    turn_id: str | None
    events: tuple[TimelineEvent, ...]
    parent_session_id: str | None = None


@dataclass(frozen=True, slots=True)
class TimelineChunk:
    """What one read of a transcript from a byte offset found.

    `end` is the offset just past the last complete line read (a line still being written is left
    for the next read), so the next read starts there. Reading again from an earlier offset yields
    the same `event_id`s: a lost offset costs a re-read, never a second copy.
    """

    turns: tuple[TurnTimeline, ...]
    end: int


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
