"""The PostgreSQL store on the machine's PostgreSQL (database `test`, a fresh schema per test, dropped after).

Conformance, the schema made on first write, `MEMORY_PG_SCHEMA`, and two writers racing
for one turn (exactly one claims it; the race and neighbour checks are `conftest`'s, shared
with the Redis and PostgreSQL 18 suites).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from memory_core.errors import ConfigError
from memory_core.store import _pg_schema, open_store
from memory_core.store.postgres import PostgresStore
from memory_testing.requirements import require
from memory_testing.servers import drop_schema, local_postgres_available, new_schema_name, with_schema
from memory_testing.store_conformance import PROJECT, StoreConformance, make_record

pytestmark = pytest.mark.postgres

URL = "postgresql://127.0.0.1:5432/test?user=postgres"


@pytest.fixture
def schema() -> Iterator[str]:
    require(local_postgres_available(URL), "PostgreSQL on 127.0.0.1:5432 with a database `test`")
    name = new_schema_name()
    yield name
    drop_schema(URL, name)


class TestPostgres15Conformance(StoreConformance):
    @pytest.fixture
    def store(self, schema: str) -> Iterator[PostgresStore]:
        store = PostgresStore.from_url(with_schema(URL, schema))
        yield store
        store.close()


def _schemas() -> set[str]:
    import psycopg

    with psycopg.connect(URL) as conn:
        return {row[0] for row in conn.execute("SELECT nspname FROM pg_namespace").fetchall()}


def test_reading_creates_nothing_and_the_first_write_creates_the_schema(schema: str) -> None:
    store = PostgresStore.from_url(with_schema(URL, schema))
    assert store.count(None) == 0
    assert store.postings([PROJECT], ["retry"]) == store.postings([PROJECT], ["retry"])
    assert list(store.scan(None)) == []
    assert schema not in _schemas()
    store.put(make_record("r1", "retry policy"), {"retry": 1, "policy": 1})
    assert schema in _schemas()
    import psycopg
    import psycopg.sql

    with psycopg.connect(URL) as conn:
        query = psycopg.sql.SQL("SELECT version FROM {}.schema_version").format(psycopg.sql.Identifier(schema))
        versions = [r[0] for r in conn.execute(query).fetchall()]
    assert versions == [v for v, _ in _pg_schema.MIGRATIONS]
    store.close()


def test_memory_pg_schema_names_the_schema(schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_PG_SCHEMA", schema)
    store = open_store(URL)
    assert isinstance(store, PostgresStore)
    assert store.schema == schema
    store.put(make_record("r1", "hello"), {"hello": 1})
    store.close()
    assert schema in _schemas()


def test_the_default_schema_is_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMORY_PG_SCHEMA", raising=False)
    store = PostgresStore.from_url(URL)
    assert store.schema == "memory"


def test_an_unsafe_schema_name_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_PG_SCHEMA", 'memory"; DROP TABLE x; --')
    with pytest.raises(ConfigError, match="MEMORY_PG_SCHEMA"):
        PostgresStore.from_url(URL)


def test_the_password_never_shows_in_the_display_url() -> None:
    for url in (
        "postgresql://bob:hunter2@db.example:5432/app",
        "postgresql://db.example/app?user=bob&password=hunter2",
    ):
        store = PostgresStore.from_url(url)
        assert "hunter2" not in store.display_url
        assert "***" in store.display_url
        assert "db.example" in store.display_url


def test_two_writers_racing_on_one_turn_exactly_one_claims_it(
    schema: str, race_for_a_turn: Callable[[str], None]
) -> None:
    race_for_a_turn(with_schema(URL, schema))


def test_two_write_events_racing_for_one_prompt_exactly_one_gets_it(
    schema: str, race_for_a_prompt: Callable[[str], None]
) -> None:
    race_for_a_prompt(with_schema(URL, schema))


def test_two_processes_creating_the_schema_at_once_both_succeed(schema: str, race: Callable[..., list[object]]) -> None:
    results = race(with_schema(URL, schema), lambda store: store.put(make_record(f"r{id(store)}", "x"), {"x": 1}))
    assert results == [True, True]


def test_neighbours_fetched_with_get_answer_session_records_like_the_server(
    schema: str, neighbours_like_the_server: Callable[[str], None]
) -> None:
    neighbours_like_the_server(with_schema(URL, schema))


def test_libpq_parameters_on_the_url_reach_the_server(schema: str) -> None:
    import psycopg

    name = f"memory test {schema}"
    store = PostgresStore.from_url(with_schema(f"{URL}&application_name=memory%20test%20{schema}", schema))
    store.ping()
    with psycopg.connect(URL) as conn:
        names = {r[0] for r in conn.execute("SELECT application_name FROM pg_stat_activity").fetchall()}
    store.close()
    assert name in names
