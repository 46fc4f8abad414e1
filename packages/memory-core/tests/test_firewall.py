"""The secret firewall: every credential shape is redacted in place, ordinary coding text is
not touched, private spans and `#nomemory` turns are dropped, and a second pass changes
nothing.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.firewall import KINDS, Firewall
from memory_testing.secret_shapes import SHAPES, SecretShape, fake

FIREWALL = Firewall()


# -- every shape -----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_each_secret_shape_is_replaced_in_place_by_its_marker(shape: SecretShape) -> None:
    result = FIREWALL.scrub(shape.text)

    assert shape.secret not in result.text
    assert result.text == shape.expected
    assert dict(result.counts) == {shape.kind: 1}


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_a_second_scrub_changes_nothing_and_counts_nothing(shape: SecretShape) -> None:
    once = FIREWALL.scrub(shape.text)
    twice = FIREWALL.scrub(once.text)

    assert twice.text == once.text
    assert dict(twice.counts) == {}


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_each_secret_shape_is_caught_inside_a_repr_and_a_json_string(shape: SecretShape) -> None:
    # Config files reach us quoted as often as raw: in a tool's JSON payload, in an
    # exception's repr on its way to the log. Escaped newlines still start lines.
    for quoted in (repr(shape.text), json.dumps({"output": shape.text})):
        result = FIREWALL.scrub(quoted)

        assert shape.secret not in result.text
        assert json.dumps(shape.secret)[1:-1] not in result.text
        assert FIREWALL.scrub(result.text).text == result.text


_FRAGMENTS = (
    *("password", "Token", "api_key", "secret", "pwd", "auth", "=", ":", " ", "\n", '"', "'", "\\", "\\n", '\\"'),
    *("<", ">", "</", "-", "--", "Bearer", "authorization", "cookie:", "://", "@", "u", "abc", "hunter2", "]"),
    *("[REDACTED:x]", "[REDACTED:", "$", "{", "}", "(", ")", ";", ",", "&", "?", "#", "login", "xoxb-", "12\t"),
    *("+", ".", "a1B2c3D4e5F6g7H8i9J0", "/", "_", "AKIA", "ABCDEFGHIJKLMNOP", "<private>", "</private>", "é", "İ"),
)


def test_scrubbing_is_idempotent_on_arbitrary_fragments_of_secret_syntax() -> None:
    # Markers must never create a new match: a name, a separator or a token boundary that
    # only appears once something next to it was redacted. Seeded, so a failure reproduces.
    rng = random.Random(20261130)
    for _ in range(3000):
        text = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 16)))
        once = FIREWALL.scrub(text)

        assert FIREWALL.scrub(once.text).text == once.text, text


def test_every_shape_in_one_long_turn_is_caught_and_counted() -> None:
    turn = "\n\n".join(f"Step {i}: {shape.text}" for i, shape in enumerate(SHAPES))

    result = FIREWALL.scrub(turn)

    for shape in SHAPES:
        assert shape.secret not in result.text, shape.name
    expected: dict[str, int] = {}
    for shape in SHAPES:
        expected[shape.kind] = expected.get(shape.kind, 0) + 1
    assert dict(result.counts) == expected
    assert FIREWALL.scrub(result.text).text == result.text


CONTEXTS = {
    "diff": ("+  password: {s}\n", "credential"),
    "numbered-listing": ("    12\t  api_key: {s}\n", "credential"),
    "grep-output": ("config/prod.yml:12:  secret: {s}\n", "credential"),
    "odbc": ("Driver={{ODBC}};Server=db;Uid=sa;Pwd={s};", "credential"),
    "maven-xml": ("<server><id>nexus</id><password>{s}</password></server>", "credential"),
    "kubectl": ("kubectl create secret generic db --from-literal=password={s}", "credential"),
    "query-string": ("GET /v1/items?access_token={s}&page=2", "credential"),
    "terraform": ('  password = "{s}"\n', "credential"),
    "windows-yaml": ("db:\r\n  password: {s}\r\n  user: app\r\n", "credential"),
    "js-object": ("const config = {{ apiKey: '{s}', region: 'eu' }};", "credential"),
}


@pytest.mark.parametrize(("template", "kind"), CONTEXTS.values(), ids=CONTEXTS.keys())
def test_assignments_are_caught_where_tools_print_them(template: str, kind: str) -> None:
    secret = "Vq7-" + fake("abcdefghijkmnpqrstuvwxyz23456789", 10, template)
    text = template.format(s=secret)

    result = FIREWALL.scrub(text)

    assert result.text == text.replace(secret, f"[REDACTED:{kind}]")


def test_two_keys_count_two() -> None:
    first, second = "AKIA" + fake("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, "a"), "AKIA" + fake("QWERTY2345", 16, "b")

    result = FIREWALL.scrub(f"old {first}, new {second}")

    assert result.text == "old [REDACTED:aws-access-key], new [REDACTED:aws-access-key]"
    assert dict(result.counts) == {"aws-access-key": 2}


def test_the_aws_secret_written_after_its_key_id_is_caught_by_context() -> None:
    key_id, secret = "AKIA" + fake("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, "id"), fake("abcdefXYZ0123+/", 40, "s")

    result = FIREWALL.scrub(f"Access key ID,Secret access key\n{key_id},{secret}\n")

    assert result.text == "Access key ID,Secret access key\n[REDACTED:aws-access-key],[REDACTED:aws-secret-key]\n"


def test_a_url_keeps_its_user_and_host_and_loses_only_the_password() -> None:
    result = FIREWALL.scrub("git remote add origin https://deploy:Zq9-vL2x_Pw@git.acme.dev/team/app.git")

    assert result.text == "git remote add origin https://deploy:[REDACTED:url-password]@git.acme.dev/team/app.git"


def test_a_password_holding_an_at_sign_goes_whole() -> None:
    result = FIREWALL.scrub("mongodb://admin:p@ss@w0rd@mongo:27017/db")

    assert result.text == "mongodb://admin:[REDACTED:url-password]@mongo:27017/db"


def test_an_unterminated_private_key_block_is_removed_to_its_last_base64_line() -> None:
    body = "\n".join(
        fake("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 64, str(i)) for i in range(3)
    )

    result = FIREWALL.scrub(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n...\nThe rest was cut off.")

    assert result.text == "[REDACTED:private-key]\n...\nThe rest was cut off."


# -- what must survive -------------------------------------------------------------------------

KEPT = {
    "git-sha": "fixed in 3f786850e387550fdab836ed7e6dc881de23001b (was a1b2c3d)",
    "sha256-of-a-file": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  memory.db",
    "labelled-digest": "image: ghcr.io/acme/app@sha256:"
    "4bc453b53cb3d914b45f4b250294236adba2c0e09ff6f03793949e7e39fd4cc1",
    "npm-integrity": '"integrity": "sha512-'
    'Q7Eb2Kv4vXHPSN5HkqnHHUq4Zbp1Pm1cLwJKQFrWvBGXZo9bQK6oWdKQ9m3t5JNDrHhB7nDyg7jZ4vWgV8q2Aw=="',
    "go-sum": "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=",
    "uuid": "request 550e8400-e29b-41d4-a716-446655440000 failed; retry 6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    "trace-id": "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "ssh-public-key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@laptop",
    "png-data-uri": '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'
    'YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
    "paths": "edit /home/runner/work/memory/memory/packages/memory-core/src/memory_core/store/sqlite.py and "
    "~/.local/share/memory/memory.db, not C:\\Users\\dev\\AppData\\Local\\memory\\memory.db",
    "venv-path": "/usr/lib/python3/dist-packages/pyOpenSSL-23.2.0.dist-info/METADATA",
    "camel-case": "AbstractSingletonProxyFactoryBean extends XMLHttpRequestEventTarget via getElementsByTagNameNS",
    "snake-case": "test_scrub_keeps_long_identifiers_and_paths_untouched calls _isolated_memory_environment",
    "constants": "MEMORY_FIREWALL_DISABLED_BY_DEFAULT and PYTHONDONTWRITEBYTECODE are unset",
    "pod-name": "kubectl logs memory-api-deployment-7d4b9c8f6d-x2k4j -n memory-production-eu",
    "wheel": "cryptography-41.0.7-cp39-abi3-manylinux_2_28_x86_64.whl",
    "gradle": "implementation 'com.google.android.gms:play-services-auth:20.7.0'",
    "urls": "see https://github.com/acme/memory/blob/3f786850e387550fdab836ed7e6dc881de23001b/docs/firewall.md#markers",
    "scp-remote": "git clone git@github.com:acme/memory.git && cd memory",
    "email": "mail me at first.last+memory@example.com",
    "tool-use-id": "tool_use_id toolu_01A09q90qw90lq917835lq9 and message msg_01XFDUDYJgAACzvnptvVoYEL",
    "version": "Python 3.11.7 (main, Dec  8 2023), SQLite 3.45.1, numpy==1.26.4",
    "numbers": "1700000000.123456 seconds, 0x7fffffffffffffff, 18446744073709551615",
    "labelled-nonce": "the hook printed NONCE-cc-ups-f76d37d0941b and MCPNONCE-text-0cc8c2fffd0d",
    "certificate": "-----BEGIN CERTIFICATE-----\nMIICiTCCAg+gAwIBAgIQH0evqmIAcFBUTAGem2OZKjAKBggqhkjOPQQDAzCBhTEL\n"
    "MAkGA1UEBhMCR0IxGzAZBgNVBAgTEkdyZWF0ZXIgTWFuY2hlc3RlcjEQMA4GA1UE\n-----END CERTIFICATE-----",
}


@pytest.mark.parametrize("text", KEPT.values(), ids=KEPT.keys())
def test_ordinary_coding_text_is_left_exactly_as_written(text: str) -> None:
    result = FIREWALL.scrub(text)

    assert result.text == text
    assert dict(result.counts) == {}


REFERENCES = {
    "annotation": "def login(user: str, password: str) -> Token:",
    "optional": "    api_key: Optional[str] = None",
    "typescript": "interface Config {\n  apiKey: string;\n  token: string | null;\n}",
    "rust": "struct Login<'a> {\n    password: &'a str,\n    api_key: String,\n}",
    "pydantic": "    secret: SecretStr = Field(..., alias='client_secret')",
    "call": "token = get_token(password)",
    "attribute": "self.api_key = api_key",
    "settings": "client = Client(api_key=settings.API_KEY, timeout=5)",
    "same-name": "connect(host=host, password=password)",
    "env-lookup": 'password = os.environ["DB_PASSWORD"]',
    "shell-variable": "export GITHUB_TOKEN=${GITHUB_TOKEN:?missing}",
    "placeholder": "API_KEY=<your-api-key>",
    "stars": "password: ****",
    "template": "token: {{ secrets.NPM_TOKEN }}",
    "empty": 'password = ""',
    "count": "MEMORY_MAX_TOKENS=800 and max_tokens=512",
    "password-stdin": "docker login --password-stdin -u bob < pass.txt",
    "pwd": "PWD=/home/me/src/memory OLDPWD=/home/me",
    "xml-reference": "<password>${env.NEXUS_PASSWORD}</password>",
    "bool": "auth: true",
    "bearer-variable": 'curl -H "Authorization: Bearer $TOKEN" https://api.acme.dev',
    "token-kind": 'if token.kind == "NAME": tokens.append(token)',
    "lexer": 'token = "("',
    "yaml-anchor": "password: &db_password",
    "comment-after-key": 'if hint == "refresh_token":  # the common case',
    "cookie-annotation": "    cookie: http.cookies.BaseCookie[str] = http.cookies.SimpleCookie()",
    "union-annotation": "        password: _PasswordType | None",
    "module-list": "pty: 3.0-\npwd: 3.0-\npy_compile: 3.0-",
    "masked": 'password = ":****"',
    "markdown-code": "the URL with any password (in the user part or a `password=` parameter) replaced by `***`",
    "markdown-header": "a request must carry `Authorization: Bearer <token>`.",
    "markdown-netrc": "`~/.netrc`: `login NAME password <password>`",
}


@pytest.mark.parametrize("text", REFERENCES.values(), ids=REFERENCES.keys())
def test_code_that_only_refers_to_a_secret_is_not_redacted(text: str) -> None:
    assert FIREWALL.scrub(text).text == text


PROSE = [
    "this cache has no memory limit",
    "I don't remember which branch",
    "We should not remember passwords; the secret: use a vault.",
    "The bearer authentication scheme is described in RFC 6750.",
    "Tokens are counted with a documented approximation: no tokenizer download.",
    "Is there a way to say nomemory for one turn? Memory of the last session was fine.",
]


@pytest.mark.parametrize("text", PROSE)
def test_ordinary_prose_is_never_dropped_or_changed(text: str) -> None:
    verdict = FIREWALL.check_turn(text, text)

    assert not verdict.voided
    assert (verdict.prompt, verdict.response) == (text, text)
    assert dict(verdict.counts) == {}


# -- private spans and #nomemory ---------------------------------------------------------------


def test_a_private_span_is_removed_and_counted() -> None:
    result = FIREWALL.scrub("deploy to <private>the staging box at 10.0.3.7</private> tonight")

    assert result.text == "deploy to  tonight"
    assert dict(result.counts) == {"private": 1}


def test_private_spans_are_case_insensitive_multi_line_and_each_counted() -> None:
    text = "a <PRIVATE>one\ntwo\n</Private> b <private >three</private> c"

    result = FIREWALL.scrub(text)

    assert result.text == "a  b  c"
    assert dict(result.counts) == {"private": 2}


def test_an_unclosed_private_tag_removes_everything_after_it() -> None:
    result = FIREWALL.scrub("keep this <private>and none of\nthis, ever")

    assert result.text == "keep this "
    assert dict(result.counts) == {"private": 1}


def test_a_nested_private_span_does_not_leak_its_tail() -> None:
    result = FIREWALL.scrub("x <private>a <private>b</private> c</private> y")

    assert result.text == "x  y"


def test_a_stray_closing_tag_hides_nothing() -> None:
    assert FIREWALL.scrub("text </private> more").text == "text </private> more"


@pytest.mark.parametrize(
    "prompt", ["#nomemory what is the prod password?", "rotate keys #NoMemory", "x\n#nomemory\ny", "#nomemory"]
)
def test_a_prompt_tagged_nomemory_voids_the_whole_turn(prompt: str) -> None:
    verdict = FIREWALL.check_turn(prompt, "The password is hunter2.")

    assert verdict.voided
    assert (verdict.prompt, verdict.response) == ("", "")
    assert dict(verdict.counts) == {"nomemory": 1}


def test_nomemory_counts_only_in_the_prompt_and_only_as_a_tag() -> None:
    assert not FIREWALL.check_turn("how do I skip a turn?", "Put #nomemory in your prompt.").voided
    assert not FIREWALL.check_turn("is #nomemoryleak a word?", "No.").voided
    assert not FIREWALL.check_turn("issue#nomemory", "ok").voided


def test_check_turn_scrubs_both_halves_and_adds_their_counts() -> None:
    key = "ghp_" + fake("abcdefghijklmnopqrstuvwxyzABCDEF0123456789", 36, "turn")

    verdict = FIREWALL.check_turn(f"use {key} <private>x</private>", f"I used {key}.")

    assert verdict.prompt == "use [REDACTED:github-token] "
    assert verdict.response == "I used [REDACTED:github-token]."
    assert dict(verdict.counts) == {"github-token": 2, "private": 1}


# -- no dropped text anywhere, and the off switch ----------------------------------------------


def test_nothing_dropped_shows_in_a_repr() -> None:
    shape = SHAPES[0]
    voided = FIREWALL.check_turn(f"#nomemory {shape.text}", shape.text)

    for value in (FIREWALL.scrub(shape.text), FIREWALL.check_turn(shape.text, shape.text), voided, FIREWALL):
        assert shape.secret not in repr(value)
        assert shape.secret not in str(value)


def test_a_wrong_argument_raises_without_echoing_anything() -> None:
    with pytest.raises(TypeError) as raised:
        FIREWALL.scrub(b"AKIA0123456789ABCDEF")  # type: ignore[arg-type]

    assert "AKIA" not in str(raised.value)


def test_markers_in_the_input_are_left_alone_and_not_counted() -> None:
    text = "already clean: [REDACTED:aws-access-key], password=[REDACTED:password-assignment]"

    result = FIREWALL.scrub(text)

    assert result.text == text
    assert dict(result.counts) == {}


def test_memory_firewall_0_lets_text_through_unchanged() -> None:
    firewall = Firewall(enabled=Config.from_env({"MEMORY_FIREWALL": "0"}).firewall)
    text = SHAPES[0].text + " <private>kept</private>"

    assert firewall.scrub(text).text == text
    assert dict(firewall.scrub(text).counts) == {}
    verdict = firewall.check_turn("#nomemory " + text, text)
    assert not verdict.voided
    assert verdict.prompt == "#nomemory " + text


def test_the_firewall_is_on_unless_switched_off() -> None:
    firewall = Firewall(enabled=Config.from_env({}).firewall)

    assert firewall.scrub(SHAPES[0].text).text == SHAPES[0].expected


# -- hostile input costs linear time -----------------------------------------------------------

HOSTILE = {
    "url-colons": "://a:" * 20000,
    "assignments": "password=x " * 5000,
    "key-labels": "-----BEGIN PRIVATE KEY-----\nabc " * 2000,
    "one-long-run": "a" * 100000 + "=b",
    "private-tags": "<private>" * 10000,
    "headers": "Authorization: " * 5000,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_input_is_scrubbed_and_stays_idempotent(text: str) -> None:
    once = FIREWALL.scrub(text)

    assert FIREWALL.scrub(once.text).text == once.text


def _best_ms(work: Callable[[], object], runs: int = 3) -> float:
    """CPU time of this thread, best of `runs`: neither the shared machine's load nor another thread
    of this process (an earlier test's background vector writer, say) counts."""
    times = []
    for _ in range(runs):
        start = time.thread_time()
        work()
        times.append(time.thread_time() - start)
    return min(times) * 1000


_ADVERSARIAL = {
    # 200 KB of the syntax each new rule reads, repeated: a search that restarts from every
    # position of such a run would be quadratic.
    "url-at-signs": "postgresql://u:" + "p@" * 100_000,
    "url-colons": "://a:" * 40_000,
    "password-flags": "mysql -p" + " -p x" * 40_000,
    "key-value-lines": "requirepass x\n" * 14_000,
    "prose": "the password is " * 12_500,
    "pgpass-colons": "h:5432:" * 28_000,
    "quoted-names": "'password', '" * 15_000,
    "base64-runs": ("QUJD" * 50 + " ") * 1_000,
    "user-then-p": "u: a p: b " * 20_000,
    "userinfo-without-scheme": "a:bbbbbb@" * 22_000,
    "value-before-noun": "Xk9fj2Lq is the new " * 10_000,
    "dns-output": "$ dig x.example.net TXT\n" + ('"' + "QUJDabc1" * 30 + '"\n') * 800,
    "name-attributes": '<add key="password" value="' * 7_000,
    "told": "so Xk9fj2Lq now, change it " * 8_000,
    # rules v11's readers
    "account-pairs": "admin / k9x! root / " * 10_000,
    "url-rows": "https://a.example u v9Xk2Lq\n" * 7_000,
    "listed-logins": "password\n" + "a.example.net    u    v9Xk2Lq\n" * 6_000,
    "label-clauses": "password a b c d e f: " * 9_000,
    "escaped-values": '"password": "a\\"' * 14_000,
    "inline-envelopes": '{"iv": "QUJDabc1QUJDabc1QUJD", "ciphertext": "' * 4_000,
    "service-logins": "nickserv identify a " * 10_000 + "acl setuser u >x " * 5_000,
    "name-value-fields": "- name: DB_PASSWORD\n  value: " * 7_000,
    # rules v13 and v14's readers: a key's start, a line's start, a clause, a code, a walk, a change's arrow
    "label-lines-no-break": "Password k9x-7 " * 13_000,
    "properties-lines": "a.password=x\\y " * 12_000,
    "clauses-any-language": "heslo do adminu je knedlik-se-5, " * 6_000,
    "codes-in-groups": "verification code is: 905-341 " * 6_500,
    "walk-candidates": "1q2w" * 50_000,
    "changes": 'password = "a1" -> ' * 10_000,
}


@pytest.mark.parametrize("text", _ADVERSARIAL.values(), ids=_ADVERSARIAL.keys())
def test_a_200_kb_adversarial_turn_costs_linear_time(text: str) -> None:
    # Ratios in one run, never absolute times: ten times the text may cost at most about ten
    # times as much (quadratic would be a hundred), and the whole 200 KB stays within a bounded
    # multiple of one plain regular-expression pass over it.
    small = text[: len(text) // 10]
    FIREWALL.scrub(small)  # compile what it triggers
    baseline = _best_ms(lambda: re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9\s]", text))

    small_ms, big_ms = _best_ms(lambda: FIREWALL.scrub(small)), _best_ms(lambda: FIREWALL.scrub(text))

    assert big_ms < 40 * small_ms + 20, (small_ms, big_ms)
    # 300: rules v12 read more about each token after a name; the name-dense inputs cost 155-203
    # times the pass at rest (docs/firewall.md, "What it costs"), and a loaded machine adds to that
    assert big_ms < 300 * baseline + 50, (baseline, big_ms)


_NAME_EVERY_FEW_CHARACTERS = {
    # a name every 20 to 70 characters, each read in full: linear, but 340 to 570 times one regex pass
    # (v12 the same: docs/firewall.md, "What it costs"); held to linear time alone
    "long-keys": ("a" * 60 + "_password=x ") * 2_800,
    "assigned-words": "PGPASSWORD=lagerhaus " * 9_500,
}


@pytest.mark.parametrize("text", _NAME_EVERY_FEW_CHARACTERS.values(), ids=_NAME_EVERY_FEW_CHARACTERS.keys())
def test_a_200_kb_turn_dense_with_names_costs_linear_time(text: str) -> None:
    small = text[: len(text) // 10]
    FIREWALL.scrub(small)
    small_ms, big_ms = _best_ms(lambda: FIREWALL.scrub(small)), _best_ms(lambda: FIREWALL.scrub(text))
    assert big_ms < 40 * small_ms + 20, (small_ms, big_ms)


# -- cost on the hook path ----------------------------------------------------------------------


def test_importing_the_firewall_compiles_nothing_and_a_scrub_compiles_only_what_it_needs() -> None:
    # The hook imports the firewall in a fresh process for every capture: compiling every
    # pattern up front would cost more than the scrub itself.
    code = (
        "import sys\n"
        "from memory_core.firewall import Firewall\n"
        "from memory_core.firewall.patterns import RULES\n"
        "before = sum(r._compiled is not None for r in RULES)\n"
        "Firewall().scrub('export AWS_ACCESS_KEY_ID=AKIAQ3EGRJ7ZX4PLMN2B and carry on')\n"
        "after = sorted({r.kind for r in RULES if r._compiled is not None})\n"
        "print(before, after)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)

    # The key id's rule and the rule for a secret written after a redacted key id; none of the
    # other fifty. (The entropy test and the assignments read the text with code of their own.)
    assert done.stdout.split(" ", 1) == ["0", "['aws-access-key', 'aws-secret-key']\n"]


# -- documentation -------------------------------------------------------------------------------


def test_every_kind_is_documented() -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "firewall.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z0-9-]+)`", page))

    assert set(KINDS) <= documented, sorted(set(KINDS) - documented)


def test_every_shape_kind_is_a_known_kind() -> None:
    assert {shape.kind for shape in SHAPES} <= set(KINDS)
