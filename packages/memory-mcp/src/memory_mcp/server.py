"""Build the MCP server over one `MemoryService`.

`build_server` returns an `MCPServer` with the six memory tools and instructions that tell the
model recall is already automatic. The service is created lazily, on the first tool call, so a
misconfiguration (say a Redis URL on database 0) shows up as a readable error result the model
can relay, and the next call tries again once the user has fixed it. It is created with
`long_lived=True`: after an outage it retries after a back-off instead of giving up for the
life of the process.

Every service call runs on the one thread of a `ServiceRunner` (`memory_mcp.runner`).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from memory_mcp.runner import ServiceRunner
from memory_mcp.tools import register_tools
from memory_mcp.version import __version__

__all__ = ["INSTRUCTIONS", "build_server"]

INSTRUCTIONS = """\
Long-term memory for this project. Relevant memories of earlier sessions are already recalled \
automatically on every turn and placed in your context; you do not need a tool for that. Use \
memory_search to look for something specific that was not recalled, memory_expand to read the \
turns around a memory, memory_save to keep a decision, convention or preference on purpose, and \
memory_feedback to mark a memory `acted` (it held) or `contradicted` (it is wrong). \
memory_forget deletes one; memory_status explains what is wrong when memory seems absent."""


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
