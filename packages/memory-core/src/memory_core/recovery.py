"""Prompt recovery after an outage, for a long-lived process (the worker, the MCP server, a plugin).

After an outage a long-lived service skips the store for a back-off (2 s doubling to 60 s), so
no request waits on a dead server. Waiting for the back-off alone would keep spooling turns
and keep recall off for up to a minute after the store is back. `RecoveryProbe` pings the
store in a background thread, on its own connection, every `every` seconds, and calls
`on_back` at the first answer: the next request goes to the store at once.

Promises: no request ever waits on the probe (a silent server costs the probe's thread its
timeout, never a hook); at most one probe thread per service; the thread is a daemon and ends
at the first answer or at `stop`. Never raises into its caller.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from memory_core.store.base import Store

__all__ = ["RecoveryProbe", "PROBE_EVERY_S"]

PROBE_EVERY_S = 0.5
"""Time between pings while the store is down: a turn waits at most about this long after the
store answers again. A refused connection costs microseconds, a silent server one timeout."""


class RecoveryProbe:
    """Pings a store from a background thread until it answers, then calls `on_back`.

    Args:
        open_store: Builds the probe's own store (its own connection: the service's is not
            shared across threads).
        on_back: Called once, from the probe's thread, when the store answered.
        every: Seconds between pings.
    """

    def __init__(
        self, open_store: Callable[[], Store], on_back: Callable[[], None], *, every: float = PROBE_EVERY_S
    ) -> None:
        self._open_store = open_store
        self._on_back = on_back
        self._every = every
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def running(self) -> bool:
        """Whether a probe thread is waiting for the store right now."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def start(self) -> None:
        """Start probing unless a probe is already running."""
        with self._lock:
            if self.running:
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="memory-recovery-probe", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop probing (the thread ends after its current ping)."""
        self._stop.set()

    def _run(self) -> None:
        store: Store | None = None
        try:
            while not self._stop.wait(self._every):
                try:
                    if store is None:
                        store = self._open_store()
                    store.ping()
                except Exception:  # noqa: BLE001, S112 - still down: try again after `every`
                    continue
                self._on_back()
                return
        finally:
            if store is not None:
                try:
                    store.close()
                except Exception:  # noqa: BLE001, S110 - the probe's connection is its own to drop
                    pass
