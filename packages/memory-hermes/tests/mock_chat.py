"""A stand-in for an OpenAI-compatible chat completions server on 127.0.0.1, for Hermes.

`POST /v1/chat/completions` answers streamed (SSE, with the usage chunk Hermes asks for) or
not; `GET /v1/models` lists `mock-model`; anything else is a 404, which Hermes tolerates for
its model probes. Every chat request body is kept. The reply to a user message that starts
"remember that X" is "Noted: X."; to "search memory for X", a call of the offered tool whose
name ends in `memory_search`, with `{"query": X}`, and once the tool's result is back, "Found
it."; to anything else, "OK.". The reply reads only the first paragraph of the user message:
Hermes appends a plugin's context after a blank line.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["MockChatAPI", "MODEL"]

MODEL = "mock-model"


class MockChatAPI:
    """The server; `start()` it, read `.url`, `stop()` it."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/v1/models":
                    self.send_error(404)
                    return
                api._send_json(self, {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "mock"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length) if length else b""
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self.send_error(404)
                    return
                body = json.loads(raw or b"{}")
                with api._lock:
                    api.requests.append(body)
                api._reply(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL Hermes's `model.base_url` takes (with `/v1`)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> MockChatAPI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def user_messages_with(self, text: str) -> list[str]:
        """The last user message of each chat request whose last user message holds `text`."""
        with self._lock:
            bodies = list(self.requests)
        found = [_last_user_text(body) for body in bodies]
        return [message for message in found if text in message]

    def tool_names(self) -> set[str]:
        """Every tool name offered in any chat request so far."""
        with self._lock:
            bodies = list(self.requests)
        return {tool["function"]["name"] for body in bodies for tool in body.get("tools", []) if "function" in tool}

    @staticmethod
    def _send_json(handler: BaseHTTPRequestHandler, value: object) -> None:
        payload = json.dumps(value).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        said = _last_user_text(body).split("\n\n", 1)[0].strip()
        call = _search_call(body, said)
        if call is not None:
            text = ""
        elif said.startswith("remember that "):
            text = f"Noted: {said[len('remember that ') :]}."
        elif said.startswith("search memory for "):
            text = "Found it."
        else:
            text = "OK."
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        base = {"id": "chatcmpl-mock", "created": 0, "model": body.get("model", MODEL)}
        finish = "tool_calls" if call is not None else "stop"
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if call is not None:
                message["tool_calls"] = [call]
            choice = {"index": 0, "message": message, "finish_reason": finish}
            self._send_json(handler, {**base, "object": "chat.completion", "choices": [choice], "usage": usage})
            return
        chunk = {**base, "object": "chat.completion.chunk"}
        delta: dict[str, Any] = {"role": "assistant", "content": text}
        if call is not None:
            delta = {"role": "assistant", "tool_calls": [{"index": 0, **call}]}
        events = [
            {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**chunk, "choices": [], "usage": usage},
        ]
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        for event in events:
            handler.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()

    def tool_results(self) -> list[str]:
        """The content of every tool result message the mock has been sent."""
        with self._lock:
            bodies = list(self.requests)
        return [
            str(message.get("content"))
            for body in bodies
            for message in body.get("messages", [])
            if message.get("role") == "tool"
        ]


def _search_call(body: dict[str, Any], said: str) -> dict[str, Any] | None:
    """The tool call that answers "search memory for X", unless its result is already back."""
    messages = body.get("messages", [])
    if not said.startswith("search memory for ") or (messages and messages[-1].get("role") == "tool"):
        return None
    names = [tool["function"]["name"] for tool in body.get("tools", []) if "function" in tool]
    search = next((name for name in names if name.endswith("memory_search")), None)
    if search is None:
        return None
    arguments = json.dumps({"query": said[len("search memory for ") :]})
    return {"id": "call_mock_1", "type": "function", "function": {"name": search, "arguments": arguments}}


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""
