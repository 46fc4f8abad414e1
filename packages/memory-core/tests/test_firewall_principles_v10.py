"""The principles rules v10 read, each on text no generated round holds (round 12's folds A then B):
a credential by where it stands (a CLI's `-u USER -p VALUE` pair, a short name glued into a
config key, SNMP's community, a function applied without brackets, a basic-auth constructor, a
declared type before `VALUE`/`DEFAULT`, a commented header over a table, a directive creating a
user), and what is not one (an option that says what its value is, a camelCase last word, an
encrypted envelope's fields, `ENC[<scheme>,...]`, a signature's or MAC's field, a NATS public key,
Arabic written in Latin letters).
"""

from __future__ import annotations

import pytest
from memory_core.firewall import Firewall

FIREWALL = Firewall()

CAUGHT = {
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

KEPT = {
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


@pytest.mark.parametrize(("text", "secret"), CAUGHT.values(), ids=CAUGHT.keys())
def test_a_credential_is_caught_by_where_it_stands(text: str, secret: str) -> None:
    scrubbed = FIREWALL.scrub(text).text
    assert secret not in scrubbed, scrubbed
    assert "[REDACTED:" in scrubbed


@pytest.mark.parametrize("text", KEPT.values(), ids=KEPT.keys())
def test_what_opens_nothing_is_kept_byte_for_byte(text: str) -> None:
    assert FIREWALL.scrub(text).text == text
