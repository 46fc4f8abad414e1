"""Regular expressions compiled on first use, so that importing a module compiles nothing.

Promise: `lazy(source, flags)` is used exactly like `re.compile(source, flags)` (its `match`,
`search`, `finditer`, `fullmatch`, `sub`, ... are the compiled pattern's), but the pattern is
compiled the first time one of them is called. The hook imports the firewall and the URL
parser in a fresh process for a capture, where compiling some forty patterns up front would
cost more than the scrub itself. Failure: a bad pattern raises `re.error` at first use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["lazy", "LazyPattern", "alternation"]


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


def alternation(words: Iterable[str]) -> str:
    """A regular expression matching any of `words` (literals) as a tree of shared prefixes
    (`m(?:ysql(?:dump)?|ongo)`, the longer word tried first): `re` tries a flat alternation's words
    one by one at every position of a text, the tree's branches once per character.
    """
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here

    def branch(node: dict[str, Any]) -> str:
        arms = [re.escape(char) + branch(child) for char, child in sorted(node.items()) if char]
        if not arms:
            return ""
        body = arms[0] if len(arms) == 1 else "(?:" + "|".join(arms) + ")"
        return f"(?:{body})?" if "" in node else body

    return branch(tree)
