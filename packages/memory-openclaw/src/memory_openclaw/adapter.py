"""OpenClaw payloads in, the plugin's response out: the hook-path half of the harness.

The plugin (`plugin/index.ts`) sends one JSON object per hook call, in OpenClaw's own shape
so that the payloads recorded from the real program parse the same way:

    {"hook": "before_prompt_build", "event": {"prompt": ...}, "ctx": {"runId", "sessionId", "workspaceDir", ...}}
    {"hook": "llm_output" | "agent_end", "event": {...}, "ctx": {...}, "prompt": "<the turn's prompt>"}
    {"hook": "after_compaction", "ctx": {...}}

`before_prompt_build` is a READ (recall), `llm_output` and `agent_end` are WRITEs (capture,
the first of the two to arrive for a `runId`; the plugin sends only that one, and the record id
derived from the run id stores a repeat once), `after_compaction` is a RESET. An `agent_end`
carries the run's messages from its user message on: their tool calls and results become the
WRITE's `events` (`memory_openclaw.events`); the plugin sends `agent_end` even after `llm_output`
captured the run, so the events come whichever arrives first.

Project: OpenClaw runs every agent in its own workspace (`~/.openclaw/workspace`), not in a
code repository, so the event's `cwd` is that workspace and the core resolves the project
from it unless `MEMORY_PROJECT` is set.

The payload is validated by the models of `memory_openclaw.payloads`. Failure: `parse`
raises `PayloadError` (a `ValueError`) for a payload that lacks what its event needs (the core
logs it and prints nothing); unknown extra keys are kept. The plugin's long-lived worker and a
one-shot hook's in-process path load this module and pydantic; nothing else runs per call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memory_core.models import EventKind, HookEvent, Recall

from memory_openclaw.events import run_events
from memory_openclaw.payloads import (
    AfterCompaction,
    AgentEnd,
    BeforePromptBuild,
    ContentBlock,
    LlmOutput,
    Message,
    PayloadError,
    validate,
)

__all__ = ["OpenClawHooks", "HARNESS_NAME", "IGNORED_TRIGGERS"]

HARNESS_NAME = "openclaw"

IGNORED_TRIGGERS = frozenset({"heartbeat", "memory"})
"""Runs OpenClaw starts on its own (heartbeat checks, memory flushes): no user's words to
recall for, nothing worth keeping."""


def _text(content: str | list[ContentBlock] | None) -> str:
    """The text of a message's `content`: a string, or the `text` blocks of a list joined."""
    if isinstance(content, str):
        return content
    return "\n".join(block.text for block in content or () if block.type == "text" and block.text is not None)


def _last(messages: list[Message] | None, role: str) -> Message | None:
    for message in reversed(messages or ()):
        if message.role == role:
            return message
    return None


def _answer(typed: LlmOutput | AgentEnd) -> str:
    """The turn's final assistant text.

    `llm_output.lastAssistant` is the final message; `assistantTexts` also holds the text said
    before each tool call, so it is only the fallback.
    """
    if isinstance(typed, LlmOutput):
        last = typed.event.lastAssistant
        text = _text(last.content) if last is not None else ""
        if text.strip():
            return text
        texts = [t for t in typed.event.assistantTexts or () if t.strip()]
        return texts[-1] if texts else ""
    message = _last(typed.event.messages, "assistant")
    return _text(message.content) if message is not None else ""


class OpenClawHooks:
    """Parse the plugin's payloads and render recall as `{"appendContext": ...}`."""

    name = HARNESS_NAME

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        """Turn one plugin payload into a normalised event (see the module docstring).

        Raises:
            PayloadError: The payload does not validate (`memory_openclaw.payloads`), or a
                hook memory uses lacks its session or run id.
        """
        typed = validate(payload)
        if not isinstance(typed, BeforePromptBuild | LlmOutput | AgentEnd | AfterCompaction):
            return HookEvent(EventKind.IGNORE, HARNESS_NAME, reason=f"OpenClaw hook {payload['hook']} is not used")
        ctx = typed.ctx
        session_id = ctx.sessionId or ctx.sessionKey or ""
        turn_id = ctx.runId or (typed.event.runId if isinstance(typed, LlmOutput | AgentEnd) else None) or None

        def make(kind: EventKind, prompt: str | None = None, response: str | None = None, why: str = "") -> HookEvent:
            return HookEvent(kind, HARNESS_NAME, session_id, turn_id, ctx.workspaceDir or None, prompt, response, why)

        if ctx.trigger in IGNORED_TRIGGERS:
            return make(EventKind.IGNORE, why=f"an OpenClaw {ctx.trigger} run")
        if isinstance(typed, BeforePromptBuild):
            if not typed.event.prompt.strip():
                return make(EventKind.IGNORE, why="an empty prompt")
            if not session_id:
                raise PayloadError("before_prompt_build without `ctx.sessionId`")
            return make(EventKind.READ, prompt=typed.event.prompt)
        if isinstance(typed, AfterCompaction):
            if not session_id:
                raise PayloadError("after_compaction without `ctx.sessionId`")
            return make(EventKind.RESET)
        if isinstance(typed, AgentEnd) and typed.event.success is False:
            return make(EventKind.IGNORE, why="a failed OpenClaw run")
        response = _answer(typed)
        if not response.strip():
            return make(EventKind.IGNORE, why=f"{typed.hook} without assistant text")
        if not session_id or not turn_id:
            raise PayloadError(f"{typed.hook} without `ctx.sessionId` and `ctx.runId`")
        prompt = typed.prompt
        if prompt is None and isinstance(typed, AgentEnd):
            user = _last(typed.event.messages, "user")
            prompt = _text(user.content) if user is not None else None
        event = payload.get("event")
        messages = event.get("messages") if isinstance(typed, AgentEnd) and isinstance(event, Mapping) else None
        return HookEvent(
            EventKind.WRITE,
            HARNESS_NAME,
            session_id,
            turn_id,
            ctx.workspaceDir or None,
            prompt or None,
            response,
            events=run_events(messages, turn_id),
        )

    def render(self, event: HookEvent, recall: Recall) -> str:
        """`{"appendContext": <block>}` for a READ with something to inject, else ""."""
        if event.kind is not EventKind.READ or not recall.text:
            return ""
        return json.dumps({"appendContext": recall.text}, separators=(",", ":"))
