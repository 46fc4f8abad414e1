"""A generated corpus for the firewall: secrets and near-misses that vary language, syntax and context.

`generate()` returns `(secrets, benign)`: several hundred `Sample`s each, built from generators
that cross a family (a password stated in a sentence, SQL that sets one, a one-time code, a key
passed positionally to an SDK client, ...) with the languages people write it in (natural
languages for prose, programming languages and shells for code) and with the context of a
coding turn around it (a shell session, a chat message, a log, a diff). Nothing is one template
per case: each family draws its phrasing, its language, its quoting and its frame from lists.

Every sample carries a `fold`, "A" or "B", decided by its family's language or syntax, never by
chance: the rules are developed on one fold and measured on the other (docs/firewall.md reports
both out-of-fold figures). `Sample.family` is `"<family>/<variant>"`.

Deterministic: the values come from a fixed seed per sample, and none ever worked anywhere.
"""

# ruff: noqa: E501, RUF001 - a template is a turn's line (kept on one line), in the script it is written in

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memory_testing import secret_round12, secret_round13
from memory_testing.secret_corpus import Sample

__all__ = ["Generated", "generate", "FOLDS"]

FOLDS = ("A", "B")
_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_B32 = string.ascii_uppercase + "234567"
_WORDS = ("lantern", "quartz", "nimbus", "cobalt", "saffron", "juniper", "ember", "glacier", "orchid", "basalt")


@dataclass(frozen=True, slots=True)
class Generated:
    """A generated sample and the fold its generator belongs to."""

    fold: str
    sample: Sample


def _rng(seed: str) -> random.Random:
    return random.Random(f"secret-generators/{seed}")


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _password(rng: random.Random) -> str:
    """A human password in one of several styles (never a plain word)."""
    style = rng.randrange(5)
    word = rng.choice(_WORDS)
    if style == 0:
        return f"{word.capitalize()}{rng.randint(10, 999)}{rng.choice('!#%*+=@^_~$&')}{rng.choice(_WORDS)}"
    if style == 1:
        return (
            rng.choice(string.ascii_letters)
            + _chars(rng, _ALNUM + "!#%*+=@^_~", rng.randint(9, 16))
            + rng.choice(_ALNUM)
        )
    if style == 2:
        return f"{word}{rng.randint(1000, 99999)}"
    if style == 3:
        return f"{_chars(rng, string.ascii_lowercase, 3)}{rng.choice('-_.')}{rng.randint(10, 99)}{word.upper()}{rng.choice('!?#')}"
    return _chars(rng, _ALNUM, rng.randint(12, 20))


def _token(rng: random.Random, n: int = 32, alphabet: str = _ALNUM) -> str:
    return rng.choice(string.ascii_letters) + _chars(rng, alphabet, n - 1)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


_FRAMES = (
    "{x}",
    "I ran this and it still fails:\n\n```\n{x}\n```\n\nany idea?",
    "Here's the snippet from the deploy notes:\n{x}\n",
    "> {x}\n\nThat's what ops sent me in chat this morning.",
    "$ history | tail -3\n{x}\n",
    "Context for the bug: {x}\nThe service logs nothing after that.",
)


def _frame(rng: random.Random, text: str) -> str:
    return rng.choice(_FRAMES).replace("{x}", text)


# -- secrets --------------------------------------------------------------------------------------

_STATED: dict[str, tuple[str, tuple[str, ...]]] = {
    # language: (fold, phrasings); {s} is the password
    "fr": (
        "A",
        (
            "Le mot de passe du serveur de staging est {s}",
            "mdp : {s} (ne le partage pas)",
            "J'ai changé le mot de passe de la base en « {s} »",
        ),
    ),
    "de": (
        "B",
        ("Das Passwort für den Jenkins-Admin lautet {s}", "Kennwort: {s}", "Ich habe das DB-Passwort auf {s} geändert"),
    ),
    "es": (
        "A",
        (
            "La contraseña del usuario admin es {s}",
            "contraseña: {s} — cámbiala después",
            "Te paso la clave de la VPN: {s}",
        ),
    ),
    "pt": ("B", ("A senha do banco de produção é {s}", "senha: {s}", "Mudei a palavra-passe do root para {s}")),
    "it": (
        "A",
        ("La password dell'account di servizio è {s}", "Ecco la password: {s}", "la parola d'ordine del wifi è {s}"),
    ),
    "nl": ("B", ("Het wachtwoord van de database is {s}", "wachtwoord: {s}", "Ik heb het wachtwoord veranderd in {s}")),
    "ru": ("A", ("Пароль от сервера: {s}", "пароль для базы — {s}", "Новый пароль администратора {s}")),
    "ja": ("B", ("本番DBのパスワードは {s} です", "パスワード：{s}", "管理者パスワードを「{s}」に変更しました")),
    "zh": ("A", ("数据库密码是 {s}", "密码：{s}", "服务器的登录密码为{s}，别外传")),
    "pl": ("B", ("Hasło do serwera to {s}", "hasło: {s}", "Zmieniłem hasło admina na {s}")),
    "ko": ("A", ("DB 비밀번호는 {s} 입니다", "비밀번호: {s}", "관리자 암호를 {s}(으)로 바꿨어요")),
    "tr": ("B", ("Sunucunun şifresi {s}", "şifre: {s}", "Veritabanı parolası {s} olarak değiştirildi")),
    "sv": ("A", ("Lösenordet till databasen är {s}", "lösenord: {s}", "Jag bytte lösenordet till {s}")),
    "cs": ("B", ("Heslo k databázi je {s}", "heslo: {s}", "Změnil jsem heslo na {s}")),
    "uk": ("A", ("Пароль до бази даних: {s}", "пароль — {s}", "Я змінив пароль на {s}")),
    "ar": ("B", ("كلمة المرور للخادم هي {s}", "كلمة السر: {s}", "غيرت كلمة المرور إلى {s}")),
    "hi": ("A", ("सर्वर का पासवर्ड {s} है", "पासवर्ड: {s}", "मैंने पासवर्ड बदलकर {s} कर दिया")),
    "vi": ("B", ("Mật khẩu của máy chủ là {s}", "mật khẩu: {s}", "Tôi đã đổi mật khẩu thành {s}")),
    "id": ("A", ("Kata sandi server adalah {s}", "kata sandi: {s}", "Saya sudah ganti sandi jadi {s}")),
    "fi": ("B", ("Tietokannan salasana on {s}", "salasana: {s}", "Vaihdoin salasanan: {s}")),
    "en-reset": (
        "A",
        (
            "reset the root pw on bastion-2 to {s}",
            "I've set the admin password to `{s}` for now",
            "changed the db pass to {s}, update your .env",
        ),
    ),
    "en-use": ("B", ("use `{s}` as the keystore passphrase", "login with ci-bot / pass {s}", "user: deploy, pass {s}")),
    "en-chat": ("A", ("creds for the staging box are admin/{s}", "the wifi passphrase is {s}", "pw for grafana: {s}")),
    "en-ops": (
        "B",
        ("signing passphrase = {s} (from 1password)", "ok the new pwd is {s}", "root password on the NAS: {s}"),
    ),
}


def _stated() -> Iterator[Generated]:
    for language, (fold, phrasings) in _STATED.items():
        for i, phrasing in enumerate(phrasings):
            for j in range(2):
                rng = _rng(f"stated/{language}/{i}/{j}")
                secret = _password(rng)
                text = _frame(rng, phrasing.replace("{s}", secret))
                yield Generated(fold, Sample(f"stated/{language}", f"gen-stated-{language}-{i}-{j}", text, secret, "?"))


_SQL: dict[str, tuple[str, tuple[str, ...]]] = {
    "mysql": (
        "A",
        (
            "CREATE USER 'app'@'%' IDENTIFIED BY '{s}';",
            "ALTER USER 'report'@'localhost' IDENTIFIED BY '{s}';",
            "mysql> SET PASSWORD FOR 'etl'@'%' = '{s}';",
        ),
    ),
    "postgres": (
        "B",
        (
            "CREATE ROLE app WITH LOGIN PASSWORD '{s}';",
            "ALTER USER analytics WITH PASSWORD '{s}';",
            "postgres=# ALTER ROLE grafana PASSWORD '{s}' VALID UNTIL 'infinity';",
        ),
    ),
    "oracle": (
        "A",
        (
            'CREATE USER hr_app IDENTIFIED BY "{s}" DEFAULT TABLESPACE users;',
            "ALTER USER system IDENTIFIED BY {s} ACCOUNT UNLOCK;",
        ),
    ),
    "mssql": (
        "B",
        ("CREATE LOGIN svc_app WITH PASSWORD = '{s}', CHECK_POLICY = OFF;", "ALTER LOGIN sa WITH PASSWORD = N'{s}';"),
    ),
    "heredoc": (
        "A",
        (
            "psql -h db -U postgres <<'SQL'\nCREATE USER etl WITH ENCRYPTED PASSWORD '{s}';\nGRANT ALL ON DATABASE dw TO etl;\nSQL",
            "mysql -uroot <<EOF\nCREATE USER 'api'@'%' IDENTIFIED BY '{s}';\nFLUSH PRIVILEGES;\nEOF",
        ),
    ),
    "in-code": (
        "B",
        (
            "cur.execute(\"ALTER USER app_rw WITH PASSWORD '{s}'\")",
            "db.exec(`CREATE USER reader IDENTIFIED BY '{s}'`);",
        ),
    ),
}


def _sql() -> Iterator[Generated]:
    for dialect, (fold, templates) in _SQL.items():
        for i, template in enumerate(templates):
            for j in range(3):
                rng = _rng(f"sql/{dialect}/{i}/{j}")
                secret = _password(rng)
                if j == 2 and "'{s}'" in template:
                    secret = secret[:4] + "''" + secret[4:]  # a quote doubled inside the SQL string
                yield Generated(
                    fold,
                    Sample(
                        f"sql/{dialect}",
                        f"gen-sql-{dialect}-{i}-{j}",
                        _frame(rng, template.replace("{s}", secret)),
                        secret,
                        "?",
                    ),
                )


def _otp_value(rng: random.Random, style: str) -> str:
    if style == "digits":
        return str(rng.randint(100000, 99999999))
    if style == "totp":
        return " ".join(_chars(rng, _B32, 4) for _ in range(rng.choice((4, 8))))
    return "\n".join(
        f"{_chars(rng, string.ascii_lowercase + string.digits, 4)}-{_chars(rng, string.ascii_lowercase + string.digits, 4)}"
        for _ in range(rng.randint(4, 8))
    )


_OTP: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "en-code": (
        "A",
        "digits",
        ("your verification code is {s}", "GitHub sent me 2FA code {s}, can you log in quickly?", "OTP: {s}"),
    ),
    "xx-code": (
        "B",
        "digits",
        (
            "Votre code de vérification : {s}",
            "Ihr Bestätigungscode lautet {s}",
            "验证码：{s}",
            "Código de verificação: {s}",
            "Kod weryfikacyjny: {s}",
            "認証コード: {s}",
        ),
    ),
    "totp": (
        "A",
        "totp",
        ("Authenticator setup key: {s}", "TOTP secret (enter manually): {s}", "Can't scan the QR? Use this key: {s}"),
    ),
    "totp-b": (
        "B",
        "totp",
        ("2FA seed for the shared ops account: {s}", "MFA secret key - {s}", "Clé de configuration : {s}"),
    ),
    "backup": (
        "A",
        "backup",
        ("Recovery codes for the org admin:\n{s}", "Save these backup codes somewhere safe:\n{s}"),
    ),
    "backup-b": ("B", "backup", ("Here are the 2FA recovery codes:\n{s}", "Códigos de recuperación:\n{s}")),
}


def _otp() -> Iterator[Generated]:
    for variant, (fold, style, templates) in _OTP.items():
        for i, template in enumerate(templates):
            for j in range(2):
                rng = _rng(f"otp/{variant}/{i}/{j}")
                secret = _otp_value(rng, style)
                yield Generated(
                    fold,
                    Sample(
                        f"otp/{variant}",
                        f"gen-otp-{variant}-{i}-{j}",
                        _frame(rng, template.replace("{s}", secret)),
                        secret,
                        "?",
                    ),
                )


def _sdk_value(rng: random.Random, shape: str) -> str:
    if shape == "hex":
        return _chars(rng, _HEX, 32)
    if shape == "uuid":
        return _uuid(rng)
    return _token(rng, rng.choice((24, 32, 40)))


_SDK: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "python": (
        "A",
        (
            ('client = Client("AC{id}", "{s}")', "hex"),
            ('index = SearchClient.create("{app}", "{s}")', "hex"),
            ('pusher = Pusher("1234567", "{id}", "{s}", cluster="eu")', "hex"),
            ('mg = Mailgun("{app}", "{s}")', "tok"),
        ),
    ),
    "js": (
        "B",
        (
            ("const client = algoliasearch('{app}', '{s}');", "hex"),
            ("const twilio = require('twilio')('AC{id}', '{s}');", "hex"),
            ("const ably = new Ably.Realtime('{app}:{s}');", "tok"),
            ("const stream = connect('{app}', '{s}', '{app}');", "tok"),
        ),
    ),
    "go": (
        "A",
        (
            ('client := twilio.NewRestClientWithParams("AC{id}", "{s}")', "hex"),
            ('c := pusher.Client{AppID: "1234567", Key: "{id}", Secret: "{s}"}', "hex"),
        ),
    ),
    "ruby": (
        "B",
        (
            ("client = Twilio::REST::Client.new('AC{id}', '{s}')", "hex"),
            ("Pusher::Client.new(app_id: '1234567', key: '{id}', secret: '{s}')", "hex"),
        ),
    ),
    "php": (
        "A",
        (
            ('$client = new Client("AC{id}", "{s}");', "hex"),
            ("$algolia = SearchClient::create('{app}', '{s}');", "hex"),
        ),
    ),
    "cli": (
        "B",
        (
            ("$ ngrok config add-authtoken {s}", "tok"),
            ("$ wrangler secret put API_KEY <<< {s}", "tok"),
            ("$ heroku auth {s}", "uuid"),
            ("$ snyk auth {s}", "uuid"),
            ("$ tailscale up --authkey {s}", "tok"),
        ),
    ),
}


def _sdk() -> Iterator[Generated]:
    for language, (fold, templates) in _SDK.items():
        for i, (template, shape) in enumerate(templates):
            for j in range(2):
                rng = _rng(f"sdk/{language}/{i}/{j}")
                secret = _sdk_value(rng, shape)
                text = template.replace("{id}", _chars(rng, _HEX, 32)).replace(
                    "{app}", _chars(rng, string.ascii_uppercase + string.digits, 10)
                )
                yield Generated(
                    fold,
                    Sample(
                        f"sdk/{language}",
                        f"gen-sdk-{language}-{i}-{j}",
                        _frame(rng, text.replace("{s}", secret)),
                        secret,
                        "?",
                    ),
                )


_CODE: dict[str, tuple[str, tuple[str, ...]]] = {
    "py-auth": (
        "A",
        (
            'r = requests.get(url, auth=("ci-bot", "{s}"))',
            "session.auth = ('admin', '{s}')",
            'auth = aiohttp.BasicAuth("deploy", "{s}")',
            'HTTPBasicAuth("svc", "{s}")',
        ),
    ),
    "py-env": (
        "B",
        (
            'os.environ["DB_PASSWORD"] = "{s}"',
            "os.environ['STRIPE_SECRET'] = '{s}'",
            'os.environ.setdefault("API_TOKEN", "{s}")',
            "monkeypatch.setenv('SMTP_PASSWORD', '{s}')",
        ),
    ),
    "js-env": (
        "A",
        (
            "process.env.DB_PASS = '{s}';",
            'process.env["JWT_SECRET"] = "{s}"',
            "const auth = { username: 'ci', password: '{s}' };",
            "axios.get(url, { auth: { username: 'bot', password: '{s}' } })",
        ),
    ),
    "go-env": (
        "B",
        ('os.Setenv("REDIS_PASSWORD", "{s}")', 'req.SetBasicAuth("admin", "{s}")', 't.Setenv("API_SECRET", "{s}")'),
    ),
    "shell-env": (
        "A",
        (
            '$env:SQL_PASSWORD = "{s}"',
            "set ADMIN_PASSWORD={s}",
            "PGPASSWORD='{s}' psql -h db -U app",
            "heroku config:set SESSION_SECRET={s} -a shop",
        ),
    ),
    "jvm": (
        "B",
        (
            'System.setProperty("javax.net.ssl.keyStorePassword", "{s}");',
            'val creds = UsernamePasswordCredentials("jenkins", "{s}")',
            'props.put("sasl.jaas.config", "... username=\\"kafka\\" password=\\"{s}\\";");',
        ),
    ),
    "flag-quoted": (
        "A",
        (
            "mysql -h db -u root -p'{s}' shop",
            'mysqldump -uadmin -p"{s}" --all-databases > dump.sql',
            "sshpass -p '{s}' ssh pi@10.0.0.7",
            "docker login -u ci -p '{s}' registry.example.com",
        ),
    ),
    "flag-b": (
        "B",
        (
            "mongosh --username admin --password '{s}' --authenticationDatabase admin",
            'redis-cli -h cache -a "{s}" ping',
            "curl -u 'svc:{s}' https://jenkins.local/api/json",
            "lftp -u deploy,{s} sftp://files.internal",
        ),
    ),
    "encode": (
        "A",
        (
            'echo -n "my-client-id:{s}" | base64',
            "printf '%s' 'app123:{s}' | base64 -w0",
            'base64.b64encode(b"client_42:{s}").decode()',
            "btoa('svc-account:{s}')",
        ),
    ),
    "decode": (
        "B",
        (
            'signing_key = bytes.fromhex("{h}")',
            'key, _ := hex.DecodeString("{h}")',
            "const secret = Buffer.from('{h}', 'hex');",
            'HMAC_KEY = binascii.unhexlify("{h}")',
        ),
    ),
    "cat-file": (
        "A",
        (
            "$ cat ~/.vault_pass.txt\n{s}\n$ ansible-vault view group_vars/prod.yml",
            "$ cat /run/secrets/db_password\n{s}",
            "$ kubectl exec deploy/api -- cat /var/run/secrets/app/token\n{s}",
        ),
    ),
    "cat-file-b": (
        "B",
        (
            "PS> Get-Content .\\secrets\\api_key.txt\n{s}",
            "$ cat .pgpass-token\n{s}\n$ ls",
            "$ sudo cat /etc/rsyncd.secret\nbackup:{s}",
        ),
    ),
    "driver-err": (
        "A",
        (
            "sqlalchemy.exc.ArgumentError: Could not parse SQLAlchemy URL from string 'mysql+pymysql://app:{a}@db:3306/shop'",
            "psycopg2.OperationalError: invalid dsn: host=db user=app password={a} dbname=orders",
        ),
    ),
    "driver-err-b": (
        "B",
        (
            "pymongo.errors.InvalidURI: Username and password must be escaped: mongodb://etl:{a}@mongo:27017",
            "ValueError: invalid literal in DSN 'postgresql://svc:{a}@10.1.2.3/app'",
        ),
    ),
}


def _code() -> Iterator[Generated]:
    for variant, (fold, templates) in _CODE.items():
        for i, template in enumerate(templates):
            for j in range(2):
                rng = _rng(f"code/{variant}/{i}/{j}")
                if "{h}" in template:
                    secret, slot = _chars(rng, _HEX, rng.choice((32, 64))), "{h}"
                elif "{a}" in template:
                    raw = _password(rng)
                    secret, slot = raw[:5] + "@" + raw[5:], "{a}"
                else:
                    secret, slot = _password(rng) if j == 0 else _token(rng, rng.choice((20, 28))), "{s}"
                yield Generated(
                    fold,
                    Sample(
                        f"code/{variant}",
                        f"gen-code-{variant}-{i}-{j}",
                        _frame(rng, template.replace(slot, secret)),
                        secret,
                        "?",
                    ),
                )


# -- near-misses -------------------------------------------------------------------------------


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _benign_public(rng: random.Random, fold: str) -> list[str]:
    b64key = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(32))).decode()
    n = base64.urlsafe_b64encode(bytes(rng.getrandbits(8) for _ in range(128))).decode().rstrip("=")
    age = "age1" + _chars(rng, "023456789acdefghjklmnpqrstuvwxyz", 58)
    kid = _chars(rng, _ALNUM + "-_", 43)
    if fold == "A":
        return [
            f"[Peer]\nPublicKey = {b64key}\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.example.com:51820",
            f'{{"keys": [{{"kty": "RSA", "use": "sig", "kid": "{kid}", "n": "{n}", "e": "AQAB", "alg": "RS256"}}]}}',
            f"creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: {age}",
            f"ssh-ed25519 {_b64('x' * 3)}AAAAC3NzaC1lZDI1NTE5AAAAI{_chars(rng, _ALNUM, 43)} dev@laptop",
        ]
    return [
        f"wg show wg0\npeer: {b64key}\n  endpoint: 203.0.113.4:51820\n  allowed ips: 10.8.0.3/32",
        f"jwks = {{'keys': [{{'kty': 'RSA', 'kid': '{kid}', 'n': '{n}', 'e': 'AQAB'}}]}}",
        f"$ age -r {age} -o secrets.enc secrets.txt",
        f"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{_chars(rng, _ALNUM, 40)}\n{_chars(rng, _ALNUM, 48)}==\n-----END PUBLIC KEY-----",
        f'"x": "{_chars(rng, _ALNUM + "-_", 43)}", "y": "{_chars(rng, _ALNUM + "-_", 43)}", "crv": "P-256", "kty": "EC"',
    ]


_EXAMPLES = {
    "A": (
        "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        'client = OpenAI(api_key="YOUR_API_KEY")',
        "curl -H 'Authorization: Bearer <YOUR_TOKEN>' https://api.example.com/v1/me",
        "export STRIPE_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx",
        "password: changeme  # replace before deploying",
    ),
    "B": (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "const apiKey = process.env.API_KEY ?? 'REPLACE_WITH_YOUR_KEY';",
        "headers = {'X-Api-Key': 'your-api-key-here'}",
        "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        "DB_PASSWORD=<your-db-password>",
        "token: ${{ secrets.NPM_TOKEN }}",
    ),
}


def _benign_headers(rng: random.Random, fold: str) -> list[str]:
    b64 = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(48))).decode()
    if fold == "A":
        return [
            f'HTTP/1.1 200 OK\nContent-Type: application/json\nX-Request-Id: {_uuid(rng)}\nETag: "{_chars(rng, _HEX, 32)}"',
            f"< x-amz-request-id: {_chars(rng, string.ascii_uppercase + string.digits, 16)}\n< x-amz-id-2: {b64}\n< Server: AmazonS3",
            f"traceparent: 00-{_chars(rng, _HEX, 32)}-{_chars(rng, _HEX, 16)}-01",
        ]
    return [
        f"< HTTP/2 404\n< cf-ray: {_chars(rng, _HEX, 16)}-FRA\n< x-correlation-id: {_chars(rng, _ALNUM, 26)}",
        f"response.headers['etag'] == 'W/\"{_chars(rng, _ALNUM + '-_', 27)}\"'",
        f"apigw-requestid: {_chars(rng, _ALNUM, 16)}=\nx-ms-request-id: {_uuid(rng)}",
    ]


def _benign_ids(rng: random.Random, fold: str) -> list[str]:
    if fold == "A":
        return [
            f"GOOGLE_CLIENT_ID={rng.randint(10**11, 10**12)}-{_chars(rng, string.ascii_lowercase + string.digits, 32)}.apps.googleusercontent.com",
            f"auth0: {{ domain: 'acme.eu.auth0.com', clientId: '{_chars(rng, _ALNUM, 32)}' }}",
            f"commit {_chars(rng, _HEX, 40)}\nAuthor: Dev <dev@example.com>",
        ]
    return [
        f"OAUTH_CLIENT_ID: Iv1.{_chars(rng, _HEX, 16)}",
        f'"client_id": "{_chars(rng, string.ascii_lowercase + string.digits, 26)}", "redirect_uri": "http://localhost:3000/cb"',
        f"image: registry.example.com/api@sha256:{_chars(rng, _HEX, 64)}",
    ]


def _benign_data(rng: random.Random, fold: str) -> list[str]:
    config = json.dumps(
        {"feature_flags": {"new_checkout": True, "beta": False}, "region": rng.choice(("eu-west-1", "us-east-2"))}
    )
    if fold == "A":
        return [
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-settings\nbinaryData:\n  settings.json: {_b64(config)}",
            "$ kubectl get secrets -n prod\nNAME                  TYPE                                  DATA   AGE\ndb-credentials        Opaque                                2      41d\ndefault-token-x7k2p   kubernetes.io/service-account-token   3      210d\nregistry-pull-secret  kubernetes.io/dockerconfigjson        1      96d",
        ]
    return [
        f"data:\n  app.yaml: {_b64('server:' + chr(10) + '  port: 8080' + chr(10) + '  log_level: info' + chr(10))}",
        '$ aws secretsmanager list-secrets --query \'SecretList[].Name\'\n[\n    "prod/api/stripe",\n    "prod/db/master-password",\n    "staging/jwt-signing-key"\n]',
        "$ docker secret ls\nID                          NAME              CREATED\nq8v2m0x5k1n3p7r9t4w6y2z0a   postgres_passwd   3 weeks ago",
    ]


_PROSE: dict[str, tuple[str, tuple[str, ...]]] = {
    "A": (
        "",
        (
            "Le mot de passe doit contenir au moins 12 caractères et un chiffre.",
            "La contraseña expira cada 90 días; cámbiala desde el panel.",
            "Пароль должен храниться в Vault, а не в репозитории.",
            "密码错误次数过多，账户已锁定 30 分钟。",
            "비밀번호를 잊으셨나요? 관리자에게 문의하세요.",
            "Lösenordet roteras automatiskt varje månad.",
            "the verification code expires after 10 minutes",
            "exit code 137 means the pod was OOM-killed",
            "Kata sandi minimal 8 karakter.",
            "पासवर्ड कम से कम 12 अक्षर का होना चाहिए",
            "reset the root password on bastion-2 tomorrow, ticket OPS-4412",
            "use the token from 1Password, not the one in Slack",
        ),
    ),
    "B": (
        "",
        (
            "Das Passwort wird mit bcrypt gehasht, Kostenfaktor 12.",
            "A senha precisa ter pelo menos 10 caracteres.",
            "Het wachtwoord staat in de kluis onder 'prod-db'.",
            "パスワードは環境変数から読み込みます。",
            "Hasło musi mieć co najmniej 8 znaków.",
            "Şifre en az 8 karakter olmalıdır.",
            "Heslo se mění každých 90 dní.",
            "Mật khẩu phải có ít nhất 8 ký tự.",
            "error code E1045 on login, the user is locked",
            "Your PIN the dependency to 2.31.0 in requirements.txt",
            "pass the token via --token-file, never on the command line",
            "ok the new pwd is stored in vault under kv/prod/db",
        ),
    ),
}

_REFERENCES = {
    "A": (
        'password = os.environ["DB_PASSWORD"]',
        "client = Client(account_sid, auth_token)",
        "ALTER USER app WITH PASSWORD :new_password;",
        'cur.execute("CREATE USER %s IDENTIFIED BY %s", (name, pw))',
        "key = bytes.fromhex(digest_hex)",
        "$ gh auth login --with-token < token.txt",
        "r = requests.get(url, auth=(user, password))",
        'echo -n "$CLIENT_ID:$CLIENT_SECRET" | base64',
    ),
    "B": (
        "const secret = process.env.JWT_SECRET;",
        "index = SearchClient.create(app_id, admin_key)",
        "CREATE USER 'web'@'localhost' IDENTIFIED WITH auth_socket;",
        'os.environ["DB_PASSWORD"] = password',
        "$ gh auth status\n✓ Logged in to github.com as octocat (keyring)",
        "mysql -u root -p shop < dump.sql",
        "$ cat ~/.ssh/config\nHost bastion\n  User ops\n  IdentityFile ~/.ssh/id_ed25519",
        "sha = hashlib.sha256(data).hexdigest()  # e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
}


def _benign() -> Iterator[Generated]:
    for fold in FOLDS:
        for j in range(3):
            rng = _rng(f"benign/{fold}/{j}")
            groups = {
                "public-key": _benign_public(rng, fold),
                "header-id": _benign_headers(rng, fold),
                "public-id": _benign_ids(rng, fold),
                "data": _benign_data(rng, fold),
            }
            if j == 0:
                groups["example"] = list(_EXAMPLES[fold])
                groups["prose"] = list(_PROSE[fold][1])
                groups["reference"] = list(_REFERENCES[fold])
            for family, texts in groups.items():
                for i, text in enumerate(texts):
                    framed = _frame(rng, text)
                    yield Generated(fold, Sample(f"benign/{family}", f"gen-benign-{family}-{fold}-{j}-{i}", framed))


# -- written after the rules: measured before any rule looked at them ------------------------------

_FRESH_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "da-no": ("A", ("Adgangskoden til serveren er {s}", "Passordet for databasen er {s}")),
    "hu-el": ("B", ("A jelszó a szerverhez: {s}", "Ο κωδικός της βάσης είναι {s}")),
    "ro-he": ("A", ("Parola pentru baza de date este {s}", "הסיסמה לשרת היא {s}")),
    "ms-th": ("B", ("Kata laluan pelayan ialah {s}", "รหัสผ่านของเซิร์ฟเวอร์คือ {s}")),
    "config-yaml": (
        "A",
        (
            "services:\n  db:\n    environment:\n      MYSQL_ROOT_PASSWORD: {s}",
            "database:\n  host: db\n  contraseña: {s}",
        ),
    ),
    "config-ini": ("B", ("[database]\nhost = db.internal\npasswort = {s}", "[smtp]\nuser = mailer\nsecret = {s}")),
    "terraform": (
        "A",
        (
            'resource "aws_db_instance" "main" {\n  username = "admin"\n  password = "{s}"\n}',
            'variable "api_token" {\n  default = "{s}"\n}',
        ),
    ),
    "ruby-php": ("B", ("ENV['GITHUB_TOKEN'] ||= '{s}'", "define('DB_PASSWORD', '{s}');")),
    "csharp": ("A", ('var cred = new NetworkCredential("svc_backup", "{s}");', 'builder.Password = "{s}";')),
    "json-log": (
        "B",
        (
            '{{"level":"debug","msg":"login attempt","user":"ops","password":"{s}"}}',
            '2024-05-01T10:00:00Z DEBUG auth payload={{"client_secret": "{s}"}}',
        ),
    ),
    "npmrc-git": (
        "A",
        (
            "//registry.npmjs.org/:_authToken={s}",
            "$ git credential fill\nprotocol=https\nhost=github.com\nusername=ci\npassword={s}",
        ),
    ),
    "chat-key": ("B", ("here's the staging key → {s}", "new PIN for the door panel: {p}")),
}

_FRESH_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "prose-new": (
        "A",
        (
            "Adgangskoden skal være mindst 12 tegn.",
            "Parola trebuie schimbată la fiecare 90 de zile.",
            "A jelszót a kulcstartóban tároljuk.",
            "Kata laluan mesti mengandungi nombor.",
        ),
    ),
    "logs": (
        "B",
        (
            "2024-05-01 12:00:03 INFO session {u} started for user 4411",
            "pod/api-7d9c5b6f4-x2kqp   1/1   Running   0   3h",
            "Step 4/9 : RUN pip install -r requirements.txt\n ---> Using cache\n ---> 3f4e5a6b7c8d",
        ),
    ),
    "counts": (
        "A",
        (
            "tokens used: 48213 of 200000 (prompt 41022, completion 7191)",
            "API key rotated on 2024-06-01 by ops@example.com",
            "max_tokens = 4096, secret_rotation_days = 30",
        ),
    ),
    "pins": (
        "B",
        (
            "PIN the base image to python:3.12.4-slim",
            "Pinned: numpy==1.26.4, pandas==2.2.2",
            "the auth code flow redirects to /callback with ?code= in the URL",
        ),
    ),
    "fingerprints": (
        "A",
        (
            "The key fingerprint is SHA256:{b} dev@laptop",
            "gpg: key 4AEE18F83AFDEB23: public key imported",
            "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
        ),
    ),
    "docs": (
        "B",
        (
            "Set `API_KEY` in your shell, then run `make deploy`.",
            "| name | type | description |\n| password | string | the user's password, min 12 chars |",
            'curl -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/me',
        ),
    ),
}


def _fresh() -> tuple[list[Generated], list[Generated]]:
    secrets: list[Generated] = []
    benign: list[Generated] = []
    for variant, (fold, templates) in _FRESH_SECRETS.items():
        for i, template in enumerate(templates):
            for j in range(3):
                rng = _rng(f"fresh/{variant}/{i}/{j}")
                secret = (
                    str(rng.randint(1000, 999999))
                    if "{p}" in template
                    else (_password(rng) if j < 2 else _token(rng, 24))
                )
                text = template.replace("{p}", secret).replace("{s}", secret).replace("{{", "{").replace("}}", "}")
                secrets.append(
                    Generated(
                        fold, Sample(f"fresh/{variant}", f"gen-fresh-{variant}-{i}-{j}", _frame(rng, text), secret, "?")
                    )
                )
    for variant, (fold, templates) in _FRESH_BENIGN.items():
        for i, template in enumerate(templates):
            for j in range(2):
                rng = _rng(f"fresh-benign/{variant}/{i}/{j}")
                b = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(32))).decode().rstrip("=")
                text = template.replace("{u}", _uuid(rng)).replace("{b}", b)
                benign.append(
                    Generated(
                        fold, Sample(f"benign/{variant}", f"gen-fresh-benign-{variant}-{i}-{j}", _frame(rng, text))
                    )
                )
    return secrets, benign


_FRESH2_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "swift-kotlin": (
        "A",
        (
            'let apiKey = "{s}"',
            'URLCredential(user: "ops", password: "{s}", persistence: .none)',
            'val dbPassword = "{s}"',
        ),
    ),
    "rust-go": (
        "B",
        (
            'let client = Client::new("{s}");',
            'cfg := Config{User: "app", Password: "{s}", Host: "db"}',
            'token := "{s}"',
        ),
    ),
    "k8s": (
        "A",
        (
            "stringData:\n  username: app\n  password: {s}",
            "kubectl create secret generic api --from-literal=api-key={s}",
        ),
    ),
    "docker": (
        "B",
        (
            "docker run -e POSTGRES_PASSWORD={s} -p 5432:5432 postgres:16",
            "docker compose run -e API_TOKEN='{s}' worker",
        ),
    ),
    "chat-xx": ("A", ("Zugangsdaten: admin / {s}", "le jeton d'accès est {s}", "APIキーは {s} です")),
    "chat-yy": ("B", ("令牌：{s}", "API 키: {s}", "токен доступа: {s}")),
    "env-spaced": ("A", ('SECRET_KEY = "{s}"', "export AUTH_SECRET = {s}")),
    "config-es-pt": ("B", ("clave_api: {s}", "senha_banco: {s}")),
}

_FRESH2_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "prose-cjk": (
        "A",
        ("APIキーの有効期限は30日です。", "令牌已过期，请重新登录。", "API 키는 환경 변수에서 읽습니다."),
    ),
    "refs-2": (
        "B",
        (
            'let apiKey = ProcessInfo.processInfo.environment["API_KEY"]',
            "Password: cfg.DBPassword,",
            "stringData:\n  password: ${DB_PASSWORD}",
        ),
    ),
    "config-2": (
        "A",
        (
            "token_expires_in: 3600\nrefresh_window: 300",
            "session_key_prefix: sess_\ncookie_secure: true",
            "color: #aabbcc; border: 1px solid #112233;",
        ),
    ),
    "vcs": (
        "B",
        (
            "Merge pull request #4412 from acme/fix-auth-token-refresh",
            "v2.3.1-rc.1+build.5 released; see CHANGELOG",
            "https://app.example.com/callback?code=AUTH_CODE&state=xyz",
        ),
    ),
    "misc-de": ("A", ("PIN-Eingabe fehlgeschlagen (3 Versuche übrig)", "Das Token wird nach 15 Minuten ungültig.")),
    "ids-2": (
        "B",
        ("trace_id={h} span_id={s16} sampled=1", "Idempotency-Key: {u}", "x-request-id: {u}\nx-runtime: 0.0412"),
    ),
}


def _fresh2() -> tuple[list[Generated], list[Generated]]:
    secrets: list[Generated] = []
    benign: list[Generated] = []
    for variant, (fold, templates) in _FRESH2_SECRETS.items():
        for i, template in enumerate(templates):
            for j in range(3):
                rng = _rng(f"fresh2/{variant}/{i}/{j}")
                secret = _password(rng) if j < 2 else _token(rng, 28)
                text = _frame(rng, template.replace("{s}", secret))
                secrets.append(
                    Generated(fold, Sample(f"fresh2/{variant}", f"gen-fresh2-{variant}-{i}-{j}", text, secret, "?"))
                )
    for variant, (fold, templates) in _FRESH2_BENIGN.items():
        for i, template in enumerate(templates):
            for j in range(3):
                rng = _rng(f"fresh2-benign/{variant}/{i}/{j}")
                text = (
                    template.replace("{u}", _uuid(rng))
                    .replace("{h}", _chars(rng, _HEX, 32))
                    .replace("{s16}", _chars(rng, _HEX, 16))
                )
                benign.append(
                    Generated(
                        fold, Sample(f"benign/{variant}", f"gen-fresh2-benign-{variant}-{i}-{j}", _frame(rng, text))
                    )
                )
    return secrets, benign


_FRESH3_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ops-tools": (
        "A",
        (
            "helm upgrade api ./chart --set auth.password={s}",
            "ansible_become_pass: {s}",
            "ssh-keygen -t ed25519 -N '{s}' -f deploy_key",
        ),
    ),
    "ops-tools-b": (
        "B",
        (
            "gpg --batch --passphrase {s} -d backup.tar.gpg",
            "redis-cli> AUTH {s}",
            "- uses: docker/login-action@v3\n  with:\n    username: ci\n    password: {s}",
        ),
    ),
    "builders": (
        "A",
        (
            'DataSource ds = builder.username("app").password("{s}").build();',
            "conn = pymysql.connect(host='db', user='app', passwd='{s}')",
        ),
    ),
    "builders-b": ("B", ("Makefile: DB_PASS ?= {s}", 'client.login(email="ops@example.com", password="{s}")')),
    "chat-more": ("A", ("La nuova password è {s} — non condividerla", "Het nieuwe wachtwoord: {s}")),
    "chat-more-b": ("B", ("O novo token da API é {s}", "Новый токен: {s}")),
}

_FRESH3_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "i18n": (
        "A",
        (
            '{"password": "Mot de passe", "forgot": "Mot de passe oublié ?"}',
            'password_label: "Passwort"\ntoken_label: "Zugriffstoken"',
            '<input type="password" name="pwd" autocomplete="current-password">',
        ),
    ),
    "schema": (
        "B",
        (
            '{"token_type": "Bearer", "expires_in": 3599, "scope": "read:user"}',
            "password_policy: strong\nauth_type: oauth2",
            'keybindings: [{ key: "Enter", command: "submit" }]',
        ),
    ),
    "empty": ("A", ('password: ""\nusername: ""', "SECRET_KEY=\nDEBUG=true", ":root { --secret-color: #ff6600; }")),
    "ops-ref": (
        "B",
        (
            "helm upgrade api ./chart --set auth.existingSecret=api-db",
            'ansible_become_pass: "{{ vault_become_pass }}"',
            "gpg --batch --passphrase-file /run/secrets/gpg -d backup.tar.gpg",
        ),
    ),
}


_FRESH4_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "chat-4": (
        "A",
        (
            "btw the grafana admin pass got rotated, it's {s} now",
            "Mi contraseña nueva para el VPN: {s}",
            "wifi: CorpGuest / {s}",
        ),
    ),
    "code-4": (
        "B",
        (
            'smtp.login("alerts@example.com", "{s}")',
            "$conn = new PDO($dsn, 'app', '{s}');",
            "jdbc:postgresql://db:5432/app?user=app&password={s}",
        ),
    ),
    "cfg-4": (
        "A",
        (
            "[client]\nuser=backup\npassword={s}",
            '<add key="ApiSecret" value="{s}" />',
            "spring.datasource.password={s}",
        ),
    ),
    "cli-4": (
        "B",
        (
            "az login --service-principal -u $APP_ID -p {s} --tenant $TENANT",
            "vault kv put secret/app db_password={s}",
            "psql 'host=db user=app password={s} dbname=app'",
        ),
    ),
}

_FRESH4_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "near-4": (
        "A",
        (
            "password reset emails are sent from noreply@example.com via SES",
            "the token bucket refills at 50 req/s (burst 200)",
            "key rotation: every 90 days, see RUNBOOK.md#rotation",
        ),
    ),
    "near-4b": (
        "B",
        (
            "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']",
            "if (!token) return res.status(401).json({ error: 'missing token' });",
            "SELECT id, password_hash, created_at FROM users WHERE email = $1",
        ),
    ),
    "near-4c": (
        "A",
        (
            "cache key: user:4412:profile:v3",
            "Secret Manager API has not been used in project 412233 before",
            "git log --grep='auth token' --oneline | head",
        ),
    ),
    "near-4d": (
        "B",
        (
            "export VAULT_ADDR=https://vault.internal:8200",
            "The OTP field accepts 6 digits; the backup code field accepts 8 characters.",
            "session_token_ttl = 3600  # seconds",
        ),
    ),
}


_FILLERS: dict[str, Callable[[random.Random], str]] = {
    # placeholder of a near-miss template -> what a turn holds there (drawn only when present)
    "{h7}": lambda rng: _chars(rng, _HEX, 7),
    "{h12}": lambda rng: _chars(rng, _HEX, 12),
    "{h16}": lambda rng: _chars(rng, _HEX, 16),
    "{h32}": lambda rng: _chars(rng, _HEX, 32),
    "{h}": lambda rng: _chars(rng, _HEX, 40),
    "{h64}": lambda rng: _chars(rng, _HEX, 64),
    "{u}": _uuid,
    "{i}": lambda rng: base64.b64encode(rng.randbytes(64)).decode(),
    "{b64}": lambda rng: base64.b64encode(rng.randbytes(rng.randint(90, 300))).decode(),
    "{b64u}": lambda rng: base64.urlsafe_b64encode(rng.randbytes(rng.randint(24, 48))).decode().rstrip("="),
    # from round 8 on (drawn only when present, so earlier rounds draw exactly what they drew before)
    "{h8}": lambda rng: _chars(rng, _HEX, 8),
    "{h24}": lambda rng: _chars(rng, _HEX, 24),
    "{k44}": lambda rng: base64.b64encode(rng.randbytes(32)).decode(),
    # from rounds W and X on
    "{H16}": lambda rng: _chars(rng, _HEX.upper(), 16),
    "{H40}": lambda rng: _chars(rng, _HEX.upper(), 40),
    "{colonhex}": lambda rng: ":".join(_chars(rng, _HEX, 2) for _ in range(16)),
    "{alnum24}": lambda rng: _chars(rng, _ALNUM, 24),
    "{b44}": lambda rng: base64.b64encode(rng.randbytes(32)).decode(),
    "{mac}": lambda rng: ":".join(_chars(rng, _HEX, 2) for _ in range(6)),
    "{AK16}": lambda rng: _chars(rng, _B32, 16),
    "{AK4}": lambda rng: _chars(rng, _B32, 4),
    "{H4}": lambda rng: _chars(rng, _HEX.upper(), 4),
    "{b32l}": lambda rng: _chars(rng, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
    "{b64s}": lambda rng: base64.b64encode(rng.randbytes(18)).decode(),
    # from round 9 on
    "{a14}": lambda rng: _chars(rng, _ALNUM, 14),
    "{a24}": lambda rng: _chars(rng, _ALNUM, 24),
    "{ulid}": lambda rng: rng.choice("01") + _chars(rng, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 25),
    "{dna}": lambda rng: "\n".join(_chars(rng, "ACGT", 70) for _ in range(rng.randint(2, 5))),
    # from round 10 on
    "{sri384}": lambda rng: base64.b64encode(rng.randbytes(48)).decode(),
    "{cid}": lambda rng: "bafybei" + _chars(rng, "abcdefghijklmnopqrstuvwxyz234567", 52),
    "{b58}": lambda rng: "Qm" + _chars(rng, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 44),
    "{vault}": lambda rng: "\n".join(_chars(rng, _HEX, 80) for _ in range(rng.randint(3, 6))),
    "{alnum4}": lambda rng: _chars(rng, _ALNUM, 4),
    # from round 11 on
    "{c16}": lambda rng: _chars(rng, "./" + string.digits + string.ascii_letters, 16),
    "{c53}": lambda rng: _chars(rng, "./" + string.digits + string.ascii_letters, 53),
    "{c86}": lambda rng: _chars(rng, "./" + string.digits + string.ascii_letters, 86),
    "{b43}": lambda rng: base64.urlsafe_b64encode(rng.randbytes(32)).decode().rstrip("="),
    "{a6}": lambda rng: _chars(rng, _ALNUM, 6),
    "{d9}": lambda rng: _chars(rng, string.digits, 9),
    "{d18}": lambda rng: rng.choice("123456789") + _chars(rng, string.digits, 17),
    "{nix32}": lambda rng: _chars(rng, "0123456789abcdfghijklmnpqrsvwxyz", 32),
}


def _fill(rng: random.Random, template: str) -> str:
    for placeholder, draw in _FILLERS.items():
        while placeholder in template:
            template = template.replace(placeholder, draw(rng), 1)
    return template


def _round(
    tag: str,
    secret_table: dict[str, tuple[str, tuple[str, ...]]],
    benign_table: dict[str, tuple[str, tuple[str, ...]]],
    token_length: int,
) -> tuple[list[Generated], list[Generated]]:
    """One fresh round: each template three times (two human passwords, one token), each near-miss three times."""
    secrets: list[Generated] = []
    benign: list[Generated] = []
    for variant, (fold, templates) in secret_table.items():
        for i, template in enumerate(templates):
            for j in range(3):
                rng = _rng(f"{tag}/{variant}/{i}/{j}")
                secret = _password(rng) if j < 2 else _token(rng, token_length)
                text = _frame(rng, template.replace("{s}", secret))
                secrets.append(
                    Generated(fold, Sample(f"{tag}/{variant}", f"gen-{tag}-{variant}-{i}-{j}", text, secret, "?"))
                )
    for variant, (fold, templates) in benign_table.items():
        for i, template in enumerate(templates):
            for j in range(3):
                rng = _rng(f"{tag}-benign/{variant}/{i}/{j}")
                text = _frame(rng, _fill(rng, template))
                benign.append(Generated(fold, Sample(f"benign/{variant}", f"gen-{tag}-benign-{variant}-{i}-{j}", text)))
    return secrets, benign


def _literal_round(tag: str, table: dict[str, tuple[str, tuple[tuple[str, str], ...]]]) -> list[Generated]:
    """A round's literal secrets, the writer's own values in the writer's own texts, as they are:
    kind "?" like the generated ones (the rule that takes a value is not promised, only that it
    leaves nothing of it behind).
    """
    return [
        Generated(fold, Sample(f"{tag}/{variant}", f"lit-{tag}-{variant}-{i}", text, secret, "?"))
        for variant, (fold, items) in table.items()
        for i, (text, secret) in enumerate(items)
    ]


_FRESH5_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "compose-5": (
        "A",
        (
            "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: {s}",
            "  cache:\n    image: redis:7\n    command: redis-server --requirepass {s}",
            "    environment:\n      - MINIO_ROOT_USER=admin\n      - MINIO_ROOT_PASSWORD={s}",
        ),
    ),
    "infra-5": (
        "B",
        (
            'resource "aws_db_instance" "main" {\n  engine   = "postgres"\n  username = "admin"\n  password = "{s}"\n}',
            "kubectl create secret generic db-creds --from-literal=username=app --from-literal=password={s}",
            "helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword={s}",
        ),
    ),
    "ci-5": (
        "A",
        (
            "Run echo {s} | docker login ghcr.io -u deploy-bot --password-stdin",
            "+ curl -fsS -H 'PRIVATE-TOKEN: {s}' https://gitlab.example.com/api/v4/projects",
            "[2024-05-02T10:11:12Z] deploy: using SENTRY_AUTH_TOKEN={s}",
        ),
    ),
    "trace-5": (
        "B",
        (
            "sqlalchemy.exc.OperationalError: FATAL: password authentication failed for user \"app\"\n(connect args: host='db', user='app', password='{s}')",
            "> POST /oauth/token HTTP/1.1\n> Content-Type: application/x-www-form-urlencoded\n>\ngrant_type=client_credentials&client_id=svc-reporting&client_secret={s}",
            'Traceback (most recent call last):\n  File "deploy.py", line 12, in <module>\n    api = Client(api_key="{s}", region="eu")\nTypeError: unexpected keyword',
        ),
    ),
    "sql-5": (
        "A",
        (
            "INSERT INTO api_keys (name, secret) VALUES ('ci', '{s}');",
            "UPDATE service_users SET password = '{s}' WHERE login = 'etl';",
            "mysql> SELECT name, token FROM integrations;\n| slack | {s} |",
        ),
    ),
    "chat-5": (
        "B",
        (
            "nenosiri la seva ni {s}",
            "ο κωδικός πρόσβασης του router είναι {s}",
            "la contrasenya del servidor és {s}",
        ),
    ),
    "fixture-5": (
        "A",
        (
            'monkeypatch.setenv("STRIPE_WEBHOOK_SECRET", "{s}")',
            "ENV REDIS_PASSWORD={s}\nEXPOSE 6379",
            '    return {"username": "svc-billing", "password": "{s}"}',
        ),
    ),
    "js-5": (
        "B",
        (
            'const client = new OpenAI({ apiKey: "{s}" });',
            "axios.defaults.headers.common['X-API-KEY'] = '{s}';",
            'process.env.SESSION_SECRET ||= "{s}";',
        ),
    ),
}

_FRESH5_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "lockfile-5": (
        "A",
        (
            'lodash@^4.17.21:\n  version "4.17.21"\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{h}"\n  integrity sha512-{i}',
            'files = [\n    {file = "requests-2.31.0-py3-none-any.whl", hash = "sha256:{h64}"},\n]',
            '[[package]]\nname = "serde"\nversion = "1.0.197"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{h64}"',
        ),
    ),
    "ci-log-5": (
        "B",
        (
            "Run actions/checkout@{h}\nSyncing repository: acme/api",
            "Cache restored from key: Linux-pip-{h64}",
            "Step 4/9 : COPY . .\n ---> {h12}\nSuccessfully built {h12}\nSuccessfully tagged api:latest",
        ),
    ),
    "sql-dump-5": (
        "A",
        (
            "INSERT INTO sessions (id, user_id, created_at) VALUES ('{u}', 42, '2024-05-01 10:00:00');",
            "ALTER TABLE api_tokens ADD COLUMN token_hash char(64) NOT NULL; -- sha256 of the token, never the token",
            "-- MySQL dump 10.13  Distrib 8.0.36\n-- Host: localhost    Database: app\n-- Dump completed on 2024-05-01 10:22:11",
        ),
    ),
    "infra-5": (
        "B",
        (
            "image: ghcr.io/acme/api@sha256:{h64}",
            "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password",
            'variable "db_password" {\n  type      = string\n  sensitive = true\n}',
        ),
    ),
    "http-5": (
        "A",
        (
            "< HTTP/1.1 200 OK\n< x-amzn-RequestId: {u}\n< x-cache: Hit from cloudfront\n< via: 1.1 {h32}.cloudfront.net (CloudFront)",
            '< HTTP/2 403\n< cf-ray: {h16}-FRA\n< content-type: application/json\n{"error":"invalid_token"}',
            "< HTTP/1.1 302 Found\n< Location: https://app.example.com/login?next=%2Fsettings%2Ftokens&nonce={b64u}",
        ),
    ),
    "prose-5": (
        "B",
        (
            "Fixed in {h} (backported to 2.x as {h7}); the token refresh no longer races.",
            "git bisect says {h} is the first bad commit",
            'The JWT header eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9 just decodes to {"alg":"RS256","typ":"JWT"}.',
        ),
    ),
    "assets-5": (
        "A",
        (
            "@font-face { font-family: Inter; src: url(data:font/woff2;base64,{b64}) format('woff2'); }",
            '!function(e,t){"object"==typeof exports?module.exports=t():e.B64=t()}(this,function(){var n="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";return n});',
            '<img alt="logo" src="data:image/webp;base64,{b64}">',
        ),
    ),
    "i18n-5": (
        "B",
        (
            'msgid "Password"\nmsgstr "Contraseña"\n\nmsgid "Forgot your password?"\nmsgstr "¿Olvidaste tu contraseña?"',
            '"auth.token_expired": "Ihr Token ist abgelaufen. Bitte melden Sie sich erneut an.",',
            "forgot_password: Mot de passe oublié ?\napi_key_label: Clé API",
        ),
    ),
    "fixture-5": (
        "A",
        (
            '{"id": "{u}", "username": "jdoe", "api_key_id": "{u}", "created": "2024-01-01"}',
            "user = UserFactory(email='jane@example.com', password=factory.Faker('password'))",
            'docker ps\nCONTAINER ID   IMAGE         COMMAND\n{h12}   postgres:16   "docker-entrypoint.s…"',
        ),
    ),
}


_FRESH6_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ops-6": (
        "A",
        (
            "[Service]\nEnvironment=DATABASE_PASSWORD={s}\nExecStart=/usr/bin/api",
            "redis-cli -h cache.internal\ncache.internal:6379> AUTH default {s}\nOK",
            'db.createUser({ user: "reporting", pwd: "{s}", roles: ["read"] })',
        ),
    ),
    "dotnet-6": (
        "B",
        (
            '"ConnectionStrings": { "Main": "Server=sql01;Database=shop;User Id=sa;Password={s};" }',
            '$secure = ConvertTo-SecureString "{s}" -AsPlainText -Force',
            "keystore.password={s}\nkeystore.path=/etc/app/keystore.jks",
        ),
    ),
    "code-6": (
        "A",
        (
            'cfg := Config{Host: "db", User: "app", Password: "{s}"}',
            'config :my_app, MyApp.Repo, username: "app", password: "{s}"',
            "$config['smtp_pass'] = '{s}';",
        ),
    ),
    "http-6": (
        "B",
        (
            'curl -X POST https://api.example.com/login -d \'{"username":"ops","password":"{s}"}\'',
            "> GET /v2/reports HTTP/1.1\n> Host: api.example.com\n> X-Auth-Key: {s}\n> Accept: */*",
            "ldapsearch -x -D 'cn=admin,dc=corp' -w '{s}' -b 'dc=corp'",
        ),
    ),
    "chat-6": (
        "A",
        (
            "ang password ng wifi ay {s}",
            "הסיסמה לשרת היא {s}",
            "Le code d'accès du portail est {s}",
        ),
    ),
    "chat-6b": (
        "B",
        (
            "Zugangsdaten fürs Staging: admin / {s}",
            "the new root creds → root:{s}",
            "DM'd you the key but here it is again: {s}",
        ),
    ),
    "ci-6": (
        "A",
        (
            "env:\n  NPM_AUTH: {s}\n  NODE_ENV: production",
            'variables:\n  DEPLOY_SECRET: "{s}"\n  STAGE: prod',
            'gh secret set SLACK_TOKEN --body "{s}"',
        ),
    ),
    "notebook-6": (
        "B",
        (
            '{"cell_type": "code", "source": ["openai.api_key = \\"{s}\\"\\n", "resp = openai.Model.list()"]}',
            "In [3]: client = Minio('s3.local:9000', access_key='minio', secret_key='{s}')",
            ">>> conn = psycopg2.connect(dbname='app', user='app', password='{s}')",
        ),
    ),
}

_FRESH6_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "masked-6": (
        "A",
        (
            "  # aws_db_instance.main will be updated in-place\n  ~ password = (sensitive value)",
            'Run curl -H "Authorization: Bearer ***" https://api.example.com/deploy',
            "Name:         db-creds\nType:  Opaque\n\nData\n====\npassword:  16 bytes\nusername:  3 bytes",
        ),
    ),
    "oauth-6": (
        "B",
        (
            '{"token_type": "Bearer", "expires_in": 3599, "scope": "repo read:org"}',
            "Content-Security-Policy: script-src 'self' 'nonce-{b64u}'",
            '<script src="/static/app.js" integrity="sha384-{i}" crossorigin="anonymous"></script>',
        ),
    ),
    "hosts-6": (
        "A",
        (
            "|1|{b64u}=|{b64u}= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64u}",
            "gpg --keyserver keys.openpgp.org --recv-keys {h}",
            "$ANSIBLE_VAULT;1.1;AES256\n{h64}\n{h64}",
        ),
    ),
    "runtime-6": (
        "B",
        (
            "<app.db.Session object at 0x7f3a2c1d9e80>",
            "goroutine 17 [running]:\nmain.handler(0xc000123456, 0x1f)\n\t/src/main.go:42 +0x1a5",
            'metadata:\n  uid: {u}\n  resourceVersion: "48213077"',
        ),
    ),
    "build-6": (
        "A",
        (
            "dist/assets/index-{h16}.js   142.31 kB │ gzip: 45.87 kB",
            "go: downloading golang.org/x/crypto v0.21.0\ngolang.org/x/crypto v0.21.0 h1:{i}",
            "  Downloading cryptography-42.0.5-cp39-abi3-manylinux_2_28_x86_64.whl (4.6 MB)\n     --hash=sha256:{h64}",
        ),
    ),
    "prose-6": (
        "B",
        (
            "Passwordless sudo is configured for the deploy user via /etc/sudoers.d/deploy.",
            "The API key must be sent in the X-Api-Key header; rotate it from the dashboard.",
            "Token-based auth replaced sessions in v3 (see ADR-0012).",
        ),
    ),
    "i18n-6": (
        "A",
        (
            '<string name="password_hint">Passwort eingeben</string>',
            "login.password.label=Palavra-passe\nlogin.password.error=Palavra-passe inválida",
            '"reset_token_sent": "Мы отправили ссылку для сброса пароля на вашу почту"',
        ),
    ),
    "ids-6": (
        "B",
        (
            "Sentry event {h32} captured (release api@2.4.1)",
            "Stripe webhook evt_{b64u} delivered in 212 ms",
            "Uploaded blob {h64} (12.4 MB) to registry",
        ),
    ),
}


_FRESH7_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "phrasing-7": (
        "A",
        (
            "fyi staging creds -> user: deploy, pass: {s}",
            "ok I rotated it. new admin pw = {s} , update the vault entry pls",
            "grafana admin password now reads {s}; the old one is revoked",
        ),
    ),
    "lang-7": (
        "A",
        (
            "სერვერის პაროლი: {s}",
            "Verilənlər bazası üçün şifrə: {s}",
            "Дерекқор құпия сөзі: {s}",
        ),
    ),
    "i18n-7": (
        "B",
        (
            "Parole datubāzei: {s}",
            "Cyfrinair y gweinydd yw {s}",
            "La pasvorto de la servilo estas {s}",
        ),
    ),
    "ops-7": (
        "B",
        (
            "ansible-playbook site.yml -i prod -e 'ansible_become_pass={s}'",
            "$ sshpass -p '{s}' ssh ops@10.0.3.7 uptime",
            '  <add key="SmtpPassword" value="{s}" />',
        ),
    ),
}

_FRESH7_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "ci-7": (
        "A",
        (
            "Run actions/cache@v4\nCache restored from key: node-cache-Linux-npm-{h64}",
            "##[group]Run npm ci\nadded 1287 packages, and audited 1288 packages in 41s\nfound 0 vulnerabilities",
            "Step 4/12 : RUN pip install --no-cache-dir -r requirements.txt\n ---> Using cache\n ---> {h12}",
        ),
    ),
    "lock-7": (
        "A",
        (
            'lodash@^4.17.21:\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{h}"\n'
            "  integrity sha512-{i}",
            '[[package]]\nname = "requests"\nversion = "2.32.3"\n'
            'sdist = { url = "https://files.pythonhosted.org/requests-2.32.3.tar.gz", hash = "sha256:{h64}" }',
            '"node_modules/token-types": {\n  "version": "5.0.1",\n'
            '  "resolved": "https://registry.npmjs.org/token-types/-/token-types-5.0.1.tgz",\n'
            '  "integrity": "sha512-{i}"\n}',
        ),
    ),
    "k8s-7": (
        "A",
        (
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-password\n  namespace: prod\ntype: Opaque\n"
            "data: {}  # filled by external-secrets",
            'resource "random_password" "db" {\n  length  = 32\n  special = true\n}\n\n'
            'output "db_password_arn" {\n  value = aws_secretsmanager_secret.db.arn\n}',
            "NAME                  TYPE                                  DATA   AGE\n"
            "builder-token-{h7}   kubernetes.io/service-account-token   3      41d",
        ),
    ),
    "i18n-7": (
        "A",
        (
            '"auth.password.placeholder": "Ingrese su contraseña",\n'
            '"auth.password.forgot": "¿Olvidaste tu contraseña?"',
            'msgid "Password"\nmsgstr "Passwort"\n\nmsgid "Reset token expired"\n'
            'msgstr "Token zum Zurücksetzen abgelaufen"',
            'password_reset:\n  subject: "Réinitialisez votre mot de passe"\n'
            '  body: "Cliquez sur le lien pour choisir un nouveau mot de passe."',
        ),
    ),
    "trace-7": (
        "B",
        (
            '< HTTP/2 200\n< x-request-id: {u}\n< etag: W/"{h32}"\n< x-amz-cf-id: {b64u}',
            'File "/app/auth/tokens.py", line 88, in verify_token\n'
            '    payload = jwt.decode(token, key, algorithms=["HS256"])\n'
            "jwt.exceptions.ExpiredSignatureError: Signature has expired",
            "at com.example.auth.PasswordEncoder.matches(PasswordEncoder.java:42)\n"
            "    at org.springframework.security.authentication.dao.DaoAuthenticationProvider"
            ".additionalAuthenticationChecks(DaoAuthenticationProvider.java:76)",
        ),
    ),
    "fixture-7": (
        "B",
        (
            "def test_login_rejects_a_wrong_password(client):\n"
            '    resp = client.post("/login", json={"user": "alice", "password": "wrong"})\n'
            "    assert resp.status_code == 401",
            "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            'curl -H "Authorization: Bearer <YOUR_TOKEN>" https://api.example.com/v1/me',
        ),
    ),
    "asset-7": (
        "B",
        (
            'background-image: url("data:image/png;base64,{b64}");',
            '!function(e,t){"object"==typeof exports?module.exports=t():e.Auth=t()}'
            '(this,function(){var n="token",r=function(e){return e&&e[n]};return{get:r}});',
            "commit {h}\nMerge: {h7} {h7}\nAuthor: Dana <dana@example.org>\n\n    Rotate session key handling",
        ),
    ),
    "hash-7": (
        "B",
        (
            "SHA256 (release-{u}.tar.gz) = {h64}",
            "migration {u} applied; checksum {h32}",
            "Uploaded artifact build-{h12}.zip, digest sha256:{h64}",
        ),
    ),
}


# Round 8, written without reading the rules: South Asian, Persian, Balkan, Baltic and Nordic phrasings, webhook
# URLs, cookies, basic-auth URLs, netrc/poetry/Maven files, fish/csh/nushell, keystore tools, warehouse SQL, key
# files; near-misses are certificates, documented emulator keys, secret-store references, lockfiles, masked values.
_FRESH8_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "lang-8": (
        "A",
        (
            "প্রোডাকশন ডাটাবেসের পাসওয়ার্ড হলো {s}, কাউকে শেয়ার করবেন না",
            "سرور کا پاس ورڈ {s} ہے، لاگ ان کے بعد بدل دیں",
            "رمز عبور پایگاه داده‌ی تست {s} است",
        ),
    ),
    "lang-8b": (
        "B",
        (
            "சர்வரின் கடவுச்சொல் {s} — மாற்றிய பிறகு சொல்லுங்கள்",
            "स्टेजिंग सर्व्हरचा पासवर्ड {s} आहे",
            "Heslo k produkčnej databáze je {s}, nikomu ho neposielaj",
        ),
    ),
    "lang-8c": (
        "A",
        (
            "Паролата за сървъра е {s}",
            "Lozinka za bazu je {s}, nemoj je slati na Slack",
            "Serverio slaptažodis: {s} (pakeisk po prisijungimo)",
        ),
    ),
    "lang-8d": (
        "B",
        (
            "Andmebaasi parool on {s}",
            "Lykilorðið að þjóninum er {s}",
            "Fjalëkalimi i serverit është {s}, mos ia jep askujt",
        ),
    ),
    "informal-8": (
        "A",
        (
            "login: qa-admin / {s}  (staging only, pls don't paste it in #general)",
            "the creds are svc_reports and {s}, same as last quarter",
            "pwd's {s} if it doesn't work ping Ravi",
        ),
    ),
    "webhook-8": (
        "B",
        (
            "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T04QX1RLM/B06HZ9K2P7Q/{s}",
            "receivers:\n  - name: oncall\n    discord_configs:\n      - webhook_url: https://discord.com/api/webhooks/1187429052310421504/{s}",
            'curl -s "https://api.telegram.org/bot6021948375:{s}/sendMessage" -d chat_id=-1001987 -d text=deployed',
        ),
    ),
    "cookie-8": (
        "A",
        (
            "> GET /admin/ HTTP/1.1\n> Host: shop.internal\n> Cookie: theme=dark; sessionid={s}\n> User-Agent: curl/8.5.0",
            "< HTTP/1.1 302 Found\n< Set-Cookie: laravel_session={s}; expires=Sat, 05-Dec-2026 14:00:00 GMT; path=/; httponly; samesite=lax\n< Location: /dashboard",
            "http --session=dev GET :8000/api/me 'Cookie:PHPSESSID={s}'",
        ),
    ),
    "url-auth-8": (
        "B",
        (
            "git remote set-url origin https://oauth2:{s}@gitlab.acme.dev/platform/api.git",
            "pip install --extra-index-url https://__token__:{s}@pypi.acme.dev/simple/ acme-sdk==2.3.1",
            "CELERY_BROKER_URL=amqp://worker:{s}@rabbitmq:5672/prod",
        ),
    ),
    "files-8": (
        "A",
        (
            "$ cat ~/.netrc\nmachine api.heroku.com\n  login ops@acme.dev\n  password {s}",
            '$ cat ~/.config/pypoetry/auth.toml\n[http-basic.acme]\nusername = "deploy"\npassword = "{s}"',
            "<servers>\n  <server>\n    <id>nexus-releases</id>\n    <username>ci</username>\n    <password>{s}</password>\n  </server>\n</servers>",
        ),
    ),
    "shells-8": (
        "B",
        (
            "~> set -gx DIGITALOCEAN_ACCESS_TOKEN {s}\n~> doctl compute droplet list",
            "% setenv RESTIC_PASSWORD '{s}'\n% restic -r sftp:backup@nas:/srv/restic snapshots",
            '$env.CLOUDFLARE_API_TOKEN = "{s}"',
        ),
    ),
    "tools-8": (
        "A",
        (
            "keytool -importkeystore -srckeystore old.p12 -srcstoretype PKCS12 -srcstorepass {s} -destkeystore app.jks",
            "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{s}",
            "rabbitmqctl add_user metrics {s} && rabbitmqctl set_user_tags metrics monitoring",
        ),
    ),
    "sdk-8": (
        "B",
        (
            "sg = SendGridAPIClient('{s}')\nresp = sg.send(message)",
            "const resend = new Resend('{s}');",
            'SMTP = ("smtp.eu.mailgun.org", 587, "postmaster@mg.acme.dev", "{s}")',
        ),
    ),
    "sqlx-8": (
        "A",
        (
            "ALTER USER etl_loader SET PASSWORD = '{s}' MUST_CHANGE_PASSWORD = FALSE;",
            "CREATE USER ch_reader IDENTIFIED WITH sha256_password BY '{s}' DEFAULT DATABASE analytics;",
            "cqlsh> CREATE ROLE app WITH PASSWORD = '{s}' AND LOGIN = true;",
        ),
    ),
    "keys-8": (
        "B",
        (
            '{\n  "type": "service_account",\n  "project_id": "acme-prod-2231",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC{s}\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "deployer@acme-prod-2231.iam.gserviceaccount.com"\n}',
            "$ cat > deploy_key <<'KEY'\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACD{s}\n-----END OPENSSH PRIVATE KEY-----\nKEY\n$ chmod 600 deploy_key",
            "production:\n  secret_key_base: {s}\n  active_record_encryption:\n    primary_key: ${AR_PRIMARY_KEY}",
        ),
    ),
}

_FRESH8_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "cert-8": (
        "A",
        (
            "$ openssl s_client -connect api.acme.dev:443 -showcerts </dev/null\n-----BEGIN CERTIFICATE-----\n{b64}\n-----END CERTIFICATE-----",
            'command="/usr/local/bin/backup-only",no-pty,no-port-forwarding ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64u} backup@nas',
            "$ gpg --armor --export dev@acme.dev\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBG{b64}\n=Ab3x\n-----END PGP PUBLIC KEY BLOCK-----",
        ),
    ),
    "example-8": (
        "B",
        (
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;  # Azurite's documented emulator key",
            "SLACK_BOT_TOKEN=xoxb-your-bot-token\nSLACK_SIGNING_SECRET=your-signing-secret",
            "# the sample token from jwt.io, decodes to John Doe\nEXAMPLE_JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'",
        ),
    ),
    "vault-ref-8": (
        "A",
        (
            'password: "op://Engineering/postgres-prod/password"\nusername: "op://Engineering/postgres-prod/username"',
            "DB_PASSWORD_SECRET_ARN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db/password-Ab12Cd",
            "api_key: ENC[AES256_GCM,data:{i},iv:{k44},tag:{k44},type:str]\nsops:\n    version: 3.8.1",
        ),
    ),
    "template-8": (
        "B",
        (
            "  password: {{ .Values.postgresql.auth.password | b64enc | quote }}",
            "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
            'curl -u "admin:<your-password>" https://grafana.acme.dev/api/org',
        ),
    ),
    "ids-8": (
        "A",
        (
            "X-Amzn-Trace-Id: Root=1-{h8}-{h24};Parent={h16};Sampled=1",
            "$ file ./bin/api\n./bin/api: ELF 64-bit LSB executable, x86-64, dynamically linked, BuildID[sha1]={h}, stripped",
            "az keyvault show --ids /subscriptions/{u}/resourceGroups/rg-prod-weu/providers/Microsoft.KeyVault/vaults/kv-acme-prod",
        ),
    ),
    "lock-8": (
        "B",
        (
            "  /zod@3.23.8:\n    resolution: {integrity: sha512-{i}}\n    dev: false",
            '"dist": {\n    "type": "zip",\n    "url": "https://api.github.com/repos/guzzle/guzzle/zipball/7.8.1",\n    "reference": "{h}",\n    "shasum": ""\n}',
            '"nixpkgs": {\n  "locked": {\n    "lastModified": 1714906307,\n    "narHash": "sha256-{k44}",\n    "rev": "{h}",\n    "type": "github"\n  }\n}',
        ),
    ),
    "prose-8": (
        "A",
        (
            "পাসওয়ার্ড কমপক্ষে ১২ অক্ষরের হতে হবে এবং একটি সংখ্যা থাকতে হবে।",
            "پاس ورڈ غلط ہے، دوبارہ کوشش کریں",
            "Lozinka je istekla. Molimo postavite novu lozinku.",
        ),
    ),
    "prose-8b": (
        "B",
        (
            "Паролата е грешна или акаунтът е заключен.",
            "Parool peab olema vähemalt 12 märki pikk.",
            "رمز عبور شما منقضی شده است؛ لطفاً آن را تغییر دهید.",
        ),
    ),
    "usage-8": (
        "A",
        (
            '"usage": {"prompt_tokens": 1832, "completion_tokens": 211, "total_tokens": 2043}',
            "Input tokens: 48,213 · Output tokens: 1,902 · Cache read tokens: 120,448 · Cost: $0.41",
            "FEATURE_TOKEN_ROTATION=true\nFEATURE_PASSWORDLESS_LOGIN=false\nSECRET_SCANNING_ENABLED=true",
        ),
    ),
    "code-8": (
        "B",
        (
            ".password-strength__meter--weak { width: 25%; background: #e5484d; }",
            "export const useAuthToken = () => useContext(AuthTokenContext);",
            'def test_rejects_expired_token(client):\n    token = make_token(exp=0, secret="test-secret-not-real")\n    assert client.get("/me", headers={"Authorization": "Bearer " + token}).status_code == 401',
        ),
    ),
    "build-8": (
        "A",
        (
            "$ docker pull postgres:16\n16: Pulling from library/postgres\nDigest: sha256:{h64}\nStatus: Downloaded newer image for postgres:16",
            "$ go tool buildid ./api\n{b64u}/{b64u}/{b64u}/{b64u}",
            "Created wheel for acme-sdk: filename=acme_sdk-2.3.1-py3-none-any.whl size=48213 sha256={h64}",
        ),
    ),
    "masked-8": (
        "B",
        (
            "OPENAI_API_KEY=sk-...Qx7f (last rotated 2024-05-01)",
            "Password: ********\nConfirm password: ********",
            "$ heroku config -a shop\nDATABASE_URL: postgres://u1:[REDACTED]@ec2-3-1-2-4.compute-1.amazonaws.com:5432/d8",
        ),
    ),
}


# Round W: written with rules v5 by the session that widened the lexicon, before changing any rule,
# to test the lexicon by the languages it lacked (Belarusian, Serbo-Croatian `šifra`, Hungarian
# and Lithuanian inflections, a German compound, Estonian, Danish `kodeord`, Hebrew `סיסמא`, Persian,
# Hindi, Marathi, Odia, Telugu without its joiner, Haitian Creole, Swahili, Kinyarwanda, Malagasy,
# Albanian) and English shorthand, and the judge by benign values after credential words (LLM token
# counts, key fingerprints, gpg ids, cache keys, image tags, request ids, JWT headers, JWKs,
# password policies, UI code, lockfiles, examples). Measured once on v5: A leaked 25/54, changed
# 4/66; B leaked 19/54, changed 3/84.
_FRESHW_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "lang-w1": (
        "A",
        (
            "Гасло да базы: {s}",  # Belarusian
            "Шифра за сервер је {s}",  # Serbian Cyrillic
            "Šifra za bazu: {s}",  # Croatian
            "A jelszava most {s}, kérlek ne oszd meg",  # Hungarian inflection
            "Datenbankpasswort lautet {s}",  # German compound
            "Parool andmebaasile on {s}",  # Estonian
            "Kodeordet til routeren er {s}",  # Danish kodeord
            "הסיסמא לשרת היא {s}",  # Hebrew common spelling
            "گذرواژه سرور: {s}",  # Persian
            "کلمه عبور دیتابیس {s} است",  # Persian
        ),
    ),
    "lang-w2": (
        "B",
        (
            "सर्वर का कूटशब्द {s} है",  # Hindi
            "सर्व्हरचा संकेतशब्द: {s}",  # Marathi
            "ପାସୱାର୍ଡ: {s}",  # Odia
            "పాస్వర్డ్: {s}",  # Telugu without ZWNJ
            "Modpas sèvè a se {s}",  # Haitian Creole
            "Neno la siri ni {s}",  # Swahili
            "Ijambo ry'ibanga ni {s}",  # Kinyarwanda
            "Tenimiafina: {s}",  # Malagasy
            "Slaptažodį pakeičiau į {s}",  # Lithuanian accusative
            "Fjalëkalimin e ndryshova në {s}",  # Albanian inflection
        ),
    ),
    "phrasing-w": (
        "A",
        (
            "login/pass for the staging box: deploy/{s}",
            "pwd for jenkins is {s} btw",
            "just use {s} as the admin password for now",
            "the wifi passcode is {s}",
            "p/w: {s}",
            "the root pswd = {s}",
            "creds are ops and {s}",
            "here's the pass phrase: {s}",
        ),
    ),
    "code-w": (
        "B",
        (
            "PIN码：{s}",
            "Your access code is {s}",
            "the db's master key -> {s}",
            'secretKey := "{s}"',
            "ENV DB_PASSWD {s}",
            "set -x API_SECRET {s}",
            "$env:ADMIN_PASSWORD = '{s}'",
            "heslo k wifi: {s}",
        ),
    ),
}

_FRESHW_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "usage-w": (
        "A",
        (
            "usage: prompt_tokens=18234 completion_tokens=912 total_tokens=19146",
            '{"usage": {"input_tokens": 20411, "output_tokens": 1337, "cache_read_input_tokens": 18240}}',
            "Tokens: 120,442 in / 8,211 out · cost $0.41",
            "context window: 200000 tokens, max output tokens 64000",
        ),
    ),
    "fingerprint-w": (
        "A",
        (
            "The key fingerprint is SHA256:{b64u}",
            'gpg: key {H16}: public key "Dana <dana@example.org>" imported',
            "pub   rsa4096/{H16} 2024-03-01 [SC]\n      {H40}",
            "ED25519 key fingerprint is MD5:{colonhex}.",
            "signing key id: {H16}",
        ),
    ),
    "cachekey-w": (
        "A",
        (
            "Cache saved with key: Linux-cargo-{h64}",
            'cache key: v2-deps-{{ checksum "go.sum" }}',
            "restore_keys: |\n  ${{ runner.os }}-pip-",
            "redis key session:{u} expired",
            'key = f"user:{user_id}:profile"',
        ),
    ),
    "image-w": (
        "A",
        (
            "image: ghcr.io/acme/api:sha-{h7}",
            "docker pull registry.gitlab.com/acme/auth-service@sha256:{h64}",
            "Successfully tagged token-service:{h12}",
            "FROM python:3.12-slim@sha256:{h64}",
        ),
    ),
    "reqid-w": (
        "B",
        (
            "x-request-id: {b64u}\nx-trace-id: {h32}",
            "X-Amzn-Trace-Id: Root=1-{h8}-{h24}",
            "request_id=req_{alnum24} status=429 retry_after=12",
            "traceparent: 00-{h32}-{h16}-01",
            'ETag: "{b64u}"',
            "cf-ray: {h16}-FRA",
        ),
    ),
    "jwt-w": (
        "B",
        (
            'The JWT header decodes to eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IjEyMyJ9 which is just {"alg":"RS256","typ":"JWT","kid":"123"}',
            'jwks: {"keys":[{"kty":"RSA","use":"sig","kid":"{h16}","n":"{b64u}","e":"AQAB"}]}',
            "-----BEGIN PUBLIC KEY-----\n{b64}\n-----END PUBLIC KEY-----",
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64u} dana@laptop",
        ),
    ),
    "policy-w": (
        "B",
        (
            "Password must be at least 12 characters and contain 1 uppercase, 1 digit and 1 symbol.",
            "Le mot de passe doit contenir au moins 8 caractères.",
            "Das Passwort muss mindestens 10 Zeichen lang sein.",
            "La contraseña debe tener al menos 8 caracteres.",
            "Forgot your password? We'll email you a reset link.",
            "パスワードは8文字以上で入力してください",
        ),
    ),
    "ui-w": (
        "B",
        (
            '<input type="password" name="password" autocomplete="current-password" placeholder="••••••••">',
            "const [password, setPassword] = useState('');",
            ".password-strength-meter{height:4px;background:#e0e0e0}",
            "export const PASSWORD_RESET_TOKEN_TTL_SECONDS = 3600;",
            '{"passwordReset": {"title": "Reset password", "cta": "Send reset link"}}',
            "function t(e){return e.token||e.accessToken}var o=t(n);",
        ),
    ),
    "lock-w": (
        "A",
        (
            'checksum = "{h64}"',
            '"packages/token-utils": {"version": "1.2.3", "integrity": "sha512-{i}"}',
            "golang.org/x/crypto v0.21.0 h1:{b64u}=",
            'content-hash = "{h64}"',
        ),
    ),
    "example-w": (
        "B",
        (
            "export OPENAI_API_KEY=sk-...",
            "password: <your password>",
            "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxx",
            "token: REPLACE_ME",
            "DB_PASSWORD=postgres  # local docker only",
            "SECRET_KEY = 'django-insecure-change-me'",
        ),
    ),
}


# Round X: written by the same session after rules v6's lexicon, before the changes it led to:
# inflected and glued forms (Turkish, Finnish, Polish, Czech, Arabic, Hebrew, Greek, Thai,
# Indonesian), CJK and Cyrillic chat, English shorthand, config and CLI syntaxes; benign password
# policies and i18n strings in ten languages, counts, ids, digests, code and prose. Measured once:
# A leaked 3/54, changed 0/66; B leaked 3/54, changed 9/60. A tenth benign template, `key: <uuid>`,
# was taken out after: a bare UUID after `key` is a Heroku API key as often as an id (3 of the 9).
_FRESHX_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "infl-x": (
        "A",
        (
            "Şifreniz {s} olarak güncellendi",  # Turkish suffix
            "Salasanasi on nyt {s}",  # Finnish possessive
            "Zalogowałem się hasłem {s}",  # Polish instrumental
            "Přihlas se heslem {s}",  # Czech instrumental
            "والرقم السري هو {s}",  # Arabic: another word for PIN/secret number
            "והסיסמה החדשה היא {s}",  # Hebrew glued 'and the'
            "Ο κωδικός πρόσβασης είναι {s}",  # Greek
            "Mật khẩu wifi là {s}",  # Vietnamese
            "รหัสผ่านคือ {s}",  # Thai glued
            "Kata sandinya {s}",  # Indonesian -nya
        ),
    ),
    "asia-x": (
        "B",
        (
            "サーバーのパスワードは「{s}」です",
            "DB 비밀번호는 {s} 입니다",
            "数据库密码是{s}，别外传",
            "管理员口令：{s}",
            "ルーターの暗証番号は {s}",
            "Пароль от вайфая — {s}",
            "Пароль до бази: {s}",
            "Лозинка за базу је {s}",
            "Mot de passe provisoire : {s}",
            "Contraseña temporal: {s}",
        ),
    ),
    "slang-x": (
        "A",
        (
            "changed the pw to {s}",
            "pw's {s} fyi",
            "password -> {s}",
            "passwd={s}",
            "admin creds: admin:{s}",
            "the secret for the webhook is {s}",
            "my PIN is {s}",
            "use passcode {s} to unlock",
        ),
    ),
    "syntax-x": (
        "B",
        (
            "docker run -e POSTGRES_PASSWORD={s} postgres:16",
            'config.set("db.password", "{s}")',
            "spring.datasource.password={s}",
            "<Password>{s}</Password>",
            "[client]\nuser=app\npassword={s}",
            "kubectl create secret generic db --from-literal=password={s}",
            "az keyvault secret set --vault-name kv --name db --value {s}",
            "gh secret set DEPLOY_TOKEN --body {s}",
        ),
    ),
}

_FRESHX_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "policy-x": (
        "A",
        (
            "Şifreniz en az 8 karakter olmalıdır.",
            "Salasanan on oltava vähintään 12 merkkiä pitkä.",
            "Hasło musi mieć co najmniej 8 znaków.",
            "Jelszó hossza: legalább 10 karakter",
            "Лозинка мора имати најмање 8 знакова.",
            "Kata sandi minimal 8 karakter.",
            "密码长度至少为8位，需包含字母和数字",
            "비밀번호는 8자 이상이어야 합니다",
            "Le mot de passe expire dans 90 jours.",
            "Das Kennwort läuft in 14 Tagen ab.",
        ),
    ),
    "i18n-x": (
        "A",
        (
            '"password": "Пароль", "password_hint": "Не менее 8 символов"',
            'msgid "Forgot password?"\nmsgstr "Zapomniałeś hasła?"',
            '{"login.pin": "PIN码", "login.pin.error": "PIN码错误，还剩3次"}',
            'forgot_password = "¿Olvidaste tu contraseña?"',
            '<string name="password_label">Wachtwoord</string>',
            "pwReset.title=Passwort zurücksetzen",
        ),
    ),
    "ids-x": (
        "B",
        (
            "Token usage: 1,204,332 / 2,000,000 (60%)",
            "PIN 4 (GPIO17) set HIGH",
            "pass 1234 tests, fail 0, skip 12",
            "api key id: ak_{h16}",
            "Session key expired at 2026-12-05T11:02:03Z",
            "cache_key=sha1:{h}",
            "codeVerifier length 43, code_challenge_method S256",
        ),
    ),
    "digests-x": (
        "B",
        (
            "docker.io/library/nginx@sha256:{h64}",
            "Digest: sha256:{h64}\nStatus: Downloaded newer image for node:20-alpine",
            'integrity="sha384-{b64u}" crossorigin="anonymous"',
            "commit {h} (HEAD -> main, origin/main)",
            "Fingerprint: {colonhex}",
            "x-goog-hash: crc32c={b64u}",
        ),
    ),
    "code-x": (
        "A",
        (
            "if (password.length < MIN_PASSWORD_LENGTH) throw new Error('too short');",
            "const token = await getToken({ audience: AUDIENCE });",
            "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))",
            "SELECT id, email FROM users WHERE reset_token_expires_at < now();",
            '@Column(name = "password_hash", nullable = false)\nprivate String passwordHash;',
            ".btn-secret{color:#a0a0a0}.token-list>li:nth-child(2n){margin:0}",
        ),
    ),
    "prose-x": (
        "B",
        (
            "The PIN pad on the door broke again, ticket OPS-4412.",
            "We store passwords with argon2id (m=65536, t=3, p=4).",
            "Rotate the API key every 90 days; the current one was issued 2026-09-01.",
            "La clé API se trouve dans le coffre, pas dans le dépôt.",
            "Der Schlüssel liegt im Tresor, nicht im Repo.",
            "トークンの有効期限は3600秒です",
        ),
    ),
}


# Round Y: written by the same session after studying round 8, to try what that study added (a
# constructor's and a login protocol's literals, `login` as a name, curl's header lines) on other
# code: constructors and protocol calls that hold no secret, Windows logon events, SQL Server's
# login error, CSS/JS identifiers, the words for code and token in prose. Measured once: A leaked
# 2/15, changed 3/48 (an LDAP filter read as a protocol's password, an LDAP bind's password
# missed); B leaked 2/15 (German `Zugang: user / password`), changed 0/42.
_FRESHY_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "client-y": (
        "A",
        (
            "const client = new PaymentsClient({ apiKey: '{s}' });",
            "$mail = new PHPMailer(true); $mail->Password = '{s}';",
            'var creds = new NetworkCredential("svc-backup", "{s}");',
            "ftp = FTP('files.acme.dev', 'deploy', '{s}')",
            "conn = ldap.initialize('ldaps://dc1.corp'); conn.simple_bind_s('cn=svc,dc=corp', '{s}')",
        ),
    ),
    "chat-y": (
        "B",
        (
            "Login: ops / {s}",
            "sign-in is ci-bot, {s}",
            "Zugang: admin / {s}",
            "user=grafana pass={s}",
            "ssh deploy@10.0.0.4 (pw {s})",
        ),
    ),
}

_FRESHY_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "ctor-y": (
        "A",
        (
            "const d = new Date('2024-05-01T10:00:00Z'); throw new Error('Invalid token');",
            "const fmt = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' });",
            "const id = new ObjectId('{h24}');",
            "const url = new URL('/v1/users', 'https://api.acme.dev');",
            "const dec = new TextDecoder('utf-8'); const w = new Worker('worker2.js');",
            "const re = new RegExp('^[a-z0-9_-]{3,16}$'); const b = new BigNumber('1e18');",
            "new Chart(ctx, { type: 'line', data: { labels: ['Q1', 'Q2'] } });",
        ),
    ),
    "proto-y": (
        "A",
        (
            "server = smtplib.SMTP('smtp.gmail.com', 587); server.starttls()",
            "imap = imaplib.IMAP4_SSL('imap.fastmail.com'); imap.select('INBOX')",
            "ftp.cwd('/pub/releases/v2.3.1'); ftp.retrbinary('RETR app-2.3.1.tgz', fh.write)",
            "ldap_search_s('ou=people,dc=corp,dc=example', ldap.SCOPE_SUBTREE, '(uid=alice)')",
            "SMTP_HOST = ('mail.acme.dev', 25)",
        ),
    ),
    "logon-y": (
        "B",
        (
            "An account was successfully logged on.\nLogon Type:\t\t3\nLogon ID:\t\t0x3E7\nLogon GUID:\t\t{00000000-0000-0000-0000-000000000000}",
            "Login failed for user 'sa'. Reason: Password did not match that for the login provided. [CLIENT: 10.1.2.3]",
            "login: alice\nLast login: Sat Dec  5 09:12:44 2026 from 10.0.0.2",
            "sign-in page: https://acme.dev/signin?next=%2Fdashboard",
            "Login method: oauth2 (Google), session 3600s",
        ),
    ),
    "cookie-y": (
        "B",
        (
            "Cookie policy: we use essential cookies only.",
            "> Cookie: (none)",
            "the Set-Cookie header is missing SameSite",
        ),
    ),
    "css-y": (
        "A",
        (
            ".login-form__password--visible{display:block}.SignInButton_root__x7Kq2{color:#fff}",
            "import { SignInWithGoogle, PasswordField } from '@acme/ui';",
            '<label for="pin">PIN</label><input id="pin" inputmode="numeric" maxlength="6">',
            'e.exports={loginUrl:"/api/login",tokenKey:"acme.auth.token",refreshKey:"acme.auth.refresh"}',
        ),
    ),
    "word-y": (
        "B",
        (
            "Koden er skrevet i Python 3.12 og kører på Kubernetes.",
            "Kode program ini menggunakan FastAPI versi 0.110.",
            "Kod źródłowy jest na GitHubie, gałąź release-2.4.",
            "Ο κωδικός της εφαρμογής βρίσκεται στο αποθετήριο.",
            "Le jeton expire après 3600 secondes.",
            "Das Geheimnis des Erfolgs: kleine Commits.",
        ),
    ),
}


# Round Z: written by the same session after round Y: connection strings (ADO.NET, JDBC, ODBC), Redis
# AUTH, MySQL SET PASSWORD, Mongo createUser, Go/Rust/C# literals, names in other languages as
# identifiers, form posts, npm's _authToken, sudo -S, expect/send; benign SMTP AUTH transcripts,
# auth errors, Django/Spring settings, shell sessions, policies in six languages. Measured once: A
# leaked 4/36 (sudo -S, expect/send), changed 0/30; B leaked 2/18 (`mot_de_passe`), changed 0/36.
_FRESHZ_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "conn-z": (
        "A",
        (
            "Server=sql01;Database=app;User Id=app;Pwd={s};",
            "jdbc:postgresql://db:5432/app?user=app&password={s}&ssl=true",
            "DRIVER={{ODBC Driver 18}};SERVER=sql01;UID=sa;PWD={s}",
            "127.0.0.1:6379> AUTH {s}\nOK",
            "mysql> SET PASSWORD FOR 'app'@'%' = '{s}';",
            'db.createUser({ user: "app", pwd: "{s}", roles: ["readWrite"] })',
        ),
    ),
    "lang-code-z": (
        "B",
        (
            'cfg := Config{User: "app", Password: "{s}"}',
            'let opts = Opts { password: "{s}".into(), ..Default::default() };',
            'var conn = new SqlConnectionStringBuilder { Password = "{s}" };',
            "contraseña_db: {s}",
            "CONTRASENA_DB={s}",
            'mot_de_passe = "{s}"',
        ),
    ),
    "http-z": (
        "A",
        (
            "curl -X POST https://acme.dev/login -d 'username=ops&password={s}'",
            "curl -F user=ops -F password={s} https://acme.dev/upload",
            "POST /login HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nusername=ops&password={s}",
            "npm config set //registry.acme.dev/:_authToken {s}",
            "echo '{s}' | sudo -S systemctl restart app",
            'expect "Password:"\nsend "{s}\\r"',
        ),
    ),
}

_FRESHZ_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "smtp-z": (
        "A",
        (
            "S: 334 VXNlcm5hbWU6\nC: <base64 user>\nS: 334 UGFzc3dvcmQ6\nC: <base64 password>\nS: 235 2.7.0 Authentication successful",
            "(error) WRONGPASS invalid username-password pair or user is disabled.",
            "ERROR 1045 (28000): Access denied for user 'app'@'10.0.0.4' (using password: YES)",
            'FATAL:  password authentication failed for user "app"',
            "sudo: a password is required",
        ),
    ),
    "config-z": (
        "B",
        (
            "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']",
            "AUTH_PASSWORD_VALIDATORS = [{'NAME': 'django.contrib.auth.password_validation.MinimumLengthValidator'}]",
            "security:\n  password-encoder: bcrypt\n  token-validity-seconds: 86400",
            "[auth]\npassword_min_length = 12\ntoken_ttl = 3600\nsecret_backend = vault",
            "session:\n  secret: ${SESSION_SECRET}\n  cookie_name: sid",
            "spring.datasource.password=${DB_PASSWORD:}",
        ),
    ),
    "shell-z": (
        "A",
        (
            "$ pwd\n/home/dana/src/acme-api-v2",
            "$ passwd\nChanging password for dana.\nCurrent password:\npasswd: Authentication token manipulation error",
            "$ gpg --list-secret-keys\nsec   ed25519/9F3A2B7C1D0E4F56 2024-01-10 [SC]",
            "$ ssh-add -l\n256 SHA256:{b64u} dana@laptop (ED25519)",
            "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d | wc -c\n24",
        ),
    ),
    "prose-z": (
        "B",
        (
            "Bitte das Passwort nicht im Klartext speichern, sondern als Hash (bcrypt, Kosten 12).",
            "Ne partagez jamais votre mot de passe : le support ne vous le demandera pas.",
            "La contraseña se cambia en Ajustes > Seguridad > Contraseña.",
            "密码错误次数过多，账户已锁定30分钟",
            "Пароль должен содержать не менее 12 символов, включая цифры.",
            "A senha expira em 90 dias; use o gerenciador de senhas da empresa.",
        ),
    ),
}


# Round U: written by the same session after round Z: wpa_supplicant's psk, a Wi-Fi QR payload,
# WireGuard's preshared key, a here-string, `net use`, openssl's `-k`, a YAML block scalar, TOML's
# triple quotes, `u/p`, a Cyrillic password, a value named by an aside after it; benign Wi-Fi and
# WireGuard configs, digests, prose with key/clave/pass, code and vault blocks. Measured once: A
# leaked 6/24, changed 3/30 (`key_mgmt=WPA2-PSK`); B leaked 5/24, changed 0/18.
_FRESHU_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ops-u": (
        "A",
        (
            'network={\n    ssid="HomeNet"\n    psk="{s}"\n}',
            "WIFI:S:HomeNet;T:WPA;P:{s};;",
            "[Peer]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\nPresharedKey = {s}\nAllowedIPs = 10.0.0.2/32",
            'gcloud secrets versions add db-pass --data-file=- <<< "{s}"',
            "net use \\\\\\\\fs01\\\\share /user:CORP\\\\svc-backup {s}",
            "openssl enc -aes-256-cbc -salt -in dump.sql -out dump.enc -k {s}",
            "password: |\n  {s}",
            'db_password = """{s}"""',
        ),
    ),
    "chat-u": (
        "B",
        (
            "u/p: admin/{s}",
            "пароль: Мышь{s}",
            "la clave del wifi es {s} jeje",
            "root pass => {s}",
            "use this one for now -> {s} (it's the staging pass)",
            "Kennwort für den Drucker: {s}",
            "master pw '{s}', don't lose it",
            '<entry key="db.password">{s}</entry>',
        ),
    ),
}

_FRESHU_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "net-u": (
        "A",
        (
            'network={\n    ssid="HomeNet"\n    key_mgmt=WPA-PSK\n    psk=0\n}',
            "[Interface]\nPrivateKey = <redacted>\nListenPort = 51820\n[Peer]\nPublicKey = {b44}",
            "net use Z: \\\\\\\\fs01\\\\share /persistent:yes",
            "openssl dgst -sha256 -hex release.tar.gz\nSHA2-256(release.tar.gz)= {h64}",
            "$ wpa_cli status\nbssid={mac}\nfreq=5180\nssid=HomeNet\nkey_mgmt=WPA2-PSK\nwpa_state=COMPLETED",
        ),
    ),
    "text-u": (
        "B",
        (
            "Пароль изменён 05.12.2026 в 10:14 (UTC+3)",
            "La clave del éxito es la constancia.",
            "The key takeaway: cache invalidation is hard.",
            "Master password reset requires both admins (2-of-2).",
            "Pass 2 of 3: linking 412 objects",
            "u/p ratio: 0.82",
        ),
    ),
    "code-u": (
        "A",
        (
            "if err := bcrypt.CompareHashAndPassword(hash, []byte(pw)); err != nil {",
            "const PASSWORD_PATTERN = /^(?=.*[A-Z])(?=.*\\d).{12,}$/;",
            "password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  {h64}\n  {h64}",
            "self.assertEqual(resp.json()['detail'], 'Invalid token.')",
            "expect(screen.getByLabelText('Password')).toBeInTheDocument();",
        ),
    ),
}


# Round V: written by the same session after round U: a password changed to a value, in twenty
# languages and their word orders (verb-final, particles glued to the value, prepositions before it);
# benign: the same verbs with a count, a length or a description instead of a value. Measured once:
# A leaked 2/30 (Korean `X로`: the particle was read as part of the value), changed 0/21; B 0/30, 0/21.
_FRESHV_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "changed-v1": (
        "A",
        (
            "パスワードを {s} に変更しました",
            "비밀번호를 {s}로 바꿨어요",
            "Şifreyi {s} olarak değiştirdim",
            "Vaihdoin salasanaksi {s}",
            "Ich habe das Passwort auf {s} gesetzt",
            "Wachtwoord veranderd naar {s}",
            "Zmieniłem hasło na {s}",
            "把数据库密码改成了{s}",
            "Đã đổi mật khẩu thành {s}",
            "เปลี่ยนรหัสผ่านเป็น {s} แล้ว",
        ),
    ),
    "changed-v2": (
        "B",
        (
            "Cambié la contraseña a {s}",
            "Mudei a senha para {s}",
            "Ho cambiato la password in {s}",
            "Поменял пароль на {s}",
            "Ganti password jadi {s} ya",
            "غيرت كلمة المرور إلى {s}",
            "שיניתי את הסיסמה ל-{s}",
            "मैंने पासवर्ड बदलकर {s} कर दिया",
            "رمز عبور را به {s} تغییر دادم",
            "J'ai remis le mot de passe à {s}",
        ),
    ),
}

_FRESHV_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "verbs-v1": (
        "A",
        (
            "비밀번호를 3번 틀려서 계정이 잠겼어요",
            "パスワードを8文字以上に変更してください",
            "Şifreyi 90 günde bir değiştirin",
            "Vaihda salasana 90 päivän välein",
            "Ich habe das Passwort auf der Rückseite notiert",
            "Zmieniłem hasło na nowe, szczegóły w sejfie",
            "把密码改成了更长的",
        ),
    ),
    "verbs-v2": (
        "B",
        (
            "Cambié la contraseña a una más larga",
            "Mudei a senha para a do cofre",
            "Поменял пароль на более длинный",
            "Ganti password jadi lebih panjang ya",
            "J'ai remis le mot de passe à zéro",
            "Ho cambiato la password in quella del vault",
            "Password changed to the one in 1Password",
        ),
    ),
}


# Round T: written by the same session after round V: what tools print: `vault kv get`, a Secret's
# YAML, `docker inspect`, `printenv`, `pass show`, STS credentials, Markdown and box tables, an HTML
# table; benign: the masks tools print (`aws configure list`, `gh auth status`, `kubectl config
# view`, `terraform output`, `npm config list`), key fingerprints, env listings, test names.
# Measured once: A leaked 2/18 (`pass show`), changed 3/18 (`DATA+OMITTED`); B leaked 4/18 (an aside
# in backticks, an HTML table), changed 0/18. The Secret's template was first written with an
# unfilled placeholder (a secret template is not filled), so its 3 samples measured nothing; it
# holds `stringData` now, and the STS template fixed ids.
_FRESHT_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "tools-t": (
        "A",
        (
            "$ vault kv get secret/db\n====== Data ======\nKey         Value\n---         -----\npassword    {s}\nusername    app",
            "$ kubectl get secret db -o yaml\napiVersion: v1\nstringData:\n  password: {s}\nkind: Secret",
            '$ docker inspect api --format "{{json .Config.Env}}"\n["PATH=/usr/local/bin","DB_PASSWORD={s}","PORT=8080"]',
            "$ printenv | grep -i token\nSLACK_APP_TOKEN={s}",
            "$ pass show infra/db\n{s}\nuser: app",
            '$ aws sts get-session-token\n{\n    "Credentials": {\n        "AccessKeyId": "ASIA5JQ2XKPO7RTM4WDE",\n        "SecretAccessKey": "{s}",\n        "SessionToken": "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDk"\n    }\n}',
        ),
    ),
    "ui-t": (
        "B",
        (
            "| Name | Value |\n|---|---|\n| DB_USER | app |\n| DB_PASS | {s} |",
            "Username: deploy\nPassword: {s}\nHost: 10.0.4.12",
            "╭─ credentials ─╮\n│ user: ci      │\n│ pass: {s} │\n╰───────────────╯",
            "- [x] rotate `{s}` (old staging pw)",
            "* **Password:** `{s}`",
            "<tr><td>password</td><td>{s}</td></tr>",
        ),
    ),
}

_FRESHT_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "cli-t": (
        "A",
        (
            "$ aws configure list\n      Name                    Value             Type    Location\n   access_key     ****************{AK4}      shared-credentials-file\n   secret_key     ****************{AK4}      shared-credentials-file",
            "$ gh auth status\ngithub.com\n  ✓ Logged in to github.com account dana (keyring)\n  - Token: gho_************************************\n  - Token scopes: 'gist', 'read:org', 'repo'",
            "$ kubectl config view\nusers:\n- name: admin\n  user:\n    client-certificate-data: DATA+OMITTED\n    client-key-data: DATA+OMITTED\n    token: REDACTED",
            '$ terraform output\ndb_password = <sensitive>\ndb_host = "db.internal"',
            "$ docker login ghcr.io -u dana --password-stdin < token.txt\nLogin Succeeded",
            '$ npm config list\n//registry.npmjs.org/:_authToken = (protected)\nregistry = "https://registry.npmjs.org/"',
        ),
    ),
    "out-t": (
        "B",
        (
            "$ ssh-keygen -t ed25519 -C dana@laptop\nYour identification has been saved in /home/dana/.ssh/id_ed25519\nThe key fingerprint is:\nSHA256:{b64u} dana@laptop",
            "$ gpg --fingerprint dana@example.org\npub   ed25519 2024-01-10 [SC]\n      {H4} {H4} {H4} {H4} {H4}  {H4} {H4} {H4} {H4} {H4}",
            "$ age-keygen -y key.txt\nage1{b32l}",
            "$ printenv | head -4\nPWD=/home/dana/src/api\nOLDPWD=/home/dana\nSHLVL=1\nLANG=en_US.UTF-8",
            "$ git config -l | grep cred\ncredential.helper=store\ncredential.https://github.com.username=dana",
            "tests/test_auth.py::test_password_reset_token_expires PASSED [ 42%]\ntests/test_auth.py::test_login_with_wrong_password PASSED [ 43%]",
        ),
    ),
}


# Round R: written by the same session after round T, to try the shapes v6 reads (constructors,
# `login`, tags, asides, printers, block scalars, values in other scripts) on code and text that
# hold no secret, and a few secrets in them. Measured once: A leaked 2/9 (`pass generate`'s output
# under its label), changed 3/18 (a regular expression given to `new RegExp`); B leaked 1/9 (a
# table's value on the line below its header), changed 3/18: `echo 'done' | sudo -S true`, taken
# out after as mislabelled: what is piped to `sudo -S` is its password, whatever it reads like.
_FRESHR_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mix-r": (
        "A",
        (
            "$ pass generate infra/db 24\nThe generated password for infra/db is:\n{s}",
            "const api = new Mailjet({ apiKey: 'pub-key-1', apiSecret: '{s}' });",
            "Login -> ops / {s}",
        ),
    ),
    "mix-r2": (
        "B",
        (
            "<th>Password</th>\n<td>{s}</td>",
            "secret: >-\n  {s}",
            "κωδικός: {s}",
        ),
    ),
}

_FRESHR_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "jsx-r": (
        "A",
        (
            "<td>{user.password ? '••••••' : 'none'}</td>",
            '<label htmlFor="pw">Password</label><input id="pw" type="password" value={pw} />',
            "<th>Token</th><td>expires 2026-01-01</td>",
            "const collator = new Intl.Collator('sv-SE-u-co-phonebk');\nconst d = new Date(2024, 0, 1);",
            "const buf = new Buffer('SGVsbG8gd29ybGQ=', 'base64'); const re = new RegExp('^[A-Z]{2}\\\\d{6}$');",
            "const login = new LoginPage(page); await login.goto('/signin');",
        ),
    ),
    "text-r": (
        "B",
        (
            "пароль: не менее 8 символов, из них 2 цифры",
            "Login: 2026-12-05 10:00:12 from 10.0.0.1 (ssh)",
            "description: |\n  The password for the admin account, rotated monthly.",
            "password: >-\n  {{ vault_db_password }}",
            "$ pass ls\nPassword Store\n└── infra\n    └── db",
        ),
    ),
}


# Round 9, written without reading the rules and unlike round 8: Indic, Southeast Asian, Caucasian, Balkan, Iberian
# and African phrasings, values stated before their noun, Windows and SMB/Wi-Fi commands, vendor auth schemes and
# agent files, positional credentials in Perl/Go/Scala/JS/R/Clojure/Erlang, package-manager credential files, recovery
# keys; near-misses are DNS records, public web-push/SAML/SSH keys, chain addresses, vendor object ids, lockfiles of
# other ecosystems, filtered logs, indirect references, "the password is wrong" in other scripts, sequences.
_FRESH9_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "lang-9": (
        "A",
        (
            "స్టేజింగ్ డేటాబేస్ పాస్‌వర్డ్: {s}",
            "सर्भरको पासवर्ड {s} हो, कसैलाई नभन्नुहोस्",
            "સર્વરનો પાસવર્ડ {s} છે",
        ),
    ),
    "lang-9b": (
        "B",
        (
            "ಸರ್ವರ್‌ನ ಪಾಸ್‌ವರ್ಡ್ {s} ಆಗಿದೆ",
            "സെർവറിന്റെ പാസ്‌വേഡ് {s} ആണ്",
            "ਸਰਵਰ ਦਾ ਪਾਸਵਰਡ {s} ਹੈ",
        ),
    ),
    "lang-9c": (
        "A",
        (
            "සර්වරයේ මුරපදය: {s}",
            "ဆာဗာ စကားဝှက်က {s} ပါ",
            "ពាក្យសម្ងាត់ម៉ាស៊ីនមេគឺ {s}",
        ),
    ),
    "lang-9d": (
        "B",
        (
            "የአገልጋዩ የይለፍ ቃል {s} ነው",
            "Սերվերի գաղտնաբառը՝ {s}",
            "Серверийн нууц үг: {s}",
        ),
    ),
    "lang-9e": (
        "A",
        (
            "Zaporka za poslužitelj je {s}",
            "Geslo za strežnik je {s}, ne pošiljaj ga po mailu",
            "Лозинката за серверот е {s}",
        ),
    ),
    "lang-9f": (
        "B",
        (
            "O contrasinal do servidor é {s}",
            "Die wagwoord vir die bediener is {s}",
            "資料庫密碼：{s}（請勿外流）",
        ),
    ),
    "value-first-9": (
        "B",
        (
            "{s} is the new root password on db-3, old one's revoked",
            "u: admin p: {s}",
            "try {s} at the sudo prompt, that's what IT gave me",
        ),
    ),
    "windows-9": (
        "A",
        (
            "C:\\> net use \\\\fs01\\deploy /user:ACME\\svc_build {s} /persistent:no",
            "cmdkey /add:sql01.acme.local /user:ACME\\sqladmin /pass:{s}",
            'sqlcmd -S sql01 -U sa -P {s} -Q "SELECT @@VERSION"',
        ),
    ),
    "unix-net-9": (
        "B",
        (
            "smbclient //fs01/share -U ops%{s} -c 'ls'",
            "sudo mount -t cifs //fs01/backup /mnt/backup -o username=ops,password={s},vers=3.0",
            "nmcli dev wifi connect AcmeCorp-5G password {s}",
        ),
    ),
    "auth-schemes-9": (
        "A",
        (
            "curl -H 'Authorization: SSWS {s}' 'https://acme.okta.com/api/v1/users?limit=25'",
            'curl -k https://splunk.acme.dev:8088/services/collector -H "Authorization: Splunk {s}" -d \'{"event": "deploy finished"}\'',
            "GET /_cluster/health HTTP/1.1\nHost: es.acme.dev:9200\nAuthorization: ApiKey {s}",
        ),
    ),
    "vendor-cfg-9": (
        "B",
        (
            "$ cat /etc/datadog-agent/datadog.yaml\napi_key: {s}\nsite: datadoghq.eu\nlogs_enabled: true",
            '$ cat ~/.terraformrc\ncredentials "app.terraform.io" {\n  token = "{s}"\n}',
            '# /etc/buildkite-agent/buildkite-agent.cfg\ntoken="{s}"\nname="%hostname-%spawn"\ntags="queue=default"',
        ),
    ),
    "positional-9": (
        "A",
        (
            'my $dbh = DBI->connect("dbi:Pg:dbname=app;host=db", "app", "{s}", { RaiseError => 1 });',
            'db, err := sql.Open("mysql", "app:{s}@tcp(db:3306)/shop?parseTime=true")',
            'credentials += Credentials("Sonatype Nexus Repository Manager", "nexus.acme.dev", "deploy", "{s}")',
        ),
    ),
    "positional-9b": (
        "B",
        (
            "client.connect('10.0.4.12', 22, 'ops', '{s}', timeout=10)",
            "const token = jwt.sign({ sub: user.id }, '{s}', { expiresIn: '1h' });",
            "conn = ldap3.Connection(server, 'cn=admin,dc=acme,dc=dev', '{s}', auto_bind=True)",
        ),
    ),
    "langs-code-9": (
        "A",
        (
            'con <- dbConnect(RPostgres::Postgres(), dbname = "dw", user = "analyst", password = "{s}")',
            '{:db {:dbtype "postgresql" :user "app" :password "{s}"}}',
            "erl -name node1@10.0.0.5 -setcookie {s} -s app start",
        ),
    ),
    "sys-cfg-9": (
        "B",
        (
            'network={\n    ssid="AcmeCorp"\n    psk="{s}"\n    key_mgmt=WPA-PSK\n}',
            "userlist admins\n    user ops insecure-password {s}\n\nlisten stats\n    bind :8404\n    stats enable",
            "$ sudo tee /etc/postfix/sasl_passwd\n[smtp.sendgrid.net]:587 apikey:{s}\n$ sudo postmap /etc/postfix/sasl_passwd",
        ),
    ),
    "pkg-cfg-9": (
        "A",
        (
            '$ cat ~/.cargo/credentials.toml\n[registries.acme]\ntoken = "{s}"',
            '{\n  "http-basic": {\n    "repo.packagist.com": {\n      "username": "token",\n      "password": "{s}"\n    }\n  }\n}',
            '<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="ci" />\n    <add key="ClearTextPassword" value="{s}" />\n  </acme>\n</packageSourceCredentials>',
        ),
    ),
    "cli-quoting-9": (
        "B",
        (
            'git -c http.extraHeader="Authorization: Bearer {s}" clone https://git.acme.dev/infra/terraform.git',
            "docker login -u acmebot --password-stdin registry.acme.dev <<< '{s}'",
            'expect -c \'spawn ssh ops@10.0.3.9; expect "password:"; send "{s}\\r"; interact\'',
        ),
    ),
    "recovery-9": (
        "A",
        (
            "Bitwarden two-step login recovery code for ops@acme.dev: {s}",
            "Recovery key for the CI signing YubiKey (keep it offline): {s}",
            "LUKS passphrase for /dev/nvme0n1p3 is {s}, the paper copy is in the safe",
        ),
    ),
}

_FRESH9_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "dns-9": (
        "A",
        (
            'selector1._domainkey.acme.dev. 3600 IN TXT "v=DKIM1; k=rsa; p={b64}"',
            '$ dig +short TXT _acme-challenge.acme.dev\n"{b64u}"',
            'acme.dev. 3600 IN TXT "google-site-verification={b64u}"',
        ),
    ),
    "pubkeys-9": (
        "B",
        (
            "const VAPID_PUBLIC_KEY = 'B{b64u}';\nawait registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: urlBase64ToUint8Array(VAPID_PUBLIC_KEY) });",
            '<md:KeyDescriptor use="signing">\n  <ds:KeyInfo><ds:X509Data><ds:X509Certificate>{b64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>\n</md:KeyDescriptor>',
            "$ ssh-keyscan -t rsa git.acme.dev\n# git.acme.dev:22 SSH-2.0-OpenSSH_9.6\ngit.acme.dev ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{b64}",
        ),
    ),
    "chain-9": (
        "A",
        (
            "Contract deployed at 0x{h} (block 19823411, gas used 1,204,331)",
            "tx 0x{h64} confirmed in 12.4s",
            "verify it on https://sepolia.etherscan.io/address/0x{h}#code",
        ),
    ),
    "objids-9": (
        "B",
        (
            "intent = stripe.PaymentIntent.retrieve('pi_3P{a24}')",
            'db.orders.find({ _id: ObjectId("{h24}") })',
            "event_id={ulid} customer=cus_{a14} status=succeeded",
        ),
    ),
    "lock-9": (
        "A",
        (
            "SPEC CHECKSUMS:\n  Alamofire: {h}\n  FirebaseCore: {h}\n\nPODFILE CHECKSUM: {h}\n\nCOCOAPODS: 1.15.2",
            '"Newtonsoft.Json": {\n  "type": "Direct",\n  "requested": "[13.0.3, )",\n  "resolved": "13.0.3",\n  "contentHash": "{i}"\n}',
            '<component group="com.squareup.okhttp3" name="okhttp" version="4.12.0">\n   <artifact name="okhttp-4.12.0.jar">\n      <sha256 value="{h64}" origin="Generated by Gradle"/>\n   </artifact>\n</component>',
        ),
    ),
    "vcs-9": (
        "B",
        (
            "$ git ls-remote origin\n{h}\tHEAD\n{h}\trefs/heads/main\n{h}\trefs/tags/v2.4.0",
            "Fix token refresh race on cold start\n\nChange-Id: I{h}\nReviewed-on: https://gerrit.acme.dev/c/api/+/48213",
            '"pins" : [\n  {\n    "identity" : "swift-argument-parser",\n    "location" : "https://github.com/apple/swift-argument-parser.git",\n    "state" : { "revision" : "{h}", "version" : "1.3.1" }\n  }\n]',
        ),
    ),
    "filtered-9": (
        "A",
        (
            'Started POST "/users/sign_in" for 10.0.0.7\n  Parameters: {"user"=>{"email"=>"ana@acme.dev", "password"=>"[FILTERED]"}, "commit"=>"Log in"}',
            "Wi-Fi password: ●●●●●●●●●●  [Show]",
            "$ doppler secrets get STRIPE_KEY --plain --redacted\nsk_live_****************************",
        ),
    ),
    "refs-9": (
        "B",
        (
            '@Value("${spring.datasource.password}")\nprivate String dbPassword;',
            'password: <%= ENV.fetch("DB_PASSWORD") %>',
            "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n    secrets:\n      - db_password",
        ),
    ),
    "prose-9": (
        "A",
        (
            "Die wagwoord is verkeerd. Probeer weer.",
            "Zaporka je prekratka: najmanje 12 znakova.",
            "密碼錯誤，請再試一次。",
        ),
    ),
    "prose-9b": (
        "B",
        (
            "പാസ്‌വേഡ് തെറ്റാണ്, വീണ്ടും ശ്രമിക്കുക",
            "Գաղտնաբառը սխալ է։ Փորձեք կրկին։",
            "O contrasinal caducou; cámbiao no panel de control.",
        ),
    ),
    "prose-9c": (
        "A",
        (
            "पासवर्ड गलत छ। फेरि प्रयास गर्नुहोस्।",
            "Нууц үг хамгийн багадаа 12 тэмдэгт байх ёстой.",
            "Geslo je poteklo, nastavite novo geslo.",
        ),
    ),
    "usage-9": (
        "B",
        (
            "Usage(input_tokens=18211, output_tokens=944, cache_creation_input_tokens=0, cache_read_input_tokens=40112)",
            'Token { kind: Ident, span: 112..120, text: "password" }\nToken { kind: Eq, span: 121..122, text: "=" }',
            "context: 143,882 / 200,000 tokens (72%), consider /compact",
        ),
    ),
    "versions-9": (
        "A",
        (
            "ro.build.fingerprint: google/oriole/oriole:14/AP2A.240605.024/11860263:user/release-keys",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.207 Safari/537.36",
            "Linux build-7 6.8.0-31-generic #31-Ubuntu SMP PREEMPT_DYNAMIC Sat Apr 20 00:40:06 UTC 2024 x86_64 GNU/Linux",
        ),
    ),
    "docs-ex-9": (
        "B",
        (
            "const SPREADSHEET_ID = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms'; // the sample sheet from Google's quickstart",
            "Stripe.setPublishableKey('pk_test_TYooMQauvdEDq54NiTphI7jx'); // publishable test key from the Stripe docs",
            "TWILIO_ACCOUNT_SID=ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\nTWILIO_AUTH_TOKEN=your_auth_token",
        ),
    ),
    "science-9": (
        "A",
        (
            ">NM_000546.6 Homo sapiens tumor protein p53 (TP53), mRNA\n{dna}",
            "InChIKey=BSYNRYMUTXBXSQ-UHFFFAOYSA-N (aspirin), SMILES CC(=O)Oc1ccccc1C(=O)O",
            "thumbnail pHash {h16}, dHash {h16}: distance 3, treated as a duplicate",
        ),
    ),
    "oauth-public-9": (
        "B",
        (
            "https://auth.acme.dev/authorize?response_type=code&client_id=web-app&code_challenge={b64u}&code_challenge_method=S256&state={h16}",
            "Content-Security-Policy: script-src 'sha256-{k44}' 'strict-dynamic'; object-src 'none'",
            '{"kid": "{u}", "kty": "OKP", "crv": "Ed25519", "x": "{b64u}", "use": "sig"}',
        ),
    ),
}


# -- round 10: written blind to the rules (new families, syntaxes and languages) ------------------

_FRESH10_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "lang-10": (
        "A",
        (
            "An pasfhocal don fhreastalaí ná {s}",
            "ລະຫັດຜ່ານຂອງເຊີບເວີແມ່ນ {s}",
            "Loyniorðið til servaran er {s}",
        ),
    ),
    "lang-10b": (
        "B",
        (
            "Kalmar sirri ta uwar garke ita ce {s}",
            "'S e am facal-faire airson an fhrithealaiche {s}",
            "D'Passwuert fir de Server ass {s}, sot et kengem",
        ),
    ),
    "roundabout-10": (
        "A",
        (
            "db login is the same as the office wifi one: {s} (yes I know, I'll rotate it)",
            "for the NAS use what's on the sticker under the router, {s}, and change it after",
            "it's my usual one with the year bumped, so {s} now. don't judge",
        ),
    ),
    "mobile-10": (
        "B",
        (
            "<key>BackendSharedSecret</key>\n\t<string>{s}</string>\n\t<key>CFBundleShortVersionString</key>\n\t<string>2.4.1</string>",
            "# gradle.properties\nRELEASE_STORE_FILE=upload.jks\nRELEASE_STORE_PASSWORD={s}\nRELEASE_KEY_ALIAS=upload",
            '<meta-data\n    android:name="com.acme.sdk.CLIENT_SECRET"\n    android:value="{s}" />',
            "// lib/env.dart\nconst String kSigningSecret = '{s}';",
        ),
    ),
    "container-10": (
        "A",
        (
            "FROM node:20-alpine\nARG NPM_REGISTRY_PASSWORD={s}\nRUN npm ci --omit=dev",
            "ENV PGUSER=app \\\n    PGPASSWORD={s} \\\n    PGHOST=db",
            "      - uses: appleboy/scp-action@v0.1.7\n        with:\n          host: deploy.acme.dev\n          username: deploy\n          password: {s}\n          source: dist/*",
            "DB_PASS ?= {s}\n\nmigrate:\n\tflyway -user=app -password=$(DB_PASS) migrate",
        ),
    ),
    "yaml-10": (
        "B",
        (
            "x-db-env: &db_env\n  DB_USER: app\n  DB_PASS: {s}\nservices:\n  api:\n    environment: *db_env",
            "mqtt: {host: broker.local, port: 8883, user: sensor01, pw: {s}}",
            'defaults: &defaults\n  adapter: mysql2\n  secret: "{s}"\ndevelopment:\n  <<: *defaults',
        ),
    ),
    "notebook-10": (
        "A",
        (
            '{\n "cell_type": "code",\n "source": [\n  "import snowflake.connector\\n",\n  "conn = snowflake.connector.connect(user=\\"ANALYST\\", password=\\"{s}\\", account=\\"xy12345\\")"\n ]\n}',
            '"outputs": [\n  {\n   "name": "stdout",\n   "output_type": "stream",\n   "text": ["warehouse login ok, pw={s}\\n"]\n  }\n ]',
            "In [3]: %env LAKE_PWD={s}\nIn [4]: df = spark.read.table('sales')",
        ),
    ),
    "code-10": (
        "B",
        (
            'config :my_app, MyApp.Repo,\n  username: "postgres",\n  password: "{s}",\n  hostname: "db"',
            'connInfo = defaultConnectInfo { connectUser = "app", connectPassword = "{s}" }',
            'const smtp_pass: []const u8 = "{s}";',
            'local ok, err = red:auth("{s}")',
        ),
    ),
    "code-10b": (
        "A",
        (
            "$mail->Username = 'noreply@acme.dev';\n$mail->Password = '{s}';",
            'val ds = new HikariDataSource()\nds.setUsername("etl")\nds.setPassword("{s}")',
            "Net::SFTP.start('files.acme.dev', 'ftpuser', password: '{s}') do |sftp|",
        ),
    ),
    "sql-10": (
        "B",
        (
            "SELECT * FROM dblink('host=10.0.0.7 dbname=billing user=report password={s}', 'select id from invoices') AS t(id int);",
            "CREATE USER MAPPING FOR app SERVER legacy OPTIONS (user 'etl', password '{s}');",
            "EXEC sp_addlinkedsrvlogin @rmtsrvname = 'LEGACY01', @useself = 'false', @rmtuser = 'etl', @rmtpassword = '{s}';",
        ),
    ),
    "auth-flow-10": (
        "A",
        (
            "ldapwhoami -x -H ldaps://ldap.acme.dev -D 'uid=svc-jenkins,ou=svc,dc=acme,dc=dev' -w '{s}'",
            "curl -X POST https://auth.acme.dev/oauth/token -d grant_type=password -d username=qa@acme.dev -d 'password={s}' -d client_id=cli",
            "POST /token HTTP/1.1\nHost: auth.acme.dev\nContent-Type: application/x-www-form-urlencoded\n\ngrant_type=client_credentials&client_id=reporting&client_secret={s}",
        ),
    ),
    "iot-10": (
        "B",
        (
            '#define WIFI_SSID "Workshop"\n#define WIFI_PASS "{s}"',
            'wifi:\n  ssid: Barn\n  password: "{s}"\nota:\n  platform: esphome',
            '{\n  "name": "Friday night factory",\n  "game_password": "{s}",\n  "visibility": {"public": false, "lan": true}\n}',
        ),
    ),
    "tables-10": (
        "A",
        (
            "| env | user | password |\n|-----|------|----------|\n| staging | admin | {s} |\n| prod | - | ask Priya |",
            "+--------+--------+----------------------+\n| host   | login  | secret               |\n+--------+--------+----------------------+\n| db-02  | root   | {s} |\n+--------+--------+----------------------+",
            "email,display_name,temp_password\nana@acme.dev,Ana Ruiz,{s}\n",
        ),
    ),
    "url-10": (
        "B",
        (
            "open this to finish the setup: https://app.acme.dev/invite#code={s}",
            "got redirected to https://cb.acme.dev/callback#access_token={s}&token_type=bearer&expires_in=3600",
            "point the collector at https://hooks.acme.dev/ingest?src=edge-7&k={s} and it starts posting",
        ),
    ),
    "ops-10": (
        "A",
        (
            'Traceback (most recent call last):\n  File "sync.py", line 41, in <module>\n    ftp.login("backup", "{s}")\nftplib.error_perm: 530 Login incorrect.',
            "From: it-helpdesk@acme.dev\nSubject: Your VPN account\n\nHi Marta,\nyour temporary VPN password is {s}\nPlease change it at first login.",
            "OPS-4411 Rotate the jenkins svc account. Current value (revoke after the switch): {s}",
        ),
    ),
}

_FRESH10_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "sri-10": (
        "A",
        (
            '<script src="https://cdn.jsdelivr.net/npm/htmx.org@1.9.12" integrity="sha384-{sri384}" crossorigin="anonymous"></script>',
            '"node_modules/lodash": {\n  "version": "4.17.21",\n  "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n  "integrity": "sha512-{i}"\n}',
            'name = "idna"\nversion = "3.7"\nfiles = [\n    {file = "idna-3.7-py3-none-any.whl", hash = "sha256:{h64}"},\n]',
        ),
    ),
    "content-addr-10": (
        "B",
        (
            "version https://git-lfs.github.com/spec/v1\noid sha256:{h64}\nsize 48213877",
            "pinned the dataset at ipfs://{cid}/train.parquet",
            "$ ipfs add model.onnx\nadded {b58} model.onnx",
            "dist/assets/index-{h8}.js   142.31 kB │ gzip: 45.02 kB\ndist/assets/index-{h8}.css   12.88 kB",
        ),
    ),
    "testvec-10": (
        "A",
        (
            'RFC 4231 test case 2:\nKey  = 4a656665 ("Jefe")\nData = 7768617420646f2079612077616e7420666f72206e6f7468696e673f\nHMAC-SHA-256 = 5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
            "FIPS-197 C.1: key 000102030405060708090a0b0c0d0e0f, plaintext 00112233445566778899aabbccddeeff -> ciphertext 69c4e0d86a7b0430d8cdb78070b4c55a",
            '# RFC 6238 appendix B uses the ASCII seed "12345678901234567890" (SHA1); at T=59 the 8-digit TOTP is 94287082',
        ),
    ),
    "sdkdocs-10": (
        "B",
        (
            "For local testing use Google's reCAPTCHA test keys (always pass):\nSite key: 6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI\nSecret key: 6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
            "Turnstile dummy secret for CI (always passes): 1x0000000000000000000000000000000AA",
            "The Stripe docs sample uses the public test key sk_test_4eC39HqLyjWDarjtT1zdp7dc, which only works against their docs sandbox.",
        ),
    ),
    "masked-10": (
        "A",
        (
            "Run export-secrets\n  DEPLOY_PASSWORD: ***\n  REGISTRY_TOKEN: ***\nDone in 0.4s",
            "$ heroku config:get DATABASE_URL --app acme-api | sed 's/:[^:@]*@/:•••••@/'\npostgres://u8fk2:•••••@ec2-52-1-2-3.compute-1.amazonaws.com:5432/d9k1",
            "API key: sk-…{alnum4} (created 2026-03-02, last used 2 hours ago)",
            "password: [REDACTED]  # value removed before posting",
        ),
    ),
    "policy-10": (
        "B",
        (
            "Passwords must be at least 14 characters, include one of !@#$%^&*, and may not reuse any of the last 24.",
            "Das Feld `passwort` ist nur schreibbar; GET liefert immer null zurück.",
            "Les mots de passe expirent après 90 jours ; le jeton d'accès, après 15 minutes.",
            "Never paste the client_secret into tickets; link the vault path instead (secret/data/ci/deploy).",
        ),
    ),
    "tokens-10": (
        "A",
        (
            '"usage": {"prompt_tokens": 1834, "completion_tokens": 212, "total_tokens": 2046}',
            '  "Ġpassword": 9206,\n  "Ġsecret": 8824,\n  "Ġtoken": 11241,',
            'tokenizer.json merges: "Ġpass word", "Ġsec ret", "Ġapi _key"',
        ),
    ),
    "ids-10": (
        "B",
        (
            "2026-05-02T10:14:03Z INFO request_id={u} trace_id={h32} span_id={h16} status=200 dur=41ms",
            "pod/api-{h8}-x7k2p   1/1   Running   0   3h",
            "Build ID: {u}\nArtifact: app-release-{h12}.aab",
            "job_id: {ulid}\nqueue: emails\nattempt: 2/5",
        ),
    ),
    "misc-10": (
        "A",
        (
            "--color-primary: #1e293b;\n--color-accent: #f59e0b;\n--color-danger: #dc2626;",
            "depot at 52.520008, 13.404954; warehouse at -33.868820, 151.209290",
            "ISBN 978-0-13-468599-1, DOI 10.1145/3133956.3134093",
            "FROM python:3.12-slim@sha256:{h64}",
        ),
    ),
    "encrypted-10": (
        "B",
        (
            "$ANSIBLE_VAULT;1.2;AES256;prod\n{vault}",
            "-----BEGIN AGE ENCRYPTED FILE-----\n{b64}\n-----END AGE ENCRYPTED FILE-----",
            "db_password: ENC[AES256_GCM,data:{b64s},iv:{k44},tag:{b64s},type:str]",
        ),
    ),
    "placeholder-10": (
        "A",
        (
            "      - run: ./deploy.sh\n        env:\n          DEPLOY_PASSWORD: ${{ secrets.DEPLOY_PASSWORD }}",
            'export PGPASSWORD="$(op read op://prod/postgres/password)"',
            "# .env.example\nSTRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx\nSMTP_PASSWORD=<your-smtp-password>",
            'db_password: "{{ vault_db_password }}"',
        ),
    ),
    "pubkeys-10": (
        "B",
        (
            "[Peer]\nPublicKey = {k44}\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.acme.dev:51820",
            "untrusted comment: minisign public key {H16}\nRWQ{b64s}{b64s}",
            'gpg: using EDDSA key {H40}\ngpg: Good signature from "Release Bot <release@acme.dev>"',
        ),
    ),
    "mobile-benign-10": (
        "A",
        (
            "<key>CFBundleIdentifier</key>\n\t<string>dev.acme.notes</string>\n\t<key>CFBundleVersion</key>\n\t<string>{h7}</string>",
            "org.gradle.jvmargs=-Xmx4g -Dfile.encoding=UTF-8\nandroid.useAndroidX=true\nkotlin.code.style=official",
            '<meta-data\n    android:name="com.google.android.geo.API_KEY"\n    android:value="${MAPS_API_KEY}" />',
            "Signing certificate SHA-256: {colonhex}:{colonhex}",
        ),
    ),
}


# -- round 11: written blind to the rules, after round 10 (other families, syntaxes and languages) -

_FRESH11_SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "lang-11": (
        "A",
        (
            "Zerbitzariaren pasahitza {s} da, ez bidali posta bidez",
            "Ko te kupuhipa mō te tūmau ko {s}",
            "Iphasiwedi yeseva ithi {s}",
        ),
    ),
    "lang-11b": (
        "B",
        (
            "Ọ̀rọ̀ aṣínà sáfà náà ni {s}",
            "Serveri salasõna on {s}, ära seda kellelegi saada",
            "Furaha sirta ee server-ka waa {s}",
        ),
    ),
    "codeswitch-11": (
        "A",
        (
            "bhai staging ka password {s} hai, kal change kar dena",
            "pre, yung password ng admin ay {s}, wag mo i-share ha",
            "the wifi pw is {s} lah, dun need to ask me again",
        ),
    ),
    "chat-reply-11": (
        "B",
        (
            "[10:02] dana: what's the staging admin pw again?\n[10:03] li: {s}\n[10:03] dana: thx 🙏",
            "> which passphrase did you put on the release key?\n\n{s}, the same one as on the old laptop",
            "Q: root on the jump box?\nA: {s} (only until Friday)",
        ),
    ),
    "archive-cli-11": (
        "A",
        (
            "pulumi config set dbPassword {s}",
            "zip -P {s} -r handover.zip ./exports",
            "7z a -p{s} -mhe=on backup.7z /srv/data",
            "gpg --batch --pinentry-mode loopback --passphrase {s} -d secrets.tar.gpg | tar x",
        ),
    ),
    "svc-cfg-11": (
        "B",
        (
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="ingest" password="{s}";',
            "[inet_http_server]\nport=127.0.0.1:9001\nusername=admin\npassword={s}",
            '$ cat /etc/pgbouncer/userlist.txt\n"app" "{s}"\n"stats" "md5a3f1c8e0b2d94f7e6c5b4a3928170f6e"',
            "replicaof 10.0.0.11 6379\nmasterauth {s}",
        ),
    ),
    "windows-11": (
        "A",
        (
            'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v DefaultPassword /t REG_SZ /d {s} /f',
            "<AutoLogon>\n  <Password>\n    <Value>{s}</Value>\n    <PlainText>true</PlainText>\n  </Password>\n  <Username>kiosk</Username>\n</AutoLogon>",
            'Sheets("Budget").Unprotect Password:="{s}"',
            'do shell script "systemsetup -setremotelogin on" user name "admin" password "{s}" with administrator privileges',
        ),
    ),
    "java-xml-11": (
        "B",
        (
            '<user username="manager" password="{s}" roles="manager-gui,admin-gui"/>',
            '<property name="hibernate.connection.password">{s}</property>',
            '<bean id="ds" class="com.zaxxer.hikari.HikariDataSource">\n  <property name="username" value="app"/>\n  <property name="password" value="{s}"/>\n</bean>',
        ),
    ),
    "dumps-11": (
        "A",
        (
            '$ docker inspect minio --format \'{{json .Config.Env}}\'\n["MINIO_ROOT_USER=admin","MINIO_ROOT_PASSWORD={s}","PATH=/usr/local/sbin:/usr/local/bin"]',
            '"SecretString": "{\\"username\\":\\"app\\",\\"password\\":\\"{s}\\"}",\n"VersionStages": ["AWSCURRENT"]',
            "$ kubectl get secret smtp -o jsonpath='{.data.pass}' | base64 -d\n{s}",
        ),
    ),
    "pairs-11": (
        "B",
        (
            '"urlencoded": [\n  {"key": "username", "value": "qa-bot", "type": "text"},\n  {"key": "password", "value": "{s}", "type": "text"}\n]',
            '"params": [\n  {"name": "login", "value": "qa-bot"},\n  {"name": "pass", "value": "{s}"}\n]',
            'environment = [\n  { name = "SMTP_USER", value = "mailer" },\n  { name = "SMTP_PASS", value = "{s}" },\n]',
        ),
    ),
    "e2e-11": (
        "A",
        (
            "await page.fill('#password', '{s}');\nawait page.click('button[type=submit]');",
            "cy.get('input[name=pw]').type('{s}', { log: false })",
            'driver.find_element(By.ID, "pass").send_keys("{s}")',
        ),
    ),
    "langs-11": (
        "B",
        (
            'conn = LibPQ.Connection("host=db dbname=dw user=analyst password={s}")',
            'let admin_password = "{s}"',
            'let creds = NetworkCredential("svc_report", "{s}")',
            "withEnv(['ARTIFACTORY_PASS={s}']) {\n    sh './gradlew publish'\n}",
        ),
    ),
    "rpc-11": (
        "A",
        (
            'mutation {\n  login(email: "qa@acme.dev", password: "{s}") {\n    token\n  }\n}',
            "grpcurl -H 'x-api-secret: {s}' -d '{\"id\": 7}' api.acme.dev:443 orders.v1.Orders/Get",
            '→ {"op": "auth", "args": ["ws-bot", "{s}"]}\n← {"event": "authenticated"}',
        ),
    ),
    "vcs-11": (
        "B",
        (
            "diff --git a/config/prod.env b/config/prod.env\n--- a/config/prod.env\n+++ b/config/prod.env\n@@ -3 +3 @@\n-MAIL_PASSWORD={s}\n+MAIL_PASSWORD=${MAIL_PASSWORD}",
            "commit 3f9a1c2e\nAuthor: Li <li@acme.dev>\n\n    temp: hardcode the sftp pass ({s}) until vault is back",
            "$ git stash show -p\n-    token: process.env.CMS_TOKEN,\n+    token: '{s}',",
        ),
    ),
    "sched-11": (
        "A",
        (
            "0 3 * * * MYSQL_PWD={s} mysqldump -u backup shop | gzip > /backups/shop.sql.gz",
            '[Service]\nEnvironment="BROKER_PASS={s}"\nExecStart=/usr/local/bin/ingest',
            'config.vm.provision "shell", inline: "echo \'vagrant:{s}\' | chpasswd"',
        ),
    ),
    "prose-odd-11": (
        "B",
        (
            "new admin pw → “{s}” (changed it yesterday)",
            "🔑 {s} 👈 that's unseal key share 2, keep it safe",
            "the kiosk used to take 1234, now it wants {s} before it lets you in",
        ),
    ),
}

_FRESH11_BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "pwhash-11": (
        "A",
        (
            "admin:$2y$10${c53}",
            "$argon2id$v=19$m=65536,t=3,p=4${b64s}${b43}",
            "deploy:$6${c16}${c86}:19876:0:99999:7:::",
        ),
    ),
    "cloudref-11": (
        "B",
        (
            "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db/password-{a6}",
            "DB_PASSWORD=@Microsoft.KeyVault(SecretUri=https://acme-kv.vault.azure.net/secrets/DbPassword/{h32})",
            "gcloud secrets versions access latest --secret=db-password --project=acme-prod",
            "DB_PASSWORD: ref+vault://secret/data/prod/db#/password",
        ),
    ),
    "masked-11": (
        "A",
        (
            "Name:         smtp\nNamespace:    prod\nType:  Opaque\n\nData\n====\npassword:  24 bytes\nusername:  7 bytes",
            "[Pipeline] withCredentials\nMasking supported pattern matches of $NEXUS_PASS\n[Pipeline] sh\n+ curl -u deploy:**** https://nexus.acme.dev/service/rest/v1/status",
            '{"id": 42, "email": "ana@acme.dev", "has_password": true, "password_updated_at": "2026-04-11T09:12:00Z"}',
        ),
    ),
    "sealed-11": (
        "B",
        (
            "kind: SealedSecret\nspec:\n  encryptedData:\n    password: AgB{b64}",
            "<password>{AQAAABAAAAAQ{b64s}{b64s}}</password>",
            "$ cat config/credentials.yml.enc\n{b64}--{b64s}--{b64s}",
        ),
    ),
    "pubdocs-11": (
        "A",
        (
            "slmgr /ipk W269N-WFGWX-YVC9B-4J6C9-T83GX  # Windows Pro KMS client setup key (GVLK) from Microsoft's public list",
            'Sentry.init({ dsn: "https://{h32}@o450123.ingest.sentry.io/6012345", tracesSampleRate: 0.1 });',
            '<script>const stripe = Stripe("pk_live_51{a24}{a24}");</script>',
        ),
    ),
    "guids-11": (
        "B",
        (
            "sgdisk -t 1:C12A7328-F81F-11D2-BA4B-00A0C93EC93B /dev/nvme0n1  # EFI System Partition",
            'HEART_RATE_SERVICE = "0000180d-0000-1000-8000-00805f9b34fb"\nHR_MEASUREMENT = "00002a37-0000-1000-8000-00805f9b34fb"',
            "HKEY_CLASSES_ROOT\\CLSID\\{20D04FE0-3AEA-1069-A2D8-08002B30309D}  (This PC)",
        ),
    ),
    "addrs-11": (
        "A",
        (
            "inet6 2001:db8:85a3::8a2e:370:7334/64 scope global dynamic",
            "#0  0x00007fff{h8} in __pthread_kill_implementation () from /lib/x86_64-linux-gnu/libc.so.6\n#1  0x00005555{h8} in main () at src/main.c:88",
            "$ tpm2_pcrread sha256:0,7\n  sha256:\n    0 : 0x{h64}\n    7 : 0x{h64}",
        ),
    ),
    "game-ids-11": (
        "B",
        (
            "[Server] kicked 76561198{d9} (steamid64) for idling",
            "<@{d18}> pinged in #deploys, message id {d18}",
            "level-seed=-{d18}\nspawn-protection=16\nmax-players=20",
        ),
    ),
    "frontend-11": (
        "A",
        (
            '{"version":3,"sources":["src/app.ts"],"names":["render","state"],"mappings":"AAAA,SAASA,OAAOC,GAAG;AACtB,IAAI,KAAK,EAAE"}',
            'background-image: url("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{b64}");',
            '<script src="/_next/static/{a24}/_buildManifest.js" defer></script>',
        ),
    ),
    "pubjwk-11": (
        "B",
        (
            '{"kty": "EC", "crv": "P-256", "kid": "{h8}", "x": "{b43}", "y": "{b43}", "use": "sig"}',
            '"credentialId": "{b64u}",\n"publicKey": "pQECAyYgASFYI{b64u}",\n"signCount": 12',
            "follow me on nostr: npub1{b32l}",
        ),
    ),
    "pkgbuild-11": (
        "A",
        (
            "/nix/store/{nix32}-python3-3.12.4/bin/python3",
            'http_archive(\n    name = "rules_go",\n    sha256 = "{h64}",\n    urls = ["https://github.com/bazelbuild/rules_go/releases/download/v0.48.0/rules_go-v0.48.0.zip"],\n)',
            '  bottle do\n    sha256 cellar: :any, arm64_sonoma: "{h64}"\n  end',
        ),
    ),
    "names-11": (
        "B",
        (
            "PASSWORD_RESET_TIMEOUT = 259200  # 3 days, in seconds",
            "auth:\n  password_min_length: 14\n  token_ttl: 15m\n  secret_rotation_days: 90",
            "def verify_password(plain: str, hashed: str) -> bool:\n    return pwd_context.verify(plain, hashed)",
            '"passwordless": true, "tokenEndpointAuthMethod": "private_key_jwt"',
        ),
    ),
    "placeholders-11": (
        "A",
        (
            "spring.datasource.password=${DB_PASSWORD:}",
            "password: \"<%= ENV.fetch('DATABASE_PASSWORD') %>\"",
            "password: {{ .Values.postgresql.auth.password | quote }}",
            "password = $__env{GRAFANA_DB_PASS}",
        ),
    ),
    "seeds-11": (
        "B",
        (
            "python train.py --seed 1337 --lr 3e-4 --warmup 2000 --max-steps 200000",
            "X_train, X_test = train_test_split(X, test_size=0.2, random_state=42)",
            "Faker.seed(8675309)\nfake.password(length=12)  # returns a made-up value per test run",
        ),
    ),
    "auth-state-11": (
        "A",
        (
            "$ klist -k /etc/krb5.keytab\nKeytab name: FILE:/etc/krb5.keytab\nKVNO Principal\n---- --------------------------------\n   3 host/web01.acme.dev@ACME.DEV\n   3 HTTP/web01.acme.dev@ACME.DEV",
            "Ticket cache: FILE:/tmp/krb5cc_1000\nDefault principal: li@ACME.DEV\n\nValid starting     Expires            Service principal\n05/02/26 09:12:01  05/02/26 19:12:01  krbtgt/ACME.DEV@ACME.DEV",
            '$ vault token lookup -format=json | jq .data.policies\n[\n  "default",\n  "ci-read"\n]',
        ),
    ),
    "lang-benign-11": (
        "B",
        (
            "Pasahitza ahaztu baduzu, sakatu «Berrezarri» botoia.",
            "Uma ukhohlwe iphasiwedi yakho, chofoza 'Setha kabusha'.",
            "Kua hē te kupuhipa, whakamātauria anō.",
            "Serveri salasõna vahetatakse iga 90 päeva järel; uus saadetakse SMS-iga.",
        ),
    ),
}


def generate() -> tuple[tuple[Generated, ...], tuple[Generated, ...]]:
    """Every generated secret sample and every near-miss, each with its fold."""
    fresh_secrets, fresh_benign = _fresh()
    fresh2_secrets, fresh2_benign = _fresh2()
    fresh3_secrets, fresh3_benign = _round("fresh3", _FRESH3_SECRETS, _FRESH3_BENIGN, 24)
    fresh4_secrets, fresh4_benign = _round("fresh4", _FRESH4_SECRETS, _FRESH4_BENIGN, 22)
    fresh5_secrets, fresh5_benign = _round("fresh5", _FRESH5_SECRETS, _FRESH5_BENIGN, 26)
    fresh6_secrets, fresh6_benign = _round("fresh6", _FRESH6_SECRETS, _FRESH6_BENIGN, 30)
    fresh7_secrets, fresh7_benign = _round("fresh7", _FRESH7_SECRETS, _FRESH7_BENIGN, 28)
    fresh8_secrets, fresh8_benign = _round("fresh8", _FRESH8_SECRETS, _FRESH8_BENIGN, 34)
    freshw_secrets, freshw_benign = _round("freshw", _FRESHW_SECRETS, _FRESHW_BENIGN, 27)
    freshx_secrets, freshx_benign = _round("freshx", _FRESHX_SECRETS, _FRESHX_BENIGN, 25)
    freshy_secrets, freshy_benign = _round("freshy", _FRESHY_SECRETS, _FRESHY_BENIGN, 23)
    freshz_secrets, freshz_benign = _round("freshz", _FRESHZ_SECRETS, _FRESHZ_BENIGN, 29)
    freshu_secrets, freshu_benign = _round("freshu", _FRESHU_SECRETS, _FRESHU_BENIGN, 31)
    freshv_secrets, freshv_benign = _round("freshv", _FRESHV_SECRETS, _FRESHV_BENIGN, 21)
    fresht_secrets, fresht_benign = _round("fresht", _FRESHT_SECRETS, _FRESHT_BENIGN, 33)
    freshr_secrets, freshr_benign = _round("freshr", _FRESHR_SECRETS, _FRESHR_BENIGN, 35)
    fresh9_secrets, fresh9_benign = _round("fresh9", _FRESH9_SECRETS, _FRESH9_BENIGN, 40)
    fresh10_secrets, fresh10_benign = _round("fresh10", _FRESH10_SECRETS, _FRESH10_BENIGN, 37)
    fresh11_secrets, fresh11_benign = _round("fresh11", _FRESH11_SECRETS, _FRESH11_BENIGN, 39)
    # round 12, written blind (secret_round12.py), measured once on rules v8 and v9 before rules v10
    fresh12_secrets, fresh12_benign = _round("fresh12", secret_round12.SECRETS, secret_round12.BENIGN, 32)
    # round 13, written blind with its writer's own values (secret_round13.py), measured once on rules v10
    fresh13_secrets, fresh13_benign = _round("fresh13", secret_round13.SECRETS, secret_round13.BENIGN, 28)
    fresh13_literal = _literal_round("fresh13", secret_round13.LITERAL_SECRETS)
    secrets = (*_stated(), *_sql(), *_otp(), *_sdk(), *_code(), *fresh_secrets, *fresh2_secrets, *fresh3_secrets)
    return (
        *secrets,
        *fresh4_secrets,
        *fresh5_secrets,
        *fresh6_secrets,
        *fresh7_secrets,
        *fresh8_secrets,
        *freshw_secrets,
        *freshx_secrets,
        *freshy_secrets,
        *freshz_secrets,
        *freshu_secrets,
        *freshv_secrets,
        *fresht_secrets,
        *freshr_secrets,
        *fresh9_secrets,
        *fresh10_secrets,
        *fresh11_secrets,
        *fresh12_secrets,
        *fresh13_secrets,
        *fresh13_literal,
    ), (
        *_benign(),
        *fresh_benign,
        *fresh2_benign,
        *fresh3_benign,
        *fresh4_benign,
        *fresh5_benign,
        *fresh6_benign,
        *fresh7_benign,
        *fresh8_benign,
        *freshw_benign,
        *freshx_benign,
        *freshy_benign,
        *freshz_benign,
        *freshu_benign,
        *freshv_benign,
        *fresht_benign,
        *freshr_benign,
        *fresh9_benign,
        *fresh10_benign,
        *fresh11_benign,
        *fresh12_benign,
        *fresh13_benign,
    )
