"""The firewall's rules: what a credential looks like, as data.

Promise: `RULES` is the ordered list of redaction rules `Firewall.scrub` applies. Each rule
names a stable kind (the `<kind>` of `[REDACTED:<kind>]`), the literal substrings without
which it cannot match (its triggers), and a regular expression compiled on first use, so a
turn pays only for the rules whose triggers it contains. A rule replaces the group named
`s` when the pattern has one (keeping the label around it: `password=`, the URL's host),
else the whole match. A rule's `judge` may veto a match or narrow it; an `anchored` rule is
tried only where a trigger occurs; a rule with a `find` function (the judgement, key blocks)
reads the text itself.

Order matters and is deliberate: whole blocks (private keys) first, then vendor tokens with
an unambiguous prefix (specific before generic: `sk-ant-` before `sk-`; filler such as
`xxxx` marks a documentation example and is kept), then JWTs, then shapes that need context:
URL userinfo (read by `memory_core.urls.find_userinfo`, the parser `redact_url` uses), headers,
command-line password flags (`flags`), `.pgpass` lines (`files`), a name and a value judged
together in any language and syntax (`judge`: assignments, calls, SQL, tables and passwords
stated in prose alike), and the entropy
test last (base64 that decodes to plain text is kept).
`RULES_VERSION` names this rule set; raise it whenever a change makes it catch more.
A later rule never re-redacts an earlier marker: every value pattern refuses to start with
`[REDACTED:`.

Failure: none at run time. Every pattern is linear or bounded (no unbounded nested
quantifier, no search that restarts from every position of a long run), so a megabyte of
hostile text costs time in proportion to its size.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memory_core.firewall.files import USERLIST_TRIGGERS, find_pgpass_passwords, find_userlist_passwords
from memory_core.firewall.flags import FLAG_TRIGGERS, find_flag_passwords
from memory_core.firewall.judge import (
    JUDGED_TRIGGERS,
    PAIR_TRIGGERS,
    PRINTED_TRIGGERS,
    TOLD_TRIGGERS,
    find_judged,
    find_pairs,
    find_printed,
    find_told,
)
from memory_core.firewall.rows import ROWS_TRIGGERS, find_rows
from memory_core.firewall.shaped import SHAPED_TRIGGERS, find_password_shaped
from memory_core.firewall.values import (
    is_placeholder,
    line_prefix,
    looks_like_code,
    password_hash,
    plain_cookies,
    under_encrypted_heading,
)
from memory_core.firewall.walks import find_keyboard_walks
from memory_core.lazyre import lazy
from memory_core.urls import MAX_URL, URL_END, find_userinfo

__all__ = ["Rule", "RULES", "RULES_VERSION", "MARKER_PREFIX", "marker", "Edit"]

RULES_VERSION = 15
"""The rule set's version: raise it whenever a change makes the rules catch something they
did not (1: vendor prefixes, assignments and entropy; 2: the RFC 3986 userinfo parser,
password flags, named keys, stated passwords, `.pgpass`; 3: the judgement of a name and a
value together, in any language, `firewall.judge`; 4: the judgement alone reads named
credentials, the per-syntax assignment rules are gone, kinds `*-assignment` become
`credential`; 5: the words for password in some twenty more languages, round 7; 6: the
lexicon as a table of a hundred-odd languages, `firewall.lexicon`, with stems, compounds and
informal English spellings; 7: rounds 9 and 10 read by principle: HTTP authorization of any
scheme, `user:password@host` in any string, a value stated before its noun, option lists,
signers, name/value attribute pairs, type annotations, CSV columns, URL fragments; 8: round 11 read
by principle: the reply to a question naming a credential or its account, a value nested in the
element its name is, a field typed into, an operation's arguments, `| chpasswd`, PgBouncer's
userlist, a value stated before "that's the unseal key", what a lock wants "before it lets you in";
kept: password hashes in modular crypt format, publishable keys, a DSN's public key, ciphertext by
envelope or place, digests under their algorithm's heading, a site path's build id; 9: a
password by its look alone, letters, a digit and a password symbol, `firewall.shaped`; 10: round 12
read by principle: a CLI's `-u USER -p VALUE` pair, short names glued into a key (`rootpw`), SNMP's
community, a function applied without brackets, basic-auth constructors, a declared type before
`VALUE`/`DEFAULT`, a commented table header, a directive creating a user, Sundanese; kept: an option
that says what its value is, a camelCase last word (`pwdMaxAge`), an encrypted envelope's fields,
`ENC[<scheme>,...]`, a signature's or MAC's field, NATS public keys, Arabic in Latin letters; 11: round
13 read by principle: a passphrase of words stated by `:` or `is:` (a name in it, an aside after it), a
label's clause of any language ending in `:`, capitalised words and a number, a PIN of four digits and a
SIM's PUK, a TOTP key below its label with a short last group, a JSON-escaped quote inside a value,
`openssl enc -K`, HTTPie's `-a user:pass`, what `echo` pipes into a command that reads a password
from stdin or prompts for one, a console's `<` result below a token, a `URL ACCOUNT PASSWORD` row;
kept: a name whose last word is a digest's algorithm, `pin-sha256:`); 12: round 14 read by principle: a
wallet's recovery phrase by its shape, a URL ending at a quote, `passphrase` glued (`walletpassphrase`),
digits among drawn letters of one case, ODBC's braced value, a quoted value of symbols, `New value:` below
a password's line, `password_stdin`, emoji as symbols, titled words and one digit, seven more languages;
kept: password hashes wherever a value is read, cookies of plain values, an id's sigil, a certificate cut
short, a listing's ID column, an account at an upper-case host and its prompt, `nopass`, `hashed_secret`,
a later JSON key's own value, a folded header's signature, VBA's `:=`, ids named by their format; 13:
round 15 read by principle: what a password's name is assigned is the password whatever its look (a quoted
literal, a value with a digit or symbol, a config's bare word) but never a variable, type or reference;
keyboard walks by the keys' geometry and down the columns by look alone; a password in any language's
clause of a few words before a chosen-looking value; one-time codes in groups, after a clause, a YubiKey
OTP; `IDENTIFIED WITH ... BY`, `ConvertTo-SecureString`, `chpasswd`, Mosquitto's `-P`, `schtasks /RP`,
`expect` answers, SMTP's base64 prompt; kept: cursor tokens, public-key clauses and JSON types, SCRAM
verifiers, explorers' paths, payment APIs' object ids, Go's `--- PASS:`, a Secret's generated name; 14:
round 16 read by principle: a prompt's bracketed current value, a change's arrow, an env file's capitals,
curl's `-u` in a cluster, `mc alias set`, `expect`'s `assword:`, `cred`, a word and a number in a stated
clause, what a printer naming a password printed, `.properties` escapes, Oracle's thin URL, a label line's
lone value, an env key's quoted phrase, a long option's last word; kept: a type's name in quotes, secret
stores' schemes, CAPTCHA site keys, a HAR header's value named by its sibling; 15: round 17 read by
principle: a quoted value whole, an argv list's value, a URL query's value, dates and phone numbers, a
`.properties` word, a hasher's literal, an environment's token or secret, a subscript's key and `=>`,
`mosquitto_passwd -b`, `lftp -u`, a value after a non-Latin name).
`memory scrub` records the version
it ran with, captures record the version that scrubbed them, and `doctor` says when stored
records were last scrubbed by an older rule set."""

MARKER_PREFIX = "[REDACTED:"
_NOT_MARKER = r"(?!\[REDACTED:)"

Edit = tuple[int, int, str]
"""What to redact: `(start, end, kind)` in the text being scrubbed."""

Judge = Callable[["re.Match[str]"], "Edit | None"]
"""Decides a match: the span to replace and its kind, or None to keep the text."""

Finder = Callable[[str, str], "list[Edit]"]
"""Finds edits itself, given the text and its case-folded twin (same length)."""


def marker(kind: str) -> str:
    """The text that replaces a redacted secret of `kind`."""
    return f"{MARKER_PREFIX}{kind}]"


class Rule:
    """One redaction rule.

    Args:
        kind: The stable kebab-case name counted and shown in the marker.
        triggers: Literal substrings; the rule runs only when the text holds one of them.
        source: The regular expression (unused with `find`).
        fold: Look for triggers in the lower-cased text and match without regard to case.
        anchored: Try the pattern only where a trigger occurs (it must start with one): a
            case-insensitive pattern scanned over a whole text costs milliseconds.
        judge: Decides each match (default: replace group `s`, or the whole match).
        kinds: Every kind the rule may count (default: just `kind`).
        find: Finds the edits itself instead of a pattern.
    """

    __slots__ = ("_compiled", "anchored", "find", "fold", "judge", "kind", "kinds", "source", "triggers")

    def __init__(
        self,
        kind: str,
        triggers: tuple[str, ...],
        source: str = "",
        *,
        fold: bool = False,
        anchored: bool = False,
        judge: Judge | None = None,
        kinds: tuple[str, ...] = (),
        find: Finder | None = None,
    ) -> None:
        self.kind = kind
        self.triggers = triggers
        self.source = source
        self.fold = fold
        self.anchored = anchored
        self.judge = judge
        self.kinds = kinds or (kind,)
        self.find = find
        self._compiled: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"Rule({self.kind!r})"

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled expression, built on first use (compiling all of them costs milliseconds)."""
        if self._compiled is None:
            flags = re.MULTILINE | (re.IGNORECASE if self.fold else 0)
            self._compiled = re.compile(self.source, flags)
        return self._compiled

    def triggered(self, text: str, folded: str) -> bool:
        """Whether the text holds one of the rule's triggers (the rule cannot match otherwise)."""
        haystack = folded if self.fold else text
        return any(trigger in haystack for trigger in self.triggers)

    def edits(self, text: str, folded: str) -> list[Edit]:
        """What this rule redacts in `text`, in order (edits may overlap; the caller resolves that)."""
        if self.find is not None:
            return self.find(text, folded)
        matches: list[re.Match[str]]
        if self.anchored:
            haystack = folded if self.fold else text
            matches = []
            for trigger in self.triggers:
                at = haystack.find(trigger)
                while at >= 0:
                    found = self.pattern.match(text, at)
                    if found is not None:
                        matches.append(found)
                    at = haystack.find(trigger, at + 1)
            matches.sort(key=lambda m: m.start())
        else:
            matches = list(self.pattern.finditer(text))
        edits: list[Edit] = []
        for found in matches:
            if self.judge is not None:
                decided = self.judge(found)
                if decided is not None:
                    edits.append(decided)
            elif "s" in self.pattern.groupindex and found.group("s") is not None:
                edits.append((found.start("s"), found.end("s"), self.kind))
            else:
                edits.append((found.start(), found.end(), self.kind))
        return edits


_FILLER_RUN = lazy(
    r"(.)\1{7}|XXXX|xxxx|\.\.\.|EXAMPLE|[Ee]xample|[-_](?:your|YOUR)[-_]|[Pp]laceholder|REPLACE|[Rr]eplace[-_]"
)
"""In a documentation example the random part is filler (`AKIAXXXXXXXXXXXXXXXX`, `ghp_xxxx...`)
or says so: AWS documents `AKIAIOSFODNN7EXAMPLE`, and no issued key spells EXAMPLE."""


def _vendor(kind: str, triggers: tuple[str, ...], body: str) -> Rule:
    """A token recognised by its own prefix: nothing may glue onto either end of it; filler
    (`xxxx`, eight of one character) marks a documentation example, kept.
    """

    def judge(match: re.Match[str]) -> Edit | None:
        return None if _FILLER_RUN.search(match.group(0)) else (match.start(), match.end(), kind)

    return Rule(kind, triggers, rf"(?<![A-Za-z0-9_\-]){body}(?![A-Za-z0-9])", judge=judge)


# -- private keys ----------------------------------------------------------------------------

_PEM_LABEL = r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
_NEWLINE = r"(?:\r?\n|\\r\\n|\\n)"
_PEM_BODY_LINE = (
    rf"(?:{_NEWLINE}[ \t]*)?{_NEWLINE}[ \t]*"
    r"(?:[A-Za-z0-9+/=]{8,}(?=[ \t]*(?:\r?\n|\\[rn]|$|[\"',]))|[A-Za-z-]+: [^\n\\]*)"
)
"""A line of an unterminated key, maybe after one blank line: base64, or a header (`Proc-Type: ...`)."""


def _find_private_keys(text: str, folded: str) -> list[Edit]:
    """Each PEM/OpenSSH private key block, whole: from its BEGIN line to its END line or, cut
    short, to the end of its base64 lines. An END is looked for only before the next BEGIN,
    so every character is read once however many blocks the text holds.
    """
    edits: list[Edit] = []
    at = text.find("-----BEGIN")
    while at >= 0:
        label = re.compile(_PEM_LABEL).match(text, at)
        if label is None:
            at = text.find("-----BEGIN", at + 10)
            continue
        following = text.find("-----BEGIN", label.end())
        end = re.compile(_PEM_END).search(text, label.end(), len(text) if following < 0 else following)
        if end is not None:
            stop = end.end()
        else:
            body = re.compile(rf"(?:{_PEM_BODY_LINE})*", re.MULTILINE).match(text, label.end())
            stop = body.end() if body is not None else label.end()
        edits.append((at, stop, "private-key"))
        at = text.find("-----BEGIN", stop)
    return edits


_PRIVATE_KEY_RULES = [
    Rule("private-key", ("PRIVATE KEY",), find=_find_private_keys),
    Rule("private-key", ("PuTTY-User-Key-File-",), r"PuTTY-User-Key-File-\d:[\s\S]*?Private-MAC:[ \t]*[0-9a-fA-F]+"),
    Rule("private-key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
]

# -- vendor tokens with a recognisable prefix --------------------------------------------------

_VENDOR_RULES = [
    _vendor("aws-access-key", ("AKIA", "ASIA", "ABIA", "ACCA"), r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
    _vendor(
        "github-token",
        ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
        r"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,251})",
    ),
    _vendor(
        "gitlab-token",
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-", "glimt-", "glft-", "glsoat-", "glagent-", "GR13489"),
        r"(?:gl(?:pat|dt|rt|ptt|cbt|oas|imt|ft|soat|agent)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})",
    ),
    Rule(
        "slack-webhook", ("hooks.slack.com",), r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[\w/\-]{20,}"
    ),
    _vendor("slack-token", ("xox", "xapp-"), r"(?:xox[abposre]-|xoxe\.xox[bp]-|xapp-)[A-Za-z0-9\-]{10,}"),
    _vendor(
        "stripe-key",
        ("k_live_", "k_test_", "whsec_"),
        r"(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{24,})",
    ),
    _vendor("anthropic-key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    _vendor("openrouter-key", ("sk-or-",), r"sk-or-(?:v1-)?[A-Za-z0-9]{32,}"),
    _vendor(
        "openai-key",
        ("sk-",),
        # A digit and a letter are required so `sk-learn-compatible-estimators` is left alone.
        r"sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{20,}",
    ),
    _vendor("google-api-key", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}"),
    _vendor(
        "google-oauth-token",
        ("ya29.", "GOCSPX-", "1//0"),
        r"(?:ya29\.[0-9A-Za-z_\-]{20,}|GOCSPX-[0-9A-Za-z_\-]{20,}|1//0[0-9A-Za-z_\-]{30,})",
    ),
    _vendor("npm-token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    _vendor("pypi-token", ("pypi-",), r"pypi-[A-Za-z0-9_\-]{50,}"),
    _vendor("twilio-key", ("SK",), r"SK[0-9a-f]{32}"),
    _vendor("sendgrid-key", ("SG.",), r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}"),
    _vendor("huggingface-token", ("hf_",), r"hf_[A-Za-z0-9]{30,}"),
    _vendor("digitalocean-token", ("_v1_",), r"do[opr]_v1_[a-f0-9]{64}"),
    _vendor("shopify-token", ("shp",), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _vendor("databricks-token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?"),
    _vendor("vault-token", ("hvs.", "hvb.", "hvr."), r"hv[sbr]\.[A-Za-z0-9_\-]{24,}"),
    _vendor("linear-key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}"),
    _vendor("postman-key", ("PMAK-",), r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}"),
    _vendor("grafana-token", ("glsa_", "glc_"), r"(?:glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"),
    _vendor("sentry-token", ("sntry",), r"(?:sntrys_[A-Za-z0-9+/=_\-]{50,}|sntryu_[0-9a-f]{64})"),
    _vendor("newrelic-key", ("NRAK-",), r"NRAK-[A-Z0-9]{27}"),
    _vendor("atlassian-token", ("ATATT3",), r"ATATT3[A-Za-z0-9_\-=]{50,}"),
    _vendor("doppler-token", ("dp.",), r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    _vendor("pulumi-token", ("pul-",), r"pul-[0-9a-f]{40}"),  # Pulumi Cloud's access token (rules v11)
    _vendor("groq-key", ("gsk_",), r"gsk_[A-Za-z0-9]{48,}"),
    _vendor("xai-key", ("xai-",), r"xai-[A-Za-z0-9]{70,}"),
    _vendor("replicate-token", ("r8_",), r"r8_[A-Za-z0-9]{37}"),
    _vendor("perplexity-key", ("pplx-",), r"pplx-[A-Za-z0-9]{40,}"),
    _vendor("supabase-token", ("sbp_", "sb_secret_"), r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,})"),
    _vendor("heroku-key", ("HRKU-",), r"HRKU-[A-Za-z0-9_\-]{20,}"),
    _vendor("mailgun-key", ("key-",), r"key-[0-9a-f]{32}"),
    _vendor("mailchimp-key", ("-us",), r"[0-9a-f]{32}-us\d{1,2}"),
    _vendor("telegram-token", (":AA",), r"\d{8,10}:AA[A-Za-z0-9_\-]{32,33}"),
    # A YubiKey's one-time password: its public id and the OTP in modhex (16 letters, no vowel but e
    # and i, so no word of any language), 44 characters from a factory key (`cccc...`) (rules v13).
    Rule(
        "credential",
        ("ccc", "vv"),  # a factory key's public id starts `ccc`, a newer one's `vv`: rare in any text
        r"(?<![A-Za-z0-9_\-])(?:ccc|vv)[cbdefghijklnrtuv]{29,46}(?![A-Za-z0-9])",
        anchored=True,
    ),
    # A URL whose path holds its credential by the vendor's layout: whatever stands there is it.
    Rule(
        "telegram-token",
        ("api.telegram.org/bot",),
        rf"api\.telegram\.org/bot{_NOT_MARKER}(?P<s>\d{{5,12}}:{_NOT_MARKER}[^\s/?\"'`<>]+)",
        anchored=True,
    ),
    Rule(
        "discord-webhook",
        ("discord",),
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/(?!\[REDACTED:)[^\s/?\"'`<>]+",
    ),
    Rule(
        "azure-key",
        ("accountkey", "sharedaccesskey"),
        rf"(?:AccountKey|SharedAccessKey)\s*=\s*{_NOT_MARKER}(?P<s>[A-Za-z0-9+/]{{20,}}={{0,2}})",
        fold=True,
        anchored=True,
    ),
    Rule("azure-sas", ("sig=",), rf"[?&]sig={_NOT_MARKER}(?P<s>[A-Za-z0-9%+/=]{{20,}})"),
    Rule(
        "azure-client-secret",
        ("Q~",),
        r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
    ),
    # The secret half of an AWS key pair, written right after its (already redacted) id.
    Rule(
        "aws-secret-key",
        ("[REDACTED:aws-access-key]",),
        r"\[REDACTED:aws-access-key\][\s,;:|\"'=]+(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    ),
]

# -- tokens with a recognisable shape --------------------------------------------------------

_JWT_RULES = [
    _vendor("jwt", ("eyJ",), r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),
]


def _trimmed(match: re.Match[str]) -> tuple[int, int, str]:
    """Group `s` less the punctuation prose and Markdown put after a value (`` ` ``, `)`, `.`)."""
    value = match.group("s")
    kept = value.rstrip(_TRAILING_PUNCTUATION) or value
    return match.start("s"), match.start("s") + len(kept), kept


_URL_PLACEHOLDERS = frozenset({"password", "passwd", "pass", "pwd", "pw", "secret", "mypassword", "yourpassword"})
"""What documentation writes for the password of an example URL (`postgres://user:password@localhost`)."""
_LONE_TOKEN_MIN = 16


def _lone_token(value: str) -> bool:
    """Whether a userinfo without a colon (`redis://TOKEN@host`) is a credential, not a user name."""
    from memory_core.firewall.entropy import looks_random

    if len(value) < _LONE_TOKEN_MIN or not value.isascii():
        return False
    if looks_random(value):
        return True
    # A long run of hex or of mixed letters and digits is a token; user names are words.
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 24 and letters >= 4 and digits >= 4 and not any(c in value for c in "._@")


def _find_url_credentials(text: str, folded: str) -> list[Edit]:
    """The password of each `scheme://user:password@host`, read by the parser `redact_url` uses
    (the last `@` before the host ends it; `@`, `#`, `/`, `:` and `%XX` may sit inside), and a
    lone userinfo that is a token (`redis://TOKEN@host`). The user and the host stay: they say
    where, and the project key is derived from such URLs.
    """
    edits: list[Edit] = []
    at = text.find("://")
    token_end = -1
    while at >= 0:
        if at >= token_end:
            # One search per blank-delimited token, not per `://` in it: `://a:` repeated stays linear.
            found = URL_END.search(text, at)
            token_end = found.start() if found else len(text)
        userinfo = find_userinfo(text, at + 3, min(token_end, at + 3 + MAX_URL))
        next_from = at + 3
        if userinfo is not None:
            span = userinfo.password or userinfo.user
            value = text[span[0] : span[1]]
            secret = (
                MARKER_PREFIX not in text[userinfo.start : userinfo.at]
                and not (userinfo.password is None and _public_dsn(text, folded, at))
                and not is_placeholder(value)
                and (userinfo.password is None or value.lower() not in _URL_PLACEHOLDERS)
                and (userinfo.password is not None or _lone_token(value))
            )
            if secret and span[1] > span[0]:
                edits.append((span[0], span[1], "url-password"))
            next_from = userinfo.at + 1
        at = text.find("://", next_from)
    return edits


def _public_dsn(text: str, folded: str, at: int) -> bool:
    """Whether the URL whose `://` is at `at` is an error reporter's DSN over HTTP(S) (`dsn: "https://<key>@o1..."`):
    its lone userinfo is the public key every browser is sent, which can only submit events (Sentry's
    documentation: "DSNs are safe to keep public"). A legacy DSN's `public:secret@` still loses its secret.
    """
    return folded[max(0, at - 5) : at].endswith(("http", "https")) and "dsn" in folded[max(0, at - 40) : at]


_USERINFO_HOST = lazy(
    r"(?:tcp|udp|unix)\(|[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9\-]+)*(?::\d{1,5})?(?:[/\"'`\s;,)]|$)"
)
"""What follows the `@` of `user:password@host` without a scheme: a host (a name, an address,
Go's `tcp(...)`), so `node:18@sha256:...` and `mailto:bob@x.org` (whose `bob` is no password) stay."""
_NOT_IN_PASSWORD = frozenset(" \t\r\n:@/\"'`<>()[]{}")
_NOT_BEFORE_USER = frozenset("%+-:/@.")
_MAX_USERINFO_PASSWORD = 128
_MAX_USERINFO_USER = 64


def _find_userinfo(text: str, folded: str) -> list[Edit]:
    """The password of each `user:password@host` outside a URL (Go's DSN `app:pw@tcp(db:3306)/shop`,
    `rsync`'s and JDBC's `user:pw@host`), judged by its look. Read back from each `@`, a bounded
    walk, so the cost is linear in the text.
    """
    from memory_core.firewall.judge import value_score

    edits: list[Edit] = []
    at = text.find("@")
    while at >= 0:
        colon = at - 1
        while colon >= 0 and at - colon <= _MAX_USERINFO_PASSWORD + 1 and text[colon] not in _NOT_IN_PASSWORD:
            colon -= 1
        user = colon - 1
        while user >= 0 and colon - user <= _MAX_USERINFO_USER and (text[user].isalnum() or text[user] in "_.-"):
            user -= 1
        user += 1
        if (
            colon >= 0
            and text[colon] == ":"
            and at - colon - 1 >= 4
            and user < colon
            and (text[user].isalpha() or text[user] == "_")
            and (user == 0 or not (text[user - 1].isalnum() or text[user - 1] in _NOT_BEFORE_USER))
            and _USERINFO_HOST.match(text, at + 1)
        ):
            value = text[colon + 1 : at]
            if not value.startswith(MARKER_PREFIX) and value.lower() not in _URL_PLACEHOLDERS and value_score(value):
                edits.append((colon + 1, at, "url-password"))
        at = text.find("@", at + 1)
    return edits


_TRAILING_PUNCTUATION = "`)]}.,;:!?"

_URL_RULES = [
    Rule("url-password", ("://",), find=_find_url_credentials),
    Rule("url-password", ("@",), find=_find_userinfo),
]

# -- headers ---------------------------------------------------------------------------------


_SCHEMES = frozenset({"bearer", "basic", "token", "bot", "digest", "negotiate", "apikey", "sso-key"})
"""Schemes registered or common enough that what follows them is a credential on sight."""


def _judge_auth(match: re.Match[str]) -> Edit | None:
    from memory_core.firewall.judge import value_score

    start, end, value = _trimmed(match)
    scheme = (match.group("scheme") or "").lower()
    if is_placeholder(value):
        return None
    if scheme and scheme not in _SCHEMES and not value_score(value):
        return None  # any scheme counts, so its credential must look like one: not "authorization: is required"
    if not scheme and (looks_like_code(value) or (value.isalpha() and value.islower())):
        return None  # `authorization = request.headers.get(...)`, "authorization: everything"
    return start, end, "basic-auth" if scheme == "basic" else "bearer-token"


def _judge_bearer(match: re.Match[str]) -> Edit | None:
    start, end, value = _trimmed(match)
    if value.isalpha() and (value.islower() or value.isupper()):
        return None  # "Bearer" before a long plain word is prose; a credential mixes classes
    return start, end, "bearer-token"


def _judge_basic(match: re.Match[str]) -> Edit | None:
    from memory_core.firewall.judge import value_score

    start, end, value = _trimmed(match)
    if match.group("sep") == "," and not value_score(value):
        return None  # lftp's `-u user,password`; but `ps -u root,www-data` lists users
    if match.group("flag") in ("-a", "--auth") and (match.group("sep") == "," or value.isdigit()):
        return None  # `-a` is HTTPie's pair only as `user:pass`; `-a 10.0.0.1:8080` is an address
    return None if is_placeholder(value) else (start, end, "basic-auth")


def _judge_cookie(match: re.Match[str]) -> Edit | None:
    prefix = line_prefix(match.string, match.start())
    if prefix is None:
        return None
    quote = prefix[-1:] if prefix[-1:] in ("'", '"') else ""  # `-H 'Cookie: ...'`, httpie's `'Cookie:...'`
    if not quote and prefix.strip(" \t-<>*|").lower() not in ("", "set"):
        return None  # a header starts its line (curl -v marks it `>` or `<`); "the cookie: it expired" is prose
    if re.search(r"\s=\s|[(\[]", match.group("s")) or match.group("s").startswith("{"):
        return None  # `cookie: http.cookies.SimpleCookie = ...` is a Python annotation; `cookie: {...}` code's options
    end = match.end("s")
    if quote:
        close = match.string.find(quote, match.start("s"), end + 1)
        end = close if close >= 0 else end
    if end <= match.start("s") or plain_cookies(
        match.string[match.start("s") : end], set_cookie=prefix.rstrip("-").lower().endswith("set")
    ):
        return None
    return match.start("s"), end, "cookie"


_HEADER_RULES = [
    Rule(
        "bearer-token",
        ("authorization",),
        # The whole value (no backing off into a shorter one), and not a scheme before a
        # marker, so a second scrub finds nothing new.
        r"authorization[\"']?[ \t]*(?:[:=]>?|,)[ \t]*[\"']?"  # `: `, `=`, Julia's and Ruby's `=>`, a tuple's `,`
        # RFC 9110: `Authorization: <scheme> <credentials>`; whatever the scheme is called (`SSWS`,
        # `Splunk`, `GenieKey`), what follows it is the credential
        r"(?:(?P<scheme>[a-z][a-z0-9_.\-]{1,23})[ \t]+)?"
        rf"{_NOT_MARKER}(?P<s>[^\s\"',;]{{8,}})(?![^\s\"',;])(?![ \t]+\[REDACTED:)",
        fold=True,
        anchored=True,
        judge=_judge_auth,
        kinds=("bearer-token", "basic-auth"),
    ),
    Rule(
        "bearer-token",
        ("Bearer ", "bearer "),
        rf"(?<![A-Za-z])[Bb]earer[ \t]+{_NOT_MARKER}(?P<s>[A-Za-z0-9._~+/=\-]{{16,}})",
        anchored=True,
        judge=_judge_bearer,
    ),
    Rule(
        "cookie",
        ("cookie:",),
        rf"cookie:[ \t]*(?![ \t]){_NOT_MARKER}(?P<s>[^\n\\`]*[^\s\\`])",
        fold=True,
        anchored=True,
        judge=_judge_cookie,
    ),
    Rule(
        "url-password",
        ("oracle:thin:",),
        r"oracle:thin:[\w.$#]+/(?P<s>[^\s@/\"']{1,128})@",  # JDBC's Oracle thin `user/password@//host` (v14)
        anchored=True,
    ),
    Rule(
        "basic-auth",
        (" -u ", " -u\t", " --user", " -a ", " --auth", " -su ", " -ku ", " -sSu ", " -sku ", " -ksu "),
        # HTTPie's `-a user:pass` and `--auth` say the same as curl's `-u`: a flag whose value is a pair;
        # curl's `-u` in a cluster of short options (`-su`, `-ku`: rules v14)
        rf"[ \t](?P<flag>-u|-[sSk]{{1,2}}u|--user|-a|--auth)[ =][\"']?[^\s:,\"'\[]+(?P<sep>[:,])(?!//)"
        rf"[\"']?{_NOT_MARKER}(?P<s>[^\s\"']+)",  # a quoted password after the user: `-u drop,'x'` (v15)
        anchored=True,
        judge=_judge_basic,
    ),
]

# -- named credentials -----------------------------------------------------------------------------

_NAMED_RULES = [
    Rule("password-flag", FLAG_TRIGGERS, find=find_flag_passwords),
    Rule("credential", (":",), find=find_pgpass_passwords),
    Rule("credential", USERLIST_TRIGGERS, find=find_userlist_passwords),
    Rule("credential", JUDGED_TRIGGERS, find=find_judged),
    Rule("credential", PRINTED_TRIGGERS, find=find_printed),
    Rule("credential", PAIR_TRIGGERS, find=find_pairs, fold=True),
    Rule("credential", TOLD_TRIGGERS, find=find_told, fold=True),
    Rule("credential", ROWS_TRIGGERS, find=find_rows),  # rows, pairs, commands, recovery phrases with no name
]

# -- the entropy test, last ------------------------------------------------------------------

_HARMLESS_LABEL = (
    r"(?:(?:sha\d{1,3}|md5|blake2[bs]?|blake3|h1|crc32c?|etag|integrity)[:=\-\"' \\]+"
    r"|\|1\|(?:[A-Za-z0-9+/_\-]+=*\|)?"
    r"|(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com) "
    r"|data:(?:image|font|audio|video)/[\w.+\-]+;base64,)$"
)
"""What may stand just before a random token that is not a secret: a digest's algorithm, a
hashed `known_hosts` entry (`|1|salt|hash`), an SSH public key's type, an embedded
image's data URI."""
_SRI_PREFIXES = ("sha1-", "sha256-", "sha384-", "sha512-", "nonce-")
"""Subresource Integrity and npm lockfiles: `sha512-<base64>` is a digest; a CSP `nonce-` is sent to every client."""


_MIN_TEXT_SHARE = 0.95
_MIN_LETTER_SHARE = 0.6


def _encodes_plain_text(token: str) -> bool:
    """Whether `token` is base64 of ordinary text (a sentence, a config line) that holds no secret.

    Base64 of words is content, not a credential; but base64 of `user:password`, of a
    private key or of a config holding a password is a secret, so the decoded text must
    read as words (letters, blanks) and pass the firewall itself.
    """
    import base64
    import binascii

    body = token.rstrip("=")
    try:
        if "-" in body or "_" in body:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        else:
            raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    if decoded.startswith("{") and decoded.endswith("}"):
        pass  # a JSON object (a JWT's header, a config): read like text below, by what it holds
    elif not decoded or not any(c.isspace() for c in decoded):
        return False
    printable = sum(c.isprintable() or c in "\n\t" for c in decoded)
    letters = sum(c.isalpha() or c in ' "{}:,' for c in decoded)
    if printable < _MIN_TEXT_SHARE * len(decoded) or letters < _MIN_LETTER_SHARE * len(decoded):
        return False
    from memory_core.firewall import Firewall

    return not Firewall().scrub(decoded).counts


def _judge_entropy(match: re.Match[str], context: _Context | None = None) -> Edit | None:
    """A random run, unless what stands around it says it is public, a digest, a hash or ciphertext;
    `context` says what the whole text holds (`_Context`), so a look around is paid only where it can answer.
    """
    from memory_core.firewall.entropy import looks_random

    token = match.group(0)
    if not looks_random(token):
        return None  # first: most runs are paths, ids and digests, and every test below only keeps more
    if token.startswith(_SRI_PREFIXES) or _LABELLED_HEX.fullmatch(token):
        return None  # a digest; `rsa4096/<key id>` in a gpg listing: hex alone is never flagged either
    segments = token.split("/")
    if len(segments) > 2 and min(map(len, segments)) >= _ID_SEGMENT and ("-" in token or "_" in token):
        return None  # URL-safe ids joined by `/` (Go's build id): one base64 value never mixes `/` with `-` or `_`
    if _FILE_EXTENSION.match(match.string, match.end()) and (
        token.startswith("/") or "://" in _token_before(match.string, match.start())
    ):
        return None  # a file in a URL's or a site's path (`/_next/static/<build id>/x.js`): a resource, not a key
    window = max(0, match.start() - _MAX_ENCRYPTED)  # a `find` spares the pattern its 2 KB walk per run
    if match.string.find("ENC[", window, match.start()) >= 0 and _ENCRYPTED.search(match.string, window, match.start()):
        return None  # SOPS's `ENC[AES256_GCM,data:...,iv:...]`: ciphertext, useless without its key
    if is_placeholder(token) or _encodes_plain_text(token):
        return None
    before = match.string[max(0, match.start() - 100) : match.start()]  # a `|1|salt|` fits
    if re.search(_HARMLESS_LABEL, before, re.IGNORECASE):
        return None  # `sha256:<hex>`, an SSH public key, an embedded image
    if _NKEY_PUBLIC.fullmatch(token):
        return None  # a NATS account's or user's public key (`Account: AD...`): an identity, not its seed
    if _signed_field(match.string, match.start()):
        return None  # a signature or a MAC under the field that says so: `DKIM-Signature: ... b=...`
    if token.startswith(_PUBLIC_PREFIXES) or _HOST_LABEL.match(match.string, match.end()):
        return None  # an age recipient; `<id>.apps.googleusercontent.com`, a host's first label
    if _ADDRESS.fullmatch(token) or _EXPLORER_PATH.search(match.string, max(0, match.start() - 12), match.end()):
        return None  # a blockchain address (`0x` and 20 bytes, bech32's `bc1...`, an explorer's path): where to pay
    if _OBJECT_ID.fullmatch(token):
        return None  # `ord_test_Qe9gZEjaPqRwyH`: a payment API's object id
    if _published_in_dns(match.string, match.start()):
        return None  # a DNS record is public by design: DKIM's `p=`, an ACME challenge, a site verification
    context = context or _Context(match.string, match.string.lower())
    if context.holds("$") and password_hash(_token_before(match.string, match.start())):
        return None  # a password hash (`$2y$10$...`, `$argon2id$v=19$...$salt$hash`, `$6$salt$hash`): one-way
    hex_value = token.startswith("0x") or set(token) <= _HEX_CHARS
    if hex_value and context.holds(*_DIGEST_NAMES) and _under_digest_heading(match.string, match.start()):
        return None  # `sha256:` above `0 : 0x<hex>`: a PCR bank, a checksum list; digests, measured not kept
    if _ciphertext(match.string, match.start(), token, context):
        return None  # Jenkins' `{AQAAAB...}`, a SealedSecret's `encryptedData`, a `cat` of `credentials.yml.enc`
    label = _LABEL.search(before) or (_ELEMENT.search(before) if before.endswith(">") else None)
    if label is not None and _public_label(label.group("label")):
        return None  # `PublicKey = ...`, `"kid": ...`, `X-Request-Id: ...`, `ETag: ...`
    if (context.holds("pub") and _PUBLIC_CLAUSE.search(before)) or _public_member(match.string, match.start(), label):
        return None  # `signify public key for releases: ...`; `{"type": ".../PubKeyEd25519", "value": ...}`
    if label is not None and label.group("label").lower() in _CIPHER_LABELS:
        return None  # `- secure: "..."` in `.travis.yml`: encrypted to the repository's public key, ciphertext
    if _labelled_above(match.string, match.start(), match.end()):
        return None  # `PublicKey = ...`, `"kid": ...`, `X-Request-Id: ...`, `ETag: ...`
    if _id_column(match.string, match.start()):
        return None  # `docker node ls`: the column's header says `ID`, and a listing's header says what a column is
    return match.start(), match.end(), "high-entropy"


_HEADER_ROW = lazy(r"[ \t]*[A-Z][A-Z0-9_\-]*(?:[ \t]+[A-Z][A-Z0-9_\-/]*)+[ \t]*")
"""A listing's header row: words in capitals (`ID   HOSTNAME   STATUS   MANAGER STATUS`)."""
_HEADER_CELL = lazy(r"\S+(?: \S+)*")
"""A header's cell: words joined by single blanks (`MANAGER STATUS`); cells stand two blanks apart."""


def _id_column(text: str, start: int) -> bool:
    """Whether the value stands in a listing's column whose header (a row of capitals above, down to
    the value's line with no blank line between) names an id (`ID`, `NODE ID`, `CONTAINER ID`).
    """
    above = _lines_above(text, start, _DNS_LINES)
    column = len(above[-1])
    for line in reversed(above[:-1]):
        if not line.strip():
            return False  # a blank line ends the listing
        if _HEADER_ROW.fullmatch(line) is None:
            continue
        cell = None
        for found in _HEADER_CELL.finditer(line):
            if found.start() > column:
                break
            cell = found
        return cell is not None and _public_label(cell.group())
    return False


_CAT_ENCRYPTED = lazy(r"(?:^|[\s$>#])(?:cat|type|head|more|less)[ \t]+\S+\.(?:enc|gpg|age|asc|sops|vault)[ \t]*$")
"""A command printing a file its name says is encrypted (Rails' `credentials.yml.enc`, a `.gpg`)."""
_JENKINS_CIPHERTEXT = "AQAAAB"
"""Jenkins' secret envelope in braces, `{AQAAABAAAAAQ...}`: version 1, then IV and ciphertext (Secret.java)."""


_INLINE_CIPHERTEXT = lazy(
    r"[\"']?(?:encrypted[_\-]?(?:data|value|text)?|cipher[_\-]?text)[\"']?[ \t]*[:=][ \t]*[\"'][A-Za-z0-9+/_\-=]{20,}",
    re.IGNORECASE,
)


def _beside_ciphertext(text: str, start: int) -> bool:
    """Whether the value at `start` is a field of a one-line object that also holds ciphertext (a JWE's
    `{"iv": ..., "ciphertext": ..., "tag": ...}`): its iv and tag open nothing without the key either.
    """
    opening = text.rfind("{", max(0, start - _MAX_ENCRYPTED), start)
    if opening < 0 or "}" in text[opening:start] or "\n" in text[opening:start]:
        return False
    closing = text.find("}", start, start + _MAX_ENCRYPTED)
    if closing < 0 or "\n" in text[start:closing]:
        return False
    return _INLINE_CIPHERTEXT.search(text, opening, closing) is not None


def _ciphertext(text: str, start: int, token: str, context: _Context) -> bool:
    """Whether the value is ciphertext by its envelope or its place: it opens nothing without a key held elsewhere."""
    if token.startswith(_JENKINS_CIPHERTEXT) and text[start - 1 : start] == "{":
        return True
    if context.holds("encrypted") and under_encrypted_heading(text, context.folded, start):
        return True
    if context.holds("ciphertext", "encrypted") and _beside_ciphertext(text, start):
        return True
    if not context.holds(*_ENCRYPTED_FILES):
        return False
    for line in reversed(_lines_above(text, start, _DNS_LINES)[:-1]):  # the command that printed it, above
        if _CAT_ENCRYPTED.search(line):
            return True
        if not line.strip() or line.lstrip().startswith(("$", "#", ">")):
            return False  # a blank line or another command ends that output
    return False


_ADDRESS = lazy(
    r"0x[0-9a-fA-F]{40}|(?:bc|tb|ltc)1[02-9ac-hj-np-z]{25,87}"
    r"|Qm[1-9A-HJ-NP-Za-km-z]{44}|bafy[a-z2-7]{50,}"
)
"""Addresses: an Ethereum address is 20 bytes (a private key is 32: `0x` and 64 hex stays judged),
bech32's `bc1...`; and content addresses, IPFS's CIDs (`Qm...`, `bafy...`): a hash of what they name."""
_DNS_RECORD = lazy(
    r"\bIN[ \t]+(?:TXT|SPF|DNSKEY|DS|CDS|CDNSKEY|TLSA|SMIMEA|SSHFP|CAA|CERT|OPENPGPKEY|RRSIG|NSEC3?|HTTPS|SVCB"
    r"|MX|CNAME)\b"
)
_DNS_QUERY = lazy(
    r"(?:^[ \t]*|[$#>%][ \t]*)(?:dig|kdig|drill|delv|host|nslookup|resolve-dnsname)[ \t]+"
    r"[^\n]{0,200}?[.\w]\.[a-z]{2,}\b",
    re.IGNORECASE,
)
"""A DNS lookup's command line, after a prompt or alone on its line, naming a domain."""
_DNS_LINES = 8
"""How far above a value the command that printed it may stand (`dig +short TXT` prints one line a record)."""


def _published_in_dns(text: str, start: int) -> bool:
    """Whether the value stands in a DNS record (`... IN TXT "..."`) or in what a DNS lookup
    (`dig`, `nslookup`, `host`) printed: what DNS serves, it serves to everyone.
    """
    above = _lines_above(text, start, _DNS_LINES)
    stop = _LINE_END.search(text, start, start + _MAX_DNS_LINE)
    if _DNS_RECORD.search(above[-1] + text[start : stop.start() if stop else start + _MAX_DNS_LINE]):
        return True
    for line in reversed(above[:-1]):  # up the lines the lookup printed, to its command line
        if _DNS_QUERY.search(line):
            return True
        if not line.strip() or line.lstrip().startswith("$"):
            return False  # a blank line or another command ends that output
    return False


_LINE_END = lazy(r"\r?\n|(?:\\r)?\\n")
"""A line break, real or escaped (a repr, a JSON string)."""
_MAX_DNS_LINE = 512


def _lines_above(text: str, start: int, count: int) -> list[str]:
    """The line up to `start` and up to `count` lines above it, oldest first, in a bounded window
    (lines break really or escaped, so a repr or a JSON string reads the same).
    """
    return _LINE_END.split(text[max(0, start - (count + 1) * _MAX_DNS_LINE) : start])[-(count + 1) :]


_FILE_EXTENSION = lazy(r"\.(?:jpe?g|png|gif|webp|svg|avif|mp[34]|webm|pdf|html?|css|js)(?![\w.])", re.IGNORECASE)


def _token_before(text: str, start: int) -> str:
    """The text from the last blank (or quote) before `start` up to it: the rest of its token."""
    window = text[max(0, start - 300) : start]
    cut = max(window.rfind(c) for c in " \t\n\"'(<")
    return window[cut + 1 :]


_ID_SEGMENT = 16
_MAX_ENCRYPTED = 2048
_ENCRYPTED = lazy(r"ENC\[(?:AES256_GCM|PGP|age|[A-Z][A-Z0-9_\-]{1,15},)[^\]\s]*$")
"""An `ENC[<scheme>,...]` envelope up to the token: SOPS's data, iv and tag, hiera-eyaml's `ENC[PKCS7,...]`
and `ENC[GPG,...]`: ciphertext, which opens nothing without its key."""
_NKEY_PUBLIC = lazy(r"[ACNOUX][A-Z2-7]{55}")
"""A NATS nkey's public key: 56 base32 characters whose first names its role (Account, User, Server as
`N`, Operator, Cluster, curve `X`); an identity, printed by `nats account info`. A seed starts with `S`."""
_SIGNED_HEADER = lazy(r"[ \t]*(?P<label>[A-Za-z][\w\-]{0,40})[ \t]*[:=]")
"""The field a line opens (`DKIM-Signature:`, `Message-Authenticator =`), whose name may say it signs."""
_SIGNATURE_WORDS = frozenset({"signature", "authenticator", "seal", "mac"})
"""A field's last word that says its values are a signature or a message's MAC: computed over what is
sent and sent with it (DKIM's `bh=` and `b=`, RADIUS's `Message-Authenticator`), they open nothing."""
_LABELLED_HEX = lazy(r"[a-z][a-z0-9]*/[0-9A-Fa-f]{8,}")
_LABEL = lazy(
    r"(?:\\[nrt])?(?P<label>[A-Za-z][\w.\-]{0,40})\\?[\"']?\]?[ \t]*(?:[:=]|==)[ \t]*\\?[\"']?(?:W/)?\\?[\"']?[!$]?$"
)
"""The label before a value, in a repr or a JSON string too (`\\npeer: `, `[\\'etag\\'] == \\'W/"`), and the
sigil an id may start with (Matrix's `room_id: !...`, `event_id: $...`)."""
_ELEMENT = lazy(r"<(?:[\w.\-]{1,20}:)?(?P<label>[A-Za-z][\w.\-]{0,40})(?:[ \t][^<>\n]{0,80})?>[ \t]*$")
"""The XML or HTML element a value stands in (`<ds:X509Certificate>`): its name is its label."""
_HOST_LABEL = lazy(r"\.[a-z0-9\-]+\.[a-z]{2,}")
_PUBLIC_PREFIXES = ("age1", "npub1", "pk_live_", "pk_test_", "tz1", "tz2", "tz3", "KT1")
"""Public by design: age and Nostr recipients, publishable keys (Stripe's `pk_live_`) made to ship in web pages,
Tezos addresses (`tz1...`, contracts `KT1...`)."""
_EXPLORER_PATH = lazy(r"/(?:address|addr|account|tx|txs|transaction|block)/")
"""A block explorer's path before an address or a transaction: public by design (rules v13)."""
_OBJECT_ID = lazy(
    r"(?:cus|ord|pi|ch|in|sub|price|prod|evt|acct|txn|re|pm|seti|src|py|po|cs|ii|il)_(?:test_|live_)?[A-Za-z0-9]{8,}"
)
"""A payment API's object id (Stripe's `cus_`, `ord_`, `pi_`...): an id sent in every response, not a key."""
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")
_DIGEST_HEADING = lazy(r"[ \t]*(?:sha(?:1|224|256|384|512)|sha3[-_]?\d{3}|sm3[-_]?256|md5|blake2[bs]?)[ \t]*:[ \t]*")
"""A heading that names a digest algorithm alone on its line (`tpm2_pcrread`'s `sha256:` bank)."""


def _under_digest_heading(text: str, start: int) -> bool:
    """Whether a hex value stands in a listing under a heading that names its digest algorithm."""
    for line in reversed(_lines_above(text, start, _DNS_LINES)[:-1]):
        if _DIGEST_HEADING.fullmatch(line):
            return True
        if not line.strip():
            return False  # a blank line ends the listing
    return False


_PUBLIC_WORDS = frozenset(
    {"public", "pub", "publickey", "recipient", "recipients", "peer", "cert", "certificate", "sitekey"}
)
_CURSOR_HEADS = frozenset(
    {"page", "next", "prev", "previous", "continuation", "cursor", "resume", "sync", "pagination"}
)
"""What a token is when these words head its name: a position in a listing (rules v13)."""
_PUBLIC_CLAUSE = lazy(r"\bpub(?:lic)?[ _\-]?key\b[^\n:=]{0,40}[:=][ \t]*[\"'`]?$", re.IGNORECASE)
"""A label's clause that says public key before its `:` (`signify public key for releases: ...`) (rules v13)."""
_SIBLING_NAME = lazy(r"[\"']name[\"'][ \t]*:[ \t]*[\"']([A-Za-z][\w.\-]{0,40})[\"']")
_PUBLIC_TYPE = lazy(r"[\"']type[\"'][ \t]*:[ \t]*[\"'][^\"'\n]{0,60}(?:pubkey|public)", re.IGNORECASE)
"""A JSON object whose `type` says public key (`"type": "tendermint/PubKeyEd25519"`): its `value` is that key."""
_ID_TAILS = frozenset(
    {
        # What a header, a JSON member or a listing column labels as an identifier or a digest.
        *("id", "ids", "kid", "etag", "requestid", "request", "trace", "traceparent", "tracestate", "ray"),
        *("correlation", "span", "n", "e", "x", "y", "fingerprint", "thumbprint", "hash", "digest"),
        *("checksum", "version", "revision", "commit", "sha", "nonce", "integrity", "x5t", "cursor"),
        "challenge",  # PKCE's `code_challenge`, an ACME challenge: sent in the clear by design
        *("ksuid", "ulid", "uuid", "guid", "nanoid", "cuid", "snowflake"),  # an id named by its format (round 14)
    }
)


def _labelled_above(text: str, start: int, end: int) -> bool:
    """Whether the value is alone on its line under a line that says public (minisign's
    `untrusted comment: minisign public key <id>`, "Here is my public key:").
    """
    if text[end : end + 1] not in ("", "\n", "\r", "\\", '"', "'"):
        return False
    above = _LINE_END.split(text[max(0, start - 2 * _MAX_ABOVE) : start])
    return len(above) >= 2 and not above[-1].strip(" \t\"'") and _public_label(above[-2][-_MAX_ABOVE:])


_MAX_ABOVE = 160


def _signed_field(text: str, start: int) -> bool:
    """Whether the value stands in a field whose name's last word says signature or MAC (a header
    line's name: `DKIM-Signature: v=1; ... b=<value>`, `ARC-Seal:`), and no word says key or secret.
    """
    line_start = text.rfind("\n", max(0, start - _MAX_SIGNED_LINE), start) + 1
    head = _SIGNED_HEADER.match(text, line_start, start)
    if head is not None and _signing_label(head.group("label")):
        return True
    for _ in range(_FOLDED_LINES):  # a folded header's lines start with a blank: the field is the one above
        if text[line_start : line_start + 1] not in (" ", "\t") or line_start == 0:
            return False
        line_start = text.rfind("\n", max(0, line_start - 1 - _MAX_SIGNED_LINE), line_start - 1) + 1
        head = _SIGNED_HEADER.match(text, line_start, start)
        if head is not None and text[line_start : line_start + 1] not in (" ", "\t"):
            return _signing_label(head.group("label"))
    return False


def _signing_label(label: str) -> bool:
    """Whether a field's name says signature or MAC by its last word, and no word says key or secret."""
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", label)]
    if not words or any(w in ("key", "secret", "private", "password", "token") for w in words):
        return False
    return words[-1] in _SIGNATURE_WORDS


_MAX_SIGNED_LINE = 1000
_FOLDED_LINES = 8
"""How many continuation lines up a folded header's field name is looked for (RFC 5322 folding)."""
_CIPHER_LABELS = frozenset({"secure", "encrypted", "ciphertext", "sealed", "enc"})
"""A label that is only a word for encrypted: what it labels is ciphertext (Travis's `secure:`)."""


def _public_member(text: str, start: int, label: re.Match[str] | None) -> bool:
    """Whether the value is the `value` member of a JSON object whose `type` says public key, or whose `name`
    is a public label (a header's in a HAR file); the object opens at the nearest `{` before it.
    """
    if label is None or label.group("label").lower() != "value":
        return False
    opening = text.rfind("{", max(0, start - 300), start)
    if opening < 0:
        return False
    named = _SIBLING_NAME.search(text, opening, start)  # HAR's `{"name": "x-amz-id-2", "value": ...}` (rules v14)
    return _PUBLIC_TYPE.search(text, opening, start) is not None or (
        named is not None and _public_label(named.group(1))
    )


def _public_label(label: str) -> bool:
    """Whether a label names a public value: its words say public, or its last word says id."""
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+", label)]
    while words and words[-1].isdigit():
        words.pop()  # `x-amz-id-2`
    if words and words[0] in _CURSOR_HEADS and words[-1] == "token":
        return True  # `page_token`, `NextToken`, `continuation-token`: where a listing goes on, sent in the clear
    if not words or any(w in ("secret", "private", "password", "token") for w in words):
        return False
    return bool(_PUBLIC_WORDS.intersection(words)) or words[-1] in _ID_TAILS


_RANDOM_RUN = (
    # A marker after the token counts as more token: `NAME=<value>` and `NAME=[REDACTED:...]`
    # must be judged alike, or a second scrub would find what the first did not.
    r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{20,}={0,2}(?![A-Za-z0-9+/_\-=]|\[REDACTED:)"
)
_RANDOM_RUN_AFTER_ESCAPE = lazy(r"[A-Za-z0-9+/_\-]{20,}={0,2}(?![A-Za-z0-9+/_\-=]|\[REDACTED:)")
_PUBLIC_BLOCK = (
    r"-----BEGIN ((?:X509 |TRUSTED |RSA )?(?:CERTIFICATE(?: REQUEST)?|PUBLIC KEY|X509 CRL)"
    r"|PGP (?:PUBLIC KEY BLOCK|SIGNATURE|MESSAGE)|AGE ENCRYPTED FILE)-----"
)
"""Blocks that are public by design (certificates, public keys, signatures) or ciphertext, which
opens nothing without a key held elsewhere (`age`, an OpenPGP message)."""


def _public_blocks(text: str) -> list[tuple[int, int]]:
    """The spans of certificate and public key blocks: their base64 is not a secret."""
    spans: list[tuple[int, int]] = []
    for label in re.finditer(_PUBLIC_BLOCK, text):
        end = text.find(f"-----END {label.group(1)}-----", label.end())
        following = text.find("-----BEGIN", label.end())
        if end >= 0 and (following < 0 or end < following):
            spans.append((label.start(), end))
        elif (cut := _BASE64_LINES.match(text, label.end())) is not None:
            spans.append((label.start(), cut.end()))  # `head -3 ca.crt`: a block cut short is as public, down its lines
    return spans


_BASE64_LINES = lazy(r"(?:\r?\n[ \t]*[A-Za-z0-9+/=]{16,128}[ \t]*)+")
"""The base64 lines right under a block's `-----BEGIN` line, while no other line breaks them."""


_ENCRYPTED_FILES = (".enc", ".gpg", ".age", ".asc", ".sops", ".vault")
_DIGEST_NAMES = ("sha", "md5", "sm3", "blake")


class _Context:
    """What a text holds that a random run's surroundings may be read for (a `$`, a digest's name,
    `encrypted`, an encrypted file's name): each asked of the whole text once, and only when a run
    that looks random reaches the question, so a text with none pays nothing.
    """

    __slots__ = ("_held", "folded", "text")

    def __init__(self, text: str, folded: str) -> None:
        self.text = text
        self.folded = folded
        self._held: dict[tuple[str, ...], bool] = {}

    def holds(self, *words: str) -> bool:
        """Whether the folded text holds one of `words`."""
        held = self._held.get(words)
        if held is None:
            held = self._held[words] = any(word in self.folded for word in words)
        return held


def _find_high_entropy(text: str, folded: str) -> list[Edit]:
    public = _public_blocks(text) if "-----BEGIN" in text else []
    context = _Context(text, folded)
    edits: list[Edit] = []
    for run in re.finditer(_RANDOM_RUN, text):
        if public and any(start <= run.start() < end for start, end in public):
            continue
        found: re.Match[str] | None = run
        if text[run.start() - 1 : run.start()] == "\\" and run.group()[0] in "nrt":
            found = _RANDOM_RUN_AFTER_ESCAPE.match(text, run.start() + 1)  # `\n<sha>` in a repr
        if found is None:
            continue
        edit = _judge_entropy(found, context)
        if edit is not None:
            edits.append(edit)
    return edits


_ENTROPY_RULES = [
    Rule("high-entropy", ("",), find=_find_high_entropy),
    # last: what no name marked and no other rule took, judged by its look alone (firewall/shaped.py)
    Rule("credential", SHAPED_TRIGGERS, find=find_password_shaped),
    Rule("credential", ("",), find=find_keyboard_walks),  # a walk down the keyboard's columns (firewall/walks.py)
]

RULES: tuple[Rule, ...] = (
    *_PRIVATE_KEY_RULES,
    *_VENDOR_RULES,
    *_JWT_RULES,
    *_URL_RULES,
    *_HEADER_RULES,
    *_NAMED_RULES,
    *_ENTROPY_RULES,
)
"""Every rule, in the order `scrub` applies them."""
