"""Codex rollout files read as turns, for `memory import codex`.

Where: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl` (`~/.codex` when
`CODEX_HOME` is unset). The first line, `session_meta`, names the thread (the hooks'
`session_id`) and its working directory.

A turn runs from `event_msg` `task_started` to `task_complete`, both carrying the `turn_id`
the hooks send, so an imported turn gets the record id the `Stop` hook gives it. What becomes
the stored turn, and what does not:

- kept: the user's words (the turn's first `UserMessage` item, as the `UserPromptSubmit` hook
  saw them, with any `<system-reminder>` or memory's own recalled block removed) and the
  assistant's final text (`task_complete.last_agent_message`, the hook's
  `last_assistant_message`; else the turn's last `AgentMessage`).
- skipped: developer messages (hook `additionalContext`, ours included, is one with
  `content_item_kinds: ["hooks.additional_context"]`), the `<environment_context>` message,
  tool calls and their output, reasoning, token counts, `compacted` summaries, aborted turns
  (the user stopped them before an answer), turns started by another turn (`parent_turn_id`),
  and whole subagent threads (`session_meta.source.subagent`). A turn with no answer stores
  nothing, as the `Stop` hook stores nothing for it.

A turn is complete at its `task_complete`; one still open when the file has settled is
stored if it has an answer. Failure: a damaged line is passed over; an unreadable file raises
`OSError`.
"""

from __future__ import annotations

import glob
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.harnesses.importing import (
    Consumed,
    TranscriptTurn,
    json_lines,
    parse_timestamp,
    read_lines,
    strip_injected,
)

__all__ = ["CodexRollouts", "sessions_dir"]

_MARKERS = (
    b"session_meta",
    b"turn_context",
    b"task_started",
    b"task_complete",
    b"turn_aborted",
    b"UserMessage",
    b"AgentMessage",
    b"user_message",
    b"agent_message",
)
"""A line holding none of these opens, closes or fills no turn: it is not decoded."""

_THREAD_ID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def sessions_dir() -> Path:
    """Where Codex keeps its rollouts: `$CODEX_HOME/sessions` or `~/.codex/sessions`."""
    home = os.environ.get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / "sessions"


@dataclass(slots=True)
class _Thread:
    session_id: str
    cwd: str | None
    subagent: bool


@dataclass(slots=True)
class _Turn:
    start: int
    turn_id: str
    cwd: str | None
    created_at: float | None
    by_user: bool
    prompt: str | None = None
    answer: str = ""

    def close(self, thread: _Thread, end: int, final: object = None) -> TranscriptTurn | Consumed:
        response = final if isinstance(final, str) and final.strip() else self.answer
        if not self.by_user or not response.strip():
            return Consumed(end)
        return TranscriptTurn(
            session_id=thread.session_id,
            turn_id=self.turn_id,
            prompt=self.prompt or "",
            response=response,
            cwd=self.cwd or thread.cwd,
            created_at=self.created_at,
            end=end,
        )


class CodexRollouts:
    """The `TranscriptSource` of Codex (see the module docstring for what is kept)."""

    harness = "codex"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else sessions_dir()

    def find(self, session: str | None = None) -> list[Path]:
        """Every rollout (only the thread `session`'s when given), oldest first."""
        if not self.root.is_dir():
            return []
        pattern = f"rollout-*{glob.escape(session)}.jsonl" if session else "rollout-*.jsonl"
        return sorted((p for p in self.root.glob(f"**/{pattern}") if p.is_file()), key=lambda p: (p.name, str(p)))

    def parse(self, path: Path, start: int, *, settled: bool) -> Iterator[TranscriptTurn | Consumed]:
        """The complete turns from byte `start`, each ending at its `task_complete` line."""
        thread = _thread_of(path)
        turn: _Turn | None = None
        last_end = start
        for line, obj in json_lines(path, start, _MARKERS):
            last_end = line.end
            if obj is None or thread.subagent:
                continue
            payload = obj.get("payload")
            if not isinstance(payload, dict):
                continue
            kind = obj.get("type")
            if kind == "session_meta":
                _read_meta(thread, payload)
            elif kind == "turn_context" and turn is not None and payload.get("turn_id") == turn.turn_id:
                cwd = payload.get("cwd")
                turn.cwd = cwd if isinstance(cwd, str) and cwd else turn.cwd
            elif kind == "event_msg":
                event = payload.get("type")
                if event == "task_started":
                    # A turn that never completed (Codex was killed) is passed over.
                    if turn is not None or line.start > start:
                        yield Consumed(line.start)
                    turn = _open_turn(payload, line.start, obj)
                elif turn is None:
                    continue
                elif event in ("task_complete", "turn_aborted"):
                    if payload.get("turn_id") not in (None, turn.turn_id):
                        continue
                    if event == "turn_aborted":
                        yield Consumed(line.end)
                    else:
                        yield turn.close(thread, line.end, payload.get("last_agent_message"))
                    turn = None
                else:
                    _fill(turn, event, payload)
        if turn is None:
            yield Consumed(last_end)
        elif settled:
            yield turn.close(thread, last_end)
        elif turn.start > start:
            yield Consumed(turn.start)


def _thread_of(path: Path) -> _Thread:
    """The thread a rollout belongs to, from its first line (`session_meta`), else its file name."""
    found = _THREAD_ID.search(path.name)
    thread = _Thread(found.group(1) if found else path.stem, None, False)
    for line in read_lines(path, 0):
        try:
            first = json.loads(line.raw)
        except ValueError:
            break
        if isinstance(first, dict) and first.get("type") == "session_meta" and isinstance(first.get("payload"), dict):
            _read_meta(thread, first["payload"])
        break
    return thread


def _read_meta(thread: _Thread, payload: dict[str, Any]) -> None:
    session = payload.get("id") or payload.get("session_id")
    if isinstance(session, str) and session:
        thread.session_id = session
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        thread.cwd = cwd
    source = payload.get("source")
    thread.subagent = (isinstance(source, dict) and "subagent" in source) or payload.get("thread_source") == "subagent"


def _open_turn(payload: dict[str, Any], start: int, obj: dict[str, Any]) -> _Turn:
    attribution = payload.get("turn_attribution")
    parent = attribution.get("parent_turn_id") if isinstance(attribution, dict) else None
    started = payload.get("started_at")
    return _Turn(
        start=start,
        turn_id=str(payload.get("turn_id") or ""),
        cwd=None,
        created_at=parse_timestamp(started) if started is not None else parse_timestamp(obj.get("timestamp")),
        by_user=parent is None and bool(payload.get("turn_id")),
    )


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(p for p in parts if p)


def _fill(turn: _Turn, event: object, payload: dict[str, Any]) -> None:
    """Take the user's words and the latest answer from one event of the turn."""
    if event == "item_completed":
        item = payload.get("item")
        if not isinstance(item, dict) or payload.get("turn_id") not in (None, turn.turn_id):
            return
        if item.get("type") == "UserMessage" and turn.prompt is None:
            turn.prompt = strip_injected(_text_of(item.get("content")))
        elif item.get("type") == "AgentMessage":
            text = _text_of(item.get("content"))
            turn.answer = text if text.strip() else turn.answer
    elif event == "user_message" and turn.prompt is None:
        turn.prompt = strip_injected(_text_of(payload.get("message")))
    elif event == "agent_message":
        text = _text_of(payload.get("message"))
        turn.answer = text if text.strip() else turn.answer
