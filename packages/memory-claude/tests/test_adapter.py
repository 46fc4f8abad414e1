"""What each recorded Claude Code event means to memory, and the exact text the hook prints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_claude.adapter import ClaudeHooks
from memory_claude.payloads import PayloadError
from memory_core.harnesses.contract import HookAdapter
from memory_core.models import EventKind, HookEvent, Recall

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
hooks = ClaudeHooks()


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


def test_the_adapter_has_the_hook_adapter_shape() -> None:
    assert isinstance(hooks, HookAdapter)
    assert hooks.name == "claude"


def test_a_user_prompt_is_a_read_keyed_by_its_prompt_id() -> None:
    payload = _load("UserPromptSubmit.json")
    event = hooks.parse(payload)
    assert event.kind is EventKind.READ
    assert event.prompt == "remember that the build uses tox"
    assert event.turn_id == payload["prompt_id"]
    assert event.session_id == payload["session_id"]
    assert event.cwd == "/home/dev/project"
    assert event.harness == "claude"


def test_stop_is_a_write_of_the_final_text_paired_with_its_prompt() -> None:
    read = hooks.parse(_load("UserPromptSubmit.json"))
    write = hooks.parse(_load("Stop.json"))
    assert write.kind is EventKind.WRITE
    assert write.response == "Noted: the build uses tox."
    assert (write.session_id, write.turn_id) == (read.session_id, read.turn_id)


@pytest.mark.parametrize("name", ["Stop.resume.json", "Stop.after-tool-use.json", "Stop.plugin.json", "http/Stop.json"])
def test_every_recorded_stop_is_a_write(name: str) -> None:
    assert hooks.parse(_load(name)).kind is EventKind.WRITE


def test_a_task_notification_prompt_is_neither_recalled_for_nor_stored() -> None:
    event = hooks.parse(_load("UserPromptSubmit.task-notification.json"))
    assert event.kind is EventKind.SKIP
    assert event.prompt is None
    assert "task-notification" in event.reason


@pytest.mark.parametrize("name", ["SubagentStop.json", "SubagentStop.compact.json"])
def test_a_subagent_stop_never_touches_the_parents_turn(name: str) -> None:
    # It carries the parent's prompt_id: a write here would overwrite the parent's turn.
    event = hooks.parse(_load(name))
    assert event.kind is EventKind.IGNORE
    assert event.response is None


def test_a_compaction_resets_the_session() -> None:
    event = hooks.parse(_load("SessionStart.compact.json"))
    assert event.kind is EventKind.RESET
    assert event.session_id == "bce60420-065f-43e6-b2da-b2603daf77a2"


@pytest.mark.parametrize("name", ["SessionStart.startup.json", "SessionStart.resume.json"])
def test_a_session_start_warms_the_worker(name: str) -> None:
    event = hooks.parse(_load(name))
    assert event.kind is EventKind.START
    assert event.session_id


@pytest.mark.parametrize(
    "name",
    [
        "SessionEnd.json",
        "PreToolUse.Bash.json",
        "PostToolUse.mcp.json",
        "PreCompact.manual.json",
        "PostCompact.manual.json",
        "SubagentStart.json",
    ],
)
def test_other_events_are_ignored(name: str) -> None:
    assert hooks.parse(_load(name)).kind is EventKind.IGNORE


def test_a_payload_missing_its_text_is_refused_not_guessed() -> None:
    payload = _load("Stop.json")
    del payload["last_assistant_message"]
    with pytest.raises(ValueError, match="last_assistant_message"):
        hooks.parse(payload)
    assert issubclass(PayloadError, ValueError)


def _read_event() -> HookEvent:
    return hooks.parse(_load("UserPromptSubmit.resume.json"))


def test_recall_renders_as_one_compact_json_line_of_additional_context() -> None:
    text = "<memory>\n- the build uses tox\n</memory>"
    out = hooks.render(_read_event(), Recall(text=text))
    assert out == (
        '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit",'
        '"additionalContext":"<memory>\\n- the build uses tox\\n</memory>"}}'
    )
    assert "\n" not in out
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == text


def test_identical_recall_renders_byte_identical_output() -> None:
    recall = Recall(text="- café ☕ uses tox")
    first = hooks.render(_read_event(), recall)
    assert first == hooks.render(_read_event(), recall)
    assert first.isascii()
    assert json.loads(first)["hookSpecificOutput"]["additionalContext"] == "- café ☕ uses tox"


def test_nothing_is_printed_when_nothing_was_recalled() -> None:
    assert hooks.render(_read_event(), Recall(text="")) == ""


@pytest.mark.parametrize(
    "name", ["Stop.json", "SessionStart.compact.json", "SessionStart.startup.json", "SubagentStop.json"]
)
def test_only_a_read_ever_prints(name: str) -> None:
    assert hooks.render(hooks.parse(_load(name)), Recall(text="something")) == ""
