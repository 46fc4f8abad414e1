"""`memory import claude`: recorded Claude Code transcripts become the turns the hooks capture.

The transcripts in `fixtures/transcripts/` were recorded from Claude Code 2.1.332 together
with the payloads beside them, so the prompt ids, prompts and answers must line up exactly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_claude.adapter import ClaudeHooks
from memory_claude.transcript import ClaudeTranscripts
from memory_core.config import Config
from memory_core.harnesses.importing import Consumed, TranscriptTurn, run_import
from memory_core.retrieval.render import HEADER
from memory_core.service import MemoryService, turn_record_id

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDED = FIXTURES / "transcripts"
RESUME = "resume-compact-continue.bce60420-065f-43e6-b2da-b2603daf77a2.jsonl"
SUBAGENT_PARENT = "subagent.00a5614e-2889-478e-ad5d-1a35e51563ae.jsonl"
SUBAGENT = "subagent.agent-a665f9edf7888fa0d.jsonl"
TOOL_TURN = "tool-turn.cd39d502-15c1-4de7-8b23-d6463e13f73a.jsonl"
TWO_TURNS = "two-turns-resume.cf214454-5f7e-4124-a1c5-9dabc58f84d4.jsonl"
SETTLED_AGO_S = 7200


def _payload(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return loaded


def _turns(path: Path, *, settled: bool = True) -> list[TranscriptTurn]:
    items = ClaudeTranscripts(path.parent).parse(path, 0, settled=settled)
    return [item for item in items if isinstance(item, TranscriptTurn)]


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
def projects(tmp_path: Path) -> Path:
    """A Claude Code projects folder holding the recorded sessions, untouched for two hours."""
    folder = tmp_path / "claude" / "projects" / "-home-dev-project"
    folder.mkdir(parents=True)
    for name in (RESUME, SUBAGENT_PARENT, TOOL_TURN, TWO_TURNS):
        # Named as Claude Code names them: `<session id>.jsonl`.
        shutil.copy(RECORDED / name, folder / f"{name.split('.')[1]}.jsonl")
    subagents = folder / "00a5614e-2889-478e-ad5d-1a35e51563ae" / "subagents"
    subagents.mkdir(parents=True)
    shutil.copy(RECORDED / SUBAGENT, subagents / "agent-a665f9edf7888fa0d.jsonl")
    past = time.time() - SETTLED_AGO_S
    for path in folder.rglob("*.jsonl"):
        os.utime(path, (past, past))
    return folder.parent


def _record_texts(svc: MemoryService) -> list[str]:
    return [r.text for r in svc.store.scan(svc.scopes(kind="project"))]


# -- what a transcript yields ----------------------------------------------------------------


def test_a_resumed_and_compacted_session_gives_its_three_user_turns() -> None:
    turns = _turns(RECORDED / RESUME)
    assert [(t.turn_id, t.prompt, t.response) for t in turns] == [
        ("43ef64f3-0ecb-4142-8b8e-8fcd3289b84d", "remember that the build uses tox", "Noted: the build uses tox."),
        ("374b3cf0-a5d8-453f-aafe-a88d550252cd", "what does the build use?", "Noted: the build uses tox."),
        (
            "5a7f78ef-ec7f-4c63-9fe4-f32ad591984a",
            "what does the build use? (via --continue)",
            "Noted: the build uses tox.",
        ),
    ]
    # The /compact turn (d29cceed...) and its summary are not a user turn.
    assert all("continued from a previous conversation" not in t.prompt for t in turns)
    assert {t.session_id for t in turns} == {"bce60420-065f-43e6-b2da-b2603daf77a2"}
    assert {t.cwd for t in turns} == {"/home/dev/project"}


def test_tool_calls_and_results_are_not_part_of_the_turn() -> None:
    (turn,) = _turns(RECORDED / TOOL_TURN)
    assert turn.response == "Tool result received. Noted: the build uses tox."
    # The Bash output ("hello-from-bash") is only in the prompt, where the user typed the command.
    assert turn.prompt.count("hello-from-bash") == 1
    assert "hello-from-bash" not in turn.response


def test_a_forked_session_gives_its_own_turn_not_the_copy_of_its_parents() -> None:
    """Recorded with `--resume <parent> --fork-session`: the fork's file starts with the parent's
    lines under the fork's first prompt id; the turn is the fork's own prompt, as its Stop hook saw it."""
    (parent,) = _turns(RECORDED / "fork-parent.71dcb963-308b-4a2f-909c-37dac4f1c951.jsonl")
    (fork,) = _turns(RECORDED / "fork.5872f964-3895-4879-b17c-cd9f431d524c.jsonl")
    assert (parent.prompt, fork.prompt) == ("read the notes", "and again")
    assert fork.turn_id == "662b7bf2-271c-4dfd-be9e-b2aa8c38e12a"
    assert fork.session_id == "5872f964-3895-4879-b17c-cd9f431d524c"


def test_a_task_notification_turn_and_a_subagent_file_store_nothing() -> None:
    (parent,) = _turns(RECORDED / SUBAGENT_PARENT)
    assert parent.turn_id == "35d078bc-54d8-497a-8294-fdb16fe86323"
    assert parent.prompt.startswith("delegate: MOCK_TOOL_CALL name=Agent")
    # The turn the subagent's <task-notification> started (88fa2c2f...) is not the user's.
    assert all("task-notification" not in t.prompt for t in _turns(RECORDED / SUBAGENT_PARENT))
    # The subagent's own file carries its parent's prompt id: storing it would collide.
    assert _turns(RECORDED / SUBAGENT) == []


def test_every_recorded_stop_payload_matches_the_turn_read_from_its_transcript() -> None:
    by_id = {t.turn_id: t for name in (RESUME, SUBAGENT_PARENT, TOOL_TURN) for t in _turns(RECORDED / name)}
    checked = 0
    for name in ("Stop.json", "Stop.resume.json", "Stop.after-tool-use.json", "Stop.background-agent-running.json"):
        stop = _payload(name)
        turn = by_id[stop["prompt_id"]]
        assert turn.session_id == stop["session_id"]
        assert turn.response == stop["last_assistant_message"]
        checked += 1
    for name in ("UserPromptSubmit.json", "UserPromptSubmit.resume.json", "UserPromptSubmit.async-hook.json"):
        prompt = _payload(name)
        assert by_id[prompt["prompt_id"]].prompt == prompt["prompt"].strip()
        checked += 1
    assert checked == 7


# -- idempotent with hook capture ------------------------------------------------------------


def _hook_turn(svc: MemoryService, read: str, write: str) -> str:
    """One turn through the hook adapter and the service, as the hook process runs it."""
    hooks = ClaudeHooks()
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


def test_import_after_hook_capture_stores_nothing_twice(service: MemoryService, projects: Path) -> None:
    assert _hook_turn(service, "UserPromptSubmit.json", "Stop.json") == "stored"
    source = ClaudeTranscripts(projects)
    report = run_import(service, source, source.find(session="bce60420-065f-43e6-b2da-b2603daf77a2"))
    assert (report.stored, report.duplicates) == (2, 1)
    texts = _record_texts(service)
    assert texts.count("User: remember that the build uses tox\nAssistant: Noted: the build uses tox.") == 1


def test_hook_capture_after_import_stores_nothing_twice(service: MemoryService, projects: Path) -> None:
    source = ClaudeTranscripts(projects)
    report = run_import(service, source, source.find())
    assert (report.stored, report.duplicates) == (7, 0)
    assert _hook_turn(service, "UserPromptSubmit.json", "Stop.json") == "duplicate"
    assert _hook_turn(service, "UserPromptSubmit.resume.json", "Stop.resume.json") == "duplicate"
    assert service.store.count(service.scopes(kind="project")) == 7
    # The turn a <task-notification> started is not imported (the hooks drop its capture too).
    notification = _payload("Stop.after-task-notification.json")
    assert not service.store.get([turn_record_id("claude", notification["session_id"], notification["prompt_id"])])
    stop = _payload("Stop.after-tool-use.json")
    assert service.store.get([turn_record_id("claude", stop["session_id"], stop["prompt_id"])])


def test_a_subagent_file_under_its_session_is_never_listed(projects: Path) -> None:
    found = ClaudeTranscripts(projects).find()
    assert all("subagents" not in path.parts for path in found)
    assert len(found) == 4


# -- injected text is never the user's words -------------------------------------------------


def _line(**fields: Any) -> str:
    base = {"sessionId": "s-inject", "cwd": "/home/dev/project", "timestamp": "2026-11-30T05:00:00Z"}
    return json.dumps(base | fields) + "\n"


def test_our_own_recalled_block_is_never_imported_as_the_users_words(tmp_path: Path, service: MemoryService) -> None:
    recalled = f"{HEADER}\n- [t0123456789abcdef012] 2026-11-01: User: an old question Assistant: an OLD-ANSWER"
    path = tmp_path / "s-inject.jsonl"
    path.write_text(
        _line(
            type="user",
            promptId="p1",
            message={
                "role": "user",
                "content": [
                    {"type": "text", "text": "why does the release job fail on tags?"},
                    {"type": "text", "text": f"<system-reminder>\n{recalled}\n</system-reminder>"},
                ],
            },
        )
        + _line(type="attachment", attachment={"type": "hook_additional_context", "content": [recalled]})
        + _line(type="user", promptId="p1", isMeta=True, message={"role": "user", "content": recalled})
        + _line(
            type="user",
            promptId="p1",
            message={"role": "user", "content": f"<user-prompt-submit-hook>{recalled}</user-prompt-submit-hook>"},
        )
        + _line(
            type="assistant",
            message={
                "id": "m1",
                "content": [{"type": "text", "text": "The tag job lacks a token."}],
                "stop_reason": "end_turn",
            },
        )
    )
    source = ClaudeTranscripts(tmp_path)
    run_import(service, source, [path])
    assert _record_texts(service) == [
        "User: why does the release job fail on tags?\nAssistant: The tag job lacks a token."
    ]


def test_a_turn_without_a_prompt_id_dedupes_on_its_text(tmp_path: Path, service: MemoryService) -> None:
    path = tmp_path / "s-old.jsonl"
    path.write_text(
        _line(type="user", message={"role": "user", "content": "which port does the dev server use?"})
        + _line(type="assistant", message={"id": "m1", "content": [{"type": "text", "text": "Port 8421."}]})
    )
    (turn,) = _turns(path)
    assert turn.turn_id is None
    source = ClaudeTranscripts(tmp_path)
    assert run_import(service, source, [path], settle_seconds=0).stored == 1
    again = service.capture(
        harness="claude",
        session_id="s-inject",
        turn_id=None,
        prompt="which port does the dev server use?",
        response="Port 8421.",
    )
    assert again.status == "duplicate"


# -- a live session --------------------------------------------------------------------------


def test_a_turn_still_running_waits_and_a_half_written_line_is_not_read(tmp_path: Path, service: MemoryService) -> None:
    path = tmp_path / "s-live.jsonl"
    first = _line(type="user", promptId="p1", message={"role": "user", "content": "list the flaky tests"}) + _line(
        type="assistant", message={"id": "m1", "content": [{"type": "text", "text": "test_upload is flaky."}]}
    )
    second = _line(type="user", promptId="p2", message={"role": "user", "content": "fix test_upload"}) + _line(
        type="assistant",
        message={"id": "m2", "content": [{"type": "tool_use", "id": "tu1", "name": "Edit", "input": {}}]},
    )
    path.write_text(first + second)
    source = ClaudeTranscripts(tmp_path)
    # Recently written: the second turn waits on its tool call, so only the first is complete.
    assert run_import(service, source, [path], settle_seconds=3600).stored == 1

    finish = _line(
        type="user", promptId="p2", message={"role": "user", "content": [{"type": "tool_result", "content": "ok"}]}
    ) + _line(
        type="assistant",
        message={"id": "m3", "content": [{"type": "text", "text": "Fixed: it now waits."}], "stop_reason": "end_turn"},
    )
    half = _line(type="user", promptId="p3", message={"role": "user", "content": "now run the suite"})[:50]
    with path.open("a") as handle:
        handle.write(finish + half)
    assert run_import(service, source, [path], settle_seconds=3600).stored == 1
    assert sorted(_record_texts(service)) == [
        "User: fix test_upload\nAssistant: Fixed: it now waits.",
        "User: list the flaky tests\nAssistant: test_upload is flaky.",
    ]


# -- long sessions ---------------------------------------------------------------------------


def write_long_session(path: Path, turns: int, session: str = "s-long") -> None:
    """A generated Claude Code session of `turns` turns, each with hook output and a stop summary."""
    lines = []
    for n in range(turns):
        lines.append(
            _line(
                sessionId=session,
                type="user",
                promptId=f"p{n:06d}",
                message={"role": "user", "content": f"question {n}: how does module_{n} retry uploads?"},
            )
        )
        lines.append(
            _line(sessionId=session, type="attachment", attachment={"type": "hook_success", "stdout": "x" * 300})
        )
        text = f"module_{n} retries three times with exponential backoff, then gives up. " * 3
        lines.append(
            _line(
                sessionId=session,
                type="assistant",
                message={"id": f"m{n}", "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"},
            )
        )
        lines.append(_line(sessionId=session, type="system", subtype="stop_hook_summary"))
    path.write_text("".join(lines))


def _timed_import(tmp_path: Path, turns: int) -> float:
    folder = tmp_path / f"long-{turns}"
    folder.mkdir()
    write_long_session(folder / "s-long.jsonl", turns)
    svc = MemoryService(_config(folder), long_lived=True)
    source = ClaudeTranscripts(folder)
    began = time.perf_counter()
    report = run_import(svc, source, source.find())
    elapsed = time.perf_counter() - began
    assert (report.stored, report.stopped) == (turns, "")
    assert svc.store.count(svc.scopes(kind="project")) == turns
    svc.store.close()
    return elapsed


def test_a_session_of_thousands_of_turns_imports_in_time_linear_in_its_length(tmp_path: Path) -> None:
    small = _timed_import(tmp_path, 500)
    large = _timed_import(tmp_path, 2000)
    # Four times the turns: linear work is ~4x; a per-turn scan of the session (quadratic) is ~16x.
    assert large / small < 10


# -- the command line ------------------------------------------------------------------------


def _memory(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "CLAUDE_", "CODEX_"))}
    env |= {
        "HOME": str(tmp_path),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/build",
        "MEMORY_USER": "alice",
    }
    return subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_memory_import_claude_since_last_then_doctor_fix_picks_up_a_missed_turn(tmp_path: Path, projects: Path) -> None:
    done = _memory(tmp_path, "import", "claude", "--since-last")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("claude: 7 turn(s) stored, 0 already stored")
    assert done.stderr == ""  # not a terminal: no progress bar

    again = _memory(tmp_path, "import", "claude", "--since-last", "--json")
    assert json.loads(again.stdout)["stored"] == 0

    session = projects / "-home-dev-project" / "cf214454-5f7e-4124-a1c5-9dabc58f84d4.jsonl"
    with session.open("a") as handle:
        handle.write(
            _line(
                sessionId="cf214454-5f7e-4124-a1c5-9dabc58f84d4",
                type="user",
                promptId="missed-1",
                message={"role": "user", "content": "which branch deploys to staging?"},
            )
            + _line(
                sessionId="cf214454-5f7e-4124-a1c5-9dabc58f84d4",
                type="assistant",
                message={
                    "id": "m-missed",
                    "content": [{"type": "text", "text": "The release branch."}],
                    "stop_reason": "end_turn",
                },
            )
        )
    fixed = _memory(tmp_path, "doctor", "--fix")
    assert "claude: imported 1 turn(s) hooks had missed" in fixed.stdout
    found = _memory(tmp_path, "search", "staging", "branch")
    assert "The release branch." in found.stdout


def test_memory_import_claude_one_session_one_file_and_a_wrong_session(tmp_path: Path, projects: Path) -> None:
    by_file = _memory(tmp_path, "import", "claude", "--transcript", str(RECORDED / TOOL_TURN))
    assert by_file.returncode == 0, by_file.stderr
    assert "1 turn(s) stored" in by_file.stdout

    write_long_session(projects / "-home-dev-project" / "s-long.jsonl", 1000)
    by_session = _memory(tmp_path, "import", "claude", "--session", "s-long")
    assert by_session.returncode == 0, by_session.stderr
    assert "1000 turn(s) stored" in by_session.stdout

    wrong = _memory(tmp_path, "import", "claude", "--session", "no-such-session")
    assert wrong.returncode == 1
    assert wrong.stderr.startswith("memory: error: no Claude Code transcript of session 'no-such-session'")


def test_consumed_offsets_always_end_on_a_line(tmp_path: Path) -> None:
    path = RECORDED / RESUME
    ends = [item.end for item in ClaudeTranscripts(RECORDED).parse(path, 0, settled=False)]
    data = path.read_bytes()
    assert ends == sorted(ends)
    assert all(end == len(data) or data[end - 1 : end] == b"\n" for end in ends)
    # Starting again from any of them reads the rest and nothing before it.
    middle = ends[2]
    rest = list(ClaudeTranscripts(RECORDED).parse(path, middle, settled=True))
    assert [i.turn_id for i in rest if isinstance(i, TranscriptTurn)] == ["5a7f78ef-ec7f-4c63-9fe4-f32ad591984a"]
    assert all(isinstance(i, TranscriptTurn | Consumed) for i in rest)


def test_the_hook_path_never_loads_the_importer() -> None:
    probe = "import sys, memory_claude.hook; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(done.stdout.split())
    assert "memory_claude.hook" in loaded
    assert not loaded & {"memory_core.harnesses.importing", "memory_claude.transcript"}
