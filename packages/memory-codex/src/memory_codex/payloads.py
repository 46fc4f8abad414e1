"""The hook payloads Codex sends on stdin, as typed dictionaries, and their validation.

Codex 0.171.0 sends one JSON object per hook call (recorded in `fixtures/`). We type the
events we act on: `UserPromptSubmit` (recall), `Stop` (capture) and `SessionStart` (a
compaction or `/clear` empties the live context). `turn_id` pairs a turn's `UserPromptSubmit`
and `Stop`; `SessionStart` carries none. Any other event validates against the common keys.

`validate(payload)` checks that the keys an event needs are present with the right JSON types
and returns the payload typed. Keys we do not know are kept and never rejected, since each
Codex release adds some. Failure: `PayloadError` (a `ValueError`) naming the key.

Plain `typing` only (no pydantic): this module is on the hook path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict, cast

__all__ = [
    "PayloadError",
    "CommonPayload",
    "UserPromptSubmitPayload",
    "StopPayload",
    "SessionStartPayload",
    "HookPayload",
    "validate",
]


class PayloadError(ValueError):
    """A payload lacks a key its event needs, or a key holds the wrong JSON type."""


class CommonPayload(TypedDict):
    """Keys every Codex hook payload carries.

    Attributes:
        session_id: The thread; unchanged by `codex exec resume`.
        hook_event_name: Which hook fired.
        transcript_path: The session's rollout file (`$CODEX_HOME/sessions/...jsonl`).
        cwd: The working directory of the session.
        model: The model the session uses (absent on `SessionEnd`).
        permission_mode: `bypassPermissions` in every recorded `exec` run.
    """

    session_id: str
    hook_event_name: str
    transcript_path: NotRequired[str | None]
    cwd: NotRequired[str]
    model: NotRequired[str]
    permission_mode: NotRequired[str]


class UserPromptSubmitPayload(CommonPayload):
    """The user submitted a prompt.

    Attributes:
        turn_id: The turn; the same value arrives on the turn's `Stop`.
        prompt: The user's words.
    """

    turn_id: str
    prompt: str


class StopPayload(CommonPayload):
    """The agent finished its turn.

    Attributes:
        turn_id: The turn; the same value arrived on the turn's `UserPromptSubmit`.
        last_assistant_message: The final assistant text (null when the turn produced none).
        stop_hook_active: True when this stop follows a stop hook that made the turn go on.
    """

    turn_id: str
    last_assistant_message: str | None
    stop_hook_active: NotRequired[bool]


class SessionStartPayload(CommonPayload):
    """A session started; `source` is `startup` or `resume` (recorded), `clear` or `compact`."""

    source: str


HookPayload = UserPromptSubmitPayload | StopPayload | SessionStartPayload | CommonPayload

_Kinds = tuple[type, ...]
_STR: _Kinds = (str,)
_OPTIONAL_STR: _Kinds = (str, type(None))
_BOOL: _Kinds = (bool,)

_COMMON_REQUIRED: dict[str, _Kinds] = {"session_id": _STR, "hook_event_name": _STR}
_COMMON_OPTIONAL: dict[str, _Kinds] = {
    "transcript_path": _OPTIONAL_STR,
    "cwd": _STR,
    "model": _STR,
    "permission_mode": _STR,
}
_REQUIRED: dict[str, dict[str, _Kinds]] = {
    "UserPromptSubmit": {"turn_id": _STR, "prompt": _STR},
    "Stop": {"turn_id": _STR, "last_assistant_message": _OPTIONAL_STR},
    "SessionStart": {"source": _STR},
}
_OPTIONAL: dict[str, dict[str, _Kinds]] = {"Stop": {"stop_hook_active": _BOOL}}


def validate(payload: Mapping[str, Any]) -> HookPayload:
    """Check `payload` against the schema of its `hook_event_name` and return it typed.

    Raises:
        PayloadError: The payload is not an object, misses a key its event needs, or a known
            key holds the wrong JSON type. Unknown keys are never an error.
    """
    if not isinstance(payload, Mapping):
        raise PayloadError(f"a hook payload is a JSON object, not {type(payload).__name__}")
    _check(payload, _COMMON_REQUIRED, required=True)
    _check(payload, _COMMON_OPTIONAL, required=False)
    event = payload["hook_event_name"]
    _check(payload, _REQUIRED.get(event, {}), required=True, event=event)
    _check(payload, _OPTIONAL.get(event, {}), required=False, event=event)
    return cast(HookPayload, payload)


def _check(payload: Mapping[str, Any], keys: dict[str, _Kinds], *, required: bool, event: str = "") -> None:
    for key, kinds in keys.items():
        if key not in payload:
            if required:
                raise PayloadError(f"a Codex {event or 'hook'} payload needs {key!r}")
            continue
        value = payload[key]
        # JSON true/false must not pass for a string or a number; bool is only accepted where asked.
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join("null" if kind is type(None) else kind.__name__ for kind in kinds)
            raise PayloadError(f"{key!r} should be {names}, not {type(value).__name__}")
