"""The hook payloads Claude Code sends on stdin, as pydantic models: the one parser of them.

Claude Code 2.1.332 sends one JSON object per hook call (recorded in `fixtures/`). We model the
five events we act on or deliberately ignore: `UserPromptSubmit`, `Stop`, `SubagentStop`,
`SessionStart` and `SessionEnd`. Every other event validates against the common keys only.
The JSON Schema of each is in `packages/memory-claude/docs/payloads.md` (generated from these
models by `python -m memory_claude.payloads`; a test keeps it current).

`validate(payload)` checks that the keys an event needs are present with the right JSON types
and returns the typed payload; keys we do not know are kept and never rejected, since each
Claude Code release adds some. An optional key may be absent or null. The rules are memory-core's
(`memory_core.harnesses.payloads`). Failure: `PayloadError` (a `ValueError`) naming the key.

The warm worker and the in-process path of a cold turn import this module (and pydantic); the
hook client that Claude Code starts on every turn never does.
"""

from __future__ import annotations

import sys
from typing import Any

from memory_core.harnesses import payloads
from memory_core.harnesses.payloads import Payload, PayloadError

__all__ = [
    "PayloadError",
    "CommonPayload",
    "Effort",
    "BackgroundTask",
    "UserPromptSubmitPayload",
    "StopPayload",
    "SubagentStopPayload",
    "SessionStartPayload",
    "SessionEndPayload",
    "SCHEMAS",
    "validate",
    "schema_page",
]


class CommonPayload(Payload):
    """Keys every Claude Code hook payload carries.

    Attributes:
        session_id: The session; unchanged by `--resume` and `--continue`.
        hook_event_name: Which hook fired.
        transcript_path: The session's JSONL transcript (it may not exist yet).
        cwd: The working directory of the session.
        prompt_id: The id of the user prompt the event belongs to; pairs a turn's
            `UserPromptSubmit` and `Stop`. Absent on `SessionStart` of a new session.
        permission_mode: `default`, `plan`, `acceptEdits`, ...
    """

    session_id: str
    hook_event_name: str
    transcript_path: str | None = None
    cwd: str | None = None
    prompt_id: str | None = None
    permission_mode: str | None = None


class Effort(Payload):
    """The reasoning effort of the turn."""

    level: str


class BackgroundTask(Payload):
    """A subagent or shell still running in the background when the turn stopped."""

    id: str
    type: str | None = None
    status: str | None = None
    description: str | None = None
    agent_type: str | None = None


class UserPromptSubmitPayload(CommonPayload):
    """The user submitted a prompt (or a background subagent's `<task-notification>` arrived)."""

    prompt: str


class StopPayload(CommonPayload):
    """The main agent finished its turn.

    Attributes:
        last_assistant_message: The final assistant text of the turn.
        stop_hook_active: True when this stop follows a stop hook that made the turn go on.
    """

    last_assistant_message: str
    stop_hook_active: bool | None = None
    effort: Effort | None = None
    background_tasks: list[BackgroundTask] | None = None
    session_crons: list[Any] | None = None


class SubagentStopPayload(CommonPayload):
    """A subagent finished. It carries its parent's `prompt_id`; `/compact` fires some too."""

    agent_id: str
    agent_type: str | None = None
    agent_transcript_path: str | None = None
    last_assistant_message: str | None = None
    stop_hook_active: bool | None = None
    effort: Effort | None = None
    background_tasks: list[BackgroundTask] | None = None
    session_crons: list[Any] | None = None


class SessionStartPayload(CommonPayload):
    """A session started: `source` is `startup`, `resume`, `clear` or `compact`."""

    source: str
    model: str | None = None
    seconds_since_last_response: float | None = None
    context_tokens: int | None = None
    prompt_cache_likely_expired: bool | None = None
    estimated_cache_write_usd: float | None = None


class SessionEndPayload(CommonPayload):
    """A session ended; `reason` is `clear`, `logout`, `prompt_input_exit`, `other`, ..."""

    reason: str | None = None


SCHEMAS: dict[str, type[CommonPayload]] = {
    "UserPromptSubmit": UserPromptSubmitPayload,
    "Stop": StopPayload,
    "SubagentStop": SubagentStopPayload,
    "SessionStart": SessionStartPayload,
    "SessionEnd": SessionEndPayload,
}
"""The modelled events by `hook_event_name`; any other event validates as `CommonPayload`."""


def validate(payload: Any) -> CommonPayload:
    """Check `payload` against the model of its `hook_event_name` and return it typed.

    Raises:
        PayloadError: The payload is not an object, or misses a key its event needs, or a
            known key holds the wrong JSON type. Unknown keys are never an error.
    """
    return payloads.validate(payload, SCHEMAS, CommonPayload, key="hook_event_name", harness="Claude Code")


def schema_page() -> str:
    """The Markdown page of every event's JSON Schema (`docs/payloads.md` of this package)."""
    return payloads.schema_document(
        "Claude Code hook payloads",
        "What Claude Code 2.1.332 sends on a hook's stdin, as memory-claude validates it. Generated from "
        "`memory_claude.payloads` by `python -m memory_claude.payloads`; do not edit by hand. Keys not "
        "listed are kept and never refused.",
        SCHEMAS,
        CommonPayload,
    )


if __name__ == "__main__":
    sys.stdout.write(schema_page())
