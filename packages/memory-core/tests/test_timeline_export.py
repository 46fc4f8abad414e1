"""A turn's timeline survives `memory export` / `memory restore`, as a user runs them: from the
embedded store into SQLite, Redis and PostgreSQL with the same events in the same order, stored
once however often the file is restored, through the firewall again (a hand-edited file smuggles
no secret in), and an export without events restoring as it always did."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.localstate.spool import record_from_json
from memory_core.models import TimelineEvent, TurnTimeline
from memory_core.service import MemoryService
from memory_testing.requirements import require
from memory_testing.servers import (
    drop_schema,
    flush_redis,
    local_postgres_available,
    new_schema_name,
    redis_server_available,
    throwaway_redis_url,
    with_schema,
)

PG_URL = "postgresql://127.0.0.1:5432/test?user=postgres"
PROJECT = "git:example.com/acme/web"
AWS_KEY = "AKIA" + "Q7RW2ZT5VN3KD8PX"  # key-shaped, in two pieces
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # built here so no scanner flags this file


def _env(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        {
            "HOME": str(tmp_path),
            "MEMORY_URL": url,
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": PROJECT,
            "MEMORY_USER": "alice",
            **extra,
        }
    )
    return env


def memory(tmp_path: Path, url: str, *args: str, check: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args],
        env=_env(tmp_path, url, **env),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _service(tmp_path: Path, url: str, **env: str) -> MemoryService:
    return MemoryService(Config.from_env(_env(tmp_path, url, **env)))


def _sqlite(tmp_path: Path, name: str) -> str:
    return f"sqlite:///{tmp_path / name}"


def _events() -> tuple[TimelineEvent, ...]:
    return (
        TimelineEvent("injected", "u0", "Memory: the login form lives in web/", "hook", at=1.5),
        TimelineEvent("tool_call", "u1", json.dumps({"file_path": "/home/a/web/src/auth/session.ts"}), "Edit", "c1"),
        TimelineEvent("tool_result", "u2", f"export AWS_ACCESS_KEY_ID={AWS_KEY}", "Edit", "c1"),
        TimelineEvent("tool_call", "u3", json.dumps({"command": "npm test"}), "Bash", "c2"),
        TimelineEvent("tool_result", "u4", "é" * 10_000, "Bash", "c2"),  # cut at 8 KiB when captured
    )


@pytest.fixture
def source(tmp_path: Path) -> tuple[str, list[str]]:
    """An embedded store with a turn and its events, a turn without any, and a subagent's turn."""
    url = _sqlite(tmp_path, "source.db")
    svc = _service(tmp_path, url)
    try:
        ids = []
        for turn in ("t1", "t2"):
            outcome = svc.capture(
                harness="claude",
                session_id="s1",
                turn_id=turn,
                prompt="the login keeps failing after a refresh",
                response="Fixed: the refresh token is now kept across reloads.",
            )
            assert outcome.record_id
            ids.append(outcome.record_id)
        assert svc.add_timeline("claude", [TurnTimeline("s1", "t1", _events())]) == 5
        sub = TurnTimeline("agent-1", "a1", _events()[:2], parent_session_id="s1")
        assert svc.add_timeline("claude", [sub]) == 2
        ids += [r.id for r in svc.export() if r.session_id == "agent-1"]
    finally:
        svc.close()
    return url, ids


def _timelines(tmp_path: Path, url: str, ids: list[str]) -> list[list[TimelineEvent]]:
    svc = _service(tmp_path, url)
    try:
        return [svc.timeline(record_id) for record_id in ids]
    finally:
        svc.close()


@pytest.fixture(params=["sqlite", "redis", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty store of each backend to restore into."""
    if request.param == "sqlite":
        yield _sqlite(tmp_path, "target.db")
    elif request.param == "redis":
        require(redis_server_available(), "redis-server (a throwaway Redis for the tests)")
        url = throwaway_redis_url(14)
        flush_redis(url)
        yield url
        flush_redis(url)
    else:
        require(local_postgres_available(PG_URL), "PostgreSQL on 127.0.0.1:5432 with a database `test`")
        schema = new_schema_name("memexport")
        yield with_schema(PG_URL, schema)
        drop_schema(PG_URL, schema)


def test_a_restored_store_shows_the_same_events_in_order_and_restoring_again_adds_none(
    tmp_path: Path, source: tuple[str, list[str]], target: str
) -> None:
    url, ids = source
    dump = tmp_path / "dump.jsonl"
    assert memory(tmp_path, url, "export", str(dump)).stdout.strip() == f"exported 3 records and 7 events to {dump}"
    restored = memory(tmp_path, target, "restore", str(dump)).stdout
    assert restored.strip() == "restored 3 records (0 already present) and 7 events"
    again = memory(tmp_path, target, "restore", str(dump)).stdout
    assert again.strip() == "restored 0 records (3 already present) and 0 events"

    before = _timelines(tmp_path, url, ids)
    after = _timelines(tmp_path, target, ids)
    assert after == before  # kinds, names, texts, call ids, times and order, the cut one included
    assert [len(events) for events in after] == [5, 0, 2]
    assert after[0][4].text.endswith("\n[truncated: 8192 of 20000 bytes]")
    # Exported again from the new store, the backup is the same one.
    copy = tmp_path / "copy.jsonl"
    memory(tmp_path, target, "export", str(copy))
    assert sorted(copy.read_text(encoding="utf-8").splitlines()) == sorted(
        dump.read_text(encoding="utf-8").splitlines()
    )
    svc = _service(tmp_path, target)
    try:
        assert [r.id for r in svc.expand(ids[0])] == ids[:2]
        # What the turn's calls touched still finds it on the new store.
        assert svc.search("which change touched src/auth/session.ts?")[0].record.id == ids[0]
    finally:
        svc.close()


def test_restoring_into_the_store_it_came_from_stores_nothing_twice(
    tmp_path: Path, source: tuple[str, list[str]]
) -> None:
    url, ids = source
    dump = tmp_path / "dump.jsonl"
    memory(tmp_path, url, "export", str(dump))
    restored = memory(tmp_path, url, "restore", str(dump)).stdout
    assert restored.strip() == "restored 0 records (3 already present) and 0 events"
    assert [len(events) for events in _timelines(tmp_path, url, ids)] == [5, 0, 2]


def test_an_export_without_events_is_the_old_format_and_restores_as_before(
    tmp_path: Path, source: tuple[str, list[str]]
) -> None:
    url, ids = source
    dump = tmp_path / "old.jsonl"
    assert memory(tmp_path, url, "export", "--no-events", str(dump)).stdout.strip() == (
        f"exported 3 records and 0 events to {dump}"
    )
    for line in dump.read_text(encoding="utf-8").splitlines():
        record_from_json(json.loads(line))  # what earlier versions of `memory restore` read
    target = _sqlite(tmp_path, "target.db")
    restored = memory(tmp_path, target, "restore", str(dump)).stdout
    assert restored.strip() == "restored 3 records (0 already present) and 0 events"
    assert _timelines(tmp_path, target, ids) == [[], [], []]


def test_a_secret_planted_in_an_exported_event_is_redacted_on_restore(
    tmp_path: Path, source: tuple[str, list[str]]
) -> None:
    url, ids = source
    dump = tmp_path / "dump.jsonl"
    memory(tmp_path, url, "export", str(dump))
    lines = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    turn = next(line for line in lines if line["id"] == ids[0])
    turn["events"][2]["text"] = f"export GITHUB_TOKEN={TOKEN}"
    turn["events"].append(
        {"kind": "tool_result", "event_id": f"by hand {TOKEN}", "text": f"key {AWS_KEY}", "name": f"Bash {TOKEN}"}
    )
    dump.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    target = _sqlite(tmp_path, "target.db")
    restored = memory(tmp_path, target, "restore", str(dump)).stdout
    assert restored.strip() == "restored 3 records (0 already present) and 8 events"
    events = _timelines(tmp_path, target, ids)[0]
    assert "[REDACTED:github-token]" in events[2].text
    assert all(TOKEN not in e.text + e.name + e.event_id and AWS_KEY not in e.text for e in events)
    assert all(re.fullmatch(r"[0-9a-f]{24}", e.event_id) for e in events)  # a hand-made id is kept as a digest
    for path in tmp_path.glob("target.db*"):
        data = path.read_bytes()
        assert TOKEN.encode() not in data, path
        assert AWS_KEY.encode() not in data, path


def test_events_off_restores_the_turns_and_says_it_left_their_events_out(
    tmp_path: Path, source: tuple[str, list[str]]
) -> None:
    url, ids = source
    dump = tmp_path / "dump.jsonl"
    memory(tmp_path, url, "export", str(dump))
    target = _sqlite(tmp_path, "target.db")
    restored = memory(tmp_path, target, "restore", str(dump), MEMORY_EVENTS="0").stdout
    assert restored.splitlines() == [
        "restored 3 records (0 already present) and 0 events",
        "left out 7 events: MEMORY_EVENTS=0 keeps no events",
    ]
    assert _timelines(tmp_path, target, ids) == [[], [], []]


def test_a_malformed_event_names_its_line(tmp_path: Path, source: tuple[str, list[str]]) -> None:
    url, ids = source
    dump = tmp_path / "dump.jsonl"
    memory(tmp_path, url, "export", str(dump))
    lines = dump.read_text(encoding="utf-8").splitlines()
    number = next(n for n, line in enumerate(lines, 1) if json.loads(line)["id"] == ids[0])
    lines[number - 1] = lines[number - 1].replace('"kind": "tool_call"', '"kind": "telepathy"', 1)
    dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = memory(tmp_path, _sqlite(tmp_path, "target.db"), "restore", str(dump), check=False)
    assert done.returncode != 0
    assert f"{dump}:{number}: not a record written by export (unknown event kind 'telepathy')" in done.stderr
    assert "Traceback" not in done.stderr
