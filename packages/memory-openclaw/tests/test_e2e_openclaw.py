"""End to end with the real OpenClaw 2026.9.6 on Node 24, against a mock model on 127.0.0.1.

A throwaway HOME, `memory install openclaw` (through `openclaw plugins install --link`, as a
user with OpenClaw on PATH gets it), then `openclaw agent --local` turns: a fact stated in one
session reaches the model in another, and an unrelated prompt gets nothing. What reached the
model is read from the requests the mock received. A turn takes 17-26 s here, so the turns
are few.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from memory_core.config import Config
from memory_core.service import MemoryService
from memory_openclaw import PLUGIN_ID

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_TURN_TIMEOUT_S = 240
_CAPTURE_WAIT_S = 30
FACT = "the staging database listens on port 6543"


def _write_model_config(home: Path, base_url: str) -> None:
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
    }
    config.write_text(json.dumps(data, indent=2) + "\n")


def _memory(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args], capture_output=True, text=True, timeout=300, check=False
    )


def _turn(home: Path, session: str, message: str) -> dict[str, Any]:
    done = subprocess.run(
        ["openclaw", "agent", "--local", "--session-key", session, "--json", "--message", message],
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
