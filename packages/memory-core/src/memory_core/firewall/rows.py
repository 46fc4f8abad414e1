"""A row that gives a URL, an account and a password, with no name: credential files and clients.

Promise: `find_url_rows(text, folded)` returns, as `(start, end, "credential")`, the third field of
a row whose fields are a URL (`scheme://...`), an account and a value that could be a credential
by the judgement's value test (`judge.value_score` at least 1), the value ending its line or
followed by two blanks or an aside in brackets. That is how credential files and the clients that
write them lay one out: davfs2's `secrets` (`URL USER PASSWORD`), `mc alias set NAME URL USER
PASSWORD`, a saved-password export's row. The row's shape is the name.

Not a credential though the row has three fields: a second URL or a path or an option as the
third field, a word or an identifier (`value_score` 0: `git clone URL dir build2` keeps `build2`
unless it is password-like), a flag or a path as the second field (`curl URL -o out`).

Failure: none; linear (each `://` is read once, up to the end of its line, bounded to 512
characters).
"""

from __future__ import annotations

from memory_core.firewall.judge import value_score
from memory_core.lazyre import lazy

__all__ = ["ROW_TRIGGERS", "find_url_rows"]

ROW_TRIGGERS = ("://",)
_KIND = "credential"
_MAX_ROW = 512
_REST = lazy(
    r"[^\s\"'`<>]*[ \t]+(?P<user>[A-Za-z_][\w.@\\\-]{0,63})[ \t]+(?P<v>[^\s\"'`<>()\[\]{}]{6,128})"
    r"(?=[ \t]*(?:\r?\n|$)|[ \t]{2,}|[ \t]+\()"
)
"""After `://`: the rest of the URL, a blank, an account, a blank, the value, then the row's end."""


def find_url_rows(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The password field of each `URL ACCOUNT PASSWORD` row of `text` (`folded` is unused)."""
    del folded
    edits: list[tuple[int, int, str]] = []
    position = text.find("://")
    while position >= 0:
        line_end = text.find("\n", position, position + _MAX_ROW)
        stop = line_end if line_end >= 0 else min(len(text), position + _MAX_ROW)
        found = _REST.match(text, position + 3, stop)
        if found is not None:
            value = found.group("v")
            if "://" not in value and not value.startswith("[REDACTED:") and value_score(value):
                edits.append((found.start("v"), found.end("v"), _KIND))
        position = text.find("://", position + 3)
    return edits
