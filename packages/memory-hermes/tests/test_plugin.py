"""The plugin in-process, against a real embedded store: what a Hermes user would notice.

Hermes calls `pre_llm_call(**kwargs)` and `post_llm_call(**kwargs)` synchronously; these
tests call the registered callbacks the same way, with the recorded kwargs.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from memory_hermes import whereabouts
from memory_hermes.plugin import register
from memory_testing.requirements import require

from .support import HookRegistry, recorded

pytestmark = pytest.mark.usefixtures("fresh_runtime")

FACT = "Please remember that the payments service deploys with `make ship` from the release branch."
ANSWER = "Noted: payments deploys with make ship, from the release branch."


def _kwargs(name: str, **changes: Any) -> dict[str, Any]:
    """A recorded call's kwargs with some replaced."""
    kwargs: dict[str, Any] = dict(recorded(name)["kwargs"])
    kwargs.update(changes)
    return kwargs


def _turn(session: str, turn: str) -> dict[str, str]:
    return {"session_id": session, "task_id": "task", "turn_id": f"{session}:task:{turn}"}


def _state_fact(hermes: HookRegistry, session: str = "s1") -> None:
    ids = _turn(session, "t1")
    assert hermes.invoke("pre_llm_call", **_kwargs("pre_llm_call.turn1.json", user_message=FACT, **ids)) == []
    assert hermes.invoke("post_llm_call", **_kwargs("post_llm_call.turn1.json", assistant_response=ANSWER, **ids)) == []


@pytest.fixture
def hermes() -> HookRegistry:
    registry = HookRegistry()
    register(registry)
    return registry


def test_register_hooks_recall_and_capture(hermes: HookRegistry) -> None:
    assert sorted(hermes.hooks) == ["post_llm_call", "pre_llm_call"]


def test_a_fact_stated_in_one_session_is_recalled_in_the_next(hermes: HookRegistry) -> None:
    _state_fact(hermes)
    ask = _kwargs("pre_llm_call.turn1.json", user_message="how does the payments service deploy?", **_turn("s2", "u1"))
    [returned] = hermes.invoke("pre_llm_call", **ask)
    assert set(returned) == {"context"}
    assert "make ship" in returned["context"]


def test_the_same_question_gets_byte_identical_context_in_every_new_session(hermes: HookRegistry) -> None:
    # Hermes keeps the block in the session's history: a stable block keeps provider caches warm.
    _state_fact(hermes)
    blocks = [
        hermes.invoke(
            "pre_llm_call",
            **_kwargs("pre_llm_call.turn1.json", user_message="how does payments deploy?", **_turn(session, "u1")),
        )
        for session in ("s2", "s3", "s4")
    ]
    assert blocks[0]
    assert blocks[0] == blocks[1] == blocks[2]


def test_an_unrelated_prompt_gets_nothing(hermes: HookRegistry) -> None:
    _state_fact(hermes)
    haiku = _kwargs("pre_llm_call.turn1.json", user_message="write a haiku about autumn leaves", **_turn("s2", "u1"))
    assert hermes.invoke("pre_llm_call", **haiku) == []


def test_a_record_is_never_injected_twice_in_one_session(hermes: HookRegistry) -> None:
    # Hermes persists injected context into every later turn: a repeat would be pure waste.
    _state_fact(hermes)
    first = _kwargs("pre_llm_call.turn1.json", user_message="how does payments deploy?", **_turn("s2", "u1"))
    again = _kwargs("pre_llm_call.turn1.json", user_message="and payments deploy, once more?", **_turn("s2", "u2"))
    assert len(hermes.invoke("pre_llm_call", **first)) == 1
    assert hermes.invoke("pre_llm_call", **again) == []


def test_after_hermes_compacts_a_session_its_memories_may_come_back(hermes: HookRegistry) -> None:
    # Hermes compresses a long session in place, firing no hook: the history shrinks, and what
    # was injected before is summarised away, so it may be injected again.
    _state_fact(hermes)
    question = "how does payments deploy?"

    def ask(turn: str, history: int) -> list[Any]:
        messages = [{"role": "user", "content": f"message {n}"} for n in range(history)]
        kwargs = _kwargs(
            "pre_llm_call.turn1.json", user_message=question, conversation_history=messages, **_turn("s2", turn)
        )
        return hermes.invoke("pre_llm_call", **kwargs)

    assert len(ask("u1", history=9)) == 1
    assert ask("u2", history=11) == []  # already in this session's context
    assert len(ask("u3", history=3)) == 1  # compacted: the earlier injection is gone from context
    assert ask("u4", history=5) == []


def test_the_project_is_the_folder_hermes_started_in_and_doctor_can_read_it(
    hermes: HookRegistry, project: Path, memory_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _state_fact(hermes)
    # Hermes's tools may change directory later; the plugin keeps the project it started with.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    ask = _kwargs("pre_llm_call.turn1.json", user_message="how does payments deploy?", **_turn("s2", "u1"))
    assert len(hermes.invoke("pre_llm_call", **ask)) == 1
    note = whereabouts.read(Path(memory_env["MEMORY_STATE_DIR"]))
    assert note is not None
    assert note.key == f"path:{project}"
    assert note.cwd == str(project)


def test_memory_project_overrides_the_folder(memory_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_PROJECT", "git:example.com/acme/payments")
    hermes = HookRegistry()
    register(hermes)
    _state_fact(hermes)
    note = whereabouts.read(Path(memory_env["MEMORY_STATE_DIR"]))
    assert note is not None
    assert note.key == "git:example.com/acme/payments"
    assert note.source == "MEMORY_PROJECT"


def test_broken_calls_never_raise_into_hermes(hermes: HookRegistry, memory_env: dict[str, str]) -> None:
    assert hermes.invoke("pre_llm_call") == []  # no kwargs at all
    assert hermes.invoke("post_llm_call", session_id=42, user_message=object()) == []
    assert "hermes.pre_llm_call" in json.loads((Path(memory_env["MEMORY_STATE_DIR"]) / "failures.json").read_text())


def test_a_store_url_that_cannot_work_costs_nothing_but_a_log_line(
    memory_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_URL", "redis://127.0.0.1:6379/0")  # database 0 without opt-in
    hermes = HookRegistry()
    register(hermes)
    ask = _kwargs("pre_llm_call.turn1.json", user_message="how does payments deploy?", **_turn("s2", "u1"))
    assert hermes.invoke("pre_llm_call", **ask) == []
    assert hermes.invoke("post_llm_call", **_kwargs("post_llm_call.turn1.json", **_turn("s2", "u1"))) == []
    assert Path(memory_env["MEMORY_LOG"]).read_text().count("ERROR") >= 1


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP listener on 127.0.0.1 that accepts connections and never answers: a hung store."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(timeout=2)
    for conn in accepted:
        conn.close()
    listener.close()


def test_a_hung_store_delays_a_turn_once_then_is_skipped(
    silent_server: int, memory_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    require(find_spec("redis") is not None, "the redis client (memory-core[redis])")
    monkeypatch.setenv("MEMORY_URL", f"redis://127.0.0.1:{silent_server}/5")
    hermes = HookRegistry()
    register(hermes)

    def timed_recall(turn: str) -> float:
        ask = _kwargs("pre_llm_call.turn1.json", user_message="how does payments deploy?", **_turn("s2", turn))
        begin = time.perf_counter()
        assert hermes.invoke("pre_llm_call", **ask) == []
        return time.perf_counter() - begin

    first = timed_recall("u1")
    second = timed_recall("u2")
    # The first turn pays the store's timeout; the outage is then remembered and the next turn
    # skips the store: it costs a small fraction of the first.
    assert second < first / 5


def test_a_store_slower_than_a_turn_can_wait_is_cut_off_by_the_plugin(
    silent_server: int, memory_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    require(find_spec("redis") is not None, "the redis client (memory-core[redis])")
    store_timeout = 6.0
    monkeypatch.setenv("MEMORY_URL", f"redis://127.0.0.1:{silent_server}/5")
    monkeypatch.setenv("MEMORY_TIMEOUT", str(store_timeout))
    hermes = HookRegistry()
    register(hermes)
    ask = _kwargs("pre_llm_call.turn1.json", user_message="how does payments deploy?", **_turn("s2", "u1"))
    begin = time.perf_counter()
    assert hermes.invoke("pre_llm_call", **ask) == []
    elapsed = time.perf_counter() - begin
    # Hermes's turn went on long before the store gave up: the plugin's own wait cut it off.
    assert elapsed < store_timeout / 2
    failures = json.loads((Path(memory_env["MEMORY_STATE_DIR"]) / "failures.json").read_text())
    assert failures["hermes.recall_timeout"] == 1


def test_a_turn_captured_while_the_store_is_down_is_spooled_not_lost(
    memory_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    require(find_spec("redis") is not None, "the redis client (memory-core[redis])")
    with socket.socket() as probe:  # a port with nothing listening: connection refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("MEMORY_URL", f"redis://127.0.0.1:{port}/5")
    hermes = HookRegistry()
    register(hermes)
    _state_fact(hermes)
    spool = Path(memory_env["MEMORY_STATE_DIR"]) / "spool.jsonl"
    assert "make ship" in spool.read_text()


def test_the_block_stays_small_because_hermes_replays_it_every_later_turn(
    hermes: HookRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_core.retrieval.render import approx_tokens

    monkeypatch.setenv("MEMORY_MAX_TOKENS", "2000")
    topics = ["the search index", "the auth tokens", "the billing cron", "the cache warmer", "the log shipper"]
    turns = [(f"what owns {topic}?", f"The platform team owns {topic}.") for topic in topics]
    aspects = {
        "rollback": "if the canary fails, run make unship and page the on-call engineer in the payments rotation",
        "secrets": "the vault role payments-deployer must be assumed before make ship reads the signing keys",
        "timing": "never ship payments on Fridays; the settlement batch window closes at 17:00 UTC",
        "checks": "make ship runs the ledger reconciliation suite and refuses to continue on any drift",
    }
    for aspect, fact in aspects.items():
        detail = f" In short: {fact}. " * 6
        turns.append((f"How does the payments deploy handle {aspect}?", f"For payments deploys, {fact}.{detail}"))
    for number, (prompt, answer) in enumerate(turns):
        ids = _turn(f"s{number}", "t1")
        hermes.invoke(
            "post_llm_call",
            **_kwargs("post_llm_call.turn1.json", user_message=prompt, assistant_response=answer, **ids),
        )
    ask = _kwargs(
        "pre_llm_call.turn1.json", user_message="how do payments deploys with make ship work?", **_turn("s9", "u1")
    )
    [returned] = hermes.invoke("pre_llm_call", **ask)
    assert "make ship" in returned["context"]
    assert approx_tokens(returned["context"]) <= 400
