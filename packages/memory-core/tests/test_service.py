"""MemoryService: the recall/capture loop as a user of any harness would notice it."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.errors import FirewallBlocked, NotFound
from memory_core.models import EventKind, HookEvent
from memory_core.project import set_disabled
from memory_core.service import MemoryService

FACT_PROMPT = "Remember that the payments service runs its tests with `tox -e integration` against a local Postgres."
FACT_ANSWER = "Noted: payments tests run through tox -e integration, with Postgres on localhost."


def _config(tmp_path: Path, **env: str) -> Config:
    base = {
        "HOME": str(tmp_path),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/payments",
        "MEMORY_USER": "alice",
    }
    base.update(env)
    return Config.from_env(base)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MemoryService]:
    svc = MemoryService(_config(tmp_path))
    yield svc
    svc.store.close()


def _state_a_fact(svc: MemoryService, session: str = "s1", turn: str = "t1") -> str:
    svc.assemble(FACT_PROMPT, harness="claude", session_id=session, turn_id=turn)
    outcome = svc.capture(harness="claude", session_id=session, turn_id=turn, response=FACT_ANSWER)
    assert outcome.status == "stored"
    assert outcome.record_id
    return outcome.record_id


def test_a_fact_from_one_session_is_recalled_in_the_next(service: MemoryService) -> None:
    record_id = _state_a_fact(service)
    recall = service.assemble("how do I run the payments tests?", harness="claude", session_id="s2", turn_id="u1")
    assert "tox -e integration" in recall.text
    assert [hit.record.id for hit in recall.hits] == [record_id]


def test_the_stored_turn_holds_the_prompt_and_the_answer_verbatim(service: MemoryService) -> None:
    record_id = _state_a_fact(service)
    [record] = service.store.get([record_id])
    assert FACT_PROMPT in record.text
    assert FACT_ANSWER in record.text
    assert (record.author, record.harness, record.session_id, record.turn_id) == ("alice", "claude", "s1", "t1")


def test_an_unrelated_prompt_injects_nothing(service: MemoryService) -> None:
    _state_a_fact(service)
    recall = service.assemble("what is a good name for a cat?", harness="claude", session_id="s2", turn_id="u1")
    assert recall.text == ""
    assert recall.hits == ()


def test_identical_inputs_render_byte_identical_blocks(tmp_path: Path) -> None:
    blocks = []
    for run in range(2):
        svc = MemoryService(_config(tmp_path / str(run)), clock=lambda: 1_790_000_000.0)
        _state_a_fact(svc)
        blocks.append(svc.assemble("payments tests tox?", harness="claude", session_id="s2", turn_id="u").text)
        svc.store.close()
    assert blocks[0]
    assert blocks[0] == blocks[1]


def test_a_record_is_never_injected_twice_in_one_session(service: MemoryService) -> None:
    _state_a_fact(service)
    first = service.assemble("payments tests?", harness="claude", session_id="s2", turn_id="u1")
    second = service.assemble("payments tests again?", harness="claude", session_id="s2", turn_id="u2")
    other = service.assemble("payments tests?", harness="claude", session_id="s3", turn_id="u1")
    assert first.text
    assert second.text == ""
    assert other.text, "another session may see it"


def test_a_turn_still_in_the_live_context_is_not_injected_until_a_compaction(service: MemoryService) -> None:
    _state_a_fact(service, session="s1")
    same = service.assemble("payments tests?", harness="claude", session_id="s1", turn_id="t2")
    assert same.text == "", "the turn is still in this session's context"
    service.handle(HookEvent(EventKind.RESET, "claude", session_id="s1"))
    after = service.assemble("payments tests?", harness="claude", session_id="s1", turn_id="t3")
    assert "tox -e integration" in after.text, "a compaction emptied the context"


def test_a_compaction_lets_an_injected_record_be_injected_again(service: MemoryService) -> None:
    _state_a_fact(service, session="s1")
    assert service.assemble("payments tests?", harness="claude", session_id="s2", turn_id="a").text
    service.reset_session(harness="claude", session_id="s2")
    assert service.assemble("payments tests?", harness="claude", session_id="s2", turn_id="b").text


def test_write_pairs_with_read_by_turn_id_whatever_the_order_of_turns(service: MemoryService) -> None:
    service.assemble("first question about the ledger", harness="codex", session_id="s", turn_id="A")
    service.assemble("second question about the invoices", harness="codex", session_id="s", turn_id="B")
    a = service.capture(harness="codex", session_id="s", turn_id="A", response="ledger answer")
    b = service.capture(harness="codex", session_id="s", turn_id="B", response="invoice answer")
    texts = {r.id: r.text for r in service.store.get([a.record_id or "", b.record_id or ""])}
    assert "first question about the ledger" in texts[a.record_id or ""]
    assert "second question about the invoices" in texts[b.record_id or ""]


def test_a_harness_without_turn_ids_pairs_by_position(service: MemoryService) -> None:
    service.assemble("what port does the ledger use?", harness="x", session_id="s", turn_id=None)
    outcome = service.capture(harness="x", session_id="s", turn_id=None, response="port 8443")
    [record] = service.store.get([outcome.record_id or ""])
    assert "what port does the ledger use?" in record.text
    assert "port 8443" in record.text


def test_capturing_the_same_turn_twice_stores_it_once(service: MemoryService) -> None:
    _state_a_fact(service)
    again = service.capture(harness="claude", session_id="s1", turn_id="t1", prompt=FACT_PROMPT, response=FACT_ANSWER)
    assert again.status == "duplicate"
    assert service.store.count(service.scopes()) == 1


def test_turns_of_a_session_get_consecutive_positions(service: MemoryService) -> None:
    ids = [
        service.capture(harness="claude", session_id="s", turn_id=f"t{n}", prompt=f"q{n}", response=f"a{n}").record_id
        for n in range(3)
    ]
    records = service.store.get([i or "" for i in ids])
    assert [r.seq for r in records] == [0, 1, 2]
    around = service.expand(ids[1] or "")
    assert [r.seq for r in around] == [0, 1, 2]


def test_nomemory_drops_the_whole_turn(service: MemoryService) -> None:
    service.assemble("#nomemory the staging password rotation plan", harness="claude", session_id="s", turn_id="t")
    outcome = service.capture(harness="claude", session_id="s", turn_id="t", response="Understood.")
    assert outcome.status == "dropped"
    assert service.store.count(None) == 0


def test_memory_off_in_a_project_touches_nothing(tmp_path: Path) -> None:
    config = _config(tmp_path)
    set_disabled(config.state_dir, "git:example.com/acme/payments", True)
    svc = MemoryService(config)
    assert svc.assemble(FACT_PROMPT, harness="claude", session_id="s", turn_id="t").text == ""
    assert svc.capture(harness="claude", session_id="s", turn_id="t", response="x").status == "dropped"
    assert not (tmp_path / "memory.db").exists()


def test_the_kill_switch_touches_no_store(tmp_path: Path) -> None:
    svc = MemoryService(_config(tmp_path, MEMORY_ENABLED="0"))
    assert svc.handle(HookEvent(EventKind.READ, "claude", "s", "t", prompt="hello")).text == ""
    assert svc.handle(HookEvent(EventKind.WRITE, "claude", "s", "t", response="hi")).text == ""
    assert not (tmp_path / "memory.db").exists()


def test_contradicted_memories_stop_being_recalled_but_are_kept(service: MemoryService) -> None:
    record_id = _state_a_fact(service)
    assert service.feedback(record_id, "contradicted") == -1
    recall = service.assemble("payments tests?", harness="claude", session_id="s9", turn_id="u")
    assert recall.text == ""
    assert service.store.get([record_id]), "contradicted is not deleted"
    assert service.feedback(record_id, "acted") == 0


def test_feedback_on_an_unknown_id_says_so(service: MemoryService) -> None:
    with pytest.raises(NotFound):
        service.feedback("t-nope", "acted")


def test_user_memories_follow_the_user_into_every_project(tmp_path: Path) -> None:
    one = MemoryService(_config(tmp_path, MEMORY_PROJECT="git:a"))
    one.save("I prefer pytest fixtures over unittest setUp methods", scope="user")
    one.store.close()
    two = MemoryService(_config(tmp_path, MEMORY_PROJECT="git:b"))
    recall = two.assemble("should I write a setUp method or fixtures?", harness="claude", session_id="s", turn_id="t")
    assert "pytest fixtures" in recall.text
    two.store.close()


def test_project_memories_stay_in_their_project(tmp_path: Path) -> None:
    one = MemoryService(_config(tmp_path, MEMORY_PROJECT="git:a"))
    _state_a_fact(one)
    one.store.close()
    two = MemoryService(_config(tmp_path, MEMORY_PROJECT="git:b"))
    assert two.assemble("payments tests tox?", harness="claude", session_id="s", turn_id="t").text == ""
    assert two.search("payments tox") == []
    two.store.close()


def test_a_deliberate_search_does_not_suppress_recall(service: MemoryService) -> None:
    _state_a_fact(service)
    assert service.search("payments tests tox")
    assert service.assemble("payments tests?", harness="claude", session_id="s2", turn_id="u").text


def test_search_can_narrow_to_one_author(tmp_path: Path) -> None:
    alice = MemoryService(_config(tmp_path, MEMORY_USER="alice"))
    alice.save("the deploy runs from the release branch")
    alice.store.close()
    bob = MemoryService(_config(tmp_path, MEMORY_USER="bob"))
    bob.save("the deploy needs a green release branch build")
    assert {h.record.author for h in bob.search("deploy release branch")} == {"alice", "bob"}
    assert {h.record.author for h in bob.search("deploy release branch", author="bob")} == {"bob"}
    bob.store.close()


def test_save_refuses_text_the_firewall_voids(service: MemoryService) -> None:
    with pytest.raises(FirewallBlocked):
        service.save("<private>all of it</private>")


def test_forget_by_id_session_and_age_stays_in_scope(tmp_path: Path) -> None:
    clock = [1_700_000_000.0]
    svc = MemoryService(_config(tmp_path), clock=lambda: clock[0])
    a = svc.capture(harness="c", session_id="old", turn_id="1", prompt="old ledger question", response="r")
    clock[0] += 86400 * 30
    b = svc.capture(harness="c", session_id="new", turn_id="1", prompt="new ledger question", response="r")
    c = svc.capture(harness="c", session_id="new", turn_id="2", prompt="another ledger question", response="r")
    other = MemoryService(_config(tmp_path, MEMORY_PROJECT="git:other"), clock=lambda: clock[0])
    foreign = other.capture(harness="c", session_id="x", turn_id="1", prompt="q", response="r")
    assert svc.forget([foreign.record_id or ""]) == 0, "another project's record is out of reach"
    assert svc.forget(before=1_700_000_000.0 + 86400) == 1
    assert not svc.store.get([a.record_id or ""])
    assert svc.forget(session_id="new") == 2
    assert not svc.store.get([b.record_id or "", c.record_id or ""])
    assert other.store.get([foreign.record_id or ""])
    svc.store.close()
    other.store.close()


class _SilentServer:
    """A loopback socket that accepts connections and never answers (a hung server)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        self.sock.settimeout(0.2)
        deadline = time.monotonic() + 60
        while not self._stop.is_set() and time.monotonic() < deadline:
            try:
                conn, _ = self.sock.accept()
                self.held.append(conn)
            except TimeoutError:
                continue
            except OSError:
                return

    def close(self) -> None:
        self._stop.set()
        for conn in self.held:
            conn.close()
        self.sock.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("outage", ["down", "silent"])
def test_an_outage_spools_the_turn_and_the_next_capture_writes_it_once(tmp_path: Path, outage: str) -> None:
    pytest.importorskip("redis", reason="missing: the redis package (pip install memory-core[redis])")
    silent = _SilentServer() if outage == "silent" else None
    port = silent.port if silent else _free_port()
    try:
        down = MemoryService(_config(tmp_path, MEMORY_URL=f"redis://127.0.0.1:{port}/5"))
        begin = time.monotonic()
        down.handle(HookEvent(EventKind.READ, "claude", "s1", "t1", prompt=FACT_PROMPT))
        down.handle(HookEvent(EventKind.WRITE, "claude", "s1", "t1", response=FACT_ANSWER))
        elapsed = time.monotonic() - begin
    finally:
        if silent:
            silent.close()
    assert elapsed < 3.0, "one timeout at most, then the rest of the process skips the store"
    assert [r.text for r in down.spool.entries()] == [f"User: {FACT_PROMPT}\nAssistant: {FACT_ANSWER}"]
    log = down.config.log_path.read_text()
    assert log.count("\n") >= 1
    assert down.logbook.failures()

    up = MemoryService(_config(tmp_path))
    up.assemble("unrelated words", harness="claude", session_id="s2", turn_id="u1")
    assert up.capture(harness="claude", session_id="s2", turn_id="u1", response="fine").status == "stored"
    assert up.spool.entries() == []
    recall = up.assemble("payments tests?", harness="claude", session_id="s3", turn_id="v")
    assert "tox -e integration" in recall.text
    up.capture(harness="claude", session_id="s2", turn_id="u2", prompt="more", response="more")
    assert up.store.count(up.scopes()) == 3, "the spooled turn was written once"
    up.store.close()


def test_status_reports_the_facts_doctor_prints(service: MemoryService) -> None:
    _state_a_fact(service)
    service.assemble("payments tests?", harness="claude", session_id="s2", turn_id="u")
    status = service.status()
    assert status["ok"] is True
    assert status["store"]["reachable"] is True
    assert status["store"]["backend"] == "sqlite"
    assert status["project"]["key"] == "git:example.com/acme/payments"
    assert status["records"]["project"] == 1
    assert status["counters"]["captures"] == 1
    assert status["counters"]["recalls"] == 2
    assert status["last_recall"]["injected"][0]["id"]
    assert status["last_capture_at"]
    json.dumps(status)


def test_forget_leaves_no_copy_in_the_files_while_another_process_holds_the_store(tmp_path: Path) -> None:
    svc = MemoryService(_config(tmp_path))
    record = svc.save("the launch codename is quokka-saffron-lantern")
    # A worker keeps the database open; the write-ahead log then outlives this process's close.
    other = MemoryService(_config(tmp_path))
    assert other.search("codename")
    assert svc.forget([record.id]) == 1
    svc.close()
    files = [p for p in tmp_path.iterdir() if p.name.startswith("memory.db")]
    assert files
    for path in files:
        assert b"quokka-saffron-lantern" not in path.read_bytes(), path.name
    other.close()
