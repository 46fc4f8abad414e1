"""End to end: the real Claude Code (pinned) writes the transcripts `memory import claude` reads.

A session run before memory was installed is imported and then recalled by the installed
hooks in a new session; that new session's turn, captured by the hook, is found already
stored when the import runs again, so the ids the transcript yields are the hook's ids.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_core.config import Config
from memory_core.retrieval.render import HEADER
from memory_core.service import MemoryService
from memory_testing.mock_models import claude_code_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_INJECTED = "UserPromptSubmit hook additional context"
_RUN_TIMEOUT_S = 120


def _env(tmp_path: Path, claude_bin: Path, model_url: str) -> dict[str, str]:
    keep = ("LANG", "TMPDIR", "MEMORY_HARNESS_CACHE")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env.update(
        {
            "HOME": str(tmp_path / "home"),
            "PATH": os.pathsep.join([str(claude_bin.parent), str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
            **claude_code_env(model_url),
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "git:example.com/acme/build",
            "MEMORY_USER": "alice",
        }
    )
    return env


def _run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=_RUN_TIMEOUT_S, check=False)
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def _import(env: dict[str, str], cwd: Path) -> dict[str, Any]:
    done = _run(
        [sys.executable, "-m", "memory_core.cli", "import", "claude", "--since-last", "--json"], cwd=cwd, env=env
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_a_session_from_before_the_install_is_imported_recalled_and_never_doubled(
    claude_bin: Path, mock_model: Any, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    env = _env(tmp_path, claude_bin, mock_model.url)

    before = _run(
        [str(claude_bin), "-p", "remember that the build uses tox", "--output-format", "json"], cwd=project, env=env
    )
    assert json.loads(before.stdout)["result"] == "Noted: the build uses tox."

    _run(
        [sys.executable, "-m", "memory_core.cli", "install", "claude", "--project-dir", str(project)],
        cwd=project,
        env=env,
    )
    first = _import(env, project)
    assert (first["stored"], first["duplicates"], first["stopped"]) == (1, 0, "")

    _run([str(claude_bin), "-p", "what does the build use?", "--output-format", "json"], cwd=project, env=env)
    [request] = mock_model.requests_with("what does the build use?")
    assert _INJECTED in request, "the imported turn was not recalled"

    # The hook captured that turn; reading its transcript finds the same record.
    second = _import(env, project)
    assert (second["stored"], second["duplicates"]) == (0, 1)

    svc = MemoryService(Config.from_env(env), long_lived=True)
    texts = sorted(r.text for r in svc.store.scan(svc.scopes(kind="project")))
    svc.store.close()
    assert len(texts) == 2
    assert texts[0] == "User: remember that the build uses tox\nAssistant: Noted: the build uses tox."
    assert texts[1].startswith("User: what does the build use?\nAssistant: ")
    assert all(HEADER not in text for text in texts)
