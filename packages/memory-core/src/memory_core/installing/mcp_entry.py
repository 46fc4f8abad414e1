"""The memory MCP server as every harness registers it, and how an entry is recognised as ours.

Each harness keeps MCP servers in its own config shape (Claude Code's `mcpServers` JSON,
Codex's `[mcp_servers.memory]` TOML table, Hermes's `mcp_servers` YAML, OpenClaw's
`mcp.servers`), but the server itself is the same: `<python> -m memory_mcp` in a file of one
person on one machine, the `memory-mcp` console script in a file teammates share. An entry is
ours when it runs that module or that script, whatever interpreter and whatever the user added
beside it (env, timeouts); an entry under our name that runs anything else is the user's, and
installers leave it alone.

Nothing here touches a file; nothing raises.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from memory_core.installing.commands import hook_argv

__all__ = ["MCP_MODULE", "MCP_SCRIPT", "mcp_argv", "is_our_mcp_entry", "runs_mcp"]

MCP_MODULE = "memory_mcp"
MCP_SCRIPT = "memory-mcp"


def mcp_argv(*, shared: bool = False, python: str | None = None) -> list[str]:
    """The MCP server command: `<python> -m memory_mcp`, or `memory-mcp` in a shared file."""
    return [MCP_SCRIPT] if shared else hook_argv(MCP_MODULE, python=python)


def runs_mcp(command: object, args: object = ()) -> bool:
    """Whether `command` with `args` (a list of words) starts the memory MCP server."""
    if not isinstance(command, str) or not isinstance(args, Sequence) or isinstance(args, str):
        return False
    words = [command, *args]
    if not all(isinstance(word, str) for word in words):
        return False
    if os.path.basename(command) == MCP_SCRIPT:
        return True
    return any(words[i] == "-m" and words[i + 1] == MCP_MODULE for i in range(len(words) - 1))


def is_our_mcp_entry(entry: Any) -> bool:
    """Whether a harness's MCP server entry (`{"command": ..., "args": [...], ...}`) is ours."""
    return isinstance(entry, Mapping) and runs_mcp(entry.get("command"), entry.get("args", []))
