"""A throwaway workspace per test: an embedded store, HOME and XDG dirs, two project folders.

The same settings serve an in-process server (set in `os.environ` through monkeypatch) and a
server in a subprocess (`Workspace.env`), so both see one store file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from memory_core.service import MemoryService
from memory_mcp.runner import ServiceRunner


@dataclass(frozen=True)
class Workspace:
    root: Path
    project: Path
    other_project: Path
    env: dict[str, str]
    """The whole environment for a subprocess: this process's, minus every MEMORY_ variable, plus ours."""

    def service(self, cwd: Path | None = None) -> MemoryService:
        """A service over the workspace's store, as a hook process in `cwd` (default: the project) would open it."""
        return MemoryService(long_lived=False, cwd=str(cwd or self.project))


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    home = tmp_path / "home"
    project = tmp_path / "project"
    other = tmp_path / "other-project"
    for folder in (home, project, other):
        folder.mkdir()
    ours = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_USER": "tester",
    }
    for name in list(os.environ):
        if name.startswith("MEMORY_"):
            monkeypatch.delenv(name)
    for name, value in ours.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(project)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")} | ours
    return Workspace(root=tmp_path, project=project, other_project=other, env=env)


@pytest.fixture
def runner(workspace: Workspace) -> Iterator[ServiceRunner]:
    """The runner an in-process server uses: a long-lived service in the workspace's project."""
    made = ServiceRunner(lambda: MemoryService(long_lived=True, cwd=str(workspace.project)))
    yield made
    made.close()
