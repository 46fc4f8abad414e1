"""The `memory` command line, run as a user runs it: a real process, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        {
            "HOME": str(tmp_path),
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "git:example.com/acme/cli",
            "MEMORY_USER": "alice",
        }
    )
    env.update(extra)
    return env


def memory(tmp_path: Path, *args: str, check: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args],
        env=_env(tmp_path, **env),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_save_then_search_finds_it(tmp_path: Path) -> None:
    saved = memory(tmp_path, "save", "the", "staging", "cluster", "is", "called", "blue-heron")
    assert saved.stdout.startswith("saved n")
    found = json.loads(memory(tmp_path, "search", "which staging cluster?", "--json").stdout)
    assert [hit["text"] for hit in found] == ["the staging cluster is called blue-heron"]
    assert found[0]["author"] == "alice"


def test_search_mine_narrows_to_my_records(tmp_path: Path) -> None:
    memory(tmp_path, "save", "release trains leave on Tuesdays", MEMORY_USER="bob")
    memory(tmp_path, "save", "release trains need two approvals")
    everyone = json.loads(memory(tmp_path, "search", "release trains", "--json").stdout)
    mine = json.loads(memory(tmp_path, "search", "release trains", "--mine", "--json").stdout)
    assert {h["author"] for h in everyone} == {"alice", "bob"}
    assert {h["author"] for h in mine} == {"alice"}


def test_stats_json_counts_records_in_scope(tmp_path: Path) -> None:
    memory(tmp_path, "save", "one fact about the ledger")
    memory(tmp_path, "save", "a preference of mine", "--scope", "user")
    memory(tmp_path, "save", "elsewhere", MEMORY_PROJECT="git:other")
    stats = json.loads(memory(tmp_path, "stats", "--json").stdout)
    assert stats["records"] == 2
    assert stats["by_scope"]["total"] == 3


def test_forget_removes_what_it_names(tmp_path: Path) -> None:
    record_id = memory(tmp_path, "save", "temporary note about the ledger").stdout.split()[1]
    assert memory(tmp_path, "forget", record_id).stdout.strip() == "forgot 1 memory"
    assert json.loads(memory(tmp_path, "search", "ledger note", "--json").stdout) == []


def test_export_then_restore_into_another_store_round_trips(tmp_path: Path) -> None:
    memory(tmp_path, "save", "the cache TTL is 90 seconds")
    memory(tmp_path, "save", "prefer ruff over flake8", "--scope", "user")
    dump = tmp_path / "dump.jsonl"
    memory(tmp_path, "export", str(dump))
    other = f"sqlite:///{tmp_path / 'other.db'}"
    assert "restored 2 records" in memory(tmp_path, "restore", str(dump), MEMORY_URL=other).stdout
    assert "restored 0 records (2 already present)" in memory(tmp_path, "restore", str(dump), MEMORY_URL=other).stdout
    found = json.loads(memory(tmp_path, "search", "cache TTL", "--json", MEMORY_URL=other).stdout)
    assert found[0]["text"] == "the cache TTL is 90 seconds"


def test_off_and_on_switch_this_project(tmp_path: Path) -> None:
    assert "memory is off for git:example.com/acme/cli" in memory(tmp_path, "off").stdout
    doctor = memory(tmp_path, "doctor", check=False)
    assert doctor.returncode == 1
    assert "memory on" in doctor.stdout
    assert "memory is on" in memory(tmp_path, "on").stdout
    assert memory(tmp_path, "doctor", check=False).returncode == 0


def test_doctor_json_says_what_a_user_needs(tmp_path: Path) -> None:
    memory(tmp_path, "save", "a fact")
    report = json.loads(memory(tmp_path, "doctor", "--json").stdout)
    assert report["ok"] is True
    assert report["store"]["reachable"] is True
    assert report["store"]["backend"] == "sqlite"
    assert report["project"]["key"] == "git:example.com/acme/cli"
    assert report["records"]["project"] == 1
    for key in ("firewall", "counters", "failures", "log", "spool", "harnesses", "retrieval", "last_capture_at"):
        assert key in report


def test_doctor_names_an_unreachable_store_and_exits_1(tmp_path: Path) -> None:
    pytest.importorskip("redis", reason="missing: the redis package (pip install memory-core[redis])")
    done = memory(tmp_path, "doctor", check=False, MEMORY_URL="redis://127.0.0.1:1/4")
    assert done.returncode == 1
    assert "UNREACHABLE" in done.stdout
    assert "redis" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_doctor_redacts_the_store_password(tmp_path: Path) -> None:
    pytest.importorskip("redis", reason="missing: the redis package (pip install memory-core[redis])")
    done = memory(tmp_path, "doctor", "--json", check=False, MEMORY_URL="redis://:hunter2@127.0.0.1:1/4")
    assert "hunter2" not in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("forget",),
        ("forget", "--before", "next tuesday"),
        ("install", "no-such-harness"),
        ("restore", "/no/such/file.jsonl"),
    ],
)
def test_errors_are_one_readable_line_and_exit_non_zero(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = memory(tmp_path, *args, check=False)
    assert done.returncode != 0
    assert done.stderr.startswith("memory: error: ")
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr


def test_an_unknown_store_scheme_is_an_error_naming_the_variable(tmp_path: Path) -> None:
    done = memory(tmp_path, "stats", check=False, MEMORY_URL="mongodb://localhost/x")
    assert done.returncode != 0
    assert "MEMORY_URL" in done.stdout + done.stderr


def test_prune_keeps_the_newest(tmp_path: Path) -> None:
    for n in range(5):
        memory(tmp_path, "save", f"note number {n} about invoices")
    assert "would delete 3 of 5" in memory(tmp_path, "prune", "--keep", "2", "--dry-run").stdout
    assert "deleted 3 of 5" in memory(tmp_path, "prune", "--keep", "2").stdout
    assert json.loads(memory(tmp_path, "stats", "--json").stdout)["records"] == 2


def test_scrub_redacts_secrets_stored_while_the_firewall_was_off(tmp_path: Path) -> None:
    key = "AKIA" + "Q7RW2ZT5VN3KD8PX"  # key-shaped, in two pieces so no scanner takes it for one
    memory(tmp_path, "save", f"the key is {key} for the uploader", MEMORY_FIREWALL="0")
    assert key in memory(tmp_path, "export").stdout
    assert "redacted secrets in 1 record" in memory(tmp_path, "scrub").stdout
    exported = memory(tmp_path, "export").stdout
    assert key not in exported
    assert "[REDACTED:aws-access-key]" in exported


def test_last_shows_what_was_injected(tmp_path: Path) -> None:
    memory(tmp_path, "save", "the flaky test is test_refund_window in billing")
    code = (
        "from memory_core.service import MemoryService;"
        "MemoryService().assemble('which billing test is flaky?', harness='claude', session_id='s', turn_id='t')"
    )
    subprocess.run([sys.executable, "-c", code], env=_env(tmp_path), check=True, timeout=60)
    last = json.loads(memory(tmp_path, "last", "--json").stdout)
    assert last["query"] == "which billing test is flaky?"
    assert len(last["injected"]) == 1
    assert "test_refund_window" in memory(tmp_path, "last").stdout


def test_demo_runs_end_to_end_and_cleans_up(tmp_path: Path) -> None:
    done = memory(tmp_path, "demo")
    assert "behaved as narrated" in done.stdout
    assert "[REDACTED:aws-access-key]" in done.stdout
    throwaway = Path(done.stdout.splitlines()[0].split(": ", 1)[1])
    assert throwaway.name == "memory.db"
    assert not throwaway.parent.exists(), "the demo removes its throwaway store"
    assert not (tmp_path / "memory.db").exists(), "the demo never touches the user's store"
