"""Fixtures for memory-claude: a throwaway HOME and project, a mock model, the real `claude`.

`home` points HOME at a temp folder and PATH at folders without `claude`, so the installer
takes its direct-edit route unless a test puts the real program on PATH.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_testing.harness_programs import npm_program
from memory_testing.mock_models import MockMessagesAPI


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    # The venv's bin (memory-claude-hook, memory-mcp) and the system's; never a `claude`.
    path = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    monkeypatch.setenv("PATH", path)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def mock_model() -> Iterator[MockMessagesAPI]:
    with MockMessagesAPI() as api:
        yield api


CLAUDE_CODE_VERSION = "2.1.332"
"""The version every recorded payload in fixtures/ came from."""


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The real `claude` program, installed once into the harness cache (fails under CI if it cannot be)."""
    return npm_program("@anthropic-ai/claude-code", CLAUDE_CODE_VERSION, "claude")
