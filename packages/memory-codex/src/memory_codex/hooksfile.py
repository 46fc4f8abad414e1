"""Our hook groups in Codex's `hooks.json`: add them, find them, take them out, as data.

Codex reads `{"hooks": {"<Event>": [<group>, ...]}}`. We add one group per event we use,
after the user's groups, so the positions Codex uses in its trust keys
(`<file>:<event>:<group>:0`) do not move for anything the user had; a group of ours already
there is left alone when identical and replaced in place when it differs (a new interpreter
path, say). Taking ours out removes our groups, and an event key our removal emptied.

The file's text follows the one JSON-edit policy (`memory_core.installing.jsonedit`): only
what changed is spliced in, every other byte stays; install then uninstall gives the file
back byte for byte; a file we created is removed again (`{"hooks": {}}`, what is left of it,
counts as nothing).

Failure: `HooksFileError` when the file is not JSON, or not in Codex's shape where we must
edit it. Nothing is written by this module.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memory_core.installing.jsonedit import load_object, planned_text

from memory_codex.errors import HooksFileError

__all__ = ["load", "is_ours", "with_groups", "without_groups", "find_groups", "planned", "NOTHING"]

_OUR_COMMAND = re.compile(r"(?:memory_codex\.hook|memory-codex-hook)\b")
"""How our hook command is recognised: by the module or console script it runs."""
NOTHING: tuple[dict[str, Any], ...] = ({}, {"hooks": {}})
"""What is left of a file that held nothing but our groups."""


def load(text: str | None, path: Path) -> dict[str, Any]:
    """The data of `hooks.json` (`{}` when absent or blank). Raises `HooksFileError`."""
    return load_object(text, path, error=HooksFileError)


def is_ours(group: Any) -> bool:
    """Whether a hook group is one of ours: every handler in it runs our hook."""
    if not isinstance(group, dict):
        return False
    handlers = group.get("hooks")
    if not isinstance(handlers, list) or not handlers:
        return False
    return all(
        isinstance(h, dict) and isinstance(h.get("command"), str) and _OUR_COMMAND.search(h["command"])
        for h in handlers
    )


def _hooks(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HooksFileError(f'{path}: "hooks" is not a JSON object; fix it, then run the install again')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise HooksFileError(f'{path}: "hooks"."{event}" is not a JSON array; fix it, then run the install again')
    return hooks


def with_groups(data: dict[str, Any], groups: Mapping[str, dict[str, Any]], path: Path) -> dict[str, Any]:
    """A copy of `data` with each of `groups` (event name to hook group) there exactly once."""
    result = copy.deepcopy(data)
    hooks = _hooks(result, path)
    for event, group in groups.items():
        present = hooks.setdefault(event, [])
        ours = [index for index, item in enumerate(present) if is_ours(item)]
        if not ours:
            present.append(copy.deepcopy(group))
        elif present[ours[0]] != group:
            present[ours[0]] = copy.deepcopy(group)
    result["hooks"] = hooks
    return result


def without_groups(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """A copy of `data` without our groups; an event left with no group loses its key."""
    result = copy.deepcopy(data)
    if "hooks" not in result:
        return result
    hooks = _hooks(result, path)
    for event in list(hooks):
        kept = [group for group in hooks[event] if not is_ours(group)]
        if len(kept) != len(hooks[event]):
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    return result


def find_groups(data: Mapping[str, Any]) -> dict[str, list[int]]:
    """The positions of our groups in each event's array (what Codex's trust keys count). Never raises."""
    hooks = data.get("hooks")
    found: dict[str, list[int]] = {}
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        positions = [n for n, group in enumerate(groups) if is_ours(group)] if isinstance(groups, list) else []
        if positions:
            found[event] = positions
    return found


def planned(path: Path, before: str | None, old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """The text `hooks.json` gets for `new` (None: remove the file), by the one JSON-edit policy."""
    return planned_text(path, before, old, new, nothing=NOTHING)
