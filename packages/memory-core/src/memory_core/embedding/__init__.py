"""The local sentence-embedding model recall uses beside BM25 (contract only; see `docs/retrieval.md`).

Loaded by the warm engine (worker, long-lived plugins, MCP server, UI, `memory` commands), never
by the hook client. Whatever cannot load it (package missing or broken, not enough memory) gets
`None` from `load_embedder` with the reason, and recall and capture go on with BM25 alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Protocol):
    """A sentence-embedding model: text in, unit-length float32 vectors out, the same on every
    machine for the same `model_id`.
    """

    model_id: str
    """Names the model and its package version; stored beside every vector it made."""

    dim: int
    """Values per vector."""

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """One prompt's vector, shape (dim,)."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Passages' vectors, shape (len(texts), dim)."""
        ...
