"""Configuration: defaults, fallbacks with warnings, the config file, and URL redaction."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_core.config import Config, setting_env_names


def test_defaults_follow_the_xdg_folders(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "d"), "XDG_STATE_HOME": str(tmp_path / "s")}
    config = Config.from_env(env)
    assert config.url == f"sqlite:///{tmp_path / 'd' / 'memory' / 'memory.db'}"
    assert config.log_path == tmp_path / "s" / "memory" / "memory.log"
    assert config.spool_path == tmp_path / "s" / "memory" / "spool.jsonl"
    assert (config.max_items, config.max_tokens, config.enabled, config.firewall) == (5, 800, True, True)
    assert config.warnings == ()


def test_without_xdg_variables_the_home_folders_are_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    config = Config.from_env({"HOME": str(tmp_path)})
    assert config.url == f"sqlite:///{tmp_path / '.local' / 'share' / 'memory' / 'memory.db'}"


def test_on_macos_the_library_folders_are_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "darwin")
    config = Config.from_env({"HOME": str(tmp_path)})
    assert config.url == f"sqlite:///{tmp_path / 'Library' / 'Application Support' / 'memory' / 'memory.db'}"


def test_environment_values_are_read(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "MEMORY_URL": "redis://127.0.0.1:6379/3",
        "MEMORY_MAX_ITEMS": "3",
        "MEMORY_MAX_TOKENS": "400",
        "MEMORY_ENABLED": "0",
        "MEMORY_FIREWALL": "off",
        "MEMORY_PROJECT": "team:x",
        "MEMORY_USER": "alice",
        "MEMORY_LOG": str(tmp_path / "m.log"),
    }
    config = Config.from_env(env)
    assert config.url == "redis://127.0.0.1:6379/3"
    assert (config.max_items, config.max_tokens) == (3, 400)
    assert not config.enabled
    assert not config.firewall
    assert (config.project, config.user, config.log_path) == ("team:x", "alice", tmp_path / "m.log")


@pytest.mark.parametrize(
    ("name", "value"),
    [("MEMORY_MAX_ITEMS", "lots"), ("MEMORY_MAX_ITEMS", "0"), ("MEMORY_MAX_TOKENS", "-5"), ("MEMORY_ENABLED", "maybe")],
)
def test_a_malformed_value_falls_back_with_a_warning_naming_it(tmp_path: Path, name: str, value: str) -> None:
    config = Config.from_env({"HOME": str(tmp_path), name: value})
    default = Config.from_env({"HOME": str(tmp_path)})
    assert getattr(config, name[len("MEMORY_") :].lower()) == getattr(default, name[len("MEMORY_") :].lower())
    assert len(config.warnings) == 1
    assert name in config.warnings[0]


def test_the_config_file_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "config.toml").write_text('[memory]\nmax_items = 2\nuser = "filed"\n')
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "MEMORY_USER": "env"}
    config = Config.from_env(env)
    assert config.max_items == 2
    assert config.user == "env"


def test_a_broken_config_file_does_not_break_anything(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "config.toml").write_text("[memory\nmax_items = ")
    config = Config.from_env({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)})
    assert config.max_items == 5


def test_the_postgres_schema_can_come_from_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "config.toml").write_text('[memory]\npg_schema = "team_memory"\n')
    config = Config.from_env({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)})
    assert config.pg_schema == "team_memory"
    assert Config.from_env({"HOME": str(tmp_path)}).pg_schema is None


def test_setting_env_names_follow_the_fields_with_log_as_its_old_name() -> None:
    names = setting_env_names()
    assert names[:3] == ("MEMORY_URL", "MEMORY_ALLOW_DB0", "MEMORY_PROJECT")
    assert "MEMORY_LOG" in names
    assert not {"MEMORY_LOG_PATH", "MEMORY_WARNINGS", "MEMORY_CONFIG"} & set(names)
    assert len(names) == len(set(names)) == 20


def test_config_file_values_keep_their_toml_types(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "config.toml").write_text(
        '[memory]\nenabled = false\nuser = 42\ntimeout = 2\nmax_tokens = "lots"\n'
    )
    config = Config.from_env({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)})
    assert (config.enabled, config.user, config.timeout, config.max_tokens) == (False, "42", 2.0, 800)
    assert config.warnings == ("MEMORY_MAX_TOKENS='lots' is not a number; using 800",)


def test_an_empty_flag_is_off_and_an_empty_number_is_its_default(tmp_path: Path) -> None:
    config = Config.from_env({"HOME": str(tmp_path), "MEMORY_FIREWALL": "", "MEMORY_MAX_ITEMS": " "})
    assert (config.firewall, config.max_items, config.warnings) == (False, 5, ())


def test_a_value_below_its_bound_names_the_bound(tmp_path: Path) -> None:
    config = Config.from_env({"HOME": str(tmp_path), "MEMORY_TIMEOUT": "0.001", "MEMORY_ENABLED": "t"})
    assert config.warnings == (
        "MEMORY_ENABLED='t' is not 0 or 1; using 1",
        "MEMORY_TIMEOUT='0.001' is below 0.05; using 1.0",
    )
    assert (config.timeout, config.enabled) == (1.0, True)
