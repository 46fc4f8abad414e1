"""The commands we register with Claude Code, per install scope, and how we recognise them.

User and local scope are one person's files on one machine: the hook is this interpreter's
absolute path with `-m memory_claude.hook`, and the MCP server this interpreter with
`-m memory_mcp`, so nothing depends on PATH. Project scope is a file teammates share, where an
absolute path would only work on the machine that wrote it: there the hook is the console
script `memory-claude-hook` and the MCP server `memory-mcp`, found on each teammate's PATH
(what each must install is in `docs/claude-code.md`). The project hook ends in `|| true` so a
teammate who has not installed memory sees no hook error on every turn; `memory doctor` on
their machine says what is missing.
"""

from __future__ import annotations

from memory_core import installing
from memory_core.installing import MCP_MODULE, MCP_SCRIPT

__all__ = [
    "HOOK_MODULE",
    "HOOK_SCRIPT",
    "MCP_MODULE",
    "MCP_SCRIPT",
    "MCP_SERVER_NAME",
    "HOOK_TIMEOUT_S",
    "hook_argv",
    "hook_command",
    "mcp_argv",
    "is_our_hook_command",
]

HOOK_MODULE = "memory_claude.hook"
HOOK_SCRIPT = "memory-claude-hook"
MCP_SERVER_NAME = "memory"
"""The name the MCP server is registered under: its tools appear as `mcp__memory__<tool>`."""

HOOK_TIMEOUT_S = 10
"""Claude Code's limit on one hook call. Ours is bounded far below (1 s store timeouts); this
only stops a wedged process from holding a turn for Claude Code's default minute."""


def hook_argv() -> list[str]:
    """The user-scope hook as an argv: this interpreter, `-m memory_claude.hook`."""
    return installing.hook_argv(HOOK_MODULE)


def hook_command(scope: str) -> str:
    """The hook command line written into the settings file of `scope`."""
    return installing.hook_command(HOOK_MODULE, HOOK_SCRIPT, shared=scope == "project")


def mcp_argv(scope: str) -> list[str]:
    """The MCP server command registered for `scope`."""
    return installing.mcp_argv(shared=scope == "project")


def is_our_hook_command(command: object) -> bool:
    """Whether a hook command in a settings file is one of ours (any interpreter, any scope)."""
    return isinstance(command, str) and (HOOK_MODULE in command or HOOK_SCRIPT in command)
