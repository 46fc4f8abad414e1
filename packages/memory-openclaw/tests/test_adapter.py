"""The adapter against the payloads recorded from OpenClaw 2026.9.6 and the ones the plugin sends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_core.models import EventKind, Hit, Recall, Record, Scope
from memory_openclaw.adapter import OpenClawHooks

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDED = sorted(p.name for p in (FIXTURES / "openclaw").glob("*.json"))
RUN_1 = "b03cf062-7e8e-41da-b098-3faf044b9a0f"
SESSION = "de8ae5ba-f0aa-4148-aa4f-044ba64638df"


@pytest.fixture
def adapter() -> OpenClawHooks:
    return OpenClawHooks()


@pytest.mark.parametrize("name", RECORDED)
def test_every_recorded_payload_parses_into_the_turn_it_belongs_to(adapter: OpenClawHooks, name: str) -> None:
    payload = json.loads((FIXTURES / "openclaw" / name).read_text(encoding="utf-8"))
    event = adapter.parse(payload)
    assert event.kind is (EventKind.READ if payload["hook"] == "before_prompt_build" else EventKind.WRITE)
    assert event.turn_id == payload["ctx"]["runId"]
    assert event.session_id == payload["ctx"]["sessionId"]
    assert event.cwd == payload["ctx"]["workspaceDir"]


def test_the_prompt_is_the_users_clean_text(adapter: OpenClawHooks, recorded: Any) -> None:
    event = adapter.parse(recorded("openclaw/turn1-04-before_prompt_build.json"))
    assert event.prompt == "Hello from turn one. Please remember that my cat is called Miso."
    assert event.turn_id == RUN_1
    assert event.cwd == "/home/dev/.openclaw/workspace"


def test_llm_output_and_agent_end_of_one_turn_are_the_same_capture(adapter: OpenClawHooks, recorded: Any) -> None:
    # Both carry the answer; the plugin sends the first and the record id (harness, session,
    # run) makes a repeat the same record, so they must agree on every identifier and the text.
    for turn in ("turn1", "turn2"):
        llm = adapter.parse(recorded(f"openclaw/{turn}-13-llm_output.json"))
        end = adapter.parse(recorded(f"openclaw/{turn}-12-agent_end.json"))
        assert (llm.session_id, llm.turn_id, llm.response) == (end.session_id, end.turn_id, end.response)
        assert (llm.response or "").startswith("MOCK-REPLY #")


def test_agent_end_takes_this_turns_messages_from_the_whole_session(adapter: OpenClawHooks, recorded: Any) -> None:
    # agent_end.messages holds turn 1 and turn 2; the turn is the last user and assistant message.
    event = adapter.parse(recorded("openclaw/turn2-12-agent_end.json"))
    assert event.prompt == "Second turn: what is my cat called?"
    assert event.response == "MOCK-REPLY #2: nonce seen in messages[3].role=user x1"


def test_the_plugin_capture_carries_the_prompt_it_saw_before_the_turn(adapter: OpenClawHooks, recorded: Any) -> None:
    # llm_output has no prompt of its own: the plugin adds the one before_prompt_build saw.
    event = adapter.parse(recorded("plugin/turn2.llm_output.json"))
    assert event.kind is EventKind.WRITE
    assert event.prompt == "Second turn: what is my cat called?"
    assert event.response == "MOCK-REPLY #2: nonce seen in messages[3].role=user x1"


def test_recorded_llm_output_alone_leaves_the_prompt_to_the_core_handoff(adapter: OpenClawHooks, recorded: Any) -> None:
    event = adapter.parse(recorded("openclaw/turn1-13-llm_output.json"))
    assert event.prompt is None
    assert event.turn_id == RUN_1


def test_the_final_text_wins_over_text_said_before_a_tool_call(adapter: OpenClawHooks, recorded: Any) -> None:
    payload = recorded("openclaw/turn1-13-llm_output.json")
    payload["event"]["assistantTexts"] = ["Let me look at the file.", "The port is 6543."]
    payload["event"]["lastAssistant"]["content"] = [
        {"type": "thinking", "thinking": "..."},
        {"type": "text", "text": "The port is 6543."},
    ]
    assert adapter.parse(payload).response == "The port is 6543."


@pytest.mark.parametrize("trigger", ["heartbeat", "memory"])
def test_runs_openclaw_starts_on_its_own_are_ignored(adapter: OpenClawHooks, recorded: Any, trigger: str) -> None:
    for name in ("plugin/turn1.before_prompt_build.json", "plugin/turn1.agent_end.json"):
        payload = recorded(name)
        payload["ctx"]["trigger"] = trigger
        assert adapter.parse(payload).kind is EventKind.IGNORE


def test_a_failed_run_or_an_empty_answer_is_not_captured(adapter: OpenClawHooks, recorded: Any) -> None:
    failed = recorded("plugin/turn1.agent_end.json")
    failed["event"]["success"] = False
    assert adapter.parse(failed).kind is EventKind.IGNORE
    empty = recorded("plugin/turn2.llm_output.json")
    empty["event"]["assistantTexts"] = []
    empty["event"]["lastAssistant"]["content"] = []
    assert adapter.parse(empty).kind is EventKind.IGNORE


def test_compaction_resets_the_session(adapter: OpenClawHooks) -> None:
    event = adapter.parse({"hook": "after_compaction", "event": {}, "ctx": {"sessionId": SESSION}})
    assert event.kind is EventKind.RESET
    assert event.session_id == SESSION


def test_a_payload_without_what_its_event_needs_is_an_error(adapter: OpenClawHooks, recorded: Any) -> None:
    with pytest.raises(ValueError, match="hook"):
        adapter.parse({"event": {}})
    no_run = recorded("plugin/turn1.agent_end.json")
    del no_run["ctx"]["runId"], no_run["event"]["runId"]
    with pytest.raises(ValueError, match="runId"):
        adapter.parse(no_run)


def test_hooks_we_do_not_use_are_ignored(adapter: OpenClawHooks) -> None:
    assert adapter.parse({"hook": "model_call_started", "ctx": {"sessionId": SESSION}}).kind is EventKind.IGNORE


def _recall(text: str) -> Recall:
    record = Record(id="r1", scope=Scope("project", "path:/w"), text="the staging port is 6543")
    return Recall(text=text, hits=(Hit(record=record, score=1.0, excerpt=record.text),))


def test_recall_renders_as_append_context_byte_for_byte(adapter: OpenClawHooks, recorded: Any) -> None:
    event = adapter.parse(recorded("plugin/turn2.before_prompt_build.json"))
    block = "Relevant memories:\n- the staging port is 6543 \u2713"
    first = adapter.render(event, _recall(block))
    assert first == adapter.render(event, _recall(block))
    assert first == '{"appendContext":"Relevant memories:\\n- the staging port is 6543 \\u2713"}'
    assert json.loads(first) == {"appendContext": block}


def test_nothing_to_inject_renders_nothing(adapter: OpenClawHooks, recorded: Any) -> None:
    read = adapter.parse(recorded("plugin/turn2.before_prompt_build.json"))
    write = adapter.parse(recorded("plugin/turn1.agent_end.json"))
    assert adapter.render(read, Recall(text="")) == ""
    assert adapter.render(write, _recall("anything")) == ""
