"""Our entries in OpenClaw's `openclaw.json`, added and removed as pure functions on its data.

What an install puts there (and an uninstall takes away, leaving everything else as it was):

- `plugins.load.paths`: the plugin folder (only when the `openclaw` CLI is not there to do it);
- `plugins.entries.memory-openclaw`: `enabled: true` (same), `hooks.allowConversationAccess:
  true` (without it OpenClaw drops `before_prompt_build`, `llm_output` and `agent_end`
  silently) and `config.python`, the interpreter the plugin runs memory-core with;
- `plugins.allow`: our id, only when the user keeps an allow-list (else we would not load);
- `mcp.servers.memory`: the memory MCP server (`<python> -m memory_mcp`), when memory-mcp is
  installed beside us.

A load path of an earlier install from another place (`.../memory_openclaw/plugin`) is
replaced, never kept beside the new one: two folders with one plugin id would clash.
Containers our removal empties are removed too, so install then uninstall gives back the
same data; the text follows the one JSON-edit policy of `memory_core.installing.jsonedit`
(only what changed is spliced in; a new file in OpenClaw's own `JSON.stringify(data, null, 2)`
form), so a file OpenClaw wrote round-trips byte for byte.

Failure: `OpenClawConfigError` for a file that is not a JSON object (OpenClaw also accepts
JSON5, comments and all; we do not rewrite such a file, we say how to fix it).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_core.installing import is_our_mcp_entry, mcp_argv
from memory_core.installing.jsonedit import load_object

from memory_openclaw import PLUGIN_ID
from memory_openclaw.errors import OpenClawConfigError

__all__ = [
    "MCP_SERVER_NAME",
    "load",
    "with_memory",
    "without_memory",
    "lookup",
    "entry",
    "is_linked",
    "our_load_paths",
    "mcp_server",
    "is_our_mcp_server",
]

MCP_SERVER_NAME = "memory"
_JSON5_ADVICE = (
    "OpenClaw accepts JSON5 but the installer edits JSON only: remove the comments and trailing commas "
    "(any `openclaw config set` rewrites it as JSON), then run the install again"
)
_PLUGIN_TAIL = ("memory_openclaw", "plugin")

Data = dict[str, Any]


def load(text: str | None, path: Path) -> Data:
    """The config's data; `{}` for a missing or blank file (`memory_core.installing.jsonedit`)."""
    return load_object(text, path, error=OpenClawConfigError, advice=_JSON5_ADVICE)


def _child(parent: Data, key: str) -> Data:
    """`parent[key]` as a dict, created when missing (a non-dict value is replaced)."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value


def lookup(data: Any, *keys: str) -> Any:
    """`data[k0][k1]...`, or None where a level is missing or not an object."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _is_ours(path: Any) -> bool:
    return isinstance(path, str) and Path(path).parts[-2:] == _PLUGIN_TAIL


def entry(data: Data) -> Data | None:
    """`plugins.entries.memory-openclaw`, if it is there."""
    value = lookup(data, "plugins", "entries", PLUGIN_ID)
    return value if isinstance(value, dict) else None


def our_load_paths(data: Data) -> list[str]:
    """Load paths that point at a memory-openclaw plugin folder (this install's or an older one's)."""
    paths = lookup(data, "plugins", "load", "paths")
    return [p for p in paths if _is_ours(p)] if isinstance(paths, list) else []


def is_linked(data: Data, plugin_dir: Path) -> bool:
    """Whether OpenClaw loads our plugin from `plugin_dir` and it is enabled."""
    found = entry(data)
    return our_load_paths(data) == [str(plugin_dir)] and found is not None and found.get("enabled") is True


def mcp_server(python: str) -> Data:
    """The `mcp.servers.memory` definition: memory-mcp over stdio."""
    command, *args = mcp_argv(python=python)
    return {"command": command, "args": args}


def is_our_mcp_server(value: Any) -> bool:
    """Whether an `mcp.servers` value runs memory-mcp (a server of the user's with our name is not ours)."""
    return is_our_mcp_entry(value)


def with_memory(data: Data, *, plugin_dir: Path, python: str, link: bool, mcp: bool = True) -> Data:
    """A copy of `data` with our entries.

    `link=False` leaves the load path and `enabled` to `openclaw plugins install --link`,
    which writes them itself; `mcp=False` (memory-mcp is not installed) adds no MCP server.
    """
    out = copy.deepcopy(data)
    plugins = _child(out, "plugins")
    paths = lookup(plugins, "load", "paths")
    if isinstance(paths, list):
        for stale in [p for p in paths if _is_ours(p) and p != str(plugin_dir)]:
            paths.remove(stale)
    if link:
        load_section = _child(plugins, "load")
        if not isinstance(load_section.get("paths"), list):
            load_section["paths"] = []
        if str(plugin_dir) not in load_section["paths"]:
            load_section["paths"].append(str(plugin_dir))
    allow = plugins.get("allow")
    if isinstance(allow, list) and PLUGIN_ID not in allow:
        allow.append(PLUGIN_ID)
    ours = _child(_child(plugins, "entries"), PLUGIN_ID)
    if link:
        ours["enabled"] = True
    _child(ours, "hooks")["allowConversationAccess"] = True
    _child(ours, "config")["python"] = python
    if not mcp:
        return out
    servers = _child(_child(out, "mcp"), "servers")
    current = servers.get(MCP_SERVER_NAME)
    if current is None:
        servers[MCP_SERVER_NAME] = mcp_server(python)
    elif is_our_mcp_server(current):
        current.update(mcp_server(python))  # keeps settings the user added (timeouts, enabled)
    return out


def _remove(data: Data, keys: Sequence[str]) -> None:
    """Delete `data[k0][k1]...[kn]`, then every container on the way that this left empty."""
    trail: list[tuple[Data, str]] = []
    node: Any = data
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return
        trail.append((node, key))
        node = node[key]
    parent, key = trail.pop()
    del parent[key]
    while trail and not parent:
        parent, key = trail.pop()
        del parent[key]


def without_memory(data: Data) -> Data:
    """A copy of `data` without anything of ours (any install's load path included)."""
    out = copy.deepcopy(data)
    paths = lookup(out, "plugins", "load", "paths")
    if isinstance(paths, list):
        for path in [p for p in paths if _is_ours(p)]:
            paths.remove(path)
        if not paths:
            _remove(out, ("plugins", "load", "paths"))
    allow = lookup(out, "plugins", "allow")
    if isinstance(allow, list) and PLUGIN_ID in allow:
        allow.remove(PLUGIN_ID)
    _remove(out, ("plugins", "entries", PLUGIN_ID))
    if is_our_mcp_server(lookup(out, "mcp", "servers", MCP_SERVER_NAME)):
        _remove(out, ("mcp", "servers", MCP_SERVER_NAME))
    return out
