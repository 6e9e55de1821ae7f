"""Scrubbing secrets and PII out of free text, in linear time.

Every rule (rules.py) is compiled with RE2 (google-re2): matching time is linear in the input
whatever the input, so hostile text (long runs of near-matches, nested-quantifier bait, one huge
line, binary junk) cannot make scrubbing slow. A keyword prefilter on the lower-cased text skips
the rules that cannot match. Overlapping findings merge; each redacted span becomes
``[REDACTED:<rule>]`` and nothing of the secret (no prefix, no length hint) survives.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import ahocorasick_rs
import re2

from jevlin_hooks.privacy.rules import RULES, Rule


@dataclass(frozen=True)
class Finding:
    rule: str
    start: int
    end: int


_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20
_COMPILED: list[tuple[Rule, Any, Any]] | None = None
_GATE: Any = None
_ALWAYS: list[int] = []  # rules that run on every text (no keyword, or a one-character one)
_BY_KEYWORD: dict[str, list[int]] = {}


def compiled() -> list[tuple[Rule, Any, Any]]:
    """Each rule compiled twice (for str, and for ASCII bytes, which skips the char-offset
    conversion that costs as much as the matching), and the keyword automaton."""
    global _COMPILED, _GATE
    if _COMPILED is None:
        words = sorted({k for r in RULES for k in r.keywords if len(k) > 1}, key=len, reverse=True)
        _GATE = ahocorasick_rs.AhoCorasick(words, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)
        for i, r in enumerate(RULES):
            if _gated(r, set()):
                _ALWAYS.append(i)
            else:
                for k in r.keywords:
                    _BY_KEYWORD.setdefault(k, []).append(i)
        _COMPILED = [(r, re2.compile(r.pattern, _OPTIONS), re2.compile(r.pattern.encode(), _OPTIONS)) for r in RULES]
    return _COMPILED


def _gated(rule: Rule, present: frozenset[str] | set[str]) -> bool:
    """Whether the keyword prefilter lets ``rule`` run. A one-character keyword gates nothing."""
    if not rule.keywords or any(len(k) == 1 for k in rule.keywords):
        return True
    return not present.isdisjoint(rule.keywords)


# --- value checks ----------------------------------------------------------------------------

# For users (docs/privacy.md): what a matching rule still leaves alone, and why.
LEFT_ALONE = """\
- **placeholders**, whatever rule matched: `xxxxxxxx`, `********`, `########`, 16 equal
  lower-case letters or digits, `EXAMPLE`, `<your token>`, `${TOKEN}`, `$VAR`, and a token whose
  tail is masked (`xoxp-1234-...-#####`) or already redacted (`ops_eyJzaWdu..[Redacted]`);
- **vendor tokens that do not vary**: the random part of a prefixed token must not be a counting
  run (`1234567890`, `abcdefghij`) or a few characters repeated (`sntryu_aaaa...`); tokens with a
  published exact shape (Anthropic, Sentry, Sourcegraph, Google, Azure AD, Telegram) must have it,
  including where they end: a near miss is a fixture or a broken key, not a working credential;
- **values next to credential names** that are not secrets: variable references (`$X`,
  `process.env.X`, `secrets.X`, `op://...`), stop words (`true`, `none`, `changeme`, ...), code
  (`self.api_key`, a quoted `x = y`), the name of a secret in a store (`secretKey: api-key`),
  and counting runs;
- **names that hold something else**: ids, URLs, paths, sizes, hashes (`client_id`,
  `token_url`, `UserSecretsId`, `keyPath`), public keys and tokens (`public_key`,
  `publishableKey`; a "public" password or secret is still redacted),
  anti-forgery tokens (`csrf`, `xsrf`, `authenticity_token`), and `key` inside another word
  (`monkeys`, `keying`);
- **random-looking values that are not secrets** (entropy rules only): git SHAs, UUIDs, package
  integrity hashes, image digests, version strings, paths and URLs, dotted host names, and
  unquoted values assigned with `=` to a camelCase name (code, where a secret would be a string
  literal; YAML's `name: value` is still checked).
"""

_STOPWORDS = frozenset("""
true false null none nil undefined yes no on off required optional string str int bool boolean
password passwd secret token key apikey api_key value example sample test dummy placeholder
changeme redacted hidden masked empty default your_token your_api_key your_password xxx todo tbd new
env environ getenv config settings self this props args kwargs params options request response
""".split())
_IDENT_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
_SNAKE = re.compile(r"^(?:[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z]+)+)$")
_WORDY = re.compile(r"^(?:[A-Za-z]{1,14}|\d{1,6})(?:[_\-.](?:[A-Za-z]{1,14}|\d{1,6}))+$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEX_DIGEST = re.compile(r"^(?:[0-9a-f]{7,12}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{96}|[0-9a-f]{128}|[0-9A-F]{40}|[0-9A-F]{64})$")
_INTEGRITY = re.compile(r"^(?:sha(?:1|256|384|512)[-:][A-Za-z0-9+/=]{20,}|[a-z0-9.\-/]+@sha256:[0-9a-f]{64})$")
_VERSIONISH = re.compile(r"^v?\d+(?:[._\-]\d+)+(?:[._\-+][A-Za-z0-9.\-]+)?$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# api-key, github_token: how a secret store names the secret (super-secret-password is a password)
_CRED_NAME = re.compile(r"^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*[-_.](?:key|token)(?:[-_.][a-z0-9]+)*$")
_ARTIFACT = re.compile(r"^[a-z][a-z0-9\-]*-\d+(?:\.\d+)+$")  # jjwt-jackson-0.11.2


# Checks look at most this much of a value: a 1 MB blob assigned to `token` is redacted whole
# without walking all of it in Python.
CHECK_LIMIT = 4096


def _placeholder(value: str) -> bool:
    v = value[:CHECK_LIMIT].strip().strip("\"'`")
    if len(v) < 4 or _ARTIFACT.match(v) or v.endswith(":") or _ascending_run(v) >= 10:
        return True  # ...0123456789, abcdefghij...: a fixture, not a credential
    raw = value[:CHECK_LIMIT]
    if " = " in raw or " := " in raw:
        return True  # a line of code quoted inside a string
    if _CRED_NAME.match(v):
        return True  # secretKey: api-key: the name of a secret in a store, not the secret
    low = v.lower()
    if " " in v and value.lstrip().startswith("`"):
        return True  # `command substitution`
    if low in _STOPWORDS or low.startswith(("=", "$", "[", "{", "...", "(", "%", "{{", "<", "#{", "[redacted", "@", "env:", "env.", "process.env",
                                           "os.environ", "secrets.", "vault:", "ref:", "op://", "file:")):
        return True
    if len(set(low) - set("*x.-_ ")) == 0 or len(set(low)) == 1:
        return True
    if _IDENT_PATH.match(v) or _SNAKE.match(v):
        return True  # config.token, self.api_key, called_with, ACCESS_TOKEN: code, not a value
    return v.startswith("//") or "::" in v


def _entropy(s: str) -> float:
    n = len(s)
    counts: dict[str, int] = {}
    for c in s:
        counts[c] = counts.get(c, 0) + 1
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _ascending_run(s: str) -> int:
    """The longest counting run (abcdef, 123456), whatever the case."""
    best = run = 1
    for a, b in zip(s.lower(), s[1:].lower(), strict=False):
        run = run + 1 if ord(b) == ord(a) + 1 else 1
        best = max(best, run)
    return best


def _shaped(body: str) -> bool:
    """A vendor token's random part: not a counting run (ntn_1234567890...) and not a few
    characters repeated (sntryu_aaaa...). Tokens put their random part last, so the tail is
    what must vary: GR1348941 + 123123123... is a prefix and a pattern."""
    body = body[:CHECK_LIMIT]
    return _ascending_run(body) < 10 and _entropy(body) >= 3.0 and _entropy(body[-20:]) >= 2.5


def _random_looking(value: str) -> bool:
    v = value[:CHECK_LIMIT].strip().strip("\"'`")
    if len(v) < 12 or _placeholder(v):
        return False
    if _UUID.match(v) or _HEX_DIGEST.match(v) or _INTEGRITY.match(v) or _VERSIONISH.match(v):
        return False
    if "/" in v and v.count("/") >= 2 and not v.endswith("="):
        return False  # a path or URL
    if " " in v or _WORDY.match(v):
        return False  # words joined by separators: an identifier, a file or host name
    if v.count(".") >= 2 and not any(c in v for c in "+/=_"):
        return False  # a host name or dotted identifier
    has_digit = any(c.isdigit() for c in v)
    has_alpha = any(c.isalpha() for c in v)
    if not (has_digit and has_alpha) and not (len(v) >= 30 and any(c.isupper() for c in v) and any(c.islower() for c in v)):
        return False
    # ABCDEFGH..., 0123456789: an alphabet, not a key
    return _entropy(v) >= 3.3 and _ascending_run(v) < 8


# 16 equal lower-case letters are a placeholder (aaaa...). Upper case is left alone: A and Q
# encode zero bits in base64 and bech32, and real tokens hold long runs of them (Twitter bearer
# tokens begin with 20 A's).
_FAKE = re.compile(r"([xX*.#])\1{7}|(\d)\2{15}|EXAMPLE|<|\$\{|^\$")
_LOWER_RUN = re.compile(r"([a-z])\1{15}")  # apart: in one pattern it slowed every search by half


_MASKED_TAILS = ("###", "***", "[REDACTED", "[Redacted", "[redacted")


def looks_fake(value: str, text: str = "", end: int = 0) -> bool:
    """Documentation placeholders, whatever rule matched them: ghp_xxxxxxxx, AKIA...EXAMPLE,
    <your token>, ${TOKEN}, ****, or a token whose tail is masked (xoxp-1234-...-#####) or
    already redacted (ops_eyJzaWdu..[Redacted])."""
    v = value[:CHECK_LIMIT]
    return _FAKE.search(v) is not None or len(v) >= 16 and _LOWER_RUN.search(v) is not None \
        or text.startswith(_MASKED_TAILS, end)


# Names that contain a credential word but hold something else: an id, a URL, a file, a size.
_NOT_SECRET_KEY_SUFFIXES = (
    "id", "ids", "url", "uri", "file", "path", "name", "type", "size", "length", "len", "format",
    "version", "mode", "dir", "count", "endpoint", "header", "prefix", "suffix", "field", "ref",
    "policy", "store", "env", "var", "arn", "location", "expiry", "expires", "ttl", "timeout",
    "enabled", "required", "label", "hint", "description", "pattern", "regex", "schema", "id_",
    "hash", "checksum", "digest", "integrity", "word",
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
_PUBLIC_NAME_WORDS = ("public", "publishable", "pubkey")
_SECRET_WORDS = ("pass", "pwd", "secret", "cred", "private")
_CREDENTIAL_WORDS = ("pass", "pwd", "secret", "token", "cred", "bearer", "jwt", "auth", "sig", "salt", "cookie", "account")


def _entropy_key_ok(key: str) -> bool:
    low = key.lower().strip("\"'`")
    return _key_ok(key) and not any(low == k or low.endswith(("-" + k, "_" + k, "." + k)) for k in _PUBLIC_RANDOM_KEYS)


def _key_ok(key: str) -> bool:
    name = key.strip("\"'`")
    low = name.lower()
    flat = low.replace("_", "").replace("-", "").replace(".", "")
    if flat.endswith(_NOT_SECRET_KEYS) or any(w in flat for w in _ANTI_FORGERY_WORDS):
        return False
    if any(w in flat for w in _PUBLIC_NAME_WORDS) and not any(w in flat for w in _SECRET_WORDS):
        return False
    if "key" in low and not any(w in low for w in _CREDENTIAL_WORDS) and not _has_word_key(name):
        return False  # monkeys-audio, master-keying: "key" inside another word
    if name != low and name != name.upper():
        low = _CAMEL.sub("_", name).lower()  # UserSecretsId -> user_secrets_id
    return not low.replace("-", "_").replace(".", "_").endswith(_NOT_SECRET_ENDINGS)


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


def _check(rule: Rule, value: str, text: str, start: int, end: int, m: Any = None) -> bool:
    kind = rule.check
    if not kind:
        return True
    if kind == "value":
        if end < len(text) and text[end] == "(":
            return False  # get_token(): a call, not a value
        if m is not None and rule.name in ("credential-assignment", "credential-xml") and m.group(1) \
                and not _key_ok(m.group(1)):
            return False
        if m is not None and rule.name == "credential-assignment" and " " in (m.group(4) or ""):
            return False  # KEY=`some command`: command substitution, not a value
        return not _placeholder(value)
    if kind == "entropy":
        return _random_looking(value) and (m is None or _entropy_key_ok(m.group(1) or ""))
    if kind == "entropy32":
        quoted = start > 0 and text[start - 1] in "\"'`"
        if not quoted and m is not None and _CAMEL.search(m.group(1) or "") and "=" in text[m.end(1):start]:
            return False  # sumOfExposures = 3Kof...: code, where a secret would be a string literal
        return (len(value) >= 32 and _random_looking(value) and _entropy(value) >= 3.6
                and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
                and (m is None or _entropy_key_ok(m.group(1) or "")))
    if kind == "authz":
        parts = value.split(None, 1)
        cred = parts[1] if len(parts) == 2 else parts[0]
        return not _placeholder(cred) and not cred.startswith(("$", "{", "..."))
    if kind == "prose":
        v = value.rstrip(".:!?)")
        if _placeholder(v) or v.lower() in _STOPWORDS or _IDENT_PATH.match(v) or _SNAKE.match(v) or "/" in v:
            return False
        has_digit = any(c.isdigit() for c in v)
        has_symbol = any(not c.isalnum() for c in v)
        mixed = any(c.isupper() for c in v[1:]) and any(c.islower() for c in v)
        return (has_digit and any(c.isalpha() for c in v)) or (has_symbol and (has_digit or mixed)) or (mixed and len(v) >= 12)
    if kind == "slack":
        # Slack's numeric parts are team, user and bot ids (6 to 13 digits in every token seen);
        # a one-digit version may lead. xoxp-1234-1234-1234-... is a made-up shape.
        numbers = [p for p in value.replace(".", "-").split("-") if p.isdigit() and len(p) > 1]
        return sum(c.isdigit() for c in value) >= 8 and all(len(p) >= 6 for p in numbers)
    if kind == "anthropic":
        # API and admin keys have one published shape (95 characters ending AA); a near miss is
        # a fixture or a broken key. Other kinds (OAuth, session) are taken at any length.
        kind_end = value.find("-", 7) + 1
        if value.startswith(("sk-ant-api", "sk-ant-admin")):
            return len(value) - kind_end == 95 and value.endswith("AA")
        return True
    if kind == "shape":
        return _shaped(value)
    if kind == "random":
        body = value.split("_", 1)[-1] if "_" in value[:8] else value
        if start > 0 and text[start - 1] == ".":
            return False  # video_box.ico-7a38....png: part of a dotted file or host name
        return _shaped(body) and (any(c.isdigit() for c in body) or len(body) >= 40)
    if kind == "userpass":
        user, _, password = value.replace('"', "").partition(":")
        if not password:  # an API key given as the user name (curl -u "KEY:")
            return len(user) >= 8 and not _placeholder(user) and _entropy(user) >= 3.0
        return not _placeholder(password) and password.lower() not in ("token", "pass", user.lower())
    if kind == "k8s":
        low = text.lower()
        if not ("kind: secret" in low or "kind: 'secret'" in low or 'kind: "secret"' in low or "kind:secret" in low):
            return False
        return any(c.isdigit() for c in value) or value.endswith("=") or "+" in value
    if kind == "home":
        return not value.startswith(("$", "{", "<", "%", "*")) and value.lower() not in ("shared", "public", "default", "all users")
    if kind == "ip":
        before = text[start - 1] if start > 0 else " "
        after = text[end:end + 2]
        if before.isalnum() or before in "._-" or (after[:1] == "." and after[1:2].isdigit()):
            return False  # part of a version string or longer dotted number
        if text[max(0, start - 9):start].lower().rstrip().endswith(("version", "release", "ver", "v")):
            return False
        return not value.startswith(("127.", "0.0.0.0", "255.255.255.", "0."))
    if kind == "ip6":
        return value != "::1" and (value.count(":") >= 3 or any(c.isdigit() for c in value))
    return True


def find(text: str, disabled: Iterable[str] = ()) -> list[Finding]:
    """Every finding, before merging."""
    off = set(disabled)
    rules = compiled()
    ascii_ = text.isascii()
    subject: str | bytes = text.encode("ascii") if ascii_ else text
    lower = text.lower()
    # Aho-Corasick, overlapping: every keyword occurrence in one linear pass ("sk_test_" holds
    # both "sk" and "k_test_", which a non-overlapping regex scan would not both report).
    present = set(_GATE.find_matches_as_strings(lower, overlapping=True))
    selected = set(_ALWAYS)
    for k in present:
        selected.update(_BY_KEYWORD.get(k, ()))
    out: list[Finding] = []
    for i in sorted(selected):
        rule, rx_str, rx_bytes = rules[i]
        if rule.name in off:
            continue
        groups = rule.group if isinstance(rule.group, tuple) else (rule.group,)
        secret = rule.category == "secret"
        needs_match = rule.check in ("value", "entropy", "entropy32")
        for m in (rx_bytes if ascii_ else rx_str).finditer(subject):
            for g in groups:
                s, e = m.span(g)
                if e > s:
                    break
            else:
                continue
            value = text[s:e]
            if secret and looks_fake(value, text, e):
                continue
            if rule.near and not _near(lower, s, rule.near):
                continue
            if rule.check and not _check(rule, value, text, s, e, _Groups(m, ascii_) if needs_match else None):
                continue
            out.append(Finding(rule.name, s, e))
    return out


def _near(lower: str, start: int, words: tuple[str, ...]) -> bool:
    """Whether a word starts in the 64 characters before ``start`` (OKTA_TOKEN, not rookTable)."""
    window = lower[max(0, start - 64):start]
    for w in words:
        i = window.find(w)
        while i >= 0:
            if i == 0 or not window[i - 1].isalpha():
                return True
            i = window.find(w, i + 1)
    return False


class _Groups:
    """A match's groups as str, whichever subject (str or bytes) it ran on."""

    __slots__ = ("m", "b")

    def __init__(self, m: Any, is_bytes: bool) -> None:
        self.m, self.b = m, is_bytes

    def group(self, i: int) -> str | None:
        g = self.m.group(i)
        if g is None:
            return None
        return g.decode("ascii") if self.b else str(g)

    def end(self, i: int) -> int:
        return int(self.m.end(i))  # bytes run only on ASCII text, so byte and character offsets agree


def merge(findings: list[Finding]) -> list[Finding]:
    """Overlapping or touching findings become one, named for its longest part."""
    merged: list[tuple[int, int, str, int]] = []
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if merged and f.start <= merged[-1][1]:
            s, e, name, longest = merged[-1]
            if f.end - f.start > longest:
                name, longest = f.rule, f.end - f.start
            merged[-1] = (s, max(e, f.end), name, longest)
        else:
            merged.append((f.start, f.end, f.rule, f.end - f.start))
    return [Finding(name, s, e) for s, e, name, _ in merged]


def scrub(text: str, disabled: Iterable[str] = ()) -> tuple[str, list[Finding]]:
    """``(clean_text, findings)``; findings hold rule names and positions, never the secret."""
    if not text:
        return text, []
    findings = merge(find(text, disabled))
    if not findings:
        return text, []
    parts = []
    pos = 0
    for f in findings:
        parts.append(text[pos:f.start])
        parts.append(f"[REDACTED:{f.rule}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), findings
