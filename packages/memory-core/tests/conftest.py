"""Checks the server stores' suites share (Redis, PostgreSQL 15 and 18), handed out as fixtures:
test modules are not a package and cannot import each other.

Each takes the URL of a store its suite made ready (a flushed database, a fresh schema), opens its
own stores with `open_store`, and closes them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from memory_core.store import Store, open_store
from memory_testing.store_conformance import PROJECT, make_record

_RACES = 20


def _race(url: str, attempt: Callable[[Store], object]) -> list[object]:
    """Run `attempt(store)` in two threads, each with its own store, released at the same instant."""
    stores = [open_store(url) for _ in range(2)]
    for store in stores:
        store.ping()
    barrier = threading.Barrier(2, timeout=10)
    results: list[object] = [None, None]

    def run(n: int) -> None:
        barrier.wait()
        results[n] = attempt(stores[n])

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    for store in stores:
        store.close()
    return results


def _race_for_a_turn(url: str) -> None:
    """Of two writers storing one turn, exactly one claims it."""
    first = open_store(url)
    first.put(make_record("warm-up", "creates the schema"), {})
    first.close()
    for n in range(_RACES):
        record = make_record(f"turn-{n}", "the same turn, captured twice", seq=n)
        results = _race(url, lambda store, r=record: store.put(r, {"same": 1, "turn": 1}))
        assert sorted(results) == [False, True], f"race {n}: {results}"
    check = open_store(url)
    assert check.count(None) == _RACES + 1
    assert check.postings([PROJECT], ["turn"])["turn"].df == _RACES
    check.close()


def _race_for_a_prompt(url: str) -> None:
    """Of two write events taking one stashed prompt, exactly one gets it."""
    for n in range(_RACES):
        store = open_store(url)
        store.stash_prompt("claude:s1", f"t{n}", f"prompt {n}", ttl=60, keep=8)
        store.close()
        results = _race(url, lambda s, n=n: s.take_prompt("claude:s1", f"t{n}"))
        assert sorted(results, key=str) == [None, f"prompt {n}"], f"race {n}: {results}"


def _neighbours_like_the_server(url: str) -> None:
    """Neighbours a `get` fetched answer `session_records` as a fresh store asking the server does,
    and a write through the store is seen at once."""
    store, fresh = open_store(url), open_store(url)
    for seq in (0, 1, 2, 4):
        store.put(make_record(f"s-{seq}", f"turn {seq}", session_id="s", seq=seq), {"turn": 1})
    store.put(make_record("s-1b", "a second record at seq 1", session_id="s", seq=1), {"turn": 1})
    store.get(["s-2", "s-4"])
    for seqs in ([1, 3], [3, 5], [1], [0, 1, 2]):
        assert store.session_records(PROJECT, "s", seqs) == fresh.session_records(PROJECT, "s", seqs)
    store.put(make_record("s-3", "turn 3 arrives", session_id="s", seq=3), {"turn": 1})
    assert [r.id for r in store.session_records(PROJECT, "s", [3])] == ["s-3"]
    store.close()
    fresh.close()


@pytest.fixture
def race() -> Callable[[str, Callable[[Store], object]], list[object]]:
    return _race


@pytest.fixture
def race_for_a_turn() -> Callable[[str], None]:
    return _race_for_a_turn


@pytest.fixture
def race_for_a_prompt() -> Callable[[str], None]:
    return _race_for_a_prompt


@pytest.fixture
def neighbours_like_the_server() -> Callable[[str], None]:
    return _neighbours_like_the_server
