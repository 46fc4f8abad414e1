"""`CodexHarness` as the `memory` CLI and the benchmarks find and use it."""

from __future__ import annotations

import json
import subprocess

from memory_codex.harness import CodexHarness
from memory_core.harnesses.contract import Harness, discover_harnesses
from memory_core.installing import fixtures_dir


def test_the_cli_finds_codex_through_its_entry_point() -> None:
    found, broken = discover_harnesses()
    assert "codex" not in broken
    assert isinstance(found["codex"], CodexHarness)
    assert isinstance(found["codex"], Harness)
    assert found["codex"].scopes == ("user", "project")
    assert found["codex"].display_name == "Codex"


def test_bench_payloads_are_a_recorded_turn() -> None:
    read, write = CodexHarness().bench_payloads()
    assert read["hook_event_name"] == "UserPromptSubmit"
    assert write["hook_event_name"] == "Stop"
    assert read["turn_id"] == write["turn_id"]
    assert (fixtures_dir("memory_codex") / "UserPromptSubmit.json").is_file()


def test_hook_argv_runs_the_hook_module() -> None:
    argv = CodexHarness().hook_argv()
    assert argv is not None
    done = subprocess.run(argv, input=b"{}", capture_output=True, timeout=60, check=False)
    assert done.returncode == 0
    assert done.stdout == b""
    assert json.dumps(argv).count("memory_codex.hook") == 1
