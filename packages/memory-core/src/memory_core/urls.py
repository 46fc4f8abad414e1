"""URL userinfo, read the way a leaked URL is written, and the one way memory shows a URL.

Promises:
- `find_userinfo(text, start)` reads the userinfo of the URL whose authority starts at
  `start` (just after its `://`): where the user ends, where the password starts and the
  `@` that ends them. The password runs to the LAST `@` before the host, as RFC 3986 reads
  an authority, and, more lenient than the RFC, it may hold the characters people put in
  passwords without encoding them: `@`, `:`, `#`, `/`, `?`, `%`. The secret firewall's URL
  rule and `redact_url` both use it, so what one hides the other hides too.
- `redact_urls_in(text)` applies `redact_url` to every URL written in a longer text (a log
  line, an error message).
- `redact_url(url)` is the URL as memory shows it anywhere (doctor, status, MCP, logs, store
  errors): the whole userinfo (user, password, or a lone token as in `redis://TOKEN@host`)
  becomes `***`, and so does the value of every query parameter whose name says credential
  (`password`, `sslpassword`, `token`, `secret`, `key`, `auth`, `sig`, ...). A libpq keyword
  string (`host=db password=x`) has those values masked the same way. Scheme, host, port,
  path and other parameters stay, so the user can still tell which store is meant.

Neither raises for any `str`; both are pure functions.

Why lenient: the parser must not let a password escape because it holds a `#` or a `/`.
When that makes a URL ambiguous (`u:p@ss/w#rd@host`), the reading that hides more wins;
the only `@`s not taken as the end of a userinfo are those the URL explains otherwise: in
a query parameter (`?next=a@b.com`), after a port (`host:8080/x@y`), or starting a path
segment (`/@scope/pkg`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_core.lazyre import lazy

__all__ = ["Userinfo", "find_userinfo", "redact_url", "redact_urls_in", "is_credential_name"]

MAX_URL = 512
"""How far past `://` a userinfo may end: bounded, so hostile text costs linear time."""
_MAX_CANDIDATES = 16
"""`@`s tried from the last one backwards before giving up on an extended reading."""
URL_END = lazy(r"[\s\"'<>`\\]")
"""Where a URL written in text ends: a blank, a quote, an angle bracket, a backslash escape."""
_HOST = lazy(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9._~\-]*")
"""What may follow the userinfo's `@`: a bracketed IPv6 address or a host name."""
_PORT_THEN_PATH = lazy(r"\d{1,5}/")
"""`host:8080/path`: the part after the colon is a port, not a password."""
_QUERY_PARAMETER = lazy(r"[?&][A-Za-z0-9_.\-]+=")
_USER = lazy(r"[^:/?#\[\]\s]*")
"""The user: anything up to the colon, the path or a bracketed host."""
_AUTHORITY_STOP = lazy(r"[/?#]")
_CREDENTIAL_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "sig", "session", "cookie")
_KEYWORD_PAIR = lazy(r"(?P<k>[A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(?P<v>'(?:[^'\\]|\\.)*'|[^\s']*)")
MASK = "***"


@dataclass(frozen=True, slots=True)
class Userinfo:
    """Where a URL's userinfo sits in the text it was read from.

    Attributes:
        start: The first character after `://`.
        at: The position of the `@` that ends the userinfo (the host starts at `at + 1`).
        colon: The position of the `:` between user and password, or -1 (a lone user or token).
    """

    start: int
    at: int
    colon: int

    @property
    def password(self) -> tuple[int, int] | None:
        """The password's span, or None when the userinfo has no `:`."""
        return None if self.colon < 0 else (self.colon + 1, self.at)

    @property
    def user(self) -> tuple[int, int]:
        """The user's span (the whole userinfo when it has no `:`: maybe a token)."""
        return self.start, self.at if self.colon < 0 else self.colon


def _url_end(text: str, start: int) -> int:
    limit = min(len(text), start + MAX_URL)
    found = URL_END.search(text, start, limit)
    return found.start() if found else limit


def _ends_userinfo(text: str, at: int, colon: int) -> bool:
    """Whether the `@` at `at` can end a password that starts after `colon`."""
    if text[at - 1] == "/" or _HOST.match(text, at + 1) is None:
        return False
    password = text[colon + 1 : at]
    return _PORT_THEN_PATH.match(password) is None and _QUERY_PARAMETER.search(password) is None


def find_userinfo(text: str, start: int, end: int | None = None) -> Userinfo | None:
    """The userinfo of the URL whose authority starts at `text[start]`, or None if it has none.

    `end` is where the URL ends; by default, at the first blank, quote or backslash (a URL
    written in prose or a config file), and at most 512 characters on.
    """
    end = _url_end(text, start) if end is None else end
    user = _USER.match(text, start, end)
    colon = user.end() if user and text.startswith(":", user.end()) and user.end() < end else -1
    if colon >= 0 and "@" not in text[start:colon]:
        # user:password@host - the last `@` that can end the password does.
        at = text.rfind("@", colon + 1, end)
        tried = 0
        while at > colon and tried < _MAX_CANDIDATES:
            if _ends_userinfo(text, at, colon):
                return Userinfo(start, at, colon)
            at = text.rfind("@", colon + 1, at)
            tried += 1
    # No password: the strict authority (up to `/`, `?` or `#`) may still hold a user or token,
    # or a user that is an e-mail address (`me@corp.com:pw@host`).
    stop = _AUTHORITY_STOP.search(text, start, end)
    authority_end = stop.start() if stop else end
    at = text.rfind("@", start, authority_end)
    if at <= start or _HOST.match(text, at + 1) is None:
        return None
    return Userinfo(start, at, text.find(":", start, at))


def is_credential_name(name: str) -> bool:
    """Whether a parameter name says its value is a credential (`sslpassword`, `access_token`, `sig`)."""
    folded = re.sub(r"[^a-z]", "", name.lower())
    return any(word in folded for word in _CREDENTIAL_WORDS)


def _mask_query(query: str) -> str:
    """`a=1&password=x` -> `a=1&password=***` (the separators and other values as written)."""
    pieces = re.split(r"([&;])", query)
    for i in range(0, len(pieces), 2):
        name, eq, _value = pieces[i].partition("=")
        if eq and is_credential_name(name):
            pieces[i] = f"{name}={MASK}"
    return "".join(pieces)


def _mask_keywords(conninfo: str) -> str:
    """Mask the credential values of a libpq keyword string (`host=db password=x`)."""

    def mask(found: re.Match[str]) -> str:
        return f"{found.group('k')}={MASK}" if is_credential_name(found.group("k")) else found.group(0)

    return _KEYWORD_PAIR.sub(mask, conninfo)


def redact_url(url: str) -> str:
    """`url` safe to print: no user, password, token or credential parameter (see the module doc)."""
    scheme_end = url.find("://")
    if scheme_end < 0:
        return _mask_keywords(url) if "=" in url else url
    start = scheme_end + 3
    head = url[:start]
    userinfo = find_userinfo(url, start, len(url))
    rest = url[userinfo.at + 1 :] if userinfo else url[start:]
    if userinfo:
        head += f"{MASK}@"
    question = rest.find("?")
    if question < 0:
        return head + rest
    fragment = rest.find("#", question)
    query = rest[question + 1 : fragment if fragment >= 0 else len(rest)]
    tail = rest[fragment:] if fragment >= 0 else ""
    return f"{head}{rest[: question + 1]}{_mask_query(query)}{tail}"


_SCHEME_BEFORE = lazy(r"[A-Za-z][A-Za-z0-9+.\-]{0,31}$")


def redact_urls_in(text: str) -> str:
    """`text` with each `scheme://...` in it shown as `redact_url` shows it."""
    if "://" not in text:
        return text
    pieces: list[str] = []
    position = 0
    at = text.find("://")
    while at >= 0:
        scheme = _SCHEME_BEFORE.search(text, max(position, at - 32), at)
        end = _url_end(text, at + 3)
        if scheme is not None:
            pieces.append(text[position : scheme.start()])
            pieces.append(redact_url(text[scheme.start() : end]))
            position = end
        at = text.find("://", max(end, at + 3))
    pieces.append(text[position:])
    return "".join(pieces)
