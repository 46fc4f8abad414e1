"""End to end with the real Hermes (hermes-agent 0.19.0) against a mock chat completions server.

`memory install hermes` runs through the real `memory` CLI in a throwaway HOME, with a
`hermes` launcher on PATH whose interpreter is an overlay venv over the cached hermes-agent
(so the packages the installer adds land in the overlay, not in the shared cache). Session 1
states a fact; session 2, a new `hermes chat -q` process, asks about it: the request the mock
received must carry the fact, appended to the user message. An unrelated prompt must carry
nothing. Uninstall must leave config.yaml byte for byte as it was, and Hermes's interpreter
without our packages. With Hermes's `mcp` extra, Hermes must start the MCP server the install
registered, and offer its tools to the model; the turn in which the model called one keeps the
call and its result behind it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.models import TimelineEvent
from memory_core.service import MemoryService
from memory_hermes import PLUGIN_NAME
from memory_hermes.install import MCP_SERVER_NAME
from memory_hermes.yamltext import plugin_enabled
from memory_testing.mock_models import MODEL, MockChatAPI
from memory_testing.requirements import require

from .hermes_program import cached_hermes, imports, make_overlay

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

_RUN_TIMEOUT_S = 300
_CAPTURE_WAIT_S = 10.0
"""A capture still running when Hermes's hook gives up waiting finishes in the background."""
_USER_CONFIG = """\
# My Hermes settings.
model:
  default: {model}
  provider: custom
  base_url: {url}
  api_key: sk-mock

plugins:
  enabled: []   # nothing yet
  disabled: []
"""


@pytest.fixture
def mock_model() -> Iterator[MockChatAPI]:
    with MockChatAPI() as api:
        yield api


@pytest.fixture
def hermes(tmp_path: Path) -> Path:
    """An overlay venv over the cached Hermes; its `bin/` goes on PATH."""
    return make_overlay(cached_hermes(), tmp_path / "hermes-venv")


def _env(home: Path, hermes: Path, tmp_path: Path) -> dict[str, str]:
    keep = ("LANG", "TMPDIR", "MEMORY_HARNESS_CACHE")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env.update(
        {
            "HOME": str(home),
            "PATH": os.pathsep.join([str(hermes / "bin"), "/usr/bin", "/bin"]),
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_LOG": str(tmp_path / "memory.log"),
            "MEMORY_USER": "alice",
            "NO_PROXY": "127.0.0.1,localhost",
            "HERMES_ACCEPT_HOOKS": "0",
        }
    )
    return env


def _run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=_RUN_TIMEOUT_S, check=False)
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def _chat(prompt: str, *, cwd: Path, env: dict[str, str]) -> tuple[str, str]:
    """One `hermes chat -Q -q` turn in a new session: (reply, session id)."""
    done = _run(["hermes", "chat", "-Q", "-q", prompt], cwd=cwd, env=env)
    session = [line.split(":", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("session_id:")]
    assert session, done.stderr
    return done.stdout.strip().splitlines()[-1], session[-1]


def _events_of(prompt: str, *, project: Path, env: dict[str, str]) -> list[TimelineEvent]:
    """The events kept behind the turn `prompt` started (waiting, bounded, for the plugin's capture)."""
    service = MemoryService(Config.from_env(env))
    try:
        deadline = time.monotonic() + _CAPTURE_WAIT_S
        while True:
            turns = [r for r in service.store.scan(service.scopes(str(project), kind="project")) if prompt in r.text]
            events = service.timeline(turns[0].id, cwd=str(project)) if turns else []
            if events or time.monotonic() > deadline:
                return events
            time.sleep(0.5)
    finally:
        service.store.close()


def _load_folder_plugin(python: Path, folder: Path, *, cwd: Path, env: dict[str, str]) -> dict[str, object]:
    """Load the copied plugin folder through Hermes's own directory loader, as a user plugin."""
    script = f"""
import json, pathlib
from hermes_cli.plugins import PluginManager
manager = PluginManager()
folder = pathlib.Path({str(folder)!r})
manifest = manager._parse_manifest(folder / "plugin.yaml", folder, "user", "")
manager._load_plugin(manifest)
loaded = manager._plugins[manifest.key]
hooks = sorted(loaded.hooks_registered)
print(json.dumps({{"kind": manifest.kind, "key": manifest.key, "error": loaded.error, "hooks": hooks,
                   "module": loaded.module.__name__}}))
"""
    done = _run([str(python), "-c", script], cwd=cwd, env=env)
    loaded: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_hermes_recalls_a_fact_from_an_earlier_session_and_uninstall_restores_everything(
    hermes: Path, mock_model: MockChatAPI, tmp_path: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".hermes").mkdir(parents=True)
    project.mkdir()
    config = home / ".hermes" / "config.yaml"
    original = _USER_CONFIG.format(model=MODEL, url=mock_model.base_url)
    config.write_text(original, encoding="utf-8")
    env = _env(home, hermes, tmp_path)
    python = hermes / "bin" / "python"
    memory = [sys.executable, "-m", "memory_core.cli"]

    dry = _run([*memory, "install", "hermes", "--dry-run"], cwd=project, env=env)
    assert "+    - memory-hermes" not in dry.stdout  # a flow list is edited in place
    assert "enabled: [memory-hermes]" in dry.stdout
    assert config.read_text(encoding="utf-8") == original
    assert not (home / ".hermes" / "plugins" / PLUGIN_NAME).exists()
    assert not imports(python, "memory_hermes")

    _run([*memory, "install", "hermes"], cwd=project, env=env)
    assert plugin_enabled(config.read_text(encoding="utf-8"), PLUGIN_NAME)
    assert imports(python, "memory_hermes.callbacks")
    assert (home / ".hermes" / "plugins" / PLUGIN_NAME / "plugin.yaml").exists()
    installed = config.read_bytes()
    again = _run([*memory, "install", "hermes"], cwd=project, env=env)
    assert "already installed" in again.stdout
    assert config.read_bytes() == installed

    # Hermes's own listing: enabled, loaded once, through the entry point that shadows the folder.
    listing = _run(["hermes", "plugins", "list", "--plain"], cwd=project, env=env).stdout
    assert [line for line in listing.splitlines() if PLUGIN_NAME in line], listing
    # The copy in ~/.hermes/plugins works on its own too (it is what loads without the entry point).
    assert _load_folder_plugin(python, home / ".hermes" / "plugins" / PLUGIN_NAME, cwd=project, env=env) == {
        "kind": "standalone",
        "key": PLUGIN_NAME,
        "error": None,
        "hooks": ["post_llm_call", "pre_llm_call"],
        "module": "hermes_plugins.memory_hermes",
    }

    reply, first = _chat("remember that the release train leaves on Thursdays", cwd=project, env=env)
    assert reply == "Noted: the release train leaves on Thursdays."
    [stated] = mock_model.user_messages_with("remember that the release train")
    assert stated == "remember that the release train leaves on Thursdays"  # an empty memory injects nothing

    _, second = _chat("when does the release train leave?", cwd=project, env=env)
    assert second != first
    [asked] = mock_model.user_messages_with("when does the release train leave?")
    prompt, _, injected = asked.partition("\n\n")
    assert prompt == "when does the release train leave?"
    assert "the release train leaves on Thursdays" in injected, "the recalled fact never reached the model"

    _chat("sketch a haiku about autumn leaves", cwd=project, env=env)
    [unrelated] = mock_model.user_messages_with("sketch a haiku about autumn leaves")
    assert unrelated == "sketch a haiku about autumn leaves"

    # doctor's line: Hermes runs the plugin, and which project it wrote to.
    doctor = subprocess.run(
        [*memory, "doctor", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=_RUN_TIMEOUT_S
    )
    [entry] = [entry for entry in json.loads(doctor.stdout)["harnesses"] if entry["harness"] == "hermes"]
    [place] = entry["installed"]
    assert place["runs"] is True
    assert f"Hermes writes to project path:{project} (the Hermes started in {project}," in place["detail"]

    _run([*memory, "uninstall", "hermes"], cwd=project, env=env)
    assert config.read_text(encoding="utf-8") == original
    assert not (home / ".hermes" / "plugins" / PLUGIN_NAME).exists()
    assert not imports(python, "memory_core")
    assert not imports(python, "memory_hermes")
    assert "not installed" in _run([*memory, "uninstall", "hermes"], cwd=project, env=env).stdout


def test_hermes_runs_the_registered_mcp_server_and_its_tools_read_the_plugins_store(
    mock_model: MockChatAPI, tmp_path: Path
) -> None:
    require(find_spec("memory_mcp") is not None, "memory-mcp installed beside memory-core")
    # MCP needs Hermes's `mcp` extra (mcp==1.26.0); our server runs as its own process.
    hermes = make_overlay(cached_hermes(extra="mcp"), tmp_path / "hermes-mcp-venv")
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".hermes").mkdir(parents=True)
    project.mkdir()
    (home / ".hermes" / "config.yaml").write_text(_USER_CONFIG.format(model=MODEL, url=mock_model.base_url))
    env = _env(home, hermes, tmp_path)
    memory = [sys.executable, "-m", "memory_core.cli"]
    installed = _run([*memory, "install", "hermes"], cwd=project, env=env)
    assert "mcp` extra" not in installed.stdout

    tested = _run(["hermes", "mcp", "test", MCP_SERVER_NAME], cwd=project, env=env).stdout
    assert "Connected" in tested, tested
    # A server named `memory` would be shadowed by Hermes's built-in `memory` toolset: its
    # tools would never reach the model. Ours must.
    _chat("remember that the release train leaves on Thursdays", cwd=project, env=env)
    offered = mock_model.tool_names()
    prefix = f"mcp__{MCP_SERVER_NAME.replace('-', '_')}__"  # Hermes's spelling of the server in tool names
    for tool in ("memory_search", "memory_save", "memory_feedback", "memory_status"):
        assert prefix + tool in offered, offered

    # The model calls memory_search: Hermes runs it on our server, which must read the store the
    # plugin wrote to (its MEMORY_* settings reach it through the entry's `env` references).
    reply, _ = _chat("search memory for the release train", cwd=project, env=env)
    assert reply == "Found it."
    [result] = mock_model.tool_results()
    assert "the release train leaves on Thursdays" in result
    # The turn keeps what it did: the call and its result ride on post_llm_call's history.
    events = _events_of("search memory for the release train", project=project, env=env)
    assert [(e.kind, e.name) for e in events] == [
        ("tool_call", prefix + "memory_search"),
        ("tool_result", prefix + "memory_search"),
    ]
    assert json.loads(events[0].text) == {"query": "the release train"}
    assert "the release train leaves on Thursdays" in events[1].text
    _run([*memory, "uninstall", "hermes"], cwd=project, env=env)
