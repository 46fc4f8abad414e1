"""`memory import codex`: recorded Codex rollouts become the turns the hooks capture.

The rollouts in `fixtures/transcripts/` were recorded from Codex 0.171.0 together with the
payloads beside them: `turn_id`, prompts and answers must line up exactly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_codex.adapter import CodexHooks
from memory_codex.rollout import CodexRollouts
from memory_core.config import Config
from memory_core.harnesses.importing import TranscriptTurn, run_import
from memory_core.retrieval.render import HEADER
from memory_core.service import MemoryService

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDED = FIXTURES / "transcripts"
TWO_TURNS = "two-turns-resume.rollout-2026-11-30T04-41-24-01a22ac1-f8f0-7ee2-b4f8-f4705dccc817.jsonl"
TOOL_TURN = "tool-turn.rollout-2026-11-30T04-41-55-01a22ac2-718d-7de0-aefc-27e2c937c51b.jsonl"
THREAD = "01a22ac1-f8f0-7ee2-b4f8-f4705dccc817"


def _payload(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return loaded


def _turns(path: Path, *, settled: bool = False) -> list[TranscriptTurn]:
    return [i for i in CodexRollouts(path.parent).parse(path, 0, settled=settled) if isinstance(i, TranscriptTurn)]


def _config(tmp_path: Path) -> Config:
    return Config.from_env(
        {
            "HOME": str(tmp_path),
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "git:example.com/acme/build",
            "MEMORY_USER": "alice",
        }
    )


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MemoryService]:
    svc = MemoryService(_config(tmp_path), long_lived=True)
    yield svc
    svc.store.close()


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    """A CODEX_HOME whose sessions folder holds the recorded rollouts where Codex puts them."""
    home = tmp_path / "codex"
    day = home / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    for name in (TWO_TURNS, TOOL_TURN):
        shutil.copy(RECORDED / name, day / name.split(".", 1)[1])
    return home


def _texts(svc: MemoryService) -> list[str]:
    return [r.text for r in svc.store.scan(svc.scopes(kind="project"))]


def test_recorded_rollouts_give_the_turns_the_hooks_saw() -> None:
    turns = _turns(RECORDED / TWO_TURNS) + _turns(RECORDED / TOOL_TURN)
    by_id = {t.turn_id: t for t in turns}
    assert len(turns) == 3
    for read, write in (
        ("UserPromptSubmit.json", "Stop.json"),
        ("UserPromptSubmit.resume.json", "Stop.resume.json"),
        (None, "Stop.after-tool-use.json"),
    ):
        stop = _payload(write)
        turn = by_id[stop["turn_id"]]
        assert turn.session_id == stop["session_id"]
        assert turn.response == stop["last_assistant_message"]
        assert turn.cwd == stop["cwd"]
        if read is not None:
            assert turn.prompt == _payload(read)["prompt"]
    # Neither the environment context, our hook's developer message nor the tool output is in a turn.
    for turn in turns:
        assert "environment_context" not in turn.prompt
        assert "NONCE" not in turn.prompt + turn.response
        assert "Process exited" not in turn.response


def _hook_turn(svc: MemoryService, read: str, write: str) -> str:
    hooks = CodexHooks()
    svc.handle(hooks.parse(_payload(read)))
    event = hooks.parse(_payload(write))
    outcome = svc.capture(
        harness=event.harness,
        session_id=event.session_id,
        turn_id=event.turn_id,
        response=event.response or "",
        cwd=event.cwd,
    )
    return outcome.status


def test_import_after_hook_capture_stores_nothing_twice(service: MemoryService, codex_home: Path) -> None:
    assert _hook_turn(service, "UserPromptSubmit.json", "Stop.json") == "stored"
    source = CodexRollouts(codex_home / "sessions")
    report = run_import(service, source, source.find(session=THREAD))
    assert (report.stored, report.duplicates) == (1, 1)
    assert sorted(_texts(service)) == [
        "User: remember that the build uses tox\nAssistant: Noted: the build uses tox.",
        "User: what does the build use?\nAssistant: Noted: the build uses tox.",
    ]


def test_hook_capture_after_import_stores_nothing_twice(service: MemoryService, codex_home: Path) -> None:
    source = CodexRollouts(codex_home / "sessions")
    assert run_import(service, source, source.find()).stored == 3
    assert _hook_turn(service, "UserPromptSubmit.json", "Stop.json") == "duplicate"
    assert _hook_turn(service, "UserPromptSubmit.resume.json", "Stop.resume.json") == "duplicate"
    assert service.store.count(service.scopes(kind="project")) == 3


def _event(payload: dict[str, Any], at: str = "2026-11-30T05:00:00.000Z") -> str:
    return json.dumps({"timestamp": at, "type": "event_msg", "payload": payload}) + "\n"


def _meta(thread: str, **extra: Any) -> str:
    payload = {"id": thread, "cwd": "/home/dev/other", "source": "exec", "thread_source": "user"} | extra
    return json.dumps({"timestamp": "2026-11-30T05:00:00.000Z", "type": "session_meta", "payload": payload}) + "\n"


def _turn(turn_id: str, prompt: str, answer: str, *, parent: str | None = None, end: str = "task_complete") -> str:
    started = {"turn_id": turn_id, "turn_attribution": {"turn_id": turn_id, "parent_turn_id": parent}}
    user = {"type": "UserMessage", "content": [{"type": "text", "text": prompt}]}
    agent = {"type": "AgentMessage", "content": [{"type": "Text", "text": answer}]}
    developer = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": HEADER}]}
    return (
        _event({"type": "task_started", **started})
        + _event({"type": "item_completed", "turn_id": turn_id, "item": user})
        + json.dumps({"type": "response_item", "payload": developer})
        + "\n"
        + _event({"type": "item_completed", "turn_id": turn_id, "item": agent})
        + _event({"type": end, "turn_id": turn_id, "last_agent_message": answer if end == "task_complete" else None})
    )


def test_subagent_threads_spawned_and_aborted_turns_store_nothing(tmp_path: Path) -> None:
    thread = "01a22ac9-0000-7000-8000-000000000001"
    main = tmp_path / f"rollout-2026-11-30T05-00-00-{thread}.jsonl"
    main.write_text(
        _meta(thread)
        + _turn("t1", "which queue does billing use?", "The billing-events queue.")
        + _turn("t2", "review the diff", "Reviewed.", parent="t1")
        + _turn("t3", "stop, wrong branch", "Switching", end="turn_aborted")
    )
    (turn,) = _turns(main)
    assert (turn.turn_id, turn.prompt, turn.response, turn.cwd) == (
        "t1",
        "which queue does billing use?",
        "The billing-events queue.",
        "/home/dev/other",
    )
    sub = tmp_path / "rollout-2026-11-30T05-00-01-01a22ac9-0000-7000-8000-000000000002.jsonl"
    sub.write_text(_meta("sub", source={"subagent": {"parent_thread_id": thread}}) + _turn("s1", "look", "Looked."))
    assert _turns(sub, settled=True) == []


def test_a_turn_still_running_waits_for_its_task_complete(tmp_path: Path, service: MemoryService) -> None:
    thread = "01a22ac9-0000-7000-8000-000000000003"
    path = tmp_path / f"rollout-2026-11-30T05-00-00-{thread}.jsonl"
    done = _turn("t1", "where are the fixtures?", "Under tests/fixtures.")
    running = _turn("t2", "run the suite", "Running").split("\n")
    # The second turn has started and answered, but not completed; its last line is half written.
    path.write_text(_meta(thread) + done + "\n".join(running[:4]) + "\n" + running[4][:30])
    source = CodexRollouts(tmp_path)
    assert run_import(service, source, [path], settle_seconds=3600).stored == 1
    with path.open("w") as handle:
        handle.write(_meta(thread) + done + "\n".join(running))
    assert run_import(service, source, [path], settle_seconds=3600).stored == 1
    assert len(_texts(service)) == 2


def test_memory_import_codex_since_last_and_by_session(tmp_path: Path, codex_home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "CLAUDE_", "CODEX_"))}
    env |= {
        "HOME": str(tmp_path),
        "CODEX_HOME": str(codex_home),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/build",
    }

    def memory(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memory_core.cli", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    one = memory("import", "codex", "--session", THREAD)
    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith("codex: 2 turn(s) stored")
    rest = memory("import", "codex", "--since-last", "--json")
    assert json.loads(rest.stdout)["stored"] == 1
    fixed = memory("doctor", "--fix")
    assert "codex: imported 0 turn(s) hooks had missed" in fixed.stdout


def test_a_rollout_of_thousands_of_turns_is_read_whole_and_once(tmp_path: Path, service: MemoryService) -> None:
    thread = "01a22ac9-0000-7000-8000-00000000000a"
    path = tmp_path / f"rollout-2026-11-30T05-00-00-{thread}.jsonl"
    turns = 3000
    with path.open("w") as handle:
        handle.write(_meta(thread))
        for n in range(turns):
            handle.write(_turn(f"t{n}", f"what does job_{n} deploy?", f"job_{n} deploys the api service."))
    source = CodexRollouts(tmp_path)
    first = run_import(service, source, [path])
    assert (first.stored, first.stopped) == (turns, "")
    assert run_import(service, source, [path]).files_read == 0
    assert service.store.count(service.scopes(kind="project")) == turns


def test_the_hook_path_never_loads_the_importer() -> None:
    probe = "import sys, memory_codex.hook; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(done.stdout.split())
    assert "memory_codex.hook" in loaded
    assert not loaded & {"memory_core.harnesses.importing", "memory_codex.rollout"}
