"""Where Claude Code keeps MCP servers per scope, and our `memory` entry in each.

- user: `~/.claude.json` `mcpServers`
- local: `~/.claude.json` `projects["<project realpath>"].mcpServers`
- project: `<project>/.mcp.json` `mcpServers` (shared with the team)

The entry is the one `claude mcp add` writes: `{"type": "stdio", "command", "args", "env": {}}`.
Registering goes through `claude mcp add` when `claude` is on PATH (Claude Code owns
`~/.claude.json` and rewrites it as it runs), else it is the same edit made directly. Taking it
out is always a direct edit, because `claude mcp remove` leaves behind the empty map it created;
we remove our entry and any container that only held it, so nothing we added remains. A
server of the user's under our name (one that does not run memory-mcp) is never replaced or
removed (`memory_core.installing.is_our_mcp_entry`).

Failure: `ClaudeCommandError` when `claude mcp add` refuses (with its output);
`SettingsFileError` from reading a malformed file.
"""

from __future__ import annotations

import copy
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_core.installing import Step, is_our_mcp_entry

from memory_claude.commands import MCP_SERVER_NAME
from memory_claude.errors import ClaudeCommandError

__all__ = [
    "mcp_path",
    "project_key",
    "named_entry",
    "get_entry",
    "same_command",
    "entry_for",
    "with_entry",
    "without_entry",
    "claude_steps",
]

_CLAUDE_TIMEOUT_S = 60


def mcp_path(scope: str, *, home: Path, project_dir: Path) -> Path:
    """The file holding the MCP servers of `scope`."""
    return project_dir / ".mcp.json" if scope == "project" else home / ".claude.json"


def project_key(project_dir: Path) -> str:
    """How `~/.claude.json` names a project: the real path of the folder Claude Code runs in."""
    return str(project_dir.resolve())


def entry_for(argv: Sequence[str]) -> dict[str, Any]:
    """The server entry for `argv`, as `claude mcp add` writes it."""
    return {"type": "stdio", "command": argv[0], "args": list(argv[1:]), "env": {}}


def _servers(data: dict[str, Any], scope: str, key: str) -> Any:
    holder: Any = data
    if scope == "local":
        holder = data.get("projects", {})
        holder = holder.get(key, {}) if isinstance(holder, dict) else {}
    return holder.get("mcpServers") if isinstance(holder, dict) else None


def named_entry(data: dict[str, Any], scope: str, key: str) -> Any:
    """Whatever `data` holds under our server's name for `scope` (`key`: the project key), or None."""
    servers = _servers(data, scope, key)
    return servers.get(MCP_SERVER_NAME) if isinstance(servers, dict) else None


def get_entry(data: dict[str, Any], scope: str, key: str) -> dict[str, Any] | None:
    """Our server entry in `data` for `scope`, or None (a server of the user's under our name is not ours)."""
    entry = named_entry(data, scope, key)
    return entry if is_our_mcp_entry(entry) else None


def same_command(entry: dict[str, Any] | None, argv: Sequence[str]) -> bool:
    """Whether `entry` runs `argv` (its `env`, which a user may have added to, does not count)."""
    return entry is not None and entry.get("command") == argv[0] and entry.get("args", []) == list(argv[1:])


def with_entry(data: dict[str, Any], scope: str, key: str, argv: Sequence[str]) -> dict[str, Any]:
    """A copy of `data` with our entry running `argv` (equal to `data` when it already did)."""
    if same_command(get_entry(data, scope, key), argv):
        return data
    result = copy.deepcopy(data)
    holder = result
    if scope == "local":
        holder = result.setdefault("projects", {}).setdefault(key, {})
    holder.setdefault("mcpServers", {})[MCP_SERVER_NAME] = entry_for(argv)
    return result


def without_entry(data: dict[str, Any], scope: str, key: str) -> dict[str, Any]:
    """A copy of `data` without our entry, nor a container only our entry filled."""
    if get_entry(data, scope, key) is None:
        return data
    result = copy.deepcopy(data)
    if scope != "local":
        del result["mcpServers"][MCP_SERVER_NAME]
        if not result["mcpServers"]:
            del result["mcpServers"]
        return result
    projects = result["projects"]
    project = projects[key]
    del project["mcpServers"][MCP_SERVER_NAME]
    # Claude Code keeps an `mcpServers` map in every project entry it makes; only an entry
    # that nothing but our server filled is ours to remove.
    if project == {"mcpServers": {}}:
        del projects[key]
        if not projects:
            del result["projects"]
    return result


def claude_steps(claude: str, scope: str, argv: Sequence[str], *, replace: bool, cwd: Path) -> list[Step]:
    """`claude mcp add` (after `claude mcp remove` when an older command is registered) as steps."""
    steps: list[Step] = []
    if replace:
        steps.append(_step([claude, "mcp", "remove", "--scope", scope, MCP_SERVER_NAME], scope, cwd))
    steps.append(_step([claude, "mcp", "add", "--scope", scope, MCP_SERVER_NAME, "--", *argv], scope, cwd))
    return steps


def _step(command: list[str], scope: str, cwd: Path) -> Step:
    def run() -> None:
        try:
            done = subprocess.run(
                command, cwd=cwd, capture_output=True, text=True, timeout=_CLAUDE_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ClaudeCommandError(f"{shlex.join(command)}: {exc}") from exc
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
            raise ClaudeCommandError(f"{shlex.join(command)} exited {done.returncode}: {tail}")

    where = "" if scope == "user" else f"(in {cwd}) "
    return Step(description=f"{where}{shlex.join(command)}", run=run)
