# ruff: noqa: RUF001 - the names are written in their own scripts

"""The lexicon (`firewall/lexicon.py`): every word in it names a credential, in the forms sentences
write it in, and what merely sits near such a word (a heading in bold, a question, an id) is kept.
"""

from __future__ import annotations

import pytest
from memory_core.firewall import Firewall, lexicon

FIREWALL = Firewall()
_SECRET = "Xq7#kLm29vB"


@pytest.mark.parametrize("word", lexicon.STRONG + lexicon.MODERATE)
def test_every_word_of_the_lexicon_names_the_value_after_it(word: str) -> None:
    for text in (f"{word}: {_SECRET}", f"{word} = '{_SECRET}'"):
        assert _SECRET not in FIREWALL.scrub(text).text, text


@pytest.mark.parametrize("word", lexicon.STRONG)
def test_a_plain_word_after_a_strong_name_is_kept(word: str) -> None:
    text = f"{word}: required"
    assert FIREWALL.scrub(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "Datenbankpasswort lautet {s}",  # a German compound
        "A jelszava most {s}, kérlek",  # Hungarian: the word inflected
        "Slaptažodį pakeičiau į {s}",  # Lithuanian accusative
        "הסיסמא לשרת היא {s}",  # Hebrew's common spelling, glued article
        "పాస్వర్డ్: {s}",  # Telugu written without its zero-width non-joiner
        "PIN码：{s}",  # a Latin name glued to a CJK one
        "login/pass for the staging box: deploy/{s}",  # a pair named by a pair
        "Zugang: admin / {s}",  # the word for access, then user / password
        "sg = SendGridAPIClient('{s}')",  # a client's name after an acronym
        "const resend = new Resend('{s}');",  # a constructor given one literal
        "> Cookie: theme=dark; sessionid={s}",  # a header as `curl -v` prints it
        "az keyvault secret set --vault-name kv --name db --value {s}",  # flags do not count
        'mot_de_passe = "{s}"',  # a word of several joined as an identifier
        "비밀번호를 {s}로 바꿨어요",  # a particle glued after the value
        "password: |\n  {s}",  # a YAML block scalar
        "<tr><td>password</td><td>{s}</td></tr>",  # tags between the name and the value
        "- [x] rotate `{s}` (old staging pw)",  # named by an aside after it
        "$ pass show infra/db\n{s}\nuser: app",  # a command that prints a secret
        "echo '{s}' | sudo -S systemctl restart app",  # piped to a program reading a password
        'expect "Password:"\nsend "{s}\\r"',  # an expect script's answer
        "net use Z: \\\\fs01\\share {s} /user:CORP\\bob",  # net use's password operand
        "пароль: Мышь{s}",  # a password in another script
        "$ pass generate infra/db 24\nThe generated password for infra/db is:\n{s}",  # a label ends its line
        "<th>Password</th>\n<td>{s}</td>",  # a table's value below its header
    ],
)
def test_inflected_glued_and_paired_forms_are_read(text: str) -> None:
    assert _SECRET not in FIREWALL.scrub(text.replace("{s}", _SECRET)).text


@pytest.mark.parametrize(
    "text",
    [
        "### **Key Fixes Completed:**",  # Markdown's bold closes after the colon
        "- **Login overhead** | 1 per poll only |",
        "Which flags came in with the polish pass on the mcp command?",  # a question's mark
        "pub   rsa4096/C666ABFC40395608 2024-03-01 [SC]",  # a gpg key id
        "redis key session:550e8400-e29b-41d4-a716-446655440000 expired",  # a namespaced UUID
        "We store passwords with argon2id (m=65536, t=3, p=4).",  # a term and parameters
        "api key id: ak_3f9a2b7c1d0e4f56",  # the label's last word says id
        "DB_PASSWORD_SECRET_ARN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db/password-Ab12Cd",
        "OPENAI_API_KEY=sk-...Qx7f (last rotated 2024-05-01)",  # a masked value
        "DATABASE_URL: postgres://u1:[REDACTED]@db.internal:5432/d8",  # masked by the tool
        "SLACK_BOT_TOKEN=xoxb-your-bot-token",  # a vendor prefix on a placeholder
        "EXAMPLE_JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0"
        "IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'",  # jwt.io's published sample
        "jcode --provider ollama --model qwen2.5-coder run 'hi'  # after jcode login",
        "ldap_search_s('ou=people,dc=corp', ldap.SCOPE_SUBTREE, '(uid=alice)')",  # a filter, not a password
        "const d = new Date('2024-05-01T10:00:00Z'); throw new Error('Invalid token');",
        "    client-key-data: DATA+OMITTED",  # kubectl's mask
        "key_mgmt=WPA2-PSK",  # an enum constant
        "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d | wc -c\n24",
        "비밀번호를 3번 틀려서 계정이 잠겼어요",  # a count, not a value
        "Cambié la contraseña a una más larga",
        'key = f"user:{user_id}:profile"',  # a template
        "const re = new RegExp('^[A-Z]{2}\\d{6}$');",  # a regular expression
        "description: |\n  The password for the admin account, rotated monthly.",
        "    except AttributeError:\n        pass\n    self._parser.SetParamEntityParsing(x)",  # Python's pass
    ],
)
def test_what_sits_near_a_credential_word_is_kept(text: str) -> None:
    assert FIREWALL.scrub(text).text == text
