"""One way to write a moment (seconds since the epoch) as UTC text, in the few shapes memory prints.

`utc(seconds, shape)` with `ISO` (`2026-11-30T12:00:00Z`: JSON, the log, `doctor --json`, the MCP
tools), `MINUTE` (`2026-11-30 12:00`: the CLI's tables), `SECOND` (`2026-11-30 12:00:00 UTC`:
the UI) or `DAY` (`2026-11-30`: the injected block). `utc_or_none` reads a stored value that may
be missing or malformed (the store's metadata is text) and says None instead of raising.

Standard library only (`time`), so the log can use it on any path.
"""

from __future__ import annotations

import time

__all__ = ["ISO", "MINUTE", "SECOND", "DAY", "utc", "utc_or_none"]

ISO = "%Y-%m-%dT%H:%M:%SZ"
MINUTE = "%Y-%m-%d %H:%M"
SECOND = "%Y-%m-%d %H:%M:%S UTC"
DAY = "%Y-%m-%d"


def utc(seconds: float | None = None, shape: str = ISO) -> str:
    """`seconds` (default: now) as UTC text in `shape`. Raises `OverflowError`/`OSError` for an absurd time."""
    return time.strftime(shape, time.gmtime(seconds))


def utc_or_none(seconds: str | float | None, shape: str = ISO) -> str | None:
    """Like `utc`, for a value read back from storage: None when it is missing or not a time."""
    if seconds is None or seconds == "":
        return None
    try:
        return utc(float(seconds), shape)
    except (TypeError, ValueError, OverflowError, OSError):
        return None
