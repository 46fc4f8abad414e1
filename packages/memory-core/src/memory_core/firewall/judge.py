# ruff: noqa: RUF001, RUF003 - the names and the punctuation around them are written in many scripts

"""One judgement from two kinds of evidence: what names or holds a value, and what the value looks like.

Promise: `find_judged(text, folded)` returns the span of each value that a NAME marks as a
credential and that LOOKS like one, strongly enough together, with kind `credential`. A name
scores 1 (moderate: `token`, `key`, `code`, `auth` and their translations, an SDK client
constructor, basic auth, a hex decoder, `base64` of a pair) or 2 (strong: the words for
password, passphrase, secret, PIN, login details, one-time and recovery codes in some sixty
languages, SQL's `IDENTIFIED BY`, `api key`). A value scores 0 (a word of any script, an
identifier, a number, a date, a version, a path, a host, an e-mail, a digest, an image tag, a
placeholder or vendor example, code, another name's assignment), 1 (`values.looks_like_secret`,
hex of 32 or more, six to ten digits under a strong name, a mixed-case run of letters; a word
glued to digits or a quoted phrase STATED after a strong name and a link) or 2 (random by
`entropy.looks_random`, base32 in groups like a TOTP key). A value is redacted when it scores
at least 1 and name + value reach 2: both moderate are enough, a strong value alone is the
entropy rule's.

Not names: a word inside a URL, a host (`auth0.com`), a marker, a random run, or an identifier
that says public (`PublicKey`, `client_id`) or says what else the value is
(`password_min_length`, `Idempotency-Key`).

Where the value is, read the same way for every family: after the name (and the rest of its
identifier: `DB_PASSWORD`, `Lösenordet`), past link words in any language (`is`, `est`,
`lautet`, `は`, `是`, `—`, `:`, `=`, a closing quote and `]`), the first value-like token on
the same line (a real or an escaped line), quoted (SQL's doubled quote and `N'...'` included)
or bare, within six tokens; before it in "use X as the passphrase". A name followed by `(` or
`= (` holds a call or a tuple: its string literals after the first (the user or app id) are
the values. A name inside a `cat`ted file name holds the next line. A code label ending its
line with `:` holds the block of code lines below it. `id:secret` piped to `base64` holds its
second half; a literal given to a hex decoder is the key. A URL's query parameter holds the
value up to the next `&`; a strong name assigned a phrase of three to six words holds the
whole line (`password: correct horse battery`); a name heading a table column (`| name | token
|`, `SELECT name, token FROM`) holds the cells below it, and so does a CSV header's. A value
stated before its noun ("X is the new root password", "try X at the sudo prompt") is read back
from the name. An option list (`user=x,password=X,vers=3`) ends a value at its comma; a type
annotation (`name: []const u8 = "X"`) is passed over to its `=`; an element's `value` attribute
beside a `name` attribute holds the value; a signer (`jwt.sign`, `createHmac`) holds every
literal it is given. A name whose line asks a question holds the reply on the next line that is
not blank (`[10:03] li: X`; an account, `root` or `admin`, names a credential only there); the
element a name is holds the value nested below it; a call typing into the field a name selects
(`.send_keys(`, `.fill(`) holds its literal; an operation a name is holds its arguments after the
first (`"op": "auth", "args": [...]`); `chpasswd` holds the second half of the pair piped to it.
A name under a heading that says encrypted (`encryptedData:`) names ciphertext, not a credential.
Beside the names: `find_pairs` reads `u: admin p: X` and a URL's `k=`,
`find_told` a value set off in a sentence about a credential's lifecycle ("..., X, and change it
after").

Failure: none at run time; every search is bounded (a window of a few hundred characters
after each name hit), so a turn costs time in proportion to its size and its name hits.
"""

from __future__ import annotations

import itertools
import re

from memory_core.firewall import lexicon
from memory_core.firewall.entropy import looks_random
from memory_core.firewall.values import (
    is_ordinary,
    is_placeholder,
    is_reference,
    looks_like_secret,
    occurrences,
    password_hash,
    plain_cookies,
    under_encrypted_heading,
)
from memory_core.firewall.walks import keyboard_walk
from memory_core.lazyre import alternation, lazy

__all__ = [
    *("find_judged", "find_pairs", "find_printed", "find_told"),
    *("JUDGED_TRIGGERS", "PAIR_TRIGGERS", "PRINTED_TRIGGERS", "TOLD_TRIGGERS", "KIND"),
]

KIND = "credential"

# -- names -------------------------------------------------------------------------------------

_STRONG_NAMES = lexicon.STRONG
"""Password, passphrase, secret, PIN, one-time and recovery codes, in every language of `lexicon`."""
_MODERATE_NAMES = lexicon.MODERATE
"""Token, key, code, auth, creds, in every language of `lexicon`."""
_HOLDERS = (
    # calls whose string arguments after the first are credentials: SDK clients, basic auth
    *("client", "basicauth", "credentials", "pusher", "mailgun", "algoliasearch", "twilio", "setbasicauth"),
    *("login(", "connect(", "authenticate(", "pdo(", "mysqli(", "createclient("),
    # a basic-auth constructor given `(user, password)`: OCaml's `` `Basic (u, p) ``, Rust's `Basic(u, p)`
    *("basic (", "basic("),
    "database(",  # MATLAB's `database(name, user, password, ...)`: a connection given its login
    "getconnection(",  # JDBC's `DriverManager.getConnection(url, user, password)` (rules v11)
    *("smtp", "imap", "ftp", "sftp", "ldap", "pop3", "bind"),  # `(host, port, user, password)`, an LDAP bind
    "new ",  # a constructor given literals: `new Resend('...')`, `new Client("id", "secret")`
)
_SIGNERS = ("jwt.sign", "jwt.encode", "jwt.verify", "jwt.decode", "createhmac", "hmac.new", "jws.sign")
"""Calls whose string literal is the signing secret, wherever it stands (`jwt.sign(payload, 'X')`):
the payload and options around it are no literal that looks like one (`'1h'`, `'HS256'`)."""
_CREATORS = (
    *("createuser", "create_user", "create-user", "adduser", "add_user", "add-user"),
    *("user_create", "user-create", "user_add", "user-add"),  # noun first: Salt's `mysql.user_create NAME HOST X`
)
"""Directives that create an account and take its password among their operands, unbracketed: net-snmp's
`createUser NAME SHA-256 "X" AES`; the password is a quoted operand after the account's name."""
_DECODERS = ("fromhex", "unhexlify", "decodestring", "frombase64string", "b64decode", "'hex')", '"hex")')
_ENCODERS = ("| base64", "|base64", "b64encode(", "btoa(", "base64.encode", "chpasswd")
"""Where `id:secret` goes as one literal: an encoder (its second half is the secret) or `chpasswd` (`user:password`)."""
_CAT = lazy(r"(?:^|[\s$>#])(?:cat|type|more|head|get-content|gc|sudo cat)[ \t]+(?:-\S+[ \t]+)*\S*$", re.IGNORECASE)

_ACCOUNTS = ("root", "admin", "administrator")
ACCOUNTS = _ACCOUNTS
"""Accounts a question asks the password of without naming it ("Q: root on the jump box?"): read only
in a question, whose answer below must look like a credential too."""
_ROLES: dict[str, tuple[int, str]] = {
    **{word: (1, "account") for word in _ACCOUNTS},
    **{word: (1, "name") for word in _MODERATE_NAMES},
    **{word: (2, "name") for word in _STRONG_NAMES},
    **{word: (1, "holder") for word in _HOLDERS},
    **{word: (1, "signer") for word in _SIGNERS},
    **{word: (1, "creator") for word in _CREATORS},
    **{word: (1, "decoder") for word in _DECODERS},
    **{word: (1, "encoder") for word in _ENCODERS},
}
_NAMES: tuple[tuple[str, int, str], ...] = tuple(
    (word, strength, role) for word, (strength, role) in sorted(_ROLES.items(), key=lambda item: -len(item[0]))
)
"""Longest first, so `verification code` is read before `code` and `password` before `pass`."""
_ASCII_NAMES = tuple(n for n in _NAMES if n[0].isascii())
_ANCHOR = 4


class _Anchors:
    """Where the names of a table stand in a text: one scan finds where any name's first four characters
    stand, and only the names sharing them are compared there (a `find` per anchor cost 209 passes over
    the text: 0.27 ms of the bench's typical 2 KB turn and 28 ms of its 200 KB turn; the scan 0.09 and 10 ms).
    """

    def __init__(self, names: tuple[tuple[str, int, str], ...]) -> None:
        self.names = names
        groups: dict[str, list[int]] = {}
        for index, (word, _, _) in enumerate(names):
            groups.setdefault(word[:_ANCHOR], []).append(index)
        # an anchor -> the names of every anchor it starts with (`key ` holds `key`: a name shorter than
        # four characters is its own anchor), so the longest anchor found at a place gives all names there
        self.prefixed = {
            anchor: tuple(i for other, indices in groups.items() if anchor.startswith(other) for i in indices)
            for anchor in groups
        }
        self.lengths = sorted({len(anchor) for anchor in groups}, reverse=True)
        by_first: dict[str, list[str]] = {}
        for anchor in groups:
            by_first.setdefault(anchor[0], []).append(anchor[1:])
        # Each match is one character, the rest looked ahead for: anchors may overlap (`u/p/w`).
        self.pattern = lazy(
            "|".join(re.escape(first) + f"(?={alternation(rest)})" for first, rest in sorted(by_first.items()))
        )

    def hits(self, folded: str) -> list[tuple[int, int]]:
        """(a name's place in the table, where it stands in `folded`) for every name, in that order."""
        hits: list[tuple[int, int]] = []
        names, prefixed = self.names, self.prefixed
        for found in self.pattern.finditer(folded):
            at = found.start()
            for length in self.lengths:  # the longest anchor standing here (one always does)
                indices = prefixed.get(folded[at : at + length])
                if indices is not None:
                    hits.extend((index, at) for index in indices if folded.startswith(names[index][0], at))
                    break
        hits.sort()  # the longest names first, each left to right, as if each were looked for alone
        return hits


_ASCII_ANCHORS = _Anchors(_ASCII_NAMES)
_ALL_ANCHORS = _Anchors(_NAMES)
JUDGED_TRIGGERS = ("",)
"""The finder looks for its own names; it runs on every text."""
_PUBLIC_WORDS = (
    *("public", "pub", "publickey", "recipient", "fingerprint", "kid", "client_id", "clientid"),
    *("sitekey", "site_key", "site-key"),  # a CAPTCHA's site key is in every page's HTML by design (rules v14)
)
"""A name that also says one of these names something public: `PublicKey`, `public_key`."""

_NOT_SECRET_TAIL = frozenset(  # a last word that says what else the value is: `token_url`
    {
        *("id", "ids", "name", "names", "url", "uri", "urls", "endpoint", "host", "hostname", "port", "type"),
        *("path", "file", "filename", "dir", "directory", "ttl", "expiry", "expires", "expiration", "timeout"),
        *("length", "len", "size", "count", "min", "max", "limit", "enabled", "enable", "disabled", "mode"),
        *("method", "methods", "provider", "header", "prefix", "suffix", "algorithm", "alg", "version"),
        *("format", "scope", "scopes", "user", "username", "email", "region", "issuer", "audience", "hash"),
        *("fingerprint", "field", "column", "label", "env", "var", "variable", "ref", "arn", "location"),
        *("policy", "rotation", "manager", "store", "vault", "backend", "strategy", "kind", "class", "at"),
        *("required", "identifier", "server", "text", "hint", "prompt", "placeholder", "regex", "pattern"),
        *("reset", "changed", "updated", "mgmt", "management", "usage", "exchange", "derivation", "agreement"),
        *("challenge", "certificate", "cert"),  # PKCE's `code_challenge` and a certificate are public by design
        # when, how old, and an envelope's parts: LDAP's `pwdMaxAge`, `pwdChangedTime`, a data bag's `auth_tag`
        *("age", "time", "timestamp", "date", "tag", "iv", "nonce"),
        # a digest's algorithm (its letters: digits split words): `pin-sha256:` (a certificate pin), `key_sha1`,
        # `token-md5` hold a hash, which is one-way (rules v11)
        *("sha", "md", "blake"),
    }
)
_MIXED_SCRIPT = lazy(r"(?=\S*[^\W\d_])(?=\S*[\d!#$%&*+=?@^~])[^\s\u2e80-\uffff]+")
"""Letters of any script but CJK with digits or symbols, no blank (CJK values are cut where the Latin starts)."""
_REGEX = lazy(r"\[[^\]]{0,20}-[^\]]{0,20}\](?:[{*+?]|$)|\\[dwsbDWS][{*+?]|\{\d{1,3}(?:,\d{0,3})?\}")
"""Marks of a regular expression: a class with a range then a quantifier, an escape class, `{2,4}`."""
_INTERPOLATED = lazy(r"\{[A-Za-z_][\w.]*\}|%\([A-Za-z_]\w*\)[sd]")
_WORD_BREAK = lazy(r"\s+|\\[nrt]")
"""Between words: blanks, or an escaped newline in a repr or a JSON string."""
_IN_ARN = lazy(r"(?:(?<![^\s=\"':])|(?<=\\n))(?:arn|urn):")
"""`arn:` starting a token (a lookbehind: `^` matches only where the text starts, not where a search does)."""
_TAIL_LABEL = lazy(r"[ \t]{1,3}([a-z]{2,12})[ \t]*[:=][ \t]")
"""A label's last word after a blank, then its colon and a blank (`api key id: `; not `rpcauth user:<hash>`)."""
_TAIL_WORDS = _NOT_SECRET_TAIL | {"hasher", "validator"}
_OTHER_OPTION = lazy(r"[A-Za-z][A-Za-z\-]{1,30}")
"""An option's name after its dash (`-UserName`, `--user`), whose last word may say what its value is."""
_ARABIZI = lazy(r"[a-z]*[235789]'?[a-z]{2,}")
"""A word of Arabic in Latin letters (Arabizi): a digit stands for a sound Latin lacks (`3` ain, `7` ha)."""
_ARABIZI_WORD = lazy(r"(?<![\w'])[a-z]*[235789]'?[a-z]{2,}(?![\w'])")
_APPLIED = lazy(r"(?:[ \t]+(?:\"[^\"\\\n]{1,400}\"|'[^'\\\n]{1,400}')){2,}")
"""Two or more string literals after a callee and blanks: the arguments of a function applied without brackets."""
_DECLARED = lazy(
    r"[ \t]+(?:PIC(?:TURE)?[ \t]+\S{1,20}|[A-Za-z]\w{0,20}(?:\([\d, ]{1,8}\))?)[ \t]+(?:VALUE|DEFAULT)[ \t]+(?=[\"'])",
    re.IGNORECASE,
)
"""A declared type between a name and its value's keyword: COBOL's `PIC X(20) VALUE 'X'`, SQL's
`VARCHAR(64) DEFAULT 'X'`."""
_WORDLIKE = lazy(r"[A-Za-z][A-Za-z._\-]{0,40}")
"""A word of letters (with `.`, `_`, `-`): a path's segment or an alternative of a pattern, never random."""
_CAMEL_TAIL = lazy(r"(?<=[a-z0-9])[A-Z][a-z]+$")
"""An identifier's last camelCase word (`Age` of `pwdMaxAge`), read from the original text."""
"""The last words of an identifier that say what else it holds (`password_hasher`)."""
_NOT_SECRET_WORDS = frozenset(
    {
        *("public", "primary", "foreign", "sort", "partition", "cache", "idempotency", "dedup", "row"),
        *("lookup", "routing", "shard", "sharding", "composite", "unique", "index", "map", "dict", "hotkey"),
        *("keyboard", "keys", "keyword", "keywords", "monkey", "turkey", "hockey", "whiskey", "donkey", "jockey"),
        *("max", "min", "num", "count", "csrf", "next", "page", "pagination", "cursor", "continuation"),
        "hashed",  # detect-secrets' `hashed_secret`: a digest of the secret, one-way (round 14)
    }
)
_ALGORITHMS = frozenset({"eddsa", "rsa", "dsa", "ecdsa", "ed25519", "cv25519", "nistp256"})
"""A bare `key` after one of these is named by its algorithm: an identity in a listing, not an
identifier such as `RSA_PRIVATE_KEY` (whose words are not asked)."""
# -- values ------------------------------------------------------------------------------------

_MAX_TOKENS = 6
_WINDOW = 120
_QUOTES = {"'": "'", '"': '"', "`": "`", "«": "»", "「": "」", "『": "』", "“": "”", "„": "“"}
_LINK_CHARS = " \t:=>-–—,;]})*»」』：，、。(（"
_BARE = lazy(r"[^\s\"`«»「」“”，。、（）(\[{\\<](?:[^\s\"`«»「」“”，。、（）(\[{\\<']|(?<=[^\W_])')*")
"""A bare value: up to a blank, a quote, a bracket or a backslash; a `'` only inside a word (`don't`)."""
_NOT_VALUE = lazy(
    r"\d{1,4}(?:[-/.]\d{1,2}){2}(?:[T ][\d:.]+Z?)?"  # a date, maybe a time
    r"|[\d:.]+(?:[ap]m)?|\d+(?:[.,]\d+)*[a-zA-Z%]{0,5}"  # a time, an address, a size
    r"|[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z][a-z0-9\-]*(?::\d+)?(?:/\S*)?"  # a host (last label: a letter first)
    r"|[A-Za-z][\w.]*(?:-[A-Za-z][\w.]*)*-[0-9a-f]{7,}"  # a labelled digest or id: `Linux-pip-<sha256>`
    r"|[A-Za-z]*\d+(?:\.\d+)+"  # a name and its version: `email5.0.0`, `python3.12`
    r"|[\w.+\-]+@[\w\-]+\.[\w.\-]+"  # an e-mail address
    r"|[\w\-./]+\.(?:txt|json|ya?ml|py|js|ts|go|rb|sh|conf|cfg|ini|env|log|md|pem|crt|key|toml|xml|sql)(?:[#:]\S*)?"
    r"|[\w\-./$]+\.[A-Za-z]{1,6}:\d{1,6}(?::\d{1,4})?"  # a source location in a stack frame: `Encoder.java:42`
    r"|[\w\-]+(?::[\w\-]+){2,}"  # a colon-joined key or id: `user:4412:profile:v3`
    r"|[A-Za-z][\w\-]*:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"  # a namespaced UUID: `session:<uuid>`
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}"  # a dotted module path: `django.contrib.auth.hashers.X`
    r"|[a-z]+(?:-[a-z]+)+|[A-Z][a-z]+(?:-[A-Z]?[a-z]+)+"  # a slug, a hyphenated word
    r"|[a-z]+\d*(?:-[a-z]+)+"  # a description: `sha256-hashed`, `utf8-encoded`
    r"|[a-z0-9_\-]+(?:/[a-z0-9_\-]+)+/?"  # a lower-case path or key: `secret/db`, `kv/prod/db`
    r"|(?:[A-Z]+-)?\d{1,6}"  # a ticket, a small number
    r"|[A-Za-z]+'[A-Za-z]+"  # an elision: `dell'account`, `don't`
    r"|\d[A-Z][a-z]+"  # a product: `1Password`, `2Checkout`
    r"|[a-z0-9._/\-]+:\d[\w.\-]*"  # an image and its tag: `python:3.12-slim`
    r"|(?i:sha\d{1,3}|md5|sha):\S+"  # a labelled digest or fingerprint: `SHA256:...`
    r"|[A-Za-z_]\w{0,20}=[\d.]+"  # a parameter set to a number: `m=65536`
    r"|[a-z]+\d+(?:\.\d+)+(?:[-:][a-z0-9.]+)*"  # a model or package and its version: `qwen2.5-coder`, `llama3.1:8b`
    r"|[A-Z]{2,}\d{0,3}(?:[-_][A-Z]{2,}\d{0,3})+"  # an enum constant: `WPA2-PSK`, `AES256_GCM`
    r"|[a-z]{2,}\d{1,3}[a-z]{1,3}"  # a term with its number inside: `argon2id`, `base64url`, `sha256sum`
)
_CERT_TAG = lazy(r"<[\w:\-]*(?:certificate|cert)s?>$", re.IGNORECASE)
"""A tag that names a certificate, last (`<ds:X509Certificate>`; not `<CertificatePassword>`)."""
_CALLEE = lazy(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_NEXT_OPTION = lazy(r"[,;&][A-Za-z_][\w.\-]{0,40}=")
"""The next member of an option list (`,vers=`, `;Database=`): the value before it ends there."""
_HOST = lazy(r"[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.(?:com|net|org|io|dev|app|cloud|co|ai|sh|me|[a-z]{2})")
_CODE_LABEL = lazy(r"[\"']?(?:[a-z]+[A-Z_]\w*|[A-Z]+_\w*)[\"']?:")
"""A code label (`clientId:`, `"client_id":`, `API_URL:`): the next value is that name's."""
_CALLEE_REST = lazy(r"[\w.]*(?:(?:::|->)\w+)?(?:['\"]\))?(?:[ \t]*[=:][ \t]*)?")
_ASSIGNED = lazy(r"(?:[a-z_][a-z0-9_.\-]{2,}|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,})=(?![*!#%^&~+=@])")
"""`max_tokens=512`, `OLDPWD=/home`: another name's assignment, not this name's value."""
_USER_AT = lazy(r"[A-Za-z._\-]+@[A-Za-z._\-]+")
_B32_GROUPS = lazy(r"[A-Z2-7]{4}(?:[ \-][A-Z2-7]{4}){3,7}(?:[ \-][A-Z2-7]{1,3})?(?![A-Z0-9])")
"""A TOTP setup key as apps print it: groups of four base32 characters, the last group maybe shorter
(a 26-character key: `4LEA PE2F ... AJW4 SZ`)."""
_CODE_LINE = lazy(
    r"[ \t]*(?:[-*•]|\d{1,2}[.)])?[ \t]*([A-Za-z0-9]{3,16}(?:(?:[- ]| {2})[A-Za-z0-9]{3,16}){0,3})[ \t]*(?:\r?\n|$)"
)
_STRING = lazy(r"(?:b|r|f|u|N)?(?:\"((?:[^\"\\\n]|\\.){1,400})\"|'((?:[^'\\\n]|\\.|''){1,400})')")
_HEX = frozenset("0123456789abcdefABCDEF")
_HEX_KEY = 32
_OTP_DIGITS = (6, 10)
_CODE_GROUPS = lazy(r"\d{3,4}(?:[ -]\d{3,4}){1,2}(?![\w-])")
"""A one-time code printed in groups of three or four digits (`905-341`, `284 617`), 6 to 10 digits in all."""
_SHORT_CODE = lazy(r"(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,8}")
"""A code of capitals and digits after a code's name (`R7K2D`): Steam Guard's, a voucher's, a recovery code's."""
_SHORTEST_VALUE = 6
_PIN_DIGITS = (4, 8)
_PIN_WORDS = frozenset(w for w in lexicon.STRONG if "pin" in w or "пін" in w or "핀" in w)
"""A PIN's words in every language the lexicon holds (`pin`, `pin code`, `code pin`, `mã pin`)."""
"""The shortest value `value_score` can score past digits: `looks_like_secret` asks six
characters, base32 groups nineteen, the rest twenty or more. Saying so first is only faster."""
_USED_AS = lazy(
    r"(?:^|[\s>'\"])(?:use|using|set|with|utilise[rz]?|verwende|nimm|usa|usar|use|usa|gebruik|użyj|используй)[ \t]+"
    r"(?:[`'\"](?P<q>[^`'\"\s]{6,128})[`'\"]|(?P<b>[^\s`'\"]{6,128}))[ \t]+"
    r"(?:as|for|comme|als|como|come|jako|как)[ \t]+(?:[\w\-]+[ \t]+){0,3}$",
    re.IGNORECASE,
)
"""A value stated before the name it is used as."""
_SEND = lazy(r"[ \t]*(?:exp_)?send[ \t]+(?:--[ \t]+)?\"((?:[^\"\\\n]|\\[^rn])+?)(?:\\[rn])*\"")
"""An `expect` script's `send "...\\r"`: the text sent, less its carriage return."""
_TAG = lazy(r"</?[A-Za-z][\w:\-]{0,20}(?:[ \t][^<>\n]{0,80})?>")
"""An HTML or XML tag between a name and its value."""
_COPULAS = frozenset({"is", "are", "was", "ist", "est", "es", "é", "è", "är", "er", "jest", "je", "это", "now"})
"""The words that end a line whose value is on the next one: "The generated password for db is"."""
_BLOCK_SCALAR = lazy(r"[\"']?[ \t]*:[ \t]*[|>][-+]?[ \t]*(?:\r?\n|(?:\\r)?\\n)[ \t]+([^\s#\\][^\n\\]{0,200})")
"""A YAML block scalar: `password: |` and the value on the indented line below it."""
_ASIDE = lazy(
    r"(?:^|(?<=\s))(?:([^\s()\[\]{}\"'`\\]{6,128})|`([^`\s]{6,128})`|\"([^\"\s]{6,128})\"|'([^'\s]{6,128})')"
    r"[ \t]+\([^()\n`]{0,60}$"
)
"""A value, then an aside in parentheses that names it: `X (it's the staging pass)`."""
_STATED_BEFORE = lazy(
    r"(?:^|(?<=[\s>(]))(?:`(?P<q>[^`\s]{6,128})`|(?P<b>[^\s`'\"<>()\[\]{}]{6,128}))[ \t]+"
    r"(?:(?:[^\w\s]{1,3}[ \t]+)?(?:that's|that[ \t]+is|this[ \t]+is|it's|c'est|das[ \t]+ist)"
    r"|is|was|will[ \t]+be|becomes|est|sera|ist|wird|es|será|é|è|är|er|blir|jest|je|on|это|—|–|=|"
    r"at|in|into|on|for|au|à|dans|an|im|am|en|na|no|nel|bij|op|в|на)[ \t]+(?:[^\s.,;:!?()\[\]{}\"`<>=]+[ \t]+){0,4}$"
    r"|(?P<c>[!-~]{6,128})[ \t]*(?:是|为|は|が|を|는|은|이|가)[^\n.,。，、!?]{0,12}$",
    re.IGNORECASE,
)
"""A value stated before its name: "X is the new root password", "try X at the sudo prompt",
"X ist das neue Passwort", "X是新密码": the value, a copula or a place word, up to four words, the name."""
_VALUE_MARK = lazy(r"[\d!#$%&*+=?@^~]|[a-z][A-Z]")
"""What a value scoring 1 or more holds (a digit, a symbol, a case switch): asked before `_STATED_BEFORE`,
which prose ("the password is the password is") would make read each window for nothing (2.6 times the cost)."""
_OPERATION_ARGS = lazy(r"[ \t]*,[ \t]*[\"']?(?:args|params|arguments)[\"']?[ \t]*[:=][ \t]*(?=\[)")
"""An operation the name is, then its arguments (JSON-RPC, a WebSocket protocol): held like a call's."""
_TYPED_INTO = frozenset({"sendkeys", "type", "fill", "setvalue", "typetext", "settext", "clearandtype"})
"""Calls that type into the field a name selects (Selenium, Playwright, Cypress): their literal is the field's value."""
_SECOND_HALF = lazy(r"[ \t]*/[ \t]*([^\s\"'`/\\]{6,128})")
"""The second half of `user / password`; a backslash ends it (`/f\\nThe` in a repr is a flag, then a line break)."""
_CAT_VERBS = ("cat ", "type ", "get-content", "gc ", "more ", "head ")
"""Cheap test before `_CAT`: one of the commands that print a file stands on the line."""
_B32_NAMES = frozenset({"key", "secret", "otp", "totp", "2fa", "mfa", "setup key", "clé", "cle", "schlüssel"})
"""Names a TOTP setup key follows (`setup key: ABCD EFGH ...`)."""
_LABEL_THEN_LINE = lazy(r"[^\n]{0,60}:[ \t\r]*\n[ \t]*")
"""A label that ends its line with `:` and what starts the next line."""
_AS_WORDS = (" as ", " for ", " comme ", " als ", " como ", " come ", " jako ", " как ")
_LINE_BREAK = lazy(r"\r?\n|(?:\\r)?\\n")
"""A line break, real or escaped (a repr, a JSON string)."""
_DEFAULT_MEMBER = lazy(r"\{(?:\s|\\n)*(?:default|value)\s*[=:]")
_CODE_STEMS = ("cod", "cód", "kod", "kód", "код", "コード", "码", "碼", "코드", "번호")
"""A name holding one of these labels codes: a block of code lines may follow it."""
_STATED = lazy(
    r"(?:['s]*[ \t]+(?:for|of|on|to|de|du|für|del|do|da|di|van|для|от)"
    r"[ \t]+[\w.@\-]{1,40}(?:[ \t]+[\w.@\-]{1,40}){0,2})?"
    r"[ \t]*(?:[:=：]|(?:is|was|est|ist|lautet|es|é|è|är|er|on|jest|je|это|now)(?:[ \t]*[:：])?|—|-|は|是|为|는|ަ?ކީ)"
    r"[ \t]*\\?[\"'`“«「]?",
    re.IGNORECASE,
)
"""A link that states the value: "is", ":", "est", "ist", "は", "是", Dhivehi's `ކީ` glued to the noun,
"is:", maybe after what it is for
(up to three words: "for the team keepass"), or up to five words of any language ending in `:` (Welsh
`Cyfrinair newydd y llwybrydd:`, "new password of the router:": a label's clause, but no copula:
"the secret is out: we ship on Friday" is a sentence, not a label, and no sentence's end: "pass an
empty dictionary. Note: ...")."""
_CLAUSE = lazy(
    r"(?:[ \t]+(?!(?:is|was|are|ist|est|es|är|er|jest|je)[ \t:])"
    r"\(?[^\W\d_](?:[^\s:：\"'`=]{0,38}[^\s:：\"'`=.!?])?){1,5}"
    r"[ \t]*[:：][ \t]*\\?[\"'`“«「]?",
    re.IGNORECASE,
)
"""A label's clause of any language before its `:`, each word starting with a letter (`# TODO:` and `|` are
code, not a clause; asked only where a `:` stands between)."""


def _stated(text: str, end: int, start: int, link: str) -> bool:
    """Whether `text[end:start]` (`link`, stripped) states the value after a name (`_STATED`, `_CLAUSE`)."""
    return _STATED.fullmatch(text, end, start) is not None or (
        (":" in link or "：" in link) and _CLAUSE.fullmatch(text, end, start) is not None
    )


_GLUABLE = lexicon.GLUABLE
"""Names glued to a prefix in one word: `requirepass`, `masterauth`, `Datenbankpasswort`."""
_NOT_GLUED = frozenset({"bypass", "compass", "surpass", "trespass", "overpass", "underpass", "encompass", "oauth"})
_VERBS = frozenset(
    {"get", "set", "check", "split", "verify", "hash", "reset", "change", "update", "read", "write", "has", "is"}
    | {"no"}
)
"""A code verb glued to the name makes a function (`getpass`, `splitpasswd`), not a setting; `no` says there
is none (a Wi-Fi QR's `T:nopass`, sudoers' `NOPASSWD:`)."""
_SYMBOL_KEY = 32
_SYMBOL_KINDS = 6
_LOWER_RUN = lazy(r"[a-z]{6}")
_MAX_VALUE = 512
_SELECT = lazy(r"\bselect\b", re.IGNORECASE)
_ROW = lazy(r"(?:\r?\n)(?:\+[-+]*\r?\n)?\|[^\n]*\|[ \t]*(?=\r?\n|$)")
"""A row of a table a database client printed, maybe after its border line."""
_MAX_PHRASE_WORDS = 6
_PHRASE = lazy(r"[a-z]+(?:[ ][A-Za-z][a-z]*){2,5}(?=[ \t]*(?:\r?\n|\\[nr]|$|\([^()\n]{0,80}\)[ \t]*(?:\r?\n|$)))")
"""A passphrase: three to six words to the end of the line, the first in lower case (a sentence
starts with a capital), a later one maybe a name (`the rain in Lisbon falls sideways`), maybe an aside
after it in brackets (`(all lowercase)`)."""
_MIN_STATED = 6
_SHORT_STATED = 4
_KEYED_UUID = lazy(
    r"(?:sdk|key|api|apikey|secret|token|srv|server)[\-_][0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)
_JOINED_WORDS = lazy(
    r"(?:[a-z]{3,8}([.\-]))(?:[a-z]{3,8}\1){2,6}[a-z]{3,8}|(?:[a-z]{3,8}-){3,6}\d{1,4}"
    r"|[a-z]{4,8}\.[a-z]{4,8}\.[a-z]{4,8}"
    r"|[A-Za-z]{2,12}([.\-_])(?:[A-Za-z]{2,12}\2){1,5}[A-Za-z]{2,12}\2?\d{1,4}"
    r"|[^\W\d_]{2,12}([.\-_])(?:[^\W\d_]{2,12}\3){2,7}[^\W\d_]{2,12}(?:\3?\d{1,4})?"
)
"""Four to eight short words joined by one `.` or `-`, three or more words and a number, three
words of four letters or more joined by `.` (`kucing.oren.tidur`), or three or more words of any
length joined by one `.`, `-` or `_` and a number (`knedlik-se-zelim-5`, `saigon.mua.mua99`), or four
or more words of any script so joined (`mamaliga_cu_branza_si_smantana`, `pogácsa-lángos-dunakanyar-7`)
(rules v13); a three-word identifier joined by `-` (`my-db-secret`, an object's name) and two words and a
number (`web-app-3`, `redis-master-0`: hosts and pods) are not one."""
_RARE_VOWELS = 0.2
"""Letters of one case whose vowels (`aeiou`) are fewer than this share: random letters have 5 in 26
(0.19; 53% of 10,000 drawn, 12 to 24 long, fall below 0.2), English about 0.38; of the 5,579 one-case
identifiers of 12 letters or more in CPython's standard library, 60 (1.1%) fall below, and those
name things (`sslkeypasswd`), which a value is not."""
_MIN_RANDOM_LETTERS = 12
_CONSONANT_RUN = 6
_CONSONANTS = lazy(r"[^aeiouAEIOU]+")
"""Or a run of six consonants (`y` among them), which words rarely hold: with either test, 79% of
the 10,000 random runs and 4.0% of the 10,089 one-case identifiers of 12 letters or more in CPython's
standard library (`getelementsbytagname`) pass; asked only of a value a strong name assigns or an
account labels, where an identifier seldom stands."""


_FIELD_WORDS = frozenset(
    {
        # a type, a state or a source: what a field is or where its value comes from, not its value
        *("str", "string", "bytes", "text", "bool", "boolean", "int", "integer", "number", "char", "varchar", "any"),
        *("true", "false", "yes", "no", "on", "off", "null", "nil", "none", "undefined", "empty", "blank", "unset"),
        *("required", "optional", "mandatory", "enabled", "disabled", "hidden", "masked", "redacted", "omitted"),
        *("default", "auto", "automatic", "prompt", "ask", "stdin", "env", "environment", "file", "files", "keyring"),
        *("keychain", "vault", "plain", "plaintext", "hash", "hashed", "encrypted", "random", "generated", "inherit"),
        *("bcrypt", "argon2", "argon2id", "scrypt", "pbkdf2", "md5", "sha1", "sha256", "sha512", "crypt", "scram"),
        *("basic", "bearer", "digest", "oauth", "oauth2", "jwt", "saml", "sso", "otp", "totp", "ldap", "pam", "trust"),
        # a variable holding it, in code (`{ password: pwd }`, `password=creds`)
        *("value", "val", "input", "pw", "pwd", "passwd", "pass", "password", "passphrase", "secret", "token"),
        *("creds", "credentials", "credential", "args", "opts", "options", "config", "conf", "settings", "params"),
        *("data", "form", "body", "req", "request", "user", "self", "this", "props", "state", "ctx", "context"),
        # a role in a test (`json={"password": "wrong"}`) or a placeholder's word
        *("wrong", "invalid", "incorrect", "bad", "correct", "right", "good", "valid", "foo", "bar", "baz", "qux"),
        # the documented defaults every tutorial shows: public, not a secret (`POSTGRES_PASSWORD: example`)
        *("admin", "root", "postgres", "mysql", "guest", "test", "demo", "example", "changeme", "secret123"),
    }
)
"""Values a credential's name is given that say what the field is, where its value comes from, which
variable holds it, or a documented default (rules v13)."""
_ASSIGNED_PLAIN = lazy(r"[^\s'\"`()\[\]{}<>,;|]{4,64}")
"""A value assigned whole: no blank, no quote, no bracket, no list separator."""
_VERSION_LIKE = lazy(r"[\d.\-+_:]+")
"""Digits and the marks versions, dates and numbers join them with (`3.0-`, `2026-12-05`): no password's name
makes one a password (a list of modules' versions, `pwd: 3.0-`)."""
_LINE_END = lazy(r"[ \t]*(?:\r?\n|$)")
_ASSIGNED_PHRASE = lazy(r"[^'\"`\n]{4,128}")
"""A quoted value an environment's key is assigned: blanks too, no line break."""
_HASHER_CALLS = (
    *("hash::make", "bcrypt.hash", "bcrypt.hashsync", "make_password", "generate_password_hash", "password_hash"),
    *("password.create", "argon2.hash", "hashpw", "hash_password", "hashpassword", "encodepassword"),
)
"""Calls that hash a password given as a literal: the literal is the plain password (seeds, fixtures; rules v15)."""
_ENV_NAMES = frozenset({"token", "secret"})
"""Names an environment's key ends in whose value is the credential (`NPM_TOKEN=`, `APP_SECRET=`)."""
_DATE_DIGITS = 6
"""Digits from which a value of digits and `.-/+:` is a date or a phone number a person chose (`17-03-1988`),
not a version (`3.0-`, `1.2.3`): rules v15, round 17."""
_ASSIGNED_QUOTED = lazy(r"[^\s'\"`]{4,128}")
"""A quoted value assigned whole: no blank (a message, "This field is required."), any symbol (`Preis$9,99`)."""
_IDENTIFIER_ONLY = lazy(r"[A-Za-z_]+|[a-z]+(?:[A-Z][a-z]+)+|(?:[A-Z][a-z]+){2,}|[A-Z][A-Za-z]*(?:\.[A-Za-z_]+)+")
"""What code names a variable or a type with (`redis_pass`, `dbPassword`, `SecretStr`, `Config.PASS`)."""
_PAIR_BEFORE = lazy(r"(?:^|[ \t])[A-Za-z_][\w.]*=[^\s,;()]+[ \t]+$")
"""A `key=value` pair, then a blank, right before a key: a list of pairs (a DSN, an environment dump)."""
_CLAUSE_GOES_ON = lazy(r"[ \t]+[^\s=:#]+(?:[ \t]|$)(?![^\n]*=)", re.MULTILINE)
"""After a bare value, another word that is not a `key=` of a list: the value is a sentence's word."""
_PASSWORD_WORDS = lexicon.PASSWORD


_GROUPED_CODE = lazy(r"(?<![\w-])(?=[A-Z0-9 \-]*\d)[A-Z0-9]{4,6}(?:[ \-][A-Z0-9]{4,6}){3,9}(?![\w-])")
"""A code printed in four or more groups of capitals and digits (a recovery key, a backup code)."""
_OBJECT_NAME = lazy(r"[a-z]{3,}(?:-[a-z]{2,})*-[a-z0-9]{5,10}")
"""A Kubernetes object's name: words, then the suffix a generator adds (`api-keys-7g2m9tb4kc`, `web-5d8f7`)."""
_PLUGIN_BY = lazy(r"[ \t]+['\"`]?\w+['\"`]?[ \t]+by[ \t]+", re.IGNORECASE)
"""SQL's `IDENTIFIED WITH <plugin> BY` (MySQL, ClickHouse): what follows `BY` is the password; `AS` gives
its hash, one-way, kept."""
_SET_COMMAND = lazy(r"(?:^|[\s;(])(?:set|setenv)(?:[ \t]+-[A-Za-z]+)*[ \t]+[A-Z][A-Z0-9_]*$")
"""A shell command that assigns the variable it names the value after it (fish's `set -x`, tcsh's `setenv`)."""
_ACCOUNT_PAIR = lazy(
    r"(?:^|[\s(\[,;])(?:user(?:name)?|login|u)(?:[ \t]*[:=][ \t]*|[ \t]+)[^\s/,;|]{1,64}[ \t]*[/,;|][ \t]*$",
    re.IGNORECASE,
)
"""An account's name given just before a password's (`user esp / pass ...`, `login: ops, pw ...`)."""
_ARGUMENT_QUOTES = ("'", '"')


_MAX_KEY = 64


def _properties_key(text: str, key_start: int, name_end: int) -> bool:
    """Whether a dotted key starts its line and `=` follows it with no blank (`spring.datasource.password=`):
    a `.properties` file's, whose values are never a type's or a variable's name.
    """
    line_start = text.rfind("\n", max(0, key_start - _WINDOW), key_start) + 1
    return (
        not text[line_start:key_start].strip()
        and "." in text[key_start:name_end]
        and text[name_end : name_end + 1] == "="
    )


def _quoted_end(text: str, start: int, end: int) -> int:
    """Where a quoted value read from `start` ends: at its closing quote when only punctuation that reading
    trimmed stands before it (`'Chocolate!'`), else `end`.
    """
    opener = text[start - 1 : start]
    if opener not in ("'", '"', "`"):
        return end
    close = text.find(opener, end, end + 3)
    return close if close >= 0 and not text[end:close].strip(".,;:!?") else end


def _key_start(text: str, name_start: int) -> int:
    """Where the key a name ends or stands in starts (`PGPASSWORD`, `db.password`, `smtp-pass`)."""
    key_start, least = name_start, max(0, name_start - _MAX_KEY)  # bounded: a name in a long run costs no more
    while key_start > least and (text[key_start - 1].isalnum() or text[key_start - 1] in "_.-"):
        key_start -= 1
    return key_start


_SHORT_NAMES = frozenset({"pass", "pw", "pwd", "cred", "creds"})
"""Names that are also verbs or abbreviations in prose (`when I pass 'Groceries'`): a quoted word after one is not
its value."""


def _label_line(text: str, start: int, end: int) -> bool:
    """Whether a password's name starts its line and one value ends it (`Password kavarna-Presern-7` in a
    settings screen's text, a two-column listing): the value is the label's, as after a `:` (rules v14).
    """
    line_start = text.rfind("\n", max(0, start - _WINDOW), start) + 1  # a window: a line is read in linear time
    if line_start == 0 and start > _WINDOW:
        return False  # the line starts farther back than any label's indent
    return not text[line_start:start].strip() and _LINE_END.match(text, end) is not None


def _alone(text: str, start: int, end: int) -> bool:
    """Whether the name at `text[start:end]` is a word of its own, not a short one (`pass` is a verb too),
    and not glued into an identifier or a quoted string (`resource "random_password" "x"` names a type).
    """
    before = text[start - 1 : start]
    return (
        text[start:end].lower() not in _SHORT_NAMES
        and _key_start(text, start) == start
        and before not in ("'", '"', "`")
    )


def _properties_value(text: str, name_start: int, name_end: int, value_start: int) -> tuple[int, int] | None:
    r"""A Java `.properties` line's value, to the line's end with its escapes (`db.password=ab\=cd\:ef`): the
    key is dotted and starts its line, `=` joins it to the value with no blank, and the value holds a `\`.
    """
    key_start = _key_start(text, name_start)
    line_start = text.rfind("\n", max(0, key_start - _WINDOW), key_start) + 1  # a window: linear time
    if (
        (line_start == 0 and key_start > _WINDOW)
        or text[line_start:key_start].strip()
        or "." not in text[key_start:name_start]
        or text[name_end : name_end + 1] != "="
    ):
        return None
    line_end = text.find("\n", value_start, value_start + _MAX_VALUE)
    value_end = min(len(text), value_start + _MAX_VALUE) if line_end < 0 else line_end
    value = text[value_start:value_end].rstrip()
    if "\\" not in value or " " in value or value.startswith(("$", "[REDACTED:")) or is_placeholder(value):
        return None
    return value_start, value_start + len(value)


def _quoted_argument(text: str, name_start: int, value_start: int) -> tuple[int, int] | None:
    """The value of a quoted `'name=value'` argument, up to its closing quote on the line, when the quote
    opens right before the name (`-d 'password=Morgen Rot 44'`) and the value has a letter and a digit
    or symbol, six words at most.
    """
    key_start = _key_start(text, name_start)
    quote = text[key_start - 1 : key_start]
    if quote not in _ARGUMENT_QUOTES or text[key_start - 2 : key_start - 1] not in (" ", "\t", "="):
        return None
    close = text.find(quote, value_start, value_start + _MAX_VALUE)
    if close < 0 or "\n" in text[value_start:close]:
        return None
    value = text[value_start:close]
    if not value.strip() or len(value.split()) > _MAX_PHRASE_WORDS or "=" in value or "&" in value:
        return None  # `'user=a&password=b'` is a query the judgement reads by its `&`
    if not any(c.isalpha() for c in value) or value.isalpha() or is_placeholder(value) or value.startswith("$"):
        return None
    return value_start, close


def _assigned(
    text: str,
    name_start: int,
    name_end: int,
    token_start: int,
    token_end: int,
    *,
    paired: bool = False,
    labelled: bool = False,
    query: bool = False,
) -> bool:
    """Whether the value a password's name is assigned (`name=`, `name:`) is its secret whatever its
    look: a quoted literal, a value with a digit or a symbol, or a bare word where configs write one
    (an UPPER_CASE key, a YAML or INI line's own key, a `key=value key=value` list, the second half of
    an account's pair: `user esp / pass tomato`, `paired`; with a digit or a symbol, the lone value of a line
    the name starts: `Password kavarna-Presern-7`, `labelled`), never a variable,
    a reference or a type in code. Rules v13: people choose words (`RABBITMQ_DEFAULT_PASS: gulasch`,
    `password: 'sunflower-Taco-2'`), and what names a value this plainly names nothing else. Only the
    words for password (`lexicon.PASSWORD`): a word for secret names where secrets are kept as often.
    """
    name = text[name_start:name_end].lower()
    if name not in _PASSWORD_WORDS and name not in _ENV_NAMES:
        return False
    value = text[token_start:token_end]
    opener = text[token_start - 1 : token_start]
    quoted = opener in ("'", '"', "`") and text[token_end : token_end + 1] == opener
    key_start = _key_start(text, name_start)
    upper = text[key_start:name_end].isupper()  # `PGPASSWORD`, `DB_PASS`: an environment's key (not `Password`)
    # an environment's quoted value may hold blanks (`ADMIN_PASSPHRASE="the owl flies at midnight"`): an env
    # file holds values, not messages; elsewhere a quoted phrase is more often a message ("is required.")
    shape = _ASSIGNED_PHRASE if quoted and upper and text[name_end:token_start] in ('="', "='") else None
    if (
        (shape or (_ASSIGNED_QUOTED if quoted else _ASSIGNED_PLAIN)).fullmatch(value) is None
        or value.lower() in _FIELD_WORDS
        or is_placeholder(value)
        or (is_reference(value) and not value.replace("_", "").isalnum())  # `var.ssh_password`, `op://...`
        or names_a_credential(value)  # `"password": "Пароль"`: a label's translation
    ):
        return False
    if value[0] in "$%&*!@#/.~-+=:" or (value.isdigit() and len(value) < _SHORTEST_VALUE):
        return False  # a variable, a path, a flag; a short number is a count more often than a PIN
    if _VERSION_LIKE.fullmatch(value) and sum(c.isdigit() for c in value) < _DATE_DIGITS:
        return False  # `pwd: 3.0-` in a list of modules: a version (a date or a phone number may be the password)
    if text[token_end : token_end + 1] in ("(", "[", "."):
        return False  # `password: getPassword()`, `password: cfg.pw`: code
    if name in _ENV_NAMES and name not in _PASSWORD_WORDS:
        # `NPM_TOKEN=ember47607`: a token's or a secret's name assigns its value only in an environment,
        # and only one with a digit or a symbol (`CACHE_SECRET=enabled` is a switch): rules v15
        return upper and text[name_end:token_start] == "=" and _IDENTIFIER_ONLY.fullmatch(value) is None
    if quoted:
        return True  # a literal, quoted: its writer says where it starts and ends
    if _CLAUSE_GOES_ON.match(text, token_end) and not (upper and value.islower()):
        return False  # `set /p DB_PASS=Enter DB password:`: a word the line's prose goes on from (not a
        # command after its environment: `PGPASSWORD=lagerhaus psql -h db`)
    if paired:
        return value.isalnum()  # `user esp / pass tomato`: the second half of an account's pair
    if labelled:
        return _IDENTIFIER_ONLY.fullmatch(value) is None  # `Password kavarna-Presern-7`; "Password reset" is a title
    if "/" in value:
        return False  # `--- PASS: TestLedger/fixture_1`, `password: secrets/db`: a path or a test's name
    if _IDENTIFIER_ONLY.fullmatch(value) is None:
        return True  # `kiwi_Fjord_81`, `lagerhaus2`: a digit or a symbol, no name of code
    if value.isupper() and not (upper and text[name_end:token_start] == "="):
        # `WS-PASS = SPACES`, `PASSWORD = DEFAULT`: a constant's name (an env file's `PASS=LIVERPOOL` is not)
        return False
    if upper:
        return "_" not in value  # `PGPASSWORD=lagerhaus`: an environment's key (`DB_PASS=db_pass` names one)
    if query:
        return True  # `?user=app&password=ottersleep`: a URL's query holds values, never a variable
    if not value.isalpha() or not (value.islower() or _properties_key(text, key_start, name_end)):
        return False  # `password: redisPassword`, `password: Secret`: a variable or a type
    line_start = text.rfind("\n", max(0, key_start - _WINDOW), key_start) + 1  # a window: linear time
    before = text[line_start:key_start]
    link = text[name_end:token_start]
    if not before.strip(" \t-#;") and (":" in link or " " not in link):
        return True  # `password: gulasch` (YAML), `password=gulasch` (INI): a line's own key
    return _PAIR_BEFORE.search(before) is not None  # `user=ledger password=lagerhaus`: a DSN's pairs


_TWO_WORDS_NUMBER = lazy(r"[^\W\d_]{3,12}([.\-_])[^\W\d_]{3,12}(?:\1?\d{1,4})")
"""Two words and a number (`ilish-maach-7`, `tabarnak-Poutine9`): a host's shape too (`web-app-3`), so read only
where a clause states it and ends with it, never after a preposition."""
_WORD_AND_NUMBER = lazy(r"[^\W\d_]{5,20}\d{2,4}")
_SOV_END = lazy(r"(?:[ \t]+[^\W\d_]{1,6})?[ \t]*(?:[,;!?)»」\]—–։।]|\.(?!\w)|\r?\n|$)")
"""After a value that follows its name directly: the clause's end, maybe after a short word (the copula of a
language that puts it last: Armenian `է`, Kannada `ಆಗಿದೆ` is longer and not read)."""
_LOOSE_WORDS = 5
"""Words a password's name and its value may have between them in a clause of any language (`mật khẩu
VPN mới là X`: "password VPN new is"), where no list of copulas and prepositions reaches."""


_CLAUSE_END = lazy(r"[ \t]*(?:[,;!?)»」\]—–]|\.(?!\w)|\r?\n|$)")
"""What ends a clause after a value: a comma, a stop, a bracket that closes, the line's end."""
_PLACES = frozenset(
    {"for", "of", "on", "to", "at", "in", "into", "onto", "with", "from", "by", "via", "per", "about", "behind"}
    | {"de", "du", "für", "del", "da", "di", "van", "для", "от", "auf", "an", "zu", "von", "pour", "sur", "para"}
)
"""Words after which a name stands, not a value: what the password is for (`the password for web-app-3`)."""


def _loose_link(text: str, link: str, end: int) -> bool:
    """Whether `link` is a few words of one clause (no sentence's end, no line's, no list's comma)
    that do not end in a preposition, and the value at `end` ends the clause: a value the sentence
    goes on from is its subject or object (`the password for redis-master-0 is in the vault`,
    `rotated web-app-3 keys`), not what the password is.
    """
    words = link.split()
    if len(words) > _LOOSE_WORDS or any(c in link for c in '.!?;,:\n()[]{}<>="`') or "'" in link.replace("'", ""):
        return False
    if words and words[-1].lower() in _PLACES:
        return False
    return _CLAUSE_END.match(text, end) is not None


def _chosen(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` has the look of a password a person chose, strongly enough to be read
    after a name in any language: words and a number joined (`knedlik-se-zelim-5`), capitalised words and
    a number (`Pagoto_Fraoula7`), or a keyboard walk with a digit or a symbol (`asdfjkl;1234`).
    """
    value = text[start:end]
    if names_a_credential(value) or is_placeholder(value):
        return False
    if _JOINED_WORDS.fullmatch(value) or _TITLED_WORDS.fullmatch(value) or _TWO_WORDS_NUMBER.fullmatch(value):
        return True
    if _WORD_AND_NUMBER.fullmatch(value):
        return True  # `nasilemak88`: a word and a number (not `sha256`, `base64`: a short name and its size)
    return len(value) >= _MIN_STATED and keyboard_walk(value) and not value.isalpha()


def _short_password(value: str) -> bool:
    """Four or five characters mixing a letter with a digit, no separator (`db-3`, `v1.2` and `a_b` are
    names), no variable (`$X`) and no placeholder.
    """
    return (
        _SHORT_STATED <= len(value) < _MIN_STATED
        and _PASSWORD_CHARS.fullmatch(value) is not None
        and not any(c in "-_." for c in value)
        and any(c.isalpha() for c in value)
        and any(c.isdigit() for c in value)  # `List*` is a glob, `r00t` a password
        and not value.startswith(("$", "-"))
        and not is_placeholder(value)
    )


def _random_letters(value: str) -> bool:
    """Whether `value` is a run of letters in one case that reads as drawn at random, not as words."""
    if len(value) < _MIN_RANDOM_LETTERS or not value.isascii() or not value.isalpha():
        return False
    if not (value.islower() or value.isupper()):
        return False
    if len(set(value.lower())) * 2 < len(value):
        return False  # `xxxxxxxx...`, `abababab...`: a filler or a pattern, not a draw (22 drawn hold about 14 letters)
    if sum(c in "aeiouAEIOU" for c in value) < _RARE_VOWELS * len(value):
        return True
    return max(len(run) for run in _CONSONANTS.findall(value)) >= _CONSONANT_RUN if _CONSONANTS.search(value) else False


_EMOJI = lazy("[\u2600-\u27bf\U0001f000-\U0001faff][\ufe0f\u200d]*")
"""An emoji (pictographs, dingbats) and its presentation selector or joiner."""
_SOUP = lazy(r"(?=[^\n]*[A-Z])(?=[^\n]*[a-z])(?=[^\n]*[0-9])(?![^\n]*[A-Za-z]{3})[!-~]+(?: [!-~]+){0,3}")
"""Printable ASCII, up to three single blanks, both cases and a digit, no run of three letters (no word)."""
_SOUP_LENGTH = (10, 64)
"""Ten characters or more: `An$(5,1)` in an enum's test is eight, a drawn password is longer."""
_SOUP_SYMBOLS = 3


def _symbol_soup(value: str) -> bool:
    """A generated password that holds blanks, commas or braces (which make other values a list or
    code): no word in it, both cases, a digit and three kinds of symbol or more (`{7]Lm: x,Qp}&#2`).
    """
    if not _SOUP_LENGTH[0] <= len(value) <= _SOUP_LENGTH[1] or _SOUP.fullmatch(value) is None:
        return False
    return len({c for c in value if not c.isalnum() and c != " "}) >= _SOUP_SYMBOLS and not is_placeholder(value)


_DRAWN_ALNUM = lazy(r"[a-z0-9]{4,}(?:[.\-][a-z0-9]{4,}){0,2}")
_MIN_DRAWN_ALNUM = 16


def _drawn_alnum(value: str) -> bool:
    """Lower-case letters and digits, in up to three parts, 16 characters or more, the digits in two
    places or more, and the letters drawn by their statistics (`_random_letters`): a generated token.
    """
    if len(value) < _MIN_DRAWN_ALNUM or value != value.lower() or _DRAWN_ALNUM.fullmatch(value) is None:
        return False
    if len(re.findall(r"[0-9]+", value)) < 2:
        return False
    return _random_letters("".join(c for c in value if c.isalpha()))


_TITLED_WORDS = lazy(r"(?:[A-Z][a-z]{2,12}[\-._]){1,5}(?:[A-Z][a-z]{2,12}[\-._]?)?\d{1,6}[!?#$%&*@^~]?")
"""Capitalised words joined by `-`, `.` or `_` and ended by a number: what people make of a phrase."""
_SWITCHES = 4
_PASSWORD_CHARS = lazy(r"[A-Za-z0-9_\-!#%*+=@^~$&?]+")
"""Case switches that make a stated value random rather than an identifier (`XMLHttpRequest` has 3)."""
_SHORT_NAME = 5
_GLUED_HEAD = 12
"""A config's glued prefix (`requirepass`, `masterauth`) is a short word."""
_COMPOUND_HEAD = 20
"""A compound's first noun may be longer: `Datenbankpasswort`, `Verbindungskennwort`."""
_LATIN_END = 0x250
_BAR = 2
"""Name + value must reach this, the value scoring at least 1: a moderate name and a moderate
value together are enough (chosen on fold A: with 3, 16% of its secrets leaked, mostly a
moderate name such as `clave` or `pass` before a moderate value)."""


_WORD_PART = lazy(r"[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z])")
_WORDY = 0.7
"""The share of a name's letters in words: `urlBase64ToUint8Array` 0.89, `getElementById` 0.71;
random runs of 10 to 20 characters 0.6 at the median (5,000 drawn), the Korean sample's
`tTKwTwsYftlGY1J` 0.64."""


def _wordy(value: str) -> bool:
    """Whether an identifier is made of words (a function's name), not a random run."""
    letters = sum(c.isalpha() for c in value)
    return letters > 0 and sum(len(part) for part in _WORD_PART.findall(value)) >= _WORDY * letters


_COUNTING = 0.6
"""The share of equal steps that makes a run a count: FIPS-197's key `000102...0f` steps by 1 at
every byte, `0011...ff` by 0x11; of 10,000 random hex keys of 32 and of 64, none reaches it."""


def _counting(value: str) -> bool:
    """Whether hex counts (its bytes, or its digits, step by the same amount most of the time)."""
    for width in (2, 1):
        units = [int(value[i : i + width], 16) for i in range(0, len(value) - width + 1, width)]
        steps = [(b - a) % (16**width) for a, b in itertools.pairwise(units)]
        if steps and max(steps.count(step) for step in set(steps)) >= _COUNTING * len(steps):
            return True
    return False


def _case_switches(value: str) -> int:
    return sum(1 for a, b in itertools.pairwise(value) if a.isupper() != b.isupper() and a.isalpha() and b.isalpha())


def _random_symbols(value: str) -> bool:
    """At least 32 characters of every class, six or more distinct symbols making a fifth of it,
    and no run of six lower-case letters (minified code has its keywords).
    """
    if len(value) < _SYMBOL_KEY or any(c.isspace() for c in value):
        return False
    symbols = [c for c in value if not c.isalnum()]
    return (
        len(set(symbols)) >= _SYMBOL_KINDS
        and len(symbols) * 5 >= len(value)
        and any(c.isupper() for c in value)
        and any(c.isdigit() for c in value)
        and _LOWER_RUN.search(value) is None
    )


def value_score(value: str, *, direct: bool = False) -> int:
    """0: not a credential; 1: could be one; 2: is one by its look alone. `direct`: the value
    is the one a name assigns (`password = a=b`), so a `name=` inside it is not another name's.
    """
    if not value or len(value) > 400 or (value.isalpha() and value[1:].islower()):
        return 0  # the common case first: a word of prose
    if direct and len(value) >= _SOUP_LENGTH[0] and not value.isalnum() and _symbol_soup(value):
        return 1  # `password: "{7]Lm: x,Qp}&#2"`: what a name assigns whole, blanks and commas inside
    if not value.isascii() and _EMOJI.search(value):
        plain = _EMOJI.sub("!", value)  # an emoji in a password is its symbol: `🦊Fuchsbau-9🦊`, `sk8r🛹boi2007`
        if plain.isascii():
            core = plain.strip("!")
            return value_score(core, direct=direct) if core and not core.isalpha() else 0
    if not value.isascii():
        if is_placeholder(value):
            return 0  # `sk-…1Ac7`, `•••••`: a value shown masked
        # a password in another script mixes its letters with digits or symbols (`Мышь2024!`)
        return int(len(value) >= _SHORTEST_VALUE and _MIXED_SCRIPT.fullmatch(value) is not None)
    if value.isdigit():  # a code or a PIN: the caller asks a strong name of it
        return 1 if _OTP_DIGITS[0] <= len(value) <= _OTP_DIGITS[1] else 0
    if len(value) < _SHORTEST_VALUE:
        return 0  # what every test below asks is longer: `x`, `is`, `on`
    if "$" in value and password_hash(value):
        return 0  # `ops:$apr1$salt$hash`: a password hash, one-way
    if _B32_GROUPS.fullmatch(value):
        return 2
    if _random_symbols(value):
        return 2  # a generated key full of symbols: WordPress's `AUTH_KEY` salts
    if (
        value.startswith("[REDACTED:")
        or value[0] in "/<>@&?#~.=:-'\"\\("
        or any(c in value for c in "<>,")
        or any(pair in value for pair in ("[]", "()", "{}", "||", "&&"))
        or _USER_AT.fullmatch(value)
        or (not direct and _ASSIGNED.match(value))
    ):
        return 0  # a path, a tag, a flag, another assignment, a list, `bob@corp`
    if _drawn_alnum(value) and not is_placeholder(value):
        return 1  # `9a08jv.c0izixklcxtmnze7` (a kubeadm token), not a host: one case, digits among drawn letters
    if " " in value.strip() or is_placeholder(value) or _NOT_VALUE.fullmatch(value) or is_ordinary(value):
        return 0
    if ":=" in value:
        return 0  # VBA's named argument (`Type:=2`), Go's and Pascal's assignment: code
    if ("|" in value or "/" in value) and all(_WORDLIKE.fullmatch(part) for part in re.split(r"[|/]", value) if part):
        return 0  # words joined by `|` or `/`: a pattern's alternatives (`BSS|SSID|RSN`), a relative path (`src/Api`)
    if _INTERPOLATED.search(value) or _REGEX.search(value):
        return 0  # a template (`user:{user_id}:profile`, `%(name)s`) or a regular expression (`^[A-Z]{2}\d{6}$`)
    lowered = value.lower()
    if any(word in lowered for word in ("example", "your", "placeholder", "changeme", "redacted", "dummy")):
        return 0
    if _KEYED_UUID.fullmatch(value):
        return 1  # `sdk-38af3a9f-...`: an id's shape after a prefix that says key is a vendor's key
    if looks_random(value):
        return 2
    if set(value) <= _HEX:
        if _counting(value):
            return 0  # `000102...0e0f`, `0011...eeff`: a standard's test vector counts, a key does not
        return 1 if len(value) >= _HEX_KEY else 0  # shorter hex is an id: a key id, a short commit
    if looks_like_secret(value):
        return 1
    if len(value) < 8:
        return 0
    if value.isalpha():
        return 1 if _case_switches(value) >= 2 else 0
    letters = sum(c.isalpha() for c in value)
    # letters and symbols whose case switches as often as a random run's (`BBLvXhgcFqEe_Bv`), not
    # an identifier's, which switches once a word (`getHTTPResponse_Code`)
    return int(letters * 2 >= len(value) and _case_switches(value) * 3 >= letters)


# -- reading -----------------------------------------------------------------------------------


def _escaped(text: str, start: int, at: int) -> bool:
    """Whether the character at `at` follows an odd run of backslashes (at most 8 looked at)."""
    run = 0
    while at - run - 1 >= start and run < 8 and text[at - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def _read_quoted(text: str, at: int, limit: int) -> tuple[int, int] | None:
    """The span inside the quotes opening at `at` (SQL's doubled `''` stays inside)."""
    closer = _QUOTES.get(text[at])
    if closer is None:
        return None
    escaping = text[at - 1 : at] != "\\"  # a quote escaped itself (`\"x\"` in a JSON string) closes at `\"`
    position = at + 1
    while position < limit:
        found = text.find(closer, position, limit)
        if found < 0 or text[found - 1 : found] == "\n":
            return None
        if closer == "'" and text.startswith("''", found):
            position = found + 2
            continue
        if closer == '"' and escaping and _escaped(text, at + 1, found):
            position = found + 1  # `"T\"ri\\ck"`: JSON's and most languages' escaped quote stays inside
            continue
        if "\n" in text[at + 1 : found]:
            return None
        return at + 1, found
    return None


def _braced(text: str, start: int, limit: int) -> int | None:
    """Where an ODBC connection string's braced value opening before `start` closes (`}}` stands for a
    brace inside it), if it closes on its line before `limit` and the string goes on with `;` or ends.
    """
    position = start
    while position < limit:
        found = text.find("}", position, limit)
        if found < 0 or "\n" in text[position:found]:
            return None
        if text.startswith("}}", found):
            position = found + 2
            continue
        after = text[found + 1 : found + 2]
        if after == ";" or (after in ("", "\n", "'", '"') and ";" in text[max(0, start - _WINDOW) : start]):
            return found  # a `key={...};` field, or the last one of a `;`-joined string
        return None  # `password={password!r}"`: an f-string's field, code
    return None


_CHANGED_TO = lazy(r"[ \t]*(?:->|=>|→)[ \t]*(?:\"([^\"\n]{1,128})\"|'([^'\n]{1,128})'|([^\s\"'(]{1,128}))")
"""A change's arrow and the new value after it (`terraform plan`'s `"old" -> "new"`) (rules v14)."""
_PROMPT_DEFAULT = lazy(r"\[[^\]\n]{1,40}\](?=[ \t]*:)")
"""What a prompt shows in brackets before its `:` (`aws configure`'s `[None]`, `[****ABCD]`): the value it has now."""
_Step = tuple[tuple[int, int] | None, int]
"""What reading from one position found: a token or none, and where reading goes on (-1: the line ended)."""


def _tokens(text: str, start: int, limit: int, steps: dict[int, _Step]) -> list[tuple[int, int]]:
    """Up to `_MAX_TOKENS` value candidates after `start` on its line: quoted spans or bare words.

    `steps` remembers what reading from a position found, for the whole text: the names of a
    line read the same tokens after them (`the password is the password is ...`), and each is
    read once, not once per name before it.
    """
    spans: list[tuple[int, int]] = []
    position = start
    flags = 0  # `secret set --vault-name kv --name db --value X`: a flag is read, not counted
    while position < limit and len(spans) - flags < _MAX_TOKENS:
        step = steps.get(position)
        if step is None:
            if text[position] == "\\" and text[position + 1 : position + 2] in ("'", '"'):
                close = text.find("\\" + text[position + 1], position + 2, limit)
                if close > position + 2:
                    spans.append((position + 2, close))  # `\"value\"` inside a JSON string
                    position = close + 2
                    continue
                position += 2  # the close is past this name's window: an escape as any other
                continue
            step = steps[position] = _step(text, position)
        span, position = step
        if position < 0:
            break
        if span is not None:
            spans.append(span)
            flags += text.startswith("--", span[0] - 2)  # links (`-`) were read before the flag's name
    return spans


def _step(text: str, position: int) -> _Step:
    """What reading finds at `position` (never an escaped quote, whose end the window decides)."""
    size = len(text)
    char = text[position]
    if char in "\r\n" or text.startswith(("\\n", "\\r"), position):
        return None, -1  # the line ends, really or escaped (a repr, a JSON string)
    if char == "{" and text[position - 1 : position] == "=" and text[position + 1 : position + 2] not in ("{", ""):
        braced = _braced(text, position + 1, min(size, position + _MAX_VALUE))
        if braced is not None:
            return (position + 1, braced), braced + 1  # ODBC's `Pwd={...}`: braces quote a value, `}}` is a brace
    if char == "[" and (shown := _PROMPT_DEFAULT.match(text, position)) is not None:
        return None, shown.end()  # `AWS Secret Access Key [None]: X`: a prompt's current value is part of its label
    if char in "{[":
        member = _DEFAULT_MEMBER.match(text, position)
        if member is None:
            return None, -1  # a structure: its members have names of their own
        return None, member.end()  # Terraform's `variable "x" { default = ... }`
    if char == "\\":
        if text[position + 1 : position + 2] == "u":  # `ung\u00fcltig`: the rest of a word
            position += 6
            while position < size and text[position].isalnum():
                position += 1
            return None, position
        return None, position + 2  # an escape: `\t`
    if char == "<" and (tag := _TAG.match(text, position)) is not None:
        return None, tag.end()  # `<td>password</td><td>value</td>`: a tag links a name to its value
    if char in _LINK_CHARS:
        position += 1  # a run of links is short: a loop costs less than a pattern's lookup
        while position < size and text[position] in _LINK_CHARS:
            position += 1
        return None, position
    if char in "'\"" and position > 0 and text[position - 1].isalnum():
        return None, position + 1
    if (
        char in "NEBbru"
        and text[position + 1 : position + 2] in ("'", '"')
        and not text[position - 1 : position].isalnum()
    ):
        position += 1  # SQL's `N'...'`, Python's `b"..."`: a prefix of the literal
        char = text[position]
    quoted = _read_quoted(text, position, min(size, position + _MAX_VALUE)) if char in _QUOTES else None
    if quoted is not None:
        inner_start, inner_end = quoted
        while inner_start < inner_end and text[inner_start].isspace():
            inner_start += 1
        while inner_end > inner_start and text[inner_end - 1].isspace():
            inner_end -= 1
        return (inner_start, inner_end), quoted[1] + 1
    word = _BARE.match(text, position, min(size, position + _MAX_VALUE))  # a value starting here is read whole
    if word is None:
        return None, position + 1
    end = word.end()
    if ord(text[position]) >= 0x2E80:  # CJK: the value starts where the Latin letters do
        while position < end and ord(text[position]) >= 0x2E80:
            position += 1
        if position == end:
            return None, end
        cut = position
        while cut < end and ord(text[cut]) < 0x2E80:
            cut += 1
        end = cut
    elif not text.isascii():  # `X로`, `Xに`: a particle glued after a Latin value is not part of it
        cut = position
        while cut < end and ord(text[cut]) < 0x2E80:
            cut += 1
        if cut > position:
            end = cut
    return (position, end), end


_OPENERS = {")": "(", "]": "[", "}": "{", ">": "<"}


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    if text.startswith("**", start):
        start += 2  # Markdown's bold opens: `**production-ready**`
    if "*" in text[end - 3 : end]:
        stripped = text[start:end].rstrip(".,;:")
        if stripped.endswith("**"):
            end = start + len(stripped) - 2  # and closes: `Completed:**`, `overhead**`
    while end > start and text[end - 1] in ".,;:!?)]}>'\"`\\،":  # `،`: the Arabic script's comma
        opener = _OPENERS.get(text[end - 1])
        if opener is not None and text.count(opener, start, end) >= text.count(text[end - 1], start, end):
            break  # the value opened it: `[FILTERED]` is a mask whole, and a redaction leaves no `]` alone
        if (
            text[end - 1] in "!?"
            and end - start > 6
            and not text[end - 2].isspace()
            and text[end - 1] != text[end - 2]
            and not text[start : end - 1].isalpha()
        ):
            break  # `hunter2!` keeps its symbol; "is hunter2." and "the command?" lose the stop
        end -= 1
    return start, end


_MAX_HEADER = 2048
_JSON_KEY_LINK = lazy(r"\\?\"[ \t]*:[ \t]*\\?\"?")
"""A JSON member's key closing before a value (`"hashed_secret": "`): the value is that key's."""


def _plain_header(text: str, name: int, start: int) -> bool:
    """Whether the cookies from `start` to the line's end hold plain values only (`plain_cookies`);
    after `Set-Cookie` only the first pair is the cookie, the rest are its attributes.
    """
    stop = text.find("\n", start, start + _MAX_HEADER)
    if stop < 0 and start + _MAX_HEADER < len(text):
        return False  # a header longer than any plain one
    stop = stop if stop >= 0 else len(text)
    return plain_cookies(text[start:stop].rstrip(), set_cookie=text[max(0, name - 4) : name].lower() == "set-")


def _after_name(
    text: str,
    start: int,
    end: int,
    strength: int,
    limit: int,
    steps: dict[int, _Step],
    *,
    query: bool = False,
    pin: int = 0,
) -> list[tuple[int, int]]:
    """The value a name at `text[start:end]` gives, by reading the tokens after it (a URL's
    query parameter, `query`, runs to the next `&`; `pin`: the name is a PIN's, whose value may
    be as short as four digits: 2 right after it, 1 only after a link such as `:` or `is`).
    """
    if text[start:end] == "PASS" and text[end : end + 1] == ":" and text[start - 4 : start] == "--- ":
        return []  # `--- PASS: TestLedger/x`: Go's verdict on a test, not a password's name (IRC's `PASS x` is one)
    paired = text[start - 1 : start] == "/" or "/" in text[start:end]  # `login/pass`, `u/p`: the value is a pair too
    # an account's name just before (`user esp / pass X`), a shell's `set -x NAME` (rules v13): each asked
    # first of the character or the word it must end in, once a name (a pattern per token costs prose dearly)
    pair_before = text[max(0, start - 3) : start].rstrip(" \t")[-1:] in ("/", ",", ";", "|") and (
        _ACCOUNT_PAIR.search(text, max(0, start - 80), start) is not None
    )
    set_before = (
        text[start:end].isupper()
        and "set" in text[max(0, start - 40) : start]
        and _SET_COMMAND.search(text, max(0, start - 40), start) is not None
    )
    owned = False  # the token before was an option that says what else its value is: this is that value
    previous_end = -1
    for index, (token_start, token_end) in enumerate(_tokens(text, end, limit, steps)):
        keyed = (
            index > 0
            and text[previous_end : previous_end + 1] in ('"', "\\")  # asked first: a char spares the pattern
            and _JSON_KEY_LINK.fullmatch(text, previous_end, token_start) is not None
        )
        previous_end = token_end
        if keyed:
            return []  # `"type": "Secret Keyword", ..., "hashed_secret": "<hex>"`: a later key labels its own value
        if owned:
            owned = False
            continue
        if text[token_start - 1 : token_start] == "-" and _OTHER_OPTION.fullmatch(text, token_start, token_end):
            words = _WORD_PART.findall(text[token_start:token_end])
            if words and words[-1].lower() in _TAIL_WORDS and not names_a_credential(text[token_start:token_end]):
                owned = True  # `Get-Credential -UserName 'ACME\\svc'`, `--user deploy`: that option's value
                continue
        label = text[token_end - 1] == ":" and token_end > token_start  # asked first: it spares the pattern
        if label and _CODE_LABEL.fullmatch(text, token_start, token_end):
            return []
        token_start, token_end = _trim(text, token_start, token_end)
        if query:
            cut = text.find("&", token_start, token_end)
            token_end = cut if cut >= 0 else token_end
        if paired and "/" in text[token_start:token_end]:
            token_start = text.rfind("/", token_start, token_end) + 1  # `login/pass: deploy/<password>`
        option = _NEXT_OPTION.search(text, token_start, token_end) if "=" in text[end:token_start] else None
        if option is not None:
            token_end = option.start()  # `-o username=ops,password=X,vers=3.0`: an option list, one value each
        value = text[token_start:token_end]
        if value in ("ID", "Id", "id", "IDs", "ids"):
            return []  # `Recovery key ID 6E54...`: the value after it is the key's id, not the key (rules v13)
        link = text[end:token_start].strip(" \t\"'`")
        if "<" in link and _CERT_TAG.search(link):
            return []  # `<KeyInfo><X509Certificate>...`: the nearest container holds a certificate, which is public
        direct = index == 0 and (
            link in ("=", ":", ":=")
            or (strength > 1 and bool(link) and _STATED.fullmatch(text, end, token_start) is not None)
        )  # `暗証番号は a=b`: what a strong name states is its value whole
        score = value_score(value, direct=direct)
        if score and "t:nopass" in value.lower() and text[start:end].lower() == "wifi":
            return []  # a Wi-Fi QR payload of an open network (`WIFI:T:nopass;S:...`): no password in it
        if (
            score
            and "=" in value
            and text[end - 6 : end].lower() == "cookie"
            and _plain_header(text, start, token_start)
        ):
            return []  # `Cookie: theme=dark`, `_ga=GA1.1.43128.17333`: preferences and analytics, no session
        if (
            pin
            and value.isdigit()
            and _PIN_DIGITS[0] <= len(value) <= _PIN_DIGITS[1]
            and ((pin > 1 and index == 0) or (link and _stated(text, end, token_start, link)))
        ):
            score = 2  # `disarm PIN 4831`: a PIN is four digits or more, and the word for PIN says what they are
        if (
            strength > 1
            and not value.isalpha()  # asked first: a code has digits, and prose's words spare the pattern
            and (direct or (link and _stated(text, end, token_start, link)))
        ):
            grouped = _CODE_GROUPS.match(text, token_start)
            if grouped is not None and _OTP_DIGITS[0] <= sum(c.isdigit() for c in grouped.group()) <= _OTP_DIGITS[1]:
                return [grouped.span()]  # `verification code is: 905-341`, `284 617`: a code printed in groups
            if _SHORT_CODE.fullmatch(value) and any(stem in text[start:end].lower() for stem in _CODE_STEMS):
                score = 2  # `Steam Guard code: R7K2D`: a code of letters and digits, shorter than a password
        # a phrase is stated by `:` or `=` (`is:` too), not by `is` alone: "the password is in the vault" is prose
        stated = link.endswith((":", "=", "：")) and (
            direct or (not score and strength > 1 and _stated(text, end, token_start, link))
        )
        if stated and not score and strength > 1:
            phrase = _PHRASE.match(text, token_start)
            if phrase is not None and not names_a_credential(phrase.group()):
                return [phrase.span()]  # `password: correct horse battery`: a passphrase is the rest of the line
        if score and _ARABIZI.fullmatch(value) and len(_ARABIZI_WORD.findall(text, max(0, start - _WINDOW), limit)) > 1:
            score = 0  # `el password 3'alat, 7awel tany`: Arabic in Latin letters writes sounds as digits; prose
        if value.isdigit() and strength < 2:
            score = 0  # digits are a code only where a code, PIN or password is named: `tokens: 200000` is a count
        # a long option named for the password (`--password X`) gives its value as a link states it
        flagged = (
            index == 0
            and text[end:token_start] in (" ", "=", '", "', "', '", '","', "','")
            and (text[start - 2 : start] == "--" or text.startswith("--", _key_start(text, start)))
        )  # `--password X`, `--admin-pass X` (rules v14: the option's last word names it)
        # a word of letters alone is worth nothing stated either: ask the link of the others only
        if not score and strength > 1 and not value.isalpha() and (flagged or _stated(text, end, token_start, link)):
            score = _stated_score(text, token_start, token_end)
        if (
            not score
            and strength > 1
            and index > 0
            and not value.isalpha()  # asked first: prose's words are letters alone, and spare the rest
            and _loose_link(text, link, token_end)
            and _chosen(text, token_start, token_end)
        ):
            score = 1  # rules v13: `heslo do adminu je X`, `κωδικός για το Grafana είναι X`: any language's clause
        if (
            not score
            and strength > 1
            and index == 0
            and not link
            and not value.isalpha()
            and not text[start:end].isascii()  # a name in a script whose languages put the verb last
            and _SOV_END.match(text, token_end) is not None
            and _chosen(text, token_start, token_end)
        ):
            score = 1  # `పాస్‌వర్డ్ Biryani_Hyd_91,`, `գաղտնաբառը Ararat-5165 է`: the value, then the copula or the end
        if not score and strength > 1 and direct and _short_password(value):
            score = 1  # `MYSQL_ROOT_PASSWORD=r00t`: short, but what the name assigns, a letter with a digit or a symbol
        if not score and strength > 1 and direct and _random_letters(value):
            score = 1  # `SESSION_SECRET=hqpdouldfzydaftdkhdrdi`: one case, letters only, but not a word
        if not score and strength > 1 and index == 0 and link == "=":
            argument = _quoted_argument(text, start, token_start) or _properties_value(text, start, end, token_start)
            if argument is not None:
                # `curl -d 'password=Morgen Rot 44'`, `db.password=ab\=cd`: to its quote, to its line's end
                return [argument]
        account_pair = index == 0 and not link and pair_before
        labelled = index == 0 and not link and not account_pair and _label_line(text, start, token_end)
        if index == 0 and not link and not account_pair and set_before:
            link = "="  # fish's and tcsh's `set -x PGPASSWORD kirschbaum`, `setenv DB_PASS x`: an assignment
        argv = flagged and link == "," and text[token_start - 1 : token_start] in ("'", '"')  # `["--db-pass", "X"]`
        if index == 0 and link in ("=>", "] =", "]=", "] =>", "]=>", "] :", "]:"):
            link = "="  # Puppet's and PHP's `=>`, a subscript's key: `['password'] = 'X'` (rules v15)
        if (
            not score
            and strength > 1
            and index == 0
            and (
                link in ("=", ":", ":=", "：")
                or argv
                or (
                    not link
                    and (account_pair or labelled or (text[token_start - 1] in "'\"`" and _alone(text, start, end)))
                )
            )
        ):
            whole = _quoted_end(text, token_start, token_end)  # `'Chocolate!'`: a quote keeps what prose would trim
            if _assigned(text, start, end, token_start, whole, paired=account_pair, labelled=labelled, query=query):
                score, token_end, value = 1, whole, text[token_start:whole]
                # rules v13: what a password's name is assigned is its value, a word too (`_assigned`)
        if text.startswith("[REDACTED:", token_end) or (
            text[token_end : token_end + 1] in (".", ":", "-", "_", "/")
            and text.startswith("[REDACTED:", token_end + 1)
        ):
            return []  # the rest of this token was already removed: judged as one, it was not this name's
        call = text[token_end : token_end + 1] in ("(", "[")
        if call and strength > 1 and value.lower().endswith(_HASHER_CALLS):
            hashed = _literals(text, token_end, limit)[:1]  # `'password' => Hash::make('Kangaroo2')`: what is hashed
            return [  # a literal of a few characters is a test's filler (`make_password("x" * 12)`)
                h
                for h in hashed
                if h[1] - h[0] >= _SHORT_STATED and not is_placeholder(text[h[0] : h[1]]) and text[h[0]] != "$"
            ]
        if call and value.rsplit(".", 1)[-1].replace("_", "").lower() in _TYPED_INTO:
            typed = _literals(text, token_end, limit)[:1]  # `find_element(By.ID, "pass").send_keys("X")`
            return [s for s in typed if (sc := value_score(text[s[0] : s[1]])) and sc + strength >= _BAR]
        if call and _CALLEE.fullmatch(value.rstrip("!?")) and _wordy(value.rstrip("!?")):
            score = 0  # `applicationServerKey: urlBase64ToUint8Array(...)`: a function's name, not a literal
        quoted_soup = score and text[token_start - 1 : token_start] in ("'", '"') and _symbol_soup(value)
        if (
            value.startswith(("[REDACTED:", "$"))
            or (value.startswith("{") and not quoted_soup)
            or (call and (not score or "=" in value))
        ):
            return []  # a marker, a variable, a call or a subscript (`r=function(e)`): nothing literal here
        # `/` after blanks: asked of the next two characters first, which spares the pattern most tokens
        slash = text[token_end : token_end + 1] == "/" or (
            text[token_end : token_end + 1] in (" ", "\t") and text[token_end + 1 : token_end + 2] in (" ", "\t", "/")
        )
        second = _SECOND_HALF.match(text, token_end) if slash else None
        if second is not None and value_score(second.group(1)):
            return [second.span(1)]  # `admin / S3cret`, `CorpGuest / ...`: a user, then the password
        if score and _OBJECT_NAME.fullmatch(value) and (text[start:end].lower() == "secret" or link.endswith("secret")):
            return []  # `in secret 'api-keys-7g2m9tb4kc'`: a Kubernetes Secret's name, words and a generated suffix
        if score and score + strength >= _BAR:
            changed = _CHANGED_TO.match(text, token_end + (text[token_end : token_end + 1] in ("'", '"')))
            if changed is not None:  # `password = "old" -> "new"`: a plan's or a diff's change, both the name's
                return [(token_start, token_end), changed.span(changed.lastindex or 0)]
            return [(token_start, token_end)]
        if score:
            return []  # a value-like token that does not reach the bar ends the search
    return []


def _stated_score(text: str, start: int, end: int) -> int:
    """What a value stated right after a strong name and a link is worth that would not count
    elsewhere: a word glued to digits ("the password is hunter2") or a quoted phrase
    ('the passphrase is "four words in quotes"').
    """
    value = text[start:end]
    quoted = start > 0 and text[start - 1] in _QUOTES
    if (
        quoted
        and value[:1].isalnum()
        and 2 <= len(value.split()) <= _MAX_PHRASE_WORDS
        and not value.endswith((".", "?"))
    ):
        return 1
    if (
        len(value) >= _MIN_STATED + 2
        and _PASSWORD_CHARS.fullmatch(value)  # not a path, a member, a URL
        and _case_switches(value) >= _SWITCHES
        and not is_placeholder(value)
        and "example" not in value.lower()
    ):
        return 1  # "the secret is BBLvXhgcFqEe_Bv": its case switches more often than an identifier's words
    if keyboard_walk(value):
        return 1  # `zxcvbnm,./`, `1qaz2wsx`: keys in a row, the commonest password after a word and a number
    if _JOINED_WORDS.fullmatch(value) and not names_a_credential(value) and not is_placeholder(value):
        return 1  # `gravel.mantis.oboe.frisk`, `wagon-velvet-sprout-74`: a passphrase as diceware writes it
    if _TITLED_WORDS.fullmatch(value):
        return 1  # `Draig-Goch-88`, `Correct.Horse.42`: capitalised words and a number, a person's password
    letters, digits = any(c.isalpha() for c in value), any(c.isdigit() for c in value)
    return int(len(value) >= _MIN_STATED and letters and digits and value.isalnum())


def names_a_credential(value: str) -> bool:
    """Whether `value` holds the word for password, secret or token in some language: then it
    is a label (`"Mot de passe"`, `Zugriffstoken`), not a credential.
    """
    lowered = value.lower()
    return any(word in lowered for word, strength, role in _NAMES if role == "name" and len(word) >= _SHORT_NAME)


def _before_name(text: str, at: int, strength: int) -> list[tuple[int, int]]:
    """`use X as the keystore passphrase`, `nimm X als Passwort`, `X (the staging pass)`: a value
    named after it is written.
    """
    line_start = max(text.rfind("\n", max(0, at - _WINDOW), at) + 1, at - _WINDOW)  # a window, not the line: linear
    if "(" in text[line_start:at]:
        aside = _ASIDE.search(text, line_start, at)
        group = next((g for g in (1, 2, 3, 4) if aside.group(g) is not None), 1) if aside is not None else 1
        if aside is not None and (score := value_score(aside.group(group))) and score + strength >= _BAR:
            return [aside.span(group)]
    stated = _STATED_BEFORE.search(text, line_start, at) if _VALUE_MARK.search(text, line_start, at) else None
    if stated is not None:
        named = next(g for g in ("q", "b", "c") if stated.group(g) is not None)
        if (score := value_score(stated.group(named))) and score + strength >= _BAR:
            return [stated.span(named)]
    window = text[max(0, at - _WINDOW) : at].lower()
    if not any(word in window for word in _AS_WORDS):
        return []
    found = _USED_AS.search(text, max(0, at - _WINDOW), at)
    if found is None:
        return []
    name = next(g for g in ("q", "b") if found.group(g) is not None)
    value = found.group(name)
    return [found.span(name)] if (score := value_score(value)) and score + strength >= _BAR else []


def _literals(text: str, start: int, limit: int) -> list[tuple[int, int]]:
    """The string literals of the call or tuple opening at `start`, up to its closing bracket."""
    spans: list[tuple[int, int]] = []
    position = start
    depth = 0
    while position < limit:
        char = text[position]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth <= 0:
                break
        elif char == "\n":
            break
        found = _STRING.match(text, position) if char in "\"'bruf N" else None
        if found is not None:
            group = 1 if found.group(1) is not None else 2
            spans.append((found.start(group), found.end(group)))
            position = found.end()
            continue
        position += 1
    return spans


def _held(
    text: str, end: int, limit: int, strength: int, *, every: bool = False, holder: bool = False
) -> list[tuple[int, int]]:
    """The literals after the first in a call or tuple right after the name (`Client("id", "key")`);
    `every`: all of them (a signer's secret may come first); `holder`: the name is a holder's, and
    the call assigned to it builds it (`ld_client = ldclient.Config("X")`).
    """
    if text[end - 1] == "(":
        end -= 1  # a holder named with its parenthesis: `login(`
    rest = _CALLEE_REST.match(text, end, limit)  # the rest of the callee: `Client.create`, `auth = `
    position = rest.end() if rest is not None else end
    if (
        holder
        and rest is not None
        and "=" in rest.group()
        and (callee := _CALLEE.match(text, position, limit)) is not None
        and text[callee.end() : callee.end() + 1] == "("
    ):
        position = callee.end()  # `ld_client = ldclient.Config("X")`: the client is built by the call assigned
    if position < limit and text[position] in " \t" and (applied := _APPLIED.match(text, position, limit)):
        literals = [  # `applyBasicAuth "api" "X" req`: a function applied without brackets (Haskell, OCaml, Elm)
            found.span(1 if found.group(1) is not None else 2) for found in _STRING.finditer(text, *applied.span())
        ]
    elif position >= limit or text[position] not in "([":
        return []
    else:
        literals = _literals(text, position, limit)
    if not every:
        literals = literals[1:] if len(literals) > 1 else literals  # `Client::new("key")` has only the key
    spans: list[tuple[int, int]] = []
    for span in literals:
        value = text[span[0] : span[1]]
        score = value_score(value)
        if not score and value.count(" ") == 1 and all(_PASSWORD_CHARS.fullmatch(p) for p in value.split(" ")):
            # H2's `"filePassword userPassword"`: two passwords in one literal, each judged
            cut = span[0] + value.index(" ")
            spans.extend(
                part
                for part in ((span[0], cut), (cut + 1, span[1]))
                if (sc := value_score(text[part[0] : part[1]])) and sc + strength >= _BAR
            )
        elif score and score + strength >= _BAR:
            spans.append(span)
    return spans


def _created(text: str, end: int, limit: int, strength: int) -> list[tuple[int, int]]:
    """The quoted operands after the account's name that a directive creating it is given on its line."""
    if text[end : end + 1] not in (" ", "\t"):
        return []  # `createUser({user: ...})`, `createUser(`: a call's members have names of their own
    line_end = text.find("\n", end, limit)
    line_end = limit if line_end < 0 else line_end
    first = re.match(r"[ \t]+[\w.@\-]+", text[end:line_end])
    if first is None:
        return []  # the account's name comes first, bare
    spans = []
    for found in _STRING.finditer(text, end + first.end(), line_end):
        span = found.span(1 if found.group(1) is not None else 2)
        if (score := value_score(text[span[0] : span[1]])) and score + strength >= _BAR:
            spans.append(span)
    return spans


def _code_block(text: str, end: int, limit: int) -> list[tuple[int, int]]:
    """The block of code lines after a plural code label (`recovery codes:`)."""
    newline = text.find("\n", end, limit)
    if newline < 0:
        return []
    position = newline + 1
    first, last, lines, with_digits = -1, -1, 0, 0
    while position < len(text) and lines < 20:
        found = _CODE_LINE.match(text, position)
        if found is None or found.end() == position:
            break
        first = found.start(1) if first < 0 else first
        last = found.end(1)
        lines += 1
        with_digits += any(c.isdigit() for c in found.group(1))
        position = found.end()
    return [(first, last)] if lines >= 2 and with_digits * 2 >= lines else []


def _cat_output(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The first line a `cat` of a file named after a credential printed."""
    line_start = max(text.rfind("\n", max(0, start - _WINDOW), start) + 1, start - _WINDOW, 0)
    while end < len(text) and not text[end].isspace() and text[end] != "\\" and end - start < _WINDOW:
        end += 1
    segment = text[line_start:start].lower()
    if not any(verb in segment for verb in _CAT_VERBS) or _CAT.search(text, line_start, end) is None:
        return []
    found = _LINE_BREAK.search(text, end, end + _WINDOW)
    if found is None or text[end : found.start()].strip():
        return []
    following = _LINE_BREAK.search(text, found.end(), found.end() + _WINDOW)
    stop = following.start() if following is not None else min(len(text), found.end() + _WINDOW)
    newline = found.end() - 1
    line = text[found.end() : stop].rstrip()
    if (
        not line
        or "[REDACTED:" in line
        or line.startswith(("$", ">", "#", "PS"))
        or value_score(line.split(":")[-1]) == 0
    ):
        return []  # `value_score` keeps an `.htpasswd`'s `user:$apr1$salt$hash` (`password_hash`): one-way
    return [(newline + 1, newline + 1 + len(line))]


_CAPTION = lazy(r"[ \t>]*#[ \t]*[~/.][^\s]{1,200}(?:[ \t][^\n]{0,120})?")
"""A comment whose first word is a file's path: the caption of the file's lines shown below it."""
_CAPTIONED_LINES = 4


def _captioned_file(text: str, at: int, end: int, strength: int) -> list[tuple[int, int]]:
    """The lines of a file shown under a caption naming its path, on a name's line (`#
    /etc/openvpn/acme.auth (auth-user-pass)` over `user` and `password`): each line is judged
    alone, as a `cat` of the file would print it, down to a blank line.
    """
    line_start = text.rfind("\n", max(0, at - _WINDOW), at) + 1
    if not text[line_start : line_start + 8].lstrip(" \t>").startswith("#"):
        return []  # asked first: most names stand on no comment's line, and the pattern costs more
    line_end = text.find("\n", end, end + 2 * _WINDOW)
    if line_end < 0 or _CAPTION.fullmatch(text, line_start, line_end) is None:
        return []
    spans: list[tuple[int, int]] = []
    position = line_end + 1
    for _ in range(_CAPTIONED_LINES):
        stop = text.find("\n", position, position + _WINDOW)
        stop = stop if stop >= 0 else min(len(text), position + _WINDOW)
        line = text[position:stop].strip()
        if not line or " " in line or line.startswith(("#", "$", ">")):
            break
        score = value_score(line)
        if score and score + strength >= _BAR:
            start = text.index(line, position)
            spans.append((start, start + len(line)))
        position = stop + 1
    return spans


_VALUE_LINE = lazy(r"[ \t]*(?:new |generated |the )?value[ \t]*:[ \t]*(\S{4,128})[ \t]*(?:\r?\n|$)", re.IGNORECASE)
"""A line that labels its value only as a value (`New value: ...`), as a tool prints what it just set."""


def _value_below(text: str, end: int, strength: int) -> list[tuple[int, int]]:
    """The value on the line below the name's line when that line labels it only `value` (`New value:`):
    Elasticsearch's `Password for the [elastic] user successfully reset.` then `New value: X`.
    """
    newline = text.find("\n", end, end + _WINDOW)
    if newline < 0 or text.find("alue", newline, newline + 24) < 0:
        return []  # asked first: most names have no `value` on the line below
    found = _VALUE_LINE.match(text, newline + 1)
    if found is None:
        return []
    score = value_score(found.group(1), direct=True)
    return [found.span(1)] if score and score + strength >= _BAR else []


def _sent(text: str, at: int, end: int) -> list[tuple[int, int]]:
    r"""What an `expect` script sends after a prompt the name is in (`expect "Password:"` then
    `send "...\r"` on the next line): the answer to the prompt.
    """
    line_start = max(text.rfind("\n", max(0, at - _WINDOW), at) + 1, at - _WINDOW)  # a window: linear
    head = text[line_start:at]
    if not head.lstrip().startswith("expect") and "expect " not in head:
        return []
    newline = text.find("\n", end, end + _WINDOW)
    semicolon = text.find(";", end, newline if newline >= 0 else min(len(text), end + _WINDOW))
    if semicolon >= 0:  # `expect "password:"; send "...\r"` in one `-c` script
        found = _SEND.match(text, semicolon + 1)
    else:
        found = _SEND.match(text, newline + 1) if newline >= 0 else None
    if found is None or is_placeholder(found.group(1)) or found.group(1).startswith(("$", "[")):
        return []  # a variable (`send "$pw\r"`), an expression: the script's source holds no password
    return [found.span(1)]  # what answers a password's prompt is the password, whatever it looks like (rules v13)


def _column(text: str, at: int, end: int, strength: int) -> list[tuple[int, int]]:
    """The cells below a column the name heads: a table's header (`| name | token |`) or a
    `SELECT name, token FROM` whose rows a client printed (`| slack | <value> |`).
    """
    line_start = text.rfind("\n", max(0, at - _WINDOW), at) + 1
    line_end = text.find("\n", end, end + _WINDOW)
    head = text[line_start:at]
    if line_end >= 0 and "," in text[line_start:line_end] and _CSV_HEADER.fullmatch(text, line_start, line_end):
        return _csv_column(text, head.count(","), line_end, strength)
    if line_end >= 0 and head.lstrip().startswith("#"):
        commented = _commented_column(text, line_start, at, line_end, strength)
        if commented:
            return commented
    if line_end < 0 or ("|" not in head and "elect" not in head.lower()):
        return []  # a header is a short line with rows below it
    if "|" in head and "|" in text[end:line_end]:
        if _BODY_ROW.search(text, max(0, line_start - _TABLE_ROWS * _WINDOW), line_start):
            return []  # below a Markdown table's `|---|`: a body row, whose cells head nothing
        index = head.count("|")
    else:
        select = _SELECT.search(head)
        if select is None or not text[end:line_end].lstrip().lower().startswith(("from", ",")):
            return []
        index = head[select.end() :].count(",") + 1  # a row's first cell follows its opening `|`
    spans: list[tuple[int, int]] = []
    for row in _ROW.finditer(text, line_end, min(len(text), line_end + 20 * _WINDOW)):
        cells = row.group().split("|")
        if len(cells) <= index + 1:
            break
        offset = row.start() + sum(len(c) + 1 for c in cells[:index])
        cell = cells[index]
        value = cell.strip()
        start = offset + len(cell) - len(cell.lstrip())
        if value and value_score(value) and value_score(value) + strength >= _BAR:
            spans.append((start, start + len(value)))
    return spans


_BODY_ROW = lazy(r"(?:^|\n)[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[^\n]*\n(?:[ \t]*\|[^\n]*\n){0,8}$")
"""A Markdown table's separator row and body rows down to the line at hand."""
_HEADER_WORDS = lazy(r"[ \t]*#+[ \t]*[A-Za-z][\w\-]*(?:[ \t]+[A-Za-z][\w\-]*){2,11}[ \t\r]*")
"""A comment that is only words, three to twelve: the header of the columns below (`# client server secret IP`)."""
_TABLE_ROWS = 20


def _commented_column(text: str, line_start: int, at: int, line_end: int, strength: int) -> list[tuple[int, int]]:
    """The cells below a column a commented header names, in rows split by blanks (ppp's
    `chap-secrets`: `# client server secret IP addresses` over `branch07 * <secret> 10.0.0.7`).
    """
    if not _HEADER_WORDS.fullmatch(text, line_start, line_end):
        return []
    index = len(text[text.index("#", line_start) : at].lstrip("#").split())
    spans: list[tuple[int, int]] = []
    position = line_end + 1
    for _ in range(_TABLE_ROWS):
        stop = text.find("\n", position)
        stop = len(text) if stop < 0 else stop
        line = text[position:stop]
        if not line.strip():
            break  # a blank line ends the table
        if not line.lstrip().startswith("#"):
            cells = list(re.finditer(r"\S+", line))
            if len(cells) < 3 or len(cells) <= index:
                break  # a row of a table has its columns; a sentence or code is no row
            value = cells[index].group()
            if (score := value_score(value)) and score + strength >= _BAR:
                spans.append((position + cells[index].start(), position + cells[index].end()))
        position = stop + 1
        if position >= len(text):
            break
    return spans


_NAME_ATTRIBUTE = lazy(r"(?:^|[\s<])[\w:\-]*name[ \t]*=[ \t]*[\"'][^\"'<>\n]*$", re.IGNORECASE)
_NAME_FIELD = lazy(r"(?:^|[\s{,\-])[\"']?(?:name|key)[\"']?[ \t]*:[ \t]*[\"']?[\w.\-]*$")
"""A mapping's `name:` or `key:` field whose value is the name at hand (YAML or JSON)."""
_VALUE_FIELD = lazy(r"[\s{,][\"']?value[\"']?[ \t]*:[ \t]*([\"']?)([^\s\"',{}\[\]]{1,400})\1(?=[\s,}]|$)")
"""The sibling field that holds that name's value."""
_NAME_FIELD_AGAIN = lazy(r"[\s{,\-][\"']?(?:name|key)[\"']?[ \t]*:|\n[ \t]*\n")
"""Another entry's name, or a blank line, between: the value is not this name's."""
_VALUE_ATTRIBUTE = lazy(r"[\s][\w:\-]*(?:value|content)[ \t]*=[ \t]*([\"'])([^\"'<>\n]{1,400})\1", re.IGNORECASE)
"""An element that names its value in one attribute and holds it in another (Android's
`<meta-data android:name= android:value=>`, .NET's `<add key= value=>`, `<param name= value=>`)."""
_ANNOTATION = lazy(r"[\w\-]*[ \t]*:[ \t]*(?![\"'`])[\w\[\]<>&*.,? \t]{0,39}[\w\]>*?](?=[ \t]+=[ \t]*[^=>\s])")
"""A type annotation between a name and its `=`: Zig's `[]const u8`, TypeScript's `string`, Rust's `&str`."""
_CSV_HEADER = lazy(r"[ \t]*\"?[A-Za-z_][\w .\-]{0,40}\"?(?:[ \t]*,[ \t]*\"?[A-Za-z_][\w .\-]{0,40}\"?){1,40}[ \t\r]*")
"""A CSV header: names joined by commas, nothing else on its line (`email,display_name,temp_password`)."""
_CSV_ROWS = 20


def _csv_column(text: str, index: int, line_end: int, strength: int) -> list[tuple[int, int]]:
    """The cells of column `index` in the CSV rows below a header the name is in."""
    spans: list[tuple[int, int]] = []
    position = line_end + 1
    for _ in range(_CSV_ROWS):
        row_end = text.find("\n", position, position + 4 * _WINDOW)
        row_end = row_end if row_end >= 0 else min(len(text), position + 4 * _WINDOW)
        cells = text[position:row_end].split(",")
        if len(cells) <= index or not text[position:row_end].strip():
            break
        offset = position + sum(len(c) + 1 for c in cells[:index])
        cell = cells[index].rstrip("\r")
        value = cell.strip().strip('"')
        start = offset + cell.find(value) if value else offset
        if value and (score := value_score(value)) and score + strength >= _BAR:
            spans.append((start, start + len(value)))
        if row_end >= len(text):
            break
        position = row_end + 1
    return spans


def _encoded(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """`"id:secret" | base64`, `b64encode(b"id:secret")`: the secret half of the pair."""
    piped = text[start] == "|" or text[max(0, start - 8) : start].rstrip().endswith(("|", "| sudo"))  # `| chpasswd`
    window = text[max(0, start - 200) : start] if piped else text[end : end + 200]
    offset = max(0, start - 200) if piped else end
    literals = list(_STRING.finditer(window))
    if not literals:
        return []
    found = literals[-1] if piped else literals[0]  # the literal nearest the encoder
    group = 1 if found.group(1) is not None else 2
    value = found.group(group)
    if "[REDACTED:" in value:
        return []
    colon = value.rfind(":")
    if colon <= 0 or value_score(value[colon + 1 :]) == 0:
        return []
    return [(offset + found.start(group) + colon + 1, offset + found.end(group))]


def _decoded(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A hex or base64 literal given to a decoder: `bytes.fromhex("...")`, `Buffer.from("...", "hex")`."""
    if text[start] in "'\"":  # `, 'hex')`: the literal is the one just before
        close = start - 1
        while close > 0 and text[close] in " ,":
            close -= 1
        opening = text.rfind(text[close], max(0, close - 400), close) if text[close] in "'\"" else -1
        value = text[opening + 1 : close]
        return [(opening + 1, close)] if opening >= 0 and value_score(value) else []
    else:
        opening = text.find("(", end, end + 3)
        found = _STRING.match(text, opening + 1) if opening >= 0 else None
    if found is None:
        return []
    group = 1 if found.group(1) is not None else 2
    value = found.group(group)
    return [(found.start(group), found.end(group))] if value_score(value) else []


# -- finding -------------------------------------------------------------------------------------


def _bounded(text: str, folded: str, at: int, word: str) -> bool:
    """A Latin-script name must start a word (`DB_PASSWORD`, `dbPassword` count; `bypass` does
    not), and a short one end it too (`authority`, `keyboard`, `codec` are other words; a
    plural or a camel-case continuation is not); CJK ones are written without blanks.
    """
    end = at + len(word)
    glued = (
        word.isascii()
        and len(word) < _SHORT_NAME
        and end < len(text)
        and text[end].isalpha()
        and ord(text[end]) < _LATIN_END  # `PIN码`: a Latin word ends where another script starts
    )
    if glued and not (text[end].isupper() or (text[end] == "s" and not text[end + 1 : end + 2].isalpha())):
        return False
    before = folded[at - 1] if at else " "
    if at >= 2 and folded[at - 2] == "\\" and before in "nrt":
        return True  # `\npassword`: an escaped newline in a JSON string or a repr starts a word
    if (
        len(word) >= _SHORT_NAME
        and text[at].isupper()
        and text[at - 1].isupper()
        and text[at : at + len(word)].isupper()
    ):
        return True  # glued in a shouted name: `PGPASSWORD`, `NPMTOKEN`
    if (
        (word in _GLUABLE or word == "key")
        and at
        and text[at - 1].isupper()
        and text[at : at + len(word)].isupper()
        and text[end : end + 1] in ("=", ":")
    ):
        return True  # a short name ending a shouted key: LoRaWAN's `AT+APPKEY=`, `DBPW=`
    if not (before.isalpha() and ord(before) < _LATIN_END and word[0].isalpha() and ord(word[0]) < _LATIN_END):
        # other scripts glue articles and prefixes to the word: Hebrew `הסיסמה`, Arabic `الرمز`
        return True
    if word in _GLUABLE and not text[end : end + 1].isalnum() and text[end : end + 1] != "(":
        compound = len(word) > _SHORT_NAME  # `Datenbankpasswort`, `adminjelszó`: a compound noun
        head = at
        while (
            head > 0
            and text[head - 1].islower()
            and ord(text[head - 1]) < _LATIN_END
            and at - head < (_COMPOUND_HEAD if compound else _GLUED_HEAD)
        ):
            head -= 1
        if compound and head >= 1 and head < at and text[head - 1].isupper() and ord(text[head - 1]) < _LATIN_END:
            head -= 1  # the capital a German or Dutch noun starts with
        glued_to = folded[head:at]
        if (
            head < at
            and not text[head - 1 : head].isalnum()
            and glued_to not in _VERBS
            and folded[head:end] not in _NOT_GLUED
        ):
            return True  # `requirepass`, `masterauth`
    if text[at].isupper() and text[at - 1].isupper() and text[at + 1 : at + 2].islower():
        return True  # after an acronym: `SendGridAPIClient`, `JWTSecret`
    return text[at].isupper() and text[at - 1].islower()


_IDENTIFIER = 80
_IDENTIFIER_BEFORE = lazy(rf"(?:[\w.+/\-](?!\\)){{0,{_IDENTIFIER}}}")
"""An identifier's characters before a name, read on the reversed text: a character an escape's backslash
precedes is not one (`\\nIdempotency-Key`: the `n` belongs to an escaped newline)."""
_IDENTIFIER_AFTER = lazy(rf"[\w+/\-]{{0,{_IDENTIFIER}}}")


def _public(text: str, folded: str, start: int, end: int, *, encrypted: bool = False) -> bool:
    """Whether the identifier around the name says it is public (`PublicKey`, `client_id`), or
    the "name" is letters inside a random run (`...xPw9...` in a key) and names nothing.
    """
    # the identifier the name stands in, each side one match (read back on the reversed text) where it goes on
    left, right = start, end
    if start and (folded[start - 1].isalnum() or folded[start - 1] in "_-.+/"):
        back = _IDENTIFIER_BEFORE.match(folded[max(0, start - _IDENTIFIER - 1) : start][::-1])
        left -= back.end() if back is not None else 0  # it always matches, if only nothing
    if folded[end : end + 1].isalnum() or folded[end : end + 1] in ("_", "-", "+", "/"):
        ahead = _IDENTIFIER_AFTER.match(folded, end)
        right = ahead.end() if ahead is not None else end
    identifier = folded[left:right]
    words = re.findall(r"[a-z]+", identifier)
    if any(w in _NOT_SECRET_WORDS for w in words):
        return True  # `Idempotency-Key`, `cache_key`, `partition key`: a key that opens nothing
    before = folded[max(0, left - 24) : left].strip()
    previous = _WORD_BREAK.split(before) if "\\" in before else before.split()
    if previous and previous[-1].strip("\"'`*") in _NOT_SECRET_WORDS:
        return True  # `cache key: ...`, `partition key ...`: the word before says what key
    if previous and previous[-1] in _ALGORITHMS and identifier == "key":
        return True  # `gpg: using EDDSA key <fingerprint>`: a key named by its algorithm, in a listing
    if words and words[-1].removesuffix("s") in _TAIL_WORDS and words[-1] not in folded[start:end]:
        return True  # `password_min_length`, `token_url`: the last word says what the value is
    camel = _CAMEL_TAIL.search(text, end, right) if right - end > 1 and text[right - 1].islower() else None
    if camel is not None and camel.group().lower().removesuffix("s") in _TAIL_WORDS:
        return True  # `pwdMaxAge`, `pwdChangedTime`: camelCase's last word says what it is (the folded text cannot)
    tail = _TAIL_LABEL.match(folded, right) if folded[right : right + 1] in (" ", "\t") else None
    if tail is not None and tail.group(1).removesuffix("s") in _TAIL_WORDS:
        return True  # `api key id: ...`, `token type: bearer`: the label's last word, after a blank
    blank = max(
        folded.rfind(" ", max(0, start - 200), start),
        folded.rfind("\n", max(0, start - 200), start),
    )
    escaped = folded.rfind("\\n", max(0, start - 200), start)
    blank = max(blank, escaped + 1 if escaped >= 0 else -1)  # an escaped line break ends a URL too (a repr, JSON)
    # so does a quote (RFC 3986 has none): a JSON string's end
    blank = max(blank, folded.rfind('"', max(0, start - 200), start))
    if (
        "://" in folded[blank + 1 : start]
        and folded[left - 1 : left] not in ("?", "&", "#")
        and not folded.endswith("&amp;", 0, left)  # a query written in XML or HTML: a parameter too (rules v15)
    ):
        return True  # inside a URL: its userinfo is the URL rule's to judge
    if "rn:" in folded[blank + 1 : start] and _IN_ARN.search(folded, blank + 1, start):
        return True  # inside an ARN or a URN (`arn:aws:secretsmanager:...:secret:prod/db/password`): it names a place
    marker = folded.rfind("[redacted:", max(0, start - 40), start)
    if marker >= 0 and "]" not in folded[marker:start]:
        return True  # `[REDACTED:github-token]` names what was removed; it is not a name
    if right - left >= 20 and looks_random(text[left:right]):
        return True
    if encrypted and under_encrypted_heading(text, folded, start):
        return True  # SealedSecret's `encryptedData:` holds ciphertext under each name
    if "." in identifier and _HOST.fullmatch(identifier.strip(".")):
        return True  # `auth0.com`, `api.token.io`: a host, not a name
    if text[right - 2 : right] == "Id" and text[right - 3 : right - 2].islower():
        return True  # `credentialId`, `tokenId`: camelCase's last word says id (the folded text cannot)
    return any(word in identifier for word in _PUBLIC_WORDS) or identifier.endswith(("_id", "-id", 'id"', "ids"))


_PRINTERS = (
    # a command line whose output is a secret, as data: a password manager's `show`, a CLI's token
    # printer, a decode; at the start of its line (after a prompt), its output the next line
    r"^[ \t]*(?:[$#>%][ \t]*|PS[^>\n]{0,40}>[ \t]*)?"
    r"(?:(?:pass(?:[ \t]+show)?[ \t]+[\w.@/\-]+|gopass(?:[ \t]+show)?|op[ \t]+read|bw[ \t]+get[ \t]+password"
    r"|gh[ \t]+auth[ \t]+token"
    r"|security[ \t]+find-(?:generic|internet)-password\b[^\n]{0,200}?[ \t]-w"
    r"|gcloud[ \t]+auth[ \t]+print-(?:access|identity)-token|az[ \t]+account[ \t]+get-access-token\b[^\n]{0,200}?tsv"
    r"|vault[ \t]+(?:kv[ \t]+get|read)[ \t][^\n]{0,200}?-field[ =]"
    r"|aws[ \t]+secretsmanager[ \t]+get-secret-value\b[^\n]{0,300}?text)",
    r"|[^\n]{0,300}?\|[ \t]*base64[ \t]+(?:-d|--decode|-D)\b",
    r")(?:[ \t][^\n|;&]{0,300})?(?:[ \t]*;[ \t]*echo[ \t]*)?\r?\n(?P<v>[^\n]{6,200})",  # `; echo`: a line break after
)
_PRINTER = lazy("".join(_PRINTERS), re.MULTILINE)
_NAMED_PRINTER = lazy(_PRINTERS[0] + _PRINTERS[2], re.MULTILINE)
"""`_PRINTER` less the decode, for a text without `base64` (where it cannot match): its walk along each line
to a `|` cost 0.05 ms of the bench's typical 2 KB turn."""
_PRINTED_PASSWORD = (
    *(".password", "=password", "-password", "_password", " password", "passwd", "passphrase"),
    *("pass show", "gopass show"),  # `pass`'s first line is the password, by its convention
)
"""A printer's command line that names a password field (`jsonpath='{.data.password}'`, `-field=password`,
`find-generic-password`)."""
PRINTED_TRIGGERS: tuple[str, ...] = (
    *("pass", "op read", "bw get", "find-generic", "find-internet", "auth token", "print-", "get-access-token"),
    *("-field", "get-secret-value", "base64 -d", "base64 --decode", "base64 -D"),
)
"""A command that prints a secret stands in the text (the pattern is asked only then)."""


def find_printed(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The first line a command that prints a secret printed (`pass show db`, `gh auth token`,
    `vault kv get -field=password`, `... | base64 -d`): a credential when it looks like one.
    """
    edits: list[tuple[int, int, str]] = []
    for found in (_PRINTER if "base64" in text else _NAMED_PRINTER).finditer(text):
        value = found.group("v").strip()
        command = folded[found.start() : found.start("v")]
        # a command that names a password as what it prints (`{.data.password}`, `-field=password`) printed
        # the password, whatever it looks like (`ruokala`): rules v14
        named = " " not in value and any(word in command for word in _PRINTED_PASSWORD)
        if (
            value
            and not value.startswith(("$", ">", "#", "[REDACTED:"))
            and "(" not in value
            and (named or value_score(value))
        ):
            start = found.start("v") + len(found.group("v")) - len(found.group("v").lstrip())
            edits.append((start, start + len(value), KIND))
    return edits


PAIR_TRIGGERS = (" p:", " p=", " p :", "?k=", "&k=", "#k=")
"""A one-letter label stands in the text: `p` after a user (so after a blank: `http:` is no trigger, and
the rule no longer runs on every text with a URL; a tab before it is not looked for: each trigger
costs a pass over every text), `k` (key) as a URL's parameter."""
_QUERY_KEY = lazy(r"k=(?P<v>[^&#\s\"'<>`]{6,256})")
"""`?k=...`: the abbreviation for key APIs take in a query; its value is judged like a key's."""
_PAIR_USER = lazy(
    r"(?:^|[\s(\[,;|])(?:u|usr|user|username|login)[ \t]*[:=][ \t]*[^\s:=]{1,64}[ \t]*[,;/|]?[ \t]+$", re.MULTILINE
)
_PAIR_VALUE = lazy(r"p[ \t]*[:=][ \t]*(?P<v>[^\s]{1,128})")
"""`u: admin p: X`, `user=ops p=X`: a password labelled by its initial after a user label, on one line."""


def find_pairs(text: str, folded: str) -> list[tuple[int, int, str]]:
    """The value of a one-letter `p` label that follows a user label on its line (`u: admin p: X`):
    `p` alone names nothing, after a user it names the password.
    """
    edits: list[tuple[int, int, str]] = []
    for trigger in PAIR_TRIGGERS[3:]:  # no trigger overlaps itself: each `find` may go on past the last
        for at in occurrences(folded, trigger):
            found = _QUERY_KEY.match(text, at + 1)
            if found is not None and (score := value_score(found.group("v"))) and score + 1 >= _BAR:
                edits.append((*found.span("v"), KIND))
    for trigger in PAIR_TRIGGERS[:3]:
        for blank in occurrences(folded, trigger):
            at = blank + 1  # the label, past the blank its trigger starts with
            line_start = max(text.rfind("\n", max(0, at - _WINDOW), at) + 1, at - _WINDOW, 0)
            if (at == 0 or text[at - 1] in " \t") and _PAIR_USER.search(folded, line_start, at):
                found = _PAIR_VALUE.match(text, at, min(len(text), at + _MAX_VALUE))
                if found is not None:
                    start, end = _trim(text, *found.span("v"))
                    if value_score(text[start:end], direct=True):
                        edits.append((start, end, KIND))
    return edits


TOLD_TRIGGERS = ("change it", "bumped", "rotate it", "reset it", "revoke it", "you in", "me in")
"""What is said of a credential alone, which nothing else is: changed after first use, its year bumped, rotated,
what a lock wants before it "lets you in" (`you in`, `me in`: one trigger for `let`/`lets`; "see you in"
only costs its sentence a pattern)."""
_APPOSITION = lazy(r"(?:,|\bso)[ \t]+(?P<v>[^\s,]{8,64}?)(?=[ \t]*(?:,|\bnow\b|[.!?]?(?:\s|$)))", re.IGNORECASE)
"""A value set off in a sentence: between commas (", X,") or stated with "so X now"."""
_SENTENCE = 200
_LOCK_TRIGGERS = ("you in", "me in")
"""Of `TOLD_TRIGGERS`, those read only for what a lock asks (`_ASKED`): "sent me in chat" sets nothing off."""
_ASKED = lazy(
    r"\b(?:wants|takes|asks[ \t]+for|needs|expects|accepts)[ \t]+(?P<v>[^\s,]{8,64}?)(?=[ \t]+(?:before|to|and)\b)"
)
"""What a lock asks for before it "lets you in": "now it wants X before it lets you in"."""


def find_told(text: str, folded: str) -> list[tuple[int, int, str]]:
    """A credential nothing names but its sentence's lifecycle: "use what's on the sticker, X, and
    change it after", "my usual one with the year bumped, so X now". The value is set off (between
    commas, or "so X now") and must hold letters and digits and look like a credential.
    """
    places = sorted((at, trigger in _LOCK_TRIGGERS) for trigger in TOLD_TRIGGERS for at in occurrences(folded, trigger))
    edits: list[tuple[int, int, str]] = []
    scanned = {False: 0, True: 0}  # each sentence is read once per reading, however many triggers it holds
    for at, lock in places:
        start = max(0, at - _SENTENCE)
        stop = min(len(text), at + _SENTENCE)
        for end_mark in ("\n", "\\n", ". ", "! ", "? "):  # a line ends really or escaped (a repr)
            cut = text.rfind(end_mark, start, at)
            start = max(start, cut + len(end_mark)) if cut >= 0 else start
            cut = text.find(end_mark, at, stop)
            stop = min(stop, cut) if cut >= 0 else stop
        start = max(start, scanned[lock])
        for found in (_ASKED if lock else _APPOSITION).finditer(text, start, stop):
            value = found.group("v").rstrip(".!?")
            if (
                any(c.isdigit() for c in value)
                and any(c.isalpha() for c in value)
                and not names_a_credential(value)
                and value_score(value)
            ):
                edits.append((found.start("v"), found.start("v") + len(value), KIND))
        scanned[lock] = max(scanned[lock], stop)
    return edits


def find_judged(text: str, folded: str) -> list[tuple[int, int, str]]:
    """Every value a name and its look together mark as a credential, as `(start, end, kind)`."""
    names = _ASCII_NAMES if text.isascii() else _NAMES
    if not text.isascii():
        lowered = text.lower()  # Cyrillic and Greek names fold too; the engine folds only ASCII
        folded = lowered if len(lowered) == len(text) else folded
    hits = (_ASCII_ANCHORS if names is _ASCII_NAMES else _ALL_ANCHORS).hits(folded)
    encrypted = "encrypted" in folded  # asked once: a heading above is looked for only in a text that has one
    taken = bytearray(len(text) + 1)  # where a longer name was already read: `password` holds `pass`
    edits: list[tuple[int, int, str]] = []
    steps: dict[int, _Step] = {}
    printed = "=>" in text or "< " in text or "Out[" in text  # asked once: a REPL's result below a moderate name
    next_from = [0] * len(names)  # a name's occurrences do not overlap each other
    for index, at in hits:
        word, strength, role = names[index]
        if at < next_from[index]:
            continue
        end = next_from[index] = at + len(word)
        if (
            not taken[at]
            and _bounded(text, folded, at, word)
            and not _public(text, folded, at, end, encrypted=encrypted)
        ):
            taken[at:end] = b"\x01" * (end - at)
            limit = min(len(text), end + _WINDOW)
            spans = _spans(text, folded, at, end, word, strength, role, limit, steps, printed=printed)
            edits.extend((s, e, KIND) for s, e in spans if e > s)
    return sorted(edits)


def _spans(
    text: str,
    folded: str,
    at: int,
    end: int,
    word: str,
    strength: int,
    role: str,
    limit: int,
    steps: dict[int, _Step],
    *,
    printed: bool = False,
) -> list[tuple[int, int]]:
    if role == "encoder":
        return _encoded(text, at, end)
    if role == "decoder":
        return _decoded(text, at, end)
    if role == "account":
        return _question(text, end, limit, strength) or _account_stated(text, end, limit, strength)
    if role == "creator":
        return _created(text, end, limit, strength)
    held = _held(text, end, limit, strength, every=role == "signer", holder=role == "holder")
    if held or role in ("holder", "signer"):
        return held
    quoted = text[end : end + 1] in ("'", '"') and (
        text.find("arg", end, end + 16) > 0 or text.find("param", end, end + 16) > 0  # a `find` spares the pattern
    )
    if quoted and (args := _OPERATION_ARGS.match(text, end + 1, limit)) is not None:
        literals = _literals(text, args.end(), limit)  # `{"op": "auth", "args": ["user", "X"]}`: a call as data
        literals = literals[1:] if len(literals) > 1 else literals
        return [s for s in literals if (score := value_score(text[s[0] : s[1]])) and score + strength >= _BAR]
    # the rest of the identifier or the inflected word: `DB_PASSWORD`, `Lösenordet`, `пароля`
    while end < limit and (text[end].isalnum() or text[end] in "_-.") and ord(text[end]) < 0x2E80:
        end += 1
    newline = text.find("\n", end, limit)
    coded = any(stem in word for stem in _CODE_STEMS)  # the name labels codes: blocks, groups, one-time codes
    if newline > 0 and coded and text[end:newline].rstrip().endswith(":"):
        block = _code_block(text, end, min(len(text), end + 40 * _WINDOW))
        if block:
            return block  # `Recovery codes:`, `Códigos de recuperación:` and the lines below
    catted = _cat_output(text, at, end) or _captioned_file(text, at, end, strength)
    if catted:
        return catted
    sent = _sent(text, at, end) or _value_below(text, end, strength)
    if sent:
        return sent
    column = _column(text, at, end, strength)
    if column:
        return column
    scalar = _BLOCK_SCALAR.match(text, end, limit) if any(c in text[end : end + 8] for c in "|>") else None
    if scalar is not None:  # `password: |` and the value on the indented line below
        score = value_score(scalar.group(1).rstrip())
        return (
            [(scalar.start(1), scalar.start(1) + len(scalar.group(1).rstrip()))]
            if score and score + strength >= _BAR
            else []
        )
    groups = _B32_GROUPS.search(text, end, limit) if word in _B32_NAMES else None
    if groups is not None and not text[end : groups.start()].strip(" \t:=-–—()'\"`").replace("(", ""):
        return [groups.span()]
    if groups is not None and "\n" not in text[end : groups.start()] and groups.start() - end < 40:
        return [groups.span()]
    if groups is not None and _LABEL_THEN_LINE.fullmatch(text, end, groups.start()):
        return [groups.span()]  # `Enter this setup key manually:` and the groups alone on the next line
    left = at
    while left > 0 and (text[left - 1].isalnum() or text[left - 1] in "_-") and at - left < 80:
        left -= 1
    # a fragment's parameters too (`#access_token=...`), and a query written in XML or HTML (`&amp;password=`)
    query = text[left - 1 : left] in ("?", "&", "#") or text.endswith("&amp;", 0, left)
    head = folded[max(0, left - 80) : left]
    label = head.rstrip(" \t\"'")
    field = (
        _NAME_FIELD.search(text, max(0, left - 80), left)
        if label.endswith(":") and label[:-1].rstrip(" \t\"'").endswith(("name", "key"))
        else None
    )
    if field is not None:  # `- name: SMTP_PASS` and its sibling `value: X` (k8s env, an app spec, ECS JSON)
        sibling = _VALUE_FIELD.search(text, end, min(len(text), end + 2 * _WINDOW))
        if sibling is not None and _NAME_FIELD_AGAIN.search(text, end, sibling.start()) is None:
            score = value_score(sibling.group(2))
            if score and score + strength >= _BAR:
                return [sibling.span(2)]
    attribute = _NAME_ATTRIBUTE.search(text, max(0, left - 80), left) if "=" in head and "name" in head else None
    if attribute is not None:  # `android:name="...CLIENT_SECRET" android:value="X"`: the element's value attribute
        sibling = _VALUE_ATTRIBUTE.search(text, end, min(len(text), end + 2 * _WINDOW))
        if sibling is not None and "<" not in text[end : sibling.start()]:
            score = value_score(sibling.group(2))
            return [sibling.span(2)] if score and score + strength >= _BAR else []
    typed = _ANNOTATION.match(text, end, limit) if text[end : end + 1] == ":" and "=" in text[end : end + 48] else None
    if typed is not None:
        end = typed.end()  # `smtp_pass: []const u8 = "..."`: a type between a name and its `=`
    elif text[end : end + 1] in (" ", "\t") and (declared := _DECLARED.match(text, end, limit)) is not None:
        end = declared.end()  # `WS-DB-PASSWORD PIC X(20) VALUE 'X'`: a declared type before its value's keyword
    if word == "identified with":
        plugin = _PLUGIN_BY.match(text, end, limit)
        literal = _STRING.match(text, plugin.end()) if plugin is not None else None
        if literal is None:
            return []  # `IDENTIFIED WITH caching_sha2_password;`: a plugin's name, no password
        group = 1 if literal.group(1) is not None else 2  # `... BY '...'`: the plugin, then the password
        value = literal.group(group)
        return [literal.span(group)] if value and not is_placeholder(value) and not value.startswith("$") else []
    if coded:
        groups = _GROUPED_CODE.search(text, end, min(limit, end + _WINDOW))
        between = text[end : groups.start()] if groups is not None else ""
        if groups is not None and ("\n" not in between or between.rstrip().endswith(":")):
            return [groups.span()]  # `recovery code (...): X7KQ2-M9RTL-4WNBY-C8H3J-DVF6A`: a code in groups
    if word == "puk" and text[at:end] != "PUK":
        return []  # a SIM's PUK is written as the acronym; `puk1` is an identifier
    # the acronym or a compound is a PIN's; lower-case `pin` is also a verb (`pin 2024 of the docs`): it needs a link
    pin = 0 if strength < 2 or word not in _PIN_WORDS else 2 if word != "pin" or text[at : at + 3] == "PIN" else 1
    return (
        _after_name(text, at, end, strength, limit, steps, query=query, pin=pin)
        or (
            (_next_line(text, end, strength, steps) or _before_name(text, at, strength))
            if strength > 1
            else (_printed_below(text, end, strength, steps) if printed else [])
        )
        or (_code_after_clause(text, folded, end, word) if coded else [])
    )


_CODE_AFTER_CLAUSE = lazy(r"[^\n:：.!?]{0,120}[:：][ \t]*(\d{3,4}(?:[ -]\d{3,4}){1,2}|\d{6,10})(?![\w-])")
_ONE_TIME = ("sms", "text message", "authenticator", "verif", "2fa", "mfa", "one-time", "otp")
"""What says a code is a one-time one: where it came from or what it is for (rules v13)."""


def _code_after_clause(text: str, folded: str, end: int, word: str) -> list[tuple[int, int]]:
    """A one-time code ending its label's clause (`the code from the SMS so you can finish the login:
    731904`, `Login code from the authenticator for svc-admin right now: 284 617`): six to ten digits,
    maybe in groups, after the `:` that ends the name's clause, where the name or the clause says one-time.
    """
    found = _CODE_AFTER_CLAUSE.match(text, end)
    if found is None or not _OTP_DIGITS[0] <= sum(c.isdigit() for c in found.group(1)) <= _OTP_DIGITS[1]:
        return []
    clause = folded[max(0, end - len(word) - 40) : found.start(1)]
    return [found.span(1)] if any(source in clause for source in _ONE_TIME) else []


def _next_line(text: str, end: int, strength: int, steps: dict[int, _Step]) -> list[tuple[int, int]]:
    """A label that ends its line (`The generated password for db is:`, `<th>Password</th>`) and
    the value alone on the next line.
    """
    asked = _question(text, end, min(len(text), end + _WINDOW), strength)
    if asked:
        return asked  # "what's the staging admin pw again?" and the reply below
    newline = text.find("\n", end, end + _WINDOW)
    if newline < 0:
        return []
    result = _RESULT.match(text, newline + 1, min(len(text), newline + 1 + _WINDOW))
    if result is not None:
        return _result_below(text, result.end(), strength, steps)
    rest = _TAG.sub("", text[end:newline]).strip(" \t\r")
    if rest.startswith(">") or rest.startswith('">'):
        rest = rest.split(">", 1)[1].strip(" \t\r")  # `<Password>`: the element the name is; its value nests below
    if rest and not rest.endswith(":") and rest.rsplit(None, 1)[-1].lower() not in _COPULAS:
        return []
    blank = text.find("\n", newline + 1, newline + 1 + _WINDOW)
    if blank >= 0 and not text[newline + 1 : blank].strip(" \t\r"):
        newline = blank  # one blank line may stand between a label and its value (a letter, a notice)
    following = text.find("\n", newline + 1, newline + 1 + _WINDOW)
    line_end = following if following >= 0 else min(len(text), newline + 1 + _WINDOW)
    tokens = _tokens(text, newline + 1, line_end, steps)
    if len(tokens) != 1:
        return []  # the value stands alone on its line; a sentence there is prose
    if text[tokens[0][1] - 1] == ":" or text.startswith("[REDACTED:", tokens[0][1] + 1):
        return []  # `olcRootPW: [REDACTED:...]`: a label whose value was read already, not a value
    start, stop = _trim(text, *tokens[0])
    score = value_score(text[start:stop])
    return [(start, stop)] if score and score + strength >= _BAR else []


def _result_below(text: str, at: int, strength: int, steps: dict[int, _Step]) -> list[tuple[int, int]]:
    """The value a REPL printed at `at`, below an input that names a credential."""
    tokens = _tokens(text, at, min(len(text), at + _MAX_VALUE), steps)
    if not tokens:
        return []
    start, stop = _trim(text, *tokens[0])
    score = value_score(text[start:stop])
    return [(start, stop)] if score and score + strength >= _BAR else []


def _printed_below(text: str, end: int, strength: int, steps: dict[int, _Step]) -> list[tuple[int, int]]:
    """A moderate name's input (`localStorage.getItem('auth.refreshToken')`) and the REPL's result
    on the next line (`< 'X'`): what was printed is what the name holds, whatever its strength.
    """
    newline = text.find("\n", end, end + _WINDOW)
    if newline < 0 or text[newline + 1 : newline + 12].lstrip(" \t>")[:1] not in ("<", "=", "O", "$", "r"):
        return []  # asked first: the next line opens no REPL's result, and the pattern costs more
    result = _RESULT.match(text, newline + 1, min(len(text), newline + 1 + _WINDOW))
    return [] if result is None else _result_below(text, result.end(), strength, steps)


_RESULT = lazy(r"[ \t>]*(?:<(?=[ \t]+['\"`])|=>|Out\[\d{1,4}\]:|\$\d{1,4}[ \t]*=|res\d{1,4}:[ \t]*\w+[ \t]*=)[ \t]*")
"""A REPL's result marker (irb's `=>`, IPython's `Out[3]:`, gdb's `$1 =`, Scala's `res0: String =`): what the
line above evaluated."""
_SPEAKER = lazy(r"[ \t>]*(?:\[[^\]\n]{1,20}\][ \t]*)?(?:[\w.\-]{1,20}[ \t]*:[ \t]+)?")
"""What opens a reply in a chat or a transcript: a quote mark, a time (`[10:03]`), a speaker (`li:`, `A:`)."""
_ANSWER = lazy(r"[^\s,;()\[\]\\]{6,128}(?=,|[ \t]+\(|[ \t]+[—–-][ \t]|[ \t]*(?:\r?\n|\\[nr]|$))")
"""A reply that is a value alone, or set off from what follows by a comma, an aside or a dash."""


_ACCOUNT_IS = lazy(
    r"[ \t]+(?:is|was)[ \t]+now[ \t]+(?:[:=][ \t]*)?(?P<v>[^\s,;]{6,128})(?=[\s,;]|$)"
    r"|:[ \t]+(?P<l>[A-Za-z0-9_\-!#%*+=@^~$&?]{6,128})[ \t]*(?=\r?\n|$)"
)
"""An account stated to be something new, or labelling a value: "staging admin is now X", "admin: X"
(a password was set or given; a person would be a name, which scores nothing)."""


def _account_stated(text: str, end: int, limit: int, strength: int) -> list[tuple[int, int]]:
    """The value an account is said to be now (`admin is now h4ckm3_1f`), when it looks like one."""
    found = _ACCOUNT_IS.match(text, end, limit)
    if found is None:
        return []
    group = "v" if found.group("v") is not None else "l"  # `l`: a label's value, ending its line
    value = found.group(group)
    score = value_score(value) or (1 if _random_letters(value) else 0)
    return [found.span(group)] if score and score + strength >= _BAR else []


def _question(text: str, end: int, limit: int, strength: int) -> list[tuple[int, int]]:
    """The reply below a line that asks a question after the name (a line break real or escaped)."""
    mark = text.find("?", end, limit)
    if mark < 0:
        return []  # asked first: most names ask nothing, and a `find` costs less than the pattern
    found = _LINE_BREAK.search(text, mark, limit)
    if found is None or not text[mark : found.start()].rstrip().endswith("?"):
        return []
    return _answer(text, found.end(), strength)


def _answer(text: str, position: int, strength: int) -> list[tuple[int, int]]:
    """The reply to a question that names a credential or its account, on the next line that is
    not blank (`[10:03] li: X`, `A: X (until Friday)`, `X, the same one as ...`).
    """
    for _ in range(2):  # one blank line may stand between a question and its reply
        blank = _LINE_BREAK.match(text, position)
        if blank is None:
            break
        position = blank.end()
    speaker = _SPEAKER.match(text, position, min(len(text), position + 48))
    found = _ANSWER.match(text, speaker.end() if speaker is not None else position, min(len(text), position + 200))
    if found is None:
        return []
    start, stop = _trim(text, *found.span())
    score = value_score(text[start:stop])
    return [(start, stop)] if score and score + strength >= _BAR else []
