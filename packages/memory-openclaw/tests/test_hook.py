"""`python -m memory_openclaw.hook` with the plugin's payloads, over the real embedded store."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_core.config import Config
from memory_core.hookpath.runner import run
from memory_core.service import MemoryService
from memory_openclaw.adapter import OpenClawHooks


@pytest.fixture(autouse=True)
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "memory.db"
    monkeypatch.setenv("MEMORY_WORKER", "0")  # no per-user worker left running after the test
    monkeypatch.setenv("MEMORY_URL", f"sqlite:///{path}")
    return path


def _hook(payload: dict[str, Any]) -> str:
    return run(OpenClawHooks(), json.dumps(payload).encode())


def _question(recorded: Any, prompt: str, *, session: str = "another-session", workspace: str | None = None) -> Any:
    payload = recorded("plugin/turn2.before_prompt_build.json")
    payload["ctx"].update(sessionId=session, runId=f"run-{session}-{len(prompt)}")
    if workspace is not None:
        payload["ctx"]["workspaceDir"] = workspace
    payload["event"]["prompt"] = prompt
    return payload


def _records(text: str, *, cwd: str) -> list[str]:
    hits = MemoryService(Config.from_env()).search(text, limit=20, cwd=cwd)
    return [hit.record.text for hit in hits if text in hit.record.text]


def test_a_captured_turn_is_recalled_in_a_new_session_as_append_context(recorded: Any) -> None:
    assert _hook(recorded("plugin/turn1.before_prompt_build.json")) == ""
    assert _hook(recorded("plugin/turn1.agent_end.json")) == ""
    out = _hook(_question(recorded, "What is my cat called?"))
    assert set(json.loads(out)) == {"appendContext"}
    assert "my cat is called Miso" in json.loads(out)["appendContext"]


def test_an_unrelated_prompt_injects_nothing(recorded: Any) -> None:
    _hook(recorded("plugin/turn1.agent_end.json"))
    assert _hook(_question(recorded, "Write a haiku about autumn leaves.")) == ""


def test_the_same_turn_from_agent_end_and_llm_output_is_stored_once(recorded: Any) -> None:
    end = recorded("plugin/turn1.agent_end.json")
    llm = recorded("openclaw/turn1-13-llm_output.json")  # as OpenClaw sent it: no prompt
    _hook(recorded("plugin/turn1.before_prompt_build.json"))
    _hook(end)
    _hook(llm)
    workspace = end["ctx"]["workspaceDir"]
    assert len(_records("Miso", cwd=workspace)) == 1


def test_llm_output_alone_gets_its_prompt_from_the_read_event(recorded: Any) -> None:
    # The core's handoff: before_prompt_build stashed the prompt under the run id.
    _hook(recorded("plugin/turn1.before_prompt_build.json"))
    _hook(recorded("openclaw/turn1-13-llm_output.json"))
    (text,) = _records("Miso", cwd="/home/dev/.openclaw/workspace")
    assert "Please remember that my cat is called Miso" in text


def test_the_workspace_is_the_project_unless_memory_project_says_otherwise(
    recorded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hook(recorded("plugin/turn1.agent_end.json"))  # workspace /home/dev/.openclaw/workspace
    elsewhere = "/home/dev/other-openclaw/workspace"
    assert _hook(_question(recorded, "What is my cat called?", workspace=elsewhere)) == ""

    monkeypatch.setenv("MEMORY_PROJECT", "team/app")
    moved = copy.deepcopy(recorded("plugin/turn1.agent_end.json"))
    moved["ctx"]["runId"] = "run-under-memory-project"
    _hook(moved)
    out = _hook(_question(recorded, "What is my cat called?", session="third", workspace=elsewhere))
    assert "Miso" in json.loads(out)["appendContext"]


def test_the_hook_process_prints_once_and_exits_0_whatever_it_gets(recorded: Any) -> None:
    hook = [sys.executable, "-m", "memory_openclaw.hook"]
    for stdin in (b"not json", b"[]", b'{"hook": 3}', json.dumps(recorded("plugin/turn1.agent_end.json")).encode()):
        done = subprocess.run(hook, input=stdin, capture_output=True, timeout=60, check=False)
        assert done.returncode == 0
        assert done.stdout == b""
    done = subprocess.run(
        hook,
        input=json.dumps(_question(recorded, "What is my cat called?")).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert "Miso" in json.loads(done.stdout)["appendContext"]
