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
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from memory_core.service import MemoryService
from memory_core.testing.harness_programs import HarnessInstallError, npm_package
from memory_core.testing.requirements import require

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CODEX_VERSION = "0.171.0"
_EXEC_TIMEOUT_S = 180
_SEARCH_TRIES = 20
_SEARCH_PAUSE_S = 1.0
_NOTE = "The nightly job rotates the Grafana API keys at 03:00 UTC."
_NAMESPACE = "mcp__memory"
_PASS_THROUGH = ("MEMORY_URL", "MEMORY_USER", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")


class ScriptedResponses:
    """`POST /v1/responses`, streamed. Until a `tool_search_output` holds the `mcp__memory` tools
    it answers with a `tool_search` call; then a `memory_save` call, a `memory_search` call, and
    a final "Done." message. Keeps every request body.
    """

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if not self.path.rstrip("/").endswith("/responses"):
                    self.send_error(404)
                    return
                with api._lock:
                    api.requests.append(body)
                    ident = len(api.requests)
                stream = api._stream(api._next_item(body, ident), ident)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(stream)))
                self.end_headers()
                self.wfile.write(stream)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def outputs(self) -> dict[str, str]:
        """Each memory tool's name mapped to the output Codex sent back for its call."""
        with self._lock:
            bodies = list(self.requests)
        names: dict[str, str] = {}
        found: dict[str, str] = {}
        for body in bodies:
            for item in body.get("input", []):
                if item.get("type") == "function_call" and item.get("namespace") == _NAMESPACE:
                    names[item["call_id"]] = item["name"]
                elif item.get("type") == "function_call_output" and item.get("call_id") in names:
                    output = item.get("output")
                    found[names[item["call_id"]]] = output if isinstance(output, str) else json.dumps(output)
        return found

    @staticmethod
    def _tools_loaded(body: dict[str, Any]) -> bool:
        return any(
            item.get("type") == "tool_search_output"
            and any(tool.get("name") == _NAMESPACE for tool in item.get("tools") or [])
            for item in body.get("input", [])
        )

    def _next_item(self, body: dict[str, Any], ident: int) -> dict[str, Any]:
        items = body.get("input", [])
        searches = sum(1 for item in items if item.get("type") == "tool_search_call")
        calls = [item["name"] for item in items if item.get("type") == "function_call"]
        if not body.get("tools"):
            return self._message("OK.", ident)
        if not self._tools_loaded(body):
            if searches >= _SEARCH_TRIES:
                return self._message("The memory tools never appeared.", ident)
            if searches:
                time.sleep(_SEARCH_PAUSE_S)  # the MCP server is still starting
            return {
                "type": "tool_search_call",
                "id": f"tsc_mock{ident}",
                "call_id": f"call_mock{ident}",
                "status": "completed",
                "execution": "client",
                "arguments": {"query": "memory save search"},
            }
        if "memory_save" not in calls:
            return self._call("memory_save", {"content": _NOTE}, ident)
        if "memory_search" not in calls:
            return self._call("memory_search", {"query": "Grafana API keys rotate"}, ident)
        return self._message("Done.", ident)

    @staticmethod
    def _call(name: str, arguments: dict[str, Any], ident: int) -> dict[str, Any]:
        return {
            "type": "function_call",
            "id": f"fc_mock{ident}",
            "call_id": f"call_mock{ident}",
            "status": "completed",
            "name": name,
            "namespace": _NAMESPACE,
            "arguments": json.dumps(arguments),
        }

    @staticmethod
    def _message(text: str, ident: int) -> dict[str, Any]:
        return {
            "type": "message",
            "id": f"msg_{ident}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }

    @staticmethod
    def _stream(item: dict[str, Any], ident: int) -> bytes:
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 110,
        }
        response = {"id": f"resp_{ident}", "object": "response", "status": "in_progress", "output": []}
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": response},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
        ]
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": text,
                }
            )
        events += [
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": dict(response, status="completed", output=[item], usage=usage)},
        ]
        return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


@pytest.fixture
def scripted_model() -> Iterator[ScriptedResponses]:
    api = ScriptedResponses()
    api._thread.start()
    try:
        yield api
    finally:
        api._server.shutdown()
        api._server.server_close()


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    try:
        prefix = npm_package("@openai/codex", CODEX_VERSION)
    except HarnessInstallError as exc:
        require(False, f"@openai/codex@{CODEX_VERSION} from the npm registry ({exc})")
        raise
    binary = prefix / "node_modules" / ".bin" / "codex"
    require(binary.exists(), f"the codex executable in {prefix}")
    return binary


def _config(model_url: str) -> str:
    return "\n".join(
        [
            'model = "gpt-5.5"',
            'model_provider = "mock"',
            'approval_policy = "never"',
            'sandbox_mode = "read-only"',
            "",
            "[model_providers.mock]",
            'name = "Mock Responses API"',
            f'base_url = "{model_url}"',
            'env_key = "MOCK_OPENAI_API_KEY"',
            'wire_api = "responses"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[features]",
            "plugins = false",
            "",
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
    codex_bin: Path, scripted_model: ScriptedResponses, workspace: Any
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
