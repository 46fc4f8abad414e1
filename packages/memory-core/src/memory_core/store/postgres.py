"""The PostgreSQL store (14 and newer), on psycopg 3.

Promises:

- Everything lives in one schema, `MEMORY_PG_SCHEMA` (default `memory`; a `?schema=NAME`
  on the URL wins), created with its tables on the first write, and brought up to date by
  numbered migrations (`_pg_schema`). Reading a database that has never been written to
  returns empty results and creates nothing.
- A record id is claimed once: two writers putting the same turn at once both run
  `INSERT ... ON CONFLICT DO NOTHING`, and exactly one of them gets True.
- Recall costs one statement per call (`index_stats`, `postings`, `get`), on one connection
  in autocommit mode; `get` also brings each record's session neighbours, so recall's
  `session_records` calls are answered without a statement (`_neighbours`). Writes are one
  transaction each, sent in pipeline mode. Records are committed durably; session state,
  counters and metadata do not wait for the WAL flush.
- Text compared or ordered (ids, scope names, terms) uses the "C" collation: the same order
  as the embedded store whatever the database's locale.
- Every wait, connecting included, is bounded by `timeout` (1 s on the hook path), with no
  retry (`_pg_connect`).

Failure: a server that refuses, is down, or is silent past the timeout raises
`StoreUnavailable` (the connection is dropped and the next call reconnects); any other
database error raises `StoreError`. An unusable schema name raises `ConfigError`.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from memory_core.errors import ConfigError, StoreError, StoreUnavailable
from memory_core.models import IndexStats, Record, Scope, ScopeKind, TimelineEvent
from memory_core.store import _pg_events, _pg_schema
from memory_core.store._neighbours import NEIGHBOUR_SPAN, NeighbourCache
from memory_core.store._shared import RECORD_COLUMNS, columns, filter_clauses, live_names, row_to_record, scope_name
from memory_core.store._vectors import CachedVectors, Row, VectorCache, VectorSource, check_vectors
from memory_core.store.base import PageCursor, Posting, RecordFilter, SessionState, TermPostings
from memory_core.urls import redact_url

__all__ = ["PostgresStore", "SCHEMA_ENV"]

SCHEMA_ENV = "MEMORY_PG_SCHEMA"
_DEFAULT_SCHEMA = "memory"
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_SCAN_PAGE = 500
_T = TypeVar("_T")
_GET_AROUND = (
    f"WITH t AS (SELECT sid, {RECORD_COLUMNS} FROM {{s}}.records WHERE id = ANY(%(ids)s))"  # noqa: S608 - constant columns
    f" SELECT 0, {RECORD_COLUMNS} FROM t UNION ALL SELECT DISTINCT 1, {columns('n')}"
    " FROM t JOIN {s}.records n ON n.sid = t.sid AND n.session_id = t.session_id"
    " AND n.seq BETWEEN t.seq - %(span)s AND t.seq + %(span)s AND n.id <> t.id"
)
_TAKE_NEWEST = (
    "DELETE FROM {s}.handoff WHERE slot = (SELECT slot FROM {s}.handoff WHERE session_key = %s AND expires > %s"
    " ORDER BY slot DESC LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING prompt"
)
_TAKE_TURN = (
    "DELETE FROM {s}.handoff WHERE slot = (SELECT slot FROM {s}.handoff WHERE session_key = %s AND expires > %s"
    " AND turn_id = %s ORDER BY slot DESC LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING prompt"
)


def _split_url(url: str) -> tuple[str, str | None]:
    """The conninfo psycopg gets (without our own `schema` parameter), and that parameter."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), None)
    # libpq's own connect_timeout would round up to 2 s; our deadline replaces it.
    kept = [(k, v) for k, v in query if k not in ("schema", "connect_timeout")]
    scheme = "postgresql" if parts.scheme.lower() in ("postgres", "postgresql") else parts.scheme
    # libpq decodes %20 but not `+`: quote, never quote_plus (`options=-c%20key%3Dvalue` must survive).
    return urlunsplit((scheme, parts.netloc, parts.path, urlencode(kept, quote_via=quote), parts.fragment)), schema


class PostgresStore(CachedVectors):
    """A store in one schema of a PostgreSQL database. Build it with `from_url`."""

    backend = "postgres"

    def __init__(self, conninfo: str, *, schema: str, timeout: float, display: str) -> None:
        if not _SCHEMA_NAME.match(schema):
            raise ConfigError(
                f"{SCHEMA_ENV}={schema!r} is not a plain schema name (letters, digits and _, not starting with a digit)"
            )
        self.display_url = display
        self.schema = schema
        self._conninfo = conninfo
        self._timeout = timeout
        self._conn: Any = None
        self._ready = False
        self._lock = threading.RLock()
        self._quoted = f'"{schema}"'
        self._neighbours = NeighbourCache()
        self._vectors = VectorCache()

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 1.0, schema: str | None = None) -> PostgresStore:
        """Open the store `url` names (no network until the first call). Raises `ConfigError`.

        The schema is the URL's `schema=` parameter, else `schema` (a caller's configuration),
        else `MEMORY_PG_SCHEMA`, else `memory`.
        """
        conninfo, in_url = _split_url(url)
        chosen = in_url or schema or os.environ.get(SCHEMA_ENV, "").strip() or _DEFAULT_SCHEMA
        return cls(conninfo, schema=chosen, timeout=timeout, display=redact_url(url))

    # -- plumbing ----------------------------------------------------------------------------

    def _sql(self, text: str) -> bytes:
        return text.replace("{s}", self._quoted).encode()

    def _connection(self) -> Any:
        if self._conn is None or self._conn.closed:
            from memory_core.store._pg_connect import connect

            self._conn = connect(self._conninfo, timeout=self._timeout)
        return self._conn

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Map psycopg's errors to ours; an operational failure drops the connection."""
        import psycopg

        try:
            yield
        except psycopg.OperationalError as exc:
            self._drop()
            raise StoreUnavailable(f"postgres store {self.display_url} unreachable: {_first_line(exc)}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"postgres store {self.display_url}: {_first_line(exc)}") from exc

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001,S110 - a broken connection has nothing left to report
                pass

    def _read(self, query: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one statement; a schema nobody has written to yet reads as empty."""
        import psycopg.errors

        with self._lock, self._guard():
            try:
                return list(self._connection().execute(self._sql(query), params).fetchall())
            except (psycopg.errors.UndefinedTable, psycopg.errors.InvalidSchemaName):
                return []

    def _write(self, work: Callable[[Any], _T], *, durable: bool = True) -> _T:
        """Run `work(connection)` in one transaction, creating or migrating the schema first.

        The transaction's statements travel in pipeline mode: one round trip until a result
        is needed. `durable=False` (session state, counters, metadata: what a crash may lose
        without losing a memory) commits without waiting for the WAL flush, which is most of
        a small write's cost; records are always committed durably.
        """
        with self._lock, self._guard():
            conn = self._connection()
            if not self._ready:
                self._migrate(conn)
            with conn.transaction(), conn.pipeline():
                if not durable:
                    conn.execute("SET LOCAL synchronous_commit TO off")
                return work(conn)

    def _migrate(self, conn: Any) -> None:
        import psycopg.errors

        try:
            row = conn.execute(self._sql("SELECT max(version) FROM {s}.schema_version")).fetchone()
            current = int(row[0] or 0)
        except (psycopg.errors.UndefinedTable, psycopg.errors.InvalidSchemaName):
            current = 0
        if current < _pg_schema.LATEST:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"memory-schema:{self.schema}",))
                conn.execute(self._sql("CREATE SCHEMA IF NOT EXISTS {s}"))
                conn.execute(
                    self._sql(
                        "CREATE TABLE IF NOT EXISTS {s}.schema_version"
                        " (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
                    )
                )
                done = {r[0] for r in conn.execute(self._sql("SELECT version FROM {s}.schema_version")).fetchall()}
                for version, statements in _pg_schema.MIGRATIONS:
                    if version not in done:
                        conn.execute(self._sql(statements))
                        conn.execute(self._sql("INSERT INTO {s}.schema_version (version) VALUES (%s)"), (version,))
        self._ready = True

    # -- lifecycle ---------------------------------------------------------------------------

    def ping(self) -> str:
        """Reach the server and return `PostgreSQL <version>`."""
        rows = self._read("SELECT current_setting('server_version')")
        return f"PostgreSQL {rows[0][0]}"

    def close(self) -> None:
        """Release the connection. Idempotent."""
        with self._lock:
            self._drop()

    # -- records -----------------------------------------------------------------------------

    def _sid(self, conn: Any, name: str) -> int:
        row = conn.execute(
            self._sql(
                "WITH new AS (INSERT INTO {s}.scopes (name) VALUES (%s) ON CONFLICT (name) DO NOTHING RETURNING sid)"
                " SELECT sid FROM new UNION ALL SELECT sid FROM {s}.scopes WHERE name = %s"
            ),
            (name, name),
        ).fetchone()
        if row is None:
            # A concurrent writer inserted the scope after this statement's snapshot was taken:
            # its row is committed now, and a new statement (a new snapshot) sees it.
            row = conn.execute(self._sql("SELECT sid FROM {s}.scopes WHERE name = %s"), (name,)).fetchone()
        return int(row[0])

    def _index(self, conn: Any, sid: int, record_id: str, terms: Mapping[str, int], length: int, sign: int) -> None:
        """Add (`sign` 1) or remove (`sign` -1) one record's postings, dfs and its scope's totals."""
        conn.execute(
            self._sql(
                "UPDATE {s}.scopes SET documents = documents + %s, total_length = total_length + %s WHERE sid = %s"
            ),
            (sign, sign * length, sid),
        )
        names = sorted(terms)  # one lock order for every writer: no deadlock on shared terms
        if not names:
            return
        if sign > 0:
            conn.execute(
                self._sql(
                    "INSERT INTO {s}.postings (sid, term, record_id, tf, length)"
                    " SELECT %s, t, %s, f, %s FROM unnest(%s::text[], %s::int[]) AS u(t, f)"
                ),
                (sid, record_id, length, names, [terms[t] for t in names]),
            )
            conn.execute(
                self._sql(
                    "INSERT INTO {s}.term_df (sid, term, df) SELECT %s, t, 1 FROM unnest(%s::text[]) AS u(t) ORDER BY t"
                    " ON CONFLICT (sid, term) DO UPDATE SET df = {s}.term_df.df + 1"
                ),
                (sid, names),
            )
            return
        conn.execute(
            self._sql("DELETE FROM {s}.postings WHERE sid = %s AND record_id = %s AND term = ANY(%s)"),
            (sid, record_id, names),
        )
        conn.execute(
            self._sql(
                "UPDATE {s}.term_df d SET df = d.df - 1 FROM (SELECT term FROM {s}.term_df"
                " WHERE sid = %s AND term = ANY(%s) ORDER BY term FOR UPDATE) AS x WHERE d.sid = %s AND d.term = x.term"
            ),
            (sid, names, sid),
        )
        conn.execute(self._sql("DELETE FROM {s}.term_df WHERE sid = %s AND term = ANY(%s) AND df <= 0"), (sid, names))

    def _remove(self, conn: Any, record_id: str) -> bool:
        row = conn.execute(
            self._sql("DELETE FROM {s}.records WHERE id = %s RETURNING sid, standing, searchable, terms, length"),
            (record_id,),
        ).fetchone()
        if row is None:
            return False
        sid, standing, searchable, terms, length = row
        if searchable and standing >= 0:
            self._index(conn, sid, record_id, json.loads(terms), length, -1)
        return True

    def put(self, record: Record, terms: Mapping[str, int], *, replace: bool = False) -> bool:
        """Insert `record` and its terms; an existing id is kept unless `replace`. True when written."""
        if not record.scope.key:
            raise StoreError("a record needs a scope with a key")
        clean = {t: int(n) for t, n in terms.items() if t and int(n) > 0}
        length = sum(clean.values())
        self._neighbours.clear()
        name = scope_name(record.scope)

        def work(conn: Any) -> bool:
            if replace:
                conn.execute(self._sql("SELECT 1 FROM {s}.records WHERE id = %s FOR UPDATE"), (record.id,))
                self._remove(conn, record.id)
            sid = self._sid(conn, name)
            inserted = conn.execute(
                self._sql(
                    "INSERT INTO {s}.records (id, sid, scope, text, kind, author, created_at, harness, session_id,"
                    " turn_id, seq, standing, searchable, terms, length)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (id) DO NOTHING RETURNING 1"
                ),
                (
                    record.id,
                    sid,
                    name,
                    record.text,
                    record.kind,
                    record.author,
                    float(record.created_at),
                    record.harness,
                    record.session_id,
                    record.turn_id,
                    int(record.seq),
                    int(record.standing),
                    bool(record.searchable),
                    json.dumps(clean, ensure_ascii=False, separators=(",", ":")),
                    length,
                ),
            ).fetchone()
            if inserted is None:
                return False
            if record.searchable and record.standing >= 0:
                self._index(conn, sid, record.id, clean, length, 1)
            return True

        return self._write(work)

    def get(self, ids: Sequence[str]) -> list[Record]:
        """The records with these ids, in the order asked; unknown ids are skipped.

        One statement, which also returns every record within `NEIGHBOUR_SPAN` of each one's
        seq in its session: recall asks for those next, and `session_records` (and a `get` of the same ids)
        answers from them for a moment (`_neighbours`).
        """
        found = self._neighbours.fetched(ids)
        missing = [i for i in dict.fromkeys(ids) if i not in found]
        if missing:
            rows = self._read(_GET_AROUND, {"ids": missing, "span": NEIGHBOUR_SPAN})
            fetched = {row[1]: row_to_record(row[1:]) for row in rows if row[0] == 0}
            if fetched:
                self._neighbours.remember(fetched.values(), [row_to_record(row[1:]) for row in rows if row[0] == 1])
            found.update(fetched)
        return [found[i] for i in ids if i in found]

    def delete(self, ids: Sequence[str]) -> int:
        """Delete records and their index entries; returns how many existed."""
        wanted = sorted(set(ids))
        if not wanted:
            return 0
        self._neighbours.clear()

        def work(conn: Any) -> int:
            deleted = sum(self._remove(conn, i) for i in wanted)
            conn.execute(self._sql(_pg_events.DROP_EVENTS), (wanted,))
            return deleted

        return self._write(work)

    # -- timelines (`Timelines`; the statements are in `_pg_events`) -----------------------

    def put_events(self, record_id: str, events: Sequence[TimelineEvent]) -> int:
        """Append the events `record_id` does not hold yet, in order; 0 when there is no such record."""
        batch = list(events)
        return self._write(lambda conn: _pg_events.put_events(conn, self._sql, record_id, batch))

    def events(self, record_id: str) -> list[TimelineEvent]:
        """`record_id`'s events, in the order first stored."""
        return [_pg_events.row_to_event(row) for row in self._read(_pg_events.READ_EVENTS, (record_id,))]

    def event_usage(self, scope: Scope) -> list[tuple[str, int]]:
        """The records of `scope` with events and their events' bytes, newest first."""
        if not scope.key:
            return []
        return [(str(r[0]), int(r[1])) for r in self._read(_pg_events.EVENT_USAGE, (scope_name(scope),))]

    def drop_events(self, record_ids: Sequence[str]) -> int:
        """Delete these records' events; the records stay."""
        wanted = sorted(set(record_ids))

        def work(conn: Any) -> int:
            return len(conn.execute(self._sql(_pg_events.DROP_EVENTS + " RETURNING 1"), (wanted,)).fetchall())

        return self._write(work)

    def adjust_standing(self, record_id: str, delta: int) -> int | None:
        """Add `delta` to a record's standing; crossing zero moves it out of (or back into) the index."""
        self._neighbours.clear()

        def work(conn: Any) -> int | None:
            row = conn.execute(
                self._sql(
                    "UPDATE {s}.records SET standing = standing + %s WHERE id = %s"
                    " RETURNING standing, sid, searchable, terms, length"
                ),
                (int(delta), record_id),
            ).fetchone()
            if row is None:
                return None
            new, sid, searchable, terms, length = row
            old = new - int(delta)
            if searchable and (old >= 0) != (new >= 0):
                self._index(conn, sid, record_id, json.loads(terms), length, 1 if new >= 0 else -1)
            return int(new)

        return self._write(work)

    def scan(
        self,
        scopes: Sequence[Scope] | None,
        *,
        session_id: str | None = None,
        author: str | None = None,
        before: float | None = None,
    ) -> Iterator[Record]:
        """Every matching record, oldest first then by id, read a page at a time (keyset paging)."""
        where, params = filter_clauses(RecordFilter(session_id=session_id, author=author, until=before), "%s")
        if scopes is not None:
            names = live_names(scopes)
            if not names:
                return
            where.insert(0, "sid IN (SELECT sid FROM {s}.scopes WHERE name = ANY(%s))")
            params.insert(0, names)
        cursor: tuple[float, str] | None = None
        while True:
            page_where, page_params = list(where), list(params)
            if cursor is not None:
                page_where.append("(created_at, id) > (%s, %s)")
                page_params.extend(cursor)
            clause = f"WHERE {' AND '.join(page_where)}" if page_where else ""
            rows = self._read(
                # the clause joins constant fragments; every value travels as a parameter
                f"SELECT {RECORD_COLUMNS} FROM {{s}}.records {clause} ORDER BY created_at, id LIMIT {_SCAN_PAGE}",  # noqa: S608
                page_params,
            )
            for row in rows:
                yield row_to_record(row)
            if len(rows) < _SCAN_PAGE:
                return
            cursor = (float(rows[-1][5]), str(rows[-1][0]))

    def count(self, scopes: Sequence[Scope] | None) -> int:
        """How many records in these scopes (None: in the whole store)."""
        if scopes is None:
            rows = self._read("SELECT count(*) FROM {s}.records")
        else:
            names = live_names(scopes)
            if not names:
                return 0
            rows = self._read(
                "SELECT count(*) FROM {s}.records WHERE sid IN (SELECT sid FROM {s}.scopes WHERE name = ANY(%s))",
                (names,),
            )
        return int(rows[0][0]) if rows else 0

    def session_records(self, scope: Scope, session_id: str, seqs: Sequence[int]) -> list[Record]:
        """The records of one session at the given positions, in position order (then id)."""
        wanted = sorted({int(s) for s in seqs})
        if not scope.key or not wanted:
            return []
        cached = self._neighbours.lookup(scope, session_id, wanted)
        if cached is not None:
            return cached
        rows = self._read(
            f"SELECT {RECORD_COLUMNS} FROM {{s}}.records WHERE sid = (SELECT sid FROM {{s}}.scopes WHERE name = %s)"  # noqa: S608
            " AND session_id = %s AND seq = ANY(%s) ORDER BY seq, id",
            (scope_name(scope), session_id, wanted),
        )
        return [row_to_record(row) for row in rows]

    def page(
        self, scope: Scope, where: RecordFilter, *, after: PageCursor | None = None, limit: int = 50
    ) -> list[Record]:
        """A page of one scope's records, newest first: a backward read of the scope's time index."""
        if not scope.key or limit <= 0:
            return []
        clauses, params = filter_clauses(where, "%s")
        clauses.insert(0, "sid = (SELECT sid FROM {s}.scopes WHERE name = %s)")
        params.insert(0, scope_name(scope))
        if after is not None:
            clauses.append("(created_at, id) < (%s, %s)")
            params.extend([float(after[0]), str(after[1])])
        rows = self._read(
            # the clauses join constant fragments; every value travels as a parameter
            f"SELECT {RECORD_COLUMNS} FROM {{s}}.records WHERE {' AND '.join(clauses)}"  # noqa: S608
            f" ORDER BY created_at DESC, id DESC LIMIT {int(limit)}",
            params,
        )
        return [row_to_record(row) for row in rows]

    def scope_keys(self, kind: ScopeKind) -> list[str]:
        """Every key of `kind` holding records: the scope table, each checked with one index probe."""
        prefix = f"{kind}:"
        rows = self._read(
            "SELECT s.name FROM {s}.scopes s WHERE s.name >= %s AND s.name < %s"
            " AND EXISTS (SELECT 1 FROM {s}.records r WHERE r.sid = s.sid) ORDER BY s.name",
            (prefix, f"{kind};"),
        )
        return [str(row[0])[len(prefix) :] for row in rows]

    def next_position(self, scope: Scope, session_id: str) -> int:
        """One past the session's highest position: one backward probe of `records_session`."""
        if not scope.key:
            return 0
        # ORDER BY ... LIMIT 1, not max(): the planner, trusting a fresh table's statistics, ran
        # max() as an aggregate over the whole session (15 ms at 10,000 turns).
        rows = self._read(
            "SELECT seq FROM {s}.records WHERE sid = (SELECT sid FROM {s}.scopes WHERE name = %s)"
            " AND session_id = %s ORDER BY seq DESC LIMIT 1",
            (scope_name(scope), session_id),
        )
        return int(rows[0][0]) + 1 if rows else 0

    # -- lexical index -----------------------------------------------------------------------

    # -- vectors -----------------------------------------------------------------------------

    def put_vectors(self, record_id: str, model: str, vectors: Sequence[bytes]) -> bool:
        """Replace the record's vectors with these, and mark it done by `model`; False if no such record."""
        check_vectors(vectors)

        def work(conn: Any) -> bool:
            row = conn.execute(
                self._sql("SELECT sid FROM {s}.records WHERE id = %s FOR UPDATE"), (record_id,)
            ).fetchone()
            if row is None:
                return False
            # One vector writer per scope at a time: sequence numbers then commit in order, so a
            # cache that saw sequence n has seen every one below it.
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"memory-vectors:{self.schema}:{row[0]}",))
            conn.execute(self._sql("DELETE FROM {s}.vectors WHERE record_id = %s"), (record_id,))
            if vectors:
                conn.cursor().executemany(
                    self._sql("INSERT INTO {s}.vectors (record_id, part, sid, model, vec) VALUES (%s, %s, %s, %s, %s)"),
                    [(record_id, part, row[0], model, vec) for part, vec in enumerate(vectors)],
                )
            conn.execute(
                self._sql(
                    "INSERT INTO {s}.vectored (record_id, model) VALUES (%s, %s)"
                    " ON CONFLICT (record_id) DO UPDATE SET model = EXCLUDED.model"
                ),
                (record_id, model),
            )
            return True

        return self._write(work)

    # `nearest`, `nearest_each` and `closest`: `CachedVectors`, over these two.

    def _vector_sources(self, names: Sequence[str], model: str) -> list[tuple[str, VectorSource]]:
        return [(name, _ScopeVectors(self, name, model)) for name in names]

    def _ranked(self, ids: Sequence[str]) -> set[str]:
        """Which of `ids` are in the index (searchable, standing not negative)."""
        rows = self._read(
            "SELECT id FROM {s}.records WHERE id = ANY(%s) AND searchable AND standing >= 0", (list(ids),)
        )
        return {row[0] for row in rows}

    def _indexed(self, scopes: Sequence[Scope] | None) -> tuple[str, list[Any]] | None:
        """The WHERE of the indexed records of `scopes` (None: all); None when there are none to read."""
        where, params = "r.searchable AND r.standing >= 0", []
        if scopes is not None:
            names = live_names(scopes)
            if not names:
                return None
            where += " AND r.scope = ANY(%s)"
            params.append(names)
        return where, params

    def unvectored(
        self, scopes: Sequence[Scope] | None, model: str, *, limit: int, before: tuple[float, str] | None = None
    ) -> list[Record]:
        """The newest indexed records not yet done by `model` (older than `before`: a row
        comparison the (created_at, id) index answers by seeking, not by walking the done ones).
        """
        found = self._indexed(scopes)
        if found is None or limit <= 0:
            return []
        where, params = found
        if before is not None:
            where += " AND (r.created_at, r.id) < (%s, %s)"
            params = [*params, before[0], before[1]]
        rows = self._read(
            f"SELECT {columns('r')} FROM {{s}}.records r WHERE {where}"  # noqa: S608 - constant columns and clauses
            " AND NOT EXISTS (SELECT 1 FROM {s}.vectored x WHERE x.record_id = r.id AND x.model = %s)"
            " ORDER BY r.created_at DESC, r.id DESC LIMIT %s",
            (*params, model, limit),
        )
        return [row_to_record(row) for row in rows]

    def vector_counts(self, scopes: Sequence[Scope] | None, model: str) -> tuple[int, int]:
        """(indexed records done by `model`, indexed records not done)."""
        found = self._indexed(scopes)
        if found is None:
            return 0, 0
        where, params = found
        rows = self._read(
            "SELECT count(*), count(x.record_id) FROM {s}.records r"  # noqa: S608 - constant clauses
            f" LEFT JOIN {{s}}.vectored x ON x.record_id = r.id AND x.model = %s WHERE {where}",
            (model, *params),
        )
        total, done = (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)
        return done, total - done

    def drop_vectors(self, *, keep_model: str) -> int:
        """Delete every other model's vectors and marks; how many records lost theirs."""

        def work(conn: Any) -> int:
            conn.execute(self._sql("DELETE FROM {s}.vectors WHERE model <> %s"), (keep_model,))
            row = conn.execute(
                self._sql("WITH d AS (DELETE FROM {s}.vectored WHERE model <> %s RETURNING 1) SELECT count(*) FROM d"),
                (keep_model,),
            ).fetchone()
            return int(row[0])

        return self._write(work)

    def index_stats(self, scopes: Sequence[Scope]) -> IndexStats:
        """Indexed documents (searchable, standing >= 0) and their total length across `scopes`."""
        names = live_names(scopes)
        if not names:
            return IndexStats(0, 0)
        rows = self._read(
            "SELECT coalesce(sum(documents), 0), coalesce(sum(total_length), 0) FROM {s}.scopes WHERE name = ANY(%s)",
            (names,),
        )
        return IndexStats(int(rows[0][0]), int(rows[0][1])) if rows else IndexStats(0, 0)

    def postings(
        self, scopes: Sequence[Scope], terms: Sequence[str], *, max_df: int | None = None
    ) -> dict[str, TermPostings]:
        """Each distinct term's df across `scopes`, and its postings unless df > `max_df`: one statement."""
        distinct = list(dict.fromkeys(terms))
        result = {term: TermPostings(0, ()) for term in distinct}
        names = live_names(scopes)
        if not distinct or not names:
            return result
        # The df filter sits in WHERE, on the inner join's outer side, so the planner applies it
        # before the join: a term above max_df never has its postings read (in an ON clause of a
        # LEFT JOIN it would be checked row by row, after reading them).
        rows = self._read(
            "WITH sids AS (SELECT sid FROM {s}.scopes WHERE name = ANY(%(names)s)),"
            " dfs AS (SELECT term, sum(df)::bigint AS df FROM {s}.term_df"
            "   WHERE sid IN (SELECT sid FROM sids) AND term = ANY(%(terms)s) GROUP BY term)"
            " SELECT d.term, d.df, NULL::text, NULL::integer, NULL::integer FROM dfs d"
            " UNION ALL"
            " SELECT d.term, NULL, p.record_id, p.tf, p.length FROM dfs d"
            " JOIN {s}.postings p ON p.term = d.term AND p.sid IN (SELECT sid FROM sids)"
            " WHERE %(max_df)s::bigint IS NULL OR d.df <= %(max_df)s::bigint",
            {"names": names, "terms": distinct, "max_df": max_df},
        )
        dfs: dict[str, int] = {}
        found: dict[str, list[Posting]] = {}
        for term, df, record_id, tf, length in rows:
            if record_id is None:
                dfs[term] = int(df)
            else:
                found.setdefault(term, []).append(Posting(record_id, int(tf), int(length)))
        for term, df in dfs.items():
            result[term] = TermPostings(df, tuple(found.get(term, ())))
        return result

    # -- per-session state -------------------------------------------------------------------

    def stash_prompt(self, session_key: str, turn_id: str | None, prompt: str, *, ttl: float, keep: int) -> None:
        """Hold a prompt for the turn's write event; drops expired ones and all but the newest `keep`."""
        now = time.time()

        def work(conn: Any) -> None:
            conn.execute(self._sql("SELECT pg_advisory_xact_lock(hashtext(%s))"), (f"memory-handoff:{session_key}",))
            conn.execute(
                self._sql("DELETE FROM {s}.handoff WHERE session_key = %s AND (expires <= %s OR turn_id = %s)"),
                (session_key, now, turn_id),
            )
            conn.execute(
                self._sql("INSERT INTO {s}.handoff (session_key, turn_id, prompt, expires) VALUES (%s, %s, %s, %s)"),
                (session_key, turn_id, prompt, now + ttl),
            )
            conn.execute(
                self._sql(
                    "DELETE FROM {s}.handoff WHERE session_key = %s AND slot NOT IN"
                    " (SELECT slot FROM {s}.handoff WHERE session_key = %s ORDER BY slot DESC LIMIT %s)"
                ),
                (session_key, session_key, max(int(keep), 0)),
            )

        self._write(work, durable=False)

    def take_prompt(self, session_key: str, turn_id: str | None) -> str | None:
        """Remove and return the prompt stashed for `turn_id` (None: the newest unexpired one).

        `FOR UPDATE SKIP LOCKED` then `DELETE`: of two writers racing for one turn's prompt,
        exactly one gets it.
        """
        now = time.time()
        if turn_id is None:
            query = _TAKE_NEWEST
            params: list[Any] = [session_key, now]
        else:
            query = _TAKE_TURN
            params = [session_key, now, turn_id]

        def work(conn: Any) -> str | None:
            row = conn.execute(self._sql(query), params).fetchone()
            return None if row is None else str(row[0])

        return self._write(work, durable=False)

    def load_session(self, session_key: str) -> SessionState:
        """The session's injected set and live-context start (empty state for a new session)."""
        rows = self._read(
            "SELECT (SELECT live_since FROM {s}.sessions WHERE session_key = %s),"
            " (SELECT array_agg(record_id) FROM {s}.injected WHERE session_key = %s)",
            (session_key, session_key),
        )
        if not rows:
            return SessionState(frozenset(), 0.0)
        live, injected = rows[0]
        return SessionState(frozenset(injected or ()), float(live or 0.0))

    def add_injected(self, session_key: str, ids: Sequence[str]) -> None:
        """Remember that these records were injected in this session."""
        wanted = sorted(set(ids))
        if not wanted:
            return
        self._write(
            lambda conn: conn.execute(
                self._sql(
                    "INSERT INTO {s}.injected (session_key, record_id) SELECT %s, r FROM unnest(%s::text[]) AS u(r)"
                    " ON CONFLICT DO NOTHING"
                ),
                (session_key, wanted),
            ),
            durable=False,
        )

    def reset_session(self, session_key: str, now: float) -> None:
        """A compaction: clear the injected set and set `live_since` to `now`."""

        def work(conn: Any) -> None:
            conn.execute(self._sql("DELETE FROM {s}.injected WHERE session_key = %s"), (session_key,))
            conn.execute(
                self._sql(
                    "INSERT INTO {s}.sessions (session_key, live_since) VALUES (%s, %s)"
                    " ON CONFLICT (session_key) DO UPDATE SET live_since = EXCLUDED.live_since"
                ),
                (session_key, float(now)),
            )

        self._write(work, durable=False)

    # -- recall history ----------------------------------------------------------------------

    def record_recall(self, user: str, entry: str, *, keep: int, meta: Mapping[str, str]) -> None:
        """Append to `user`'s history, drop all but the newest `keep`, set `meta`: one transaction,
        sent in one pipeline (the insert is not visible to the delete, hence `keep - 1`).
        """

        def work(conn: Any) -> None:
            conn.execute(
                self._sql(
                    "WITH added AS (INSERT INTO {s}.recalls (username, entry) VALUES (%s, %s))"
                    " DELETE FROM {s}.recalls WHERE username = %s AND slot < (SELECT min(slot) FROM"
                    " (SELECT slot FROM {s}.recalls WHERE username = %s ORDER BY slot DESC LIMIT %s) AS newest)"
                ),
                (user, entry, user, user, max(int(keep) - 1, 1)),
            )
            self._set_meta(conn, meta)

        self._write(work, durable=False)

    def recalls(self, user: str) -> list[str]:
        """`user`'s recall history, newest first."""
        rows = self._read("SELECT entry FROM {s}.recalls WHERE username = %s ORDER BY slot DESC", (user,))
        return [str(r[0]) for r in rows]

    def set_recalls(self, user: str, entries: Sequence[str]) -> None:
        """Replace `user`'s history (given newest first)."""

        def work(conn: Any) -> None:
            conn.execute(self._sql("DELETE FROM {s}.recalls WHERE username = %s"), (user,))
            for entry in reversed(entries):
                conn.execute(self._sql("INSERT INTO {s}.recalls (username, entry) VALUES (%s, %s)"), (user, entry))

        self._write(work)

    # -- counters and metadata ---------------------------------------------------------------

    def bump(self, counts: Mapping[str, int]) -> None:
        """Add to named counters (created at zero)."""
        names = sorted(counts)
        if not names:
            return
        self._write(
            lambda conn: conn.execute(
                self._sql(
                    "INSERT INTO {s}.counters (name, value)"
                    " SELECT n, v FROM unnest(%s::text[], %s::bigint[]) AS u(n, v)"
                    " ORDER BY n ON CONFLICT (name) DO UPDATE SET value = {s}.counters.value + EXCLUDED.value"
                ),
                (names, [int(counts[n]) for n in names]),
            ),
            durable=False,
        )

    def counters(self) -> dict[str, int]:
        """Every counter."""
        return {name: int(value) for name, value in self._read("SELECT name, value FROM {s}.counters ORDER BY name")}

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Set small named values."""
        if values:
            self._write(lambda conn: self._set_meta(conn, values), durable=False)

    def _set_meta(self, conn: Any, values: Mapping[str, str]) -> None:
        """`set_meta` inside a transaction (`record_recall`'s too)."""
        names = sorted(values)
        if names:
            conn.execute(
                self._sql(
                    "INSERT INTO {s}.meta (name, value) SELECT n, v FROM unnest(%s::text[], %s::text[]) AS u(n, v)"
                    " ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value"
                ),
                (names, [str(values[n]) for n in names]),
            )

    def meta(self) -> dict[str, str]:
        """Every named value."""
        return {name: str(value) for name, value in self._read("SELECT name, value FROM {s}.meta ORDER BY name")}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _ScopeVectors:
    """One scope's vectors of one model, as the cache reads them (`store._vectors.VectorSource`)."""

    def __init__(self, store: PostgresStore, name: str, model: str) -> None:
        self._store, self._name, self._model = store, name, model

    def state(self) -> tuple[int, int]:
        rows = self._store._read(
            "WITH c AS (SELECT sid FROM {s}.scopes WHERE name = %s)"
            " SELECT (SELECT max(seq) FROM {s}.vectors WHERE sid = (SELECT sid FROM c) AND model = %s),"
            " (SELECT removed FROM {s}.vector_removals WHERE sid = (SELECT sid FROM c))",
            (self._name, self._model),
        )
        if not rows:
            return 0, 0
        return int(rows[0][0] or 0), int(rows[0][1] or 0)

    def rows_after(self, sequence: int, limit: int) -> list[Row]:
        rows = self._store._read(
            "SELECT record_id, seq, vec FROM {s}.vectors WHERE sid = (SELECT sid FROM {s}.scopes WHERE name = %s)"
            " AND model = %s AND seq > %s ORDER BY seq LIMIT %s",
            (self._name, self._model, sequence, limit),
        )
        return [(row[0], int(row[1]), bytes(row[2])) for row in rows]
