"""Whether a prompt is about something the project remembers: one calibrated comparison.

Promise: `Bank.generic(vector)` says how close a prompt's vector is to prompts about nothing a
project remembers (generic programming questions and everyday ones, in the languages users
write: `bank.json`, written for this package). Recall injects only when the prompt is closer to
one of the project's own passages than to that bank (`support > MARGIN`): the bar rises and falls
with the prompt itself, so it moves with the store's size and subject by construction instead of
being a fixed cosine. Every constant below carries the figure that chose it (docs/retrieval.md;
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

__all__ = ["Bank", "MARGIN", "BANK_TOP", "bank_prompts"]

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
        self._lock = threading.Lock()
        self._vectors: npt.NDArray[np.float32] | None = None
        self._centre: npt.NDArray[np.float32] | None = None

    def vectors(self) -> npt.NDArray[np.float32]:
        """(prompts, dim) unit vectors of the bank, embedded as passages (the scale of the
        project's passages: a prompt is compared with both the same way).
        """
        if self._vectors is None:
            with self._lock:
                if self._vectors is None:
                    loaded = self._load()
                    self._vectors = loaded if loaded is not None else self.embedder.embed_passages(bank_prompts())
        return self._vectors

    def _load(self) -> npt.NDArray[np.float32] | None:
        from importlib import resources

        import numpy as np

        prompts = bank_prompts()
        try:
            with resources.files(__package__).joinpath(_VECTORS).open("rb") as handle:
                saved = np.load(handle, allow_pickle=False)
                model, digest = (str(x) for x in saved["meta"])
                vectors = np.asarray(saved["vectors"], dtype=np.float32)
        except (OSError, KeyError, ValueError):
            return None
        if model != self.embedder.model_id or digest != _digest(prompts) or vectors.shape[0] != len(prompts):
            return None
        return vectors

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
    out = Path(__file__).with_name(_VECTORS)
    np.savez_compressed(out, vectors=vectors, meta=np.array([embedder.model_id, _digest(prompts)]))
    print(f"{out}: {len(prompts)} prompts, {embedder.model_id}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
