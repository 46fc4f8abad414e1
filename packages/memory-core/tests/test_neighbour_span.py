"""The span of session neighbours recall reads is the one server stores prefetch."""

from __future__ import annotations

from memory_core.retrieval import retriever
from memory_core.store.base import NEIGHBOUR_SPAN


def test_recall_never_reads_a_neighbour_beyond_what_stores_prefetch() -> None:
    # Beyond it, every recall on Redis and PostgreSQL would pay a round trip per session.
    offsets = [o for o, _ in retriever._CONTEXT] + list(retriever._COVER_OFFSETS)
    assert max(abs(o) for o in offsets) <= NEIGHBOUR_SPAN
    assert retriever.NEIGHBOUR_SPAN == NEIGHBOUR_SPAN  # still importable from where it was
