"""End to end with the real OpenClaw 2026.9.6 on Node 24, against a mock model on 127.0.0.1.

A throwaway HOME, `memory install openclaw` (through `openclaw plugins install --link`, as a
user with OpenClaw on PATH gets it), then `openclaw agent --local` turns: a fact stated in one
session reaches the model in another, a run in which the model calls a tool keeps the call and
its result behind its turn, and an unrelated prompt gets nothing; then the same
through a Gateway, where one worker serves every turn and ends with the Gateway. What reached
the model is read from the requests the mock received. A `--local` turn takes 17-26 s here,
so the turns are few.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from memory_core.config import Config
from memory_core.models import TimelineEvent
from memory_core.service import MemoryService
from memory_openclaw import PLUGIN_ID

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_TURN_TIMEOUT_S = 240
_CAPTURE_WAIT_S = 30
FACT = "the staging database listens on port 6543"


def _write_model_config(home: Path, base_url: str, **extra: Any) -> None:
    config = home / ".openclaw" / "openclaw.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    model = {
        "id": "mock-model",
        "name": "Mock Model",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 4096,
    }
    data = {
        "models": {
            "providers": {
                "mock": {"baseUrl": base_url, "apiKey": "sk-mock", "api": "openai-completions", "models": [model]}
            }
        },
        "agents": {"defaults": {"model": {"primary": "mock/mock-model"}}},
        **extra,
    }
    config.write_text(json.dumps(data, indent=2) + "\n")


def _memory(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args], capture_output=True, text=True, timeout=300, check=False
    )


def _turn(home: Path, session: str, message: str, *, local: bool = True) -> dict[str, Any]:
    where = ["--local"] if local else []
    done = subprocess.run(
        ["openclaw", "agent", *where, "--session-key", session, "--json", "--message", message],
        cwd=home,
        capture_output=True,
        text=True,
        timeout=_TURN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    start = done.stdout.find("{")
    result: dict[str, Any] = json.loads(done.stdout[start:]) if start >= 0 else {}
    return result


def _records_with(text: str) -> list[str]:
    service = MemoryService(Config.from_env())
    return [hit.record.text for hit in service.search(text, limit=20, cwd=os.getcwd()) if text in hit.record.text]


def _events_of(prompt: str) -> list[TimelineEvent]:
    """The events kept behind the turn `prompt` started (waiting, bounded, for the capture)."""
    service = MemoryService(Config.from_env())
    deadline = time.monotonic() + _CAPTURE_WAIT_S
    while True:
        hits = [hit.record for hit in service.search(prompt, limit=20, cwd=os.getcwd()) if prompt in hit.record.text]
        events = service.timeline(hits[0].id, cwd=os.getcwd()) if hits else []
        if events or time.monotonic() > deadline:
            return events
        time.sleep(0.25)


def _captured(text: str) -> bool:
    return bool(_records_with(text))


def test_a_fact_stated_in_one_session_is_recalled_in_another(
    home: Path, openclaw_bin: Path, mock_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_URL", f"sqlite:///{tmp_path / 'memory.db'}")
    # One project for the turns and for this test's look-ups: OpenClaw's workspace is not a repo.
    monkeypatch.setenv("MEMORY_PROJECT", "e2e/openclaw")
    _write_model_config(home, mock_model.base_url)

    installed = _memory("install", "openclaw")
    assert installed.returncode == 0, installed.stderr
    data = json.loads((home / ".openclaw" / "openclaw.json").read_text())
    entry = data["plugins"]["entries"]["memory-openclaw"]
    assert entry["enabled"] is True
    assert entry["hooks"] == {"allowConversationAccess": True}
    assert data["mcp"]["servers"]["memory"]["args"] == ["-m", "memory_mcp"]

    _turn(home, "e2e-first", f"Please remember this for later: {FACT}.")
    assert mock_model.message_with(FACT) is not None
    deadline = time.monotonic() + _CAPTURE_WAIT_S
    while not _captured("6543") and time.monotonic() < deadline:
        time.sleep(0.25)
    assert _captured("6543"), "the first turn was not captured"

    before = len(mock_model.requests)
    question = "Which port does the staging database listen on?"
    _turn(home, "e2e-second", question)
    message = mock_model.message_with(question, since=before)
    assert message is not None, "the second turn's prompt never reached the model"
    # The memory arrives in the user message, after the prompt (appendContext).
    assert "6543" in message
    assert message.index(question) < message.index("6543")

    # A run in which the model calls a tool keeps the call and its result behind its turn, from
    # `agent_end` (OpenClaw's own `exec` tool; `--local` runs offer no MCP tools).
    asked = 'run the tool exec with {"command": "echo deploy-finished-ok"}'
    _turn(home, "e2e-tools", asked)
    assert any("deploy-finished-ok" in result for result in mock_model.tool_results())  # the tool really ran
    events = _events_of(asked)
    assert [(e.kind, e.name) for e in events] == [("tool_call", "exec"), ("tool_result", "exec")], events
    assert json.loads(events[0].text) == {"command": "echo deploy-finished-ok"}
    assert "deploy-finished-ok" in events[1].text

    before = len(mock_model.requests)
    haiku = "Write a haiku about autumn leaves."
    _turn(home, "e2e-third", haiku)
    message = mock_model.message_with(haiku, since=before)
    assert message is not None
    assert "6543" not in message

    # One record for the fact: llm_output and agent_end both carried turn 1's answer, and turn
    # 2 was stored with the user's clean words, not with the memory appended to them.
    (record,) = _records_with("6543")
    assert FACT in record

    removed = _memory("uninstall", "openclaw")
    assert removed.returncode == 0, removed.stderr
    after = json.loads((home / ".openclaw" / "openclaw.json").read_text())
    assert "memory-openclaw" not in json.dumps(after)
    assert "memory_mcp" not in json.dumps(after)
    # OpenClaw's own install record is gone too: it no longer loads the plugin at all.
    listed = subprocess.run(
        ["openclaw", "plugins", "list", "--json"], cwd=home, capture_output=True, text=True, timeout=300, check=False
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    plugins = json.loads(listed.stdout[listed.stdout.find("{") :])["plugins"]
    assert PLUGIN_ID not in [plugin["id"] for plugin in plugins]


def _workers(home: Path) -> list[int]:
    """The memory_openclaw.worker processes running with this test's HOME."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"memory_openclaw.worker" in argv and f"HOME={home}".encode() in environ:
            found.append(int(entry.name))
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _gateway(home: Path, port: int) -> Iterator[None]:
    log = (home / "gateway.log").open("w")
    gateway = subprocess.Popen(
        ["openclaw", "gateway", "run", "--bind", "loopback", "--port", str(port), "--auth", "token"],
        cwd=home,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + _TURN_TIMEOUT_S
        while time.monotonic() < deadline and gateway.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        else:
            raise AssertionError("the gateway did not listen: " + (home / "gateway.log").read_text()[-2000:])
        yield
    finally:
        gateway.send_signal(signal.SIGTERM)
        try:
            gateway.wait(timeout=60)
        except subprocess.TimeoutExpired:
            gateway.kill()
            gateway.wait(timeout=30)
        log.close()


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="counts worker processes through /proc")
def test_the_gateway_serves_every_turn_from_one_worker(
    home: Path, openclaw_bin: Path, mock_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_URL", f"sqlite:///{tmp_path / 'memory.db'}")
    monkeypatch.setenv("MEMORY_PROJECT", "e2e/openclaw-gateway")
    monkeypatch.setenv("OPENCLAW_GATEWAY_TOKEN", secrets.token_hex(16))
    port = _free_port()
    _write_model_config(home, mock_model.base_url, gateway={"mode": "local", "port": port})
    installed = _memory("install", "openclaw")
    assert installed.returncode == 0, installed.stderr

    with _gateway(home, port):
        _turn(home, "gw-first", f"Please remember this for later: {FACT}.", local=False)
        deadline = time.monotonic() + _CAPTURE_WAIT_S
        while not _captured("6543") and time.monotonic() < deadline:
            time.sleep(0.25)
        assert _captured("6543"), "the first gateway turn was not captured"
        before = len(mock_model.requests)
        question = "Which port does the staging database listen on?"
        _turn(home, "gw-second", question, local=False)
        message = mock_model.message_with(question, since=before)
        assert message is not None
        assert "6543" in message
        # Both turns, recall and capture, went to the one worker the gateway started.
        assert len(_workers(home)) == 1

    deadline = time.monotonic() + 30
    while _workers(home) and time.monotonic() < deadline:
        time.sleep(0.25)
    assert _workers(home) == [], "the worker outlived the gateway"
