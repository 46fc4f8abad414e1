"""How common a word is in general language: the background a store's own counts are weighed against.

Promise: `zipf(word)` is the word's frequency on the Zipf scale (log10 of occurrences per billion
words: 7 for "the", 6 for "good", 4 for "cache", 3 for "firmware", 0 for a word no list has), the
highest over the languages of the word's script (Latin: English, German, Spanish, French, Italian,
Portuguese, Dutch; Cyrillic: Russian, Ukrainian, Bulgarian), the others than the first slightly
discounted. A word of any other script, or any
word when the lists cannot be read, is reported as 0 (unknown), and `available()` says which.
It never raises.

Where the numbers come from: the word lists of the `wordfreq` package, a dependency, read from
the files it installs. Nothing derived from them is shipped with this package: the lists are
CC BY-SA 4.0 and stay in wordfreq's own distribution. `wordfreq` itself is not imported (its
import takes about a second); only `msgpack`, its dependency, and `gzip` are, and only to build
the cache below.

The local cache: reading a script's lists takes 0.15 s on an idle machine and over a second
under load, which a cold hook process (no worker yet) would pay on every turn for a handful of
query words. So the first use on a machine builds, from the installed lists, one compact file
per script in the user's cache folder (`$XDG_CACHE_HOME/memory/`, else `~/.cache/memory/`):
the words sorted as UTF-8 bytes, their offsets and their frequencies, written atomically
(`memory_core.localstate.atomic`). Later processes map the file and binary-search only the words
they are asked about (microseconds, a few pages read). The file's name carries a hash of what
it was built from (this layout's version, the languages, the discount, wordfreq's version and
its data files' sizes and times), so an upgrade of wordfreq or a change of the languages builds
a new one instead of reading a stale one. A file that does not check out (truncated, another
layout) is rebuilt; when the folder cannot be written the process keeps the table it read in
memory, as before the cache existed. The cache is the user's own derivation of data they
installed, never part of a wheel.

The highest over several languages, because a memory store may hold sessions in any of them:
"perché" and "immagini" are everyday Italian, "теперь" everyday Russian, and none of them may
count as rare evidence because English lists do not know them.
"""

from __future__ import annotations

import gzip
import hashlib
import mmap
import os
import struct
import threading
from importlib.util import find_spec
from pathlib import Path
from typing import Protocol

__all__ = ["zipf", "available", "cache_folder"]

_LANGUAGES: dict[str, tuple[str, ...]] = {
    "latin": ("en", "de", "es", "fr", "it", "pt", "nl"),
    "cyrillic": ("ru", "uk", "bg"),
}
_SECOND_LANGUAGE_DISCOUNT = 0.5
"""Zipf points taken off the frequencies of every language but a script's first (English for Latin,
Russian for Cyrillic): the French "cache" (hides) or the Spanish "once" (eleven) are everyday
words there, yet in a store of English sessions they mostly mean the English word. A word
everyday in another language ("perché" 6.2, "immagini" 5.1) stays common after the discount."""
_LAYOUT = b"memory-zipf-1\n"
"""The cache file's first bytes; a new layout changes them (and the file's name, through the key)."""
_HEADER = struct.Struct("<I")
_LOCK = threading.Lock()
_TABLES: dict[str, _Table] = {}
_MISSING: set[str] = set()


class _Table(Protocol):
    def get(self, word: str, default: float, /) -> float: ...

    def __len__(self) -> int: ...


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


def _list_path(folder: str, language: str) -> str:
    return os.path.join(folder, f"small_{language}.msgpack.gz")


def cache_folder(env: dict[str, str] | None = None) -> Path:
    """Where the lookup files live: `$XDG_CACHE_HOME/memory`, else `~/.cache/memory`."""
    environ = os.environ if env is None else env
    base = environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path(environ.get("HOME") or Path.home()) / ".cache"
    return root / "memory"


def _wordfreq_version(folder: str) -> str:
    """The installed wordfreq's version, from its dist-info folder (importlib.metadata costs ~20 ms cold)."""
    site = os.path.dirname(os.path.dirname(folder))
    try:
        names = os.listdir(site)
    except OSError:
        return "unknown"
    versions = sorted(
        n[len("wordfreq-") : -len(".dist-info")]
        for n in names
        if n.startswith("wordfreq-") and n.endswith(".dist-info")
    )
    return versions[-1] if versions else "unknown"


def _cache_key(script: str, folder: str) -> str | None:
    """A hash of everything the script's table is built from; None when none of its lists exists."""
    parts = [_LAYOUT.decode().strip(), script, ",".join(_LANGUAGES[script]), str(_SECOND_LANGUAGE_DISCOUNT)]
    parts.append(_wordfreq_version(folder))
    found = False
    for language in _LANGUAGES[script]:
        try:
            status = os.stat(_list_path(folder, language))
        except OSError:
            parts.append(f"{language}:-")
            continue
        found = True
        parts.append(f"{language}:{status.st_size}:{status.st_mtime_ns}")
    if not found:
        return None
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


def _load(script: str, folder: str) -> dict[str, float]:
    """Every word of the script's languages with its highest Zipf frequency; {} if unreadable."""
    table: dict[str, float] = {}
    try:
        import msgpack  # type: ignore[import-untyped]
    except ImportError:
        return table
    for rank, language in enumerate(_LANGUAGES[script]):
        discount = _SECOND_LANGUAGE_DISCOUNT if rank else 0.0
        try:
            with gzip.open(_list_path(folder, language)) as handle:
                data = msgpack.load(handle, raw=False)
        except (OSError, ValueError, EOFError, msgpack.UnpackException):
            continue
        # The "cB" layout: a header, then one list of words per centibel of frequency below 1.
        if not isinstance(data, list) or not data or not isinstance(data[0], dict) or data[0].get("format") != "cB":
            continue
        for index, bucket in enumerate(data[1:], start=1):
            value = round(9.0 - index / 100.0 - discount, 2)
            for word in bucket:
                if table.get(word, 0.0) < value:
                    table[word] = value
    return table


def _pack(table: dict[str, float]) -> bytes:
    """The cache file: layout, count N, N+1 offsets (u32), N frequencies (u16, hundredths), words."""
    encoded = sorted((word.encode("utf-8"), value) for word, value in table.items())
    offsets = [0]
    for word, _ in encoded:
        offsets.append(offsets[-1] + len(word))
    count = len(encoded)
    return b"".join(
        [
            _LAYOUT,
            _HEADER.pack(count),
            struct.pack(f"<{count + 1}I", *offsets),
            struct.pack(f"<{count}H", *(round(value * 100) for _, value in encoded)),
            b"".join(word for word, _ in encoded),
        ]
    )


class _MappedTable:
    """A cache file mapped read-only, searched by bisection on the words' UTF-8 bytes."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            if self._map[: len(_LAYOUT)] != _LAYOUT:
                raise ValueError("not a lookup file of this layout")
            self._count: int = _HEADER.unpack_from(self._map, len(_LAYOUT))[0]
            self._offsets = len(_LAYOUT) + _HEADER.size
            self._values = self._offsets + 4 * (self._count + 1)
            self._words = self._values + 2 * self._count
            (blob,) = struct.unpack_from("<I", self._map, self._offsets + 4 * self._count)
            if self._words + blob != len(self._map):
                raise ValueError("truncated lookup file")
        except (ValueError, struct.error):
            self._map.close()
            raise ValueError("unreadable lookup file") from None

    def __len__(self) -> int:
        return self._count

    def _word(self, index: int) -> bytes:
        start, end = struct.unpack_from("<II", self._map, self._offsets + 4 * index)
        return self._map[self._words + start : self._words + end]

    def get(self, word: str, default: float, /) -> float:
        key = word.encode("utf-8", "surrogatepass")
        low, high = 0, self._count
        while low < high:
            middle = (low + high) // 2
            if self._word(middle) < key:
                low = middle + 1
            else:
                high = middle
        if low < self._count and self._word(low) == key:
            (value,) = struct.unpack_from("<H", self._map, self._values + 2 * low)
            return float(value) / 100.0
        return default


def _open(script: str) -> _Table:
    """The script's table: the cache file if it checks out, else built from the lists (and cached)."""
    folder = _data_folder()
    key = None if folder is None else _cache_key(script, folder)
    if folder is None or key is None:
        return {}
    path = cache_folder() / f"zipf-{script}-{key}.bin"
    try:
        return _MappedTable(path)
    except (OSError, ValueError):
        pass
    table = _load(script, folder)
    if table:
        try:
            from memory_core.localstate.atomic import atomic_write_bytes

            atomic_write_bytes(path, _pack(table), mode=0o600, folder_mode=0o700)
        except OSError:
            pass  # a read-only cache folder: this process keeps the table it read
    return table


def _table(script: str) -> _Table:
    table = _TABLES.get(script)
    if table is None:
        with _LOCK:
            table = _TABLES.get(script)
            if table is None:
                table = _open(script)
                if not len(table):
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
    return bool(len(_table(script)))
