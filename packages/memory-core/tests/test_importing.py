"""Transcript import machinery: offsets, partial lines, the atomic state, outages, locking.

The harness formats are tested in memory-claude and memory-codex on recorded transcripts;
here a one-turn-per-line format (a real `TranscriptSource`, just a simple one) exercises
the promises every harness shares, over a real embedded store.
"""

from __future__ import annotations

import io
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.cli.importing import ProgressBar
from memory_core.config import Config
from memory_core.harnesses.importing import (
    Consumed,
    ImportBusy,
    TranscriptTurn,
    _only_import,
    json_lines,
    load_state,
    parse_timestamp,
    run_import,
    state_path,
    strip_injected,
)
from memory_core.retrieval.render import HEADER
from memory_core.service import MemoryService, turn_record_id


class LineTurns:
    """A transcript format with one turn per line: {"session", "turn", "prompt", "response"}."""

    harness = "lines"

    def __init__(self, folder: Path, fail_at: str | None = None) -> None:
        self.folder = folder
        self.fail_at = fail_at
        self.parsed_from: list[int] = []

    def find(self, session: str | None = None) -> list[Path]:
        return sorted(self.folder.glob(f"{session or '*'}.jsonl"))

    def parse(self, path: Path, start: int, *, settled: bool) -> Iterator[TranscriptTurn | Consumed]:
        self.parsed_from.append(start)
        for line, obj in json_lines(path, start, (b"turn",)):
            if obj is None:
                yield Consumed(line.end)
                continue
            if obj["turn"] == self.fail_at:
                raise RuntimeError("the parser broke here")
            yield TranscriptTurn(
                session_id=obj["session"],
                turn_id=obj["turn"],
                prompt=obj["prompt"],
                response=obj["response"],
                cwd=None,
                created_at=obj.get("at"),
                end=line.end,
            )


def _line(turn: str, session: str = "s1", prompt: str | None = None) -> str:
    body = {
        "session": session,
        "turn": turn,
        "prompt": prompt or f"how does step {turn} of the deploy pipeline work?",
        "response": f"Step {turn} uploads the wheel and tags the release.",
        "at": 1_700_000_000.0,
    }
    return json.dumps(body) + "\n"


def _config(tmp_path: Path, **env: str) -> Config:
    base = {
        "HOME": str(tmp_path),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/deploy",
        "MEMORY_USER": "alice",
    }
    base.update(env)
    return Config.from_env(base)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MemoryService]:
    svc = MemoryService(_config(tmp_path), long_lived=True)
    yield svc
    svc.store.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "transcripts"
    path.mkdir()
    return path


def _offset(service: MemoryService, path: Path) -> int | None:
    entry = load_state(state_path(service, "lines")).get(str(path.absolute()))
    return None if entry is None else int(entry["offset"])


def _turns(service: MemoryService) -> list[str]:
    return sorted(r.turn_id or "" for r in service.store.scan(service.scopes(kind="project")))


def test_a_second_run_reads_only_what_was_added(service: MemoryService, folder: Path) -> None:
    path = folder / "s1.jsonl"
    path.write_text(_line("1") + _line("2"))
    source = LineTurns(folder)
    first = run_import(service, source, source.find())
    assert (first.stored, first.duplicates) == (2, 0)
    assert _offset(service, path) == path.stat().st_size

    with path.open("a") as handle:
        handle.write(_line("3"))
    second = run_import(service, source, source.find())
    assert (second.stored, second.duplicates) == (1, 0)
    assert source.parsed_from[-1] == len(_line("1") + _line("2"))
    third = run_import(service, source, source.find())
    assert (third.stored, third.files_read) == (0, 0)
    assert _turns(service) == ["1", "2", "3"]


def test_a_line_still_being_written_is_never_read(service: MemoryService, folder: Path) -> None:
    path = folder / "s1.jsonl"
    complete = _line("1")
    half = _line("2")[:40]
    path.write_text(complete + half)
    source = LineTurns(folder)
    report = run_import(service, source, source.find())
    assert report.stored == 1
    assert _offset(service, path) == len(complete)

    path.write_text(complete + _line("2"))
    assert run_import(service, source, source.find()).stored == 1
    assert _turns(service) == ["1", "2"]


def test_imported_turns_get_the_hook_record_id_and_their_own_time(service: MemoryService, folder: Path) -> None:
    (folder / "s1.jsonl").write_text(_line("7"))
    source = LineTurns(folder)
    run_import(service, source, source.find())
    (record,) = service.store.get([turn_record_id("lines", "s1", "7")])
    assert record.created_at == 1_700_000_000.0
    assert record.text.startswith("User: how does step 7")


def test_all_reads_again_from_the_start_and_stores_nothing_twice(service: MemoryService, folder: Path) -> None:
    (folder / "s1.jsonl").write_text(_line("1") + _line("2"))
    source = LineTurns(folder)
    run_import(service, source, source.find())
    again = run_import(service, source, source.find(), from_start=True)
    assert (again.stored, again.duplicates) == (0, 2)
    assert _turns(service) == ["1", "2"]


def test_a_replaced_file_is_read_from_its_start(service: MemoryService, folder: Path) -> None:
    path = folder / "s1.jsonl"
    path.write_text(_line("1") + _line("2") + _line("3"))
    source = LineTurns(folder)
    run_import(service, source, source.find())
    path.unlink()
    path.write_text(_line("4"))  # shorter than the stored offset: a new file under the old name
    report = run_import(service, source, source.find())
    assert report.stored == 1
    assert _turns(service) == ["1", "2", "3", "4"]


def test_a_failure_mid_file_keeps_only_confirmed_progress(service: MemoryService, folder: Path) -> None:
    path = folder / "s1.jsonl"
    path.write_text("".join(_line(str(n)) for n in range(1, 6)))
    broken = LineTurns(folder, fail_at="4")
    with pytest.raises(RuntimeError):
        run_import(service, broken, broken.find())
    state = state_path(service, "lines")
    # The state file is whole JSON (written through a temp file and os.replace), and no temp is left.
    json.loads(state.read_text())
    assert [p.name for p in state.parent.iterdir() if p.name.endswith(".tmp")] == []
    saved = _offset(service, path)
    assert saved is None or saved <= 3 * len(_line("1"))

    fixed = LineTurns(folder)
    report = run_import(service, fixed, fixed.find())
    assert report.stored == 2
    assert _turns(service) == ["1", "2", "3", "4", "5"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_store_stops_the_run_before_the_turn_it_could_not_store(tmp_path: Path, folder: Path) -> None:
    config = _config(tmp_path, MEMORY_URL=f"redis://127.0.0.1:{_closed_port()}/5", MEMORY_TIMEOUT="0.2")
    down = MemoryService(config, long_lived=True)
    path = folder / "s1.jsonl"
    path.write_text(_line("1") + _line("2"))
    source = LineTurns(folder)
    report = run_import(down, source, source.find())
    assert report.stored == 0
    assert "unreachable" in report.stopped
    assert _offset(down, path) in (None, 0)


def test_offsets_are_kept_per_store(service: MemoryService, tmp_path: Path, folder: Path) -> None:
    (folder / "s1.jsonl").write_text(_line("1"))
    source = LineTurns(folder)
    run_import(service, source, source.find())
    other = MemoryService(_config(tmp_path, MEMORY_URL=f"sqlite:///{tmp_path / 'other.db'}"), long_lived=True)
    assert run_import(other, source, source.find()).stored == 1
    other.store.close()


def test_a_second_import_at_the_same_time_is_refused(service: MemoryService, folder: Path) -> None:
    (folder / "s1.jsonl").write_text(_line("1"))
    source = LineTurns(folder)
    with _only_import(state_path(service, "lines")), pytest.raises(ImportBusy):
        run_import(service, source, source.find())
    assert run_import(service, source, source.find()).stored == 1


def test_a_nomemory_turn_is_dropped_and_passed(service: MemoryService, folder: Path) -> None:
    path = folder / "s1.jsonl"
    path.write_text(_line("1", prompt="the staging password is hunter2 #nomemory") + _line("2"))
    source = LineTurns(folder)
    report = run_import(service, source, source.find())
    assert (report.stored, report.dropped) == (1, 1)
    assert report.drop_reasons == {"#nomemory": 1}
    assert _offset(service, path) == path.stat().st_size
    assert _turns(service) == ["2"]


def test_strip_injected_removes_what_harnesses_and_we_added() -> None:
    recalled = f"{HEADER}\n- [t123] 2026-11-01: User: old question Assistant: old answer\n- [n9] 2026-11-02: a note"
    text = (
        "<system-reminder>\nUserPromptSubmit hook additional context: "
        f"{recalled}\n</system-reminder>\nwhy does the deploy fail?"
    )
    assert strip_injected(text) == "why does the deploy fail?"
    assert strip_injected(f"why does the deploy fail?\n\n{recalled}") == "why does the deploy fail?"
    assert strip_injected(f"UserPromptSubmit hook additional context: {recalled}\nnext words") == "next words"
    assert strip_injected("- [x] a markdown checklist the user typed") == "- [x] a markdown checklist the user typed"


def test_parse_timestamp_reads_what_transcripts_hold() -> None:
    assert parse_timestamp("2026-11-30T04:32:29.691Z") == pytest.approx(1796013149.691)
    assert parse_timestamp(1796013715) == 1796013715.0
    assert parse_timestamp("yesterday") is None
    assert parse_timestamp(True) is None


class _Terminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_the_progress_bar_draws_only_on_a_terminal() -> None:
    quiet = _Terminal(tty=False)
    bar = ProgressBar("claude:", quiet)
    bar(10, 100, 1)
    bar.close()
    assert quiet.getvalue() == ""

    loud = _Terminal(tty=True)
    bar = ProgressBar("claude:", loud)
    bar(50, 100, 3)
    bar(100, 100, 7)
    bar.close()
    shown = loud.getvalue()
    assert "\r" in shown
    assert shown.endswith("\n")
    assert "100%" in shown
    assert "7 stored" in shown


def test_state_files_are_private(service: MemoryService, folder: Path) -> None:
    (folder / "s1.jsonl").write_text(_line("1"))
    source = LineTurns(folder)
    run_import(service, source, source.find())
    mode = os.stat(state_path(service, "lines")).st_mode & 0o777
    assert mode == 0o600


def test_a_crash_while_saving_leaves_the_previous_state_whole(
    service: MemoryService, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / "s1.jsonl"
    path.write_text(_line("1"))
    source = LineTurns(folder)
    run_import(service, source, source.find())
    state = state_path(service, "lines")
    before = state.read_bytes()

    with path.open("a") as handle:
        handle.write(_line("2"))

    def power_cut(src: object, dst: object) -> None:
        raise OSError("power cut between the temp file and the rename")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(OSError, match="power cut"):
        run_import(service, source, source.find())
    monkeypatch.undo()
    assert state.read_bytes() == before
    # Turn 2 reached the store but not the state: the next run reads it again and stores nothing twice.
    report = run_import(service, source, source.find())
    assert (report.stored, report.duplicates) == (0, 1)
    assert _turns(service) == ["1", "2"]


def _import_twice(service: MemoryService, folder: Path) -> None:
    (folder / "s1.jsonl").write_text("".join(_line(str(n)) for n in range(1, 51)))
    source = LineTurns(folder)
    first = run_import(service, source, source.find())
    assert (first.stored, first.stopped) == (50, "")
    again = run_import(service, source, source.find(), from_start=True)
    assert (again.stored, again.duplicates) == (0, 50)
    assert service.store.count(service.scopes(kind="project")) == 50


@pytest.mark.redis
def test_import_is_idempotent_on_redis(tmp_path: Path, folder: Path) -> None:
    from memory_testing.requirements import require
    from memory_testing.servers import ServerStartError, redis_server

    try:
        with redis_server() as (host, port):
            svc = MemoryService(_config(tmp_path, MEMORY_URL=f"redis://{host}:{port}/1"), long_lived=True)
            _import_twice(svc, folder)
            svc.store.close()
    except ServerStartError as exc:
        require(False, f"a throwaway redis-server ({exc})")


@pytest.mark.postgres
def test_import_is_idempotent_on_postgres(tmp_path: Path, folder: Path) -> None:
    from memory_testing.requirements import require
    from memory_testing.servers import drop_schema, local_postgres_available, new_schema_name, with_schema

    base = "postgresql://127.0.0.1:5432/test?user=postgres"
    require(local_postgres_available(base), "PostgreSQL on 127.0.0.1:5432 (database test, user postgres)")
    schema = new_schema_name("memimport")
    try:
        svc = MemoryService(_config(tmp_path, MEMORY_URL=with_schema(base, schema)), long_lived=True)
        _import_twice(svc, folder)
        svc.store.close()
    finally:
        drop_schema(base, schema)
