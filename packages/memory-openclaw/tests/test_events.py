"""An OpenClaw run's tool calls and results ride on its `agent_end` WRITE."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memory_core.models import EventKind
from memory_openclaw.adapter import OpenClawHooks

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _agent_end_with_tools() -> dict[str, Any]:
    """The recorded turn 1 `agent_end`, as if the model had edited a file and run a command (pi's shapes)."""
    payload: dict[str, Any] = json.loads((FIXTURES / "plugin" / "turn1.agent_end.json").read_text())
    user, answer = payload["event"]["messages"]
    payload["event"]["messages"] = [
        {"role": "user", "content": "an earlier turn"},
        {"role": "toolResult", "toolCallId": "old", "toolName": "exec", "content": [{"type": "text", "text": "old"}]},
        user,
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "toolCall", "id": "call_1", "name": "edit", "arguments": {"path": "src/cat.ts"}},
                {"type": "toolCall", "id": "call_2", "name": "exec", "arguments": {"command": "npm test"}},
            ],
            "timestamp": 1796014864000,
        },
        {
            "role": "toolResult",
            "toolCallId": "call_1",
            "toolName": "edit",
            "content": [{"type": "text", "text": "edited"}],
        },
        {"role": "toolResult", "toolCallId": "call_2", "toolName": "exec", "content": "1 passing", "isError": False},
        answer,
    ]
    return payload


def test_the_runs_tool_calls_and_results_in_order() -> None:
    payload = _agent_end_with_tools()
    event = OpenClawHooks().parse(payload)
    assert event.kind is EventKind.WRITE
    run = payload["ctx"]["runId"]
    assert [(e.kind, e.name, e.text, e.call_id) for e in event.events] == [
        ("tool_call", "edit", '{"path": "src/cat.ts"}', "call_1"),
        ("tool_call", "exec", '{"command": "npm test"}', "call_2"),
        ("tool_result", "edit", "edited", "call_1"),
        ("tool_result", "exec", "1 passing", "call_2"),
    ]
    assert event.events[0].event_id == f"{run}:call_1:call"
    assert event.events[0].at == 1796014864.0


def test_llm_output_and_a_plain_turn_carry_no_events() -> None:
    for name in ("turn2.llm_output.json", "turn1.agent_end.json"):
        payload = json.loads((FIXTURES / "plugin" / name).read_text())
        event = OpenClawHooks().parse(payload)
        assert event.kind is EventKind.WRITE
        assert event.events == ()
