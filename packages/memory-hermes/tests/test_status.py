"""What `memory doctor` shows for Hermes, including which project Hermes writes to."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_hermes import PLUGIN_NAME, whereabouts
from memory_hermes.harness import HermesHarness
from memory_hermes.status import project_line
from memory_hermes.yamltext import enable_plugin


def test_not_installed_says_the_command_that_installs(memory_env: dict[str, str], project: Path) -> None:
    [line] = HermesHarness().status(project_dir=project)
    assert not line.installed
    assert "memory install hermes" in line.detail


def test_enabled_but_hermes_gone_says_what_is_wrong(
    memory_env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = Path(memory_env["HOME"]) / ".hermes" / "config.yaml"
    config.parent.mkdir()
    config.write_text(enable_plugin("", PLUGIN_NAME))
    monkeypatch.setenv("PATH", "")
    [line] = HermesHarness().status(project_dir=project)
    assert line.installed
    assert line.runs is False
    assert "not on PATH" in line.detail
    monkeypatch.setenv("MEMORY_HERMES_PYTHON", sys.executable)  # a python without Hermes
    [line] = HermesHarness().status(project_dir=project)
    assert "no hermes-agent" in line.detail


def test_the_project_line_names_what_the_last_hermes_recorded(memory_env: dict[str, str], project: Path) -> None:
    config = Config.from_env()
    assert project_line(config, project) == (
        f"Hermes writes to the project of the folder it is started in (from {project}: path:{project})"
    )
    whereabouts.record(config.state_dir, key="git:example.com/acme/api", source="git-remote", cwd="/src/api")
    line = project_line(config, project)
    assert line.startswith("Hermes writes to project git:example.com/acme/api (the Hermes started in /src/api, pid ")


def test_a_plugin_disabled_in_hermes_is_reported_as_the_users_choice(memory_env: dict[str, str], project: Path) -> None:
    config = Path(memory_env["HOME"]) / ".hermes" / "config.yaml"
    config.parent.mkdir()
    # What `hermes plugins disable memory-hermes` leaves behind.
    config.write_text("plugins:\n  enabled: []\n  disabled:\n  - memory-hermes\n")
    [line] = HermesHarness().status(project_dir=project)
    assert line.installed
    assert line.runs is None  # not a problem for doctor to fix
    assert "hermes plugins enable memory-hermes" in line.detail
