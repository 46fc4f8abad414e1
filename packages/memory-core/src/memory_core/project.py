"""Project identity: which project a working directory belongs to, and the per-project switch.

The key is stable across clones and machines where it can be: the `origin` remote of the
repository holding the directory, normalised so ssh and https forms agree, `.git` dropped and
any `user:token@` stripped (no credential ever becomes a key). With no remote, the
repository's root path (a worktree's main repository root); outside a repository, the
directory itself. `MEMORY_PROJECT` overrides all of it.

Git is read from its files, not by running `git`: a hook cannot afford a subprocess.
Nothing here raises for a broken repository: it falls back to the directory's path.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ProjectIdentity", "resolve_project", "normalise_remote", "is_disabled", "set_disabled"]

_SCP_LIKE = re.compile(r"^(?:(?P<user>[^@/]+)@)?(?P<host>[^:/]+):(?!//)(?P<path>.+)$")
_REMOTE_SECTION = re.compile(r'^\s*\[\s*remote\s+"(?P<name>[^"]+)"\s*\]\s*$')
_SECTION = re.compile(r"^\s*\[")
_URL_LINE = re.compile(r"^\s*url\s*=\s*(?P<url>.+?)\s*$")


@dataclass(frozen=True, slots=True)
class ProjectIdentity:
    """A resolved project.

    Attributes:
        key: The project key records are scoped by (`git:host/path`, or `path:/abs/dir`).
        source: How it was found: `MEMORY_PROJECT`, `git-remote`, `git-root` or `directory`.
        root: The folder the per-project switch applies to (repository root or directory).
    """

    key: str
    source: str
    root: str


def normalise_remote(url: str) -> str:
    """`git@github.com:Org/Repo.git`, `https://u:tok@github.com/Org/Repo` -> `github.com/Org/Repo`.

    The host is lower-cased (hosts are case-insensitive); the path keeps its case.
    """
    url = url.strip()
    if "://" in url:
        scheme, rest = url.split("://", 1)
        if scheme.lower() == "file":
            return rest.rstrip("/").removesuffix(".git")
        hostpart, _, path = rest.partition("/")
        host = hostpart.rsplit("@", 1)[-1]
        if host.count(":") == 1 and not host.startswith("["):
            name, port = host.split(":")
            # The default ports say nothing about which repository this is.
            host = name if port in ("22", "80", "443", "") else host
    elif match := _SCP_LIKE.match(url):
        host, path = match["host"], match["path"]
    else:
        return url.rstrip("/").removesuffix(".git")
    path = path.strip("/").removesuffix(".git").lstrip("~")
    return f"{host.lower()}/{path}"


def _git_dir(worktree_root: Path) -> Path | None:
    """The git directory of a checkout: `.git` itself, or what a `.git` file points to."""
    dot_git = worktree_root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if text.startswith("gitdir:"):
        target = Path(text[len("gitdir:") :].strip())
        return target if target.is_absolute() else (worktree_root / target).resolve()
    return None


def _common_dir(git_dir: Path) -> Path:
    """A worktree's git dir names the main repository's in `commondir`."""
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    common = Path(text)
    return common if common.is_absolute() else (git_dir / common).resolve()


def _origin_url(config_path: Path) -> str | None:
    try:
        lines = config_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    remotes: dict[str, str] = {}
    current: str | None = None
    for line in lines:
        if match := _REMOTE_SECTION.match(line):
            current = match["name"]
        elif _SECTION.match(line):
            current = None
        elif current is not None and (url := _URL_LINE.match(line)):
            remotes.setdefault(current, url["url"].strip('"'))
    if "origin" in remotes:
        return remotes["origin"]
    return remotes[sorted(remotes)[0]] if remotes else None


def resolve_project(cwd: str | os.PathLike[str] | None = None, *, override: str | None = None) -> ProjectIdentity:
    """The project of `cwd` (default: the process's working directory)."""
    directory = Path(os.path.abspath(os.path.expanduser(os.fspath(cwd)))) if cwd else Path.cwd()
    if override:
        return ProjectIdentity(key=override, source="MEMORY_PROJECT", root=str(directory))
    for folder in (directory, *directory.parents):
        if not (folder / ".git").exists():
            continue
        git_dir = _git_dir(folder)
        if git_dir is None:
            break
        common = _common_dir(git_dir)
        remote = _origin_url(common / "config")
        if remote:
            return ProjectIdentity(key=f"git:{normalise_remote(remote)}", source="git-remote", root=str(folder))
        # A worktree's project is its main repository: the common git dir's parent.
        main_root = common.parent if common.name == ".git" else folder
        return ProjectIdentity(key=f"path:{main_root}", source="git-root", root=str(folder))
    return ProjectIdentity(key=f"path:{directory}", source="directory", root=str(directory))


def _switch_path(state_dir: Path, project_key: str) -> Path:
    digest = hashlib.sha256(project_key.encode("utf-8")).hexdigest()[:32]
    return state_dir / "off" / digest


def is_disabled(state_dir: Path, project_key: str) -> bool:
    """Whether `memory off` was run for this project (one `stat` on the hook path)."""
    return _switch_path(state_dir, project_key).exists()


def set_disabled(state_dir: Path, project_key: str, disabled: bool) -> bool:
    """Turn memory off (or back on) for one project; returns whether anything changed."""
    path = _switch_path(state_dir, project_key)
    if disabled == path.exists():
        return False
    if disabled:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_text(project_key + "\n", encoding="utf-8")
    else:
        path.unlink()
    return True
