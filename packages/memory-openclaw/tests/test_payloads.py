"""The payload models against every payload OpenClaw 2026.9.6 and the plugin really sent, and their docs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memory_core.installing import load_fixtures
from memory_openclaw.payloads import SCHEMAS, HookPayload, PayloadError, schema_page, validate

RECORDED = load_fixtures("memory_openclaw")
SCHEMA_DOC = Path(__file__).resolve().parents[1] / "docs" / "payloads.md"


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_every_recorded_payload_validates_against_its_hooks_model(name: str) -> None:
    recorded = RECORDED[name]
    typed = validate(recorded)
    assert typed.model_dump(exclude_unset=True) == recorded
    assert isinstance(typed, SCHEMAS.get(recorded["hook"], HookPayload))


@pytest.mark.parametrize(
    ("name", "where", "value", "key"),
    [
        ("plugin/turn1.before_prompt_build.json", "event", {"prompt": 42}, "prompt"),
        ("plugin/turn1.before_prompt_build.json", "ctx", {"sessionId": ["s"]}, "sessionId"),
        ("plugin/turn2.llm_output.json", "event", {"assistantTexts": "one"}, "assistantTexts"),
        ("plugin/turn1.agent_end.json", "event", {"messages": [{"content": "hi"}]}, "role"),
        ("plugin/turn1.agent_end.json", "prompt", 7, "prompt"),
    ],
)
def test_a_mistyped_key_is_refused_naming_it(name: str, where: str, value: Any, key: str) -> None:
    with pytest.raises(PayloadError, match=key):
        validate({**RECORDED[name], where: value})


def test_the_documented_json_schemas_are_the_models() -> None:
    # Regenerate with: python -m memory_openclaw.payloads > packages/memory-openclaw/docs/payloads.md
    assert SCHEMA_DOC.read_text(encoding="utf-8") == schema_page()
