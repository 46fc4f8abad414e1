"""What `memory doctor` learns from `status()`: where we are installed and whether it still runs."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memory_claude.harness import ClaudeHarness
from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import apply_plan

harness = ClaudeHarness()


def install(scope: str, project: Path) -> None:
    apply_plan(harness.plan_install(scope, project_dir=project), dry_run=False, out=io.StringIO())


def by_scope(project: Path) -> dict[str, InstallStatus]:
    """The hook entries by scope (the first entry of each scope is its settings file)."""
    found: dict[str, InstallStatus] = {}
    for entry in harness.status(project_dir=project):
        found.setdefault(entry.scope, entry)
    return found


def elsewhere(project: Path, path: Path) -> list[InstallStatus]:
    return [entry for entry in harness.status(project_dir=project) if entry.path == str(path)]


def test_nothing_installed_reports_every_scope_as_not_installed(home: Path, project: Path) -> None:
    found = by_scope(project)
    assert {scope: entry.installed for scope, entry in found.items()} == {
        "user": False,
        "project": False,
        "local": False,
    }


def test_a_user_install_reports_its_file_command_and_that_it_runs(home: Path, project: Path) -> None:
    install("user", project)
    entry = by_scope(project)["user"]
    assert entry.installed
    assert entry.path == str(home / ".claude" / "settings.json")
    assert entry.command == f"{sys.executable} -m memory_claude.hook"
    assert entry.runs is True
    assert entry.detail == ""
    [server] = elsewhere(project, home / ".claude.json")
    assert (server.scope, server.installed, server.runs) == ("user", True, True)
    assert server.command == f"{sys.executable} -m memory_mcp"


def test_a_hook_whose_interpreter_is_gone_is_reported_with_the_fix(home: Path, project: Path) -> None:
    install("user", project)
    path = home / ".claude" / "settings.json"
    path.write_text(path.read_text().replace(sys.executable, "/nonexistent/venv/bin/python"))
    entry = by_scope(project)["user"]
    assert entry.installed
    assert entry.runs is False
    assert "/nonexistent/venv/bin/python no longer exists" in entry.detail
    assert "memory install claude" in entry.detail


def test_an_interpreter_without_memory_claude_does_not_run(home: Path, project: Path, tmp_path: Path) -> None:
    install("user", project)
    bare = "/usr/bin/python3"
    if not Path(bare).exists():
        pytest.skip("no system python3 to stand for an interpreter without memory-claude")
    path = home / ".claude" / "settings.json"
    path.write_text(path.read_text().replace(sys.executable, bare))
    entry = by_scope(project)["user"]
    assert entry.runs is False
    assert "cannot import memory_claude.hook" in entry.detail


def test_a_project_install_runs_where_the_hook_script_is_on_path(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install("project", project)
    assert by_scope(project)["project"].runs is True
    monkeypatch.setenv("PATH", os.pathsep.join(["/usr/bin", "/bin"]))
    entry = by_scope(project)["project"]
    assert entry.installed
    assert entry.runs is False
    assert "memory-claude-hook` is not on PATH" in entry.detail


def test_a_hook_missing_for_one_event_is_reported(home: Path, project: Path) -> None:
    install("local", project)
    path = project / ".claude" / "settings.local.json"
    settings = json.loads(path.read_text())
    del settings["hooks"]["Stop"]
    path.write_text(json.dumps(settings))
    entry = by_scope(project)["local"]
    assert entry.installed
    assert "missing for Stop" in entry.detail


def test_an_unreadable_settings_file_is_reported_not_raised(home: Path, project: Path) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{not json")
    entry = by_scope(project)["user"]
    assert not entry.installed
    assert "not valid JSON" in entry.detail


def test_the_plugin_route_is_reported(home: Path, project: Path) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"enabledPlugins": {"memory@subconscious-memory": True, "other@x": True}}))
    plugins = [entry for entry in elsewhere(project, path) if entry.installed]
    assert [(entry.scope, entry.command, entry.runs) for entry in plugins] == [("user", "memory-claude-hook", True)]


def test_an_mcp_server_whose_interpreter_is_gone_is_reported(home: Path, project: Path) -> None:
    install("user", project)
    claude_json = home / ".claude.json"
    claude_json.write_text(claude_json.read_text().replace(sys.executable, "/gone/bin/python"))
    [server] = elsewhere(project, claude_json)
    assert server.runs is False
    assert server.detail.startswith("MCP server `memory`: /gone/bin/python no longer exists")


@pytest.mark.parametrize("long_path", [False, True], ids=["shebang", "pip sh launcher"])
def test_the_hook_scripts_interpreter_is_found_from_its_launcher(
    home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, long_path: bool
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "memory-claude-hook"
    if long_path:
        script.write_text(f"#!/bin/sh\n'''exec' \"{sys.executable}\" \"$0\" \"$@\"\n' '''\nimport sys\n")
    else:
        script.write_text(f"#!{sys.executable}\nimport sys\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]))
    install("project", project)
    assert by_scope(project)["project"].runs is True


def test_memory_doctor_reports_the_install(home: Path, project: Path) -> None:
    install("user", project)
    done = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", "doctor", "--json"],
        cwd=project,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    report = json.loads(done.stdout)
    [claude] = [entry for entry in report["harnesses"] if entry["harness"] == "claude"]
    [hooks] = [place for place in claude["installed"] if place["path"] == str(home / ".claude" / "settings.json")]
    assert (hooks["scope"], hooks["installed"], hooks["runs"]) == ("user", True, True)
    assert not [problem for problem in report["problems"] if "Claude Code" in problem["what"]]
