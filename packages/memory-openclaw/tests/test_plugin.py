"""The OpenClaw plugin (`plugin/index.ts`) under Node 24, its handlers called as OpenClaw calls them.

`tests/js/drive.mjs` loads the plugin with OpenClaw's real `definePluginEntry`, registers it
as many times as asked, and calls the handlers with the recorded payloads: modify hooks
awaited, observe hooks not. Where a test is about the plugin's side of the protocol (pairing,
idempotence, the time bound, the worker's lifetime), `tests/js/record.sh` stands in for
memory-core's worker and records what the plugin sent; `test_recall_through_memory_core` runs
the real thing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from memory_openclaw import PLUGIN_ID
from memory_openclaw.harness import plugin_dir
from memory_testing.harness_programs import HarnessInstallError, npm_package
from memory_testing.requirements import require

JS = Path(__file__).resolve().parent / "js"
TYPESCRIPT_VERSION = "5.9.3"
NODE_TYPES_VERSION = "24.19.4"
_DRIVER_TIMEOUT_S = 120


@pytest.fixture
def plugin_copy(tmp_path: Path, openclaw_prefix: Path) -> Path:
    """The plugin's files beside a `node_modules/openclaw` that resolves its SDK import."""
    folder = tmp_path / "plugin"
    folder.mkdir()
    for source in plugin_dir().iterdir():
        (folder / source.name).write_bytes(source.read_bytes())
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / "openclaw").symlink_to(openclaw_prefix / "node_modules" / "openclaw")
    return folder


@pytest.fixture
def records(tmp_path: Path) -> Path:
    folder = tmp_path / "records"
    folder.mkdir()
    return folder


def drive(
    node: Path, plugin: Path, steps: list[dict[str, Any]], *, env: dict[str, str], **scenario: Any
) -> dict[str, Any]:
    body = {"plugin": str(plugin), "registrations": 1, "config": {}, "steps": steps, **scenario}
    done = subprocess.run(
        [str(node), str(JS / "drive.mjs")],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=_DRIVER_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def sent(records: Path, *, expect: int) -> list[dict[str, Any]]:
    """The payloads the plugin sent, oldest first, once `expect` of them arrived (captures are detached)."""
    deadline = time.monotonic() + 20
    while len(list(records.glob("*.json"))) < expect and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # a late extra one (a duplicate capture) must have its chance to show up
    return [json.loads(f.read_text()) for f in sorted(records.glob("*.json"))]


def workers(records: Path) -> set[str]:
    """The pids of the worker processes that served the recorded requests."""
    return {f.stem.split("-")[1] for f in records.glob("*.json")}


def step(recorded: Any, name: str, *, run: str | None = None, registration: int = 0) -> dict[str, Any]:
    payload = recorded(f"openclaw/{name}.json")
    event, ctx = payload["event"], payload["ctx"]
    if run is not None:
        ctx["runId"] = run
        if "runId" in event:
            event["runId"] = run
    return {"hook": payload["hook"], "event": event, "ctx": ctx, "registration": registration}


def recorder(records: Path, **extra: str) -> dict[str, str]:
    return {"REC_DIR": str(records), **extra}


def _config() -> dict[str, str]:
    return {"python": str(JS / "record.sh")}


def test_manifest_package_and_entry_agree_on_the_plugin() -> None:
    manifest = json.loads((plugin_dir() / "openclaw.plugin.json").read_text())
    package = json.loads((plugin_dir() / "package.json").read_text())
    source = (plugin_dir() / "index.ts").read_text()
    assert manifest["id"] == PLUGIN_ID
    assert manifest["configSchema"]["type"] == "object"
    assert set(manifest["configSchema"]["properties"]) == {"python", "timeoutMs"}
    assert package["openclaw"] == {"extensions": ["./index.ts"]}
    assert f'const PLUGIN_ID = "{PLUGIN_ID}";' in source
    assert 'from "openclaw/plugin-sdk/plugin-entry"' in source


def test_the_plugin_never_spawns_synchronously() -> None:
    # execFileSync / spawnSync in a hook stalls OpenClaw's whole event loop (gateway included).
    source = (plugin_dir() / "index.ts").read_text()
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.DOTALL)
    assert re.findall(r"import \{([^}]*)\} from \"node:child_process\"", code) == [" type ChildProcess, spawn "]
    assert not re.search(r"\b(execSync|execFileSync|spawnSync)\b", code)


def test_recall_returns_memory_cores_answer_as_append_context(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any, tmp_path: Path
) -> None:
    reply = tmp_path / "reply.json"
    reply.write_text('{"appendContext":"Relevant memories:\\n- my cat is called Miso"}')
    out = drive(
        node_bin,
        plugin_copy,
        [step(recorded, "turn2-04-before_prompt_build")],
        config=_config(),
        env=recorder(records, REC_REPLY=str(reply)),
    )
    assert out["results"][0]["result"] == {"appendContext": "Relevant memories:\n- my cat is called Miso"}
    (payload,) = sent(records, expect=1)
    assert payload == recorded("plugin/turn2.before_prompt_build.json")


def test_output_that_is_not_a_recall_injects_nothing(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any, tmp_path: Path
) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("Traceback (most recent call last):\n")
    out = drive(
        node_bin,
        plugin_copy,
        [step(recorded, "turn2-04-before_prompt_build")],
        config=_config(),
        env=recorder(records, REC_REPLY=str(reply)),
    )
    assert out["results"][0]["result"] is None


def test_recall_waits_without_blocking_the_event_loop(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any
) -> None:
    out = drive(
        node_bin,
        plugin_copy,
        [step(recorded, "turn2-04-before_prompt_build")],
        config=_config(),
        env=recorder(records, REC_SLEEP="0.5"),
    )
    result = out["results"][0]
    # A 5 ms timer kept firing while the hook waited half a second for its child.
    assert result["ticks"] >= result["elapsedMs"] / 5 / 4


def test_a_slow_memory_core_is_cut_off_and_the_turn_goes_on(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any
) -> None:
    sleep_s = 30
    started = time.monotonic()
    out = drive(
        node_bin,
        plugin_copy,
        [step(recorded, "turn2-04-before_prompt_build")],
        config=_config(),
        env=recorder(records, REC_SLEEP=str(sleep_s)),
    )
    assert out["results"][0]["result"] is None
    assert out["results"][0]["elapsedMs"] < sleep_s * 1000 / 4
    assert time.monotonic() - started < sleep_s / 2  # the killed child did not keep Node alive


def test_a_missing_interpreter_costs_the_turn_nothing(node_bin: Path, plugin_copy: Path, recorded: Any) -> None:
    out = drive(
        node_bin,
        plugin_copy,
        [step(recorded, "turn2-04-before_prompt_build"), step(recorded, "turn2-12-agent_end")],
        config={"python": "/nonexistent/bin/python3"},
        env={},
    )
    assert [r["result"] for r in out["results"]] == [None, None]


@pytest.mark.parametrize("first", ["agent_end", "llm_output"])
def test_capture_pairs_the_prompt_with_the_first_answer_by_run_id(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any, first: str
) -> None:
    # OpenClaw fired agent_end first in every recorded turn, but the two are concurrent observe
    # hooks: either order must capture the turn once, with the prompt before_prompt_build saw.
    order = {"agent_end": "12-agent_end", "llm_output": "13-llm_output"}
    second = "llm_output" if first == "agent_end" else "agent_end"
    drive(
        node_bin,
        plugin_copy,
        [
            step(recorded, "turn1-04-before_prompt_build"),
            step(recorded, "turn2-04-before_prompt_build"),
            step(recorded, f"turn2-{order[first]}"),
            step(recorded, f"turn1-{order[first]}"),
            step(recorded, f"turn2-{order[second]}"),
            step(recorded, f"turn1-{order[second]}"),
        ],
        config=_config(),
        env=recorder(records),
    )
    # An `agent_end` after an `llm_output` capture is sent too: it alone carries the run's tool
    # calls and results (the record id stores the turn once).
    expected = 2 if first == "agent_end" else 4
    captures = [p for p in sent(records, expect=2 + expected) if p["hook"] != "before_prompt_build"]
    assert len(captures) == expected
    assert len(workers(records)) == 1  # one worker process served every call
    by_run: dict[str, list[Any]] = {}
    for payload in captures:
        by_run.setdefault(payload["ctx"]["runId"], []).append(payload)
    for turn in ("turn1", "turn2"):
        bpb = recorded(f"openclaw/{turn}-04-before_prompt_build.json")
        sent_for_run = by_run[bpb["ctx"]["runId"]]
        assert [p["hook"] for p in sent_for_run] == ([first] if first == "agent_end" else [first, second])
        assert all(p["prompt"] == bpb["event"]["prompt"] for p in sent_for_run)


def test_agent_end_sends_only_this_turns_messages(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any
) -> None:
    drive(node_bin, plugin_copy, [step(recorded, "turn2-12-agent_end")], config=_config(), env=recorder(records))
    (capture,) = sent(records, expect=1)
    assert [m["role"] for m in capture["event"]["messages"]] == ["user", "assistant"]
    assert "prompt" not in capture  # no before_prompt_build seen: the adapter reads the user message


def test_register_is_idempotent_and_several_registrations_recall_and_capture_once(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any, tmp_path: Path
) -> None:
    reply = tmp_path / "reply.json"
    reply.write_text('{"appendContext":"remembered"}')
    out = drive(
        node_bin,
        plugin_copy,
        [
            step(recorded, "turn1-04-before_prompt_build", registration=0),
            step(recorded, "turn1-04-before_prompt_build", registration=1),  # another live registry
            step(recorded, "turn1-04-before_prompt_build", registration=0),  # a retried attempt
            step(recorded, "turn1-12-agent_end", registration=2),
            step(recorded, "turn1-13-llm_output", registration=0),
        ],
        registrations=3,
        registerTwice=True,
        config=_config(),
        env=recorder(records, REC_REPLY=str(reply)),
    )
    hooks = [
        "after_compaction",
        "agent_end",
        "before_model_resolve",
        "before_prompt_build",
        "gateway_start",
        "llm_output",
    ]
    assert out["registered"] == [hooks, hooks, hooks]
    assert all(r["handlers"] == 1 for r in out["results"])
    assert [r["result"] for r in out["results"][:3]] == [
        {"appendContext": "remembered"},
        None,
        {"appendContext": "remembered"},
    ]
    assert [p["hook"] for p in sent(records, expect=2)] == ["before_prompt_build", "agent_end"]


def test_capture_never_holds_the_turn_or_the_process(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any
) -> None:
    sleep_s = 20
    started = time.monotonic()
    out = drive(
        node_bin,
        plugin_copy,
        [step(recorded, "turn1-12-agent_end")],
        config=_config(),
        env=recorder(records, REC_SLEEP=str(sleep_s)),
    )
    assert out["results"][0]["elapsedMs"] < sleep_s * 1000 / 20
    assert time.monotonic() - started < sleep_s / 2
    (capture,) = sent(records, expect=1)  # and the detached child still got the whole payload
    assert capture["hook"] == "agent_end"


def test_recall_through_memory_core(node_bin: Path, plugin_copy: Path, recorded: Any, tmp_path: Path) -> None:
    """The plugin and the real hook process: a fact captured in one session is recalled in another."""
    env = {"MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}"}
    config = {"python": sys.executable}
    drive(
        node_bin,
        plugin_copy,
        [step(recorded, "turn1-04-before_prompt_build"), step(recorded, "turn1-12-agent_end")],
        config=config,
        env=env,
    )
    question = step(recorded, "turn2-04-before_prompt_build", run="new-run")
    question["ctx"]["sessionId"] = "another-session"
    question["event"]["prompt"] = "What is my cat called?"
    deadline = time.monotonic() + 20
    while True:  # the capture is a detached child: give it the time it needs, boundedly
        out = drive(node_bin, plugin_copy, [question], config=config, env=env)
        if out["results"][0]["result"] or time.monotonic() > deadline:
            break
        question["ctx"]["runId"] += "-again"
        time.sleep(0.2)
    result = out["results"][0]["result"]
    assert result is not None
    assert "my cat is called Miso" in result["appendContext"]


def test_a_worker_that_dies_gets_its_unconfirmed_captures_resent(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any, tmp_path: Path
) -> None:
    drive(
        node_bin,
        plugin_copy,
        [step(recorded, "turn1-12-agent_end"), {"sleepMs": 3000}],
        config=_config(),
        env=recorder(records, REC_DIE_ONCE=str(tmp_path / "died")),
    )
    captures = sent(records, expect=2)
    run_id = recorded("openclaw/turn1-12-agent_end.json")["ctx"]["runId"]
    assert [c["ctx"]["runId"] for c in captures] == [run_id, run_id]
    assert len(workers(records)) == 2


def test_the_worker_starts_while_openclaw_prepares_the_turn(
    node_bin: Path, plugin_copy: Path, records: Path, recorded: Any
) -> None:
    resolve = recorded("openclaw/turn1-04-before_prompt_build.json")
    out = drive(
        node_bin,
        plugin_copy,
        [
            {"hook": "before_model_resolve", "event": {"prompt": "hi"}, "ctx": resolve["ctx"]},
            {"sleepMs": 1500},
            step(recorded, "turn1-04-before_prompt_build"),
        ],
        config=_config(),
        env=recorder(records),
    )
    assert out["results"][0]["result"] is None  # model resolution is left alone
    (started,) = records.glob("started-*")
    # The recall was served by the worker started ahead of it, not by a second one.
    assert workers(records) == {started.name.split("-")[1]}


def test_the_plugin_type_checks_against_openclaws_sdk(node_bin: Path, plugin_copy: Path) -> None:
    """`tsc --strict` with OpenClaw 2026.9.6's own types: the handlers fit the hooks they are registered for."""
    try:
        typescript = npm_package("typescript", TYPESCRIPT_VERSION, node=node_bin)
        node_types = npm_package("@types/node", NODE_TYPES_VERSION, node=node_bin)
    except HarnessInstallError as exc:
        require(False, f"typescript and @types/node from npm ({exc})")
        raise
    (plugin_copy / "node_modules" / "@types").mkdir()
    (plugin_copy / "node_modules" / "@types" / "node").symlink_to(node_types / "node_modules" / "@types" / "node")
    config = {
        "compilerOptions": {
            "target": "ES2023",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "noEmit": True,
            "skipLibCheck": True,
            "types": ["node"],
        },
        "files": ["index.ts"],
    }
    (plugin_copy / "tsconfig.json").write_text(json.dumps(config))
    tsc = typescript / "node_modules" / "typescript" / "bin" / "tsc"
    done = subprocess.run(
        [str(node_bin), str(tsc), "-p", str(plugin_copy)],
        capture_output=True,
        text=True,
        timeout=_DRIVER_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
