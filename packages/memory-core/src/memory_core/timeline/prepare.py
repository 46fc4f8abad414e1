"""Events as a store may keep them: normalised, through the firewall, capped.

Promises:
- An event's text and name pass `Firewall.scrub` before they leave this module, so nothing of a
  secret is stored, logged or spooled; with the firewall off (`MEMORY_FIREWALL=0`) they pass
  unchanged, as a turn's text does. Its id and call id are kept as digests (`key`): they only
  name and pair events, so a digest serves as well, holds nothing of what the harness wrote,
  and costs no firewall pass (scrubbing two random-looking ids per event was most of a long
  transcript's capture time).
- An event's text longer than `EVENT_CAP_BYTES` of UTF-8 is cut at a character boundary and
  ends with a line `[truncated: N of M bytes]` (N kept of M): a tool that printed a megabyte
  costs the store 8 KiB.
- An event is dropped, and counted, when nothing is left of it (an empty result, a passage the
  firewall removed whole), or when it is memory's own recalled block (the memories it holds are
  stored already; the recall history says what each turn was given). An event id repeated
  within one batch is kept once, the first time.
- The firewall runs before the cut, on the first `_SCRUBBED_CHARS` characters (at least twice
  the cap in bytes), so a secret straddling the cut is redacted, not half kept, and a megabyte
  of output costs the firewall no more than 16 KiB does.
- Events a store already kept (`stored=True`: `memory restore` reading an export) pass the same
  firewall and cap, so a hand-edited file smuggles nothing in, and come out as they went in: an
  id that is already a digest stays that digest (the same event stored again is stored once,
  even in the store it came from), any other id is digested, and a text cut before keeps its
  `[truncated: ...]` line instead of being cut again.

Never raises for any `TimelineEvent`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from memory_core.firewall import Firewall
from memory_core.models import TimelineEvent
from memory_core.retrieval.render import HEADER
from memory_core.textnorm import clean_text

__all__ = ["EVENT_CAP_BYTES", "Prepared", "cap_text", "key", "prepare"]

EVENT_CAP_BYTES = 8 * 1024
"""What one event's text may keep, in UTF-8 bytes. Issue #25's figure: a test log or a diff of a
few screens fits, a build's whole output does not."""

_SCRUBBED_CHARS = 2 * EVENT_CAP_BYTES
"""What the firewall reads of a long text: everything the cap can keep, and a cap's worth beyond it."""
_NAME_CHARS = 200
"""A tool name or an origin is a short word; anything longer is cut (it is not text to keep)."""
_KEY = re.compile(r"[0-9a-f]{24}")
"""What `key` returns: an id of this shape in an export is one a store already kept."""
_CUT = re.compile(r"\n\[truncated: (\d+) of (\d+) bytes\]\Z")
"""The line `cap_text` ends a cut text with."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """What `prepare` made of a batch of events.

    Attributes:
        events: The events to store, in the order given.
        counts: Firewall redactions by kind (`firewall.<kind>`), and `events.truncated` /
            `events.dropped`, for the store's counters.
    """

    events: tuple[TimelineEvent, ...]
    counts: dict[str, int] = field(default_factory=dict)


def cap_text(text: str, limit: int = EVENT_CAP_BYTES, *, total: int | None = None) -> str:
    """`text` if it fits in `limit` UTF-8 bytes, else its longest prefix that does (whole
    characters only) and a last line `[truncated: N of M bytes]`; M is `total` when given (the
    size of the whole of which `text` is the start), else `text`'s own size.
    """
    data = text.encode("utf-8")
    whole = len(data) if total is None else max(total, len(data))
    if whole <= limit:
        return text
    # errors="ignore" drops the partial character a byte cut can leave at the end.
    kept = data[:limit].decode("utf-8", errors="ignore")
    return f"{kept}\n[truncated: {len(kept.encode('utf-8'))} of {whole} bytes]"


def key(harness_id: str) -> str:
    """The stored name of an event id or a call id: a digest, the same for the same id ("" for "")."""
    if not harness_id:
        return ""
    return hashlib.sha256(harness_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _stored_key(stored_id: str) -> str:
    """An id as a store keeps it, from an export: kept when it is a digest already, else digested."""
    return stored_id if _KEY.fullmatch(stored_id) else key(stored_id)


def _uncut(text: str) -> tuple[str, int | None]:
    """A text `cap_text` cut, as (the part kept, the size of the whole); `text`, None for any other."""
    found = _CUT.search(text)
    if found is None:
        return text, None
    kept = text[: found.start()]
    size = len(kept.encode("utf-8"))
    if size != int(found[1]) or size > EVENT_CAP_BYTES or int(found[2]) <= size:
        return text, None  # not the line the cap writes: it is part of the text
    return kept, int(found[2])


def prepare(events: Iterable[TimelineEvent], firewall: Firewall, *, stored: bool = False) -> Prepared:
    """Firewall, normalise and cap `events` (see the module's promises); `stored`: events a store
    kept before (an export), whose ids are digests already and whose cut texts say so.
    """
    digest = _stored_key if stored else key
    counts: dict[str, int] = {}
    kept: list[TimelineEvent] = []
    seen: set[str] = set()

    def scrub(text: str) -> str:
        result = firewall.scrub(clean_text(text))
        for kind, n in result.counts.items():
            if n:
                counts[f"firewall.{kind}"] = counts.get(f"firewall.{kind}", 0) + n
        return result.text

    for event in events:
        event_id = digest(event.event_id)
        if not event_id or event_id in seen:
            counts["events.dropped"] = counts.get("events.dropped", 0) + 1
            continue
        whole, cut_from = _uncut(clean_text(event.text)) if stored else (clean_text(event.text), None)
        text = scrub(whole[:_SCRUBBED_CHARS])
        if not text.strip() or (event.kind == "injected" and HEADER in text):
            counts["events.dropped"] = counts.get("events.dropped", 0) + 1
            continue
        total = len(whole.encode("utf-8")) if len(whole) > _SCRUBBED_CHARS else cut_from
        capped = cap_text(text, total=total)
        if capped is not text:
            counts["events.truncated"] = counts.get("events.truncated", 0) + 1
        seen.add(event_id)
        kept.append(
            TimelineEvent(
                kind=event.kind,
                event_id=event_id,
                text=capped,
                name=scrub(event.name)[:_NAME_CHARS],
                call_id=digest(event.call_id),
                at=float(event.at) if event.at == event.at and event.at >= 0 else 0.0,
            )
        )
    return Prepared(tuple(kept), counts)
