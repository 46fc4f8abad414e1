"""Pseudo-relevance feedback: the words the best matches share reach the turns that hold the rest
of an answer, and never outrank a memory that holds the whole question."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.retrieval import feedback
from memory_core.retrieval import retriever as retriever_module
from memory_core.retrieval.retriever import Retriever
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.sqlite import SQLiteStore
from memory_testing.store_conformance import PROJECT, make_record


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/m.db")
    yield store
    store.close()


def _chat(store: SQLiteStore) -> None:
    """A conversation where one turn says what Melanie enjoys and another, weeks later, tells of
    the same pastime without her name or the question's words; forty unrelated turns around."""
    records = [
        make_record("said", "Melanie: I enjoy pottery and camping by the lake with the kids.", session_id="s1"),
        make_record("later", "We went camping by the lake again, the kids loved the tent.", session_id="s9"),
    ]
    records += [
        make_record(f"other-{n}", f"Talked about the weather and groceries, item {n}.", session_id=f"o{n}")
        for n in range(40)
    ]
    store.put_many([(r, index_terms(r.text)) for r in records])


def _ids(store: SQLiteStore, query: str) -> list[str]:
    return [h.record.id for h in Retriever(store).rank(query, [PROJECT], limit=5, floor=False)]


def test_the_best_matchs_words_find_the_turn_that_shares_none_of_the_question(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _chat(store)
    assert _ids(store, "What does Melanie enjoy?")[:2] == ["said", "later"]
    monkeypatch.setattr(retriever_module, "FEEDBACK_WEIGHT", 0.0)
    assert "later" not in _ids(store, "What does Melanie enjoy?")


def test_feedback_weights_share_by_score_and_leave_out_the_prompts_words() -> None:
    weights = feedback.feedback_weights(
        [("pottery camping lake", 3.0), ("camping tent", 1.0)], {"lake"}, skip=lambda t: t == "tent"
    )
    assert "lake" not in weights
    assert "tent" not in weights
    # camping: 3/4 * 1/3 + 1/4 * 1/2; pottery: 3/4 * 1/3.
    assert weights["camp"] == pytest.approx(0.375)
    assert weights["potteri"] == pytest.approx(0.25)
    assert next(iter(weights)) == "camp"
    assert feedback.feedback_weights([], set()) == {}
    assert feedback.feedback_weights([("a b", 0.0)], set()) == {}


def test_a_word_most_records_hold_is_not_added() -> None:
    weights = {"camp": 0.5, "weather": 0.4, "lake": 0.1}
    assert feedback.kept_terms(weights, {"camp": 2, "weather": 30, "lake": 0}, documents=42) == ["camp"]
