"""The worker keeps a turn's timeline from the transcript the write hook names, after answering it.

Real hook processes and a real worker, with a one-event-per-line transcript format: the adapter
of this suite reads timelines itself (`ReadsTimeline`), as a harness package's may.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.hookpath.client import socket_path, worker_environment
from memory_core.hookpath.worker import stop_worker
from memory_core.ids import turn_record_id
from memory_core.service import MemoryService
from memory_testing.faults import hook_package

ADAPTER = """
import json
from pathlib import Path
from memory_core.models import EventKind, HookEvent, TimelineChunk, TimelineEvent, TurnTimeline

class Hooks:
    name = "lineharness"

    def parse(self, payload):
        kind = EventKind.READ if payload["event"] == "read" else EventKind.WRITE
        return HookEvent(kind, self.name, payload["session"], payload["turn"], prompt=payload.get("prompt"),
                         response=payload.get("answer"), transcript_path=payload.get("transcript"))

    def render(self, event, recall):
        return json.dumps({"context": recall.text}) if recall.text else ""

    def timeline(self, transcript_path, offset):
        data = Path(transcript_path).read_bytes()
        offset = 0 if offset > len(data) else offset
        turns, end = {}, offset
        for line in data[offset:].splitlines(keepends=True):
            if not line.endswith(b"\\n"):
                break
            end += len(line)
            obj = json.loads(line)
            turns.setdefault((obj["session"], obj["turn"]), []).append(
                TimelineEvent(obj["kind"], obj["id"], obj["text"], obj["name"], obj.get("call", "")))
        return TimelineChunk(tuple(TurnTimeline(s, t, tuple(e)) for (s, t), e in turns.items()), end)
"""

SECRET = "AKIA" + "Q7RW2ZT5VN3KD8PX"  # key-shaped, in two pieces (AWS's ...EXAMPLE key is kept)


@pytest.fixture
def hook_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    packages = hook_package(tmp_path / "pkg", "lineharness", ADAPTER)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        {
            "PYTHONPATH": str(packages),
            "XDG_RUNTIME_DIR": str(runtime),
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_LOG": str(tmp_path / "state" / "memory.log"),
            "MEMORY_PROJECT": "git:example.com/acme/timeline",
            "MEMORY_WORKER_IDLE": "30",
        }
    )
    yield env
    stop_worker(socket_path(worker_environment(env), env))


def _hook(env: dict[str, str], payload: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memory_lineharness.hook"],
        input=json.dumps(payload).encode(),
        env=env,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0


def _line(turn: str, event_id: str, kind: str, name: str, text: str) -> str:
    obj = {"session": "s1", "turn": turn, "id": event_id, "kind": kind, "name": name, "text": text, "call": "c" + turn}
    return json.dumps(obj) + "\n"


def _settled(env: dict[str, str]) -> None:
    """Wait for the worker's work after the last write hook: it answers one request at a time, so
    once the next hook has its answer, the transcript read before it is done."""
    _hook(env, {"event": "read", "session": "other", "turn": "x", "prompt": "nothing"})


def _events(env: dict[str, str], turn: str, *, at_least: int = 0) -> list[str]:
    """The turn's stored events, waiting up to 10 s for `at_least` of them: the worker reads the
    transcript after answering, beside the model's background work, so they may land a moment later."""
    deadline = time.monotonic() + 10
    while True:
        service = MemoryService(Config.from_env(env))
        try:
            found = [e.text for e in service.timeline(turn_record_id("lineharness", "s1", turn))]
        finally:
            service.close()
        if len(found) >= at_least or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_the_worker_keeps_each_turns_events_firewalled_and_never_twice(
    hook_env: dict[str, str], tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    transcript.write_text("")
    path = socket_path(worker_environment(hook_env), hook_env)
    for n, turn in enumerate(("t1", "t2", "t3")):
        with transcript.open("a") as out:
            out.write(_line(turn, f"{turn}-call", "tool_call", "Bash", '{"command": "make migrate"}'))
            out.write(_line(turn, f"{turn}-out", "tool_result", "Bash", f"migrated {n}; key {SECRET}"))
        _hook(hook_env, {"event": "read", "session": "s1", "turn": turn, "prompt": f"run the migration {n}"})
        _hook(
            hook_env,
            {"event": "write", "session": "s1", "turn": turn, "answer": "It ran.", "transcript": str(transcript)},
        )
        if n == 0:  # the first turn is handled in the hook and starts the worker; its events come later
            deadline = time.monotonic() + 20
            while not os.path.exists(path) and time.monotonic() < deadline:
                time.sleep(0.05)
    _settled(hook_env)
    for turn, n in (("t1", 0), ("t2", 1), ("t3", 2)):
        events = _events(hook_env, turn, at_least=2)
        assert events, turn
        assert events[0] == '{"command": "make migrate"}'
        assert events[1].startswith(f"migrated {n}; key [REDACTED:")
    # A re-read from the start (the offset lost) stores nothing twice.
    for mark in (tmp_path / "state" / "timeline").iterdir():
        mark.unlink()
    _hook(
        hook_env, {"event": "write", "session": "s1", "turn": "t3", "answer": "It ran.", "transcript": str(transcript)}
    )
    _settled(hook_env)
    marks, deadline = tmp_path / "state" / "timeline", time.monotonic() + 10
    while not any(marks.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)  # the re-read is done once its offset is written again
    assert any(marks.iterdir()), "the worker read the transcript again"
    assert [len(_events(hook_env, turn)) for turn in ("t1", "t2", "t3")] == [2, 2, 2]
    for file in tmp_path.rglob("*"):
        if file.is_file() and file != transcript:
            assert SECRET.encode() not in file.read_bytes(), file
