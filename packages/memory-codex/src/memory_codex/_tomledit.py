"""Text-preserving edits of Codex's `config.toml`: find, add, change and take out whole tables.

We never re-serialise a user's config. A scanner finds the table headers (`[a."b"]`,
`[[a.b]]`) as TOML does, skipping strings, multi-line strings (whose text may look like a
header), comments and arrays that span lines. Our tables are appended after the file's last
content, each as a blank line and the table; taking one out removes exactly that span, from
the end of whatever precedes it to the end of its last key line, so install then uninstall
gives the file back byte for byte and comments a user puts after our tables stay.

The caller re-parses the result with `tomllib` and compares it with what it meant to change
(`install.py`): anything this scanner could misread fails there, before a byte is written.

Failure: `ConfigFileError` when a header cannot be read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_codex.errors import ConfigFileError

__all__ = [
    "CREATED_HUSK",
    "Table",
    "tables",
    "append_tables",
    "remove_table",
    "set_string_value",
    "header",
    "basic_string",
]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "e": "\x1b", '"': '"', "\\": "\\"}


@dataclass(frozen=True, slots=True)
class Table:
    """One `[table]` or `[[array.of.tables]]` of a TOML text.

    Attributes:
        key: The header's dotted key, unquoted.
        array: Whether it is an array-of-tables header.
        start: Offset of the header line.
        end: Offset just after the table's last content (a key, a value, the header itself),
            comments and blank lines after it excluded.
        after_previous: Offset just after the last non-blank text before the header (comments
            included): where a table appended after that text began.
    """

    key: tuple[str, ...]
    array: bool
    start: int
    end: int
    after_previous: int


def basic_string(text: str) -> str:
    """`text` as a TOML basic string (double quotes, escapes)."""
    out = []
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def header(key: tuple[str, ...]) -> str:
    """A `[table]` header line for `key`, quoting each part that is not a bare key."""
    return "[" + ".".join(part if _BARE_KEY.fullmatch(part) else basic_string(part) for part in key) + "]"


def _string_end(text: str, i: int) -> int:
    """Offset just after the string starting at `i` (any of the four TOML string forms)."""
    for quote in ('"""', "'''"):
        if text.startswith(quote, i):
            j = i + 3
            while True:
                if j >= len(text):
                    raise ConfigFileError("a multi-line string is not closed")
                if quote == '"""' and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    j += 3
                    # Up to two quotes may sit right before the closing delimiter.
                    extra = 0
                    while extra < 2 and j < len(text) and text[j] == quote[0]:
                        j += 1
                        extra += 1
                    return j
                j += 1
    quote = text[i]
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if quote == '"' and text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    raise ConfigFileError(f"a string is not closed on its line (offset {i})")


def _decode_basic(raw: str) -> str:
    out = []
    i = 0
    while i < len(raw):
        char = raw[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = raw[i + 1 : i + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
        elif code in ("u", "U"):
            width = 4 if code == "u" else 8
            out.append(chr(int(raw[i + 2 : i + 2 + width], 16)))
            i += 2 + width
        else:
            raise ConfigFileError(f"unknown escape \\{code} in a key")
    return "".join(out)


def _parse_header(text: str, i: int) -> tuple[tuple[str, ...], bool, int]:
    """Parse the header at `i` (a `[`); returns its key, whether it is `[[...]]`, and its end."""
    array = text.startswith("[[", i)
    j = i + (2 if array else 1)
    parts: list[str] = []
    while True:
        while j < len(text) and text[j] in " \t":
            j += 1
        if j < len(text) and text[j] in "\"'":
            end = _string_end(text, j)
            raw = text[j + 1 : end - 1]
            parts.append(_decode_basic(raw) if text[j] == '"' else raw)
            j = end
        else:
            match = _BARE_KEY.match(text, j)
            if match is None:
                raise ConfigFileError(f"cannot read the table header at offset {i}")
            parts.append(match.group())
            j = match.end()
        while j < len(text) and text[j] in " \t":
            j += 1
        if text.startswith(".", j):
            j += 1
            continue
        closing = "]]" if array else "]"
        if not text.startswith(closing, j):
            raise ConfigFileError(f"cannot read the table header at offset {i}")
        return tuple(parts), array, j + len(closing)


def tables(text: str) -> list[Table]:
    """Every table header of `text`, in order, with the spans edits need."""
    found: list[tuple[tuple[str, ...], bool, int, int]] = []  # key, array, start, after_previous
    ends: list[int] = []  # end of each table's content, filled when the next header (or EOF) is seen
    last_any = 0  # just after the last non-blank text, comments included
    last_value = 0  # just after the last non-blank text, comments excluded
    depth = 0  # brackets and braces open inside a value
    line_start = True  # only whitespace so far on this line
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\n":
            line_start = True
            i += 1
            continue
        if char in " \t\r":
            i += 1
            continue
        if char == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            last_any = i
            continue
        if char in "\"'":
            i = _string_end(text, i)
            last_any = last_value = i
            line_start = False
            continue
        if char == "[" and line_start and depth == 0:
            if found:
                ends.append(last_value)
            key, array, end = _parse_header(text, i)
            found.append((key, array, text.rfind("\n", 0, i) + 1, last_any))
            i = last_any = last_value = end
            line_start = False
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        i += 1
        last_any = last_value = i
        line_start = False
    if found:
        ends.append(last_value)
    return [
        Table(key=key, array=array, start=start, end=end, after_previous=previous)
        for (key, array, start, previous), end in zip(found, ends, strict=True)
    ]


def append_tables(text: str | None, chunks: list[str]) -> str | None:
    """`text` with `chunks` (each a whole table, no trailing newline) after its last content.

    None stands for a missing file: with chunks, the file to create; without, still None.
    """
    if not chunks:
        return text
    body = "\n\n".join(chunks)
    if text is None:
        return body + "\n"
    at = len(text.rstrip())
    return text[:at] + "\n\n" + body + text[at:]


CREATED_HUSK = "\n"
"""What a file `append_tables` created is left as once every table it added is removed."""


def remove_table(text: str, table: Table) -> str:
    """`text` without `table`: the exact inverse of `append_tables` for a table it added."""
    return text[: table.after_previous] + text[table.end :]


def _value_end(text: str, i: int) -> int:
    """Offset just after the TOML value starting at `i` (a string, an array, an inline table, a scalar)."""
    if text[i] in "\"'":
        return _string_end(text, i)
    if text[i] in "[{":
        depth = 0
        j = i
        while j < len(text):
            char = text[j]
            if char in "\"'":
                j = _string_end(text, j)
                continue
            if char == "#":
                newline = text.find("\n", j)
                j = len(text) if newline < 0 else newline
                continue
            if char in "[{":
                depth += 1
            elif char in "]}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        raise ConfigFileError(f"an array or inline table is not closed (offset {i})")
    match = re.compile(r"[^\s#,\]}]+").match(text, i)
    return match.end() if match else i


def set_value(text: str, table: Table, key: str, rendered: str) -> str:
    """`text` with `key = <rendered>` in `table`: the existing value replaced, or a line added."""
    body = text[table.start : table.end]
    match = re.compile(rf"(?m)^[ \t]*{re.escape(key)}[ \t]*=[ \t]*").search(body)
    if match is None:
        return text[: table.end] + f"\n{key} = {rendered}" + text[table.end :]
    start = table.start + match.end()
    return text[:start] + rendered + text[_value_end(text, start) :]


def set_string_value(text: str, table: Table, key: str, value: str) -> str:
    """`text` with `key = "value"` in `table`: the existing value replaced, or a line added."""
    return set_value(text, table, key, basic_string(value))
