"""Checks of tokens with a known shape: vendor tokens, auth headers and flags, base64 wrappers,
Kubernetes Secret data, YAML blocks under a credential's name."""

from __future__ import annotations

import base64
import re
from typing import Any

from jevlin_hooks.privacy.checks.decoys import other_manifest, sentry_public_key
from jevlin_hooks.privacy.checks.registry import Check, check, register
from jevlin_hooks.privacy.heuristics import (
    HEX_BODY,
    case_switches,
    encoded_placeholder,
    entropy,
    few_vowels,
    looks_fake,
    pem64_private,
    placeholder,
    random_case,
    random_looking_cached,
    shaped,
)
from jevlin_hooks.privacy.public import anon_jwt, masked

_AUTH_SCHEMES = frozenset(("bearer", "basic", "token", "digest", "apikey", "api-key", "negotiate", "ntlm"))


@check("authz")
def authz(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """An Authorization header's credential, after its scheme."""
    parts = value.split(None, 1)
    cred = parts[1] if len(parts) == 2 else parts[0]
    if len(parts) == 1 and cred.lower() in _AUTH_SCHEMES:
        return False  # "Authorization: Bearer" and the credential on another line, or none
    return not placeholder(cred) and not cred.startswith(("$", "{", "..."))


@check("jwt")
def jwt(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """Any JWT but a Supabase anon key (claims with role anon), which every browser gets."""
    return not anon_jwt(value)


_URL_REFERENCE = re.compile(r"\$\{[^}]*\}|\$[A-Z_][A-Z0-9_]*|\{\{.*\}\}|%\([a-z_]+\)s")


@check("url-password")
def url_password(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A URL's password, unless it is masked (***) or a variable (${DB_PASSWORD}, {{ pw }}):
    the URL as a log or a template shows it."""
    return not masked(value) and _URL_REFERENCE.fullmatch(value) is None


@check("userinfo")
def userinfo(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    # https://TOKEN@github.com: git takes a token as the user name; an account (git, deploy-bot) stays
    if sentry_public_key(text, start, end):
        return False  # a Sentry DSN's public key: public by Sentry's docs (decoys.py)
    return (random_looking_cached(value) or len(value) >= 32 and HEX_BODY.fullmatch(value) is not None) and shaped(value)


@check("slack")
def slack(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    # Slack's numeric parts are team, user and bot ids (6 to 13 digits in every token seen);
    # a one-digit version may lead. xoxp-1234-1234-1234-... is a made-up shape.
    numbers = [p for p in value.replace(".", "-").split("-") if p.isdigit() and len(p) > 1]
    return sum(map(str.isdigit, value)) >= 8 and all(len(p) >= 6 for p in numbers)


@check("anthropic")
def anthropic(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    # API and admin keys are 95 characters ending AA; a value of about that length that
    # varies is taken too (a key cut or mistyped by a few characters still works as a
    # lead), a short one with words in it is a fixture. Other kinds (OAuth, session) are
    # taken at any length.
    kind_end = value.find("-", 7) + 1
    if value.startswith(("sk-ant-api", "sk-ant-admin")):
        body = value[kind_end:]
        return len(body) == 95 and value.endswith("AA") or 85 <= len(body) <= 110 and shaped(body)
    return True


@check("shape")
def shape(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A token whose random part varies (see heuristics.shaped)."""
    return shaped(value)


def _body(value: str) -> str:
    """A prefixed token's random part: after its first _ (in the first 8 characters), else all of it."""
    return value.split("_", 1)[-1] if "_" in value[:8] else value


@check("random")
def random_token(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A vendor token whose random part looks random."""
    body = _body(value)
    if start > 0 and text[start - 1] == ".":
        return False  # video_box.ico-7a38....png: part of a dotted file or host name
    # no digit: a random body is still mixed case all through (dckr_pat_viHyZdcTMsgvoYE__rYSOu,
    # ATBBEhOFNJGredodwpEAIJzSlq...), where code is words (s.AcceptanceTimeoutSeconds);
    # capitals close together say random even where the case switches only 7 times in 27
    # (dckr_pat_kemyCDEPojGnqrNqeg-Huopoa-A)
    return shaped(body) and (any(map(str.isdigit, body)) or len(body) >= 40
                             or len(body) >= 20 and (case_switches(body) >= 8 and "_" in value[:10]
                                                     or random_case(body) or few_vowels(body)))


@check("bootstrap-token")
def bootstrap_token(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """As random, but for a Kubernetes bootstrap token its exact shape (6.16 lower-case, after the
    word token) is the evidence: it need not hold a digit."""
    if start > 0 and text[start - 1] == ".":
        return False  # part of a dotted file or host name
    return shaped(_body(value))


@check("userpass")
def userpass(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """user:password given to curl, wget or HTTPie."""
    user, _, password = value.replace('"', "").partition(":")
    if not password:  # an API key given as the user name (curl -u "KEY:")
        return len(user) >= 8 and not placeholder(user) and entropy(user) >= 3.0
    # user:password is never a reference in code: a dotted password (qUpq04.CYRP1) is a value
    return not placeholder(password, code=False) and password.lower() not in ("token", "pass", user.lower())


_K8S_KINDS = ("kind: secret", "kind: 'secret'", 'kind: "secret"', "kind:secret")


def k8s_secret(low: str) -> bool:
    """Whether the lower-cased text holds a Kubernetes Secret manifest's kind (one search for
    what all four spellings begin with, then the four)."""
    return "kind:" in low and any(k in low for k in _K8S_KINDS)


# The rule runs only where a kind: Secret is in the text (its check would turn every match down
# elsewhere), and a base64 certificate there is data of the Secret like any other value.
@check("k8s", text_gate=k8s_secret, public_pem_kept=False)
def k8s(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    low = lower or text.lower()
    if not k8s_secret(low) or other_manifest(low, start, _K8S_KINDS):
        return False  # (a ConfigMap's data beside a Secret: decoys.py)
    if encoded_placeholder(value):
        return False  # a Secret printed with its values masked: base64 of ***, [REDACTED], <token>
    return any(map(str.isdigit, value)) or value.endswith("=") or "+" in value


@check("aws40")
def aws40(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    # one real key in 900 has no digit (40 of 64 characters): then its letters are cased at
    # random, where a long CamelCase name has one capital a word, or it holds a + (no name or
    # path does: c+qAHEdgavv/IAE/LrHZ..., vowels and all)
    return ((any(map(str.isdigit, value)) or "+" in value or random_case(value) or few_vowels(value))
            and any(map(str.isupper, value)) and any(map(str.islower, value)) and entropy(value) >= 4.0
            and not looks_fake(value))


@check("pem64")
def pem64(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    return pem64_private(value)


@check("dockerauth")
def dockerauth(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    if not value.startswith("e"):
        try:  # "auth": base64 of user:password
            plain = base64.b64decode(value + "=" * (-len(value) % 4)).decode("utf-8")
        except ValueError:
            return False
        user, sep, pw = plain.partition(":")
        return bool(sep and user and pw) and not placeholder(pw)
    return True


_YAML_BLOCK_LIMIT = 8 * 1024


def yaml_block_span(text: str, s: int, e: int, indent: int) -> tuple[int, int] | None:
    """The lines under `key: |` / `key: >-` that are indented deeper than the key."""
    pos = e
    first = last = -1
    n = min(len(text), e + _YAML_BLOCK_LIMIT)  # bounded: nested blocks cannot make this quadratic
    while pos < n:
        nl = text.find("\n", pos)
        line_end = n if nl < 0 else nl
        line = text[pos:line_end]
        body = line.lstrip(" \t")
        if body.strip():
            if len(line) - len(body) <= indent:
                break
            if first < 0:
                first = pos + len(line) - len(body)
            last = line_end - (len(body) - len(body.rstrip()))
        elif first >= 0 and line_end >= n:
            break
        if nl < 0:
            break
        pos = nl + 1
    if first < 0:
        return None
    if placeholder(text[first:last]):
        return None
    return first, last


register(Check("yamlblock", span=lambda text, s, e, m: yaml_block_span(text, s, e, len((m.group(1) or "").expandtabs(4)))))
