"""Parsing the recorded Hermes 0.19.0 calls, and rendering what `pre_llm_call` returns."""

from __future__ import annotations

from typing import Any

import pytest
from memory_core.models import EventKind, Recall
from memory_hermes.harness import HermesHarness
from memory_hermes.protocol import hook_return, parse_call

from .support import recorded


def _call(name: str) -> dict[str, Any]:
    data = recorded(name)
    return {"hook": data["hook"], "kwargs": data["kwargs"]}


def test_a_turns_read_and_write_pair_by_hermes_turn_id() -> None:
    read = parse_call(recorded("pre_llm_call.turn1.json"))  # the recording's extra keys are ignored
    write = parse_call(recorded("post_llm_call.turn1.json"))
    assert read.kind is EventKind.READ
    assert read.prompt == "Hello from turn one. Please remember that my cat is called Miso."
    assert write.kind is EventKind.WRITE
    assert write.prompt == read.prompt
    assert write.response == "MOCK-REPLY #7: nonce seen in messages[1].role=user x1"
    assert read.turn_id == write.turn_id == "20261130_045310_c2d578:8e713b7c-78c1-45bb-a9a7-5bf7b92a1602:9360d21e"
    assert read.session_id == write.session_id == "20261130_045310_c2d578"
    assert read.cwd is None  # Hermes sends none
    assert write.cwd is None


def test_a_resumed_turn_reads_only_the_new_prompt_not_the_replayed_context() -> None:
    event = parse_call(recorded("pre_llm_call.turn2-resume.json"))
    assert event.prompt == "Second turn: what is my cat called?"
    assert "NONCE" not in (event.prompt or "")


@pytest.mark.parametrize("name", ["on_session_start.turn1.json", "on_session_end.turn1.json"])
def test_hooks_we_do_not_use_are_ignored(name: str) -> None:
    assert parse_call(recorded(name)).kind is EventKind.IGNORE


def test_a_subagents_turns_are_neither_recalled_nor_captured() -> None:
    for name in ("pre_llm_call.turn1.json", "post_llm_call.turn1.json"):
        call = _call(name)
        call["kwargs"] = {**call["kwargs"], "platform": "subagent"}
        assert parse_call(call).kind is EventKind.IGNORE


def test_blank_prompts_and_answers_are_ignored() -> None:
    read, write = _call("pre_llm_call.turn1.json"), _call("post_llm_call.turn1.json")
    read["kwargs"] = {**read["kwargs"], "user_message": "   "}
    write["kwargs"] = {**write["kwargs"], "assistant_response": ""}
    assert parse_call(read).kind is EventKind.IGNORE
    assert parse_call(write).kind is EventKind.IGNORE


def test_a_multimodal_message_contributes_its_text_parts() -> None:
    call = _call("pre_llm_call.turn1.json")
    call["kwargs"] = {
        **call["kwargs"],
        "user_message": [{"type": "text", "text": "what is in this picture?"}, {"type": "image_url", "image_url": {}}],
    }
    assert parse_call(call).prompt == "what is in this picture?"


@pytest.mark.parametrize(
    "payload", [{}, {"hook": "pre_llm_call"}, {"hook": "pre_llm_call", "kwargs": {"user_message": "hi"}}]
)
def test_a_payload_without_what_the_event_needs_is_refused(payload: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"Hermes|session_id"):
        parse_call(payload)


def test_context_is_returned_as_hermes_reads_it_and_nothing_when_empty() -> None:
    harness = HermesHarness()
    read = harness.parse(_call("pre_llm_call.turn1.json"))
    write = harness.parse(_call("post_llm_call.turn1.json"))
    recall = Recall("Relevant memories:\n- my cat is called Miso")
    assert hook_return(harness.render(read, recall)) == {"context": "Relevant memories:\n- my cat is called Miso"}
    assert harness.render(read, Recall("")) == ""
    assert hook_return("") is None
    assert harness.render(write, recall) == ""


def test_the_bench_pair_is_the_recorded_first_turn() -> None:
    read, write = HermesHarness().bench_payloads()
    assert parse_call(read).kind is EventKind.READ
    assert parse_call(write).kind is EventKind.WRITE
    assert HermesHarness().hook_argv() is None
