"""A password by its look alone (`firewall/shaped.py`, rules v9): what no name marks is still caught
when it mixes letters, a digit and a password symbol, and what merely has those characters (a
shell prompt, a pinned version, optional chaining, a git revision, an issue number) is kept.
Every text here is written for this file; no generated round holds it.
"""

from __future__ import annotations

import pytest
from memory_core.firewall import Firewall

FIREWALL = Firewall()

CAUGHT = {
    # (text, the secret it holds): no name in any language marks the value
    "chat-reply": ("[09:14] kai: the one for the build box?\n[09:15] mo: Vr8!kLp2zQ\n", "Vr8!kLp2zQ"),
    "positional": ('conn = Broker("mq.internal", 5671, "relay", "Sq4#mWn7tRz")', "Sq4#mWn7tRz"),
    "unseen-language": ("Ang sikretong salita ng router ay Kt5$wpQ9zL simula bukas", "Kt5$wpQ9zL"),
    "emoji-aside": ("🔐 Lm3^qRt8wZ ← the vault's unseal share, keep it offline", "Lm3^qRt8wZ"),
    "word-and-symbols": ("log in to the kiosk with Cobalt771~ember and reboot it", "Cobalt771~ember"),
    "trailing-symbol": ("ok, it's now wxe-52HARBOR# on every switch", "wxe-52HARBOR#"),
    "markdown-bold": ("The new one is **Qw7@pLz9Xr**, don't paste it here again", "Qw7@pLz9Xr"),
    "unseen-syntax": ('(relay :host "mq.internal" :as "svc" Hn6~qWz2Rt)', "Hn6~qWz2Rt"),
}

KEPT = {
    "shell-prompt": "root@web01:~# systemctl restart nginx\nops@db-3:/var/log$ tail -n 20 syslog",
    "email-with-digits": "Reviewed-by: Jane Roe <jane2@acme.io>, ping ops42@corp.example.org",
    "pinned-versions": "npm i lodash@^4.17.21 react@18.2.0 && go get golang.org/x/net@v0.17.0 pkg@v1.2.3",
    "image-digest": "FROM python:3.12-slim@sha256:4c3f9a0b7e11d2c5 AS base",
    "optional-chaining": "const n = user1?.profile?.name ?? 'anon'; items2!.push(x); a2??b3",
    "git-revisions": "git diff HEAD~3 main^2 -- src/ && git show release2~1:README.md",
    "backup-file": "rm notes2.txt~ config3.yaml~",
    "percent-encoded": "GET /search?q=caf%C3%A9%202024 returned 0 hits (query caf%C3%A92024x)",
    "issue-numbers": "fixes acme-api#1234, see PR web2#88 and GH-5512",
    "anchors": "see README2.md#install, Array#each_slice and div#main2 in the stylesheet",
    "sentence-end": "We moved to Python3! Does it still run on Node20? Upgrade to Ubuntu2404!",
    "decorators-and-vars": "@pytest.mark.parametrize $HOME2 %APPDATA% ~/.ssh2 #L120 !important",
    "markdown-model-name": "We tried **gemma4** and **llama3.1** on it: both fail",
    "placeholder": "export DB_PASSWORD=<your-password1!> # or YOUR_PASS123!word",
    "css-and-globs": "background:#e0e0e0; src/**/*.ts, test_*.py and 2*x**2",
    "url-query": "https://auth.example.net/authorize?code_challenge_method=S256&state=x1y2&nonce=Ab3",
    "short": "A1!b, x2$y and Zq8!",
    "no-digit": "WTF?! Oh#well & ok@last",
    "one-case": "hours*60 and sys.maxsize*2, mv build#12 done!, db-01@eu-west, aes256gcm16-ecp384!",
    "arithmetic-and-globs": "ec2.*.Filter, 3*xL+2+xSigma, X+b1*b2-a1*a2, 10**_Exp, Total^2Sum",
    "sub-and-superscripts": "the tensor A_d0^d1*B^a_d1 contracts",
    "locale-and-qualified-names": "LANG=sr_RS.UTF-8@latin; raise com.acme.Dynamo.v20120810#TransactionCanceled",
    "members": "see EC2Backend#do_resources_exist and npyv_round_s32_##SFX",
    "format-directives": "name = 'Table%d.A2' % n; egg = f'Py%s.%s.Egg3'",
    "regex-classes": "pattern [A-Za-z0-9_$]+ and [a-zA-Z0-9.?]",
    "conversions-and-entities": "f'{C_UTF8_LOCALES!r}' and 'PEP008&nbsp'",
}


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_a_password_no_name_marks_is_caught_by_its_look(name: str) -> None:
    text, secret = CAUGHT[name]
    scrubbed = FIREWALL.scrub(text)
    assert secret not in scrubbed.text
    assert "[REDACTED:credential]" in scrubbed.text


@pytest.mark.parametrize("name", sorted(KEPT))
def test_what_merely_has_a_passwords_characters_is_kept(name: str) -> None:
    assert FIREWALL.scrub(KEPT[name]).text == KEPT[name]


def test_a_long_run_of_symbols_and_letters_costs_time_in_proportion() -> None:
    """200 KB with a symbol every few characters and no delimiter: each symbol is judged within a
    bounded window and each token once (a search from every symbol across the whole run would be
    quadratic). Checked by what it returns, not by a clock: the run is one blob, not a password."""
    text = "ab1!" * 50_000
    assert FIREWALL.scrub(text).text == text
