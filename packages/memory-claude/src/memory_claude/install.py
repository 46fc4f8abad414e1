"""Install and uninstall plans for Claude Code: the hooks in a settings file, the MCP server.

| scope   | hooks                              | MCP server                                    |
| ------- | ---------------------------------- | --------------------------------------------- |
| user    | `~/.claude/settings.json`          | `~/.claude.json` `mcpServers`                 |
| project | `<project>/.claude/settings.json`  | `<project>/.mcp.json`                         |
| local   | `<project>/.claude/settings.local.json` | `~/.claude.json` `projects[<project>]`   |

A plan is computed without touching anything; `memory_core.installing.apply_plan` shows it
(`--dry-run`) or carries it out, keeping `<file>.bak` of every file it rewrites. Each file's
new text follows the one JSON-edit policy of `memory_core.installing.jsonedit`. Promises: a
second install plans no change; other hooks and keys are left as they are; install then
uninstall leaves each settings file (and `.mcp.json`) byte for byte as it was, and removes a
file the install created. Failure: `SettingsFileError` for a file we cannot read safely.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from memory_core.installing import FileEdit, InstallPlan, read_text_or_none
from memory_core.installing.jsonedit import load_object, planned_text

from memory_claude import mcp_config, settings
from memory_claude.commands import HOOK_SCRIPT, MCP_MODULE, MCP_SCRIPT, MCP_SERVER_NAME, hook_command, mcp_argv
from memory_claude.errors import SettingsFileError

__all__ = ["SCOPES", "plan_install", "plan_uninstall"]

SCOPES = ("user", "project", "local")
"""Claude Code's own scope names; `user` is the default."""

_SHARED_MODE = 0o644
"""Project files are committed and read by teammates' tools."""
_PRIVATE_MODE = 0o600


def _check_scope(scope: str) -> None:
    if scope not in SCOPES:
        raise ValueError(f"unknown Claude Code scope {scope!r}: use one of {', '.join(SCOPES)}")


def _mode(scope: str) -> int:
    return _SHARED_MODE if scope == "project" else _PRIVATE_MODE


def _edit(path: Path, before: str | None, old: dict[str, Any], new: dict[str, Any], *, mode: int = 0o600) -> FileEdit:
    return FileEdit(path, before, planned_text(path, before, old, new), mode=mode)


def _load(path: Path, text: str | None) -> dict[str, Any]:
    return load_object(text, path, error=SettingsFileError)


def plan_install(scope: str, *, home: Path, project_dir: Path, claude: str | None) -> InstallPlan:
    """What `memory install claude --scope <scope>` changes; `claude`: the program, if on PATH."""
    _check_scope(scope)
    plan = InstallPlan(harness="claude", scope=scope)

    path = settings.settings_path(scope, home=home, project_dir=project_dir)
    before = read_text_or_none(path)
    current = _load(path, before)
    plan.edits.append(
        _edit(path, before, current, settings.with_hooks(current, hook_command(scope), path=path), mode=_mode(scope))
    )

    argv = mcp_argv(scope)
    key = mcp_config.project_key(project_dir)
    mcp_path = mcp_config.mcp_path(scope, home=home, project_dir=project_dir)
    mcp_before = read_text_or_none(mcp_path)
    mcp_current = _load(mcp_path, mcp_before)
    entry = mcp_config.get_entry(mcp_current, scope, key)
    if entry is None and mcp_config.named_entry(mcp_current, scope, key) is not None:
        plan.notes.append(
            f"{mcp_path} already has an MCP server named `{MCP_SERVER_NAME}` that is not memory's; left as it is "
            "(the memory tools were not registered)"
        )
    elif claude is not None:
        if not mcp_config.same_command(entry, argv):
            plan.steps.extend(mcp_config.claude_steps(claude, scope, argv, replace=entry is not None, cwd=project_dir))
    else:
        new = mcp_config.with_entry(mcp_current, scope, key, argv)
        plan.edits.append(_edit(mcp_path, mcp_before, mcp_current, new, mode=_mode(scope)))

    for other in SCOPES:
        other_path = settings.settings_path(other, home=home, project_dir=project_dir)
        if other != scope and _has_our_hooks(other_path):
            plan.notes.append(
                f"memory's hooks are also in {other_path} ({other} scope): every prompt would be recalled twice; "
                f"remove one with `memory uninstall claude --scope {other}`"
            )
    if scope == "project":
        plan.notes.append(
            f"commit {path.relative_to(project_dir)} and .mcp.json; each teammate needs `{HOOK_SCRIPT}` and "
            f"`{MCP_SCRIPT}` on PATH (`pipx install --include-deps 'memory-claude[mcp]'`, see docs/claude-code.md)"
        )
    elif importlib.util.find_spec(MCP_MODULE) is None:
        plan.notes.append(
            f"the MCP server is registered but {MCP_MODULE} is not installed here: `pip install memory-mcp` "
            "gives the model its memory tools (recall and capture work without it)"
        )
    return plan


def plan_uninstall(scope: str, *, home: Path, project_dir: Path) -> InstallPlan:
    """What `memory uninstall claude --scope <scope>` changes: our hooks and our MCP entry go."""
    _check_scope(scope)
    plan = InstallPlan(harness="claude", scope=scope)

    path = settings.settings_path(scope, home=home, project_dir=project_dir)
    before = read_text_or_none(path)
    current = _load(path, before)
    plan.edits.append(_edit(path, before, current, settings.without_hooks(current, path=path)))

    key = mcp_config.project_key(project_dir)
    mcp_path = mcp_config.mcp_path(scope, home=home, project_dir=project_dir)
    mcp_before = read_text_or_none(mcp_path)
    mcp_current = _load(mcp_path, mcp_before)
    plan.edits.append(_edit(mcp_path, mcp_before, mcp_current, mcp_config.without_entry(mcp_current, scope, key)))
    return plan


def _has_our_hooks(path: Path) -> bool:
    try:
        return bool(settings.find_our_commands(_load(path, read_text_or_none(path))))
    except (OSError, SettingsFileError):
        return False
