"""Our hooks in a Claude Code `settings.json`: add them, find them, take them out.

Claude Code reads `hooks.<Event>` as a list of groups `{"matcher"?, "hooks": [handler, ...]}`
with handlers `{"type": "command", "command": ..., "timeout"?}`. We add one group per event we
use (`UserPromptSubmit`, `Stop`, and `SessionStart` for every source: a new or resumed session
warms the worker, a compaction resets the injected set) and recognise
our handlers by their command (`commands.is_our_hook_command`), whatever interpreter wrote them.

Promises: other groups, handlers, events and keys are never touched, and stay in their order;
adding what is already there changes nothing (the caller then writes nothing); removing takes
out only what adding put in: our handlers, and a group, event list or `hooks` object only when
our removal is what emptied it. Failure: `SettingsFileError` when `hooks` is not the shape
Claude Code reads, since editing it would guess at what the user meant.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from memory_claude.commands import HOOK_TIMEOUT_S, is_our_hook_command
from memory_claude.errors import SettingsFileError

__all__ = ["HOOK_EVENTS", "our_groups", "with_hooks", "without_hooks", "find_our_commands", "settings_path"]

HOOK_EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": None,
    "Stop": None,
    "SessionStart": "startup|resume|clear|compact",
}
"""The events we hook, with the matcher each uses (None: every occurrence)."""


def settings_path(scope: str, *, home: Path, project_dir: Path) -> Path:
    """The settings file Claude Code reads for `scope`."""
    if scope == "user":
        return home / ".claude" / "settings.json"
    if scope == "project":
        return project_dir / ".claude" / "settings.json"
    if scope == "local":
        return project_dir / ".claude" / "settings.local.json"
    raise ValueError(f"unknown Claude Code scope {scope!r} (user, project or local)")


def our_groups(command: str) -> dict[str, dict[str, Any]]:
    """The group we add under each event, for the hook `command`."""
    groups: dict[str, dict[str, Any]] = {}
    for event, matcher in HOOK_EVENTS.items():
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]
        groups[event] = group
    return groups


def _hooks_of(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsFileError(f"{path}: `hooks` is a {type(hooks).__name__}, not an object; fix it, then retry")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise SettingsFileError(f"{path}: `hooks.{event}` is not a list; fix it, then retry")
    return hooks


def _is_ours(handler: object) -> bool:
    return isinstance(handler, dict) and is_our_hook_command(handler.get("command"))


def _strip_ours(groups: list[Any]) -> list[Any]:
    """`groups` without our handlers; a group is dropped only when that emptied it."""
    kept: list[Any] = []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or not any(_is_ours(h) for h in handlers):
            kept.append(group)
            continue
        others = [h for h in handlers if not _is_ours(h)]
        if others:
            kept.append({**group, "hooks": others})
    return kept


def with_hooks(settings: dict[str, Any], command: str, *, path: Path) -> dict[str, Any]:
    """A copy of `settings` holding exactly our groups for `command` (equal to it if it already did)."""
    result = copy.deepcopy(settings)
    hooks = _hooks_of(result, path)
    wanted = our_groups(command)
    for event in list(hooks):
        if event not in wanted:
            stripped = _strip_ours(hooks[event])
            if stripped != hooks[event]:
                _set_or_drop(hooks, event, stripped)
    for event, group in wanted.items():
        groups = hooks.get(event, [])
        if groups.count(group) == 1 and [g for g in groups if g != group] == _strip_ours(groups):
            continue  # ours is there, exactly once, and nothing stale of ours beside it
        hooks[event] = [*_strip_ours(groups), group]
    result["hooks"] = hooks
    return result


def without_hooks(settings: dict[str, Any], *, path: Path) -> dict[str, Any]:
    """A copy of `settings` with every handler of ours removed, and what that emptied."""
    result = copy.deepcopy(settings)
    if "hooks" not in result:
        return result
    hooks = _hooks_of(result, path)
    for event in list(hooks):
        stripped = _strip_ours(hooks[event])
        if stripped != hooks[event]:
            _set_or_drop(hooks, event, stripped)
    if not hooks and settings["hooks"]:
        del result["hooks"]
    return result


def _set_or_drop(hooks: dict[str, Any], event: str, groups: list[Any]) -> None:
    if groups:
        hooks[event] = groups
    else:
        del hooks[event]


def find_our_commands(settings: dict[str, Any]) -> dict[str, list[str]]:
    """Our hook commands in `settings`, by event (empty when none). Never raises."""
    found: dict[str, list[str]] = {}
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if _is_ours(handler):
                    found.setdefault(event, []).append(handler["command"])
    return found
