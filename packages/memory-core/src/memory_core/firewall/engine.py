"""The secret firewall: what it removes from a turn before anything is stored, indexed or logged.

Promises:
- `Firewall.scrub(text)` replaces each credential in place by `[REDACTED:<kind>]` (the kinds
  are stable kebab-case names, listed in `KINDS` and in docs/firewall.md), removes every
  `<private>...</private>` span (case-insensitive, across lines; an unclosed `<private>`
  removes everything after it), and counts what it did by kind.
- `Firewall.check_turn(prompt, response)` voids the whole turn when the prompt holds the
  `#nomemory` tag, and otherwise scrubs both halves.
- Deterministic (patterns and entropy, no model), and idempotent: scrubbing scrubbed text
  changes nothing and counts nothing, because no rule matches a marker.
- Published values are kept: a vendor's documented example credential (`DOCUMENTED_EXAMPLES`)
  anywhere, and a value on a line that cites a standard's appendix or test vectors.
- Nothing removed is kept: not in the results, their reprs, an exception or a log. Only
  counts leave this module.
- Disabled (`Firewall(enabled=False)`, from `MEMORY_FIREWALL=0`), text passes unchanged and
  nothing is counted, `#nomemory` and `<private>` included.

Cost: the hook path runs this on every capture. Importing compiles nothing; each rule is
compiled the first time a text holds one of its literal triggers, so a turn pays only for
the rules it could match (docs/firewall.md has the measured figures).

Failure: `scrub` and `check_turn` raise only for a non-`str` argument (a caller's bug).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from memory_core.firewall.patterns import RULES, Edit, marker
from memory_core.firewall.values import DOCUMENTED_EXAMPLES, occurrences
from memory_core.lazyre import lazy

__all__ = ["Firewall", "Scrubbed", "TurnVerdict", "KINDS", "marker"]

_PRIVATE_TAG = r"<(/?)private\s*>"
_NOMEMORY = r"(?<![\w&#])#nomemory(?![\w\-])"

KINDS: tuple[str, ...] = ("private", "nomemory", *dict.fromkeys(kind for rule in RULES for kind in rule.kinds))
"""Every kind a count or a marker can name."""

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True, slots=True)
class Scrubbed:
    """Text after the firewall, and what was removed from it, counted by kind.

    Attributes:
        text: The text with every credential replaced by its marker and private spans removed.
        counts: Kind -> how many were redacted or removed (`{"aws-access-key": 1, "private": 1}`),
            sorted by kind; a plain dict, so it serialises as JSON.
    """

    text: str
    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """A turn after the firewall.

    Attributes:
        prompt: The scrubbed prompt ("" when voided).
        response: The scrubbed response ("" when voided).
        voided: True when the prompt carried `#nomemory`: nothing of the turn may be kept.
        counts: Kind -> how many; a voided turn counts `{"nomemory": 1}` and nothing else.
    """

    prompt: str
    response: str
    voided: bool
    counts: Mapping[str, int] = field(default_factory=dict)


class Firewall:
    """The deterministic secret firewall.

    Args:
        enabled: False turns every method into a pass-through (`MEMORY_FIREWALL=0`).
    """

    __slots__ = ("enabled",)

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled

    def __repr__(self) -> str:
        return f"Firewall(enabled={self.enabled})"

    def scrub(self, text: str) -> Scrubbed:
        """Redact credentials in place and remove private spans; count each by kind."""
        if not isinstance(text, str):
            raise TypeError(f"the firewall scrubs str, not {type(text).__name__}")
        if not self.enabled or not text:
            return Scrubbed(text)
        counts: dict[str, int] = {}
        if "<" in text and "private" in text.lower():
            text = _remove_private(text, counts)
        folded = _fold(text)
        examples = [example for example in DOCUMENTED_EXAMPLES if example in text]
        standards = any(word in folded for word in ("rfc", "fips", "vector", "nist", "iso/iec"))
        for rule in RULES:
            if rule.triggered(text, folded):
                edits = rule.edits(text, folded)
                if edits and examples:
                    edits = _not_examples(text, edits, examples)
                if edits and standards:
                    edits = [edit for edit in edits if not _cites_standard(text, edit[0])]
                if edits:
                    text = _splice(text, edits, counts)
                    folded = _fold(text)
        return Scrubbed(text, dict(sorted(counts.items())))

    def check_turn(self, prompt: str, response: str) -> TurnVerdict:
        """Void the turn if its prompt says `#nomemory`; otherwise scrub prompt and response."""
        if not isinstance(prompt, str) or not isinstance(response, str):
            raise TypeError("the firewall checks a turn of two str")
        if not self.enabled:
            return TurnVerdict(prompt, response, voided=False)
        if "#nomemory" in prompt.lower() and re.search(_NOMEMORY, prompt, re.IGNORECASE):
            return TurnVerdict("", "", voided=True, counts={"nomemory": 1})
        first, second = self.scrub(prompt), self.scrub(response)
        counts = dict(first.counts)
        for kind, n in second.counts.items():
            counts[kind] = counts.get(kind, 0) + n
        return TurnVerdict(first.text, second.text, voided=False, counts=dict(sorted(counts.items())))


def _fold(text: str) -> str:
    """`text` in lower case, character for character, so positions found in one hold in the other."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


_STANDARD = lazy(r"(?:\b|(?<=\\[nrt]))(?:RFC|FIPS|NIST[ \t]+SP|SP[ \t]+800|ISO/IEC)[ \t-]?\d{2,5}\b", re.IGNORECASE)
_PUBLISHED = lazy(
    r"\bappendix\b|\btest[ \t-]?(?:vector|case)s?\b|\bknown[ \t-]answer\b|\b[A-F]\.\d{1,2}\b", re.IGNORECASE
)
"""Where a standard publishes values: its appendix, its test vectors and cases (`FIPS-197 C.1`)."""
_MAX_LINE = 400


def _cites_standard(text: str, start: int) -> bool:
    """Whether the line a value stands on cites a standard's published values (`RFC 6238 appendix
    B`, `FIPS-197 C.1: key 0001...`, "test vectors"): they open nothing. A line that only names a
    standard ("OAuth 2.0, RFC 6749, client_secret: ...") is not enough.
    """
    line_start = max(text.rfind("\n", max(0, start - _MAX_LINE), start) + 1, start - _MAX_LINE)
    line_end = text.find("\n", start, start + _MAX_LINE)
    line_end = line_end if line_end >= 0 else min(len(text), start + _MAX_LINE)
    published = _PUBLISHED.search(text, line_start, line_end)
    if published is None:
        return False
    return "vector" in published.group().lower() or _STANDARD.search(text, line_start, line_end) is not None


def _not_examples(text: str, edits: list[Edit], examples: list[str]) -> list[Edit]:
    """`edits` less those that touch a vendor's published example credential (`DOCUMENTED_EXAMPLES`)."""
    covered = bytearray(len(text))  # a mark per character, so each edit costs its own length
    for example in examples:
        for at in occurrences(text, example):
            covered[at : at + len(example)] = b"\x01" * len(example)
    return [edit for edit in edits if covered.find(1, edit[0], edit[1]) < 0]


def _splice(text: str, edits: list[Edit], counts: dict[str, int]) -> str:
    """Replace each edited span by its marker; of overlapping edits the first one wins."""
    pieces: list[str] = []
    position = 0
    for start, end, kind in sorted(edits):
        if start < position or end <= start:
            continue
        pieces.append(text[position:start])
        pieces.append(marker(kind))
        counts[kind] = counts.get(kind, 0) + 1
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _remove_private(text: str, counts: dict[str, int]) -> str:
    """Drop `<private>` spans, nested ones included; an unclosed span runs to the end."""
    kept: list[str] = []
    depth = 0
    position = 0
    spans = 0
    for tag in re.finditer(_PRIVATE_TAG, text, re.IGNORECASE):
        closing = tag.group(1) == "/"
        if depth == 0:
            if closing:
                continue  # a stray closing tag hides nothing; leave the text as written
            kept.append(text[position : tag.start()])
            spans += 1
            depth = 1
        elif closing:
            depth -= 1
            if depth == 0:
                position = tag.end()
        else:
            depth += 1
    if depth == 0:
        kept.append(text[position:])
    if spans:
        counts["private"] = counts.get("private", 0) + spans
        return "".join(kept)
    return text
