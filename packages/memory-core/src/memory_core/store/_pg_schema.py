"""The PostgreSQL store's schema, as numbered migrations applied on the first write.

Each migration runs once, in order, in one transaction, under a transaction-scoped advisory
lock keyed on the schema name, so two processes starting at once neither race nor apply a
step twice. `schema_version` records what was applied. Only PostgreSQL 14 features are used
(no MERGE, no NULLS NOT DISTINCT). Text that is compared or ordered (ids, scope names, terms)
uses the "C" collation, so ordering is by code point, as in the embedded store, whatever the
database's locale.

`{s}` in a statement is replaced by the quoted schema name.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "LATEST"]

_V1 = r"""
CREATE TABLE IF NOT EXISTS {s}.scopes (
    sid serial PRIMARY KEY,
    name text COLLATE "C" NOT NULL UNIQUE,
    documents bigint NOT NULL DEFAULT 0,
    total_length bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS {s}.records (
    id text COLLATE "C" PRIMARY KEY,
    sid integer NOT NULL REFERENCES {s}.scopes (sid),
    scope text COLLATE "C" NOT NULL,
    text text NOT NULL,
    kind text NOT NULL,
    author text COLLATE "C" NOT NULL,
    created_at double precision NOT NULL,
    harness text,
    session_id text COLLATE "C",
    turn_id text,
    seq integer NOT NULL,
    standing integer NOT NULL,
    searchable boolean NOT NULL,
    terms text NOT NULL,
    length integer NOT NULL
);
CREATE INDEX IF NOT EXISTS records_time ON {s}.records (sid, created_at, id);
CREATE INDEX IF NOT EXISTS records_author ON {s}.records (sid, author, created_at, id);
CREATE INDEX IF NOT EXISTS records_session ON {s}.records (sid, session_id, seq);
CREATE INDEX IF NOT EXISTS records_all_time ON {s}.records (created_at, id);
CREATE TABLE IF NOT EXISTS {s}.term_df (
    sid integer NOT NULL,
    term text COLLATE "C" NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (sid, term)
);
CREATE TABLE IF NOT EXISTS {s}.postings (
    sid integer NOT NULL,
    term text COLLATE "C" NOT NULL,
    record_id text COLLATE "C" NOT NULL,
    tf integer NOT NULL,
    length integer NOT NULL,
    PRIMARY KEY (sid, term, record_id)
);
CREATE TABLE IF NOT EXISTS {s}.handoff (
    slot bigserial PRIMARY KEY,
    session_key text NOT NULL,
    turn_id text,
    prompt text NOT NULL,
    expires double precision NOT NULL
);
CREATE INDEX IF NOT EXISTS handoff_session ON {s}.handoff (session_key, slot);
CREATE TABLE IF NOT EXISTS {s}.sessions (
    session_key text PRIMARY KEY,
    live_since double precision NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS {s}.injected (
    session_key text NOT NULL,
    record_id text NOT NULL,
    PRIMARY KEY (session_key, record_id)
);
CREATE TABLE IF NOT EXISTS {s}.counters (
    name text COLLATE "C" PRIMARY KEY,
    value bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS {s}.meta (
    name text COLLATE "C" PRIMARY KEY,
    value text NOT NULL
);
"""

_V2 = r"""
CREATE TABLE IF NOT EXISTS {s}.recalls (
    slot bigserial PRIMARY KEY,
    username text COLLATE "C" NOT NULL,
    entry text NOT NULL
);
CREATE INDEX IF NOT EXISTS recalls_by_user ON {s}.recalls (username, slot);
"""
"""Each user's bounded history of recent recalls (`memory ui`'s Recalls page)."""

_V3 = r"""
CREATE TABLE IF NOT EXISTS {s}.vectors (
    record_id text COLLATE "C" NOT NULL REFERENCES {s}.records (id) ON DELETE CASCADE,
    part integer NOT NULL,
    sid integer NOT NULL,
    model text COLLATE "C" NOT NULL,
    vec bytea NOT NULL,
    PRIMARY KEY (record_id, part)
);
CREATE INDEX IF NOT EXISTS vectors_scope ON {s}.vectors (sid, model);
CREATE TABLE IF NOT EXISTS {s}.vectored (
    record_id text COLLATE "C" PRIMARY KEY REFERENCES {s}.records (id) ON DELETE CASCADE,
    model text COLLATE "C" NOT NULL
);
"""
"""Each record's passage vectors by the model that made them (`store.base.Vectors`), and which
records a model has done (one with no passage is done with no vector). A deleted or replaced
record takes them with it (ON DELETE CASCADE)."""

_V4 = r"""
CREATE TABLE IF NOT EXISTS {s}.events (
    record_id text COLLATE "C" NOT NULL,
    pos integer NOT NULL,
    event_id text COLLATE "C" NOT NULL,
    kind text NOT NULL,
    name text NOT NULL,
    call_id text NOT NULL,
    at double precision NOT NULL,
    text text NOT NULL,
    PRIMARY KEY (record_id, pos),
    UNIQUE (record_id, event_id)
);
"""
"""Each turn's timeline. No foreign key to `records`: rewriting a record deletes and inserts its row,
and its events must stay; `delete` removes them itself."""

MIGRATIONS: tuple[tuple[int, str], ...] = ((1, _V1), (2, _V2), (3, _V3), (4, _V4))
"""(version, statements) in order. Append a step to change the schema; never edit an applied one."""

LATEST = MIGRATIONS[-1][0]
