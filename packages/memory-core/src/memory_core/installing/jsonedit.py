"""The one way installers read and rewrite a harness's JSON config file.

An installer works on data: it loads the file (`load_object`), computes the data it wants with
pure functions (our hooks added, our MCP entry removed, ...), and asks `planned_text` for the
file's new text. The policy, the same for every harness:

1. Data unchanged: the text is the old text (a second install writes nothing, makes no `.bak`).
2. Data equal to the `.bak` the last write kept (`memory_core.installing.backup_path`): that
   text, byte for byte (install then uninstall gives the file back exactly); also when both
   are "nothing" in different spellings (`{}` and Codex's `{"hooks": {}}`).
3. Nothing of the user's left (`{}`, or the husk a harness names): no file (an uninstall
   removes the file an install created).
4. Otherwise the old text with only the changed values spliced in (`splice`): every byte of a
   value that did not change stays, indentation and key order included; what is added goes at
   the end of its object or array, in the file's own style (multi-line, its indent unit; or
   on one line when the container is on one line), and a removal takes out exactly that
   member's span. A file that does not exist yet is written as `json.dumps(indent=2)`, as
   Claude Code, Codex and OpenClaw write their own.

Failure: `load_object` raises the harness's own error type, naming the file and what to do,
for a file that is not JSON or not an object: a malformed file is reported, never overwritten.
Nothing here writes a file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.installing.plans import backup_path, read_text_or_none

__all__ = ["load_object", "dump", "planned_text", "splice"]

_WS = " \t\n\r"
_SCALAR = json.JSONDecoder()
_MAX_EDITS = 10_000
"""Splicing makes one edit per pass; a config file needs a handful. A bound, not a budget."""


def load_object(text: str | None, path: Path, *, error: Callable[[str], Exception], advice: str = "") -> dict[str, Any]:
    """The JSON object in `text` (the content of `path`); `{}` for an absent or blank file.

    Raises:
        The exception `error(message)` builds, when the text is not JSON or not an object;
        `advice` ends the message (default: fix or move the file, then retry).
    """
    if text is None or not text.strip():
        return {}
    fix = advice or "fix or move it, then retry"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise error(f"{path} is not valid JSON ({exc}); {fix}") from exc
    if not isinstance(data, dict):
        raise error(f"{path} holds a JSON {type(data).__name__}, not an object; {fix}")
    return data


def dump(data: Any, *, like: str | None = None) -> str:
    """`data` as the harnesses write JSON (two-space indent, non-ASCII kept); ends with a newline
    when `like` (the text it replaces) did, or is None.
    """
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return text + "\n" if like is None or like.endswith("\n") else text


def planned_text(path: Path, before: str | None, old: Any, new: Any, *, nothing: tuple[Any, ...] = ({},)) -> str | None:
    """The text `path` should hold for data `new`, given its text `before` (data `old`); None: no file.

    `nothing` lists the data that mean nothing of the user's is left (`{}`; Codex adds its
    empty `{"hooks": {}}`).
    """
    if _same(old, new):
        return before
    empty = any(_same(new, husk) for husk in nothing)
    backup = read_text_or_none(backup_path(path))
    if backup is not None:
        try:
            kept = json.loads(backup) if backup.strip() else {}
        except ValueError:
            kept = None
        # Two spellings of "nothing" (`{}`, `{"hooks": {}}`) are one: the user's own comes back.
        if kept is not None and (_same(kept, new) or (empty and any(_same(kept, husk) for husk in nothing))):
            return backup
    if empty:
        return None
    if before is None or not before.strip():
        return dump(new, like=before)
    return splice(before, new)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: `true` is not `1`, and key order does not matter."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@dataclass
class _Node:
    kind: str  # "object", "array" or "scalar"
    start: int
    end: int
    value: Any = None
    members: list[tuple[str, int, _Node]] = field(default_factory=list)
    """Object members: key, offset of the key's opening quote, value."""
    items: list[_Node] = field(default_factory=list)


class _NotJson(ValueError):
    pass


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _parse(text: str, i: int) -> _Node:
    i = _skip(text, i)
    if i >= len(text):
        raise _NotJson("unexpected end of the JSON text")
    if text[i] in "{[":
        closing = "}" if text[i] == "{" else "]"
        node = _Node("object" if closing == "}" else "array", i, i)
        i = _skip(text, i + 1)
        if text.startswith(closing, i):
            node.end = i + 1
            node.value = {} if closing == "}" else []
            return node
        while True:
            if closing == "}":
                i = _skip(text, i)
                if not text.startswith('"', i):
                    raise _NotJson(f"expected a key at offset {i}")
                key, key_end = _SCALAR.raw_decode(text, i)
                key_start, i = i, _skip(text, key_end)
                if not text.startswith(":", i):
                    raise _NotJson(f"expected ':' at offset {i}")
                child = _parse(text, i + 1)
                node.members.append((key, key_start, child))
            else:
                child = _parse(text, i)
                node.items.append(child)
            i = _skip(text, child.end)
            if text.startswith(",", i):
                i += 1
                continue
            if text.startswith(closing, i):
                node.end = i + 1
                break
            raise _NotJson(f"expected ',' or '{closing}' at offset {i}")
        if closing == "}":
            node.value = {key: child.value for key, _, child in node.members}
        else:
            node.value = [item.value for item in node.items]
        return node
    try:
        value, end = _SCALAR.raw_decode(text, i)
    except json.JSONDecodeError as exc:
        raise _NotJson(str(exc)) from exc
    return _Node("scalar", i, end, value)


def _line_indent(text: str, offset: int) -> str:
    """The whitespace that starts the line `offset` is on."""
    line = text[text.rfind("\n", 0, offset) + 1 : offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _own_line(text: str, offset: int) -> bool:
    """Whether only whitespace precedes `offset` on its line."""
    return text[text.rfind("\n", 0, offset) + 1 : offset].strip() == ""


@dataclass(frozen=True, slots=True)
class _Style:
    step: str
    """The file's indentation unit."""
    newline: str
    """The file's line end: CRLF stays CRLF."""


def _render(value: Any, *, multiline: bool, indent: str, style: _Style) -> str:
    """`value` as JSON text starting at a line indented by `indent`."""
    if not multiline:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=style.step, ensure_ascii=False).replace("\n", style.newline + indent)


def _children(node: _Node) -> list[tuple[int, int]]:
    """Each child's span: from its key (object) or its value (array), to the end of its value."""
    if node.kind == "object":
        return [(key_start, child.end) for _, key_start, child in node.members]
    return [(item.start, item.end) for item in node.items]


def _insert_last(text: str, node: _Node, piece: str, style: _Style) -> str:
    """`piece` added as the last member or item of `node`, in the container's own layout."""
    spans = _children(node)
    nl = style.newline
    if spans:
        last_start, last_end = spans[-1]
        if "\n" in text[node.start : node.end] and _own_line(text, last_start):
            return text[:last_end] + "," + nl + _line_indent(text, last_start) + piece + text[last_end:]
        return text[:last_end] + ", " + piece + text[last_end:]
    outer = _line_indent(text, node.start)
    return text[: node.start + 1] + nl + outer + style.step + piece + nl + outer + text[node.end - 1 :]


def _remove_child(text: str, node: _Node, index: int) -> str:
    """`node` without child `index`: the exact inverse of `_insert_last` for the last one."""
    spans = _children(node)
    if len(spans) == 1:
        return text[: node.start + 1] + text[node.end - 1 :]
    if index > 0:
        return text[: spans[index - 1][1]] + text[spans[index][1] :]
    return text[: spans[0][0]] + text[spans[1][0] :]


def _member_style(text: str, node: _Node, style: _Style) -> tuple[bool, str]:
    """How a value added to `node` is written: on several lines or one, and the indentation its
    line starts with. It follows its siblings: the way the last container among them is laid
    out (a file of one-line hook groups gets a one-line group), else the file's (multi-line
    when the file spans lines).
    """
    spans = _children(node)
    children = node.items or [child for _, _, child in node.members]
    containers = [child for child in children if child.kind != "scalar"]
    last = containers[-1] if containers else None
    multiline = "\n" in (text[last.start : last.end] if last is not None else text)
    indent = _line_indent(text, spans[0][0]) if spans else _line_indent(text, node.start) + style.step
    return multiline, indent


def _edit(text: str, node: _Node, new: Any, style: _Style) -> str | None:
    """`text` one edit closer to holding `new` at `node`, or None when it already does."""
    if _same(node.value, new):
        return None
    if node.kind == "object" and isinstance(new, dict):
        for index, (key, _, _child) in enumerate(node.members):
            if key not in new:
                return _remove_child(text, node, index)
        for key, _, child in node.members:
            changed = _edit(text, child, new[key], style)
            if changed is not None:
                return changed
        multiline, indent = _member_style(text, node, style)
        key = next(k for k in new if k not in node.value)
        piece = (
            json.dumps(key, ensure_ascii=False)
            + ": "
            + _render(new[key], multiline=multiline, indent=indent, style=style)
        )
        if not node.members and not multiline:
            return text[: node.start + 1] + piece + text[node.end - 1 :]
        return _insert_last(text, node, piece, style)
    if node.kind == "array" and isinstance(new, list):
        old = node.value
        if len(old) == len(new):
            for item, wanted in zip(node.items, new, strict=True):
                changed = _edit(text, item, wanted, style)
                if changed is not None:
                    return changed
        if len(old) < len(new) and all(_same(a, b) for a, b in zip(old, new, strict=False)):
            multiline, indent = _member_style(text, node, style)
            piece = _render(new[len(old)], multiline=multiline, indent=indent, style=style)
            if not node.items and not multiline:
                return text[: node.start + 1] + piece + text[node.end - 1 :]
            return _insert_last(text, node, piece, style)
        if len(old) > len(new):
            first = next((i for i, wanted in enumerate(new) if not _same(old[i], wanted)), len(new))
            return _remove_child(text, node, first)
    multiline = "\n" in text[node.start : node.end] or (node.kind != "scalar" and "\n" in text)
    rendered = _render(new, multiline=multiline, indent=_line_indent(text, node.start), style=style)
    return text[: node.start] + rendered + text[node.end :]


def _step(text: str) -> str:
    """The file's indentation unit, from its first indented line (two spaces if none)."""
    match = re.search(r"\n([ \t]+)[^\s]", text)
    return match.group(1) if match else "  "


def splice(text: str, new: Any) -> str:
    """`text` (a JSON document) changed to hold `new`, keeping every byte of what did not change.

    Raises:
        ValueError: `text` is not one JSON document.
    """
    style = _Style(_step(text), "\r\n" if "\r\n" in text else "\n")
    for _ in range(_MAX_EDITS):
        root = _parse(text, 0)
        if _skip(text, root.end) != len(text):
            raise _NotJson("extra text after the JSON value")
        changed = _edit(text, root, new, style)
        if changed is None:
            return text
        text = changed
    raise RuntimeError(f"splicing did not converge within {_MAX_EDITS} edits")  # a bug, never a user's file
