"""End to end: what Codex did in a turn is kept behind it, and found again from a new session.

The real Codex (pinned), installed and trusted by `memory install codex`, runs against a
scripted mock of the Responses API on 127.0.0.1. Session 1: the model adds `src/auth/session.ts`
through `apply_patch` (Codex's freeform tool) and runs `cat deploy.log` through `exec_command`,
whose output holds a planted GitHub token; its final answer never names the file. Session 2, a
new session, asks which file was changed for the login bug: Codex's injected `developer` message
carries session 1's turn, and `memory_expand` on it (over the MCP server, as a model would call
it) names the path and shows the command's output with the token redacted. The token never
reaches the store, the log, the spool or any other file memory writes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from memory_testing.mock_models import MockResponsesAPI, codex_config, messages_after
from memory_testing.secret_shapes import SHAPES

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_EXEC_TIMEOUT_S = 120
_EXPAND_WAIT_S = 30.0
"""The worker reads the rollout after the turn's capture, off the hook's path: the events may land
a moment after Codex exits."""
_TOKEN = next(shape for shape in SHAPES if shape.name == "github-classic")
_EDITED = "src/auth/session.ts"
_PATCH = f"*** Begin Patch\n*** Add File: {_EDITED}\n+export const SESSION_TTL_SECONDS = 3600;\n*** End Patch\n"


def _configure(codex_home: Path, model: MockResponsesAPI) -> None:
    # The patch and the command must really run: no read-only sandbox (and none this container could host).
    config = codex_config(model.base_url).replace('sandbox_mode = "read-only"', 'sandbox_mode = "danger-full-access"')
    kept = (codex_home / "config.toml").read_text() if (codex_home / "config.toml").exists() else ""
    # `memory install codex` appended its trust entries: keep everything after the mock's own part.
    tail = kept.split("plugins = false\n", 1)[1] if "plugins = false\n" in kept else ""
    (codex_home / "config.toml").write_text(config + tail)


def _exec(codex: Path, prompt: str, *, env: dict[str, str], cwd: Path) -> str:
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


def _expand(record_id: str, *, cwd: Path, env: dict[str, str]) -> str:
    """`memory_expand` through the MCP server over stdio; the result's text."""

    async def main() -> str:
        params = StdioServerParameters(command=sys.executable, args=["-m", "memory_mcp"], env=env, cwd=cwd)
        with anyio.fail_after(60):
            async with Client(params) as client:
                result = await client.call_tool("memory_expand", {"id": record_id})
                assert not result.is_error, result.content
                return str(result.content[0].text)  # type: ignore[union-attr]

    return anyio.run(main)


def test_a_file_patched_and_a_command_run_in_one_session_are_found_from_the_next(
    codex_on_path: Path, codex_home: Path, project: Path, tmp_path: Path
) -> None:
    (project / "deploy.log").write_text(f"deploy started\n{_TOKEN.text}\ndeploy finished\n")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MEMORY_", "OPENAI_", "XDG_"))}
    env.update(
        MOCK_OPENAI_API_KEY="dummy",
        NO_PROXY="127.0.0.1,localhost",
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
        XDG_STATE_HOME=str(tmp_path / "xdg-state"),
        MEMORY_URL=f"sqlite:///{tmp_path / 'memory' / 'memory.db'}",
        MEMORY_STATE_DIR=str(tmp_path / "memory" / "state"),
        MEMORY_LOG=str(tmp_path / "memory" / "memory.log"),
        MEMORY_CONFIG=str(tmp_path / "no-memory-config.toml"),
        MEMORY_USER="e2e",
        MEMORY_WORKER_IDLE="5",
    )
    script = [("apply_patch", {"input": _PATCH}), ("exec_command", {"cmd": "cat deploy.log"})]
    with MockResponsesAPI(script) as model:
        _configure(codex_home, model)
        memory = Path(sys.executable).parent / "memory"
        installed = subprocess.run(
            [str(memory), "install", "codex"], env=env, cwd=project, capture_output=True, text=True, timeout=120
        )
        assert installed.returncode == 0, installed.stderr
        _exec(codex_on_path, "fix the login bug", env=env, cwd=project)
        assert (project / _EDITED).read_text() == "export const SESSION_TTL_SECONDS = 3600;\n"  # the patch applied
        outputs = [
            item
            for body in model.requests
            for item in body.get("input", [])
            if item.get("type") == "function_call_output"
        ]
        assert any(_TOKEN.secret in str(item.get("output")) for item in outputs)  # the command printed the token

    question = "which file did we change for the login bug?"
    with MockResponsesAPI() as model:
        _configure(codex_home, model)
        _exec(codex_on_path, question, env=env, cwd=project)
        injected = messages_after(model.request_for(question), question)
    assert [role for role, _ in injected] == ["developer"], "session 1's turn was not recalled"
    block = injected[0][1]
    record_id = re.search(r"- \[([^\]]+)\][^\n]*fix the login bug", block)
    assert record_id is not None, block

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

    time.sleep(6)  # the worker (MEMORY_WORKER_IDLE=5) has exited and flushed what it holds
    written = [
        *(tmp_path / "memory").rglob("*"),
        *(tmp_path / "xdg-data").rglob("*"),
        *(tmp_path / "xdg-state").rglob("*"),
    ]
    for path in written:
        if path.is_file():
            assert _TOKEN.secret.encode() not in path.read_bytes(), f"the token reached {path}"
