"""The installer without the real Hermes: what a user meets when Hermes is missing, and the
uninstall, which needs no Hermes at all. (With the real Hermes: test_e2e_hermes.py.)"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from memory_core.installing import apply_plan
from memory_hermes import PLUGIN_NAME, whereabouts
from memory_hermes.errors import HermesNotFound, MemoryHermesError
from memory_hermes.install import MCP_SERVER_NAME, mcp_fields, plan_install, plan_uninstall
from memory_hermes.pluginfiles import PluginCopy
from memory_hermes.yamltext import add_mcp_server, enable_plugin

ORIGINAL = "model:\n  default: m\n\nplugins:\n  enabled:\n    - other\n"


def test_without_hermes_on_path_install_says_how_to_point_at_it(
    memory_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(HermesNotFound, match="MEMORY_HERMES_PYTHON"):
        plan_install("user")


def test_an_interpreter_without_hermes_agent_is_not_taken_for_hermes(
    memory_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_HERMES_PYTHON", sys.executable)
    with pytest.raises(HermesNotFound, match="no hermes-agent"):
        plan_install("user")


def test_hermes_has_only_the_user_scope(memory_env: dict[str, str]) -> None:
    with pytest.raises(MemoryHermesError, match="only scope is `user`"):
        plan_uninstall("project")


def test_the_mcp_entry_forwards_memory_variables_by_reference_never_by_value(memory_env: dict[str, str]) -> None:
    fields = dict(mcp_fields())
    assert fields["command"] == f'"{sys.executable}"'
    assert fields["args"] == '["-m", "memory_mcp"]'
    assert '"${MEMORY_URL}"' in fields["env"]
    assert memory_env["MEMORY_URL"] not in fields["env"]


def test_uninstall_needs_no_hermes_and_restores_what_install_changed(
    memory_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "")  # no hermes anywhere
    home = Path(memory_env["HOME"])
    config = home / ".hermes" / "config.yaml"
    config.parent.mkdir()
    config.write_text(add_mcp_server(enable_plugin(ORIGINAL, PLUGIN_NAME), MCP_SERVER_NAME, mcp_fields()))
    folder = home / ".hermes" / "plugins" / PLUGIN_NAME
    PluginCopy(folder).run()
    (folder / "__pycache__").mkdir()  # what Hermes leaves after loading the folder
    state = Path(memory_env["MEMORY_STATE_DIR"])
    whereabouts.record(state, key="path:/p", source="directory", cwd="/p")

    out = io.StringIO()
    assert apply_plan(plan_uninstall("user"), dry_run=True, out=out)
    assert "-    - memory-hermes" in out.getvalue()
    assert folder.exists()

    assert apply_plan(plan_uninstall("user"), dry_run=False, out=io.StringIO())
    assert config.read_text() == ORIGINAL
    assert not folder.exists()
    assert whereabouts.read(state) is None
    assert not apply_plan(plan_uninstall("user"), dry_run=False, out=io.StringIO())


def test_a_plugin_folder_holding_someone_elses_files_keeps_them(memory_env: dict[str, str]) -> None:
    folder = Path(memory_env["HOME"]) / ".hermes" / "plugins" / PLUGIN_NAME
    PluginCopy(folder).run()
    (folder / "notes.txt").write_text("mine")
    apply_plan(plan_uninstall("user"), dry_run=False, out=io.StringIO())
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
