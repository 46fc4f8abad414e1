"""The hook as Claude Code runs it: `python -m memory_claude.hook`, a payload on stdin, on the real service.

Each test gets its own embedded store (the workspace conftest points XDG folders at a temp dir).
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
from memory_claude.harness import ClaudeHarness

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_TIMEOUT_S = 60


def payload(name: str, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    data.update(changes)
    return data


def hook(data: dict[str, Any] | bytes, *, cwd: Path) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    done = subprocess.run(
        ClaudeHarness().hook_argv(),
        input=raw,
        capture_output=True,
        timeout=_TIMEOUT_S,
        env={**os.environ, "MEMORY_PROJECT": "memory-claude-tests"},
        cwd=cwd,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def context(out: str) -> str:
    if not out:
        return ""
    answer = json.loads(out)
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    text: str = answer["hookSpecificOutput"]["additionalContext"]
    return text


def store_turn(tmp_path: Path, *, session: str, prompt_id: str, prompt: str, answer: str) -> None:
    assert (
        hook(payload("UserPromptSubmit.json", session_id=session, prompt_id=prompt_id, prompt=prompt), cwd=tmp_path)
        == ""
    )
    assert (
        hook(payload("Stop.json", session_id=session, prompt_id=prompt_id, last_assistant_message=answer), cwd=tmp_path)
        == ""
    )


def ask(tmp_path: Path, question: str, *, session: str = "session-2", prompt_id: str = "p-ask") -> str:
    return context(
        hook(payload("UserPromptSubmit.json", session_id=session, prompt_id=prompt_id, prompt=question), cwd=tmp_path)
    )


def test_a_turn_captured_in_one_session_is_recalled_in_the_next(tmp_path: Path) -> None:
    store_turn(
        tmp_path,
        session="session-1",
        prompt_id="p1",
        prompt="remember that the build uses tox",
        answer="Noted: the build uses tox.",
    )
    recalled = ask(tmp_path, "what does the build use?")
    assert "the build uses tox" in recalled
    out = hook(
        payload("UserPromptSubmit.json", session_id="session-3", prompt_id="p9", prompt="what does the build use?"),
        cwd=tmp_path,
    )
    assert out == json.dumps(json.loads(out), separators=(",", ":"))  # one compact line, nothing else


def test_an_unrelated_prompt_prints_nothing(tmp_path: Path) -> None:
    store_turn(
        tmp_path,
        session="session-1",
        prompt_id="p1",
        prompt="remember that the build uses tox",
        answer="Noted: the build uses tox.",
    )
    assert (
        hook(
            payload("UserPromptSubmit.json", session_id="s2", prompt="sketch a haiku about autumn leaves"), cwd=tmp_path
        )
        == ""
    )


def test_a_subagent_stop_neither_overwrites_nor_duplicates_the_parents_turn(tmp_path: Path) -> None:
    store_turn(
        tmp_path,
        session="session-1",
        prompt_id="p1",
        prompt="remember that the build uses tox",
        answer="Noted: the build uses tox.",
    )
    sub = payload(
        "SubagentStop.json", session_id="session-1", prompt_id="p1", last_assistant_message="xyzzy plugh frobnicate"
    )
    assert hook(sub, cwd=tmp_path) == ""
    recalled = ask(tmp_path, "what does the build use?")
    assert "the build uses tox" in recalled
    assert "xyzzy" not in recalled
    assert ask(tmp_path, "xyzzy plugh frobnicate", prompt_id="p-x") == ""


def test_a_task_notification_is_not_a_query(tmp_path: Path) -> None:
    store_turn(
        tmp_path,
        session="session-1",
        prompt_id="p1",
        prompt="remember that the build uses tox",
        answer="Noted: the build uses tox.",
    )
    notification = payload("UserPromptSubmit.task-notification.json", session_id="session-2")
    assert "the build uses tox" in notification["prompt"]  # it would match, were it a query
    assert hook(notification, cwd=tmp_path) == ""


def test_the_answer_to_a_task_notification_is_not_stored_as_a_turn(tmp_path: Path) -> None:
    notification = payload("UserPromptSubmit.task-notification.json", session_id="session-2", prompt_id="p-n")
    hook(notification, cwd=tmp_path)
    stop = payload("Stop.after-task-notification.json", session_id="session-2", prompt_id="p-n")
    stop["last_assistant_message"] = "The background agent finished refactoring the zanzibar module."
    hook(stop, cwd=tmp_path)
    assert "zanzibar" not in ask(tmp_path, "what happened to the zanzibar module?", session="s3", prompt_id="q")


def test_a_compaction_lets_the_session_be_reminded_again(tmp_path: Path) -> None:
    store_turn(
        tmp_path,
        session="session-1",
        prompt_id="p1",
        prompt="remember that the build uses tox",
        answer="Noted: the build uses tox.",
    )
    assert "the build uses tox" in ask(tmp_path, "what does the build use?", session="s2", prompt_id="a1")
    assert ask(tmp_path, "what does the build use again?", session="s2", prompt_id="a2") == ""  # already in context
    assert hook(payload("SessionStart.compact.json", session_id="s2"), cwd=tmp_path) == ""
    assert "the build uses tox" in ask(tmp_path, "what does the build use?", session="s2", prompt_id="a3")


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b'{"hook_event_name": "Stop"}', b"\xff\xfe"])
def test_a_payload_it_cannot_use_prints_nothing_and_exits_0(tmp_path: Path, raw: bytes) -> None:
    assert hook(raw, cwd=tmp_path) == ""


def test_the_hook_path_imports_nothing_heavy() -> None:
    probe = "import sys, memory_claude.hook; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=_TIMEOUT_S, check=True)
    loaded = set(done.stdout.split())
    assert "memory_core.hookpath.client" in loaded
    # The engine stays in the worker: a hook process loads it only when it handles a turn itself.
    engine = {"memory_claude.adapter", "memory_core.service", "sqlite3", "dataclasses", "typing"}
    assert loaded.isdisjoint(engine), sorted(loaded & engine)
    heavy = {"pydantic", "mcp", "numpy", "importlib.metadata"}
    ours_not_for_hooks = {"memory_claude.harness", "memory_claude.install", "memory_claude.status", "subprocess"}
    assert loaded.isdisjoint(heavy | ours_not_for_hooks), sorted(loaded & (heavy | ours_not_for_hooks))


def test_bench_payloads_are_one_recorded_turn() -> None:
    read, write = ClaudeHarness().bench_payloads()
    assert (read["hook_event_name"], write["hook_event_name"]) == ("UserPromptSubmit", "Stop")
    assert read["prompt_id"] == write["prompt_id"]
    assert ClaudeHarness().hook_argv() == [sys.executable, "-m", "memory_claude.hook"]


def test_memory_hook_claude_answers_like_the_hook_module(tmp_path: Path) -> None:
    store_turn(
        tmp_path,
        session="session-1",
        prompt_id="p1",
        prompt="remember that the build uses tox",
        answer="Noted: the build uses tox.",
    )
    question = payload("UserPromptSubmit.json", session_id="s-cli", prompt_id="q1", prompt="what does the build use?")
    done = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", "hook", "claude"],
        input=json.dumps(question).encode(),
        capture_output=True,
        timeout=_TIMEOUT_S,
        env={**os.environ, "MEMORY_PROJECT": "memory-claude-tests"},
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0
    direct = hook({**question, "session_id": "s-module"}, cwd=tmp_path)
    assert done.stdout.decode() == direct
    assert "the build uses tox" in context(direct)


def test_a_session_start_prints_nothing_and_warms_the_worker_and_its_model(tmp_path: Path) -> None:
    from memory_core.hookpath.client import socket_path, worker_environment
    from memory_core.hookpath.worker import stop_worker
    from memory_testing.embedding import real_embedder

    real_embedder()  # the model package must be there (fails under CI otherwise)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "MEMORY_PROJECT": "memory-claude-tests", "XDG_RUNTIME_DIR": str(runtime)}
    done = subprocess.run(
        ClaudeHarness().hook_argv(),
        input=json.dumps(payload("SessionStart.startup.json")).encode(),
        capture_output=True,
        timeout=_TIMEOUT_S,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"")
    path = socket_path(worker_environment(env), env)
    try:
        deadline = time.monotonic() + 30
        maps = ""
        while time.monotonic() < deadline and "e5-small-q4.bin" not in maps:
            time.sleep(0.1)
            try:
                pid = Path(path + ".lock").read_text().strip()
                maps = Path(f"/proc/{pid}/maps").read_text() if pid.isdigit() else ""
            except OSError:
                maps = ""
        assert "e5-small-q4.bin" in maps, "the worker did not load the model after SessionStart"
    finally:
        stop_worker(path)
