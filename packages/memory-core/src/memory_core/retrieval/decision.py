"""Whether a prompt is about something the project remembers: one calibrated comparison.

Promise: `Bank.generic(vector)` says how close a prompt's vector is to prompts about nothing a
project remembers (generic programming questions and everyday ones, in the languages users
write: `bank.json`, written for this package). Recall injects only when the prompt is closer to
one of the project's own passages than to that bank (`support > Bank.bar(...)`: `MARGIN`, or the
store's own lower bar where the bank's prompts come nowhere near the store): the bar rises and
falls with the prompt itself, so it moves with the store's size and subject by construction
instead of being a fixed cosine. Every constant below carries the figure that chose it (docs/retrieval.md;
coding-dev split by project into two folds, each constant chosen on one fold and read on the other).

The bank's vectors are computed once per model: shipped precomputed for the default model
(`bank_vectors.npz`, written by `python -m memory_core.retrieval.decision`, which a test checks
against `bank.json` and the model id), else embedded at the first recall that needs them (about
six seconds, once per process) and kept in memory. Nothing here raises for a missing or stale
vectors file: it is recomputed.
"""

from __future__ import annotations

import hashlib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from memory_core.embedding import Embedder

__all__ = ["Bank", "MARGIN", "BANK_TOP", "NULL_QUANTILE", "NULL_PASSAGES", "bank_prompts"]

MARGIN = 0.0025
"""A prompt injects when its best passage cosine exceeds its generic closeness by more than this.
Chosen on each fold of coding-dev alone: the largest share of questions with their evidence in
the top 5 with off-topic <= 2% and generic <= 15% (bench/decision_research.py). Fold A chose
0.0025 and read on B: 0.816 / off-topic 0.000 / generic 0.025; fold B chose -0.0025 and read on
A: 0.951 / 0.050 / 0.040 (over the off-topic goal). The stricter choice is kept. A crowding term
(how far the best record stands above the store's tenth) was searched the same way and not
adopted: its weight chosen on one fold cost the other's answers (docs/performance.md)."""
BANK_TOP = 5
"""Generic closeness is the mean cosine of the bank's `BANK_TOP` nearest prompts: one bank prompt
that happens to share the prompt's words is noise, five are a neighbourhood. Against the single
nearest (`BANK_TOP = 1`) the same search gave A -> B 0.700 / 0.007 / 0.007 and B -> A 0.920 /
0.021 / 0.000: it cost fold B a tenth of its answers for no fewer negatives (measured with the
research passages of bench/rank_research.py, before `embedding.passages` landed)."""

NULL_QUANTILE = 0.925
"""A store's own bar (`Bank.bar`): the bank's prompts asked of this store are about nothing it was
meant to remember, so their supports (best passage cosine in the store minus generic closeness,
each prompt left out of its own bank) are what support looks like when the store has nothing to
say. Where this quantile of them is below `MARGIN` (a small store, or one far from every generic
subject) it is the bar: a paraphrase or a question in another language than the turn, in a store
of nine records, supports -0.003 to -0.025 while the bank there stays below -0.03. The bar never
rises above `MARGIN`: raised, it silenced real questions in a big store, whose bank prompts find
turns that do answer them ("how do I debug a segmentation fault", support 0.053). Chosen out of
fold through `assemble` (bench/null_research.py e2e, 2026-12-05), coding answered / off-topic /
generic at 0.9 / 0.925 / 0.95: fold A 0.902 / 0.02 / 0.03, 0.902 / 0.02 / 0.01, 0.902 / 0.02 /
0.01; fold B 0.816 / 0 / 0.042, 0.816 / 0 / 0.025, 0.789 / 0 / 0.025 (main: A 0.902 / 0.02 /
0.01, B 0.789 / 0 / 0.025). Fold B chose 0.925, which read on A holds every row (replay tokens
197.1 -> 197.4). Fold A cannot tell 0.925 from 0.95 but by replay tokens (197.4, 197.1): its
0.95 read on B answers as main (0.789 / 0 / 0.025) with replay tokens 59.5 -> 67.4 (more of the
small stores' real prompts inject: 0.18 -> 0.22). The big store, LoCoMo and the update questions
are unchanged at each (their bars stay `MARGIN`); the adversarial probes answer 0.905 at 0.925
(0.810 at 0.95, main 0.762), one generic probe prompt of 36 injecting."""
NULL_PASSAGES = 2_000
"""A store's own bar is computed for scopes of at most this many passages (float64 products of
354 bank prompts with 2,000 passages: ~270 M multiply-adds, once per scope, then a capture's own
passages); past it the bar is `MARGIN`. It only ever lowers the bar, and in every measured store
past a few hundred records the quantile was above `MARGIN` already (LoCoMo's conversations,
300-350 records: 0.005 to 0.014; the big store: 0.023)."""

_FILE = "bank.json"
_VECTORS = "bank_vectors.npz"


def bank_prompts() -> list[str]:
    """Every prompt of the bank, in file order (languages in turn)."""
    import json  # not at import: the hook client imports this module and never ranks by vectors
    from importlib import resources

    raw = json.loads(resources.files(__package__).joinpath(_FILE).read_text(encoding="utf-8"))
    return [prompt for key, prompts in raw.items() if key != "about" for prompt in prompts]


def _digest(prompts: list[str]) -> str:
    return hashlib.sha256("\n".join(prompts).encode()).hexdigest()[:16]


class Bank:
    """The bank's vectors for one embedder, loaded or computed on first use; thread-safe."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._lock = threading.RLock()  # `_null` reads `vectors` under it
        self._vectors: npt.NDArray[np.float32] | None = None
        self._centre: npt.NDArray[np.float32] | None = None
        self._queries: tuple[bytes, npt.NDArray[np.float64]] | None = None

    def vectors(self) -> npt.NDArray[np.float32]:
        """(prompts, dim) unit vectors of the bank, embedded as passages (the scale of the
        project's passages: a prompt is compared with both the same way).
        """
        if self._vectors is None:
            with self._lock:
                if self._vectors is None:
                    loaded = self._load("vectors")
                    self._vectors = loaded if loaded is not None else self.embedder.embed_passages(bank_prompts())
        return self._vectors

    def _load(self, name: str = "vectors") -> npt.NDArray[np.float32] | None:
        """The shipped `name` array (the bank as passages, `vectors`, or as queries, `queries`),
        when it is this model's and this bank's; else None.
        """
        from importlib import resources

        import numpy as np

        prompts = bank_prompts()
        try:
            with resources.files(__package__).joinpath(_VECTORS).open("rb") as handle:
                saved = np.load(handle, allow_pickle=False)
                model, digest = (str(x) for x in saved["meta"])
                vectors = np.asarray(saved[name], dtype=np.float32)
        except (OSError, KeyError, ValueError):
            return None
        if model != self.embedder.model_id or digest != _digest(prompts) or vectors.shape[0] != len(prompts):
            return None
        return vectors

    def probes(self) -> tuple[bytes, str]:
        """The bank's prompts embedded as queries (as a prompt is), as float32 bytes for
        `Vectors.closest`, and the name a store keeps their maxima under. Shipped in
        `bank_vectors.npz` for the default model; another model embeds them at the first recall
        that needs them (~7 s once per process, like the bank's passages: the same bar on every
        store from the first recall on).
        """
        return self._null()[0], f"bank/{self.embedder.model_id}/{_digest(bank_prompts())}"

    def _null(self) -> tuple[bytes, npt.NDArray[np.float64]]:
        """(the probes' bytes, each bank prompt's generic closeness with itself left out)."""
        if self._queries is None:
            with self._lock:
                if self._queries is None:
                    import numpy as np

                    shipped = self._load("queries")
                    if shipped is None:
                        shipped = np.stack([self.embedder.embed_query(p) for p in bank_prompts()])
                    self._queries = self._with_alone(shipped)
        return self._queries

    def _with_alone(self, queries: npt.NDArray[np.float32]) -> tuple[bytes, npt.NDArray[np.float64]]:
        import numpy as np

        queries = np.asarray(queries, dtype="<f4")
        cosines = (queries @ self.vectors().T).astype(np.float64)
        np.fill_diagonal(cosines, -np.inf)  # a prompt is not generic for being itself
        return queries.tobytes(), np.sort(cosines, axis=1)[:, -BANK_TOP:].mean(axis=1)

    def bar(self, closest: list[float] | None) -> float:
        """The support a prompt needs in a store whose bank prompts' best cosines are `closest`
        (`Vectors.closest` of `probes`): `MARGIN`, or the store's `NULL_QUANTILE` of the bank's
        own supports when that is lower; `MARGIN` without them (None).
        """
        if not closest:
            return MARGIN
        import numpy as np

        supports = np.asarray(closest, dtype=np.float64) - self._null()[1]
        return min(MARGIN, round(float(np.quantile(supports, NULL_QUANTILE)), 4))

    def centre(self) -> npt.NDArray[np.float32]:
        """The unit mean of the bank's vectors: the direction every generic prompt shares."""
        if self._centre is None:
            import numpy as np

            mean = self.vectors().mean(axis=0)
            self._centre = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
        return self._centre

    def generic(self, vector: npt.NDArray[np.float32]) -> float:
        """The mean cosine of the `BANK_TOP` bank prompts nearest `vector`."""
        import numpy as np

        cosines = self.vectors() @ vector
        top = np.partition(cosines, -BANK_TOP)[-BANK_TOP:] if cosines.shape[0] > BANK_TOP else cosines
        return float(top.mean())


def main() -> int:
    """Write `bank_vectors.npz` beside `bank.json` with the default embedder (run after editing the bank)."""
    from pathlib import Path

    import numpy as np

    from memory_core.embedding import load_embedder

    embedder, why = load_embedder()
    if embedder is None:
        print(f"no embedder: {why}")
        return 1
    prompts = bank_prompts()
    vectors = embedder.embed_passages(prompts).astype(np.float32)
    queries = np.stack([embedder.embed_query(p) for p in prompts]).astype(np.float32)
    out = Path(__file__).with_name(_VECTORS)
    meta = np.array([embedder.model_id, _digest(prompts)])
    np.savez_compressed(out, vectors=vectors, queries=queries, meta=meta)
    print(f"{out}: {len(prompts)} prompts, {embedder.model_id}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
