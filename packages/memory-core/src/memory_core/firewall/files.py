"""Credential files whose format says where the password is, without naming it: `.pgpass`, PgBouncer's `userlist.txt`.

Promise: `find_pgpass_passwords(text, folded)` returns the password field of each line in
PostgreSQL's password file format, `hostname:port:database:username:password` (the port a
number or `*`), as `credential`; the other four fields stay. A line is read where
it starts (after a real or an escaped newline, maybe indented or after a diff's `+`), so
`/etc/passwd` lines (seven fields, the second `x`), times (`12:30:45`) and IPv6 addresses are
not read. `find_userlist_passwords` returns the second field of each `"user" "password"` line
of PgBouncer's auth file where the text names it (`userlist.txt`, `auth_file`); an `md5` or
`SCRAM-SHA-256$` hash there is one-way and kept. The other credential files (`.netrc`,
`.npmrc`, `.pypirc`, `.env`, kubeconfig, Docker's `config.json`) name their secrets, and the
judgement (`judge`) reads them.
"""

from __future__ import annotations

import re

from memory_core.firewall.values import is_placeholder
from memory_core.lazyre import lazy

__all__ = ["USERLIST_TRIGGERS", "find_pgpass_passwords", "find_userlist_passwords"]

_PORT = lazy(r":(?:\d{1,5}|\*):")
_LINE = lazy(
    r"(?P<host>[A-Za-z0-9*_][A-Za-z0-9.*_\-]{0,253}):(?:\d{1,5}|\*):"
    r"(?P<db>[^:\s\\]{1,128}):(?P<user>[^:\s\\]{1,128}):(?P<s>(?:[^\s\\\"']|\\[:\\]){1,256})(?=[\"' \t]|\r?\n|\\n|$)"
)
_MAC = lazy(r"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}(?![0-9A-Fa-f:])")
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.*_-")
_MAX_HOST = 253
_LINE_PREFIX = lazy(r"(?:^|(?<=\n)|(?<=\\n)|(?<=[\"']))[ \t]*(?:[+\-][ \t]*)?(?:echo[ \t]+[\"']?)?$")
"""What may stand before a `.pgpass` line: a line start (real or escaped), a diff mark,
`echo '...' >>`, or the quote of a JSON string."""


def find_pgpass_passwords(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The password of every `.pgpass` line, as `(start, end, "credential")`."""
    edits: list[tuple[int, int, str]] = []
    for port in _PORT.finditer(text):
        host = port.start()
        while host > 0 and port.start() - host < _MAX_HOST and text[host - 1] in _HOST_CHARS:
            if host >= 2 and text[host - 2] == "\\":
                break  # `\nlocalhost:...`: the `n` belongs to an escaped newline
            host -= 1
        window = max(0, host - 64)
        if host == port.start() or (host > 0 and text[host - 1] not in "\n \t\"'+-n"):
            continue  # a host field starts a line (or a quoted string); anything else is not `.pgpass`
        if _LINE_PREFIX.search(text[window:host]) is None:
            continue
        found = _LINE.match(text, host)
        if found is None or found.end("host") != port.start():
            continue
        if found.group("host").isdigit() or _MAC.match(text, host):
            continue  # `123:2:3:4:...` (an IPv6 address) and `52:54:00:9d:0e:67` (a MAC address)
        value = found.group("s")
        if value.startswith("[REDACTED:") or is_placeholder(value) or not value.strip("*"):
            continue
        edits.append((found.start("s"), found.end("s"), "credential"))
    return edits


USERLIST_TRIGGERS = ("userlist", "auth_file")
"""PgBouncer's auth file is named where its lines are shown (`cat /etc/pgbouncer/userlist.txt`)."""
_USERLIST_LINE = lazy(r"^[ \t]*\"[^\"\n]{1,128}\"[ \t]+\"(?P<s>[^\"\n]{1,256})\"[ \t]*$", re.MULTILINE)
_HASHED = lazy(r"md5[0-9a-f]{32}|SCRAM-SHA-256\$.*")


def find_userlist_passwords(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The password of every `"user" "password"` line of PgBouncer's auth file, as `credential`."""
    from memory_core.firewall.judge import value_score

    edits: list[tuple[int, int, str]] = []
    for found in _USERLIST_LINE.finditer(text):
        value = found.group("s")
        if value.startswith("[REDACTED:") or _HASHED.fullmatch(value) or not value_score(value):
            continue
        edits.append((found.start("s"), found.end("s"), "credential"))
    return edits
