"""Regular expressions compiled on first use, so that importing a module compiles nothing.

Promise: `lazy(source, flags)` is used exactly like `re.compile(source, flags)` (its `match`,
`search`, `finditer`, `fullmatch`, `sub`, ... are the compiled pattern's), but the pattern is
compiled the first time one of them is called. The hook imports the firewall and the URL
parser in a fresh process for a capture, where compiling some forty patterns up front would
cost more than the scrub itself. Failure: a bad pattern raises `re.error` at first use.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["lazy", "LazyPattern"]


class LazyPattern:
    """A `re.Pattern` stand-in that compiles itself when first used."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.source!r})"


def lazy(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, deferred to the first use (typed as the pattern it becomes)."""
    return LazyPattern(source, flags)  # type: ignore[return-value]
