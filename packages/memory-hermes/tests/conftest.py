"""Fixtures for memory-hermes: a throwaway memory environment and a fresh plugin runtime per test.

`memory_env` points every memory setting (store, state, log, HOME) into `tmp_path`, so the
plugin's one-per-process service is built against a store the test owns.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_hermes import callbacks


@pytest.fixture
def memory_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_LOG": str(tmp_path / "memory.log"),
        "MEMORY_USER": "alice",
    }
    for name in list(os.environ):
        if name.startswith(("MEMORY_", "XDG_", "HERMES_")) and name != "MEMORY_HARNESS_CACHE":
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (no git: its path is its key), made the working directory."""
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def fresh_runtime(memory_env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test gets its own plugin runtime, as a new Hermes process would."""
    monkeypatch.setattr(callbacks, "_runtime", None)
    yield
    runtime = callbacks._runtime
    if runtime is not None:
        runtime.worker.drain(5.0)
