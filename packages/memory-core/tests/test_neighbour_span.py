"""The span of session neighbours recall reads is the one server stores prefetch."""

from __future__ import annotations

from memory_core.retrieval import retriever
from memory_core.store.base import NEIGHBOUR_SPAN


def test_recall_never_reads_a_neighbour_beyond_what_stores_prefetch() -> None:
    # Beyond it, every recall on Redis and PostgreSQL would pay a round trip per session.
    # Recall reads the turn after each of its BM25 lenders (the reply share): one position ahead.
    assert retriever._REPLY_OFFSET <= NEIGHBOUR_SPAN
    # And the turns either side of its best fused records (the context share).
    assert retriever._CONTEXT_SPAN <= NEIGHBOUR_SPAN
    assert retriever.NEIGHBOUR_SPAN == NEIGHBOUR_SPAN  # still importable from where it was
