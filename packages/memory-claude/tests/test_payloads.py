"""The payload models against every payload Claude Code 2.1.332 really sent (fixtures/), and their docs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_claude.payloads import SCHEMAS, CommonPayload, PayloadError, SessionStartPayload, schema_page, validate

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCHEMA_DOC = Path(__file__).resolve().parent.parent / "docs" / "payloads.md"
RECORDED = sorted([*FIXTURES.glob("*.json"), *(FIXTURES / "http").glob("*.json")])


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


def test_every_event_we_use_has_recorded_payloads() -> None:
    recorded_events = {_load(path.relative_to(FIXTURES).as_posix())["hook_event_name"] for path in RECORDED}
    assert set(SCHEMAS) <= recorded_events


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_every_recorded_payload_validates(path: Path) -> None:
    payload = json.loads(path.read_text(encoding="utf-8"))
    assert validate(payload).model_dump(exclude_unset=True) == payload


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_every_key_of_a_typed_event_is_declared_by_its_schema(path: Path) -> None:
    # A recorded key the schema does not know would be accepted unchecked: keep the schema
    # as complete as what the program really sends.
    payload = json.loads(path.read_text(encoding="utf-8"))
    schema = SCHEMAS.get(payload["hook_event_name"])
    if schema is None:
        assert set(CommonPayload.model_fields) & set(payload) >= {"session_id", "hook_event_name"}
        return
    assert set(payload) <= set(schema.model_fields)


def test_unknown_extra_keys_are_tolerated() -> None:
    payload = {**_load("Stop.json"), "a_key_from_a_later_release": {"nested": [1, 2]}}
    assert (validate(payload).model_extra or {})["a_key_from_a_later_release"] == {"nested": [1, 2]}


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("UserPromptSubmit.json", "prompt"),
        ("UserPromptSubmit.json", "session_id"),
        ("Stop.json", "last_assistant_message"),
        ("SessionStart.compact.json", "source"),
        ("SubagentStop.json", "agent_id"),
    ],
)
def test_a_payload_missing_what_its_event_needs_is_refused(name: str, key: str) -> None:
    payload = _load(name)
    del payload[key]
    with pytest.raises(PayloadError, match=key):
        validate(payload)


@pytest.mark.parametrize(
    ("name", "key", "value"),
    [
        ("UserPromptSubmit.json", "prompt", 42),
        ("Stop.json", "stop_hook_active", "no"),
        ("Stop.json", "effort", {"level": 3}),
        ("Stop.background-agent-running.json", "background_tasks", [{"status": "running"}]),
        ("SessionStart.resume.json", "context_tokens", True),
    ],
)
def test_a_known_key_with_the_wrong_json_type_is_refused(name: str, key: str, value: object) -> None:
    payload = {**_load(name), key: value}
    with pytest.raises(PayloadError, match=key):
        validate(payload)


def test_optional_keys_may_be_absent() -> None:
    startup = _load("SessionStart.startup.json")
    assert "prompt_id" not in startup
    typed = validate(startup)
    assert isinstance(typed, SessionStartPayload)
    assert (typed.source, typed.prompt_id) == ("startup", None)


def test_a_payload_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(PayloadError):
        validate([1, 2])  # type: ignore[arg-type]


def test_the_documented_json_schemas_are_the_models() -> None:
    # Regenerate with: python -m memory_claude.payloads > packages/memory-claude/docs/payloads.md
    assert SCHEMA_DOC.read_text(encoding="utf-8") == schema_page()
