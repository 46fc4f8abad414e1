"""The embedded store's timelines (`memory_core.store.base.Timelines`), as functions over a connection.

`SQLiteStore` runs each inside its own transaction (`_write`) or read; nothing here opens,
commits or translates errors. Table `events` (schema version 3): one row per event, unique by
(record id, event id), in the order of its rowid.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memory_core.models import TimelineEvent

__all__ = ["put_events", "read_events", "event_usage", "drop_events"]


def put_events(conn: sqlite3.Connection, record_id: str, events: Sequence[TimelineEvent]) -> int:
    """Append the events `record_id` does not hold yet; 0 when there is no such record."""
    if not events or conn.execute("SELECT 1 FROM records WHERE id = ?", (record_id,)).fetchone() is None:
        return 0
    added = 0
    for event in events:
        cursor = conn.execute(
            "INSERT OR IGNORE INTO events (record_id, event_id, kind, name, call_id, at, text)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (record_id, event.event_id, event.kind, event.name, event.call_id, float(event.at), event.text),
        )
        added += cursor.rowcount
    return added


def read_events(conn: sqlite3.Connection, record_id: str) -> list[TimelineEvent]:
    rows = conn.execute(
        "SELECT kind, event_id, text, name, call_id, at FROM events WHERE record_id = ? ORDER BY eid", (record_id,)
    ).fetchall()
    return [TimelineEvent(kind=r[0], event_id=r[1], text=r[2], name=r[3], call_id=r[4], at=r[5]) for r in rows]


def event_usage(conn: sqlite3.Connection, scope_name: str) -> list[tuple[str, int]]:
    rows = conn.execute(
        "SELECT r.id, SUM(LENGTH(CAST(e.text AS BLOB))) FROM records r JOIN events e ON e.record_id = r.id"
        " WHERE r.scope = ? GROUP BY r.id ORDER BY r.created_at DESC, r.id DESC",
        (scope_name,),
    ).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


def drop_events(conn: sqlite3.Connection, record_ids: Sequence[str]) -> int:
    return sum(conn.execute("DELETE FROM events WHERE record_id = ?", (i,)).rowcount for i in dict.fromkeys(record_ids))
