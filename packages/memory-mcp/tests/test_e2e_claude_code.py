"""End to end: the real Claude Code (pinned) calls the memory tools through its own MCP client.

The server is registered the way the installer does it (`claude mcp add --scope user memory --
<python> -m memory_mcp`). A scripted mock of the Messages API on 127.0.0.1 plays the model: it
loads the deferred tools through ToolSearch, saves a note with `mcp__memory__memory_save`, then
finds it with `mcp__memory__memory_search`, and the test reads what Claude Code sent back as
each tool's result. The note must land in the project Claude Code ran in, which is how the
server, started by Claude Code, resolves its project.
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
from memory_testing.mock_models import MockMessagesAPI, claude_code_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CLAUDE_CODE_VERSION = "2.1.332"
_RUN_TIMEOUT_S = 180
_NOTE = "The nightly job rotates the Grafana API keys at 03:00 UTC."


@pytest.fixture
def scripted_model() -> Iterator[MockMessagesAPI]:
    model = MockMessagesAPI(
        [
            ("ToolSearch", {"query": "select:mcp__memory__memory_save"}),
            ("mcp__memory__memory_save", {"content": _NOTE}),
            ("ToolSearch", {"query": "select:mcp__memory__memory_search"}),
            ("mcp__memory__memory_search", {"query": "Grafana API keys rotate"}),
        ]
    )
    with model:
        yield model


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return npm_program("@anthropic-ai/claude-code", CLAUDE_CODE_VERSION, "claude")


def _run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=_RUN_TIMEOUT_S, check=False)
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def _text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or [])


def test_claude_code_saves_and_searches_through_the_memory_tools(
    claude_bin: Path, scripted_model: MockMessagesAPI, workspace: Any
) -> None:
    env = workspace.env | {
        "PATH": os.pathsep.join([str(claude_bin.parent), "/usr/bin", "/bin"]),
        **claude_code_env(scripted_model.url),
    }
    claude = str(claude_bin)
    _run(
        [claude, "mcp", "add", "--scope", "user", "memory", "--", sys.executable, "-m", "memory_mcp"],
        cwd=workspace.project,
        env=env,
    )

    done = _run(
        [
            claude,
            "-p",
            "save a note about the Grafana key rotation, then look it up",
            "--output-format",
            "json",
            "--allowedTools",
            "mcp__memory__memory_save",
            "mcp__memory__memory_search",
        ],
        cwd=workspace.project,
        env=env,
    )
    assert json.loads(done.stdout)["result"] == "Done."

    results = scripted_model.tool_results()
    saved_result = results["mcp__memory__memory_save"]
    assert not saved_result.get("is_error"), saved_result
    saved = json.loads(_text(saved_result))
    assert saved["text"] == _NOTE
    assert saved["scope"] == "project"

    found_result = results["mcp__memory__memory_search"]
    assert not found_result.get("is_error"), found_result
    found = json.loads(_text(found_result))
    assert [hit["id"] for hit in found] == [saved["id"]]  # the model sees the list itself

    # The server Claude Code started resolved the project Claude Code ran in.
    hits = MemoryService(cwd=str(workspace.project)).search("Grafana API keys", scope="project")
    assert [hit.record.id for hit in hits] == [saved["id"]]
