"""End to end with the real program: `memory install codex`, then `codex exec` against a mock model.

Codex 0.171.0 (from the npm registry, cached outside the clone) runs offline against a mock
OpenAI Responses API on 127.0.0.1 that this test starts, with a throwaway HOME and
CODEX_HOME configured as the recorded runbook does (custom provider, analytics and plugin
sync off). Session 1 states a fact; session 2, a new session, asks about it; the test
asserts from the request the mock received that the fact reached the model as injected
context (Codex's own `developer` message right after the user's), and that an unrelated
prompt got nothing injected. The install goes through the `memory` CLI, so this also shows
the hooks are trusted with no review step: Codex skips untrusted hooks silently.
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

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_EXEC_TIMEOUT_S = 120
_MAX_BODY = 64 * 1024 * 1024


class MockResponsesAPI:
    """`POST /v1/responses`, streamed (SSE): one assistant message, "Noted: <latest prompt>."

    Keeps every request body it received.
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
                body = json.loads(
                    self.rfile.read(min(int(self.headers.get("Content-Length") or 0), _MAX_BODY)) or b"{}"
                )
                if not self.path.rstrip("/").endswith("/responses"):
                    self.send_error(404)
                    return
                with api._lock:
                    api.requests.append(body)
                    ident = len(api.requests)
                prompts = user_texts(body)
                stream = _stream(f"Noted: {prompts[-1].strip()}." if prompts else "Noted.", ident)
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

    def __enter__(self) -> MockResponsesAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def request_for(self, prompt: str) -> dict[str, Any]:
        """The (last) request whose latest user message is `prompt`."""
        with self._lock:
            found = [body for body in self.requests if user_texts(body) and user_texts(body)[-1].strip() == prompt]
        assert found, f"the model never received {prompt!r}"
        return found[-1]


def _stream(reply: str, ident: int) -> bytes:
    item = {
        "type": "message",
        "id": f"msg_{ident}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": reply, "annotations": []}],
    }
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 110,
    }
    response = {"id": f"resp_{ident}", "object": "response", "status": "in_progress", "output": []}
    delta = {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "delta": reply}
    events = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        dict(delta, content_index=0),
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": dict(response, status="completed", output=[item], usage=usage)},
    ]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _messages(body: dict[str, Any]) -> list[tuple[str, str]]:
    found = []
    for item in body.get("input", []):
        if isinstance(item, dict) and item.get("type") == "message":
            content = item.get("content")
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])
            found.append((str(item.get("role")), text))
    return found


def user_texts(body: dict[str, Any]) -> list[str]:
    return [text for role, text in _messages(body) if role == "user"]


def after_prompt(body: dict[str, Any], prompt: str) -> list[tuple[str, str]]:
    """(role, text) of the messages after the user message `prompt`: where Codex puts hook context."""
    messages = _messages(body)
    for index in range(len(messages) - 1, -1, -1):
        if messages[index] == ("user", prompt) or (
            messages[index][0] == "user" and messages[index][1].strip() == prompt
        ):
            return messages[index + 1 :]
    raise AssertionError(f"no user message {prompt!r}")


@pytest.fixture
def mock_model() -> Iterator[MockResponsesAPI]:
    with MockResponsesAPI() as api:
        yield api


@pytest.fixture
def codex_env(
    codex_on_path: Path, codex_home: Path, project: Path, tmp_path: Path, mock_model: MockResponsesAPI
) -> dict[str, str]:
    (codex_home / "config.toml").write_text(
        "\n".join(
            [
                "# offline Codex for the end-to-end test",
                'model = "gpt-5.5"',
                'model_provider = "mock"',
                'approval_policy = "never"',
                'sandbox_mode = "read-only"',
                "",
                "[model_providers.mock]",
                'name = "Mock Responses API"',
                f'base_url = "{mock_model.base_url}"',
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
            ]
        )
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MEMORY_", "OPENAI_", "XDG_"))}
    env.update(
        MOCK_OPENAI_API_KEY="dummy",
        NO_PROXY="127.0.0.1,localhost",
        MEMORY_URL=f"sqlite:///{tmp_path / 'memory.db'}",
        MEMORY_STATE_DIR=str(tmp_path / "memory-state"),
        MEMORY_LOG=str(tmp_path / "memory.log"),
        MEMORY_CONFIG=str(tmp_path / "no-memory-config.toml"),
        MEMORY_USER="e2e",
    )
    return env


def codex_exec(prompt: str, *, codex: Path, env: dict[str, str], cwd: Path) -> str:
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


def test_a_fact_stated_in_one_session_reaches_the_model_in_the_next(
    codex_on_path: Path, codex_env: dict[str, str], project: Path, tmp_path: Path, mock_model: MockResponsesAPI
) -> None:
    memory = Path(sys.executable).parent / "memory"
    installed = subprocess.run(
        [str(memory), "install", "codex"], env=codex_env, cwd=project, capture_output=True, text=True, timeout=120
    )
    assert installed.returncode == 0, installed.stderr
    assert "installed" in installed.stdout

    fact = "remember that the build uses tox"
    codex_exec(fact, codex=codex_on_path, env=codex_env, cwd=project)
    assert [role for role, _ in after_prompt(mock_model.request_for(fact), fact)] == []  # nothing to recall yet

    question = "what does the build use?"
    codex_exec(question, codex=codex_on_path, env=codex_env, cwd=project)
    injected = after_prompt(mock_model.request_for(question), question)
    assert [role for role, _ in injected] == ["developer"], injected
    assert "tox" in injected[0][1]
    log = tmp_path / "memory.log"
    assert not log.exists() or "ERROR" not in log.read_text(), log.read_text()

    unrelated = "write a haiku about autumn leaves"
    codex_exec(unrelated, codex=codex_on_path, env=codex_env, cwd=project)
    assert after_prompt(mock_model.request_for(unrelated), unrelated) == []
