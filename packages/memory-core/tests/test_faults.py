"""Fault injection: break the store, the file system or the environment on purpose, lose no turn.

Each fault of docs/reliability.md is a test here, on every backend where it applies. Turns go
through the real hook client and worker where that is cheap (`testing.faults.HookRig`), and
through `MemoryService` otherwise; afterwards every turn captured during the fault and after it
is in the store, each with its own prompt, and `memory doctor` exits 1 with the fixing command
for every broken state. Permission faults run as an unprivileged user (root ignores file
permissions): under root the setup creates one, and fails under `CI=true` if it cannot.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.errors import NotFound
from memory_core.hookpath.client import worker_environment
from memory_core.hookpath.worker import stop_worker
from memory_core.localstate.spool import Spool
from memory_core.models import Record, Scope
from memory_core.service import MemoryService
from memory_testing.faults import HookRig, SwitchableProxy, current_user, hook_rig, unprivileged_user
from memory_testing.requirements import require
from memory_testing.servers import (
    closed_port,
    drop_schema,
    local_postgres_available,
    new_schema_name,
    redis_server_available,
    throwaway_redis,
    throwaway_redis_url,
    with_schema,
)

_POSTGRES = "postgresql://127.0.0.1:5432/test?user=postgres"
BACKENDS = ("sqlite", "redis", "postgres")


def _project() -> str:
    # Unique per test: the shared Redis and PostgreSQL hold other runs' records too.
    return f"git:example.com/faults/{uuid.uuid4().hex[:12]}"


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    """A store URL per backend; None is the embedded default (a rig's own data folder)."""
    if request.param == "sqlite":
        yield None
    elif request.param == "redis":
        require(redis_server_available(), "redis-server (a throwaway Redis for the tests)")
        yield throwaway_redis_url(12)
    else:
        require(local_postgres_available(), "PostgreSQL on 127.0.0.1:5432")
        schema = new_schema_name("faults")
        yield with_schema(_POSTGRES, schema)
        drop_schema(_POSTGRES, schema)


def _doctor(rig: HookRig, *args: str) -> tuple[int, str]:
    done = rig.memory("doctor", *args)
    return done.returncode, done.stdout.decode() + done.stderr.decode()


def _assert_whole(rig: HookRig, turns: set[int]) -> None:
    """Every turn in `turns` is stored once, with its own prompt and its own answer."""
    stored = rig.stored_turns()
    assert set(stored) >= turns, f"missing turns: {sorted(turns - set(stored))}"
    for n in turns:
        assert stored[n] == f"User: {rig.prompt(n)}\nAssistant: {rig.answer(n)}"


# -- the embedded file changing under memory ---------------------------------------------------


def test_a_read_only_database_loses_no_turn_and_doctor_gives_the_chmod() -> None:
    with hook_rig(unprivileged_user(), None, _project()) as rig:
        for n in (1, 2):
            rig.turn(n)
        assert rig.wait_for_worker()
        stop_worker(rig.socket())  # the last connection closes: SQLite removes -wal and -shm
        time.sleep(0.5)
        rig.db_path.chmod(0o444)
        in_process = {**rig.env, "MEMORY_WORKER": "0"}
        for n in (3, 4, 5):
            rig.turn(n, env=in_process)  # SQLite re-creates -shm read-only here
        code, report = _doctor(rig)
        assert code == 1
        assert "read-only" in report
        assert f"chmod u+rw {rig.db_path}" in report
        if Path(f"{rig.db_path}-shm").exists():
            assert f"{rig.db_path}-shm" in report, "the fix names the -shm file too"
        rig.db_path.chmod(0o600)  # only the database: the stale -shm is memory's to mend
        for n in (6, 7):
            rig.turn(n)
        _assert_whole(rig, set(range(1, 8)))
        assert _doctor(rig)[0] == 0


def test_the_data_folder_removed_under_a_worker() -> None:
    with hook_rig(current_user(), None, _project()) as rig:
        # Without the model: a vector write still in flight when the folder goes would reopen the
        # store at its path, and this test is about what doctor sees of a folder removed.
        rig.env["MEMORY_EMBEDDINGS"] = "0"
        for n in (1, 2):
            rig.turn(n)
        assert rig.wait_for_worker()
        shutil.rmtree(rig.db_path.parent)
        code, report = _doctor(rig)
        assert code == 1
        assert "is gone" in report
        assert not rig.db_path.exists(), "doctor only looks; it never creates the database"
        for n in (3, 4, 5):
            rig.turn(n)  # the worker, still running, notices and reopens at the path
        assert rig.db_path.exists()
        _assert_whole(rig, {3, 4, 5})
        assert _doctor(rig)[0] == 0


def test_a_database_replaced_under_a_worker() -> None:
    with hook_rig(current_user(), None, _project()) as rig:
        for n in (1, 2):
            rig.turn(n)
        assert rig.wait_for_worker()
        copy = rig.db_path.with_name("copy.db")
        with sqlite3.connect(rig.db_path) as source, sqlite3.connect(copy) as target:
            source.backup(target)
        os.replace(copy, rig.db_path)
        for n in (3, 4, 5):
            rig.turn(n)
        _assert_whole(rig, {1, 2, 3, 4, 5})
        code, report = _doctor(rig)
        assert code == 1
        assert "replaced" in report
        assert "memory doctor --fix" in report
        assert _doctor(rig, "--fix")[0] == 0
        assert _doctor(rig)[0] == 0


def test_garbage_written_over_the_database() -> None:
    with hook_rig(current_user(), None, _project()) as rig:
        for n in (1, 2):
            rig.turn(n)
        assert rig.wait_for_worker()
        assert rig.wait_for_vectors()  # no background write of turns 1-2 lands after the garbage
        # Every page in the file itself, none left in the WAL: a WAL holding every page of a small
        # database would rebuild the file over the garbage at its next checkpoint.
        with contextlib.closing(sqlite3.connect(rig.db_path, timeout=10)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = rig.db_path.stat().st_size
        rig.db_path.write_bytes(b"\x5a" * max(size, 8192))
        for n in (3, 4, 5):
            rig.turn(n)
        code, report = _doctor(rig)
        assert code == 1
        assert "not a readable SQLite database" in report
        assert f"mv {rig.db_path} " in report
        assert "3 capture(s) waiting" in report
        os.replace(rig.db_path, rig.db_path.with_name("memory.db.corrupt"))
        for n in (6, 7):
            rig.turn(n)
        _assert_whole(rig, {3, 4, 5, 6, 7})
        assert _doctor(rig)[0] == 0


def test_a_locked_database_spools_and_the_next_capture_drains(tmp_path: Path) -> None:
    config = _config(tmp_path, f"sqlite:///{tmp_path / 'memory.db'}")
    service = MemoryService(config)
    _capture(service, 1)
    holder = sqlite3.connect(tmp_path / "memory.db", timeout=0.1)
    holder.execute("BEGIN EXCLUSIVE")
    assert _capture(service, 2) == "spooled"
    holder.rollback()
    holder.close()
    service.close()
    later = MemoryService(config)  # the next hook: a new process
    assert _capture(later, 3) == "stored"
    assert _stored_numbers(later) == {1, 2, 3}
    assert later.spool.entries() == []
    later.close()


# -- text every backend keeps alike ------------------------------------------------------------


def test_nul_and_lone_surrogates_are_stored_alike_on_every_backend(store_url: str | None) -> None:
    with hook_rig(current_user(), store_url, _project()) as rig:
        prompt = "fault turn 1: port\u0000 of the \ud83d service1?"
        answer = "service1 listens\u0000 on 8001 \ud83d"
        rig.hook({"event": "read", "session": rig.session, "turn": "t1", "text": prompt})
        rig.hook({"event": "write", "session": rig.session, "turn": "t1", "text": answer})
        assert rig.wait_for_worker()
        rig.turn(2)  # through the worker this time
        rig.hook({"event": "read", "session": rig.session, "turn": "t3", "text": "fault turn 3: \ud83d\u0000 again?"})
        rig.hook({"event": "write", "session": rig.session, "turn": "t3", "text": "yes \ud83d"})
        stored = rig.stored_turns()
        assert (
            stored[1] == "User: fault turn 1: port of the \ufffd service1?\nAssistant: service1 listens on 8001 \ufffd"
        )
        assert stored[3] == "User: fault turn 3: \ufffd again?\nAssistant: yes \ufffd"
        _assert_whole(rig, {2})


def test_a_spooled_value_postgres_refuses_is_quarantined_and_blocks_nothing(tmp_path: Path) -> None:
    require(local_postgres_available(), "PostgreSQL on 127.0.0.1:5432")
    schema = new_schema_name("faults")
    try:
        service = MemoryService(_config(tmp_path, with_schema(_POSTGRES, schema)))
        project = Scope("project", service.project().key)
        # A spool written before text was normalised: a NUL PostgreSQL can never take, first.
        spool = Spool(service.config.spool_path, max_bytes=1 << 20)
        for n, text in ((1, "User: fault turn 1: a\u0000b\nAssistant: x"), (2, _text(2)), (3, _text(3))):
            spool.append(Record(id=f"old{n}", scope=project, text=text, session_id="s0", seq=-1))
        assert _capture(service, 4) == "stored"
        assert _stored_numbers(service) == {2, 3, 4}
        assert service.spool.entries() == []
        report = service.status()
        assert not report["ok"]
        assert any(str(service.spool.quarantine_path) in p["what"] for p in report["problems"])
        assert any(p["fix"].startswith("memory restore ") for p in report["problems"])
        service.close()
    finally:
        drop_schema(_POSTGRES, schema)


# -- the hook client and the worker key --------------------------------------------------------


def test_a_runtime_folder_the_user_cannot_enter_costs_no_turn() -> None:
    user = unprivileged_user()
    with hook_rig(user, None, _project()) as rig:
        locked = Path(rig.home.parent / f"locked-{uuid.uuid4().hex[:8]}")
        locked.mkdir(mode=0o700)
        if user.uid is None:
            locked.chmod(0o000)  # not root: even the owner cannot enter now
        env = {**rig.env, "XDG_RUNTIME_DIR": str(locked)}
        try:
            for n in (1, 2, 3):
                rig.turn(n, env=env)
            injected = rig.hook({"event": "read", "session": "s2", "turn": "u1", "text": rig.prompt(1)}, env)
        finally:
            uid = os.getuid() if user.uid is None else user.uid
            from memory_core.hookpath.client import socket_path

            where = socket_path(worker_environment(env), env)
            stop_worker(where.replace(f"{locked}/memory", f"/tmp/memory-{uid}", 1))
            locked.chmod(0o700)
            locked.rmdir()
        _assert_whole(rig, {1, 2, 3})
        assert b"8001" in injected, "recall works too"


_BROKEN_CLIENT = """
import memory_core.hookpath.client as client

def broken(*args, **kwargs):
    raise PermissionError("[Errno 13] Permission denied: the runtime folder")

client.socket_path = broken
client.main("memory_faultharness.adapter:Hooks")
"""


def test_an_error_of_the_hook_clients_own_costs_no_turn_and_is_logged() -> None:
    with hook_rig(current_user(), None, _project()) as rig:
        for event, text in (("read", rig.prompt(1)), ("write", rig.answer(1))):
            payload = {"event": event, "session": rig.session, "turn": "t1", "text": text}
            done = rig.user.run(
                [sys.executable, "-c", _BROKEN_CLIENT], env=rig.env, cwd=rig.home, stdin=json.dumps(payload).encode()
            )
            assert (done.returncode, done.stdout) == (0, b"")
        _assert_whole(rig, {1})
        log = (rig.home / "state" / "memory" / "memory.log").read_text(encoding="utf-8")
        assert log.count("ERROR hookclient: ") == 2, "one line per hook that fell back"
        assert "Permission denied" in log


def test_a_setting_with_a_newline_keys_its_own_worker() -> None:
    with hook_rig(current_user(), None, "team\nalpha") as rig:
        rig.turn(1)
        assert rig.wait_for_worker()
        beta = {**rig.env, "MEMORY_PROJECT": "team\nbeta"}
        assert worker_environment(beta) != worker_environment(rig.env)
        leaked = rig.hook({"event": "read", "session": "s2", "turn": "u1", "text": rig.prompt(1)}, beta)
        stop_worker(HookRig.socket_for(beta))
        assert leaked == b"", "team\\nbeta was served by team\\nalpha's worker"


_READ_FROM_THE_ENVIRONMENT = {
    # What each store (and the settings every store shares) reads from the environment.
    "settings": ["MEMORY_URL", "MEMORY_PROJECT", "MEMORY_USER", "MEMORY_PG_SCHEMA", "MEMORY_TIMEOUT",
                 "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "HOME", "USER", "LOGNAME", "LNAME",
                 "USERNAME"],
    "sqlite": ["MEMORY_URL", "XDG_DATA_HOME", "HOME"],
    "redis": ["MEMORY_URL", "MEMORY_ALLOW_DB0", "SSL_CERT_FILE", "SSL_CERT_DIR"],
    "postgres": ["MEMORY_PG_SCHEMA", "PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD",
                 "PGPASSFILE", "PGSERVICE", "PGSERVICEFILE", "PGSYSCONFDIR", "PGOPTIONS", "PGAPPNAME",
                 "PGSSLMODE", "PGSSLCERT", "PGSSLKEY", "PGSSLROOTCERT", "PGSSLCRL", "PGSSLCRLDIR", "PGSSLSNI",
                 "PGREQUIRESSL", "PGSSLMINPROTOCOLVERSION", "PGSSLMAXPROTOCOLVERSION", "PGGSSENCMODE",
                 "PGKRBSRVNAME", "PGGSSLIB", "PGCHANNELBINDING", "PGREQUIREAUTH", "PGCONNECT_TIMEOUT",
                 "PGCLIENTENCODING", "PGTARGETSESSIONATTRS", "PGLOADBALANCEHOSTS", "PGDATESTYLE", "PGTZ",
                 "PGGEQO", "KRB5CCNAME", "KRB5_CONFIG", "SSL_CERT_FILE", "SSL_CERT_DIR"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted({n for names in _READ_FROM_THE_ENVIRONMENT.values() for n in names}), ids=str)
def test_the_worker_key_covers_what_every_store_reads(name: str) -> None:
    base = {"HOME": "/home/a", "MEMORY_URL": "sqlite:////tmp/m.db"}
    keys = {worker_environment({**base, name: value}) for value in ("one", "two", "two\nlines", "two\nother")}
    assert len(keys) == 4, f"{name} is not (fully) in the worker key"


# -- outages that end ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["redis", "postgres"])
@pytest.mark.parametrize("fault", ["down", "silent"])
def test_recovery_after_an_outage_does_not_wait_for_the_back_off(
    tmp_path: Path, backend: str, fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memory_core.service

    # A back-off far longer than the test: only the probe can end it in time.
    monkeypatch.setattr(memory_core.service, "_BACKOFF_FIRST_S", 60.0)
    if backend == "redis":
        require(redis_server_available(), "redis-server (a throwaway Redis for the tests)")
        target, url = throwaway_redis(), "redis://{}:{}/12"
    else:
        require(local_postgres_available(), "PostgreSQL on 127.0.0.1:5432")
        schema = new_schema_name("faults")
        target, url = ("127.0.0.1", 5432), "postgresql://{}:{}/test?user=postgres&schema=" + schema
    try:
        with SwitchableProxy(target) as proxy:
            service = MemoryService(_config(tmp_path, url.format(*proxy.address)), long_lived=True)
            assert _capture(service, 1) == "stored"
            getattr(proxy, fault)()
            assert _capture(service, 2) == "spooled"  # the outage is seen (at most one timeout)
            started = time.monotonic()
            assert _capture(service, 3) == "spooled"
            assert time.monotonic() - started < 0.3, "a request never waits on the probe"
            proxy.up()
            back = time.monotonic()
            outcome = "spooled"
            while outcome == "spooled" and time.monotonic() - back < 6:
                time.sleep(0.2)
                outcome = _capture(service, 4)
            waited = time.monotonic() - back
            assert outcome == "stored"
            # Without the probe, the back-off would have kept spooling for a minute.
            # The probe pings every 0.5 s (a silent server costs one 1 s timeout first); the bound
            # leaves room for a loaded machine and is still far below the back-off.
            assert waited < (4.0 if fault == "silent" else 3.0), f"recovery took {waited:.1f}s"
            assert _stored_numbers(service) == {1, 2, 3, 4}, "the spool drained with the first write"
            service.close()
    finally:
        if backend == "postgres":
            drop_schema(_POSTGRES, schema)


def test_turns_dropped_by_the_spools_bound_are_a_doctor_problem(tmp_path: Path) -> None:
    with closed_port() as (host, port):
        service = MemoryService(
            _config(tmp_path, f"redis://{host}:{port}/12", MEMORY_SPOOL_MAX_BYTES="4096"), long_lived=False
        )
        outcomes = {_capture(service, n, answer="x" * 600) for n in range(12)}
        assert outcomes == {"spooled"}
        report = service.status()
    dropped = service.spool.dropped()
    assert dropped > 0
    assert not report["ok"]
    assert any(f"{dropped} turn(s) were dropped" in p["what"] for p in report["problems"])


# -- a long session ----------------------------------------------------------------------------


def test_the_cost_of_a_capture_does_not_grow_with_the_session(tmp_path: Path) -> None:
    from memory_core.store.base import Store
    from memory_core.store.sqlite import SQLiteStore

    calls: list[str] = []

    def counted(name: str) -> object:
        method = getattr(SQLiteStore, name)

        def call(self: SQLiteStore, *args: object, **kwargs: object) -> object:
            calls.append(name)
            return method(self, *args, **kwargs)

        return call

    public = [n for n in dir(Store) if not n.startswith("_") and callable(getattr(Store, n))]
    counting = type("CountingStore", (SQLiteStore,), {name: counted(name) for name in public})
    store = counting(str(tmp_path / "memory.db"))
    service = MemoryService(_config(tmp_path, f"sqlite:///{tmp_path / 'memory.db'}"), store=store)
    per_turn = []
    for n in range(400):
        calls.clear()
        service.refresh()  # as the worker does before every request
        service.capture(harness="claude", session_id="long", turn_id=f"t{n}", prompt=f"turn {n}", response="ok")
        per_turn.append(list(calls))
    assert per_turn[5] == per_turn[399], "the same store calls at turn 5 and turn 400"
    assert "scan" not in per_turn[399]
    assert [r.seq for r in service.expand(f"{_record_id('long', 399)}", radius=1)] == [398, 399]
    store.close()


# -- scope on every id-based operation ---------------------------------------------------------


def test_a_record_of_one_project_is_out_of_reach_of_another(tmp_path: Path, store_url: str | None) -> None:
    url = store_url or f"sqlite:///{tmp_path / 'memory.db'}"
    a = MemoryService(_config(tmp_path, url, MEMORY_PROJECT=_project()))
    b = MemoryService(_config(tmp_path, url, MEMORY_PROJECT=_project()))
    session = f"s-{uuid.uuid4().hex[:12]}"
    a.capture(harness="claude", session_id=session, turn_id="t1", prompt="the vault is at 10.0.0.7", response="ok")
    saved = a.save("the staging vault token rotates on Mondays")
    assert saved.id in [hit.record.id for hit in a.search("vault Mondays")]
    for record_id in (saved.id, _record_id(session, 1, harness="claude")):
        with pytest.raises(NotFound):
            b.expand(record_id)
        with pytest.raises(NotFound):
            b.feedback(record_id, "contradicted")
        assert b.forget([record_id]) == 0
        assert a.expand(record_id)[0].standing == 0, "project B's calls changed nothing"
    assert b.search("vault Mondays") == []
    assert a.feedback(saved.id, "acted") == 1
    a.close()
    b.close()


# -- helpers -------------------------------------------------------------------------------------


def _config(tmp_path: Path, url: str, **env: str) -> Config:
    values = {
        "HOME": str(tmp_path),
        "MEMORY_URL": url,
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": _project(),
        "MEMORY_USER": "alice",
    }
    values.update(env)
    return Config.from_env(values)


def _text(n: int) -> str:
    return f"User: {HookRig.prompt(n)}\nAssistant: {HookRig.answer(n)}"


def _capture(service: MemoryService, n: int, *, answer: str | None = None) -> str:
    outcome = service.capture(
        harness="faultharness",
        # Record ids are global on a shared server: a session of this test's own project.
        session_id=f"s-{service.project().key}",
        turn_id=f"t{n}",
        prompt=HookRig.prompt(n),
        response=answer or HookRig.answer(n),
    )
    return outcome.status


def _stored_numbers(service: MemoryService) -> set[int]:
    found = set()
    for record in service.export(every_scope=False):
        for n in range(100):
            if record.text == _text(n):
                found.add(n)
    return found


def _record_id(session: str, n: int, *, harness: str = "claude") -> str:
    from memory_core.service import turn_record_id

    return turn_record_id(harness, session, f"t{n}")
