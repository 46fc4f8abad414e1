"""What a hit shows: the best-matching passage of a record, and whether two records say the same.

Promises: `excerpt` returns the window of about `size` characters holding the most query weight
(whitespace collapsed, cut at word boundaries, `…` where text was cut), not the record's head;
`signature` and `near_duplicate` tell a memory said again from a different one by the overlap
of their word sets. Work is bounded (one linear pass over at most 60,000 characters). Nothing
here raises.
"""

from __future__ import annotations

import re

from memory_core.retrieval.stemmer import stem

__all__ = ["excerpt", "signature", "near_duplicate", "EXCERPT_CHARS"]

EXCERPT_CHARS = 480
"""About a sixth of the default 800-token budget (5 items), once the id and date are added."""
_EXCERPT_LEAD = 60
"""Characters of lead-in kept before the first matched word of an excerpt."""
_EXCERPT_SCAN_CHARS = 60_000
"""An excerpt is looked for in the first 60,000 characters: bounded work on a huge paste."""
_TOKEN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
"""An ASCII word, camelCase parts apart (`HTTPServer` -> `HTTP`, `Server`), or a run of digits."""
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
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


def _starts_word(text: str, i: int) -> bool:
    """Whether a `_TOKEN` word starts at `i` when `text` is read from the left (decided locally)."""
    here, before = text[i], text[i - 1] if i else " "
    if here in _LOWER:
        return before not in _LOWER and before not in _UPPER
    if here in _UPPER:
        return before not in _UPPER or (i + 1 < len(text) and text[i + 1] in _LOWER)
    return here in _DIGITS and before not in _DIGITS


def _matches(text: str, weights: dict[str, float]) -> list[tuple[int, str]]:
    """(offset, query term) of each word of `text` whose stem is a query term, in order.

    The text is not walked word by word: a Porter2 stem minus its last two letters is a prefix
    of every word it comes from (checked on 71,304 words), so one C-level scan for those
    prefixes finds every candidate, and only candidates are stemmed.
    """
    prefixes = sorted(
        {t[: max(1, len(t) - 2)] if t.isalpha() else t for t in weights if t.isascii() and (t.isalpha() or t.isdigit())}
    )
    if not prefixes:
        return []
    finder = re.compile("(?i)(?=" + "|".join(map(re.escape, prefixes)) + ")")
    spans: list[tuple[int, str]] = []
    # Each distinct spelling is stemmed once; "" marks a word that is no query term.
    known: dict[str, str] = {}
    for candidate in finder.finditer(text):
        start = candidate.start()
        if not _starts_word(text, start):
            continue
        found = _TOKEN.match(text, start)
        if found is None:
            continue
        word = found.group()
        term = known.get(word)
        if term is None:
            term = stem(word.lower())
            term = known[word] = term if term in weights else ""
        if term:
            spans.append((start, term))
    return spans


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
    spans = _matches(flat[:_EXCERPT_SCAN_CHARS], weights)
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
