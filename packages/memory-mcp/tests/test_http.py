"""The server over streamable HTTP on 127.0.0.1, driven by the SDK's own client.

Each test starts the server on port 0 in a subprocess, reads the address it announces on
stderr (bounded wait), and stops it at the end (bounded wait, then kill).
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from memory_mcp import TOOL_NAMES

_START_TIMEOUT_S = 60
_CALL_TIMEOUT_S = 60
_STOP_TIMEOUT_S = 15
_ANNOUNCE = re.compile(r"serving MCP at (http://\S+)")
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
_MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@contextmanager
def http_server(command: list[str], env: dict[str, str], cwd: Any) -> Iterator[str]:
    """Run `command` until the block ends; yields the URL it announced."""
    process = subprocess.Popen(command, env=env, cwd=cwd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    lines: queue.Queue[str] = queue.Queue()
    assert process.stderr is not None
    stderr = process.stderr
    reader = threading.Thread(target=lambda: [lines.put(line) for line in stderr], daemon=True)
    reader.start()
    try:
        seen = []
        while True:
            try:
                line = lines.get(timeout=_START_TIMEOUT_S)
            except queue.Empty:
                raise AssertionError(f"the server announced nothing in {_START_TIMEOUT_S}s: {seen}") from None
            seen.append(line)
            if match := _ANNOUNCE.search(line):
                break
        yield match.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=_STOP_TIMEOUT_S)
        reader.join(timeout=_STOP_TIMEOUT_S)
        stderr.close()


def session(url: str, token: str | None = None) -> tuple[set[str], Any, Any]:
    """List the tools, save a note and search for it; the names and the two parsed results."""

    async def main() -> tuple[set[str], Any, Any]:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        with anyio.fail_after(_CALL_TIMEOUT_S):
            async with (
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(_CALL_TIMEOUT_S)) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                names = {tool.name for tool in (await client.list_tools()).tools}
                saved = await client.call_tool("memory_save", {"content": "The shared server runs on the build box."})
                found = await client.call_tool("memory_search", {"query": "shared server build box"})
                assert not saved.is_error, saved.content
                assert not found.is_error, found.content
                return (
                    names,
                    json.loads(saved.content[0].text),  # type: ignore[union-attr]
                    json.loads(found.content[0].text),  # type: ignore[union-attr]
                )

    return anyio.run(main)


def post_initialize(url: str, headers: dict[str, str]) -> httpx2.Response:
    return httpx2.post(url, json=_INITIALIZE, headers=_MCP_HEADERS | headers, timeout=_CALL_TIMEOUT_S)


def test_loopback_without_a_token_serves_the_tools(workspace: Any) -> None:
    with http_server(
        [sys.executable, "-m", "memory_mcp", "--http", "127.0.0.1:0"], workspace.env, workspace.project
    ) as url:
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/mcp")
        names, saved, found = session(url)
    assert names == set(TOOL_NAMES)
    assert [hit["id"] for hit in found] == [saved["id"]]


def test_on_loopback_a_foreign_host_or_origin_is_refused(workspace: Any) -> None:
    """DNS rebinding: a web page must not reach the local server through a name it controls."""
    with http_server(
        [sys.executable, "-m", "memory_mcp", "--http", "127.0.0.1:0"], workspace.env, workspace.project
    ) as url:
        assert post_initialize(url, {"host": "attacker.example"}).status_code == 421
        assert post_initialize(url, {"origin": "http://attacker.example"}).status_code == 403
        assert post_initialize(url, {"origin": "http://localhost:3000"}).status_code == 200


def test_with_a_token_every_request_must_carry_it(workspace: Any) -> None:
    env = workspace.env | {"MEMORY_MCP_TOKEN": "s3cret-token-for-tests"}
    with http_server([sys.executable, "-m", "memory_mcp", "--http", "127.0.0.1:0"], env, workspace.project) as url:
        assert post_initialize(url, {}).status_code == 401
        assert post_initialize(url, {"authorization": "Bearer wrong"}).status_code == 401
        assert post_initialize(url, {"authorization": "Basic s3cret-token-for-tests"}).status_code == 401
        refused = post_initialize(url, {"authorization": "Bearer s3cret-token-for-tests-and-more"})
        assert refused.status_code == 401
        assert "s3cret" not in refused.text
        assert post_initialize(url, {"authorization": "Bearer s3cret-token-for-tests"}).status_code == 200
        names, saved, found = session(url, token="s3cret-token-for-tests")
    assert names == set(TOOL_NAMES)
    assert [hit["id"] for hit in found] == [saved["id"]]


def test_off_loopback_without_a_token_it_refuses_to_start(workspace: Any) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memory_mcp", "--http", "0.0.0.0:0"],
        env=workspace.env,
        capture_output=True,
        text=True,
        timeout=_START_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 1
    assert "memory-mcp: error: refusing to serve on 0.0.0.0" in done.stderr
    assert "MEMORY_MCP_TOKEN" in done.stderr
    assert "serving MCP" not in done.stderr
    assert "Traceback" not in done.stderr


def test_memory_mcp_http_from_the_core_cli(workspace: Any) -> None:
    command = [sys.executable, "-m", "memory_core.cli", "mcp", "--http", "127.0.0.1:0"]
    with http_server(command, workspace.env, workspace.project) as url:
        names, saved, found = session(url)
    assert names == set(TOOL_NAMES)
    assert [hit["id"] for hit in found] == [saved["id"]]


def test_the_core_cli_refusal_uses_its_own_name(workspace: Any) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", "mcp", "--http", "0.0.0.0:0"],
        env=workspace.env,
        capture_output=True,
        text=True,
        timeout=_START_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("memory: error: refusing to serve")
