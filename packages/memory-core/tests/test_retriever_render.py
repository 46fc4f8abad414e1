"""The injected block: stable bytes, a hard budget, ids and dates on every item, nothing when empty."""

from __future__ import annotations

from memory_core.models import Hit
from memory_core.retrieval.render import HEADER, approx_tokens, render_block
from memory_testing.store_conformance import make_record

_DAY = 1_764_460_800.0  # 2025-11-30 00:00 UTC


def _hit(record_id: str, excerpt: str, *, days: int = 0, score: float = 1.0) -> Hit:
    return Hit(make_record(record_id, excerpt, created_at=_DAY + days * 86_400), score, excerpt)


def test_no_hits_render_nothing_at_all() -> None:
    assert render_block([], max_tokens=800, max_items=5) == ("", ())


def test_items_carry_id_date_and_excerpt_under_a_one_line_header() -> None:
    hits = [_hit("turn-a", "We moved the cache to Redis."), _hit("turn-b", "Tests use tmp_path.", days=3)]
    text, kept = render_block(hits, max_tokens=800, max_items=5)
    lines = text.split("\n")
    assert lines[0] == HEADER
    assert "earlier sessions" in HEADER
    assert "outdated" in HEADER
    assert lines[1] == "- [turn-a] 2025-11-30: We moved the cache to Redis."
    assert lines[2] == "- [turn-b] 2025-12-03: Tests use tmp_path."
    assert kept == tuple(hits)


def test_identical_hits_render_byte_identical_blocks() -> None:
    hits = [_hit(f"r{n}", f"memory number {n} " * 20, days=n) for n in range(6)]
    first = render_block(hits, max_tokens=300, max_items=4)
    second = render_block(list(hits), max_tokens=300, max_items=4)
    assert first[0].encode() == second[0].encode()
    assert first == second


def test_the_item_cap_holds() -> None:
    hits = [_hit(f"r{n}", "short") for n in range(9)]
    text, kept = render_block(hits, max_tokens=10_000, max_items=3)
    assert len(kept) == 3
    assert text.count("\n- [") == 3


def test_the_token_budget_holds_and_the_last_item_is_shortened_to_fit() -> None:
    hits = [_hit(f"r{n}", ("word " * 200).strip()) for n in range(3)]
    budget = 300
    text, kept = render_block(hits, max_tokens=budget, max_items=5)
    assert approx_tokens(text) <= budget
    assert 1 <= len(kept) <= 2
    assert kept[-1].excerpt.endswith("…")
    assert kept[-1].excerpt in text
    assert not kept[-1].excerpt.removesuffix("…").endswith("wor")


def test_a_budget_too_small_for_any_item_renders_nothing() -> None:
    assert render_block([_hit("r1", "x " * 400)], max_tokens=approx_tokens(HEADER) + 5, max_items=5) == ("", ())
    assert render_block([_hit("r1", "tiny")], max_tokens=10, max_items=5) == ("", ())


def test_approx_tokens_counts_three_utf8_bytes_a_token_rounded_up() -> None:
    assert approx_tokens("") == 0
    assert approx_tokens("a") == 1
    assert approx_tokens("abc") == 1
    assert approx_tokens("abcd") == 2
    assert approx_tokens("é") == 1
    assert approx_tokens("日本語") == 3
    # Over-counts ordinary English (about four characters a token), never under-counts it much.
    sentence = "The retry loop now waits for the lock before it writes the spool file."
    assert approx_tokens(sentence) >= len(sentence.split())
