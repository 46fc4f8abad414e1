"""Text-preserving edits of Codex's `hooks.json`: add our hook groups, take them out again.

Codex reads `{"hooks": {"<Event>": [<group>, ...]}}`. We never re-serialise a user's file:
each edit splices one span of text, so every byte we did not add stays as it was, and taking
our groups out is the exact inverse of putting them in (a group is inserted after the last
element of its array as `,<whitespace><group>`, and removed as that same span). Our groups go
after the user's, so the positions Codex uses in its trust keys (`<file>:<event>:<group>:0`)
do not move for anything the user had.

A file we create is written in Codex's documented shape; taking our groups out of it removes
the file (`remove_groups` returns None). Where a user's file held an event key with an empty
array, or no `"hooks"` key at all, taking ours out leaves the same hooks in a different
spelling (no key; `"hooks": {}`): Codex reads both the same.

Failure: `HooksFileError` when the file is not JSON, or not in Codex's shape where we must
edit it. Nothing is written by this module.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memory_codex.errors import HooksFileError

__all__ = ["add_groups", "remove_groups", "find_groups", "is_ours"]

_WS = " \t\n\r"
_SCALAR = json.JSONDecoder()
_OUR_COMMAND = re.compile(r"(?:memory_codex\.hook|memory-codex-hook)\b")
"""How our hook command is recognised: by the module or console script it runs."""


def is_ours(group: Any) -> bool:
    """Whether a parsed hook group is one of ours: every handler in it runs our hook."""
    if not isinstance(group, dict):
        return False
    handlers = group.get("hooks")
    if not isinstance(handlers, list) or not handlers:
        return False
    return all(
        isinstance(h, dict) and isinstance(h.get("command"), str) and _OUR_COMMAND.search(h["command"])
        for h in handlers
    )


@dataclass
class _Node:
    kind: str  # "object", "array" or "scalar"
    start: int
    end: int
    members: list[tuple[str, int, _Node]] = field(default_factory=list)
    """Object members: key, offset of the key's opening quote, value."""
    items: list[_Node] = field(default_factory=list)

    def member(self, key: str) -> tuple[int, _Node] | None:
        for name, key_start, value in self.members:
            if name == key:
                return key_start, value
        return None


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _parse(text: str, i: int) -> _Node:
    i = _skip(text, i)
    if i >= len(text):
        raise HooksFileError("unexpected end of the JSON text")
    if text[i] == "{":
        node = _Node("object", i, i)
        i = _skip(text, i + 1)
        if text.startswith("}", i):
            node.end = i + 1
            return node
        while True:
            i = _skip(text, i)
            if not text.startswith('"', i):
                raise HooksFileError(f"expected a key at offset {i}")
            key, key_end = _SCALAR.raw_decode(text, i)
            key_start = i
            i = _skip(text, key_end)
            if not text.startswith(":", i):
                raise HooksFileError(f"expected ':' at offset {i}")
            value = _parse(text, i + 1)
            node.members.append((key, key_start, value))
            i = _skip(text, value.end)
            if text.startswith(",", i):
                i += 1
                continue
            if text.startswith("}", i):
                node.end = i + 1
                return node
            raise HooksFileError(f"expected ',' or '}}' at offset {i}")
    if text[i] == "[":
        node = _Node("array", i, i)
        i = _skip(text, i + 1)
        if text.startswith("]", i):
            node.end = i + 1
            return node
        while True:
            item = _parse(text, i)
            node.items.append(item)
            i = _skip(text, item.end)
            if text.startswith(",", i):
                i += 1
                continue
            if text.startswith("]", i):
                node.end = i + 1
                return node
            raise HooksFileError(f"expected ',' or ']' at offset {i}")
    try:
        _, end = _SCALAR.raw_decode(text, i)
    except json.JSONDecodeError as exc:
        raise HooksFileError(f"not JSON: {exc}") from exc
    return _Node("scalar", i, end)


def _document(text: str) -> _Node:
    root = _parse(text, 0)
    if _skip(text, root.end) != len(text):
        raise HooksFileError("extra text after the JSON value")
    if root.kind != "object":
        raise HooksFileError("the top level is not a JSON object")
    return root


def _hooks_object(text: str) -> _Node | None:
    found = _document(text).member("hooks")
    if found is None:
        return None
    if found[1].kind != "object":
        raise HooksFileError('"hooks" is not a JSON object')
    return found[1]


def _render(value: Any) -> str:
    # One line per group, as Codex's own examples write them; ASCII-safe like the rest of the file.
    return json.dumps(value, separators=(", ", ": "))


def _line_indent(text: str, offset: int) -> str | None:
    line_start = text.rfind("\n", 0, offset) + 1
    prefix = text[line_start:offset]
    return prefix if prefix.strip() == "" else None


def _leading_whitespace(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _insert_last(text: str, container: _Node, piece: str, *, step: str) -> str:
    """Insert `piece` as the last element (or member) of `container`, keeping every other byte."""
    children = container.items or [value for _, _, value in container.members]
    multiline = "\n" in text[container.start : container.end]
    if children:
        last_start = container.members[-1][1] if container.members else children[-1].start
        indent = _line_indent(text, last_start)
        separator = "," + ("\n" + indent if multiline and indent is not None else " ")
        at = children[-1].end
        return text[:at] + separator + piece + text[at:]
    # First child: open a line one step deeper than the container's own line, when it spans lines.
    lead = "\n" + _leading_whitespace(text, container.start) + step if multiline else ""
    at = container.start + 1
    return text[:at] + lead + piece + text[at:]


def _remove_child(text: str, container: _Node, index: int) -> str:
    """Take out child `index` of `container`: the exact inverse of `_insert_last` for the last child."""
    starts = [key_start for _, key_start, _ in container.members] or [item.start for item in container.items]
    ends = [value.end for _, _, value in container.members] or [item.end for item in container.items]
    if index > 0:
        return text[: ends[index - 1]] + text[ends[index] :]
    if len(starts) == 1:
        return text[: container.start + 1] + text[ends[0] :]
    return text[: starts[0]] + text[starts[1] :]


def _step(text: str) -> str:
    """The file's indentation unit, guessed from its first indented line (two spaces if none)."""
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _created(groups: Mapping[str, dict[str, Any]]) -> str:
    """The file we write when there is none; with no groups, what removing ours leaves of it."""
    if not groups:
        return '{\n  "hooks": {\n  }\n}\n'
    return json.dumps({"hooks": {event: [group] for event, group in groups.items()}}, indent=2) + "\n"


def add_groups(text: str | None, groups: Mapping[str, dict[str, Any]]) -> str:
    """`text` with each of `groups` (event name to hook group) present exactly once.

    A group of ours already in place is left alone when it is identical and replaced in place
    when it differs (a new interpreter path, say); a missing one is appended after the user's
    groups for that event. `None` or blank text creates the file.
    """
    if text is None or not text.strip():
        return _created(groups)
    step = _step(text)
    if _hooks_object(text) is None:
        text = _insert_last(text, _document(text), '"hooks": {}', step=step)
    for event, group in groups.items():
        hooks = _hooks_object(text)
        if hooks is None:  # inserted just above; only a broken parser gets here
            raise HooksFileError('"hooks" vanished while editing')
        found = hooks.member(event)
        if found is None:
            text = _insert_last(text, hooks, f"{json.dumps(event)}: [{_render(group)}]", step=step)
            continue
        array = found[1]
        if array.kind != "array":
            raise HooksFileError(f'"hooks"."{event}" is not a JSON array')
        ours = [item for item in array.items if is_ours(json.loads(text[item.start : item.end]))]
        if not ours:
            text = _insert_last(text, array, _render(group), step=step)
            continue
        first = ours[0]
        if json.loads(text[first.start : first.end]) != group:
            text = text[: first.start] + _render(group) + text[first.end :]
    return text


def find_groups(text: str | None) -> dict[str, list[int]]:
    """The positions of our groups in each event's array (what Codex's trust keys count)."""
    if text is None or not text.strip():
        return {}
    hooks = _hooks_object(text)
    if hooks is None:
        return {}
    found: dict[str, list[int]] = {}
    for event, _, array in hooks.members:
        if array.kind != "array":
            continue
        positions = [n for n, item in enumerate(array.items) if is_ours(json.loads(text[item.start : item.end]))]
        if positions:
            found[event] = positions
    return found


def remove_groups(text: str | None, *, ours: Callable[[Any], bool] = is_ours) -> str | None:
    """`text` without our groups; an event left with no group loses its key. None: remove the file."""
    if text is None:
        return None
    if not text.strip() or _hooks_object(text) is None:
        return text
    while True:
        hooks = _hooks_object(text)
        if hooks is None:  # removal never takes out "hooks" itself
            raise HooksFileError('"hooks" vanished while editing')
        target: tuple[_Node, int] | None = None
        for index, (_, _, array) in enumerate(hooks.members):
            if array.kind != "array":
                continue
            mine = [n for n, item in enumerate(array.items) if ours(json.loads(text[item.start : item.end]))]
            if mine:
                # When every group of the event is ours, the event's key goes with them.
                target = (hooks, index) if len(mine) == len(array.items) else (array, mine[-1])
        if target is None:
            break
        text = _remove_child(text, *target)
    # What a file we created becomes once our groups are out: remove it rather than leave a husk.
    if text == _created({}):
        return None
    return text
