r"""The one text normalisation every turn goes through before the firewall, on every backend.

Promise: `clean_text` returns text every store keeps byte for byte: a lone UTF-16 surrogate
(what Node's `JSON.stringify` leaves of an emoji cut in half, decoded by `json.loads` from a
`\ud83d` escape) becomes U+FFFD, and NUL is removed (PostgreSQL refuses it in text; SQLite
and Redis keep it, so without this the same turn would read back differently per backend).
Anything else is left alone. Never raises; costs one scan of the text when it is ASCII
without NUL, which is most turns.

`clean_tree` applies the same to every string of a decoded JSON payload (keys included), for
the hook runner: a payload's ids and paths are hashed and encoded before any turn text is.
"""

from __future__ import annotations

__all__ = ["clean_text", "clean_tree"]

_REPLACEMENT = "\ufffd"


def _is_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udfff"


def clean_text(text: str) -> str:
    """`text` with NUL removed and every lone surrogate replaced by U+FFFD."""
    if "\0" in text:
        text = text.replace("\0", "")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Only surrogates fail to encode; a pair arriving as two code points (never produced by
        # json.loads, which joins escaped pairs) is no valid character either, so both go.
        return "".join(_REPLACEMENT if _is_surrogate(char) else char for char in text)
    return text


def clean_tree(value: object) -> object:
    """`value` (decoded JSON) with `clean_text` applied to every string in it."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_tree(item) for item in value]
    return value
