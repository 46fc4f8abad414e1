"""The hook payloads Claude Code sends on stdin, as typed dictionaries, and their validation.

Claude Code 2.1.332 sends one JSON object per hook call (recorded in `fixtures/`). We type the
five events we act on or deliberately ignore: `UserPromptSubmit`, `Stop`, `SubagentStop`,
`SessionStart` and `SessionEnd`. Every other event validates against the common keys only.

`validate(payload)` checks that the keys an event needs are present with the right JSON
types and returns the payload typed; keys we do not know are kept and never rejected, since
each Claude Code release adds some. Failure: `PayloadError` (a `ValueError`) naming the key.

Plain `typing` only (no pydantic): this module is on the hook path. It deliberately does not
use `from __future__ import annotations`, because Python 3.11 computes a TypedDict's required
keys from its evaluated annotations.
"""

import types
import typing
from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

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
    "HookPayload",
    "SCHEMAS",
    "validate",
]


class PayloadError(ValueError):
    """A payload lacks a key its event needs, or a key has the wrong JSON type."""


class CommonPayload(TypedDict):
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
    transcript_path: NotRequired[str]
    cwd: NotRequired[str]
    prompt_id: NotRequired[str]
    permission_mode: NotRequired[str]


class Effort(TypedDict):
    """The reasoning effort of the turn."""

    level: str


class BackgroundTask(TypedDict):
    """A subagent or shell still running in the background when the turn stopped."""

    id: str
    type: NotRequired[str]
    status: NotRequired[str]
    description: NotRequired[str]
    agent_type: NotRequired[str]


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
    stop_hook_active: NotRequired[bool]
    effort: NotRequired[Effort]
    background_tasks: NotRequired[list[BackgroundTask]]
    session_crons: NotRequired[list[Any]]


class SubagentStopPayload(CommonPayload):
    """A subagent finished. It carries its parent's `prompt_id`; `/compact` fires some too."""

    agent_id: str
    agent_type: NotRequired[str]
    agent_transcript_path: NotRequired[str]
    last_assistant_message: NotRequired[str]
    stop_hook_active: NotRequired[bool]
    effort: NotRequired[Effort]
    background_tasks: NotRequired[list[BackgroundTask]]
    session_crons: NotRequired[list[Any]]


class SessionStartPayload(CommonPayload):
    """A session started: `source` is `startup`, `resume`, `clear` or `compact`."""

    source: str
    model: NotRequired[str]
    seconds_since_last_response: NotRequired[float]
    context_tokens: NotRequired[int]
    prompt_cache_likely_expired: NotRequired[bool]
    estimated_cache_write_usd: NotRequired[float]


class SessionEndPayload(CommonPayload):
    """A session ended; `reason` is `clear`, `logout`, `prompt_input_exit`, `other`, ..."""

    reason: NotRequired[str]


HookPayload = (
    UserPromptSubmitPayload
    | StopPayload
    | SubagentStopPayload
    | SessionStartPayload
    | SessionEndPayload
    | CommonPayload
)

SCHEMAS: dict[str, type[Any]] = {
    "UserPromptSubmit": UserPromptSubmitPayload,
    "Stop": StopPayload,
    "SubagentStop": SubagentStopPayload,
    "SessionStart": SessionStartPayload,
    "SessionEnd": SessionEndPayload,
}
"""The typed events by `hook_event_name`; any other event validates as `CommonPayload`."""


def validate(payload: Mapping[str, Any]) -> HookPayload:
    """Check `payload` against the schema of its `hook_event_name` and return it typed.

    Raises:
        PayloadError: The payload is not an object, or misses a key its event needs, or a
            known key holds the wrong JSON type. Unknown keys are never an error.
    """
    if not isinstance(payload, Mapping):
        raise PayloadError(f"a hook payload is a JSON object, not {type(payload).__name__}")
    event = payload.get("hook_event_name")
    schema = SCHEMAS.get(event, CommonPayload) if isinstance(event, str) else CommonPayload
    _check_typed_dict(payload, schema, where="")
    return typing.cast(HookPayload, payload)


def _check_typed_dict(value: Mapping[str, Any], schema: type[Any], *, where: str) -> None:
    for key in schema.__required_keys__:
        if key not in value:
            raise PayloadError(f"{schema.__name__} needs {where}{key!r}")
    for key, annotation in schema.__annotations__.items():
        if key in value:
            _check(value[key], annotation, where=f"{where}{key}")


def _check(value: Any, annotation: Any, *, where: str) -> None:
    origin = typing.get_origin(annotation)
    if origin is NotRequired:
        _check(value, typing.get_args(annotation)[0], where=where)
        return
    if annotation is Any:
        return
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(annotation):
            try:
                _check(value, option, where=where)
            except PayloadError:
                continue
            return
        raise PayloadError(f"{where} has an unexpected type {type(value).__name__}")
    if origin is list:
        if not isinstance(value, list):
            raise PayloadError(f"{where} should be a list, not {type(value).__name__}")
        (item,) = typing.get_args(annotation)
        for index, element in enumerate(value):
            _check(element, item, where=f"{where}[{index}]")
        return
    if typing.is_typeddict(annotation):
        if not isinstance(value, Mapping):
            raise PayloadError(f"{where} should be an object, not {type(value).__name__}")
        _check_typed_dict(value, annotation, where=f"{where}.")
        return
    if not _is_json_instance(value, annotation):
        raise PayloadError(f"{where} should be {annotation.__name__}, not {type(value).__name__}")


def _is_json_instance(value: Any, kind: type[Any]) -> bool:
    if value is None:
        return kind is type(None)
    if kind is float:
        # JSON has one number type: 41 is a fine float, True is not.
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)
