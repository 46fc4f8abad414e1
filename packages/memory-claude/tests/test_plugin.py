"""The plugin shipped in the package does what `memory install claude --scope project` does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from memory_claude.commands import hook_command
from memory_claude.harness import ClaudeHarness
from memory_claude.settings import our_groups
from memory_claude.version import __version__

MARKETPLACE = ClaudeHarness().plugin_dir()


def read(*parts: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MARKETPLACE.joinpath(*parts).read_text(encoding="utf-8"))
    return data


def test_the_marketplace_lists_the_memory_plugin_at_a_folder_that_exists() -> None:
    marketplace = read(".claude-plugin", "marketplace.json")
    assert marketplace["name"] == "subconscious-memory"
    [entry] = marketplace["plugins"]
    assert entry["name"] == "memory"
    assert (MARKETPLACE / entry["source"] / ".claude-plugin" / "plugin.json").is_file()


def test_the_plugin_version_is_the_package_version() -> None:
    manifest = read("memory", ".claude-plugin", "plugin.json")
    assert (manifest["name"], manifest["version"]) == ("memory", __version__)


def test_the_plugin_hooks_are_the_project_scope_hooks() -> None:
    hooks = read("memory", "hooks", "hooks.json")["hooks"]
    assert hooks == {event: [group] for event, group in our_groups(hook_command("project")).items()}


def test_the_plugin_server_is_the_project_scope_server() -> None:
    servers = read("memory", ".mcp.json")["mcpServers"]
    assert servers == {"memory": {"command": "memory-mcp", "args": []}}


def test_the_hook_script_prints_where_the_marketplace_is() -> None:
    script = Path(sys.executable).parent / "memory-claude-hook"
    done = subprocess.run([str(script), "--plugin-dir"], capture_output=True, text=True, timeout=60, check=True)
    assert Path(done.stdout.strip()) == MARKETPLACE
