"""How a record's text becomes the passages the embedding model reads.

A long turn holds many things; one vector for all of it matches none of them well. So a record is
cut into passages of about `PASSAGE_CHARS` characters on line and sentence boundaries, and the
record's closeness to a prompt is that of its closest passage (`Store.nearest`).

At most `MAX_PASSAGES` per record, taken from the start: a turn opens with the user's prompt and
the answer's first lines, which say what the turn is about; the tail of a long answer is mostly
code or logs that BM25 already finds by their words. The bound also bounds the background work a
record costs (each passage ~245 ms on one core of the development machine, so a capped record is
~2 s of background time, and a steady turn rate keeps the queue short).

Pure functions of the text: the same passages on every machine. Never raises.
"""

from __future__ import annotations

import re

__all__ = ["passages", "PASSAGE_CHARS", "MAX_PASSAGES"]

PASSAGE_CHARS = 600
"""About 150-200 tokens of e5's tokenizer (600 characters of English prose counted 204 tokens with
the `passage: ` prefix), well inside its 512-token window; the issue's experiment found ~600-character
passages beat whole records for the question-answering figure (0.895 against 0.886)."""
MAX_PASSAGES = 8
"""First 8 passages (~4,800 characters): more than the whole of most turns of the development
sessions, and at most ~2 s of one core per record in the background."""

_LABEL = re.compile(r"^(?:User|Assistant): ", re.MULTILINE)
"""The role labels every stored turn carries (`service.turn_text`): they say nothing about the
turn, and a prompt that says "user" must not match every turn."""
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


def passages(text: str) -> list[str]:
    """The passages of `text` to embed, in order: at most `MAX_PASSAGES`, each at most
    `PASSAGE_CHARS` characters, none empty. An empty text has none.
    """
    pieces: list[str] = []
    for line in _LABEL.sub("", text).split("\n"):
        line = line.strip()
        if not line:
            continue
        if len(line) <= PASSAGE_CHARS:
            pieces.append(line)
            continue
        for sentence in _SENTENCE_END.split(line):
            pieces.extend(_cut(sentence.strip()))
    out: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + 1 + len(piece) > PASSAGE_CHARS:
            out.append(current)
            if len(out) == MAX_PASSAGES:
                return out
            current = piece
        else:
            current = f"{current}\n{piece}" if current else piece
    if current:
        out.append(current)
    return out[:MAX_PASSAGES]


def _cut(sentence: str) -> list[str]:
    """A sentence longer than a passage, cut at the last space before each limit (or at the limit)."""
    parts: list[str] = []
    while len(sentence) > PASSAGE_CHARS:
        cut = sentence.rfind(" ", PASSAGE_CHARS // 2, PASSAGE_CHARS + 1)
        if cut <= 0:
            cut = PASSAGE_CHARS
        parts.append(sentence[:cut].rstrip())
        sentence = sentence[cut:].lstrip()
    if sentence:
        parts.append(sentence)
    return parts
