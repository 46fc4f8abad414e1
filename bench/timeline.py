"""A turn's timeline: what keeping it costs in time and in bytes.

    python bench/timeline.py [--entries 5000] [--tool-calls 20] [--json]

Writes a Claude Code session file of about `--entries` lines: turns of a prompt, `--tool-calls`
tool calls (Read, Edit, Bash, Grep) each with its result (a few hundred bytes; one 20 KB build log
per turn, over the 8 KiB cap), and a final answer, as Claude Code writes them. Then, on a
throwaway embedded store:

- `follow_whole_s`: the worker's read of the whole file at once (a resumed session met for the
  first time), firewall and cap and store included: the bound on capturing a long transcript;
- `follow_turn_p50_ms` / `_p95_ms`: the worker's read after each turn, the file growing turn by
  turn as a live session's does (the cost the worker pays after each write hook, off its clock);
- `bytes_per_turn_events` / `bytes_per_turn_no_events`: the database file per turn (after a
  checkpoint and VACUUM) with events kept and with `MEMORY_EVENTS=0`; `event_text_per_turn`:
  the events' own text as stored.

Needs memory-claude with its transcript reader (`ReadsTimeline`) installed.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memory_core.config import Config
from memory_core.harnesses.contract import ReadsTimeline, discover_harnesses
from memory_core.hookpath.transcripts import TranscriptFollower
from memory_core.models import EventKind, HookEvent
from memory_core.service import MemoryService

_BUILD_LOG_BYTES = 20_000
"""One result per turn longer than the cap, as a build or a test run prints."""


def claude_turn_lines(session: str, prompt_id: str, n: int, tool_calls: int) -> list[dict[str, Any]]:
    """The transcript lines of one Claude Code turn with `tool_calls` calls and their results."""
    base: dict[str, Any] = {"sessionId": session, "cwd": "/home/dev/project", "timestamp": "2026-11-30T04:32:29Z"}
    lines: list[dict[str, Any]] = [
        base
        | {
            "type": "user",
            "uuid": f"{prompt_id}-u",
            "promptId": prompt_id,
            "message": {"role": "user", "content": f"question {n}: why does module_{n} fail its retry test?"},
        }
    ]
    for c in range(tool_calls):
        call_id = f"toolu_{prompt_id}_{c}"
        kind = c % 4
        if kind == 0:
            name, args = "Read", {"file_path": f"/home/dev/project/src/module_{n}/retry_{c}.py"}
            output = "\n".join(f"{i:4d}  def retry_{i}(attempt): return backoff(attempt) * {i}" for i in range(12))
        elif kind == 1:
            name, args = "Edit", {"file_path": f"/home/dev/project/src/module_{n}/retry_{c}.py", "old_string": "a"}
            output = "The file has been updated."
        elif kind == 2:
            name, args = "Bash", {"command": f"cd /home/dev/project && pytest -q tests/test_module_{n}.py | tail -20"}
            output = "x" * _BUILD_LOG_BYTES if c == 2 else "..........F\n1 failed, 10 passed in 0.42s"
        else:
            name, args = "Grep", {"pattern": f"retry_{c}", "path": "src/"}
            output = "\n".join(f"src/module_{n}/retry_{c}.py:{i}: retry_{c}" for i in range(8))
        reply = {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": name, "input": args}]}
        lines.append(
            base | {"type": "assistant", "uuid": f"{call_id}-a", "message": reply | {"stop_reason": "tool_use"}}
        )
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": output}]}
        lines.append(base | {"type": "user", "uuid": f"{call_id}-r", "promptId": prompt_id, "message": result})
    answer = {"role": "assistant", "content": [{"type": "text", "text": f"module_{n} now retries with backoff."}]}
    lines.append(
        base | {"type": "assistant", "uuid": f"{prompt_id}-a", "message": answer | {"stop_reason": "end_turn"}}
    )
    return lines


def _append(path: Path, lines: list[dict[str, Any]]) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.writelines(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


def _service(folder: Path, *, events: bool) -> MemoryService:
    env = {
        "MEMORY_URL": f"sqlite:///{folder / 'memory.db'}",
        "MEMORY_STATE_DIR": str(folder / "state"),
        "MEMORY_PROJECT": "bench:timeline",
        "MEMORY_USER": "bench",
        "MEMORY_EVENTS": "1" if events else "0",
    }
    folder.mkdir(parents=True)
    return MemoryService(Config.from_env(env), long_lived=True)


def _run(folder: Path, reader: Any, turns: int, tool_calls: int, *, events: bool) -> dict[str, Any]:
    """Capture `turns` turns as the hooks would, the worker following the transcript after each."""
    svc = _service(folder, events=events)
    transcript = folder / "session.jsonl"
    transcript.touch()
    follower, times = TranscriptFollower(), []
    for n in range(turns):
        prompt_id = f"p{n:06d}"
        _append(transcript, claude_turn_lines("s1", prompt_id, n, tool_calls))
        svc.capture(
            harness="claude",
            session_id="s1",
            turn_id=prompt_id,
            prompt=f"question {n}: why does module_{n} fail its retry test?",
            response=f"module_{n} now retries with backoff.",
        )
        event = HookEvent(EventKind.WRITE, "claude", "s1", prompt_id, transcript_path=str(transcript))
        began = time.perf_counter()
        follower.follow(svc, reader, event)
        times.append(time.perf_counter() - began)
    event_text = 0
    if events:
        for record in svc.export():
            event_text += sum(len(e.text.encode()) for e in svc.timeline(record.id))
    svc.close()
    with sqlite3.connect(folder / "memory.db") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
    size = (folder / "memory.db").stat().st_size
    return {"times": times, "bytes_per_turn": size / turns, "event_text_per_turn": event_text / turns}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--tool-calls", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    found: object = discover_harnesses()[0].get("claude")
    if not isinstance(found, ReadsTimeline):
        print("memory-claude with a transcript reader is not installed", file=sys.stderr)
        return 1
    harness: Any = found  # the hook adapter and its transcript reader, in one object
    per_turn = 2 + 2 * args.tool_calls
    turns = max(1, args.entries // per_turn)
    with tempfile.TemporaryDirectory(prefix="bench-timeline-") as tmp:
        root = Path(tmp)
        kept = _run(root / "events", harness, turns, args.tool_calls, events=True)
        bare = _run(root / "bare", harness, turns, args.tool_calls, events=False)
        # The whole file at once: a fresh store, nothing read yet.
        svc = _service(root / "whole", events=True)
        transcript = root / "events" / "session.jsonl"
        for n in range(turns):
            svc.capture(harness="claude", session_id="s1", turn_id=f"p{n:06d}", prompt=f"q {n}", response=f"a {n}")
        event = HookEvent(EventKind.WRITE, "claude", "s1", "x", transcript_path=str(transcript))
        began = time.perf_counter()
        stored = TranscriptFollower().follow(svc, harness, event)
        whole_s = time.perf_counter() - began
        svc.close()
        entries = sum(1 for _ in transcript.open(encoding="utf-8"))
        megabytes = transcript.stat().st_size / 1e6
    times = sorted(kept["times"])
    figures = {
        "entries": entries,
        "turns": turns,
        "tool_calls_per_turn": args.tool_calls,
        "transcript_mb": round(megabytes, 2),
        "follow_whole_s": round(whole_s, 3),
        "follow_whole_events": stored,
        "follow_turn_p50_ms": round(statistics.median(times) * 1000, 2),
        "follow_turn_p95_ms": round(times[min(len(times) - 1, round(0.95 * (len(times) - 1)))] * 1000, 2),
        "bytes_per_turn_events": round(kept["bytes_per_turn"]),
        "bytes_per_turn_no_events": round(bare["bytes_per_turn"]),
        "event_text_per_turn": round(kept["event_text_per_turn"]),
    }
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        for key, value in figures.items():
            print(f"{key:26} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
