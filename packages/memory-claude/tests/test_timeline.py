"""A turn's timeline read from recorded Claude Code transcripts: what the worker hands the core.

The transcripts in `fixtures/transcripts/` were recorded from Claude Code 2.1.332 with the
payloads beside them, so a turn's events must land under the `prompt_id` its `Stop` carried.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from memory_claude.harness import ClaudeHarness
from memory_claude.timeline import read_timeline, subagent_file
from memory_core.config import Config
from memory_core.harnesses.contract import ReadsTimeline
from memory_core.models import TimelineChunk, TimelineEvent
from memory_core.retrieval.render import HEADER
from memory_core.service import MemoryService
from memory_core.timeline import EVENT_CAP_BYTES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDED = FIXTURES / "transcripts"
TOOL_TURN = RECORDED / "tool-turn.cd39d502-15c1-4de7-8b23-d6463e13f73a.jsonl"
RESUME = RECORDED / "resume-compact-continue.bce60420-065f-43e6-b2da-b2603daf77a2.jsonl"
SUBAGENT_PARENT = RECORDED / "subagent.00a5614e-2889-478e-ad5d-1a35e51563ae.jsonl"
SUBAGENT = RECORDED / "subagent.agent-a665f9edf7888fa0d.jsonl"
FORK_PARENT = RECORDED / "fork-parent.71dcb963-308b-4a2f-909c-37dac4f1c951.jsonl"
FORK = RECORDED / "fork.5872f964-3895-4879-b17c-cd9f431d524c.jsonl"


def _payload(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return loaded


def _events(chunk: TimelineChunk) -> list[TimelineEvent]:
    return [event for turn in chunk.turns for event in turn.events]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_harness_reads_timelines() -> None:
    assert isinstance(ClaudeHarness(), ReadsTimeline)


def test_a_tool_turn_yields_its_call_result_and_hook_context_under_the_stop_hooks_prompt_id() -> None:
    chunk = ClaudeHarness().timeline(TOOL_TURN, 0)

    [turn] = chunk.turns
    stop = _payload("Stop.after-tool-use.json")
    assert (turn.session_id, turn.turn_id, turn.parent_session_id) == (stop["session_id"], stop["prompt_id"], None)
    assert [(e.kind, e.name) for e in turn.events] == [
        ("injected", "hook"),  # SessionStart's context, injected into this turn
        ("injected", "hook"),  # UserPromptSubmit's
        ("tool_call", "Bash"),
        ("tool_result", "Bash"),
        ("injected", "hook"),  # PostToolUse's
        ("injected", "hook"),  # the async UserPromptSubmit hook's, arriving late
    ]
    call, result = turn.events[2], turn.events[3]
    assert json.loads(call.text) == {"command": "echo hello-from-bash", "description": "echo test"}
    assert result.text == "hello-from-bash"
    assert call.call_id == result.call_id == "toolu_mock000001"
    assert turn.events[0].text == "NONCE-cc-sessionstart-7f71367ba7c5"
    assert all(e.at > 0 for e in turn.events)
    assert chunk.end == TOOL_TURN.stat().st_size


def test_compaction_summary_and_slash_command_output_are_injected_text_of_their_turn() -> None:
    chunk = read_timeline(RESUME, 0)

    by_turn = {turn.turn_id: [(e.kind, e.name) for e in turn.events] for turn in chunk.turns}
    compact = by_turn["d29cceed-eaa4-4cc1-96b3-1c3e1727573f"]  # the `/compact` turn
    assert ("injected", "compaction") in compact
    assert ("injected", "slash_command") in compact
    [summary] = [e for t in chunk.turns for e in t.events if e.name == "compaction"]
    assert summary.text.startswith("This session is being continued from a previous conversation")
    # The context SessionStart injected after the compaction belongs to the next prompt's turn.
    continued = [t for t in chunk.turns if t.turn_id == "5a7f78ef-ec7f-4c63-9fe4-f32ad591984a"]
    assert [e.text for e in continued[0].events][-1] == "NONCE-cc-ups-fc783dfe1dff"
    assert "NONCE-cc-sessionstart-7125f5323956" in [e.text for e in continued[0].events]


@pytest.mark.parametrize("recorded", [RESUME, TOOL_TURN, SUBAGENT_PARENT, FORK], ids=lambda p: p.name.split(".")[0])
def test_reads_chained_from_saved_offsets_while_the_file_grows_find_every_event_once_named(
    recorded: Path, tmp_path: Path
) -> None:
    """The worker reads after each capture from where the last read ended, while Claude Code
    goes on writing: together the reads hold every event, under the turn and name a whole read gives."""
    whole = read_timeline(recorded, 0)
    named = {e.event_id: (t.turn_id, e) for t in whole.turns for e in t.events}
    assert len(named) == len(_events(whole))  # every event has its own name

    raw = recorded.read_bytes()
    path = tmp_path / recorded.name
    seen: dict[str, tuple[str | None, TimelineEvent]] = {}
    offset = 0
    for grown in [*[i + 1 for i, byte in enumerate(raw) if byte == ord("\n")][::3], len(raw)]:
        path.write_bytes(raw[:grown])
        chunk = read_timeline(path, offset)
        assert offset <= chunk.end <= grown
        for turn in chunk.turns:
            for event in turn.events:
                assert named[event.event_id] == (turn.turn_id, event)
                seen[event.event_id] = (turn.turn_id, event)
        offset = chunk.end
    assert seen == named


def test_a_read_from_an_offset_inside_a_turn_never_gives_an_event_to_the_wrong_turn() -> None:
    whole = read_timeline(RESUME, 0)
    named = {e.event_id: (t.turn_id, e) for t in whole.turns for e in t.events}
    raw = RESUME.read_bytes()
    for offset in [i + 1 for i, byte in enumerate(raw) if byte == ord("\n")][:-1]:
        for turn in read_timeline(RESUME, offset).turns:
            for event in turn.events:
                assert named[event.event_id] == (turn.turn_id, event), f"offset {offset}"


def test_a_resumed_session_read_whole_again_stores_nothing_new(tmp_path: Path) -> None:
    """`--resume` appends to the same file; a lost offset re-reads it from 0: the same ids."""
    path = shutil.copy(TOOL_TURN, tmp_path / TOOL_TURN.name)
    first = read_timeline(Path(path), 0)
    again = read_timeline(Path(path), first.end + 10**9)  # an offset past the end reads from 0
    assert [e.event_id for e in _events(again)] == [e.event_id for e in _events(first)]


def test_a_forked_session_does_not_claim_its_parents_events() -> None:
    """Recorded: `claude -p ... --resume <parent> --fork-session`. Claude Code copies the parent's
    lines into the fork (uuids kept, session and prompt ids rewritten to the fork's first turn):
    the copy's events are the parent's, kept behind the parent's turn, never again behind the fork's."""
    parent = read_timeline(FORK_PARENT, 0)
    fork = read_timeline(FORK, 0)
    [parents_turn] = parent.turns
    assert [(e.kind, e.name) for e in parents_turn.events] == [("tool_call", "Bash"), ("tool_result", "Bash")]
    copied = {e.event_id for e in parents_turn.events}
    assert not copied & {e.event_id for e in _events(fork)}
    uuid = parents_turn.events[0].event_id.split(":")[0]
    assert f'"uuid":"{uuid}"' in FORK.read_text()  # the copy is there, under the parent's uuid


def test_a_line_cut_mid_way_is_left_for_the_next_read(tmp_path: Path) -> None:
    raw = TOOL_TURN.read_bytes()
    cut = raw.index(b'"tool_result"')  # inside the line holding the Bash result
    path = tmp_path / TOOL_TURN.name
    path.write_bytes(raw[:cut])

    partial = read_timeline(path, 0)
    line_start = raw.rfind(b"\n", 0, cut) + 1
    assert partial.end <= line_start
    assert [e.kind for e in _events(partial)] == ["injected", "injected", "tool_call"]

    path.write_bytes(raw)  # the rest of the line is written
    rest = read_timeline(path, partial.end)
    assert "tool_result" in [e.kind for e in _events(rest)]
    # what the first read saw comes again under the same names (the turn was still open)
    assert {e.event_id for e in _events(partial)} <= {e.event_id for e in _events(rest)}
    assert rest.end == len(raw)


def test_a_malformed_line_is_passed_over(tmp_path: Path) -> None:
    raw = TOOL_TURN.read_bytes().splitlines(keepends=True)
    path = tmp_path / TOOL_TURN.name
    path.write_bytes(b"".join([*raw[:10], b'{"type": "user", "message": \n', b"\x00\xff not json\n", *raw[10:]]))
    assert [e.event_id for e in _events(read_timeline(path, 0))] == [
        e.event_id for e in _events(read_timeline(TOOL_TURN, 0))
    ]


def test_a_missing_transcript_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_timeline(tmp_path / "gone.jsonl", 0)


def test_a_result_over_the_cap_is_handed_over_whole_and_capped_once_by_the_core(tmp_path: Path) -> None:
    """The core caps; the reader never cuts, so the cap is applied once, by one rule."""
    big = "".join(f"line {i}: {'é' * 40}\n" for i in range(4000))  # ~330 KB of UTF-8
    lines = _lines(TOOL_TURN)
    for line in lines:
        content = (line.get("message") or {}).get("content")
        if isinstance(content, list) and content and content[0].get("type") == "tool_result":
            content[0]["content"] = [{"type": "text", "text": big}]
    chunk = read_timeline(_write(tmp_path / TOOL_TURN.name, lines), 0)
    [result] = [e for e in _events(chunk) if e.kind == "tool_result"]
    assert result.text == big

    # Merged behind the turn the Stop hook stored, it is cut once, by the core's rule.
    config = Config.from_env(
        {
            "HOME": str(tmp_path),
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "git:example.com/acme/build",
        }
    )
    service = MemoryService(config, long_lived=True)
    try:
        stop = _payload("Stop.after-tool-use.json")
        outcome = service.capture(
            harness="claude", session_id=stop["session_id"], turn_id=stop["prompt_id"], prompt="run it", response="ok"
        )
        assert outcome.record_id is not None
        service.add_timeline("claude", chunk.turns)
        service.add_timeline("claude", read_timeline(tmp_path / TOOL_TURN.name, 0).turns)  # a re-read adds nothing
        [stored] = [e for e in service.timeline(outcome.record_id) if e.kind == "tool_result"]
    finally:
        service.store.close()
    assert len(stored.text.encode()) <= EVENT_CAP_BYTES + 64
    assert stored.text.endswith(f"of {len(big.encode())} bytes]")
    assert stored.text.count("[truncated:") == 1
    assert big.startswith(stored.text.rsplit("\n[truncated:", 1)[0])


def test_memorys_own_recalled_block_is_never_an_event(tmp_path: Path) -> None:
    ours = f"{HEADER}\n- [abc123] 2026-11-29: the build uses tox"
    lines = _lines(TOOL_TURN)
    for line in lines:
        attachment = line.get("attachment") or {}
        if attachment.get("type") == "hook_additional_context" and attachment.get("hookEvent") == "UserPromptSubmit":
            attachment["content"] = [ours]
        if line.get("type") == "user" and isinstance((line.get("message") or {}).get("content"), str):
            prompt = line["message"]["content"]
            reminder = f"<system-reminder>\nUserPromptSubmit hook additional context: {ours}\n</system-reminder>"
            other = "<system-reminder>\nThe user opened src/auth/session.ts in the IDE.\n</system-reminder>"
            line["message"]["content"] = [
                {"type": "text", "text": reminder},
                {"type": "text", "text": other},
                {"type": "text", "text": prompt},
            ]
    events = _events(read_timeline(_write(tmp_path / TOOL_TURN.name, lines), 0))
    assert not any(HEADER in e.text or "the build uses tox" in e.text for e in events)
    reminders = [e for e in events if e.name == "system_reminder"]
    assert [e.text for e in reminders] == ["The user opened src/auth/session.ts in the IDE."]
    assert "NONCE-cc-ups-f76d37d0941b" not in [e.text for e in events]  # replaced by ours, then dropped


def _subagent_layout(tmp_path: Path) -> tuple[Path, Path]:
    """The parent and subagent transcripts where Claude Code keeps them, the subagent running a tool."""
    parent = Path(shutil.copy(SUBAGENT_PARENT, tmp_path / "00a5614e-2889-478e-ad5d-1a35e51563ae.jsonl"))
    lines = _lines(SUBAGENT)
    base = {k: lines[-2][k] for k in ("isSidechain", "agentId", "sessionId", "cwd", "timestamp")}
    call = {
        **base,
        "type": "assistant",
        "uuid": "5ab00000-0000-4000-8000-000000000001",
        "message": {
            "id": "msg_sub",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_sub1", "name": "Read", "input": {"file_path": "tox.ini"}}],
            "stop_reason": "tool_use",
        },
    }
    result = {
        **base,
        "type": "user",
        "promptId": lines[0]["promptId"],
        "uuid": "5ab00000-0000-4000-8000-000000000002",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_sub1", "content": "[tox]"}],
        },
    }
    sub = _write(subagent_file(parent, "a665f9edf7888fa0d"), [*lines[:9], call, result, *lines[9:]])
    return parent, sub


def test_a_subagent_is_a_session_of_its_own_naming_its_parent(tmp_path: Path) -> None:
    parent, sub = _subagent_layout(tmp_path)

    direct = read_timeline(sub, 0)
    [turn] = direct.turns
    assert turn.session_id == "agent-a665f9edf7888fa0d"
    assert turn.parent_session_id == "00a5614e-2889-478e-ad5d-1a35e51563ae"
    assert [(e.kind, e.name, e.text) for e in turn.events] == [
        ("tool_call", "Read", '{"file_path": "tox.ini"}'),
        ("tool_result", "Read", "[tox]"),
    ]

    # Reading the parent brings the subagent's turn once its result is in (a background
    # subagent's `<task-notification>`), under the same names.
    through_parent = read_timeline(parent, 0)
    sessions = [t.session_id for t in through_parent.turns]
    assert sessions.count("agent-a665f9edf7888fa0d") == 1
    assert "00a5614e-2889-478e-ad5d-1a35e51563ae" in sessions
    nested = [t for t in through_parent.turns if t.session_id == "agent-a665f9edf7888fa0d"]
    assert nested == [turn]
    # the parent's own events never hold the subagent's
    own = [e for t in through_parent.turns if t.parent_session_id is None for e in t.events]
    assert "toolu_sub1" not in {e.call_id for e in own}


def test_a_missing_subagent_file_costs_only_the_subagents_events(tmp_path: Path) -> None:
    parent = Path(shutil.copy(SUBAGENT_PARENT, tmp_path / "00a5614e-2889-478e-ad5d-1a35e51563ae.jsonl"))
    chunk = read_timeline(parent, 0)
    assert {t.session_id for t in chunk.turns} == {"00a5614e-2889-478e-ad5d-1a35e51563ae"}
    assert "Agent" in {e.name for e in _events(chunk)}


def test_a_skill_a_custom_command_and_a_rendered_reminder_are_injected_text_with_their_origin(tmp_path: Path) -> None:
    """Shapes of Claude Code 2.1.332 (from its program): a skill's body and a custom command's
    expanded prompt are `isMeta` user lines; other reminders are attachments it renders."""
    lines = _lines(TOOL_TURN)
    prompt = next(i for i, line in enumerate(lines) if line.get("type") == "user")
    base = {k: lines[prompt][k] for k in ("sessionId", "cwd", "timestamp", "promptId")}
    skill = {
        **base,
        "type": "user",
        "isMeta": True,
        "sourceToolUseID": "toolu_skill",
        "uuid": "5c000000-0000-4000-8000-000000000001",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "Base directory for this skill: /s\n\nLint first."}],
        },
    }
    command = {
        **base,
        "type": "user",
        "isMeta": True,
        "uuid": "5c000000-0000-4000-8000-000000000002",
        "message": {"role": "user", "content": "Review the diff of src/auth/session.ts for races."},
    }
    opened = {
        "type": "attachment",
        "uuid": "5c000000-0000-4000-8000-000000000003",
        "timestamp": base["timestamp"],
        "attachment": {"type": "opened_file_in_ide", "filename": "src/auth/session.ts"},
        "rendered": [{"content": "<system-reminder>\nThe user opened src/auth/session.ts.\n</system-reminder>"}],
    }
    path = _write(tmp_path / TOOL_TURN.name, [*lines[: prompt + 1], skill, command, opened, *lines[prompt + 1 :]])
    [turn] = read_timeline(path, 0).turns
    injected = [(e.name, e.text) for e in turn.events if e.kind == "injected" and e.name != "hook"]
    assert injected == [
        ("skill", "Base directory for this skill: /s\n\nLint first."),
        ("slash_command", "Review the diff of src/auth/session.ts for races."),
        ("system_reminder", "The user opened src/auth/session.ts."),
    ]


def test_a_subagent_run_in_the_foreground_is_read_when_its_result_comes_back(tmp_path: Path) -> None:
    parent, _ = _subagent_layout(tmp_path)
    lines = _lines(parent)
    for line in lines:
        result = line.get("toolUseResult")
        if isinstance(result, dict) and result.get("agentId"):
            line["toolUseResult"] = {"status": "completed", "agentId": result["agentId"], "content": []}
    notification = next(i for i, line in enumerate(lines) if line.get("origin", {}).get("kind") == "task-notification")
    foreground = _write(parent, lines[:notification])  # no background report: the Agent call waited

    sessions = [t.session_id for t in read_timeline(foreground, 0).turns]
    assert sessions.count("agent-a665f9edf7888fa0d") == 1
