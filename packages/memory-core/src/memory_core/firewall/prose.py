"""Passwords stated in a sentence: "the password is hunter2-Xy", "pw: Tr0ub4dor&3", "passphrase 'x y z'".

Promise: `find_stated_passwords(text, folded)` returns the span of each credential a sentence
states, with kind `stated-password`: a credential word (`password`, `passwd`, `pw`, `pwd`,
`passphrase`, `passcode`, `secret`, `token`, `api key`), maybe what it is for (`the password
for the staging db`), a link (`is`, `was`, `:`, `=`, `to`, `->`, `as`, `now`, ...), then the
value, quoted or not. Without a link the value must follow the word directly and mix
letters, digits and case or symbols (`use password Xy7-hunter`). Stated as a password after a
link, a word glued to digits counts (`hunter2`); `creds: admin / S3cret` gives the second half.

Kept: prose that talks about a credential without stating one ("rotate the password
tomorrow", "the token expired", "the password is stored in vault", "password is required"),
because the value must look like a credential (`values.looks_like_secret`); a
quoted phrase after a link counts (`the passphrase is "correct horse battery staple"`) unless it
is one ordinary word. A plain dictionary word ("the password is sunshine") is not caught:
see docs/firewall.md, Limits.
"""

from __future__ import annotations

import re

from memory_core.firewall.assign import is_placeholder
from memory_core.firewall.values import is_ordinary, looks_like_secret, trim_value
from memory_core.lazyre import lazy

__all__ = ["find_stated_passwords", "PROSE_TRIGGERS"]

KIND = "stated-password"
PROSE_TRIGGERS = ("pass", "pw", "secret", "token", "key", "cred")
_WORD = lazy(
    r"(?<![a-z0-9_\-./$%{@])"
    r"(?P<w>passwords?|passwd|passphrase|passcode|pw|pwd|secret|token|api[ _\-]?key|creds|credentials)"
    r"(?:'s)?(?![a-z0-9_\-])"
)
"""Run over the lower-cased text: a case-insensitive scan of a whole turn costs milliseconds."""
_FOR = lazy(
    r"[ \t]+(?:for|of|on|to)[ \t]+(?:the[ \t]+|my[ \t]+|our[ \t]+)?(?:[\w.@:/\-]{1,40}[ \t]+){0,2}"
    r"[\w.@:/\-]{1,40}(?=[ \t]*(?:is|was|:|=))",
    re.IGNORECASE,
)
_LINK = lazy(
    r"[ \t]*(?:(?:is|was|=|:=?|->|=>|became|reads|remains)(?:[ \t]+(?:now|still|just|actually|set[ \t]+to))?"
    r"|(?:(?:is|was|been|got)[ \t]+)?(?:set|changed|reset|updated)[ \t]+to|to|as)(?:[ \t]*:)?[ \t]*",
    re.IGNORECASE,
)
_QUOTED = lazy(
    r"\"([^\"\n]{1,256})\"|'([^'\n]{1,256})'|`([^`\n]{1,256})`|“([^”\n]{1,256})”"
    r"|\\\"([^\"\\\n]{1,256})\\\""  # escaped quotes inside a JSON string
)
_BARE = lazy(r"[^\s\"'`“”()\[\]{}<>\\]{1,256}")
_STRONG_WORDS = ("password", "passwd", "passphrase", "passcode", "pw", "pwd", "creds", "credentials")
_MIN_STATED = 6
_TECH_PHRASE = lazy(r"[a-z]+\d+(?:-[a-z]+)+")
_SECOND_HALF = lazy(r"[ \t]*/[ \t]*([^\s\"'`]{1,256})")
"""`creds: admin / S3cret`: the password is the second half."""


def _mixed(value: str) -> bool:
    """Letters with digits, and upper case or symbols too: `Xy7-hunter`, not `reset-2fa`."""
    return (
        any(c.isalpha() for c in value)
        and any(c.isdigit() for c in value)
        and (any(c.isupper() for c in value) or any(not c.isalnum() and c not in "-_." for c in value))
    )


def _judge(word: str, value: str, *, quoted: bool, linked: bool) -> bool:
    if not value or value.startswith("[REDACTED:") or is_placeholder(value):
        return False
    if quoted and linked and " " in value.strip():
        # A quoted phrase stated as a passphrase: kept only if it reads as a sentence about one.
        return word.lower() in _STRONG_WORDS and len(value.split()) <= 6 and not value.endswith((".", "?"))
    if _TECH_PHRASE.fullmatch(value):
        return False  # "the password is sha256-hashed", "utf8-encoded": a description
    if not linked:
        return _mixed(value) and looks_like_secret(value)
    if word.lower() not in _STRONG_WORDS:
        return looks_like_secret(value) and not is_ordinary(value)
    # Stated as a password, a word with digits is one (`hunter2`), not an identifier.
    has_digit_and_letter = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return looks_like_secret(value) or (len(value) >= _MIN_STATED and has_digit_and_letter)


def find_stated_passwords(text: str, folded: str) -> list[tuple[int, int, str]]:
    """Every credential a sentence states, as `(start, end, "stated-password")`."""
    edits: list[tuple[int, int, str]] = []
    for found in _WORD.finditer(folded):
        position = found.end()
        qualifier = _FOR.match(text, position)
        if qualifier is not None:
            position = qualifier.end()
        link = _LINK.match(text, position)
        linked = link is not None and link.end() > position and bool(link.group(0).strip())
        if linked and link is not None:
            position = link.end()
        elif text.startswith((" ", "\t"), position):
            position += 1
        else:
            continue
        quoted = _QUOTED.match(text, position)
        if quoted is not None:
            group = next(g for g in (1, 2, 3, 4, 5) if quoted.group(g) is not None)
            start, value = quoted.start(group), quoted.group(group)
            phrase_in_code = group == 3 and " " in value  # Markdown backticks quote code, not a phrase
            if not phrase_in_code and _judge(found.group("w"), value, quoted=True, linked=linked):
                edits.append((start, start + len(value), KIND))
            continue
        bare = _BARE.match(text, position)
        if bare is None:
            continue
        if text[bare.end() : bare.end() + 1] in ("(", "["):
            continue  # `password = os.environ["X"]`: code that goes on past the value
        value = trim_value(bare.group(0))
        second = _SECOND_HALF.match(text, bare.end()) if found.group("w") in ("creds", "credentials") else None
        if second is not None:
            value_at, value = second.start(1), trim_value(second.group(1))
            if _judge(found.group("w"), value, quoted=False, linked=linked):
                edits.append((value_at, value_at + len(value), KIND))
            continue
        if _judge(found.group("w"), value, quoted=False, linked=linked):
            edits.append((bare.start(), bare.start() + len(value), KIND))
    return edits
