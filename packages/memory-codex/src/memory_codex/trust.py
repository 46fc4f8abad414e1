"""Codex's hook trust: the keys and hashes it checks, and its own app-server to confirm them.

Codex runs a hook from a user or project `hooks.json` only when `config.toml` holds
`[hooks.state."<abs path of hooks.json>:<event>:<group>:<handler>"] trusted_hash = "sha256:..."`
matching the hook's current hash; otherwise it skips the hook silently.

`hook_hash` computes that hash as Codex 0.171.0 does (`codex-rs/hooks/src/engine/discovery.rs`,
`command_hook_hash`, and `codex-rs/config/src/fingerprint.rs`, `version_for_toml`): the hook's
normalised identity (event label, the group's matcher where the event has one, the one
handler with its timeout filled in) serialised through TOML (so absent fields vanish), as
JSON with every object's keys sorted and no whitespace, hashed with SHA-256. A test checks it
against what the real `codex app-server` reports for our hooks and for hooks shaped like a
user's.

`AppServer` speaks Codex's app-server protocol (JSON-RPC over the child's stdio): `initialize`,
`hooks/list` (each hook's key, `currentHash` and `trustStatus`) and `config/batchWrite`, which
records a hash in `config.toml` in place. The installer uses it to confirm, and where a newer
Codex hashes differently to correct, what it wrote. Every wait is bounded; the child is
always stopped.

Failure: `AppServerError` when the program cannot be started, answers an error, or is silent
past the timeout.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from memory_codex.errors import MemoryCodexError

__all__ = ["EVENT_LABELS", "AppServer", "AppServerError", "hook_key", "hook_hash", "state_key_path"]

EVENT_LABELS = {
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "user_prompt_submit",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
}
"""Codex's labels for hook events, as they appear in trust keys and in the hashed identity."""

_NO_MATCHER = frozenset({"UserPromptSubmit", "Stop"})
"""Events whose matcher Codex ignores (and leaves out of the hash)."""

_DEFAULT_TIMEOUT_S = 600
_SESSION_END_TIMEOUT_S = (1, 3)
"""`SessionEnd` hooks default to 1 s and are clamped to 3 s."""

_APP_SERVER_TIMEOUT_S = 20.0
"""Per request. The app-server answers `hooks/list` in well under a second; a first run
on a cold disk can be slower."""


class AppServerError(MemoryCodexError):
    """`codex app-server` could not be started, answered an error, or did not answer in time."""


def hook_key(hooks_file: Path, event: str, group_index: int, handler_index: int = 0) -> str:
    """The trust key Codex uses for one handler of a `hooks.json`."""
    return f"{os.path.abspath(hooks_file)}:{EVENT_LABELS[event]}:{group_index}:{handler_index}"


def state_key_path(key: str) -> str:
    """The `config/batchWrite` key path of a hook's `trusted_hash`."""
    return f'hooks.state."{key}".trusted_hash'


def hook_hash(event: str, group: Mapping[str, Any], handler_index: int = 0) -> str:
    """The `trusted_hash` Codex 0.171.0 expects for one command handler of a hook group.

    Raises:
        ValueError: The handler is not a command hook or has fields we do not model (Codex
            hashes those too, so a hash we computed would not match).
    """
    handler = group["hooks"][handler_index]
    known = {"type", "command", "timeout", "async", "statusMessage"}
    if handler.get("type") != "command" or set(handler) - known:
        raise ValueError("only command hooks with the fields Codex 0.171.0 documents can be hashed here")
    timeout = handler.get("timeout")
    if event == "SessionEnd":
        low, high = _SESSION_END_TIMEOUT_S
        timeout = min(max(low if timeout is None else int(timeout), low), high)
    else:
        timeout = max(_DEFAULT_TIMEOUT_S if timeout is None else int(timeout), 1)
    normalized: dict[str, Any] = {
        "type": "command",
        "command": handler["command"],
        "timeout": timeout,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": EVENT_LABELS[event], "hooks": [normalized]}
    matcher = group.get("matcher")
    if event not in _NO_MATCHER and matcher is not None:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class AppServer:
    """A `codex app-server` child for a few requests; use it as a context manager.

    Args:
        codex: The `codex` executable.
        codex_home: The `CODEX_HOME` it should read and write.
        timeout: Seconds to wait for each answer.
    """

    def __init__(self, codex: str, *, codex_home: Path, timeout: float = _APP_SERVER_TIMEOUT_S) -> None:
        self._argv = [codex, "app-server"]
        self._env = dict(os.environ, CODEX_HOME=str(codex_home))
        self._timeout = timeout
        self._answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._next_id = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None

    def __enter__(self) -> AppServer:
        try:
            self._process = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self._env,
            )
        except OSError as exc:
            raise AppServerError(f"cannot start {' '.join(self._argv)}: {exc}") from exc
        self._reader = threading.Thread(target=self._read, args=(self._process,), daemon=True)
        self._reader.start()
        self.request("initialize", {"clientInfo": {"name": "memory-codex", "version": _version()}})
        self._send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        process = self._process
        if process is None:
            return
        try:
            if process.stdin:
                process.stdin.close()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)
        if process.stdout:
            process.stdout.close()

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        if process.stdout is None:
            return
        for line in process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and "id" in message and ("result" in message or "error" in message):
                self._answers.put(message)
        self._answers.put(None)  # the child closed its stdout

    def _send(self, message: dict[str, Any]) -> None:
        stdin = self._process.stdin if self._process is not None else None
        if stdin is None:
            raise AppServerError("codex app-server is not running")
        try:
            stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            stdin.flush()
        except OSError as exc:
            raise AppServerError(f"codex app-server stopped reading: {exc}") from exc

    def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send one request and return its `result`."""
        self._next_id += 1
        ident = self._next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            try:
                answer = self._answers.get(timeout=self._timeout)
            except queue.Empty:
                raise AppServerError(f"codex app-server did not answer {method} within {self._timeout:.0f} s") from None
            if answer is None:
                raise AppServerError(f"codex app-server exited before answering {method}")
            if answer.get("id") != ident:
                continue
            if "error" in answer:
                raise AppServerError(f"codex app-server refused {method}: {answer['error']}")
            return answer.get("result")

    def hooks(self, cwd: Path) -> dict[str, dict[str, Any]]:
        """Every hook Codex sees for a session in `cwd`, by trust key."""
        result = self.request("hooks/list", {"cwds": [str(cwd)]})
        found: dict[str, dict[str, Any]] = {}
        for entry in result.get("data", []) if isinstance(result, dict) else []:
            for hook in entry.get("hooks", []):
                if isinstance(hook, dict) and isinstance(hook.get("key"), str):
                    found[hook["key"]] = hook
        return found

    def trust(self, hashes: Mapping[str, str], *, config_file: Path) -> None:
        """Record `hashes` (trust key to hash) in `config_file` through Codex's own writer."""
        edits = [
            {"keyPath": state_key_path(key), "mergeStrategy": "replace", "value": value}
            for key, value in hashes.items()
        ]
        self.request("config/batchWrite", {"edits": edits, "filePath": str(config_file)})


def _version() -> str:
    from memory_codex.version import __version__

    return __version__
