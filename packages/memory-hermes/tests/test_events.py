"""A Hermes turn's tool calls, results and injected context ride on its `post_llm_call` WRITE."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memory_core.models import EventKind
from memory_core.retrieval.render import HEADER
from memory_hermes.protocol import parse_call

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _recorded(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return loaded


def _with_tools(call: dict[str, Any], appended: str) -> dict[str, Any]:
    """The recorded turn 2, as if the model had edited a file and run a command before answering."""
    kwargs = call["kwargs"]
    history = [dict(m) for m in kwargs["conversation_history"]]
    answer = history.pop()
    history[-1]["api_content"] = f"{history[-1]['content']}\n\n{appended}"
    history += [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "patch", "arguments": '{"path": "src/cat.py"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "terminal", "arguments": '{"command": "make"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "patched src/cat.py"},
        {"role": "tool", "tool_call_id": "call_2", "name": "terminal", "content": [{"type": "text", "text": "ok"}]},
        answer,
    ]
    return {"hook": call["hook"], "kwargs": {**kwargs, "conversation_history": history}}


def test_the_recorded_turn_carries_the_context_a_plugin_appended() -> None:
    event = parse_call(_recorded("post_llm_call.turn2-resume.json"))
    assert event.kind is EventKind.WRITE
    [injected] = event.events
    assert (injected.kind, injected.name, injected.text) == ("injected", "hook", "NONCE-cb4104c334ac")


def test_tool_calls_and_results_of_this_turn_only_in_order() -> None:
    recorded = _recorded("post_llm_call.turn2-resume.json")
    event = parse_call(_with_tools(recorded, "another plugin's note"))
    turn = recorded["kwargs"]["turn_id"]
    assert [(e.kind, e.name, e.text, e.call_id) for e in event.events] == [
        ("injected", "hook", "another plugin's note", ""),
        ("tool_call", "patch", '{"path": "src/cat.py"}', "call_1"),
        ("tool_call", "terminal", '{"command": "make"}', "call_2"),
        ("tool_result", "patch", "patched src/cat.py", "call_1"),
        ("tool_result", "terminal", "ok", "call_2"),
    ]
    assert event.events[1].event_id == f"{turn}:call_1:call"
    # the same turn captured again names the same events
    assert parse_call(_with_tools(recorded, "another plugin's note")).events == event.events


def test_memorys_own_appended_block_is_no_event() -> None:
    ours = f"{HEADER}\n- [abc123] 2026-11-29: my cat is called Miso"
    event = parse_call(_with_tools(_recorded("post_llm_call.turn2-resume.json"), ours))
    assert [e.kind for e in event.events] == ["tool_call", "tool_call", "tool_result", "tool_result"]


def test_a_turn_without_history_has_no_events() -> None:
    call = _recorded("post_llm_call.turn1.json")
    call["kwargs"].pop("conversation_history", None)
    assert parse_call(call).events == ()
