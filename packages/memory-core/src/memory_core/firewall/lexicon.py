# ruff: noqa: RUF001 - the words are written in their own scripts

"""The words that name a credential, by language: data the judgement reads, no code.

Promise: `STRONG` holds the lower-case words for password, passphrase, secret, PIN and the
labels of one-time, verification and recovery codes; `MODERATE` the words for token, key and
code. Each language's entry lists its word and the forms a sentence writes it in: a stem where
the language inflects it after the word (`jelszav` for Hungarian `jelszava`, `jelszavát`; the
judgement reads the rest of the word), the form with a glued article when the article goes
before it in a Latin script (`l'identifiant`), common spellings without diacritics or zero-width
joiners (`sifra`, Telugu `పాస్వర్డ్`). A word in another script than Latin is found also glued to
a prefix (Hebrew `הסיסמה`, Arabic `الرمز`); a Latin one must start a word, or end a compound
(`Datenbankpasswort`, see `GLUABLE`).

The languages: the hundred or so with the most speakers or developers (Ethnologue's largest,
every script), and some smaller ones a sample once held. A language whose speakers write the
English word (`password` in Tagalog, Malay chat, Hinglish) needs nothing of its own. Not here:
words that are ordinary in another sense and would name nothing most of the time (Latin
`tessera`, Uyghur `ئىم`, a lone `鍵`), which would make the judgement read every sentence.

Failure: none; it is data. Adding a word costs one `str.find` pass over a text in its script
(ASCII words over every text), so a word earns its place by naming credentials in real turns.
"""

from __future__ import annotations

__all__ = ["GLUABLE", "MODERATE", "PASSWORD", "STRONG"]

_PASSWORD: dict[str, tuple[str, ...]] = {
    # English and its informal spellings
    "en": ("password", "passwd", "passphrase", "pass phrase", "pass-phrase", "passcode", "pwd", "pw", "p/w"),
    "en-informal": ("pswd", "pword", "pass", "u/p", "login details", "access code", "unlock code", "cred", "creds"),
    # an `expect` script matches a password prompt by its tail, so case and a capital do not matter
    "en-expect": ("assword:",),
    # where one types a password: "try X at the sudo prompt"
    "en-prompts": ("sudo prompt", "login prompt"),
    # what takes a password as its argument: SQL's `IDENTIFIED BY '...'` (and `IDENTIFIED WITH plugin BY`),
    # PowerShell's `ConvertTo-SecureString '...' -AsPlainText` (rules v13: here, a quoted literal is the value)
    "commands": ("identified by", "identified with", "convertto-securestring"),
    # SMTP's AUTH LOGIN asks for the password in base64 (`334 UGFzc3dvcmQ6`, "Password:"): the line after it
    "smtp": ("ugfzc3dvcmq6",),
    "en-wifi": ("psk", "pre-shared key", "preshared key", "wpa key", "network key"),
    # Chinese (Mandarin, Cantonese, Wu, Min: one written language), Japanese, Korean
    "zh": ("密码", "密碼", "口令", "通行码", "登录密码", "凭据", "憑證", "凭证"),
    "ja": ("パスワード", "暗証番号", "認証情報", "合言葉"),
    "ko": ("비밀번호", "암호", "패스워드", "비번"),
    # Indo-Aryan
    "hi": ("पासवर्ड", "कूटशब्द", "गुप्तशब्द", "पासवर्ड़"),  # also Marathi, Nepali, Maithili, Bhojpuri
    "mr": ("संकेतशब्द", "परवलीचा शब्द"),
    "bn": ("পাসওয়ার্ড", "পাসওয়ার্ড", "গোপন শব্দ", "পাসওয়ার্ড"),  # also Assamese below
    "as": ("পাছৱৰ্ড", "গুপ্তশব্দ"),
    "ur": ("پاس ورڈ", "پاسورڈ", "خفیہ لفظ"),
    "pa": ("ਪਾਸਵਰਡ", "ਪਾਸਵਰਡ"),
    "gu": ("પાસવર્ડ",),
    "or": ("ପାସୱାର୍ଡ", "ପାସୱର୍ଡ", "ପାସ୍‌ୱାର୍ଡ"),
    "sd": ("پاسورڊ", "ڳجهو لفظ"),
    "si": ("මුරපද",),
    "dv": ("ޕާސްވޯޑ",),  # Dhivehi: the loan word in Thaana, a stem (`ޕާސްވޯޑަކީ`, "the password is") (round 14)
    "ne": ("पासवर्ड", "गोप्य शब्द"),
    # Dravidian
    "ta": ("கடவுச்சொல்", "கடவுச்சொல்", "பாஸ்வேர்ட்"),
    "te": ("పాస్‌వర్డ్", "సంకేతపదం", "రహస్యపదం"),
    "kn": ("ಪಾಸ್‌ವರ್ಡ್", "ಗುಪ್ತಪದ"),
    "ml": ("പാസ്‌വേഡ്", "പാസ്‌വേർഡ്", "രഹസ്യവാക്ക്"),
    # Romance
    "fr": ("mot de passe", "mots de passe", "mdp", "identifiants", "code d'accès"),
    "es": ("contraseña", "contrasena", "credenciales", "clave de acceso"),
    "pt": ("senha", "palavra-passe", "palavra passe", "credenciais"),
    "it": ("parola d'ordine", "credenziali"),
    "rm": ("pled-clav", "pled clav"),  # Romansh: "key word" (round 14)
    "hsb": ("hesło",),  # Upper and Lower Sorbian (round 14)
    "jv": ("tembung sandhi",),  # Javanese: "secret word" (round 14)
    "wo": ("baatu jàll", "baatu jall"),  # Wolof: "word to pass" (round 14)
    "ro": ("parolă", "parola", "parolei"),
    "ca": ("contrasenya",),
    "gl": ("contrasinal",),
    "ht": ("modpas", "mo de pas"),
    "co": ("parolla d'ordine",),
    # Germanic
    "de": ("passwort", "kennwort", "zugangsdaten", "zugangscode", "anmeldedaten", "geheimzahl"),
    "nl": ("wachtwoord", "inloggegevens", "toegangscode"),
    "af": ("wagwoord",),
    "fy": ("wachtwurd",),
    "lb": ("passwuert",),
    "sv": ("lösenord", "losenord", "inloggningsuppgifter"),
    "no": ("passord",),
    "da": ("adgangskode", "kodeord"),
    "is": ("lykilorð",),
    "fo": ("loyniorð",),
    "yi": ("פאראל", "פּאַראָל"),
    # Slavic
    "ru": ("парол", "учетные данные", "учётные данные", "код доступа"),  # парол: пароль, пароля, паролем
    "uk": ("пароль", "гасло", "облікові дані"),
    "be": ("гасло", "пароль"),
    "pl": ("hasło", "haslo", "hasła", "hasłem", "haśle", "dane logowania"),
    "cs": ("heslo", "hesla", "heslem", "přihlašovací údaje"),
    "sk": ("heslo", "prihlasovacie údaje"),
    "sl": ("geslo", "gesla"),
    "hr": ("lozinka", "lozinku", "lozinke", "šifra", "šifru", "sifra", "zaporka"),  # also Bosnian, Serbian
    "sr": ("лозинка", "лозинку", "шифра", "шифру"),
    "mk": ("лозинка",),
    "bg": ("парола",),
    # Baltic, Finno-Ugric
    "lt": ("slaptažod", "slaptazod"),
    "lv": ("parole", "paroli"),
    "et": ("salasõna", "parool"),
    "fi": ("salasana", "tunnuslause"),
    "hu": ("jelszó", "jelszav", "jelszo"),
    # Greek, Albanian, Armenian, Georgian, Basque, Celtic, Esperanto, Maltese
    "el": ("κωδικός πρόσβασης", "κωδικό πρόσβασης", "κωδικός", "κωδικό", "συνθηματικό"),
    "sq": ("fjalëkalim", "fjalekalim"),
    "hy": ("գաղտնաբառ",),
    "ka": ("პაროლ",),
    "eu": ("pasahitz",),
    "cy": ("cyfrinair",),
    "ga": ("pasfhocal", "focal faire"),  # "focal faire", the watchword: the usual Irish term (round 13)
    "tpi": ("paswot", "pasin bilong go insait"),  # Tok Pisin: the loan word, and "the way to go in" (round 13)
    "gd": ("facal-faire",),
    "br": ("ger-tremen",),
    "eo": ("pasvorto",),
    "mt": ("kelma tas-sigurtà",),
    # Semitic, Iranian, Turkic
    "ar": ("كلمة المرور", "كلمة السر", "كلمة مرور", "كلمه السر", "رمز المرور", "كلمة سر", "الرقم السري", "رقم سري"),
    "he": ("סיסמה", "סיסמא", "ססמה", "סיסמת"),
    "am": ("የይለፍ ቃል",),
    "ti": ("መሕለፊ ቃል",),
    "fa": ("رمز عبور", "گذرواژه", "کلمه عبور", "کلمه‌ی عبور", "رمز"),
    "ps": ("پټنوم", "پاسورډ"),
    "ku": ("şîfre", "وشەی نهێنی", "تێپەڕەوشە"),
    "tg": ("парол", "рамз"),
    "tr": ("şifre", "sifre", "parola", "kimlik bilgileri"),
    "az": ("şifrə", "parol"),
    "uz": ("parol", "maxfiy so'z"),
    "kk": ("құпия сөз", "құпиясөз"),
    "ky": ("сырсөз",),
    "tk": ("açar sözi", "parol"),
    "tt": ("серсүз",),
    "ba": ("серһүҙ",),
    "ug": ("پارول", "مەخپىي نومۇر"),  # "secret number", the usual Uyghur term for a password (round 14)
    "mn": ("нууц үг",),
    "bo": ("གསང་ཚིག",),
    # Southeast Asia and the Pacific
    "vi": ("mật khẩu", "mat khau"),
    "th": ("รหัสผ่าน",),
    "lo": ("ລະຫັດຜ່ານ",),
    "km": ("ពាក្យសម្ងាត់",),
    "my": ("စကားဝှက်",),
    "id": ("kata sandi", "sandi"),  # also Javanese, Sundanese
    "su": ("kecap aksés", "kecap akses", "kecap sandi"),  # Sundanese: "access word" (round 12)
    "ms": ("kata laluan",),
    "tl": ("kontrasenyas",),
    "mi": ("kupuhipa",),
    "haw": ("ʻōlelo hūnā", "ʻōlelo huna", "ōlelo huna", "olelo huna"),  # written without its macrons too (round 12)
    # Africa
    "sw": ("nenosiri", "neno la siri", "neno siri"),
    "ha": ("kalmar sirri",),
    "yo": ("ọ̀rọ̀ aṣínà", "ọrọ aṣina", "ọ̀rọ̀ìgbaniwọlé", "ọrọigbaniwọle"),
    "ig": ("okwuntughe", "paswọọdụ"),
    "zu": ("iphasiwedi",),
    "xh": ("iphaswedi",),
    "st": ("phasewete",),
    "sn": ("pasiwedhi",),
    "ny": ("mawu achinsinsi",),
    "rw": ("ijambo ry'ibanga", "ijambobanga"),
    "so": ("erayga sirta", "furaha sirta"),
    "om": ("jecha darbii",),
    "mg": ("tenimiafina",),
    "ln": ("liloba ya kobombama",),
    # the Americas
    "gn": ("ñe'ẽñemi",),
    "qu": ("pakallan rimay", "pakasqa simi"),  # and "hidden word" (`pakasqa siminqa`, with the topic suffix) (round 14)
}

_SECRET: dict[str, tuple[str, ...]] = {
    "en": ("secret",),
    "de": ("geheimnis", "geheimschlüssel"),
    "es": ("secreto",),
    "pt": ("segredo",),
    "it": ("segreto",),
    "ru": ("секрет",),
    "ja": ("シークレット", "秘密"),
    "zh": ("密钥", "秘钥", "金鑰", "密鑰"),
    "ko": ("비밀",),
    "pl": ("sekret",),
    "hu": ("titkos kulcs",),
    "fi": ("salainen avain",),
    "sv": ("hemlig nyckel",),
    "id": ("kunci rahasia",),
    "vi": ("khóa bí mật",),
    "tr": ("gizli anahtar",),
    "el": ("μυστικό",),
    "he": ("מפתח סודי",),
    "ar": ("المفتاح السري",),
    "hi": ("गुप्त कुंजी",),
}

_PIN_AND_CODES: dict[str, tuple[str, ...]] = {
    "en": ("pin", "pincode", "pin code", "pin number", "otp", "totp", "2fa", "mfa", "one-time"),
    "en-sim": ("puk",),  # a SIM's PIN unlock key, printed beside its PIN (rules v11)
    "en-codes": ("verification code", "confirmation code", "security code", "recovery code", "backup code"),
    "en-codes2": ("setup key", "auth code", "login code", "private key", "api key", "apikey", "api_key", "api-key"),
    # where a one-time code comes from (rules v13): "SMS code", "Steam Guard code", "sign-in code"
    "en-codes3": (
        "sms code",
        "text code",
        "guard code",
        "authenticator code",
        "sign-in code",
        "signin code",
        "2fa code",
    ),
    "en-vault": ("unseal key", "root token"),  # HashiCorp Vault's: an unseal key share opens the vault
    "fr": ("code de vérification", "code pin", "code de confirmation", "code de récupération"),
    "de": ("bestätigungscode", "verifizierungscode", "wiederherstellungscode", "einmalcode", "pin-code"),
    "es": ("código de verificación", "código de seguridad", "código de recuperación"),
    "pt": ("código de verificação", "código de segurança", "código de recuperação"),
    "it": ("codice di verifica", "codice di sicurezza"),
    "nl": ("verificatiecode", "herstelcode"),
    "ru": ("код",),  # код подтверждения, пин-код, одноразовый код: all hold it
    "uk": ("пін-код",),
    "ja": ("認証コード", "確認コード", "ワンタイムパスワード"),
    "zh": ("验证码", "驗證碼", "校验码", "动态码"),
    "ko": ("인증번호", "인증 코드", "인증코드", "핀 번호"),
    "pl": ("kod weryfikacyjny", "kod jednorazowy"),
    "tr": ("doğrulama kodu", "dogrulama kodu"),
    "sv": ("verifieringskod", "engångskod"),
    "cs": ("ověřovací kód",),
    "vi": ("mã xác", "mã otp", "mã pin"),
    "id": ("kode verifikasi", "kode otp"),
    "ar": ("رمز التحقق",),
    "hi": ("सत्यापन कोड",),
    "th": ("รหัสยืนยัน",),
    "ops": ("client-key-data", "client-certificate-data"),
}

_TOKEN: dict[str, tuple[str, ...]] = {
    "en": ("token", "auth", "creds", "credential", "login", "logon", "sign-in"),
    "cookie": ("cookie", "setcookie"),  # a session's cookie, Erlang's shared `-setcookie`: moderate, like token
    "revoke": ("revoke",),  # only a credential is revoked: "Current value (revoke after the switch): X"
    # SNMP's community string is its v1/v2c password (`snmp-server community X RO`): moderate, like token
    "snmp": ("community",),
    "wifi": ("wifi", "wi-fi", "wlan"),
    # login, access: `Login: ops / <password>`, the pair after one
    "login": ("zugang", "anmeldung", "connexion", "acceso", "acesso", "accesso", "логин", "вход", "ログイン"),
    "login2": ("登录", "登入", "로그인", "inloggning", "pålogging", "kirjautuminen", "logowanie", "přihlášení"),
    "fr": ("jeton",),
    "ru": ("токен",),
    "ja": ("トークン",),
    "zh": ("令牌",),
    "ko": ("토큰",),
    "hi": ("टोकन",),
    "th": ("โทเค็น",),
    "fa": ("توکن",),
    "ar": ("رمز مميز",),
    "he": ("אסימון",),
    "el": ("διακριτικό",),
    "bn": ("টোকেন",),
}

_KEY: dict[str, tuple[str, ...]] = {
    "en": ("key",),
    "fr": ("clé", "cle"),
    "de": ("schlüssel",),
    "es": ("clave",),
    "pt": ("chave",),
    "it": ("chiave",),
    "nl": ("sleutel",),
    "ru": ("ключ",),
    "sr": ("кључ", "ključ"),
    "ja": ("キー",),
    "ko": ("키",),
    "pl": ("klucz",),
    "tr": ("anahtar",),
    "sv": ("nyckel",),
    "da": ("nøgle",),
    "no": ("nøkkel",),
    "fi": ("avain",),
    "hu": ("kulcs",),
    "cs": ("klíč",),
    "ro": ("cheie",),
    "lt": ("raktas",),
    "lv": ("atslēga",),
    "et": ("võti",),
    "el": ("κλειδί",),
    "he": ("מפתח",),
    "ar": ("مفتاح",),
    "fa": ("کلید",),
    "hi": ("कुंजी",),
    "bn": ("চাবি",),
    "th": ("กุญแจ",),
    "vi": ("khóa",),
    "id": ("kunci",),
}

_CODE: dict[str, tuple[str, ...]] = {
    "en": ("code",),
    "es": ("código",),
    "it": ("codice",),
    "pl": ("kod",),
    "da": ("kode", "koden"),
    "ja": ("コード",),
    "ko": ("코드",),
}


def _spellings(word: str) -> tuple[str, ...]:
    """A word as prose, a zero-width non-joiner aside, and words as an identifier joins them
    (`mot_de_passe`, `kata-sandi`, `motdepasse` as `motDePasse` folds).
    """
    word = word.lower()
    forms: tuple[str, ...] = (word, word.replace("\u200c", ""))
    if " " in word and word.isascii():
        forms += tuple(word.replace(" ", joint) for joint in ("_", "-", ""))
    return forms


STRONG: tuple[str, ...] = tuple(
    dict.fromkeys(
        form
        for table in (_PASSWORD, _SECRET, _PIN_AND_CODES)
        for words in table.values()
        for word in words
        for form in _spellings(word)
    )
)
"""Strong names: the value after one needs only to look like it could be a credential."""
PASSWORD: frozenset[str] = frozenset(
    form for words in _PASSWORD.values() for word in words for form in _spellings(word)
)
"""The words for password alone (not secret, PIN or code): a word for secret also names where secrets are
kept (a Kubernetes `Secret`, `existingSecret: api-db`), a word for password only the value."""
MODERATE: tuple[str, ...] = tuple(
    form
    for form in dict.fromkeys(
        f for table in (_TOKEN, _KEY, _CODE) for words in table.values() for w in words for f in _spellings(w)
    )
    if form not in STRONG
)
"""Moderate names: the value must look like a credential too (both moderate redact)."""
GLUABLE: frozenset[str] = frozenset(
    {
        *("password", "passwd", "pass", "auth", "token", "secret"),  # `requirepass`, `masterauth`, `rpcauth`
        "passphrase",  # bitcoind's `walletpassphrase`, like `requirepass` (round 14)
        *("pw", "pwd"),  # slapd's `rootpw`, `adminpwd`: the short forms glue the same way (round 12)
        *("passwort", "kennwort", "wachtwoord", "wagwoord", "lösenord", "passord", "adgangskode", "kodeord"),
        *("salasana", "jelszó", "jelszav", "heslo", "hasło", "geslo", "parool", "parole", "schlüssel"),
    }
)
"""Names written glued to the end of a compound: `requirepass` in a config, `Datenbankpasswort`,
`adminjelszó` in the languages that compound their nouns."""
