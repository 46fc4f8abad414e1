"""Embedders for tests: the product's model, loaded once per test run, and a tiny fake one.

`real_embedder()` is the model every user gets (`memory_core.embedding.load_embedder`), loaded
once per process (it costs ~100-300 ms and ~70 MB). Its package missing fails the test under
`CI=true` and skips it elsewhere (`requirements.require`). `FakeEmbedder` gives deterministic
unit vectors from the words of a text in microseconds, for tests of plumbing, not of meaning.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from memory_core.embedding import Embedder, load_embedder

from memory_testing.requirements import require

__all__ = ["real_embedder", "FakeEmbedder", "unit"]


@functools.cache
def _load() -> tuple[Embedder | None, str | None]:
    return load_embedder()


def real_embedder() -> Embedder:
    """The product's embedder (shared by every test of the process); fails under CI if missing."""
    embedder, problem = _load()
    require(embedder is not None, f"the embedding model: {problem}")
    assert embedder is not None
    return embedder


def unit(values: Sequence[float]) -> bytes:
    """A vector as the stores keep it: float32 little-endian, normalised to unit length."""
    array = np.asarray(values, dtype=np.float64)
    return (array / np.linalg.norm(array)).astype("<f4").tobytes()


class FakeEmbedder:
    """Bag-of-words vectors hashed into `dim` values: texts sharing words are close."""

    def __init__(self, model_id: str = "fake-1", dim: int = 16) -> None:
        self.model_id = model_id
        self.dim = dim
        self.calls = 0

    def _one(self, text: str) -> npt.NDArray[np.float32]:
        vector = np.full(self.dim, 1e-3, dtype=np.float64)
        for word in text.lower().split():
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        return (vector / np.linalg.norm(vector)).astype(np.float32)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._one(text)

    def embed_passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls += len(texts)
        return np.stack([self._one(t) for t in texts]) if texts else np.empty((0, self.dim), np.float32)
