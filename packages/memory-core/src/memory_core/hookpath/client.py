"""The hook process as the harness runs it: a thin client of the per-user memory worker.

A harness's hook module is just:

    from memory_core.hookpath.client import main

    if __name__ == "__main__":
        main("memory_claude.adapter:ClaudeHooks")

Why a client: a hook is a fresh interpreter on every turn, and importing the engine (json,
re, sqlite3, dataclasses, typing, ...) costs several times the interpreter's own start-up. The
worker (`memory_core.hookpath.worker`) keeps the engine loaded; this module imports only `os`, `sys`
and, when it runs, the C modules `_socket` and `zlib`, sends the payload over a Unix socket
and prints the answer. A turn then costs little more than starting Python.

Promises, the hook path's rules unchanged:
- The answer is written once, as one string; nothing is written when there is nothing.
- Exit status 0, whatever happens.
- When no worker answers (none started yet, a stale socket, a crash, a timeout), the payload is
  handled in this process by `memory_core.hookpath.runner.run`, exactly as the worker would, and a worker
  is started in the background for the next turn. No turn is lost to the worker's absence: a
  capture handled twice (a worker that timed out after writing) is stored once, since record
  ids derive from the harness's ids.
- No error of this client's own (locating, checking or reaching the socket: a runtime folder
  the user cannot enter, a broken environment) costs the turn: it is handled in this process
  and the error is logged, one line per turn.
- `MEMORY_ENABLED=0` touches nothing; `MEMORY_WORKER=0` never uses or starts a worker.

The worker is keyed by every setting of the environment that changes where or how a turn is
written (`_ENV_PREFIXES`, `_ENV_NAMES`: every `MEMORY_*` and `XDG_*` variable, libpq's `PG*`,
OpenSSL's certificate paths, Kerberos, `HOME` and the user; a value with a newline is encoded,
never dropped), so a hook only ever talks to a worker with its own settings; the worker
checks them again on every request and refuses a mismatch. The socket lives in a folder only
the user can enter (`$XDG_RUNTIME_DIR/memory` when the user can enter `$XDG_RUNTIME_DIR`,
else `/tmp/memory-<uid>`), which is checked before connecting.
"""

# No `from __future__ import annotations`: that is one more module on every turn, and the
# annotations here evaluate fine as they are. `tests/test_worker.py` holds the client to
# os, sys, _socket and zlib beyond the interpreter's own start-up.
import os
import sys

__all__ = ["main", "socket_path", "worker_environment"]

PROTOCOL = b"MEMORY2"
_CONNECT_TIMEOUT_S = 0.5
_ANSWER_TIMEOUT_S = 3.0
"""The worker's own store calls time out after `MEMORY_TIMEOUT` (1 s): an answer later than
this means the worker itself is stuck, and the turn is handled here instead."""
_ENV_PREFIXES = ("MEMORY_", "XDG_", "PG", "SSL_CERT_", "KRB5")
"""What a store or the configuration reads from the environment: memory's own settings, the
XDG folders, libpq (`PGHOST`, `PGPASSWORD`, `PGOPTIONS`, `PGSERVICEFILE`, ...), the certificate
paths OpenSSL reads for `rediss://` and TLS PostgreSQL, and libpq's Kerberos settings."""
_ENV_NAMES = ("HOME", "USER", "LOGNAME", "LNAME", "USERNAME")
_FALSE = ("0", "false", "no", "off")


def _config_file(env: dict[str, str] | os._Environ[str]) -> str:
    """The config file `memory_core.config` reads.

    Spelled out again here, because importing that module (pathlib, dataclasses) would cost a
    hook the start-up this client exists to save; a test holds the two to the same answer.
    """
    if env.get("MEMORY_CONFIG"):
        return env["MEMORY_CONFIG"]
    home = env.get("HOME") or os.path.expanduser("~")
    if env.get("XDG_CONFIG_HOME"):
        folder = env["XDG_CONFIG_HOME"]
    elif sys.platform == "darwin":
        folder = os.path.join(home, "Library", "Preferences")
    else:
        folder = os.path.join(home, ".config")
    return os.path.join(folder, "memory", "config.toml")


def worker_environment(environ: dict[str, str] | os._Environ[str] | None = None) -> bytes:
    """The settings a worker must share with a hook, as sorted `name=value` lines.

    The config file's size and modification time are part of them: a worker reads the file
    once, so an edited file must lead hooks to a fresh worker, not one with the old settings.
    """
    env = os.environ if environ is None else environ
    names = sorted(k for k in env if k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES)
    # One line per setting: a backslash and a newline in a value are escaped, so
    # `MEMORY_PROJECT=$'team\nbeta'` keys a different worker than `team\nalpha`.
    lines = [f"{k}={env[k]}".replace("\\", "\\\\").replace("\n", "\\n") for k in names]
    try:
        info = os.stat(_config_file(env))
        lines.append(f"config-file={info.st_mtime_ns}:{info.st_size}")
    except OSError:
        lines.append("config-file=none")
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def _socket_folder(env: dict[str, str] | os._Environ[str]) -> str:
    runtime = env.get("XDG_RUNTIME_DIR")
    # A runtime folder the user cannot enter (another user's, after `su` without `-`) would
    # fail every connect: such a hook uses the /tmp folder instead.
    if runtime and os.path.isdir(runtime) and os.access(runtime, os.W_OK | os.X_OK):
        return os.path.join(runtime, "memory")
    return os.path.join("/tmp", f"memory-{os.getuid()}")  # noqa: S108 - checked to be ours and 0700


def socket_path(settings: bytes, environ: dict[str, str] | os._Environ[str] | None = None) -> str:
    """Where the worker for these settings listens (short: macOS allows 104 bytes).

    `environ` is the hook's environment (default this process's).
    """
    import zlib

    from memory_core.version import __version__

    # The interpreter is part of the key: another virtualenv may hold other harness packages.
    key = zlib.crc32(b"\0".join((settings, __version__.encode(), os.fsencode(sys.executable))))
    return os.path.join(_socket_folder(os.environ if environ is None else environ), f"w{__version__}-{key:08x}.sock")


def _folder_is_private(folder: str) -> bool:
    """Our own folder, not a link, closed to everyone else: nobody else can plant a socket."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return False
    import stat

    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077 == 0


def _ask_worker(path: str, adapter: str, settings: bytes, raw: bytes) -> bytes | None:
    """The worker's answer, or None when no worker answered properly."""
    import _socket

    if not _folder_is_private(os.path.dirname(path)):
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(_CONNECT_TIMEOUT_S)
        sock.connect(path)
        sock.settimeout(_ANSWER_TIMEOUT_S)
        # The hook's own folder goes along: a payload without a cwd belongs to the project the
        # hook runs in, exactly as when the hook handles the turn itself.
        here = os.fsencode(os.getcwd())
        header = b"%s %s %d %d %d\n" % (PROTOCOL, adapter.encode(), len(settings), len(here), len(raw))
        sock.sendall(header + settings + here + raw)
        sock.shutdown(_socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        sock.close()
    reply = b"".join(chunks)
    if not reply.startswith(b"OK\n"):
        return None
    return reply[3:]


def _start_worker(path: str, adapter: str) -> None:
    """Start a worker for the next turn, detached (its own session), without waiting for it.

    The worker is told the adapter (`--warm`) and starts in this hook's folder: it loads the
    model and this project's vectors as it starts, so the session's first prompt that reaches it
    is answered warm even though this turn (a SessionStart, say) was handled here.
    """
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not _folder_is_private(folder):
            return
        pid = os.fork()
    except OSError:
        return
    if pid:
        try:
            os.waitpid(pid, 0)  # the intermediate child exits at once; the worker is re-parented
        except OSError:
            pass
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        argv = [sys.executable, "-m", "memory_core.hookpath.worker", "--socket", path, "--warm", adapter]
        os.execv(sys.executable, argv)  # noqa: S606
    except BaseException:  # noqa: BLE001, S110 - the forked child must never return into the hook
        pass
    os._exit(0)


def _handle_here(adapter: str, raw: bytes, problem: BaseException | None = None) -> str:
    import gc
    import importlib

    # This process handles one turn and ends in `os._exit`: the cycle collector's passes over
    # the tens of thousands of objects the engine's imports create (about 70 passes, some of
    # them full) would free nothing worth their 15 to 30 ms of a cold turn. Reference counting
    # still frees everything that is not a cycle, and the process is gone a moment later.
    gc.disable()
    # This process is memory's alone, and its pydantic models (the settings, the payload)
    # are no application's to instrument: pydantic's plugin scan would read the entry points
    # of every installed distribution to find none, about 5 ms of a cold turn (more in a big
    # environment). A value the user set is theirs and kept (docs/design.md).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from memory_core.hookpath.runner import run

    if problem is not None:
        try:
            from memory_core.config import Config
            from memory_core.localstate.logbook import Logbook

            config = Config.from_env()
            reason = f"{type(problem).__name__}: {problem}"
            Logbook(config.log_path, config.state_dir).error(
                "hookclient", f"the worker could not be used, turn handled in the hook: {reason}"
            )
        except Exception:  # noqa: BLE001, S110 - the turn matters more than the log line
            pass

    module, _, name = adapter.partition(":")
    return run(getattr(importlib.import_module(module), name)(), raw)


def main(adapter: str) -> None:
    """Run one hook call for `adapter` (`"package.module:Class"`): stdin in, stdout out, exit 0."""
    try:
        raw = sys.stdin.buffer.read()
        if os.environ.get("MEMORY_ENABLED", "1").strip().lower() in _FALSE:
            os._exit(0)
        out: bytes | str | None = None
        problem: BaseException | None = None
        if os.environ.get("MEMORY_WORKER", "1").strip().lower() not in _FALSE:
            try:
                settings = worker_environment()
                path = socket_path(settings)
                out = _ask_worker(path, adapter, settings, raw)
                if out is None:
                    _start_worker(path, adapter)
            except Exception as exc:  # noqa: BLE001 - the worker only saves time; its failure never costs the turn
                out, problem = None, exc
        if out is None:
            out = _handle_here(adapter, raw, problem)
        if out:
            if isinstance(out, str):
                out = out.encode("utf-8")
            sys.stdout.buffer.write(out)
            sys.stdout.buffer.flush()
    except BaseException:  # noqa: BLE001, S110 - exit 0 is the contract, even on Ctrl-C
        pass
    # Skip interpreter teardown: the answer is written and exit 0 is the contract anyway.
    os._exit(0)
