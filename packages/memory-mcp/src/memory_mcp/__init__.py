"""memory-mcp: the MCP server of subconscious memory for coding agents.

Recall and capture run in the harness hooks on every turn; this server is the deliberate side:
the model searches on demand, saves a fact on purpose, and marks a memory `acted` or
`contradicted`. `build_server` builds the server over a `MemoryService`; `memory_mcp.cli` runs it
over stdio or streamable HTTP. Importing this package does not import the MCP SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_mcp.version import __version__

if TYPE_CHECKING:
    from memory_mcp.runner import ServiceRunner
    from memory_mcp.server import build_server
    from memory_mcp.tools import TOOL_NAMES

__all__ = ["__version__", "build_server", "ServiceRunner", "TOOL_NAMES"]

_HOMES = {"build_server": "memory_mcp.server", "ServiceRunner": "memory_mcp.runner", "TOOL_NAMES": "memory_mcp.tools"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memory_mcp' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
