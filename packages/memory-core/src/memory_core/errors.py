"""Exceptions of memory-core, split by who must act.

`MemoryCoreError` is the root. The user must act on `ConfigError` (a setting is wrong and
using it would write memories somewhere unintended) and `StoreUnavailable` (a server is down
or silent). A `StoreError` is a bug or a broken store. Hooks never let any of these escape:
they log one line, bump a counter and exit 0.
"""

from __future__ import annotations

__all__ = ["MemoryCoreError", "ConfigError", "StoreError", "StoreUnavailable", "FirewallBlocked", "NotFound"]


class MemoryCoreError(Exception):
    """Root of every error memory-core raises on purpose."""


class ConfigError(MemoryCoreError):
    """A setting that cannot be used safely. The message names the variable to change."""


class StoreError(MemoryCoreError):
    """The store failed at something it should have been able to do."""


class StoreUnavailable(StoreError):
    """The store's server cannot be reached or did not answer within the timeout."""


class FirewallBlocked(MemoryCoreError):
    """The firewall voided the text (for example a `#nomemory` prompt): nothing was stored."""


class NotFound(MemoryCoreError):
    """No record has that id in the scopes asked."""
