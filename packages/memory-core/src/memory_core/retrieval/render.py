"""The injected block: recalled memories rendered as one small, stable piece of text.

Promises:
- Identical hits render byte-identical text (no clock, no randomness, no dict order), so the
  block never moves a harness's prompt-cache prefix by itself.
- The block stays within `max_items` items and `max_tokens` approximate tokens, header
  included; an item that does not fit whole is shortened if a useful part fits, else left out.
- No hits, or none that fit, give "" (a harness then emits nothing at all).
- Each item carries its record id, so the model can pass it to `memory_expand` or
  `memory_feedback`, and its date, because an old memory may be outdated.

Tokens are counted by `approx_tokens`: one token per three UTF-8 bytes, rounded up. English
prose runs about four characters a token and code about three and a half in the tokenizers of
current models, so this over-counts slightly: the real block does not exceed the budget, and no
tokenizer has to be downloaded or imported. It never raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memory_core.models import Hit
from memory_core.utc import DAY, utc

__all__ = ["HEADER", "approx_tokens", "render_block"]

HEADER = (
    "Recalled memories from earlier sessions (may be outdated; verify before relying on them)."
    " Ids work with memory_expand and memory_feedback."
)
_MIN_ITEM_TOKENS = 24
"""A shortened item below this size says too little to be worth its place."""
_ELLIPSIS = "…"


def approx_tokens(text: str) -> int:
    """Approximate model tokens in `text`: UTF-8 bytes divided by three, rounded up."""
    return (len(text.encode("utf-8")) + 2) // 3


def _line(hit: Hit, excerpt: str) -> str:
    return f"- [{hit.record.id}] {utc(hit.record.created_at, DAY)}: {excerpt}"


def _shorten(hit: Hit, budget: int) -> str | None:
    """The longest prefix of the hit's excerpt whose item fits `budget` tokens, or None."""
    if budget < _MIN_ITEM_TOKENS:
        return None
    excerpt = hit.excerpt.rstrip(_ELLIPSIS).rstrip()
    low, high = 0, len(excerpt)
    while low < high:
        mid = (low + high + 1) // 2
        candidate = excerpt[:mid].rstrip() + _ELLIPSIS
        if approx_tokens(_line(hit, candidate)) + 1 <= budget:
            low = mid
        else:
            high = mid - 1
    # Cut at a word boundary when one is near, so no word is shown half.
    cut = excerpt[:low]
    space = cut.rfind(" ")
    if space > len(cut) * 3 // 4:
        cut = cut[:space]
    cut = cut.rstrip()
    if not cut:
        return None
    shortened = cut + _ELLIPSIS
    return shortened if approx_tokens(_line(hit, shortened)) + 1 <= budget else None


def render_block(hits: Sequence[Hit], *, max_tokens: int, max_items: int) -> tuple[str, tuple[Hit, ...]]:
    """The block to inject for `hits` (best first) and the hits it holds, as shown; ("", ()) when none fit."""
    lines = [HEADER]
    used = approx_tokens(HEADER)
    kept: list[Hit] = []
    for hit in hits:
        if len(kept) >= max_items:
            break
        line = _line(hit, hit.excerpt)
        # +1 for the newline that joins it to the block.
        cost = approx_tokens(line) + 1
        if used + cost <= max_tokens:
            lines.append(line)
            used += cost
            kept.append(hit)
            continue
        shortened = _shorten(hit, max_tokens - used)
        if shortened is not None:
            lines.append(_line(hit, shortened))
            kept.append(replace(hit, excerpt=shortened))
        break
    if not kept:
        return "", ()
    return "\n".join(lines), tuple(kept)
