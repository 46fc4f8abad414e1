"""Chat ranking research (issue #24, 2026-12-05): sweeps of the fusion and neighbour constants
through the product's own retriever, as `bench/fusion_research.py` runs them, with the prompt's
vector computed on the calling thread: the figures are the same, and on a busy two-core machine
the thread hand-off dominated (bench/locomo.py fold A 59 s against 7 s at load 3.5; 3.8 s
against 3.1 s idle).

    python bench/chat_research.py SWEEP [--rows rat,cod,loc]

Sweeps (docs/retrieval.md, "Tried and not adopted", has each one's figures): `base` (the shipped
constants), `rrf` (`_RRF_K`), `depth` (`_DEPTH`), `bm25` (`k1` / `b`), `weight` (`_VECTOR_WEIGHT`),
`hub` (`_HUB_WEIGHT`), `ctx` and `ctxtext` (a dialogue-context passage stored with each turn,
as a vector sum or embedded text: new texts go through the embedding cache, minutes of CPU the
first time), `unnamed` (the LoCoMo speakers' names out of the embedded prompt, the research form
of `Retriever._authors_named`). The two-turn window sweep (rejected) patched the retriever itself
and is not kept. Rows as in `bench/fusion_research.py`.
Set BENCH_EMBED_CACHE and OMP_NUM_THREADS=1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fusion_research
import memory_core.retrieval.retriever as retriever


class _Done:
    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value


class _Inline:
    """An executor that runs the task at once on the calling thread."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> _Done:
        return _Done(fn(*args))


retriever._threads = lambda: _Inline()  # type: ignore[assignment,return-value]


def context_passages(mode: str, chars: int = 600) -> dict[tuple[Any, str], Any]:
    """A patch of `SQLiteStore.put_vectors`: each record that has a turn before it in its session
    gets one passage more, its dialogue context. `mode` "sum": the unit sum of the previous turn's
    last passage vector and this turn's first (no model run); "text": the embedding of the previous
    turn's tail and this turn's head, `chars` in all (e5 `passage:`, through the bench's cache).
    The benches write a session's vectors in turn order, so the previous turn's are known.
    """
    import numpy as np
    from memory_core.store.sqlite import SQLiteStore

    original = SQLiteStore.put_vectors
    written: dict[str, list[bytes]] = {}

    def put_vectors(self: SQLiteStore, record_id: str, model: str, vectors: Sequence[bytes]) -> bool:
        vectors = list(vectors)
        written[record_id] = vectors
        [record] = self.get([record_id]) or [None]
        if record is not None and record.session_id is not None and record.seq > 0 and vectors:
            before = self.session_records(record.scope, record.session_id, [record.seq - 1])
            if before and before[0].id in written and written[before[0].id]:
                if mode == "sum":
                    a = np.frombuffer(written[before[0].id][-1], dtype="<f4")
                    b = np.frombuffer(vectors[0], dtype="<f4")
                    v = a + b
                else:
                    half = chars // 2
                    text = before[0].text[-half:] + "\n" + record.text[: chars - min(half, len(before[0].text))]
                    v = fusion_research.E5.embed_passages([text])[0]
                v = (v / max(float(np.linalg.norm(v)), 1e-12)).astype("<f4")
                vectors = [*vectors, v.tobytes()]
        return original(self, record_id, model, vectors)

    return {(SQLiteStore, "put_vectors"): put_vectors}


def unnamed() -> dict[tuple[Any, str], Any]:
    """A patch of `retriever._vector_text`: the LoCoMo speakers' names (and their possessive) out of
    the text that is embedded (BM25 still reads them)."""
    import json
    import re

    names: set[str] = set()
    for sample in json.loads(fusion_research.LOCOMO.read_text()):
        conversation = sample["conversation"]
        names |= {str(conversation.get("speaker_a", "")), str(conversation.get("speaker_b", ""))} - {""}
    pattern = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, names))) + r")(?:'s)?\b\s*")
    original = retriever._vector_text

    def vector_text(text: str) -> str:
        return original(pattern.sub("", text).strip() or text)

    return {(retriever, "_vector_text"): vector_text}


SWEEPS: dict[str, list[tuple[str, dict[tuple[Any, str], Any]]]] = {
    "base": [("main", {})],
    "rrf": [(f"k {k}", {(retriever, "_RRF_K"): k}) for k in (10, 20, 30, 60, 100)],
    "ctx": [("ctx sum", context_passages("sum"))],
    "ctxtext": [("ctx text", context_passages("text"))],
    "bm25": [
        (f"k1 {k1} b {b}", {(retriever, "BM25_K1"): k1, (retriever, "BM25_B"): b})
        for k1, b in ((1.2, 0.5), (1.2, 0.9), (0.9, 0.75), (1.5, 0.75), (0.9, 0.5))
    ],
    "weight": [(f"weight {w}", {(retriever, "_VECTOR_WEIGHT"): w}) for w in (0.25, 0.5, 0.7)],
    "hub": [(f"hub {w}", {(retriever, "_HUB_WEIGHT"): w}) for w in (0.5, 1.0)],
    "unnamed": [("names out of the embedded prompt", unnamed())],
    "depth": [(f"depth {d}", {(retriever, "_DEPTH"): d}) for d in (20, 30, 50, 100)],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", choices=sorted(SWEEPS))
    parser.add_argument("--rows", default="rat,cod")
    args = parser.parse_args()
    rows = args.rows.split(",")
    for label, patch in SWEEPS[args.sweep]:
        fusion_research.run(label, patch, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
