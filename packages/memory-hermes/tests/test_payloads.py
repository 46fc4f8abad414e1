"""The hook-call models against every call Hermes 0.19.0 really made (fixtures/), and their docs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memory_core.installing import load_fixtures
from memory_hermes.payloads import SCHEMAS, PayloadError, PostLLMCall, PreLLMCall, schema_page, validate

RECORDED = load_fixtures("memory_hermes")
SCHEMA_DOC = Path(__file__).resolve().parents[1] / "docs" / "payloads.md"


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_every_recorded_call_validates_against_its_hooks_model(name: str) -> None:
    recorded = RECORDED[name]
    typed = validate(recorded)
    assert typed.model_dump(exclude_unset=True) == recorded
    if recorded["hook"] in SCHEMAS:
        assert isinstance(typed, PreLLMCall | PostLLMCall)
        # Every keyword argument Hermes passes to a hook we use is modelled, so none goes unchecked.
        assert set(recorded["kwargs"]) <= set(type(typed.kwargs).model_fields)


@pytest.mark.parametrize(
    ("name", "key", "value"),
    [
        ("pre_llm_call.turn1.json", "session_id", 7),
        ("pre_llm_call.turn1.json", "turn_id", ["t"]),
        ("pre_llm_call.turn1.json", "is_first_turn", "yes"),
        ("post_llm_call.turn1.json", "assistant_response", {"text": "hi"}),
    ],
)
def test_a_keyword_argument_of_the_wrong_type_is_refused_naming_it(name: str, key: str, value: Any) -> None:
    call = RECORDED[name]
    with pytest.raises(PayloadError, match=key):
        validate({**call, "kwargs": {**call["kwargs"], key: value}})


def test_the_documented_json_schemas_are_the_models() -> None:
    # Regenerate with: python -m memory_hermes.payloads > packages/memory-hermes/docs/payloads.md
    assert SCHEMA_DOC.read_text(encoding="utf-8") == schema_page()
