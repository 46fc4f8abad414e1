"""Tools to break things on purpose: a switchable TCP proxy, an unprivileged user, real hook runs.

Used by the fault-injection suite (`tests/test_faults.py`); each helper is a real part, not
a mock:

- `SwitchableProxy` forwards a loopback port to a real server (Redis, PostgreSQL) and can be
  cut (`down`: connections refused and live ones closed), made `silent` (connections accepted,
  never answered) or restored (`up`), so an outage starts and ends where a store expects it.
- `unprivileged_user` is the user permission faults run as. CI runs as root, which ignores
  file permissions, so under root a system user is created (`useradd`); creating it failing
  is a test failure under `CI=true` and a skip elsewhere (`requirements.require`).
- `HookRig` runs a turn through the real hook client and worker (`memory_core.hookpath.client`),
  as that user, with a minimal command-hook adapter, and reads the store back through
  `memory export`, as that user too (reading as root would leave root-owned `-shm` files).

Nothing here touches the machine's own memory: every folder is a fresh temporary one.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memory_testing.requirements import require
from memory_testing.servers import let_traverse

__all__ = [
    "SwitchableProxy",
    "Unprivileged",
    "unprivileged_user",
    "current_user",
    "HookRig",
    "hook_rig",
    "TEST_ADAPTER",
    "command_hook_adapter",
    "hook_package",
    "FAULT_USER",
]

FAULT_USER = "memory-faults"
"""The system user permission faults run as when the tests run as root."""


def command_hook_adapter(name: str) -> str:
    """The source of a command-hook adapter named `name`, in Claude Code's shape, so the hook client
    and worker are driven for real without depending on a harness package.
    """
    return _TEST_ADAPTER.replace("@NAME@", name)


def hook_package(root: Path, name: str, adapter_source: str) -> Path:
    """Write the package `memory_<name>` under `root` (an adapter from `adapter_source` and a `hook`
    module that runs the real hook client on it); returns `root`, for PYTHONPATH. Run a hook with
    `python -m memory_<name>.hook`.
    """
    package = root / f"memory_{name}"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "adapter.py").write_text(adapter_source)
    (package / "hook.py").write_text(
        f"from memory_core.hookpath.client import main\nmain('memory_{name}.adapter:Hooks')\n"
    )
    return root


_TEST_ADAPTER = """
import json
from memory_core.models import EventKind, HookEvent

class Hooks:
    name = "@NAME@"

    def parse(self, payload):
        if payload.get("event") == "read":
            return HookEvent(EventKind.READ, self.name, payload["session"], payload["turn"],
                             payload.get("cwd"), prompt=payload["text"])
        if payload.get("event") == "write":
            return HookEvent(EventKind.WRITE, self.name, payload["session"], payload["turn"],
                             payload.get("cwd"), response=payload["text"])
        if payload.get("event") == "start":
            return HookEvent(EventKind.START, self.name, payload["session"], cwd=payload.get("cwd"))
        return HookEvent(EventKind.IGNORE, self.name)

    def render(self, event, recall):
        return json.dumps({"context": recall.text}) if recall.text else ""
"""

TEST_ADAPTER = command_hook_adapter("faultharness")
"""The adapter the fault rig installs."""

State = Literal["up", "down", "silent"]


class SwitchableProxy:
    """A loopback TCP forwarder to `target` that an outage can be switched on and off in.

    `address` stays the same for the proxy's life, so a store built on it sees its server go
    away and come back. Use as a context manager; `close` stops every thread and socket.
    """

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.address: tuple[str, int] = ("127.0.0.1", int(self._listener.getsockname()[1]))
        self.state: State = "up"
        self._lock = threading.Lock()
        self._live: list[socket.socket] = []
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def __enter__(self) -> SwitchableProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def up(self) -> None:
        """Forward connections again."""
        self.state = "up"

    def down(self) -> None:
        """Refuse (close at once) every new connection and cut the live ones: a server that died."""
        self.state = "down"
        self._cut()

    def silent(self) -> None:
        """Accept connections and never answer; cut the live ones: a server that hangs."""
        self.state = "silent"
        self._cut()

    def close(self) -> None:
        """Stop the proxy and close every socket."""
        self._closed.set()
        self._cut()
        with contextlib.suppress(OSError):
            self._listener.close()
        self._thread.join(timeout=5)

    def _cut(self) -> None:
        with self._lock:
            live, self._live = self._live, []
        for sock in live:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            ready, _, _ = select.select([self._listener], [], [], 0.1)
            if not ready:
                continue
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.state == "down":
                client.close()
                continue
            with self._lock:
                self._live.append(client)
            if self.state == "silent":
                continue  # held open, never answered, until cut
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._live.append(upstream)
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        pair = {a: b, b: a}
        try:
            while not self._closed.is_set():
                ready, _, _ = select.select(list(pair), [], [], 0.2)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    pair[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for sock in (a, b):
                with contextlib.suppress(OSError):
                    sock.close()


@dataclass(frozen=True, slots=True)
class Unprivileged:
    """Who permission faults run as: a real uid/gid, or None fields for the current user."""

    name: str
    uid: int | None
    gid: int | None

    def folder(self, prefix: str = "memory-faults-") -> Path:
        """A fresh folder this user owns (0700), outside root's private pytest folders."""
        path = Path(tempfile.mkdtemp(prefix=prefix))
        if self.uid is not None and self.gid is not None:
            os.chown(path, self.uid, self.gid)
        return path

    def run(
        self, argv: list[str], *, env: Mapping[str, str], cwd: Path, stdin: bytes = b"", timeout: float = 60
    ) -> subprocess.CompletedProcess[bytes]:
        """Run `argv` as this user (no supplementary groups), with exactly `env`."""
        if self.uid is None:
            return subprocess.run(
                argv, input=stdin, env=dict(env), cwd=cwd, capture_output=True, timeout=timeout, check=False
            )
        return subprocess.run(
            argv,
            input=stdin,
            env=dict(env),
            cwd=cwd,
            capture_output=True,
            timeout=timeout,
            check=False,
            user=self.uid,
            group=self.gid,
            extra_groups=[],
        )


def current_user() -> Unprivileged:
    """This process's own user, for faults that need no permission change."""
    return Unprivileged(pwd.getpwuid(os.getuid()).pw_name, None, None)


def unprivileged_user() -> Unprivileged:
    """The user a permission fault runs as: ourselves unless root, else `FAULT_USER` (created if needed).

    Fails the test under `CI=true` (skips elsewhere) when root cannot create that user.
    """
    if os.geteuid() != 0:
        return current_user()
    try:
        entry = pwd.getpwnam(FAULT_USER)
    except KeyError:
        made = shutil.which("useradd") is not None and (
            subprocess.run(
                ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", FAULT_USER],
                capture_output=True,
                check=False,
            ).returncode
            in (0, 9)  # 9: created meanwhile by a parallel run
        )
        require(made, f"an unprivileged user for permission faults (useradd {FAULT_USER})")
        entry = pwd.getpwnam(FAULT_USER)
    # The user runs this interpreter: tox makes `.tox` user-only (0700), and a virtualenv's
    # interpreter is a link into the base build (a pyenv one under /root, 0700), so open both
    # paths for traversal (not reading), as the embedded PostgreSQL's user gets to its binaries.
    let_traverse(Path(sys.executable).parent)
    let_traverse(Path(sys.executable).resolve().parent)
    # Should the interpreter still be out of reach (a mount, a policy), say what is missing
    # rather than fail with a PermissionError deep inside the test.
    user = Unprivileged(entry.pw_name, entry.pw_uid, entry.pw_gid)
    require(
        _starts_python(user),
        f"{FAULT_USER} cannot run {sys.executable} (it resolves to {Path(sys.executable).resolve()}):"
        " run the suite under tox, or from an interpreter every user may run",
    )
    return user


def _starts_python(user: Unprivileged) -> bool:
    """Whether `user` can start this interpreter at all."""
    try:
        done = user.run(
            [sys.executable, "-c", "pass"], env={"PATH": os.environ.get("PATH", "")}, cwd=Path("/"), timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@dataclass
class HookRig:
    """Turns through the real hook client and worker, as `user`, on the store `url`.

    Every turn has its own prompt (`prompt(n)`) and answer (`answer(n)`), so a test can tell
    which turns reached the store and that each kept its own prompt.
    """

    user: Unprivileged
    url: str | None
    """The store; None for the embedded default under the rig's own data folder (`db_path`)."""
    project: str
    home: Path = field(init=False)
    env: dict[str, str] = field(init=False)
    session: str = field(init=False)
    """The rig's session id, unique: record ids are global on a shared server."""

    def __post_init__(self) -> None:
        self.session = f"s-{uuid.uuid4().hex[:12]}"
        self.home = self.user.folder()
        hook_package(self.home / "pkg", "faultharness", TEST_ADAPTER)
        runtime = self.home / "run"
        runtime.mkdir(mode=0o700)
        for sub in ("data", "state", "config"):
            (self.home / sub).mkdir()
        if self.user.uid is not None and self.user.gid is not None:
            for path in [self.home, *self.home.rglob("*")]:
                os.chown(path, self.user.uid, self.user.gid)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "USER": self.user.name,
            "LOGNAME": self.user.name,
            "PYTHONPATH": str(self.home / "pkg"),
            "XDG_RUNTIME_DIR": str(runtime),
            "XDG_DATA_HOME": str(self.home / "data"),
            "XDG_STATE_HOME": str(self.home / "state"),
            "XDG_CONFIG_HOME": str(self.home / "config"),
            "MEMORY_PROJECT": self.project,
            "MEMORY_USER": "alice",
            "MEMORY_WORKER_IDLE": "30",
        }
        if self.url is not None:
            self.env["MEMORY_URL"] = self.url

    @property
    def db_path(self) -> Path:
        """The embedded database file (when `url` is None)."""
        return self.home / "data" / "memory" / "memory.db"

    @staticmethod
    def prompt(n: int) -> str:
        return f"fault turn {n}: which port does service{n} listen on?"

    @staticmethod
    def answer(n: int) -> str:
        return f"service{n} listens on port {8000 + n}."

    def hook(self, payload: dict[str, str], env: Mapping[str, str] | None = None) -> bytes:
        """One hook call; returns its stdout. The hook always exits 0."""
        done = self.user.run(
            [sys.executable, "-m", "memory_faultharness.hook"],
            env=env or self.env,
            cwd=self.home,
            stdin=json.dumps(payload).encode(),
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        return done.stdout

    def turn(self, n: int, *, session: str | None = None, env: Mapping[str, str] | None = None) -> bytes:
        """The read and write hooks of turn `n` (in the rig's session); returns what the read hook injected."""
        session = session or self.session
        injected = self.hook({"event": "read", "session": session, "turn": f"t{n}", "text": self.prompt(n)}, env)
        self.hook({"event": "write", "session": session, "turn": f"t{n}", "text": self.answer(n)}, env)
        return injected

    def memory(self, *args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        """`memory ARGS` as the rig's user, in its environment."""
        return self.user.run([sys.executable, "-m", "memory_core.cli", *args], env=env or self.env, cwd=self.home)

    def stored_turns(self) -> dict[int, str]:
        """Turn number -> stored text, for every turn of this rig in the store (via `memory export`)."""
        done = self.memory("export")
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        found: dict[int, str] = {}
        for line in done.stdout.decode().splitlines():
            text = json.loads(line)["text"]
            number = re.match(r"User: fault turn (\d+):", text)
            if number:
                found[int(number.group(1))] = text
        return found

    def wait_for_worker(self, seconds: float = 20.0) -> bool:
        """Whether a worker for the rig's settings is listening within `seconds`."""
        deadline = time.monotonic() + seconds
        path = self.socket()
        while time.monotonic() < deadline:
            if os.path.exists(path):
                return True
            time.sleep(0.05)
        return False

    def wait_for_vectors(self, seconds: float = 30.0) -> bool:
        """Whether every stored turn has its vectors within `seconds` (`memory doctor --json`).

        A test that damages the database file under a live worker waits for this first: the
        worker's background writer embeds the turns it captured, and a write of its landing after
        the damage (a WAL checkpoint rewriting every page of a small file) can undo the damage.
        """
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            done = self.memory("doctor", "--json")
            try:
                vectors = json.loads(done.stdout)["vectors"]
            except (ValueError, KeyError, TypeError):
                vectors = {}
            if vectors.get("without") == 0 and vectors.get("with"):
                return True
            time.sleep(0.2)
        return False

    def socket(self) -> str:
        """Where the worker for the rig's settings listens."""
        return self.socket_for(self.env)

    @staticmethod
    def socket_for(env: Mapping[str, str]) -> str:
        """Where the worker for the settings `env` listens."""
        from memory_core.hookpath.client import socket_path, worker_environment

        return socket_path(worker_environment(dict(env)), dict(env))

    def close(self) -> None:
        """Stop the rig's worker and remove its folder."""
        from memory_core.hookpath.worker import stop_worker

        stop_worker(self.socket())
        shutil.rmtree(self.home, ignore_errors=True)


@contextlib.contextmanager
def hook_rig(user: Unprivileged, url: str | None, project: str) -> Iterator[HookRig]:
    """A `HookRig` that is closed (worker stopped, folder removed) afterwards."""
    rig = HookRig(user, url, project)
    try:
        yield rig
    finally:
        rig.close()
