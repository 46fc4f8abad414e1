"""Harness-program installs: npm keeps the machine's configuration under another node; a dead registry fails fast.

The "other node" is a copy of the machine's own node binary in a temp folder: npm finds its
global `npmrc` relative to the node that runs it, so the copy reproduces exactly what running
the system's npm under Node 24 does (OpenClaw's install), without a download.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from memory_testing.harness_programs import HarnessInstallError, npm_package, pip_package
from memory_testing.installer_environment import npm_environment
from memory_testing.requirements import require

_FAST_FAILURE_S = 30
"""npm's own defaults take over a minute to give up on a refused connection; ours take seconds."""


@pytest.fixture
def npm() -> str:
    found = shutil.which("npm")
    require(found is not None and shutil.which("node") is not None, "node and npm on PATH")
    assert found is not None
    return found


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on: connections to it are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "harness-cache"
    monkeypatch.setenv("MEMORY_HARNESS_CACHE", str(folder))
    return folder


def _config(npm: str, key: str, env: dict[str, str]) -> str:
    done = subprocess.run([npm, "config", "get", key], env=env, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip()


def test_npm_under_another_node_reads_the_machines_config(npm: str, tmp_path: Path) -> None:
    system_node = Path(shutil.which("node") or "").resolve()
    other = tmp_path / "other-node" / "bin" / "node"
    other.parent.mkdir(parents=True)
    shutil.copy2(system_node, other)
    machine = {key: _config(npm, key, npm_environment()) for key in ("globalconfig", "cafile")}
    plain = {name: value for name, value in npm_environment().items() if name.lower() != "npm_config_globalconfig"}
    plain["PATH"] = f"{other.parent}:{plain['PATH']}"

    under_other = npm_environment(other)

    assert _config(npm, "globalconfig", plain) != machine["globalconfig"], "the copy should lose the system npmrc"
    assert {key: _config(npm, key, under_other) for key in machine} == machine
    assert under_other["npm_config_fetch_retries"] == "1"


def test_an_unreachable_npm_registry_fails_in_seconds_with_npms_error(
    npm: str, cache: Path, closed_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{closed_port}/")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    started = time.monotonic()

    with pytest.raises(HarnessInstallError) as failure:
        npm_package("left-pad", "1.3.0")

    assert time.monotonic() - started < _FAST_FAILURE_S
    assert "ECONNREFUSED" in str(failure.value)
    assert not (cache / "left-pad-1.3.0" / ".installed").exists()


def test_an_unreachable_pip_index_fails_in_seconds_with_pips_error(
    cache: Path, closed_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")  # no machine-wide mirror or wheel folder
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{closed_port}/simple")
    started = time.monotonic()

    with pytest.raises(HarnessInstallError) as failure:
        pip_package("left-pad-never-published==1.0", "1.0", name="unreachable")

    assert time.monotonic() - started < _FAST_FAILURE_S
    assert "Connection refused" in str(failure.value)
