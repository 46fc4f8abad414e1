"""Build the MCP server over one `MemoryService`, and the thread that calls it.

`build_server` returns an `MCPServer` with the six memory tools and instructions that tell the
model recall is already automatic. The service is created lazily, on the first tool call, so a
misconfiguration (say a Redis URL on database 0) shows up as a readable error result the model
can relay, and the next call tries again once the user has fixed it. It is created with
`long_lived=True`: after an outage it retries after a back-off instead of giving up for the
life of the process.

Every service call runs on one dedicated thread (`ServiceRunner`, over memory-core's warm
service and service thread, as Hermes's plugin runs): the event loop stays free for the
transport, a store connection (SQLite's in particular) is only ever used from the thread that
opened it, and the service is refreshed before each call. Calls from several HTTP clients are
therefore serialised, which costs little: each is a few store round trips. The runner needs an
asyncio event loop, which is what `MCPServer.run` and `anyio.run` use by default.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from memory_core.hookpath.service_thread import ServiceThread
from memory_core.hookpath.warm import WarmService
from memory_core.service import MemoryService

from memory_mcp.tools import register_tools
from memory_mcp.version import __version__

__all__ = ["INSTRUCTIONS", "ServiceRunner", "build_server"]

_T = TypeVar("_T")

INSTRUCTIONS = """\
Long-term memory for this project. Relevant memories of earlier sessions are already recalled \
automatically on every turn and placed in your context; you do not need a tool for that. Use \
memory_search to look for something specific that was not recalled, memory_expand to read the \
turns around a memory, memory_save to keep a decision, convention or preference on purpose, and \
memory_feedback to mark a memory `acted` (it held) or `contradicted` (it is wrong). \
memory_forget deletes one; memory_status explains what is wrong when memory seems absent."""


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


def build_server(runner: ServiceRunner | None = None) -> MCPServer[Any]:
    """The memory MCP server: the six tools over `runner` (default: a service from the environment)."""
    server: MCPServer[Any] = MCPServer(
        "memory",
        title="Memory",
        description="Subconscious memory for coding agents: deliberate search, save and correction.",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    register_tools(server, runner or ServiceRunner())
    return server
