"""Turn any exception a tool call meets into one message a model (and its user) can act on.

A tool never lets an exception reach the SDK: the SDK would answer a crash with a bare
"Error executing tool" and log a traceback. Instead every failure becomes an MCP error result
(`isError`) whose text says what happened and what to do. An exception memory-core did not
raise on purpose is a bug: its traceback goes to the server's stderr (the harness's MCP log),
never to the client.
"""

from __future__ import annotations

import logging

from memory_core.errors import ConfigError, FirewallBlocked, MemoryCoreError, NotFound, StoreUnavailable

__all__ = ["SwitchedOff", "describe_failure"]

_log = logging.getLogger("memory_mcp")


class SwitchedOff(Exception):
    """Memory is off here (`MEMORY_ENABLED=0`, or `memory off` in this project): no store is touched."""


def describe_failure(tool: str, exc: BaseException) -> str:
    """The one-paragraph message for `exc` raised while running `tool`."""
    detail = str(exc).strip()
    if isinstance(exc, SwitchedOff):
        return (
            "Memory is switched off here (MEMORY_ENABLED=0, or `memory off` in this project), so nothing was "
            "searched, saved or changed. The user can switch it back on with `memory on`."
        )
    if isinstance(exc, FirewallBlocked):
        return (
            f"Blocked by the secret firewall, so nothing was saved ({detail or 'nothing was left of the text'}). "
            "Save it again without the secret or private part if it is still worth keeping."
        )
    if isinstance(exc, NotFound):
        return f"No memory found: {detail or 'no record has that id'}. Pass an `id` exactly as memory_search gave it."
    if isinstance(exc, StoreUnavailable):
        return (
            f"The memory store is unavailable right now ({detail or 'no answer'}). Nothing was changed. "
            "Carry on without memory; memory_status shows what is wrong."
        )
    if isinstance(exc, ConfigError):
        return f"Memory is misconfigured and the user must fix a setting: {detail}"
    if isinstance(exc, MemoryCoreError):
        return f"{tool} failed: {detail or type(exc).__name__}"
    _log.error("%s raised an unexpected %s", tool, type(exc).__name__, exc_info=exc)
    return f"{tool} failed unexpectedly ({type(exc).__name__}). This is a bug in memory; the server's log has details."
