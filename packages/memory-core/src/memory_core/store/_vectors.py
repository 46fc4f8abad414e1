"""What every store's `Vectors` shares: the exact nearest-record computation, done one way.

Every backend hands its candidate passages here as (record id, vector bytes) and gets the same
answer: the same float32 arithmetic in the same order, so `nearest` ranks alike on SQLite, Redis
and PostgreSQL. numpy is imported on the first call, never when a store is imported (the hook
client imports stores without it).

Failure: a vector of the wrong size raises `StoreError` (a store written by a model of another
dimension under the same name would be a bug, and mixing is never silent).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory_core.errors import StoreError
from memory_core.store.base import Neighbour

__all__ = ["best_records", "check_vectors"]

_DIGITS = 6
"""Cosines are compared to 1e-6: finer than any difference ranking can use."""


def check_vectors(vectors: Sequence[bytes]) -> None:
    """Raise `StoreError` unless every vector has the same non-zero size, a multiple of 4 bytes."""
    sizes = {len(v) for v in vectors}
    if len(sizes) > 1 or any(size == 0 or size % 4 for size in sizes):
        raise StoreError(f"vectors of one record must share one float32 size, got sizes {sorted(sizes)}")


def best_records(rows: Iterable[tuple[str, bytes]], query: bytes, k: int) -> list[Neighbour]:
    """The `k` records of `rows` (passages as (id, float32 bytes)) whose best passage has the highest
    dot product with `query` (cosine, the vectors being unit length), best first, ties to the smaller id.
    """
    import numpy as np

    if k <= 0:
        return []
    ids: list[str] = []
    blobs: list[bytes] = []
    for record_id, blob in rows:
        if len(blob) != len(query):
            raise StoreError(f"a stored vector has {len(blob)} bytes, the query {len(query)}")
        ids.append(record_id)
        blobs.append(blob)
    if not ids:
        return []
    matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(ids), -1)
    # In float64, rounded to 1e-6: a BLAS kernel may sum a row in another order depending on the
    # rows around it (stores return rows in their own order), which moves a float32 score in its
    # last bits; rounded float64 sums agree, and equal scores fall back to the id.
    scores = np.round(matrix.astype(np.float64) @ np.frombuffer(query, dtype="<f4").astype(np.float64), _DIGITS)
    best: dict[str, float] = {}
    for record_id, score in zip(ids, scores.tolist(), strict=True):
        if score > best.get(record_id, -2.0):
            best[record_id] = score
    ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:k]
