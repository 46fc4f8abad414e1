"""`ClaudeHooks`: Claude Code hook payloads in, normalised events out, and the text to print.

What each event means to memory:

- `UserPromptSubmit`: READ, the prompt is the query; `prompt_id` is the turn id that pairs it
  with its `Stop`. A `<task-notification>` prompt (a background subagent reporting back) is
  SKIP: it is neither a question to answer with memories nor the user's words to store, and
  the core drops the capture of its turn when the `Stop` comes.
- `Stop`: WRITE, the response is `last_assistant_message`, the turn id is `prompt_id`.
- `SubagentStop`: IGNORE. It carries its parent's `prompt_id`, and `/compact` fires some with
  no matching prompt, so capturing it would overwrite or duplicate the parent's turn.
- `SessionStart` with source `compact`: RESET, the compacted context no longer holds what was
  injected. With any other source (`startup`, `resume`, `clear`): START, the worker starts and
  loads the embedding model in the background, writing nothing. Every other event: IGNORE.

`render` answers only a READ with something to inject, as one compact JSON line; otherwise "".
Failure: `parse` raises `PayloadError` (a `ValueError`) for a payload its event cannot use;
the shared hook runner turns that into a logged line and no output. The warm worker and a
cold turn's in-process path load this module with the payload models (pydantic); the hook
client never does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memory_core.models import EventKind, HookEvent, Recall

from memory_claude.payloads import (
    SessionStartPayload,
    StopPayload,
    SubagentStopPayload,
    UserPromptSubmitPayload,
    validate,
)

__all__ = ["ClaudeHooks", "TASK_NOTIFICATION_TAG", "render_context"]

TASK_NOTIFICATION_TAG = "<task-notification>"
"""How a background subagent's report starts when Claude Code submits it as a prompt."""


def render_context(text: str) -> str:
    """The exact stdout that makes Claude Code add `text` to the model's context ("" for no text)."""
    if not text:
        return ""
    output = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
    # ASCII-only JSON: the bytes are the same whatever locale the hook process gets.
    return json.dumps(output, separators=(",", ":"))


class ClaudeHooks:
    """The hook adapter for Claude Code (the `HookAdapter` shape of memory-core)."""

    name: str = "claude"

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        """Turn one Claude Code hook payload into a normalised event.

        Raises:
            PayloadError: The payload misses a key its event needs or has a mistyped one.
        """
        typed = validate(payload)
        common: dict[str, Any] = {
            "harness": self.name,
            "session_id": typed.session_id,
            "turn_id": typed.prompt_id,
            "cwd": typed.cwd,
            "transcript_path": typed.transcript_path,
        }
        if isinstance(typed, UserPromptSubmitPayload):
            if typed.prompt.lstrip().startswith(TASK_NOTIFICATION_TAG):
                return HookEvent(EventKind.SKIP, reason="task-notification prompt", **common)
            return HookEvent(EventKind.READ, prompt=typed.prompt, **common)
        if isinstance(typed, StopPayload):
            return HookEvent(EventKind.WRITE, response=typed.last_assistant_message, **common)
        if isinstance(typed, SubagentStopPayload):
            return HookEvent(EventKind.IGNORE, reason="a subagent's stop is not a user turn", **common)
        if isinstance(typed, SessionStartPayload):
            if typed.source == "compact":
                return HookEvent(EventKind.RESET, reason="compaction emptied the live context", **common)
            # startup, resume, clear: a session begins; the worker starts and loads the model
            # now, so the first prompt is answered warm. Nothing is written to the context.
            return HookEvent(EventKind.START, reason=f"session {typed.source}", **common)
        return HookEvent(EventKind.IGNORE, reason=f"{typed.hook_event_name} is not used", **common)

    def render(self, event: HookEvent, recall: Recall) -> str:
        """The stdout for `event`: the recalled context for a READ, else ""."""
        if event.kind is not EventKind.READ:
            return ""
        return render_context(recall.text)
