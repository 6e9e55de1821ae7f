"""Checks of a credential named in prose: "the password is X", "use X as the token", "creds are
admin:X", a table cell after a credential's name, and credential words in the user's language."""

from __future__ import annotations

import re
from typing import Any

from jevlin_hooks.privacy.checks.judges import masked
from jevlin_hooks.privacy.checks.registry import Check, check, register
from jevlin_hooks.privacy.heuristics import (
    CODE_ROOTS,
    LETTER_RUNS,
    SNAKE,
    STOPWORDS,
    UUID,
    VERSIONISH,
    hostlike,
    in_url,
    password_like,
    placeholder,
    random_local_part,
)

_SCHEMES = frozenset(("http", "https", "ssh", "ftp", "sftp", "git", "file", "s3", "gs"))
# what may follow the credential's name in "use X as the password ...": the sentence goes on about
# the secret (for the DB, here, instead), where "use sha256 as the key derivation" names something else
_AFTER_NAME = re.compile(r"[ \t]*(?:$|[.,;:!?)\r\n]|(?:for|of|on|in|at|to|and|or|here|now|instead|when|while|with|from"
                         r"|this|that|so|but|if|please|then|until)\b)", re.IGNORECASE)
_COPULA = re.compile(r"[ \t](?:is|was|to)[ \t]", re.IGNORECASE)
# Words that make "the token lifetime is X", "the secret name is X" say something about the
# secret rather than give it (credential-in-prose takes up to four words before is/was/to)
_NOT_THE_SECRET = frozenset("""
name names arn id ids ttl lifetime expiry expiration expires length size version type endpoint url uri
path file filename format header policy policies field hash hashing algorithm prefix scope scopes
audience issuer count age rotation manager env variable var rule rules label mount template
""".split())
_JSON_ESCAPE = re.compile(r"\\[nrt]")
_KEYWORD_ARGUMENT = re.compile(r"[a-z_][a-z0-9_]*=(?:[a-z0-9_.\-]*|True|False|None)")

# credential-in-prose: 15 candidates a varied message, one finding. Its one group, the value, is
# the pattern's last, greedy part, and what precedes it (a blank or a quote) is no value
# character: the value is the run of value characters at the match's end, read off in C
# (rstrip), where RE2 took another call a candidate to say where the group is. (Tried for
# quoted-high-entropy and the assignment rules too, with the value's cheap tests before RE2's
# groups: slower, 0.92-0.98x; RE2 works out their groups in 2-3 us, less than Python reads them.)
_PROSE_CHARS = bytes(b for b in range(256) if b not in b'\t\n\f\r "\'`,;')  # VALUE = [^\s"'`,;]{6,}


def prose_value_span(data: bytes, s0: int, e0: int) -> tuple[int, int]:
    """The value group of credential-in-prose's match [s0, e0), read off the match (see above)."""
    s = s0 + len(data[s0:e0].rstrip(_PROSE_CHARS))
    if data[s] == 0x28 and e0 - s > 2:  # (X): the token in brackets, not the brackets
        return s + 1, e0 - 1 if data[e0 - 1] == 0x29 else e0
    return s, e0


# "the deploy key is ssh-ed25519 AAAA...": a public key's type; "the private key is id_ed25519",
# "... is deploy.pem": the file it is kept in
_NOT_A_KEY = re.compile(r"(?i)(?:ssh|sk-ssh|ecdsa-sha2|sk-ecdsa-sha2)-[\w@.\-]+|id_(?:rsa|dsa|ecdsa|ed25519)(?:[_\-][\w\-]*)?(?:\.pub)?"
                        r"|[\w.\-]+\.(?:pem|key|pub|p12|pfx|crt|cer|der|jks|keystore|gpg|asc|kdbx)")


_FLAG = re.compile(r"--?[A-Za-z][A-Za-z\-]*")


def _said_of_it(v: str, text: str, start: int, m: Any, code: bool) -> bool:
    """Whether prose gives the value itself: not a placeholder, a stop word, a snake_case name or a
    path; not the end of a path; not a public key's type nor a key's file; not said about the
    secret's name, lifetime, header, ..."""
    if placeholder(v, code=code) or v.lower() in STOPWORDS or SNAKE.match(v) or "/" in v or masked(v):
        return False  # (sk-...abcd, ****QX7D: shown masked, not given)
    if _NOT_A_KEY.fullmatch(v) or _FLAG.fullmatch(v):
        return False  # (Get-Secret -Vault X, the secret --name x: a command's flag, not the value)
    if m is not None and m.start() > 0 and text[m.start() - 1] in "/\\":
        return False  # .../oauth/token region=eu-west-1: the end of a path, not prose
    # the secret's name, ARN, lifetime or header is X: about the secret, not it
    return not (m is not None and not _NOT_THE_SECRET.isdisjoint(LETTER_RUNS.findall(text[m.start():start].lower())))


def _not_an_aside(v: str, text: str, start: int) -> bool:
    # "one token (whitespace_split=True)": an aside, where a token in brackets has digits
    return not (start > 0 and text[start - 1] == "(" and (_KEYWORD_ARGUMENT.fullmatch(v) or not any(map(str.isdigit, v))))


@check("prose", needs_match=True, value_span=prose_value_span)
def prose(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """The value after a credential's name in prose (up to four words, then is/was/to/=/:)."""
    v = _JSON_ESCAPE.split(value, 1)[0].rstrip(".:!?)")  # "token refresh\\nf7419b3c0 ...": a JSON string's line ends there
    # after is/was/to, prose names code by its object (the key is settings.OPENAI_KEY): any
    # other dotted value there is a password (caqpk.oa15); after = or : it may be code
    code = "." in v and (m is None or v.split(".", 1)[0].lower() in CODE_ROOTS
                         or _COPULA.search(text, m.start(), start) is None)
    if not _said_of_it(v, text, start, m, code):
        return False
    if m is not None:
        words = text[m.start():start].lower().split()
        if len(words) == 2 and words[1] == "to" and not words[0].startswith("pass"):
            return False  # "replicates a secret to eu-west-3": only a password is set to a value
    return _not_an_aside(v, text, start) and password_like(v)


@check("use-as", needs_match=True)
def use_as(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """The value before "as the password": as prose, where the name must end what is said of it."""
    v = value.rstrip(".:!?)")
    if m is not None and (VERSIONISH.match(v) or not _AFTER_NAME.match(text, m.end(0))):
        return False  # use sha256 as the key derivation function, use v2.3.1 as the token format: not the secret
    # "use X as the password" names it as after is/was/to: a dotted value is code only under a code root
    code = "." in v and (m is None or v.split(".", 1)[0].lower() in CODE_ROOTS)
    return _said_of_it(v, text, start, m, code) and _not_an_aside(v, text, start) and password_like(v)


@check("pair", needs_match=True)
def pair(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """The password of a user name and password given together (group 1 the user)."""
    v = value.rstrip(".:!?)")
    user = (m.group(1) or "") if m is not None else ""
    if v.startswith(("/", ":")) or "://" in v or v.count("/") >= 2 or len(user) == 1 or user.lower() in _SCHEMES:
        return False  # login at https://host/login, credentials: C:/Users/..., login from fe80::1: a URL, a path, an address
    if user.replace(".", "").isdigit() or hostlike(user.lower()):
        return False  # login at 10:30:15.12Z, login 10.0.0.5:2222/tcp, sign in to example.com:8443: a time, a host and port
    return password_like(v) and v.lower() != user.lower() and not placeholder(v, code=False)


_I18N_TOKEN = re.compile(r"[A-Za-z0-9!#$%&*+\-./:;=?@^_|~]+")


def i18n_span(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The first word after a credential word that looks like one (CJK particles and punctuation
    around it are not part of it: 密码是X, パスワードはXです, 비밀번호는 X입니다)."""
    for m in _I18N_TOKEN.finditer(text, s, e):
        a, b = m.span()
        if a == s and text.startswith("-", a):
            a += 1  # Passwort-Manager: the rest of a compound word, not what follows the word
        while a < b and text[a] in ":=;":
            a += 1
        while b > a and text[b - 1] in ".,;:!?":
            b -= 1
        tok = text[a:b]
        if len(tok) < 6 or tok.isalpha() and (tok.islower() or tok.istitle() or len(tok) < 12):
            continue  # a plain word (the cheap test first: prose is full of them)
        if not password_like(tok):
            continue
        if placeholder(tok, code=False) or hostlike(tok) or "://" in tok or tok.count("/") >= 2:
            continue
        if VERSIONISH.match(tok) and (tok.lower() == tok or tok.upper() == tok) and not random_local_part(tok) \
                or UUID.match(tok):
            continue  # 1.2.3, 2.0.0-rc1, 4.1-SNAPSHOT; not 2-56-XfvX3s, whose tail is cased at random
        return a, b
    return None


def _i18n_after_word(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The credential-looking word in the line after a credential word at [s, e)."""
    if in_url(text, s):
        return None  # postgres://root:j5cC.mdP@host: a word inside a URL labels nothing
    n = len(text)
    end = text.find("\n", e, e + 64)
    if end < 0:
        end = min(n, e + 64)
        rest = _I18N_TOKEN.match(text, end, min(n, end + 256)) if _I18N_TOKEN.match(text, end - 1, end) else None
        if rest:  # the 64 characters cut a word: it is taken whole (a host name ends in its suffix)
            end = rest.end()
    return i18n_span(text, e, end)


register(Check("i18n", span=lambda text, s, e, m: i18n_span(text, s, e), from_word=_i18n_after_word))
