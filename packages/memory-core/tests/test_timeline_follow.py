"""The worker reading a session's transcript after each turn's capture: from where it left off,
each event once whatever happens to the offset, and a broken transcript costing events, never turns.

A one-event-per-line transcript format (a real `ReadsTimeline`, just a simple one) exercises what
every harness's reader shares; the Claude Code and Codex formats are tested in their packages.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.harnesses.importing import run_import
from memory_core.harnesses.transcripts import Consumed, TranscriptTurn
from memory_core.hookpath.transcripts import TranscriptFollower
from memory_core.models import EventKind, HookEvent, TimelineChunk, TimelineEvent, TurnTimeline
from memory_core.service import MemoryService
from memory_core.timeline import follow


class LineTimeline:
    """`ReadsTimeline` over lines {"turn", "id", "kind", "text", "name"}; a hook adapter's name too."""

    name = "lines"

    def __init__(self) -> None:
        self.reads: list[int] = []
        self.fail = False

    def parse(self, payload: object) -> HookEvent:  # the HookAdapter half, unused here
        raise NotImplementedError

    def render(self, event: HookEvent, recall: object) -> str:
        return ""

    def timeline(self, transcript_path: Path, offset: int) -> TimelineChunk:
        if self.fail:
            raise ValueError("the reader broke")
        data = transcript_path.read_bytes()
        if offset > len(data):
            offset = 0
        self.reads.append(offset)
        turns: dict[str, list[TimelineEvent]] = {}
        end = offset
        for line in data[offset:].splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break  # still being written
            end += len(line)
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if "id" not in obj:
                continue  # a turn's own line (prompt and answer), read by the import's source
            turns.setdefault(obj["turn"], []).append(
                TimelineEvent(obj["kind"], obj["id"], obj["text"], obj.get("name", ""))
            )
        return TimelineChunk(tuple(TurnTimeline("s1", t, tuple(e)) for t, e in turns.items()), end)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MemoryService]:
    config = Config.from_env(
        {
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "git:example.com/acme/web",
            "MEMORY_USER": "alice",
        }
    )
    svc = MemoryService(config, long_lived=True)
    yield svc
    svc.close()


def _line(turn: str, event_id: str, text: str, kind: str = "tool_result") -> str:
    return json.dumps({"turn": turn, "id": event_id, "kind": kind, "text": text, "name": "Bash"}) + "\n"


def _turn(svc: MemoryService, turn: str, transcript: Path) -> HookEvent:
    svc.capture(harness="lines", session_id="s1", turn_id=turn, prompt=f"prompt {turn}", response=f"answer {turn}")
    return HookEvent(EventKind.WRITE, "lines", "s1", turn, transcript_path=str(transcript))


def _events(svc: MemoryService, turn: str) -> list[str]:
    """The transcript's ids of a turn's stored events, in order (the store keeps their digests)."""
    from memory_core.ids import turn_record_id
    from memory_core.timeline.prepare import key

    named = {key(i): i for i in ("a", "b", "c", "z", "new")}
    return [named[e.event_id] for e in svc.timeline(turn_record_id("lines", "s1", turn))]


def test_each_turn_reads_only_what_the_transcript_gained(service: MemoryService, tmp_path: Path) -> None:
    transcript = tmp_path / "s1.jsonl"
    reader, follower = LineTimeline(), TranscriptFollower()
    transcript.write_text(_line("t1", "a", "one") + _line("t1", "b", "two"))
    assert follower.follow(service, reader, _turn(service, "t1", transcript)) == 2
    with transcript.open("a") as out:
        out.write(_line("t2", "c", "three"))
    assert follower.follow(service, reader, _turn(service, "t2", transcript)) == 1
    assert reader.reads == [0, len(_line("t1", "a", "one") + _line("t1", "b", "two"))]
    assert (_events(service, "t1"), _events(service, "t2")) == (["a", "b"], ["c"])


def test_a_lost_offset_costs_a_re_read_never_a_second_copy(service: MemoryService, tmp_path: Path) -> None:
    transcript = tmp_path / "s1.jsonl"
    reader, follower = LineTimeline(), TranscriptFollower()
    transcript.write_text(_line("t1", "a", "one"))
    follower.follow(service, reader, _turn(service, "t1", transcript))
    for mark in (tmp_path / "state" / "timeline").iterdir():
        mark.write_text("{not json")
    with transcript.open("a") as out:
        out.write(_line("t1", "b", "two"))
    follower.follow(service, reader, _turn(service, "t1", transcript))
    assert reader.reads[-1] == 0
    assert _events(service, "t1") == ["a", "b"]


def test_a_replaced_transcript_is_read_from_its_start(service: MemoryService, tmp_path: Path) -> None:
    transcript = tmp_path / "s1.jsonl"
    reader, follower = LineTimeline(), TranscriptFollower()
    transcript.write_text(_line("t1", "a", "one" * 50))
    follower.follow(service, reader, _turn(service, "t1", transcript))
    replacement = tmp_path / "new.jsonl"
    replacement.write_text(_line("t2", "z", "short"))
    replacement.replace(transcript)
    follower.follow(service, reader, _turn(service, "t2", transcript))
    assert _events(service, "t2") == ["z"]


def test_a_line_still_being_written_waits_for_the_next_read(service: MemoryService, tmp_path: Path) -> None:
    transcript = tmp_path / "s1.jsonl"
    reader, follower = LineTimeline(), TranscriptFollower()
    whole = _line("t1", "b", "two")
    transcript.write_text(_line("t1", "a", "one") + whole[:10])
    follower.follow(service, reader, _turn(service, "t1", transcript))
    assert _events(service, "t1") == ["a"]
    with transcript.open("a") as out:
        out.write(whole[10:] + "{malformed\n")
    follower.follow(service, reader, _turn(service, "t1", transcript))
    assert _events(service, "t1") == ["a", "b"]


@pytest.mark.parametrize("trouble", ["missing", "reader fails", "store down"])
def test_a_broken_transcript_or_store_costs_the_events_never_the_turn(
    service: MemoryService, tmp_path: Path, trouble: str
) -> None:
    transcript = tmp_path / "s1.jsonl"
    reader, follower = LineTimeline(), TranscriptFollower()
    event = _turn(service, "t1", transcript)
    if trouble != "missing":
        transcript.write_text(_line("t1", "a", "one"))
    if trouble == "reader fails":
        reader.fail = True
    if trouble == "store down":
        service._down_until = time.time() + 60  # what an outage leaves behind
    assert follower.follow(service, reader, event) == 0
    # A broken reader or store is a failure `memory doctor` shows; a missing file only a log line.
    assert ("lines.transcript" in service.logbook.failures()) == (trouble != "missing")
    service._down_until = 0.0
    assert service.search("answer")  # the turn is there
    # The offset did not move: once the trouble is gone the events come.
    reader.fail = False
    transcript.write_text(_line("t1", "a", "one"))
    assert follower.follow(service, reader, event) == 1


def test_a_huge_unread_transcript_is_skipped_to_its_end(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow, "MAX_UNREAD_BYTES", 100)
    transcript = tmp_path / "s1.jsonl"
    reader, follower = LineTimeline(), TranscriptFollower()
    transcript.write_text("".join(_line("t1", f"e{n}", "x" * 20) for n in range(10)))
    assert follower.follow(service, reader, _turn(service, "t1", transcript)) == 0
    assert reader.reads == []
    with transcript.open("a") as out:
        out.write(_line("t2", "new", "after"))
    follower.follow(service, reader, _turn(service, "t2", transcript))
    assert _events(service, "t2") == ["new"]


def test_events_off_reads_nothing(tmp_path: Path) -> None:
    config = Config.from_env(
        {
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "p",
            "MEMORY_EVENTS": "0",
        }
    )
    svc = MemoryService(config)
    try:
        transcript = tmp_path / "s1.jsonl"
        transcript.write_text(_line("t1", "a", "one"))
        reader = LineTimeline()
        assert TranscriptFollower().follow(svc, reader, _turn(svc, "t1", transcript)) == 0
        assert reader.reads == []
    finally:
        svc.close()


class LineSource:
    """A `TranscriptSource` over the same file: lines with a "prompt" are turns (ending their turn)."""

    harness = "lines"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find(self, session: str | None = None) -> list[Path]:
        return sorted(self.folder.glob("*.jsonl"))

    def parse(self, path: Path, start: int, *, settled: bool) -> Iterator[TranscriptTurn | Consumed]:
        end = start
        for line in path.read_bytes()[start:].splitlines(keepends=True):
            end += len(line)
            obj = json.loads(line)
            if "prompt" in obj:
                yield TranscriptTurn("s1", obj["turn"], obj["prompt"], obj["response"], None, None, end)
            else:
                yield Consumed(end)


def test_an_import_brings_the_events_and_after_the_hook_stores_nothing_twice(
    service: MemoryService, tmp_path: Path
) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    transcript = folder / "s1.jsonl"
    turn = json.dumps({"turn": "t1", "prompt": "prompt t1", "response": "answer t1"}) + "\n"
    transcript.write_text(_line("t1", "a", "one") + _line("t1", "b", "two") + turn)
    reader = LineTimeline()
    # The hook captured the turn and the worker read the first event only.
    transcript_now = transcript.read_text()
    transcript.write_text(_line("t1", "a", "one"))
    TranscriptFollower().follow(service, reader, _turn(service, "t1", transcript))
    transcript.write_text(transcript_now)
    report = run_import(service, LineSource(folder), [transcript], timeline=reader)
    assert (report.stored, report.duplicates, report.events, report.events_lost) == (0, 1, 1, 0)
    assert _events(service, "t1") == ["a", "b"]
    again = run_import(service, LineSource(folder), [transcript], from_start=True, timeline=reader)
    assert (again.duplicates, again.events) == (1, 0)


def test_an_import_with_events_off_reads_no_timeline(tmp_path: Path) -> None:
    config = Config.from_env(
        {
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "p",
            "MEMORY_EVENTS": "0",
        }
    )
    svc = MemoryService(config)
    try:
        transcript = tmp_path / "s1.jsonl"
        turn = json.dumps({"turn": "t1", "prompt": "p", "response": "r"}) + "\n"
        transcript.write_text(_line("t1", "a", "one") + turn)
        reader = LineTimeline()
        report = run_import(svc, LineSource(tmp_path), [transcript], timeline=reader)
        assert (report.stored, report.events, reader.reads) == (1, 0, [])
    finally:
        svc.close()
