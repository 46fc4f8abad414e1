"""The PostgreSQL store's timelines (`memory_core.store.base.Timelines`), as statements over a connection.

`PostgresStore` runs each inside its own transaction and maps errors; `sql` turns `{s}` into the
quoted schema. Table `events` (migration 3): keyed by (record id, position), unique by (record
id, event id).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memory_core.models import TimelineEvent

__all__ = ["put_events", "READ_EVENTS", "EVENT_USAGE", "DROP_EVENTS"]

Sql = Callable[[str], bytes]

READ_EVENTS = "SELECT kind, event_id, text, name, call_id, at FROM {s}.events WHERE record_id = %s ORDER BY pos"
EVENT_USAGE = (
    "SELECT r.id, sum(octet_length(e.text)) FROM {s}.records r JOIN {s}.events e ON e.record_id = r.id"
    " WHERE r.scope = %s GROUP BY r.id, r.created_at ORDER BY r.created_at DESC, r.id DESC"
)
DROP_EVENTS = "DELETE FROM {s}.events WHERE record_id = ANY(%s)"

# One statement: the events not yet held, numbered after the record's last position. The record's
# row is locked first, so two writers of one timeline take turns and never share a position.
_INSERT = (
    "INSERT INTO {s}.events (record_id, pos, event_id, kind, name, call_id, at, text)"
    " SELECT %(rid)s, %(start)s + row_number() OVER (ORDER BY u.ord) - 1, u.event_id, u.kind, u.name, u.call_id,"
    " u.at, u.text"
    " FROM unnest(%(ids)s::text[], %(kinds)s::text[], %(names)s::text[], %(calls)s::text[],"
    " %(ats)s::float8[], %(texts)s::text[]) WITH ORDINALITY AS u(event_id, kind, name, call_id, at, text, ord)"
    " WHERE NOT EXISTS (SELECT 1 FROM {s}.events e WHERE e.record_id = %(rid)s AND e.event_id = u.event_id)"
    " ON CONFLICT DO NOTHING RETURNING 1"
)


def put_events(conn: Any, sql: Sql, record_id: str, events: Sequence[TimelineEvent]) -> int:
    """Append the events `record_id` does not hold yet; 0 when there is no such record."""
    if not events:
        return 0
    if conn.execute(sql("SELECT 1 FROM {s}.records WHERE id = %s FOR UPDATE"), (record_id,)).fetchone() is None:
        return 0
    start = conn.execute(
        sql("SELECT COALESCE(max(pos), -1) + 1 FROM {s}.events WHERE record_id = %s"), (record_id,)
    ).fetchone()[0]
    rows = conn.execute(
        sql(_INSERT),
        {
            "rid": record_id,
            "start": int(start),
            "ids": [e.event_id for e in events],
            "kinds": [e.kind for e in events],
            "names": [e.name for e in events],
            "calls": [e.call_id for e in events],
            "ats": [float(e.at) for e in events],
            "texts": [e.text for e in events],
        },
    ).fetchall()
    return len(rows)


def row_to_event(row: Sequence[Any]) -> TimelineEvent:
    return TimelineEvent(kind=row[0], event_id=row[1], text=row[2], name=row[3], call_id=row[4], at=float(row[5]))
