"""Checks of a value given to a credential: on a command line, under a key name, in XML, in code.

Every test here only turns a candidate down, so their order changes nothing but the cost: each
check runs its own cheap tests first (a cached key-name test, a shape test), before the
placeholder regexes would have to run.
"""

from __future__ import annotations

import re
from typing import Any

from jevlin_hooks.privacy.checks.decoys import named_digest, namespaced_id, site_verification
from jevlin_hooks.privacy.checks.registry import check
from jevlin_hooks.privacy.heuristics import (
    CAMEL,
    CHECK_LIMIT,
    CODE_ROOTS,
    PUBLIC_SHAPE,
    encoded_placeholder,
    entropy_key_ok,
    hostlike,
    in_userinfo,
    key_ok,
    named_pair_ok,
    near_pub,
    password_like,
    placeholder,
    public_label,
    random32_cached,
    random_looking_cached,
)
from jevlin_hooks.privacy.public import gpg_key_id, in_arn

_NAME_IN_VALUE = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)=(?!=*$)")
_NEXT_IS_KEY = re.compile(r"""["'`]?[ \t]*:(?!:)""")
_QUOTE_COMMA = re.compile(r"""["'][ \t]*,""")
_NAME_THEN_EQUALS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PORT = re.compile(r"\d{1,5}(?:/|$)")
_DATA_SEPARATORS = frozenset(("=", '="', "='", ": ", ': "', ": '"))
_DECLARED = re.compile(r"[\"'`]?\]?[ \t]+([A-Za-z_][\w.]*)[ \t]*=")
_NEXT_PAIR = re.compile(r"[ \t]+[A-Za-z_]+=")
_YAML_PAIR = re.compile(r"[ \t]*(?:- )?[A-Za-z_][\w.\-]*:(?:[ \t]+[^\s#][^\r\n]*)?\r?")


def _before(value: str, text: str, start: int, end: int) -> bool:
    """What every credential value passes first."""
    if end < len(text) and text[end] == "(":
        return False  # get_token(): a call, not a value
    if in_arn(text, start):
        return False  # arn:aws:secretsmanager:...:secret:prod/db-AbC: names a secret, holds none
    # https://x-access-token:PASS@host: url-credentials takes the password alone
    return not ("@" in value and in_userinfo(text, start))


def _after(value: str, text: str, start: int, end: int, m: Any) -> bool:
    """What every credential value passes last, before the placeholder test."""
    if _NEXT_IS_KEY.match(text, end) and not text.startswith(("://", ":/"), end) and text[start - 1:start] in "\"'`":
        return False  # "kind": "Secret", "data": {...}: the next key of an object, not this one's value
    # pass: 3/3, pw: true, "you can pass timeout = 30s": "pass" alone says less than "password"
    return not (m is not None and (m.group(1) or "").lower() in ("pass", "pw") and (
        not password_like(value.rstrip(".:!?)")) or any(map(str.isalpha, text[m.end(1):start]))))


@check("command", needs_match=True)
def command(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A value on a command line (a flag's, an argument's, what is piped in): never a reference."""
    return _before(value, text, start, end) and _after(value, text, start, end, m) and not placeholder(value, code=False)


@check("cli-command", needs_match=True)
def cli_command(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """As command; a value starting with / is a Windows flag (net use ... /persistent:no, net user bob /add)."""
    return _before(value, text, start, end) and not value.startswith("/") and _after(value, text, start, end, m) \
        and not placeholder(value, code=False)


@check("directive", needs_match=True)
def directive(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """As command; a value starting with -- is a flag (rootpw --iscrypted HASH)."""
    return _before(value, text, start, end) and not value.startswith("--") and _after(value, text, start, end, m) \
        and not placeholder(value, code=False)


def _data_assignment(m: Any, text: str, start: int, end: int) -> bool:
    """A value assigned where no language refers to a variable by a dotted name: a shell or .env
    line or a YAML env block (an upper-case name, `=` with no blank or `: `: DB_PASS=x,
    MONGO_INITDB_ROOT_PASSWORD: x), a quoted literal put under a subscript key, a label ending its
    line (`Password: x`), or a connection string's pair (`Password=x;`, libpq's `password=x dbname=y`)."""
    name = m.group(1) or ""
    sep = text[m.end(1):start]
    if name.isupper() and sep in _DATA_SEPARATORS or sep.startswith(('"]', "']")) and sep[-1:] in "\"'":
        return True  # (os.environ["DB_PASSWORD"] = "x.y": a string literal put in a mapping)
    if sep == ": " and text[end:end + 1] in ("", "\n", "\r"):  # the value ends its line
        if name.istitle() and name.isalpha():
            return True  # Password: ysuI25.XF0: a label (a Go field is Password: cfg.DBPass, with its comma)
        if _random_enough(text[start:end]) and _in_yaml_block(text, m.start(1), end):
            return True  # user: etl / pass: nxZly5.wC5 / host: db: YAML, which refers to nothing (code has its commas)
    return sep == "=" and (text.startswith(";", end) or _NEXT_PAIR.match(text, end) is not None)


def _random_enough(v: str) -> bool:
    """Digits and both cases, under no code root: nxZly5.wC5, not a type annotation in a class body
    (password: models.CharField, token: np.int64) nor settings.AWS_KEY2."""
    return (any(map(str.isdigit, v)) and not v.islower() and not v.isupper()
            and v.split(".", 1)[0].lower() not in CODE_ROOTS)


def _in_yaml_block(text: str, key_start: int, end: int) -> bool:
    """Whether the line holding the key at ``key_start`` (which starts the line) sits among YAML
    lines: the line before or after is `key:` or `key: value` that ends in no comma, brace,
    bracket or semicolon (an object literal in code has its commas between the lines)."""
    ls = text.rfind("\n", 0, key_start) + 1
    if text[ls:key_start].strip(" \t-"):
        return False
    neighbours = [text[text.rfind("\n", 0, ls - 1) + 1:ls - 1]] if ls else []
    if end < len(text):
        stop = text.find("\n", end + 1)
        neighbours.append(text[end + 1:stop if stop >= 0 else len(text)])
    return any(_YAML_PAIR.fullmatch(line) is not None and not line.rstrip().endswith((",", "{", "(", "[", ";"))
               for line in neighbours)


# The candidate-heavy rules' commonest rejections, told from the match alone (no groups): on a
# varied message 48 quoted-high-entropy candidates, 38 generic-high-entropy and 32
# credential-assignment ones, most turned down for their key name (client_id, user_id, cache_key)
# or, under quoted-high-entropy, a digest or UUID value. Their key name is group 1, the run of
# name characters right after the match's first character (or from 0, where ^ matched): what
# follows a name in these patterns is a quote, a blank, `=`, `:`, `,`, `]`, `?`, `+`, `|` or `.`
# (`key.=`), and of those only `.` is a name character, so where the run does not end in `.` the
# name is the whole run (greedy, and no shorter name leaves a match the longer one does not).
# The three rules' patterns are ASCII: they run on the one-byte view, whose offsets are the text's.
ASSIGN_NAME = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"  # [a-z0-9_.\-] under (?i)
QUOTED_NAME = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"  # [A-Za-z0-9_\-]
_QUOTED_VALUE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_HEX_DASH = b"0123456789abcdefABCDEF-"


def name_end(data: bytes, s0: int, e0: int, chars: bytes) -> tuple[int, int]:
    """Where group 1 (the key name) of a match [s0, e0) of these rules lies: see above."""
    ns = s0 if s0 == 0 and data[0] in chars else s0 + 1
    seg = data[ns:e0]
    return ns, ns + len(seg) - len(seg.lstrip(chars))


def _rejects_assignment(text: str, data: bytes, s0: int, e0: int) -> bool:
    ns, ne = name_end(data, s0, e0, ASSIGN_NAME)
    return data[ne - 1] != 0x2E and not key_ok(text[ns:ne])


def _rejects_weak(text: str, data: bytes, s0: int, e0: int) -> bool:
    ns, ne = name_end(data, s0, e0, ASSIGN_NAME)
    return data[ne - 1] != 0x2E and not entropy_key_ok(text[ns:ne])


def _rejects_quoted(text: str, data: bytes, s0: int, e0: int) -> bool:
    ns, ne = name_end(data, s0, e0, QUOTED_NAME)
    if not entropy_key_ok(text[ns:ne]):
        return True
    # The value ends the match. Where it ends in a run of 32+ hex digits and dashes with no value
    # character before the run, the value is that run: what precedes a value in the pattern (a
    # quote, a blank, `:`, `,`, `=`, `>`) is no hex digit or dash. A digest or UUID: rejected.
    seg = data[ne:e0]
    r = len(seg.rstrip(_HEX_DASH))  # >= 1: the name is followed by a quote, a blank or `=:,`
    return len(seg) - r >= 32 and seg[r - 1] not in _QUOTED_VALUE \
        and PUBLIC_SHAPE.match(text[ne + r:e0][:CHECK_LIMIT]) is not None


@check("assignment", needs_match=True, rejects=_rejects_assignment)
def assignment(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A value assigned to a credential-named key (group 1), in any language or format."""
    if not _before(value, text, start, end):
        return False
    key = m.group(1) if m is not None else None
    if key and (not key_ok(key) or gpg_key_id(key, value)):
        return False
    if m is not None and " " in (m.group(4) or ""):
        return False  # KEY=`some command`: command substitution, not a value
    if m is not None and _QUOTE_COMMA.match(text, m.end(1)) and text[m.start(1) - 1:m.start(1)] != text[m.end(1)]:
        return False  # "prod/db-creds","38414": a CSV row's cells, where "key", "value" quotes the key whole
    if m is not None and m.group(5) and text[end:end + 1] in "\"'" \
            and _NAME_THEN_EQUALS.fullmatch(value) and text[m.end(1):start].rstrip().endswith(","):
        return False  # Key="mykey",Value="v": the next pair's name, not this key's value
    if m is not None and _PORT.match(value) and m.group(1) \
            and text.startswith(":", m.end(1)) and hostlike(m.group(1).lower()):
        return False  # db-pwdy.corp.example.org:6379: a host and its port ("pwd" in a host name)
    if not _after(value, text, start, end, m):
        return False
    return not placeholder(value, code=not (m is not None and _data_assignment(m, text, start, end)))


@check("xml", needs_match=True)
def xml(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A credential-named element's text or a key/value attribute pair's value."""
    if not _before(value, text, start, end):
        return False
    key = (m.group(1) or m.group(3)) if m is not None else None  # the element's name, or the key attribute's value
    if key and not key_ok(key):
        return False
    return _after(value, text, start, end, m) and not placeholder(value, code=True)


@check("auth-call", needs_match=True)
def auth_call(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A password given with its user name to a call: a quoted literal, never a reference."""
    if not _before(value, text, start, end):
        return False
    if m is not None and text.startswith(".", m.start()) and not password_like(value):
        return False  # client.login('user', 'pass'): a method named login says less than HTTPBasicAuth
    return _after(value, text, start, end, m) and not placeholder(value, code=False)


@check("entropy", needs_match=True, rejects=_rejects_weak)
def entropy(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A random-looking value under a key-like name (group 1) that names a credential."""
    if m is not None and (not entropy_key_ok(m.group(1) or "") or near_pub(text, start) and public_label(text, m.start(1))):
        return False
    declared = _DECLARED.match(text, m.end(1)) if m is not None else None
    if declared is not None and not entropy_key_ok(declared.group(1)):
        return False  # `authenticated. token_accessor=X`: the name assigned to is the second (a typed declaration's)
    if named_digest(value) or namespaced_id(value):
        return False  # node-modules-<sha256>, key=sku:IU-4783-24: public (decoys.py)
    return random_looking_cached(value)


@check("entropy32", needs_match=True, rejects=_rejects_quoted)
def entropy32(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """32 or more random-looking characters, digits among them, next to any name but a public one."""
    if len(value) < 32 or value.isdigit() or value.isalpha() or encoded_placeholder(value):
        return False
    if PUBLIC_SHAPE.match(value[:CHECK_LIMIT].strip().strip("\"'`")):
        return False  # what random_looking rejects first (digests, UUIDs: half the candidates), before the key name
    if named_digest(value) or site_verification(text, start):
        return False  # node-modules-<sha256>, AC<32 hex>, <meta name="google-site-verification" content=...> (decoys.py)
    name = (m.group(1) or "") if m is not None else ""
    if m is not None and not entropy_key_ok(name):
        return False
    inner = _NAME_IN_VALUE.match(value) if m is not None else None  # (once: the tail is judged with no name)
    if inner is not None:  # "APP_ENV=x", "SOURCE_COMMIT=9a44...": a NAME=value the value run took in; sha-256=...
        return len(value) - inner.end() >= 32 and entropy_key_ok(inner.group(1)) \
            and entropy32(value[inner.end():], text, start + inner.end(), end, None, lower)
    if value.startswith("eyJ") and text.startswith(".ey", end):
        return False  # a JWT's header: the jwt rule judges the whole token
    if m is not None and (near_pub(text, start) and public_label(text, m.start(1))
                          or name.lower() == "value" and not named_pair_ok(text, m.start(1), name)):
        return False
    quoted = start > 0 and text[start - 1] in "\"'`"
    if not quoted and m is not None and CAMEL.search(name) and "=" in text[m.end(1):start]:
        return False  # sumOfExposures = 3Kof...: code, where a secret would be a string literal
    return any(map(str.isdigit, value)) and random32_cached(value)
