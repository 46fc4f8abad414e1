"""The last line of the firewall: does a long token look like a random credential?

Promise: `looks_random(token)` is True for the random strings credentials are made of
(base64, base64url or mixed-case alphanumerics, 20 characters or more) and False for what a
coding session is full of: identifiers in any case style, paths, slugs, numbers, hex
digests and git SHAs, UUIDs, base64 of images, and ids with a known non-secret prefix. It is
a pure function of its argument: no state, no I/O, and it never raises for any `str`.

How: words, and so identifiers and paths built from words, are made of letter runs whose
letter pairs are common ones ("th", "er", "in"); random text breaks into short runs of
uncommon pairs. A token is random when little of it reads as words and its characters are
spread out (Shannon entropy). `_COMMON_PAIRS` holds the 250 most frequent letter pairs of
the words inside the identifiers of CPython's standard library (96% of all pairs there;
37% of the pairs of uniformly random letters). The thresholds were tuned on random tokens
against every long token of the standard library and of a virtualenv's file paths; see
`tests/test_firewall_entropy.py`, which keeps both sides honest.
"""

from __future__ import annotations

import math
import re

__all__ = ["looks_random", "MIN_LENGTH"]

MIN_LENGTH = 20
"""Shorter tokens are never judged: too little signal, and too many ordinary words."""

_MAX_WORDY_SHARE = 0.4
"""Share of a token's letters and digits in word-like runs above which it is not random."""
_MIN_ENTROPY_BITS = 3.5
"""Shannon entropy per character below which a token is too repetitive to be a key."""
_MAX_DIGIT_SHARE = 0.6
"""Above this share of digits a token is a number, a timestamp or an id, not a key."""
_SINGLE_CASE_MIN_LENGTH = 32
"""A token lacking either upper or lower case letters must be at least this long."""
_WORD_PAIR_SHARE = 0.6
"""A letter run is a word when at least this share of its letter pairs are common ones."""
_PATH_SLASHES = 2
"""A token with this many slashes is judged as a path (random base64 rarely has two in 40)."""
_MIN_PATH_SEGMENT = 6
"""Shorter path segments are not judged at all (`usr`, `src`, `v2`)."""
_MIN_NOISY_PATH_CHARS = 12
"""Characters in random-looking segments that make a slashed token a credential, not a path."""

_COMMON_PAIRS = frozenset(
    _PAIRS[i : i + 2]
    for _PAIRS in (
        "abacadagaiakalamanaparasatauavawaxaybabebibjblbobsbubycacccechcickclcocrcsctcudadddedidodrdsdtdueaec"
        "edeeefegeielemenepeqeresetevewexeyfafefffiflfofrftfugageghgigngrgsguhahehihohtiaibicidieifigiliminio"
        "ipirisitivixizjekekilaldlelflilllolsltlulymambmemimmmompmsmunancndnenfngninnnonpnsntnunvnyoaobocodof"
        "ogoiokolomonoooporosotouovowpapephpiplpoppprpsptpupyqurarcrdrergrirkrmrnrorrrsrtrurvrysascseshsiskso"
        "spssstsusytatctethtitotptrtstttutyuaubucueuiulumunupurusutvaveviwawewhwiwowrwsxaxcxexixpxtymypysytze",
    )
    for i in range(0, len(_PAIRS), 2)
)
_RUNS = r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+"
"""Words of an identifier: `HTTPServerError2` -> `HTTP`, `Server`, `Error`, `2`."""
_HEX_DIGITS = "0123456789abcdefABCDEF"
_SEPARATOR_CHARS = "/_-+"
_TO_SPACE = str.maketrans(_SEPARATOR_CHARS, "    ")
_UUID_GROUPS = (8, 4, 4, 4, 12)
_MIN_HEX_ID = 8
"""A run of hex this long between separators is an id or a digest inside a labelled token."""
_ID_PREFIXES = (
    # Object ids of APIs a coding agent talks to: they name things, they grant nothing.
    "toolu_",
    "msg_",
    "req_",
    "chatcmpl-",
    "call_",
    "run_",
    "thread_",
    "asst_",
    "file-",
    "file_",
    "batch_",
    "resp_",
    "cus_",
    "pi_",
    "ch_",
    "evt_",
    "sub_",
    "price_",
    "prod_",
    "acct_",
    "seti_",
    "pm_",
)
_IMAGE_MAGIC = ("iVBORw0KGgo", "/9j/", "R0lGOD", "UklGR", "PHN2Zy", "AAABAA")
"""How base64 of a PNG, JPEG, GIF, WEBP, SVG or ICO file starts: content, not a credential."""


def _drop_ids(token: str) -> str:
    """`token` less the UUIDs and hex runs between its separators: they are ids.

    `NONCE-cc-ups-f76d37d0941b` and `req-<uuid>-retry` are labelled ids. A random base64url
    token rarely holds eight hex characters in a row between two separators (about one in
    five thousand), so this costs the entropy test nothing.
    """
    parts = token.replace("_", "-").split("-")
    kept: list[str] = []
    i = 0
    while i < len(parts):
        group = parts[i : i + len(_UUID_GROUPS)]
        if tuple(map(len, group)) == _UUID_GROUPS and not "".join(group).strip(_HEX_DIGITS):
            i += len(_UUID_GROUPS)
            continue
        if len(parts[i]) < _MIN_HEX_ID or parts[i].strip(_HEX_DIGITS):
            kept.append(parts[i])
        i += 1
    return "-".join(kept)


def _entropy(text: str) -> float:
    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _wordy_share(token: str) -> float:
    """Share of the token's letters and digits that sit in word-like letter runs."""
    alnum = 0
    wordy = 0
    for run in re.findall(_RUNS, token):
        alnum += len(run)
        if len(run) < 3 or not run.isalpha():
            continue
        lower = run.lower()
        pairs = len(lower) - 1
        common = sum(1 for i in range(pairs) if lower[i : i + 2] in _COMMON_PAIRS)
        if common >= _WORD_PAIR_SHARE * pairs:
            wordy += len(run)
    return wordy / alnum if alnum else 1.0


def _mixed_case(text: str) -> bool:
    return any(c.isupper() for c in text) and any(c.islower() for c in text)


def _random_core(token: str) -> bool:
    """The statistical test: little of the token reads as words, and its characters spread out."""
    return _wordy_share(token) <= _MAX_WORDY_SHARE and _entropy(token) >= _MIN_ENTROPY_BITS


def looks_random(token: str) -> bool:
    """Whether `token` (one run of base64/base64url characters) looks like a random credential."""
    if len(token) < MIN_LENGTH or not token.strip(_HEX_DIGITS):
        return False
    if token.startswith(_ID_PREFIXES) or token.startswith(_IMAGE_MAGIC):
        return False
    if "-" in token or "_" in token:
        token = _drop_ids(token)
        if len(token) < MIN_LENGTH:
            return False
    digits = sum(1 for c in token if c.isdigit())
    if digits > _MAX_DIGIT_SHARE * len(token):
        return False
    single_case = not _mixed_case(token)
    if single_case and (
        len(token) < _SINGLE_CASE_MIN_LENGTH or not digits or any(c in _SEPARATOR_CHARS for c in token)
    ):
        return False  # single-case tokens are slugs, constants and pod names far more often than keys
    if token.count("/") >= _PATH_SLASHES:
        # Maybe a path: judge its pieces, since short names (`usr`, `libxslt1`) read as noise.
        # Only mixed-case pieces count: paths are lower case or shouting, base64 is both.
        noisy = sum(
            len(part)
            for part in token.translate(_TO_SPACE).split()
            if len(part) >= _MIN_PATH_SEGMENT and _mixed_case(part) and _wordy_share(part) <= _MAX_WORDY_SHARE
        )
        return noisy >= _MIN_NOISY_PATH_CHARS and _entropy(token) >= _MIN_ENTROPY_BITS
    return _random_core(token)
