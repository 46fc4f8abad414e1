"""A turn's timeline read from recorded Codex rollouts: what the worker hands the core.

The rollouts in `fixtures/transcripts/` were recorded from Codex 0.171.0 with the payloads
beside them, so a turn's events must land under the `turn_id` its `Stop` carried.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_codex.harness import CodexHarness
from memory_codex.timeline import read_timeline
from memory_core.harnesses.contract import ReadsTimeline
from memory_core.models import TimelineChunk, TimelineEvent
from memory_core.retrieval.render import HEADER

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDED = FIXTURES / "transcripts"
TOOL_TURN = RECORDED / "tool-turn.rollout-2026-11-30T04-41-55-01a22ac2-718d-7de0-aefc-27e2c937c51b.jsonl"
TWO_TURNS = RECORDED / "two-turns-resume.rollout-2026-11-30T04-41-24-01a22ac1-f8f0-7ee2-b4f8-f4705dccc817.jsonl"
THREAD = "01a22ac2-718d-7de0-aefc-27e2c937c51b"
FORK_PARENT = RECORDED / "fork-parent.rollout-2026-12-05T09-33-54-01a2458d-8ead-7e12-8372-2ff52b8486fd.jsonl"
FORK = RECORDED / "fork.rollout-2026-12-05T09-33-55-01a2458d-9004-7b41-8234-aa62607e8868.jsonl"


def _events(chunk: TimelineChunk) -> list[TimelineEvent]:
    return [event for turn in chunk.turns for event in turn.events]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _item(turn_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    meta = {"turn_id": turn_id, **payload.pop("_meta", {})}
    return {
        "timestamp": "2026-11-30T04:41:57.000Z",
        "type": "response_item",
        "payload": {**payload, "internal_chat_message_metadata_passthrough": meta},
    }


def test_the_harness_reads_timelines() -> None:
    assert isinstance(CodexHarness(), ReadsTimeline)


def test_a_tool_turn_yields_its_call_output_and_hook_context_under_the_stop_hooks_turn_id() -> None:
    chunk = CodexHarness().timeline(TOOL_TURN, 0)

    [turn] = chunk.turns
    stop = json.loads((FIXTURES / "Stop.after-tool-use.json").read_text())
    assert (turn.session_id, turn.turn_id, turn.parent_session_id) == (stop["session_id"], stop["turn_id"], None)
    assert [(e.kind, e.name) for e in turn.events] == [
        ("injected", "hook"),  # SessionStart's additionalContext
        ("injected", "hook"),  # UserPromptSubmit's
        ("tool_call", "exec_command"),
        ("injected", "hook"),  # PostToolUse's
        ("tool_result", "exec_command"),
    ]
    call, result = turn.events[2], turn.events[4]
    assert json.loads(call.text) == {"cmd": "echo hello-from-codex"}
    assert "hello-from-codex" in result.text
    assert call.call_id == result.call_id == "call_mock000001"
    assert [e.text for e in turn.events if e.kind == "injected"][:2] == [
        "NONCE-cx-sessionstart-f1f2c3f35738",
        "NONCE-cx-ups-cca0743d5b6e",
    ]
    # Codex's own per-turn context (skills and permissions, the environment) is no event.
    assert not any("<environment_context>" in e.text or "<skills_instructions>" in e.text for e in turn.events)
    assert chunk.end == TOOL_TURN.stat().st_size


def test_a_resumed_thread_read_from_its_saved_offset_gives_only_the_new_turn_under_the_same_names() -> None:
    raw = TWO_TURNS.read_bytes()
    first_done = raw.index(b"task_complete")
    saved = raw.index(b"\n", first_done) + 1  # where the read after turn 1's Stop ended

    whole = read_timeline(TWO_TURNS, 0)
    resumed = read_timeline(TWO_TURNS, saved)
    assert [t.turn_id for t in whole.turns] == [
        "01a22ac1-f98b-7ec1-b16d-d403f3706d30",
        "01a22ac2-174b-78f0-9ed3-52ff336de249",
    ]
    assert resumed.turns == whole.turns[1:]


def test_a_recorded_fork_holds_only_its_own_turn() -> None:
    """Recorded with `codex exec fork <parent> "..."`: Codex 0.171 names the parent
    (`forked_from_id`, `forked_from_ordinal_exclusive`) instead of copying its items, so the
    fork's rollout brings none of the parent's events, and the parent's tool call stays its own."""
    parent, fork = read_timeline(FORK_PARENT, 0), read_timeline(FORK, 0)
    [parents_turn] = parent.turns
    assert [(e.kind, e.name) for e in parents_turn.events] == [
        ("tool_call", "exec_command"),
        ("tool_result", "exec_command"),
    ]
    assert not {e.event_id for e in _events(fork)} & {e.event_id for e in parents_turn.events}
    assert {t.session_id for t in fork.turns} <= {"01a2458d-9004-7b41-8234-aa62607e8868"}


def test_a_forked_thread_repeats_its_parents_items_under_the_names_they_were_stored_under(tmp_path: Path) -> None:
    """Should a fork replay its parent's items (ids and turn ids kept), they name the same events."""
    forked = "01a22ac9-0000-7000-8000-000000000000"
    lines = _lines(TOOL_TURN)
    meta = {
        **lines[0],
        "payload": {**lines[0]["payload"], "id": forked, "session_id": forked, "forked_from_id": THREAD},
    }
    path = _write(tmp_path / f"rollout-2026-11-30T05-00-00-{forked}.jsonl", [meta, *lines[1:]])

    fork, original = read_timeline(path, 0), read_timeline(TOOL_TURN, 0)
    assert [e.event_id for e in _events(fork)] == [e.event_id for e in _events(original)]
    assert [t.turn_id for t in fork.turns] == [t.turn_id for t in original.turns]


def test_reads_chained_while_the_rollout_grows_find_every_event_once_named(tmp_path: Path) -> None:
    whole = read_timeline(TWO_TURNS, 0)
    named = {e.event_id: (t.turn_id, e) for t in whole.turns for e in t.events}
    raw = TWO_TURNS.read_bytes()
    path = tmp_path / TWO_TURNS.name
    seen: dict[str, tuple[str | None, TimelineEvent]] = {}
    offset = 0
    for grown in [i + 1 for i, byte in enumerate(raw) if byte == ord("\n")] + [len(raw)]:
        path.write_bytes(raw[:grown])
        chunk = read_timeline(path, offset)
        for turn in chunk.turns:
            for event in turn.events:
                assert named[event.event_id] == (turn.turn_id, event)
                seen[event.event_id] = (turn.turn_id, event)
        offset = chunk.end
    assert seen == named


def test_an_open_turn_cut_mid_line_is_read_again_from_its_start(tmp_path: Path) -> None:
    raw = TOOL_TURN.read_bytes()
    cut = raw.index(b'"function_call_output"') + 5
    path = tmp_path / TOOL_TURN.name
    path.write_bytes(raw[:cut])

    partial = read_timeline(path, 0)
    assert partial.end == raw.rfind(b"\n", 0, raw.index(b'"task_started"')) + 1  # the open turn's first line
    assert "tool_result" not in [e.kind for e in _events(partial)]

    path.write_bytes(raw)
    rest = read_timeline(path, partial.end)
    assert [e.event_id for e in _events(rest)] == [e.event_id for e in _events(read_timeline(TOOL_TURN, 0))]
    assert rest.end == len(raw)


def test_a_malformed_line_is_passed_over_and_a_stale_offset_reads_from_the_start(tmp_path: Path) -> None:
    raw = TOOL_TURN.read_bytes().splitlines(keepends=True)
    path = tmp_path / TOOL_TURN.name
    path.write_bytes(b"".join([*raw[:9], b'{"type": "response_item", "payload": {\n', *raw[9:]]))
    expected = [e.event_id for e in _events(read_timeline(TOOL_TURN, 0))]
    assert [e.event_id for e in _events(read_timeline(path, 0))] == expected
    assert [e.event_id for e in _events(read_timeline(path, 10**9))] == expected


def test_patches_shell_calls_compactions_and_a_subagent_thread(tmp_path: Path) -> None:
    turn = "01a22ac3-0000-7000-8000-00000000000a"
    parent = "01a22ac1-f8f0-7ee2-b4f8-f4705dccc817"
    child = "01a22ac3-1111-7000-8000-000000000001"
    meta = {
        "type": "session_meta",
        "payload": {
            "id": child,
            "cwd": "/home/dev/project",
            "source": {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}},
        },
    }
    patch = "*** Begin Patch\n*** Update File: src/auth/session.ts\n@@\n-a\n+b\n*** End Patch"
    lines = [
        meta,
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": turn}},
        _item(turn, {"type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch", "input": patch}),
        _item(
            turn,
            {
                "type": "custom_tool_call_output",
                "call_id": "call_p",
                "output": "Success. Updated: M src/auth/session.ts",
            },
        ),
        _item(
            turn,
            {"type": "local_shell_call", "call_id": "call_s", "action": {"type": "exec", "command": ["make", "test"]}},
        ),
        _item(turn, {"type": "function_call_output", "call_id": "call_s", "output": {"output": "ok 12 tests"}}),
        {
            "timestamp": "2026-11-30T04:42:00.000Z",
            "type": "compacted",
            "payload": {"message": "Summary: fixed the login bug."},
        },
        _item(
            turn,
            {
                "type": "message",
                "id": "msg_ours",
                "role": "developer",
                "content": [{"type": "input_text", "text": f"{HEADER}\n- [abc] 2026-11-29: tox"}],
                "_meta": {"content_item_kinds": ["hooks.additional_context"]},
            },
        ),
        {"type": "event_msg", "payload": {"type": "task_complete", "turn_id": turn}},
    ]
    chunk = read_timeline(_write(tmp_path / f"rollout-2026-11-30T05-00-00-{child}.jsonl", lines), 0)

    [found] = chunk.turns
    assert (found.session_id, found.parent_session_id, found.turn_id) == (child, parent, turn)
    assert [(e.kind, e.name, e.text) for e in found.events] == [
        ("tool_call", "apply_patch", patch),
        ("tool_result", "apply_patch", "Success. Updated: M src/auth/session.ts"),
        ("tool_call", "local_shell", '{"type": "exec", "command": ["make", "test"]}'),
        ("tool_result", "local_shell", "ok 12 tests"),
        ("injected", "compaction", "Summary: fixed the login bug."),
    ]  # memory's own recalled block is no event


def test_a_result_over_the_cap_is_handed_over_whole(tmp_path: Path) -> None:
    big = "".join(f"line {i}: {'ü' * 40}\n" for i in range(4000))
    lines = _lines(TOOL_TURN)
    for line in lines:
        if line["payload"].get("type") == "function_call_output":
            line["payload"]["output"] = big
    path = _write(tmp_path / TOOL_TURN.name, lines)
    [result] = [e for e in _events(read_timeline(path, 0)) if e.kind == "tool_result"]
    assert result.text == big


def test_a_missing_rollout_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_timeline(tmp_path / "gone.jsonl", 0)
