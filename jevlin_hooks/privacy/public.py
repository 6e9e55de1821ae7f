"""Pure tests for values that look random and are public: what a credential's context may hold
without it being a secret (issue 28, mechanism 8).

A value under a credential's name, after a credential word or in a credential's table cell is
still no secret when it is masked (``sk-...abcd``, ``****``), a duration (``300s``), a file path,
an ARN, an SSH fingerprint, an age public key, a key that is public by design (Stripe's
publishable ``pk_live_``, a Supabase ``anon`` JWT), or a private or reserved network address. The
value checks (privacy/checks/) ask :func:`public_value` through ``heuristics.placeholder``; names
that say what a value measures or which kind of thing it picks (``TOKEN_TTL_SECONDS``,
``JWT_ALGORITHM``) are ``heuristics.key_ok``'s, with the words listed here.

Each test only keeps a value: a value it keeps is one no rule of this kind can redact, so they
are written to be narrow (a masked value shows at most a vendor prefix and a few characters).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import ipaddress
import json
import re

# --- masked values ------------------------------------------------------------------------------

# An elision: three dots or more, an ellipsis, three stars, bullets or hashes or more, six x's or more.
_ELISION = re.compile(r"\.{3,}|…+|\*{3,}|•{3,}|·{3,}|[xX]{6,}|#{3,}")
_PREFIX = re.compile(r"[A-Za-z]{1,4}|[A-Za-z0-9]{1,10}[_\-]|[A-Za-z]{2,4}[_\-][A-Za-z]{2,8}[_\-]")


_MARK = re.compile(r"(?i)[\[<(](?:redacted|hidden|masked|removed|filtered|secret|sensitive)[^\]>)]{0,40}[\]>)]|REDACTED|FILTERED")


def masked(v: str) -> bool:
    """A secret shown masked: nothing but the elision (``****``, ``•••``, ``xxxxxx``), or at most a
    vendor prefix before it and six characters after it (``sk-...abcd``, ``ghp_****ab12``,
    ``sk_live_…4242``, ``Wqm...al8f``, ``AKIA************MPLE``). A value with more on either side
    (``Tr0ub4dor***``) is a password with stars in it."""
    m = _ELISION.search(v)
    if m is None:
        return _MARK.fullmatch(v) is not None  # [REDACTED], <redacted>, (hidden): a mark in its place
    head, tail = v[:m.start()], v[m.end():]
    if tail and _ELISION.fullmatch(tail):
        tail = ""  # xxxx…: two elisions
    if not head and not tail:
        return True
    if len(tail) > 6 or "…" in tail or "..." in tail:
        return False
    if not tail:
        return _PREFIX.fullmatch(head) is not None  # sk-..., ghp_****: a prefix and the elision
    return len(head) <= 12 and (not head or head[-1] in "-_" or len(head) <= 4 or head.replace("_", "").replace("-", "").isalnum())


# --- durations, sizes ----------------------------------------------------------------------------

_DURATION = re.compile(r"\d+(?:\.\d+)?[ ]?(?:ms|us|µs|ns|s|m|h|d|w|y|sec|secs|min|mins|hr|hrs|hours?|days?|weeks?|seconds?|minutes?)"
                       r"|(?:\d+(?:d|h|m|s|ms))+", re.IGNORECASE)


def duration(v: str) -> bool:
    """A duration with its unit: 300s, 720h, 15m, 59m48s, 7d, 1.5h, 30 min."""
    return len(v) <= 16 and _DURATION.fullmatch(v) is not None


# --- paths, ARNs ---------------------------------------------------------------------------------

_PATH = re.compile(r"(?:~|\.{1,2}|[A-Za-z]:)?[/\\](?:[A-Za-z0-9._@+\-]+[/\\])+[A-Za-z0-9._@+\-]*")


def file_path(v: str) -> bool:
    """An absolute or home-relative path of two parts or more (/var/secrets/google/key.json,
    ~/.ssh/id_ed25519, ./secrets/api.key, C:\\keys\\app.pfx) whose parts read like names: a part
    mixing capitals, small letters and digits (/Zq8k/Lq2p) is a password that holds slashes."""
    if len(v) > 512 or _PATH.fullmatch(v) is None:
        return False
    parts = [p for p in re.split(r"[/\\]", v) if p and p not in (".", "..", "~")]
    if not parts or (v[0] not in "~./\\" and len(parts) < 2):
        return False
    return not any(any(map(str.isupper, p)) and any(map(str.islower, p)) and any(map(str.isdigit, p)) for p in parts)


_ARN = re.compile(r"arn:aws[a-z\-]*:[a-z0-9\-]+:[a-z0-9\-]*:(?:\d{12})?:\S+")


def arn(v: str) -> bool:
    """An Amazon Resource Name: it names a secret, a role or a key, and holds none."""
    return v.startswith("arn:") and _ARN.fullmatch(v) is not None


_ARN_BEFORE = frozenset(" \t\r\n\"'`|=,(<>[]{}")
_ARN_RUN = re.compile(r"[^\s\"'`|=,(<>\[\]{}]*")


def in_arn(text: str, start: int) -> bool:
    """Whether ``start`` falls inside an ARN (arn:aws:secretsmanager:...:secret:prod/db): its
    resource type `secret:` is no credential's name."""
    k = text.rfind("arn:", max(0, start - 256), start)
    return k >= 0 and (k == 0 or text[k - 1] in _ARN_BEFORE) and _ARN_RUN.fullmatch(text, k, start) is not None


# --- keys public by design, fingerprints ---------------------------------------------------------

_AGE_PUBLIC = re.compile(r"age1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}")
_SSH_FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}=?|MD5(?::[0-9a-fA-F]{2}){16}")
_PUBLISHABLE = re.compile(r"pk_(?:live|test)_[A-Za-z0-9]{10,}")  # Stripe: "publishable", in every checkout page


def public_key_shape(v: str) -> bool:
    """A key or fingerprint that is public by its shape: an age recipient (age1...), an SSH
    fingerprint (SHA256:..., MD5:xx:...), a Stripe publishable key, a Supabase anon JWT."""
    return (_AGE_PUBLIC.fullmatch(v) is not None or _SSH_FINGERPRINT.fullmatch(v) is not None
            or _PUBLISHABLE.fullmatch(v) is not None or anon_jwt(v))


@functools.lru_cache(maxsize=256)
def jwt_claims(v: str) -> dict[str, object]:
    """A JWT's claims ({} when ``v`` is not a JWT whose payload decodes to a JSON object)."""
    parts = v.split(".")
    if len(parts) < 3 or not parts[1].startswith("ey") or len(parts[1]) > 2048:
        return {}
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, binascii.Error):
        return {}
    return claims if isinstance(claims, dict) else {}


# "supabase" in base64 at each of its three alignments: a JWT whose claims do not hold it is
# not decoded (the jwt rule asks about every token it finds)
_SUPABASE_B64 = ("c3VwYWJhc2", "N1cGFiYXNl", "zdXBhYmFzZ")


def anon_jwt(v: str) -> bool:
    """A Supabase anon key: a JWT issued by Supabase with the role ``anon``, shipped to every
    browser (its ``service_role`` sibling is a secret, and stays redacted)."""
    payload = v.split(".", 2)[1] if v.count(".") >= 2 else ""
    if not v.startswith("eyJ") or not any(w in payload for w in _SUPABASE_B64):
        return False
    claims = jwt_claims(v)
    return claims.get("role") == "anon" and claims.get("iss") == "supabase" and isinstance(claims.get("ref"), str)


# Values vendors publish in their documentation, by their SHA-256 (so that no token-shaped
# string sits here): Stripe's test keys sk_test_4eC3..., sk_test_BQok..., sk_test_26PH...,
# GitHub's ghp_16C7... in its REST API pages.
_DOCUMENTED = frozenset(("2cafc0970149a84f3b9e62eaf169f36f", "f2d6ca16515033e5dce14eba840b979d",
                         "7e8de44ea9ecf6d53415c90f5b249a85", "3543c50b0cb9cea8e55eb1f529b79f04"))


_JWT_IO = {"sub": "1234567890", "name": "John Doe", "iat": 1516239022}
_JWT_IO_PAYLOAD = ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"  # base64 of {"sub":"1234567890","name":"John Doe",


def documented_example(v: str) -> bool:
    """A credential vendors print in their documentation: the token jwt.io shows (its claims
    exactly: sub 1234567890, name John Doe, iat 1516239022, maybe admin), Stripe's and GitHub's
    documented keys. Anyone may paste one; none
    opens anything."""
    if v.startswith("eyJ"):
        if _JWT_IO_PAYLOAD not in v:
            return False
        claims = dict(jwt_claims(v))
        claims.pop("admin", None)
        return claims == _JWT_IO
    return len(v) in (32, 40) and v.startswith(("sk_test_", "ghp_")) and hashlib.sha256(v.encode()).hexdigest()[:32] in _DOCUMENTED


_GPG_ID = re.compile(r"(?:0x)?(?:[0-9A-F]{16}|[0-9A-F]{40}|[0-9a-f]{16}|[0-9a-f]{40})")


def gpg_key_id(name: str, v: str) -> bool:
    """git's user.signingkey (or a name holding "keyid" or "fingerprint") given a GPG key id or
    fingerprint: 16 or 40 hex digits name a public key. (A JWT's SIGNING_KEY holds random
    base64 or a longer secret, and stays a credential.)"""
    if len(v) not in (16, 18, 40, 42):
        return False
    flat = name.lower().replace("_", "").replace("-", "").replace(".", "")
    return flat.endswith(("signingkey", "keyid", "fingerprint", "gpgkey")) and _GPG_ID.fullmatch(v) is not None


# --- addresses -----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1024)
def reserved_address(v: str) -> bool:
    """A private, loopback, link-local, shared (CGNAT 100.64/10), documentation, benchmark,
    multicast or reserved IPv4 or IPv6 address (RFC 1918, ULA fc00::/7, fe80::/10, 2001:db8::/32,
    ...): no one's address on the internet, so no personal data."""
    try:
        a = ipaddress.ip_address(v.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(a, ipaddress.IPv6Address) and a.ipv4_mapped is not None:
        a = a.ipv4_mapped
    return not a.is_global or a.is_multicast


# --- all of them ---------------------------------------------------------------------------------

def public_value(v: str) -> bool:
    """A value that is public whatever names it: masked, a duration, a path, an ARN, a public key
    or fingerprint (see each)."""
    if not v:
        return False
    c = v[0]
    if c in "/~.\\" or (len(v) > 2 and v[1] == ":" and v[2] in "/\\"):
        return file_path(v)
    return (masked(v) or (c.isdigit() and duration(v)) or (c == "a" and (arn(v) or public_key_shape(v)))
            or (c in "SMpe" and public_key_shape(v)))


# --- names ---------------------------------------------------------------------------------------

# What a credential-like name holds when it ends in one of these: a quantity (TOKEN_TTL_SECONDS,
# API_KEY_MAX_AGE_DAYS, PASSWORD_MIN_LENGTH, KEY_BITS) or the kind of a thing it picks
# (JWT_ALGORITHM, PASSWORD_HASHER, SECRET_BACKEND, TOKEN_ENDPOINT), never the credential.
SETTING_SUFFIXES = (
    "seconds", "secs", "sec", "minutes", "mins", "min", "hours", "hrs", "days", "weeks", "ms", "lifetime", "margin",
    "age", "interval", "period", "leeway", "skew", "grace", "delay", "duration", "window", "rotation", "bits", "rounds",
    "iterations", "retries", "attempts", "limit", "max", "algorithm", "algorithms", "alg", "algo", "hasher", "hashers",
    "backend", "backends", "provider", "scheme", "strategy", "driver", "cipher", "kdf", "issuer", "audience",
    "fingerprint", "fingerprints", "md5", "sha1", "sha256", "sha384", "sha512", "crc32c", "expires_in", "expire_in",
)
# A name made of a digest algorithm's name (SHA256:..., sha-256=..., Content-MD5, x-goog-hash
# md5=): the value is a digest.
DIGEST_NAMES = frozenset(("md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3", "crc32", "crc32c", "blake2b",
                          "blake2s", "blake3", "xxh64", "xxh3"))
# Names of ids that trace a request: they are random and public (x-request-id, x-amz-id-2,
# traceparent, cf-ray, X-Correlation-ID, span_id).
TRACE_NAME_WORDS = ("trace", "span", "request", "correlation", "amzid", "amznid", "cfray", "xray", "causation")
