"""Whether a key names a password, in any language and any casing or separator convention.

``DB_PASSWORD`` and ``api_key`` are parts.STRONG's; this reads the rest: the word for password in
another language (rules/password_words.py) as a part of a key however the key is written
(``Passwort``, ``mot_de_passe``, ``db-senha``, ``ADMIN_KENNWORT``, ``"пароль"``, ``数据库密码``),
camelCase short forms (``adminPwd``, ``smtpPass``) and a key under a namespace
(``shop:dbPassword``, ``spring.datasource.password``). A key that says something about the
password (``max_password_length``, ``Passwort-Manager``, ``password_policy``) names none.
"""

from __future__ import annotations

import functools
import re

from jevlin_hooks.privacy.heuristics import CAMEL, key_ok
from jevlin_hooks.privacy.rules.password_words import ABOUT_WORDS, PASSWORD_WORDS

_SEPARATORS = re.compile(r"[\s_\-.:/]+")
# "_" + the word's parts + "_", for the words written with blanks or separators (mot de passe)
_JOINED = tuple(sorted({"_" + "_".join(_SEPARATORS.split(w)) + "_" for w in PASSWORD_WORDS}, key=len, reverse=True))
# words that may be run together with others in one part (dbpasswort, 数据库密码): long ones, and
# scripts written without blanks between words
_PREFIXES = tuple(w for w in PASSWORD_WORDS if len(w) >= 6 and w.isascii() and " " not in w and "_" not in w)
_UNSPACED = tuple(w for w in PASSWORD_WORDS if not w.isascii() and any("\u0e00" <= c <= "\u0e7f" or c >= "\u3000" for c in w))
_STEMS = ("парол",)  # a word's stem, inflected (пароля, паролем, паролі)
_SHORT_CAMEL = ("Pwd", "Pass", "Passwd", "PWD", "PASS")


def key_parts(key: str) -> list[str]:
    """A key's words, lower case: camelCase split, separators and namespaces cut (shop:dbPassword
    -> shop, db, password)."""
    name = key.strip("`*\"'[]<>:= \t")
    if name != name.lower() and name != name.upper():
        name = CAMEL.sub("_", name)
    return [p for p in _SEPARATORS.split(name.lower()) if p]


@functools.lru_cache(maxsize=4096)
def password_key(key: str) -> bool:
    """Whether ``key`` names a password (see the module's docstring)."""
    if not key or len(key) > 100:
        return False
    parts = key_parts(key)
    if not parts or any(p in ABOUT_WORDS for p in parts):
        return False
    last = re.split(r"[:/]", key.strip("`*\"'[]<>:= \t"))[-1]
    if not key_ok(last or key):
        return False
    joined = "_" + "_".join(parts) + "_"
    if any(w in joined for w in _JOINED):
        return True
    for p in parts:
        if p.startswith(_PREFIXES) or p.endswith(_PREFIXES) or any(w in p for w in (*_STEMS, *_UNSPACED)):
            return True
    return False
