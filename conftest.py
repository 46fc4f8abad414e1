"""Isolation for every test of the workspace: no test reads or writes the user's real memory.

Each test gets its own XDG data, state and config folders, and every `MEMORY_*` variable of
the calling shell is removed (a developer's `MEMORY_URL` must never receive test records).
Workers that hooks start during tests exit after 5 idle seconds.
Tests that need a variable set it themselves with `monkeypatch`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_memory_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("xdg")
    for name in list(os.environ):
        if name.startswith("MEMORY_") and name != "MEMORY_HARNESS_CACHE":
            monkeypatch.delenv(name)
    # Hooks in tests start real workers; keep them short-lived so a run leaves none behind.
    monkeypatch.setenv("MEMORY_WORKER_IDLE", "5")
    for var, sub in (("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config")):
        folder = Path(home) / sub
        folder.mkdir()
        monkeypatch.setenv(var, str(folder))
