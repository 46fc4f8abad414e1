"""Exceptions of memory-codex, split by who must act.

`MemoryCodexError` is the root; it derives from memory-core's root so the `memory` CLI
reports every one of them as `memory: error: ...` and exits non-zero. The user must act on
both kinds below: the message names the file and what to change. The hook path never raises
any of them.
"""

from __future__ import annotations

from memory_core.errors import MemoryCoreError

__all__ = ["MemoryCodexError", "HooksFileError", "ConfigFileError"]


class MemoryCodexError(MemoryCoreError):
    """Root of every error memory-codex raises on purpose."""


class HooksFileError(MemoryCodexError, ValueError):
    """A `hooks.json` that is not JSON, or not in the shape Codex reads, where we must edit it."""


class ConfigFileError(MemoryCodexError, ValueError):
    """A Codex `config.toml` we cannot edit safely: it does not parse, it defines our entries in a
    form we do not rewrite, or an edit would change more than our own entries.
    """
