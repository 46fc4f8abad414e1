"""Installing our packages into Hermes's interpreter: from our own source, beside Hermes's pins."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from memory_core.installing import read_text_or_none
from memory_hermes.errors import ProvisionFailed
from memory_hermes.probe import Probe
from memory_hermes.provision import InstallRecord, Source, current_source, plan_provisioning, store_extra
from memory_hermes.version import __version__

HERE = current_source("memory-core")


def _direct_url(url: str, **info: object) -> str:
    return json.dumps({"url": url, **info})


@pytest.mark.parametrize(
    ("direct_url", "expected"),
    [
        (None, ["memory-core[redis]==0.1.0"]),
        (_direct_url("file:///src/memory%20core", dir_info={"editable": True}), ["-e", "/src/memory core[redis]"]),
        (_direct_url("file:///src/memory-core", dir_info={}), ["memory-core[redis] @ file:///src/memory-core"]),
        (
            _direct_url("file:///w/memory_core-0.1.0-py3-none-any.whl", archive_info={}),
            ["memory-core[redis] @ file:///w/memory_core-0.1.0-py3-none-any.whl"],
        ),
        (
            _direct_url("https://example.com/m.git", vcs_info={"vcs": "git", "commit_id": "abc123"}),
            ["memory-core[redis] @ git+https://example.com/m.git@abc123"],
        ),
    ],
    ids=["index", "editable", "folder", "wheel", "git"],
)
def test_each_install_source_is_reproduced_for_hermes(direct_url: str | None, expected: list[str]) -> None:
    from memory_hermes.provision import _parse_direct_url

    source = _parse_direct_url("memory-core", "0.1.0", direct_url)
    assert source.pip_args("redis") == expected
    assert source.same_origin(direct_url)


def test_our_own_install_is_read_from_its_direct_url() -> None:
    # This checkout is installed editable in the dev venv.
    assert HERE.editable
    assert HERE.pip_args() == ["-e", str(Path(__file__).resolve().parents[2] / "memory-core")]


def _probe(**dists: str | None) -> Probe:
    ours = {current_source(name).name: current_source(name) for name in ("memory-core", "memory-hermes")}
    versions = {"hermes-agent": "0.19.0", "pydantic": "2.13.4"}
    urls: dict[str, str | None] = {}
    for name, version in dists.items():
        dist = name.replace("_", "-")
        if version is not None:
            versions[dist] = version
            source = ours[dist]
            urls[dist] = _direct_url(source.url or "", dir_info={"editable": source.editable}) if source.url else None
    return Probe(
        python=Path(sys.executable),
        prefix=sys.prefix,
        hermes_version="0.19.0",
        dists=versions,
        direct_urls=urls,
        modules={"pip": True, "mcp": False, "redis": False, "psycopg": False},
    )


def test_nothing_to_do_when_hermes_already_has_our_packages_from_our_source(tmp_path: Path) -> None:
    probe = _probe(memory_core="0.1.0", memory_hermes=__version__)
    assert plan_provisioning(probe, store_url="sqlite:///x.db", state_dir=tmp_path) is None


def test_the_install_pins_every_package_hermes_has_and_adds_only_ours(tmp_path: Path) -> None:
    provisioning = plan_provisioning(_probe(), store_url="sqlite:///x.db", state_dir=tmp_path)
    assert provisioning is not None
    assert provisioning.pinned == ("hermes-agent==0.19.0", "pydantic==2.13.4")
    assert provisioning.added == ("memory-core", "memory-hermes")
    assert provisioning.requirements[:2] == ("-e", HERE.pip_args()[1])


def test_a_server_store_brings_its_client_into_hermes(tmp_path: Path) -> None:
    probe = _probe(memory_core="0.1.0", memory_hermes=__version__)  # ours are there, redis is not
    provisioning = plan_provisioning(probe, store_url="redis://localhost:6379/3", state_dir=tmp_path)
    assert provisioning is not None
    assert provisioning.requirements[1].endswith("memory-core[redis]")
    assert store_extra("postgresql://u@h/db") == ("postgres", "psycopg")
    assert store_extra("sqlite:///x.db") is None


def test_an_interpreter_without_pip_or_uv_gets_the_command_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no uv
    probe = _probe()
    probe.modules["pip"] = False
    with pytest.raises(ProvisionFailed, match="ensurepip"):
        plan_provisioning(probe, store_url="sqlite:///x.db", state_dir=tmp_path)


def test_the_record_names_the_interpreter_and_what_was_added(tmp_path: Path) -> None:
    InstallRecord(python="/opt/hermes/bin/python", dists=("memory-core", "memory-hermes")).write(tmp_path)
    assert InstallRecord.read(tmp_path) == InstallRecord("/opt/hermes/bin/python", ("memory-core", "memory-hermes"))
    assert read_text_or_none(tmp_path / "missing" / "hermes-install.json") is None
    assert InstallRecord.read(tmp_path / "missing") is None
    assert Source("memory-core", "0.1.0").same_origin(None)
