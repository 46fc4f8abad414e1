"""Secrets under names that say secret anywhere in them, in the forms config files write without `=`.

Promise: `find_named_secrets(text, folded)` returns the spans of values given to names whose
words say credential, beyond the names `firewall.assign` reads (those that END in a
credential word). It reads:
- names with the word inside (`SECRET_KEY_BASE`, `token_secret_v2`), glued to it
  (`requirepass`, `masterauth`, `identitytoken`), or a `key` qualified by a word that makes
  it a credential (`DD_APP_KEY`, `NEW_RELIC_LICENSE_KEY`, `signingKey`, `client-key-data`);
- the forms `name = value`, `name: value`, `name value` at the start of a line (redis.conf,
  a multi-line `.netrc`), `name 'value'` (Gradle's `storePassword 'x'`), and
  `"name", "value"` (PHP's `define('AUTH_KEY', '...')`, `os.environ.setdefault(...)`).

The name alone is not enough here: the value must look like a credential
(`values.looks_like_secret`; a lone `key` asks for a long random or hex run), and a
name whose last word says what the value is instead (`token_url`, `password_min_length`,
`secret_name`, `public_key`) is not read at all.

How: like `firewall.assign`, by `str.find` of a few stems in the case-folded text and
reading around each hit; nothing scans the whole text with a case-insensitive pattern.
"""

from __future__ import annotations

from memory_core.firewall.values import looks_like_secret, trim_value
from memory_core.lazyre import lazy

__all__ = ["find_named_secrets", "NAMED_TRIGGERS", "NOT_SECRET_TAIL", "NOT_SECRET_WORDS", "secret_name_kind"]

NAMED_TRIGGERS = ("pass", "pwd", "secret", "token", "key", "credential", "auth", "licen", "signing", "certificate-data")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_WORDS = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_STRONG = {
    "password": "password-assignment",
    "passwd": "password-assignment",
    "passphrase": "password-assignment",
    "passcode": "password-assignment",
    "pwd": "password-assignment",
    "pw": "password-assignment",
    "secret": "secret-assignment",
    "secrets": "secret-assignment",
    "credential": "secret-assignment",
    "credentials": "secret-assignment",
    "token": "token-assignment",
    "apikey": "api-key-assignment",
    "auth": "token-assignment",
    "pass": "password-assignment",
    "license": "secret-assignment",
    "licence": "secret-assignment",
}
_GLUED = (
    *(("password", "password-assignment"), ("passwd", "password-assignment"), ("secret", "secret-assignment")),
    *(("token", "token-assignment"), ("pass", "password-assignment"), ("auth", "token-assignment")),
)
"""Credential words glued to a prefix in one lower-case word: `requirepass`, `masterauth`, `identitytoken`."""
_NOT_GLUED = frozenset({"bypass", "compass", "surpass", "trespass", "overpass", "underpass", "encompass", "oauth"})
_KEY_QUALIFIERS = frozenset(
    {
        *("api", "app", "access", "secret", "private", "license", "licence", "signing", "encryption", "master"),
        *("client", "account", "service", "admin", "write", "read", "ingest", "deploy", "webhook", "integration"),
        *("subscription", "auth", "session", "hmac", "jwt", "cookie", "crypt", "cipher", "consumer", "storage"),
        *("shared", "rest", "browser", "mobile", "sdk", "license", "product", "activation", "serial"),
    }
)
NOT_SECRET_TAIL = frozenset(
    {
        *("id", "ids", "name", "names", "url", "uri", "urls", "endpoint", "host", "hostname", "port", "type"),
        *("path", "file", "filename", "dir", "directory", "ttl", "expiry", "expires", "expiration", "timeout"),
        *("length", "len", "size", "count", "min", "max", "limit", "enabled", "enable", "disabled", "mode"),
        *("method", "methods", "provider", "header", "prefix", "suffix", "algorithm", "alg", "version"),
        *("format", "scope", "scopes", "user", "username", "email", "region", "issuer", "audience", "hash"),
        *("fingerprint", "field", "column", "label", "env", "var", "variable", "ref", "arn", "location"),
        *("policy", "rotation", "manager", "store", "vault", "backend", "strategy", "kind", "class", "at"),
        *("required", "identifier", "server", "text", "hint", "prompt", "placeholder", "regex", "pattern"),
        *("reset", "changed", "updated"),
    }
)
NOT_SECRET_WORDS = frozenset(
    {
        *("public", "primary", "foreign", "sort", "partition", "cache", "idempotency", "dedup", "row"),
        *("lookup", "routing", "shard", "sharding", "composite", "unique", "index", "map", "dict", "hotkey"),
        *("keyboard", "keys", "keyword", "keywords", "monkey", "turkey", "hockey", "whiskey", "donkey", "jockey"),
        *("max", "min", "num", "count", "csrf", "next", "page", "pagination", "cursor", "continuation"),
    }
)
_WHOLE_NAMES = {"clientkeydata": "secret-assignment", "clientcertificatedata": "secret-assignment"}
"""kubeconfig's embedded client key and certificate."""
_MAX_LINE_PREFIX = 64
_LINE_PREFIX = lazy(r"[ \t]*(?:[+\-][ \t]*)?(?:export[ \t]+|set[ \t]+)?")
_QUOTED = lazy(r"\\\"((?:[^\"\\\n]){1,512})\\\"|\"((?:[^\"\\\n]|\\.){1,512})\"|'((?:[^'\\\n]|\\.){1,512})'")
"""A value in quotes, or in escaped quotes inside a JSON string (`\\"value\\"`)."""
_BARE = lazy(r"[^\s\"'`,;&<>()\[\]{}\\]{1,512}")
_WORD = lazy(r"[^\s\"'`\\]{1,512}")
"""A value that runs to the next blank: a config file's `name value` line."""
_ATTRIBUTE_VALUE = lazy(r"[ \t]+value[ \t]*=[ \t]*")


def secret_name_kind(name: str) -> tuple[str, bool] | None:
    """The kind of what `name` holds and whether its value must look strictly random, or None
    when the name does not say credential (or says what else the value is).
    """
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words or words[-1] in NOT_SECRET_TAIL or any(w in NOT_SECRET_WORDS for w in words):
        return None
    whole = "".join(words)
    if whole in _WHOLE_NAMES:
        return _WHOLE_NAMES[whole], False
    for word in words:
        if word in _STRONG:
            weak = word in ("auth", "pass", "license", "licence") and "key" not in words and len(words) == 1
            return _STRONG[word], weak
    last = words[-1]
    if last not in _NOT_GLUED:
        for suffix, kind in _GLUED:
            if last.endswith(suffix) and len(last) >= len(suffix) + 3:
                return kind, False
    if "key" in words[1:] or (last.endswith("key") and last != "key"):
        qualified = any(w in _KEY_QUALIFIERS or w[:-3] in _KEY_QUALIFIERS for w in words)
        return ("api-key-assignment" if "api" in words else "secret-assignment"), not qualified
    if words == ["key"]:
        return "secret-assignment", True
    return None


def _line_start(text: str, start: int) -> bool:
    """Whether only indentation, a diff mark or `export` stand before `start` on its line.

    Or the quote that opens a string holding a config file: `{"output": "requirepass x ..."}`.
    """
    if start >= 1 and text[start - 1] in "\"'" and (start == 1 or text[start - 2] in " :([=,{"):
        return True
    window = max(0, start - _MAX_LINE_PREFIX)
    real, escaped = text.rfind("\n", window, start), text.rfind("\\n", window, start)
    if real < 0 and escaped < 0 and window > 0:
        return False
    begin = max(real + 1, escaped + 2 if escaped >= 0 else 0)
    return _LINE_PREFIX.fullmatch(text, begin, start) is not None


def _value_after(text: str, end: int, name_quote: str, at_line_start: bool) -> tuple[int, str, bool] | None:
    """Where the value given to the name ending at `end` starts, the value, and whether it was quoted."""
    position = end + len(name_quote)
    limit = len(text)
    gap = position
    while gap < limit and text[gap] in " \t":
        gap += 1
    separated = False
    attribute = _ATTRIBUTE_VALUE.match(text, position) if name_quote else None
    if attribute is not None:
        gap, separated = attribute.end(), True  # .NET's `<add key="DbPassword" value="..." />`
    for operator in (":=", "=>", "=", ":", ","):
        if text.startswith(operator, gap) and not text.startswith("==", gap):
            if operator == "," and not name_quote:
                return None  # `a, key, b` is a list; only a quoted name before `,` is a pair
            gap += len(operator)
            separated = True
            break
    if not separated and (gap == position or text.startswith(("\n", "\r"), gap)):
        return None  # `name value` needs a blank between them
    while gap < limit and text[gap] in " \t":
        gap += 1
    if text.startswith("[REDACTED:", gap):
        return None
    quoted = _QUOTED.match(text, gap)
    if quoted is not None:
        group = next(g for g in (1, 2, 3) if quoted.group(g) is not None)
        return quoted.start(group), quoted.group(group), True
    if not separated and not at_line_start:
        return None  # `name value` mid-sentence is prose (the judgement reads that)
    bare = (_WORD if at_line_start else _BARE).match(text, gap)
    if bare is None:
        return None
    if text[bare.end() : bare.end() + 1] in ("(", "[") or (
        separated and ("(" in bare.group(0) or "[" in bare.group(0))
    ):
        return None  # `os.environ["X"]`, `get("x")`: code that goes on past the value
    return bare.start(), trim_value(bare.group(0)), False


def _quote_around(text: str, start: int, end: int) -> str:
    for quote in ('\\"', "\\'", '"', "'"):
        if text.startswith(quote, end) and start >= len(quote) and text.startswith(quote, start - len(quote)):
            return quote
    return ""


def find_named_secrets(text: str, folded: str) -> list[tuple[int, int, str]]:
    """Every value given to a name that says credential anywhere in it, as `(start, end, kind)`."""
    names: set[tuple[int, int]] = set()
    for stem in NAMED_TRIGGERS:
        at = folded.find(stem)
        while at >= 0:
            start, end = at, at + len(stem)
            while start > 0 and text[start - 1] in _NAME_CHARS:
                if start >= 2 and text[start - 2] == "\\":
                    break  # `\nrequirepass`: the `n` belongs to an escaped newline
                start -= 1
            while end < len(text) and text[end] in _NAME_CHARS:
                end += 1
            while end > start and text[end - 1] in ".-":
                end -= 1
            names.add((start, end))
            at = folded.find(stem, max(end, at + 1))
    edits: list[tuple[int, int, str]] = []
    for start, end in names:
        name = text[start:end].lstrip("-")
        if not name or (start > 0 and text[start - 1] in "$%{@"):
            continue  # `$TOKEN`, `%(password)s`, `{secret}`, `@token`: references, not names
        decided = secret_name_kind(name)
        if decided is None:
            continue
        kind, strict = decided
        quote = _quote_around(text, start, end)
        # A quoted name starts a line when its opening quote does (`"name" value` is not `name value`).
        found = _value_after(text, end, quote, not quote and _line_start(text, start))
        if found is None:
            continue
        value_at, value, _quoted = found
        if looks_like_secret(value, strict=strict):
            edits.append((value_at, value_at + len(value), kind))
    return sorted(edits)
