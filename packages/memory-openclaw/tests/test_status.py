"""What `memory doctor` reports for OpenClaw: installed or not, what is broken, which project."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from memory_core.installing import apply_plan
from memory_openclaw.harness import OpenClawHarness


def _install(home: Path) -> Path:
    apply_plan(OpenClawHarness().plan_install("user", project_dir=home), dry_run=False, out=io.StringIO())
    return home / ".openclaw" / "openclaw.json"


def test_not_installed(home: Path) -> None:
    (status,) = OpenClawHarness().status(project_dir=home)
    assert not status.installed
    assert "memory install openclaw" in status.detail


def test_installed_shows_the_hook_command_and_the_workspace_project(home: Path) -> None:
    _install(home)
    (status,) = OpenClawHarness().status(project_dir=home)
    assert status.installed
    assert status.runs is True
    assert status.command is not None
    assert status.command.endswith(" -m memory_openclaw.worker")
    workspace = home / ".openclaw" / "workspace"
    # OpenClaw's workspace is not a repository: its path is the project.
    assert f"project: the OpenClaw workspace {workspace} (path:{workspace})" in status.detail
    assert "fix:" not in status.detail


def test_memory_project_overrides_the_workspace(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install(home)
    monkeypatch.setenv("MEMORY_PROJECT", "team/app")
    (status,) = OpenClawHarness().status(project_dir=home)
    assert "project: MEMORY_PROJECT=team/app" in status.detail


def test_a_configured_workspace_is_the_one_shown(home: Path) -> None:
    config = _install(home)
    data = json.loads(config.read_text())
    data["agents"] = {"defaults": {"workspace": "~/agent-space"}}
    config.write_text(json.dumps(data))
    (status,) = OpenClawHarness().status(project_dir=home)
    assert f"the OpenClaw workspace {home / 'agent-space'}" in status.detail


def test_a_missing_conversation_opt_in_is_reported_with_its_fix(home: Path) -> None:
    config = _install(home)
    data = json.loads(config.read_text())
    del data["plugins"]["entries"]["memory-openclaw"]["hooks"]
    config.write_text(json.dumps(data))
    (status,) = OpenClawHarness().status(project_dir=home)
    assert status.installed
    assert "allowConversationAccess is not true" in status.detail
    assert "fix: memory install openclaw" in status.detail


def test_an_interpreter_that_is_gone_is_reported(home: Path) -> None:
    config = _install(home)
    data = json.loads(config.read_text())
    data["plugins"]["entries"]["memory-openclaw"]["config"]["python"] = str(home / "gone" / "python")
    config.write_text(json.dumps(data))
    (status,) = OpenClawHarness().status(project_dir=home)
    assert status.runs is False
    assert "cannot run memory_openclaw.worker" in status.detail


def test_a_broken_config_is_a_status_not_a_crash(home: Path) -> None:
    config = home / ".openclaw" / "openclaw.json"
    config.parent.mkdir(parents=True)
    config.write_text("{ // json5\n}")
    (status,) = OpenClawHarness().status(project_dir=home)
    assert not status.installed
    assert "JSON5" in status.detail
