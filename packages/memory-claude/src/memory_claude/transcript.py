"""Claude Code session files read as turns, for `memory import claude`.

Where: `~/.claude/projects/<cwd-slug>/<session id>.jsonl` (`$CLAUDE_CONFIG_DIR/projects` when
set). Subagents write `<session id>/subagents/agent-<id>.jsonl` beside it.

A turn is what one user prompt started: every line carrying the same `promptId` (the hook's
`prompt_id`, so an imported turn gets the record id the `Stop` hook gives it) and the
assistant lines after it. What becomes the stored turn, and what does not:

- kept: the user's words (the first prompt line of the turn, with any `<system-reminder>` or
  memory's own recalled block removed) and the assistant's final text (the text of the last
  assistant message of the turn, as the hook's `last_assistant_message`).
- skipped whole: a turn started by a `<task-notification>` prompt (a background subagent
  reporting back). It is not the user's words, and the hooks drop its capture too.
- skipped: tool calls and tool results, thinking, attachments (hook output, including our own
  `additionalContext`, lands here as `hook_additional_context`), `isMeta` lines, compaction
  summaries (`isCompactSummary`) and local command output (`/compact` itself has no answer, so
  its turn stores nothing), sidechain lines and whole subagent files (a subagent's lines
  carry its parent's `promptId`: storing them would put the subagent's words under the
  parent's turn), bookkeeping lines (`queue-operation`, `api-request*`, `cost-state`, ...).
  A turn with no assistant text stores nothing.
- a forked session (`--fork-session`) starts with a copy of its parent's lines whose prompt ids
  are rewritten to the fork's first turn: that copy is passed over, and the turn is the one its
  last prompt under that id started (the one the hook captured).
- a prompt line with no `promptId` (Claude Code before prompt ids): the turn id is None, so
  `capture` derives the id from the turn's text, as the hook does for a payload without
  `prompt_id`; that matches the hook's record only when both saw the same text, and two
  identical turns of one session are stored once.

A turn is complete when the next prompt starts, when its last assistant message ended the
turn (`stop_reason` `end_turn`) or a `Stop` hook summary follows, or when the file has
settled; a turn waiting on a tool call is never complete. An incomplete turn is read again
next time. Failure: a damaged line is passed over; an unreadable file raises `OSError`.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.harnesses.importing import Consumed, TranscriptTurn, json_lines, parse_timestamp, strip_injected

from memory_claude.adapter import TASK_NOTIFICATION_TAG

__all__ = ["ClaudeTranscripts", "projects_dir"]

_MARKERS = (b'"user"', b'"assistant"', b"stop_hook_summary", b"turn_duration")
"""A line holding none of these is no prompt, answer or end of turn: it is not decoded."""

_ENDED = frozenset({"end_turn", "stop_sequence", "max_tokens"})
_CONTEXT_PREFIXES = ("<local-command-caveat>", "<local-command-stdout>", "<local-command-stderr>")
_COMMAND = re.compile(r"<command-name>\s*(?P<name>[^<]*?)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>(?P<args>.*?)</command-args>", re.DOTALL)


def projects_dir() -> Path:
    """Where Claude Code keeps its session files: `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`."""
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base).expanduser() if base else Path.home() / ".claude") / "projects"


def _is_subagent_file(path: Path) -> bool:
    return path.parent.name == "subagents" or path.name.startswith("agent-")


@dataclass(slots=True)
class _Turn:
    start: int
    prompt_id: str | None
    session_id: str
    cwd: str | None
    created_at: float | None
    prompt: str
    from_user: bool
    response: str = ""
    message_id: object = None
    waiting_on_tool: bool = False
    ended: bool = False

    def close(self, end: int) -> TranscriptTurn | Consumed:
        if not self.from_user or not self.response.strip():
            return Consumed(end)
        return TranscriptTurn(
            session_id=self.session_id,
            turn_id=self.prompt_id,
            prompt=self.prompt,
            response=self.response,
            cwd=self.cwd,
            created_at=self.created_at,
            end=end,
        )


class ClaudeTranscripts:
    """The `TranscriptSource` of Claude Code (see the module docstring for what is kept)."""

    harness = "claude"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else projects_dir()

    def find(self, session: str | None = None) -> list[Path]:
        """Main session files (subagent files hold no user turn), oldest first."""
        if not self.root.is_dir():
            return []
        pattern = f"{glob.escape(session)}.jsonl" if session else "*.jsonl"
        found = [p for p in self.root.glob(f"**/{pattern}") if p.is_file() and not _is_subagent_file(p)]
        return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))

    def parse(self, path: Path, start: int, *, settled: bool) -> Iterator[TranscriptTurn | Consumed]:
        """The complete turns from byte `start`, each ending where the next turn's first line starts."""
        subagent = _is_subagent_file(path)
        turn: _Turn | None = None
        last_end = start
        for line, obj in json_lines(path, start, _MARKERS):
            last_end = line.end
            if obj is None or subagent or obj.get("isSidechain") is True:
                continue
            kind = obj.get("type")
            if kind == "user":
                opened = _open_turn(obj, line.start, path)
                again = opened is not None and turn is not None and opened.prompt_id in (turn.prompt_id,)
                if again and opened is not None and not opened.prompt:
                    opened = None  # only injected text under the turn's own prompt id: the same turn
                if opened is not None:
                    if again:
                        # A second prompt under one prompt id: what came before was a fork's copy of
                        # its parent's history (stamped with the fork's first prompt id), not this turn.
                        yield Consumed(line.start)
                    elif turn is not None:
                        yield turn.close(line.start)
                    elif line.start > start:
                        yield Consumed(line.start)
                    turn = opened
                elif turn is not None and _is_tool_result(obj):
                    turn.waiting_on_tool = False
            elif turn is not None and kind == "assistant":
                _add_answer(turn, obj)
            elif turn is not None and kind == "system" and obj.get("subtype") in ("stop_hook_summary", "turn_duration"):
                turn.ended = True
        if turn is None:
            yield Consumed(last_end)
        elif (turn.ended or settled) and not turn.waiting_on_tool:
            yield turn.close(last_end)
        elif turn.start > start:
            yield Consumed(turn.start)


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _is_tool_result(obj: dict[str, Any]) -> bool:
    content = (obj.get("message") or {}).get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _open_turn(obj: dict[str, Any], start: int, path: Path) -> _Turn | None:
    """The turn a user line starts, or None when the line is not a prompt (a tool result, injected text)."""
    if obj.get("isMeta") or obj.get("isCompactSummary") or obj.get("isVisibleInTranscriptOnly"):
        return None
    if _is_tool_result(obj):
        return None
    prompt_id = obj.get("promptId") if isinstance(obj.get("promptId"), str) else None
    text = _text_of((obj.get("message") or {}).get("content"))
    stripped = text.lstrip()
    if stripped.startswith(_CONTEXT_PREFIXES):
        return None
    origin = obj.get("origin")
    notification = stripped.startswith(TASK_NOTIFICATION_TAG) or (
        isinstance(origin, dict) and origin.get("kind") == "task-notification"
    )
    command = _COMMAND.search(text) if stripped.startswith(("<command-name>", "<command-message>")) else None
    if command is not None:
        # A slash command reaches the UserPromptSubmit hook as the command line the user typed.
        found = _COMMAND_ARGS.search(text)
        text = f"{command['name']} {found['args'].strip() if found else ''}".strip()
    session = obj.get("sessionId")
    cwd = obj.get("cwd")
    return _Turn(
        start=start,
        prompt_id=prompt_id,
        session_id=session if isinstance(session, str) and session else path.stem,
        cwd=cwd if isinstance(cwd, str) and cwd else None,
        created_at=parse_timestamp(obj.get("timestamp")),
        prompt="" if notification else strip_injected(text),
        from_user=not notification,
    )


def _add_answer(turn: _Turn, obj: dict[str, Any]) -> None:
    """Fold one assistant line (one content block of a message, as Claude Code writes them) into the turn."""
    message = obj.get("message")
    if not isinstance(message, dict):
        return
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    text = _text_of(blocks)
    if any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks):
        turn.waiting_on_tool = True
        turn.ended = False
    elif text.strip():
        turn.waiting_on_tool = False
    if text.strip():
        same_message = message.get("id") is not None and message.get("id") == turn.message_id
        turn.response = f"{turn.response}\n{text}" if same_message else text
        turn.message_id = message.get("id")
    if message.get("stop_reason") in _ENDED:
        turn.ended = True
