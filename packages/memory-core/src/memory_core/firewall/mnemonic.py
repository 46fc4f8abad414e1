"""A wallet's recovery phrase: twelve to twenty-four plain words, which are the wallet's key.

Promise: `find_mnemonics(text, folded)` returns, with kind `credential`, each run of exactly 12,
15, 18, 21 or 24 lower-case words of three to eight letters (the lengths and the word shape of a
BIP-39 mnemonic, whose list has no word shorter than three letters or longer than eight),
separated by single blanks or by line breaks (a wallet shows the phrase in rows of three words or more), and not
continued by another word on either side, in a text that says seed, mnemonic or words (`rows.find_rows`
asks). No word list: the shape and the count are the evidence, and prose fails them
(its runs hold `a`, `of`, `to`, and more than one of the function words of `_FUNCTION_WORDS`).

Failure: none at run time; one pass of one pattern over the text, linear in its length.
"""

from __future__ import annotations

from memory_core.lazyre import lazy

__all__ = ["find_mnemonics"]
_RUN = lazy(r"(?<![\w'\u2019\-.])[a-z]{3,8}(?:(?:[ ]|[ \t]*\r?\n[ \t]*)[a-z]{3,8}){11,23}")
_WORDS_A_LINE = 3
"""A wallet shows a phrase in rows of three words or more (two rows of six, four of three...)."""
_COUNTS = frozenset({12, 15, 18, 21, 24})
_FUNCTION_WORDS = frozenset(
    {"the", "and", "for", "are", "but", "not", "you", "with", "from", "was", "were", "which", "its", "has", "his"}
    | {"her", "our", "their", "than", "into", "these", "those", "been", "would", "should", "could", "your", "she"}
    | {"this", "they", "them", "will", "that", "then", "there", "have", "what", "when", "might", "because", "some"}
)
"""English words prose holds in any dozen and a recovery phrase at most once by chance."""


def find_mnemonics(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The recovery phrases in `text` (see the module's promise)."""
    edits: list[tuple[int, int, str]] = []
    for run in _RUN.finditer(text):
        start, end = run.span()
        after = text[end : end + 2]
        if after[:1].isalnum() or after[:1] in "'\u2019-" or (after[:1] == " " and after[1:2].isalpha()):
            continue  # the words go on: a sentence, not a phrase of a counted length
        if text[start - 1 : start] == " " and text[start - 2 : start - 1].isalpha():
            continue  # the words began earlier (`in the ...`): a sentence
        lines = run.group().splitlines()
        if any(len(line.split()) < _WORDS_A_LINE for line in lines):
            continue  # one word a line is a list (a language's keywords), not a phrase shown in rows
        words = run.group().split()
        if len(words) not in _COUNTS or sum(w in _FUNCTION_WORDS for w in words) > 1:
            continue
        if len(set(words)) * 4 < len(words) * 3:
            continue  # a phrase rarely repeats a word; a pattern or a filler does
        edits.append((start, end, "credential"))
    return edits
