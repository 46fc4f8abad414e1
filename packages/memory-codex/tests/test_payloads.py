"""The payload schema against every payload Codex 0.171.0 really sent (fixtures/), and its edges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_codex.adapter import CodexHooks
from memory_codex.payloads import SCHEMAS, PayloadError, schema_page, validate
from memory_core.models import EventKind

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SCHEMA_DOC = Path(__file__).resolve().parents[1] / "docs" / "payloads.md"
RECORDED = sorted(FIXTURES.glob("*.json"))


def load(name: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return payload


def test_there_are_recorded_payloads_for_every_event_we_use() -> None:
    events = {json.loads(path.read_text())["hook_event_name"] for path in RECORDED}
    assert {"UserPromptSubmit", "Stop", "SessionStart"} <= events


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_every_recorded_payload_validates_and_parses(path: Path) -> None:
    payload = json.loads(path.read_text(encoding="utf-8"))
    assert validate(payload).model_dump(exclude_unset=True) == payload
    CodexHooks().parse(payload)


@pytest.mark.parametrize(
    ("read", "write"), [("UserPromptSubmit.json", "Stop.json"), ("UserPromptSubmit.resume.json", "Stop.resume.json")]
)
def test_a_turns_prompt_and_answer_pair_by_turn_id(read: str, write: str) -> None:
    adapter = CodexHooks()
    prompt, answer = adapter.parse(load(read)), adapter.parse(load(write))
    assert prompt.kind is EventKind.READ
    assert answer.kind is EventKind.WRITE
    assert prompt.turn_id == answer.turn_id
    assert prompt.session_id == answer.session_id
    assert prompt.prompt == load(read)["prompt"]
    assert answer.response == load(write)["last_assistant_message"]
    assert prompt.cwd == "/home/dev/project"


def test_a_resumed_session_keeps_its_id_and_gets_a_new_turn() -> None:
    adapter = CodexHooks()
    first, second = adapter.parse(load("UserPromptSubmit.json")), adapter.parse(load("UserPromptSubmit.resume.json"))
    assert first.session_id == second.session_id
    assert first.turn_id != second.turn_id


@pytest.mark.parametrize(
    "name",
    [
        "SessionEnd.json",
        "PreToolUse.Bash.json",
        "PostToolUse.mcp.json",
    ],
)
def test_events_memory_does_not_act_on_are_ignored(name: str) -> None:
    event = CodexHooks().parse(load(name))
    assert event.kind is EventKind.IGNORE
    assert event.reason


@pytest.mark.parametrize("name", ["SessionStart.startup.json", "SessionStart.resume.json"])
def test_a_new_or_resumed_session_warms_the_worker(name: str) -> None:
    event = CodexHooks().parse(load(name))
    assert event.kind is EventKind.START
    assert event.session_id


@pytest.mark.parametrize("source", ["compact", "clear"])
def test_a_session_start_after_compaction_or_clear_resets_what_was_injected(source: str) -> None:
    payload = dict(load("SessionStart.resume.json"), source=source)
    event = CodexHooks().parse(payload)
    assert event.kind is EventKind.RESET
    assert event.session_id == payload["session_id"]


def test_unknown_keys_are_kept_not_rejected() -> None:
    payload = dict(load("UserPromptSubmit.json"), some_future_key={"nested": [1, 2]}, effort="high")
    assert (validate(payload).model_extra or {})["some_future_key"] == {"nested": [1, 2]}
    assert CodexHooks().parse(payload).kind is EventKind.READ


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("UserPromptSubmit.json", "prompt"),
        ("UserPromptSubmit.json", "turn_id"),
        ("UserPromptSubmit.json", "session_id"),
        ("Stop.json", "last_assistant_message"),
        ("Stop.json", "turn_id"),
        ("SessionStart.startup.json", "source"),
    ],
)
def test_a_payload_missing_what_its_event_needs_is_refused_naming_the_key(name: str, key: str) -> None:
    payload = load(name)
    del payload[key]
    with pytest.raises(PayloadError, match=key):
        CodexHooks().parse(payload)


@pytest.mark.parametrize(
    ("name", "key", "value"),
    [
        ("UserPromptSubmit.json", "prompt", 42),
        ("UserPromptSubmit.json", "prompt", None),
        ("Stop.json", "stop_hook_active", "no"),
        ("Stop.json", "last_assistant_message", True),
        ("UserPromptSubmit.json", "cwd", ["/tmp"]),
    ],
)
def test_a_key_of_the_wrong_json_type_is_refused(name: str, key: str, value: Any) -> None:
    with pytest.raises(PayloadError, match=key):
        validate(dict(load(name), **{key: value}))


def test_a_payload_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(PayloadError):
        validate(["not", "an", "object"])  # type: ignore[arg-type]


@pytest.mark.parametrize("text", [None, "", "   \n"])
def test_a_turn_that_ended_with_no_text_stores_nothing(text: str | None) -> None:
    event = CodexHooks().parse(dict(load("Stop.json"), last_assistant_message=text))
    assert event.kind is EventKind.IGNORE


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_every_key_of_a_modelled_event_is_declared_by_its_model(path: Path) -> None:
    # A recorded key the model does not know would be accepted unchecked: keep the models as
    # complete as what Codex really sends for the events memory acts on.
    payload = json.loads(path.read_text(encoding="utf-8"))
    model = SCHEMAS.get(payload["hook_event_name"])
    if model is not None:
        assert set(payload) <= set(model.model_fields)


def test_the_documented_json_schemas_are_the_models() -> None:
    # Regenerate with: python -m memory_codex.payloads > packages/memory-codex/docs/payloads.md
    assert SCHEMA_DOC.read_text(encoding="utf-8") == schema_page()
