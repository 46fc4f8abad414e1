"""A psycopg connection whose every wait, connecting included, is bounded by our timeout.

libpq rounds `connect_timeout` up to 2 s and has no read timeout at all, so a server that
accepts connections and never answers would hold a hook far past its 1 s budget. psycopg 3
drives libpq non-blocking and waits in Python; we pass our deadline to those waits. When
one expires psycopg raises `OperationalError` (its `_WaitTimeout`), which the store maps to
`StoreUnavailable` and answers by dropping the connection: its protocol state is unknown.

This leans on psycopg's `Connection._connect_gen`, `waiting.wait_conn(timeout=)` and
`Connection.wait(timeout=)`, as psycopg 3.3 has them (hence `psycopg>=3.3` in the
`postgres` extra); `tests/test_outage_stores.py` fails if a psycopg release changes them.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import waiting

__all__ = ["BoundedConnection", "connect"]

_INTERVAL_S = 0.05
"""How often a wait wakes to check its deadline (and Ctrl-C)."""


class BoundedConnection(psycopg.Connection[tuple[Any, ...]]):
    """A connection whose queries fail after `io_timeout` seconds without an answer."""

    io_timeout: float | None = None

    def wait(self, gen: Any, interval: float = _INTERVAL_S, timeout: float | None = None) -> Any:
        """Consume `gen` as psycopg does, with our timeout unless the caller passed one."""
        return super().wait(gen, interval=min(interval, _INTERVAL_S), timeout=timeout or self.io_timeout)


def connect(conninfo: str, *, timeout: float) -> BoundedConnection:
    """Open an autocommit connection, giving up after `timeout` seconds. Raises `psycopg.OperationalError`."""
    conn = waiting.wait_conn(BoundedConnection._connect_gen(conninfo), interval=_INTERVAL_S, timeout=timeout)
    conn.io_timeout = timeout
    conn.autocommit = True
    return conn
