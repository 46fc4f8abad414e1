"""The server over stdio, as a harness starts it: a subprocess driven by the SDK's own client.

Three ways to start it, all the same server: `python -m memory_mcp`, the `memory-mcp` console
script and `memory mcp` from the core CLI. The project is the server's working directory.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from memory_mcp import TOOL_NAMES

_TIMEOUT_S = 90
_BIN = Path(sys.executable).parent


def over_stdio(command: list[str], env: dict[str, str], cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """Start the server, list its tools, make `calls` in order; the tool names and each result's parsed text."""

    async def main() -> tuple[set[str], list[Any]]:
        params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=cwd)
        with anyio.fail_after(_TIMEOUT_S):
            async with Client(params) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                results = []
                for name, arguments in calls:
                    result = await client.call_tool(name, arguments)
                    assert not result.is_error, result.content
                    results.append(json.loads(result.content[0].text))  # type: ignore[union-attr]
                return names, results

    return anyio.run(main)


def test_python_dash_m_serves_save_and_search_in_the_project_it_runs_in(workspace: Any) -> None:
    command = [sys.executable, "-m", "memory_mcp"]
    names, (saved, found) = over_stdio(
        command,
        workspace.env,
        workspace.project,
        [
            ("memory_save", {"content": "Release notes live in docs/changes.rst, not CHANGELOG.md."}),
            ("memory_search", {"query": "release notes changes.rst"}),
        ],
    )
    assert names == set(TOOL_NAMES)
    assert [hit["id"] for hit in found] == [saved["id"]]
    _, (elsewhere,) = over_stdio(
        command, workspace.env, workspace.other_project, [("memory_search", {"query": "release notes changes.rst"})]
    )
    assert elsewhere == []


def test_the_console_script_serves_the_tools(workspace: Any) -> None:
    names, _ = over_stdio([str(_BIN / "memory-mcp")], workspace.env, workspace.project, [])
    assert names == set(TOOL_NAMES)


def test_memory_mcp_from_the_core_cli_serves_the_tools(workspace: Any) -> None:
    names, (status,) = over_stdio(
        [sys.executable, "-m", "memory_core.cli", "mcp"], workspace.env, workspace.project, [("memory_status", {})]
    )
    assert names == set(TOOL_NAMES)
    assert isinstance(status, dict)


@pytest.mark.parametrize("argv", [["--http", "no-port"], ["--http", "127.0.0.1:http"], ["--http", "[::1]:99999"]])
def test_a_malformed_address_is_a_usage_error(argv: list[str], workspace: Any) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memory_mcp", *argv],
        env=workspace.env,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 2
    assert "HOST:PORT" in done.stderr or "port" in done.stderr
    assert "Traceback" not in done.stderr
