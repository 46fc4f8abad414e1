"""The embedded store: one SQLite file, stdlib `sqlite3`, no server.

Promises:
- Several processes (agent sessions, the MCP server, the CLI) may read and write the same file
  at once. The file runs in WAL mode, every write is one `BEGIN IMMEDIATE` transaction (so a
  writer waits for the lock up front instead of failing half-way), and a busy timeout bounds
  the wait.
- The file is created user-only (0600) and, when we create its folder, that folder is 0700.
  SQLite gives the `-wal` and `-shm` files the database file's permissions.
- The schema is versioned with `PRAGMA user_version` and migrated in place on first use; a file
  written by a newer memory-core is refused rather than damaged.
- The open connection is always to the file at the configured path: before each operation
  the file's device and inode are compared with the ones opened, and a file removed (its
  folder deleted) or replaced (`mv` over it) under a long-lived process is reopened at the
  path, so no turn is written into a file nobody can read any more. A connection that met a
  read-only file is dropped, so fixing the permissions is seen at the next call; and a
  `-wal`/`-shm` file SQLite re-created read-only while the database was is made writable
  again once the database is (`chmod 600 memory.db` is then enough).
- `on_create(path, device, inode)`, when set, is called when this store creates the file, so
  `doctor` can later tell a missing or replaced file from one never created
  (`sqlite_health`).
- The lexical index is our own (vocabulary, postings with document lengths, document
  frequencies, per-scope totals), not FTS5: the retriever scores, so every backend ranks alike.
  Postings are keyed (term, scope, document) in a WITHOUT ROWID table, so one term's postings
  are one range read, and record ids come from a compact `doc_ids` table rather than the wide
  `records` rows, so reading them touches few pages. Recall reads its postings by document
  number and the ids of the records it can rank only (`picked_postings`).

Failure: a lock still held after the timeout, or a file that cannot be opened, raises
`StoreUnavailable`; any other SQLite error raises `StoreError`. Nothing is ever half-written:
each method is one transaction.

SQL text is only ever formatted with `?` placeholders and column lists of this module (the
`noqa: S608` lines); every value is bound.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any

from memory_core.errors import StoreError, StoreUnavailable
from memory_core.models import IndexStats, Record, Scope, ScopeKind, TimelineEvent
from memory_core.store import _sqlite_events as _events
from memory_core.store._shared import RECORD_COLUMNS, columns, filter_clauses, live_names, row_to_record, scope_name
from memory_core.store._sqlite_schema import (
    MAX_PARAMS,
    MIGRATIONS,
    SCAN_PAGE,
    SCHEMA_VERSION,
    chunks,
    decode_terms,
    encode_terms,
    marks,
    path_from_url,
    translate,
)
from memory_core.store._vectors import CachedVectors, Row, VectorCache, VectorSource, check_vectors
from memory_core.store.base import (
    SUM_SLACK,
    NumberedPosting,
    PageCursor,
    Posting,
    RecordFilter,
    SessionState,
    TermPostings,
)
from memory_core.urls import redact_url

__all__ = ["SQLiteStore", "SCHEMA_VERSION"]

_SQLITE_MAGIC = b"SQLite format 3\x00"
_HELD = "SELECT doc, sid, standing, searchable, terms FROM records WHERE id = ?"
"""What unindexing or re-indexing a record needs to know of it (`_remove`, `adjust_standing`)."""
_SET_META = "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value"
_WAL_AUTOCHECKPOINT_PAGES = 10_000
"""About 40 MB of log before an automatic checkpoint (SQLite's default is 1,000 pages)."""


class SQLiteStore(CachedVectors):
    """The embedded `Store` over one SQLite file. Build it with `SQLiteStore.from_url`.

    The connection opens on first use (so building a store touches nothing) and is reopened
    after a fork. One lock serialises the threads of a process on the connection.
    """

    backend = "sqlite"

    def __init__(self, path: str, *, timeout: float = 1.0, display_url: str | None = None) -> None:
        self.path = path
        self.timeout = timeout
        self.display_url = display_url or f"sqlite:///{path}"
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.RLock()
        self._sids: dict[str, int] = {}
        self._identity: tuple[int, int] | None = None
        self._watch = -1  # a read-only descriptor of the open file, for the header check
        self.on_create: Callable[[str, int, int], None] | None = None
        self._vectors = VectorCache()

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 1.0) -> SQLiteStore:
        """Parse `sqlite:///relative`, `sqlite:////absolute`, `sqlite:///~/file`; raises `ConfigError` otherwise."""
        return cls(path_from_url(url), timeout=timeout, display_url=redact_url(url))

    # -- connection ------------------------------------------------------------------------

    def _still_the_file(self) -> bool:
        """Whether the open connection's file is still the one at `path` (same device and inode)."""
        if self._identity is None:
            return True
        try:
            info = os.stat(self.path)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == self._identity

    def _header_intact(self) -> bool:
        """Whether the file still starts as a SQLite database (garbage written over it does not).

        SQLite in WAL mode trusts its cache and the shared-memory index, so commits would go on
        "succeeding" into a file that can no longer be read: a capture must fail (and spool).
        """
        if self._watch < 0:
            return True
        try:
            head = os.pread(self._watch, len(_SQLITE_MAGIC), 0)
        except OSError:
            return False
        return head in (_SQLITE_MAGIC, b"")  # empty: created, not yet written

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            if self._still_the_file():
                if not self._header_intact():
                    self._conn.close()
                    self._conn = None
                    raise StoreError(f"sqlite store {self.path}: file is not a database (overwritten)")
                return self._conn
            # Removed or replaced under us: writing on would go into a file nobody reads.
            self._conn.close()
        self._conn = None
        self._sids = {}
        self._unwatch()
        try:
            if self.path != ":memory:":
                self._create_file()
                self._heal_sidecars()
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise StoreUnavailable(f"sqlite store cannot open {self.path}: {exc}") from exc
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            if self.path != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode: a power cut may lose the last commits, never corrupts the file.
            conn.execute("PRAGMA synchronous = NORMAL")
            # Deleted rows are overwritten, not left in free pages: `forget` and `scrub` must
            # really remove text from the file.
            conn.execute("PRAGMA secure_delete = ON")
            conn.execute("PRAGMA temp_store = MEMORY")
            conn.execute("PRAGMA cache_size = -16000")
            # No memory map: in WAL mode SQLite unmaps the whole file whenever another
            # connection has committed (every hook, every capture of another process), and
            # the next read then page-faults each page back in. Plain reads from the OS cache
            # cost the same when nothing else writes and a third as much when something does
            # (recall's postings read at 100,000 records: 0.44 ms against 1.6 ms, p50).
            conn.execute("PRAGMA mmap_size = 0")
            # Fewer, larger checkpoints: at the default (1,000 pages) a capture, which touches
            # about 70 index pages, paid for a checkpoint every few turns (p95 8.5 ms against
            # 2 ms at 100,000 records). The worker checkpoints while idle (`checkpoint`), so a
            # hook rarely meets one at all.
            conn.execute(f"PRAGMA wal_autocheckpoint = {_WAL_AUTOCHECKPOINT_PAGES}")
            self._migrate(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise translate(exc, "open") from exc
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._pid = os.getpid()
        if self.path != ":memory:":
            self._unwatch()
            try:
                self._watch = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
                info = os.fstat(self._watch)
                self._identity = (info.st_dev, info.st_ino)
            except OSError:
                self._unwatch()
        return conn

    def _unwatch(self) -> None:
        if self._watch >= 0:
            with contextlib.suppress(OSError):
                os.close(self._watch)
        self._watch = -1
        self._identity = None

    def _create_file(self) -> None:
        folder = os.path.dirname(self.path)
        if folder and not os.path.exists(folder):
            os.makedirs(folder, mode=0o700, exist_ok=True)
        if not os.path.exists(self.path):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
            except FileExistsError:
                return  # another process created it a moment ago
            try:
                info = os.fstat(fd)
            finally:
                os.close(fd)
            if self.on_create is not None:
                try:
                    self.on_create(self.path, info.st_dev, info.st_ino)
                except Exception:  # noqa: BLE001, S110 - a missed note only weakens doctor's diagnosis
                    pass

    def _heal_sidecars(self) -> None:
        """Make a read-only `-wal`/`-shm` of ours writable again once the database file is.

        SQLite creates them with the database's permissions; after a `chmod 444` and back,
        the stale read-only `-shm` would fail every write of every later process.
        """
        try:
            info = os.stat(self.path)
        except OSError:
            return
        if not os.access(self.path, os.W_OK):
            return
        for suffix in ("-wal", "-shm"):
            side = self.path + suffix
            try:
                side_info = os.stat(side)
                if side_info.st_uid == os.getuid() and not os.access(side, os.W_OK):
                    os.chmod(side, (info.st_mode & 0o777) | 0o600)
            except OSError:
                continue

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this memory-core's {SCHEMA_VERSION}: "
                "upgrade memory-core"
            )
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {step + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @contextlib.contextmanager
    def _reading(self, where: str = "read") -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, its errors raised as ours (`translate`, named `where`)."""
        with self._lock:
            conn = self._connect()
            try:
                yield conn
            except sqlite3.Error as exc:
                raise translate(exc, where) from exc

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._reading() as conn:
            return conn.execute(sql, params).fetchall()

    def _write(self, work: Any) -> Any:
        """Run `work(conn)` inside one `BEGIN IMMEDIATE` transaction; commit, or roll back and raise."""
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                if "readonly" in str(exc).lower():
                    self.close()
                raise translate(exc, "write") from exc
            try:
                result = work(conn)
                conn.execute("COMMIT")
                return result
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                if "readonly" in str(exc).lower():
                    # SQLite keeps a connection that met a read-only file read-only: reopen
                    # on the next call, so a fixed `chmod` is seen at once.
                    self.close()
                raise translate(exc, "write") from exc
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def checkpoint(self, *, truncate: bool = False) -> None:
        """Copy the write-ahead log into the database file.

        Long-lived processes call it when idle (without waiting for readers), so that no turn
        pays for a checkpoint. With `truncate`, after `forget` or `scrub`, it also empties the
        log file, where old copies of the removed text would otherwise outlive the rows while
        any other process (a worker) keeps the database open.
        """
        mode = "TRUNCATE" if truncate else "PASSIVE"
        with self._lock:
            if self._conn is None or not self._still_the_file():
                # Nothing of ours to fold; and housekeeping must not re-create a removed file
                # (a write will, and `doctor` must see the removal until then).
                self.close()
                return
            try:
                self._connect().execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
            except sqlite3.Error as exc:
                raise translate(exc, "checkpoint") from exc

    def ping(self) -> str:
        """Open the file (creating and migrating it if needed) and return SQLite's version."""
        self._read("SELECT 1")
        return sqlite3.sqlite_version

    def close(self) -> None:
        """Close the connection. Idempotent; a later call reopens it."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._unwatch()

    # -- scopes ----------------------------------------------------------------------------

    def _sid(self, conn: sqlite3.Connection, name: str, *, create: bool) -> int | None:
        sid = self._sids.get(name)
        if sid is not None:
            return sid
        row = conn.execute("SELECT sid FROM scopes WHERE name = ?", (name,)).fetchone()
        if row is None:
            if not create:
                return None
            sid = conn.execute("INSERT INTO scopes (name) VALUES (?) RETURNING sid", (name,)).fetchone()[0]
        else:
            sid = row[0]
        # Scopes are never deleted, so a cached id stays right for the life of the file.
        if row is not None:
            self._sids[name] = sid
        return int(sid)

    def _sids_for(self, conn: sqlite3.Connection, scopes: Sequence[Scope]) -> list[int]:
        sids = [self._sid(conn, name, create=False) for name in live_names(scopes)]
        return [sid for sid in sids if sid is not None]

    # -- records ---------------------------------------------------------------------------

    def _index(self, conn: sqlite3.Connection, doc: int, sid: int, terms: Mapping[str, int], sign: int) -> None:
        """Add (`sign` 1) or remove (`sign` -1) one document's postings, frequencies and scope totals."""
        length = sum(terms.values())
        conn.execute(
            "UPDATE scopes SET documents = documents + ?, total_length = total_length + ? WHERE sid = ?",
            (sign, sign * length, sid),
        )
        if not terms:
            return
        names = list(terms)
        if sign > 0:
            conn.executemany("INSERT OR IGNORE INTO vocab (term) VALUES (?)", [(t,) for t in names])
        tids: dict[str, int] = _pairs(conn, "SELECT term, tid FROM vocab WHERE term IN", names)
        if sign > 0:
            conn.executemany(
                "INSERT INTO postings (tid, sid, doc, tf, length) VALUES (?, ?, ?, ?, ?)",
                [(tids[t], sid, doc, tf, length) for t, tf in terms.items()],
            )
            conn.executemany(
                "INSERT INTO term_df (tid, sid, df) VALUES (?, ?, 1) ON CONFLICT (tid, sid) DO UPDATE SET df = df + 1",
                [(tids[t], sid) for t in names],
            )
        else:
            present = [tids[t] for t in names if t in tids]
            conn.executemany(
                "DELETE FROM postings WHERE tid = ? AND sid = ? AND doc = ?", [(t, sid, doc) for t in present]
            )
            conn.executemany("UPDATE term_df SET df = df - 1 WHERE tid = ? AND sid = ?", [(t, sid) for t in present])
            conn.executemany("DELETE FROM term_df WHERE tid = ? AND sid = ? AND df <= 0", [(t, sid) for t in present])
            # A term no record holds any more leaves the vocabulary: a forgotten or scrubbed
            # secret must not linger in the file as an index term.
            conn.executemany(
                "DELETE FROM vocab WHERE tid = ? AND NOT EXISTS (SELECT 1 FROM term_df WHERE tid = ?)",
                [(t, t) for t in present],
            )

    def _remove(self, conn: sqlite3.Connection, doc: int, sid: int, standing: int, searchable: int, terms: str) -> None:
        """Take one record (a `_HELD` row) out of the index and the file, with its vectors; its events stay."""
        if searchable and standing >= 0:
            self._index(conn, doc, sid, decode_terms(terms), -1)
        conn.execute("DELETE FROM records WHERE doc = ?", (doc,))
        conn.execute("DELETE FROM doc_ids WHERE doc = ?", (doc,))
        self._drop_doc_vectors(conn, doc)

    def put(self, record: Record, terms: Mapping[str, int], *, replace: bool = False) -> bool:
        """Insert `record` and its terms; an existing id is kept unless `replace`. True when written."""
        return self.put_many([(record, terms)], replace=replace) == 1

    def put_many(self, items: Sequence[tuple[Record, Mapping[str, int]]], *, replace: bool = False) -> int:
        """`put` for many records in one transaction (a bulk import, a benchmark's seed): all or none.

        Each record is written exactly as `put` writes it; returns how many were written.
        """
        for record, _ in items:
            if not record.scope.key:
                raise StoreError("a record needs a scope with a key")
        return int(self._write(lambda conn: sum(self._put_one(conn, r, t, replace) for r, t in items)))

    def _put_one(self, conn: sqlite3.Connection, record: Record, terms: Mapping[str, int], replace: bool) -> bool:
        name = scope_name(record.scope)
        # The tokenizer never yields whitespace inside a term; a term that has some could not be
        # stored unambiguously and no query could name it, so it is not indexed.
        clean = {
            term: int(tf) for term, tf in terms.items() if term and tf > 0 and "\n" not in term and "\t" not in term
        }
        old = conn.execute(_HELD, (record.id,)).fetchone()
        if old is not None:
            if not replace:
                return False
            self._remove(conn, *old)
        sid = self._sid(conn, name, create=True)
        assert sid is not None
        doc = conn.execute(
            "INSERT INTO records (id, scope, sid, text, kind, author, created_at, harness, session_id, turn_id,"
            " seq, standing, searchable, terms, length) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING doc",
            (
                record.id,
                name,
                sid,
                record.text,
                record.kind,
                record.author,
                float(record.created_at),
                record.harness,
                record.session_id,
                record.turn_id,
                int(record.seq),
                int(record.standing),
                1 if record.searchable else 0,
                encode_terms(clean),
                sum(clean.values()),
            ),
        ).fetchone()[0]
        conn.execute("INSERT INTO doc_ids (doc, id) VALUES (?, ?)", (doc, record.id))
        if record.searchable and record.standing >= 0:
            self._index(conn, doc, sid, clean, 1)
        return True

    def get(self, ids: Sequence[str]) -> list[Record]:
        """The records with these ids, in the order asked; unknown ids are skipped."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Record] = {}
        for chunk in chunks(wanted):
            rows = self._read(f"SELECT {RECORD_COLUMNS} FROM records WHERE id IN ({marks(len(chunk))})", chunk)  # noqa: S608
            for row in rows:
                found[row[0]] = row_to_record(row)
        return [found[i] for i in ids if i in found]

    def delete(self, ids: Sequence[str]) -> int:
        """Delete records and their index entries; returns how many existed."""
        wanted = list(dict.fromkeys(ids))

        def work(conn: sqlite3.Connection) -> int:
            deleted = 0
            for record_id in wanted:
                row = conn.execute(_HELD, (record_id,)).fetchone()
                if row is None:
                    continue
                self._remove(conn, *row)
                conn.execute("DELETE FROM events WHERE record_id = ?", (record_id,))
                deleted += 1
            return deleted

        return int(self._write(work))

    # -- timelines (`Timelines`; the SQL is in `_sqlite_events`) ---------------------------------

    def put_events(self, record_id: str, events: Sequence[TimelineEvent]) -> int:
        """Append the events `record_id` does not hold yet, in order; 0 when there is no such record."""
        return int(self._write(lambda conn: _events.put_events(conn, record_id, list(events))))

    def events(self, record_id: str) -> list[TimelineEvent]:
        """`record_id`'s events, in the order first stored."""
        with self._reading() as conn:
            return _events.read_events(conn, record_id)

    def event_usage(self, scope: Scope) -> list[tuple[str, int]]:
        """The records of `scope` with events and their events' bytes, newest first."""
        if not scope.key:
            return []
        with self._reading() as conn:
            return _events.event_usage(conn, scope_name(scope))

    def drop_events(self, record_ids: Sequence[str]) -> int:
        """Delete these records' events; the records stay."""
        return int(self._write(lambda conn: _events.drop_events(conn, record_ids)))

    def adjust_standing(self, record_id: str, delta: int) -> int | None:
        """Add `delta` to a record's standing; a record going negative leaves the index, and comes back."""

        def work(conn: sqlite3.Connection) -> int | None:
            row = conn.execute(_HELD, (record_id,)).fetchone()
            if row is None:
                return None
            doc, sid, standing, searchable, terms = row
            new = standing + delta
            conn.execute("UPDATE records SET standing = ? WHERE doc = ?", (new, doc))
            if searchable and (standing >= 0) != (new >= 0):
                self._index(conn, doc, sid, decode_terms(terms), 1 if new >= 0 else -1)
            return int(new)

        result: int | None = self._write(work)
        return result

    def scan(
        self,
        scopes: Sequence[Scope] | None,
        *,
        session_id: str | None = None,
        author: str | None = None,
        before: float | None = None,
    ) -> Iterator[Record]:
        """Every matching record, oldest first then by id, read a page at a time."""
        where, params = filter_clauses(RecordFilter(session_id=session_id, author=author, until=before), "?")
        names = None if scopes is None else live_names(scopes)
        if names is not None:
            if not names:
                return
            where.insert(0, f"scope IN ({marks(len(names))})")
            params[:0] = names
        # Without statistics SQLite prefers the time index (it saves the sort) and reads the
        # whole scope to find one session: 40 ms a capture at 100,000 records. A session is a
        # few hundred rows at most, so its own index and a sort are always the better plan.
        index = "INDEXED BY records_by_session" if session_id is not None and names is not None else ""
        cursor: tuple[float, str] | None = None
        while True:
            page_where = list(where)
            page_params = list(params)
            if cursor is not None:
                page_where.append("(created_at > ? OR (created_at = ? AND id > ?))")
                page_params.extend([cursor[0], cursor[0], cursor[1]])
            clause = f"WHERE {' AND '.join(page_where)}" if page_where else ""
            rows = self._read(
                f"SELECT {RECORD_COLUMNS} FROM records {index} {clause} ORDER BY created_at, id LIMIT {SCAN_PAGE}",  # noqa: S608
                page_params,
            )
            for row in rows:
                yield row_to_record(row)
            if len(rows) < SCAN_PAGE:
                return
            cursor = (rows[-1][5], rows[-1][0])

    def count(self, scopes: Sequence[Scope] | None) -> int:
        """How many records in these scopes (None: in the whole store)."""
        if scopes is None:
            return int(self._read("SELECT count(*) FROM records")[0][0])
        names = live_names(scopes)
        if not names:
            return 0
        return int(self._read(f"SELECT count(*) FROM records WHERE scope IN ({marks(len(names))})", names)[0][0])  # noqa: S608

    def session_records(self, scope: Scope, session_id: str, seqs: Sequence[int]) -> list[Record]:
        """The records of one session at the given positions, in position order (then id)."""
        wanted = sorted({int(s) for s in seqs})
        if not scope.key or not wanted:
            return []
        rows = self._read(
            f"SELECT {RECORD_COLUMNS} FROM records WHERE scope = ? AND session_id = ?"  # noqa: S608
            f" AND seq IN ({marks(len(wanted))}) ORDER BY seq, id",
            [scope_name(scope), session_id, *wanted],
        )
        return [row_to_record(row) for row in rows]

    def page(
        self, scope: Scope, where: RecordFilter, *, after: PageCursor | None = None, limit: int = 50
    ) -> list[Record]:
        """A page of one scope's records, newest first, read backwards along the scope's time index."""
        if not scope.key or limit <= 0:
            return []
        clauses, params = filter_clauses(where, "?")
        clauses.insert(0, "scope = ?")
        params.insert(0, scope_name(scope))
        if after is not None:
            # `created_at <= ?` on its own is what lets SQLite start the index read at the cursor;
            # with only the OR it read every newer entry first (50 ms half-way down 100,000).
            clauses.append("created_at <= ? AND (created_at < ? OR id < ?)")
            params.extend([after[0], after[0], after[1]])
        # As in `scan`: one session is a few hundred rows, its own index and a sort beat the time order.
        index = "INDEXED BY records_by_session" if where.session_id is not None else "INDEXED BY records_by_scope_time"
        rows = self._read(
            f"SELECT {RECORD_COLUMNS} FROM records {index} WHERE {' AND '.join(clauses)}"  # noqa: S608
            f" ORDER BY created_at DESC, id DESC LIMIT {int(limit)}",
            params,
        )
        return [row_to_record(row) for row in rows]

    def scope_keys(self, kind: ScopeKind) -> list[str]:
        """Every key of `kind` holding records: the scope table, each checked with one index probe."""
        prefix = f"{kind}:"
        rows = self._read(
            "SELECT name FROM scopes WHERE name >= ? AND name < ?"
            " AND EXISTS (SELECT 1 FROM records WHERE records.scope = scopes.name) ORDER BY name",
            [prefix, f"{kind};"],
        )
        return [str(row[0])[len(prefix) :] for row in rows]

    def next_position(self, scope: Scope, session_id: str) -> int:
        """One past the session's highest position: one probe of `records_by_session`."""
        if not scope.key:
            return 0
        rows = self._read(
            "SELECT seq FROM records INDEXED BY records_by_session WHERE scope = ? AND session_id = ?"
            " ORDER BY seq DESC LIMIT 1",
            [scope_name(scope), session_id],
        )
        return int(rows[0][0]) + 1 if rows else 0

    # -- lexical index ---------------------------------------------------------------------

    def index_stats(self, scopes: Sequence[Scope]) -> IndexStats:
        """Indexed documents (searchable, standing >= 0) and their total length across `scopes`."""
        names = live_names(scopes)
        if not names:
            return IndexStats(0, 0)
        row = self._read(
            f"SELECT coalesce(sum(documents), 0), coalesce(sum(total_length), 0) FROM scopes"  # noqa: S608
            f" WHERE name IN ({marks(len(names))})",
            names,
        )[0]
        return IndexStats(int(row[0]), int(row[1]))

    def postings(
        self, scopes: Sequence[Scope], terms: Sequence[str], *, max_df: int | None = None
    ) -> dict[str, TermPostings]:
        """Each distinct term's document frequency across `scopes`, and its postings unless df > `max_df`."""
        return self._postings(scopes, terms, max_df, None)

    def picked_postings(
        self,
        scopes: Sequence[Scope],
        terms: Sequence[str],
        *,
        max_df: int | None,
        pick: Callable[[Mapping[str, Sequence[NumberedPosting]]], Collection[int]],
    ) -> dict[str, TermPostings]:
        """`postings`, but only those of the documents `pick` chooses from every one (`PickedPostings`).

        The postings are read without their record ids (a `doc_ids` probe each), and only the
        picked documents' ids are read, in the same read transaction.
        """
        return self._postings(scopes, terms, max_df, pick)

    def _postings(
        self,
        scopes: Sequence[Scope],
        terms: Sequence[str],
        max_df: int | None,
        pick: Callable[[Mapping[str, Sequence[NumberedPosting]]], Collection[int]] | None,
    ) -> dict[str, TermPostings]:
        distinct = list(dict.fromkeys(terms))
        result = {term: TermPostings(0, ()) for term in distinct}
        if not distinct:
            return result
        with self._reading("postings") as conn:
            try:
                sids = self._sids_for(conn, scopes)
                if not sids:
                    return result
                if pick is not None:
                    # One snapshot: a document number must name the same record when its id is read.
                    conn.execute("BEGIN")
                dfs = self._dfs(conn, distinct, sids)
                read = [tid for tid, (_, df) in dfs.items() if max_df is None or df <= max_df]
                if pick is None:
                    found = self._all_postings(conn, read, sids)
                else:
                    numbered = self._numbered_postings(conn, read, sids)
                    ids = self._doc_ids(conn, pick({dfs[tid][0]: rows for tid, rows in numbered.items() if rows}))
                    found = {
                        tid: [Posting(ids[doc], tf, length) for doc, tf, length in rows if doc in ids]
                        for tid, rows in numbered.items()
                    }
            finally:
                if pick is not None and conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")  # the snapshot's end: a read, nothing to keep
        for tid, (term, df) in dfs.items():
            result[term] = TermPostings(df, tuple(found.get(tid, ())))
        return result

    @staticmethod
    def _dfs(conn: sqlite3.Connection, terms: Sequence[str], sids: Sequence[int]) -> dict[int, tuple[str, int]]:
        """Each known term's id -> (the term, its document frequency across the scopes `sids`)."""
        dfs: dict[int, tuple[str, int]] = {}
        sid_marks = marks(len(sids))
        for chunk in chunks(terms, MAX_PARAMS - len(sids)):
            rows = conn.execute(
                f"SELECT v.tid, v.term, sum(d.df) FROM vocab v JOIN term_df d ON d.tid = v.tid"  # noqa: S608
                f" WHERE v.term IN ({marks(len(chunk))}) AND d.sid IN ({sid_marks}) GROUP BY v.tid",
                [*chunk, *sids],
            ).fetchall()
            for tid, term, df in rows:
                dfs[tid] = (term, int(df))
        return dfs

    @staticmethod
    def _posting_rows(
        conn: sqlite3.Connection, select: str, tids: Sequence[int], sids: Sequence[int]
    ) -> Iterator[tuple[int, Any, int, int]]:
        """(tid, key, tf, length) of every posting of `tids` in the scopes `sids`, read with
        `select` (a `SELECT p.tid, <key>, p.tf, p.length FROM postings p ...` head), in chunks
        that fit SQLite's parameter limit.
        """
        sid_marks = marks(len(sids))
        for chunk in chunks(tids, MAX_PARAMS - len(sids)):
            yield from conn.execute(
                f"{select} WHERE p.tid IN ({marks(len(chunk))}) AND p.sid IN ({sid_marks})",
                [*chunk, *sids],
            ).fetchall()

    @classmethod
    def _all_postings(
        cls, conn: sqlite3.Connection, tids: Sequence[int], sids: Sequence[int]
    ) -> dict[int, list[Posting]]:
        found: dict[int, list[Posting]] = {tid: [] for tid in tids}
        head = "SELECT p.tid, d.id, p.tf, p.length FROM postings p JOIN doc_ids d ON d.doc = p.doc"
        for tid, record_id, tf, length in cls._posting_rows(conn, head, tids, sids):
            found[tid].append(Posting(record_id, tf, length))
        return found

    @classmethod
    def _numbered_postings(
        cls, conn: sqlite3.Connection, tids: Sequence[int], sids: Sequence[int]
    ) -> dict[int, list[NumberedPosting]]:
        """Each term id's postings as (doc, tf, length): the primary-key range alone, no id probe."""
        found: dict[int, list[NumberedPosting]] = {tid: [] for tid in tids}
        for tid, doc, tf, length in cls._posting_rows(
            conn, "SELECT p.tid, p.doc, p.tf, p.length FROM postings p", tids, sids
        ):
            found[tid].append((doc, tf, length))
        return found

    @staticmethod
    def _doc_ids(conn: sqlite3.Connection, docs: Collection[int]) -> dict[int, str]:
        """The record ids of these document numbers (in number order, so the probes walk the table once)."""
        return _pairs(conn, "SELECT doc, id FROM doc_ids WHERE doc IN", sorted(docs))

    @staticmethod
    def _tids(conn: sqlite3.Connection, terms: Sequence[str]) -> dict[int, str]:
        return _pairs(conn, "SELECT tid, term FROM vocab WHERE term IN", terms)

    def top_postings(
        self,
        scopes: Sequence[Scope],
        weights: Mapping[str, float],
        *,
        depth: int,
        average: float,
        k1: float,
        b: float,
    ) -> dict[str, tuple[Posting, ...]]:
        """The postings of the records that may rank among the `depth` best (`SummingPostings`).

        One statement: BM25 summed per document over the terms' postings (a temporary b-tree
        in SQLite's C, where the same sums in Python cost five times as much), the `depth`-th
        best sum, then the postings of the documents within `SUM_SLACK` of it or above, read
        by primary key. A query of more terms than one statement may bind reads them all.
        """
        result: dict[str, tuple[Posting, ...]] = {term: () for term in weights}
        if not weights or depth <= 0:
            return result
        with self._reading("postings") as conn:
            sids = self._sids_for(conn, scopes)
            tids = self._tids(conn, list(weights)) if sids else {}
            if not tids:
                return result
            if 2 * len(tids) + 2 * len(sids) + 7 > MAX_PARAMS:
                found = self._all_postings(conn, list(tids), sids)
            else:
                found = self._top_postings(conn, tids, weights, sids, depth, (average, k1, b))
        for tid, term in tids.items():
            result[term] = tuple(found.get(tid, ()))
        return result

    @staticmethod
    def _top_postings(
        conn: sqlite3.Connection,
        tids: Mapping[int, str],
        weights: Mapping[str, float],
        sids: Sequence[int],
        depth: int,
        bm25: tuple[float, float, float],
    ) -> dict[int, list[Posting]]:
        average, k1, b = bm25
        sid_marks = marks(len(sids))
        values = ", ".join("(?, ?)" for _ in tids)
        # CROSS JOINs fix the order: the few top documents drive the primary-key reads, not the
        # other way round (the planner otherwise scans every posting again to probe them).
        sql = (
            f"WITH w(tid, weight) AS (VALUES {values}),"  # noqa: S608
            " sums(doc, score) AS MATERIALIZED (SELECT p.doc,"
            " sum(w.weight * p.tf * ? / (p.tf + ? * (? + ? * p.length / ?)))"
            f" FROM w JOIN postings p ON p.tid = w.tid AND p.sid IN ({sid_marks}) GROUP BY p.doc),"
            " top(doc) AS MATERIALIZED (SELECT doc FROM sums WHERE score >="
            " coalesce((SELECT score FROM sums ORDER BY score DESC LIMIT 1 OFFSET ?), 0.0) * ?)"
            " SELECT p.tid, d.id, p.tf, p.length FROM top CROSS JOIN doc_ids d ON d.doc = top.doc"
            f" CROSS JOIN postings p ON p.tid IN (SELECT tid FROM w) AND p.sid IN ({sid_marks}) AND p.doc = top.doc"
        )
        params: list[Any] = [v for tid, term in tids.items() for v in (tid, weights[term])]
        params += [k1 + 1.0, k1, 1.0 - b, b, average, *sids, depth - 1, 1.0 - SUM_SLACK, *sids]
        found: dict[int, list[Posting]] = {tid: [] for tid in tids}
        for tid, record_id, tf, length in conn.execute(sql, params).fetchall():
            found[tid].append(Posting(record_id, tf, length))
        return found

    def record_postings(
        self, scopes: Sequence[Scope], terms: Sequence[str], ids: Sequence[str]
    ) -> dict[str, tuple[Posting, ...]]:
        """Each term's postings among the records `ids` only (`SummingPostings`)."""
        distinct = list(dict.fromkeys(terms))
        result: dict[str, tuple[Posting, ...]] = {term: () for term in distinct}
        wanted = list(dict.fromkeys(ids))
        if not distinct or not wanted:
            return result
        with self._reading("postings") as conn:
            sids = self._sids_for(conn, scopes)
            tids = self._tids(conn, distinct) if sids else {}
            found: dict[int, list[Posting]] = {tid: [] for tid in tids}
            # Terms and ids share one statement's parameters: half the room each, at most.
            half = (MAX_PARAMS - len(sids)) // 2
            for tid_chunk in chunks(list(tids), half):
                for id_chunk in chunks(wanted, half):
                    rows = conn.execute(
                        f"SELECT p.tid, r.id, p.tf, p.length FROM records r CROSS JOIN postings p"  # noqa: S608
                        f" ON p.tid IN ({marks(len(tid_chunk))}) AND p.sid IN ({marks(len(sids))})"
                        f" AND p.doc = r.doc WHERE r.id IN ({marks(len(id_chunk))})",
                        [*tid_chunk, *sids, *id_chunk],
                    ).fetchall()
                    for tid, record_id, tf, length in rows:
                        found[tid].append(Posting(record_id, tf, length))
        for tid, term in tids.items():
            result[term] = tuple(found[tid])
        return result

    # -- vectors -------------------------------------------------------------------------

    @staticmethod
    def _drop_doc_vectors(conn: sqlite3.Connection, doc: int) -> None:
        """A record replaced or deleted takes its vectors with it (a replaced text is embedded anew).

        The models whose vectors went count a removal, so every process's cache reloads them.
        """
        conn.execute(
            "UPDATE vector_models SET removed = removed + 1 WHERE mid IN (SELECT mid FROM vectors WHERE doc = ?)",
            (doc,),
        )
        conn.execute("DELETE FROM vectors WHERE doc = ?", (doc,))
        conn.execute("DELETE FROM vectored WHERE doc = ?", (doc,))

    @staticmethod
    def _mid(conn: sqlite3.Connection, model: str, *, create: bool) -> int | None:
        row = conn.execute("SELECT mid FROM vector_models WHERE name = ?", (model,)).fetchone()
        if row is not None:
            return int(row[0])
        if not create:
            return None
        return int(conn.execute("INSERT INTO vector_models (name) VALUES (?) RETURNING mid", (model,)).fetchone()[0])

    def put_vectors(self, record_id: str, model: str, vectors: Sequence[bytes]) -> bool:
        """Replace the record's vectors with these, and mark it done by `model`; False if no such record."""
        check_vectors(vectors)

        def work(conn: sqlite3.Connection) -> bool:
            row = conn.execute("SELECT doc, sid FROM records WHERE id = ?", (record_id,)).fetchone()
            if row is None:
                return False
            doc, sid = row
            mid = self._mid(conn, model, create=True)
            self._drop_doc_vectors(conn, doc)
            conn.executemany(
                "INSERT INTO vectors (doc, part, sid, mid, vec) VALUES (?, ?, ?, ?, ?)",
                [(doc, part, sid, mid, sqlite3.Binary(vec)) for part, vec in enumerate(vectors)],
            )
            conn.execute("INSERT OR REPLACE INTO vectored (doc, mid) VALUES (?, ?)", (doc, mid))
            return True

        return bool(self._write(work))

    # `nearest`, `nearest_each` and `closest`: `CachedVectors`, over these two.

    def _vector_sources(self, names: Sequence[str], model: str) -> list[tuple[str, VectorSource]]:
        """The scopes this file has vectors of `model` for (none when no record has any)."""
        with self._reading() as conn:
            mid = self._mid(conn, model, create=False)
            if mid is None:
                return []
            found = [(name, self._sid(conn, name, create=False)) for name in names]
        return [(name, _ScopeVectors(self, sid, mid)) for name, sid in found if sid is not None]

    def _ranked(self, ids: Sequence[str]) -> set[str]:
        """Which of `ids` are in the index (searchable, standing not negative)."""
        kept: set[str] = set()
        for chunk in chunks(list(ids)):
            rows = self._read(
                f"SELECT id FROM records WHERE id IN ({marks(len(chunk))}) AND searchable = 1 AND standing >= 0",  # noqa: S608
                chunk,
            )
            kept.update(row[0] for row in rows)
        return kept

    def _unvectored_where(
        self, conn: sqlite3.Connection, scopes: Sequence[Scope] | None
    ) -> tuple[str, list[Any]] | None:
        """The WHERE of the searchable records of `scopes` (None: all); None when no scope has any."""
        where, params = "r.searchable = 1 AND r.standing >= 0", []
        if scopes is not None:
            sids = self._sids_for(conn, scopes)
            if not sids:
                return None
            where += f" AND r.sid IN ({marks(len(sids))})"
            params.extend(sids)
        return where, params

    def unvectored(
        self, scopes: Sequence[Scope] | None, model: str, *, limit: int, before: tuple[float, str] | None = None
    ) -> list[Record]:
        """The newest searchable records not yet done by `model` (older than `before`).

        One indexed walk per scope (`records_by_scope_time`, newest first from `before`): across
        every scope at once SQLite read and sorted the whole table for each page.
        """
        if limit <= 0:
            return []
        after = "" if before is None else " AND (r.created_at, r.id) < (?, ?)"
        sql = (
            f"SELECT {columns('r')} FROM records r WHERE r.scope = ? AND r.searchable = 1 AND r.standing >= 0{after}"  # noqa: S608
            " AND NOT EXISTS (SELECT 1 FROM vectored x WHERE x.doc = r.doc AND x.mid = ?)"
            " ORDER BY r.created_at DESC, r.id DESC LIMIT ?"
        )
        found: list[Any] = []
        with self._reading() as conn:
            if scopes is None:
                names = [row[0] for row in conn.execute("SELECT name FROM scopes ORDER BY name")]
            else:
                names = live_names(scopes)
            mid = self._mid(conn, model, create=False)
            for name in names:
                params = (name, *(before or ()), -1 if mid is None else mid, limit)
                found += conn.execute(sql, params).fetchall()
        records = sorted((row_to_record(row) for row in found), key=lambda r: (r.created_at, r.id), reverse=True)
        return records[:limit]

    def vector_counts(self, scopes: Sequence[Scope] | None, model: str) -> tuple[int, int]:
        """(searchable records done by `model`, searchable records not done)."""
        with self._reading() as conn:
            found = self._unvectored_where(conn, scopes)
            if found is None:
                return 0, 0
            where, params = found
            mid = self._mid(conn, model, create=False)
            total, done = conn.execute(
                "SELECT count(*), count(x.doc) FROM records r"  # noqa: S608
                f" LEFT JOIN vectored x ON x.doc = r.doc AND x.mid = ? WHERE {where}",
                (-1 if mid is None else mid, *params),
            ).fetchone()
        return int(done), int(total) - int(done)

    def drop_vectors(self, *, keep_model: str) -> int:
        """Delete every other model's vectors and marks; returns how many records lost theirs."""

        def work(conn: sqlite3.Connection) -> int:
            others = [row[0] for row in conn.execute("SELECT mid FROM vector_models WHERE name != ?", (keep_model,))]
            if not others:
                return 0
            held = marks(len(others))
            conn.execute(f"DELETE FROM vectors WHERE mid IN ({held})", others)  # noqa: S608
            dropped = conn.execute(f"DELETE FROM vectored WHERE mid IN ({held})", others).rowcount  # noqa: S608
            conn.execute(f"DELETE FROM vector_models WHERE mid IN ({held})", others)  # noqa: S608
            return int(dropped)

        return int(self._write(work))

    # -- per-session state -----------------------------------------------------------------

    def stash_prompt(self, session_key: str, turn_id: str | None, prompt: str, *, ttl: float, keep: int) -> None:
        """Hold a prompt for the turn's write event; drops expired ones and all but the newest `keep`."""
        now = time.time()

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM handoff WHERE session_key = ? AND expires <= ?", (session_key, now))
            if turn_id is not None:
                conn.execute("DELETE FROM handoff WHERE session_key = ? AND turn_id = ?", (session_key, turn_id))
            conn.execute(
                "INSERT INTO handoff (session_key, turn_id, prompt, expires) VALUES (?, ?, ?, ?)",
                (session_key, turn_id, prompt, now + ttl),
            )
            conn.execute(
                "DELETE FROM handoff WHERE session_key = ? AND slot NOT IN"
                " (SELECT slot FROM handoff WHERE session_key = ? ORDER BY slot DESC LIMIT ?)",
                (session_key, session_key, max(keep, 0)),
            )

        self._write(work)

    def take_prompt(self, session_key: str, turn_id: str | None) -> str | None:
        """Remove and return the prompt stashed for `turn_id` (None: the newest unexpired one)."""
        now = time.time()

        def work(conn: sqlite3.Connection) -> str | None:
            if turn_id is None:
                row = conn.execute(
                    "SELECT slot, prompt FROM handoff WHERE session_key = ? AND expires > ? ORDER BY slot DESC LIMIT 1",
                    (session_key, now),
                ).fetchone()
            else:
                row = conn.execute(
                    "SELECT slot, prompt FROM handoff WHERE session_key = ? AND turn_id = ? AND expires > ?"
                    " ORDER BY slot DESC LIMIT 1",
                    (session_key, turn_id, now),
                ).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM handoff WHERE slot = ?", (row[0],))
            return str(row[1])

        result: str | None = self._write(work)
        return result

    def load_session(self, session_key: str) -> SessionState:
        """The session's injected set and live-context start (empty state for a new session)."""
        with self._reading() as conn:
            injected = conn.execute("SELECT record_id FROM injected WHERE session_key = ?", (session_key,)).fetchall()
            row = conn.execute("SELECT live_since FROM sessions WHERE session_key = ?", (session_key,)).fetchone()
        return SessionState(frozenset(r[0] for r in injected), float(row[0]) if row else 0.0)

    def add_injected(self, session_key: str, ids: Sequence[str]) -> None:
        """Remember that these records were injected in this session."""
        if not ids:
            return
        self._write(
            lambda conn: conn.executemany(
                "INSERT OR IGNORE INTO injected (session_key, record_id) VALUES (?, ?)",
                [(session_key, i) for i in dict.fromkeys(ids)],
            )
        )

    def reset_session(self, session_key: str, now: float) -> None:
        """A compaction: clear the injected set and set `live_since` to `now`."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM injected WHERE session_key = ?", (session_key,))
            conn.execute(
                "INSERT INTO sessions (session_key, live_since) VALUES (?, ?)"
                " ON CONFLICT (session_key) DO UPDATE SET live_since = excluded.live_since",
                (session_key, now),
            )

        self._write(work)

    # -- recall history --------------------------------------------------------------------

    def record_recall(self, user: str, entry: str, *, keep: int, meta: Mapping[str, str]) -> None:
        """Append to `user`'s history, drop all but the newest `keep`, set `meta`: one transaction."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO recalls (username, entry) VALUES (?, ?)", (user, entry))
            conn.execute(
                "DELETE FROM recalls WHERE username = ? AND slot NOT IN"
                " (SELECT slot FROM recalls WHERE username = ? ORDER BY slot DESC LIMIT ?)",
                (user, user, max(keep, 1)),
            )
            conn.executemany(_SET_META, list(meta.items()))

        self._write(work)

    def recalls(self, user: str) -> list[str]:
        """`user`'s recall history, newest first."""
        return [
            str(r[0]) for r in self._read("SELECT entry FROM recalls WHERE username = ? ORDER BY slot DESC", [user])
        ]

    def set_recalls(self, user: str, entries: Sequence[str]) -> None:
        """Replace `user`'s history (given newest first)."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM recalls WHERE username = ?", (user,))
            conn.executemany(
                "INSERT INTO recalls (username, entry) VALUES (?, ?)", [(user, e) for e in reversed(entries)]
            )

        self._write(work)

    # -- counters and metadata -------------------------------------------------------------

    def bump(self, counts: Mapping[str, int]) -> None:
        """Add to named counters (created at zero)."""
        if not counts:
            return
        self._write(
            lambda conn: conn.executemany(
                "INSERT INTO counters (name, value) VALUES (?, ?)"
                " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
                list(counts.items()),
            )
        )

    def counters(self) -> dict[str, int]:
        """Every counter."""
        return {name: int(value) for name, value in self._read("SELECT name, value FROM counters ORDER BY name")}

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Set small named values."""
        if not values:
            return
        self._write(lambda conn: conn.executemany(_SET_META, list(values.items())))

    def meta(self) -> dict[str, str]:
        """Every named value."""
        return {name: str(value) for name, value in self._read("SELECT name, value FROM meta ORDER BY name")}


def _pairs(conn: sqlite3.Connection, head: str, values: Sequence[Any]) -> dict[Any, Any]:
    """The (key, value) rows of `head` (a constant `SELECT key, value ... WHERE x IN`) over `values`,
    in statements that fit the parameter limit.
    """
    found: dict[Any, Any] = {}
    for chunk in chunks(values):
        found.update(conn.execute(f"{head} ({marks(len(chunk))})", list(chunk)).fetchall())
    return found


class _ScopeVectors:
    """One scope's vectors of one model, as the cache reads them (`store._vectors.VectorSource`)."""

    def __init__(self, store: SQLiteStore, sid: int, mid: int) -> None:
        self._store, self._sid, self._mid = store, sid, mid

    def state(self) -> tuple[int, int]:
        rows = self._store._read(
            "SELECT (SELECT max(rowid) FROM vectors WHERE sid = ? AND mid = ?),"
            " (SELECT removed FROM vector_models WHERE mid = ?)",
            (self._sid, self._mid, self._mid),
        )
        latest, removed = rows[0]
        return int(latest or 0), int(removed if removed is not None else -1)

    def rows_after(self, sequence: int, limit: int) -> list[Row]:
        rows = self._store._read(
            "SELECT d.id, v.rowid, v.vec FROM vectors v JOIN doc_ids d ON d.doc = v.doc"
            " WHERE v.sid = ? AND v.mid = ? AND v.rowid > ? ORDER BY v.rowid LIMIT ?",
            (self._sid, self._mid, sequence, limit),
        )
        return [(row[0], int(row[1]), bytes(row[2])) for row in rows]
