"""The rules every harness's payload models share (`memory_core.harnesses.payloads`).

A harness's next release adds keys: they are kept, never refused. A key we read must hold its
JSON type exactly (no `"1"` for a number, no `true` for an int), and a refusal names the key,
nested path included, so the log line says what the harness sent wrong.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from memory_core.harnesses.payloads import Payload, PayloadError, event_schemas, schema_document, validate


class Common(Payload):
    session_id: str
    event: str


class Part(Payload):
    id: str
    size: float | None = None


class Stop(Common):
    answer: str
    tokens: int | None = None
    parts: list[Part] | None = None


MODELS: dict[str, type[Common]] = {"Stop": Stop}


def check(payload: Any) -> Common:
    return validate(payload, MODELS, Common, key="event", harness="Probe")


def test_a_payload_is_typed_by_its_event_and_keeps_unknown_keys() -> None:
    typed = check({"session_id": "s", "event": "Stop", "answer": "done", "added_later": {"x": [1]}})
    assert isinstance(typed, Stop)
    assert typed.answer == "done"
    assert typed.model_extra == {"added_later": {"x": [1]}}
    assert type(check({"session_id": "s", "event": "SessionEnd"})) is Common


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"answer": None}, "'answer' of the Probe Stop payload is null"),
        ({"tokens": True}, "'tokens' of the Probe Stop payload is bool"),
        ({"tokens": "12"}, "'tokens' of the Probe Stop payload is str"),
        ({"parts": [{"size": 1}]}, "the Probe Stop payload lacks 'parts[0].id'"),
        ({"session_id": 7}, "'session_id' of the Probe Stop payload is int"),
    ],
)
def test_a_key_of_the_wrong_json_type_or_missing_is_refused_naming_it(change: dict[str, Any], message: str) -> None:
    with pytest.raises(PayloadError, match=message.replace("[", r"\[").replace("]", r"\]")):
        check({"session_id": "s", "event": "Stop", "answer": "done", **change})


def test_a_json_integer_is_a_fine_float() -> None:
    typed = check({"session_id": "s", "event": "Stop", "answer": "a", "parts": [{"id": "p", "size": 3}]})
    assert isinstance(typed, Stop)
    assert typed.parts is not None
    assert typed.parts[0].size == 3


@pytest.mark.parametrize("payload", [[1, 2], "text", None, {"event": "Stop"}])
def test_what_is_not_a_payload_is_a_value_error(payload: Any) -> None:
    with pytest.raises(ValueError, match="Probe"):
        check(payload)


def test_the_documented_schemas_are_each_events_json_schema() -> None:
    schemas = event_schemas(MODELS, Common)
    assert set(schemas) == {"Stop", "*"}
    assert schemas["Stop"]["required"] == ["session_id", "event", "answer"]
    page = schema_document("Probe payloads", "Intro.", MODELS, Common)
    assert page.startswith("# Probe payloads\n\nIntro.\n\n## `Stop`\n")
    first_block = page.split("```json\n", 1)[1].split("```", 1)[0]
    assert json.loads(first_block) == schemas["Stop"]
