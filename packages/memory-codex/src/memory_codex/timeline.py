"""What the agent did in each turn of a Codex thread, read from its rollout file.

The worker calls `read_timeline(path, offset)` after a turn's capture (never the hook client),
and `memory import codex` calls it for past threads. It reads every complete line from byte
`offset` and hands back, per turn, the `response_item` entries in file order:

- `tool_call`: a `function_call` (name, prefixed by its MCP namespace when it has one, and
  `arguments` as Codex recorded them), a `custom_tool_call` (`apply_patch`: its `input`), a
  `local_shell_call` (its `action` as JSON), a `web_search_call`.
- `tool_result`: the matching `*_output` item (`call_id`, the call's name, the output text),
  passed whole: the core caps it.
- `injected`: a developer or user message Codex marks as context rather than the user's words
  (`content_item_kinds`): `hook` (`hooks.additional_context`, a hook's `additionalContext`),
  `skill` (a skill's instructions), `compaction` (a compaction's summary, and a `compacted`
  line), `slash_command` (a command's text). Codex's own per-turn context (the environment,
  permissions, skill and tool listings) and the user's words are not events. Memory's own
  recalled block is cut out of any injected text, and a passage holding nothing else is dropped.

Which turn: each item names its turn (`internal_chat_message_metadata_passthrough.turn_id`, the
hooks' `turn_id`); an item that does not is the turn's that `task_started` / `turn_context` last
opened. Every event is named by Codex's own ids (the call id plus `call` or `result`, the message
id plus the part's index), so a resumed thread (appended to the same rollout) or a re-read names
the same events again, and nothing is stored twice. A fork (`codex exec fork`) gets a rollout of
its own that names its parent (`forked_from_id`) rather than copying its items: it brings only
its own turns' events. A subagent's thread
(`session_meta.source.subagent`) is a session of its own naming its parent's thread.

`end`: past the last complete line, except that a turn still open (no `task_complete` or
`turn_aborted` yet) is read again next time from its `task_started` line. A line still being
written is never read; a malformed line is passed over; an offset past the end of the file
reads from 0. Failure: an unreadable rollout raises `OSError` (the caller loses the events,
never the turn).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.harnesses.importing import json_lines, parse_timestamp, read_lines, strip_injected
from memory_core.models import TimelineChunk, TimelineEvent, TurnTimeline

__all__ = ["read_timeline"]

_MARKERS = (
    b"session_meta",
    b"task_started",
    b"task_complete",
    b"turn_aborted",
    b"turn_context",
    b"response_item",
    b"compacted",
)
"""A line holding none of these (token counts, world state, ...) carries no event: it is not decoded."""

_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})


def _origin(kind: str) -> str | None:
    """Where a message part marked `kind` came from, or None when it is no event (the user's words,
    Codex's own per-turn context).
    """
    if kind.startswith("hooks."):
        return "hook"
    if "compact" in kind:
        return "compaction"
    if kind.startswith("skills.") and "list" not in kind:
        return "skill"
    if "command" in kind:
        return "slash_command"
    return None


@dataclass(slots=True)
class _Thread:
    session_id: str
    parent: str | None = None
    order: list[str | None] = field(default_factory=list)
    events: dict[str | None, list[TimelineEvent]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    current: str | None = None
    open_start: int | None = None
    """Where the turn still open (started, not completed) began."""

    def add(self, turn_id: str | None, event: TimelineEvent) -> None:
        if event.kind != "tool_result" and not event.text:
            return
        if turn_id not in self.events:
            self.order.append(turn_id)
            self.events[turn_id] = []
        self.events[turn_id].append(event)


def read_timeline(path: Path, offset: int) -> TimelineChunk:
    """The events of the turns in Codex rollout `path` from byte `offset` on (see the module docstring)."""
    size = path.stat().st_size
    start = offset if 0 <= offset <= size else 0
    thread = _thread_of(path)
    last_end = start
    for line, obj in json_lines(path, start, _MARKERS):
        last_end = line.end
        payload = obj.get("payload") if obj is not None else None
        if obj is None or not isinstance(payload, dict):
            continue
        kind = obj.get("type")
        if kind == "event_msg":
            _turn_marker(thread, payload, line.start)
        elif kind == "turn_context" and isinstance(payload.get("turn_id"), str):
            thread.current = payload["turn_id"]
        elif kind == "response_item":
            _read_item(thread, payload, parse_timestamp(obj.get("timestamp")) or 0.0)
        elif kind == "compacted":
            text = _injected_text(str(payload.get("message") or ""))
            at = parse_timestamp(obj.get("timestamp")) or 0.0
            stamp = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else str(line.start)
            thread.add(thread.current, TimelineEvent("injected", f"compacted:{stamp}", text, "compaction", at=at))
    turns = tuple(
        TurnTimeline(thread.session_id, turn_id, tuple(thread.events[turn_id]), thread.parent)
        for turn_id in thread.order
    )
    return TimelineChunk(turns, thread.open_start if thread.open_start is not None else last_end)


def _thread_of(path: Path) -> _Thread:
    """The thread a rollout belongs to, from its first line (`session_meta`), else its file name."""
    from memory_codex.rollout import _THREAD_ID

    found = _THREAD_ID.search(path.name)
    thread = _Thread(found.group(1) if found else path.stem)
    for line in read_lines(path, 0):
        try:
            first = json.loads(line.raw)
        except ValueError:
            break
        meta = first.get("payload") if isinstance(first, dict) and first.get("type") == "session_meta" else None
        if isinstance(meta, dict):
            session = meta.get("id") or meta.get("session_id")
            thread.session_id = session if isinstance(session, str) and session else thread.session_id
            source = meta.get("source")
            subagent = source.get("subagent") if isinstance(source, dict) else None
            thread.parent = _parent_thread(subagent)
        break
    return thread


def _parent_thread(subagent: object) -> str | None:
    """The parent thread id somewhere inside `source.subagent` (`thread_spawn.parent_thread_id`)."""
    if isinstance(subagent, dict):
        for key, value in subagent.items():
            if key == "parent_thread_id" and isinstance(value, str) and value:
                return value
            found = _parent_thread(value)
            if found is not None:
                return found
    return None


def _turn_marker(thread: _Thread, payload: dict[str, Any], start: int) -> None:
    event = payload.get("type")
    turn_id = payload.get("turn_id")
    if event == "task_started":
        thread.current = turn_id if isinstance(turn_id, str) else None
        thread.open_start = start
    elif event in ("task_complete", "turn_aborted") and turn_id in (None, thread.current):
        thread.open_start = None


def _read_item(thread: _Thread, item: dict[str, Any], at: float) -> None:
    meta = item.get("internal_chat_message_metadata_passthrough")
    named = meta.get("turn_id") if isinstance(meta, dict) else None
    turn_id = named if isinstance(named, str) and named else thread.current
    kind = item.get("type")
    call_id = str(item.get("call_id") or item.get("id") or "")
    if kind in _CALLS:
        name = _call_name(item)
        thread.names[call_id] = name
        thread.add(turn_id, TimelineEvent("tool_call", f"{call_id}:call", _call_text(item), name, call_id, at))
    elif kind in _OUTPUTS:
        text = _output_text(item.get("output"))
        thread.add(
            turn_id, TimelineEvent("tool_result", f"{call_id}:result", text, thread.names.get(call_id, ""), call_id, at)
        )
    elif kind == "message" and item.get("role") in ("developer", "user"):
        kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
        content = item.get("content")
        if not isinstance(kinds, list) or not isinstance(content, list):
            return  # no marks: no way to tell context from the user's words, so nothing is claimed
        message_id = str(item.get("id") or "")
        for index, (part, part_kind) in enumerate(zip(content, kinds, strict=False)):
            origin = _origin(part_kind) if isinstance(part_kind, str) else None
            if origin is None or not isinstance(part, dict) or not message_id:
                continue
            text = _injected_text(str(part.get("text") or ""))
            thread.add(turn_id, TimelineEvent("injected", f"{message_id}:{index}", text, origin, at=at))


def _call_name(item: dict[str, Any]) -> str:
    kind = item.get("type")
    if kind == "local_shell_call":
        return "local_shell"
    if kind == "web_search_call":
        return "web_search"
    name = str(item.get("name") or "")
    namespace = item.get("namespace")
    return f"{namespace}.{name}" if isinstance(namespace, str) and namespace else name


def _call_text(item: dict[str, Any]) -> str:
    for key in ("arguments", "input"):
        value = item.get(key)
        if isinstance(value, str):
            return value
    value = item.get("action") if "action" in item else item.get("arguments", item.get("input", {}))
    return json.dumps(value, ensure_ascii=False)


def _output_text(output: object) -> str:
    """An output as text: a string, the text parts of a content list, or the JSON of anything else."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and isinstance(output.get("output"), str):
        return str(output["output"])
    if isinstance(output, list):
        parts = [p.get("text") for p in output if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if parts:
            return "\n".join(str(p) for p in parts)
    return json.dumps(output, ensure_ascii=False) if output is not None else ""


def _injected_text(text: str) -> str:
    """Injected text without memory's own recalled block (which `strip_injected` cuts out)."""
    return strip_injected(text) if text else ""
