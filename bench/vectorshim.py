"""A bench-only stand-in for a store's vectors until every store keeps them (issue #24, M1).

`with_vectors(store, embedder)` returns a proxy of `store` that embeds each record's passages
as it is `put` (through the embedder, cached on disk by `embedcache`) and answers
`Vectors.nearest` exactly in numpy. Everything else goes to the real store. Only for benches:
the product's stores keep their own vectors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from memory_core.models import Record, Scope
from rankdata import passages


class VectorShim:
    def __init__(self, store: Any, embedder: Any) -> None:
        self._store = store
        self._embedder = embedder
        self._vectors: dict[str, tuple[str, np.ndarray]] = {}  # record id -> (scope, passages)
        self._pending: list[Record] = []
        self._matrix: dict[str, tuple[np.ndarray, list[str]]] = {}  # scope -> (passages, owner ids)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def put(self, record: Record, terms: Mapping[str, int], *, replace: bool = False) -> bool:
        done = self._store.put(record, terms, replace=replace)
        self._pending.append(record)
        return done

    def _flush(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        texts, owners = [], []
        for record in pending:
            for p in passages(record.text):
                texts.append(p)
                owners.append(record)
        vectors = self._embedder.embed_passages(texts) if texts else np.zeros((0, 384), np.float32)
        grouped: dict[str, list[np.ndarray]] = {}
        for record, v in zip(owners, vectors, strict=True):
            grouped.setdefault(record.id, []).append(v)
        for record in pending:
            if record.id in grouped:
                self._vectors[record.id] = (str(record.scope), np.stack(grouped[record.id]))
        self._matrix = {}

    def nearest(self, scopes: Sequence[Scope], model: str, query: bytes, *, k: int) -> list[tuple[str, float]]:
        self._flush()
        q = np.frombuffer(query, dtype="<f4")
        best: dict[str, float] = {}
        for scope in sorted({str(s) for s in scopes}):
            if scope not in self._matrix:
                rows = [(rid, v) for rid, (sc, m) in self._vectors.items() if sc == scope for v in m]
                if rows:
                    self._matrix[scope] = (np.stack([v for _, v in rows]), [rid for rid, _ in rows])
            if scope not in self._matrix:
                continue
            matrix, owners = self._matrix[scope]
            for rid, c in zip(owners, (matrix @ q).tolist(), strict=True):
                if c > best.get(rid, -2.0):
                    best[rid] = c
        return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]

    def put_vectors(self, record_id: str, model: str, vectors: Sequence[bytes]) -> bool:
        return True

    def unvectored(self, scopes: Any, model: str, *, limit: int) -> list[Record]:
        return []

    def vector_counts(self, scopes: Any, model: str) -> tuple[int, int]:
        return (len(self._vectors), 0)

    def drop_vectors(self, *, keep_model: str) -> int:
        return 0


def with_vectors(store: Any, embedder: Any) -> Any:
    return VectorShim(store, embedder)
