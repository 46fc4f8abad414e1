"""Fixtures for memory-codex: a throwaway HOME and CODEX_HOME, a project, the real `codex`.

`home` points HOME and CODEX_HOME at temp folders and PATH at folders without `codex`, so the
installer takes its no-codex route unless a test asks for the real program (`codex_bin`) and
puts it on PATH.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from memory_testing.harness_programs import npm_program

CODEX_VERSION = "0.171.0"
"""The Codex release the recorded payloads and the trust hash come from."""

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / ".codex").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("CODEX_HOME", str(folder / ".codex"))
    # The venv's bin (memory, memory-codex-hook) and the system's; never a `codex`.
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]))
    return folder


@pytest.fixture
def codex_home(home: Path) -> Path:
    return home / ".codex"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / ".git").mkdir(parents=True)
    return folder


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    """The real `codex` executable, installed once into the harness cache."""
    return npm_program("@openai/codex", CODEX_VERSION, "codex")


@pytest.fixture
def codex_on_path(codex_bin: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", os.pathsep.join([str(codex_bin.parent), os.environ["PATH"]]))
    return codex_bin
