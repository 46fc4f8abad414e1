"""The payload validator every harness package uses: pydantic models in, one typed payload out.

A harness package declares what its program sends as pydantic models, one per event it acts
on or deliberately ignores, on the base `Payload` here:

- strict JSON types: a string is a string (never `42` or `true`), an integer is not `true`,
  a float takes any JSON number; nested objects are models too;
- unknown keys are kept, never refused, since each release of a harness adds some;
- models build lazily (`defer_build`), so a cold turn pays only for the event it got.

`validate(payload, models, default, key)` picks the model by the payload's event name (`key`,
e.g. `hook_event_name`; `default` for any event without a model of its own) and returns the
typed payload. `event_schemas` gives the JSON Schema of each, which a harness package exports
into its docs (a test keeps that file current).

This module is the one parser of payloads: the warm worker, the long-lived plugins and the
in-process path of a cold turn import it; the hook client never does.
Failure: `PayloadError` (a `ValueError`) naming the key that is missing or mistyped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["Payload", "PayloadError", "validate", "event_schemas", "schema_document"]

P = TypeVar("P", bound="Payload")


class PayloadError(ValueError):
    """A payload lacks a key its event needs, or a key holds the wrong JSON type."""


class Payload(BaseModel):
    """Base of every harness payload model: strict JSON types, unknown keys kept, built on first use."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True, defer_build=True)


def _where(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _describe(error: ValidationError, name: str) -> str:
    first = error.errors(include_url=False)[0]
    where = _where(tuple(first["loc"]))
    if first["type"] == "missing":
        return f"the {name} payload lacks {where!r}"
    value = first.get("input")
    kind = "null" if value is None else type(value).__name__
    return f"{where!r} of the {name} payload is {kind}: {first['msg'].lower()}"


def validate(payload: Any, models: Mapping[str, type[P]], default: type[P], *, key: str, harness: str) -> P:
    """`payload` checked against the model of its event (`payload[key]`), or `default`, and typed.

    Raises:
        PayloadError: The payload is not a JSON object, misses a key its event needs, or a
            known key holds the wrong JSON type. Unknown keys are never an error.
    """
    if not isinstance(payload, Mapping):
        raise PayloadError(f"a {harness} payload is a JSON object, not {type(payload).__name__}")
    event = payload.get(key)
    model = models.get(event, default) if isinstance(event, str) else default
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        label = f"{harness} {event}" if isinstance(event, str) and event in models else harness
        raise PayloadError(_describe(exc, label)) from exc


def event_schemas(models: Mapping[str, type[Payload]], default: type[Payload]) -> dict[str, dict[str, Any]]:
    """The JSON Schema of each event's model (the `default` one under `*`), as the docs show them."""
    schemas = {event: model.model_json_schema() for event, model in models.items()}
    schemas["*"] = default.model_json_schema()
    return schemas


def schema_document(title: str, intro: str, models: Mapping[str, type[Payload]], default: type[Payload]) -> str:
    """A Markdown page of every event's JSON Schema: what a harness package keeps in its docs."""
    lines = [f"# {title}", "", intro.strip(), ""]
    for event, schema in event_schemas(models, default).items():
        heading = "Any other event" if event == "*" else f"`{event}`"
        lines += [f"## {heading}", "", "```json", json.dumps(schema, indent=2, sort_keys=True), "```", ""]
    return "\n".join(lines)
