"""End to end: the real Codex (pinned) calls the memory tools through its own MCP client.

`[mcp_servers.memory]` is the entry `memory install codex` writes (this interpreter with
`-m memory_mcp`, `default_tools_approval_mode = "approve"`, without which Codex refuses MCP calls
under `approval_policy = "never"`), plus `env_vars` naming the memory settings: Codex passes a
stdio server only a short list of variables, so MEMORY_URL would otherwise not reach it.

A scripted mock of the Responses API on 127.0.0.1 plays the model: it loads the deferred
`mcp__memory` tools through `tool_search`, saves a note, then finds it, and the test reads what
Codex sent back as each call's output. Codex starts its MCP servers while the turn begins, so a
`tool_search` can come back empty; the mock searches again, a bounded number of times, a second
apart. The note must land in the project Codex ran in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_core.service import MemoryService
from memory_testing.harness_programs import npm_program
from memory_testing.mock_models import MockResponsesAPI, codex_config

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CODEX_VERSION = "0.171.0"
_EXEC_TIMEOUT_S = 180
_SEARCH_TRIES = 20
_SEARCH_PAUSE_S = 1.0
_NOTE = "The nightly job rotates the Grafana API keys at 03:00 UTC."
_NAMESPACE = "mcp__memory"
_PASS_THROUGH = ("MEMORY_URL", "MEMORY_USER", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")


@pytest.fixture
def scripted_model() -> Iterator[MockResponsesAPI]:
    script = [("memory_save", {"content": _NOTE}), ("memory_search", {"query": "Grafana API keys rotate"})]
    with MockResponsesAPI(
        script, namespace=_NAMESPACE, search_tries=_SEARCH_TRIES, search_pause_s=_SEARCH_PAUSE_S
    ) as api:
        yield api


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return npm_program("@openai/codex", CODEX_VERSION, "codex")


def _config(model_url: str) -> str:
    return codex_config(model_url) + "\n".join(
        [
            "[mcp_servers.memory]",
            f"command = {json.dumps(sys.executable)}",
            'args = ["-m", "memory_mcp"]',
            'default_tools_approval_mode = "approve"',
            # Codex hands a stdio server only a few variables (HOME, PATH, LANG, SHELL, TERM, ...)
            # plus those named here: without this the server would not see MEMORY_URL and would
            # open the default store instead of the one the hooks write to.
            f"env_vars = {json.dumps(list(_PASS_THROUGH))}",
            "",
        ]
    )


def test_codex_saves_and_searches_through_the_memory_tools(
    codex_bin: Path, scripted_model: MockResponsesAPI, workspace: Any
) -> None:
    codex_home = workspace.root / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(_config(scripted_model.base_url))
    env = workspace.env | {
        "PATH": os.pathsep.join([str(codex_bin.parent), "/usr/bin", "/bin"]),
        "CODEX_HOME": str(codex_home),
        "MOCK_OPENAI_API_KEY": "dummy",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    done = subprocess.run(
        [
            str(codex_bin),
            "exec",
            "--skip-git-repo-check",
            "save a note about the Grafana key rotation, then look it up",
        ],
        env=env,
        cwd=workspace.project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=_EXEC_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Done." in done.stdout, (done.stdout[-2000:], done.stderr[-2000:])

    outputs = scripted_model.outputs()
    assert _NOTE in outputs["memory_save"], outputs
    found = outputs["memory_search"]
    # The server Codex started used the store the environment names, and the project Codex ran in.
    hits = MemoryService(cwd=str(workspace.project)).search("Grafana API keys", scope="project")
    assert len(hits) == 1
    assert hits[0].record.text == _NOTE
    assert hits[0].record.id in found
