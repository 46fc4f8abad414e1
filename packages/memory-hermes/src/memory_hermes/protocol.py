"""The Hermes hook protocol: calls parsed into `HookEvent`s, recall rendered into a hook's return.

Hermes calls a plugin's hooks in-process as `callback(**kwargs)`: there is no JSON payload.
The payload this module parses is the envelope the plugin builds, `{"hook": <hook name>,
"kwargs": <the keyword arguments>}`, the same shape as the calls recorded from Hermes 0.19.0
in `fixtures/` (which carry more keys around it, ignored here).

- `pre_llm_call` (once per turn, before the model): READ, with `user_message` as the prompt.
- `post_llm_call` (once per completed turn): WRITE, with `user_message` and
  `assistant_response`; `turn_id` (`<session_id>:<task_id>:<8 hex>`) pairs it with its read.
  Its `events` are the turn's tool calls, results and injected context, read from
  `conversation_history` (`memory_hermes.events`).
- Anything else, a blank prompt or answer, or a `delegate_task` child agent
  (`platform="subagent"`, whose result its parent's turn already carries): IGNORE.

Hermes sends no working directory, so `cwd` stays None: the plugin's service resolves the
project once for the whole process. The envelope is validated by the models of
`memory_hermes.payloads`. Failure: `PayloadError` (a `ValueError`) for an envelope without a
hook name, keyword arguments or session id, or with a mistyped one; unknown extra keys are kept.

Compaction: Hermes compresses a long session in place (same session id) and fires no hook
for it. Its `pre_llm_call` then carries a shorter `conversation_history` than the turn before;
`compacted` reads that as a compaction, which empties the live context (a RESET in the core:
what was injected before may be injected again).

Rendering: `pre_llm_call` returns `{"context": text}`, which Hermes appends to the current
user message (after a blank line) and persists into every later turn of the session. The
text is the core's block as is; "" (then the hook returns None) when nothing is relevant.
Because every later turn pays for it again, the block is capped at `MAX_CONTEXT_TOKENS`
whatever `MEMORY_MAX_TOKENS` says (a lower `MEMORY_MAX_TOKENS` still wins).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_core.models import EventKind, HookEvent, Recall

from memory_hermes.events import message_text, turn_events
from memory_hermes.payloads import PayloadError, PostLLMCall, PreLLMCall, validate

__all__ = [
    "HARNESS",
    "READ_HOOK",
    "WRITE_HOOK",
    "MAX_CONTEXT_TOKENS",
    "parse_call",
    "render_context",
    "hook_return",
    "message_text",
    "history_length",
    "compacted",
    "reset_event",
]

HARNESS = "hermes"
READ_HOOK = "pre_llm_call"
WRITE_HOOK = "post_llm_call"
MAX_CONTEXT_TOKENS = 400
"""The injected block's budget in Hermes: half the core's default, because Hermes replays it
into every later turn of the session (the core never injects a record twice in a session)."""
_UNCAPTURED_PLATFORMS = frozenset({"subagent"})


def parse_call(payload: Mapping[str, Any]) -> HookEvent:
    """Turn one hook call (`{"hook": name, "kwargs": {...}}`) into a normalised event.

    Raises:
        PayloadError: The call does not validate against its hook's model
            (`memory_hermes.payloads`), or carries an empty session id.
    """
    typed = validate(payload)
    if not isinstance(typed, PreLLMCall | PostLLMCall):
        return HookEvent(EventKind.IGNORE, HARNESS, reason=f"{payload['hook']} is not used")
    kwargs = typed.kwargs
    if not kwargs.session_id:
        raise PayloadError(f"{typed.hook} call without a session_id")
    session_id, turn_id = kwargs.session_id, kwargs.turn_id or None
    if kwargs.platform in _UNCAPTURED_PLATFORMS:
        return HookEvent(EventKind.IGNORE, HARNESS, session_id, turn_id, reason="a subagent's turn")
    prompt = message_text(kwargs.user_message)
    if isinstance(typed, PreLLMCall):
        if not prompt.strip():
            return HookEvent(EventKind.IGNORE, HARNESS, session_id, turn_id, reason="an empty prompt")
        return HookEvent(EventKind.READ, HARNESS, session_id, turn_id, prompt=prompt)
    response = message_text(typed.kwargs.assistant_response)
    if not response.strip():
        return HookEvent(EventKind.IGNORE, HARNESS, session_id, turn_id, reason="an empty answer")
    events = turn_events(kwargs.conversation_history, turn_id or "")
    return HookEvent(
        EventKind.WRITE, HARNESS, session_id, turn_id, prompt=prompt or None, response=response, events=events
    )


def render_context(event: HookEvent, recall: Recall) -> str:
    """The text to inject for `event`: the recalled block for a read, "" otherwise."""
    return recall.text if event.kind is EventKind.READ else ""


def hook_return(text: str) -> dict[str, str] | None:
    """What `pre_llm_call` returns to Hermes: `{"context": text}`, or None when there is nothing."""
    return {"context": text} if text else None


def history_length(kwargs: Mapping[str, Any]) -> int | None:
    """How many messages `pre_llm_call`'s `conversation_history` holds, or None when it has none."""
    history = kwargs.get("conversation_history")
    return len(history) if isinstance(history, list) else None


def compacted(previous: int | None, current: int | None) -> bool:
    """Whether a session's history shrank since its last turn in this process (a compaction)."""
    return previous is not None and current is not None and current < previous


def reset_event(event: HookEvent) -> HookEvent:
    """The RESET that forgets what was injected in `event`'s session."""
    return HookEvent(EventKind.RESET, HARNESS, event.session_id, reason="Hermes compacted the session")
