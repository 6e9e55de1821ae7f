"""Pure tests on a value or a name: placeholder, random-looking, entropy, key-name words, host names.

Each is a plain function of strings (and, for a few, of the text around a value and a position),
shared by the value checks (privacy/checks/): what they decide is listed for users in
checks/left_alone.py. Several are remembered per value (lru_cache): agent text repeats its
values (config.api_key, a session id in every log line), and each candidate is asked about by
more than one check. Values are looked at up to CHECK_LIMIT characters: a 1 MB blob assigned to
`token` is redacted whole without walking all of it in Python.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import math
import re
import urllib.parse
from collections import Counter
from typing import Any

from jevlin_hooks.privacy import automaton
from jevlin_hooks.privacy.public import (
    DIGEST_NAMES,
    SETTING_SUFFIXES,
    TRACE_NAME_WORDS,
    documented_example,
    public_value,
)
from jevlin_hooks.privacy.regex import UNANCHORED, compile_bytes

STOPWORDS = frozenset("""
true false null none nil undefined yes no on off required optional string str int bool boolean
password passwd secret token key apikey api_key value example sample test dummy placeholder
changeme redacted hidden masked empty default your_token your_api_key your_password xxx todo tbd new
env environ getenv config settings self this props args kwargs params options request response
""".split())
IDENT_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
SNAKE = re.compile(r"^(?:[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z]+)+)$")
_WORDY = re.compile(r"^(?:[A-Za-z]{1,14}|\d{1,6})(?:[_\-.](?:[A-Za-z]{1,14}|\d{1,6}))+$")
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEX_DIGEST = re.compile(r"^(?:[0-9a-f]{7,12}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{96}|[0-9a-f]{128}|[0-9A-F]{40}|[0-9A-F]{64})$")
_INTEGRITY = re.compile(r"^(?:sha(?:1|256|384|512)[-:][A-Za-z0-9+/=]{20,}|[a-z0-9.\-/]+@sha256:[0-9a-f]{64})$")
VERSIONISH = re.compile(r"^v?\d+(?:[._\-]\d+)+(?:[._\-+][A-Za-z0-9.\-]+)?$")
CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")  # W3C trace context
# the five in one call (each keeps its own ^ and $): most candidate values are one of them
PUBLIC_SHAPE = re.compile("|".join(f"(?:{rx.pattern})" for rx in (UUID, _HEX_DIGEST, _INTEGRITY, VERSIONISH, _TRACEPARENT)))
# api-key, github_token: how a secret store names the secret (super-secret-password is a password)
CRED_NAME = re.compile(r"^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*[-_.](?:key|token)(?:[-_.][a-z0-9]+)*$")
ARTIFACT = re.compile(r"^[a-z][a-z0-9\-]*-\d+(?:\.\d+)+$")  # jjwt-jackson-0.11.2


# Checks look at most this much of a value: a 1 MB blob assigned to `token` is redacted whole
# without walking all of it in Python.
CHECK_LIMIT = 4096

# a value that ends with a colon is a label (Password:, secretKeyRef:) where it reads as a name; a
# random password may end with one too (Qzr6st_9j?Hm'P:), and then the digits and symbols tell
LABEL = re.compile(r"[A-Za-z][A-Za-z_.\- ]*:")


def placeholder(value: str, code: bool = True) -> bool:
    """A value that names or stands for a secret rather than being one (see checks/left_alone.py).
    Remembered per value: code repeats its values (config.api_key, capacity)."""
    big = len(value) > 256
    return placeholder_uncached(value, code) if big else _placeholder_memo(value, code) or encoded_placeholder(value.strip().strip("\"'`"), code)


@functools.lru_cache(maxsize=4096)
def _placeholder_memo(value: str, code: bool) -> bool:
    return placeholder_uncached(value, code)


def placeholder_uncached(value: str, code: bool = True) -> bool:
    v = value[:CHECK_LIMIT].strip().strip("\"'`")
    if len(v) < 4 or ARTIFACT.match(v) or LABEL.fullmatch(v) or has_run(v, 10):
        return True  # ...0123456789, abcdefghij...: a fixture, not a credential
    raw = value[:CHECK_LIMIT]
    if code and (" = " in raw or " := " in raw):
        return True  # a line of code quoted inside a string (after a password flag: a password with blanks)
    if CRED_NAME.match(v):
        return True  # secretKey: api-key: the name of a secret in a store, not the secret
    low = v.lower()
    if " " in v and value.lstrip().startswith("`"):
        return True  # `command substitution`
    if v.startswith("$") and DOLLAR_REFERENCE.match(v):
        return True  # $DB_PASS, ${X}, $(cat f), $this->pass, $env:X: a reference; $h@d0w&38 is a password
    if low in STOPWORDS or low.startswith(("[", "{", "(", "{{", "<", "#{", "[redacted", "env:", "env.", "process.env",
                                           "os.environ", "secrets.", "vault:", "ref:", "op://", "file:")):
        return True
    if sigil_reference(v, code):
        return True
    # masks (all of * x . - _ and blanks) and one character repeated; strip and count run in C
    # where sets of a long value's characters did not
    if not low.strip("*x.-_ ") or low.count(low[0]) == len(low):
        return True
    if code and "." in v and IDENT_PATH.match(v) and not random_dotted(v) or SNAKE.match(v):
        return True  # config.token, self.api_key, called_with, ACCESS_TOKEN: code, not a value
    if public_value(v):
        return True  # sk-...abcd, 300s, /var/secrets/key.json, arn:aws:..., SHA256:..., age1...: public (public.py)
    # //comment, //host/path and a::b scopes; a base64 key may start with // too (an Azure key)
    return v.startswith("//") and not _BASE64_BLOB.match(v) or "::" in v


_BASE64_BLOB = re.compile(r"^[A-Za-z0-9+/]{40,}={0,2}$")
_BASE64_SHORT = re.compile(r"[A-Za-z0-9+/]{4,120}={0,2}")
_URL_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")  # (base64 above: a Secret's data, a Basic header)


def encoded_placeholder(v: str, code: bool = True) -> bool:
    """A placeholder or mask under one layer of base64 or URL-encoding (printable text only)."""
    decoded, escapes = "", _URL_ESCAPE.findall(v) if "%" in v else []
    if len(escapes) >= 2:  # (punctuation's escapes only: a password may hold a % of its own)
        decoded = "" if any(chr(int(e[1:], 16)).isalnum() for e in escapes) else urllib.parse.unquote(v)
    elif len(v) % 4 == 0 and _BASE64_SHORT.fullmatch(v):
        with contextlib.suppress(ValueError):
            decoded = base64.b64decode(v, validate=True).decode("utf-8")
    # (browser: is a Basic user with an empty password)
    return bool(decoded) and decoded != v and decoded.isprintable() and not LABEL.fullmatch(decoded) and placeholder(decoded, code)

CODE_ROOTS = frozenset("""
settings config cfg conf configuration env environ os process self this ctx context app secrets vault params
args opts options request req props state credentials creds keys auth client server session user db
""".split())
LETTER_RUNS = re.compile(r"[a-z]+")  # words of lower-cased text (here and in random_local_part)


def password_like(v: str) -> bool:
    """A word that looks like a password rather than prose: letters and digits, or symbols with
    digits or mixed case, or long and mixed case."""
    has_digit = any(map(str.isdigit, v))
    has_symbol = not v.isalnum()
    mixed = any(map(str.isupper, v[1:])) and any(map(str.islower, v))
    return (has_digit and any(map(str.isalpha, v))) or (has_symbol and (has_digit or mixed)) or (mixed and len(v) >= 12)


def sigil_reference(v: str, code: bool) -> bool:
    """A value led by % = @ or ... that refers to something or elides it (%(password)s,
    %APPDATA%, == x, @Value(...), @secrets/db.txt, @db.internal:5432, ...) rather than being a
    password that happens to begin with a symbol (%Tq9zW2x!k, =%Xv-etg16.kI, @96lrPz.bHP2CnD.ee)."""
    if v.startswith("..."):
        return not _random_after_sigil(v[3:], code)
    if v[0] in "%=":
        return not _random_after_sigil(v[1:], code)
    if v[0] == "@":
        rest = v[1:]
        host = HOSTLIKE.match(rest.split(":", 1)[0].split("/", 1)[0].lower())
        # an address under a common or internal suffix; a password may end in .ee (@96lrPz.bHP2CnD.ee)
        return not _random_after_sigil(rest, code) or host is not None and host.group(1) in HOST_SUFFIXES
    return False


def _random_after_sigil(rest: str, code: bool) -> bool:
    """What follows a leading %, @, = or ... is a password's random rest (a generated password may begin
    with any symbol): it looks like a password, holds none of a reference's brackets, is no
    %WINDOWS_VARIABLE% and, where code is possible, no dotted name (@Model.Token2). A long random
    rest may hold a round bracket (a Django key: =6#b#36wq-shrnao&202y@25q4gdy)*vv1=...), a call's
    short one not (=getpass())."""
    brackets = "(){}$" if len(rest) < 24 or not random_looking_cached(rest) else "{}$"
    return (len(rest) >= 6 and not any(c in rest for c in brackets) and password_like(rest)
            and not (_PERCENT_VARIABLE.fullmatch(rest) and (rest.isupper() or rest.islower() or not any(map(str.isdigit, rest))))
            and (not code or not IDENT_PATH.match(rest) or random_dotted(rest)))


# %APPDATA%, %DB_PASS2%, %SystemRoot%, %TestSourcePassword% (after the leading %); not %nar1h3rSv%,
# in both cases with digits
_PERCENT_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*%")


def pem64_private(value: str) -> bool:
    """Whether base64 text starting with LS0tLS1CRUdJTi (-----BEGIN) begins a private key; a
    base64 certificate or public key is public."""
    try:
        head = base64.b64decode("".join(value[:120].split())[:80])
    except ValueError:
        return False
    return b"PRIVATE KEY" in head


def _url_start(text: str, start: int) -> int:
    """Where the scheme://... holding ``start`` (in the same word) begins its authority, or -1."""
    i = start
    while i > 0 and start - i < 256 and not text[i - 1].isspace() and text[i - 1] not in "\"'<>(`":
        i -= 1
    k = text.rfind("://", i, start)
    return k + 3 if k >= 0 else -1


def in_url(text: str, start: int) -> bool:
    """Whether ``start`` is inside the scheme://... of a URL (in the same word)."""
    return _url_start(text, start) >= 0


def in_userinfo(text: str, start: int) -> bool:
    """Whether ``start`` is in a URL's user:password part (before any / ? # of its path or query):
    jdbc:mysql://db/shop?user=root&password=X@Y is a query's password, which holds an @."""
    k = _url_start(text, start)
    return k >= 0 and not any(c in "/?#" for c in text[k:start])




def random_dotted(v: str) -> bool:
    """Dotted like code, but random: k3x9pq.9f8e7d6c5b4a3x2w (a kubeadm token), Qb9sM6.ET3 (a
    password with a dot). X25519.KeyPair, kVK_Return.u16, jetbrains.mps.v8_elimination are code."""
    if sum(map(str.isdigit, v)) < 2:
        return False
    letters, _ = _vowels(v)
    if letters >= 6 and 2 * case_switches(v.replace(".", "")) >= letters:
        return True  # fIpR82.ByXg0: the case switches at every other letter, where a name switches once a word
    for p in v.split("."):
        if _DIGIT_LETTER.search(p):
            return True
        digits = sum(map(str.isdigit, p))
        if len(p) >= 10 and digits >= 2 and (digits >= 4 or p.lower() != p and p.upper() != p):
            return True
        # shorter, still random: mixed case and digits, and letters with under a fifth vowels
        # (bkSjv23; names are words: dbPassword12, myKey12); or letters cased at random
        # (eC900.JLgIZoWPW, where a name has a capital a word: cfg.OAuthToken)
        letters, vowels = _vowels(p)
        if digits >= 2 and letters >= 4 and p.lower() != p and p.upper() != p \
                and 5 * vowels < letters or len(p) >= 8 and random_case(p):
            return True
    return False


_DIGIT_LETTER = re.compile(r"[0-9][A-Za-z]")


def random_case(s: str) -> bool:
    """Letters cased at random: capitals side by side or one letter apart (XY, XyZ), several
    times (more than one place in three in random text), where a camelCase or PascalCase name has
    one capital a word and two letters or more between them; and the case switching often."""
    close = sum(1 for i, c in enumerate(s[:-1]) if c.isupper() and (s[i + 1].isupper() or s[i + 2:i + 3].isupper()))
    return close >= 3 and case_switches(s) >= len(s) // 4


def few_vowels(s: str) -> bool:
    """Random letters: a fifth of them vowels (5 in 26), where names made of words have two fifths
    (dckr_pat_pjnrrsgNhbzrAPOxsjAn__Ae-_G against s.AcceptanceTimeoutSeconds)."""
    letters, vowels = _vowels(s)
    return letters >= 16 and vowels < 0.3 * letters


def _vowels(s: str) -> tuple[int, int]:
    """How many letters ``s`` holds, and how many of them are vowels."""
    letters = [c for c in s.lower() if c.isalpha()]
    return len(letters), sum(c in "aeiou" for c in letters)


def case_switches(s: str) -> int:
    return sum(1 for a, b in zip(s, s[1:], strict=False) if a.isupper() != b.isupper() and a.isalpha() and b.isalpha())


def entropy(s: str) -> float:
    """Shannon entropy in bits a character. Remembered per value (quoted-high-entropy asks twice
    for each value, generic-high-entropy again), and each count's term is worked out once: a
    200-character value has 55 distinct characters but a handful of distinct counts."""
    if len(s) <= 256:
        return _entropy_memo(s)
    return entropy_long(s) if len(s) <= CHECK_LIMIT else entropy_uncached(s)


def entropy_uncached(s: str) -> float:
    n = len(s)
    if not n:
        return 0.0
    counts = Counter(s).values()
    log2 = math.log2
    term = {c: c / n * log2(c / n) for c in set(counts)}
    return -sum(map(term.__getitem__, counts))  # the same terms in the same order as ever


_entropy_memo = functools.lru_cache(maxsize=4096)(entropy_uncached)
# Long values (a kubeconfig's key data, a base64 blob: 600-800 characters on a varied message)
# come back too: quoted-high-entropy, generic-high-entropy and random_looking each ask, 4.5 times
# a message for the same text. A few are kept: 32, of at most CHECK_LIMIT characters (a longer
# one, hostile or a pasted file, is counted afresh), so at most 512 KiB stay alive after a text.
entropy_long = functools.lru_cache(maxsize=32)(entropy_uncached)


def _counting_windows(k: int) -> Any:
    """Every run of ``k`` consecutive code points in printable ASCII, lower-cased: abcdefgh,
    01234567, ...; one automaton finds any of them in one pass."""
    low = "".join(chr(c) for c in range(0x20, 0x7F)).lower()
    words = sorted({low[i:i + k] for i in range(len(low) - k + 1)
                    if all(ord(b) == ord(a) + 1 for a, b in zip(low[i:i + k], low[i + 1:i + k], strict=False))})
    return automaton.build(words)


_RUN8 = _counting_windows(8)
_RUN10 = _counting_windows(10)


def has_run(s: str, k: int) -> bool:
    """Whether ``s`` holds a counting run (abcdefgh, 12345678) of ``k`` (8 or 10), whatever the case."""
    if len(s) < k:
        return False
    return bool((_RUN10 if k == 10 else _RUN8).find_matches_as_indexes(s.lower()))


def shaped(body: str) -> bool:
    """A vendor token's random part: not a counting run (ntn_1234567890...) and not a few
    characters repeated (sntryu_aaaa...). Tokens put their random part last, so the tail is
    what must vary: GR1348941 + 123123123... is a prefix and a pattern."""
    body = body[:CHECK_LIMIT]
    tail = body[-20:]
    # a random hex tail can repeat a few digits by chance (...6e2655ee22e52e86e7e9: 2.4 bits), but
    # still holds more than a repeated pattern's handful of characters; and a random hex body has
    # 4 bits a character at most, 2.98 in one 32-digit Shopify token in 200,000 (3bfe8835fff5...)
    # (its tail may hold only 6 of the 16 digits: ...6111d677eedd773d13d, an OpenRouter key)
    # sk-or-v1-<64 hex>; dapi<32 hex>, whose prefix has no separator: the tail is hex all the same
    hexa = HEX_BODY.fullmatch(body.rsplit("-", 1)[-1]) is not None or HEX_BODY.fullmatch(tail) is not None
    return (not has_run(body, 10) and entropy(body) >= (2.7 if hexa else 3.0)
            and (entropy(tail) >= 2.5 or len(set(tail)) >= (6 if hexa else 7)))


HEX_BODY = re.compile(r"[0-9a-fA-F]{16,}")


def random_looking_cached(value: str) -> bool:
    """The same value is often checked twice (quoted-high-entropy and generic-high-entropy both
    see `session_id=...`), and log lines repeat ids. Long values: see entropy_long."""
    if len(value) <= 256:
        return _random_looking_memo(value)
    return random_looking_long(value) if len(value) <= CHECK_LIMIT else random_looking(value)


@functools.lru_cache(maxsize=4096)
def _random_looking_memo(value: str) -> bool:
    return random_looking(value)


def random32_cached(value: str) -> bool:
    """quoted-high-entropy's test: random-looking, and 3.6 bits a character."""
    if len(value) <= 256:
        return _random32_memo(value)
    return random_looking_cached(value) and entropy(value) >= 3.6


@functools.lru_cache(maxsize=4096)
def _random32_memo(value: str) -> bool:
    return random_looking(value) and entropy(value) >= 3.6


@functools.lru_cache(maxsize=32)  # long values: see entropy_long
def random_looking_long(value: str) -> bool:
    return random_looking(value)


def _plainly_public(v: str) -> bool:
    """random_looking's cheap shape tests: most candidates are digests, ids, paths and names."""
    if len(v) < 12 or " " in v:
        return True
    if PUBLIC_SHAPE.match(v):  # a UUID, a digest, an integrity hash, a version, a traceparent
        return True
    if "/" in v and v.count("/") >= 2 and not v.endswith("="):
        return True  # a path or URL
    return v.count(".") >= 2 and not any(c in v for c in "+/=_")  # a host name or dotted identifier


def random_looking(value: str) -> bool:
    v = value[:CHECK_LIMIT].strip().strip("\"'`")
    if _plainly_public(v):
        return False
    has_digit = any(map(str.isdigit, v))
    has_alpha = any(map(str.isalpha, v))
    if not (has_digit and has_alpha) and not (len(v) >= 30 and any(map(str.isupper, v)) and any(map(str.islower, v))):
        return False
    if entropy(v) < 3.3 or _WORDY.match(v):
        return False  # words joined by separators: an identifier, a file or host name
    # ABCDEFGH..., 0123456789: an alphabet, not a key
    return not has_run(v, 8) and not placeholder(v)


# 16 equal lower-case letters are a placeholder (aaaa...). Upper case is left alone: A and Q
# encode zero bits in base64 and bech32, and real tokens hold long runs of them (Twitter bearer
# tokens begin with 20 A's).
# An angle bracket is a placeholder's (<your token>, sk-<key>, <paste here) where it opens the
# value or closes within it; a random password may hold one alone (2SevpYHv<Hf1v4XgP).
# Its inside reads as a name (letters, digits, blanks, _ - . : / |), where a random password's
# <...> holds other symbols (xukH2<kLbEs8]2xc>).
ANGLE = r"^<|<[A-Za-z0-9 _.:/|\-]*>"
# A value led by $ refers to something where a name, a brace or a bracket follows ($DB_PASS,
# ${X}, $(cat f), $this->pass, $env:X, $HOME/.pgpass); a generated password may start with $
# too, with a symbol after its first letters ($h@d0w&38, $@lm0n!36)
DOLLAR = r"^\$(?:[{(]|[A-Za-z_][A-Za-z0-9_]*(?:$|[.:\[\-/$'\"]))"
DOLLAR_REFERENCE = re.compile(DOLLAR)
# what CI systems and log filters print instead of a value: GitLab's [MASKED], [FILTERED], (hidden)
MASK_MARK = r"^[\[(](?i:masked|redacted|filtered|hidden|removed|omitted|sensitive|sanitized|scrubbed|censored|secret)[\])]"
FAKE = re.compile(r"([xX*.#])\1{7}|(\d)\2{15}|EXAMPLE|" + ANGLE + "|" + MASK_MARK + r"|\$\{|" + DOLLAR)
LOWER_RUN = re.compile(r"([a-z])\1{15}")  # apart: in one pattern it slowed every search by half
# Both for ASCII text, without backreferences, spelled out: 8 of x X * . #, 16 of a digit or of a
# lower-case letter, and the rest as they are (Python's \d also takes other scripts' digits, so a
# non-ASCII value goes the way above)
_FAKE_ASCII = compile_bytes("|".join([re.escape(c * 8) for c in "xX*.#"] + [c * 16 for c in "0123456789abcdefghijklmnopqrstuvwxyz"]
                                     + ["EXAMPLE", ANGLE, MASK_MARK, r"\$\{", DOLLAR]))


_MASKED_TAILS = ("###", "***", "[REDACTED", "[Redacted", "[redacted")


def looks_fake(value: str, text: str = "", end: int = 0) -> bool:
    """Documentation placeholders, whatever rule matched them: ghp_xxxxxxxx, AKIA...EXAMPLE,
    <your token>, ${TOKEN}, ****, or a token whose tail is masked (xoxp-1234-...-#####) or
    already redacted (ops_eyJzaWdu..[Redacted])."""
    if text.startswith(_MASKED_TAILS, end):
        return True
    if value.startswith(("eyJ", "sk_test_", "ghp_")) and documented_example(value):
        return True  # jwt.io's token, Stripe's and GitHub's documented keys (public.py)
    return fake_value(value) if len(value) <= 256 else fake_value.__wrapped__(value)


@functools.lru_cache(maxsize=4096)
def fake_value(value: str) -> bool:
    v = value[:CHECK_LIMIT]
    if v.isascii():  # nearly always: RE2 on the bytes, 10x faster than the backreferences
        b = v.encode("ascii")
        start: int = _FAKE_ASCII.Match(UNANCHORED, b, 0, len(b))[0][0]
        return start >= 0
    return FAKE.search(v) is not None or len(v) >= 16 and LOWER_RUN.search(v) is not None


# Names that contain a credential word but hold something else: an id, a URL, a file, a size.
_NOT_SECRET_KEY_SUFFIXES = (
    "id", "ids", "url", "uri", "file", "path", "name", "type", "size", "length", "len", "format",
    "version", "mode", "dir", "count", "endpoint", "header", "prefix", "suffix", "field", "ref",
    "policy", "store", "env", "var", "arn", "location", "expiry", "expires", "ttl", "timeout",
    "enabled", "required", "label", "hint", "description", "pattern", "regex", "schema", "id_", "accessor",
    "hash", "checksum", "digest", "integrity", "word", *SETTING_SUFFIXES,
)
_NOT_SECRET_KEYS = (
    "primarykey", "foreignkey", "sortkey", "partitionkey", "schemakey", "bucketkey", "objectkey",
    "cachekey", "mapkey", "hashkey", "publickey", "pubkey", "rowkey", "uniquekey", "idempotencykey",
    "routingkey", "lookupkey", "indexkey", "hotkey", "shortcutkey", "keyboardkey", "registrykey",
    "s3key", "tokenizer", "tokens", "keys", "passwordless", "secrets", "keyword", "keywords",
)

# token_url, api_key_id, secretsid, passwordhash: a credential word, then what the name holds
_NOT_SECRET_ENDINGS = tuple("_" + s for s in _NOT_SECRET_KEY_SUFFIXES) + tuple(
    w + s for s in _NOT_SECRET_KEY_SUFFIXES
    for w in ("token", "tokens", "key", "keys", "secret", "secrets", "password", "credentials", "credential"))


# Values next to these names are random but not secret: ciphertext parts (SOPS's iv/tag/mac),
# signatures and digests that are public by design.
_PUBLIC_RANDOM_KEYS = ("iv", "tag", "mac", "nonce", "data", "signature", "etag", "publickey", "public_key",
                       "publictoken", "public_token")


# Words that make a name say "not secret" wherever they occur in it: anti-forgery tokens are
# public in every page they protect; public and publishable keys and tokens are public by design
# (but a "public" password or secret is still a password or secret).
_ANTI_FORGERY_WORDS = ("csrf", "xsrf", "authenticity")
_PUBLIC_NAME_WORDS = ("public", "publishable", "pubkey", "sitekey", "anonkey")  # reCAPTCHA/Turnstile site keys, Supabase anon
_SECRET_WORDS = ("pass", "pwd", "secret", "cred", "private")
SECRET_NAME_WORDS = ("pass", "pwd", "secret", "token", "cred", "private", "api_key", "apikey", "api-key", "access_key")
_CREDENTIAL_WORDS = ("pass", "pwd", "secret", "token", "cred", "bearer", "jwt", "auth", "sig", "salt", "cookie", "account")


@functools.lru_cache(maxsize=2048)
def entropy_key_ok(key: str) -> bool:
    low = key.lower().strip("\"'`")
    if not key_ok(key):
        return False
    flat = low.replace("_", "").replace("-", "").replace(".", "")
    if any(w in flat for w in TRACE_NAME_WORDS) and not any(w in flat for w in SECRET_NAME_WORDS) and not flat.endswith("key"):
        return False  # x-request-id, x-amz-id-2, trace_id, cf-ray: random and public
    if any(low == k or low.endswith(("-" + k, "_" + k, "." + k)) for k in _PUBLIC_RANDOM_KEYS):
        # encrypted_data, certificate-authority-data: public or ciphertext; but client-key-data,
        # secret_data, token-data name what they hold
        if low.endswith(("signature", "publickey", "public_key", "publictoken", "public_token", "etag")):
            return False
        return any(w in low for w in ("key", "secret", "token", "pass", "pwd", "cred"))
    return True


@functools.lru_cache(maxsize=2048)  # names repeat (self.api_key, cache_key): decide each once
def key_ok(key: str) -> bool:
    name = key.strip("\"'`")
    low = name.lower()
    flat = low.replace("_", "").replace("-", "").replace(".", "")
    if flat.endswith(_NOT_SECRET_KEYS) or any(w in flat for w in _ANTI_FORGERY_WORDS) or flat in DIGEST_NAMES:
        return False
    if any(w in flat for w in _PUBLIC_NAME_WORDS) and not any(w in flat for w in _SECRET_WORDS):
        return False
    if "key" in low and not any(w in low for w in _CREDENTIAL_WORDS) and not _has_word_key(name):
        return False  # monkeys-audio, master-keying: "key" inside another word
    if name != low and name != name.upper():
        low = CAMEL.sub("_", name).lower()  # UserSecretsId -> user_secrets_id
    return not low.replace("-", "_").replace(".", "_").endswith(_NOT_SECRET_ENDINGS)


_PUBLIC_LABEL = re.compile(r"(?i)(?:^|[^a-z])pub(?:lic)?[ \t_\-]$")
# the name of a name/value pair: {"name": "x-trace-id", "value": ...}, - key: X / value: ..., Name: X
_PAIR_NAME = re.compile(r"(?i)[\"']?\b(?:name|key|header)[\"']?[ \t]*[:=][ \t]*[\"']?([^\"'\n,{}]{1,80}?)[\"']?[ \t]*(?:,|\r?\n|$)")


_PUB = re.compile(r"[Pp][Uu][Bb]")


def near_pub(text: str, start: int) -> bool:
    """Whether "pub" is in the 96 characters before ``start``: public_label's cheap gate (it needs
    the name's position, which the engine works out per group asked)."""
    return _PUB.search(text, max(0, start - 96), start) is not None


def public_label(text: str, name_start: int) -> bool:
    """Whether the name at ``name_start`` follows "public" or "pub" (``# public key: age1...``,
    ``public key: <44 base64>`` in `wg show`): a public key, whatever its value looks like."""
    return _PUBLIC_LABEL.search(text[max(0, name_start - 8):name_start]) is not None


def named_pair_ok(text: str, name_start: int, name: str) -> bool:
    """For a value under ``value``: whether the name of its pair (``"name": "x-trace-id"`` in the
    same object, up to 200 characters before) may name a credential (entropy_key_ok). True for any
    other name, or where no pair's name is found."""
    if name.lower() != "value":
        return True
    window = text[max(0, name_start - 200):name_start]
    found = None
    for m in _PAIR_NAME.finditer(window):
        found = m
    if found is None or "}" in window[found.end():] or "{" in window[found.end():]:
        return True
    return entropy_key_ok(found.group(1).strip())


def _has_word_key(name: str) -> bool:
    """Whether "key" ends a word in ``name``: apiKey, api_key, KEY, hmackey; not monkeys or
    keying. Case is kept so camelCase shows where a word ends."""
    low = name.lower()
    i = low.find("key")
    while i >= 0:
        j = i + 3
        if j == len(name) or not name[j].isalpha() or name[j].isupper() and not name[j - 1].isupper():
            return True
        i = low.find("key", i + 1)
    return False

# A host name ends in a top-level domain or an internal suffix (mq-bt05.svc.cluster.local,
# db-1.internal); ee5u79.5x0, a77h706-.r and p60vr3w.uhz are passwords with a dot.
HOSTLIKE = re.compile(r"^[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.([a-z]{2,})$")
HOST_SUFFIXES = frozenset("""
com net org edu gov mil int info biz name pro io dev app ai co cloud tech site online xyz page run sh gg me tv ly so
to fm ws cc local localhost internal intranet lan corp home arpa test example invalid svc cluster consul docker
""".split())


# The two-letter top-level domains that exist (ISO 3166 country codes, and ac, eu, su, uk): a
# password with a dot ends in two random letters as often (zjdn9s7vo.ii).
_COUNTRY_TLDS = frozenset("""
ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo bq br bs bt bw by bz
ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk fm fo
fr ga gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm
jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp mq
mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa
re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx sy sz tc td tf tg th tj tk tl tm tn to
tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw
""".split())
_DIGIT_SWITCH = re.compile(r"(?<=[0-9])(?=[a-z])|(?<=[a-z])(?=[0-9])")


def hostlike(tok: str) -> bool:
    """A host name: its last label a top-level domain or an internal suffix. Under a country code,
    one label switching between letters and digits three times or more is a password with a dot
    (4ui2wqp.ls, io1f58o1.gg), not a name (api2.example.de, k8s.io)."""
    m = HOSTLIKE.match(tok)
    if m is None:
        return False
    tld = m.group(1)
    random_label = tok.count(".") == 1 and len(_DIGIT_SWITCH.findall(tok)) >= 3
    if tld in HOST_SUFFIXES:
        return not (len(tld) == 2 and random_label)  # io1f58o1.gg: a country code all the same
    return tld in _COUNTRY_TLDS and not random_label


# What a version's local part (after +) is made of: 1.2-3+deb12u1, 2.1.0+cpu, 2.0.1+cu118,
# 1.0.0+build.5, 1.0+git20230101.abc1234, 5.15+really5.14, 1.2+b1; besides numbers and hex.
# (No lone r: a random tail ends in one as often, 8-1+dws75r.)
_LOCAL_WORDS = frozenset("""
deb debian u ubuntu dfsg ds really nmu bpo b git svn hg bzr build dev local cpu cu rocm repack nightly snapshot rc
alpha beta pre post el fc mga sha exp rev patch p fix
""".split())
_HEXISH = re.compile(r"[0-9a-f]*[0-9][0-9a-f]*")
_LOCAL_SPLIT = re.compile(r"[.\-+_~]")


def random_local_part(tok: str) -> bool:
    """Whether a version-shaped word has letters after its + that no version's local part holds:
    a password that looks like a version (1.06+wbxali, 8-1+dws75r, 0.0+emodgm)."""
    plus = tok.find("+")
    if plus < 0:
        return False
    for group in _LOCAL_SPLIT.split(tok[plus + 1:].lower()):
        if not _HEXISH.fullmatch(group) and any(w not in _LOCAL_WORDS for w in LETTER_RUNS.findall(group)):
            return True
    return False

