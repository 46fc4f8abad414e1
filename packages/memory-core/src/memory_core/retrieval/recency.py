"""Newest first when the same thing was said twice: a later statement of a subject outranks an earlier one.

Promise: `prefer_newer(candidates, matched, weights)` returns the candidates' scores with every
later record that restates an earlier candidate's subject lifted just above it (above its score
before any lift); a later one that says it replaces something ("moved to", "instead of",
"switched from ... to", "no longer", "now uses"; the same in Italian and Russian) needs to share
less of the subject. No model: two records share a subject when the later one matches most of
the query words the earlier one matches (weighted by idf), and it is close enough in score to be
a rival, not a passing mention. Pure arithmetic over
what the retriever already has; never raises.

Why: a memory store keeps every version of a decision. "The app listens on 8000" and, a week
later, "moved the app to 9000" both match "which port does the app use?", and without this the
older, often longer, statement wins on words. The dates stay in the block, so the model still
sees which is which.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["prefer_newer", "says_replacement", "asks_current"]

_RESTATE_OVERLAP = 0.8
"""A later record restates an earlier one's subject when it matches this share (idf-weighted) of
the query words the earlier one matches..."""
_REPLACE_OVERLAP = 0.25
"""...or this share when it says it replaces something: an update names what changed ("moved the
API to 7100"), not everything the first statement said ("set up the harbor API on port 7000")."""
_RESTATE_SHARE = 0.5
_REPLACE_SHARE = 0.25
"""...and scores at least this share of the earlier one (the second figure when it says it replaces
something): a passing mention is not a restatement."""
_LIFT = 1.01
"""A restatement is lifted to just above what it restates (not far above: it is not better, it is newer)."""

_REPLACEMENT = re.compile(
    r"\b(?:"
    # English: moved / switched / changed / migrated ... to, from X to Y, instead of, no longer.
    r"(?:mov|switch|chang|migrat|bump|upgrad|downgrad|rais|lower|updat|port|renam)(?:e|es|ed|ing)?\b(?:[^.;\n]|\.(?=\S)){0,40}?\bto\b|"
    r"from \S+(?: \S+)? to \S|instead of|rather than|no longer|any ?more|now uses?|we now|"
    r"replac(?:e|es|ed|ing)\b|in favou?r of|dropp(?:ed|ing)|deprecat(?:ed|ing)|supersed(?:ed|es)|"
    # Italian: invece di, non ... più, passati a, sostituito, spostato, cambiato da X a Y, ora usa.
    r"invece d[ie]|non (?:\w+ )?(?:più|piu)|passat[oaie] a|sostituit[oaie]|spostat[oaie]|cambiat[oaie]|"
    r"da \S+ a \S|ora us|adesso us|"
    # Russian: вместо, больше не, теперь, перешли на, заменили, перенесли.
    r"вместо|больше не|теперь|перешл[иа]? на|перешёл на|заменил[иа]?|перенесл[иа]?|перенёс"
    r")",
    re.IGNORECASE,
)
_CUE_SCAN_CHARS = 20_000
_ASKS_CURRENT = re.compile(
    r"\b(?:now|currently|current|still|latest|these days|anymore|any more|adesso|ora|attuale|ancora|"
    r"теперь|сейчас|текущ\w*|всё ещё|все еще)\b",
    re.IGNORECASE,
)
"""A query that asks for the current state ("which port does it use now?", "still on chi?"): then any
rival that restates the subject is lifted, with or without a replacement cue."""


def asks_current(query: str) -> bool:
    """Whether a query asks how things are now ("now", "still", "currently"; "adesso"; "теперь")."""
    return _ASKS_CURRENT.search(query) is not None


def says_replacement(text: str) -> bool:
    """Whether a text says something replaced something else ("switched from X to Y", "no longer")."""
    return _REPLACEMENT.search(text[:_CUE_SCAN_CHARS]) is not None


def _share(earlier: Sequence[str], later: frozenset[str], weights: Mapping[str, float]) -> float:
    total = sum(weights.get(t, 0.0) for t in earlier)
    if total <= 0.0:
        return 0.0
    return sum(weights.get(t, 0.0) for t in earlier if t in later) / total


def prefer_newer(
    candidates: Sequence[tuple[str, float, float, str]],
    matched: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    *,
    current: bool = False,
) -> dict[str, float]:
    """Scores after lifting restatements: `candidates` are (id, score, created_at, text).

    `current`: the query asks how things are now, so a restatement needs no replacement cue.
    """
    scores = {rid: score for rid, score, _, _ in candidates}
    # Every comparison and every lift is against the scores before any lift: a lift that counted
    # an earlier lift would compound down a session (each turn a little above the one before,
    # itself lifted) and carry mid-session turns above the answer (coding set: answered 0.797 ->
    # 0.823, stale wins unchanged).
    base = dict(scores)
    # In a chain (8000 -> 8080 -> 9000) both later versions rise above the first; where they land on
    # the same score, the retriever's tie order puts the newer first.
    ordered = sorted(candidates, key=lambda c: (c[2], c[0]))
    own = {rid: frozenset(matched.get(rid, ())) for rid, *_ in candidates}
    cues: dict[str, bool] = {}
    for index, (earlier, _, _, _) in enumerate(ordered):
        subject = matched.get(earlier, ())
        if not subject:
            continue
        for later, _, later_at, text in ordered[index + 1 :]:
            if later_at <= ordered[index][2] or not own[later]:
                continue
            if base[later] < _REPLACE_SHARE * base[earlier]:
                continue
            share = _share(subject, own[later], weights)
            if share < _REPLACE_OVERLAP:
                continue
            if later not in cues:
                cues[later] = current or says_replacement(text)
            if not cues[later] and (share < _RESTATE_OVERLAP or base[later] < _RESTATE_SHARE * base[earlier]):
                continue
            scores[later] = max(scores[later], base[earlier] * _LIFT)
    return scores
