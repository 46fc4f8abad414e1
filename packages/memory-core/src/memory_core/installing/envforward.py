"""Which environment variables an MCP server entry forwards: the settings `Config` reads.

A harness starts the MCP server with an environment of its own choosing: Codex passes a short
list plus the names in `env_vars`, Hermes only PATH, HOME, XDG_* and the variables an entry
references. Without forwarding, a user's `MEMORY_URL` would reach the hooks but not the
server, and the tools would read and write another store. The names come from `Config`'s own
fields (`memory_core.config.setting_env_names`), plus the config file's location and the XDG
folders the default paths derive from, so there is one list of settings to keep.

Nothing here reads a value; values are never written into a harness's file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from memory_core.config import setting_env_names

__all__ = ["memory_env_names", "forwarded_env_names", "set_env_names"]

_FILE_AND_FOLDERS = ("MEMORY_CONFIG", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")
"""Not settings, but where the settings file and the default store, log and state live."""


def memory_env_names() -> tuple[str, ...]:
    """Every `MEMORY_*` variable memory-core reads for its configuration, sorted."""
    return tuple(sorted({*setting_env_names(), "MEMORY_CONFIG"}))


def forwarded_env_names() -> tuple[str, ...]:
    """What an MCP server entry forwards: the memory settings, then the XDG folders."""
    return (*memory_env_names(), *(name for name in _FILE_AND_FOLDERS if name.startswith("XDG_")))


def set_env_names(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """The `MEMORY_*` settings set in `environ`, sorted: for a harness that turns a reference to an
    unset variable into an empty value, which would read as "off" for a switch like `MEMORY_ENABLED`.
    """
    return tuple(name for name in memory_env_names() if name in environ)
