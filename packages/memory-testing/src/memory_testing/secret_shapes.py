"""One realistic, fake example of every credential shape the firewall redacts, for tests.

Each `SecretShape` is a line as it would appear in a turn (a shell command, a config file, a
traceback) with the secret inside it. The values are random but built at import time from a
fixed seed, so they are the same on every run and no literal credential sits in the source
(secret scanners stay quiet, and nothing here ever worked anywhere).

The firewall's unit tests check each shape is redacted in place; the storage tests capture
each one through `MemoryService` and check its bytes reach no file, index or log. A new store
backend can reuse `SHAPES` the same way.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

__all__ = ["SecretShape", "SHAPES", "fake"]

_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_B64URL = _ALNUM + "-_"


def fake(alphabet: str, length: int, seed: str) -> str:
    """`length` characters of `alphabet`, the same for the same seed on every run."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


@dataclass(frozen=True, slots=True)
class SecretShape:
    """A line holding one secret.

    Attributes:
        kind: The kind the firewall must count it as (`[REDACTED:<kind>]`).
        text: The line, secret included.
        secret: The exact characters that must not survive (the line with them replaced by
            the marker is what the firewall must return).
        name: A short id for test parametrisation.
    """

    kind: str
    text: str
    secret: str
    name: str

    @property
    def expected(self) -> str:
        """The line as the firewall must return it."""
        return self.text.replace(self.secret, f"[REDACTED:{self.kind}]")


def _shape(name: str, kind: str, template: str, secret: str) -> SecretShape:
    return SecretShape(kind=kind, text=template.replace("{s}", secret), secret=secret, name=name)


_PEM_BODY = "\n".join(fake(_B64, 64, f"pem{i}") for i in range(6))
_OPENSSH_BODY = "\n".join(fake(_B64, 70, f"ssh{i}") for i in range(4))
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiJ1c2VyLTQyIiwicm9sZSI6ImFkbWluIiwiaWF0IjoxNzAwMDAwMDAwfQ." + fake(_B64URL, 43, "jwt")
)

SHAPES: tuple[SecretShape, ...] = (
    _shape("aws-id", "aws-access-key", "export AWS_ACCESS_KEY_ID={s}", "AKIA" + fake(_UPPER, 16, "aws")),
    _shape("aws-sts", "aws-access-key", "temporary key {s} expires in an hour", "ASIA" + fake(_UPPER, 16, "sts")),
    _shape(
        "aws-secret",
        "credential",
        "[default]\naws_secret_access_key = {s}\nregion = eu-west-1",
        fake(_B64, 40, "aws-secret"),
    ),
    _shape("github-classic", "github-token", "git push https://x:{s}@github.com/o/r", "ghp_" + fake(_ALNUM, 36, "ghp")),
    _shape(
        "github-fine",
        "github-token",
        "GH_TOKEN={s} gh pr list",
        "github_pat_" + fake(_ALNUM, 22, "pat1") + "_" + fake(_ALNUM, 59, "pat2"),
    ),
    _shape("github-app", "github-token", "installation token: {s}", "ghs_" + fake(_ALNUM, 36, "ghs")),
    _shape("gitlab", "gitlab-token", "glab auth login --stdin <<< {s}", "glpat-" + fake(_B64URL, 20, "glpat")),
    _shape(
        "slack-bot",
        "slack-token",
        "SLACK_BOT=({s})",
        "xoxb-" + fake(string.digits, 12, "x1") + "-" + fake(string.digits, 13, "x2") + "-" + fake(_ALNUM, 24, "x3"),
    ),
    _shape(
        "slack-webhook",
        "slack-webhook",
        "curl -X POST {s} -d '{}'",
        "https://hooks.slack.com/services/T"
        + fake(_UPPER, 8, "t")
        + "/B"
        + fake(_UPPER, 10, "b")
        + "/"
        + fake(_ALNUM, 24, "w"),
    ),
    _shape("stripe-live", "stripe-key", "stripe.api_key = '{s}'", "sk_live_" + fake(_ALNUM, 24, "stripe")),
    _shape("stripe-restricted", "stripe-key", "using {s} for refunds", "rk_live_" + fake(_ALNUM, 24, "rk")),
    _shape("openai-project", "openai-key", "OPENAI_API_KEY={s}", "sk-proj-" + fake(_B64URL, 64, "openai")),
    _shape("openai-legacy", "openai-key", "client = OpenAI(api_key='{s}')", "sk-" + fake(_ALNUM, 48, "legacy")),
    _shape("anthropic", "anthropic-key", "x-api-key: {s}", "sk-ant-api03-" + fake(_B64URL, 93, "ant") + "AA"),
    _shape("google", "google-api-key", "maps.js?key={s}&v=3", "AIza" + fake(_B64URL, 35, "aiza")),
    _shape("npm", "npm-token", "//registry.npmjs.org/:_authToken={s}", "npm_" + fake(_ALNUM, 36, "npm")),
    _shape(
        "pypi",
        "pypi-token",
        "twine upload -p {s} dist/*",
        "pypi-AgEIcHlwaS5vcmcCJD" + fake(_B64URL, 120, "pypi"),
    ),
    _shape("twilio", "twilio-key", "Twilio API key {s} created", "SK" + fake(_HEX, 32, "twilio")),
    _shape(
        "sendgrid",
        "sendgrid-key",
        "sg = SendGridAPIClient({s})",
        "SG." + fake(_B64URL, 22, "sg1") + "." + fake(_B64URL, 43, "sg2"),
    ),
    _shape("huggingface", "huggingface-token", "huggingface-cli login --token {s}", "hf_" + fake(_ALNUM, 34, "hf")),
    _shape(
        "azure-storage",
        "azure-key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net",
        fake(_B64, 86, "azure") + "==",
    ),
    _shape("digitalocean", "digitalocean-token", "doctl auth init -t {s}", "dop_v1_" + fake(_HEX, 64, "do")),
    _shape("groq", "groq-key", "GROQ key is {s}", "gsk_" + fake(_ALNUM, 52, "groq")),
    _shape("vault", "vault-token", "VAULT_TOKEN set to {s} earlier", "hvs." + fake(_B64URL, 90, "vault")),
    _shape(
        "pem-rsa",
        "private-key",
        "cat id_rsa\n{s}\nthen chmod 600",
        "-----BEGIN RSA PRIVATE KEY-----\n" + _PEM_BODY + "\n-----END RSA PRIVATE KEY-----",
    ),
    _shape(
        "openssh",
        "private-key",
        "key:\n{s}\n",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + _OPENSSH_BODY + "\n-----END OPENSSH PRIVATE KEY-----",
    ),
    _shape(
        "pem-in-json",
        "private-key",
        '{"type": "service_account", "private_key": "{s}\\n", "client_email": "ci@acme.iam"}',
        "-----BEGIN PRIVATE KEY-----\\n" + _PEM_BODY.replace("\n", "\\n") + "\\n-----END PRIVATE KEY-----",
    ),
    _shape(
        "pem-truncated",
        "private-key",
        "the paste was cut:\n{s}\n\nSo I asked for the rest.",
        "-----BEGIN EC PRIVATE KEY-----\n" + _PEM_BODY,
    ),
    _shape("jwt", "jwt", "session cookie value {s} expired", _JWT),
    _shape(
        "url-password",
        "url-password",
        "DATABASE_URL=postgresql://app:{s}@db.internal:5432/app",
        "pl41n-" + fake(_ALNUM, 6, "pg"),
    ),
    _shape("redis-password", "url-password", "redis://:{s}@cache:6379/2", "r3d1s" + fake(_ALNUM, 6, "redis")),
    _shape(
        "env-password",
        "credential",
        "POSTGRES_PASSWORD={s} docker compose up",
        "hunter2-" + fake(_ALNUM, 4, "e"),
    ),
    _shape("yaml-password", "credential", "db:\n  password: {s}\n  user: app", "correct horse battery"),
    _shape("json-password", "credential", '{"user": "bob", "password": "{s}"}', "P@ssw0rd!2024"),
    _shape("cli-password", "credential", "mysql --password {s} -h db", "s3cr3t-" + fake(_ALNUM, 4, "cli")),
    _shape("netrc", "credential", "machine api.acme.dev login bob password {s}", "n3trc" + fake(_ALNUM, 5, "n")),
    _shape("client-secret", "credential", "client_secret: '{s}'", "cs-" + fake(_ALNUM, 12, "cs")),
    _shape("token-json", "credential", '{"refresh_token": "{s}"}', "rt." + fake(_ALNUM, 10, "rt")),
    _shape("api-key", "credential", "API_KEY={s} ./run.sh", "k3y" + fake(_ALNUM, 9, "ak")),
    _shape(
        "bearer",
        "bearer-token",
        "curl -H 'Authorization: Bearer {s}' https://api.acme.dev/v1/me",
        fake(_ALNUM, 30, "bearer"),
    ),
    _shape("basic", "basic-auth", "Authorization: Basic {s}", "Ym9iOmh1bnRlcjItc2VjcmV0"),
    _shape("curl-user", "basic-auth", "curl -u bob:{s} https://acme.dev", "cUrLp4ss" + fake(_ALNUM, 4, "cu")),
    _shape("cookie", "cookie", "GET / HTTP/1.1\nCookie: {s}\nAccept: */*", "sessionid=" + fake(_ALNUM, 32, "cookie")),
    _shape("high-entropy", "high-entropy", "the deploy used {s} as its key", fake(_B64, 40, "entropy")),
)
"""Every shape, each with one secret in it."""
