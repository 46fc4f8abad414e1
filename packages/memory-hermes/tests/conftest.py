"""Fixtures for memory-hermes: a throwaway memory environment, the recorded Hermes calls,
a fresh plugin runtime per test, and a stand-in for Hermes's plugin context.

`memory_env` points every memory setting (store, state, log, HOME) into `tmp_path`, so the
plugin's one-per-process service is built against a store the test owns.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_hermes import callbacks
from memory_hermes.harness import fixtures_dir


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


def recorded(name: str) -> dict[str, Any]:
    """A recorded Hermes 0.19.0 call from fixtures/: `{"hook", "kwargs", ...}`."""
    data: dict[str, Any] = json.loads((fixtures_dir() / name).read_text(encoding="utf-8"))
    return data


class HookRegistry:
    """Hermes's `PluginContext.register_hook` surface, keeping what was registered.

    Hermes itself is exercised in the end-to-end tests; here the callbacks are called the
    way Hermes's `invoke_hook` calls them: `callback(**kwargs)`, synchronously.
    """

    def __init__(self) -> None:
        self.hooks: dict[str, list[Callable[..., Any]]] = {}

    def register_hook(self, name: str, callback: Callable[..., Any]) -> None:
        self.hooks.setdefault(name, []).append(callback)

    def invoke(self, name: str, **kwargs: Any) -> list[Any]:
        results = []
        for callback in self.hooks.get(name, []):
            result = callback(**kwargs)
            if result is not None:
                results.append(result)
        return results
