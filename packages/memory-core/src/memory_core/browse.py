"""What the service needs to show and correct memory (`memory ui`): explained rankings, recall history.

Pure helpers over values the service hands in; the `MemoryService` methods in the block marked
"browsing and correcting" are the API, and they are the only callers.

Promises:
- A recall history entry holds the firewalled prompt, the ids and scores of what was injected
  and why nothing was, never a record's text: what a page shows of a record is read from the
  store at display time, so a forgotten record cannot linger in the history's text.
- `drop_forgotten` removes from a history every trace of forgotten records: their ids, and the
  entries whose prompt was one of those turns (or belonged to a forgotten session).
- `redact_entries` applies a redaction of a record's text to the prompts a history holds.
Nothing here raises on a malformed history entry: it is skipped (and dropped on the next edit).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_core.firewall import marker
from memory_core.models import Hit, Record
from memory_core.retrieval.tokenizer import index_terms, query_terms

__all__ = [
    "HISTORY_KEEP",
    "ExplainedHit",
    "Explanation",
    "explain_hits",
    "query_words",
    "history_entry",
    "parse_history",
    "drop_forgotten",
    "redact_entries",
    "redact_span",
    "REDACTION_KIND",
]

HISTORY_KEEP = 50
"""Recalls kept per user: about a day of turns, and a page that reads in a glance."""
REDACTION_KIND = "manual"
"""The marker kind of a span a user redacted by hand: `[REDACTED:manual]`."""


@dataclass(frozen=True, slots=True)
class ExplainedHit:
    """A hit with what a person needs to judge it.

    Attributes:
        hit: The ranked hit.
        matched: The query's words (as typed) the record itself holds, in query order; empty
            when it ranks through its session neighbours' words alone.
        share: Its score as a share of the best hit's (the floor keeps hits above 20%).
        injected: Whether it is in the block recall would inject (False: cut by the budget).
    """

    hit: Hit
    matched: tuple[str, ...]
    share: float
    injected: bool


@dataclass(frozen=True, slots=True)
class Explanation:
    """A ranking with its reasons: what `Search` shows.

    Attributes:
        mode: `recall` (floor on, the block recall would inject) or `search` (deliberate).
        terms: The query's index terms, as the retriever reads them.
        hits: Every ranked hit, best first.
        block: The exact text recall would inject ("" in search mode, or when nothing passed).
        max_items: The item cap of the block.
        max_tokens: The token budget of the block.
        why: In recall mode, the retriever's reason when nothing would be injected.
        decision: In recall mode, the inject decision's inputs (`retriever.Ranking.decision`).
        signals: In recall mode, each candidate's `similarity` and `bm25` by record id.
    """

    mode: str
    terms: tuple[str, ...]
    hits: tuple[ExplainedHit, ...]
    block: str
    max_items: int
    max_tokens: int
    why: str = ""
    decision: Mapping[str, float | str] = field(default_factory=dict)
    signals: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)


def query_words(query: str) -> list[tuple[str, frozenset[str]]]:
    """The query's words as a person typed them, each with the index terms it yields (stems, parts)."""
    words = []
    for raw in query.split():
        word = raw.strip(".,;:!?\"'()[]{}<>`")
        terms = frozenset(query_terms(word))
        if word and terms:
            words.append((word, terms))
    return words


def explain_hits(query: str, hits: Sequence[Hit], kept: Iterable[str]) -> tuple[ExplainedHit, ...]:
    """Each hit with the query words it holds, its share of the best score, and whether it was kept."""
    words = query_words(query)
    kept_ids = set(kept)
    best = hits[0].score if hits else 0.0
    explained = []
    for hit in hits:
        own = index_terms(hit.record.text)
        explained.append(
            ExplainedHit(
                hit=hit,
                matched=tuple(dict.fromkeys(word for word, terms in words if terms & own.keys())),
                share=hit.score / best if best > 0 else 0.0,
                injected=hit.record.id in kept_ids,
            )
        )
    return tuple(explained)


def history_entry(last: dict[str, Any], *, turn_id: str | None, project: str, reason: str) -> str:
    """The JSON a store keeps for one recall: the last-recall facts plus the turn, project and reason."""
    entry = dict(last)
    entry.update({"turn": turn_id, "project": project})
    # The last-recall record may say itself why nothing was injected; that reason wins.
    entry.setdefault("reason", reason)
    return json.dumps(entry, sort_keys=True, ensure_ascii=False)


def parse_history(raw: Sequence[str]) -> list[dict[str, Any]]:
    """History entries as dicts, newest first; a malformed entry is skipped."""
    entries = []
    for text in raw:
        try:
            entry = json.loads(text)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def drop_forgotten(
    entries: Sequence[dict[str, Any]], forgotten: Sequence[Record], sessions: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """The history without any trace of `forgotten` records or of the forgotten `sessions`."""
    ids = {r.id for r in forgotten}
    turns = {(r.harness, r.session_id, r.turn_id) for r in forgotten if r.kind == "turn" and r.turn_id}
    gone_sessions = set(sessions)
    kept = []
    for entry in entries:
        if (entry.get("harness"), entry.get("session"), entry.get("turn")) in turns:
            continue
        if entry.get("session") in gone_sessions:
            continue
        injected = [item for item in entry.get("injected", ()) if item.get("id") not in ids]
        kept.append({**entry, "injected": injected} if len(injected) != len(entry.get("injected", ())) else entry)
    return kept


def redact_span(text: str, start: int, end: int) -> str:
    """`text` with [start, end) replaced by the firewall's marker. Raises `ValueError` for an empty span."""
    if not 0 <= start < end <= len(text):
        raise ValueError(f"a redaction needs a non-empty span inside the text (0 <= start < end <= {len(text)})")
    return text[:start] + marker(REDACTION_KIND) + text[end:]


def redact_entries(entries: Sequence[dict[str, Any]], span: str) -> list[dict[str, Any]]:
    """The history with every occurrence of a redacted `span` in its prompts replaced by the marker."""
    if not span.strip():
        return list(entries)
    return [
        {**e, "query": str(e.get("query", "")).replace(span, marker(REDACTION_KIND))}
        if span in str(e.get("query", ""))
        else e
        for e in entries
    ]
