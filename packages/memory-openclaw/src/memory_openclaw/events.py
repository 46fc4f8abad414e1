"""What the agent did in an OpenClaw run, from the messages its `agent_end` event carries.

OpenClaw keeps no transcript memory reads; `agent_end.messages` holds the session's messages
(pi's shape), and the plugin forwards the run's part of them: its user message and everything
after it. The events, in order:

- `tool_call`: each `toolCall` block of an assistant message (its `name`, its `arguments` as
  JSON text, its `id`).
- `tool_result`: each `role: "toolResult"` message (its `toolCallId`, `toolName` and text
  content), passed whole: the core caps it.

Injected text is not among them: what `before_prompt_build` appends (memory's own block, and any
other plugin's) is not kept in OpenClaw's messages. Events are named by the run id and the call
id (`<runId>:<call id>:call`), so the same run captured twice names the same events. Failure:
none; anything malformed is passed over.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from memory_core.harnesses.transcripts import block_text
from memory_core.models import TimelineEvent

__all__ = ["run_events"]


def run_events(messages: object, run_id: str) -> tuple[TimelineEvent, ...]:
    """The events of the run whose messages are `messages` (from its user message on)."""
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        return ()
    found = [m for m in messages if isinstance(m, Mapping)]
    starts = [i for i, m in enumerate(found) if m.get("role") == "user"]
    events: list[TimelineEvent] = []
    names: dict[str, str] = {}
    for position, message in enumerate(found[starts[-1] + 1 if starts else 0 :]):
        at = _at(message)
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, Mapping) and block.get("type") == "toolCall":
                    call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
                    names[call_id] = name
                    arguments = block.get("arguments")
                    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
                    events.append(TimelineEvent("tool_call", f"{run_id}:{call_id}:call", text, name, call_id, at))
        elif message.get("role") == "toolResult":
            call_id = str(message.get("toolCallId") or f"#{position}")
            name = str(message.get("toolName") or names.get(call_id, ""))
            text = block_text(message.get("content"))
            events.append(TimelineEvent("tool_result", f"{run_id}:{call_id}:result", text, name, call_id, at))
    return tuple(events)


def _at(message: Mapping[str, object]) -> float:
    """When a message was made: pi stamps them in epoch milliseconds."""
    stamp = message.get("timestamp")
    return float(stamp) / 1000.0 if isinstance(stamp, int | float) and not isinstance(stamp, bool) else 0.0
