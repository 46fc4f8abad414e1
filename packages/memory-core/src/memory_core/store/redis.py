"""The Redis/Valkey store, on one server (plain or TLS) or a Redis Cluster, through redis-py (`_redis_client`).

Promises:

- Every key of one scope shares one hash tag (`memory:{project:<key>}:...`), so each scope
  lives in one Cluster slot and every change to it is one atomic Lua script; the store runs
  unchanged on a standalone server and on a Redis Cluster. Records found by id alone go
  through one global id -> scope hash (`memory:{g}:where`).
- Recall costs a bounded number of round trips whatever the size of the scope: `postings`
  is one script per scope returning only the asked terms' postings (a term above `max_df`
  returns its df alone), `index_stats` one hash read per scope, `get` two round trips
  (which also bring each record's session neighbours, so recall's `session_records` calls
  cost none), `session_records` otherwise one script. Nothing on the recall path reads a
  scope's whole key set.
- Connect and socket timeouts are the `timeout` given (1 s on the hook path), with no retry.

Failure: a server that is down, silent past the timeout, loading or in a failed cluster
state raises `StoreUnavailable`; any other server error raises `StoreError`. A URL that
would write somewhere unintended (no database number, database 0 without
`MEMORY_ALLOW_DB0=1`) raises `ConfigError` from `from_url`, before any write.
"""

from __future__ import annotations

import base64
import heapq
import importlib.util
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from memory_core.errors import ConfigError, StoreError
from memory_core.models import IndexStats, Record, Scope, ScopeKind, TimelineEvent
from memory_core.store import _redis_events as _events
from memory_core.store import _redis_scripts as scripts
from memory_core.store._neighbours import NEIGHBOUR_SPAN, NeighbourCache
from memory_core.store._redis_client import RedisClient, empty_db, translate
from memory_core.store._redis_url import RedisTarget, parse_redis_url
from memory_core.store._vectors import CachedVectors, Row, VectorCache, VectorSource, check_vectors
from memory_core.store.base import PageCursor, Posting, RecordFilter, SessionState, TermPostings
from memory_core.urls import redact_url

__all__ = ["RedisStore"]

_ROOT = "memory"
_GLOBAL = f"{_ROOT}:{{g}}:"
_WHERE = _GLOBAL + "where"
_SCOPES = _GLOBAL + "scopes"
_COUNTERS = _GLOBAL + "counters"
_META = _GLOBAL + "meta"
_SCAN_BATCH = 500
"""Records per round trip when scanning: large enough to amortise the trip, small enough to stream."""
_PAGE_BUDGET = 2_000
"""Index entries one `page` script looks at before it answers, so a filter that matches little
never blocks the server for long; the client calls again from where it stopped."""
_UNVECTORED_BUDGET = 2_000
"""Records one `unvectored` script looks at before it answers (as `_PAGE_BUDGET`)."""
_SESSION_TTL_S = 30 * 24 * 3600
"""A session's injected set and live-context mark expire a month after its last change."""


def _scope_prefix(scope: Scope | str) -> str:
    """The prefix of a scope's keys (from the scope, or its name `kind:key`)."""
    return f"{_ROOT}:{{{scope}}}:"


def _session_prefix(session_key: str) -> str:
    return f"{_ROOT}:{{s:{session_key}}}:"


def _parse_scope(text: str) -> Scope:
    kind, _, key = text.partition(":")
    if kind not in ("project", "user"):
        raise StoreError(f"redis store holds a scope of unknown kind {text!r}")
    return Scope(kind, key)  # type: ignore[arg-type]


def _eval(script: str, key: str, *args: str | int | float) -> tuple[object, ...]:
    """The EVAL command of `script` with one routing key (the first key of the scope it touches)."""
    return ("EVAL", script, 1, key, *args)


def _scoped(script: str, prefix: str, *args: str | int | float) -> tuple[object, ...]:
    """The EVAL command of a script over the scope of `prefix`, routed by its records' key."""
    return _eval(script, prefix + "rec", prefix, *args)


def _as_info(reply: dict[str, Any]) -> dict[str, Any]:
    """An INFO reply: a dict, or a dict per node on a cluster."""
    if reply and all(isinstance(value, dict) for value in reply.values()):
        return dict(next(iter(reply.values())))  # any node speaks for the version
    return dict(reply)


def _live(scopes: Sequence[Scope]) -> list[Scope]:
    """The scopes a query may read: distinct, none with an empty key."""
    return list(dict.fromkeys(s for s in scopes if s.key))


def _encode(record: Record) -> str:
    return json.dumps(
        {
            "id": record.id,
            "scope": str(record.scope),
            "text": record.text,
            "kind": record.kind,
            "author": record.author,
            "created_at": record.created_at,
            "harness": record.harness,
            "session_id": record.session_id,
            "turn_id": record.turn_id,
            "seq": record.seq,
            "searchable": record.searchable,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def _decode(raw: str, standing: str | int | None) -> Record:
    data = json.loads(raw)
    return Record(
        id=data["id"],
        scope=_parse_scope(data["scope"]),
        text=data["text"],
        kind=data["kind"],
        author=data["author"],
        created_at=float(data["created_at"]),
        harness=data["harness"],
        session_id=data["session_id"],
        turn_id=data["turn_id"],
        seq=int(data["seq"]),
        standing=int(standing or 0),
        searchable=bool(data["searchable"]),
    )


class RedisStore(CachedVectors):
    """A store on one Redis or Valkey server, or on a Redis Cluster. Build it with `from_url`."""

    backend = "redis"

    def __init__(self, target: RedisTarget, *, timeout: float, display: str) -> None:
        self.display_url = display
        self._target = target
        self._timeout = timeout
        self._client_obj: RedisClient | None = None
        self._neighbours = NeighbourCache()
        self._vectors = VectorCache()

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 1.0, allow_db0: bool = False) -> RedisStore:
        """Open the store `url` names (no network until the first call). Raises `ConfigError`."""
        if importlib.util.find_spec("redis") is None:
            raise ConfigError(
                f"MEMORY_URL {redact_url(url)} names a Redis store, which needs redis-py: "
                "pip install 'memory-core[redis]'"
            )
        target = parse_redis_url(url, allow_db0=allow_db0, empty_db=lambda bare: empty_db(bare, timeout))
        return cls(target, timeout=timeout, display=redact_url(url))

    # -- plumbing ----------------------------------------------------------------------------

    @property
    def _client(self) -> RedisClient:
        if self._client_obj is None:
            with self._guard():  # a cluster client connects as it is built
                self._client_obj = RedisClient(self._target, timeout=self._timeout)
        return self._client_obj

    def _run(self, *commands: Sequence[object]) -> list[Any]:
        """Send `commands` in one round trip (per cluster node) and return their replies."""
        return self._client.run(commands)

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn redis-py's errors into ours: unreachable, silent or not ready -> `StoreUnavailable`."""
        try:
            yield
        except Exception as exc:
            ours = translate(exc, self.display_url)
            if ours is None:
                raise
            raise ours from exc

    # -- lifecycle ---------------------------------------------------------------------------

    def ping(self) -> str:
        """Reach the server and return `Redis <version>` (or `Valkey <version>`)."""
        with self._guard():
            (reply,) = self._run(("INFO", "server"))
        info = _as_info(reply)
        name = "Valkey" if info.get("valkey_version") or info.get("server_name") == "valkey" else "Redis"
        version = info.get("valkey_version") or info.get("redis_version", "?")
        return f"{name} {version}{' cluster' if self._target.cluster else ''}"

    def close(self) -> None:
        """Release connections. Idempotent."""
        client, self._client_obj = self._client_obj, None
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001,S110 - closing a dead connection has nothing left to report
                pass

    # -- records -----------------------------------------------------------------------------

    def put(self, record: Record, terms: Mapping[str, int], *, replace: bool = False) -> bool:
        """Store `record` and index `terms`; an existing id is kept unless `replace` (see `Store.put`)."""
        if not record.scope.key:
            raise StoreError("a record needs a scope with a key")
        scope_text = str(record.scope)
        self._neighbours.clear()
        moved: dict[Any, Any] = {}
        with self._guard():
            (where,) = self._run(("HGET", _WHERE, record.id))
            if where is not None and where != scope_text:
                if not replace:
                    return False
                old = _scope_prefix(_parse_scope(where))
                # A record's events live under its scope's hash tag: they move with it.
                (moved,) = self._run(("HGETALL", old + "ev:" + record.id))
                self._run(
                    _scoped(scripts.DELETE, old, record.id),
                    _scoped(_events.DROP, old, record.id),
                )
            prefix = _scope_prefix(record.scope)
            live_terms = {t: int(n) for t, n in terms.items() if t and int(n) > 0} if record.searchable else {}
            flat: list[str | int] = []
            for term, tf in live_terms.items():
                flat += [term, tf]
            written, *_ = self._run(
                _scoped(
                    scripts.PUT,
                    prefix,
                    record.id,
                    "1" if replace else "0",
                    _encode(record),
                    record.standing,
                    repr(float(record.created_at)),
                    record.author,
                    record.session_id or "",
                    record.seq,
                    json.dumps(live_terms, ensure_ascii=False, separators=(",", ":")) if record.searchable else "",
                    sum(live_terms.values()),
                    *flat,
                ),
                ("HSET", _WHERE, record.id, scope_text),
                ("SADD", _SCOPES, scope_text),
            )
            if moved:
                size = sum(len(t.encode("utf-8")) for t in (e.text for e in _events.decode(moved)))
                pairs = [item for pair in moved.items() for item in pair]
                self._run(("HSET", prefix + "ev:" + record.id, *pairs), ("HINCRBY", prefix + "evb", record.id, size))
        return bool(written)

    def _locate(self, ids: Sequence[str]) -> list[tuple[str, list[str]]]:
        """(a scope's key prefix, the ids among `ids` that live there), per scope; unknown ids dropped."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        by_scope: dict[str, list[str]] = {}
        (places,) = self._run(("HMGET", _WHERE, *wanted))
        for record_id, where in zip(wanted, places, strict=True):
            if where is not None:
                by_scope.setdefault(where, []).append(record_id)
        return [(_scope_prefix(_parse_scope(where)), group) for where, group in by_scope.items()]

    def get(self, ids: Sequence[str]) -> list[Record]:
        """The records with these ids, in the order asked; unknown ids are skipped.

        Two round trips whatever the number of ids. The records within `NEIGHBOUR_SPAN` of
        each one's seq in its session come back in the same trip and are kept briefly (`_neighbours`), for
        `session_records` and for a `get` of the same ids within that moment.
        """
        found = self._neighbours.fetched(ids)
        missing = [i for i in dict.fromkeys(ids) if i not in found]
        with self._guard():
            groups = self._locate(missing)
            replies = (
                self._run(*[_scoped(scripts.GET_AROUND, p, NEIGHBOUR_SPAN, *g) for p, g in groups]) if groups else []
            )
        fetched: dict[str, Record] = {}
        around: list[Record] = []
        for targets, near in replies:
            for n in range(0, len(targets), 3):
                fetched[targets[n]] = _decode(targets[n + 1], targets[n + 2])
            around += [_decode(near[n], near[n + 1]) for n in range(0, len(near), 2)]
        if fetched:
            self._neighbours.remember(fetched.values(), around)
        found.update(fetched)
        return [found[i] for i in ids if i in found]

    def delete(self, ids: Sequence[str]) -> int:
        """Delete records and their index entries; returns how many existed."""
        self._neighbours.clear()
        with self._guard():
            groups = self._locate(ids)
            if not groups:
                return 0
            replies = self._run(
                *[_scoped(scripts.DELETE, prefix, *group) for prefix, group in groups],
                *[_scoped(_events.DROP, prefix, *group) for prefix, group in groups],
                ("HDEL", _WHERE, *[i for _, group in groups for i in group]),
            )
        return sum(int(n) for n in replies[: len(groups)])

    # -- timelines (`Timelines`; the scripts are in `_redis_events`) ------------------------

    def put_events(self, record_id: str, events: Sequence[TimelineEvent]) -> int:
        """Append the events `record_id` does not hold yet, in order; 0 when there is no such record."""
        if not events:
            return 0
        with self._guard():
            (where,) = self._run(("HGET", _WHERE, record_id))
            if where is None:
                return 0
            prefix = _scope_prefix(_parse_scope(where))
            (added,) = self._run(_scoped(_events.PUT, prefix, record_id, *_events.encode(events)))
        return int(added)

    def events(self, record_id: str) -> list[TimelineEvent]:
        """`record_id`'s events, in the order first stored."""
        with self._guard():
            (where,) = self._run(("HGET", _WHERE, record_id))
            if where is None:
                return []
            (raw,) = self._run(("HGETALL", _scope_prefix(_parse_scope(where)) + "ev:" + record_id))
        return _events.decode(raw)

    def event_usage(self, scope: Scope) -> list[tuple[str, int]]:
        """The records of `scope` with events and their events' bytes, newest first."""
        if not scope.key:
            return []
        prefix = _scope_prefix(scope)
        with self._guard():
            (flat,) = self._run(_scoped(_events.USAGE, prefix))
        rows = [(str(flat[n]), int(flat[n + 1]), float(flat[n + 2])) for n in range(0, len(flat), 3)]
        rows.sort(key=lambda row: (row[2], row[0]), reverse=True)
        return [(record_id, size) for record_id, size, _ in rows]

    def drop_events(self, record_ids: Sequence[str]) -> int:
        """Delete these records' events; the records stay."""
        with self._guard():
            groups = self._locate(record_ids)
            if not groups:
                return 0
            replies = self._run(*[_scoped(_events.DROP, prefix, *group) for prefix, group in groups])
        return sum(int(n) for n in replies)

    def adjust_standing(self, record_id: str, delta: int) -> int | None:
        """Add `delta` to a record's standing (moving it in or out of the index); None if unknown."""
        self._neighbours.clear()
        with self._guard():
            (where,) = self._run(("HGET", _WHERE, record_id))
            if where is None:
                return None
            prefix = _scope_prefix(_parse_scope(where))
            (new,) = self._run(_scoped(scripts.ADJUST_STANDING, prefix, record_id, int(delta)))
        return None if new is None else int(new)

    def _all_scopes(self) -> list[Scope]:
        (members,) = self._run(("SMEMBERS", _SCOPES))
        return sorted((_parse_scope(s) for s in set(members)), key=str)

    def scan(
        self,
        scopes: Sequence[Scope] | None,
        *,
        session_id: str | None = None,
        author: str | None = None,
        before: float | None = None,
    ) -> Iterator[Record]:
        """Every record matching all the filters, oldest first (then by id), streamed in batches."""
        with self._guard():
            chosen = self._all_scopes() if scopes is None else _live(scopes)
        if session_id is not None:
            streams = [self._session_scan(s, session_id, author, before) for s in chosen]
        else:
            index = "time" if author is None else f"a:{author}"
            streams = [self._index_scan(s, index, before) for s in chosen]
        for _, _, record in heapq.merge(*streams):
            yield record

    def _index_scan(self, scope: Scope, index: str, before: float | None) -> Iterator[tuple[float, str, Record]]:
        """One scope's records in (created_at, id) order, read `_SCAN_BATCH` at a time.

        The cursor is the last (score, id) seen, not an offset, so records deleted or added
        while the caller consumes the stream do not make it skip or repeat any other record.
        """
        prefix = _scope_prefix(scope)
        high = "+inf" if before is None else f"({before!r}"
        low, last_score, last_id, batch = "-inf", None, "", _SCAN_BATCH
        while True:
            with self._guard():
                (flat,) = self._run(_scoped(scripts.SCAN_BATCH, prefix, index, low, high, batch))
            fresh = 0
            for n in range(0, len(flat), 4):
                record_id, score = flat[n], float(flat[n + 1])
                if last_score is not None and (score, record_id) <= (last_score, last_id):
                    continue
                fresh += 1
                last_score, last_id = score, record_id
                if flat[n + 2]:
                    yield score, record_id, _decode(flat[n + 2], flat[n + 3])
            if len(flat) < 4 * batch:
                return
            if fresh == 0:  # a whole batch tied on one score: widen the window past the ties
                batch *= 2
            low = repr(last_score)

    def _session_scan(
        self, scope: Scope, session_id: str, author: str | None, before: float | None
    ) -> Iterator[tuple[float, str, Record]]:
        prefix = _scope_prefix(scope)
        with self._guard():
            (flat,) = self._run(_scoped(scripts.SCAN_BATCH, prefix, f"s:{session_id}", "-inf", "+inf", -1))
        rows = []
        for n in range(0, len(flat), 4):
            if not flat[n + 2]:
                continue
            record = _decode(flat[n + 2], flat[n + 3])
            if author is not None and record.author != author:
                continue
            if before is not None and not record.created_at < before:
                continue
            rows.append((record.created_at, record.id, record))
        yield from sorted(rows, key=lambda row: (row[0], row[1]))

    def count(self, scopes: Sequence[Scope] | None) -> int:
        """How many records in these scopes (None: in the whole store)."""
        with self._guard():
            chosen = self._all_scopes() if scopes is None else _live(scopes)
            if not chosen:
                return 0
            replies = self._run(*[("ZCARD", _scope_prefix(scope) + "time") for scope in chosen])
        return sum(int(n) for n in replies)

    def session_records(self, scope: Scope, session_id: str, seqs: Sequence[int]) -> list[Record]:
        """The records of one session at the given positions, in position order (then id)."""
        if not scope.key or not seqs:
            return []
        wanted = sorted({int(s) for s in seqs})
        cached = self._neighbours.lookup(scope, session_id, wanted)
        if cached is not None:
            return cached
        prefix = _scope_prefix(scope)
        with self._guard():
            (flat,) = self._run(_scoped(scripts.SESSION_RECORDS, prefix, session_id, *wanted))
        records = [_decode(flat[n], flat[n + 1]) for n in range(0, len(flat), 2)]
        return sorted(records, key=lambda r: (r.seq, r.id))

    def page(
        self, scope: Scope, where: RecordFilter, *, after: PageCursor | None = None, limit: int = 50
    ) -> list[Record]:
        """A page of one scope's records, newest first: the time (or author) index read backwards."""
        if not scope.key or limit <= 0:
            return []
        if where.session_id is not None:
            return self._session_page(scope, where, after, limit)
        prefix = _scope_prefix(scope)
        index = "time" if where.author is None else f"a:{where.author}"
        high = "+inf" if where.until is None else f"({where.until!r}"
        low = "-inf" if where.since is None else repr(float(where.since))
        cursor_score, cursor_id = ("", "") if after is None else (repr(float(after[0])), after[1])
        if after is not None and where.until is not None and after[0] >= where.until:
            cursor_score, cursor_id = "", ""  # the window's top is below the cursor: start there
        records: list[Record] = []
        while len(records) < limit:
            with self._guard():
                (flat,) = self._run(
                    _scoped(
                        scripts.PAGE,
                        prefix,
                        index,
                        high,
                        low,
                        cursor_score,
                        cursor_id,
                        limit - len(records),
                        where.harness or "",
                        where.kind or "",
                        _PAGE_BUDGET,
                    )
                )
            exhausted, cursor_score, cursor_id = int(flat[0]), str(flat[1]), str(flat[2])
            records += [_decode(flat[n], flat[n + 1]) for n in range(3, len(flat), 2)]
            if exhausted:
                break
        return records[:limit]

    def _session_page(self, scope: Scope, where: RecordFilter, after: PageCursor | None, limit: int) -> list[Record]:
        """One session is a few hundred records at most: read it whole and filter here."""
        kept = []
        for _, _, record in self._session_scan(scope, where.session_id or "", where.author, where.until):
            if where.harness is not None and record.harness != where.harness:
                continue
            if where.kind is not None and record.kind != where.kind:
                continue
            if where.since is not None and record.created_at < where.since:
                continue
            if after is not None and (record.created_at, record.id) >= after:
                continue
            kept.append(record)
        kept.sort(key=lambda r: (r.created_at, r.id), reverse=True)
        return kept[:limit]

    def scope_keys(self, kind: ScopeKind) -> list[str]:
        """Every key of `kind` holding records (the scope set, and one ZCARD each in one round trip)."""
        with self._guard():
            chosen = [s for s in self._all_scopes() if s.kind == kind and s.key]
            if not chosen:
                return []
            replies = self._run(*[("ZCARD", _scope_prefix(scope) + "time") for scope in chosen])
        return sorted(scope.key for scope, n in zip(chosen, replies, strict=True) if int(n))

    def next_position(self, scope: Scope, session_id: str) -> int:
        """One past the session's highest position: the top of its `s:<session>` sorted set."""
        if not scope.key:
            return 0
        with self._guard():
            (top,) = self._run(("ZREVRANGE", _scope_prefix(scope) + "s:" + session_id, 0, 0, "WITHSCORES"))
        if not top:
            return 0
        # A flat [member, score] from the raw client; [(member, score)] from redis-py.
        last = top[-1]
        return int(float(last[1] if isinstance(last, (list, tuple)) else last)) + 1

    # -- vectors -----------------------------------------------------------------------------

    def put_vectors(self, record_id: str, model: str, vectors: Sequence[bytes]) -> bool:
        """Replace the record's vectors (one hash field: each passage's base64, comma-separated)."""
        check_vectors(vectors)
        encoded = ",".join(base64.b64encode(v).decode("ascii") for v in vectors)
        with self._guard():
            (where,) = self._run(("HGET", _WHERE, record_id))
            if where is None:
                return False
            prefix = _scope_prefix(_parse_scope(where))
            (written,) = self._run(_scoped(scripts.PUT_VECTORS, prefix, record_id, model, encoded))
        return bool(written)

    # `nearest`, `nearest_each` and `closest`: `CachedVectors`, over these two.

    def _vector_sources(self, names: Sequence[str], model: str) -> list[tuple[str, VectorSource]]:
        return [(name, _ScopeVectors(self, name, model)) for name in names]

    def _ranked(self, ids: Sequence[str]) -> set[str]:
        """Which of `ids` are in the index (searchable, standing not negative): two round trips."""
        with self._guard():
            groups = self._locate(ids)
            if not groups:
                return set()
            replies = self._run(*[_scoped(scripts.RANKED, prefix, *group) for prefix, group in groups])
        return {record_id for reply in replies for record_id in reply}

    def unvectored(
        self, scopes: Sequence[Scope] | None, model: str, *, limit: int, before: tuple[float, str] | None = None
    ) -> list[Record]:
        """The newest records in the index without vectors of `model` (older than `before`: each
        scope's walk starts at the cursor's rank), across the scopes.
        """
        if limit <= 0:
            return []
        with self._guard():
            chosen = self._all_scopes() if scopes is None else _live(scopes)
        found: list[Record] = []
        for scope in chosen:
            prefix, start, kept = _scope_prefix(scope), 0, 0
            while start >= 0 and kept < limit:
                with self._guard():
                    (flat,) = self._run(
                        _scoped(
                            scripts.UNVECTORED,
                            prefix,
                            model,
                            limit - kept,
                            start,
                            _UNVECTORED_BUDGET,
                            *(() if before is None else (repr(before[0]), before[1])),
                        )
                    )
                start = int(flat[0])
                batch = [_decode(flat[n], flat[n + 1]) for n in range(1, len(flat), 2)]
                found += batch
                kept += len(batch)
        found.sort(key=lambda r: (r.created_at, r.id), reverse=True)
        return found[:limit]

    def vector_counts(self, scopes: Sequence[Scope] | None, model: str) -> tuple[int, int]:
        """(records in the index with vectors of `model`, those without)."""
        with self._guard():
            chosen = self._all_scopes() if scopes is None else _live(scopes)
            if not chosen:
                return 0, 0
            replies = self._run(*[_scoped(scripts.VECTOR_COUNTS, _scope_prefix(s), model) for s in chosen])
        total = sum(int(t) for t, _ in replies)
        done = sum(int(d) for _, d in replies)
        return done, total - done

    def drop_vectors(self, *, keep_model: str) -> int:
        """Delete every other model's vectors, scope by scope; how many records lost theirs."""
        with self._guard():
            chosen = self._all_scopes()
            if not chosen:
                return 0
            replies = self._run(*[_scoped(scripts.DROP_VECTORS, _scope_prefix(s), keep_model) for s in chosen])
        return sum(int(n) for n in replies)

    # -- lexical index -----------------------------------------------------------------------

    def index_stats(self, scopes: Sequence[Scope]) -> IndexStats:
        """Searchable documents and their total length, across `scopes`."""
        chosen = _live(scopes)
        if not chosen:
            return IndexStats(0, 0)
        with self._guard():
            replies = self._run(*[("HMGET", _scope_prefix(s) + "stats", "documents", "total_length") for s in chosen])
        return IndexStats(sum(int(d or 0) for d, _ in replies), sum(int(t or 0) for _, t in replies))

    def postings(
        self, scopes: Sequence[Scope], terms: Sequence[str], *, max_df: int | None = None
    ) -> dict[str, TermPostings]:
        """Each distinct term's df and postings across `scopes`: one script per scope, one round trip."""
        wanted = list(dict.fromkeys(terms))
        chosen = _live(scopes)
        if not wanted or not chosen:
            return {t: TermPostings(0, ()) for t in wanted}
        limit = -1 if max_df is None else int(max_df)
        with self._guard():
            replies = self._run(
                *[
                    _eval(scripts.POSTINGS, prefix + "stats", prefix, limit, *wanted)
                    for prefix in (_scope_prefix(scope) for scope in chosen)
                ]
            )
        result: dict[str, TermPostings] = {}
        for i, term in enumerate(wanted):
            df = sum(int(reply[i][0]) for reply in replies)
            if max_df is not None and df > max_df:
                result[term] = TermPostings(df, ())
                continue
            found: list[Posting] = []
            for reply in replies:
                row = reply[i]
                for n in range(1, len(row), 2):
                    tf, _, length = row[n + 1].partition(":")
                    found.append(Posting(row[n], int(tf), int(length)))
            found.sort(key=lambda p: p.record_id)
            result[term] = TermPostings(df, tuple(found))
        return result

    # -- per-session state -------------------------------------------------------------------

    def stash_prompt(self, session_key: str, turn_id: str | None, prompt: str, *, ttl: float, keep: int) -> None:
        """Hold a prompt until the turn's write event takes it (at most `keep` per session, each for `ttl`)."""
        key = _session_prefix(session_key) + "prompts"
        with self._guard():
            self._run(
                _eval(
                    scripts.STASH,
                    key,
                    repr(time.time()),
                    repr(float(ttl)),
                    int(keep),
                    "0" if turn_id is None else "1",
                    turn_id or "",
                    prompt,
                )
            )

    def take_prompt(self, session_key: str, turn_id: str | None) -> str | None:
        """Remove and return the prompt stashed for `turn_id` (None: the newest unexpired one)."""
        key = _session_prefix(session_key) + "prompts"
        with self._guard():
            (found,) = self._run(
                _eval(scripts.TAKE, key, repr(time.time()), "0" if turn_id is None else "1", turn_id or "")
            )
        return None if found is None else str(found)

    def load_session(self, session_key: str) -> SessionState:
        """The session's injected set and live-context start (empty for a new session)."""
        prefix = _session_prefix(session_key)
        with self._guard():
            injected, live = self._run(("SMEMBERS", prefix + "inj"), ("GET", prefix + "live"))
        return SessionState(frozenset(injected or ()), float(live or 0.0))

    def add_injected(self, session_key: str, ids: Sequence[str]) -> None:
        """Remember that these records were injected in this session."""
        if not ids:
            return
        key = _session_prefix(session_key) + "inj"
        with self._guard():
            self._run(("SADD", key, *ids), ("EXPIRE", key, _SESSION_TTL_S))

    def reset_session(self, session_key: str, now: float) -> None:
        """A compaction: clear the injected set and move `live_since` to `now`."""
        prefix = _session_prefix(session_key)
        with self._guard():
            self._run(("DEL", prefix + "inj"), ("SET", prefix + "live", repr(float(now)), "EX", _SESSION_TTL_S))

    # -- recall history ----------------------------------------------------------------------

    @staticmethod
    def _recalls_key(user: str) -> str:
        return f"{_ROOT}:{{r:{user}}}:recalls"

    def record_recall(self, user: str, entry: str, *, keep: int, meta: Mapping[str, str]) -> None:
        """Push onto `user`'s history list, trim it to the newest `keep` and set `meta`: one round trip."""
        key = self._recalls_key(user)
        commands: list[tuple[object, ...]] = [("LPUSH", key, entry), ("LTRIM", key, 0, max(int(keep), 1) - 1)]
        if meta:
            commands.append(("HSET", _META, *[part for item in meta.items() for part in item]))
        with self._guard():
            self._run(*commands)

    def recalls(self, user: str) -> list[str]:
        """`user`'s recall history, newest first."""
        with self._guard():
            (entries,) = self._run(("LRANGE", self._recalls_key(user), 0, -1))
        return [str(e) for e in entries or ()]

    def set_recalls(self, user: str, entries: Sequence[str]) -> None:
        """Replace `user`'s history (given newest first)."""
        key = self._recalls_key(user)
        with self._guard():
            self._run(("DEL", key), *([("RPUSH", key, *entries)] if entries else []))

    # -- counters and metadata ---------------------------------------------------------------

    def bump(self, counts: Mapping[str, int]) -> None:
        """Add to named counters (created at zero)."""
        if not counts:
            return
        with self._guard():
            self._run(*[("HINCRBY", _COUNTERS, name, int(n)) for name, n in counts.items()])

    def counters(self) -> dict[str, int]:
        """Every counter."""
        with self._guard():
            (reply,) = self._run(("HGETALL", _COUNTERS))
            raw = dict(reply)
        return {name: int(value) for name, value in sorted(raw.items())}

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Set small named values."""
        if not values:
            return
        with self._guard():
            self._run(("HSET", _META, *[part for item in values.items() for part in item]))

    def meta(self) -> dict[str, str]:
        """Every named value."""
        with self._guard():
            (reply,) = self._run(("HGETALL", _META))
        return dict(sorted(dict(reply).items()))


_PARTS = 16
"""Change sequences of passages: the record's sequence times this, plus the passage's place (a
record has at most 8), so every passage has its own."""


class _ScopeVectors:
    """One scope's vectors of one model, as the cache reads them (`store._vectors.VectorSource`)."""

    def __init__(self, store: RedisStore, name: str, model: str) -> None:
        self._store, self._prefix, self._model = store, _scope_prefix(name), model

    def state(self) -> tuple[int, int]:
        with self._store._guard():
            ((latest, removed),) = self._store._run(("MGET", self._prefix + "vseq", self._prefix + "vdel"))
        return int(latest or 0) * _PARTS + _PARTS - 1, int(removed or 0)

    def rows_after(self, sequence: int, limit: int) -> list[Row]:
        with self._store._guard():
            (flat,) = self._store._run(
                _scoped(scripts.VECTORS_AFTER, self._prefix, self._model, sequence // _PARTS, limit)
            )
        rows: list[Row] = []
        for n in range(0, len(flat), 3):
            base = int(float(flat[n + 1])) * _PARTS
            for part, text in enumerate(flat[n + 2].split(",")):
                rows.append((flat[n], base + part, base64.b64decode(text)))
        return rows
