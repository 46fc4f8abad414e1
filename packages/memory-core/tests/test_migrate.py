"""Moving memories between stores: embedded -> Redis -> PostgreSQL -> embedded, with no loss and no double copy.

After each hop the target ranks every question exactly as the embedded store did.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.migrate import migrate
from memory_core.models import Scope
from memory_core.retrieval.retriever import Retriever
from memory_core.retrieval.tokenizer import index_terms, query_terms
from memory_core.store.base import Store
from memory_core.store.postgres import PostgresStore
from memory_core.store.redis import RedisStore
from memory_core.store.sqlite import SQLiteStore
from memory_testing.requirements import require
from memory_testing.servers import (
    drop_schema,
    flush_redis,
    local_postgres_available,
    new_schema_name,
    redis_server_available,
    throwaway_redis_url,
    with_schema,
)
from memory_testing.store_conformance import make_record

PG_URL = "postgresql://127.0.0.1:5432/test?user=postgres"
PROJECT = Scope("project", "github.com/acme/widgets")
OTHER = Scope("project", "gitlab.com/team/api")
USER = Scope("user", "alice")
_TEXTS = [
    "How do we rotate the billing retry policy?\n\nRun `make rotate` in billing/; the policy lives in retry.yaml.",
    "Why does test_ingest_pool time out?\n\nThe connection pool is capped at 4; raise POOL_SIZE in ingest/settings.py.",
    "Prefer ruff format over black in every repo.",
    "Where is the rate limiter configured?\n\ngateway/limits.py, RATE_LIMITER_BURST defaults to 20.",
    "What did we decide about the webhook serializer?\n\nKeep camelCase keys; the mobile client depends on them.",
]


def _seed(store: Store) -> None:
    for n in range(60):
        scope = (PROJECT, OTHER, USER)[n % 3]
        text = f"{_TEXTS[n % len(_TEXTS)]} (note {n})"
        record = make_record(
            f"rec-{n:03d}",
            text,
            scope=scope,
            author=("alice", "bob", "chen")[n % 3],
            created_at=1_760_000_000.0 + n * 7.25,
            session_id=f"s{n // 6}",
            turn_id=f"t{n}" if n % 2 else None,
            seq=n % 6,
            standing=-1 if n % 17 == 0 else (2 if n % 11 == 0 else 0),
            searchable=n % 13 != 5,
            kind="note" if n % 9 == 0 else "turn",
            harness=None if n % 9 == 0 else "claude",
        )
        store.put(record, index_terms(record.text) if record.searchable else {})
    store.bump({"captures": 57, "recalls": 120, "firewall.aws_key": 3, "firewall.private": 2})


_QUERIES = [
    "billing retry policy",
    "why does the ingest pool time out",
    "rate limiter burst",
    "webhook serializer camelCase",
    "ruff or black",
]


def _rankings(store: Store) -> list[list[tuple[str, float]]]:
    """What recall and search would return for a few questions: ids and scores, in order."""
    retriever = Retriever(store)
    return [
        [(hit.record.id, round(hit.score, 9)) for hit in retriever.rank(query, [PROJECT, USER], limit=8, floor=False)]
        for query in _QUERIES
    ]


def _snapshot(store: Store) -> tuple[object, ...]:
    """Everything a user would notice of a store: records, index, counters (migration marks aside)."""
    records = sorted(store.scan(None), key=lambda r: r.id)
    terms = sorted({t for text in _TEXTS for t in query_terms(text)})
    scopes = [PROJECT, OTHER, USER]
    postings = {
        term: (tp.df, sorted((p.record_id, p.tf, p.length) for p in tp.postings))
        for term, tp in store.postings(scopes, terms).items()
    }
    return records, postings, store.index_stats(scopes), store.counters()


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[SQLiteStore, RedisStore, PostgresStore, SQLiteStore]]:
    require(redis_server_available(), "redis-server (a throwaway Redis for the tests)")
    require(local_postgres_available(PG_URL), "PostgreSQL on 127.0.0.1:5432 with a database `test`")
    redis_url = throwaway_redis_url(13)
    flush_redis(redis_url)
    schema = new_schema_name("memmigrate")
    chain = (
        SQLiteStore.from_url(f"sqlite:///{tmp_path}/first.db"),
        RedisStore.from_url(redis_url),
        PostgresStore.from_url(with_schema(PG_URL, schema)),
        SQLiteStore.from_url(f"sqlite:///{tmp_path}/back.db"),
    )
    yield chain
    for store in chain:
        store.close()
    flush_redis(redis_url)
    drop_schema(PG_URL, schema)


@pytest.mark.redis
@pytest.mark.postgres
def test_embedded_to_redis_to_postgres_and_back_loses_nothing(
    stores: tuple[SQLiteStore, RedisStore, PostgresStore, SQLiteStore],
) -> None:
    first = stores[0]
    _seed(first)
    expected = _snapshot(first)
    rankings = _rankings(first)
    assert all(rankings), "every question finds something"
    for source, target in itertools.pairwise(stores):
        seen: list[tuple[int, int]] = []
        report = migrate(source, target, progress=lambda done, total, seen=seen: seen.append((done, total)))
        assert (report.copied, report.skipped) == (60, 0)
        assert seen[-1] == (60, 60)
        assert report.firewall == {"aws_key": 3, "private": 2}
        records, postings, stats, counters = _snapshot(target)
        assert records == expected[0], f"{target.backend}: records differ"
        assert postings == expected[1], f"{target.backend}: index differs"
        assert stats == expected[2]
        assert {k: v for k, v in counters.items() if not k.startswith("migrate")} == expected[3]
        assert _rankings(target) == rankings, f"{target.backend}: ranking differs"


@pytest.mark.redis
@pytest.mark.postgres
def test_migrating_twice_copies_nothing_twice_and_then_only_what_is_new(
    stores: tuple[SQLiteStore, RedisStore, PostgresStore, SQLiteStore],
) -> None:
    source, redis_store, pg_store, _ = stores
    _seed(source)
    for target in (redis_store, pg_store):
        migrate(source, target)
        before = _snapshot(target)
        again = migrate(source, target)
        assert (again.copied, again.skipped, again.counters) == (0, source.count(None), {})
        assert _snapshot(target) == before

        source.put(make_record(f"late-{target.backend}", "one more turn about the retry policy"), {"retry": 1})
        source.bump({"captures": 1, "firewall.aws_key": 1})
        third = migrate(source, target)
        assert (third.copied, third.counters) == (1, {"captures": 1, "firewall.aws_key": 1})
        assert target.counters()["firewall.aws_key"] == source.counters()["firewall.aws_key"]


def test_a_store_cannot_be_migrated_onto_itself(tmp_path: Path) -> None:
    store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/one.db")
    with pytest.raises(ValueError, match="same store"):
        migrate(store, store)
    store.close()


def test_a_turns_timeline_moves_with_it_and_still_finds_it(tmp_path: Path) -> None:
    from memory_core.models import TimelineEvent

    source = SQLiteStore.from_url(f"sqlite:///{tmp_path}/from.db")
    target = SQLiteStore.from_url(f"sqlite:///{tmp_path}/to.db")
    try:
        record = make_record("t1", "fixed the login bug")
        source.put(record, {**index_terms(record.text), "src/auth/session.ts": 1})
        events = [
            TimelineEvent("tool_call", "e1", '{"file_path": "src/auth/session.ts"}', "Edit"),
            TimelineEvent("tool_result", "e2", "The file was updated.", "Edit"),
        ]
        source.put_events("t1", events)
        migrate(source, target)
        assert target.events("t1") == events
        assert target.postings([record.scope], ["src/auth/session.ts"])["src/auth/session.ts"].df == 1
        migrate(source, target)
        assert target.events("t1") == events  # stored once
    finally:
        source.close()
        target.close()
