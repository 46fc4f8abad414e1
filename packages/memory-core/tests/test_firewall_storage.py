"""No secret shape reaches disk: not the database file (nor its `-wal` and `-shm`), not the
lexical index, not the spool, the handoff files or the log.

Each shape goes through the real `MemoryService` on the embedded SQLite store in a temporary
folder, by every door a secret can take: a prompt (recall stashes it for the capture and
records it as the last query), the assistant's answer (capture), a saved note, a search, an
error message that quotes it (the log), and a capture while the store is down (the spool and
the local handoff), which is then drained into the store. Then every byte under the
temporary folders is read. A control test runs the same path with `MEMORY_FIREWALL=0` and
finds the secret, which proves the search would see a leak.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.errors import StoreUnavailable
from memory_core.models import Scope
from memory_core.retrieval.tokenizer import index_terms
from memory_core.service import MemoryService, turn_text
from memory_testing.secret_shapes import SHAPES, SecretShape, fake

_PROJECT = "firewall-storage-test"


def _config(folder: Path, url: str | None = None, **extra: str) -> Config:
    environ = {
        "MEMORY_URL": url or f"sqlite:///{folder / 'data' / 'memory.db'}",
        "MEMORY_STATE_DIR": str(folder / "state"),
        "MEMORY_LOG": str(folder / "state" / "memory.log"),
        "MEMORY_PROJECT": _PROJECT,
        "MEMORY_USER": "tester",
        **extra,
    }
    return Config.from_env(environ)


def _files(*roots: Path) -> Iterator[Path]:
    for root in roots:
        if root.is_dir():
            yield from (p for p in root.rglob("*") if p.is_file())


def _leaks(secret: str, *roots: Path) -> list[str]:
    """Every file under `roots` that holds the secret's bytes (as written or lower-cased)."""
    needles = {secret.encode(), secret.lower().encode()}
    return [str(p) for p in _files(*roots) if any(n in p.read_bytes() for n in needles)]


def _prompt(shape: SecretShape, text: str) -> str:
    return f"Please check this config, it fails on startup:\n{text}\nWhat is wrong?"


def _answer(text: str) -> str:
    return f"The value is fine; the port was wrong. I left this as it was:\n{text}\nRestart the service."


def _note(text: str) -> str:
    return f"Deployment notes for staging: {text}"


def _walk_every_door(folder: Path, shape: SecretShape, **extra: str) -> MemoryService:
    """Send the shape through every path of the service that writes something; return the
    (still open) service over the working store.
    """
    down = MemoryService(_config(folder, url=f"sqlite:///{folder}", **extra), cwd=str(folder))
    # The store is a folder, so it cannot be opened: recall keeps the prompt in the local
    # handoff, capture keeps the turn in the spool, and both log the outage.
    with pytest.raises(StoreUnavailable):
        down.assemble(_prompt(shape, shape.text), harness="claude", session_id="s0", turn_id="t0")
    spooled = down.capture(harness="claude", session_id="s0", turn_id="t0", response=_answer(shape.text))
    assert spooled.status == "spooled"

    svc = MemoryService(_config(folder, **extra), cwd=str(folder))
    svc.assemble(_prompt(shape, shape.text), harness="claude", session_id="s1", turn_id="t1")
    outcome = svc.capture(harness="claude", session_id="s1", turn_id="t1", response=_answer(shape.text))
    assert outcome.status == "stored"  # the turn was kept, only the secret was not
    svc.save(_note(shape.text))
    svc.search(f"config {shape.secret}")
    svc.logbook.error("claude.capture", RuntimeError(f"could not parse {shape.text!r}"))
    return svc


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_no_secret_shape_reaches_any_file_the_index_or_the_log(tmp_path: Path, shape: SecretShape) -> None:
    svc = _walk_every_door(tmp_path, shape)
    homes = [Path(os.environ[v]) for v in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")]

    # What was stored is the turn with the secret's marker in its place: both captures (the
    # spooled one, drained by the second capture, and the direct one) and the note.
    scopes = [Scope("project", _PROJECT)]
    texts = sorted(r.text for r in svc.store.scan(scopes))
    expected_turn = turn_text(_prompt(shape, shape.expected), _answer(shape.expected))
    assert texts == sorted([expected_turn, expected_turn, _note(shape.expected).strip()])

    # The index holds no term that only the secret would produce.
    allowed = set(index_terms(expected_turn)) | set(index_terms(_note(shape.expected)))
    secret_terms = sorted(set(index_terms(shape.secret)) - allowed)
    postings = svc.store.postings(scopes, secret_terms) if secret_terms else {}
    assert {t: p.df for t, p in postings.items() if p.df} == {}

    # Not a byte of it in the database (read while open: the WAL holds the recent writes),
    # the spool, the handoff folder, the log, the failure counters, or anything else.
    assert (tmp_path / "data" / "memory.db-wal").exists()
    assert _leaks(shape.secret, tmp_path, *homes) == []
    # The log line is there, with the marker, or (inside a URL's userinfo) the URL shown as every URL is.
    log = (tmp_path / "state" / "memory.log").read_text(encoding="utf-8")
    assert log.count(f"[REDACTED:{shape.kind}]") + log.count("://***@") >= 1

    svc.store.close()
    assert _leaks(shape.secret, tmp_path, *homes) == []


def test_the_check_finds_a_secret_stored_with_the_firewall_off(tmp_path: Path) -> None:
    shape = next(s for s in SHAPES if s.kind == "github-token")

    svc = _walk_every_door(tmp_path, shape, MEMORY_FIREWALL="0")

    leaked = _leaks(shape.secret, tmp_path)
    assert str(tmp_path / "data" / "memory.db-wal") in leaked or str(tmp_path / "data" / "memory.db") in leaked
    # The log is scrubbed whatever MEMORY_FIREWALL says: turning the firewall off is about memories.
    assert str(tmp_path / "state" / "memory.log") not in leaked
    postings = svc.store.postings([Scope("project", _PROJECT)], sorted(index_terms(shape.secret)))
    assert any(p.df for p in postings.values())
    svc.store.close()


def test_a_nomemory_turn_leaves_no_word_of_itself(tmp_path: Path) -> None:
    svc = MemoryService(_config(tmp_path), cwd=str(tmp_path))
    prompt = "#nomemory the staging password is Tr0ub4dor-and-3"

    svc.assemble(prompt, harness="claude", session_id="s", turn_id="t")
    outcome = svc.capture(harness="claude", session_id="s", turn_id="t", response="Noted: Tr0ub4dor-and-3.")

    assert outcome.status == "dropped"
    assert svc.store.count(None) == 0
    assert _leaks("Tr0ub4dor-and-3", tmp_path) == []
    svc.store.close()


def _memory(*args: str) -> str:
    """Run the `memory` CLI as a user would: its own process, which closes the store on exit."""
    done = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout


def _store_with_the_firewall_off(folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[SecretShape]:
    """Environment for the `memory` CLI, and a turn holding three secrets stored unscrubbed."""
    for name, value in (
        ("MEMORY_URL", f"sqlite:///{folder / 'data' / 'memory.db'}"),
        ("MEMORY_STATE_DIR", str(folder / "state")),
        ("MEMORY_PROJECT", _PROJECT),
        ("MEMORY_FIREWALL", "0"),
    ):
        monkeypatch.setenv(name, value)
    shapes = [s for s in SHAPES if s.name in ("github-classic", "pem-rsa", "yaml-password")]
    svc = MemoryService(cwd=str(folder))
    prompt = "\n".join(s.text for s in shapes)
    assert svc.capture(harness="claude", session_id="s", turn_id="t", prompt=prompt, response="ok").status == "stored"
    svc.store.close()
    assert _leaks(shapes[0].secret, folder)  # the control: stored as written
    monkeypatch.setenv("MEMORY_FIREWALL", "1")
    return shapes


def test_memory_scrub_redacts_what_was_stored_with_the_firewall_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shapes = _store_with_the_firewall_off(tmp_path, monkeypatch)

    assert "redacted secrets in 1 record" in _memory("scrub")

    svc = MemoryService(cwd=str(tmp_path))
    scopes = [Scope("project", _PROJECT)]
    (record,) = svc.store.scan(scopes)
    assert record.text == turn_text("\n".join(s.expected for s in shapes), "ok")
    for shape in shapes:
        terms = sorted(set(index_terms(shape.secret)) - set(index_terms(record.text)))
        assert {t: p.df for t, p in svc.store.postings(scopes, terms).items() if p.df} == {}, shape.name
    svc.store.close()
    # Idempotent: a second scrub finds nothing to do.
    assert "redacted secrets in 0 records" in _memory("scrub")


def test_after_memory_scrub_no_byte_of_the_secrets_is_left_in_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shapes = _store_with_the_firewall_off(tmp_path, monkeypatch)

    _memory("scrub")

    assert [s.name for s in shapes if _leaks(s.secret, tmp_path)] == []


def test_memory_scrub_applies_the_current_rules_to_turns_still_in_the_spool(tmp_path: Path) -> None:
    shape = next(s for s in SHAPES if s.name == "url-password")
    down = MemoryService(_config(tmp_path, url=f"sqlite:///{tmp_path}", MEMORY_FIREWALL="0"), cwd=str(tmp_path))
    down.capture(harness="claude", session_id="s", turn_id="t", prompt=shape.text, response="ok")
    assert [p for p in _leaks(shape.secret, tmp_path) if "spool" in p]  # the control: spooled as written
    # An entry a store refused waits in the quarantine file in the same format: scrubbed too.
    down.spool.quarantine_path.write_bytes(down.spool.path.read_bytes())

    svc = MemoryService(_config(tmp_path), cwd=str(tmp_path))
    report = svc.scrub()

    assert report.spooled == 2
    assert _leaks(shape.secret, tmp_path) == []
    (entry,) = svc.spool.entries()
    assert entry.text == turn_text(shape.expected, "ok")  # still waiting, now scrubbed
    svc.store.close()


def test_doctor_says_when_records_were_stored_under_an_older_rule_set_until_scrubbed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_core.firewall import RULES_VERSION

    _store_with_the_firewall_off(tmp_path, monkeypatch)

    before = json.loads(_memory_allowing_failure("doctor", "--json"))["firewall"]
    assert (before["stale"], before["scrubbed_with"]) == (True, None)
    assert "older rule set: run `memory scrub --all`" in _memory_allowing_failure("doctor")

    _memory("scrub", "--all")

    after = json.loads(_memory_allowing_failure("doctor", "--json"))["firewall"]
    assert (after["stale"], after["scrubbed_with"], after["rules"]) == (False, RULES_VERSION, RULES_VERSION)
    assert f"last scrubbed with v{RULES_VERSION}" in _memory_allowing_failure("doctor")

    # A turn stored by an older release after that scrub makes the store stale again.
    svc = MemoryService(cwd=str(tmp_path))
    svc.store.set_meta({f"firewall.captured.{RULES_VERSION - 1}": f"{time.time() + 1:.3f}"})
    svc.store.close()
    assert json.loads(_memory_allowing_failure("doctor", "--json"))["firewall"]["stale"] is True


def _memory_allowing_failure(*args: str) -> str:
    """`memory doctor` exits 1 when a harness is missing here; its report is what is checked."""
    done = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args], capture_output=True, text=True, check=False, timeout=120
    )
    return done.stdout


def test_records_captured_by_the_current_rules_are_not_stale(tmp_path: Path) -> None:
    svc = MemoryService(_config(tmp_path), cwd=str(tmp_path))
    svc.capture(harness="claude", session_id="s", turn_id="t", prompt="which port?", response="8080")

    firewall = svc.status()["firewall"]

    assert (firewall["stale"], firewall["scrubbed_with"]) == (False, None)
    svc.store.close()


def test_memory_scrub_applies_the_v3_judgement_to_the_store_the_spool_and_the_quarantine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What only rules v3 catch (a password stated in French, a code in Japanese), kept while the
    # firewall was off, as a store written by an older rule set would hold it.
    secret, code = fake("abcdefghjkmnpqrstuvwxyz23456789", 14, "v3-scrub"), "48151623"
    text = f"Le mot de passe du serveur est {secret}\n認証コード: {code}"
    off = MemoryService(_config(tmp_path, MEMORY_FIREWALL="0"), cwd=str(tmp_path))
    off.save(text)
    off.store.close()
    down = MemoryService(_config(tmp_path, url=f"sqlite:///{tmp_path}", MEMORY_FIREWALL="0"), cwd=str(tmp_path))
    down.capture(harness="claude", session_id="s", turn_id="t", prompt=text, response="ok")
    down.spool.quarantine_path.write_bytes(down.spool.path.read_bytes())
    assert _leaks(secret, tmp_path)  # the control: written as it was

    svc = MemoryService(_config(tmp_path), cwd=str(tmp_path))
    report = svc.scrub()

    assert report.spooled == 2
    assert _leaks(secret, tmp_path) == []
    assert _leaks(code, tmp_path) == []
    svc.store.close()
