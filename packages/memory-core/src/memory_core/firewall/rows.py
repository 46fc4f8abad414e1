"""A row that gives a URL, an account and a password, with no name: credential files and clients.

Promise: `find_url_rows(text, folded)` returns, as `(start, end, "credential")`, the third field of
a row whose fields are a URL (`scheme://...`), an account and a value that could be a credential
by the judgement's value test (`judge.value_score` at least 1), the value ending its line or
followed by two blanks or an aside in brackets. That is how credential files and the clients that
write them lay one out: davfs2's `secrets` (`URL USER PASSWORD`), `mc alias set NAME URL USER
PASSWORD`, a saved-password export's row. The row's shape is the name.

Not a credential though the row has three fields: a second URL or a path or an option as the
third field, a word or an identifier (`value_score` 0: `git clone URL dir build2` keeps `build2`
unless it is password-like), a flag or a path as the second field (`curl URL -o out`).

`find_account_pairs(text, folded)` returns the value of a pair written `ACCOUNT / VALUE` where the
account is a well-known one (`root`, `admin`, `administrator`: `judge.ACCOUNTS`), maybe in Markdown's
`**` or backticks (`**admin** / X` in backticks): how people hand a login over in prose, no name needed. The
value must mix a letter with a digit or a password symbol (`letmein42`, `k9x!`): `admin / users` is a
choice of roles, `root / 0` a number, `root / offerings_path` code dividing a path.

`find_service_logins(text, folded)` returns the password a chat or database server's own command
presents or sets, unnamed: IRC services' `IDENTIFY [account] PASSWORD` (`/msg NickServ ...`, `/ns
...`) and Redis's `ACL SETUSER name ... >PASSWORD` (a `#<sha256>` rule is a hash and kept).

`find_listed_logins(text, folded)` returns the third column of a listing of saved logins, in a text
that names passwords: `HOST  ACCOUNT  PASSWORD` aligned by two blanks or more (a browser's or a
password manager's export as printed).

`find_typed_text(text, folded)` returns what a command types into the focused field of a device
or a desktop (`adb shell input text 'X'`, `xdotool type 'X'`), when it could be a credential by the
value test: a login scripted so (v8 reads `.send_keys("X")` and `.fill("X")` the same way).

Failure: none; linear (each `://` is read once, up to the end of its line, bounded to 512
characters).
"""

from __future__ import annotations

import re

from memory_core.firewall.judge import ACCOUNTS, value_score
from memory_core.firewall.mnemonic import find_mnemonics
from memory_core.firewall.values import is_placeholder
from memory_core.lazyre import lazy

__all__ = [
    "ACCOUNT_PAIR_TRIGGERS",
    "LISTED_TRIGGERS",
    "ROW_TRIGGERS",
    "SERVICE_TRIGGERS",
    "ROWS_TRIGGERS",
    "find_rows",
    "find_account_pairs",
    "find_listed_logins",
    "find_service_logins",
    "find_typed_text",
    "TYPED_TRIGGERS",
    "find_url_rows",
]

SERVICE_TRIGGERS = ("identify", "setuser")
TYPED_TRIGGERS = ("input text", "xdotool type")
LISTED_TRIGGERS = ("password",)

ACCOUNT_PAIR_TRIGGERS = (" / ",)

ROW_TRIGGERS = ("://",)
_KIND = "credential"
_MAX_ROW = 512
_ROW_BLANKS = 3
"""Blanks a row holds after its URL at most when none is doubled: before the account, before the value, one more."""
_REST = lazy(
    r"[^\s\"'`<>]*[ \t]+(?P<user>[A-Za-z_][\w.@\\\-]{0,63})[ \t]+(?P<v>[^\s\"'`<>()\[\]{}]{6,128})"
    r"(?=[ \t]*(?:\r?\n|$)|[ \t]{2,}|[ \t]+\()"
)
"""After `://`: the rest of the URL, a blank, an account, a blank, the value, then the row's end."""


def find_url_rows(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The password field of each `URL ACCOUNT PASSWORD` row of `text` (`folded` is unused)."""
    del folded
    edits: list[tuple[int, int, str]] = []
    position = text.find("://")
    while position >= 0:
        line_end = text.find("\n", position, position + _MAX_ROW)
        stop = line_end if line_end >= 0 else min(len(text), position + _MAX_ROW)
        # asked first: a row's value ends its line or stands before two blanks, a tab or an aside, so a
        # line of prose after a URL (more than three blanks, none of those) is no row; spares the pattern
        prose = (
            text.count(" ", position, stop) > _ROW_BLANKS
            and text.find("  ", position, stop) < 0
            and text.find("\t", position, stop) < 0
            and text.find(" (", position, stop) < 0
        )
        found = None if prose else _REST.match(text, position + 3, stop)
        if found is not None:
            value = found.group("v")
            if "://" not in value and not value.startswith("[REDACTED:") and value_score(value):
                edits.append((found.start("v"), found.end("v"), _KIND))
        position = text.find("://", position + 3)
    return edits


_ACCOUNT_PAIR = lazy(
    r"(?<![\w/.\-])(?:\*\*|`)?(?:" + "|".join(ACCOUNTS) + r")(?:\*\*|`)?[ \t]+/[ \t]+(?:\*\*|`)?"
    r"(?P<v>[^\s`*/\\\"'<>()\[\]{}]{4,64})",
    re.IGNORECASE,
)
_TRAILING = ",.;:"
_MARKS = "!#$%^&*?@~+="


def find_account_pairs(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The value of each `admin / VALUE` pair of `text` (`folded` is unused)."""
    del folded
    edits: list[tuple[int, int, str]] = []
    for found in _ACCOUNT_PAIR.finditer(text):
        value = found.group("v")
        value = value.rstrip(_TRAILING) or value  # `letmein42,`: a sentence's comma; `k9x!` keeps its `!`
        letters = any(c.isalpha() for c in value)
        marks = any(c.isdigit() or c in _MARKS for c in value)  # `_` and `.` join identifiers
        if not (letters and marks) or value.startswith(("[REDACTED:", "$", "%")) or is_placeholder(value):
            continue
        if value.lower() in ACCOUNTS:
            continue
        edits.append((found.start("v"), found.start("v") + len(value), _KIND))
    return edits


_IDENTIFY = lazy(
    r"(?:nickserv|/ns)[ \t]+:?identify[ \t]+(?P<a>[^\s\[\]]{1,64})(?:[ \t]+(?P<b>[^\s\[\]]{1,128}))?[ \t]*(?=\r?\n|$)",
    re.IGNORECASE,
)
_SETUSER = lazy(r"acl[ \t]+setuser[ \t]+\S+(?P<rules>[^\n]{0,400})", re.IGNORECASE)
_ACL_PASSWORD = lazy(r"(?<=[ \t])>(?P<v>[^\s]{1,128})")


def find_service_logins(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The password of each IRC `IDENTIFY` and Redis `ACL SETUSER ... >X` of `text`."""
    edits: list[tuple[int, int, str]] = []
    if "identify" in folded:
        for found in _IDENTIFY.finditer(text):
            group = "b" if found.group("b") is not None else "a"
            if not found.group(group).startswith(("[REDACTED:", "<", "$")):
                edits.append((found.start(group), found.end(group), _KIND))
    if "setuser" in folded:
        for found in _SETUSER.finditer(text):
            for rule in _ACL_PASSWORD.finditer(text, found.start("rules"), found.end("rules")):
                if not rule.group("v").startswith(("[REDACTED:", "$")):
                    edits.append((rule.start("v"), rule.end("v"), _KIND))
    return edits


_LISTED = lazy(
    r"[ \t]*(?:https?://)?[a-z0-9\-]+(?:\.[a-z0-9\-]+)+(?::\d{1,5})?/?[ \t]{2,}[^\s]{1,64}[ \t]{2,}"
    r"(?P<v>[^\s]{6,128})(?=[ \t]{2,}|[ \t]*(?:\r?\n|$))"
)
"""A saved login's row: a host, an account and a password in columns two blanks or more apart."""
_LISTED_ROWS = 20
_LEAD = 2
_LISTED_LEAD = _LEAD
"""Lines that may stand between the line naming passwords and the first row (a column header)."""


def find_listed_logins(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The password column of each `HOST  ACCOUNT  PASSWORD` row of a saved-login listing: the rows
    below a line that names passwords, up to twenty of them (each line read once).
    """
    edits: list[tuple[int, int, str]] = []
    read_to = 0
    at = folded.find("password")
    while at >= 0:
        position = max(text.find("\n", at) + 1, read_to)
        rows = 0
        for line in range(_LISTED_ROWS):
            if position <= 0 or position >= len(text):
                break
            stop = text.find("\n", position)
            stop = stop if stop >= 0 else len(text)
            found = _LISTED.match(text, position, stop) if text.find("  ", position, stop) >= 0 else None
            if found is None and (rows or line >= _LISTED_LEAD):
                break  # the listing's rows follow its heading, one after another
            if found is not None:
                rows += 1
                if not found.group("v").startswith("[REDACTED:") and value_score(found.group("v")):
                    edits.append((found.start("v"), found.end("v"), _KIND))
            position = stop + 1
        read_to = max(read_to, position)
        at = folded.find("password", max(at + 8, read_to))
    return edits


_TYPED = lazy(
    r"(?:\binput[ \t]+text|\bxdotool[ \t]+type(?:[ \t]+--[\w\-]+(?:[ \t]+\d+)?)*)[ \t]+"
    r"(?:'(?P<q>[^'\n]{1,256})'|\"(?P<d>[^\"\n]{1,256})\"|(?P<b>[^\s'\"&|;]{1,256}))"
)


def find_typed_text(text: str, folded: str) -> list[tuple[int, int, str]]:
    """What `adb shell input text` or `xdotool type` types, when it could be a credential."""
    del folded
    edits: list[tuple[int, int, str]] = []
    for found in _TYPED.finditer(text):
        group = next(g for g in ("q", "d", "b") if found.group(g) is not None)
        value = found.group(group)
        if not value.startswith(("[REDACTED:", "$")) and value_score(value):
            edits.append((found.start(group), found.end(group), _KIND))
    return edits


ROWS_TRIGGERS = ("",)
"""Every text: `find_rows` asks each reader's own triggers (`://`, ` / `, `identify`, `setuser`, `password`,
`input text`, `xdotool type`, and the recovery phrase's `seed`, `words`, `mnemonic`) once; a trigger scan
before it asked them all a second time (0.008 ms of the typical 2 KB turn, rules v12's cost study)."""


def find_rows(text: str, folded: str) -> list[tuple[int, int, str]]:
    """What every reader of this module finds, each asked only where its own trigger stands."""
    edits: list[tuple[int, int, str]] = []
    if "://" in text:
        edits.extend(find_url_rows(text, folded))
    if " / " in text:
        edits.extend(find_account_pairs(text, folded))
    if "identify" in folded or "setuser" in folded:
        edits.extend(find_service_logins(text, folded))
    if "password" in folded:
        edits.extend(find_listed_logins(text, folded))
    if "input text" in text or "xdotool type" in text:
        edits.extend(find_typed_text(text, folded))
    if "seed" in folded or "words" in folded or "mnemonic" in folded:
        edits.extend(find_mnemonics(text, folded))  # a wallet's recovery phrase (firewall/mnemonic.py)
    return sorted(edits)
