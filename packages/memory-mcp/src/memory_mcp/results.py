"""What the tools hand back: plain JSON-ready dicts built from memory-core's records.

Every result carries the record's `id` so the model can pass it back to `memory_feedback`,
`memory_forget` or `memory_expand`. Times are ISO 8601 in UTC, which a model reads without
arithmetic. Nothing here fails on a well-formed `Record`.
"""

from __future__ import annotations

from typing import Any

from memory_core.models import Hit, Record, TimelineEvent
from memory_core.utc import utc

__all__ = ["hit_result", "record_result", "saved_result", "events_result"]

_SCORE_DIGITS = 3
"""Enough to order results; more digits only cost the model tokens."""
_EVENTS_CHARS = 48_000
"""Characters of event text one `memory_expand` hands the model at most: about 12,000 tokens, six
events at the store's 8 KiB cap; a turn with more says how many it left out."""


def hit_result(hit: Hit) -> dict[str, Any]:
    """One search result: `{id, text, score, scope, created_at, session}`.

    `text` is the excerpt the retriever chose (the record's own text when it chose none).
    """
    record = hit.record
    return {
        "id": record.id,
        "text": hit.excerpt or record.text,
        "score": round(hit.score, _SCORE_DIGITS),
        "scope": record.scope.kind,
        "created_at": utc(record.created_at),
        "session": record.session_id,
    }


def record_result(record: Record, *, target: bool = False) -> dict[str, Any]:
    """One turn of `memory_expand`: the record's whole text, and whether it is the one asked for."""
    return {
        "id": record.id,
        "text": record.text,
        "scope": record.scope.kind,
        "created_at": utc(record.created_at),
        "session": record.session_id,
        "target": target,
    }


def saved_result(record: Record) -> dict[str, Any]:
    """What `memory_save` stored: the text after the firewall, so a redaction is visible."""
    return {
        "id": record.id,
        "text": record.text,
        "scope": record.scope.kind,
        "created_at": utc(record.created_at),
    }


def events_result(events: list[TimelineEvent]) -> dict[str, Any]:
    """A turn's timeline for `memory_expand`: `{events: [{kind, name, text, call_id}], events_left_out}`.

    In transcript order, until `_EVENTS_CHARS` of text; `events_left_out` counts the rest.
    """
    shown: list[dict[str, Any]] = []
    used = 0
    for event in events:
        if used + len(event.text) > _EVENTS_CHARS and shown:
            break
        used += len(event.text)
        item = {"kind": event.kind, "name": event.name, "text": event.text}
        if event.call_id:
            item["call_id"] = event.call_id
        shown.append(item)
    return {"events": shown, "events_left_out": len(events) - len(shown)}
