"""The tokenizer: identifiers split the way people search for them, forms of a word meet, filler drops out."""

from __future__ import annotations

import subprocess
import sys

import pytest
from memory_core.retrieval.stemmer import stem
from memory_core.retrieval.tokenizer import STOPWORDS, index_terms, query_terms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parsePayload", {"pars", "payload", "parsepayload"}),
        ("parse_payload", {"pars", "payload", "parse_payload"}),
        ("parse-payload", {"pars", "payload", "parse-payload"}),
        ("payload.parse", {"pars", "payload", "payload.parse"}),
        ("HTTPServer", {"http", "server", "httpserver"}),
        ("src/memory_core/store.py", {"src", "memori", "core", "store", "py", "src/memory_core/store.py"}),
        ("memory_core::Store", {"memori", "core", "store", "memory_core::store"}),
    ],
)
def test_identifiers_split_into_words_and_keep_the_whole(text: str, expected: set[str]) -> None:
    assert set(query_terms(text)) == expected


def test_differently_written_identifiers_meet_on_their_words() -> None:
    spellings = ["parsePayload", "parse_payload", "ParsePayload", "parse-payload", "payload.parse()"]
    common = set.intersection(*(set(query_terms(s)) for s in spellings))
    assert common == {"pars", "payload"}


def test_forms_of_a_word_meet_on_one_term() -> None:
    assert {stem(w) for w in ("fail", "failing", "failed", "fails")} == {"fail"}
    assert query_terms("The tests were failing") == query_terms("test fails")


def test_question_words_and_filler_are_dropped() -> None:
    assert query_terms("When did we decide how the cache should work?") == ["decid", "cach", "work"]
    assert query_terms("what is it? who did that, and why?") == []
    for word in ("what", "when", "did", "how", "which", "who", "why", "the", "is"):
        assert word in STOPWORDS
    assert 170 <= len(STOPWORDS) <= 190


def test_single_letters_drop_but_digits_and_versions_stay() -> None:
    terms = query_terms("a x 3 Python 3.11 in 2024")
    assert terms == ["3", "python", "11", "3.11", "2024"]


def test_a_number_grouped_by_thousands_is_one_number() -> None:
    assert query_terms("refactored 1,350+ lines over 10,000 records") == ["refactor", "1350", "line", "10000", "record"]
    assert "350" not in index_terms("the diff touches 1,350 lines, 1,000,000 rows.")
    # Not a grouped number: a list, or a decimal comma.
    assert query_terms("ids 1,2,3 and pi 3,14") == ["id", "1", "2", "3", "pi", "14"]
    assert query_terms("thresholds 0,500,1000") == ["threshold", "0", "500", "1000"]


def test_blobs_and_huge_texts_are_bounded() -> None:
    blob = "A" * 65
    assert query_terms(f"token {blob} end") == ["token", "end"]
    huge = "alpha " * 100_000 + "omega"
    counts = index_terms(huge)
    assert "omega" not in counts
    assert counts["alpha"] == 200_000 // len("alpha ")


def test_index_terms_count_frequencies_and_query_terms_are_distinct_in_order() -> None:
    assert index_terms("cache the cache; Cache misses") == {"cach": 3, "miss": 1}
    assert query_terms("misses cache cache") == ["miss", "cach"]
    assert index_terms("") == {}
    assert query_terms("   ") == []


def test_apostrophes_and_non_latin_words() -> None:
    assert query_terms("Caroline's café don't") == ["carolin", "café"]
    assert query_terms("日本語のテキスト") == ["日本語のテキスト"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("running", "run"),
        ("generously", "generous"),
        ("cries", "cri"),
        ("ties", "tie"),
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("agreed", "agre"),
        ("hoping", "hope"),
        ("hopping", "hop"),
        ("consolidated", "consolid"),
        ("knightly", "knight"),
        ("knives", "knive"),
        ("skies", "sky"),
        ("dying", "die"),
        ("news", "news"),
        ("communication", "communic"),
        ("generation", "generat"),
        ("university", "universiti"),
        ("inning", "inning"),
        ("proceedings", "proceed"),
        ("added", "add"),
        ("biologist", "biolog"),
        ("fluently", "fluentli"),
        ("happily", "happili"),
        ("migrations", "migrat"),
        ("configuration", "configur"),
        ("dependencies", "depend"),
        ("sqlite3", "sqlite3"),
        ("ab", "ab"),
    ],
)
def test_porter2_stems(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_the_hook_path_imports_nothing_heavy() -> None:
    # pathlib is no longer on this list: every process that ranks (the worker, a cold turn) has
    # already imported it through Config, and the word-frequency cache's paths use it.
    code = (
        "import sys, memory_core.retrieval.retriever, memory_core.store.sqlite;"
        "heavy = {'json', 'pydantic', 'mcp', 'numpy', 'importlib.metadata', 'email', 'http'};"
        "print(sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


def test_role_labels_of_a_stored_turn_are_not_indexed() -> None:
    # issue #24: "User:" at the head of every turn made a prompt saying "users" match every turn.
    terms = index_terms("User: the staging deploy port?\nAssistant: 8443 behind the VPN.")
    assert "user" not in terms
    assert "assist" not in terms
    assert {"stage", "deploy", "port", "8443", "vpn"} <= terms.keys()
    # The word itself, inside the text, is still a word.
    assert "user" in index_terms("User: why does the login forget users after refresh?")
