r"""Passwords given on a command line: `mysql -pS3cret`, `sshpass -p pw ssh`, `ldapsearch -w pw`.

Promise: `find_flag_passwords(text, folded)` returns the span of each password passed to a
command-line program as a flag value, with kind `password-flag`:
- the short password flags of the programs that have them, attached (`-pS3cret`) or after
  a blank (`-p S3cret`), as each program reads them: the MySQL/MariaDB clients' attached
  `-p`; `sshpass -p`; `-p` of `login` in container registry tools (`docker`, `podman`,
  `helm`, `oras`, ...) and cloud CLIs (`az`, `oc`, `cf`); MongoDB's `-p`; `redis-cli -a`;
  the OpenLDAP tools' `-w`; `sqlcmd`/`bcp`/`ipmitool` `-P`; `zip`/`unzip -P`; `7z -p`;
  `rdesktop -p`; FreeRDP's `/p:`; Mosquitto's `-P`; `schtasks /RP`; Samba's `-U user%password`;
  Java's `keytool -storepass` and kin; OpenSSL's `-pass pass:...`, `-passin`, `-passout` and `-k`; `htpasswd -b`'s
  password argument; `ssh-keygen -N`/`-P` (a key's passphrase);
  `sqlplus user/password@db`; `echo 'user:password' | chpasswd`; `rabbitmqctl add_user NAME PASSWORD` (and
  `change_password`); and what `echo` or `printf` pipes into a `--password-stdin`;
- anywhere else, the `-p<password>` convention when what is glued to `-p` looks like a
  password rather than an option cluster or a port (`-pv`, `-p8080:80` stay).
Long flags (`--password x`, `--db-password=x`) are names, read by the judgement (`judge`).

A value that is a placeholder or a reference (`$PASS`, `"$(pass show db)"`, `-` for stdin)
is left alone. A program's flags are read only in its own command: up to the end of the
line (a `\` continuation continues it), a pipe, `;` or `&&`.
"""

from __future__ import annotations

import re

from memory_core.firewall.values import is_placeholder, looks_like_secret, occurrences, trim_value
from memory_core.lazyre import alternation, lazy

__all__ = ["find_flag_passwords", "FLAG_TRIGGERS"]

KIND = "password-flag"
_MYSQL = (
    *("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlpump", "mariadb"),
    *("mariadb-dump", "mariadb-admin", "mysqlsh", "mysqlbinlog"),
)
_LOGIN_TOOLS = (
    *("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "regctl", "az", "oc"),
    *("cf", "argocd", "finch", "apptainer", "singularity"),
)
_MONGO = ("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop")
_LDAP = (
    *("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare"),
    *("ldapmodrdn", "ldapexop"),
)

_SPACED: dict[str, tuple[str, ...]] = {
    **{name: ("-p",) for name in _MONGO},
    **{name: ("-p", "--password") for name in _LOGIN_TOOLS},
    **{name: ("-w",) for name in _LDAP},
    "sshpass": ("-p",),
    "redis-cli": ("-a",),
    "valkey-cli": ("-a",),
    "keydb-cli": ("-a",),
    "sqlcmd": ("-P",),
    "bcp": ("-P",),
    "osql": ("-P",),
    "ipmitool": ("-P",),
    "zip": ("-P",),
    "unzip": ("-P",),
    "rdesktop": ("-p",),
    "mycli": ("-p",),
    "influx": ("-p", "-password"),
    "keytool": ("-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass", "-new"),
    "jarsigner": ("-storepass", "-keypass"),
    "openssl": ("-k", "-K", "-pass", "-passin", "-passout"),  # `-K`: `enc`'s raw key, in hex
    "ssh-keygen": ("-N", "-P"),
    "security": ("-p", "-P"),  # macOS keychains: `security unlock-keychain -p X`, `import x.p12 -P X`
    **{name: ("-P", "--pw") for name in ("mosquitto_sub", "mosquitto_pub", "mosquitto_rr")},  # `-p` is the port
    "schtasks": ("/RP", "/rp"),  # the account a scheduled task runs as, and its password (rules v13)
}
"""Program -> flags whose next argument is a password."""
_ATTACHED: dict[str, tuple[str, ...]] = {
    **{name: ("-p",) for name in _MYSQL},
    **{name: ("-p",) for name in ("sshpass", "7z", "7za", "7zr", "rar", "unrar")},
    **{name: ("-P",) for name in ("sqlcmd", "bcp", "osql", "ipmitool")},
    **{name: ("-p",) for name in _LOGIN_TOOLS},
    **{name: ("/p:",) for name in ("xfreerdp", "wlfreerdp", "sdl-freerdp")},
}
"""Program -> flags with the password glued on."""
_NEEDS_LOGIN = frozenset(_LOGIN_TOOLS)
"""These read `-p` as a password only in their `login` subcommand (`docker run -p 80:80` is a port)."""
_SAMBA = ("smbclient", "rpcclient", "smbmap", "smbget", "smbcacls", "net")
_OPERAND: dict[str, int] = {"isql": 2, "iusql": 2}
"""Program -> which operand (0 = the first) is the password when no flag names it: unixODBC's
`isql DSN USER PASSWORD` (rules v11)."""
_BATCH_PASSWD = ("htpasswd", "mosquitto_passwd")
"""`-b FILE USER PASSWORD`: Apache's and Mosquitto's password files, in batch mode (mosquitto: rules v15)."""
_PROGRAMS = tuple(
    dict.fromkeys((*_SPACED, *_ATTACHED, *_SAMBA, *_OPERAND, *_BATCH_PASSWD, "sqlplus", "rabbitmqctl", "mc"))
)
FLAG_TRIGGERS = ("-", "/p:", "sqlplus", "rabbitmqctl", "net use", " using ", " USING ", "schtasks", "chpasswd", "mc ")
"""Every password flag has a dash but FreeRDP's `/p:`, `sqlplus user/password@db` and `net use`'s password."""
_NAME_SOURCE = rf"(?P<p>{alternation(_PROGRAMS)})(?![\w\-])"
_PROGRAM_NAME = lazy(_NAME_SOURCE)
"""Any of the programs' names, where a word ends after it: one scan finds them all. The names are a tree of
shared prefixes, and the scan asks nothing of what stands before a name: as a flat alternation behind
`_PROGRAM`'s look back it cost 0.12 ms of the bench's typical 2 KB turn, as this 0.04 ms."""
_PROGRAM = lazy(rf"(?:(?<![\w.\-])|(?<=\\n)){_NAME_SOURCE}")
"""A program's name as a word (after a path too: `/usr/bin/mysql`; after an escaped line break)."""
_ARGUMENT = lazy(r"\"((?:[^\"\\\n]|\\.)*)\"|'([^'\n]*)'|((?:[^\s\"'|;&\\]|\\[^\n])+)")
_SEGMENT_END = lazy(r"(?<!\\)\n|\\n|\|\||&&|[|;]")
_MAX_COMMAND = 600
_PIPED = lazy(
    r"(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+|'%s'[ \t]+|\"%s\"[ \t]+)?"
    r"(?:\\\"(?P<e>[^\"\\\n]{1,256})\\\"|\"(?P<q>[^\"\n]{1,256})\"|'(?P<r>[^'\n]{1,256})'|(?P<b>[^\s|;&\"'\\]{1,256}))"
    r"[ \t]*\|[^\n|;]{0,300}?(?:(?:--|[\s,=])pass(?:word|wd)?(?:[-_]on)?[-_]stdin\b"
    r"|\bsudo[ \t]+(?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*S\b|\bpasswd[ \t]+--stdin"
    r"|\bsystemd-creds[ \t]+encrypt\b|\bsecret[ \t]+(?:create|set)\b|\bencrypt_string\b)"
)
"""`echo "$PW" | docker login --password-stdin`, `echo pw | sudo -S ...`, `| passwd --stdin user`: the
password is what is piped in; so is what is piped into a command that encrypts or stores a secret read
from stdin (`| systemd-creds encrypt`, `| docker secret create`, `| gh secret set`, `| ansible-vault
encrypt_string`); and what is piped into any command that names reading a password from stdin
(`--passwd-on-stdin`, `--pass-stdin`, sshfs's `-o password_stdin`) or that then prompts for one
(`Enter password to unlock ...:`)."""
_PROMPTED = lazy(
    r"(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+)?"
    r"(?:\"(?P<q>[^\"\n]{1,256})\"|'(?P<r>[^'\n]{1,256})'|(?P<b>[^\s|;&\"'\\]{1,256}))"
    r"[ \t]*\|[^\n|;]{1,300}\r?\n[^\n]{0,60}\b(?:password|passphrase)\b[^\n]{0,80}:[ \t]*(?:\r?\n|$)",
    re.IGNORECASE,
)
"""`echo 'X' | keepassxc-cli show db.kdbx` and the tool's prompt below it: the piped value answered it."""
_CHPASSWD = lazy(
    r"(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+)?(?P<q>['\"]?)[\w.\-]{1,64}:(?P<s>[^\s'\"|:]{1,128})(?P=q)"
    r"[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd\b"
)
"""`echo 'root:X' | chpasswd`: `chpasswd` reads `user:password` lines, so what follows the `:` is the password."""
_POSITIONAL: dict[tuple[str, str], int] = {
    ("mc", "alias"): 5,  # MinIO's `mc alias set NAME URL ACCESS_KEY SECRET_KEY` (rules v14)
    ("rabbitmqctl", "add_user"): 2,
    ("rabbitmqctl", "change_password"): 2,
    ("rabbitmqctl", "authenticate_user"): 2,
}
"""(program, subcommand) -> which operand after the subcommand is the password (1 = the first)."""
_DEVICE = lazy(r"[A-Za-z]:|LPT\d:|\*")
_GENERAL = lazy(r"(?<=[ \t])-p(?P<s>[^\s\-\"'`][^\s\"'`]{5,255})")
_LONG_OPTION = lazy(r"[a-z][\w\-]*=")
_PAIRED_P = lazy(r"-p[ \t]+(?:\"([^\"\n]{1,256})\"|'([^'\n]{1,256})'|([^\s\"'|;&\\]{1,256}))")
"""`-p VALUE`, spaced: a password where the same command names its user with `-u` (`_USER_FLAG`)."""
_USER_FLAG = lazy(r"(?<=[ \t])(?:-u|-U|--user|--username)(?:[ \t]+|=)[\"']?[A-Za-z_][\w.@\\\-]*")
"""A command's user: `-u root`, `--user=deploy` (a value that starts with a letter, so `-u 1000` is a uid)."""
_NOT_PASSWORD = lazy(r"[\d:.,\-/]+")
"""What `-p` takes elsewhere: a port, a mapping (`8080:80`), a path's digits."""
_USER_USING = lazy(r"(?<![\w\-])user[ \t]+[\w.@\-]{1,64}[ \t]+$")
_USING_VALUE = lazy(r"using[ \t]+(?P<s>[^\s;\"'`]{1,256})", re.IGNORECASE)
"""`connect to DB user NAME using PASSWORD`: DB2's command line (and SQL's `CONNECT ... USING`)."""
_SQLPLUS = lazy(r"[\w.$#]+/(?P<s>[^\s@/\"']{1,128})(?:@|\s|$)")


def _arguments(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """The shell words of `text[start:end]`: (where the value starts, where it ends, the value)."""
    words: list[tuple[int, int, str]] = []
    for found in _ARGUMENT.finditer(text, start, end):
        group = next(g for g in (1, 2, 3) if found.group(g) is not None)
        words.append((found.start(group), found.end(group), found.group(group)))
    return words


def _password(value: str) -> bool:
    return bool(value) and value != "-" and not value.startswith("[REDACTED:") and not is_placeholder(value)


def _read_command(text: str, program: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """The password flags of one command of `program` between `start` and `end`."""
    words = _arguments(text, start, end)
    if program in _NEEDS_LOGIN and not any(w[2] in ("login", "auth") for w in words[:4]):
        return []
    if program == "security" and not any("keychain" in w[2] or w[2] in ("import", "export") for w in words[:2]):
        return []  # `security find-identity -p codesigning`: a policy; a keychain's or a .p12's password only
    spaced, attached = _SPACED.get(program, ()), _ATTACHED.get(program, ())
    edits: list[tuple[int, int, str]] = []
    for i, (at, stop, word) in enumerate(words):
        if word in spaced and i + 1 < len(words):
            value_at, value_end, value = words[i + 1]
            if value.startswith("pass:"):
                value_at, value = value_at + 5, value[5:]  # openssl's `-passin pass:secret`
            if _password(value) and not value.startswith(("env:", "file:", "fd:", "stdin")):
                edits.append((value_at, value_end, KIND))
            continue
        for flag in attached:
            if word.startswith(flag) and len(word) > len(flag) and _password(word[len(flag) :]):
                edits.append((at + len(flag), stop, KIND))
            elif (
                word == flag
                and i + 1 < len(words)
                and text[stop : stop + 1] in "'\""
                and words[i + 1][0] == stop + 1
                and _password(words[i + 1][2])
            ):
                edits.append((*words[i + 1][:2], KIND))  # `-p'secret'`: the quotes glue it to the flag
        if program in _SAMBA and word == "-U" and i + 1 < len(words) and "%" in words[i + 1][2]:
            value_at, value_end, value = words[i + 1]
            cut = value.index("%") + 1
            if _password(value[cut:]):
                edits.append((value_at + cut, value_end, KIND))
        if program in _BATCH_PASSWD and word.startswith("-") and "b" in word[1:]:
            operands = [w for w in words[i + 1 :] if not w[2].startswith("-")]
            if len(operands) >= 3 and _password(operands[2][2]):  # htpasswd -b FILE USER PASSWORD
                edits.append((operands[2][0], operands[2][1], KIND))
    if program == "net" and words and words[0][2].lower() == "use":
        # `net use [Z:] \\\\server\\share [password] [/user:...]`: the operand that is not a device, a share or a switch
        rest = [w for w in words[1:] if not (w[2].startswith(("\\", "/", "*")) or _DEVICE.fullmatch(w[2]))]
        if rest and _password(rest[0][2]) and looks_like_secret(rest[0][2]):
            edits.append((rest[0][0], rest[0][1], KIND))
    operands = [w for w in words if not w[2].startswith("-")]
    if operands and (program, operands[0][2]) in _POSITIONAL:
        index = _POSITIONAL[(program, operands[0][2])]
        if len(operands) > index and _password(operands[index][2]):
            edits.append((operands[index][0], operands[index][1], KIND))
    if program in _OPERAND and len(operands) > _OPERAND[program] and _password(operands[_OPERAND[program]][2]):
        edits.append((operands[_OPERAND[program]][0], operands[_OPERAND[program]][1], KIND))
    if program == "sqlplus" and words:
        found = _SQLPLUS.match(text, words[0][0])
        if found is not None and _password(found.group("s")):
            edits.append((found.start("s"), found.end("s"), KIND))
    return edits


def _paired_p(text: str) -> list[re.Match[str]]:
    """Each spaced `-p VALUE` after a blank (a `find` per `-p`: a pattern scanning the text costs more)."""
    found: list[re.Match[str]] = []
    for at in occurrences(text, "-p"):
        if at and text[at - 1] in " \t" and text[at + 2 : at + 3] in (" ", "\t"):
            match = _PAIRED_P.match(text, at)
            if match is not None:
                found.append(match)
    return found


def _user_using(text: str, folded: str) -> list[tuple[int, int, str]]:
    """`user NAME using X`, read back from each ` using ` (the folded text finds `USING` too)."""
    edits: list[tuple[int, int, str]] = []
    for at in occurrences(folded, " using "):
        if _USER_USING.search(folded, max(0, at - 80), at + 1) is not None:
            value = _USING_VALUE.match(text, at + 1)
            if value is not None and _password(value.group("s")) and looks_like_secret(value.group("s")):
                edits.append((value.start("s"), value.end("s"), KIND))
    return edits


def _user_and_password(text: str) -> list[tuple[int, int, str]]:
    """`-p VALUE` where the same command gives `-u USER`: a CLI's user and password pair (`racadm -u
    root -p X`, `cypher-shell -u neo4j -p X`). A port or a mapping is digits; the MySQL clients' spaced
    `-p` prompts, and what follows it is the database.
    """
    edits: list[tuple[int, int, str]] = []
    for found in _paired_p(text):
        group = next(g for g in (1, 2, 3) if found.group(g) is not None)
        value = found.group(group)
        if not _password(value) or _NOT_PASSWORD.fullmatch(value) or value.startswith("-"):
            continue
        line_start = max(text.rfind("\n", 0, found.start()) + 1, found.start() - _MAX_COMMAND)
        stop = _SEGMENT_END.search(text, found.end(), found.end() + _MAX_COMMAND)
        end = stop.start() if stop else min(len(text), found.end() + _MAX_COMMAND)
        starts = [m.end() for m in _SEGMENT_END.finditer(text, line_start, found.start())]
        segment_start = starts[-1] if starts else line_start
        if _USER_FLAG.search(text, segment_start, end) is None:
            continue
        program = _PROGRAM.search(text, segment_start, found.start())
        if program is not None and program.group("p") in _MYSQL:
            continue  # `mysql -u root -p appdb`: a spaced `-p` prompts; `appdb` is the database
        edits.append((found.start(group), found.end(group), KIND))
    return edits


def find_flag_passwords(text: str, folded: str) -> list[tuple[int, int, str]]:
    """Every password passed as a command-line flag, as `(start, end, "password-flag")`."""
    edits: list[tuple[int, int, str]] = []
    stored = ("secret" in text or "encrypt" in text) and ("echo" in text or "printf" in text)
    if "stdin" in text or "sudo" in text or stored:  # `-stdin` and `_stdin` (sshfs): one pass
        for found in _PIPED.finditer(text):
            group = next(g for g in ("e", "q", "r", "b") if found.group(g) is not None)
            if _password(found.group(group)):
                edits.append((found.start(group), found.end(group), KIND))
    if "chpasswd" in text:
        for found in _CHPASSWD.finditer(text):
            if _password(found.group("s")) and not found.group("s").startswith("$"):
                edits.append((found.start("s"), found.end("s"), KIND))
    if ("echo" in folded or "printf" in folded) and ("password" in folded or "passphrase" in folded):
        for verb in ("echo", "printf"):
            for at in occurrences(folded, verb):  # each `echo` read where it stands
                prompted = _PROMPTED.match(text, at)
                if prompted is not None:
                    group = next(g for g in ("q", "r", "b") if prompted.group(g) is not None)
                    if _password(prompted.group(group)) and not prompted.group(group).startswith("$"):
                        edits.append((prompted.start(group), prompted.end(group), KIND))
    for name in _PROGRAM_NAME.finditer(text):
        # No name starts inside a name the look back refused (its characters are all word characters).
        program = _PROGRAM.match(text, name.start())
        if program is None or not text.startswith((" ", "\t"), program.end()):
            continue  # a command takes its arguments after a blank; `"sshpass": (...)` is data
        stop = _SEGMENT_END.search(text, program.end(), program.end() + _MAX_COMMAND)
        end = stop.start() if stop else min(len(text), program.end() + _MAX_COMMAND)
        edits.extend(_read_command(text, program.group("p"), program.end(), end))
    if " using " in folded and "user" in folded:
        edits.extend(_user_using(text, folded))
    if ("-u" in text or "-U" in text) and ("-p " in text or "-p\t" in text):
        edits.extend(_user_and_password(text))
    if " -p" in text or "\t-p" in text:
        for found in _GENERAL.finditer(text):
            value = trim_value(found.group("s").rstrip("`.;"))  # a bracket the value opened stays
            if _LONG_OPTION.match(value):
                continue  # `-password=$(DB_PASS)`, `-port=5432`: a one-dash long option, the judgement's to read
            if _password(value) and looks_like_secret(value) and not re.fullmatch(r"[\d:.,\-/a-z]+", value):
                edits.append((found.start("s"), found.start("s") + len(value), KIND))
    return sorted(edits)
