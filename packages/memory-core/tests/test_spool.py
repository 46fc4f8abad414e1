"""The outage spool: bounded, private, drained once, never losing an entry it could not write."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

from memory_core.errors import StoreError, StoreUnavailable
from memory_core.localstate.spool import Spool, record_from_json
from memory_core.models import Record, Scope


def _record(n: int) -> Record:
    return Record(id=f"r{n}", scope=Scope("project", "p"), text=f"turn {n} " + "x" * 100, created_at=float(n))


def test_entries_come_back_in_order_and_the_file_is_private(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "state" / "spool.jsonl", max_bytes=1 << 20)
    for n in range(3):
        spool.append(_record(n))
    assert [r.id for r in spool.entries()] == ["r0", "r1", "r2"]
    assert stat.S_IMODE(spool.path.stat().st_mode) == 0o600
    assert spool.entries()[0] == _record(0)


def test_the_spool_is_bounded_and_keeps_the_newest(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool.jsonl", max_bytes=1000)
    dropped = sum(spool.append(_record(n)) for n in range(30))
    assert spool.path.stat().st_size <= 1000
    ids = [r.id for r in spool.entries()]
    assert ids[-1] == "r29"
    assert dropped == 30 - len(ids)
    assert dropped > 0


def test_drain_writes_everything_once_and_empties_the_file(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool.jsonl", max_bytes=1 << 20)
    for n in range(5):
        spool.append(_record(n))
    written: list[str] = []
    assert spool.drain(lambda r: written.append(r.id)) == 5
    assert written == ["r0", "r1", "r2", "r3", "r4"]
    assert not spool.path.exists()
    assert spool.drain(lambda r: written.append(r.id)) == 0


def test_an_outage_mid_drain_keeps_that_entry_and_those_after_it(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool.jsonl", max_bytes=1 << 20)
    for n in range(4):
        spool.append(_record(n))

    def write(record: Record) -> None:
        if record.id == "r2":
            raise StoreUnavailable("store went away")

    assert spool.drain(write) == 2
    assert [r.id for r in spool.entries()] == ["r2", "r3"]
    assert spool.quarantined() == 0


def test_an_entry_the_store_refuses_is_quarantined_and_blocks_nothing(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool.jsonl", max_bytes=1 << 20)
    for n in range(4):
        spool.append(_record(n))
    refused: list[str] = []

    def write(record: Record) -> None:
        if record.id == "r1":
            raise StoreError("the value was refused")

    assert spool.drain(write, on_refused=lambda record, exc: refused.append(record.id)) == 3
    assert spool.entries() == []
    assert refused == ["r1"]
    assert spool.quarantined() == 1
    # The quarantine file is `memory export` lines: `memory restore` takes it back.
    [line] = spool.quarantine_path.read_text(encoding="utf-8").splitlines()
    assert record_from_json(json.loads(line)) == _record(1)


def test_a_store_refusing_everything_quarantines_nothing(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool.jsonl", max_bytes=1 << 20)
    for n in range(5):
        spool.append(_record(n))

    def write(record: Record) -> None:
        raise StoreError("attempt to write a readonly database")

    assert spool.drain(write, proven=True) == 0
    assert [r.id for r in spool.entries()] == ["r0", "r1", "r2", "r3", "r4"]
    assert spool.quarantined() == 0


def test_a_refused_last_entry_is_quarantined_only_when_the_store_took_a_write(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool.jsonl", max_bytes=1 << 20)
    spool.append(_record(0))

    def write(record: Record) -> None:
        raise StoreError("refused")

    assert spool.drain(write) == 0
    assert [r.id for r in spool.entries()] == ["r0"]  # nothing proves the store takes writes at all
    assert spool.drain(write, proven=True) == 0
    assert spool.entries() == []
    assert spool.quarantined() == 1


def test_turns_dropped_by_the_bound_are_counted_until_cleared(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool.jsonl", max_bytes=1000)
    dropped = sum(spool.append(_record(n)) for n in range(30))
    assert dropped > 0
    assert Spool(spool.path, max_bytes=1000).dropped() == dropped
    spool.clear_dropped()
    assert spool.dropped() == 0


def test_a_torn_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool.jsonl", max_bytes=1 << 20)
    spool.append(_record(1))
    with spool.path.open("a") as handle:
        handle.write('{"id": "half')
    spool.append(_record(2))
    assert [r.id for r in spool.entries()] == ["r1", "r2"]


_APPEND_MANY = """
import sys
from pathlib import Path
from memory_core.models import Record, Scope
from memory_core.localstate.spool import Spool
spool = Spool(Path(sys.argv[1]), max_bytes=1 << 22)
start = int(sys.argv[2])
for n in range(start, start + 50):
    spool.append(Record(id=f"r{n}", scope=Scope("project", "p"), text="t" * 200))
"""


def test_concurrent_appends_from_several_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "spool.jsonl"
    workers = [subprocess.Popen([sys.executable, "-c", _APPEND_MANY, str(path), str(1000 * i)]) for i in range(4)]
    assert [worker.wait(timeout=60) for worker in workers] == [0, 0, 0, 0]
    assert len(Spool(path, max_bytes=1 << 22).entries()) == 200
