"""How common a word is in general language: the background a store's own counts are weighed against.

Promise: `zipf(word)` is the word's frequency on the Zipf scale (log10 of occurrences per billion
words: 7 for "the", 6 for "good", 4 for "cache", 3 for "firmware", 0 for a word no list has), the
highest over the languages of the word's script (Latin: English, German, Spanish, French, Italian,
Portuguese, Dutch; Cyrillic: Russian, Ukrainian, Bulgarian), the others than the first slightly
discounted. A word of any other script, or any
word when the lists cannot be read, is reported as 0 (unknown), and `available()` says which.
It never raises.

Where the numbers come from: the word lists of the `wordfreq` package, a dependency, read from
the files it installs at the first use of a script (about 0.15 s for the Latin languages, kept
for the life of the process). Nothing derived from them is shipped with this package: the lists
are CC BY-SA 4.0 and stay in wordfreq's own distribution. `wordfreq` itself is not imported (its
import takes about a second); only `msgpack`, its dependency, and `gzip` are.

The highest over several languages, because a memory store may hold sessions in any of them:
"perché" and "immagini" are everyday Italian, "теперь" everyday Russian, and none of them may
count as rare evidence because English lists do not know them.
"""

from __future__ import annotations

import gzip
import os
import threading
from importlib.util import find_spec

__all__ = ["zipf", "available"]

_LANGUAGES: dict[str, tuple[str, ...]] = {
    "latin": ("en", "de", "es", "fr", "it", "pt", "nl"),
    "cyrillic": ("ru", "uk", "bg"),
}
_SECOND_LANGUAGE_DISCOUNT = 0.5
"""Zipf points taken off the frequencies of every language but a script's first (English for Latin,
Russian for Cyrillic): the French "cache" (hides) or the Spanish "once" (eleven) are everyday
words there, yet in a store of English sessions they mostly mean the English word. A word
everyday in another language ("perché" 6.2, "immagini" 5.1) stays common after the discount."""
_LOCK = threading.Lock()
_TABLES: dict[str, dict[str, float]] = {}
_MISSING: set[str] = set()


def _script(word: str) -> str | None:
    """The script of a word's first letter, for the scripts the lists cover."""
    for char in word:
        if char.isascii():
            if char.isalpha():
                return "latin"
            continue
        code = ord(char)
        if 0x00C0 <= code <= 0x024F:
            return "latin"
        if 0x0400 <= code <= 0x04FF:
            return "cyrillic"
        return None
    return None


def _data_folder() -> str | None:
    try:
        spec = find_spec("wordfreq")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return os.path.join(os.path.dirname(spec.origin), "data")


def _load(script: str) -> dict[str, float]:
    """Every word of the script's languages with its highest Zipf frequency; {} if unreadable."""
    folder = _data_folder()
    table: dict[str, float] = {}
    if folder is None:
        return table
    try:
        import msgpack  # type: ignore[import-untyped]
    except ImportError:
        return table
    for rank, language in enumerate(_LANGUAGES[script]):
        discount = _SECOND_LANGUAGE_DISCOUNT if rank else 0.0
        try:
            with gzip.open(os.path.join(folder, f"small_{language}.msgpack.gz")) as handle:
                data = msgpack.load(handle, raw=False)
        except (OSError, ValueError, EOFError, msgpack.UnpackException):
            continue
        # The "cB" layout: a header, then one list of words per centibel of frequency below 1.
        if not isinstance(data, list) or not data or not isinstance(data[0], dict) or data[0].get("format") != "cB":
            continue
        for index, bucket in enumerate(data[1:], start=1):
            value = 9.0 - index / 100.0 - discount
            for word in bucket:
                if table.get(word, 0.0) < value:
                    table[word] = value
    return table


def _table(script: str) -> dict[str, float]:
    table = _TABLES.get(script)
    if table is None:
        with _LOCK:
            table = _TABLES.get(script)
            if table is None:
                table = _load(script)
                if not table:
                    _MISSING.add(script)
                _TABLES[script] = table
    return table


def zipf(word: str) -> float:
    """The word's Zipf frequency in general language (lower case), 0.0 when unknown."""
    script = _script(word)
    if script is None:
        return 0.0
    return _table(script).get(word, 0.0)


def available(script: str = "latin") -> bool:
    """Whether the word lists of a script could be read (False: every word of it reads as unknown)."""
    return bool(_table(script))
