"""What the agent did in a Hermes turn, from the `conversation_history` `post_llm_call` carries.

Hermes keeps no transcript memory reads; its write hook hands the whole session's messages
(OpenAI chat shape) instead. The turn is the messages from its user message on (the last user
message, which is `user_message`); its events, in order:

- `tool_call`: each `tool_calls` entry of an assistant message (the function's name, its
  `arguments` text as the model sent them, the call id).
- `tool_result`: each `role: "tool"` message (its `tool_call_id`, the call's name, its content),
  passed whole: the core caps it.
- `injected` (`hook`): what a plugin's `pre_llm_call` appended to the user message (Hermes keeps
  it as the message's `api_content` beside the user's own `content`), without memory's own
  recalled block; nothing when that was all of it.

Events are named by the turn id and the call id (`<turn_id>:<call id>:call`), so the same turn
captured twice names the same events. Failure: none; anything malformed is passed over.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from memory_core.harnesses.importing import strip_injected
from memory_core.harnesses.transcripts import block_text
from memory_core.models import TimelineEvent

__all__ = ["turn_events", "message_text"]


message_text = block_text
"""The text of a Hermes message: a string, or the text parts of a multimodal part list."""


def turn_events(history: object, turn_id: str) -> tuple[TimelineEvent, ...]:
    """The events of the turn that ends `history` (see the module docstring); () when there are none."""
    if not isinstance(history, Sequence) or isinstance(history, str | bytes):
        return ()
    messages = [m for m in history if isinstance(m, Mapping)]
    starts = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if not starts:
        return ()
    events: list[TimelineEvent] = []
    names: dict[str, str] = {}
    user = messages[starts[-1]]
    injected = _injected(user)
    if injected:
        events.append(TimelineEvent("injected", f"{turn_id}:context", injected, "hook", at=_at(user)))
    for position, message in enumerate(messages[starts[-1] + 1 :]):
        role = message.get("role")
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                event = _call(call, turn_id, _at(message))
                if event is not None:
                    names[event.call_id] = event.name
                    events.append(event)
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or f"#{position}")
            name = str(message.get("name") or message.get("tool_name") or names.get(call_id, ""))
            text = message_text(message.get("content"))
            events.append(
                TimelineEvent("tool_result", f"{turn_id}:{call_id}:result", text, name, call_id, _at(message))
            )
    return tuple(events)


def _call(call: object, turn_id: str, at: float) -> TimelineEvent | None:
    if not isinstance(call, Mapping):
        return None
    function = call.get("function")
    if not isinstance(function, Mapping):
        return None
    call_id = str(call.get("id") or "")
    arguments = function.get("arguments")
    text = arguments if isinstance(arguments, str) else _json(arguments)
    return TimelineEvent("tool_call", f"{turn_id}:{call_id}:call", text, str(function.get("name") or ""), call_id, at)


def _injected(user: Mapping[str, Any]) -> str:
    """What was appended to the user's words before the model saw them, without memory's own block."""
    own = message_text(user.get("content"))
    sent = message_text(user.get("api_content"))
    if not sent or sent == own:
        return ""
    extra = sent[len(own) :] if sent.startswith(own) else sent
    return strip_injected(extra)


def _at(message: Mapping[str, Any]) -> float:
    stamp = message.get("timestamp")
    return float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else 0.0


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if value is not None else ""
