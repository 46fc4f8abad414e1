"""Exceptions of memory-hermes, all raised to the person running `memory install hermes`.

The plugin's hooks never raise (Hermes would only log it, and a memory failure must not
show in a turn); these are for the installer and `doctor`, whose CLI prints them as one
`memory: error: ...` line. Each message says what to do.
"""

from __future__ import annotations

from memory_core.errors import MemoryCoreError

__all__ = ["MemoryHermesError", "HermesNotFound", "ConfigNotEditable", "ProvisionFailed"]


class MemoryHermesError(MemoryCoreError):
    """Root of every error memory-hermes raises on purpose."""


class HermesNotFound(MemoryHermesError):
    """No usable Hermes interpreter: `hermes` is not on PATH, or its launcher names none."""


class ConfigNotEditable(MemoryHermesError):
    """Hermes's config.yaml holds a shape we will not edit blindly (the message names the key
    and the line to add by hand).
    """


class ProvisionFailed(MemoryHermesError):
    """Installing memory-core and memory-hermes into Hermes's interpreter failed (pip's tail attached)."""
