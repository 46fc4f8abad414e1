"""Where memory is installed for Claude Code, and whether what is installed still runs.

For each scope's settings file: whether our hooks are there, the command, and whether that
command would run now: its interpreter exists and imports `memory_claude.hook` (for the
project-scope `memory-claude-hook`: the script is on PATH and its interpreter imports the
module). The same for our MCP server entry, and for the plugin route (`enabledPlugins`).
`memory doctor` prints these. Never raises: an unreadable file is reported, not thrown.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from memory_core import installing
from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import read_text_or_none
from memory_core.installing.jsonedit import load_object

from memory_claude import mcp_config, settings
from memory_claude.commands import HOOK_MODULE, HOOK_SCRIPT, MCP_MODULE, MCP_SCRIPT, MCP_SERVER_NAME
from memory_claude.errors import SettingsFileError
from memory_claude.install import SCOPES

__all__ = ["install_status", "command_runs"]

_PROBE_TIMEOUT_S = 15
_PLUGIN_ID = "memory@subconscious-memory"
"""`<plugin>@<marketplace>` as `plugin/.claude-plugin/marketplace.json` names them."""


def _read(path: Path) -> tuple[dict[str, Any] | None, str]:
    try:
        return load_object(read_text_or_none(path), path, error=SettingsFileError), ""
    except (OSError, SettingsFileError) as exc:
        return None, str(exc)


_FIX_SCRIPT = "pipx install --include-deps 'memory-claude[mcp]'"


def command_runs(command: str, module: str, script: str) -> tuple[bool, str]:
    """Whether a registered command still runs, and if not, one line on why and what fixes it."""
    runs, reason = installing.command_runs(command, module, timeout=_PROBE_TIMEOUT_S)
    if runs:
        return True, ""
    if reason.startswith(f"`{script}` is not on PATH"):
        return False, f"{reason}: {_FIX_SCRIPT}"
    if "cannot import" in reason and not reason.startswith("`"):
        return False, f"{reason}; pip install it there, or reinstall from where it is"
    return False, f"{reason}; reinstall: memory install claude"


def install_status(*, home: Path, project_dir: Path) -> list[InstallStatus]:
    """One entry per scope's hooks, then our MCP entries and the plugin where they are found.

    `scope` is always one of Claude Code's scope names, so `memory install claude --scope <scope>`
    is the fix `doctor` may suggest; the path and command tell the entries of one scope apart.
    """
    found: list[InstallStatus] = []
    for scope in SCOPES:
        path = settings.settings_path(scope, home=home, project_dir=project_dir)
        data, problem = _read(path)
        if data is None:
            found.append(InstallStatus(scope, str(path), installed=False, detail=problem))
            continue
        commands = settings.find_our_commands(data)
        if not commands:
            found.append(InstallStatus(scope, str(path), installed=False))
            continue
        command = next(iter(commands.values()))[0]
        missing = [event for event in settings.HOOK_EVENTS if event not in commands]
        runs, detail = command_runs(command, HOOK_MODULE, HOOK_SCRIPT)
        if missing:
            detail = f"hooks missing for {', '.join(missing)}; reinstall: memory install claude --scope {scope}"
        found.append(InstallStatus(scope, str(path), installed=True, command=command, runs=runs, detail=detail))
    key = mcp_config.project_key(project_dir)
    for scope in SCOPES:
        path = mcp_config.mcp_path(scope, home=home, project_dir=project_dir)
        data, _problem = _read(path)
        entry = mcp_config.get_entry(data or {}, scope, key)
        if entry is None:
            continue
        command = shlex.join([str(entry.get("command", "")), *map(str, entry.get("args", []))])
        runs, detail = command_runs(command, MCP_MODULE, MCP_SCRIPT)
        detail = f"MCP server `{MCP_SERVER_NAME}`: {detail}" if detail else ""
        found.append(InstallStatus(scope, str(path), True, command=command, runs=runs, detail=detail))
    found.extend(_plugin_status(home, project_dir))
    return found


def _plugin_status(home: Path, project_dir: Path) -> list[InstallStatus]:
    found = []
    for scope in ("user", "project", "local"):
        path = settings.settings_path(scope, home=home, project_dir=project_dir)
        data, _problem = _read(path)
        enabled = (data or {}).get("enabledPlugins")
        for plugin, on in enabled.items() if isinstance(enabled, dict) else []:
            if plugin == _PLUGIN_ID and on is True:
                runs, detail = command_runs(HOOK_SCRIPT, HOOK_MODULE, HOOK_SCRIPT)
                detail = f"plugin {plugin}: {detail}" if detail else ""
                found.append(InstallStatus(scope, str(path), True, HOOK_SCRIPT, runs=runs, detail=detail))
    return found
