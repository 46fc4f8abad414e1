"""The hook as Codex runs it: a process, the payload on stdin, the response on stdout, exit 0.

These run `python -m memory_codex.hook` against the embedded store in a temp folder, with
the recorded payloads, and through `memory_core.hookpath.runner.run` in-process for the token cap.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from memory_codex.adapter import CODEX_CONTEXT_LIMIT_TOKENS, MAX_CONTEXT_TOKENS, CodexHooks
from memory_codex.harness import CodexHarness
from memory_core.hookpath.runner import run
from memory_core.retrieval.render import approx_tokens

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def memory_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_LOG": str(tmp_path / "memory.log"),
        "MEMORY_CONFIG": str(tmp_path / "no-config.toml"),
        "MEMORY_PROJECT": "codex-hook-tests",
        "MEMORY_USER": "tester",
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return dict(os.environ)


def hook(payload: dict[str, object] | bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    argv = CodexHarness().hook_argv()
    assert argv is not None
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run(argv, input=data, env=env, capture_output=True, timeout=60, check=False)


def fixture(name: str) -> dict[str, object]:
    payload: dict[str, object] = json.loads((FIXTURES / name).read_text())
    return payload


@pytest.mark.parametrize("raw", [b"", b"not json", b"{", b"[]", b'{"hook_event_name": "Stop"}', b"\xff\xfe"])
def test_a_payload_it_cannot_read_prints_nothing_and_exits_0(raw: bytes, memory_env: dict[str, str]) -> None:
    done = hook(raw, memory_env)
    assert done.returncode == 0
    assert done.stdout == b""


def test_capture_prints_nothing_and_exits_0(memory_env: dict[str, str]) -> None:
    done = hook(fixture("Stop.json"), memory_env)
    assert done.returncode == 0
    assert done.stdout == b""


def test_a_prompt_with_nothing_relevant_prints_nothing(memory_env: dict[str, str]) -> None:
    done = hook(fixture("UserPromptSubmit.json"), memory_env)
    assert done.returncode == 0
    assert done.stdout == b""


def test_a_stated_fact_comes_back_in_a_later_session_as_context(memory_env: dict[str, str]) -> None:
    first = dict(fixture("UserPromptSubmit.json"), session_id="s-one", turn_id="t-one", cwd=str(Path.cwd()))
    stop = dict(fixture("Stop.json"), session_id="s-one", turn_id="t-one", cwd=str(Path.cwd()))
    assert hook(first, memory_env).returncode == 0
    assert hook(stop, memory_env).returncode == 0
    ask = dict(fixture("UserPromptSubmit.resume.json"), session_id="s-two", turn_id="t-two", cwd=str(Path.cwd()))
    done = hook(ask, memory_env)
    assert done.returncode == 0
    output = json.loads(done.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "tox" in output["hookSpecificOutput"]["additionalContext"]


def test_the_injected_block_stays_under_codexs_limit_whatever_memory_max_tokens_says(
    memory_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_core.service import MemoryService

    rng = random.Random(7)
    syllables = "ka lo mi ne ru sa ti vo be da fe gu hi jo ku le mo na pi ro".split()  # noqa: SIM905

    def words(count: int) -> str:
        return " ".join("".join(rng.choice(syllables) for _ in range(3)) for _ in range(count))

    service = MemoryService()
    for n in range(300):  # unrelated notes keep the query's words rare enough to be relevant
        service.save(f"note {n}: {words(40)}")
    for n in range(40):  # 40 relevant notes of ~900 bytes: far more than 2,500 tokens together
        service.save(f"deploy note {n}: the deploy script runs tox. {words(120)}")
    monkeypatch.setenv("MEMORY_MAX_TOKENS", "100000")
    monkeypatch.setenv("MEMORY_MAX_ITEMS", "60")
    payload = dict(fixture("UserPromptSubmit.json"), prompt="how does the deploy script run tox?", cwd=str(Path.cwd()))
    out = run(CodexHooks(), json.dumps(payload).encode())
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert len(context) / 2.4 < CODEX_CONTEXT_LIMIT_TOKENS
    assert approx_tokens(context) <= MAX_CONTEXT_TOKENS
    assert context.count("deploy note") > 5  # more than the default budget holds: the cap, not the default, bounds it


def test_the_hook_module_imports_nothing_heavy() -> None:
    code = "import sys, memory_codex.hook; print(','.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(",")
    )
    heavy = {"pydantic", "mcp", "numpy", "importlib.metadata", "tomllib", "memory_codex.install", "memory_codex.trust"}
    assert not heavy & loaded
