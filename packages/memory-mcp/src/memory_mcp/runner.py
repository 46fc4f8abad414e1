"""The one thread every MCP tool call to `MemoryService` runs on.

`ServiceRunner` runs each call on one dedicated thread, over memory-core's warm service and
service thread (as Hermes's plugin runs): the event loop stays free for the transport, a store
connection (SQLite's in particular) is only ever used from the thread that opened it, and the
service is refreshed before each call. Calls from several HTTP clients are therefore serialised,
which costs little: each is a few store round trips. `call` needs an asyncio event loop, which is
what `MCPServer.run` and `anyio.run` use by default. A call's exception reaches the caller
unchanged; a service that failed to start is created again on the next call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from memory_core.hookpath.service_thread import ServiceThread
from memory_core.hookpath.warm import WarmService
from memory_core.service import MemoryService

__all__ = ["ServiceRunner"]

_T = TypeVar("_T")

_EXIT_GRACE_S = 3.0
"""How long an exiting server waits for calls still queued (a save in flight is finished)."""


class ServiceRunner:
    """Owns this process's `MemoryService` and the one thread every call to it runs on.

    Args:
        factory: Creates the service. Called on the first `call` (and again on the next call
            if it raised), on the service thread.
    """

    def __init__(self, factory: Callable[[], MemoryService] | None = None) -> None:
        self._warm = WarmService(factory or (lambda: MemoryService(long_lived=True)))
        self._thread = ServiceThread("memory-mcp-service", exit_grace=_EXIT_GRACE_S)

    async def call(self, work: Callable[[MemoryService], _T]) -> _T:
        """Run `work(service)` on the service thread; its exception propagates unchanged."""
        return await asyncio.wrap_future(self._thread.submit(lambda: self._warm.call(work)))

    def close(self) -> None:
        """Close the service and stop the thread once the calls in flight are done."""
        self._thread.submit(self._warm.close)
        self._thread.close()
