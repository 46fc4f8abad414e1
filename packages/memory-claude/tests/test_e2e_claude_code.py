"""End to end with the real Claude Code (pinned) against a mock Messages API on 127.0.0.1.

`memory install claude` runs through the real CLI in a throwaway HOME with `claude` on PATH
(so the MCP server is registered by `claude mcp add`). Session 1 states a fact; session 2, a
new session, asks about it: the request the mock received must carry the fact as the
UserPromptSubmit hook's additional context. An unrelated prompt must carry no injected context.
The plugin route (`claude plugin marketplace add` + `claude plugin install`) is run the same way.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_claude.harness import ClaudeHarness
from memory_core.installing import apply_plan
from memory_testing.mock_models import claude_code_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_INJECTED = "UserPromptSubmit hook additional context"
_RUN_TIMEOUT_S = 120


def _env(home: Path, claude_bin: Path, model_url: str) -> dict[str, str]:
    keep = ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "LANG", "TMPDIR", "MEMORY_HARNESS_CACHE")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env.update(
        {
            "HOME": str(home),
            # claude, then this venv's scripts (memory-claude-hook, memory-mcp), then the system.
            "PATH": os.pathsep.join([str(claude_bin.parent), str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
            **claude_code_env(model_url),
        }
    )
    return env


def _run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=_RUN_TIMEOUT_S, check=False)
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def _turn(claude_bin: Path, prompt: str, *, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    done = _run([str(claude_bin), "-p", prompt, "--output-format", "json"], cwd=cwd, env=env)
    result: dict[str, Any] = json.loads(done.stdout)
    assert not result.get("is_error"), result
    return result


def _injected_after(body: str, marker: str = _INJECTED) -> str:
    """The text Claude Code placed after the hook context marker (either placement)."""
    start = body.index(marker) + len(marker)
    return body[start : start + 2000]


def _recall_then_unrelated(claude_bin: Path, project: Path, env: dict[str, str], mock: Any) -> None:
    first = _turn(claude_bin, "remember that the build uses tox", cwd=project, env=env)
    assert first["result"] == "Noted: the build uses tox."
    [turn1] = mock.requests_with("remember that the build uses tox")
    assert _INJECTED not in turn1  # an empty memory injects nothing

    second = _turn(claude_bin, "what does the build use?", cwd=project, env=env)
    assert second["session_id"] != first["session_id"]
    [turn2] = mock.requests_with("what does the build use?")
    assert _INJECTED in turn2, "the recalled fact never reached the model"
    assert "the build uses tox" in _injected_after(turn2)

    _turn(claude_bin, "sketch a haiku about autumn leaves", cwd=project, env=env)
    [unrelated] = mock.requests_with("sketch a haiku about autumn leaves")
    assert _INJECTED not in unrelated


def test_installed_hooks_recall_a_fact_from_an_earlier_session(
    claude_bin: Path, mock_model: Any, tmp_path: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = _env(home, claude_bin, mock_model.url)

    memory = [sys.executable, "-m", "memory_core.cli"]
    installed = _run(
        [*memory, "install", "claude", "--scope", "user", "--project-dir", str(project)], cwd=project, env=env
    )
    assert "installed" in installed.stdout
    # `claude` was on PATH: the server went in through `claude mcp add`, the same entry a direct edit writes.
    server = json.loads((home / ".claude.json").read_text())["mcpServers"]["memory"]
    assert server == {"type": "stdio", "command": sys.executable, "args": ["-m", "memory_mcp"], "env": {}}
    again = _run([*memory, "install", "claude"], cwd=project, env=env)
    assert "already installed" in again.stdout
    # Claude Code's own health check starts the registered server and speaks MCP to it.
    assert "Connected" in _run([str(claude_bin), "mcp", "get", "memory"], cwd=project, env=env).stdout

    _recall_then_unrelated(claude_bin, project, env, mock_model)

    _run([*memory, "uninstall", "claude"], cwd=project, env=env)
    assert not (home / ".claude" / "settings.json").exists()
    assert "memory" not in json.loads((home / ".claude.json").read_text()).get("mcpServers", {})


def test_the_plugin_route_recalls_a_fact_from_an_earlier_session(
    claude_bin: Path, mock_model: Any, tmp_path: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = _env(home, claude_bin, mock_model.url)
    hook_script = Path(sys.executable).parent / "memory-claude-hook"
    marketplace = _run([str(hook_script), "--plugin-dir"], cwd=project, env=env).stdout.strip()
    assert Path(marketplace) == ClaudeHarness().plugin_dir()

    _run([str(claude_bin), "plugin", "validate", marketplace], cwd=project, env=env)
    _run([str(claude_bin), "plugin", "marketplace", "add", marketplace], cwd=project, env=env)
    _run([str(claude_bin), "plugin", "install", "memory@subconscious-memory"], cwd=project, env=env)
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {"memory@subconscious-memory": True}
    servers = _run([str(claude_bin), "mcp", "list"], cwd=project, env=env).stdout
    assert "plugin:memory:memory: memory-mcp" in servers
    assert "Connected" in servers

    _recall_then_unrelated(claude_bin, project, env, mock_model)


def test_a_compaction_lets_the_session_be_reminded_again(claude_bin: Path, mock_model: Any, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = _env(home, claude_bin, mock_model.url)
    _run(
        [sys.executable, "-m", "memory_core.cli", "install", "claude", "--project-dir", str(project)],
        cwd=project,
        env=env,
    )
    _turn(claude_bin, "remember that the build uses tox", cwd=project, env=env)

    session = _turn(claude_bin, "what does the build use?", cwd=project, env=env)["session_id"]
    assert _INJECTED in mock_model.requests_with("what does the build use?")[-1]

    def resumed(prompt: str) -> str:
        _run([str(claude_bin), "-p", prompt, "--resume", session, "--output-format", "json"], cwd=project, env=env)
        # A resumed request repeats the earlier turns: look only after this prompt.
        body = mock_model.requests_with(prompt)[-1]
        return body[body.rindex(json.dumps(prompt)[1:-1]) :]

    assert _INJECTED not in resumed("and which build tool again?")  # already in this session's context
    _run([str(claude_bin), "-p", "/compact", "--resume", session, "--output-format", "json"], cwd=project, env=env)
    after = resumed("remind me, what does the build use?")
    assert _INJECTED in after, "SessionStart(compact) did not reset the injected set"
    assert "the build uses tox" in _injected_after(after)


def test_the_mcp_server_goes_in_through_claude_mcp_add_in_every_scope(
    claude_bin: Path, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", os.pathsep.join([str(claude_bin.parent), os.environ["PATH"]]))
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    harness = ClaudeHarness()
    out = io.StringIO()
    assert apply_plan(harness.plan_install("user", project_dir=project), dry_run=True, out=out)
    assert f"would run: {claude_bin} mcp add --scope user memory -- {sys.executable} -m memory_mcp" in out.getvalue()
    assert not (home / ".claude.json").exists()

    for scope in ("user", "local", "project"):
        apply_plan(harness.plan_install(scope, project_dir=project), dry_run=False, out=io.StringIO())
        assert not harness.plan_install(scope, project_dir=project).changes
    claude_json = json.loads((home / ".claude.json").read_text())
    user_entry = {"type": "stdio", "command": sys.executable, "args": ["-m", "memory_mcp"], "env": {}}
    assert claude_json["mcpServers"]["memory"] == user_entry
    assert claude_json["projects"][str(project.resolve())]["mcpServers"]["memory"] == user_entry
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["memory"]["command"] == "memory-mcp"

    # An entry left by an older interpreter is replaced, not duplicated.
    (home / ".claude.json").write_text((home / ".claude.json").read_text().replace(sys.executable, "/old/bin/python"))
    plan = harness.plan_install("user", project_dir=project)
    assert [step.description.split()[1:3] for step in plan.steps] == [["mcp", "remove"], ["mcp", "add"]]
    apply_plan(plan, dry_run=False, out=io.StringIO())
    assert json.loads((home / ".claude.json").read_text())["mcpServers"]["memory"] == user_entry

    for scope in ("user", "local", "project"):
        apply_plan(harness.plan_uninstall(scope, project_dir=project), dry_run=False, out=io.StringIO())
    claude_json = json.loads((home / ".claude.json").read_text())
    assert "mcpServers" not in claude_json  # `claude mcp add` created it for us; nothing of ours remains
    assert "memory" not in claude_json["projects"][str(project.resolve())]["mcpServers"]
    assert not (project / ".mcp.json").exists()


def test_project_scope_hooks_run_from_path_on_a_teammates_machine(
    claude_bin: Path, mock_model: Any, tmp_path: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = _env(home, claude_bin, mock_model.url)
    memory = [sys.executable, "-m", "memory_core.cli"]
    _run([*memory, "install", "claude", "--scope", "project", "--project-dir", str(project)], cwd=project, env=env)
    assert not (home / ".claude" / "settings.json").exists()  # nothing of ours outside the shared files

    _turn(claude_bin, "remember that the build uses tox", cwd=project, env=env)
    _turn(claude_bin, "what does the build use?", cwd=project, env=env)
    [turn2] = mock_model.requests_with("what does the build use?")
    assert "the build uses tox" in _injected_after(turn2)
