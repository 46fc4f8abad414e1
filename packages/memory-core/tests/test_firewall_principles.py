"""The principles rules v7 and v8 read, each on text no generated round holds: a credential by where it
stands (an HTTP authorization of any scheme, `user:password@host` in any string, a value stated
before its noun, an option list, a signer's literal, a name attribute's sibling value, a typed
declaration, a CSV column), and public material by what it is (DNS records, addresses and
content addresses, certificates and ciphertext, PKCE challenges, standards' test vectors, masks).
"""

from __future__ import annotations

import re

import pytest
from memory_core.firewall import Firewall
from memory_testing.secret_corpus import BENIGN, SECRETS
from memory_testing.secret_generators import generate

FIREWALL = Firewall()

CAUGHT = {
    # (text, the secret it holds)
    "auth-any-scheme": ('curl -H "Authorization: GenieKey 7Hq2-xL9wQ-Zp4k" https://api.example.net', "7Hq2-xL9wQ-Zp4k"),
    "auth-custom-scheme": ("Authorization: Acme-HMAC kT8#vQ2mZ9pL", "kT8#vQ2mZ9pL"),
    "dsn-userinfo": ('dsn := "svc:Rw7!zQ2pLm@tcp(10.1.2.3:3306)/orders"', "Rw7!zQ2pLm"),
    "jdbc-userinfo": ("connect to reporter:Gh5%tY8wQz@warehouse.internal:5432 first", "Gh5%tY8wQz"),
    "value-before-noun": ("Kp9-trQ2xW7 is now the admin password for the NAS", "Kp9-trQ2xW7"),
    "value-before-noun-de": ("Zq8!mW3rTy ist das neue Passwort für den Router", "Zq8!mW3rTy"),
    "value-at-the-prompt": ("type Vn4#pQ8zLw at the login prompt and wait", "Vn4#pQ8zLw"),
    "user-then-p": ("user=deploy p=Tz7$wq2Lm9 (rotate monthly)", "Tz7$wq2Lm9"),
    "option-list": ("-o domain=corp,user=bk,password=Wm2!xq9Rt,uid=1000", "Wm2!xq9Rt"),
    "signer": ("token = jwt.encode(claims, 'Yp4&kR8wQz2', algorithm='HS256')", "Yp4&kR8wQz2"),
    "erlang-cookie": ("iex --sname a --cookie Hx7!pQ2mWz -S mix", "Hx7!pQ2mWz"),
    "expect-same-line": ('expect -c \'expect "Password:"; send "Bq9#zW4pLx\\r"\'', "Bq9#zW4pLx"),
    "name-attribute": ('<add key="SmtpPassword" value="Jr6!tW2qXz" />', "Jr6!tW2qXz"),
    "typed-declaration": ('let db_password: &str = "Lq3$wZ8pRt";', "Lq3$wZ8pRt"),
    "csv-column": ("login,api_token\nci-bot,Nq7tR2wXz9Lp4Vb\n", "Nq7tR2wXz9Lp4Vb"),
    "url-fragment": ("https://app.example.net/cb#id_token=x&access_token=Wq8zR3tLp9Xm", "Wq8zR3tLp9Xm"),
    "query-k": ("curl 'https://api.example.net/v2/geo?q=oslo&k=Tq7wR2zLp9' | jq .", "Tq7wR2zLp9"),
    "standard-named-only": ("OAuth 2.0 (RFC 6749) client_secret: Zq8mW3rTyLp4Vb7N", "Zq8mW3rTyLp4Vb7N"),
    "algorithm-identifier": ('RSA_KEY = "Zq8mW3rTyLp4Vb7NxK2c"', "Zq8mW3rTyLp4Vb7NxK2c"),
    "certificate-password-tag": ("<KeyInfo><CertificatePassword>Hq7!zW2pLm9</CertificatePassword>", "Hq7!zW2pLm9"),
    "told-lifecycle": ("the wifi is the old one, kestrel2031, but reset it after the visit", "kestrel2031"),
    # v8 (round 11's causes, on other text)
    "nested-element": ("<Credentials>\n  <Password>\n    <Value>Tq7!wR2zLp9</Value>\n  </Password>", "Tq7!wR2zLp9"),
    "typed-into-field": ('await page.locator("#password").fill("Wm3$xq8Rtz")', "Wm3$xq8Rtz"),
    "operation-args": ('{"method": "login", "params": ["ops", "Xk9fj2Lq7Zp"]}', "Xk9fj2Lq7Zp"),
    "chpasswd": ("echo 'deploy:Rv5#nq8Lzt' | sudo chpasswd", "Rv5#nq8Lzt"),
    "question-reply": ("[09:14] sam: what's the wifi password at the office?\n[09:15] kai: Pq8!zL2wRt\n", "Pq8!zL2wRt"),
    "account-question": ("Q: admin on the NAS?\nA: Lm4#tq9Wzx (rotating Monday)", "Lm4#tq9Wzx"),
    "stated-that-is": ("Zr7-kq2Wtp <- that's the root token, don't paste it", "Zr7-kq2Wtp"),
    "lock-asks": ("the door panel now takes Hb6tq2Wz9L to let you in", "Hb6tq2Wz9L"),
    "pgbouncer-userlist": ('# /etc/pgbouncer/userlist.txt\n"reporting" "Qz4!wr8Ltm"\n', "Qz4!wr8Ltm"),
    "legacy-dsn-secret": ("dsn = 'https://0a1b2c3d4e5f:Vq8mW3rTyLp4Vb7N@sentry.example.net/7'", "Vq8mW3rTyLp4Vb7N"),
}

KEPT = {
    "dns-txt": '_dmarc.example.net. 300 IN TXT "v=DMARC1; p=reject; rua=mailto:d@example.net; k9Zq7Tw2XpLm4Rb8Vn3"',
    "dns-lookup-output": '$ dig +short TXT example.net\n"keybase-site-verification=Zq8mW3rTyLp4Vb7Nx2Kc9"',
    "eth-address": "send it to 0x52908400098527886E0F7030069857D2E4169EE7 after the audit",
    "ipfs-cid": "pinned bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi on the gateway",
    "public-name": "const FCM_PUBLIC_KEY = 'BNq7tR2wXz9Lp4VbK8mQ3sY6dH1fJ5gC0eA';",
    "certificate-element": "<X509Certificate>MIIC9zCCAd+gAwIBAgIJAKq7tR2wXz9LMA0GCSqGSIb3</X509Certificate>",
    "pkce": "GET /authorize?client_id=cli&code_challenge=Nq7tR2wXz9Lp4VbK8mQ3sY6dH1fJ5g&code_challenge_method=S256",
    "masked": 'Parameters: {"password"=>"[FILTERED]", "otp"=>"[FILTERED]"}',
    "masked-bullets": "redis://default:●●●●●●●●@cache.internal:6379",
    "test-vector": "RFC 4231 test case 1: key 0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
    "counting-key": "AES-128 known answer, key 0f0e0d0c0b0a09080706050403020100, expected 8ea2b7ca",
    "ciphertext-block": (
        "-----BEGIN PGP MESSAGE-----\nhQEMA9Zq8mW3rTyLp4Vb7Nx2Kc9Qz1Wr5Tp8Lm3Xv6Bn0Ys4\n-----END PGP MESSAGE-----"
    ),
    "public-above": "Here is the signing public key:\nRWQ9Zq8mW3rTyLp4Vb7Nx2Kc9Qz1Wr5Tp8Lm3Xv6Bn0Ys4",
    "algorithm-key": "gpg: using RSA key 4AEE18F83AFDEB23C0B4D3E8A1F52F4B7B1A2C3D",
    "callee": "applicationServerKey: urlB64ToUint8Array(FCM_PUBLIC_KEY),",
    "mailto-pair": "mailto:ops@example.net or nginx:stable@sha256 digests",
    "told-version": "we bumped the pin, lodash4.17.21, and will rotate it again in May",
    "query-k-count": "GET /search?q=shoes&k=20&page=2",
    # v8: one-way hashes, public keys by design, resources, digests, ciphertext by envelope or place
    "bcrypt-hash": "UPDATE users SET pw = '$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBLqquzi.Ss7KIUgO2t0jWMUW' WHERE id = 1;",
    "argon2-hash": "$argon2i$v=19$m=4096,t=3,p=1$c29tZXNhbHQxMjM0$iWh06vD8Fy27wf9npn6FXWiCX4K6pW6Ue1Bnzz07Z8A",
    "sha512-crypt": "ops:$6$rounds=5000$Xq8mW3rTyLp4$Zq8mW3rTyLp4Vb7NxK2c9Qz1Wr5Tp8Lm3Xv6Bn0Ys4:19000:0:99999:7::",
    "publishable-key": 'loadStripe("pk_test_51Hq7tR2wXz9Lp4VbK8mQ3sY6dH1fJ5gC0eA")',
    "dsn-public-key": 'Sentry.init({ dsn: "https://4c9e8d7c6b5a49f82716a51423b24150@o99.ingest.us.sentry.io/42" })',
    "site-path-id": '<link rel="modulepreload" href="/_app/immutable/Xq8mW3rTyLp4Vb7NxK2c9/start.js">',
    "digest-heading": "  sha256:\n    4 : 0x9f2c4e6a8b0d1f3e5c7a9b1d3f5e7c9a0b2d4f6e8a1c3e5b7d9f0a2c4e6b8d0f\n",
    "sealed-secret": "spec:\n  encryptedData:\n    api_token: AgCq7tR2wXz9Lp4VbK8mQ3sY6dH1fJ5gC0eAq7tR2wXz9Lp4VbK8\n",
    "jenkins-envelope": "<secret>{AQAAABAAAAAgZq8mW3rTyLp4Vb7NxK2c9Qz1Wr5Tp8Lm3Xv6Bn0Ys4=}</secret>",
    "printed-encrypted": "$ cat config/master.yml.enc\nZq8mW3rTyLp4Vb7NxK2c9Qz1W--Lm3Xv6Bn0Ys4q7tR2--wXz9L==",
    "arn-secret": "--secret-id arn:aws:secretsmanager:us-east-1:111122223333:secret:ci/npm-token-AbCdEf",
    "camel-id": '"signingKeyId": "Zq8mW3rTyLp4Vb7NxK2c9Qz1"',
}


@pytest.mark.parametrize(("text", "secret"), CAUGHT.values(), ids=CAUGHT.keys())
def test_a_credential_is_caught_by_where_it_stands(text: str, secret: str) -> None:
    result = FIREWALL.scrub(text)

    assert secret not in result.text
    assert FIREWALL.scrub(result.text).text == result.text


@pytest.mark.parametrize("text", KEPT.values(), ids=KEPT.keys())
def test_public_and_masked_material_is_kept_byte_for_byte(text: str) -> None:
    assert FIREWALL.scrub(text).text == text


_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_MARKER = re.compile(r"\[REDACTED:[a-z0-9\-]+\]")


def _unbalanced(text: str) -> int:
    """How many closing brackets stand without their opener, markers aside."""
    stack: list[str] = []
    orphans = 0
    for char in _MARKER.sub("", text):
        if char in _BRACKETS:
            stack.append(_BRACKETS[char])
        elif char in _BRACKETS.values():
            if stack and stack[-1] == char:
                stack.pop()
            else:
                orphans += 1
    return orphans


def test_no_redaction_leaves_a_closing_bracket_without_its_opener() -> None:
    # A redaction takes a value whole: it never takes the opener and leaves the closer (Rails'
    # `"[FILTERED]"` once became `"[REDACTED:credential]]"`).
    samples = [s.text for s in SECRETS + BENIGN] + [g.sample.text for part in generate() for g in part]
    worse = [text for text in samples if _unbalanced(FIREWALL.scrub(text).text) > _unbalanced(text)]

    assert worse == []
