"""OpenClaw payloads in, the plugin's response out: the hook-path half of the harness.

The plugin (`plugin/index.ts`) sends one JSON object per hook call, in OpenClaw's own shape
so that the payloads recorded from the real program parse the same way:

    {"hook": "before_prompt_build", "event": {"prompt": ...}, "ctx": {"runId", "sessionId", "workspaceDir", ...}}
    {"hook": "llm_output" | "agent_end", "event": {...}, "ctx": {...}, "prompt": "<the turn's prompt>"}
    {"hook": "after_compaction", "ctx": {...}}

`before_prompt_build` is a READ (recall), `llm_output` and `agent_end` are WRITEs (capture,
the first of the two to arrive for a `runId`; the plugin sends only that one, and the record id
derived from the run id stores a repeat once), `after_compaction` is a RESET.

Project: OpenClaw runs every agent in its own workspace (`~/.openclaw/workspace`), not in a
code repository, so the event's `cwd` is that workspace and the core resolves the project
from it unless `MEMORY_PROJECT` is set.

Failure: `parse` raises `ValueError` for a payload that lacks what its event needs (the core
logs it and prints nothing); unknown extra keys are ignored. Imports stay minimal: this
module is on the hook path.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memory_core.models import EventKind, HookEvent, Recall

__all__ = ["OpenClawHooks", "HARNESS_NAME", "IGNORED_TRIGGERS"]

HARNESS_NAME = "openclaw"

IGNORED_TRIGGERS = frozenset({"heartbeat", "memory"})
"""Runs OpenClaw starts on its own (heartbeat checks, memory flushes): no user's words to
recall for, nothing worth keeping."""

_WRITE_HOOKS = frozenset({"llm_output", "agent_end"})


def _text(value: Any) -> str:
    """The text of a message's `content`: a string, or the `text` blocks of a list joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        blocks = [b for b in value if isinstance(b, Mapping) and b.get("type") == "text"]
        return "\n".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
    return ""


def _last(messages: Any, role: str) -> Mapping[str, Any] | None:
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == role:
            return message
    return None


def _string(mapping: Mapping[str, Any], key: str) -> str | None:
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None


def _answer(hook: str, event: Mapping[str, Any]) -> str:
    """The turn's final assistant text.

    `llm_output.lastAssistant` is the final message; `assistantTexts` also holds the text said
    before each tool call, so it is only the fallback.
    """
    if hook == "llm_output":
        last = event.get("lastAssistant")
        text = _text(last.get("content")) if isinstance(last, Mapping) else ""
        if text.strip():
            return text
        texts = [t for t in event.get("assistantTexts") or () if isinstance(t, str) and t.strip()]
        return texts[-1] if texts else ""
    message = _last(event.get("messages"), "assistant")
    return _text(message.get("content")) if message is not None else ""


class OpenClawHooks:
    """Parse the plugin's payloads and render recall as `{"appendContext": ...}`."""

    name = HARNESS_NAME

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        """Turn one plugin payload into a normalised event (see the module docstring)."""
        hook = payload.get("hook")
        raw_event, raw_ctx = payload.get("event"), payload.get("ctx")
        event: Mapping[str, Any] = raw_event if isinstance(raw_event, Mapping) else {}
        ctx: Mapping[str, Any] = raw_ctx if isinstance(raw_ctx, Mapping) else {}
        if not isinstance(hook, str):
            raise ValueError("an OpenClaw payload needs a `hook` name")
        session_id = _string(ctx, "sessionId") or _string(ctx, "sessionKey") or ""
        turn_id = _string(ctx, "runId") or _string(event, "runId")
        cwd = _string(ctx, "workspaceDir")

        def make(kind: EventKind, prompt: str | None = None, response: str | None = None, why: str = "") -> HookEvent:
            return HookEvent(kind, HARNESS_NAME, session_id, turn_id, cwd, prompt, response, reason=why)

        trigger = _string(ctx, "trigger")
        if trigger in IGNORED_TRIGGERS:
            return make(EventKind.IGNORE, why=f"an OpenClaw {trigger} run")
        if hook == "before_prompt_build":
            prompt = event.get("prompt")
            if not isinstance(prompt, str):
                raise ValueError("before_prompt_build without `event.prompt`")
            if not prompt.strip():
                return make(EventKind.IGNORE, why="an empty prompt")
            if not session_id:
                raise ValueError("before_prompt_build without `ctx.sessionId`")
            return make(EventKind.READ, prompt=prompt)
        if hook in _WRITE_HOOKS:
            if hook == "agent_end" and event.get("success") is False:
                return make(EventKind.IGNORE, why="a failed OpenClaw run")
            response = _answer(hook, event)
            if not response.strip():
                return make(EventKind.IGNORE, why=f"{hook} without assistant text")
            if not session_id or not turn_id:
                raise ValueError(f"{hook} without `ctx.sessionId` and `ctx.runId`")
            prompt = _string(payload, "prompt")
            if prompt is None and hook == "agent_end":
                user = _last(event.get("messages"), "user")
                prompt = _text(user.get("content")) if user is not None else None
            return make(EventKind.WRITE, prompt=prompt or None, response=response)
        if hook == "after_compaction":
            if not session_id:
                raise ValueError("after_compaction without `ctx.sessionId`")
            return make(EventKind.RESET)
        return make(EventKind.IGNORE, why=f"OpenClaw hook {hook} is not used")

    def render(self, event: HookEvent, recall: Recall) -> str:
        """`{"appendContext": <block>}` for a READ with something to inject, else ""."""
        if event.kind is not EventKind.READ or not recall.text:
            return ""
        return json.dumps({"appendContext": recall.text}, separators=(",", ":"))
