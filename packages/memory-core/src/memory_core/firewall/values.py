"""Does a value look like a credential? The judgement the firewall makes when only the value can tell.

Promise: `looks_like_secret(value)` is True for what passwords, keys and tokens look like
(random runs, long hex or base64, words glued to digits and symbols: `hunter2-Xy`,
`Tr0ub4dor&3`) and False for what code, configs and prose put in the same places:
ordinary words and identifiers (`sunshine`, `my_service_name`, `google-oauth2`), numbers,
versions, paths, URLs, ARNs, references (`settings.SECRET_KEY`, `$TOKEN`), and
placeholders (`is_placeholder`). `strict=True` asks more of the value, for names that say
secret only weakly (a bare `key`, a word glued to `pass`): a long random or hex run.

It is used by the judgement (`judge.value_score`) and by the password-flag rule. It also holds
what every rule asks of a value: `is_placeholder`, `looks_like_code`, `password_hash` (a password
hash in modular crypt format, which every rule keeps), and `line_prefix` (what precedes a position
on its line, a real or an escaped one).

Pure functions of their arguments; never raise for any `str`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory_core.lazyre import lazy

__all__ = [
    "DOCUMENTED_EXAMPLES",
    "looks_like_secret",
    "is_ordinary",
    "trim_value",
    "is_placeholder",
    "is_reference",
    "token_around",
    "looks_like_code",
    "line_prefix",
    "under_encrypted_heading",
    "plain_cookies",
    "password_hash",
    "occurrences",
]

_TRAILING = ")]},.:;!?"

DOCUMENTED_EXAMPLES = (
    # Credentials a vendor publishes in its documentation for everyone to paste: they open nothing.
    # Azurite, the Azure Storage emulator
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",  # the signature of jwt.io's sample token
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",  # Stripe's API reference
    "pk_test_TYooMQauvdEDq54NiTphI7jx",
    "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",  # reCAPTCHA's test secret key
    "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
    "1x0000000000000000000000000000000AA",  # Cloudflare Turnstile's test secret
)
"""Published example credentials, kept wherever they stand (AWS's `...EXAMPLE` keys are kept by
their own spelling, `is_placeholder`)."""

_MIN_LENGTH = 6
_STRICT_MIN_LENGTH = 16
_HEX_KEY_LENGTH = 32
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*+=~?|;,<>()[]{}/\\'\"`")
_ORDINARY = lazy(
    r"(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)(?:[-_.][a-z]+|[-_.][A-Z][a-z]+|[-_.][A-Z]+|[A-Z][a-z]+|[-_.]\d{1,4})*\d{0,2}"
    r"|v?\d+(?:\.\d+){1,3}(?:[-+.][0-9A-Za-z.\-]+)?"  # a version
    r"|\d+(?:[.,:]\d+)*[a-zA-Z%]{0,3}"  # a number, a time, a size (`512MB`)
)
"""Words and identifiers in one case style with maybe a digit or two, versions, numbers."""
_REFERENCE_PREFIXES = (
    *("/", "~", "./", "../", "arn:", "urn:", "file:", "env:", "vault:", "secret:", "op://"),
    *("ssm:", "awssm:", "secretsmanager:", "gcpsm:", "azkv:"),  # secret stores' schemes (SOPS, chamber, helm-secrets)
)
_CODE = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\([^()]*\)|\[[^\[\]]*\])?")
_COLOR = lazy(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
"""A CSS colour (`#ff6600`): `--secret-color` names a colour."""
_DOMAIN_PATH = lazy(r"[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}/[a-z0-9]")
_RUN = lazy(r"[A-Za-z0-9+/_\-]{16,}={0,2}")
_EXTRA_PLACEHOLDER_WORDS = ("your", "here", "placeholder", "example", "replace", "dummy", "redacted", "sample")


def _key_code(value: str) -> bool:
    """`ABCD-1234-EFGH-5678`: a licence or product key made of groups, not a version."""
    groups = value.split("-")
    return len(value) >= 16 and len(groups) >= 3 and sum(any(c.isdigit() for c in g) for g in groups) >= 2


def is_ordinary(value: str) -> bool:
    """A word, an identifier, a version or a number: what is not a secret whatever its label."""
    return _ORDINARY.fullmatch(value) is not None and not _key_code(value)


def _placeholder(value: str) -> bool:
    lowered = value.lower()
    if is_placeholder(value) or any(word in lowered for word in _EXTRA_PLACEHOLDER_WORDS):
        return True
    # `xxxx-xxxx`, `****`, `0000-0000`: filler
    return len(set(lowered) - set("-_. ")) <= 1


def is_reference(value: str) -> bool:
    """A path, a URL, a YAML anchor, a call or a dotted name of code: where a value is, not the value."""
    if value[:1] in "&*!" and re.fullmatch(r"[A-Za-z_][\w.\-]*", value[1:]):
        return True  # a YAML anchor, alias or tag: `&db_password`, `*defaults`, `!vault`
    if _CODE.fullmatch(value) and (value.endswith((")", "]")) or not any(c.isdigit() for c in value)):
        return True  # `get_token()`, `os.environ["X"]`, `settings.SECRET_KEY`
    if _DOMAIN_PATH.match(value):
        return True  # `kubernetes.io/service-account-token`, `ghcr.io/acme/api`: a type or an image
    return value.startswith(_REFERENCE_PREFIXES) or "://" in value


def looks_like_secret(value: str, *, strict: bool = False) -> bool:
    """Whether `value` looks like a credential rather than a word, a number or a reference."""
    if len(value) < (_STRICT_MIN_LENGTH if strict else _MIN_LENGTH) or len(value) > 4096:
        return False
    if _placeholder(value) or is_reference(value) or is_ordinary(value) or _COLOR.fullmatch(value):
        return False
    if any(c.isspace() for c in value):
        return False
    from memory_core.firewall.entropy import looks_random

    hex_digits = sum(c in "0123456789abcdefABCDEF" for c in value)
    if hex_digits == len(value) and len(value) >= _HEX_KEY_LENGTH:
        return True  # a hex key; under a secret name it is not a digest
    if any(looks_random(run.group(0)) for run in _RUN.finditer(value)):
        return True
    if strict:
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    symbols = sum(c in _PASSWORD_SYMBOLS for c in value)
    upper = any(c.isupper() for c in value)
    lower = any(c.islower() for c in value)
    classes = sum((upper, lower, digits > 0, symbols > 0))
    return letters > 0 and (digits > 0 or symbols > 0) and classes >= 2 + (len(value) < 8)


def trim_value(value: str) -> str:
    """`value` less the punctuation a sentence or a bracket put after it; a closing bracket
    stays when the value opened it (`Optional[str]`, `get_token()`).
    """
    while len(value) > 1 and value[-1] in _TRAILING:
        closer = value[-1]
        opener = {")": "(", "]": "[", "}": "{"}.get(closer)
        if opener is not None and value.count(opener) >= value.count(closer):
            break
        value = value[:-1]
    return value


_PLACEHOLDER_STARTS = ("$", "{{", "%", "[redacted:", "your", "<")
_PLACEHOLDER_WORDS = frozenset({"changeme", "redacted", "example", "none", "null"})
_FILLER = frozenset("*xX.…•●∙·")
"""What a tool prints for each hidden character: `****`, `•••••` (Heroku, 1Password), `●●●●`."""
_PLACEHOLDER_PARTS = (
    "example",
    "your_",
    "your-",
    "yourapi",
    "placeholder",
    "replace_",
    "replace-",
    "changeme",
    "change-me",  # Django's `django-insecure-change-me`, `change_me`
    "change_me",
    "xxxxx",
    "omitted",  # what tools print instead of the value: kubectl's `DATA+OMITTED`
    "masked",
)
"""Documentation writes these into the value it shows: vendors' example keys end in `EXAMPLE`."""
_MASK = lazy(r"[\[<(][a-z _\-]{3,20}[\]>)]")
_CODE_REFERENCE = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_MAX_LINE_PREFIX = 64


def is_placeholder(value: str) -> bool:
    """Whether `value` stands in for a secret or is empty: `${TOKEN}`, `$(pass show x)`,
    `{{ secret }}`, `%s`, `<password>`, `***`, `xxxx`, `...`, `your_api_key`, `changeme`.
    """
    if len(value) < 3:
        return not value.strip()
    lowered = value.lower()
    if lowered.startswith(_PLACEHOLDER_STARTS) and (not lowered.startswith("<") or lowered.endswith(">")):
        return True
    if "..." in lowered or "…" in lowered or "****" in lowered:
        return True  # `sk-...`, `sk-...Qx7f`, `ab****yz`: an example cut short or a masked value
    if _MASK.fullmatch(lowered):
        return True  # `[REDACTED]`, `<hidden>`, `(masked)`: a tool already hid the value
    if any(word in lowered for word in _PLACEHOLDER_PARTS):
        return True  # `AKIAIOSFODNN7EXAMPLE`, `YOUR_API_KEY`, `replace-with-your-token`
    return lowered in _PLACEHOLDER_WORDS or set(value.strip(":@ ")) <= _FILLER


def looks_like_code(value: str) -> bool:
    """A call, a subscript, or a dotted name without digits: a reference to a secret, not one."""
    if "(" in value or "[" in value or value[:1] in "{[(":
        return True
    return re.fullmatch(_CODE_REFERENCE, value) is not None and not any(c.isdigit() for c in value)


def line_prefix(text: str, start: int) -> str | None:
    r"""What precedes `start` on its line, or None when that is longer than a line prefix can be.

    A line also starts after an escaped newline (`\n` in JSON, a repr or a log line), since
    config files reach us quoted as often as raw. The look back is bounded so that a long
    line does not make every name on it cost the line's length.
    """
    window = max(0, start - _MAX_LINE_PREFIX)
    newline = text.rfind("\n", window, start)
    escaped = text.rfind("\\n", window, start)
    if escaped >= 0 and escaped + 1 > newline:
        return text[escaped + 2 : start]
    if newline < 0:
        return text[:start] if window == 0 else None
    return text[newline + 1 : start]


_ENCRYPTED_WINDOW = 600
"""How far above a value its heading may stand: a SealedSecret lists a handful of names under it."""


_ENVELOPE_FIELD = re.compile(
    r"[ \t]*[\"']?(?:encrypted[_\-]?(?:data|value|text)?|cipher[_\-]?text)[\"']?"
    r"[ \t]*[:=][ \t]*[\"']?[A-Za-z0-9+/_\-]{20,}",
    re.IGNORECASE,
)
"""An envelope's ciphertext field holding ciphertext (`encrypted_data: <base64>`); `encrypted: false` is none."""


def _in_envelope(text: str, line_start: int, indent: int, low: int, high: int) -> bool:
    """Whether the line at `line_start` is a field of a mapping that holds ciphertext beside it (a Chef
    encrypted data bag's `encrypted_data`, `iv`, `auth_tag`; an envelope's `ciphertext` and `nonce`):
    its iv, nonce and tag belong to the ciphertext and open nothing without the key either.
    """
    for direction in (-1, 1):
        position = line_start
        for _ in range(_ENVELOPE_LINES):
            if direction < 0:
                if position <= low:
                    break
                position = text.rfind("\n", low, position - 1) + 1
            else:
                following = text.find("\n", position, high)
                if following < 0:
                    break
                position = following + 1
            stop = text.find("\n", position, high)
            line = text[position : stop if stop >= 0 else high]
            if not line.strip():
                break
            depth = len(line) - len(line.lstrip(" \t"))
            if depth < indent:
                break  # the mapping's heading: the envelope is this block only
            if depth == indent and _ENVELOPE_FIELD.match(line):
                return True
    return _ENVELOPE_FIELD.match(text, line_start) is not None


_ENVELOPE_LINES = 12


def under_encrypted_heading(text: str, folded: str, start: int) -> bool:
    """Whether `start` stands in an indented block whose heading says encrypted (a SealedSecret's
    `encryptedData:`, `encrypted_values:`): each value there is ciphertext, which opens nothing
    without a key held elsewhere. The look back is bounded, so it costs a window, not the text.
    """
    window = max(0, start - _ENCRYPTED_WINDOW)
    if folded.find("encrypted", window, start + _ENCRYPTED_WINDOW) < 0:
        return False
    line_start = text.rfind("\n", window, start) + 1
    line = text[line_start:start]
    indent = len(line) - len(line.lstrip(" \t"))
    if _in_envelope(text, line_start, indent, window, min(len(text), start + _ENCRYPTED_WINDOW)):
        return True
    if folded.find("encrypted", window, start) < 0:
        return False
    while line_start > window:
        above = text.rfind("\n", window, line_start - 1) + 1
        line = folded[above : line_start - 1]
        if line.strip() and len(line) - len(line.lstrip(" \t")) < indent:
            return "encrypted" in line and line.rstrip().endswith(":")
        line_start = above
        if above == 0:
            break
    return False


_PLAIN_COOKIE = lazy(
    r"[A-Za-z]{0,16}|[a-z]{2,3}(?:[\-_][A-Za-z0-9]{2,8})?|\d{1,10}|[A-Za-z]{0,3}\d*(?:\.\d+)+"
    r"|\{(?:\"?\w{1,30}\"?:[ ]?(?:true|false|null|\d{1,10}|\"\w{0,16}\")[, ]*)*\}"
)
"""A cookie's value that holds no secret: a word (`theme=dark`), a language tag (`lang=de-DE`), a number or a
number-dot form (analytics' `_ga=GA1.1.431282631.1733393643`), a consent's object of flags (percent-decoded)."""


def plain_cookies(header: str, *, set_cookie: bool) -> bool:
    """Whether every `name=value` of a `Cookie:` header (a `Set-Cookie:`'s first, the rest are its
    attributes) has a plain value (`_PLAIN_COOKIE`): preferences and analytics, which open no session.
    """
    from urllib.parse import unquote

    pairs = header.split(";")[:1] if set_cookie else header.split(";")
    for pair in pairs:
        name, equals, value = pair.strip().partition("=")
        if not equals or not name or _PLAIN_COOKIE.fullmatch(unquote(value.strip().strip('"'))) is None:
            return False
    return True


_PASSWORD_HASH = lazy(
    r"(?:[^\s:=$]{0,64}[:=])?(?:\$[a-z0-9][a-z0-9\-]{0,15}\$[\w=,.+/\-$]*|SCRAM-SHA-(?:1|256)\$\d+:[\w=+/$:]*)"
)


def password_hash(token: str) -> bool:
    r"""Whether `token`, read from its start, is a password hash in modular crypt format or the first
    part of one: maybe an account or a label (`ops:` in an `.htpasswd`, `hash=`), then `$<id>$` (lower-case
    letters, digits and `-`: `$2y$`, `$apr1$`, `$argon2id$`, `$pbkdf2-sha512$`), then `$`-separated fields
    of parameters, salt and hash (`v=19$m=65536,t=3,p=4$<salt>$<hash>`); or PostgreSQL's SCRAM verifier
    (`SCRAM-SHA-256$4096:<salt>$<stored key>:<server key>`, rules v13). A token starts after an escaped
    line break too (`\n` in JSON or a repr). A password hash is one-way: every rule keeps it, like a
    digest. The judgement asks this of a whole value; the entropy and look-alone rules of a token up to
    the run they are reading (a hash's salt and digest are random runs, and mix case with `$`).
    """
    escaped = token.rfind("\\n")
    return _PASSWORD_HASH.fullmatch(token, escaped + 2 if escaped >= 0 else 0) is not None


def token_around(text: str, at: int, longest: int, delimiters: frozenset[str]) -> tuple[int, int]:
    """Where the token holding `text[at]` starts and ends: from the delimiter before it to the one after
    it, at most `longest` characters either way (a token cut there has no delimiter at that end).
    """
    start = at
    while start > 0 and at - start <= longest and text[start - 1] not in delimiters:
        start -= 1
    end = at + 1
    while end < len(text) and end - at <= longest and text[end] not in delimiters:
        end += 1
    return start, end


def occurrences(text: str, word: str) -> Iterator[int]:
    """Where `word` stands in `text`, left to right, each past the last (a `find` each: a pattern costs more)."""
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + len(word))
