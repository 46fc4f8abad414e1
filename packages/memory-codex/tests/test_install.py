"""The installer's promises, with `codex` not on PATH (the real program's route is in test_trust.py).

Install then uninstall leaves every file byte for byte as it was (a file we created is
removed); a second install changes nothing; `--dry-run` prints a diff and writes nothing;
every write keeps a `.bak`; the user's hook groups keep their positions, so their own trust
entries keep their keys; `config.toml` keeps every byte we do not own, comments and
multi-line strings that look like tables included; an edit that would change more than our
entries is refused before anything is written.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from memory_codex import install
from memory_codex.errors import ConfigFileError, HooksFileError
from memory_codex.trust import hook_hash, hook_key
from memory_core.installing import apply_plan

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"

TRICKY_CONFIG = '''# my Codex settings; keep this comment
model = "gpt-5.5"   # trailing comment
approval_policy = "never"

[profiles.notes]
text = """
[mcp_servers.memory]
command = "not a table, a string"
[hooks.state."/x/hooks.json:stop:0:0"]
"""
literal = \'\'\'
[mcp_servers.other]
\'\'\'
args = [
  ["nested", "array"],
  "x",
]

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "1"]  # why not
# a comment between tables

[[skills]]
name = "one"
[[skills]]
name = "two"
# no newline at the end'''

CONFIG_CASES = {
    "absent": None,
    "empty": "",
    "base": (CONFIGS / "codex-config.toml.base").read_text(),
    "trusted": (CONFIGS / "codex-config.toml.trusted").read_text(),
    "final": (CONFIGS / "codex-config.toml.final-with-mcp-and-trust").read_text(),
    "mcphook": (CONFIGS / "codex-config.toml.mcphook").read_text(),
    "tricky": TRICKY_CONFIG,
    "crlf": (CONFIGS / "codex-config.toml.final-with-mcp-and-trust").read_text().replace("\n", "\r\n"),
}
HOOKS_CASES = {
    "absent": None,
    "recorded": (CONFIGS / "codex-hooks.json").read_text(),
    "v2": (CONFIGS / "codex-hooks.v2.json").read_text(),
    "mcp_tool": (CONFIGS / "codex-hooks.mcp_tool.json").read_text(),
    "one-line": (CONFIGS / "codex-project-hooks.json").read_text(),
    "crlf": (CONFIGS / "codex-hooks.v2.json").read_text().replace("\n", "\r\n"),
    "indented-4": (
        '{\n    "hooks": {\n        "Stop": [\n'
        '            {"hooks": [{"type": "command", "command": "x"}]}\n        ]\n    }\n}'
    ),
}


def write(path: Path, text: str | None) -> None:
    if text is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())


def read(path: Path) -> str | None:
    return path.read_bytes().decode() if path.exists() else None


def do_install(project: Path, scope: str = "user", *, dry_run: bool = False) -> tuple[bool, str]:
    out = io.StringIO()
    changed = apply_plan(install.plan_install(scope, project_dir=project), dry_run=dry_run, out=out)
    return changed, out.getvalue()


def do_uninstall(project: Path, scope: str = "user") -> bool:
    return apply_plan(install.plan_uninstall(scope, project_dir=project), dry_run=False, out=io.StringIO())


@pytest.mark.parametrize("config", list(CONFIG_CASES), ids=str)
@pytest.mark.parametrize("hooks", list(HOOKS_CASES), ids=str)
def test_install_then_uninstall_leaves_every_file_byte_for_byte(
    config: str, hooks: str, codex_home: Path, project: Path
) -> None:
    write(codex_home / "config.toml", CONFIG_CASES[config])
    write(codex_home / "hooks.json", HOOKS_CASES[hooks])
    assert do_install(project)[0]
    assert read(codex_home / "hooks.json") != HOOKS_CASES[hooks]
    do_uninstall(project)
    assert read(codex_home / "config.toml") == CONFIG_CASES[config]
    assert read(codex_home / "hooks.json") == HOOKS_CASES[hooks]


@pytest.mark.parametrize("config", ["absent", "final", "tricky"])
def test_a_second_install_changes_nothing(config: str, codex_home: Path, project: Path) -> None:
    write(codex_home / "config.toml", CONFIG_CASES[config])
    do_install(project)
    before = {p.name: p.read_bytes() for p in codex_home.iterdir()}
    changed, out = do_install(project, dry_run=False)
    assert not changed
    assert "would run" not in out
    assert {p.name: p.read_bytes() for p in codex_home.iterdir()} == before


def test_dry_run_prints_the_diff_and_writes_nothing(codex_home: Path, project: Path) -> None:
    write(codex_home / "config.toml", CONFIG_CASES["base"])
    before = sorted(p.name for p in codex_home.iterdir())
    changed, out = do_install(project, dry_run=True)
    assert changed
    assert f"+++ {codex_home / 'hooks.json'}" in out
    assert "+[mcp_servers.memory]" in out or "memory-mcp is not installed" in out
    assert '+[hooks.state."' in out
    assert sorted(p.name for p in codex_home.iterdir()) == before
    assert read(codex_home / "config.toml") == CONFIG_CASES["base"]


def test_every_write_keeps_the_previous_content_as_bak(codex_home: Path, project: Path) -> None:
    write(codex_home / "config.toml", CONFIG_CASES["final"])
    write(codex_home / "hooks.json", HOOKS_CASES["v2"])
    do_install(project)
    assert read(codex_home / "config.toml.bak") == CONFIG_CASES["final"]
    assert read(codex_home / "hooks.json.bak") == HOOKS_CASES["v2"]


def test_installed_hooks_are_trusted_with_the_hash_of_what_was_written(codex_home: Path, project: Path) -> None:
    do_install(project)
    hooks = json.loads((codex_home / "hooks.json").read_text())["hooks"]
    state = tomllib.loads((codex_home / "config.toml").read_text())["hooks"]["state"]
    for event in ("UserPromptSubmit", "Stop", "SessionStart"):
        (group,) = hooks[event]
        key = hook_key(codex_home / "hooks.json", event, 0)
        assert state[key] == {"trusted_hash": hook_hash(event, group)}
        assert group["hooks"][0]["command"] == install.hook_command("user")


def test_our_groups_go_after_the_users_so_their_trust_entries_keep_their_keys(codex_home: Path, project: Path) -> None:
    write(codex_home / "config.toml", CONFIG_CASES["final"])
    write(codex_home / "hooks.json", HOOKS_CASES["v2"])
    before_hooks = json.loads(HOOKS_CASES["v2"])["hooks"]
    before_state = tomllib.loads(CONFIG_CASES["final"])["hooks"]["state"]
    do_install(project)
    after_hooks = json.loads((codex_home / "hooks.json").read_text())["hooks"]
    after_state = tomllib.loads((codex_home / "config.toml").read_text())["hooks"]["state"]
    for event, groups in before_hooks.items():
        assert after_hooks[event][: len(groups)] == groups
    for key, value in before_state.items():
        assert after_state[key] == value
    assert after_hooks["UserPromptSubmit"][-1]["hooks"][0]["command"] == install.hook_command("user")


def test_config_edits_keep_comments_and_strings_that_look_like_tables(codex_home: Path, project: Path) -> None:
    write(codex_home / "config.toml", TRICKY_CONFIG)
    do_install(project)
    after = (codex_home / "config.toml").read_text()
    assert after.startswith(TRICKY_CONFIG)
    parsed, original = tomllib.loads(after), tomllib.loads(TRICKY_CONFIG)
    assert parsed["profiles"] == original["profiles"]
    assert parsed["skills"] == original["skills"]
    assert parsed["mcp_servers"]["docs"] == original["mcp_servers"]["docs"]


def test_a_changed_interpreter_path_updates_our_entries_in_place(codex_home: Path, project: Path) -> None:
    write(codex_home / "hooks.json", HOOKS_CASES["v2"])
    do_install(project)
    moved = (codex_home / "hooks.json").read_text().replace(sys.executable, "/old/venv/bin/python")
    (codex_home / "hooks.json").write_text(moved)
    do_install(project)
    hooks = json.loads((codex_home / "hooks.json").read_text())["hooks"]
    commands = [g["hooks"][0]["command"] for g in hooks["UserPromptSubmit"]]
    assert commands.count(install.hook_command("user")) == 1
    assert not any("/old/venv" in c for c in commands)
    do_uninstall(project)
    assert read(codex_home / "hooks.json") == HOOKS_CASES["v2"]


def test_a_foreign_mcp_server_named_memory_is_refused_and_nothing_written(codex_home: Path, project: Path) -> None:
    config = '[mcp_servers.memory]\ncommand = "someone-elses-server"\n'
    write(codex_home / "config.toml", config)
    pytest.importorskip("memory_mcp", reason="the MCP entry is only written when memory-mcp is installed")
    with pytest.raises(ConfigFileError, match="memory did not write"):
        install.plan_install("user", project_dir=project)
    assert read(codex_home / "config.toml") == config
    assert not (codex_home / "hooks.json").exists()


def test_an_edit_that_would_change_more_than_our_entries_is_refused(codex_home: Path, project: Path) -> None:
    do_install(project)
    key = hook_key(codex_home / "hooks.json", "Stop", 0)
    # Our trust entry, but spelled as an inline table a header scan cannot see.
    config = f'[hooks.state]\n"{key}" = {{ trusted_hash = "sha256:0" }}\n'
    write(codex_home / "config.toml", config)
    with pytest.raises(ConfigFileError, match="more than memory's own entries"):
        install.plan_install("user", project_dir=project)
    assert read(codex_home / "config.toml") == config


def test_a_config_that_does_not_parse_is_reported_not_rewritten(codex_home: Path, project: Path) -> None:
    write(codex_home / "config.toml", "model = \n")
    with pytest.raises(ConfigFileError, match="does not parse"):
        install.plan_install("user", project_dir=project)


@pytest.mark.parametrize("text", ["{not json", '{"hooks": []}', "[]", '{"hooks": {"Stop": {}}}'])
def test_a_hooks_file_not_in_codexs_shape_is_reported(text: str, codex_home: Path, project: Path) -> None:
    write(codex_home / "hooks.json", text)
    with pytest.raises(HooksFileError):
        install.plan_install("user", project_dir=project)
    assert read(codex_home / "hooks.json") == text


def test_without_codex_on_path_the_user_is_told_how_trust_was_written(codex_home: Path, project: Path) -> None:
    plan = install.plan_install("user", project_dir=project)
    assert not plan.steps
    assert any("`codex` is not on PATH" in note and "/hooks" in note for note in plan.notes)


def test_project_scope_writes_the_shared_file_and_keeps_trust_per_machine(codex_home: Path, project: Path) -> None:
    subfolder = project / "src" / "pkg"
    subfolder.mkdir(parents=True)
    plan = install.plan_install("project", project_dir=subfolder)
    apply_plan(plan, dry_run=False, out=io.StringIO())
    shared = project / ".codex" / "hooks.json"
    groups = json.loads(shared.read_text())["hooks"]
    assert groups["Stop"][0]["hooks"][0]["command"] == "memory-codex-hook || true"
    state = tomllib.loads((codex_home / "config.toml").read_text())["hooks"]["state"]
    assert hook_key(shared, "Stop", 0) in state
    assert any("every teammate" in note for note in plan.notes)
    assert any("one step left" in note and "trust" in note for note in plan.notes)
    do_uninstall(project, "project")
    assert not shared.exists()
    assert not (codex_home / "config.toml").exists()


def test_a_trusted_project_has_no_step_left(codex_home: Path, project: Path) -> None:
    write(codex_home / "config.toml", f'[projects."{project}"]\ntrust_level = "trusted"\n')
    plan = install.plan_install("project", project_dir=project)
    assert not any("one step left" in note for note in plan.notes)


def test_the_mcp_server_stays_while_another_scope_still_has_our_hooks(codex_home: Path, project: Path) -> None:
    pytest.importorskip("memory_mcp", reason="the MCP entry is only written when memory-mcp is installed")
    do_install(project, "user")
    do_install(project, "project")
    do_uninstall(project, "project")
    assert "memory" in tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"]
    do_uninstall(project, "user")
    assert not (codex_home / "config.toml").exists()
    assert not (codex_home / "hooks.json").exists()


def test_status_reports_installed_trusted_and_untrusted(codex_home: Path, project: Path) -> None:
    assert not any(s.installed for s in install.status(project_dir=project))
    do_install(project)
    user = next(s for s in install.status(project_dir=project) if s.scope == "user")
    assert user.installed
    assert user.runs is True
    assert user.detail == ""
    config = codex_home / "config.toml"
    config.write_text(config.read_text().replace('trusted_hash = "sha256:', 'trusted_hash = "sha256:00'))
    user = next(s for s in install.status(project_dir=project) if s.scope == "user")
    assert "untrusted" in user.detail
    assert "memory install codex" in user.detail


def test_status_reports_a_hook_whose_interpreter_is_gone(codex_home: Path, project: Path, tmp_path: Path) -> None:
    do_install(project)
    hooks = codex_home / "hooks.json"
    hooks.write_text(hooks.read_text().replace(sys.executable, str(tmp_path / "gone" / "python")))
    user = next(s for s in install.status(project_dir=project) if s.scope == "user")
    assert user.installed
    assert user.runs is False


def test_the_memory_cli_installs_and_uninstalls_codex(codex_home: Path, project: Path) -> None:
    memory = Path(sys.executable).parent / "memory"
    write(codex_home / "config.toml", CONFIG_CASES["tricky"])

    def cli(*args: str) -> str:
        done = subprocess.run(
            [str(memory), *args], cwd=project, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "+++" in cli("install", "codex", "--dry-run")
    assert not (codex_home / "hooks.json").exists()
    assert "installed (user)" in cli("install", "codex")
    assert "already installed" in cli("install", "codex")
    cli("uninstall", "codex")
    assert read(codex_home / "config.toml") == CONFIG_CASES["tricky"]
    assert not (codex_home / "hooks.json").exists()


def test_a_moved_interpreter_updates_our_mcp_entry_and_keeps_what_the_user_added(
    codex_home: Path, project: Path
) -> None:
    pytest.importorskip("memory_mcp", reason="the MCP entry is only written when memory-mcp is installed")
    config = (
        "# mine\n"
        "[mcp_servers.memory]\n"
        'command = "/old/venv/bin/python"\n'
        'args = [\n  "-m",\n  "memory_mcp",  # the server\n]\n'
        "startup_timeout_sec = 30\n"
        "\n"
        "[mcp_servers.memory.env]\n"
        'MEMORY_URL = "sqlite:////tmp/x.db"\n'
    )
    write(codex_home / "config.toml", config)
    do_install(project)
    entry = tomllib.loads(read(codex_home / "config.toml") or "")["mcp_servers"]["memory"]
    assert entry["command"] == sys.executable
    assert entry["args"] == ["-m", "memory_mcp"]
    assert entry["startup_timeout_sec"] == 30
    assert entry["env"] == {"MEMORY_URL": "sqlite:////tmp/x.db"}
    assert (read(codex_home / "config.toml") or "").startswith("# mine\n[mcp_servers.memory]\n")


def test_the_mcp_server_gets_the_memory_settings_codex_withholds(codex_home: Path, project: Path) -> None:
    # Codex passes an MCP server only a short list of variables plus `env_vars`: without them a
    # user's MEMORY_URL reaches the hooks but not the tools, which would use another store.
    pytest.importorskip("memory_mcp", reason="the MCP entry is only written when memory-mcp is installed")
    do_install(project)
    entry = tomllib.loads(read(codex_home / "config.toml") or "")["mcp_servers"]["memory"]
    assert {"MEMORY_URL", "MEMORY_PROJECT", "MEMORY_USER", "XDG_DATA_HOME", "XDG_STATE_HOME"} <= set(entry["env_vars"])
