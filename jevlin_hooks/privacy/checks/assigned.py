"""Values under a credential's name in the forms credential-assignment reads short or not at all.

* ``env-line``: an env file's or env dump's line, ``NAME=value`` from the line's start, whose
  value holds a character that ends a value in code (``; ( ) { } < > [ ] \\``):
  ``OCI_AUTH_TOKEN=Uo;:40)bi)x:UR(a{b>K``, ``- DJANGO_SECRET_KEY=66mj#4)qt_5w...``. An env line
  has no code in it: the value runs to the line's end;
* ``yaml-next-line``: a YAML key with its value on the next, deeper-indented line (a plain
  scalar folded under its key: ``client_secret:`` / ``  EFX5rMpoya4c...``);
* ``attribute``: an XML or HTML element named for a credential by its ``name``, ``key`` or
  ``id`` attribute, the value in its ``value`` attribute or its text: Android's ``<string
  name="backend_api_secret">X</string>``, ``<input name="api_key" value="X">``, .NET's ``<add
  key="DD_APP_KEY" value="X"/>``;
* ``yaml-children``: the values under a YAML parent that names credentials (``api_tokens:``,
  ``secrets:``, ``passwords:``), each child named for a vendor or a service (``cohere: "..."``,
  ``vercel: "..."``): a random-looking value, or a long password;
* ``pgpass``: a line of PostgreSQL's password file, ``host:port:database:user:password`` (the
  port a number or ``*``): the last field;
* ``otp-seed``: a TOTP seed (16 to 64 base32 characters) under a name holding seed, totp, otp,
  mfa or 2fa (``MFA_SEED=6TXV4FRY3CYF7HRL``).

The name is judged as the field judges judge a key (judges.credential_key: ``strong`` takes any
credential-looking value, ``weak`` a random-looking one), the value as theirs.
"""

from __future__ import annotations

import re
from typing import Any

from jevlin_hooks.privacy.checks.judges import credential_key, credential_value
from jevlin_hooks.privacy.checks.registry import Check, check, register
from jevlin_hooks.privacy.heuristics import hostlike, placeholder, random_looking_cached

_CODE_ENDS = frozenset(";(){}<>[]\\")


def _named(key: str, value: str) -> bool:
    kind = credential_key(key)
    if not kind:
        return False
    return credential_value(value, kind)


@check("env-line", needs_match=True)
def env_line(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """NAME=value from a line's start, the value to the line's end (see the module's docstring)."""
    if m is None or _CODE_ENDS.isdisjoint(value.rstrip(";")):
        return False  # no such character (or a shell line's closing ;): credential-assignment reads it whole
    if placeholder(value, code=False) or value.startswith("$"):
        return False  # $(cat f), ${X:-y}, <your token>: a reference, a placeholder
    return _named(m.group(1) or "", value)


@check("yaml-next-line", needs_match=True)
def yaml_next_line(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A YAML key's value on the next, deeper line."""
    if m is None or len(m.group(3) or "") <= len(m.group(1) or ""):
        return False  # the next line is no deeper: a sibling key, or a list of the parent's
    if value.endswith(":") or placeholder(value, code=False):
        return False
    return _named(m.group(2) or "", value)


@check("attribute", needs_match=True)
def attribute(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """An element named for a credential by its name/key/id attribute: its value attribute or text."""
    return m is not None and _named(m.group(1) or "", value.strip())


_BASE32 = re.compile(r"[A-Z2-7]{16,64}|[a-z2-7]{16,64}")


@check("otp-seed", needs_match=True)
def otp_seed(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """Base32 of one case, two digits or more among its letters (the name says what it is: a word
    in capitals, ABCDEFGHIJKLMNOP, has none)."""
    if _BASE32.fullmatch(value) is None:
        return False
    digits = sum(c.isdigit() for c in value)
    return 2 <= digits <= len(value) - 4 and len(set(value)) >= 8


@check("pgpass", needs_match=True)
def pgpass(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """The password of a .pgpass line: its host a host name, an address, localhost or *."""
    if m is None:
        return False
    host = (m.group(1) or "").lower()
    if not (host == "*" or hostlike(host) or "." not in host and host.replace("-", "").isalnum()
            or host.replace(".", "").isdigit()):
        return False
    return value != "*" and not placeholder(value, code=False) and len(value) >= 4


_CHILD = re.compile(r"([ \t]+)[\"']?[A-Za-z0-9_.\-]{1,64}[\"']?[ \t]*:[ \t]+(?:\"([^\"\r\n]{8,})\"|'([^'\r\n]{8,})'|([^\s#\"'][^\s#]{7,}))[ \t]*\r?$")
_MAX_CHILDREN = 64


def _child_secret(v: str) -> bool:
    """A child's value under a parent naming credentials: random-looking, or a long password."""
    return not placeholder(v, code=False) and (random_looking_cached(v) or len(v) >= 12 and credential_value(v, "strong"))


def yaml_children(text: str, s: int, e: int, m: Any) -> list[tuple[int, int]] | None:
    """The values of the keys under a YAML parent that names credentials (api_tokens:,
    secrets:, passwords:): each child names a vendor or a service, the parent says what its
    value is. [s, e) is the parent's line break; group 1 the parent's indent."""
    indent = len(m.group(1) or "") if m is not None else 0
    spans: list[tuple[int, int]] = []
    pos = e
    for _ in range(_MAX_CHILDREN):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        c = _CHILD.match(text, pos, end)
        if c is None:
            if text[pos:end].strip() and len(text[pos:end]) - len(text[pos:end].lstrip(" \t")) > indent:
                pos = end + 1  # a deeper line of another shape (a nested map, a list): passed over
                if pos >= len(text):
                    break
                continue
            break
        if len(c.group(1)) <= indent:
            break
        g = 2 if c.group(2) is not None else 3 if c.group(3) is not None else 4
        if _child_secret(c.group(g)):
            spans.append(c.span(g))
        pos = end + 1
        if pos >= len(text):
            break
    return spans or None


register(Check("yaml-children", span=yaml_children))
