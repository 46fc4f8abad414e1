"""A turn's timeline as a user notices it: kept behind the turn, firewalled and capped, reached by
expanding, and the files it touched finding the turn."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.models import EventKind, HookEvent, TimelineEvent, TurnTimeline
from memory_core.service import MemoryService
from memory_core.timeline import cap_text, touched
from memory_core.timeline.prepare import key

AWS_KEY = "AKIA" + "Q7RW2ZT5VN3KD8PX"  # key-shaped, in two pieces (AWS's ...EXAMPLE key is kept)
# A GitHub token shape the firewall knows; built here so no scanner flags this file.
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _config(tmp_path: Path, **env: str) -> Config:
    base = {
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/web",
        "MEMORY_USER": "alice",
        **env,
    }
    return Config.from_env(base)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MemoryService]:
    svc = MemoryService(_config(tmp_path))
    yield svc
    svc.close()


def _edit_turn(output: str = "Tests passed: 12") -> tuple[TimelineEvent, ...]:
    return (
        TimelineEvent("injected", "u0", "Memory: the login form lives in web/", "hook"),
        TimelineEvent(
            "tool_call",
            "u1",
            json.dumps({"file_path": "/home/a/web/src/auth/session.ts", "old_string": "a"}),
            "Edit",
            "c1",
        ),
        TimelineEvent("tool_result", "u2", "The file was updated.", "Edit", "c1"),
        TimelineEvent("tool_call", "u3", json.dumps({"command": "npm test -- --run | tail -5"}), "Bash", "c2"),
        TimelineEvent("tool_result", "u4", output, "Bash", "c2"),
    )


def _ids(events: list[TimelineEvent]) -> list[str]:
    """The harness's ids of stored events (the store keeps their digests)."""
    named = {key(f"u{n}"): f"u{n}" for n in range(5)}
    return [named[e.event_id] for e in events]


def _capture(svc: MemoryService, turn: str = "t1", session: str = "s1") -> str:
    outcome = svc.capture(
        harness="claude",
        session_id=session,
        turn_id=turn,
        prompt="the login keeps failing after a refresh",
        response="Fixed: the refresh token is now kept across reloads.",
    )
    assert outcome.record_id
    return outcome.record_id


def test_a_turns_events_are_kept_in_order_and_expanding_shows_them(service: MemoryService) -> None:
    record_id = _capture(service)
    assert service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn())]) == 5
    events = service.timeline(record_id)
    assert _ids(events) == ["u0", "u1", "u2", "u3", "u4"]
    assert events[1].call_id == events[2].call_id == key("c1")  # a result still names its call
    assert events[4].text == "Tests passed: 12"


def test_the_same_events_read_again_are_stored_once(service: MemoryService) -> None:
    record_id = _capture(service)
    service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn()[:3])])
    # A re-read from an earlier offset, or an import after the hook: the first three again.
    assert service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn())]) == 2
    assert len(service.timeline(record_id)) == 5


def test_a_question_naming_an_edited_file_finds_the_turn(service: MemoryService) -> None:
    record_id = _capture(service)
    _capture(service, turn="t2")  # another turn, without events, says the same words
    assert not service.search("src/auth/session.ts")
    service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn())])
    hits = service.search("which change touched src/auth/session.ts?")
    assert hits
    assert hits[0].record.id == record_id
    assert service.search("npm")[0].record.id == record_id


def test_tool_output_is_never_ranked(service: MemoryService) -> None:
    _capture(service)
    service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn("zanzibar exploded in the migration"))])
    assert service.search("zanzibar") == []


def test_a_secret_in_a_tool_result_never_reaches_the_store(service: MemoryService, tmp_path: Path) -> None:
    record_id = _capture(service)
    service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn(f"export AWS_ACCESS_KEY_ID={AWS_KEY}"))])
    assert AWS_KEY not in service.timeline(record_id)[4].text
    service.close()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert AWS_KEY.encode() not in path.read_bytes(), path


def test_a_long_result_is_cut_at_the_cap_with_a_line_saying_so(service: MemoryService) -> None:
    record_id = _capture(service)
    service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn("é" * 10_000))])
    text = service.timeline(record_id)[4].text
    assert text.endswith("\n[truncated: 8192 of 20000 bytes]")
    assert len(text.encode()) < 8192 + 64


def test_memorys_own_recalled_block_is_not_kept_again(service: MemoryService) -> None:
    from memory_core.retrieval.render import HEADER

    record_id = _capture(service)
    block = TimelineEvent("injected", "h1", f"<memory>\n{HEADER}\n- an old turn\n</memory>", "hook")
    service.add_timeline("claude", [TurnTimeline("s1", "t1", (block, *_edit_turn()))])
    assert _ids(service.timeline(record_id)) == ["u0", "u1", "u2", "u3", "u4"]


def test_a_megabyte_of_output_is_cut_and_says_how_much_there_was(service: MemoryService) -> None:
    record_id = _capture(service)
    output = f"export AWS_ACCESS_KEY_ID={AWS_KEY}\n" + "line of build output\n" * 50_000
    service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn(output))])
    text = service.timeline(record_id)[4].text
    assert AWS_KEY not in text
    assert text.endswith(f" of {len(output.encode())} bytes]")


def test_cap_text_cuts_at_a_character_boundary() -> None:
    cut = cap_text("a" + "€" * 10, limit=8)  # € is 3 bytes: 1 + 3 + 3 fits, the next does not
    assert cut == "a€€\n[truncated: 7 of 31 bytes]"
    assert cap_text("short") == "short"


def test_forgetting_a_turn_forgets_its_events(service: MemoryService) -> None:
    record_id = _capture(service)
    service.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn())])
    assert service.forget([record_id]) == 1
    assert service.store.events(record_id) == []  # type: ignore[attr-defined]


def test_events_off_keeps_only_the_turn(tmp_path: Path) -> None:
    svc = MemoryService(_config(tmp_path, MEMORY_EVENTS="0"))
    try:
        record_id = _capture(svc)
        assert svc.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn())]) == 0
        assert svc.timeline(record_id) == []
    finally:
        svc.close()


def test_prune_keeps_the_newest_turns_events_within_the_bound(tmp_path: Path) -> None:
    svc = MemoryService(_config(tmp_path, MEMORY_EVENTS_MAX_BYTES="4096"))
    try:
        ids = []
        for n in range(3):
            ids.append(_capture(svc, turn=f"t{n}"))
            svc.add_timeline("claude", [TurnTimeline("s1", f"t{n}", (TimelineEvent("tool_result", "r", "x" * 3000),))])
        report = svc.prune()
        assert (report.events_turns, report.events_bytes) == (2, 6000)
        assert [len(svc.timeline(i)) for i in ids] == [0, 0, 1]
        assert len(svc.store.get(ids)) == 3  # the turns stay
    finally:
        svc.close()


def test_a_plugins_write_event_brings_its_events(service: MemoryService) -> None:
    event = HookEvent(
        EventKind.WRITE,
        "hermes",
        session_id="h1",
        turn_id="r1",
        prompt="run the tests",
        response="They pass.",
        events=(TimelineEvent("tool_call", "c1:call", json.dumps({"command": "pytest -q"}), "terminal", "c1"),),
    )
    service.handle(event)
    [hit] = service.search("pytest")
    assert [e.name for e in service.timeline(hit.record.id)] == ["terminal"]


def test_a_subagents_turn_is_a_session_naming_its_parent_never_recalled(service: MemoryService) -> None:
    _capture(service)
    sub = TurnTimeline("agent-1", "a1", _edit_turn(), parent_session_id="s1")
    assert service.add_timeline("claude", [sub]) == 5
    records = [r for r in service.export() if r.session_id == "agent-1"]
    assert [r.text for r in records] == ["Subagent of session s1"]
    assert not records[0].searchable
    assert len(service.timeline(records[0].id)) == 5


def test_events_of_a_turn_never_stored_are_not_kept(service: MemoryService) -> None:
    assert service.add_timeline("claude", [TurnTimeline("s9", "t9", _edit_turn())]) == 0
    assert service.counters().get("events.orphaned") == 5


def test_scrub_cleans_events_stored_before_a_rule_knew_the_secret(tmp_path: Path) -> None:
    off = MemoryService(_config(tmp_path, MEMORY_FIREWALL="0"))
    record_id = _capture(off)
    off.add_timeline("claude", [TurnTimeline("s1", "t1", _edit_turn(f"token {TOKEN}"))])
    assert TOKEN in off.timeline(record_id)[4].text
    off.close()
    svc = MemoryService(_config(tmp_path))
    try:
        assert svc.scrub().changed == 1
        events = svc.timeline(record_id)
        assert TOKEN not in events[4].text
        assert len(events) == 5
        assert svc.search("src/auth/session.ts")[0].record.id == record_id  # still found by what it touched
    finally:
        svc.close()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"file_path": "/r/src/a.py"}, ["/r/src/a.py", "a.py", "src/a.py", "r/src/a.py"]),
        ({"paths": ["lib/x.go"]}, ["lib/x.go", "x.go"]),
        ({"command": "cd web && FOO=1 npm test | tee out.log; sudo systemctl restart x"}, ["npm", "tee", "systemctl"]),
        ({"command": ["bash", "-lc", "pytest -q && git status"]}, ["pytest", "git"]),
        ({"cmd": ["rg", "-n", "foo"]}, ["rg"]),
        ({"input": "*** Begin Patch\n*** Update File: lib/a.py\n@@\n"}, ["lib/a.py", "a.py"]),
    ],
)
def test_what_a_call_touched(args: dict[str, object], expected: list[str]) -> None:
    assert touched([TimelineEvent("tool_call", "1", json.dumps(args), "Tool")]) == expected


def test_a_freeform_patch_names_its_files() -> None:
    patch = "*** Begin Patch\n*** Add File: docs/new.md\n+hi\n*** End Patch"
    assert touched([TimelineEvent("tool_call", "1", patch, "apply_patch")]) == ["docs/new.md", "new.md"]
