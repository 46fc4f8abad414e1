"""The principles rules v7 read, each on text no generated round holds: a credential by where it
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
