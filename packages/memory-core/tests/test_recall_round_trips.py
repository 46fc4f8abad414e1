"""Round trips a prompt's recall costs on the server stores, counted on the wire (`memory_testing.relay`).

A recall (`Retriever.rank`) on Redis or PostgreSQL reads the index statistics, the postings
and the candidates, whose `get` brings every record within `NEIGHBOUR_SPAN` of each one's
seq, so the retriever's `session_records` calls cost nothing. While the stores prefetched
only seq +- 1, the retriever's reads at +-2 and +-3 went to the server, one per session: 11,
9 and 9 round trips for these prompts on Redis, 9, 8 and 9 on PostgreSQL. The store keeps
its one connection across calls, as the warm worker relies on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from memory_core.models import Scope
from memory_core.retrieval.retriever import Retriever
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store import open_store
from memory_testing.relay import round_trip_relay
from memory_testing.requirements import require
from memory_testing.servers import (
    drop_schema,
    flush_redis,
    local_postgres_available,
    new_schema_name,
    redis_server_available,
    throwaway_redis,
    with_schema,
)
from memory_testing.store_conformance import make_record

_PROJECT = "git:example.com/acme/payments"
_SESSIONS, _TURNS = 8, 12
_PROMPTS = (
    "why does the billing retry policy time out?",
    "what did we decide about the connection pool size for ingest?",
    "how do we run the gateway rate limiter tests?",
)
_MOST_ROUND_TRIPS = {"redis": 7, "postgres": 7}
"""Per prompt at most, counted once the prefetch reached `NEIGHBOUR_SPAN`: Redis 7, 7, 7 (index
stats, postings twice, `get` twice: where each id lives, then its scope's records, for the
first pool and the widened one); PostgreSQL 5, 5, 7 (psycopg prepares a statement on its
fifth run, one exchange more that once)."""

_SUBJECTS = ("billing retry policy", "ingest connection pool", "gateway rate limiter", "audit serializer")


def _redis_url(port: int) -> str:
    return f"redis://127.0.0.1:{port}/13"


@pytest.fixture(params=["redis", "postgres"])
def backend(request: pytest.FixtureRequest) -> Iterator[tuple[str, str, Callable[[int], str], int]]:
    """(name, direct URL, URL through a port, the server's port) of an empty store (Redis: the run's own)."""
    if request.param == "redis":
        require(redis_server_available(), "redis-server (a throwaway Redis for the tests)")
        port = throwaway_redis()[1]
        flush_redis(_redis_url(port))
        yield "redis", _redis_url(port), _redis_url, port
        flush_redis(_redis_url(port))
        return
    require(local_postgres_available(), "PostgreSQL on 127.0.0.1:5432")
    schema = new_schema_name()

    def pg_url(port: int) -> str:
        return with_schema(f"postgresql://127.0.0.1:{port}/test?user=postgres", schema)

    yield "postgres", pg_url(5432), pg_url, 5432
    drop_schema("postgresql://127.0.0.1:5432/test?user=postgres", schema)


def _seed(url: str) -> None:
    """Sessions of coding turns where every subject comes up in every session, several turns apart."""
    store = open_store(url, timeout=10.0)
    scope = Scope("project", _PROJECT)
    try:
        for session in range(_SESSIONS):
            for seq in range(_TURNS):
                subject = _SUBJECTS[(session + seq) % len(_SUBJECTS)]
                text = f"turn {seq} of session {session}: we looked at the {subject} again, step {seq}"
                record = make_record(
                    f"s{session}-{seq}", text, scope=scope, session_id=f"s{session}", seq=seq,
                    created_at=1_700_000_000.0 + session * 3600 + seq * 60,
                )  # fmt: skip
                store.put(record, index_terms(text))
    finally:
        store.close()


def test_a_recall_costs_a_few_round_trips_on_one_kept_connection(
    backend: tuple[str, str, Callable[[int], str], int],
) -> None:
    name, direct, through, port = backend
    _seed(direct)
    with round_trip_relay("127.0.0.1", port) as relay:
        store = open_store(through(relay.port))
        retriever = Retriever(store)
        try:
            store.ping()
            per_prompt = []
            for prompt in _PROMPTS:
                before = relay.round_trips
                hits = retriever.rank(prompt, [Scope("project", _PROJECT), Scope("user", "alice")], limit=5)
                per_prompt.append(relay.round_trips - before)
                assert hits, f"{prompt!r} recalled nothing: the corpus no longer exercises neighbours"
            connections = relay.connections
        finally:
            store.close()
    assert connections == 1, "the store reconnected between calls: a warm worker would pay the connect again"
    assert max(per_prompt) <= _MOST_ROUND_TRIPS[name], per_prompt
