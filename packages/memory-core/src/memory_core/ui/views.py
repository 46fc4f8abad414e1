"""What each page of `memory ui` shows, shaped from `MemoryService` answers (no store, no HTTP here).

Each function takes the service and the request's parameters and returns the template's context.
A parameter a person mistyped (a date, a cursor) raises `ValueError` with a sentence to show.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from memory_core.browse import query_words
from memory_core.models import Record, Scope
from memory_core.service import MemoryService
from memory_core.store.base import PageCursor, RecordFilter

__all__ = [
    "PAGE_SIZE",
    "overview",
    "memories",
    "record_page",
    "search",
    "recalls",
    "parse_scope",
    "encode_cursor",
    "decode_cursor",
]

PAGE_SIZE = 50
"""Records per page of the Memories list: one screen to scan, one indexed read to fetch."""
_FILTER_FIELDS = ("session", "harness", "author", "kind", "since", "until")


def parse_scope(text: str | None, service: MemoryService) -> Scope:
    """`project:<key>` or `user:<name>` from a query string; the project of the folder by default."""
    if not text:
        return service.scopes(kind="project")[0]
    kind, _, key = text.partition(":")
    if kind not in ("project", "user") or not key:
        raise ValueError(f"{text!r} is not a scope: use project:<key> or user:<name>")
    return Scope(kind, key)  # type: ignore[arg-type]


def encode_cursor(record: Record) -> str:
    """A page cursor a link can carry: the record's time and id."""
    return f"{record.created_at!r}~{record.id}"


def decode_cursor(text: str) -> PageCursor:
    """The inverse of `encode_cursor`; raises `ValueError` for anything else."""
    when, sep, record_id = text.partition("~")
    if not sep or not record_id:
        raise ValueError("that page link is malformed: start again from the newest")
    return float(when), record_id


def _day(text: str, field: str) -> float | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise ValueError(f"{field} must be a date like 2026-11-30") from None


def overview(service: MemoryService) -> dict[str, Any]:
    """Doctor's facts: store, project, health, last recall and capture, failures, firewall, harnesses."""
    # Without the page-by-page check of the embedded file: it reads the whole file (seconds at
    # 100,000 records) and this page is drawn again on every capture; `memory doctor` runs it.
    report = service.doctor_report(integrity=False)
    return {"report": report, "active": service.project_active(report["project"]["key"])}


def memories(service: MemoryService, params: Mapping[str, str]) -> dict[str, Any]:
    """One server-side page of a scope's records, newest first, with the filters that chose it."""
    scope = parse_scope(params.get("scope"), service)
    filters = {name: params.get(name, "").strip() for name in _FILTER_FIELDS}
    kind = filters["kind"] or None
    if kind not in (None, "turn", "note"):
        raise ValueError("kind must be turn or note")
    since = _day(filters["since"], "since")
    until_day = _day(filters["until"], "until")
    where = RecordFilter(
        session_id=filters["session"] or None,
        harness=filters["harness"] or None,
        author=filters["author"] or None,
        kind=kind,  # type: ignore[arg-type]
        since=since,
        # `until` names the last day wanted, so the window ends at the next midnight.
        until=None if until_day is None else until_day + 86_400,
    )
    after = decode_cursor(params["after"]) if params.get("after") else None
    rows = service.records_page(scope, where, after=after, limit=PAGE_SIZE + 1)
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    link = {"scope": str(scope), **{k: v for k, v in filters.items() if v}}
    return {
        "scope": scope,
        "newest_href": "/memories?" + urlencode(link),
        "older_href": "/memories?" + urlencode({**link, "after": encode_cursor(rows[-1])}) if more and rows else None,
        "scopes": service.browse_scopes(),
        "filters": filters,
        "records": rows,
        "first_page": after is None,
        "active": service.project_active(scope.key) if scope.kind == "project" else None,
    }


def record_page(service: MemoryService, record_id: str) -> dict[str, Any]:
    """One record's full text, what happened inside its turn (tool calls, their results, injected
    text), and the turns around it in its session (as `memory_expand` gives).
    """
    record = service.record(record_id)
    around = service.expand(record_id, radius=2)
    return {"record": record, "around": around, "events": service.record_timeline(record_id)}


@dataclass(frozen=True, slots=True)
class _Item:
    """One injected item of a past recall, resolved against the store now."""

    record_id: str
    score: float
    share: float
    record: Record | None
    matched: tuple[str, ...]
    similarity: float | None = None
    bm25: float | None = None


def search(service: MemoryService, params: Mapping[str, str]) -> dict[str, Any]:
    """Recall's ranking for a query, as recall would inject it or as a deliberate search."""
    query = params.get("q", "").strip()
    mode = "search" if params.get("mode") == "search" else "recall"
    explanation = service.explain(query, mode=mode, limit=20) if query else None
    return {"query": query, "mode": mode, "explanation": explanation}


def recalls(service: MemoryService) -> dict[str, Any]:
    """This user's recent recalls: the prompt as stored, what was injected and why, or why nothing."""
    history = service.recall_history()
    wanted = [item.get("id") for entry in history for item in entry.get("injected", ())]
    found = {r.id: r for r in service.records([i for i in wanted if isinstance(i, str)])}
    entries = []
    for entry in history:
        words = query_words(str(entry.get("query", "")))
        raw_items = [i for i in entry.get("injected", ()) if isinstance(i, dict)]
        best = max((float(i.get("score", 0.0)) for i in raw_items), default=0.0)
        items = []
        for item in raw_items:
            record = found.get(str(item.get("id")))
            matched: tuple[str, ...] = ()
            if record is not None:
                from memory_core.retrieval.tokenizer import index_terms

                own = index_terms(record.text)
                matched = tuple(dict.fromkeys(w for w, terms in words if terms & own.keys()))
            score = float(item.get("score", 0.0))
            similarity, bm25 = item.get("similarity"), item.get("bm25")
            items.append(
                _Item(
                    str(item.get("id")),
                    score,
                    score / best if best else 0.0,
                    record,
                    matched,
                    float(similarity) if isinstance(similarity, int | float) else None,
                    float(bm25) if isinstance(bm25, int | float) else None,
                )
            )
        entries.append({"entry": entry, "injected": items})
    return {"entries": entries}
