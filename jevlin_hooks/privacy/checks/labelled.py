"""A password given after its label, in any language: ``Passwort: X``, ``"mot_de_passe": "X"``,
``пароль = X``, ``[07:49] 李静: 密码: X``, ``adminPassword: bamboo_lantern_cobalt_lilac``.

The label is a key that names a password (password_names.py: the word for password in many
languages, as a part of a key in any casing or separator convention) standing where a label
stands: first on its line (after blanks, a list bullet, a quote or a comment mark), after a
``speaker:`` or a table bar, or next in a one-line object. Then ``:``, ``=``, ``：`` or ``=>``
and the value: a quoted string whole (escapes read), or the rest of the line, which may hold
blanks (a passphrase).

The single values of the keys credential-assignment reads (DB_PASSWORD) are that rule's: here
only what it cuts short after them, a passphrase of words (``password: spruce dragon cabin glacier``,
``maple_orange_river_stone``). Under another language's word a plain word is a password, as a
plain word is after ``password:`` (``Passwort: dlwbuqju``); what stays: a placeholder or a
reference, a mask, a count or a duration, a URL or a path, a sentence.
"""

from __future__ import annotations

import re

from jevlin_hooks.privacy.checks.judges import count_or_duration, masked, phrase_value, spaced_password
from jevlin_hooks.privacy.checks.password_names import password_key
from jevlin_hooks.privacy.checks.registry import Check, register
from jevlin_hooks.privacy.heuristics import STOPWORDS, in_url, looks_fake, password_like, placeholder
from jevlin_hooks.privacy.rules import parts

_STRONG = re.compile(parts.STRONG, re.IGNORECASE)  # the key names credential-assignment reads
_KEY_CHARS = "_.-"
_BEFORE = " \t-*#>/\"'`{[(,|•"  # what may stand before a label on its line
_SEPARATORS = ("=>", ":=", ":", "=", "\uff1a")  # ： (full-width, CJK text)
_LONGEST = 200  # a value longer than this is no password after a label (a paragraph)
# "none", "empty", "see below" in a few languages: a label's value that says there is none
_NOTHING = frozenset("""
none empty null nil unset blank leer keine kein nichts aucun aucune vide ninguna ninguno vacio vacía vazio vazia nenhuma
nessuna vuoto geen leeg brak brak żadne нет пусто yok boş 无 なし 없음
""".split())


def _key_span(text: str, s: int, e: int) -> tuple[int, int]:
    ks, ke, n = s, e, len(text)
    while ks > 0 and (text[ks - 1].isalnum() or text[ks - 1] in _KEY_CHARS):
        ks -= 1
    while ke < n and (text[ke].isalnum() or text[ke] in _KEY_CHARS):
        ke += 1
    return ks, ke


def _label_position(text: str, ls: int, ks: int) -> bool:
    """Whether what stands before the key on its line leaves it a label: nothing but blanks and
    markup, or a ``speaker:``, a table bar or an object's comma or brace just before it."""
    before = text[ls:ks]
    if not before.strip(_BEFORE):
        return True
    tail = before.rstrip(" \t\"'`")
    return tail.endswith((":", "|", ",", "{", "\uff1a")) and not tail.endswith("://")


def _separator_end(text: str, ke: int, le: int) -> int:
    """Past the key's closing quote or bracket and the separator and the blanks after it; -1 where none."""
    i = ke
    while i < le and text[i] in "\"'`]\\":
        i += 1
    while i < le and text[i] in " \t":
        i += 1
    for sep in _SEPARATORS:
        if text.startswith(sep, i):
            i += len(sep)
            if sep == ":" and text.startswith(":", i):
                return -1  # a::b, a C++ scope
            while i < le and text[i] in " \t":
                i += 1
            return i
    return -1


def _quoted(text: str, i: int, le: int) -> tuple[int, int] | None:
    """The inside of the string opened at ``i`` (its escapes read past), or None if it does not close on the line."""
    q = text[i]
    j = i + 1
    while j < le:
        c = text[j]
        if c == "\\" and q == '"':
            j += 2
            continue
        if c == q:
            return i + 1, j
        j += 1
    return None


def _value(v: str, quoted: bool, english: bool) -> bool:
    if not 4 <= len(v) <= _LONGEST or masked(v) or count_or_duration(v) or looks_fake(v):
        return False
    if "://" in v or v.startswith(("/", "~/", "./", "../")) or v.lower() in _NOTHING:
        return False
    words = v.split()
    if len(words) > 1 or phrase_value(v):
        if phrase_value(v):
            return True
        if not quoted and any(p in v for p in (", ", ": ", "=", "; ")):
            return False  # Password: cfg.DBPass, Host: cfg.Host: more pairs, code
        if spaced_password(v) and (quoted or not english):
            return True
        # a quoted value under another language's word for password: the value, blanks and all,
        # where it holds a digit or a symbol (a sentence in quotes, "siehe Vault", holds neither)
        return quoted and not english and len(words) <= 10 and any(not c.isalpha() and not c.isspace() for c in v) \
            and not placeholder(words[0], code=False)
    if english:
        return False  # a single value after an English key: credential-assignment's
    if not quoted:  # bare: it may be code (adminPwd: cfg.adminPwd, / pwd = getPwd();)
        v = v.rstrip(",;")
        if v.endswith(")") and "(" in v or placeholder(v, code=True):
            return False
    if placeholder(v, code=False) or v.lower() in STOPWORDS:
        return False
    return len(v) >= 6 or password_like(v)


def label_value(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The value after a password's label holding the word at [s, e) (see the module's docstring)."""
    ks, ke = _key_span(text, s, e)
    le = text.find("\n", ke)
    if le < 0:
        le = len(text)
    # the separator first: prose names a password far more often than it labels one
    i = _separator_end(text, ke, le)
    if i < 0 or i >= le or not password_key(text[ks:ke]) or in_url(text, ks):
        return None
    ls = text.rfind("\n", 0, ks) + 1
    if not _label_position(text, ls, ks):
        return None
    # a key credential-assignment reads (DB_PASSWORD): its single values are that rule's; not
    # adminPwd, smtpPass (camelCase short forms), nor another language's word
    english = _STRONG.fullmatch(text[ks:ke]) is not None
    if text[i] in "\"'":
        span = _quoted(text, i, le)
        if span is None:
            return None
        vs, ve = span
        quoted = True
    else:
        vs, ve = i, len(text[:le].rstrip(" \t\r"))
        if text[ve - 1:ve] in ",;" and text[ls:ks].rstrip(" \t\"'`").endswith((",", "{")):
            ve -= 1  # {"a": 1, pass: x, ...}: an object on one line; its comma closes the value
        quoted = False
    if quoted and english and '\\"' in text[vs:ve]:
        english = False  # "ab\":cd...": credential-assignment's value ends at the escaped quote; the label reads it whole
    if ve <= vs or not _value(text[vs:ve], quoted, english):
        return None
    return vs, ve


register(Check("label", span=lambda text, s, e, m: label_value(text, s, e), from_word=label_value, inside_words=True))
