"""What the agent did in each turn of a Claude Code session, read from its transcript.

The worker calls `read_timeline(path, offset)` after a turn's capture (never the hook client),
and `memory import claude` calls it for past sessions. It reads every complete JSONL line from
byte `offset` and hands back, per turn, the events in transcript order:

- `tool_call`: a `tool_use` block of an assistant line (name, `input` as JSON text, call id).
- `tool_result`: a `tool_result` block of a user line (the call's id and tool name, its text
  content joined), passed whole: the core caps it.
- `injected`, named by where it came from: `hook` (a hook's `additionalContext`: the
  `hook_additional_context` and `async_hook_response` attachments, a `Stop` hook summary's
  context), `system_reminder` (a `<system-reminder>` span inside a user message, and any other
  attachment Claude Code renders to the model, except its per-turn boilerplate: environment,
  date, model identity, tool, agent and skill listings, the system prompt snapshot), `skill`
  (the body of a skill the model invoked), `compaction` (the summary a `/compact` left,
  `isCompactSummary`), `slash_command` (a custom command's expanded prompt, a local command's
  output). Memory's own recalled block is never an event: it is cut out of any injected text,
  and a passage holding nothing else is dropped.

Which turn: a user line carries the turn's `promptId` (the hook's `prompt_id`); the assistant
lines and attachments after it belong to that turn. Injected text that arrives before the next
prompt (a `SessionStart` hook's context) belongs to the turn it was injected into, the next one.
Every event is named by the line's `uuid` and the block's index, so a re-read (a lost offset, a
resumed session's file read again) names the same events again and nothing is stored twice. A
forked session (`--fork-session`) starts with a copy of its parent's lines, uuids kept but session
and prompt ids rewritten to the fork's first turn: that copy is no event of the fork (its events
are the parent's, stored under the parent's turns), so a turn's events start over at its prompt.

Subagents: a subagent writes `<session>/subagents/agent-<id>.jsonl`; its turns are a session of
their own (`agent-<id>`) naming the parent session. Reading the parent's transcript reads the
subagent's file whole once the subagent's result is in (the `Agent` tool's result, or the
`<task-notification>` of a background one); reading a subagent file directly gives the same.

`end`: past the last complete line, except that a turn still open (its last assistant message
did not end it) and injected text still waiting for its prompt are read again next time, so a
read never starts in the middle of a turn. A line still being written is never read; a
malformed line is passed over. An offset past the end of the file (it shrank or was replaced)
reads from 0. Failure: an unreadable transcript raises `OSError` (the caller loses the events,
never the turn); an unreadable subagent file costs that subagent's events only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.harnesses.importing import json_lines, parse_timestamp, strip_injected
from memory_core.harnesses.transcripts import block_text
from memory_core.models import TimelineChunk, TimelineEvent, TurnTimeline

__all__ = ["read_timeline", "subagent_file"]

_MARKERS = (b'"user"', b'"assistant"', b'"attachment"', b'"system"')
"""A line holding none of these (`queue-operation`, `cost-state`, ...) carries no event: it is not decoded."""

_ENDED = frozenset({"end_turn", "stop_sequence", "max_tokens"})

_BOILERPLATE = frozenset(
    {
        "environment",
        "model",
        "date",
        "session_context",
        "remote_session_change",
        "prompt_snapshot",
        "deferred_tools_delta",
        "agent_listing_delta",
        "skill_listing",
        "mcp_instructions_delta",
        "skills_discovered",
        "hook_success",
    }
)
"""Attachments Claude Code adds to every turn (or that repeat another line, `hook_success` the
hook's raw stdout): the same text each turn, nothing this turn did."""

_HOOK_ATTACHMENTS = frozenset({"hook_additional_context", "async_hook_response"})
_REMINDER = re.compile(r"<system-reminder>\s*(.*?)\s*</system-reminder>", re.DOTALL)
_LOCAL_OUTPUT = re.compile(r"^\s*<local-command-(?:stdout|stderr)>(.*?)</local-command-(?:stdout|stderr)>", re.DOTALL)
_TASK_ID = re.compile(r"<task-id>\s*([^<\s]+)\s*</task-id>")
_TASK_DONE = re.compile(r"<status>\s*completed\s*</status>")
_SKILL_BODY = "Base directory for this skill"


def subagent_file(transcript: Path, agent_id: str) -> Path:
    """Where Claude Code keeps the transcript of subagent `agent_id` of the session in `transcript`."""
    return transcript.parent / transcript.stem / "subagents" / f"agent-{agent_id}.jsonl"


def _is_subagent_file(path: Path) -> bool:
    return path.parent.name == "subagents" or path.name.startswith("agent-")


@dataclass(slots=True)
class _Turns:
    """The turns of one session as they are read, and where the next read must start."""

    session_id: str
    parent: str | None = None
    order: list[str | None] = field(default_factory=list)
    events: dict[str | None, list[TimelineEvent]] = field(default_factory=dict)
    current: str | None = None
    known: bool = False
    """Whether this read has seen a line naming `current` (before one, the read may be inside a turn)."""
    current_start: int = 0
    ended: bool = True
    prompted: bool = False
    """Whether the current turn's prompt line was seen (a line inside a turn names it too)."""
    pending: list[TimelineEvent] = field(default_factory=list)
    pending_start: int | None = None
    names: dict[str, str] = field(default_factory=dict)
    """Tool name by call id, so a result is named like its call."""
    subagents: list[str] = field(default_factory=list)
    copied: set[str | None] = field(default_factory=set)
    """Turns whose lines a fork copied from its parent (`requestSessionId` names another session)."""

    def add(self, event: TimelineEvent, start: int, *, waits_for_prompt: bool) -> None:
        if waits_for_prompt and (not self.known or self.ended):
            if self.pending_start is None:
                self.pending_start = start
            self.pending.append(event)
            return
        self._bucket(self.current).append(event)

    def open(self, turn_id: str | None, start: int, *, prompt: bool) -> None:
        """A line naming its turn: a prompt starts the turn, taking the injected text that waited for it.

        A second prompt under the turn's id means what came before it was copied history: a
        forked session copies its parent's lines (their uuids kept) and stamps them with the new
        turn's prompt id. Their events are the parent's, stored already: they are let go.
        """
        if self.known and turn_id == self.current:
            self.ended = False
            if not (prompt and self.prompted):
                self.prompted = self.prompted or prompt
                return
            self.events.pop(turn_id, None)
            self.copied.discard(turn_id)
            if turn_id in self.order:
                self.order.remove(turn_id)
        self.current, self.known, self.ended, self.prompted = turn_id, True, False, prompt
        self.current_start = self.pending_start if self.pending_start is not None else start
        self._flush()

    def continue_turn(self) -> None:
        """An assistant line: the model is still answering the current turn."""
        self.ended = False
        self._flush()

    def _flush(self) -> None:
        if self.pending:
            self._bucket(self.current).extend(self.pending)
        self.pending, self.pending_start = [], None

    def copied_from_elsewhere(self) -> None:
        """The current turn's lines were copied from another session (a fork's head): not this session's events."""
        if self.known:
            self.copied.add(self.current)

    def _bucket(self, turn_id: str | None) -> list[TimelineEvent]:
        if not self.known:
            # The read began inside a turn it cannot name (an offset this reader never gave):
            # those lines' events are not claimed for any turn.
            return []
        if turn_id not in self.events:
            self.order.append(turn_id)
            self.events[turn_id] = []
        return self.events[turn_id]

    def end(self, last_end: int) -> int:
        """Where the next read starts: before injected text still waiting for its prompt, else before
        a turn still open, else past the last complete line.
        """
        if self.pending_start is not None:
            return self.pending_start
        if self.known and not self.ended:
            return self.current_start
        return last_end

    def timelines(self) -> list[TurnTimeline]:
        return [
            TurnTimeline(self.session_id, turn_id, tuple(self.events[turn_id]), self.parent)
            for turn_id in self.order
            if self.events[turn_id] and turn_id not in self.copied
        ]


def read_timeline(path: Path, offset: int) -> TimelineChunk:
    """The events of the turns in Claude Code transcript `path` from byte `offset` on (see the module docstring)."""
    size = path.stat().st_size
    start = offset if 0 <= offset <= size else 0
    subagent = _is_subagent_file(path)
    turns = _Turns(session_id=path.stem)
    last_end = start
    for line, obj in json_lines(path, start, _MARKERS):
        last_end = line.end
        if obj is None or (obj.get("isSidechain") is True and not subagent):
            continue
        if subagent and turns.parent is None and isinstance(obj.get("sessionId"), str):
            turns.parent = obj["sessionId"]
        elif not subagent and isinstance(obj.get("sessionId"), str) and obj["sessionId"]:
            turns.session_id = obj["sessionId"]
        _read_line(turns, obj, line.start)
    found = turns.timelines()
    end = turns.end(last_end)
    for agent_id in dict.fromkeys(turns.subagents):
        try:
            found.extend(read_timeline(subagent_file(path, agent_id), 0).turns)
        except OSError:
            continue  # the subagent's events are lost, never the parent's
    return TimelineChunk(tuple(found), end)


def _read_line(turns: _Turns, obj: dict[str, Any], start: int) -> None:
    kind = obj.get("type")
    uuid = obj.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        return
    at = parse_timestamp(obj.get("timestamp")) or 0.0
    if kind == "user":
        _read_user(turns, obj, uuid, at, start)
    elif kind == "assistant":
        _read_assistant(turns, obj, uuid, at, start)
    elif kind == "attachment":
        attachment = obj.get("attachment")
        if isinstance(attachment, dict):
            event = _attachment_event(attachment, obj, uuid, at)
            if event is not None:
                turns.add(event, start, waits_for_prompt=True)
    elif kind == "system" and obj.get("subtype") in ("stop_hook_summary", "turn_duration"):
        context = obj.get("hookAdditionalContext")
        text = _injected_text("\n".join(c for c in context if isinstance(c, str)) if isinstance(context, list) else "")
        if text:
            turns.add(TimelineEvent("injected", f"{uuid}:0", text, "hook", at=at), start, waits_for_prompt=False)
        turns.ended = True


def _read_user(turns: _Turns, obj: dict[str, Any], uuid: str, at: float, start: int) -> None:
    prompt_id = obj.get("promptId") if isinstance(obj.get("promptId"), str) else None
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    blocks: list[Any] = content if isinstance(content, list) else [{"type": "text", "text": content}]
    whole = block_text(blocks)
    carries_result = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)
    inside = (
        carries_result or bool(obj.get("isMeta") or obj.get("isCompactSummary")) or bool(_LOCAL_OUTPUT.match(whole))
    )
    if not inside:
        # The user's words, a slash command, a subagent reporting back (a line of injected text alone is none).
        turns.open(prompt_id, start, prompt=bool(strip_injected(whole)) or not whole.strip())
        _note_task_notification(turns, whole)
    elif prompt_id is not None:
        # A line inside a turn continues the turn its prompt id names, one this read did not see start too.
        turns.open(prompt_id, start, prompt=False)
        turns.continue_turn()
    if obj.get("isCompactSummary"):
        _add(turns, TimelineEvent("injected", f"{uuid}:0", whole.strip(), "compaction", at=at), start)
        return
    if obj.get("isMeta"):
        if not whole.lstrip().startswith("<local-command-caveat>"):
            origin = "skill" if obj.get("sourceToolUseID") or _SKILL_BODY in whole[:200] else "slash_command"
            _add(turns, TimelineEvent("injected", f"{uuid}:0", _injected_text(whole), origin, at=at), start)
        return
    local = _LOCAL_OUTPUT.match(whole)
    if local is not None:
        _add(turns, TimelineEvent("injected", f"{uuid}:0", local.group(1).strip(), "slash_command", at=at), start)
        turns.ended = True  # a local command (`/compact`) is a turn the model never answers
        return
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            call_id = str(block.get("tool_use_id") or "")
            text = block_text(block.get("content"))
            _add(
                turns,
                TimelineEvent("tool_result", f"{uuid}:{index}", text, turns.names.get(call_id, ""), call_id, at),
                start,
            )
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            reminders = [_injected_text(span) for span in _REMINDER.findall(block["text"])]
            text = "\n\n".join(r for r in reminders if r)
            if text:
                _add(turns, TimelineEvent("injected", f"{uuid}:{index}", text, "system_reminder", at=at), start)
    result = obj.get("toolUseResult")
    if isinstance(result, dict) and isinstance(result.get("agentId"), str) and not result.get("isAsync"):
        turns.subagents.append(result["agentId"])


def _note_task_notification(turns: _Turns, text: str) -> None:
    """A background subagent reported back: its transcript is complete, read it."""
    if text.lstrip().startswith("<task-notification>") and _TASK_DONE.search(text):
        found = _TASK_ID.search(text)
        if found is not None:
            turns.subagents.append(found.group(1))


def _read_assistant(turns: _Turns, obj: dict[str, Any], uuid: str, at: float, start: int) -> None:
    message = obj.get("message")
    if not isinstance(message, dict):
        return
    turns.continue_turn()
    requested = obj.get("requestSessionId")
    if isinstance(requested, str) and requested != obj.get("sessionId"):
        turns.copied_from_elsewhere()
    content = message.get("content")
    for index, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict) and block.get("type") in ("tool_use", "server_tool_use"):
            call_id = str(block.get("id") or "")
            name = str(block.get("name") or "")
            turns.names[call_id] = name
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
            turns.add(
                TimelineEvent("tool_call", f"{uuid}:{index}", arguments, name, call_id, at),
                start,
                waits_for_prompt=False,
            )
    stop = message.get("stop_reason")
    if stop in _ENDED:
        turns.ended = True


def _attachment_event(attachment: dict[str, Any], obj: dict[str, Any], uuid: str, at: float) -> TimelineEvent | None:
    kind = attachment.get("type")
    if kind in _BOILERPLATE:
        return None
    if kind in _HOOK_ATTACHMENTS:
        if kind == "hook_additional_context":
            content = attachment.get("content")
            raw = (
                "\n".join(c for c in content if isinstance(c, str)) if isinstance(content, list) else str(content or "")
            )
        else:
            response = attachment.get("response")
            specific = response.get("hookSpecificOutput") if isinstance(response, dict) else None
            context = specific.get("additionalContext") if isinstance(specific, dict) else None
            raw = context if isinstance(context, str) else ""
        text = _injected_text(raw)
        return TimelineEvent("injected", f"{uuid}:0", text, "hook", at=at) if text else None
    rendered = obj.get("rendered")
    if not isinstance(rendered, list):
        return None
    parts = [str(r["content"]) for r in rendered if isinstance(r, dict) and isinstance(r.get("content"), str)]
    text = _injected_text("\n\n".join(_unwrap(p) for p in parts))
    origin = "skill" if isinstance(kind, str) and "skill" in kind else "system_reminder"
    return TimelineEvent("injected", f"{uuid}:0", text, origin, at=at) if text else None


def _add(turns: _Turns, event: TimelineEvent, start: int) -> None:
    if event.text or event.kind == "tool_result":
        turns.add(event, start, waits_for_prompt=False)


def _unwrap(text: str) -> str:
    """The inside of `<system-reminder>` spans (the whole text when it has none)."""
    spans = _REMINDER.findall(text)
    return "\n\n".join(spans) if spans else text


def _injected_text(text: str) -> str:
    """Injected text without memory's own recalled block (which `strip_injected` cuts out)."""
    return strip_injected(text) if text else ""
