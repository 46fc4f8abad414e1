"""The code-aware tokenizer: the one place text becomes index terms, for memories and queries alike.

Promises:
- Identifiers are split the way people search for them: `parsePayload`, `parse_payload`,
  `parse-payload` and `payload.parse` all yield `pars` and `payload`; `HTTPServer` yields
  `http` and `server`. The whole identifier is kept as a term too (`parse_payload`,
  `src/memory_core/store.py`), so an exact mention outranks a loose one.
- Words are lower-cased and stemmed with Porter2 (`memory_core.retrieval.stemmer`): `failing`, `failed`
  and `fails` meet on `fail`.
- A stoplist of 183 words (English function words, including the question words `what`, `when`,
  `did`, `how`, `which`, `who`, `why`) is dropped: they say how a question is asked, not what
  it is about, and would otherwise match every memory.
- Single letters are dropped; digits are kept (`3`, `2024`), and a number grouped by thousands
  is one number (`1,350` -> `1350`; a list such as `1,23` or `1,2345` is not one); words longer
  than 64 characters (blobs, long hashes) are dropped; only the first 200,000 characters of a
  text are indexed, so one huge paste cannot stall a capture.
- A stored turn's role labels (`User:`, `Assistant:` at the start of a line, as `turn_text`
  writes them) are not words of the memory: `index_terms` skips them, so a prompt saying "user"
  meets the turns that talk about users, not every turn of the store.
- `index_terms` and `query_terms` apply the same rules, so a query term always names the index
  term it should meet. Neither raises; empty or stopword-only text gives no terms.

Imports only `re` and the stemmer: the hook path tokenizes every prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory_core.retrieval.stemmer import stem

__all__ = ["index_terms", "query_terms", "query_surfaces", "term_spans", "words_of", "STOPWORDS"]

_MAX_TEXT_CHARS = 200_000
_MAX_WORD_CHARS = 64

# A number grouped by thousands (`1,350`, `10,000`), or a run of letters and digits joined by
# identifier and path separators: `a.b`, `a_b`, `a/b`, `a-b`, `a::b`.
_COMPOUND = re.compile(r"(?<!\w)(?<!\d,)\d{1,3}(?:,\d{3})+(?!\w|,\d)|[^\W_]+(?:[_./:\\-]+[^\W_]+)*")
_ROLE_LABEL = re.compile(r"^(?:User|Assistant):", re.MULTILINE)
_GROUPED_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+")
_SEPARATORS = re.compile(r"[_./:\\-]+")
# camelCase, PascalCase and ACRONYMCase boundaries; digits stay with the letters before them.
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")

_STOPLIST = """
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves
he him his himself she she's her hers herself it it's its itself they them their theirs themselves
what which who whom whose this that that'll these those am is are was were be been being have has
had having do does did doing a an the and but if or because as until while of at by for with about
against between into through during before after above below to from up down in out on off over
under again further then once here there when where why how all any both each few more most other
some such no nor not only own same so than too very s t can will just don don't should should've now
d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't
haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't
wasn wasn't weren weren't won won't wouldn wouldn't would could might
"""
STOPWORDS = frozenset(_STOPLIST.split())
"""NLTK's 179-word English list, plus `whose`, `would`, `could`, `might`."""


def _words(compound: str) -> list[str]:
    """The lower-case words of one compound token, before stoplist and stemming."""
    if _GROUPED_NUMBER.fullmatch(compound):
        # One number, not two: "1,350 lines" must not meet "350 degrees".
        return [compound.replace(",", "")]
    words: list[str] = []
    for piece in _SEPARATORS.split(compound):
        if not piece:
            continue
        if piece.isascii():
            words.extend(w.lower() for w in _CAMEL.findall(piece))
        else:
            words.append(piece.lower())
    return words


def words_of(compound: str) -> list[str]:
    """The lower-case words of one token (`parsePayload` -> parse, payload), before stoplist and stemming."""
    return _words(compound)


def _kept(word: str) -> bool:
    return (len(word) > 1 or word.isdigit()) and len(word) <= _MAX_WORD_CHARS and word not in STOPWORDS


def _compound_terms(compound: str) -> list[str]:
    terms: list[str] = []
    words = _words(compound)
    for word in words:
        if _kept(word):
            terms.append(stem(word))
    if len(words) > 1 and len(compound) <= _MAX_WORD_CHARS:
        terms.append(compound.lower())
    return terms


def _terms(text: str) -> list[str]:
    terms: list[str] = []
    for match in _COMPOUND.finditer(text[:_MAX_TEXT_CHARS]):
        terms.extend(_compound_terms(match.group()))
    return terms


def _unlabelled(text: str) -> str:
    """`text` with its role labels blanked (same length, so offsets still hold)."""
    return _ROLE_LABEL.sub(lambda m: " " * len(m.group()), text[:_MAX_TEXT_CHARS]) if ":" in text else text


def term_spans(text: str) -> Iterator[tuple[int, int, list[str]]]:
    """Each token of `text` as (start, end, its index terms): where in a text the terms sit (for excerpts)."""
    for match in _COMPOUND.finditer(_unlabelled(text)):
        yield match.start(), match.end(), _compound_terms(match.group())


def index_terms(text: str) -> dict[str, int]:
    """Each index term of `text` and how often it occurs: what a store's `put` indexes."""
    counts: dict[str, int] = {}
    for term in _terms(_unlabelled(text)):
        counts[term] = counts.get(term, 0) + 1
    return counts


def query_terms(text: str) -> list[str]:
    """The distinct index terms of a query, in the order they first appear."""
    return list(dict.fromkeys(_terms(text)))


def query_surfaces(text: str) -> dict[str, list[str]]:
    """Each distinct query term (in `query_terms` order) with what the text wrote for it: the
    lower-case words that stem to it, or for a whole-identifier term the identifier as written.
    """
    surfaces: dict[str, list[str]] = {}
    for match in _COMPOUND.finditer(text[:_MAX_TEXT_CHARS]):
        compound = match.group()
        words = _words(compound)
        for word in words:
            if _kept(word):
                surfaces.setdefault(stem(word), []).append(word)
        if len(words) > 1 and len(compound) <= _MAX_WORD_CHARS:
            surfaces.setdefault(compound.lower(), []).append(compound)
    return surfaces
