"""Hook trust against the real Codex: our hash is Codex's, and install leaves Codex trusting our hooks.

Each test runs `codex app-server` (Codex 0.171.0, installed into the harness cache) on a
throwaway CODEX_HOME and asks it, through `hooks/list`, what it computes and what it trusts.
"""

from __future__ import annotations

import io
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from memory_codex import install
from memory_codex.trust import AppServer, hook_hash, hook_key
from memory_core.installing import apply_plan

pytestmark = pytest.mark.e2e

USER_SHAPED_GROUPS: dict[str, list[dict[str, Any]]] = {
    "UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "python3 /opt/hooks/capture_hook.py cx-ups"}]},
        {"matcher": "ignored for this event", "hooks": [{"type": "command", "command": "echo 'quoted \" arg'"}]},
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "async": True, "timeout": 5}]}],
    "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "audit", "statusMessage": "checking"}]}],
    "PostToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": "naïve-ünïcode ✓", "timeout": 0}]}],
    "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "cat"}]}],
    "SessionEnd": [
        {"hooks": [{"type": "command", "command": "end-default"}]},
        {"hooks": [{"type": "command", "command": "end-long", "timeout": 60}]},
    ],
}


def listed(codex: Path, codex_home: Path, cwd: Path) -> dict[str, dict[str, Any]]:
    with AppServer(str(codex), codex_home=codex_home) as server:
        return server.hooks(cwd)


def test_our_hash_is_the_hash_codex_computes(codex_bin: Path, codex_home: Path, project: Path) -> None:
    groups = {event: list(shapes) for event, shapes in USER_SHAPED_GROUPS.items()}
    for event, group in install.hook_groups(install.hook_command("user")).items():
        groups.setdefault(event, []).append(group)
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": groups}))
    seen = listed(codex_bin, codex_home, project)
    compared = 0
    for event, event_groups in groups.items():
        for index, group in enumerate(event_groups):
            key = hook_key(codex_home / "hooks.json", event, index)
            assert seen[key]["currentHash"] == hook_hash(event, group), (event, group)
            compared += 1
    assert compared == sum(len(g) for g in groups.values())


def test_install_leaves_codex_trusting_every_memory_hook_and_no_other(
    codex_on_path: Path, codex_home: Path, project: Path
) -> None:
    hooks_json = (Path(__file__).resolve().parents[1] / "fixtures" / "configs" / "codex-hooks.v2.json").read_text()
    (codex_home / "hooks.json").write_text(hooks_json)
    plan = install.plan_install("user", project_dir=project)
    assert plan.steps  # codex is on PATH: the app-server confirms
    apply_plan(plan, dry_run=False, out=io.StringIO())
    seen = listed(codex_on_path, codex_home, project)
    ours = {k: v for k, v in seen.items() if "memory_codex.hook" in str(v.get("command"))}
    assert len(ours) == 3
    assert all(hook["trustStatus"] == "trusted" for hook in ours.values())
    assert all(hook["trustStatus"] == "untrusted" for key, hook in seen.items() if key not in ours)


def test_a_codex_that_hashes_differently_is_trusted_through_its_own_writer(
    codex_on_path: Path, codex_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stand-in for a future Codex whose hash we do not reproduce: our computed value is wrong.
    monkeypatch.setattr(install, "hook_hash", lambda event, group: "sha256:" + "0" * 64)
    apply_plan(install.plan_install("user", project_dir=project), dry_run=False, out=io.StringIO())
    seen = listed(codex_on_path, codex_home, project)
    state = tomllib.loads((codex_home / "config.toml").read_text())["hooks"]["state"]
    for key, hook in seen.items():
        assert hook["trustStatus"] == "trusted"
        assert state[key]["trusted_hash"] == hook["currentHash"]
    # A second install asks Codex instead of overwriting its hash with ours: nothing changes.
    assert not install.plan_install("user", project_dir=project).changes


def test_project_hooks_are_trusted_once_the_project_is(codex_on_path: Path, codex_home: Path, project: Path) -> None:
    (codex_home / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    plan = install.plan_install("project", project_dir=project)
    assert not any("one step left" in note for note in plan.notes)
    apply_plan(plan, dry_run=False, out=io.StringIO())
    seen = listed(codex_on_path, codex_home, project)
    ours = {k: v for k, v in seen.items() if k.startswith(str(project / ".codex" / "hooks.json"))}
    assert len(ours) == 3
    assert all(hook["trustStatus"] == "trusted" for hook in ours.values())
