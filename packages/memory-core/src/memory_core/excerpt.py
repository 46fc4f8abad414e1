"""What a hit shows: the best-matching passage of a record, and whether two records say the same.

Promises: `excerpt` returns the window of about `size` characters holding the most query weight
(whitespace collapsed, cut at word boundaries, `…` where text was cut), not the record's head;
`signature` and `near_duplicate` tell a memory said again from a different one by the overlap
of their word sets. Work is bounded (one linear pass over at most 60,000 characters). Nothing
here raises.
"""

from __future__ import annotations

import re

from memory_core.stemmer import stem

__all__ = ["excerpt", "signature", "near_duplicate", "EXCERPT_CHARS"]

EXCERPT_CHARS = 480
"""About a sixth of the default 800-token budget (5 items), once the id and date are added."""
_EXCERPT_LEAD = 60
"""Characters of lead-in kept before the first matched word of an excerpt."""
_EXCERPT_SCAN_CHARS = 60_000
"""An excerpt is looked for in the first 60,000 characters: bounded work on a huge paste."""
_EXCERPT_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_]+")
_DUPLICATE_JACCARD = 0.8
"""Word-set overlap above which a lower hit is the same memory said again."""
_SIGNATURE_CHARS = 4_000
_WORD = re.compile(r"\w+")


def signature(text: str) -> frozenset[str]:
    """The lower-case words of a record's first 4,000 characters."""
    return frozenset(_WORD.findall(text[:_SIGNATURE_CHARS].lower()))


def near_duplicate(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two signatures overlap by `_DUPLICATE_JACCARD` or more (Jaccard)."""
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= _DUPLICATE_JACCARD


def excerpt(text: str, weights: dict[str, float], *, size: int = EXCERPT_CHARS) -> str:
    """The window of about `size` characters of `text` holding the most query weight, whitespace collapsed.

    `weights` maps query terms to their idf. A window scores the weight of the distinct terms
    in it, so a passage naming several query words beats one repeating a single word. Words are
    matched one by one (camelCase parts included), which is all a window needs and far cheaper
    than re-tokenizing the record.
    """
    flat = " ".join(text.split())
    if len(flat) <= size:
        return flat
    spans: list[tuple[int, str]] = []
    # Each distinct spelling is stemmed once; "" marks a word that is no query term.
    known: dict[str, str] = {}
    for match in _EXCERPT_WORD.finditer(flat, 0, _EXCERPT_SCAN_CHARS):
        word = match.group()
        term = known.get(word)
        if term is None:
            term = stem(word.lower())
            term = known[word] = term if term in weights else ""
        if term:
            spans.append((match.start(), term))
    # Slide a window over the matched words: each window starts at a match and holds the matches
    # that fit after it; counts tell when a term leaves the window.
    best_start, best_weight = 0, 0.0
    counts: dict[str, int] = {}
    weight = 0.0
    end = 0
    for start, term in spans:
        while end < len(spans) and spans[end][0] < start + size - _EXCERPT_LEAD:
            added = spans[end][1]
            counts[added] = counts.get(added, 0) + 1
            if counts[added] == 1:
                weight += weights[added]
            end += 1
        if weight > best_weight:
            best_start, best_weight = start, weight
        counts[term] -= 1
        if counts[term] == 0:
            weight -= weights[term]
    begin = max(0, best_start - _EXCERPT_LEAD)
    if begin > 0:
        space = flat.find(" ", begin)
        begin = space + 1 if 0 <= space < best_start else begin
    end = min(len(flat), begin + size)
    if end < len(flat):
        space = flat.rfind(" ", begin, end)
        end = space if space > begin + size // 2 else end
    piece = flat[begin:end].strip()
    return ("…" if begin > 0 else "") + piece + ("…" if end < len(flat) else "")
