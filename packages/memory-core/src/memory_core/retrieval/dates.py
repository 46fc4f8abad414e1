"""Calendar dates named in a prompt, so recall can favour memories from that day or month.

Promise: `query_dates` finds the usual ways of naming a day in English (`October 13`,
`Oct 13th, 2023`, `13 October 2023`, `the 3rd of May`, `May 2023`, `2023-10-13`) and nothing
else: a month name alone is not a date (`may` is mostly a verb). `date_match` says how well a
timestamp fits them. Neither raises. The patterns are compiled on the first prompt that holds
a digit, so most hook processes never compile them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

__all__ = ["QueryDate", "query_dates", "date_match"]

QueryDate = tuple[int | None, int, int | None]
"""(year or None, month, day or None)."""

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATE_FORMS = (
    rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?",
    rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b(?:,?\s+{_YEAR}\b)?",
    rf"\b{_MONTH},?\s+{_YEAR}\b",
    r"\b(?P<year>(?:19|20)\d\d)-(?P<monthnum>[01]\d)-(?P<day>[0-3]\d)\b",
)
_date_patterns: list[re.Pattern[str]] = []


def query_dates(query: str) -> list[QueryDate]:
    """The calendar dates `query` names, in the order of the forms above."""
    found: list[QueryDate] = []
    # Every form has a digit; most prompts have none, and then the patterns are never compiled.
    if not any(c.isdigit() for c in query):
        return found
    if not _date_patterns:
        _date_patterns.extend(re.compile(form, re.IGNORECASE) for form in _DATE_FORMS)
    for form in _date_patterns:
        for match in form.finditer(query):
            parts = match.groupdict()
            month = int(parts["monthnum"]) if parts.get("monthnum") else _MONTHS[parts["month"].lower()]
            day = int(parts["day"]) if parts.get("day") else None
            year = int(parts["year"]) if parts.get("year") else None
            if 1 <= month <= 12 and (day is None or 1 <= day <= 31):
                found.append((year, month, day))
    return found


def date_match(created_at: float, dates: Sequence[QueryDate]) -> str | None:
    """`day` when `created_at` (UTC) falls on a named day, `month` when only in a named month, else None."""
    when = time.gmtime(created_at)
    found: str | None = None
    for year, month, day in dates:
        if month != when.tm_mon or (year is not None and year != when.tm_year):
            continue
        if day == when.tm_mday:
            return "day"
        if day is None:
            found = "month"
    return found
