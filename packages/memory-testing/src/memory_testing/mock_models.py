"""Mock model APIs for end-to-end tests: the real harness program talks to one of these instead of a model.

Three wire formats, one server each, all on 127.0.0.1 at an ephemeral port:

- `MockMessagesAPI`: Anthropic Messages, `POST /v1/messages` (Claude Code).
- `MockResponsesAPI`: OpenAI Responses, `POST /v1/responses` (Codex).
- `MockChatAPI`: OpenAI chat completions, `POST /v1/chat/completions`, plus `GET /v1/models`
  (Hermes, OpenClaw).

What every one promises:

- It keeps every request body it accepted, in arrival order (`requests`, a copy); a request to
  any other path gets a 404 and is not kept. A body over 64 MiB is cut there (and is then not
  JSON: the request fails loudly rather than being half-kept).
- It answers streamed (SSE, as the harness asks with `"stream": true`; the Responses API always
  streams) or whole, with the event sequence and usage the real API sends, so the harness
  finishes its turn normally.
- Plain replies are fixed by the class's docstring (Messages and chat: `reply_text`, a prompt
  "remember that X" gets "Noted: X.", anything else "OK."). A `script` of tool calls, where a
  test needs the model to call tools, is played in order on requests that offer tools, then
  "Done." (see each class).
- Every wait is bounded: the one pause it makes (a Responses script waiting for MCP tools to
  appear) has a count and a length, and `stop()` (or leaving the `with` block) shuts the server
  down, closes its socket and joins its thread with a time limit.

`codex_config(base_url)` is the offline Codex configuration that points at a `MockResponsesAPI`;
`claude_code_env(url)` the environment that points Claude Code at a `MockMessagesAPI`.

Use it as a context manager (`with MockMessagesAPI() as model: ...`) or `start()` / `stop()`.
It fails only loudly: a body that is not JSON raises in the handler thread, the connection drops
without an answer, and the harness's error is what the test's own assertions then report.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = [
    "MockChatAPI",
    "MockMessagesAPI",
    "MockResponsesAPI",
    "ToolCall",
    "reply_text",
    "responses_messages",
    "responses_user_texts",
    "messages_after",
    "MODEL",
    "codex_config",
    "claude_code_env",
]

MODEL = "mock-model"
"""The model name `MockChatAPI` lists under `GET /v1/models`, and any mock names when a request names none."""

ToolCall = tuple[str, dict[str, Any]]
"""One scripted step: the tool's name and its arguments."""

_MAX_BODY = 64 * 1024 * 1024
_STOP_JOIN_S = 5.0
_REMEMBER = "remember that "


def reply_text(prompt: str) -> str:
    """The plain reply to a prompt: "remember that X" gets "Noted: X.", anything else "OK."."""
    prompt = prompt.strip()
    return f"Noted: {prompt[len(_REMEMBER) :]}." if prompt.startswith(_REMEMBER) else "OK."


class _MockServer:
    """The HTTP part every mock shares: bind, record, route, answer, stop."""

    _post_suffix = ""
    """The path (without a trailing slash) a POST must end with to be answered."""

    _protocol = "HTTP/1.0"
    """HTTP/1.0 closes the connection after each answer; a subclass whose client keeps connections says 1.1."""

    def __init__(self) -> None:
        self._requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = mock._protocol

            def log_message(self, format: str, *args: Any) -> None:
                return  # the harness's own output is what a failing test shows

            def do_GET(self) -> None:
                mock._get(self)

            def do_POST(self) -> None:
                length = min(int(self.headers.get("Content-Length") or 0), _MAX_BODY)
                raw = self.rfile.read(length) if length else b""
                if (
                    not self.path.split("?", 1)[0].rstrip("/").endswith(mock._post_suffix)
                ):  # Claude Code adds ?beta=true
                    self.send_error(404)
                    return
                body = json.loads(raw or b"{}")
                with mock._lock:
                    mock._requests.append(body)
                    ident = len(mock._requests)
                mock._reply(self, body, ident)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT`, without `/v1` (what Claude Code's ANTHROPIC_BASE_URL takes)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1` (what OpenAI-style clients take as their base URL)."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request body kept so far, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    def start(self) -> Self:
        """Serve in a daemon thread; returns self."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close the socket, and wait (bounded) for the thread to end."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=_STOP_JOIN_S)
        self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        handler.send_error(404)

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], ident: int) -> None:
        raise NotImplementedError


def _send_json(handler: BaseHTTPRequestHandler, value: object) -> None:
    payload = json.dumps(value).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def _send_sse(handler: BaseHTTPRequestHandler, events: Iterable[tuple[str | None, object]], *, done: bool) -> None:
    """Send `(event name or None, data)` pairs as one SSE body with a length; `done` adds `data: [DONE]`."""
    parts = [(f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n" for name, data in events]
    if done:
        parts.append("data: [DONE]\n\n")
    payload = "".join(parts).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


# -- Anthropic Messages ------------------------------------------------------------------------


class MockMessagesAPI(_MockServer):
    """Anthropic Messages: `POST /v1/messages` (`count_tokens` is a 404, as Claude Code tolerates).

    A request that offers tools gets the next step of `script` as a `tool_use` block, step n
    chosen by how many `tool_use` blocks the conversation already holds; once the script is
    done it gets "Done.". Every other request (no script, or Claude Code's side calls without
    tools) gets `reply_text` of its latest user prompt, system reminders left out.
    """

    _post_suffix = "/v1/messages"

    def __init__(self, script: Sequence[ToolCall] = ()) -> None:
        super().__init__()
        self.script = list(script)

    def requests_with(self, text: str) -> list[str]:
        """The bodies (as JSON text) of the requests whose JSON holds `text` (JSON-escaped)."""
        needle = json.dumps(text, ensure_ascii=False)[1:-1]
        bodies = [json.dumps(body, ensure_ascii=False) for body in self.requests]
        return [body for body in bodies if needle in body]

    def tool_results(self) -> dict[str, dict[str, Any]]:
        """Each called tool's name mapped to the `tool_result` block Claude Code sent back (the last seen)."""
        results: dict[str, dict[str, Any]] = {}
        for body in self.requests:
            names: dict[str, str] = {}
            for block in _anthropic_blocks(body):
                if block.get("type") == "tool_use":
                    names[block["id"]] = block["name"]
                elif block.get("type") == "tool_result" and block.get("tool_use_id") in names:
                    results[names[block["tool_use_id"]]] = block
        return results

    def _step(self, body: dict[str, Any]) -> ToolCall | None:
        if not self.script or not body.get("tools"):
            return None
        calls = sum(
            1
            for message in body.get("messages", [])
            if message.get("role") == "assistant"
            for block in _content_list(message)
            if block.get("type") == "tool_use"
        )
        return self.script[calls] if calls < len(self.script) else None

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], ident: int) -> None:
        step = self._step(body)
        block: dict[str, Any]
        if step is not None:
            block = {"type": "tool_use", "id": f"toolu_mock{ident:06d}", "name": step[0], "input": step[1]}
            stop = "tool_use"
        else:
            scripted_end = bool(self.script and body.get("tools"))
            block = {"type": "text", "text": "Done." if scripted_end else reply_text(_anthropic_prompt(body))}
            stop = "end_turn"
        model = body.get("model", MODEL)
        usage = {"input_tokens": 10, "output_tokens": 5}
        head = {
            "id": f"msg_mock{ident}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
        }
        if not body.get("stream"):
            _send_json(handler, {**head, "content": [block], "stop_reason": stop, "usage": usage})
            return
        if block["type"] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events: list[tuple[str | None, object]] = [
            ("message_start", {"type": "message_start", "message": {**head, "usage": {**usage, "output_tokens": 1}}}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage},
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        _send_sse(handler, events, done=False)


def _content_list(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _anthropic_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [block for message in body.get("messages", []) for block in _content_list(message)]


def _anthropic_prompt(body: dict[str, Any]) -> str:
    """The latest user prompt: the last text block of the last user message with one, system reminders left out."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        texts = [str(block.get("text", "")) for block in _content_list(message) if block.get("type") == "text"]
        texts = [text for text in texts if not text.startswith("<system-reminder>")]
        if texts:
            return texts[-1]
    return ""


# -- OpenAI Responses --------------------------------------------------------------------------


class MockResponsesAPI(_MockServer):
    """OpenAI Responses: `POST /v1/responses`, always streamed (SSE), as Codex asks.

    Without a `script`, every request gets one assistant message, "Noted: <latest user prompt>."
    ("Noted." when there is none). With one, a request without tools gets "OK."; one with tools,
    while the `namespace`'s tools are not yet loaded (no `tool_search_output` names it), gets a
    `tool_search` call: Codex starts its MCP servers while the turn begins, so the search can come
    back empty and is asked again, at most `search_tries` times, `search_pause_s` apart, before
    the mock gives up with a message saying so. Then the script's calls, in the `namespace`, step
    n chosen by how many `function_call` / `custom_tool_call` items the input holds; then "Done.".
    A step naming a tool the request offers as freeform (`"type": "custom"`, Codex's
    `apply_patch`) is a `custom_tool_call` whose `input` is the step's `{"input": text}`.
    """

    _post_suffix = "/responses"
    _protocol = "HTTP/1.1"  # as Codex's client (reqwest) was recorded talking to the real API

    def __init__(
        self,
        script: Sequence[ToolCall] = (),
        *,
        namespace: str = "",
        search_tries: int = 20,
        search_pause_s: float = 1.0,
    ) -> None:
        super().__init__()
        self.script = list(script)
        self.namespace = namespace
        self.search_tries = search_tries
        self.search_pause_s = search_pause_s

    def request_for(self, prompt: str) -> dict[str, Any]:
        """The (last) request whose latest user message is `prompt`; an AssertionError when none is."""
        found = [
            body for body in self.requests if (texts := responses_user_texts(body)) and texts[-1].strip() == prompt
        ]
        assert found, f"the model never received {prompt!r}"
        return found[-1]

    def outputs(self) -> dict[str, str]:
        """Each called tool's name (in the `namespace`) mapped to the output Codex sent back for its call."""
        names: dict[str, str] = {}
        found: dict[str, str] = {}
        for body in self.requests:
            for item in body.get("input", []):
                if item.get("type") == "function_call" and item.get("namespace") == self.namespace:
                    names[item["call_id"]] = item["name"]
                elif item.get("type") == "function_call_output" and item.get("call_id") in names:
                    output = item.get("output")
                    found[names[item["call_id"]]] = output if isinstance(output, str) else json.dumps(output)
        return found

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], ident: int) -> None:
        item = self._next_item(body, ident) if self.script else None
        if item is None:
            prompts = responses_user_texts(body)
            item = _responses_message(f"Noted: {prompts[-1].strip()}." if prompts else "Noted.", ident)
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
            delta = {"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": text}
            events.append({"type": "response.output_text.delta", **delta})
        events += [
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": dict(response, status="completed", output=[item], usage=usage)},
        ]
        _send_sse(handler, [(event["type"], event) for event in events], done=False)

    def _tools_loaded(self, body: dict[str, Any]) -> bool:
        return any(
            item.get("type") == "tool_search_output"
            and any(tool.get("name") == self.namespace for tool in item.get("tools") or [])
            for item in body.get("input", [])
        )

    def _next_item(self, body: dict[str, Any], ident: int) -> dict[str, Any]:
        items = body.get("input", [])
        if not body.get("tools"):
            return _responses_message("OK.", ident)
        if self.namespace and not self._tools_loaded(body):
            searches = sum(1 for item in items if item.get("type") == "tool_search_call")
            if searches >= self.search_tries:
                return _responses_message(f"The {self.namespace} tools never appeared.", ident)
            if searches:
                time.sleep(self.search_pause_s)  # the MCP server is still starting
            return {
                "type": "tool_search_call",
                "id": f"tsc_mock{ident}",
                "call_id": f"call_mock{ident}",
                "status": "completed",
                "execution": "client",
                "arguments": {"query": " ".join(name.replace("_", " ") for name, _ in self.script)},
            }
        calls = sum(1 for item in items if item.get("type") in ("function_call", "custom_tool_call"))
        if calls >= len(self.script):
            return _responses_message("Done.", ident)
        name, arguments = self.script[calls]
        if any(tool.get("type") == "custom" and tool.get("name") == name for tool in body.get("tools", [])):
            # A freeform tool (Codex's `apply_patch`): its input is the text itself, not JSON.
            return {
                "type": "custom_tool_call",
                "id": f"ctc_mock{ident}",
                "call_id": f"call_mock{ident}",
                "status": "completed",
                "name": name,
                "input": str(arguments.get("input", "")),
            }
        call = {
            "type": "function_call",
            "id": f"fc_mock{ident}",
            "call_id": f"call_mock{ident}",
            "status": "completed",
            "name": name,
            "arguments": json.dumps(arguments),
        }
        return {**call, "namespace": self.namespace} if self.namespace else call


def _responses_message(text: str, ident: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"msg_{ident}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def responses_messages(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every message item in a Responses request's `input`, in order."""
    found = []
    for item in body.get("input", []):
        if isinstance(item, dict) and item.get("type") == "message":
            content = item.get("content")
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])
            found.append((str(item.get("role")), text))
    return found


def responses_user_texts(body: dict[str, Any]) -> list[str]:
    """The text of every user message in a Responses request, in order."""
    return [text for role, text in responses_messages(body) if role == "user"]


def messages_after(body: dict[str, Any], prompt: str) -> list[tuple[str, str]]:
    """(role, text) of the messages after the last user message `prompt`: where Codex puts hook context."""
    messages = responses_messages(body)
    for index in range(len(messages) - 1, -1, -1):
        role, text = messages[index]
        if role == "user" and text.strip() == prompt:
            return messages[index + 1 :]
    raise AssertionError(f"no user message {prompt!r}")


# -- OpenAI chat completions -------------------------------------------------------------------


class MockChatAPI(_MockServer):
    """OpenAI chat completions: `POST /v1/chat/completions`, streamed (SSE, with the usage chunk) or
    whole; `GET /v1/models` lists `MODEL`; any other path is a 404 (Hermes tolerates it for probes).

    The reply reads the first paragraph of the last user message (Hermes appends a plugin's
    context after a blank line): "search memory for X" gets a call of the offered tool whose
    name ends in `memory_search`, with `{"query": X}`, and once that tool's result is back,
    "Found it."; "run the tool NAME with {json}" (in any user message since the model last spoke)
    a call of the offered tool NAME with those arguments, then "Done."; anything else gets
    `reply_text`.
    """

    _post_suffix = "/chat/completions"

    def user_messages_with(self, text: str) -> list[str]:
        """The last user message of each request whose last user message holds `text`."""
        found = [_chat_user_texts(body)[-1:] for body in self.requests]
        return [texts[0] for texts in found if texts and text in texts[0]]

    def message_with(self, text: str, *, since: int = 0) -> str | None:
        """The first user message (any, not only the last) holding `text` in the requests from index `since` on."""
        for body in self.requests[since:]:
            for message in _chat_user_texts(body):
                if text in message:
                    return message
        return None

    def tool_names(self) -> set[str]:
        """Every tool name offered in any request so far."""
        return {name for body in self.requests for name in _chat_tool_names(body)}

    def tool_results(self) -> list[str]:
        """The content of every tool result message the mock has been sent."""
        return [
            str(message.get("content"))
            for body in self.requests
            for message in body.get("messages", [])
            if message.get("role") == "tool"
        ]

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        if handler.path.rstrip("/") != "/v1/models":
            handler.send_error(404)
            return
        _send_json(handler, {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "mock"}]})

    def _reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], ident: int) -> None:
        texts = _chat_user_texts(body)
        said = texts[-1].split("\n\n", 1)[0].strip() if texts else ""
        call = _search_call(body, said) or _asked_call(body)
        if call is not None:
            text = ""
        elif said.startswith("search memory for "):
            text = "Found it."
        elif any(_RUN_TOOL.search(text) for text in texts):
            text = "Done."
        else:
            text = reply_text(said)
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        base = {"id": f"chatcmpl-mock{ident}", "created": int(time.time()), "model": body.get("model", MODEL)}
        finish = "tool_calls" if call is not None else "stop"
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if call is not None:
                message["tool_calls"] = [call]
            choice = {"index": 0, "message": message, "finish_reason": finish}
            _send_json(handler, {**base, "object": "chat.completion", "choices": [choice], "usage": usage})
            return
        chunk = {**base, "object": "chat.completion.chunk"}
        delta: dict[str, Any] = {"role": "assistant", "content": text}
        if call is not None:
            delta = {"role": "assistant", "tool_calls": [{"index": 0, **call}]}
        events: list[tuple[str | None, object]] = [
            (None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
            (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
            (None, {**chunk, "choices": [], "usage": usage}),
        ]
        _send_sse(handler, events, done=True)


def _chat_tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", []) if "function" in tool]


def _search_call(body: dict[str, Any], said: str) -> dict[str, Any] | None:
    """The tool call that answers "search memory for X", unless its result is already back."""
    messages = body.get("messages", [])
    if not said.startswith("search memory for ") or (messages and messages[-1].get("role") == "tool"):
        return None
    search = next((name for name in _chat_tool_names(body) if name.endswith("memory_search")), None)
    if search is None:
        return None
    arguments = json.dumps({"query": said[len("search memory for ") :]})
    return {"id": "call_mock_1", "type": "function", "function": {"name": search, "arguments": arguments}}


_RUN_TOOL = re.compile(r"run the tool (?P<name>[\w.-]+) with (?P<arguments>\{.*\})")


def _asked_call(body: dict[str, Any]) -> dict[str, Any] | None:
    """The call "run the tool NAME with {json}" asks for, when NAME is offered.

    Any user message since the model last spoke may ask: OpenClaw adds one of its own after the prompt.
    """
    messages = body.get("messages", [])
    since = max((i for i, m in enumerate(messages) if m.get("role") in ("assistant", "tool")), default=-1)
    said = _chat_user_texts({"messages": messages[since + 1 :]})
    asked = next((found for text in said if (found := _RUN_TOOL.search(text))), None)
    if asked is None or asked["name"] not in _chat_tool_names(body):
        return None
    arguments = asked["arguments"]
    return {"id": "call_mock_2", "type": "function", "function": {"name": asked["name"], "arguments": arguments}}


def _chat_user_texts(body: dict[str, Any]) -> list[str]:
    """The text of every user message of a chat request, in order (parts joined by newlines)."""
    texts = []
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.append("\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict)))
        else:
            texts.append("")
    return texts


# -- harness settings that point at a mock ---------------------------------------------------


def codex_config(base_url: str) -> str:
    """A `config.toml` for an offline Codex talking to a `MockResponsesAPI` at `base_url`.

    As the recorded runbook sets it: a custom provider (key from `MOCK_OPENAI_API_KEY`, no
    retries, so a failing mock fails the turn at once), approvals never asked, a read-only
    sandbox, analytics and plugin sync off. A test appends its own tables (e.g. MCP servers).
    """
    return "\n".join(
        [
            "# offline Codex for an end-to-end test",
            'model = "gpt-5.5"',
            'model_provider = "mock"',
            'approval_policy = "never"',
            'sandbox_mode = "read-only"',
            "",
            "[model_providers.mock]",
            'name = "Mock Responses API"',
            f'base_url = "{base_url}"',
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


def claude_code_env(url: str) -> dict[str, str]:
    """Environment variables that point Claude Code at a `MockMessagesAPI` at `url` and keep it offline.

    A dummy API key, no telemetry, auto-update, error reports or other non-essential traffic,
    and loopback exempt from any proxy. A test adds HOME, PATH and its memory settings.
    """
    return {
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "NO_PROXY": "127.0.0.1,localhost",
    }
