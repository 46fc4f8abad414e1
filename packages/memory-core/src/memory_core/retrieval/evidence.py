r"""How much a query word, found in a memory, says that the memory is about the prompt.

Promise: `term_strengths(query)` gives each query term (as `query_terms` names it) a strength in
[0, 1], from what the word is, whatever the store holds:

- identifiers are strong (1.0): a token with `_ . / : \` inside, camelCase, or letters mixed with
  digits (`parse_payload`, `src/app.py`, `HTTPServer`, `py311`, `192.168.1.18`); so are numbers of
  three digits or more (a port, a version, a limit) and words no general word list knows
  (`mqtt`, `jcode`, `throttling`);
- a word of general language is weaker the more common it is: full strength up to Zipf 3
  (`firmware`), none from Zipf 5 on (`good`, `day`, `keep`, `work`), linear between (`cache`
  0.7, `server` 0.3); in every language the background knows (`memory_core.retrieval.background`):
  "perché", "теперь" are everyday words, not evidence;
- one- and two-digit numbers are weak (0.3): "30 minutes" and "2 players" are everyday too;
- a word the query only writes elided before an apostrophe (`dov'è`, `dell'app`, `qu'il`) is no
  evidence: it is an article, preposition or adverb of Italian or French cut short, which no word
  list knows in that form; English endings (`user's`, `don't`, `we're`) are not elisions.

Why: a store's own counts say how rare a word is among its memories, which in a young store of a
few dozen turns is nothing: every word is rare there. The recall floor multiplies the two, so a
match on everyday words is weak evidence however small the store, and a match on a project's own
names is strong however big. Never raises.
"""

from __future__ import annotations

import re

from memory_core.retrieval.background import zipf
from memory_core.retrieval.jargon import is_jargon
from memory_core.retrieval.stemmer import stem
from memory_core.retrieval.tokenizer import query_surfaces, words_of

__all__ = ["term_strengths", "word_strength", "RARE_ZIPF", "COMMON_ZIPF"]

RARE_ZIPF = 3.0
"""At or below this general-language frequency a word is full evidence (about 1 in a million words)."""
COMMON_ZIPF = 5.0
"""At or above this one a word is no evidence at all (about 1 in 10,000 words: `good`, `make`, `day`)."""
_JARGON_ZIPF = 4.6
"""Programming's everyday words (`jargon`) count as at least this common: `commit`, `struct` and
`docker` are rare in English at large and in every coding project's memory."""
_SHORT_NUMBER = 0.3
_ELIDED = re.compile(r"([^\W\d_]+)['\u2019]([^\W\d_]+)")
_ENGLISH_ENDINGS = frozenset({"s", "t", "d", "m", "re", "ve", "ll"})
"""What follows the apostrophe in an English possessive or contraction, not an elision."""
_IDENTIFIER_MARKS = re.compile(r"[_./:\\]|[a-z][A-Z]|[A-Z]{2}[a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]")


def word_strength(word: str) -> float:
    """The strength of one lower-case word (see the module docstring)."""
    if word.isdigit():
        return 1.0 if len(word) >= 3 else _SHORT_NUMBER
    if any(c.isdigit() for c in word):
        return 1.0
    # The lists hold the common forms of a word, not all of them: `deploys` is missing where
    # `deploy` is not, so the stem is looked up too.
    frequency = max(zipf(word), zipf(stem(word)))
    if is_jargon(word):
        frequency = max(frequency, _JARGON_ZIPF)
    if frequency <= RARE_ZIPF:
        return 1.0
    if frequency >= COMMON_ZIPF:
        return 0.0
    return (COMMON_ZIPF - frequency) / (COMMON_ZIPF - RARE_ZIPF)


def _surface_strength(surface: str) -> float:
    if surface != surface.lower() or len(words_of(surface)) > 1:
        # A whole token as written: an identifier, or a hyphenated phrase (`keep-alive`, as strong
        # as its strongest word).
        if _IDENTIFIER_MARKS.search(surface):
            return 1.0
        return max((word_strength(w) for w in words_of(surface)), default=0.0)
    return word_strength(surface)


def _elided(query: str) -> frozenset[str]:
    """The lower-case words the query writes cut short before an apostrophe (`dov` of `dov'è`)."""
    return frozenset(m.group(1).lower() for m in _ELIDED.finditer(query) if m.group(2).lower() not in _ENGLISH_ENDINGS)


def term_strengths(query: str) -> dict[str, float]:
    """Each query term's strength: the strongest of the ways the query wrote it."""
    elided = _elided(query)
    # `dov` (of `dov'è`) is unknown to every word list, so it would otherwise count as a rare word.
    return {
        term: 0.0 if any(s in elided for s in surfaces) else max(_surface_strength(s) for s in surfaces)
        for term, surfaces in query_surfaces(query).items()
    }
