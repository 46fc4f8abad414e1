"""The embedded store passes the conformance suite every store must pass."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.store.sqlite import SQLiteStore
from memory_testing.store_conformance import StoreConformance


class TestSQLiteConformance(StoreConformance):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/memory.db")
        yield store
        store.close()


class TestInMemorySQLiteConformance(StoreConformance):
    @pytest.fixture
    def store(self) -> Iterator[SQLiteStore]:
        store = SQLiteStore.from_url("sqlite://")
        yield store
        store.close()
