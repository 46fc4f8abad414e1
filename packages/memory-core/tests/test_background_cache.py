"""The general-language word frequencies a cold hook process reads from the user's lookup cache.

What a user would notice: the first turn builds the cache once, every later cold turn answers
from it with the same frequencies the word lists give (so recall decides the same way), and a
broken or unwritable cache never changes an answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_core.retrieval import background

WORDS = ["the", "good", "cache", "firmware", "perché", "immagini", "теперь", "deploy", "zzqxv", "naïve", "élan"]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder and fresh process state, as a new cold process would have."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(background, "_TABLES", {})
    monkeypatch.setattr(background, "_MISSING", set())
    return tmp_path / "memory"


def _forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new process knows: nothing in memory, only the files."""
    monkeypatch.setattr(background, "_TABLES", {})


def _full_lists(script: str) -> dict[str, float]:
    folder = background._data_folder()
    assert folder is not None, "wordfreq is a dependency: its lists must be installed"
    return background._load(script, folder)


def test_a_later_cold_process_answers_from_the_cache_as_the_lists_do(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = {word: background.zipf(word) for word in WORDS}
    assert sorted(p.name.split("-")[1] for p in cache.glob("zipf-*.bin")) == ["cyrillic", "latin"]

    _forget(monkeypatch)

    def no_full_read(script: str, folder: str) -> dict[str, float]:
        raise AssertionError("a cold process with a cache must not read the word lists")

    monkeypatch.setattr(background, "_load", no_full_read)
    assert {word: background.zipf(word) for word in WORDS} == first
    assert first["the"] > 7
    assert first["good"] > 5.5
    assert first["теперь"] > 5
    assert first["zzqxv"] == 0.0


def test_the_cache_holds_every_word_with_its_frequency(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lists = _full_lists("latin")
    background.zipf("the")
    _forget(monkeypatch)
    table = background._table("latin")
    assert isinstance(table, background._MappedTable)
    assert len(table) == len(lists)
    sample = sorted(lists)[:: max(1, len(lists) // 2000)]
    assert {word: table.get(word, 0.0) for word in sample} == {word: lists[word] for word in sample}


def test_a_truncated_cache_is_rebuilt_not_trusted(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = background.zipf("good")
    (latin,) = cache.glob("zipf-latin-*.bin")
    latin.write_bytes(latin.read_bytes()[:1000])
    _forget(monkeypatch)
    assert background.zipf("good") == expected
    _forget(monkeypatch)
    assert isinstance(background._table("latin"), background._MappedTable)


def test_an_unwritable_cache_folder_still_gives_the_frequencies(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("a file where the folder should be")
    assert background.zipf("good") == max(_full_lists("latin")["good"], 0.0)
    assert background.available("latin")
