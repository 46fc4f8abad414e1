"""Making memory-core and memory-hermes importable in Hermes's own interpreter.

The plugin runs inside Hermes, so our packages must be installed there, from the same source
our own install came from, read from each distribution's `direct_url.json` (PEP 610): an
editable checkout installs editable (`-e <path>`), a local folder, archive or VCS checkout by
its URL, and an index install as `<name>==<version>`. memory-core gets the extra its store
needs (`redis`, `postgres`): the plugin opens the store inside Hermes.

Beside Hermes's pins: pip runs with a constraints file holding every distribution already in
Hermes's interpreter at its present version (ours excepted), so the install may add packages
but never moves one Hermes depends on (hermes-agent 0.19.0 pins `pydantic==2.13.4`, ...).
memory-core's and memory-hermes's one runtime dependency, pydantic (`>=2.5,<3`), is then the
one Hermes already has.

Idempotence: nothing to do when both distributions are there at our versions from our source
and the store's client imports. Record: a successful install writes `<state dir>/
hermes-install.json` naming the interpreter and the distributions it added; an uninstall
removes exactly those, so packages someone else put there stay.

Failure: `ProvisionFailed` with pip's last lines; at plan time, when Hermes's interpreter has
neither pip nor a `uv` on PATH, with the command to run by hand.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from memory_core.installing import atomic_write

from memory_hermes.errors import ProvisionFailed
from memory_hermes.probe import OUR_DISTS, Probe

__all__ = [
    "Source",
    "current_source",
    "store_extra",
    "InstallRecord",
    "Provisioning",
    "plan_provisioning",
    "Deprovisioning",
    "plan_deprovisioning",
]

_PIP_TIMEOUT_S = 900
_RECORD_NAME = "hermes-install.json"
_STORE_EXTRAS = {
    "redis": ("redis", "redis"),
    "rediss": ("redis", "redis"),
    "valkey": ("redis", "redis"),
    "valkeys": ("redis", "redis"),
    "postgresql": ("postgres", "psycopg"),
    "postgres": ("postgres", "psycopg"),
}


@dataclass(frozen=True, slots=True)
class Source:
    """Where one of our distributions was installed from.

    Attributes:
        name: The distribution name.
        version: Its version.
        url: The `direct_url.json` URL, or None for an index install.
        editable: Whether it is an editable install of a local folder.
        vcs_ref: `git+<url>@<commit>` for a VCS install, else None.
    """

    name: str
    version: str
    url: str | None = None
    editable: bool = False
    vcs_ref: str | None = None

    def pip_args(self, extra: str | None = None) -> list[str]:
        """The pip arguments that install this same source."""
        extras = f"[{extra}]" if extra else ""
        if self.url is None:
            return [f"{self.name}{extras}=={self.version}"]
        if self.editable:
            return ["-e", f"{_file_path(self.url)}{extras}"]
        return [f"{self.name}{extras} @ {self.vcs_ref or self.url}"]

    def same_origin(self, direct_url: str | None) -> bool:
        """Whether a `direct_url.json` text describes this same source."""
        other = _parse_direct_url(self.name, self.version, direct_url)
        return (other.url, other.editable, other.vcs_ref) == (self.url, self.editable, self.vcs_ref)


def _file_path(url: str) -> str:
    parsed = urlparse(url)
    return unquote(parsed.path) if parsed.scheme == "file" else url


def _parse_direct_url(name: str, version: str, text: str | None) -> Source:
    if not text:
        return Source(name, version)
    try:
        data = json.loads(text)
    except ValueError:
        return Source(name, version)
    url = data.get("url")
    if not isinstance(url, str):
        return Source(name, version)
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") and vcs.get("commit_id"):
        return Source(name, version, url=url, vcs_ref=f"{vcs['vcs']}+{url}@{vcs['commit_id']}")
    dir_info = data.get("dir_info")
    editable = isinstance(dir_info, dict) and bool(dir_info.get("editable"))
    return Source(name, version, url=url, editable=editable)


def current_source(name: str) -> Source:
    """How `name` is installed in the interpreter running us."""
    dist = metadata.distribution(name)
    return _parse_direct_url(name, dist.version, dist.read_text("direct_url.json"))


def store_extra(url: str) -> tuple[str, str] | None:
    """The memory-core extra and the module a store URL needs (`("redis", "redis")`), or None."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    return _STORE_EXTRAS.get(scheme.split("+", 1)[0])


@dataclass(frozen=True, slots=True)
class InstallRecord:
    """What an install put into Hermes's interpreter, so an uninstall removes only that."""

    python: str
    dists: tuple[str, ...]

    @staticmethod
    def path(state_dir: Path) -> Path:
        """Where the record lives."""
        return state_dir / _RECORD_NAME

    @classmethod
    def read(cls, state_dir: Path) -> InstallRecord | None:
        """The record, or None when there is none (or it is unreadable)."""
        try:
            data = json.loads(cls.path(state_dir).read_text(encoding="utf-8"))
            return cls(python=str(data["python"]), dists=tuple(str(d) for d in data["dists"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def write(self, state_dir: Path) -> None:
        """Write the record atomically."""
        text = json.dumps({"python": self.python, "dists": list(self.dists)}, indent=2) + "\n"
        atomic_write(self.path(state_dir), text)


def _installer(python: Path, has_pip: bool) -> list[str] | None:
    """The command prefix that installs into `python`: its own pip, else `uv pip --python`."""
    if has_pip:
        return [str(python), "-m", "pip"]
    uv = shutil.which("uv")
    return [uv, "pip"] if uv else None


def _command(installer: Sequence[str], python: Path, verb: str, *args: str) -> list[str]:
    if installer[0] == str(python):
        quiet = ["--disable-pip-version-check", "--quiet"] + (["-y"] if verb == "uninstall" else [])
        return [*installer, verb, *quiet, *args]
    return [*installer, verb, "--python", str(python), "--quiet", *args]


def _run(argv: Sequence[str]) -> None:
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=_PIP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProvisionFailed(f"{' '.join(argv)}: {exc}") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise ProvisionFailed(f"{' '.join(argv)} exited {done.returncode}:\n{tail}")


@dataclass(frozen=True, slots=True)
class Provisioning:
    """The install into Hermes's interpreter that a plan will run.

    Attributes:
        python: Hermes's interpreter.
        requirements: The pip arguments naming what to install.
        pinned: `name==version` of every distribution already there, kept where it is.
        added: Our distributions not there before (what the record will name).
        installer: The command prefix (`<python> -m pip`, or `uv pip`).
        state_dir: Where the record goes.
    """

    python: Path
    requirements: tuple[str, ...]
    pinned: tuple[str, ...]
    added: tuple[str, ...]
    installer: tuple[str, ...]
    state_dir: Path

    def describe(self) -> str:
        """One line for `--dry-run` and the plan's steps."""
        return f"install into Hermes's interpreter {self.python}: {' '.join(self.requirements)}"

    def run(self) -> None:
        """Install, then record what was added. Raises `ProvisionFailed`."""
        fd, constraints = tempfile.mkstemp(prefix="memory-hermes-constraints-", suffix=".txt")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write("".join(f"{line}\n" for line in self.pinned))
            _run(_command(self.installer, self.python, "install", "--constraint", constraints, *self.requirements))
        finally:
            Path(constraints).unlink(missing_ok=True)
        previous = InstallRecord.read(self.state_dir)
        kept = previous.dists if previous is not None and previous.python == str(self.python) else ()
        dists = tuple(sorted(set(kept) | set(self.added)))
        InstallRecord(python=str(self.python), dists=dists).write(self.state_dir)


def plan_provisioning(probe: Probe, *, store_url: str, state_dir: Path) -> Provisioning | None:
    """The install Hermes's interpreter needs, or None when it already has our packages."""
    extra = store_extra(store_url)
    sources = [current_source(name) for name in OUR_DISTS]
    satisfied = all(
        probe.dists.get(source.name) == source.version and source.same_origin(probe.direct_urls.get(source.name))
        for source in sources
    )
    if satisfied and (extra is None or probe.has(extra[1])):
        return None
    requirements: list[str] = []
    for source in sources:
        requirements += source.pip_args(extra[0] if extra and source.name == "memory-core" else None)
    installer = _installer(probe.python, probe.has("pip"))
    if installer is None:
        raise ProvisionFailed(
            f"Hermes's interpreter {probe.python} has no pip and `uv` is not on PATH; install our packages "
            f"into it yourself: {probe.python} -m ensurepip && {probe.python} -m pip install {' '.join(requirements)}"
        )
    pinned = tuple(f"{name}=={version}" for name, version in sorted(probe.dists.items()) if name not in OUR_DISTS)
    added = tuple(name for name in OUR_DISTS if name not in probe.dists)
    return Provisioning(
        python=probe.python,
        requirements=tuple(requirements),
        pinned=pinned,
        added=added,
        installer=tuple(installer),
        state_dir=state_dir,
    )


@dataclass(frozen=True, slots=True)
class Deprovisioning:
    """The uninstall of what an install added to Hermes's interpreter."""

    record: InstallRecord
    state_dir: Path

    def describe(self) -> str:
        """One line for `--dry-run` and the plan's steps."""
        names = " ".join(self.record.dists) or "nothing"
        return f"uninstall from Hermes's interpreter {self.record.python}: {names}"

    def run(self) -> None:
        """Uninstall what the record names (if the interpreter still exists), then drop the record."""
        python = Path(self.record.python)
        if self.record.dists and os.access(python, os.X_OK):
            has_pip = subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True, check=False)
            installer = _installer(python, has_pip.returncode == 0)
            if installer is not None:
                _run(_command(installer, python, "uninstall", *self.record.dists))
                _remove_leftover_packages(python, self.record.dists)
        InstallRecord.path(self.state_dir).unlink(missing_ok=True)


def _remove_leftover_packages(python: Path, dists: Sequence[str]) -> None:
    """Remove our import folders that an uninstall left holding nothing but bytecode caches.

    pip removes the files a wheel's RECORD names; bytecode that Hermes's own interpreter wrote
    later can stay behind, and a folder left with only `__pycache__` still imports as a namespace
    package, so `import memory_hermes` would succeed after an uninstall. A folder holding anything
    else is someone's and is left alone.
    """
    found = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0 or not found.stdout.strip():
        return
    site = Path(found.stdout.strip())
    for dist in dists:
        folder = site / dist.replace("-", "_")
        if not folder.is_dir() or folder.is_symlink():
            continue
        if all(child.name == "__pycache__" and child.is_dir() for child in folder.iterdir()):
            shutil.rmtree(folder, ignore_errors=True)


def plan_deprovisioning(state_dir: Path) -> Deprovisioning | None:
    """The uninstall an install left a record for, or None."""
    record = InstallRecord.read(state_dir)
    return Deprovisioning(record=record, state_dir=state_dir) if record is not None else None
