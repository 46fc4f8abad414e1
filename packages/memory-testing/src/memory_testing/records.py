"""Records for store tests: three scopes and `make_record`, a record with sensible defaults.

Shared by the conformance modules (`store_conformance*`) and the stores' own tests, so every
test builds a record the same way.
"""

from __future__ import annotations

from memory_core.models import Record, Scope

__all__ = ["OTHER", "PROJECT", "T0", "USER", "make_record"]

PROJECT = Scope("project", "github.com/acme/widgets")
OTHER = Scope("project", "github.com/acme/gadgets")
USER = Scope("user", "alice")
T0 = 1_760_000_000.0
"""The clock of every made record: a fixed instant, so ordering by time is reproducible."""


def make_record(record_id: str, text: str = "", scope: Scope = PROJECT, **fields: object) -> Record:
    """A record with sensible defaults; `fields` override any other attribute."""
    values: dict[str, object] = {
        "id": record_id,
        "scope": scope,
        "text": text or f"text of {record_id}",
        "kind": "turn",
        "author": "alice",
        "created_at": T0,
        "harness": "claude",
        "session_id": "s1",
        "turn_id": None,
        "seq": 0,
        "standing": 0,
        "searchable": True,
    }
    values.update(fields)
    return Record(**values)  # type: ignore[arg-type]
