"""`memory install openclaw` / `memory uninstall openclaw` through the config-edit route.

(`openclaw` is not on PATH here: see test_install_cli.py for the route through the real CLI.)
Promises: the plugin is linked, enabled and opted into conversation hooks; the MCP server is
registered; `--dry-run` writes nothing; the previous file is kept as `.bak`; a second install
changes nothing; uninstall gives back the file byte for byte.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from memory_core.harnesses.contract import Harness, discover_harnesses
from memory_core.installing import apply_plan
from memory_openclaw.errors import OpenClawConfigError
from memory_openclaw.harness import OpenClawHarness, plugin_dir

SHARED_CONFIG = Path(__file__).resolve().parents[1] / "fixtures" / "configs" / "openclaw.json"


def _config(home: Path) -> Path:
    return home / ".openclaw" / "openclaw.json"


def _install(harness: OpenClawHarness, home: Path, *, dry_run: bool = False) -> tuple[bool, str]:
    out = io.StringIO()
    changed = apply_plan(harness.plan_install("user", project_dir=home), dry_run=dry_run, out=out)
    return changed, out.getvalue()


def _uninstall(harness: OpenClawHarness, home: Path, *, dry_run: bool = False) -> tuple[bool, str]:
    out = io.StringIO()
    changed = apply_plan(harness.plan_uninstall("user", project_dir=home), dry_run=dry_run, out=out)
    return changed, out.getvalue()


def test_the_harness_is_found_through_its_entry_point() -> None:
    found, broken = discover_harnesses()
    assert "openclaw" not in broken
    assert isinstance(found["openclaw"], OpenClawHarness)
    assert isinstance(found["openclaw"], Harness)
    assert found["openclaw"].scopes == ("user",)


def test_install_links_enables_opts_in_and_registers_the_mcp_server(home: Path) -> None:
    changed, _ = _install(OpenClawHarness(), home)
    assert changed
    data = json.loads(_config(home).read_text())
    assert data["plugins"]["load"]["paths"] == [str(plugin_dir())]
    assert data["plugins"]["entries"]["memory-openclaw"] == {
        "enabled": True,
        # Without this OpenClaw drops before_prompt_build, llm_output and agent_end silently.
        "hooks": {"allowConversationAccess": True},
        "config": {"python": sys.executable},
    }
    assert data["mcp"]["servers"]["memory"] == {"command": sys.executable, "args": ["-m", "memory_mcp"]}
    assert (plugin_dir() / "openclaw.plugin.json").is_file()


def test_dry_run_writes_nothing_and_shows_the_diff(home: Path) -> None:
    changed, shown = _install(OpenClawHarness(), home, dry_run=True)
    assert changed
    assert '"allowConversationAccess": true' in shown
    assert not _config(home).exists()
    assert not (home / ".openclaw").exists()


def test_a_second_install_changes_nothing(home: Path) -> None:
    _install(OpenClawHarness(), home)
    text = _config(home).read_text()
    plan = OpenClawHarness().plan_install("user", project_dir=home)
    assert not plan.changes
    changed, _ = _install(OpenClawHarness(), home)
    assert not changed
    assert _config(home).read_text() == text
    assert not _config(home).with_name("openclaw.json.bak").exists()


def test_install_then_uninstall_restores_an_existing_config_byte_for_byte(home: Path) -> None:
    original = SHARED_CONFIG.read_text()
    _config(home).parent.mkdir(parents=True)
    _config(home).write_text(original)
    _install(OpenClawHarness(), home)
    installed = _config(home).read_text()
    assert installed != original
    assert _config(home).with_name("openclaw.json.bak").read_text() == original
    data = json.loads(installed)
    assert data["plugins"]["entries"]["hookrec"] == {"enabled": True, "hooks": {"allowConversationAccess": True}}
    assert data["models"]["providers"]["mock"]["baseUrl"] == "http://127.0.0.1:28432/v1"

    changed, _ = _uninstall(OpenClawHarness(), home)
    assert changed
    assert _config(home).read_text() == original
    assert _config(home).with_name("openclaw.json.bak").read_text() == installed


def test_uninstall_of_a_config_the_install_created_removes_it(home: Path) -> None:
    _install(OpenClawHarness(), home)
    _uninstall(OpenClawHarness(), home)
    assert not _config(home).exists()


def test_uninstall_dry_run_writes_nothing_and_a_second_uninstall_changes_nothing(home: Path) -> None:
    _install(OpenClawHarness(), home)
    installed = _config(home).read_text()
    changed, shown = _uninstall(OpenClawHarness(), home, dry_run=True)
    assert changed
    assert "memory-openclaw" in shown
    assert _config(home).read_text() == installed
    _uninstall(OpenClawHarness(), home)
    assert not OpenClawHarness().plan_uninstall("user", project_dir=home).changes


def test_a_users_own_memory_mcp_server_is_left_alone(home: Path) -> None:
    theirs = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
    _config(home).parent.mkdir(parents=True)
    _config(home).write_text(json.dumps({"mcp": {"servers": {"memory": theirs}}}, indent=2) + "\n")
    plan = OpenClawHarness().plan_install("user", project_dir=home)
    assert any("another server" in note for note in plan.notes)
    _install(OpenClawHarness(), home)
    assert json.loads(_config(home).read_text())["mcp"]["servers"]["memory"] == theirs
    _uninstall(OpenClawHarness(), home)
    assert json.loads(_config(home).read_text()) == {"mcp": {"servers": {"memory": theirs}}}


def test_an_older_installs_plugin_folder_is_replaced_not_doubled(home: Path) -> None:
    # Two folders with one plugin id would clash: an upgrade from another place replaces the path.
    old = "/opt/old-venv/lib/python3.11/site-packages/memory_openclaw/plugin"
    other = "/home/dev/plugins/hookrec"
    _config(home).parent.mkdir(parents=True)
    _config(home).write_text(json.dumps({"plugins": {"load": {"paths": [other, old]}}}, indent=2) + "\n")
    _install(OpenClawHarness(), home)
    assert json.loads(_config(home).read_text())["plugins"]["load"]["paths"] == [other, str(plugin_dir())]


def test_an_allow_list_gets_our_id_and_loses_it_again(home: Path) -> None:
    original = json.dumps({"plugins": {"allow": ["hookrec"]}}, indent=2) + "\n"
    _config(home).parent.mkdir(parents=True)
    _config(home).write_text(original)
    _install(OpenClawHarness(), home)
    assert json.loads(_config(home).read_text())["plugins"]["allow"] == ["hookrec", "memory-openclaw"]
    _uninstall(OpenClawHarness(), home)
    assert _config(home).read_text() == original


def test_a_json5_config_is_refused_untouched(home: Path) -> None:
    json5 = "// my settings\n{\n  agents: { defaults: { workspace: '~/w' } },\n}\n"
    _config(home).parent.mkdir(parents=True)
    _config(home).write_text(json5)
    with pytest.raises(OpenClawConfigError, match="JSON5"):
        OpenClawHarness().plan_install("user", project_dir=home)
    assert _config(home).read_text() == json5


def test_openclaw_config_path_and_state_dir_are_honoured(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(home / "state"))
    assert OpenClawHarness().config_path == home / "state" / "openclaw.json"
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(home / "elsewhere.json"))
    _install(OpenClawHarness(), home)
    assert (home / "elsewhere.json").is_file()
    assert not (home / "state").exists()


def test_only_the_user_scope_exists(home: Path) -> None:
    with pytest.raises(ValueError, match="user"):
        OpenClawHarness().plan_install("project", project_dir=home)


def test_no_mcp_server_is_added_for_an_interpreter_without_memory_mcp(home: Path) -> None:
    bare = Path("/usr/bin/python3")
    if not bare.exists():
        pytest.skip("no system python3 to stand for an interpreter without memory-mcp")
    harness = OpenClawHarness(python=str(bare))
    plan = harness.plan_install("user", project_dir=home)
    assert any("need memory-mcp" in note for note in plan.notes)
    apply_plan(plan, dry_run=False, out=io.StringIO())
    data = json.loads(_config(home).read_text())
    assert "mcp" not in data
    assert data["plugins"]["entries"]["memory-openclaw"]["config"] == {"python": str(bare)}
