"""The hook adapter: a Codex payload in, the exact stdout Codex expects out.

`CodexHooks.parse` turns a validated payload into a `HookEvent`: `UserPromptSubmit` reads,
`Stop` writes (paired with its prompt by `turn_id`), `SessionStart` after a compaction or a
`/clear` resets the session's injected set, and on `startup` or `resume` starts (warms the worker
and its embedding model, writing nothing), everything else is ignored. `render` builds the
one JSON object Codex reads, or "" when there is nothing to inject: Codex treats stdout that
starts with `{` but fails to parse as a hook failure, so we never print a partial object.

The injected block stays under Codex's documented 2,500-token `additionalContext` limit
whatever `MEMORY_MAX_TOKENS` says: `max_context_tokens` caps the core's budget (the hook
runner honours it), and `render` cuts any block longer than `_MAX_CONTEXT_CHARS` at a line
boundary as a last guard against a token estimate that runs low.

Failure: `parse` raises `PayloadError` (a `ValueError`) for a payload that lacks what its
event needs; the hook runner logs it and prints nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memory_core.models import EventKind, HookEvent, Recall

from memory_codex.payloads import SessionStartPayload, StopPayload, UserPromptSubmitPayload, validate

__all__ = ["CodexHooks", "CODEX_CONTEXT_LIMIT_TOKENS", "MAX_CONTEXT_TOKENS"]

CODEX_CONTEXT_LIMIT_TOKENS = 2_500
"""Codex's documented `additionalContext` limit (`hooks/list` calls it the spill threshold)."""

MAX_CONTEXT_TOKENS = 2_000
"""The budget we give the core: a fifth below Codex's limit, because the core estimates tokens
and Codex counts them with the model's tokenizer."""

_MAX_CONTEXT_CHARS = 6_000
"""Hard cap on the injected text: 2,500 tokens even at 2.4 characters a token, denser than
code or prose tokenizes."""

_RESET_SOURCES = frozenset({"compact", "clear"})
"""`SessionStart` sources after which the model's live context no longer holds what we injected."""


class CodexHooks:
    """Parse Codex hook payloads and render the `UserPromptSubmit` response."""

    name = "codex"
    max_context_tokens: int = MAX_CONTEXT_TOKENS

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        """Normalise one payload. Raises `PayloadError` when it lacks what its event needs."""
        typed = validate(payload)
        base: dict[str, Any] = {
            "harness": self.name,
            "session_id": typed.session_id,
            "cwd": typed.cwd or None,
            "transcript_path": typed.transcript_path or None,
        }
        if isinstance(typed, UserPromptSubmitPayload):
            return HookEvent(EventKind.READ, turn_id=typed.turn_id, prompt=typed.prompt, **base)
        if isinstance(typed, StopPayload):
            response = typed.last_assistant_message
            if not response or not response.strip():
                return HookEvent(EventKind.IGNORE, turn_id=typed.turn_id, reason="turn ended with no text", **base)
            return HookEvent(EventKind.WRITE, turn_id=typed.turn_id, response=response, **base)
        if isinstance(typed, SessionStartPayload):
            if typed.source in _RESET_SOURCES:
                return HookEvent(EventKind.RESET, reason=f"session start after {typed.source}", **base)
            # startup, resume: the worker starts and loads the model now, for a warm first prompt.
            return HookEvent(EventKind.START, reason=f"session {typed.source}", **base)
        return HookEvent(EventKind.IGNORE, reason=f"{typed.hook_event_name} is not an event memory acts on", **base)

    def render(self, event: HookEvent, recall: Recall) -> str:
        """The exact stdout for `event`: one JSON object carrying the recall, or "" for nothing."""
        text = _capped(recall.text)
        if event.kind is not EventKind.READ or not text.strip():
            return ""
        output = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
        # ASCII escapes keep the bytes valid whatever encoding the hook's stdout was given.
        return json.dumps(output, ensure_ascii=True, separators=(",", ":"))


def _capped(text: str) -> str:
    if len(text) <= _MAX_CONTEXT_CHARS:
        return text
    cut = text.rfind("\n", 0, _MAX_CONTEXT_CHARS)
    return text[: cut if cut > 0 else _MAX_CONTEXT_CHARS].rstrip()
