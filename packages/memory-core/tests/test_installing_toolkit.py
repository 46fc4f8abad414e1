"""What every installer gets from `memory_core.installing`: the same answers for all four harnesses.

The settings an MCP entry forwards are `Config`'s own (a new setting cannot be forgotten); a
registered command "runs" by one rule whether it is `<python> -m <module>` or a console script
(pip's `#!` launcher or its `/bin/sh` trampoline); an MCP entry is ours by what it runs, not by
its name; recorded payloads load from a checkout and from an installed wheel alike.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.hookpath.client import worker_environment
from memory_core.installing import (
    command_runs,
    forwarded_env_names,
    hook_command,
    interpreter_of,
    is_our_mcp_entry,
    load_fixtures,
    mcp_argv,
    memory_env_names,
    set_env_names,
)

# A value each setting accepts that is not its default, as the environment spells it.
_NON_DEFAULT = {
    "MEMORY_URL": "sqlite:////elsewhere/memory.db",
    "MEMORY_ALLOW_DB0": "1",
    "MEMORY_PROJECT": "github.com/acme/widgets",
    "MEMORY_USER": "ada",
    "MEMORY_MAX_ITEMS": "9",
    "MEMORY_MAX_TOKENS": "333",
    "MEMORY_ENABLED": "0",
    "MEMORY_FIREWALL": "0",
    "MEMORY_LOG": "/elsewhere/memory.log",
    "MEMORY_STATE_DIR": "/elsewhere/state",
    "MEMORY_TIMEOUT": "2.5",
    "MEMORY_MAX_RECORDS": "1000",
    "MEMORY_SPOOL_MAX_BYTES": "65536",
    "MEMORY_HANDOFF_TTL": "60",
    "MEMORY_HANDOFF_KEEP": "3",
    "MEMORY_MCP_TOKEN": "token-123",
    "MEMORY_PG_SCHEMA": "team_memory",
    "MEMORY_EMBEDDINGS": "0",
    "MEMORY_EVENTS": "0",
    "MEMORY_EVENTS_MAX_BYTES": "1048576",
}


def _base_env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path), "MEMORY_CONFIG": str(tmp_path / "absent.toml")}


def test_every_setting_config_holds_is_forwarded_by_its_variable(tmp_path: Path) -> None:
    settings = set(memory_env_names()) - {"MEMORY_CONFIG"}
    # A setting added to Config without a value here fails this test: say how users set it.
    assert settings == set(_NON_DEFAULT)
    default = Config.from_env(_base_env(tmp_path))
    for name in sorted(settings):
        changed = Config.from_env({**_base_env(tmp_path), name: _NON_DEFAULT[name]})
        assert changed != default, f"{name} does not change any setting"
        assert not changed.warnings, changed.warnings


def test_the_mcp_entry_forwards_what_codex_used_to_miss_and_the_config_file() -> None:
    forwarded = forwarded_env_names()
    assert {"MEMORY_MAX_RECORDS", "MEMORY_MCP_TOKEN", "MEMORY_CONFIG", "MEMORY_URL"} <= set(forwarded)
    assert {"XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"} <= set(forwarded)
    assert len(forwarded) == len(set(forwarded))


def test_every_forwarded_setting_also_keys_the_hook_worker() -> None:
    # A setting that did not key the worker would let a hook reach a worker with other settings.
    key = worker_environment(dict.fromkeys(forwarded_env_names(), "x")).decode()
    for name in forwarded_env_names():
        assert f"{name}=x" in key


def test_only_the_settings_that_are_set_are_referenced() -> None:
    assert set_env_names({"MEMORY_URL": "redis://h/2", "MEMORY_HERMES_PYTHON": "/p", "PATH": "/bin"}) == ("MEMORY_URL",)


def _script(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def test_a_console_scripts_interpreter_is_read_from_its_shebang_or_pips_trampoline(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    _script(bin_dir, "plain", f"#!{sys.executable}\nimport sys\n")
    long_python = "/a/very/long/path with space/bin/python3"
    _script(bin_dir, "trampoline", f"#!/bin/sh\n'''exec' \"{long_python}\" \"$0\" \"$@\"\n' '''\nimport sys\n")
    _script(bin_dir, "shell", "echo not python\n")
    path = str(bin_dir)
    assert interpreter_of("plain", path=path) == sys.executable
    assert interpreter_of("trampoline", path=path) == long_python
    assert interpreter_of("shell", path=path) is None
    assert interpreter_of("absent", path=path) is None
    assert interpreter_of(str(bin_dir / "plain")) == sys.executable


def test_a_registered_command_runs_by_one_rule_for_both_shapes(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    _script(bin_dir, "memory-x-hook", f"#!{sys.executable}\n")
    path = str(bin_dir)
    own = hook_command("memory_core.installing", "memory-x-hook", shared=False)
    assert command_runs(own, "memory_core.installing") == (True, "")
    assert command_runs("memory-x-hook || true", "memory_core.installing", path=path) == (True, "")

    gone = shlex.join([str(tmp_path / "gone" / "python"), "-m", "memory_core.installing"])
    assert command_runs(gone, "memory_core.installing") == (False, f"{tmp_path / 'gone' / 'python'} no longer exists")
    assert command_runs("memory-x-hook || true", "memory_core.installing", path=str(tmp_path / "nowhere")) == (
        False,
        "`memory-x-hook` is not on PATH here",
    )
    runs, why = command_runs("memory-x-hook", "memory_no_such_module", path=path)
    assert not runs
    assert why == f"`memory-x-hook` runs {sys.executable}, which cannot import memory_no_such_module"
    runs, why = command_runs(shlex.join([sys.executable, "-m", "memory_no_such_module"]), "memory_no_such_module")
    assert (runs, why) == (False, f"{sys.executable} cannot import memory_no_such_module")


def test_a_shared_command_spares_teammates_without_the_script_a_failed_hook() -> None:
    assert hook_command("memory_x.hook", "memory-x-hook", shared=True) == "memory-x-hook || true"
    assert shlex.split(hook_command("memory_x.hook", "memory-x-hook", shared=False)) == [
        sys.executable,
        "-m",
        "memory_x.hook",
    ]


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "stdio", "command": sys.executable, "args": ["-m", "memory_mcp"], "env": {}},  # Claude Code
        {"command": "memory-mcp", "args": []},  # a shared project file
        {"command": "/old/venv/bin/python", "args": ["-m", "memory_mcp"], "env_vars": ["MEMORY_URL"]},  # Codex
        {"command": "/usr/local/bin/memory-mcp", "args": ["--transport", "stdio"]},
    ],
)
def test_an_entry_that_runs_memory_mcp_is_ours_whatever_else_it_holds(entry: dict[str, object]) -> None:
    assert is_our_mcp_entry(entry)


@pytest.mark.parametrize(
    "entry",
    [
        {"command": "npx", "args": ["-y", "@acme/memory-server"]},
        {"command": "python", "args": ["-m", "my_memory_mcp"]},
        {"command": "python", "args": ["memory_mcp.py"]},
        {"url": "https://memory.example.com/mcp"},
        "memory",
        None,
    ],
)
def test_a_users_server_under_our_name_is_not_ours(entry: object) -> None:
    assert not is_our_mcp_entry(entry)


def test_the_mcp_command_is_this_interpreter_or_the_script_in_a_shared_file() -> None:
    assert mcp_argv() == [sys.executable, "-m", "memory_mcp"]
    assert mcp_argv(shared=True) == ["memory-mcp"]
    assert is_our_mcp_entry({"command": mcp_argv()[0], "args": mcp_argv()[1:]})


def _package(root: Path, name: str, *, wheel: bool) -> Path:
    """A harness package laid out as a checkout (`src/<name>`, fixtures at the root) or a wheel."""
    package = root / name if wheel else root / "dist" / "src" / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    fixtures = package / "fixtures" if wheel else root / "dist" / "fixtures"
    for relative, text in {
        "Stop.json": '{"hook_event_name": "Stop"}',
        "plugin/turn1.json": '{"hook": "agent_end"}',
        "configs/settings.json": '{"hooks": {}}',
        "transcripts/session.json": '{"type": "session"}',
        "_meta/versions.json": '{"version": "1"}',
        "list.json": "[1, 2]",
        "broken.json": "{",
    }.items():
        (fixtures / relative).parent.mkdir(parents=True, exist_ok=True)
        (fixtures / relative).write_text(text, encoding="utf-8")
    return package.parent


@pytest.mark.parametrize("wheel", [False, True], ids=["checkout", "wheel"])
def test_recorded_payloads_load_from_a_checkout_and_from_an_installed_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wheel: bool
) -> None:
    name = f"memory_fixture_probe_{'wheel' if wheel else 'checkout'}"
    monkeypatch.syspath_prepend(str(_package(tmp_path, name, wheel=wheel)))
    assert load_fixtures(name) == {
        "Stop.json": {"hook_event_name": "Stop"},
        "plugin/turn1.json": {"hook": "agent_end"},
    }


def test_a_package_without_its_recordings_says_to_reinstall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory_fixture_probe_bare").mkdir()
    (tmp_path / "memory_fixture_probe_bare" / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(FileNotFoundError, match="reinstall memory_fixture_probe_bare"):
        load_fixtures("memory_fixture_probe_bare")
