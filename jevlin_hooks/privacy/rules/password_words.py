"""The word for "password" in the languages people write configs and notes in, as a key's part.

A key holding one of these (``Passwort``, ``mot_de_passe``, ``"пароль":``, ``hasło =``,
``كلمة_المرور:``, ``adminPwd``) names a password whatever else the key says, where the English key
patterns (parts.STRONG) read only English. checks/password_names.py reads a key against them;
checks/labelled.py takes the value of such a key; the credential-field judge takes such a column.

Lower case (the scrubber's keyword gate sees lower-cased text), each as a key writes it: with its
blanks, with underscores and run together (transliterations included: mat_khau, sifre, haslo).
Words that also mean "key" or "name" (Schlüssel, clave, ключ) are not here: a Name/Key label
names a field, it does not hold a password.
"""

from __future__ import annotations

PASSWORD_WORDS: tuple[str, ...] = (
    # English, for the keys STRONG reads in part: a passphrase after them, adminPwd, smtpPass
    "password", "passwd", "passphrase", "passcode", "pwd", "pass",
    # German, French, Spanish, Catalan, Portuguese, Italian, Dutch, Afrikaans
    "passwort", "kennwort", "mot de passe", "mot_de_passe", "motdepasse", "mdp", "contraseña", "contrasena",
    "contrasenya", "senha", "palavra-passe", "palavra_passe", "parola d'ordine", "wachtwoord", "wagwoord",
    # Polish, Czech, Slovak, Slovene, Croatian/Serbian/Bosnian, Hungarian, Romanian, Lithuanian, Estonian
    "hasło", "haslo", "heslo", "geslo", "lozinka", "jelszó", "jelszo", "parola", "slaptažodis",
    "slaptazodis", "salasõna", "salasona",
    # Nordic, Finnish, Turkish, Indonesian/Malay, Vietnamese, Tagalog
    "lösenord", "losenord", "adgangskode", "passord", "salasana", "şifre", "sifre", "kata sandi", "kata_sandi",
    "katasandi", "kata laluan", "kata_laluan", "mật khẩu", "mat khau", "mat_khau", "matkhau",
    # Cyrillic (a stem: пароль, пароля, паролем), Greek, Hebrew, Arabic, Persian, Hindi, Thai
    "парол", "лозинка", "гасло", "κωδικός", "κωδικος", "συνθηματικό", "סיסמה", "סיסמא", "كلمة المرور",
    "كلمة_المرور", "كلمة السر", "رمز عبور", "گذرواژه", "पासवर्ड", "รหัสผ่าน",
    # Chinese, Japanese, Korean
    "密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호", "패스워드", "암호",
)

# The English ones: their keys' single values are credential-assignment's (rules/context.py); a
# label reads only what that rule cuts short after them (a passphrase with blanks, words_joined_so).
ENGLISH = frozenset(("password", "passwd", "passphrase", "passcode", "pwd", "pass"))

# Parts of a key that make it say something about the password rather than hold it
# (Passwort-Manager, mot_de_passe_oublie, password_policy): the key's other parts are checked too
# by heuristics.key_ok's English endings (_length, _ttl, _hash, ...).
ABOUT_WORDS = frozenset("""
manager policy policies reset hint hints length len rule rules strength expiry expires expiration age history min max
minimum maximum hash hashed hasher salt file path field prompt label form input change changed forgot forgotten
oublie olvidado vergessen esqueceu dimenticata vergeten richtlinie politique politica regel tip type format
""".split())
