"""An adversarial corpus for the firewall: secrets by family inside real coding turns, and near-misses.

`SECRETS` holds over 150 `Sample`s, each a turn as a coding agent sees it (a shell session, a
config paste, a stack trace, a diff, a chat sentence) with one secret in it, grouped by
family (`URL userinfo`, `password flag`, `named key`, `prose`, `credential file`, `vendor
token`). `BENIGN` holds over 80 turns the firewall must keep byte for byte: digests, ids,
versions, placeholders, prose about secrets, base64 of text, ports and option clusters.

The secrets are generated from a fixed seed per sample (the same on every run, never a
real credential, and not hand-picked strings the rules could be fitted to): passwords mix
words, digits and the symbols people use, including those special in URLs and shells
where the family allows them. The counts by family are in docs/firewall.md.
"""

# ruff: noqa: E501 - a sample is a whole turn on one line, so that it reads as the turn it is

from __future__ import annotations

import base64
import random
import string
from dataclasses import dataclass

__all__ = ["Sample", "SECRETS", "BENIGN", "families"]

_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_WORDS = (
    *("orange", "falcon", "winter", "harbor", "copper", "maple", "rocket", "silver", "tiger", "summer"),
    *("garden", "purple", "castle", "dragon", "pepper", "violet", "marble", "meadow", "thunder", "velvet"),
)


@dataclass(frozen=True, slots=True)
class Sample:
    """One turn of the corpus.

    Attributes:
        family: The family it tests (the docs count samples by it).
        name: A short unique id.
        text: The turn.
        secret: What must not survive ("" for a benign sample).
        kind: The marker kind the secret becomes (`[REDACTED:<kind>]`); "" when benign.
    """

    family: str
    name: str
    text: str
    secret: str = ""
    kind: str = ""

    @property
    def expected(self) -> str:
        """The turn as the firewall must return it."""
        return self.text.replace(self.secret, f"[REDACTED:{self.kind}]") if self.secret else self.text


def _rng(seed: str) -> random.Random:
    return random.Random(f"secret-corpus/{seed}")


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def password(seed: str, symbols: str = "!#%*+-=@^_~") -> str:
    """A human password: a word, digits and symbols in one of several styles; ends alphanumeric."""
    rng = _rng(seed)
    word = rng.choice(_WORDS)
    style = rng.randrange(4)
    if style == 0:
        core = f"{word.capitalize()}{rng.randint(10, 9999)}{rng.choice(symbols)}{rng.choice(_WORDS)}"
    elif style == 1:
        core = _chars(rng, _ALNUM + symbols, rng.randint(10, 18))
    elif style == 2:
        core = f"{rng.choice(symbols)}{word}{rng.choice(symbols)}{rng.randint(100, 999)}{_chars(rng, _ALNUM, 3)}"
    else:
        core = f"{_chars(rng, string.ascii_lowercase, 4)}{rng.randint(1, 99)}{rng.choice(symbols)}{word.upper()}"
    while core[0] in symbols:
        core = core[1:]
    return core + rng.choice(_ALNUM) + rng.choice(string.digits)


def url_password(seed: str) -> str:
    """A password holding characters special in URLs: `@`, `#`, `/`, `:`, `?`, `%XX`."""
    rng = _rng(seed)
    specials = rng.sample(["@", "#", "/", ":", "?", "%40", "%23", "!", "$", "*", "+"], 3)
    pieces = [_chars(rng, _ALNUM, rng.randint(3, 6)) for _ in range(4)]
    return pieces[0] + specials[0] + pieces[1] + specials[1] + pieces[2] + specials[2] + pieces[3]


def token(seed: str, n: int = 40, alphabet: str = _ALNUM) -> str:
    """A random token, starting and ending alphanumeric."""
    rng = _rng(seed)
    return rng.choice(string.ascii_letters) + _chars(rng, alphabet, n - 2) + rng.choice(_ALNUM)


def _hex(seed: str, n: int) -> str:
    return _chars(_rng(seed), _HEX, n)


def _sample(family: str, name: str, kind: str, template: str, secret: str) -> Sample:
    return Sample(family, name, template.replace("{s}", secret), secret, kind)


# -- URL userinfo -------------------------------------------------------------------------------

_URL_TEMPLATES = (
    "$ export DATABASE_URL='postgresql://app:{s}@db.internal:5432/app'\n$ alembic upgrade head",
    'sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed\n  engine = create_engine("postgresql+psycopg://svc:{s}@10.0.4.12:5432/orders")',
    "services:\n  worker:\n    environment:\n      BROKER_URL: amqp://rabbit:{s}@mq:5672/vhost\n",
    "MONGO_URI=mongodb://admin:{s}@mongo-0.mongo:27017/app?authSource=admin&replicaSet=rs0",
    "I set CELERY_RESULT_BACKEND to redis://:{s}@cache.internal:6379/3 but the workers hang",
    "-    url: mysql://root:{s}@localhost:3306/shop\n+    url: ${DATABASE_URL}",
    "git remote set-url origin https://deploy:{s}@git.example.org/team/app.git",
    "Traceback (most recent call last):\n  File \"sync.py\", line 12, in <module>\n    ftp = connect('ftp://uploader:{s}@files.example.net/in')",
    '{"smtp": "smtp://mailer:{s}@smtp.mailgun.org:587", "from": "noreply@example.com"}',
    "curl -s 'https://ops:{s}@grafana.example.io/api/health'",
    "jdbc url is postgresql://report:{s}@[fd00::12]:5432/warehouse?sslmode=require, it times out",
    "psql \"postgres://analytics:{s}@pg.example.net/metrics?application_name=etl\" -c 'select 1'",
)


def _url_samples() -> list[Sample]:
    out = [
        _sample("URL userinfo", f"url-{i}", "url-password", template, url_password(f"url{i}"))
        for i, template in enumerate(_URL_TEMPLATES)
    ]
    extra = (
        ("amqps://bus:{s}@broker.example.com/prod", f"{password('u1')}@{token('u2', 8)}"),
        ("REDIS_URL=rediss://default:{s}@eu1.cache.example.io:6380", token("u3", 32)),
        ("mongodb+srv://etl:{s}@cluster0.ab1cd.mongodb.net/?retryWrites=true", url_password("u4") + "%2F"),
        ("conn = psycopg.connect('postgresql://u:{s}@h/db')", url_password("u5") + "#frag"),
    )
    for i, (template, secret) in enumerate(extra):
        out.append(_sample("URL userinfo", f"url-extra-{i}", "url-password", template, secret))
    lone = (
        ("CACHE=redis://{s}@cache.example.io:6379/0", token("lone1", 32)),
        # a legacy DSN's secret key; the modern DSN's lone public key is a near-miss (below)
        ("SENTRY_DSN=https://" + _hex("lone2p", 32) + ":{s}@o450123.ingest.sentry.io/5512345", _hex("lone2", 32)),
        ("pip install --index-url https://{s}@pypi.example.com/simple/ acme-internal", token("lone3", 28)),
        ("redis-cli -u redis://{s}@10.0.0.7:6379/2 ping", token("lone4", 24, _ALNUM)),
    )
    for i, (template, secret) in enumerate(lone):
        out.append(_sample("URL userinfo", f"url-token-{i}", "url-password", template, secret))
    return out


# -- password flags -----------------------------------------------------------------------------

_SHELL_SAFE = "%@#_-+=.,:^~"


def _flag_samples() -> list[Sample]:
    templates = (
        "$ mysql -u root -p{s} -h 127.0.0.1 shop\nERROR 1045 (28000): Access denied for user 'root'@'172.17.0.1'",
        "mysqldump -uadmin -p{s} --single-transaction shop > shop.sql",
        "$ sshpass -p {s} ssh deploy@10.0.0.5 'systemctl restart app'",
        "sshpass -p{s} scp build.tar.gz ci@builder:/tmp/",
        "docker login -u ci-bot -p {s} registry.example.com\nWARNING! Using --password via the CLI is insecure.",
        "podman login quay.io -u robot -p {s}",
        "helm registry login registry.example.com -u admin -p {s}",
        "mongosh --host mongo -u root -p {s} --authenticationDatabase admin",
        "mongodump -u backup -p {s} --db orders --out /backup",
        "redis-cli -h cache.internal -p 6379 -a {s} INFO replication",
        "ldapsearch -x -H ldap://dc1 -D 'cn=admin,dc=example,dc=org' -w {s} -b 'dc=example,dc=org' '(uid=jo)'",
        "ldapmodify -x -D cn=admin,dc=corp -w {s} -f change.ldif",
        "sqlcmd -S tcp:sql.example.com,1433 -U sa -P {s} -Q 'SELECT @@VERSION'",
        "ipmitool -I lanplus -H 10.0.9.2 -U ADMIN -P {s} chassis power status",
        "zip -P {s} -r backup.zip ./exports",
        "7z a -p{s} -mhe=on secrets.7z notes/",
        "xfreerdp /v:win-build01 /u:Administrator /p:{s} /cert:ignore",
        "smbclient //files/share -U svc_backup%{s} -c 'ls'",
        "keytool -importkeystore -srckeystore app.p12 -srcstorepass {s} -destkeystore app.jks",
        "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{s}",
        "htpasswd -b -c /etc/nginx/.htpasswd admin {s}",
        "sqlplus system/{s}@//db.example.com:1521/ORCLPDB1",
        "az login --service-principal -u http://ci-sp -p {s} --tenant contoso.onmicrosoft.com",
        "oc login https://api.ocp.example.com:6443 -u developer -p {s}",
        "wget --user=ci --password={s} https://artifacts.example.com/build.zip",
        "pg_restore --dbname=app --password {s} dump.custom",
        "$ ./deploy.sh --db-password {s} --env staging",
        "unzip -P {s} payroll-2024.zip",
        "mysql --host=db --user=app --password={s} < schema.sql",
        "  run: docker login ghcr.io -u bot -p{s}",
        'echo "{s}" | docker login -u ci --password-stdin registry.example.com',
        "rabbitmqctl add_user metrics {s} && rabbitmqctl set_user_tags metrics monitoring",
    )
    kinds = {25: "credential", 26: "credential", 28: "credential", 24: "credential"}
    return [
        _sample("password flag", f"flag-{i}", kinds.get(i, "password-flag"), t, password(f"flag{i}", _SHELL_SAFE))
        for i, t in enumerate(templates)
    ]


# -- names that say secret ---------------------------------------------------------------------


def _named_samples() -> list[Sample]:
    cases = (
        ("credential", "SECRET_KEY_BASE={s}\nRAILS_ENV=production", _hex("n0", 128)),
        ("credential", "production:\n  secret_key_base: {s}\n", _hex("n1", 96)),
        ("credential", "DD_APP_KEY={s}\nDD_SITE=datadoghq.eu", _hex("n2", 40)),
        ("credential", "export NEW_RELIC_LICENSE_KEY={s}", _hex("n3", 40)),
        ("credential", "license_key: {s}\napp_name: shop", token("n4", 40)),
        (
            "credential",
            'LICENSE_KEY = "{s}"',
            "-".join(token(f"n5{i}", 5, string.ascii_uppercase + string.digits) for i in range(4)),
        ),
        (
            "credential",
            "signingConfigs {\n    release {\n        storeFile file('release.jks')\n        storePassword '{s}'\n        keyAlias 'release'\n    }\n}",
            password("n6"),
        ),
        ("credential", '        keyPassword "{s}"\n', password("n7")),
        (
            "credential",
            "# redis.conf\nbind 0.0.0.0\nrequirepass {s}\nappendonly yes",
            password("n8", _SHELL_SAFE),
        ),
        ("credential", "replicaof 10.0.0.1 6379\nmasterauth {s}\n", password("n9", _SHELL_SAFE)),
        ("credential", "define( 'AUTH_KEY', '{s}' );", token("n10", 64, _ALNUM + "!@#%^&*()-_[]{}<>~+=,.;:/?|")),
        (
            "credential",
            "define( 'SECURE_AUTH_SALT', '{s}' );",
            token("n11", 64, _ALNUM + "!@#%^&*()-_[]{}<>~+=,.;:/?|"),
        ),
        (
            "credential",
            'os.environ.setdefault("DJANGO_SECRET_KEY", "{s}")',
            token("n12", 50, _ALNUM + "!@#%^&*(-_=+)"),
        ),
        ("credential", "JWT_SECRET_KEY: {s}", token("n13", 44, _B64)),
        ("credential", "app_key={s}", "base64:" + token("n14", 44, _B64)),
        ("credential", "APP_KEY={s}", "base64:" + token("n15", 43, _B64) + "="),
        ("credential", "const signingKey = '{s}';", token("n16", 48)),
        ("credential", "config.set('apiToken', '{s}')", token("n17", 32)),
        ("credential", "encryption_key_v2: {s}", _hex("n18", 64)),
        ("credential", "    'consumer_key' => '{s}',", token("n19", 25)),
        ("credential", "rpcauth {s}", "user:" + _hex("n20a", 16) + "$" + _hex("n20b", 64)),
        ("credential", "wpa_passphrase={s}\nssid=office", password("n21")),
        ("credential", "hmac_key = {s}", token("n22", 32, _B64)),
        ("credential", '  "webhookSigningKey": "{s}",', token("n23", 40)),
        ("credential", "Settings.access_token_secret = '{s}'", token("n24", 45)),
        ("credential", "stripe_signing_secret_test: {s}", token("n25", 32)),
        ("credential", '<add key="DbPassword" value="{s}" />', password("n26")),
        ("credential", "SECRET_KEY {s}", token("n27", 50, _ALNUM + "!@#%^&*(-_=+)")),
        ("credential", "[auth]\ntoken {s}", token("n28", 36)),
        ("credential", "client_secret_b64: {s}", token("n29", 40, _B64)),
    )
    return [_sample("named key", f"named-{i}", kind, t, s) for i, (kind, t, s) in enumerate(cases)]


# -- passwords in prose -------------------------------------------------------------------------


def _prose_samples() -> list[Sample]:
    templates = (
        "the password is {s} for the staging box, can you check why login fails?",
        "The password for the admin panel is {s}",
        "pw: {s} (it's the shared account)",
        "ok, I changed the password to {s} and restarted nginx",
        "Use password {s} when the installer asks.",
        "db password = {s}, user is app",
        "The root password was '{s}' before the reset.",
        'passphrase for the deploy key is "{s}"',
        "my token is {s} - does the API accept it?",
        "password -> {s}",
        "FYI the VPN pw is {s}",
        "The passcode is {s}.",
        "the password of bob@corp is {s}",
        "Password: {s}\nThanks!",
        "so the secret is {s} and the key id is 42",
        "password's {s} if you need it",
        "the password is now {s}",
        "We set the Wi-Fi password to `{s}` yesterday.",
        "api key is {s}, please don't commit it",
        "I think the pwd is {s}",
    )
    # `name = value` and `Name: value` at a line start are read as assignments, whatever the sentence.
    assigned = {5: "credential", 13: "credential"}
    out = [
        _sample("prose", f"prose-{i}", assigned.get(i, "credential"), t, password(f"prose{i}"))
        for i, t in enumerate(templates)
    ]
    plain = f"{_rng('plain').choice(_WORDS)}{_rng('plain2').randint(2, 99)}"
    out.append(_sample("prose", "prose-word-digits", "credential", "the password is {s}, don't laugh", plain))
    out.append(_sample("prose", "prose-quoted-word", "credential", "The staging password is '{s}'.", plain + "x"))
    out.append(_sample("prose", "prose-creds", "credential", "creds: admin / {s}", password("creds")))
    out.append(
        _sample(
            "prose",
            "prose-phrase",
            "credential",
            'the passphrase is "{s}"',
            " ".join(_rng("phrase").sample(_WORDS, 4)),
        )
    )
    return out


# -- credential files pasted whole --------------------------------------------------------------


def _file_samples() -> list[Sample]:
    npm_token = "npm_" + token("f-npm", 36)
    cases = (
        ("credential", "$ cat ~/.pgpass\nlocalhost:5432:app:app:{s}\n", password("f0", _SHELL_SAFE)),
        ("credential", "db.example.com:5432:*:postgres:{s}", password("f1", _SHELL_SAFE)),
        (
            "credential",
            "echo 'pg-primary:6432:billing:billing_rw:{s}' >> ~/.pgpass",
            password("f2", _SHELL_SAFE),
        ),
        (
            "credential",
            "machine api.heroku.com\n  login me@example.com\n  password {s}\n",
            _hex("f3", 8)
            + "-"
            + _hex("f3b", 4)
            + "-4"
            + _hex("f3c", 3)
            + "-a"
            + _hex("f3d", 3)
            + "-"
            + _hex("f3e", 12),
        ),
        ("credential", "machine git.example.org login ci password {s}", password("f4", _SHELL_SAFE)),
        (
            "credential",
            "@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={s}\n",
            token("f5", 40),
        ),
        (
            "credential",
            "registry=https://nexus.example.com/repository/npm/\n_auth={s}\nalways-auth=true",
            base64.b64encode(f"ci:{password('f6')}".encode()).decode(),
        ),
        (
            "credential",
            "//nexus.example.com/repository/npm/:_password={s}",
            base64.b64encode(password("f7").encode()).decode(),
        ),
        (
            "credential",
            "[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.example.com/\nusername = ci\npassword = {s}\n",
            password("f8"),
        ),
        ("credential", "[pypi]\n  username = __token__\n  password = {s}", password("f9")),
        (
            "credential",
            "# .env\nPOSTGRES_USER=app\nPOSTGRES_PASSWORD={s}\nPOSTGRES_DB=app",
            password("f10", _SHELL_SAFE),
        ),
        ("credential", "NEXTAUTH_URL=http://localhost:3000\nNEXTAUTH_SECRET={s}\n", token("f11", 44, _B64)),
        ("credential", "SLACK_SIGNING_SECRET=${SLACK_SIGNING_SECRET}\nAUTH0_CLIENT_TOKEN={s}", token("f12", 32)),
        (
            "credential",
            "users:\n- name: ci\n  user:\n    token: {s}\n",
            _chars(_rng("f13a"), "abcdefghijklmnopqrstuvwxyz0123456789", 6)
            + "."
            + _chars(_rng("f13b"), "abcdefghijklmnopqrstuvwxyz0123456789", 16),
        ),
        (
            "credential",
            "users:\n- name: admin\n  user:\n    client-key-data: {s}\n",
            base64.b64encode(b"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + token("f14", 60).encode()).decode(),
        ),
        (
            "credential",
            "    client-certificate-data: {s}\n",
            base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgII" + token("f15", 60).encode()).decode(),
        ),
        (
            "credential",
            "users:\n- name: basic\n  user:\n    username: admin\n    password: {s}\n",
            password("f16"),
        ),
        (
            "credential",
            '{\n  "auths": {\n    "registry.example.com": {\n      "auth": "{s}"\n    }\n  }\n}',
            base64.b64encode(f"robot:{password('f17')}".encode()).decode(),
        ),
        ("credential", '{"auths": {"https://index.docker.io/v1/": {"identitytoken": "{s}"}}}', token("f18", 36)),
        ("credential", "    auth-provider:\n      config:\n        refresh-token: {s}\n", token("f19", 40)),
        (
            "credential",
            "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/app\n    password: {s}\n",
            password("f20"),
        ),
        (
            "credential",
            "<settings><servers><server><id>nexus</id><username>ci</username><password>{s}</password></server></servers></settings>",
            password("f21"),
        ),
        ("credential", "[credential]\n    helper = store\n[github]\n    token = {s}", token("f22", 40)),
        ("credential", "[client]\nuser=root\npassword={s}\nhost=127.0.0.1", password("f23", _SHELL_SAFE)),
        ("npm-token", "//registry.npmjs.org/:_authToken={s}", npm_token),
    )
    return [_sample("credential file", f"file-{i}", kind, t, s) for i, (kind, t, s) in enumerate(cases)]


# -- vendor tokens ----------------------------------------------------------------------------


def _vendor_samples() -> list[Sample]:
    upper = string.ascii_uppercase + string.digits
    b64url = _ALNUM + "-_"
    cases = (
        ("aws-access-key", "aws configure set aws_access_key_id {s}", "AKIA" + _chars(_rng("v0"), upper, 16)),
        ("credential", "[default]\naws_secret_access_key = {s}\n", _chars(_rng("v1"), _B64, 40)),
        ("github-token", "remote: Invalid username or token. {s}", "ghp_" + _chars(_rng("v2"), _ALNUM, 36)),
        (
            "github-token",
            "export GH_TOKEN={s}",
            "github_pat_" + _chars(_rng("v3"), _ALNUM, 22) + "_" + _chars(_rng("v3b"), _ALNUM, 59),
        ),
        ("gitlab-token", "glab auth login --token {s}", "glpat-" + _chars(_rng("v4"), b64url, 20)),
        (
            "slack-token",
            "slack_sdk.errors.SlackApiError: invalid_auth for {s}",
            "xoxb-" + _chars(_rng("v5"), string.digits, 11) + "-" + _chars(_rng("v5b"), _ALNUM, 24),
        ),
        ("stripe-key", 'stripe.api_key = "{s}"', "sk_live_" + _chars(_rng("v6"), _ALNUM, 24)),
        ("anthropic-key", "ANTHROPIC_API_KEY={s} claude", "sk-ant-api03-" + _chars(_rng("v7"), b64url, 90)),
        (
            "openai-key",
            "openai.AuthenticationError: Incorrect API key provided: {s}",
            "sk-proj-" + _chars(_rng("v8"), b64url, 48),
        ),
        (
            "google-api-key",
            "https://maps.googleapis.com/maps/api/geocode/json?key={s}",
            "AIza" + _chars(_rng("v9"), b64url, 35),
        ),
        ("huggingface-token", "huggingface-cli login --token {s}", "hf_" + _chars(_rng("v10"), _ALNUM, 34)),
        (
            "jwt",
            "Authorization header was fine, the cookie carried {s}",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ." + _chars(_rng("v11"), b64url, 43),
        ),
        (
            "private-key",
            "cat deploy_key\n{s}\n",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + "\n".join(_chars(_rng(f"v12{i}"), _B64, 70) for i in range(3))
            + "\n-----END OPENSSH PRIVATE KEY-----",
        ),
        (
            "bearer-token",
            "curl -H 'Authorization: Bearer {s}' https://api.example.com/v2/me",
            _chars(_rng("v13"), _ALNUM, 40),
        ),
        ("high-entropy", "the worker crashed with session {s} in the payload", _chars(_rng("v14"), _B64, 48)),
        (
            "slack-webhook",
            "requests.post('{s}', json=payload)",
            "https://hooks.slack.com/services/T"
            + _chars(_rng("v15"), upper, 8)
            + "/B"
            + _chars(_rng("v15b"), upper, 10)
            + "/"
            + _chars(_rng("v15c"), _ALNUM, 24),
        ),
        ("stripe-key", "STRIPE_WEBHOOK_SECRET={s}", "whsec_" + _chars(_rng("v16"), _ALNUM, 32)),
        ("twilio-key", "client = Client('{s}', api_secret, account_sid)", "SK" + _chars(_rng("v17"), _HEX, 32)),
        (
            "sendgrid-key",
            "sg = sendgrid.SendGridAPIClient({s})",
            "SG." + _chars(_rng("v18"), b64url, 22) + "." + _chars(_rng("v18b"), b64url, 43),
        ),
        (
            "npm-token",
            "npm ERR! 403 Forbidden - token {s} lacks publish rights",
            "npm_" + _chars(_rng("v19"), _ALNUM, 36),
        ),
        (
            "pypi-token",
            "twine upload -u __token__ dist/* # used {s}",
            "pypi-AgEIcHlwaS5vcmc" + _chars(_rng("v20"), b64url, 60),
        ),
        ("digitalocean-token", "doctl auth init --access-token {s}", "dop_v1_" + _chars(_rng("v21"), _HEX, 64)),
        ("vault-token", "Error making API request. Code: 403. token={s}", "hvs." + _chars(_rng("v22"), b64url, 90)),
        ("groq-key", "GROQ_API_KEY={s}", "gsk_" + _chars(_rng("v23"), _ALNUM, 52)),
        (
            "telegram-token",
            "bot = telebot.TeleBot('{s}')",
            _chars(_rng("v24"), string.digits, 10) + ":AA" + _chars(_rng("v24b"), b64url, 33),
        ),
        (
            "azure-key",
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net",
            _chars(_rng("v25"), _B64, 86) + "==",
        ),
        (
            "google-oauth-token",
            "Authorization failed for access token {s} (expired?)",
            "ya29." + _chars(_rng("v26"), b64url, 120),
        ),
    )
    return [_sample("vendor token", f"vendor-{i}", kind, t, s) for i, (kind, t, s) in enumerate(cases)]


SECRETS: tuple[Sample, ...] = (
    *_url_samples(),
    *_flag_samples(),
    *_named_samples(),
    *_prose_samples(),
    *_file_samples(),
    *_vendor_samples(),
)
"""Every secret sample; each holds exactly one secret."""


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


_BENIGN_TEXTS: tuple[tuple[str, str], ...] = (
    # digests and ids
    (
        "digest",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Jo <jo@example.com>\n\n    Fix the retry loop",
    ),
    ("digest", "$ git log --oneline -3\n9fceb02 Merge branch 'main'\n4b825dc Add tests\ne69de29 Initial commit"),
    ("digest", "git rev-parse HEAD\nd670460b4b4aece5915caf5c68d12f560a9fe3e4"),
    (
        "digest",
        'resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae8454cf0b3df370c3d6911c"',
    ),
    (
        "digest",
        '"node_modules/react": {\n  "version": "18.2.0",\n  "integrity": "sha512-/3IjMdb2L9QbBdWiW5e3P2/npwMBaU9mHCSCUzNln0ZCYbcfTsGbTJrU/kGemdH2IWmB2ioZ+zkxtmq6g09fGQ=="\n}',
    ),
    (
        "digest",
        "requests==2.31.0 \\\n    --hash=sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f",
    ),
    (
        "digest",
        '[[package]]\nname = "idna"\nversion = "3.6"\nfiles = [\n    {file = "idna-3.6.tar.gz", hash = "sha256:9ecdbbd083b06798ae1e86adcbfe8ab1479cf864e4ee30fe4e46a003d12491ca"},\n]',
    ),
    ("digest", "image: ghcr.io/acme/api@sha256:4bc453b53cb3d914b45f4b250294236adba2c0e09ff6f03793949e7e39fd4cc1"),
    (
        "digest",
        "Digest: sha256:a3ed95caeb02ffe68cdd9fd84406680ae93d633cb16422d00e8a7c22955b46d4\nStatus: Downloaded newer image for nginx:1.25",
    ),
    ("digest", "golang.org/x/net v0.19.0 h1:zTwKpTd2XuCqf8huc7Fo2iSy+4RHPG10/GJzT+7X5/c="),
    ("digest", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  dist/app.tar.gz"),
    ("digest", 'etag: "33a64df551425fcc55e4d42a148795d9f25f89d4"'),
    ("id", "request_id=550e8400-e29b-41d4-a716-446655440000 status=502 upstream=api-7d4b9c8f6d-x2k4j"),
    ("id", "Created job 7f1c2e4a-9b3d-4e8f-a1c6-0d2b5e7f9a13 in queue default"),
    ("id", "trace_id: 4bf92f3577b34da6a3ce929d0e0e4736 span_id: 00f067aa0ba902b7"),
    ("id", "tool_use_id: toolu_01A09q90qw90lq917835lq9, message msg_01XFDUDYJgAACzvnptvVoYEL"),
    ("id", "Stripe event evt_1NG8Du2eZvKYlo2CUI79vXWy for customer cus_NffrFeUfNV2Hib"),
    ("id", "arn:aws:iam::123456789012:role/service-role/lambda-exec-role"),
    ("id", "kubectl logs pod/payments-api-6b9f7c8d5-q4w2z -c app --since=10m"),
    ("version", "Python 3.12.1, numpy==1.26.4, pydantic>=2.5,<3, node v20.11.0, go1.21.6"),
    ("version", "Bumped @types/node from 20.10.5 to 20.11.0 and typescript to 5.3.3"),
    ("version", "cryptography-41.0.7-cp39-abi3-manylinux_2_28_x86_64.whl"),
    ("identifier", "AbstractSingletonProxyFactoryBean extends XMLHttpRequestEventTarget"),
    ("identifier", "def test_scrub_keeps_long_identifiers_and_paths_untouched(tmp_path):"),
    ("identifier", "MEMORY_FIREWALL_DISABLED_BY_DEFAULT = os.environ.get('PYTHONDONTWRITEBYTECODE')"),
    ("identifier", "from app.services.authentication.token_refresh_scheduler import TokenRefreshScheduler"),
    # placeholders
    ("placeholder", "OPENAI_API_KEY=sk-...\nANTHROPIC_API_KEY=<YOUR_API_KEY>"),
    ("placeholder", "export API_TOKEN=xxxxxxxxxxxxxxxxxxxx"),
    ("placeholder", "DB_PASSWORD=changeme"),
    ("placeholder", "password: ${POSTGRES_PASSWORD}"),
    ("placeholder", 'TOKEN="$(gh auth token)"'),
    ("placeholder", "password = *****"),
    ("placeholder", "MYSQL_ROOT_PASSWORD=your-password-here"),
    ("placeholder", "postgresql://user:password@localhost:5432/mydb"),
    ("placeholder", "DATABASE_URL=postgres://app:${DB_PASS}@db:5432/app"),
    ("placeholder", "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX"),
    ("placeholder", "api_key: <insert-your-key>"),
    ("placeholder", "mysql -u root -p"),
    ("placeholder", "docker login -u bob --password-stdin < token.txt"),
    ("placeholder", 'sshpass -p "$SSH_PASS" ssh host'),
    ("placeholder", "SECRET_KEY={{ vault_secret_key }}"),
    ("placeholder", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is what the docs show"),
    ("placeholder", "the password is ******** in the screenshot"),
    # prose about secrets
    ("prose", "rotate the password tomorrow"),
    ("prose", "the token expired, so refresh it"),
    ("prose", "The password is stored in vault under secret/db."),
    ("prose", "password is required when the form is submitted"),
    ("prose", "Where does the app read its secret key from?"),
    ("prose", "The api key is in 1Password, ask Sam."),
    ("prose", "I forgot my password again, how do I reset it?"),
    ("prose", "the secret is out: we ship on Friday"),
    ("prose", "The token is a JWT signed with RS256."),
    ("prose", "Password reset emails are sent by the worker."),
    ("prose", "the password is sunshine-free now, we use SSO"),
    ("prose", "use password authentication for the replica"),
    # code and config that only name secrets
    ("reference", "def login(user: str, password: str) -> Token:"),
    ("reference", "token_count: 512\nmax_tokens: 4096\ntoken_type: bearer"),
    ("reference", "secret_name: my-db-secret\nsecret_namespace: prod"),
    (
        "reference",
        "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@build",
    ),
    ("reference", 'cache_key = f"user:{user_id}:profile"'),
    ("reference", "license: MIT\n# SPDX-License-Identifier: Apache-2.0"),
    ("reference", "        keyAlias 'release'\n        storeFile file('release.keystore')"),
    ("reference", "auth: true\nalways-auth=true\nregistry=https://registry.npmjs.org/"),
    ("reference", 'oauth_client_id: "1234567890-abc123def456.apps.googleusercontent.com"'),
    ("reference", '{"credsStore": "desktop", "currentContext": "default"}'),
    ("reference", "password_min_length = 12\npassword_hash_algorithm = argon2id"),
    ("reference", "token_url: https://oauth2.googleapis.com/token"),
    ("reference", "primary_key = models.AutoField(primary_key=True)"),
    ("reference", '<input type="password" name="password" autocomplete="current-password">'),
    ("reference", '"password": {"type": "string", "minLength": 8}'),
    ("reference", "def test_should_return_401_when_the_token_is_missing(client):"),
    ("reference", 'password = os.getenv("DB_PASSWORD")\nexport SECRET_KEY=$(openssl rand -hex 32)'),
    ("reference", 'token_type="bearer", expires_in=3600, oauth_token_secret_length = 40'),
    ("prose", "The password is sha256-hashed before storage; the password is 12 characters long."),
    ("prose", "The password must be at least 12 characters and include a digit."),
    ("flag", "echo $CR_PAT | docker login ghcr.io -u bob --password-stdin"),
    ("flag", "psql -h localhost -p 5432 -U postgres -d app"),
    (
        "reference",
        "    certificate-authority-data: "
        + _b64(
            "-----BEGIN CERTIFICATE-----\nMIIC5zCCAc+gAwIBAgIBADANBgkqhkiG9w0BAQsFADAVMRMwEQYDVQQDEwprdWJl\n-----END CERTIFICATE-----\n"
        ),
    ),
    # command lines with -p that is not a password
    ("flag", "mkdir -p build/out && cp -pr assets build/out"),
    ("flag", "docker run -p 8080:80 -p 127.0.0.1:9090:9090 nginx:1.25"),
    ("flag", "python -m pytest -p no:cacheprovider -q tests/"),
    ("flag", "ssh -p 2222 deploy@10.0.0.5"),
    ("flag", "git log -p --stat -- src/"),
    ("flag", "redis-cli -h cache -p 6379 ping"),
    ("flag", "mysql -h db -P 3306 -u app -p shop"),
    ("flag", "tar -pxzf release.tar.gz -C /opt/app"),
    # files that look like credential files
    ("file", "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin"),
    ("file", "started 12:30:45, finished 12:31:02 (17s)"),
    ("file", "inet6 fe80::1c2b:3dff:fe4e:5f60/64 scope link"),
    ("file", "localhost:5432:*:postgres:*"),
    ("file", "MAC address 52:54:00:9d:0e:67 and an address like 123:2:3:4:5:6:7:8"),
    ("reference", '_SPACED = {\n    "sshpass": ("-p",),\n    "redis-cli": ("-a",),\n}'),
    ("reference", '    password = text[colon + 1 : at]\n_TOKEN = re.compile(r"[A-Z]?[a-z]+|[0-9]+")'),
    # base64 of text and small images
    ("base64", "echo " + _b64("The quick brown fox jumps over the lazy dog near the river bank") + " | base64 -d"),
    ("base64", "data: " + _b64("Hello world, this is a perfectly ordinary sentence about deploys.")),
    ("base64", "msg=" + _b64("Build 1432 finished in 4 minutes with 0 failures and 3 warnings")),
    (
        "base64",
        '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
    ),
    ("base64", "favicon: R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"),
    # URLs that carry no credential
    ("url", "https://api.example.com:8443/v1/users?email=jo@example.com&page=2"),
    ("url", "https://www.npmjs.com/package/@babel/core and https://medium.com/@someone/post-1"),
    ("url", "git clone git@github.com:acme/memory.git"),
    ("url", "ssh://git@gitlab.example.com:2222/team/app.git"),
    ("url", "http://[::1]:8080/health and http://localhost:3000/#/users/@me"),
    # a DSN's lone public key: shipped to every browser, it can only submit events (round 11; docs/firewall.md)
    ("url", "SENTRY_DSN=https://3c1f0e9a7b5d4c2e8f6a1b0d9e7c5a43@o450123.ingest.sentry.io/5512345"),
)

BENIGN: tuple[Sample, ...] = tuple(
    Sample(family, f"benign-{i}-{family}", text) for i, (family, text) in enumerate(_BENIGN_TEXTS)
)
"""Every near-miss the firewall must keep byte for byte."""


def families(samples: tuple[Sample, ...]) -> dict[str, int]:
    """How many samples each family holds, in first-seen order."""
    counts: dict[str, int] = {}
    for sample in samples:
        counts[sample.family] = counts.get(sample.family, 0) + 1
    return counts
