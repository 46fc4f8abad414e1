"""Stores: the contract (`base`) and `open_store`, which picks a backend by URL scheme.

Backends are imported lazily so the hook path pays only for the one it uses.
"""

from __future__ import annotations

from memory_core.errors import ConfigError
from memory_core.store.base import Checkpointing, Posting, SessionState, Store, TermPostings

__all__ = ["Store", "Checkpointing", "Posting", "TermPostings", "SessionState", "open_store"]

_REDIS_SCHEMES = frozenset(
    {"redis", "rediss", "valkey", "valkeys", "redis+cluster", "valkey+cluster", "rediss+cluster", "valkeys+cluster"}
)


def open_store(url: str, *, timeout: float = 1.0, allow_db0: bool = False, pg_schema: str | None = None) -> Store:
    """Open the store `url` names. Raises `ConfigError` for an unknown scheme or unsafe URL.

    `timeout` bounds connecting and every socket read of a server store (the hook path uses
    1 s). `pg_schema` is the configured PostgreSQL schema (a `schema=` in the URL wins).
    Opening does not touch the network: the first operation does.
    """
    scheme = url.split(":", 1)[0].lower()
    if scheme == "sqlite":
        from memory_core.store.sqlite import SQLiteStore

        return SQLiteStore.from_url(url, timeout=timeout)
    if scheme in _REDIS_SCHEMES:
        from memory_core.store.redis import RedisStore

        return RedisStore.from_url(url, timeout=timeout, allow_db0=allow_db0)
    if scheme in ("postgresql", "postgres"):
        from memory_core.store.postgres import PostgresStore

        return PostgresStore.from_url(url, timeout=timeout, schema=pg_schema)
    raise ConfigError(
        f"MEMORY_URL has an unknown scheme {scheme!r}: use sqlite://, redis://, rediss://, valkey:// or postgresql://"
    )
