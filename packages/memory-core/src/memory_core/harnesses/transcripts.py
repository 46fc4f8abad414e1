"""What a harness package hands `memory import`: its session files, and the turns read from them.

The types the importer (`memory_core.harnesses.importing`) and the harness contract
(`memory_core.harnesses.contract`, `HasTranscripts`) share, below both, so neither imports the
other. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

__all__ = ["TranscriptTurn", "Consumed", "TranscriptSource", "block_text"]


def block_text(content: object) -> str:
    """The text of a message's content as the chat formats write it: a string, or the `text` of each
    `{"type": "text"}` block of a list, joined by newlines; "" for anything else.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = (b.get("text") for b in content if isinstance(b, Mapping) and b.get("type") == "text")
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


@dataclass(frozen=True, slots=True)
class TranscriptTurn:
    """One turn read from a transcript: what the user said and what the assistant answered.

    Attributes:
        session_id: The harness's session id (the hook's `session_id`).
        turn_id: The harness's turn id (Claude Code `prompt_id`, Codex `turn_id`), or None when
            the transcript holds none: `capture` then derives the id from the turn's text, as
            the hook does for a payload without one.
        prompt: The user's words ("" when the turn was not started by the user).
        response: The assistant's final text.
        cwd: The working directory of the session (decides the project), or None.
        created_at: When the turn happened (seconds since the epoch), or None for now.
        end: The byte offset the file is consumed to once this turn is stored.
    """

    session_id: str
    turn_id: str | None
    prompt: str
    response: str
    cwd: str | None
    created_at: float | None
    end: int


@dataclass(frozen=True, slots=True)
class Consumed:
    """Bytes up to `end` hold nothing to store (a skipped turn, a subagent file, bookkeeping lines)."""

    end: int


@runtime_checkable
class TranscriptSource(Protocol):
    """A harness's session files, as a harness package describes them."""

    harness: str
    """The harness name used in record ids (`claude`, `codex`)."""

    def find(self, session: str | None = None) -> list[Path]:
        """Every transcript this harness keeps (only those of `session` when given), oldest first."""
        ...

    def parse(self, path: Path, start: int, *, settled: bool) -> Iterator[TranscriptTurn | Consumed]:
        """The complete turns from byte `start` on, in file order, each with the offset it ends at.

        `start` is always 0 or an `end` this parser yielded before. A turn still open at the end
        of the file is not yielded unless `settled` (the file has not changed for a while).
        """
        ...
