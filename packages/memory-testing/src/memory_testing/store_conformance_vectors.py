"""Conformance for the vectors every store keeps beside its records (`store.base.Vectors`).

`StoreConformance` inherits these tests, so every backend runs them: the same `nearest` answer,
to the last digit, on SQLite, Redis and PostgreSQL for the same content, and the same bookkeeping
that lets a backfill resume and a model change re-embed.
"""

from __future__ import annotations

import math
import random
import struct
from typing import Any

from memory_core.models import Record
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.base import Store, Vectors

__all__ = ["VectorConformance", "vector"]

_T0 = 1_760_000_000.0
_MODEL = "model-a"
_DIM = 16


def _random_vector(rng: random.Random) -> bytes:
    return vector(*(rng.gauss(0.0, 1.0) for _ in range(_DIM)))


def vector(*values: float) -> bytes:
    """A unit vector of the given direction, packed as the stores keep it (float32, little-endian)."""
    norm = math.sqrt(sum(v * v for v in values))
    return struct.pack(f"<{len(values)}f", *(v / norm for v in values))


def _vectors(store: Store) -> Vectors:
    assert isinstance(store, Vectors), f"{store.backend} does not keep vectors"
    return store


def _put(store: Store, *records: Record) -> None:
    for record in records:
        store.put(record, index_terms(record.text) if record.searchable else {})


class VectorConformance:
    """Vector tests every backend must pass."""

    def test_nearest_ranks_records_by_their_best_passage(self, store: Store) -> None:
        from memory_testing.records import OTHER, PROJECT, USER, make_record

        vs = _vectors(store)
        _put(
            store,
            make_record("a", "alpha", PROJECT, created_at=_T0),
            make_record("b", "beta", PROJECT, created_at=_T0 + 1),
            make_record("c", "gamma", PROJECT, created_at=_T0 + 2),
            make_record("u", "user note", USER, created_at=_T0 + 3, session_id=None),
            make_record("o", "other project", OTHER, created_at=_T0 + 4),
        )
        assert vs.put_vectors("a", _MODEL, [vector(1, 0, 0), vector(0, 1, 0)])
        assert vs.put_vectors("b", _MODEL, [vector(1, 1, 0)])
        assert vs.put_vectors("c", _MODEL, [vector(1, 1, 0)])  # ties with b: the smaller id first
        assert vs.put_vectors("u", _MODEL, [vector(0, 0, 1)])
        assert vs.put_vectors("o", _MODEL, [vector(0, 1, 0)])
        found = vs.nearest([PROJECT, USER], _MODEL, vector(0, 1, 0), k=10)
        assert [rid for rid, _ in found] == ["a", "b", "c", "u"]
        assert found[0][1] == 1.0
        assert math.isclose(found[1][1], math.sqrt(0.5), abs_tol=1e-6)
        assert found[1][1] == found[2][1]
        assert found[3][1] == 0.0
        assert [rid for rid, _ in vs.nearest([PROJECT], _MODEL, vector(0, 1, 0), k=2)] == ["a", "b"]
        assert vs.nearest([PROJECT], "model-b", vector(0, 1, 0), k=5) == []
        assert vs.nearest([], _MODEL, vector(0, 1, 0), k=5) == []
        # Several queries at once, in their order, each as `nearest` answers it alone.
        both = vs.nearest_each([PROJECT, USER], _MODEL, [vector(0, 1, 0), vector(0, 0, 1)], k=2)
        assert [[rid for rid, _ in found] for found in both] == [["a", "b"], ["u", "a"]]
        assert vs.nearest_each([PROJECT], "model-b", [vector(0, 1, 0), vector(1, 0, 0)], k=5) == [[], []]
        assert vs.nearest_each([], _MODEL, [vector(0, 1, 0)], k=5) == [[]]

    def test_closest_gives_each_probes_best_cosine_as_the_scope_changes(self, store: Store) -> None:
        """What the recall decision's per-store bar reads (`Vectors.closest`): each probe's best
        passage cosine over the scopes, as of the last `nearest`, kept up to date as records come
        and go, and None past `most` passages or for a scope with none.
        """
        from memory_testing.records import PROJECT, USER, make_record

        vs = _vectors(store)
        probes = vector(1, 0, 0) + vector(0, 0, 1)

        def closest(most: int = 10) -> list[float] | None:
            vs.nearest([PROJECT, USER], _MODEL, vector(1, 0, 0), k=5)  # the prompt's own look first
            return vs.closest([PROJECT, USER], _MODEL, probes, dim=3, key="probes", most=most)

        assert closest() is None  # nothing stored
        _put(store, make_record("a", "alpha", PROJECT, created_at=_T0))
        vs.put_vectors("a", _MODEL, [vector(1, 1, 0)])
        found = closest()
        assert found is not None
        assert math.isclose(found[0], math.sqrt(0.5), abs_tol=1e-6)
        assert found[1] == 0.0
        _put(store, make_record("u", "user note", USER, created_at=_T0 + 1, session_id=None))
        vs.put_vectors("u", _MODEL, [vector(0, 0, 1), vector(1, 0, 0)])
        assert closest() == [1.0, 1.0]  # the user's scope counts, each probe's best passage
        assert closest(most=2) is None  # three passages: past the bound
        store.delete(["u"])
        again = closest()
        assert again is not None
        assert math.isclose(again[0], math.sqrt(0.5), abs_tol=1e-6)
        assert again[1] == 0.0

    def test_nearest_sees_only_records_in_the_index(self, store: Store) -> None:
        from memory_testing.records import PROJECT, make_record

        vs = _vectors(store)
        _put(store, make_record("keep", "kept"), make_record("down", "voted down"), make_record("hid", "hidden"))
        for record_id in ("keep", "down", "hid"):
            vs.put_vectors(record_id, _MODEL, [vector(1, 0)])
        store.adjust_standing("down", -1)
        store.put(make_record("hid", "hidden", searchable=False), {}, replace=True)
        assert [rid for rid, _ in vs.nearest([PROJECT], _MODEL, vector(1, 0), k=5)] == ["keep"]
        store.adjust_standing("down", 1)
        assert [rid for rid, _ in vs.nearest([PROJECT], _MODEL, vector(1, 0), k=5)] == ["down", "keep"]

    def test_a_large_scope_answers_exactly_from_its_compact_form(self, store: Store, monkeypatch: Any) -> None:
        """Past `EXACT_ROWS` passages a scope keeps sign bits and reranks a pool exactly: on this
        corpus (made small by lowering the bounds) every answer is the exact one, as brute force
        computes it, on every store, including passages added after the scope turned compact.
        """
        from memory_core.store import _vectors as cache

        from memory_testing.records import PROJECT, make_record

        monkeypatch.setattr(cache, "EXACT_ROWS", 40)
        monkeypatch.setattr(cache, "_BATCH", 25)
        vs = _vectors(store)
        rng = random.Random(3)
        kept: dict[str, list[bytes]] = {}

        def add(first: int, count: int) -> None:
            records = [make_record(f"r{n:03d}", f"record {n}", created_at=_T0 + n) for n in range(first, first + count)]
            _put(store, *records)
            for record in records:
                kept[record.id] = [_random_vector(rng) for _ in range(1 + (rng.random() < 0.5))]
                assert vs.put_vectors(record.id, _MODEL, kept[record.id])

        def exact(query: bytes, k: int) -> list[tuple[str, float]]:
            q = struct.unpack(f"<{_DIM}f", query)
            best = {
                rid: max(
                    round(sum(a * b for a, b in zip(struct.unpack(f"<{_DIM}f", v), q, strict=True)), 6) for v in vectors
                )
                for rid, vectors in kept.items()
            }
            return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]

        add(0, 120)
        queries = [_random_vector(rng) for _ in range(5)] + [kept["r007"][0], kept["r100"][-1]]
        for query in queries:
            assert [rid for rid, _ in vs.nearest([PROJECT], _MODEL, query, k=3)] == [rid for rid, _ in exact(query, 3)]
        add(120, 30)  # appended to the compact form
        for query in [*queries, kept["r140"][0]]:
            found = vs.nearest([PROJECT], _MODEL, query, k=3)
            assert [rid for rid, _ in found] == [rid for rid, _ in exact(query, 3)]
            assert all(math.isclose(a, b, abs_tol=2e-6) for (_, a), (_, b) in zip(found, exact(query, 3), strict=True))
        # Several queries in one pass: each answer is the one the query gets alone.
        every = [*queries, kept["r140"][0]]
        assert vs.nearest_each([PROJECT], _MODEL, every, k=3) == [vs.nearest([PROJECT], _MODEL, q, k=3) for q in every]

    def test_vectors_are_replaced_never_doubled_and_go_with_their_record(self, store: Store) -> None:
        from memory_testing.records import PROJECT, make_record

        vs = _vectors(store)
        assert not vs.put_vectors("ghost", _MODEL, [vector(1, 0)])
        _put(store, make_record("r1", "one"), make_record("r2", "two", created_at=_T0 + 1))
        assert vs.put_vectors("r1", _MODEL, [vector(1, 0), vector(0, 1)])
        assert vs.put_vectors("r1", _MODEL, [vector(1, 0), vector(0, 1)])
        assert vs.put_vectors("r1", _MODEL, [vector(1, 0)])  # the second passage is gone
        vs.put_vectors("r2", _MODEL, [vector(1, 1)])
        assert vs.nearest([PROJECT], _MODEL, vector(0, 1), k=5)[0][0] == "r2"
        assert vs.vector_counts([PROJECT], _MODEL) == (2, 0)
        store.delete(["r2"])
        assert vs.vector_counts(None, _MODEL) == (1, 0)
        assert [rid for rid, _ in vs.nearest([PROJECT], _MODEL, vector(0, 1), k=5)] == ["r1"]
        # A record written anew (scrub, restore) has new text: its vectors are gone with the old.
        store.put(make_record("r1", "one, scrubbed"), index_terms("one, scrubbed"), replace=True)
        assert vs.nearest([PROJECT], _MODEL, vector(1, 0), k=5) == []
        assert [r.id for r in vs.unvectored(None, _MODEL, limit=5)] == ["r1"]

    def test_unvectored_lists_what_a_backfill_must_embed_newest_first(self, store: Store) -> None:
        from memory_testing.records import OTHER, PROJECT, make_record

        vs = _vectors(store)
        _put(
            store,
            *[make_record(f"r{n}", f"turn {n}", PROJECT, created_at=_T0 + n) for n in range(5)],
            make_record("o", "other", OTHER, created_at=_T0 + 10),
            make_record("hidden", "hidden", PROJECT, created_at=_T0 + 11, searchable=False),
        )
        assert vs.vector_counts(None, _MODEL) == (0, 6)
        assert [r.id for r in vs.unvectored(None, _MODEL, limit=3)] == ["o", "r4", "r3"]
        assert [r.id for r in vs.unvectored([PROJECT], _MODEL, limit=10)] == ["r4", "r3", "r2", "r1", "r0"]
        vs.put_vectors("r4", _MODEL, [vector(1, 0)])
        vs.put_vectors("r3", _MODEL, [])  # no passage: done, with nothing to match
        assert [r.id for r in vs.unvectored([PROJECT], _MODEL, limit=10)] == ["r2", "r1", "r0"]
        assert vs.vector_counts([PROJECT], _MODEL) == (2, 3)
        assert vs.vector_counts([OTHER], _MODEL) == (0, 1)
        assert vs.unvectored(None, _MODEL, limit=0) == []
        assert len(vs.unvectored(None, "model-b", limit=10)) == 6

    def test_unvectored_pages_by_a_cursor(self, store: Store) -> None:
        """A backfill's next page starts below the last record it handled, ties in time by id,
        across scopes, whatever was done above the cursor meanwhile.
        """
        from memory_testing.records import OTHER, PROJECT, make_record

        vs = _vectors(store)
        _put(
            store,
            *[make_record(f"r{n}", f"turn {n}", PROJECT, created_at=_T0 + n // 2) for n in range(6)],
            make_record("o1", "other", OTHER, created_at=_T0 + 1),
        )
        # Newest first: r5 r4 (T0+2), r3 r2 o1 (T0+1), r1 r0 (T0).
        first = vs.unvectored(None, _MODEL, limit=3)
        assert [r.id for r in first] == ["r5", "r4", "r3"]
        cursor = (first[-1].created_at, first[-1].id)
        vs.put_vectors("r5", _MODEL, [vector(1, 0)])  # done above the cursor: changes nothing below
        second = vs.unvectored(None, _MODEL, limit=3, before=cursor)
        assert [r.id for r in second] == ["r2", "o1", "r1"]
        assert [r.id for r in vs.unvectored([PROJECT], _MODEL, limit=5, before=cursor)] == ["r2", "r1", "r0"]
        assert [r.id for r in vs.unvectored(None, _MODEL, limit=5, before=(_T0, "r0"))] == []
        assert [r.id for r in vs.unvectored(None, _MODEL, limit=9, before=(_T0 + 5, ""))][:2] == ["r4", "r3"]

    def test_another_models_vectors_are_dropped_never_mixed(self, store: Store) -> None:
        from memory_testing.records import PROJECT, make_record

        vs = _vectors(store)
        _put(store, make_record("r1", "one"), make_record("r2", "two", created_at=_T0 + 1))
        vs.put_vectors("r1", "old-model", [vector(1, 0)])
        vs.put_vectors("r2", "old-model", [vector(0, 1)])
        vs.put_vectors("r2", _MODEL, [vector(0, 1)])  # replaces r2's old-model vectors
        assert vs.drop_vectors(keep_model=_MODEL) == 1
        assert vs.drop_vectors(keep_model=_MODEL) == 0
        assert vs.nearest([PROJECT], "old-model", vector(1, 0), k=5) == []
        assert [rid for rid, _ in vs.nearest([PROJECT], _MODEL, vector(1, 0), k=5)] == ["r2"]
        assert [r.id for r in vs.unvectored(None, _MODEL, limit=5)] == ["r1"]
