"""Pieces of patterns that several rules share: credential key names, assignments, values, words."""

from __future__ import annotations

# Key names that say "the value is a credential" in env files, exports, JSON, YAML, TOML, XML,
# INI, code and command-line flags.
STRONG = (
    r"[a-z0-9_.\-]*(?:passw(?:or)?d|passphrase|\bpwd|secret|token|api[_.\-]?key|apikey|access[_.\-]?key"
    r"|auth[_.\-]?key|private[_.\-]?key|client[_.\-]?secret|credentials?|session[_.\-]?key|signing[_.\-]?key"
    r"|encryption[_.\-]?key|master[_.\-]?key|license[_.\-]?key|app[_.\-]?key|secret[_.\-]?key|bearer|jwt"
    r"|auth[_.\-]?token|creds|passcode)[a-z0-9_.\-]*|[a-z0-9_.\-]*[a-z0-9][_.\-]?key"
    # a personal access token (GITHUB_PAT, pat_token) and a signature (url_sig) only as a part of the
    # name of their own: path, pattern, capath, dispatch, __darwin_sigset_t hold the letters
    r"|[a-z0-9_.\-]*(?:pat|_sig)(?:[_.\-][a-z0-9_.\-]*)?"
    # DB_PASS, SMTP_PASS, MYSQL_PWD, LDAP_BIND_PW, REDIS_PASSWD: the short forms only at the end;
    # pass and pw alone (user: bob / pass: X) where the value looks like a password (checks/values.py)
    r"|[a-z0-9_.\-]*[a-z0-9][_.\-](?:pass|pwd|pw|passwd|passphrase)|pass|pw"
)
# Key names that only hint: the value must also look random (the entropy check).
WEAK = r"[a-z0-9_.\-]*(?:key|_id|client[_.\-]?id|access[_.\-]?id|sid|account|auth|salt|hash|cookie)[a-z0-9_.\-]*"

QUOTED_OR_BARE = r"""(?:"([^"\r\n]{3,})"|'([^'\r\n]{3,})'|`([^`\r\n]{3,})`|["'`]?([^\s"'`,;<>{}()\[\]\\]{3,}))"""
# `key = v`, `key: v`, `key := v`, `key => v`, `"key", "v"`, `env["key"] = v`, and typed declarations
# (`String key = v`, `var key string = v`); never across a line break.
ASSIGN = r"""(?:["'`]?\]?[ \t]*(?:=>|:{1,3}=|[?.+:]?=|\|\|=|\?\?=|:)|["'`][ \t]*,|[ \t]+[A-Za-z_][\w.\[\]<>]*[ \t]*=)[ \t]*"""

# A value after a command-line flag: quoted whole, or a bare shell word.
CMD_VALUE = r"""(?:'([^'\r\n]+)'|"([^"\r\n]+)"|([^\s'"`;|&<>()]+))"""

# Credential words in the user's language (lower case: the keyword gate sees lower-cased text).
# English ones are the other rules' job; "password" joins only where another language's verb follows.
I18N_WORDS = (
    # the twelve the issue names
    "passwort", "kennwort", "zugangsdaten", "schlüssel", "geheime", "geheimnis", "mot de passe", "mdp", "clé", "clef",
    "jeton", "contraseña", "contrasena", "clave", "secreto", "senha", "palavra-passe", "chave", "chiave", "segreto",
    "parola d'ordine", "wachtwoord", "sleutel", "парол", "ключ", "токен", "секрет", "hasł", "klucz", "şifre", "parola",
    "anahtar", "密码", "密碼", "密钥", "密鑰", "秘钥", "金鑰", "口令", "令牌", "パスワード", "暗証番号", "秘密鍵", "キー",
    "トークン", "シークレット", "비밀번호", "암호", "패스워드", "키", "토큰",
    # "password" and "token" followed by another language's words
    "password è", "password é", "password ist", "password est", "password es", "password del", "password della",
    "password dell'", "password di", "password per", "password do", "password da", "password de", "password van",
    "password für", "password voor", "token de", "token d'", "token di", "token do", "token da", "token è", "token é",
    "token ist", "token est", "token es",
    # a few more languages, as cheap as the others
    "heslo", "lösenord", "adgangskode", "passord", "salasana", "jelszó", "κωδικός", "סיסמה", "كلمة المرور", "पासवर्ड",
    "mật khẩu", "kata sandi", "รหัสผ่าน",
    # keys named for what they do, where the language writes them as one word (Dutch compounds
    # end in sleutel, which alone must stand apart; Japanese 鍵 alone is also a lock)
    "hoofdsleutel", "ondertekeningssleutel", "handtekeningsleutel", "versleutelingssleutel", "encryptiesleutel",
    "coderingssleutel", "licentiesleutel", "masterpasswort", "hauptpasswort", "hauptkennwort",
    "署名鍵", "暗号鍵", "暗号化鍵", "共通鍵", "マスター鍵", "デプロイ鍵",
)

PHONE_WORDS_LATIN = (
    "phone", "tel", "call", "callback", "call back", "hotline", "mobile", "cell", "fax", "whatsapp", "sms", "text me",
    "ring", "dial", "kontakt", "telefon", "contact", "reach", "telefonnummer", "handynummer", "mobilnummer", "rufnummer",
    "handy", "téléphone", "portable", "teléfono", "móvil", "celular", "telefone", "telemóvel", "telefono", "cellulare",
    "nummer", "número", "numéro", "numero", "numer", "tél", "my number", "mob",
)
PHONE_WORDS_OTHER = ("телефон", "тел.", "电话", "手机", "電話", "携帯", "전화", "휴대폰")

# The labels of a name/value pair (Name: DB_PASSWORD, then Value: X), as consoles print them in
# the user's language (engine/fields.py reads the pairs).
NAME_WORDS = (
    "name", "key", "variable", "parameter", "nom", "nombre", "nome", "naam", "nazwa", "klucz", "schlüssel", "clé",
    "clave", "chave", "chiave", "sleutel", "isim", "anahtar", "имя", "ключ", "名前", "キー", "이름", "키", "名称", "名稱", "键",
    # a setting's name, as Spring Boot's start-up failure (Property: app.db.password / Value: "X"),
    # app-service settings and config tables print it
    "property", "setting", "attribute", "eigenschaft", "propriété", "propiedad", "proprietà", "propriedade",
    "eigenschap", "właściwość", "свойство", "プロパティ", "속성", "属性",
)
VALUE_WORDS = (
    "value", "valeur", "valor", "wert", "valore", "waarde", "wartość", "değer", "hodnota", "värde", "verdi", "arvo",
    "érték", "значение", "τιμή", "ערך", "قيمة", "値", "값", "值",
)
