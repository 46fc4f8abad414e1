"""Fixtures for memory-claude: a throwaway HOME and project, a mock model, the real `claude`.

`home` points HOME at a temp folder and PATH at folders without `claude`, so the installer
takes its direct-edit route unless a test puts the real program on PATH.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from memory_core.testing.harness_programs import HarnessInstallError, npm_package
from memory_core.testing.requirements import require


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    # The venv's bin (memory-claude-hook, memory-mcp) and the system's; never a `claude`.
    path = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    monkeypatch.setenv("PATH", path)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


class MockMessagesAPI:
    """A stand-in for the Anthropic Messages API on 127.0.0.1: `POST /v1/messages`, streamed (SSE).

    It keeps every request body it received. The reply to a prompt "remember that X" is
    "Noted: X."; to anything else, "OK.".
    """

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                with api._lock:
                    api.requests.append(body)
                api._reply(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> MockMessagesAPI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def requests_with(self, text: str) -> list[str]:
        """The bodies (as JSON text) of the requests whose text holds `text`."""
        with self._lock:
            bodies = [json.dumps(body, ensure_ascii=False) for body in self.requests]
        return [body for body in bodies if json.dumps(text, ensure_ascii=False)[1:-1] in body]

    @staticmethod
    def _last_prompt(body: dict[str, Any]) -> str:
        for message in reversed(body.get("messages", [])):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                return content
            texts = [block.get("text", "") for block in content if block.get("type") == "text"]
            texts = [text for text in texts if not text.startswith("<system-reminder>")]
            if texts:
                return str(texts[-1])
        return ""

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        prompt = self._last_prompt(body).strip()
        text = f"Noted: {prompt[len('remember that ') :]}." if prompt.startswith("remember that ") else "OK."
        model = body.get("model", "mock-model")
        usage = {"input_tokens": 10, "output_tokens": 5}
        if not body.get("stream"):
            message = {
                "id": "msg_mock",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
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
        events = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_mock",
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 1},
                    },
                },
            ),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": usage},
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
def mock_model() -> Iterator[MockMessagesAPI]:
    api = MockMessagesAPI().start()
    try:
        yield api
    finally:
        api.stop()


CLAUDE_CODE_VERSION = "2.1.332"
"""The version every recorded payload in fixtures/ came from."""


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The real `claude` program, installed once into the harness cache (fails under CI if it cannot be)."""
    try:
        prefix = npm_package("@anthropic-ai/claude-code", CLAUDE_CODE_VERSION)
    except HarnessInstallError as exc:
        require(False, f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} ({exc})")
        raise
    binary = prefix / "node_modules" / ".bin" / "claude"
    require(binary.exists(), f"the claude binary in {prefix}")
    return binary
