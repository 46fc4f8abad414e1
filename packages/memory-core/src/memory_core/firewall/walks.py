"""Keyboard walks: a password typed as a path over the keys (`1qaz2wsx`, `5tgb6yhn`, `zaq12wsxcde3`).

Promise: `keyboard_walk(value)` says whether most neighbouring characters of `value` are keys that
touch on a US keyboard (in a row, or one row up or down: rows are staggered, so `5` touches `r`
and `t`); `find_keyboard_walks(text, folded)` returns, with kind `credential`, each token of 8 to
64 characters that walks the keyboard down its columns (changing rows at least `_ROW_CHANGES`
times) and mixes letters with digits or shifted digits. Such a token is a password by its look
alone, as a random run is: no word, identifier, hash or id is typed that way, while a walk along
one row (`qwertyuiop`, `asdfghjkl;`) is also what keyboard code and test strings hold, so a row
counts only where a name states the value (`judge`).

Failure: none at run time. A candidate is found by one pattern (a digit next to a letter of the
row below it, or the reverse) and expanded to its token within 64 characters either side; a
token is judged once, so a text costs time in proportion to its length.
"""

from __future__ import annotations

import itertools

from memory_core.firewall.values import token_around
from memory_core.lazyre import lazy

__all__ = ["KIND", "find_keyboard_walks", "keyboard_walk"]

KIND = "credential"

_ROWS = ("`1234567890-=", "qwertyuiop[]\\", "asdfghjkl;'", "zxcvbnm,./")
_ROW_SHIFT = (0.0, 1.5, 1.75, 2.25)
"""Where each row starts, in keys from the left edge: a key touches two keys of the row below it."""
_KEY_AT = {
    key: (row, index + shift)
    for row, (keys, shift) in enumerate(zip(_ROWS, _ROW_SHIFT, strict=True))
    for index, key in enumerate(keys)
}
_TOUCHING = frozenset(
    a + b
    for a, (row_a, x_a) in _KEY_AT.items()
    for b, (row_b, x_b) in _KEY_AT.items()
    if (row_a == row_b and abs(x_a - x_b) == 1) or (abs(row_a - row_b) == 1 and abs(x_a - x_b) <= 0.75)
)
_UNSHIFTED = str.maketrans('~!@#$%^&*()_+{}|:"<>?', "`1234567890-=[]\\;',./")
"""A shifted symbol is its key (`!QAZ2wsx` walks the column `1qaz2wsx`)."""
_MIN_WALK = 6
_WALK_SHARE = 0.8
"""Most pairs touch: a walk may jump once to its next column (`5tgb` then `6yhn`: 6 of 7 pairs)."""
_SHORTEST = 8
_LONGEST = 64
_ROW_CHANGES = 3
"""A walk down the columns changes rows at every key or two (`1qaz2wsx`: 7 changes in 8 keys); words
and identifiers that happen to touch keys stay on a row or two for most of their length."""
_CANDIDATE = lazy(r"[1-9][qwertyuiopQWERTYUIOP]|[qwertyuiopQWERTYUIOP][1-9]")
"""A digit next to a letter of the row below it, where every column walk through the digits passes
(`!QAZ2wsx` too: its `2w`); shifted digits are not looked for, `p@p@...` would make each one a candidate."""
_DELIMITERS = frozenset(" \t\r\n\"'`<>()[]{},|=:")


def keyboard_walk(value: str) -> bool:
    """Whether most neighbours in `value` are keys that touch (`zxcvbnm,./`, `1qaz2wsx`, `5tgb6yhn`)."""
    keys = value.lower().translate(_UNSHIFTED)
    if len(keys) < _MIN_WALK or not any(c.isalpha() for c in keys):
        return False
    pairs = [a + b for a, b in itertools.pairwise(keys)]
    return sum(p in _TOUCHING for p in pairs) >= _WALK_SHARE * len(pairs)


def _column_walk(value: str) -> bool:
    keys = value.lower().translate(_UNSHIFTED)
    if not _SHORTEST <= len(keys) <= _LONGEST or not keyboard_walk(value):
        return False
    if not any(c.isalpha() for c in value) or not any(c.isdigit() or c in "!@#$%^&*(" for c in value):
        return False
    rows = [_KEY_AT[c][0] for c in keys if c in _KEY_AT]
    return len(rows) == len(keys) and sum(a != b for a, b in itertools.pairwise(rows)) >= _ROW_CHANGES


def find_keyboard_walks(text: str, folded: str) -> list[tuple[int, int, str]]:
    """Each token of `text` that walks the keyboard's columns (`folded` is unused)."""
    del folded
    edits: list[tuple[int, int, str]] = []
    judged_to = 0
    for candidate in _CANDIDATE.finditer(text):
        at = candidate.start()
        if at < judged_to:
            continue
        start, end = token_around(text, at, _LONGEST, _DELIMITERS)
        judged_to = end
        while end > start and text[end - 1] in ".,;!?":
            end -= 1  # a sentence's stop after the value
        if _column_walk(text[start:end]):
            edits.append((start, end, KIND))
    return edits
