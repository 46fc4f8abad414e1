"""The plugin as Hermes finds it: manifest fields, and the two routes carrying one name."""

from __future__ import annotations

import tomllib
from importlib.metadata import entry_points
from pathlib import Path

from memory_hermes import PLUGIN_NAME
from memory_hermes.pluginfiles import PLUGIN_FILES, source_dir
from memory_hermes.version import __version__


def _manifest() -> dict[str, str]:
    fields = {}
    for line in (source_dir() / "plugin.yaml").read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition(":")
        if sep and not line.startswith(" "):
            fields[key.strip()] = value.strip()
    return fields


def test_the_manifest_names_our_plugin_at_our_version_as_a_standalone_plugin() -> None:
    manifest = _manifest()
    assert manifest["name"] == PLUGIN_NAME
    assert manifest["version"] == __version__
    # Without an explicit kind, Hermes may reroute a plugin that mentions memory providers.
    assert manifest["kind"] == "standalone"
    assert all((source_dir() / name).is_file() for name in PLUGIN_FILES)


def test_the_entry_point_carries_the_same_name_so_hermes_loads_the_plugin_once() -> None:
    [entry] = [ep for ep in entry_points(group="hermes_agent.plugins") if ep.name == PLUGIN_NAME]
    assert entry.value == "memory_hermes.plugin"
    assert callable(entry.load().register)
    [harness] = [ep for ep in entry_points(group="memory.harnesses") if ep.name == "hermes"]
    assert harness.load()().name == "hermes"


def test_the_wheel_carries_the_recorded_calls_the_bench_reads() -> None:
    # Installed from a wheel, `bench_payloads()` finds them inside the package (memory_core.installing.fixtures).
    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["force-include"]["fixtures"] == "memory_hermes/fixtures"
