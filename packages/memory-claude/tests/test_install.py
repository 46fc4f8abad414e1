"""The installer's promises, on real files in a throwaway HOME (the direct-edit route: no `claude`).

Install writes our hooks and MCP entry, keeps a `.bak`, leaves every other hook and key alone;
a second install changes nothing; `--dry-run` writes nothing; uninstall puts each settings file
back byte for byte, removes a file the install created, and leaves nothing of ours in
`~/.claude.json`.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_claude.errors import SettingsFileError
from memory_claude.harness import ClaudeHarness
from memory_core.installing import apply_plan

CONFIGS = Path(__file__).resolve().parent.parent / "fixtures" / "configs"
harness = ClaudeHarness()
USER_COMMAND = shlex.join([sys.executable, "-m", "memory_claude.hook"])


def install(scope: str, project: Path, *, dry_run: bool = False) -> tuple[bool, str]:
    out = io.StringIO()
    changed = apply_plan(harness.plan_install(scope, project_dir=project), dry_run=dry_run, out=out)
    return changed, out.getvalue()


def uninstall(scope: str, project: Path) -> bool:
    return apply_plan(harness.plan_uninstall(scope, project_dir=project), dry_run=False, out=io.StringIO())


def settings_file(scope: str, home: Path, project: Path) -> Path:
    return {
        "user": home / ".claude" / "settings.json",
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
    }[scope]


def mcp_file(scope: str, home: Path, project: Path) -> Path:
    return project / ".mcp.json" if scope == "project" else home / ".claude.json"


def read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def snapshot(*folders: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for folder in folders for path in sorted(folder.rglob("*")) if path.is_file()}


def our_handlers(settings: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for handler in group["hooks"]:
                if "memory_claude.hook" in handler.get("command", "") or "memory-claude-hook" in handler.get(
                    "command", ""
                ):
                    found.setdefault(event, []).append({**handler, "matcher": group.get("matcher")})
    return found


def test_user_install_writes_hooks_with_this_interpreter_and_registers_the_mcp_server(
    home: Path, project: Path
) -> None:
    changed, _ = install("user", project)
    assert changed
    hooks = our_handlers(read_json(home / ".claude" / "settings.json"))
    assert set(hooks) == {"UserPromptSubmit", "Stop", "SessionStart"}
    for handlers in hooks.values():
        assert [h["command"] for h in handlers] == [USER_COMMAND]
        assert handlers[0]["type"] == "command"
    assert hooks["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert hooks["UserPromptSubmit"][0]["matcher"] is None
    server = read_json(home / ".claude.json")["mcpServers"]["memory"]
    assert server == {"type": "stdio", "command": sys.executable, "args": ["-m", "memory_mcp"], "env": {}}


def test_local_install_registers_the_server_under_the_projects_real_path(home: Path, project: Path) -> None:
    link = project.parent / "link-to-project"
    link.symlink_to(project)
    install("local", link)
    assert our_handlers(read_json(project / ".claude" / "settings.local.json"))
    servers = read_json(home / ".claude.json")["projects"][str(project.resolve())]["mcpServers"]
    assert servers["memory"]["args"] == ["-m", "memory_mcp"]
    assert not (home / ".claude" / "settings.json").exists()


def test_project_install_writes_commands_every_teammate_can_run(home: Path, project: Path) -> None:
    changed, out = install("project", project)
    assert changed
    hooks = our_handlers(read_json(project / ".claude" / "settings.json"))
    assert {h[0]["command"] for h in hooks.values()} == {"memory-claude-hook || true"}
    assert sys.executable not in (project / ".claude" / "settings.json").read_text()
    assert read_json(project / ".mcp.json") == {
        "mcpServers": {"memory": {"type": "stdio", "command": "memory-mcp", "args": [], "env": {}}}
    }
    assert "note: commit .claude/settings.json and .mcp.json" in out
    assert not (home / ".claude.json").exists()


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_a_second_install_changes_nothing(home: Path, project: Path, scope: str) -> None:
    install(scope, project)
    before = snapshot(home, project)
    plan = harness.plan_install(scope, project_dir=project)
    assert not plan.changes
    changed, _ = install(scope, project)
    assert not changed
    assert snapshot(home, project) == before


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_dry_run_prints_the_diff_and_writes_nothing(home: Path, project: Path, scope: str) -> None:
    original = (CONFIGS / "claude-settings.command-hooks.json").read_text()
    path = settings_file(scope, home, project)
    path.parent.mkdir(parents=True)
    path.write_text(original)
    before = snapshot(home, project)
    changed, out = install(scope, project, dry_run=True)
    assert changed
    assert snapshot(home, project) == before
    assert f"--- {path}" in out
    assert f"+++ {path}" in out
    assert "memory_claude.hook" in out or "memory-claude-hook" in out
    assert "\n+" in out
    assert "/dev/null" in out  # the MCP file is new


def test_install_keeps_the_previous_file_as_bak(home: Path, project: Path) -> None:
    original = (CONFIGS / "claude-settings.command-hooks-v2.json").read_bytes()
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(original)
    install("user", project)
    assert (home / ".claude" / "settings.json.bak").read_bytes() == original
    assert not (home / ".claude.json.bak").exists()  # it did not exist: nothing to keep


@pytest.mark.parametrize(
    "config",
    [
        "claude-settings.command-hooks.json",
        "claude-settings.command-hooks-v2.json",
        "claude-settings.http-hooks.json",
        "claude-settings.after-plugin-install.json",
        "claude-settings.plain-stdout.json",
    ],
)
def test_other_hooks_and_keys_are_left_as_they_were(home: Path, project: Path, config: str) -> None:
    original = json.loads((CONFIGS / config).read_text())
    original["permissions"] = {"allow": ["Bash(echo *)"]}
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(original))
    install("user", project)
    after = read_json(path)
    assert {k: v for k, v in after.items() if k != "hooks"} == {k: v for k, v in original.items() if k != "hooks"}
    for event, groups in original.get("hooks", {}).items():
        # Every group that was there is still there, first and in order; ours come after.
        assert after["hooks"][event][: len(groups)] == groups
    for event in ("UserPromptSubmit", "Stop", "SessionStart"):
        assert after["hooks"][event][-1]["hooks"][0]["command"] == USER_COMMAND


def test_an_old_install_of_ours_is_replaced_not_duplicated(home: Path, project: Path) -> None:
    stale = "/opt/old-venv/bin/python -m memory_claude.hook"
    settings = {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "echo mine"}, {"type": "command", "command": stale}]}
            ],
            "SubagentStop": [{"hooks": [{"type": "command", "command": stale}]}],
        }
    }
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(settings))
    install("user", project)
    after = read_json(path)
    assert {event: [h["command"] for h in hs] for event, hs in our_handlers(after).items()} == {
        "UserPromptSubmit": [USER_COMMAND],
        "Stop": [USER_COMMAND],
        "SessionStart": [USER_COMMAND],
    }
    assert after["hooks"]["UserPromptSubmit"][0] == {"hooks": [{"type": "command", "command": "echo mine"}]}
    assert "SubagentStop" not in after["hooks"]


ORIGINALS = {
    "absent": None,
    "empty object": "{}",
    "compact, no newline": json.dumps(json.loads((CONFIGS / "claude-settings.command-hooks.json").read_text())),
    "recorded as written": (CONFIGS / "claude-settings.command-hooks-v2.json").read_text(),
    "odd spacing": '{ "model" : "sonnet",\n\t"hooks": {"Stop": [ {"hooks": [{"type": "command", "command": "true"}]} ]}'
    + " }\n",
    "plugin settings": (CONFIGS / "claude-settings.after-plugin-install.json").read_text(),
}


@pytest.mark.parametrize("scope", ["user", "project", "local"])
@pytest.mark.parametrize("original", list(ORIGINALS), ids=str)
def test_install_then_uninstall_leaves_the_settings_file_byte_for_byte(
    home: Path, project: Path, scope: str, original: str
) -> None:
    text = ORIGINALS[original]
    path = settings_file(scope, home, project)
    if text is not None:
        path.parent.mkdir(parents=True)
        path.write_text(text)
    install(scope, project)
    assert our_handlers(read_json(path))
    assert uninstall(scope, project)
    if text is None:
        assert not path.exists()
    else:
        assert path.read_text() == text
    assert not uninstall(scope, project)  # a second uninstall finds nothing of ours


def test_project_install_then_uninstall_restores_or_removes_mcp_json(home: Path, project: Path) -> None:
    install("project", project)
    uninstall("project", project)
    assert not (project / ".mcp.json").exists()
    recorded = (CONFIGS / "mcp.json.after-mcp-add.json").read_text()
    (project / ".mcp.json").write_text(recorded)
    install("project", project)
    assert set(read_json(project / ".mcp.json")["mcpServers"]) == {"tinymem-proj", "memory"}
    uninstall("project", project)
    assert (project / ".mcp.json").read_text() == recorded


@pytest.mark.parametrize("scope", ["user", "local"])
def test_uninstall_leaves_nothing_of_ours_in_claude_json_after_claude_code_rewrote_it(
    home: Path, project: Path, scope: str
) -> None:
    claude_json = home / ".claude.json"
    original = {"firstStartTime": "2026-11-30T04:32:28.546Z", "numStartups": 1}
    claude_json.write_text(json.dumps(original, indent=2))
    install(scope, project)
    # Claude Code rewrites the file as it runs: new values, its own formatting.
    rewritten = {**read_json(claude_json), "numStartups": 2}
    claude_json.write_text(json.dumps(rewritten))
    uninstall(scope, project)
    assert read_json(claude_json) == {**original, "numStartups": 2}


def test_uninstall_keeps_other_servers_in_claude_json(home: Path, project: Path) -> None:
    recorded = read_json(CONFIGS / "claude.json.after-mcp-add.json")
    recorded["projects"][str(project.resolve())] = recorded["projects"].pop("/home/dev/project")
    (home / ".claude.json").write_text(json.dumps(recorded, indent=2))
    for scope in ("user", "local"):
        install(scope, project)
        assert "memory" in json.dumps(read_json(home / ".claude.json"))
        uninstall(scope, project)
        assert read_json(home / ".claude.json") == recorded


def test_a_malformed_settings_file_is_reported_and_left_alone(home: Path, project: Path) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {"Stop": [}')
    with pytest.raises(SettingsFileError, match=str(path)):
        harness.plan_install("user", project_dir=project)
    path.write_text('{"hooks": ["not", "an", "object"]}')
    with pytest.raises(SettingsFileError, match="hooks"):
        harness.plan_install("user", project_dir=project)
    assert path.read_text() == '{"hooks": ["not", "an", "object"]}'


def test_an_unknown_scope_is_refused(home: Path, project: Path) -> None:
    with pytest.raises(ValueError, match="scope"):
        harness.plan_install("global", project_dir=project)


def test_the_memory_cli_installs_and_uninstalls_through_this_package(home: Path, project: Path) -> None:
    env = {**os.environ, "HOME": str(home)}

    def memory(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "memory_core.cli", *args, "--project-dir", str(project)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return done.stdout

    assert "+++ " in memory("install", "claude", "--dry-run")
    assert not (home / ".claude").exists()
    memory("install", "claude", "--scope", "user")
    assert our_handlers(read_json(home / ".claude" / "settings.json"))
    assert "already installed" in memory("install", "claude")
    memory("uninstall", "claude")
    assert not (home / ".claude" / "settings.json").exists()
    assert not (home / ".claude.json").exists()


def test_installing_in_a_second_scope_warns_that_prompts_would_be_recalled_twice(home: Path, project: Path) -> None:
    install("user", project)
    _, out = install("local", project)
    assert f"note: memory's hooks are also in {home / '.claude' / 'settings.json'} (user scope)" in out
    assert "memory uninstall claude --scope user" in out
