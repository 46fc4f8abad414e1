# ruff: noqa: E501, RUF001 - a case is a turn's line (kept on one line), in the script it is written in
"""The principles rules v10 to v15 read, each on text no generated round holds: what each round's
study added, by version.

v10 (round 12's folds A then B): a credential by where it stands (a CLI's `-u USER -p VALUE` pair, a
short name glued into a config key, SNMP's community, a function applied without brackets, a basic-
auth constructor, a declared type before `VALUE`/`DEFAULT`, a commented header over a table, a
directive creating a user), and what is not one (an option that says what its value is, a camelCase
last word, an encrypted envelope's fields, `ENC[<scheme>,...]`, a signature's or MAC's field, a NATS
public key, Arabic written in Latin letters).

v11 (round 13's fold A): a passphrase of words stated with `:` or `is:` (a later word maybe a name,
an aside after it), a PIN of four digits after the word for PIN (or stated by `is`), a SIM's PUK, a
label's clause in any language ending in `:` before capitalised words and a number, a `URL ACCOUNT
PASSWORD` row, a TOTP setup key on the line below its label (its last group shorter), a JSON-escaped
quote inside a value, a raw key given to `openssl enc -K`, HTTPie's `-a user:pass`, what `echo`
pipes into a command that reads a password from stdin or then prompts for one, a browser console's
`<` result below an input naming a token; and what is not one (a name whose last word is a digest's
algorithm: a certificate pin; a copula before the colon: a sentence). Fold B's study: an account and
a value (`root / X`, `admin is now X`, `admin: X`), letters drawn at random by their statistics,
short and diceware values, a keyboard walk, an option named for the password, a `name:`/`value:`
pair, JDBC's connection, `isql`'s operand, IRC's `IDENTIFY`, Redis's `ACL SETUSER`, a saved-login
listing, a captioned file, a keyed UUID given to a client, `&` joining words; kept: code dividing a
path, an annotation, HTML entities, a Markdown body row, a JWE's fields, a sentence's end.

v12 (round 14, fold A then B): a wallet's recovery phrase by its count and word shape, a URL that
ends at a JSON string's quote, a name glued to `passphrase`, one case of digits among drawn letters,
an ODBC braced value, a quoted value of symbols with no word, `New value:` below a password's line,
an option list's `password_stdin`, emoji as a password's symbols, titled words and one digit, words
in more languages; and what opens nothing: a password hash wherever a value is read, cookies of
plain values, an id's sigil after its label, a certificate cut short, a listing's ID column, an
account at an upper-case host and its prompt, `nopass`, a `hashed_` name, a later JSON key's own
value, a folded signature header, VBA's `:=`, ids named by their format.

v13 (round 15, fold A then B): what a password's name is assigned is the password whatever its look
(a quoted literal, a value with a digit or a symbol, a config's bare word: an environment's key, a YAML
or INI line's own key, a DSN's pairs, the second half of `user X / pass Y`, fish's `set -x`), and never
a variable, a type, a reference, a field's kind, a test's role or a documented default; keyboard walks
by the keys' real geometry and a walk down the columns by its look alone; a password stated in any
language's clause of a few words before a chosen-looking value that ends it; one-time codes in groups,
after a clause, from an SMS or an authenticator, a YubiKey's modhex OTP, recovery codes in groups;
SQL's `IDENTIFIED WITH plugin BY`, `ConvertTo-SecureString`, `chpasswd`, Mosquitto's `-P`, `schtasks
/RP`, an `expect` answer to a password prompt, SMTP's base64 `Password:` prompt; kept: a cursor token, a
clause or a JSON type that says public key, a SCRAM verifier, a Markdown body row far below its
separator, a pattern's alternatives, a bang call, an ID label, Go's `--- PASS:`, a Secret's generated
name, an explorer's path, a payment API's object id.

v14 (round 16, fold A then B): a prompt's bracketed current value belongs to its label, a change's arrow
gives the new value too, an env file's capitals, curl's `-u` in a cluster, MinIO's `mc alias set`,
`expect`'s `assword:`, `cred`, two words and a number or a word and a number where a clause states and ends
with them, what a printer that names a password printed, a `.properties` value with its escapes, Oracle's
thin `user/password@`, a label line's lone value, a quoted value after a name in any script, an env key's
quoted phrase, a long option whose last word names the password; kept: a type's name in quotes
(`random_password`), secret stores' schemes, CAPTCHA site keys, a HAR header's value named by its sibling.

v15 (round 17, fold A then B): a quoted value keeps what prose would trim, an argv list's value after an
option named for the password, a URL query's value and an XML-escaped query, dates and phone numbers of six
digits or more, a `.properties` key's word in any case, a hasher's literal (`Hash::make('X')`), an
environment's `*_TOKEN`/`*_SECRET` value with a digit or a symbol, a clause ending at a dash, a subscript's
key and `=>`, `mosquitto_passwd -b`, `lftp -u user,'X'`, a value right after a non-Latin name; kept: a
version after a password's name, a switch's word after `*_SECRET=`, a test's filler hashed, an English name
before a host.
"""

from __future__ import annotations

import pytest
from memory_core.firewall import Firewall

FIREWALL = Firewall()

_CAUGHT_V10 = {
    # (text, the secret it holds)
    "cli-user-password-pair": ("vmctl connect -u operator -p Hv5tRq2mZw9 --host esx01", "Hv5tRq2mZw9"),
    "cli-pair-quoted": ("$ graphcli --user=loader -p 'ember40817' --db sales", "ember40817"),
    "glued-short-name": ("masterpw Yq6tR2wLzK8\nloglevel 256", "Yq6tR2wLzK8"),
    "glued-pwd-assigned": ("adminpwd=Lk9wQ2zRtx", "Lk9wQ2zRtx"),
    "snmp-community": ("set snmp community Rw4tQ9zLm2 authorization read-only", "Rw4tQ9zLm2"),
    "sundanese": ("Kecap aksés na nyaéta kenari8812", "kenari8812"),
    "applied-without-brackets": ('req <- basicAuth "svc-reports" "Vx9qT2mLwK" <$> base', "Vx9qT2mLwK"),
    "basic-constructor": ('let h = Header::Basic("ops", "pelican7731");', "pelican7731"),
    "declared-default": ("  admin_password VARCHAR(64) DEFAULT 'Hq2wZ7pLtM',", "Hq2wZ7pLtM"),
    "commented-header": ("# user  server  password  addresses\nkiosk4  *  Lm7tQ2wRz9  *\n", "Lm7tQ2wRz9"),
    "creator-directive": ('createUser backupsvc MD5 "Jw5tQ9zLm2x" DES', "Jw5tQ9zLm2x"),
    # fold B's study
    "creator-noun-first": ("salt-call postgres.user_create reporter 'Tq8wZ2mLr5'", "Tq8wZ2mLr5"),
    "piped-into-a-secret-store": ("printf 'Rk7tW2qZm9' | docker secret create smtp_pass -", "Rk7tW2qZm9"),
    "keychain-password": ("security create-keychain -p Nq4wT8zLm2 build.keychain", "Nq4wT8zLm2"),
    "authorization-as-pair": ('headers = {"Authorization" => "Bearer walnut40213"}', "walnut40213"),
    "connection-call": ("db = database('ledger', 'etl', 'maple77213', 'org.postgresql.Driver', url);", "maple77213"),
    "shouted-short-name": ("AT+NWKSKEY:Hv5tRq2mZw9\nOK", "Hv5tRq2mZw9"),
    "user-using": ("CONNECT TO LEDGER USER etl USING Qw7tZ2mLp9;", "Qw7tZ2mLp9"),
    "hawaiian": ("\u02bbO ka olelo huna hou: Mq8tRw2zLp", "Mq8tRw2zLp"),
    "label-blank-value": ("Ihr neues Kennwort lautet:\n\nkiesel4471\n\nGrüße", "kiesel4471"),
    "repl-result": ("iex> System.fetch_env!(\"SMTP_PASSWORD\")\nOut[2]: 'Zr7mQ2wLx5'", "Zr7mQ2wLx5"),
}

_KEPT_V10 = {
    "option-owns-its-value": "PS> Get-Credential -UserName 'CORP\\build_07' -Message 'Sign in to the share'",
    "camel-tail-time": "passwordExpirationTime: 20270101000000Z",
    "camel-tail-age": "passwordMaxAge: 5184000",
    "envelope-fields": (
        "secret:\n  encrypted_value: Qm9vR3hZc2xQd2VyVHlVaW9QYXNkZmdoamtsWnhjdg\n"
        "  iv: kT7wQ2zRp9LmXv4B\n  auth_tag: Zp8wQ3rTk9LmVx2N\n"
    ),
    "enc-envelope-gpg": "db_pass: ENC[GPG,hQEMA7sd8Kp2VxTqAQf+Lm9ZpQ2wR7tXk4Vb8NcQmWzY3aHsDfGjKl]",
    "signature-header": (
        "ARC-Seal: i=1; a=rsa-sha256; t=1733390000; cv=none; d=example.org; s=arc;"
        " b=Zp8wQ3rTk9LmVx2NqR7tWz4YbC6dFg8HjK2mNp5QrS7tUv9WxY3zA"
    ),
    "mac-field": "Packet-Authenticator = 0x8a1fd3c27be94e05a6d1c3f9e2b47a61",
    "nats-operator-key": "  Operator:  OCK2PXJ7NGQWTZ5LHDM3FYEAVR6SOB4IKXC2JQ7PLZ5WMEYNUGDA3TKF",
    "arabizi-prose": "el password 3'ayyart, momken te3melo reset?",
    # fold B's study
    "alternatives": "journalctl -u wlan-agent | grep -E 'WPA|PSK|EAPOL'",
    "relative-path": "dotnet user-secrets init --project tools/Seeder",
    "keychain-policy": "security find-certificate -a -p -c 'Developer ID' login.keychain",
    "cipher-label": '  - encrypted: "Zp8wQ3rTk9LmVx2NqR7tWz4YbC6dFg8HjK2mNp5QrS7tUv9WxY3zAbCdE"',
}

_CAUGHT_V11 = {
    # (text, the secret it holds)
    "passphrase-after-is-colon": (
        "the vault passphrase for the build farm is: seven otters juggle Tuesday",
        "seven otters juggle Tuesday",
    ),
    "passphrase-with-aside": ("wifi password: purple monkey dishwasher (no caps)", "purple monkey dishwasher"),
    "pin-four-digits": ("Gate keypad: enter PIN 7093 then hash", "7093"),
    "pin-code-word": ("Le code PIN 25081 de la carte", "25081"),
    "totp-below-label": ("Your authenticator setup key:\nQ3RT 7UVW XYZ2 ABCD EFGH MN", "Q3RT 7UVW XYZ2 ABCD EFGH MN"),
    "json-escaped-quote": ('{"db": {"password": "Qu\\"ote\\\\d-92"}}', 'Qu\\"ote\\\\d-92'),
    "openssl-raw-key": (
        "openssl enc -aes-128-cbc -K 9F2C44A01BD37E5C66A8F0E2D1B3C4A5 -iv 0 -in a -out b",
        "9F2C44A01BD37E5C66A8F0E2D1B3C4A5",
    ),
    "httpie-auth-pair": ("http --auth deploy:otter77120 GET https://api.example.net/me", "otter77120"),
    "piped-pass-on-stdin": ("echo 'heron55120' | vpnclient --user ops --pass-on-stdin gw.corp", "heron55120"),
    "piped-then-prompted": (
        "$ echo 'marble31907' | kdbx-tool open team.kdbx\nEnter password for team.kdbx:\nopened",
        "marble31907",
    ),
    "pin-stated": ("my bank pin is 5530 btw", "5530"),
    "sim-puk": ("SIM card sleeve: PUK 55129034", "55129034"),
    "label-clause-any-language": ("Nenosiri jipya la seva: Simba-Mkali-41", "Simba-Mkali-41"),
    "url-account-password-row": ("webdav https://files.corp.example/dav/ ops otter77120\n", "otter77120"),
    # fold B's study
    "account-slash-value": ("the NAS still has root / tulip44x, please rotate", "tulip44x"),
    "account-is-now": ("qa admin is now  m0nd4y_bl00d  until friday", "m0nd4y_bl00d"),
    "account-label-drawn-letters": ("kiosk admin: QWPLZKRTVBNMXC", "QWPLZKRTVBNMXC"),
    "drawn-letters-assigned": ("WEBHOOK_SECRET=vkqtrpzlmxwbdfhs", "vkqtrpzlmxwbdfhs"),
    "short-assigned": ("ADMIN_PASSWORD=h4x9", "h4x9"),
    "diceware-dots": ("backup passphrase: ferret.cabin.lumen.orbit", "ferret.cabin.lumen.orbit"),
    "option-named-password": ("vaultcli add --name nas --password otter-maple-river-12", "otter-maple-river-12"),
    "keyboard-walk": ("the kiosk password was 1qaz2wsx3edc and still is", "1qaz2wsx3edc"),
    "name-then-value-field": ("env:\n  - name: SMTP_PASSWORD\n    value: Kq7wLz2Rtx9\n", "Kq7wLz2Rtx9"),
    "jdbc-connection": (
        'conn = DriverManager.getConnection("jdbc:pg://db/ledger", "etl", "Vb8qTz2Lmw5");',
        "Vb8qTz2Lmw5",
    ),
    "isql-operand": ("isql -v ledger reporter 'Zq5tW8mLr2'", "Zq5tW8mLr2"),
    "irc-identify": ("/msg NickServ IDENTIFY heron77Qx", "heron77Qx"),
    "redis-acl-setuser": ("ACL SETUSER ingest on >Tz7qW2mLp9 ~q:* +@all", "Tz7qW2mLp9"),
    "saved-logins-listing": ("Saved passwords\nwiki.corp.example    mia    Qp4wLz8Rtx2    (shown)\n", "Qp4wLz8Rtx2"),
    "captioned-file": ("# ~/.config/sync/creds (user, then password)\nmia\nRt6wQz2Lmx9\n", "Rt6wQz2Lmx9"),
    "keyed-uuid-to-client": (
        'flags_client = flagsdk.Config("sdk-0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")',
        "sdk-0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0",
    ),
    "ampersand-joined-words": ("adb shell input text 'Maple204&harbor'", "Maple204&harbor"),
    "console-result-below-token": ("> sessionStorage.getItem('sso.accessToken')\n< 'walrus66102'\n", "walrus66102"),
}

_KEPT_V11 = {
    "certificate-pin": "curl --pinnedpubkey pin-sha256:Vx0nW1qK2m3L4p5R6s7T8u9vWxYzAbCdEfGhIjKlMnO= https://api.example.net",
    "pin-a-version": "pin 2024 of the docs, not the latest",
    "pin-count": "the pin count is 4",
    "password-is-prose": "the password is in the vault behind the door",
    "http-address": "ncat -a 10.0.0.5:8443 --ssl",
    "echo-without-prompt": "$ echo 'build finished' | tee -a log.txt\ndone",
    "copula-then-colon-is-a-sentence": "the password is gone: we moved to passkeys last spring",
    "url-then-words": "git clone https://git.example.net/app.git app build2\n",
    "account-slash-path": "backup = root / offerings_path / name",
    "account-annotation": "    def walk(self, root: ast.AST) -> None:",
    "html-entity": "title = 'Caf&eacute &amp; Bar2&rsquo'",
    "markdown-body-row": (
        "| Variable | Meaning |\n|---|---|\n| `API_TOKEN` | the bot's token |\n| `API_RETRIES` | 3 |\n"
    ),
    "jwe-iv-and-tag": (
        '{"iv": "Qm9vZ2llV29vZ2llMTIz", "ciphertext": "c2VjcmV0IHN0dWZmIGdvZXMgaGVyZSBhbmQgbW9yZQ",'
        ' "tag": "dGFnVGFnVGFnVGFnMTIzNA"}'
    ),
    "sentence-before-colon": "to skip it pass an empty list. Note: the list is not copied",
    "clause-with-copula": "the password is gone: we moved to passkeys last spring",
    "console-result-without-name": "> document.title\n< 'Dashboard 2024'\n",
}

_CAUGHT_V12 = {
    # (text, the secret it holds)
    "recovery-phrase-quoted": (
        'WALLET_SEED="gravel honey sunset piano lumber cradle fossil window tiger ramp velvet oyster"',
        "gravel honey sunset piano lumber cradle fossil window tiger ramp velvet oyster",
    ),
    "recovery-phrase-in-rows": (
        "Your seed, write it down:\n\nmaple orbit crane fiber\nsolid hover quartz lemon\nbishop tundra "
        "walnut ember\n\nNever share it.",
        "maple orbit crane fiber\nsolid hover quartz lemon\nbishop tundra walnut ember",
    ),
    "url-ends-at-quote": (
        '{"source":"mysql://db:3306/app","source.password":"Fj29xkPq7LmZ"}',
        "Fj29xkPq7LmZ",
    ),
    "glued-passphrase": ("rpc> keystorepassphrase 'Ow7hBqzVnK3p' 300", "Ow7hBqzVnK3p"),
    "drawn-alnum-token": ("agent --token k3p9qz.x7vbn2wqrtplmzh8", "k3p9qz.x7vbn2wqrtplmzh8"),
    "odbc-braced": ("Server=db9;Uid=etl;Pwd={zQ8;w}}v=Lp4};Encrypt=yes;", "zQ8;w}}v=Lp4"),
    "quoted-symbols": ('mail:\n  password: "]3kV, #m:Zq}9"', "]3kV, #m:Zq}9"),
    "new-value-below": ("Password for user [ops] was reset.\nNew value: Tq7!mZ2vR_pL9w", "Tq7!mZ2vR_pL9w"),
    "password-stdin-option": ("echo 'RvX9qmTz4Lk' | mountfs u@h:/d /m -o ro,password_stdin", "RvX9qmTz4Lk"),
    "emoji-symbols": ('KIOSK_PASSWORD="🌵desert7walk🌵"', "desert7walk"),
    "titled-one-digit": ("New hire password: Maple-Heron-3 (change on first login)", "Maple-Heron-3"),
    "sorbian": ("Hesło za router je tukan88214, nikomu njepraj", "tukan88214"),
    "javanese": ("Tembung sandhi wifi kantor: Borobudur.Sore.21", "Borobudur.Sore.21"),
}

_KEPT_V12 = {
    "htpasswd-hash": "$ cat /srv/.htpasswd\nweb:$apr1$Zx81kQp0$R3v0lT5bEk9qWmN2aPzLd1\n",
    "cookie-preferences": "Set-Cookie: currency=EUR; Path=/; SameSite=Strict\nCookie: tz=3600; ui=compact",
    "cookie-analytics": "Cookie: _gid=GA1.2.998877665.1700000000; consent=%7B%22ads%22%3Afalse%7D",
    "cookie-options-object": "  cookie: { secure: true, maxAge: 3600000 },",
    "id-sigil": "channel_id: !Rq8TzLk2VbNm4XpW9cYd:chat.example.org",
    "certificate-cut-short": (
        "$ head -2 /etc/ssl/root.pem\n-----BEGIN CERTIFICATE-----\nMIIFazCCA1OgAwIBAgIRAIIQz7DSQONZRGPgu2OCiwAw\n"
    ),
    "id-column": ("CONTAINER ID   IMAGE   STATUS\nQm7XkP2vRt9LwZ4nB8cY1aHdE5fG   nginx   Up\n"),
    "prompt-at-upper-host": "ops@NAS-01:~$ ls -la /volume1",
    "wifi-open": "WIFI:S:Cafe-Guest;T:nopass;;",
    "hashed-name": '{"name": "Secret Keyword", "hashed_secret": "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"}',
    "folded-signature": (
        "ARC-Message-Signature: i=1; a=rsa-sha256; d=example.org;\n\tbh=Qm9vZ2llV29vZ2llMTIzcXdlcnR5dWlvcGFzZGZn;\n"
    ),
    "vba-named-argument": 'secret = InputBox("Secret for the ledger:", Title:=3)',
    "id-named-by-format": "ulid: 01HF8ZQ3VXKZ8Y7T6M5N4B3A2C and ksuid: 2QbZ4VuhhOWPkZ1ee89s6bxwXyz",
    "one-word-a-line": "keywords = '''\n"
    + "\n".join(("alpha", "bravo", "charlie", "delta", "echo", "foxtrot"))
    + "\ngolf\nhotel\nindia\njuliet\nkilo\nlima\n'''",
    "fstring-braces": 'print(f"password={password!r}")',
}

_CAUGHT_V13 = {
    "env-key-word": ("PGPASSWORD=lagerhaus psql -h db.internal -U report", "lagerhaus"),
    "yaml-key-word": ("db:\n  password: gulasch\n  user: shop", "gulasch"),
    "quoted-words-joined": ("options: { host: 'h', password: 'sunflower-Taco-2', db: 2 }", "sunflower-Taco-2"),
    "quoted-kwarg-word": ("r = redis.Redis(host='10.0.3.9', password='ohmygod')", "ohmygod"),
    "quoted-any-symbol": ('val adminPass = "Preis\\$9,99-Rabatt"', "Preis\\$9,99-Rabatt"),
    "dsn-pairs": ("dsn: host=db user=ledger password=lagerhaus dbname=ledger", "lagerhaus"),
    "account-pair": ("mqtt for the greenhouse: user esp / pass tomato", "tomato"),
    "fish-set": ("~> set -x PGPASSWORD kirschbaum\n~> psql -h db.lab", "kirschbaum"),
    "spaced-quoted": ("nmcli dev wifi connect Lab password 'oscilloscope-42-x'", "oscilloscope-42-x"),
    "quoted-argument": ("curl -d grant_type=password -d 'password=Morgen Rot 44' https://auth", "Morgen Rot 44"),
    "walk-columns-look-alone": ("VNC for the lab box: 5tgb6yhn", "5tgb6yhn"),
    "walk-shifted": ("the jump host wants !QAZ2wsx again", "!QAZ2wsx"),
    "clause-any-language": ("Nové heslo do adminu je knedlik-se-zelim-5, změň si ho", "knedlik-se-zelim-5"),
    "clause-greek": ("Ο νέος κωδικός για το Grafana είναι Pagoto_Fraoula7, άλλαξέ τον", "Pagoto_Fraoula7"),
    "four-words-joined": (
        "backup archive password is mamaliga_cu_branza_si_smantana",
        "mamaliga_cu_branza_si_smantana",
    ),
    "code-in-groups": ("Your verification code is: 905-341", "905-341"),
    "code-after-clause": ("here's the code from the SMS so you can log in: 284 617", "284 617"),
    "short-code": ("Steam Guard code for the build account: R7K2D", "R7K2D"),
    "recovery-groups-below": ("Your recovery code:\nQ7KG M2XR 9PLT 4WNB YC8H 3JDV F6A1 ZE5U\n", "Q7KG M2XR 9PLT"),
    "yubikey-otp": (
        "oops: cccjgjgkhcbbirdrfdnlnghhfgrtnnlgedjlftrbdeut",
        "cccjgjgkhcbbirdrfdnlnghhfgrtnnlgedjlftrbdeut",
    ),
    "sql-identified-with": (
        "CREATE USER etl IDENTIFIED WITH sha256_password BY 'Ausweis-Fluss-93';",
        "Ausweis-Fluss-93",
    ),
    "sql-identified-by-word": ("ALTER USER 'app'@'%' IDENTIFIED BY 'gulasch';", "gulasch"),
    "securestring": ("ConvertTo-SecureString 'Ostsee.Welle.9' -AsPlainText -Force", "Ostsee.Welle.9"),
    "chpasswd": ("echo 'root:Zitronen-Falter-3' | chpasswd", "Zitronen-Falter-3"),
    "mosquitto": ("mosquitto_pub -h broker -u iot -P bluegecko88 -t x -m 1", "bluegecko88"),
    "schtasks": ("schtasks /Create /TN Export /RU ACME\\svc /RP Mond-Licht-61", "Mond-Licht-61"),
    "expect-send": ('expect "password:"\nsend "Leuchtturm77\\r"', "Leuchtturm77"),
    "smtp-auth-login": (
        "AUTH LOGIN\n334 VXNlcm5hbWU6\nYWxlcnRz\n334 UGFzc3dvcmQ6\nR2V3aXR0ZXItNzc=\n235 ok",
        "R2V3aXR0ZXItNzc=",
    ),
}
_KEPT_V13 = {
    "typed-field": "class Login(BaseModel):\n    password: str\n    token: SecretStr",
    "kwarg-variable": "conn = psycopg.connect(host=host, user=user, password=redis_pass)",
    "object-variable": "const opts = {\n  user: dbUser,\n  password: dbPassword,\n}",
    "assigned-variable": "    password = candidate.strip()",
    "dotted-reference": "ssh_password = var.ssh_password",
    "field-kind": "auth:\n  method: password\n  password: required",
    "documented-default": "POSTGRES_PASSWORD: example",
    "test-role": 'client.post("/login", json={"user": "alice", "password": "wrong"})',
    "label-translation": '{"password": "Пароль", "password_hint": "Не менее 8 символов"}',
    "validation-message": '{"password": ["Ensure this field has at least 8 characters."]}',
    "prompt-prose": "C:\\> set /p DB_PASS=Enter DB password: ",
    "constant-name": "       IF WS-INPUT-PASS = SPACES",
    "host-after-preposition": "the password for redis-master-0 is in the vault",
    "host-in-prose": "I changed the password yesterday and rotated web-app-3 keys",
    "secret-names-a-store": "helm upgrade api ./chart --set auth.existingSecret=api-db",
    "k8s-secret-name": "API_TOKEN:  <set to the key 'token' in secret 'api-keys-7g2m9tb4kc'>  Optional: false",
    "keyboard-row": "keyboard test strings: qwertyuiop asdfghjkl zxcvbnm",
    "cursor-token": "GET /v1/orders?page_token=Hh-nCboff2kmF31IUEcv4KJG7k9JxcnFyAokncUQHYKTaAb_CubXINQ_bvCR",
    "scram-verifier": " app | SCRAM-SHA-256$4096:s1O4v89OCMGlSyXLl/PXBuIpVOr/DF/hVIbuzlVn6jI=$da19NhaVjm4A4ytE8Z2b6cl6EOO/o0WXCZBNS4UpOGA=:atVrndwFfb16YlBa6qch+3xvpbGe7W8pmrAXGlcL9TY=",
    "public-key-clause": "signify public key for releases: RWRCSwAAAALmcGrnpf1xRwq4B7qK-Biyif1R9Tto08ym88JZI4iqM",
    "public-key-type": '"pub_key": {\n  "type": "tendermint/PubKeyEd25519",\n  "value": "CN4s0h4B+Vveh//IeIUAwXWUsxW0AZBszPrOx1UMvCM="\n}',
    "pattern-alternatives": "printenv | cut -d= -f1 | grep -E 'KEY|TOKEN|SECRET|PASS'",
    "markdown-body-far-below": "| Name | Description |\n|---------------------|--------------------------------------|\n"
    + "| `DB_PASSWORD`       | password of the `app` database user  |\n| `JWT_SIGNING_KEY`   | 32 random bytes, base64"
    + "              |\n| `SMTP_HOST`         | the relay                            |",
    "bang-call": 'password: System.fetch_env!("DB_PASSWORD"),',
    "id-label": "BitLocker: Recovery key ID 6E5441A8-2CC8-3599-46F2-FFE710179E7F is backed up",
    "go-verdict": "    --- PASS: TestLedger/fixture_638e647e (0.00s)",
    "explorer-path": "https://explorer.solana.com/address/Qmz3PK4LCn2LdaWVUXgmfgWNRuhrvpDbevR2BhMu?cluster=devnet",
    "tezos-address": "Tezos baker address tz1cHwAPjURNXUF1vFdkSQauBQOZozeU9, fee 8%",
    "object-id": '    return "ord_test_Qe9gZEjaPqRwyH"',
    "plugin-no-password": "CREATE USER app IDENTIFIED WITH caching_sha2_password;",
    "irc-bare-is-not-go": "NICK liwei",
}

_CAUGHT_V14 = {
    "prompt-default": (
        "AWS Secret Access Key [None]: Yd+6Vuy9aVKX\nDefault region name [None]: eu-west-1",
        "Yd+6Vuy9aVKX",
    ),
    "change-arrow": ('      ~ password = "marmota2022" -> "marmota2023"', "marmota2023"),
    "env-capitals": ("RABBITMQ_DEFAULT_USER=shop\nRABBITMQ_DEFAULT_PASS=LIVERPOOL", "LIVERPOOL"),
    "curl-cluster": ("$ curl -su ops:kaktus77 https://jenkins.acme.dev/job/", "kaktus77"),
    "mc-alias": ("$ mc alias set nas http://10.0.0.5:9000 minio reykjavik", "reykjavik"),
    "expect-tail": ('expect -c \'spawn ssh a@h; expect "assword:"; send "Lofoten-Kyst3\\r"\'', "Lofoten-Kyst3"),
    "cred-key": ("LDAP_BIND_CRED=vikingskip", "vikingskip"),
    "clause-two-words": ("স্টেজিং সার্ভারের পাসওয়ার্ড হলো ilish-maach-7, লগইন করো", "ilish-maach-7"),
    "clause-word-number": ("Kata laluan pangkalan data ujian ialah nasilemak88, tolong semak", "nasilemak88"),
    "printer-names-password": (
        "$ kubectl get secret x -o jsonpath='{.data.password}' | base64 -d; echo\nruokala",
        "ruokala",
    ),
    "pass-show": ("$ pass show email/noreply\nIkeja-Market-44\nsmtp: smtp.acme.ng:587", "Ikeja-Market-44"),
    "properties-escapes": ("spring.datasource.password=ab\\=cd\\:ef\\\\gh#1\nspring.x=y", "ab\\=cd\\:ef"),
    "oracle-thin": ("jdbc:oracle:thin:scott/tiger99x@//ora01.acme.lan:1521/ORCLPDB", "tiger99x"),
    "label-line": ("Network  ACME-Guest\nPassword kavarna-Presern-7\nShow password [x]", "kavarna-Presern-7"),
    "quoted-any-script": ("스테이징 DB 비밀번호 '한강라면2024!' 로 바꿨어요", "한강라면2024!"),
    "env-phrase": ('ADMIN_PASSPHRASE="the owl flies at midnight over Riga"', "the owl flies at midnight"),
    "long-option-tail": (
        "> node seed.js --admin-email a@acme.dev --admin-pass Zagorje-Kajkavski3",
        "Zagorje-Kajkavski3",
    ),
}
_KEPT_V14 = {
    "type-in-quotes": '  + resource "random_password" "grafana_admin" {',
    "secret-store-scheme": "smtp_password: ssm:/prod/shop/smtp_password",
    "captcha-site-key": '<div class="g-recaptcha" data-sitekey="6Lcs1YILVUzhb3D0whJFkUATUC1AAAAr1Jz76wR9IrTRC"></div>',
    "captcha-env": "HCAPTCHA_SITEKEY=52509320-35d5-49a8-a4a1-c1928db0b5f5",
    "har-header": '{ "name": "x-amz-id-2", "value": "JkZeqLQ3xG44NoWAKLa7t6Ep" }',
    "title-line": "Password reset\nEnter your email below",
    "verb-pass": "The category filter returns nothing when I pass 'Groceries'.",
    "hash-name": "we hash the password with sha256 now, not md5",
    "hint-phrase": 'PASSWORD_HINT="must be 12 characters"',
}

_CAUGHT_V15 = {
    "quoted-keeps-bang": ("  u.password = 'Chocolate!'", "Chocolate"),
    "argv-list": ('"args": ["--db-pass", "Lemonade"]', "Lemonade"),
    "xml-query": ("<jdbc-url>jdbc:postgresql://db:5432/o?user=ro&amp;password=ottersleep</jdbc-url>", "ottersleep"),
    "date-password": ('{"host": "box", "username": "rita", "password": "17-03-1988"}', "17-03-1988"),
    "properties-word": ("spring.datasource.password=Peppermint\nspring.x=y", "Peppermint"),
    "hasher-literal": ("    'password' => Hash::make('Kangaroo2'),", "Kangaroo2"),
    "env-token": ("NPM_TOKEN=ember47607\nNPM_CONFIG_REGISTRY=https://npm.internal/", "ember47607"),
    "clause-dash": ("It wachtwurd fan de testserver is Fryslan-boppe-1 — net trochjaan", "Fryslan-boppe-1"),
    "subscript-key": ("default['app']['smtp']['password'] = 'Gingerbread'", "Gingerbread"),
    "hash-rocket": ("class { 'rabbitmq':\n  default_pass => 'Popcorn-Tuesday',\n}", "Popcorn-Tuesday"),
    "mosquitto-passwd": ("$ mosquitto_passwd -b /etc/mosquitto/passwd sensor7 'Garden Gnome 5'", "Garden Gnome 5"),
    "lftp-pair": ("$ lftp -u drop,'semi;colon;life' sftp://files.partner", "semi;colon;life"),
    "value-then-end": ("టెస్ట్ సర్వర్ పాస్\u200cవర్డ్ Biryani_Hyd_91, ఎవరికీ చెప్పకండి.", "Biryani_Hyd_91"),
}
_KEPT_V15 = {
    "module-version": "pty: 3.0-\npwd: 3.0-\npy_compile: 3.0-",
    "switch-word": "CACHE_SECRET=enabled",
    "test-filler-hashed": 'user = user_factory(password=make_password("x" * 12))',
    "host-after-name": "reset the password web-app-3 later",
    "xml-link-named-reset": '<a href="https://x.example/login?next=/a&amp;password_reset=1">reset</a>',
}

CAUGHT = {
    f"v{v}-{name}": case
    for v, table in (
        (10, _CAUGHT_V10),
        (11, _CAUGHT_V11),
        (12, _CAUGHT_V12),
        (13, _CAUGHT_V13),
        (14, _CAUGHT_V14),
        (15, _CAUGHT_V15),
    )
    for name, case in table.items()
}
KEPT = {
    f"v{v}-{name}": text
    for v, table in (
        (10, _KEPT_V10),
        (11, _KEPT_V11),
        (12, _KEPT_V12),
        (13, _KEPT_V13),
        (14, _KEPT_V14),
        (15, _KEPT_V15),
    )
    for name, text in table.items()
}


@pytest.mark.parametrize(("text", "secret"), list(CAUGHT.values()), ids=list(CAUGHT))
def test_a_credential_is_caught_by_where_it_stands(text: str, secret: str) -> None:
    scrubbed = FIREWALL.scrub(text).text
    assert secret not in scrubbed, scrubbed
    assert "[REDACTED:" in scrubbed


@pytest.mark.parametrize("text", list(KEPT.values()), ids=list(KEPT))
def test_what_opens_nothing_is_kept_byte_for_byte(text: str) -> None:
    assert FIREWALL.scrub(text).text == text
