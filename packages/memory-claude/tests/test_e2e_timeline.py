"""End to end: what the agent did in a turn is kept behind it, and found again from a new session.

The real Claude Code (pinned), installed by `memory install claude`, runs against a scripted mock
of the Messages API on 127.0.0.1. Session 1: the model writes `src/auth/session.ts` through the
`Write` tool and runs `cat deploy.log` through `Bash`, whose output holds a planted GitHub token;
its final answer never names the file. Session 2, a new session, asks which file was changed for
the login bug: the injected block carries session 1's turn, and `memory_expand` on it (over the
MCP server, as a model would call it) names the path and shows the command's output with the
token redacted; a third asks about the path itself, which neither the prompt nor the answer named,
and the turn is recalled by what it touched. The token never reaches the store, the log, the
spool or any other file memory writes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from memory_testing.mock_models import MockMessagesAPI, claude_code_env
from memory_testing.secret_shapes import SHAPES

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_INJECTED = "UserPromptSubmit hook additional context"
_RUN_TIMEOUT_S = 120
_EXPAND_WAIT_S = 30.0
"""The worker reads the transcript after the turn's capture, off the hook's path: the events may
land a moment after Claude Code exits."""
_TOKEN = next(shape for shape in SHAPES if shape.name == "github-classic")
_EDITED = "src/auth/session.ts"


def _env(tmp_path: Path, home: Path, claude_bin: Path, model_url: str) -> dict[str, str]:
    env = {name: os.environ[name] for name in ("LANG", "TMPDIR", "MEMORY_HARNESS_CACHE") if name in os.environ}
    env.update(
        {
            "HOME": str(home),
            "PATH": os.pathsep.join([str(claude_bin.parent), str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
            "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
            "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory' / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "memory" / "state"),
            "MEMORY_LOG": str(tmp_path / "memory" / "memory.log"),
            "MEMORY_USER": "e2e",
            "MEMORY_WORKER_IDLE": "5",
            **claude_code_env(model_url),
        }
    )
    return env


def _claude(claude_bin: Path, prompt: str, *, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    argv = [str(claude_bin), "-p", prompt, "--output-format", "json", "--allowedTools", "Write,Bash"]
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=_RUN_TIMEOUT_S, check=False)
    assert done.returncode == 0, f"claude exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout)
    assert not result.get("is_error"), result
    return result


def _expand(record_id: str, *, cwd: Path, env: dict[str, str]) -> str:
    """`memory_expand` through the MCP server over stdio, as Claude Code starts it; the result's text."""

    async def main() -> str:
        params = StdioServerParameters(command=sys.executable, args=["-m", "memory_mcp"], env=env, cwd=cwd)
        with anyio.fail_after(60):
            async with Client(params) as client:
                result = await client.call_tool("memory_expand", {"id": record_id})
                assert not result.is_error, result.content
                return str(result.content[0].text)  # type: ignore[union-attr]

    return anyio.run(main)


def test_a_file_edited_and_a_command_run_in_one_session_are_found_from_the_next(
    claude_bin: Path, tmp_path: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / "src" / "auth").mkdir(parents=True)
    home.mkdir()
    (project / "deploy.log").write_text(f"deploy started\n{_TOKEN.text}\ndeploy finished\n")
    edit = {"file_path": str(project / _EDITED), "content": "export const SESSION_TTL_SECONDS = 3600;\n"}
    script = [("Write", edit), ("Bash", {"command": "cat deploy.log", "description": "Show the deploy log"})]

    with MockMessagesAPI(script) as model:
        env = _env(tmp_path, home, claude_bin, model.url)
        memory = [sys.executable, "-m", "memory_core.cli"]
        subprocess.run(
            [*memory, "install", "claude"], cwd=project, env=env, check=True, capture_output=True, timeout=120
        )
        first = _claude(claude_bin, "fix the login bug", cwd=project, env=env)
        assert first["result"] == "Done."
        assert (project / _EDITED).read_text() == edit["content"]  # the tool really ran
        assert _TOKEN.secret in model.tool_results()["Bash"]["content"]  # and printed the token

    question = "which file did we change for the login bug?"
    with MockMessagesAPI() as model:
        env = _env(tmp_path, home, claude_bin, model.url)
        _claude(claude_bin, question, cwd=project, env=env)
        [asked] = model.requests_with(question)
    assert _INJECTED in asked, "session 1's turn was not recalled"
    block = asked[asked.index(_INJECTED) :]
    assert "fix the login bug" in block
    record_id = re.search(r"- \[([^\]]+)\][^\n]*fix the login bug", block.replace("\\n", "\n"))
    assert record_id is not None, block[:2000]

    deadline = time.monotonic() + _EXPAND_WAIT_S
    expanded = _expand(record_id.group(1), cwd=project, env=env)
    while _EDITED not in expanded and time.monotonic() < deadline:
        time.sleep(1.0)
        expanded = _expand(record_id.group(1), cwd=project, env=env)
    assert _EDITED in expanded, expanded
    assert "cat deploy.log" in expanded
    assert "deploy finished" in expanded  # the command's output is there
    assert f"[REDACTED:{_TOKEN.kind}]" in expanded
    assert _TOKEN.secret not in expanded

    # The path was never said by the user nor by the model's answer: the turn is found by what it touched.
    touched = "what did we change in src/auth/session.ts?"
    with MockMessagesAPI() as model:
        env = _env(tmp_path, home, claude_bin, model.url)
        _claude(claude_bin, touched, cwd=project, env=env)
        [asked] = model.requests_with(touched)
    assert _INJECTED in asked, "not found by the path it touched"
    assert "fix the login bug" in asked[asked.index(_INJECTED) :]

    time.sleep(6)  # the worker (MEMORY_WORKER_IDLE=5) has exited and flushed what it holds
    for path in [
        *(tmp_path / "memory").rglob("*"),
        *(tmp_path / "xdg-data").rglob("*"),
        *(tmp_path / "xdg-state").rglob("*"),
    ]:
        if path.is_file():
            assert _TOKEN.secret.encode() not in path.read_bytes(), f"the token reached {path}"
