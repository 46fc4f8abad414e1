"""The embedded store's own promises: URLs, file permissions, schema versions, concurrent writers."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from memory_core.errors import ConfigError, StoreError, StoreUnavailable
from memory_core.models import IndexStats
from memory_core.store import open_store
from memory_core.store.sqlite import SCHEMA_VERSION, SQLiteStore
from memory_testing.store_conformance import PROJECT, make_record


def test_four_slashes_give_an_absolute_path(tmp_path: Path) -> None:
    store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/m.db")
    assert store.path == f"{tmp_path}/m.db"
    assert store.display_url == f"sqlite:///{tmp_path}/m.db"


def test_three_slashes_give_a_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = SQLiteStore.from_url("sqlite:///data/m.db")
    assert store.path == "data/m.db"
    store.ping()
    store.close()
    assert (tmp_path / "data" / "m.db").exists()


def test_a_tilde_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    store = SQLiteStore.from_url("sqlite:///~/m.db")
    assert store.path == f"{tmp_path}/m.db"


def test_a_url_with_a_host_is_refused() -> None:
    with pytest.raises(ConfigError, match="MEMORY_URL"):
        SQLiteStore.from_url("sqlite://somehost/m.db")


def test_open_store_picks_sqlite(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/m.db")
    assert isinstance(store, SQLiteStore)
    assert store.backend == "sqlite"


def test_opening_touches_nothing_until_first_use(tmp_path: Path) -> None:
    store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/sub/m.db")
    assert not (tmp_path / "sub").exists()
    assert store.ping() == sqlite3.sqlite_version
    store.close()


def test_file_is_user_only_and_a_new_folder_is_0700(tmp_path: Path) -> None:
    store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/fresh/m.db")
    store.put(make_record("r1"), {"alpha": 1})
    assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o700
    for name in ("m.db", "m.db-wal", "m.db-shm"):
        path = tmp_path / "fresh" / name
        assert path.exists(), name
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, name
    store.close()


def test_the_file_runs_in_wal_mode_with_the_current_schema(tmp_path: Path) -> None:
    store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/m.db")
    store.ping()
    store.close()
    with sqlite3.connect(tmp_path / "m.db") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_an_unversioned_file_is_migrated_in_place_and_data_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE unrelated (x)")
    raw.commit()
    raw.close()
    store = SQLiteStore.from_url(f"sqlite:///{path}")
    store.put(make_record("r1"), {"alpha": 2})
    store.close()
    again = SQLiteStore.from_url(f"sqlite:///{path}")
    assert [r.id for r in again.get(["r1"])] == ["r1"]
    assert again.index_stats([PROJECT]) == IndexStats(1, 2)
    again.close()


def test_a_file_from_a_newer_version_is_refused_not_damaged(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    store = SQLiteStore.from_url(f"sqlite:///{path}")
    with pytest.raises(StoreError, match="upgrade memory-core"):
        store.ping()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    raw.close()


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    path.write_bytes(b"not a database at all, just text" * 64)
    with pytest.raises(StoreError):
        SQLiteStore.from_url(f"sqlite:///{path}").ping()


def test_an_unwritable_location_is_unavailable(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be")
    with pytest.raises(StoreUnavailable):
        SQLiteStore.from_url(f"sqlite:///{blocked}/m.db").ping()


def test_a_lock_held_past_the_timeout_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    SQLiteStore.from_url(f"sqlite:///{path}").ping()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        store = SQLiteStore.from_url(f"sqlite:///{path}", timeout=0.1)
        with pytest.raises(StoreUnavailable):
            store.put(make_record("r1"), {"alpha": 1})
        store.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()


_WRITER = textwrap.dedent(
    """
    import sys
    from memory_core.store.sqlite import SQLiteStore
    from memory_testing.store_conformance import make_record

    url, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = SQLiteStore.from_url(url, timeout=30.0)
    for n in range(count):
        store.put(make_record(f"{worker}-{n}", session_id=worker, seq=n), {"shared": 1, f"w{worker}": 1, f"n{n}": 2})
        store.bump({"captures": 1})
        store.stash_prompt(f"session-{worker}", f"t{n}", f"prompt {n}", ttl=60, keep=4)
        store.add_injected("shared-session", [f"{worker}-{n}"])
    store.close()
    """
)


@pytest.mark.slow
def test_concurrent_writer_processes_lose_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/m.db"
    workers, per_worker = 4, 60
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, url, str(w), str(per_worker)], env=env, stderr=subprocess.PIPE)
        for w in range(workers)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    store = SQLiteStore.from_url(url)
    total = workers * per_worker
    assert store.count([PROJECT]) == total
    assert store.counters() == {"captures": total}
    assert store.index_stats([PROJECT]) == IndexStats(total, total * 4)
    assert store.postings([PROJECT], ["shared"])["shared"].df == total
    assert store.postings([PROJECT], ["n7"])["n7"].df == workers
    assert len(store.load_session("shared-session").injected) == total
    assert store.take_prompt("session-0", f"t{per_worker - 1}") == f"prompt {per_worker - 1}"
    store.close()


def test_a_forked_child_reopens_its_own_connection(tmp_path: Path) -> None:
    store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/m.db")
    store.put(make_record("parent"), {"alpha": 1})
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit code
        code = 1
        try:
            store.put(make_record("child"), {"alpha": 1})
            code = 0 if store.count([PROJECT]) == 2 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert store.count([PROJECT]) == 2
    store.close()


def test_forgotten_text_and_terms_leave_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore.from_url(f"sqlite:///{path}")
    store.put(make_record("keep", "ordinary words"), {"ordinari": 1, "word": 1})
    store.put(make_record("gone", "zqxsecretvalue in a turn"), {"zqxsecretvalue": 1, "turn": 1})
    store.delete(["gone"])
    store.close()
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"zqxsecretvalue" not in data
    again = SQLiteStore.from_url(f"sqlite:///{path}")
    assert again.postings([PROJECT], ["word"])["word"].df == 1
    again.close()


def test_a_bulk_write_stores_and_indexes_exactly_what_one_by_one_puts_do(tmp_path: Path) -> None:
    items = [
        (make_record(f"r{i}", f"turn {i} about pool{i % 3}", seq=i), {"turn": 1, f"pool{i % 3}": 1}) for i in range(7)
    ]
    single = SQLiteStore.from_url(f"sqlite:///{tmp_path}/single.db")
    bulk = SQLiteStore.from_url(f"sqlite:///{tmp_path}/bulk.db")
    for record, terms in items:
        single.put(record, terms)
    # The batch repeats an id: written once, as `put` would, and counted once.
    assert bulk.put_many([*items, items[0]]) == len(items)
    ids = [record.id for record, _ in items]
    assert bulk.get(ids) == single.get(ids)
    assert bulk.index_stats([PROJECT]) == single.index_stats([PROJECT])
    terms = ["turn", "pool0", "pool1"]
    assert bulk.postings([PROJECT], terms) == single.postings([PROJECT], terms)
    single.close()
    bulk.close()


def test_nearest_sees_what_another_process_writes_and_removes(tmp_path: Path) -> None:
    from memory_testing.store_conformance_vectors import vector

    reader = SQLiteStore.from_url(f"sqlite:///{tmp_path}/m.db")
    writer = SQLiteStore.from_url(f"sqlite:///{tmp_path}/m.db")
    for n in range(3):
        writer.put(make_record(f"r{n}", f"turn {n}"), {"turn": 1})
    writer.put_vectors("r0", "m", [vector(1, 0)])
    assert [rid for rid, _ in reader.nearest([PROJECT], "m", vector(0, 1), k=5)] == ["r0"]
    writer.put_vectors("r1", "m", [vector(0, 1)])  # added: read incrementally
    assert [rid for rid, _ in reader.nearest([PROJECT], "m", vector(0, 1), k=5)] == ["r1", "r0"]
    writer.delete(["r1"])  # removed: reloaded
    assert [rid for rid, _ in reader.nearest([PROJECT], "m", vector(0, 1), k=5)] == ["r0"]
    writer.put_vectors("r0", "m", [vector(1, 1)])  # replaced
    assert reader.nearest([PROJECT], "m", vector(1, 1), k=5)[0][1] == 1.0
    reader.close()
    writer.close()
