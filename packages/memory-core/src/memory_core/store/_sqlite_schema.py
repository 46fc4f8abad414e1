"""The embedded store's file format and plumbing: schema, migrations, URL rules, term codecs.

`SCHEMA_VERSION` is what `PRAGMA user_version` holds once a file is migrated; `MIGRATIONS[v]`
takes a file from version v to v + 1 (SQL statements separated by `;`). Everything else here is
pure functions the store composes. `path_from_url` raises `ConfigError` for a URL it cannot
read; nothing else raises.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from memory_core.errors import ConfigError, StoreError, StoreUnavailable

__all__ = [
    "SCHEMA_VERSION",
    "MIGRATIONS",
    "SCAN_PAGE",
    "MAX_PARAMS",
    "path_from_url",
    "encode_terms",
    "decode_terms",
    "marks",
    "chunks",
    "translate",
]

SCHEMA_VERSION = 5
"""The schema this module writes. `MIGRATIONS[v]` takes a file from version v to v + 1."""

SCAN_PAGE = 500
"""Records fetched per query while scanning, so an export never holds the whole store in memory."""
MAX_PARAMS = 900
"""Bound parameters per statement: below SQLite's historic 999 limit on every build."""

SCHEMA_V1 = """
CREATE TABLE scopes (
    sid INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    documents INTEGER NOT NULL DEFAULT 0,
    total_length INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE records (
    doc INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    sid INTEGER NOT NULL,
    text TEXT NOT NULL,
    kind TEXT NOT NULL,
    author TEXT NOT NULL,
    created_at REAL NOT NULL,
    harness TEXT,
    session_id TEXT,
    turn_id TEXT,
    seq INTEGER NOT NULL,
    standing INTEGER NOT NULL,
    searchable INTEGER NOT NULL,
    terms TEXT NOT NULL,
    length INTEGER NOT NULL
);
CREATE INDEX records_by_scope_time ON records (scope, created_at, id);
CREATE INDEX records_by_session ON records (scope, session_id, seq);
CREATE TABLE doc_ids (
    doc INTEGER PRIMARY KEY,
    id TEXT NOT NULL
);
CREATE TABLE vocab (
    tid INTEGER PRIMARY KEY,
    term TEXT NOT NULL UNIQUE
);
CREATE TABLE postings (
    tid INTEGER NOT NULL,
    sid INTEGER NOT NULL,
    doc INTEGER NOT NULL,
    tf INTEGER NOT NULL,
    length INTEGER NOT NULL,
    PRIMARY KEY (tid, sid, doc)
) WITHOUT ROWID;
CREATE TABLE term_df (
    tid INTEGER NOT NULL,
    sid INTEGER NOT NULL,
    df INTEGER NOT NULL,
    PRIMARY KEY (tid, sid)
) WITHOUT ROWID;
CREATE TABLE handoff (
    slot INTEGER PRIMARY KEY,
    session_key TEXT NOT NULL,
    turn_id TEXT,
    prompt TEXT NOT NULL,
    expires REAL NOT NULL
);
CREATE INDEX handoff_by_session ON handoff (session_key, slot);
CREATE TABLE sessions (
    session_key TEXT PRIMARY KEY,
    live_since REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE injected (
    session_key TEXT NOT NULL,
    record_id TEXT NOT NULL,
    PRIMARY KEY (session_key, record_id)
) WITHOUT ROWID;
CREATE TABLE counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""

SCHEMA_V2 = """
CREATE TABLE recalls (
    slot INTEGER PRIMARY KEY,
    username TEXT NOT NULL,
    entry TEXT NOT NULL
);
CREATE INDEX recalls_by_user ON recalls (username, slot);
"""
"""Version 2: each user's bounded history of recent recalls (`memory ui`'s Recalls page)."""

SCHEMA_V3 = """
CREATE TABLE vector_models (
    mid INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE vectors (
    doc INTEGER NOT NULL,
    part INTEGER NOT NULL,
    sid INTEGER NOT NULL,
    mid INTEGER NOT NULL,
    vec BLOB NOT NULL,
    PRIMARY KEY (doc, part)
);
CREATE INDEX vectors_by_scope ON vectors (sid, mid);
CREATE TABLE vectored (
    doc INTEGER PRIMARY KEY,
    mid INTEGER NOT NULL
);
"""
"""Version 3: each record's passage vectors (`store.base.Vectors`), named by the model that made
them, and which records a model has done (`vectored`: a record whose text has no passage is done
too, with no vector). A rowid table, not WITHOUT ROWID: a vector is 1.5 KB, too wide for one."""

SCHEMA_V4 = """
CREATE TABLE events (
    eid INTEGER PRIMARY KEY,
    record_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    call_id TEXT NOT NULL,
    at REAL NOT NULL,
    text TEXT NOT NULL
);
CREATE UNIQUE INDEX events_by_id ON events (record_id, event_id);
"""
"""Version 4: each turn's timeline (tool calls, results, injected text). Keyed by the record's id
rather than its `doc`, because rewriting a record (a scrub, a re-index) gives it a new `doc`.
A rowid table, not WITHOUT ROWID: an event's text runs to 8 KiB, and SQLite keeps such rows far
more compactly there. Order is the rowid's: a new row's is always above every row's before it."""

SCHEMA_V5 = """
ALTER TABLE vector_models ADD COLUMN removed INTEGER NOT NULL DEFAULT 0
"""
"""Version 5: a count of removals of each model's vectors, so a process's cache of them
(`store._vectors`) knows when to reload; additions it reads by rowid (`vectors_by_scope` ends
with it)."""

MIGRATIONS: tuple[str, ...] = (SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5)


def path_from_url(url: str) -> str:
    """The file path of a `sqlite:` URL, SQLAlchemy style; `:memory:` for an in-memory store."""
    if not url.lower().startswith("sqlite://"):
        raise ConfigError(f"MEMORY_URL {url!r} is not a sqlite:// URL")
    rest = url[len("sqlite://") :]
    rest = rest.split("?", 1)[0]
    if rest in ("", "/", "/:memory:"):
        return ":memory:"
    if not rest.startswith("/"):
        raise ConfigError(f"MEMORY_URL {url!r} names a host; use sqlite:///relative/path or sqlite:////absolute/path")
    path = rest[1:]
    if path.startswith("~"):
        path = os.path.expanduser(path)
    return path


def encode_terms(terms: Mapping[str, int]) -> str:
    """A document's terms as `term<TAB>tf` lines (kept to unindex it later; json would cost the hook an import)."""
    return "\n".join(f"{term}\t{tf}" for term, tf in terms.items())


def decode_terms(text: str) -> dict[str, int]:
    terms: dict[str, int] = {}
    for line in text.split("\n"):
        term, _, tf = line.rpartition("\t")
        if term:
            terms[term] = int(tf)
    return terms


def marks(count: int) -> str:
    return ",".join("?" * count)


def chunks(values: Sequence[Any], size: int = MAX_PARAMS) -> Iterator[Sequence[Any]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def translate(exc: sqlite3.Error, where: str) -> StoreError:
    message = str(exc)
    lowered = message.lower()
    if isinstance(exc, sqlite3.OperationalError) and (
        "locked" in lowered or "busy" in lowered or "unable to open" in lowered
    ):
        return StoreUnavailable(f"sqlite store {where}: {message}")
    return StoreError(f"sqlite store {where}: {message}")
