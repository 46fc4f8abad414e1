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
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from memory_core.service import MemoryService
from memory_core.testing.harness_programs import HarnessInstallError, npm_package
from memory_core.testing.requirements import require

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CLAUDE_CODE_VERSION = "2.1.332"
_RUN_TIMEOUT_S = 180
_NOTE = "The nightly job rotates the Grafana API keys at 03:00 UTC."


class ScriptedModel:
    """`POST /v1/messages` (streamed or not). A request that offers tools gets the next step of
    `script` (a tool call) until the script is done, then a final text; any other request (Claude
    Code's side calls) gets "OK.". Step n is chosen by how many tool calls the conversation holds.
    """

    def __init__(self, script: list[tuple[str, dict[str, Any]]]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                with model._lock:
                    model.requests.append(body)
                model._reply(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def tool_results(self) -> dict[str, Any]:
        """Each tool call's name mapped to the result Claude Code sent back for it (the last seen)."""
        results: dict[str, Any] = {}
        with self._lock:
            bodies = list(self.requests)
        for body in bodies:
            names: dict[str, str] = {}
            for message in body.get("messages", []):
                content = message.get("content")
                if not isinstance(content, list):
                    continue
                for block in content:
                    if block.get("type") == "tool_use":
                        names[block["id"]] = block["name"]
                    elif block.get("type") == "tool_result" and block.get("tool_use_id") in names:
                        results[names[block["tool_use_id"]]] = block
        return results

    def _step(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        if not body.get("tools"):
            return None
        calls = sum(
            1
            for message in body.get("messages", [])
            if message.get("role") == "assistant" and isinstance(message.get("content"), list)
            for block in message["content"]
            if block.get("type") == "tool_use"
        )
        return self.script[calls] if calls < len(self.script) else None

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        step = self._step(body)
        calls = len(self.requests)
        if step is None:
            block: dict[str, Any] = {"type": "text", "text": "Done." if body.get("tools") else "OK."}
            stop = "end_turn"
        else:
            block = {"type": "tool_use", "id": f"toolu_mock{calls:06d}", "name": step[0], "input": step[1]}
            stop = "tool_use"
        model = body.get("model", "mock-model")
        usage = {"input_tokens": 10, "output_tokens": 5}
        if not body.get("stream"):
            message = {
                "id": f"msg_mock{calls}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [block],
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": usage,
            }
            payload = json.dumps(message).encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        head = {
            "id": f"msg_mock{calls}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }
        events = [
            ("message_start", {"type": "message_start", "message": head}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage},
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        for name, data in events:
            handler.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            handler.wfile.flush()


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModel]:
    model = ScriptedModel(
        [
            ("ToolSearch", {"query": "select:mcp__memory__memory_save"}),
            ("mcp__memory__memory_save", {"content": _NOTE}),
            ("ToolSearch", {"query": "select:mcp__memory__memory_search"}),
            ("mcp__memory__memory_search", {"query": "Grafana API keys rotate"}),
        ]
    )
    model._thread.start()
    try:
        yield model
    finally:
        model._server.shutdown()
        model._server.server_close()


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    try:
        prefix = npm_package("@anthropic-ai/claude-code", CLAUDE_CODE_VERSION)
    except HarnessInstallError as exc:
        require(False, f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} ({exc})")
        raise
    binary = prefix / "node_modules" / ".bin" / "claude"
    require(binary.exists(), f"the claude binary in {prefix}")
    return binary


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
    claude_bin: Path, scripted_model: ScriptedModel, workspace: Any
) -> None:
    env = workspace.env | {
        "PATH": os.pathsep.join([str(claude_bin.parent), "/usr/bin", "/bin"]),
        "ANTHROPIC_BASE_URL": scripted_model.url,
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "NO_PROXY": "127.0.0.1,localhost",
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
