"""The principles rules v12 read, each on text no generated round holds (round 14, fold A then B):
a wallet's recovery phrase by its count and word shape, a URL that ends at a JSON string's quote, a
name glued to `passphrase`, one case of digits among drawn letters, an ODBC braced value, a quoted
value of symbols with no word, `New value:` below a password's line, an option list's
`password_stdin`, emoji as a password's symbols, titled words and one digit, words in more languages;
and what opens nothing: a password hash wherever a value is read, cookies of plain values, an id's
sigil after its label, a certificate cut short, a listing's ID column, an account at an upper-case
host and its prompt, `nopass`, a `hashed_` name, a later JSON key's own value, a folded signature
header, VBA's `:=`, ids named by their format.
"""

from __future__ import annotations

import pytest
from memory_core.firewall import Firewall

FIREWALL = Firewall()

CAUGHT = {
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

KEPT = {
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


@pytest.mark.parametrize(("text", "secret"), list(CAUGHT.values()), ids=list(CAUGHT))
def test_a_credential_is_caught_by_where_it_stands(text: str, secret: str) -> None:
    scrubbed = FIREWALL.scrub(text).text
    assert secret not in scrubbed, scrubbed
    assert "[REDACTED:" in scrubbed


@pytest.mark.parametrize("text", list(KEPT.values()), ids=list(KEPT))
def test_what_opens_nothing_is_kept_byte_for_byte(text: str) -> None:
    assert FIREWALL.scrub(text).text == text
