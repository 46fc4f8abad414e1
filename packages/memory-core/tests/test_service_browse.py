"""The service calls `memory ui` makes: pages, explained rankings, recall history, forget and redact."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.errors import NotFound
from memory_core.models import Scope
from memory_core.service import MemoryService
from memory_core.store.base import RecordFilter

PROMPT = "Why does the billing retry loop time out against the sandbox?"
ANSWER = "It slept 30 seconds between attempts; I switched src/billing/retry.py to exponential backoff."


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MemoryService]:
    env = {
        "HOME": str(tmp_path),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/payments",
        "MEMORY_USER": "alice",
    }
    svc = MemoryService(Config.from_env(env), long_lived=True)
    yield svc
    svc.close()


def _turn(svc: MemoryService, session: str, turn: str, prompt: str = PROMPT, answer: str = ANSWER) -> str:
    svc.assemble(prompt, harness="claude", session_id=session, turn_id=turn)
    outcome = svc.capture(harness="claude", session_id=session, turn_id=turn, response=answer)
    assert outcome.record_id
    return outcome.record_id


def test_each_recall_lands_in_the_users_history_with_what_it_injected(service: MemoryService) -> None:
    stored = _turn(service, "s1", "t1")
    service.assemble("the billing retry timeout again", harness="claude", session_id="s2", turn_id="u1")
    service.assemble("what is the weather like", harness="claude", session_id="s2", turn_id="u2")
    newest, middle, oldest = service.recall_history()
    assert newest["query"] == "what is the weather like"
    assert newest["injected"] == []
    assert newest["reason"]
    assert [item["id"] for item in middle["injected"]] == [stored]
    assert middle["turn"] == "u1"
    assert middle["project"] == "git:example.com/acme/payments"
    assert oldest["query"] == PROMPT


def test_forgetting_a_turn_removes_it_and_its_prompt_from_the_history(service: MemoryService) -> None:
    stored = _turn(service, "s1", "t1")
    service.assemble("billing retry timeout", harness="claude", session_id="s2", turn_id="u1")
    assert service.forget_record(stored) == 1
    history = service.recall_history()
    # The entry of the forgotten turn's own prompt is gone; the later recall no longer names it.
    assert [e["query"] for e in history] == ["billing retry timeout"]
    assert history[0]["injected"] == []
    assert service.store.get([stored]) == []


def test_forgetting_a_session_removes_its_recalls(service: MemoryService) -> None:
    _turn(service, "s1", "t1")
    _turn(service, "s1", "t2", "and the sandbox credentials rotation?", "They rotate weekly.")
    _turn(service, "s9", "t1", "unrelated gardening question", "Water the tomatoes.")
    project = Scope("project", "git:example.com/acme/payments")
    assert service.forget_session(project, "s1") == 2
    assert [e["session"] for e in service.recall_history()] == ["s9"]
    assert [r.session_id for r in service.records_page(project)] == ["s9"]


def test_redacting_a_span_replaces_it_in_the_record_the_index_and_the_history(service: MemoryService) -> None:
    stored = _turn(service, "s1", "t1")
    record = service.record(stored)
    start = record.text.index("sandbox")
    clean = service.redact(stored, start, start + len("sandbox"))
    assert "sandbox" not in clean.text
    assert "[REDACTED:manual]" in clean.text
    assert service.record(stored).text == clean.text
    assert service.search("sandbox") == []
    assert [h.record.id for h in service.search("billing retry")] == [stored]
    assert "sandbox" not in service.recall_history()[0]["query"]
    with pytest.raises(ValueError, match="span"):
        service.redact(stored, 5, 5)


def test_explain_shows_the_block_recall_would_inject_and_each_hits_words(service: MemoryService) -> None:
    stored = _turn(service, "s1", "t1")
    _turn(service, "s1", "t2", "Lunch plans?", "Sandwiches at noon.")
    recall = service.explain("why does the billing retry time out", mode="recall")
    assert recall.mode == "recall"
    assert recall.hits[0].hit.record.id == stored
    assert recall.hits[0].injected
    assert {"billing", "retry"} <= set(recall.hits[0].matched)
    assert recall.hits[0].share == 1.0
    assert "exponential backoff" in recall.block
    assert service.explain("the weather in Lisbon", mode="recall").why in {
        "nothing in memory is near the prompt",
        "the prompt is closer to generic prompts than to this project's memories",
    }
    search = service.explain("lunch", mode="search")
    assert search.block == ""
    assert search.hits[0].matched == ("lunch",)
    # Explaining is not recalling: nothing is counted or added to the history.
    assert len(service.recall_history()) == 2


def test_pages_filter_on_the_server_and_a_users_scope_is_their_own(service: MemoryService) -> None:
    for n in range(5):
        _turn(service, f"s{n % 2}", f"t{n}", f"question {n} about billing", f"answer {n}")
    note = service.save("Prefer pytest over unittest", scope="user")
    project = Scope("project", "git:example.com/acme/payments")
    page = service.records_page(project, RecordFilter(session_id="s0"), limit=2)
    assert [r.session_id for r in page] == ["s0", "s0"]
    assert page[0].created_at >= page[1].created_at
    assert [r.id for r in service.records_page(Scope("user", "alice"))] == [note.id]
    with pytest.raises(PermissionError):
        service.records_page(Scope("user", "bob"))
    assert service.browse_scopes() == [project, Scope("user", "alice")]
    with pytest.raises(NotFound):
        service.record("nope")


def test_the_quick_report_skips_the_page_scan_but_still_sees_a_file_that_is_no_database(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/payments",
        "MEMORY_USER": "alice",
    }
    (tmp_path / "memory.db").write_bytes(b"not a database, just bytes " * 200)
    svc = MemoryService(Config.from_env(env), long_lived=True)
    try:
        report = svc.doctor_report(integrity=False)
        assert report["store"]["file"] == "corrupt"
        assert not report["ok"]
    finally:
        svc.close()


def test_scrub_also_redacts_the_prompts_the_recall_history_holds(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/payments",
        "MEMORY_USER": "alice",
    }
    unguarded = MemoryService(Config.from_env({**env, "MEMORY_FIREWALL": "0"}), long_lived=True)
    key = "AKIA" + "Q7RW2ZT5VN3KD8PX"  # key-shaped (AWS's documented `...EXAMPLE` key is kept as an example)
    unguarded.assemble(f"upload with {key} please", harness="claude", session_id="s", turn_id="t")
    unguarded.close()
    svc = MemoryService(Config.from_env(env), long_lived=True)
    try:
        assert key in svc.recall_history()[0]["query"]
        svc.scrub()
        assert svc.recall_history()[0]["query"] == "upload with [REDACTED:aws-access-key] please"
    finally:
        svc.close()
