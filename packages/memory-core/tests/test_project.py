"""Project identity: the key a user's memories are filed under, from real git repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from memory_core.project import is_disabled, normalise_remote, resolve_project, set_disabled


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _repo(path: Path, remote: str | None = None) -> Path:
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    if remote:
        _git(path, "remote", "add", "origin", remote)
    return path


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:Acme/Payments.git", "github.com/Acme/Payments"),
        ("https://github.com/Acme/Payments.git", "github.com/Acme/Payments"),
        ("https://github.com/Acme/Payments/", "github.com/Acme/Payments"),
        ("ssh://git@GitHub.com:22/Acme/Payments.git", "github.com/Acme/Payments"),
        ("https://alice:ghp_secrettoken123@github.com/Acme/Payments.git", "github.com/Acme/Payments"),
        ("https://oauth2:glpat-abcdef@gitlab.example.com:8443/team/app.git", "gitlab.example.com:8443/team/app"),
    ],
)
def test_ssh_and_https_forms_agree_and_credentials_never_reach_the_key(url: str, expected: str) -> None:
    assert normalise_remote(url) == expected


def test_a_subfolder_is_its_repositorys_project(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "payments", "git@github.com:acme/payments.git")
    sub = repo / "src" / "billing"
    sub.mkdir(parents=True)
    assert resolve_project(sub).key == "git:github.com/acme/payments"
    assert resolve_project(sub).source == "git-remote"


def test_two_clones_of_one_remote_share_a_project(tmp_path: Path) -> None:
    one = _repo(tmp_path / "a" / "payments", "git@github.com:acme/payments.git")
    two = _repo(tmp_path / "b" / "checkout", "https://github.com/acme/payments")
    assert resolve_project(one).key == resolve_project(two).key


def test_without_a_remote_the_repository_root_is_the_key(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "scratch")
    (repo / "docs").mkdir()
    identity = resolve_project(repo / "docs")
    assert identity.key == f"path:{repo}"
    assert identity.source == "git-root"


def test_two_folders_with_the_same_name_are_different_projects(tmp_path: Path) -> None:
    one = _repo(tmp_path / "x" / "app")
    two = _repo(tmp_path / "y" / "app")
    assert resolve_project(one).key != resolve_project(two).key


def test_a_worktree_is_its_repositorys_project(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "main-checkout")
    (repo / "f.txt").write_text("x")
    _git(repo, "add", "f.txt")
    _git(repo, "commit", "-qm", "init")
    _git(repo, "worktree", "add", "-q", str(tmp_path / "feature"), "-b", "feature")
    assert resolve_project(tmp_path / "feature").key == resolve_project(repo).key


def test_a_worktree_with_a_remote_uses_the_remote(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "main-checkout", "git@github.com:acme/tool.git")
    (repo / "f.txt").write_text("x")
    _git(repo, "add", "f.txt")
    _git(repo, "commit", "-qm", "init")
    _git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    assert resolve_project(tmp_path / "wt").key == "git:github.com/acme/tool"


def test_outside_a_repository_the_directory_is_the_project(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    assert resolve_project(folder).key == f"path:{folder}"
    assert resolve_project(folder).source == "directory"


def test_memory_project_overrides_everything(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r", "git@github.com:acme/r.git")
    identity = resolve_project(repo, override="team:shared")
    assert identity.key == "team:shared"
    assert identity.source == "MEMORY_PROJECT"


def test_the_project_switch_turns_off_one_project_only(tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert set_disabled(state, "git:a", True)
    assert is_disabled(state, "git:a")
    assert not is_disabled(state, "git:b")
    assert not set_disabled(state, "git:a", True), "a second `memory off` changes nothing"
    assert set_disabled(state, "git:a", False)
    assert not is_disabled(state, "git:a")
