"""The hook client and the per-user worker: fast turns, the same answers, and no lost turn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from memory_core.hookpath.client import socket_path, worker_environment
from memory_core.hookpath.worker import stop_worker
from memory_testing.faults import command_hook_adapter, hook_package

# The fault rig's command-hook adapter, under this suite's own name.
ADAPTER_SOURCE = command_hook_adapter("testharness")


@pytest.fixture
def hook_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    packages = hook_package(tmp_path / "pkg", "testharness", ADAPTER_SOURCE)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        {
            "PYTHONPATH": str(packages),
            "XDG_RUNTIME_DIR": str(runtime),
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "git:example.com/acme/worker",
            "MEMORY_WORKER_IDLE": "30",
        }
    )
    yield env
    _stop_worker(env)


def _stop_worker(env: dict[str, str]) -> None:
    stop_worker(_socket(env))


def _socket(env: dict[str, str]) -> str:
    return socket_path(worker_environment(env), env)


def _hook(env: dict[str, str], payload: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "memory_testharness.hook"],
        input=json.dumps(payload).encode(),
        env=env,
        cwd=cwd,
        capture_output=True,
        timeout=30,
        check=False,
    )


def _wait_for(path: str, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def _turn(env: dict[str, str], session: str, turn: str, prompt: str, answer: str) -> bytes:
    read = _hook(env, {"event": "read", "session": session, "turn": turn, "text": prompt})
    write = _hook(env, {"event": "write", "session": session, "turn": turn, "text": answer})
    assert (read.returncode, write.returncode) == (0, 0)
    assert write.stdout == b""
    return read.stdout


def test_the_first_turn_is_handled_in_process_and_starts_a_worker(hook_env: dict[str, str]) -> None:
    path = _socket(hook_env)
    assert not os.path.exists(path)
    _turn(hook_env, "s1", "t1", "the ledger service listens on port 8443", "noted: ledger on 8443")
    assert _wait_for(path), "a worker was started for the next turn"
    folder = Path(path).parent
    assert oct(folder.stat().st_mode & 0o777) == "0o700"


def test_a_session_start_that_starts_the_worker_answers_the_first_prompt_warm(
    hook_env: dict[str, str], tmp_path: Path
) -> None:
    """A project too big for a prompt to load its vectors itself (over `QUERY_ROWS` passages):
    a SessionStart with no worker yet is handled in the hook (which prints nothing) and starts
    the worker, which loads the model and the project's vectors at once, so the session's first
    prompt, a moment later, already finds the one record only its meaning matches.
    """
    from memory_core.config import Config
    from memory_core.models import Record
    from memory_core.service import MemoryService
    from memory_core.store._vectors import QUERY_ROWS
    from memory_core.store.sqlite import SQLiteStore
    from memory_testing.embedding import real_embedder

    embedder = real_embedder()
    prompt = "when does billing happen overnight?"
    project = MemoryService(Config.from_env(hook_env)).scopes(str(tmp_path), kind="project")[0]
    store = SQLiteStore(hook_env["MEMORY_URL"].removeprefix("sqlite:///"))
    rows = np.random.default_rng(3).standard_normal((QUERY_ROWS + 1_000, embedder.dim))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    records = [Record(f"f{n:05d}", project, f"filler number {n}", created_at=1.7e9 + n) for n in range(len(rows) // 2)]
    store.put_many([(r, {"filler": 1}) for r in records])
    for n, record in enumerate(records):  # two passages each: past QUERY_ROWS in all
        store.put_vectors(
            record.id, embedder.model_id, [rows[2 * n].astype("<f4").tobytes(), rows[2 * n + 1].astype("<f4").tobytes()]
        )
    target = Record("zz", project, "The invoice batch runs at 02:00 UTC.", created_at=1.8e9)
    store.put(target, {"invoice": 1, "batch": 1, "runs": 1})
    # Its meaning matches the prompt; no word of it does (BM25 alone finds nothing).
    store.put_vectors(target.id, embedder.model_id, [embedder.embed_query(prompt).astype("<f4").tobytes()])
    store.close()

    start = _hook(hook_env, {"event": "start", "session": "s1"}, cwd=tmp_path)
    assert (start.returncode, start.stdout) == (0, b"")
    assert _wait_for(_socket(hook_env)), "the SessionStart started a worker"
    time.sleep(8)  # the user reads the screen; the worker loads in the background
    first = _hook(hook_env, {"event": "read", "session": "s1", "turn": "t1", "text": prompt}, cwd=tmp_path)
    assert b"02:00 UTC" in first.stdout, "the first prompt was answered with the project's vectors"


def test_worker_and_in_process_give_byte_identical_answers(hook_env: dict[str, str]) -> None:
    _turn(hook_env, "s1", "t1", "the ledger service listens on port 8443", "noted: ledger on 8443")
    assert _wait_for(_socket(hook_env))
    ask = {"event": "read", "session": "s2", "turn": "u1", "text": "which port does the ledger use?"}
    via_worker = _hook(hook_env, ask).stdout
    in_process = _hook({**hook_env, "MEMORY_WORKER": "0"}, {**ask, "session": "s3"}).stdout
    assert b"8443" in via_worker
    assert json.loads(via_worker)["context"] == json.loads(in_process)["context"]


def test_a_turn_captured_through_the_worker_is_stored_once(hook_env: dict[str, str]) -> None:
    _turn(hook_env, "s1", "t0", "warm up", "ok")
    assert _wait_for(_socket(hook_env))
    _turn(hook_env, "s1", "t1", "the invoice batch runs at 02:00 UTC", "noted")
    _hook(hook_env, {"event": "write", "session": "s1", "turn": "t1", "text": "noted"})
    export = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", "export"], env=hook_env, capture_output=True, text=True, check=True
    )
    texts = [json.loads(line)["text"] for line in export.stdout.splitlines()]
    assert texts.count("User: the invoice batch runs at 02:00 UTC\nAssistant: noted") == 1


def test_a_cold_turn_loads_no_pydantic_plugin_unless_the_user_asks(hook_env: dict[str, str], tmp_path: Path) -> None:
    # A pydantic plugin installed beside memory: a distribution whose entry point, once
    # loaded, leaves a mark. Memory's own models are no application's to instrument.
    mark = tmp_path / "plugin-loaded"
    info = tmp_path / "pkg" / "memory_spy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: memory-spy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\nspy = memory_spy:plugin\n")
    (tmp_path / "pkg" / "memory_spy.py").write_text(
        f"import pathlib\npathlib.Path({str(mark)!r}).write_text('x')\nplugin = object()\n"
    )
    cold = {**hook_env, "MEMORY_WORKER": "0"}
    out = _turn(cold, "s1", "t1", "the ledger service listens on port 8443", "noted: ledger on 8443")
    assert out == b""
    assert not mark.exists(), "a cold turn loaded a pydantic plugin"
    # A choice the user made is kept: naming some other plugin to disable leaves this one on.
    _hook({**cold, "PYDANTIC_DISABLE_PLUGINS": "other"}, {"event": "read", "session": "s2", "turn": "u", "text": "hi"})
    assert mark.exists()


def test_a_worker_with_other_settings_is_never_used(hook_env: dict[str, str]) -> None:
    _turn(hook_env, "s1", "t1", "the ledger service listens on port 8443", "noted: ledger on 8443")
    assert _wait_for(_socket(hook_env))
    other = {**hook_env, "MEMORY_PROJECT": "git:example.com/acme/other"}
    assert _socket(other) != _socket(hook_env)
    answer = _hook(other, {"event": "read", "session": "s9", "turn": "x", "text": "which port does the ledger use?"})
    assert answer.stdout == b"", "another project's memory never leaks through a shared worker"
    _stop_worker(other)


def test_a_stale_socket_does_not_cost_a_turn(hook_env: dict[str, str]) -> None:
    path = _socket(hook_env)
    Path(path).parent.mkdir(mode=0o700, exist_ok=True)
    Path(path).write_text("not a socket")
    out = _turn(hook_env, "s1", "t1", "the cache TTL is ninety seconds", "noted")
    assert out == b""
    later = _hook(hook_env, {"event": "read", "session": "s2", "turn": "u", "text": "what is the cache TTL?"})
    assert b"ninety seconds" in later.stdout


def test_a_socket_folder_others_can_enter_is_not_trusted(hook_env: dict[str, str]) -> None:
    path = _socket(hook_env)
    folder = Path(path).parent
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o777)
    _turn(hook_env, "s1", "t1", "the cache TTL is ninety seconds", "noted")
    time.sleep(0.5)
    assert not os.path.exists(path), "no worker listens where others could plant a socket"
    later = _hook(hook_env, {"event": "read", "session": "s2", "turn": "u", "text": "what is the cache TTL?"})
    assert b"ninety seconds" in later.stdout, "the hook still works, in-process"


def test_the_kill_switch_starts_nothing(hook_env: dict[str, str]) -> None:
    env = {**hook_env, "MEMORY_ENABLED": "0"}
    _turn(env, "s1", "t1", "anything", "anything")
    time.sleep(0.5)
    assert not os.path.exists(_socket(env))
    assert not Path(hook_env["MEMORY_URL"].removeprefix("sqlite:///")).exists()


def test_an_idle_worker_exits_and_removes_its_socket(hook_env: dict[str, str]) -> None:
    env = {**hook_env, "MEMORY_WORKER_IDLE": "1"}
    _turn(env, "s1", "t1", "short lived", "ok")
    path = _socket(env)
    assert _wait_for(path)
    deadline = time.monotonic() + 20
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(path)


def test_a_payload_without_cwd_belongs_to_the_hooks_own_project(hook_env: dict[str, str], tmp_path: Path) -> None:
    env = {k: v for k, v in hook_env.items() if k != "MEMORY_PROJECT"}
    repos = {}
    for name in ("payments", "search"):
        repo = tmp_path / name
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        subprocess.run(["git", "remote", "add", "origin", f"git@example.com:acme/{name}.git"], cwd=repo, check=True)
        repos[name] = repo
    fact = {"session": "s1", "turn": "t1"}
    _hook(env, {"event": "read", **fact, "text": "the ledger listens on port 8443"}, cwd=repos["payments"])
    _hook(env, {"event": "write", **fact, "text": "noted: 8443"}, cwd=repos["payments"])
    assert _wait_for(_socket(env))
    ask = {"event": "read", "turn": "u", "text": "which port does the ledger listen on?"}
    elsewhere = _hook(env, {**ask, "session": "s2"}, cwd=repos["search"])
    here = _hook(env, {**ask, "session": "s3"}, cwd=repos["payments"])
    _stop_worker(env)
    assert elsewhere.stdout == b"", "the worker resolved the project from the hook's folder, not its own"
    assert b"8443" in here.stdout


@pytest.mark.parametrize(
    "env",
    [
        {"HOME": "/home/a"},
        {"HOME": "/home/a", "XDG_CONFIG_HOME": "/cfg"},
        {"HOME": "/home/a", "MEMORY_CONFIG": "/etc/memory.toml"},
    ],
)
def test_the_client_watches_the_config_file_the_core_reads(env: dict[str, str]) -> None:
    from memory_core.config import config_home
    from memory_core.hookpath.client import _config_file

    expected = env.get("MEMORY_CONFIG") or str(config_home(env) / "config.toml")
    assert _config_file(env) == expected


def test_an_edited_config_file_reaches_the_next_turn(hook_env: dict[str, str], tmp_path: Path) -> None:
    config = tmp_path / "memory-config.toml"
    env = {k: v for k, v in hook_env.items() if k != "MEMORY_PROJECT"}
    env["MEMORY_CONFIG"] = str(config)
    config.write_text('[memory]\nproject = "team:alpha"\n')
    _turn(env, "s1", "t1", "the ledger listens on port 8443", "noted: 8443")
    first = _socket(env)
    assert _wait_for(first)
    ask = {"event": "read", "turn": "u", "text": "which port does the ledger listen on?"}
    assert b"8443" in _hook(env, {**ask, "session": "s2"}).stdout
    config.write_text('[memory]\nproject = "team:beta-other"\n')
    moved = _hook(env, {**ask, "session": "s3"})
    stop_worker(first)
    _stop_worker(env)
    assert _socket(env) != first
    assert moved.stdout == b"", "the new project setting applied at once, not after the old worker idled out"


def _imported(argv: list[str], env: dict[str, str], stdin: bytes = b"") -> tuple[set[str], bytes]:
    """The modules a fresh interpreter imports for `argv` (from `-X importtime`), and its stdout."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], input=stdin, env=env, capture_output=True, timeout=30, check=False
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.decode("utf-8", "replace").splitlines()
        if line.startswith("import time:") and line.count("|") == 2 and "cumulative" not in line
    }
    return names, done.stdout


_CLIENT_MAY_IMPORT = {"os", "sys", "_socket", "zlib"}
"""The standard modules the hook client is allowed beyond the interpreter's own start-up."""
_CLIENT_OWN = {"memory_core", "memory_core.version", "memory_core.hookpath", "memory_core.hookpath.client"}


def test_a_warm_turn_imports_nothing_beyond_the_clients_allowed_set(hook_env: dict[str, str], tmp_path: Path) -> None:
    _turn(hook_env, "s1", "t1", "the ledger service listens on port 8443", "noted: ledger on 8443")
    assert _wait_for(_socket(hook_env))
    # The interpreter's own start-up, measured in this run: `-c pass`, and the same for `-m`,
    # which is how harnesses run a hook (runpy is the interpreter's, not ours).
    (tmp_path / "pkg" / "memory_empty.py").write_text("")
    floor = _imported(["-c", "pass"], hook_env)[0] | _imported(["-m", "memory_empty"], hook_env)[0]
    ask = {"event": "read", "session": "s2", "turn": "u1", "text": "which port does the ledger use?"}
    modules, out = _imported(["-m", "memory_testharness.hook"], hook_env, json.dumps(ask).encode())
    assert b"8443" in out, "the worker answered this turn"
    extra = modules - floor - _CLIENT_MAY_IMPORT - _CLIENT_OWN - {"memory_testharness", "memory_testharness.hook"}
    assert sorted(extra) == []
