"""The principles rules v11 read, each on text no generated round holds (round 13's fold A): a
passphrase of words stated with `:` or `is:` (a later word maybe a name, an aside after it), a PIN
of four digits after the word for PIN (or stated by `is`), a SIM's PUK, a label's clause in any
language ending in `:` before capitalised words and a number, a `URL ACCOUNT PASSWORD` row, a TOTP
setup key on the line below its label (its last group shorter), a JSON-escaped quote inside a
value, a raw key given to `openssl enc -K`, HTTPie's `-a user:pass`, what `echo` pipes into a
command that reads a password from stdin or then prompts for one, a browser console's `<` result
below an input naming a token; and what is not one (a name whose last word is a digest's
algorithm: a certificate pin; a copula before the colon: a sentence). Fold B's study: an account
and a value (`root / X`, `admin is now X`, `admin: X`), letters drawn at random by their statistics,
short and diceware values, a keyboard walk, an option named for the password, a `name:`/`value:`
pair, JDBC's connection, `isql`'s operand, IRC's `IDENTIFY`, Redis's `ACL SETUSER`, a saved-login
listing, a captioned file, a keyed UUID given to a client, `&` joining words; kept: code dividing a
path, an annotation, HTML entities, a Markdown body row, a JWE's fields, a sentence's end.
"""

from __future__ import annotations

import pytest
from memory_core.firewall import Firewall

FIREWALL = Firewall()

CAUGHT = {
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

KEPT = {
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


@pytest.mark.parametrize(("text", "secret"), list(CAUGHT.values()), ids=list(CAUGHT))
def test_a_credential_is_caught_by_where_it_stands(text: str, secret: str) -> None:
    scrubbed = FIREWALL.scrub(text).text
    assert secret not in scrubbed, scrubbed
    assert "[REDACTED:" in scrubbed


@pytest.mark.parametrize("text", list(KEPT.values()), ids=list(KEPT))
def test_what_opens_nothing_is_kept_byte_for_byte(text: str) -> None:
    assert FIREWALL.scrub(text).text == text
