"""What the stores share below the contract (`base`): scope names, and the record row and filters
of the two SQL stores, written once with the dialect's placeholder.

Pure functions and constants; nothing here raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_core.models import Record, Scope
from memory_core.store.base import RecordFilter

__all__ = ["RECORD_COLUMNS", "columns", "scope_name", "live_names", "row_to_record", "filter_clauses"]

RECORD_COLUMNS = "id, scope, text, kind, author, created_at, harness, session_id, turn_id, seq, standing, searchable"
"""A record's columns in both SQL schemas, in `row_to_record`'s order."""


def columns(alias: str) -> str:
    """`RECORD_COLUMNS` of the table named `alias` in a join (`r.id, r.scope, ...`)."""
    return ", ".join(f"{alias}.{column}" for column in RECORD_COLUMNS.split(", "))


def scope_name(scope: Scope) -> str:
    """`kind:key`: how every store names a scope (a key of the vector cache too)."""
    return f"{scope.kind}:{scope.key}"


def live_names(scopes: Sequence[Scope]) -> list[str]:
    """The names of the scopes a query may read: distinct, in order, none with an empty key."""
    return list(dict.fromkeys(scope_name(s) for s in scopes if s.key))


def row_to_record(row: Sequence[Any]) -> Record:
    """A record from a row of `RECORD_COLUMNS`."""
    kind, _, key = str(row[1]).partition(":")
    return Record(
        id=row[0],
        scope=Scope(kind, key),  # type: ignore[arg-type]  # only ever written from a Scope
        text=row[2],
        kind=row[3],
        author=row[4],
        created_at=row[5],
        harness=row[6],
        session_id=row[7],
        turn_id=row[8],
        seq=row[9],
        standing=row[10],
        searchable=bool(row[11]),
    )


def filter_clauses(where: RecordFilter, mark: str) -> tuple[list[str], list[Any]]:
    """The WHERE clauses (to be joined by AND) and their parameters of what `where` asks, each value
    bound with the placeholder `mark` (`?` or `%s`); none for a filter that matches anything.
    """
    clauses: list[str] = []
    params: list[Any] = []
    for column, value in (
        ("session_id", where.session_id),
        ("harness", where.harness),
        ("author", where.author),
        ("kind", where.kind),
    ):
        if value is not None:
            clauses.append(f"{column} = {mark}")
            params.append(value)
    if where.since is not None:
        clauses.append(f"created_at >= {mark}")
        params.append(float(where.since))
    if where.until is not None:
        clauses.append(f"created_at < {mark}")
        params.append(float(where.until))
    return clauses, params
