"""Secrets named by their key: `PASSWORD=...`, `"client_secret": "..."`, `--token x`, `api_key: ...`.

Promise: `find_assignments(text, folded)` returns the spans of the values assigned to names
that end in a credential word (password, secret, token, api key, ...), with the kind each
counts as. It leaves alone what only refers to a secret or describes one: placeholders
(`${TOKEN}`, `<password>`, `***`), code (`token = get_token()`, `api_key=settings.API_KEY`,
`password=password`), type annotations (`password: str`), counts (`max_token=512`), and prose
(`the secret: use a cache`). Markers are never values, so a second pass finds nothing.

Forms, each tried where its name occurs:
- inline `name = value`, `name := value`, `name => value`, and `name: value` when the name is
  quoted (JSON) or a header (`X-Api-Key: ...`) or the value is quoted;
- a YAML key or header at the start of a line, `name: the rest of the line`;
- a long command-line flag, `--name value` or `--name=value`;
- `~/.netrc`: `login NAME password VALUE`.

How, and why not one regular expression: a case-insensitive pattern that starts with a name
is tried at every position of the text and costs milliseconds per turn. Instead the few
credential words are found with `str.find` in the case-folded text, and the name, separator
and value are read around each hit.
"""

from __future__ import annotations

import re

__all__ = [
    "find_assignments",
    "is_placeholder",
    "looks_like_code",
    "line_prefix",
    "ASSIGNMENT_KINDS",
    "ASSIGNMENT_TRIGGERS",
]

ASSIGNMENT_KINDS = (
    "password-assignment",
    "secret-assignment",
    "token-assignment",
    "api-key-assignment",
    "aws-secret-key",
)
ASSIGNMENT_TRIGGERS = ("pass", "pwd", "secret", "token", "key", "credential", "auth")
"""Every credential word contains one of these (in lower case)."""

_KEYWORDS = (
    # Longest first: the first that ends a name wins. `_`, `-` and `.` may sit between letters.
    "secretaccesskey",
    "clientsecret",
    "encryptionkey",
    "credentials",
    "signingkey",
    "privatekey",
    "accountkey",
    "passphrase",
    "credential",
    "accesskey",
    "masterkey",
    "secretkey",
    "password",
    "authkey",
    "apikey",
    "passwd",
    "secret",
    "token",
    "pass",
    "auth",
    "pwd",
)
_QUOTED = r"\"(?P<v>[^\"\\\n]*(?:\\.[^\"\\\n]*)*)\"|'(?P<w>[^'\\\n]*(?:\\.[^'\\\n]*)*)'"
"""A double- or single-quoted value. Not backticks: in Markdown they quote code, not values."""
_ESCAPED_QUOTED = r"\\\"(?P<v>[^\n]*?)\\\"|\\'(?P<w>[^\n]*?)\\'"
"""A value quoted inside a quoted string: `{\"password\": \"...\"}` in a JSON payload."""
_BARE = r"[^\s\"'`,;&<>#][^\s\"'`,;&<>]*"
"""An unquoted value: up to a blank, a quote or a list separator; never a `# comment`."""
_REST_OF_LINE = r"([^\s\"'`#\\][^\r\n#\\]*?)[ \t]*(?:[ \t]#[^\r\n\\]*)?(?:\r?$|(?=\\[nr]))"
"""The value of a YAML key: to the end of its line (a real or an escaped newline), less a comment."""
_MAX_LINE_PREFIX = 64
_MAX_XML_VALUE = 512
_LINE_PREFIX = (
    r"(?:[^\s:]*:\d+:|[ \t]*\d+(?:\t|→|│|\|))?"  # `grep -n` output, a numbered file listing
    r"[+\-]?"  # a diff
    r"[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?"  # indentation, a YAML list item, a shell export
)
"""What may stand before a YAML key at the start of its line."""
_NETRC = r"login[ \t]+\S+[ \t]+password[ \t]+(\S+)"

_KIND_OF_KEYWORD = (
    ("pass", "password-assignment"),
    ("pwd", "password-assignment"),
    ("token", "token-assignment"),
    ("auth", "token-assignment"),
    ("apikey", "api-key-assignment"),
    ("accesskey", "api-key-assignment"),
)
_TYPE_WORDS = frozenset(
    {
        # Type names (`password: str`) and YAML/JSON scalars that are not secrets.
        *("str", "string", "bytes", "int", "integer", "number", "bool", "boolean", "float", "any", "object"),
        *("dict", "list", "optional", "secretstr", "secretbytes", "char", "varchar", "text", "required"),
        *("none", "null", "nil", "undefined", "true", "false", "yes", "no", "on", "off"),
    }
)
_DIRECTORY_NAMES = frozenset({"pwd", "oldpwd"})
"""`$PWD` is the working directory (but ODBC's `Pwd=...;` is a password)."""
_WEAK_NAMES = frozenset({"pass", "auth", "token", "secret", "credential", "credentials"})
"""Bare, these name lexer tokens and nouns as often as secrets: their values must look like one."""
_WEAK_MIN_LENGTH = 8
_SHOUTED_KEYWORDS = ("password", "passwd", "token", "secret")
"""Keywords recognised glued to a prefix in an upper-case name: `PGPASSWORD`, `NPMTOKEN`."""
_PLACEHOLDER_STARTS = ("$", "{{", "%", "[redacted:", "your", "<")
_PLACEHOLDER_WORDS = frozenset({"changeme", "redacted", "example", "none", "null"})
_FILLER = frozenset("*xX.…")
_PLACEHOLDER_PARTS = (
    "example",
    "your_",
    "your-",
    "yourapi",
    "placeholder",
    "replace_",
    "replace-",
    "changeme",
    "xxxxx",
)
"""Documentation writes these into the value it shows: vendors' example keys end in `EXAMPLE`."""
_CODE_REFERENCE = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_TRAILING = ")]},.:"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")

Edit = tuple[int, int, str]


_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")


def _says_credential(value: str) -> bool:
    """Whether a value is itself the word for a credential, in some language (an i18n label)."""
    from memory_core.firewall.judge import names_a_credential

    return names_a_credential(value)


def is_placeholder(value: str) -> bool:
    """Whether `value` stands in for a secret or is empty: `${TOKEN}`, `$(pass show x)`,
    `{{ secret }}`, `%s`, `<password>`, `***`, `xxxx`, `...`, `your_api_key`, `changeme`.
    """
    if len(value) < 3:
        return not value.strip()
    lowered = value.lower()
    if lowered.startswith(_PLACEHOLDER_STARTS) and (not lowered.startswith("<") or lowered.endswith(">")):
        return True
    if lowered.endswith(("...", "…")):
        return True  # `sk-...`: an example cut short
    if any(word in lowered for word in _PLACEHOLDER_PARTS):
        return True  # `AKIAIOSFODNN7EXAMPLE`, `YOUR_API_KEY`, `replace-with-your-token`
    return lowered in _PLACEHOLDER_WORDS or set(value.strip(":@ ")) <= _FILLER


def looks_like_code(value: str) -> bool:
    """A call, a subscript, or a dotted name without digits: a reference to a secret, not one."""
    if "(" in value or "[" in value or value[:1] in "{[(":
        return True
    return re.fullmatch(_CODE_REFERENCE, value) is not None and not any(c.isdigit() for c in value)


def _keyword_at_end(name: str) -> int:
    """Where the credential word that ends `name` starts, or -1 if none does."""
    lowered = name.lower()
    for keyword in _KEYWORDS:
        at, left = len(lowered), len(keyword)
        while left and at:
            char = lowered[at - 1]
            if char == keyword[left - 1]:
                left -= 1
            elif char not in "_-." or left == len(keyword):
                break
            at -= 1
        if not left:
            return at
    return -1


def _keyword_kind(name: str) -> str | None:
    """The kind for `name` if it ends in a credential word that is a word of it, else None."""
    start = _keyword_at_end(name)
    if start < 0:
        return None
    keyword = name[start:]
    if start > 0:
        before = name[start - 1]
        camel = before.islower() and keyword[0].isupper()
        shouting = name.isupper() and keyword.lower() in _SHOUTED_KEYWORDS
        if before not in "_-." and not camel and not shouting:
            return None  # `bypass`, `compass`, `keytoken`: the keyword is not a word of the name
    folded = keyword.lower().replace("_", "").replace("-", "").replace(".", "")
    if folded == "secretaccesskey":
        return "aws-secret-key" if "aws" in name.lower() or start == 0 else "secret-assignment"
    for key, kind in _KIND_OF_KEYWORD:
        if key in folded:
            return kind
    return "secret-assignment"


def _separator(text: str, position: int) -> tuple[str, int] | None:
    """The assignment operator at `position` (blanks around it allowed) and where the value starts."""
    end = len(text)
    while position < end and text[position] in " \t":
        position += 1
    for operator in (":=", "=>", "=", ":"):
        if text.startswith(operator, position):
            if operator == "=" and text.startswith("==", position):
                return None
            position += len(operator)
            while position < end and text[position] in " \t":
                position += 1
            return operator, position
    return None


def _value_edit(name: str, kind: str, start: int, value: str, *, quoted: bool) -> Edit | None:
    """The edit for `value` assigned to `name`, or None when the value is not a secret."""
    end = start + len(value)
    if is_placeholder(value):
        return None
    if not quoted and (len(value) < 2 or not any(c.isalnum() for c in value)):
        return None  # SQL's `N'...'`, Python's `b"..."`: a literal's prefix, read by the judgement
    if not quoted:
        trimmed = value.rstrip(_TRAILING)
        end -= len(value) - len(trimmed)
        value = trimmed
    if is_placeholder(value) or value.lower() in _TYPE_WORDS or _COLOR.fullmatch(value):
        return None
    if not any(c.isdigit() for c in value) and _says_credential(value):
        return None  # a label, not a value: `"password": "Mot de passe"`, `token_label: "Zugriffstoken"`
    if "existing" in name.lower():
        return None  # `existingSecret: api-db` names a secret object that holds the value elsewhere
    bare_name = name.lstrip("-")
    if bare_name.lower() in _DIRECTORY_NAMES and value.startswith(("/", "~", ".", "$")):
        return None
    if bare_name.lower() in _WEAK_NAMES and (len(value) < _WEAK_MIN_LENGTH or " " in value):
        return None  # `token = "("` in a lexer, `secret: "the cache"` in prose
    if not quoted:
        if value.isdigit() and len(value) < 6:
            return None  # `max_token=512`: a count, not a secret
        if value == bare_name or (looks_like_code(value) and not bare_name.isupper()):
            return None  # `password=password`, `token=get_token()`, `api_key=settings.API_KEY`
        if "(" in value or "[" in value or value[:1] == "{":
            return None
    return start, end, kind


def _type_annotation(value: str) -> bool:
    """`password: str`, `token: Optional[str]`, `secret: SecretStr = Field(...)`, a YAML block."""
    first = value.split(None, 1)[0] if value.strip() else ""
    if first[:1] in ("|", ">", "&", "*", "!", "{", "[") or "=" in value:
        return True
    first = first.rstrip(",;")
    if " | " in value:
        return True  # a union: `token: _TokenType | None`
    return first.lower() in _TYPE_WORDS or (first.lstrip("_")[:1].isupper() and first.lstrip("_").isalpha())


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


def _at_line_start(text: str, start: int) -> bool:
    """Whether only indentation, a YAML list dash or `export` precede `start` on its line."""
    prefix = line_prefix(text, start)
    return prefix is not None and re.fullmatch(_LINE_PREFIX, prefix) is not None


def _xml_element(text: str, name: str, kind: str, at: int) -> Edit | None:
    """`<password>hunter2</password>` (Maven's settings.xml and its kin)."""
    close = text.find(f"</{name}>", at, at + _MAX_XML_VALUE + len(name) + 3)
    if close < 0 or "\n" in text[at:close]:
        return None
    return _value_edit(name, kind, at, text[at:close], quoted=True)


def _quoted_value(text: str, at: int) -> tuple[int, str] | None:
    """Where the quoted value at `at` starts inside its quotes, and the value; None if unquoted."""
    found = re.compile(_QUOTED).match(text, at) or re.compile(_ESCAPED_QUOTED).match(text, at)
    if found is None:
        return None
    group = "v" if found.group("v") is not None else "w"
    return found.start(group), found.group(group)


def _name_quote(text: str, start: int, end: int) -> str:
    r"""The quote around the name `text[start:end]` (`"`, `'`, or an escaped `\"` inside a JSON
    string), or "" when it is not quoted.
    """
    for quote in ('\\"', "\\'", '"', "'"):
        if start >= len(quote) and text.startswith(quote, start - len(quote)) and text.startswith(quote, end):
            return quote
    return ""


def _read_assignment(text: str, start: int, end: int) -> Edit | None:
    """Read the name `text[start:end]` and what is assigned to it, in whichever form it has."""
    name = text[start:end]
    if name.startswith("--"):
        return _read_flag(text, start, end)
    name = name.lstrip("-")
    kind = _keyword_kind(name)
    if kind is None:
        return None
    if start > 0 and text[start - 1] == "<" and text.startswith(">", end):
        return _xml_element(text, name, kind, end + 1)
    quote = _name_quote(text, start, end)
    name_quoted = bool(quote)
    separator = _separator(text, end + len(quote))
    if separator is None:
        return None
    sep, value_at = separator
    quoted = _quoted_value(text, value_at)
    if quoted is not None:
        return _value_edit(name, kind, quoted[0], quoted[1], quoted=True)
    if text.startswith("[REDACTED:", value_at):
        return None
    if sep == ":" and not name_quoted and _at_line_start(text, start):
        if name.lower() in _DIRECTORY_NAMES:
            return None  # `pwd: 3.0-` lists the `pwd` module; only ODBC's `Pwd=` is a password
        rest = re.compile(_REST_OF_LINE, re.MULTILINE).match(text, value_at)
        if rest is None or _type_annotation(rest.group(1)):
            return None
        return _value_edit(name, kind, rest.start(1), rest.group(1), quoted=False)
    if sep == ":" and not name_quoted and ("-" not in name or text[value_at - 1] not in " \t"):
        # `name: value` mid-line is prose or a type annotation, unless the name is quoted
        # (JSON) or a header (`-H "X-Api-Key: ..."`, with its space; a Gradle coordinate
        # `com.acme:play-services-auth:20.7.0` has none).
        return None
    bare = re.compile(_BARE).match(text, value_at)
    if bare is None:
        return None
    return _value_edit(name, kind, bare.start(), bare.group(0), quoted=False)


def _read_flag(text: str, start: int, end: int) -> Edit | None:
    """`--password hunter2`, `--api-key=xyz`, `--token "abc def"`; not `--password-stdin`."""
    if start > 0 and not text[start - 1].isspace():
        return None
    name = text[start + 2 : end]
    kind = _keyword_kind(name)
    if kind is None:
        return None
    gap = re.compile(r"[ \t]+|=").match(text, end)
    if gap is None or text.startswith("[REDACTED:", gap.end()):
        return None
    quoted = _quoted_value(text, gap.end())
    if quoted is not None:
        return _value_edit(name, kind, quoted[0], quoted[1], quoted=True)
    bare = re.compile(r"[^\s\"'`\-<>|][^\s\"'`]*").match(text, gap.end())
    if bare is None:
        return None
    return _value_edit(name, kind, bare.start(), bare.group(0), quoted=False)


def _netrc(text: str, folded: str) -> list[Edit]:
    edits: list[Edit] = []
    at = folded.find("login")
    while at >= 0:
        found = re.compile(_NETRC).match(text, at)
        if found is not None:
            value = found.group(1).rstrip("`)]}.,;:") or found.group(1)
            if not is_placeholder(value):
                edits.append((found.start(1), found.start(1) + len(value), "password-assignment"))
        at = folded.find("login", at + 5)
    return edits


def find_assignments(text: str, folded: str) -> list[Edit]:
    """Every secret assigned to a credential-named key, as `(start, end, kind)`, in order.

    `folded` is `text` lower-cased character for character (same length).
    """
    names: set[tuple[int, int]] = set()
    for stem in ASSIGNMENT_TRIGGERS:
        at = folded.find(stem)
        while at >= 0:
            start, end = at, at + len(stem)
            while start > 0 and text[start - 1] in _NAME_CHARS:
                start -= 1
            while end < len(text) and text[end] in _NAME_CHARS:
                end += 1
            while end > start and text[end - 1] in ".-":
                end -= 1  # "the password." ends a sentence, not a name
            names.add((start, end))
            at = folded.find(stem, end)
    edits = [edit for start, end in names if (edit := _read_assignment(text, start, end)) is not None]
    if "password" in folded:
        edits.extend(_netrc(text, folded))
    return sorted(edits)
