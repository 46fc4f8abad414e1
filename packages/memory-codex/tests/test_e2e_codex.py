"""End to end with the real program: `memory install codex`, then `codex exec` against a mock model.

Codex 0.171.0 (from the npm registry, cached outside the clone) runs offline against a mock
OpenAI Responses API on 127.0.0.1 that this test starts, with a throwaway HOME and
CODEX_HOME configured as the recorded runbook does (custom provider, analytics and plugin
sync off). Session 1 states a fact; session 2, a new session, asks about it; the test
asserts from the request the mock received that the fact reached the model as injected
context (Codex's own `developer` message right after the user's), and that an unrelated
prompt got nothing injected. The install goes through the `memory` CLI, so this also shows
the hooks are trusted with no review step: Codex skips untrusted hooks silently.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_testing.mock_models import MockResponsesAPI, codex_config, messages_after

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_EXEC_TIMEOUT_S = 120


@pytest.fixture
def mock_model() -> Iterator[MockResponsesAPI]:
    with MockResponsesAPI() as api:
        yield api


@pytest.fixture
def codex_env(
    codex_on_path: Path, codex_home: Path, project: Path, tmp_path: Path, mock_model: MockResponsesAPI
) -> dict[str, str]:
    (codex_home / "config.toml").write_text(codex_config(mock_model.base_url))
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MEMORY_", "OPENAI_", "XDG_"))}
    env.update(
        MOCK_OPENAI_API_KEY="dummy",
        NO_PROXY="127.0.0.1,localhost",
        MEMORY_URL=f"sqlite:///{tmp_path / 'memory.db'}",
        MEMORY_STATE_DIR=str(tmp_path / "memory-state"),
        MEMORY_LOG=str(tmp_path / "memory.log"),
        MEMORY_CONFIG=str(tmp_path / "no-memory-config.toml"),
        MEMORY_USER="e2e",
    )
    return env


def codex_exec(prompt: str, *, codex: Path, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(
        [str(codex), "exec", "--skip-git-repo-check", prompt],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=_EXEC_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_fact_stated_in_one_session_reaches_the_model_in_the_next(
    codex_on_path: Path, codex_env: dict[str, str], project: Path, tmp_path: Path, mock_model: MockResponsesAPI
) -> None:
    memory = Path(sys.executable).parent / "memory"
    installed = subprocess.run(
        [str(memory), "install", "codex"], env=codex_env, cwd=project, capture_output=True, text=True, timeout=120
    )
    assert installed.returncode == 0, installed.stderr
    assert "installed" in installed.stdout

    fact = "remember that the build uses tox"
    codex_exec(fact, codex=codex_on_path, env=codex_env, cwd=project)
    assert [role for role, _ in messages_after(mock_model.request_for(fact), fact)] == []  # nothing to recall yet

    question = "what does the build use?"
    codex_exec(question, codex=codex_on_path, env=codex_env, cwd=project)
    injected = messages_after(mock_model.request_for(question), question)
    assert [role for role, _ in injected] == ["developer"], injected
    assert "tox" in injected[0][1]
    log = tmp_path / "memory.log"
    assert not log.exists() or "ERROR" not in log.read_text(), log.read_text()

    unrelated = "write a haiku about autumn leaves"
    codex_exec(unrelated, codex=codex_on_path, env=codex_env, cwd=project)
    assert messages_after(mock_model.request_for(unrelated), unrelated) == []
