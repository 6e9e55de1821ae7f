"""Scrubbing secrets and PII out of free text, in linear time.

Every rule (rules.py) is compiled with RE2 (google-re2): matching time is linear in the input
whatever the input, so hostile text (long runs of near-matches, nested-quantifier bait, one huge
line, binary junk) cannot make scrubbing slow. A keyword prefilter on the lower-cased text skips
the rules that cannot match; the rules that start from a word (credentials in other languages,
labelled phone numbers) take their positions from it. Patterns run on a one-byte-per-character
view of the text, so positions need no conversion. A value split across lines is also looked
for with the joint taken out (_rejoined). Overlapping findings merge; each redacted span becomes
``[REDACTED:<rule>]`` and nothing of the secret (no prefix, no length hint) survives.
:func:`scrub_many` does a record's fields in one pass.
"""

from __future__ import annotations

import base64
import bisect
import codecs
import functools
import itertools
import math
import re
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import ahocorasick_rs
import re2
from re2 import _re2

from jevlin_hooks.privacy import anchored, pii, prefilter
from jevlin_hooks.privacy.rules import RULES, Rule, pattern_pieces


@dataclass(frozen=True)
class Finding:
    rule: str
    start: int
    end: int


_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20
# The wrapper's finditer re-encodes a str subject for every rule and builds a match object per
# match; we encode once and call RE2's Match on the UTF-8 bytes ourselves (a third of the cost).
_UNANCHORED = _re2.RE2.Anchor.UNANCHORED


@dataclass(frozen=True)
class _Compiled:
    rule: Rule
    rx: Any  # _re2.RE2 on UTF-8 bytes
    groups: tuple[int, ...]
    secret: bool
    needs_match: bool
    word_start: bool  # the pattern began with \b, checked in Python (see compiled())
    unicode: bool  # the pattern holds non-ASCII literals (credential words in other scripts)
    pid: int  # this pattern's number in the Hyperscan prefilter
    scan: Any  # the pattern without capture groups, for the patterns whose groups are costly, or None
    value: str  # how the value is read off a group-less match (_VALUE_SHAPES), or ""
    memo: dict[tuple[int, bytes, int], tuple[tuple[int, int], ...]]  # see _submatches
    pattern: str  # the text RE2 compiled (anchored.py reads it)
    rejects: Any  # rejects(text, data, s0, e0): the match's check would fail, told without its groups (_REJECTS), or None


_COMPILED: list[list[_Compiled]] | None = None
_GATE: Any = None
_ALWAYS: list[int] = []  # rules with no keyword: they run on every text
_BY_KEYWORD: dict[str, list[int]] = {}
_GATE_WORDS: list[str] = []
# Hyperscan's keyword gate and pattern prefilter (prefilter.py), None without Hyperscan: the same
# output either way. Prefiltered: the rules whose RE2 pass often finds nothing on agent text and
# costs more than the rule adds to Hyperscan's one pass (measured pattern by pattern on
# bench/scrub_speed.py's mixes). Left out: rules that match in nearly every text (quoted-high-entropy,
# credential-assignment, ipv4, ...: a prefilter cannot save their pass), rules that cost Hyperscan
# about what they cost RE2 (e-mail, IPv6, the YAML block), and rules RE2 skips through by memchr.
_PF: prefilter.Prefilter | None = None
_PREFILTERED = frozenset((
    "1password-token", "api-header", "artifactory-token", "aws-access-key-id", "aws-secret-access-key",
    "basic-auth-flag", "basic-auth-flag-quoted", "beamer-token", "bearer-token", "dev-platform-token",
    "discord-token", "doppler-token", "facebook-token", "github-token", "gitlab-token", "huggingface-token", "iban",
    "intra42-secret", "jwt-base64", "langsmith-key", "llm-provider-key",
    "llm-provider-key-2", "lob-gocardless-key", "mailchimp-key", "mailgun-key", "mapbox-token", "newrelic-key",
    "octopus-key", "okta-token", "payment-card", "phone-number", "settlemint-token", "shopify-token",
    "sonarqube-token", "stripe-key", "telegram-bot-token", "twilio-key", "url-credentials", "vault-token",
    "yandex-token", "credential-name-value", "basic-auth-call", "url-token-user", "config-directive-password",
    "credential-use-as", "credential-pair", "credential-table-cell",
))
_LOCATED = ("i18n", "phonelabel")  # rules that take their positions from the gate's words
# One-character keywords ("." ":" "=" "@"): a plain `in` test each (memchr), since the automaton
# would report every one of their thousands of occurrences.
_COMMON = frozenset(k for r in RULES for k in r.keywords if k.isascii() and len(k) == 1)
assert not any(k.isalpha() for k in _COMMON), "a one-letter keyword would need the lower-cased text"
_COMMON_BYTES = tuple((k, k.encode()) for k in sorted(_COMMON))
# Rules searched only on the lines that hold one of their keywords (anchored.py tells which can
# be): rule index -> its patterns' anchors, and gate word index -> the rules it anchors. Left
# out: rules with a keyword in nearly every agent text (each occurrence costs a Hyperscan report,
# and the lines would be most of the text): per 32 KiB of bench/scrub_speed.py's mixes, `ac`
# 140, `id` 88, `key` 50, `s.` 43, `00` 39, `token` 24, `_id` 16, `auth` 15, `account` 7.
_EVERYWHERE = frozenset(("ac", "id", "_id", "key", "s.", "00", "token", "auth", "account"))
# Words a match can hold instead of a keyword, where the keyword is only the commonest spelling
# (`net  use` and `net<TAB>user` hold neither "net use" nor "net user"): windows come from these
# too, the gate is as it was.
_EXTRA_ANCHORS = {"cli-password": ("net ", "net\t")}
_WINDOWED: dict[int, tuple[str, ...]] = {}
# Rules whose check wants a word in the 64 characters before the value (``near``) and whose matches
# hold no line break: searched on the lines within those 64 characters after each such word.
_NEAR_WINDOWED: dict[int, tuple[str, ...]] = {}
_ANCHOR_RULES: dict[int, tuple[int, ...]] = {}
_NEAR_RULES: dict[int, tuple[int, ...]] = {}
_BY_LINES: set[int] = set()  # the keys of both
_NEAR_REACH = 64  # _near's look-back
_WINDOWS_FROM = 4096  # bytes: below, a pass costs RE2 about what finding the lines costs Python


def compiled() -> list[list[_Compiled]]:
    """Each rule's patterns (one per vendor prefix, see _alternatives), compiled once for bytes,
    and the keyword automaton."""
    global _COMPILED, _GATE
    if _COMPILED is None:
        extra = {w for ws in _EXTRA_ANCHORS.values() for w in ws} | {w for r in RULES for w in r.near if w.isascii()}
        words = sorted({k for r in RULES for k in r.keywords if k not in _COMMON} | extra, key=lambda w: (-len(w), w))  # one order in every process: the prefilter cache is keyed by it
        _GATE_WORDS[:] = words
        _GATE = ahocorasick_rs.AhoCorasick(words, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)
        for i, r in enumerate(RULES):
            if not r.keywords:
                _ALWAYS.append(i)
            for k in r.keywords:
                _BY_KEYWORD.setdefault(k, []).append(i)
        out: list[list[_Compiled]] = []
        to_prefilter: list[tuple[int, str]] = []
        by_end: tuple[list[tuple[int, str]], list[tuple[int, str]]] = ([], [])  # as _ENDS: every text, long ones
        pid = 0
        for r in RULES:
            groups = r.group if isinstance(r.group, tuple) else (r.group,)
            out.append([])
            for part in _alternatives(r.pattern) if r.group == 0 else [r.pattern]:
                pattern, word_start = _split_word_start(_open_end(part))
                rx = _re2.RE2(pattern.encode(), _OPTIONS)
                if not rx.ok():
                    raise re2.error(f"{r.name}: {rx.error()}")
                scan = None
                value_shape = _VALUE_SHAPES.get(r.name, "")
                rejects = _REJECTS.get(r.name)
                if rx.NumberOfCapturingGroups() and (rx.ProgramSize() >= _COSTLY_GROUPS or value_shape or rejects):
                    scan = _re2.RE2(_without_groups(pattern).encode(), _OPTIONS)
                    assert scan.ok() and not scan.NumberOfCapturingGroups(), r.name
                out[-1].append(_Compiled(r, rx, groups, r.category == "secret", r.check in _NEEDS_MATCH, word_start,
                                         not r.pattern.isascii(), pid, scan.Match if scan else None, value_shape, {},
                                         pattern, rejects))
                if r.name in _PREFILTERED and r.pattern.isascii():
                    to_prefilter.append((pid, pattern))
                if r.name in _BY_END:
                    assert _BY_END[r.name] or anchored.one_line(pattern), r.name  # a length of 0: see _BY_END
                    by_end[_END_DB[r.name]].append((pid, pattern))
                pid += 1
        _window_rules(out, words)
        located = {k for r in RULES if r.check in _LOCATED for k in r.keywords}
        assert sum(map(len, by_end)) == len(_BY_END) and all(r.pattern.isascii() for r in RULES if r.name in _BY_END)
        _COMPILED = out
        if prefilter.available():
            # Hyperscan takes 0.2-0.3 s to compile (RE2 all the rules: 0.05 s) and lets other
            # threads run meanwhile: the first texts are scrubbed without it, with the same result.
            anchors = sorted({(words.index(w), w) for d in (_WINDOWED, _NEAR_WINDOWED) for ws in d.values() for w in ws})
            threading.Thread(target=_build_prefilter, name="jevlin-scrub-prefilter", daemon=True,
                             args=(words, [i for i, w in enumerate(words) if w in located], to_prefilter,
                                   by_end, anchors)).start()
    return _COMPILED


def _window_rules(rules: list[list[_Compiled]], words: list[str]) -> None:
    """Which rules are searched only on their keywords' lines (see anchored.py), with their anchors."""
    index = {w: i for i, w in enumerate(words)}
    by_word: dict[int, list[int]] = {}
    by_near: dict[int, list[int]] = {}
    for i, r in enumerate(RULES):
        if not r.keywords or not r.pattern.isascii() or r.check in _LOCATED or r.name in _BY_END or r.name == "email":
            continue
        anchors = tuple(r.keywords) + _EXTRA_ANCHORS.get(r.name, ())
        if (not any(k in _COMMON or k in _EVERYWHERE or k != k.lower() for k in anchors)
                and all(anchored.line_anchored(c.pattern, anchors) for c in rules[i])):
            _WINDOWED[i] = anchors
            for w in anchors:
                by_word.setdefault(index[w], []).append(i)
        elif (r.near and all(w.isascii() and w == w.lower() and w not in _EVERYWHERE for w in r.near)
              and all(anchored.within_lines(c.pattern) for c in rules[i])):
            _NEAR_WINDOWED[i] = r.near
            for w in r.near:
                by_near.setdefault(index[w], []).append(i)
    _ANCHOR_RULES.update((k, tuple(v)) for k, v in by_word.items())
    _NEAR_RULES.update((k, tuple(v)) for k, v in by_near.items())
    _BY_LINES.update(_WINDOWED, _NEAR_WINDOWED)


# From this program size on, RE2 takes 3-8 us to work out a match's groups (its bit-state
# backtracker over a big alternation of key names, case-folded): such a pattern is scanned without
# groups, and the groups are worked out once per distinct match text (_submatches).
_COSTLY_GROUPS = 400
_ANCHOR_BOTH = _re2.RE2.Anchor.ANCHOR_BOTH
_MEMO_LIMIT = 4096


def _without_groups(pattern: str) -> str:
    """Every capturing ( as (?: (not inside a character class, not escaped)."""
    return "".join("(?:" if piece == "(" and not in_class and pattern[i + 1:i + 2] != "?" else piece
                   for i, piece, in_class in pattern_pieces(pattern))


def _submatches(c: _Compiled, data: bytes, s0: int, e0: int) -> list[tuple[int, int]]:
    """The groups of the match [s0, e0): what RE2's own unanchored search does after finding the
    match (its groups, anchored at both ends of the match), remembered for the match text and the
    byte on each side (all that ^, $ and \\b at its ends can see): agent text repeats its lines."""
    key = (data[s0 - 1] if s0 else 256, data[s0:e0], data[e0] if e0 < len(data) else 256)
    rel = c.memo.get(key)
    if rel is None:
        spans = c.rx.Match(_ANCHOR_BOTH, data, s0, e0)
        rel = tuple((a - s0, b - s0) if a >= 0 else (-1, -1) for a, b in spans)
        if len(c.memo) >= _MEMO_LIMIT:
            c.memo.clear()
        c.memo[key] = rel
    return [(a + s0, b + s0) if a >= 0 else (-1, -1) for a, b in rel]


# credential-in-prose: 15 candidates a varied message, one finding. Its one group, the value, is
# the pattern's last, greedy part, and what precedes it (a blank or a quote) is no value
# character: the value is the run of value characters at the match's end, read off in C
# (rstrip), where RE2 took another call a candidate to say where the group is. (Tried for
# quoted-high-entropy and the assignment rules too, with the value's cheap tests before RE2's
# groups: slower, 0.92-0.98x; RE2 works out their groups in 2-3 us, less than Python reads them.)
_VALUE_SHAPES = {
    "credential-in-prose": "prose",  # ...[ \t]+[quote]VALUE, VALUE = [^\s"'`,;]{6,}
}
_PROSE_CHARS = bytes(b for b in range(256) if b not in b'\t\n\f\r "\'`,;')


def _value_span(shape: str, data: bytes, s0: int, e0: int) -> tuple[int, int]:
    """The value group of the match [s0, e0), read off the match (see _VALUE_SHAPES)."""
    assert shape == "prose"
    s = s0 + len(data[s0:e0].rstrip(_PROSE_CHARS))
    if data[s] == 0x28 and e0 - s > 2:  # (X): the token in brackets, not the brackets
        return s + 1, e0 - 1 if data[e0 - 1] == 0x29 else e0
    return s, e0


_PF_READY = threading.Event()


# The candidate-heavy rules' commonest rejections, told from the match alone (no groups): on a
# varied message 48 quoted-high-entropy candidates, 38 generic-high-entropy and 32
# credential-assignment ones, most turned down for their key name (client_id, user_id, cache_key)
# or, under quoted-high-entropy, a digest or UUID value. Their key name is group 1, the run of
# name characters right after the match's first character (or from 0, where ^ matched): what
# follows a name in these patterns is a quote, a blank, `=`, `:`, `,`, `]`, `?`, `+`, `|` or `.`
# (`key.=`), and of those only `.` is a name character, so where the run does not end in `.` the
# name is the whole run (greedy, and no shorter name leaves a match the longer one does not).
# Both rules' patterns are ASCII: they run on the one-byte view, whose offsets are the text's.
_ASSIGN_NAME = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"  # [a-z0-9_.\-] under (?i)
_QUOTED_NAME = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"  # [A-Za-z0-9_\-]
_QUOTED_VALUE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_HEX_DASH = b"0123456789abcdefABCDEF-"


def _name_end(data: bytes, s0: int, e0: int, chars: bytes) -> tuple[int, int]:
    """Where group 1 (the key name) of a match [s0, e0) of these rules lies: see above."""
    ns = s0 if s0 == 0 and data[0] in chars else s0 + 1
    seg = data[ns:e0]
    return ns, ns + len(seg) - len(seg.lstrip(chars))


def _rejects_assignment(text: str, data: bytes, s0: int, e0: int) -> bool:
    ns, ne = _name_end(data, s0, e0, _ASSIGN_NAME)
    return data[ne - 1] != 0x2E and not _key_ok(text[ns:ne])


def _rejects_weak(text: str, data: bytes, s0: int, e0: int) -> bool:
    ns, ne = _name_end(data, s0, e0, _ASSIGN_NAME)
    return data[ne - 1] != 0x2E and not _entropy_key_ok(text[ns:ne])


def _rejects_quoted(text: str, data: bytes, s0: int, e0: int) -> bool:
    ns, ne = _name_end(data, s0, e0, _QUOTED_NAME)
    if not _entropy_key_ok(text[ns:ne]):
        return True
    # The value ends the match. Where it ends in a run of 32+ hex digits and dashes with no value
    # character before the run, the value is that run: what precedes a value in the pattern (a
    # quote, a blank, `:`, `,`, `=`, `>`) is no hex digit or dash. A digest or UUID: rejected.
    seg = data[ne:e0]
    r = len(seg.rstrip(_HEX_DASH))  # >= 1: the name is followed by a quote, a blank or `=:,`
    return len(seg) - r >= 32 and seg[r - 1] not in _QUOTED_VALUE \
        and _PUBLIC_SHAPE.match(text[ne + r:e0][:CHECK_LIMIT]) is not None


_REJECTS = {"credential-assignment": _rejects_assignment, "generic-high-entropy": _rejects_weak,
            "quoted-high-entropy": _rejects_quoted}


def _build_prefilter(words: list[str], located: list[int], patterns: list[tuple[int, str]],
                     by_end: tuple[list[tuple[int, str]], list[tuple[int, str]]], anchors: list[tuple[int, str]]) -> None:
    global _PF, _ANCHORS
    try:
        _ANCHORS = prefilter.build_anchors(anchors)
        _ENDS[:] = [prefilter.build_ends(patterns) for patterns in by_end]
        # In long texts the rules started near their match ends need no prefilter: the ends
        # database, scanned for them anyway, says where they can match, or that they cannot.
        # (Cards, phone numbers and IBANs were 170 us of the prefilter's 300 a varied message.)
        long_skip = [pid for pid, _ in by_end[1]] if _ENDS[1] is not None else []
        _PF = prefilter.build(words, located, patterns, long_skip)
    except Exception:  # noqa: BLE001 - whatever goes wrong, scrubbing goes on without it, unchanged
        _PF = _ANCHORS = None
        _ENDS[:] = [None, None]
    finally:
        _PF_READY.set()


# Rules with matches of a bounded length (bytes) whose RE2 pass walks the whole text, having no
# literal to skip to (0.05 ms a 32 KiB message): Hyperscan finds where their matches end in a few
# us, and RE2 starts at most that many bytes before the next end, or stops after the last. IPv4 runs
# on every text with a dot: the daemon's records 1.18x, the bench mix 1.05x; the varied mix, with
# 7.5 addresses a message, no faster. (kubeadm-token, 23 bytes, costs Hyperscan 20 us of the 50 it
# saves RE2, and gained nothing on the varied mix either.) The three keyword-less PII rules, whose
# RE2 pass ran on nearly every text the prefilter let through (digits are everywhere): 838 -> 816
# million instructions for 30 varied messages (bench/scrub_instructions.py); IPv6 (60 bytes)
# gained nothing. The lengths are the patterns' longest matches (Python's parser: getwidth()).
# yaml-block-secret has no longest match but ends at its line break: 816 -> 808 million.
_BY_END = {
    "ipv4": 15,  # 255.255.255.255
    "payment-card": 22,
    "iban": 49,
    "phone-number": 56,
    "yaml-block-secret": 0,  # unbounded, but on one line (anchored.one_line): RE2 starts at that line
}
# Of those, these are started near their ends only in texts of _WINDOWS_FROM and more, from a
# database of their own: in a daemon record (1-3 KiB) their RE2 passes cost less than their part
# of Hyperscan's scan (records 0.94x with all five in one database)
_BY_END_LONG = frozenset(("payment-card", "iban", "phone-number", "yaml-block-secret"))
_ENDS: list[prefilter.Ends | None] = [None, None]  # the database for every text, and for long ones
_END_DB = {name: int(name in _BY_END_LONG) for name in _BY_END}  # which of the two a rule is in
_ANCHORS: prefilter.Anchors | None = None  # where the anchors of the rules searched by lines are


def wait_prefilter(timeout: float = 10.0) -> bool:
    """Wait for the Hyperscan prefilter (benches and tests measure and test the steady state);
    whether it runs."""
    compiled()
    if prefilter.available():
        _PF_READY.wait(timeout)
    return _PF is not None


_NEEDS_MATCH = ("value", "entropy", "entropy32", "yamlblock", "prose", "pair")
_ONE_BYTE = "jevlin-one-byte"


def _one_byte(e: UnicodeError) -> tuple[str, int]:
    """What does not convert becomes one \\x1a per character (or byte), so offsets agree."""
    if not isinstance(e, (UnicodeDecodeError, UnicodeEncodeError)):
        raise e
    return "\x1a" * (e.end - e.start), e.end


codecs.register_error(_ONE_BYTE, _one_byte)
_QUESTION_TO_SUB = bytes.maketrans(b"?", b"\x1a")


def one_byte_view(text: str) -> bytes:
    """``text.encode("ascii", _ONE_BYTE)``, without a Python call per run of non-ASCII characters:
    the C encoder's "replace" writes one ? per character (a lone surrogate too), every ? becomes
    \x1a, and the text's own question marks (few) are put back."""
    if text.isascii():
        return text.encode("ascii")
    view = text.encode("ascii", "replace").translate(_QUESTION_TO_SUB)
    i = text.find("?")
    if i < 0:
        return view
    buf = bytearray(view)
    while i >= 0:
        buf[i] = 63  # ?
        i = text.find("?", i + 1)
    return bytes(buf)
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# the e-mail rule's local part and domain characters
_EMAIL_LOCAL_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-"
_EMAIL_LOCAL = frozenset(_EMAIL_LOCAL_CHARS)
_EMAIL_DOMAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
_EMAIL_DOMAIN_RUN = re.compile(rb"[A-Za-z0-9.\-]*")
_EMAIL_SEEK_BYTES = 1024  # looking around each @ pays where there is under one @ a KiB


def _alternatives(pattern: str) -> list[str]:
    """``\\b(?:ghp_...|gho_...)\\b`` as one pattern per alternative: RE2 skips ahead (memchr) only
    to a literal every match starts with, so each vendor prefix gets its own pattern. Only for
    patterns without capture groups (group 0), whose matches do not depend on the split."""
    flags = "(?i)" if pattern.startswith("(?i)") else ""
    body = pattern[len(flags):]
    lead = "\\b" if body.startswith("\\b") else ""
    body = body[len(lead):]
    if not body.startswith("(?:"):
        return [pattern]
    depth, parts, start, rest = 0, [], 3, None
    for i, piece, in_class in pattern_pieces(body):
        if in_class:
            continue
        if piece == "(":
            depth += 1
        elif piece == ")":
            depth -= 1
            if depth == 0:
                parts.append(body[start:i])
                rest = body[i + 1:]
                break
        elif piece == "|" and depth == 1:
            parts.append(body[start:i])
            start = i + 1
    if rest is None:
        return [pattern]
    if len(parts) < 2 or "|" in rest.replace("\\|", ""):
        return [pattern]
    return [flags + lead + part + rest for part in parts]


_OPEN_END = re.compile(r"(\[(?:[^\]\\]|\\.)*\])\{\d+,\}\\b$")


def _open_end(pattern: str) -> str:
    r"""A vendor token's pattern without its closing \b where it ends in an unbounded run of a
    class holding non-word characters (figd_[A-Za-z0-9_\-]{40,}\b): the greedy run already ends
    where the token does, and the \b only made a token ending in `-` or `=` give that character
    back, or not match at all when it was the 40th."""
    m = _OPEN_END.search(pattern)
    if m and re.search(r"\\-|[.+/=~,]", m.group(1).replace("\\.", ".")):
        return pattern[:-2]
    return pattern


def _split_word_start(pattern: str) -> tuple[str, bool]:
    """A leading \b costs RE2 its literal-prefix scan (memchr to the next "ghp_"): 100x slower
    on text without the prefix. Every such pattern starts with a word character, so the \b means
    "no word character before", which find() checks itself."""
    for flags in ("", "(?i)"):
        if pattern.startswith(flags + "\\b"):
            rest = pattern[len(flags) + 2:]
            head = rest[3:] if rest.startswith("(?:") else rest[1:] if rest.startswith("(") else rest
            if head[:1].isalnum():  # a literal first: RE2 can skip to it (a class it cannot)
                return flags + rest, True
    return pattern, False


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
  `process.env.X`, `secrets.X`, `op://...`, `%(password)s`, `%APPDATA%`, `@Value(...)`,
  `@secrets/db.txt`, `...`; a value that starts with `%`, `@`, `=` or `...` and goes on like a
  password, `%Tq9zW2xk`, is one), a value under `pass` or `pw` alone that does not look like a
  password (`pass: 3/3`, `pw: true`), what prose says about a secret rather than the secret
  (`the token lifetime is 86400s`, `the secret name is db-creds-v2`: name, ARN, lifetime, header,
  hash, ... between the word and the value), a code object's field in prose (`the key is
  settings.OPENAI_KEY`; any other dotted value after is/was/to is a password), stop words (`true`, `none`, `changeme`, ...), code
  (`self.api_key`, a quoted `x = y`, though not after a password flag or in an upper-case shell
  assignment, where `-p'd0~ = c*7w'` is a password; but a dotted value with digits inside its words, like a
  kubeadm token or `Qb9sM6.ET3`, or a part in mixed case with digits and almost no vowels, like
  `ko.bkSjv23`, or cased at random, like `eC900.JLgIZoWPW` and `fIpR82.ByXg0`, is a value, and so is any dotted value where nothing refers to a
  variable: after a password flag, `-p ti.KsPc75_Y` or `--password x.Y1`, in `user:password`,
  assigned to an upper-case name in a shell, `.env` or YAML env line, `DB_PASS=x.Y1`, or in a
  connection string, `Password=x.Y1;` or `password=x.Y1 dbname=app`, or as a label's value
  alone on its line, `Password: x.Y1`, or with digits and both cases alone on its line among YAML
  lines, `user: etl` / `pass: nxZly5.wC5`, or after "use" and before "as the password"), a host name (ending in a top-level domain, a
  country code or an internal suffix: `db-1.internal`, `cache.svc.cluster.local`; not one random
  label under a country code, `4ui2wqp.ls`), a version (`1.2-3+deb12u1`, `2.1.0+cu118`; not one with
  random letters after its `+`, `1.06+wbxali`) and the rest of a compound word (`Passwort-Manager`)
  after a credential word in another language, a host
  and its port (`db-pwdy.corp.example.org:6379`: "pwd" in a host name names no credential), the name of a secret in a store (`secretKey: api-key`), the next key of a JSON
  object (`"kind": "Secret", "data": {`), a flag with no value (`mysql -p dbname` prompts;
  `-passin env:VAR` names a variable; a Windows flag after `net use` or `net user`,
  `/persistent:no`, `/add`, and `*`, which prompts), a crypted hash (`rootpw --iscrypted $6$...`),
  a value in a `.login(...)` call that does not look like a password (`client.login('user', 'pass')`),
  what a value is used as when the credential's name is followed by another noun (`use sha256 as
  the key derivation function`), an aside in brackets after `token` (`(whitespace_split=True)`),
  a URL, a path, an address, a host and port or a time after `login`, `sign in` or `creds`
  (`login from fe80::1`, `login at 10:30:15`), and counting runs;
- **names that hold something else**: ids, URLs, paths, sizes, hashes (`client_id`,
  `token_url`, `UserSecretsId`, `keyPath`), public keys and tokens (`public_key`,
  `publishableKey`; a "public" password or secret is still redacted),
  anti-forgery tokens (`csrf`, `xsrf`, `authenticity_token`), `key` inside another word
  (`monkeys`, `keying`), and public or ciphertext fields (`signature`, `iv`, `tag`, `mac`,
  `nonce`, `encrypted_data`, `certificate-authority-data`: a name ending in `data` is skipped only
  when no credential word is in it, so `client-key-data` and `secret_data` are still checked);
- **random-looking values that are not secrets** (entropy rules only): git SHAs, UUIDs, package
  integrity hashes, image digests, W3C `traceparent` values, version strings, paths and URLs,
  dotted host names, and unquoted values assigned with `=` to a camelCase name (code, where a
  secret would be a string literal; YAML's `name: value` is still checked);
- **public base64**: base64 of a PEM certificate or public key (`LS0tLS1CRUdJTiBDRVJU...`) is kept
  wherever it appears, except as data of a Kubernetes `kind: Secret`;
- **URLs and remotes**: in `scheme://user:password@host/path` only the password goes; the scheme,
  the user name (an account like `postgres` or `app`; it tells which credential leaked), the host
  and the path stay; a user name with no password goes only when it is a random-looking token
  (`https://TOKEN@github.com/org/repo.git`, as git accepts), and an account name stays
  (`https://deploy-bot@...`). `git@github.com:org/repo.git` and `ssh deploy@host` are remotes, not e-mail
  addresses;
- **numbers that are not personal data**: version tuples (`AssemblyVersion("2.1.0.3")`,
  `version 1.2.3.4`, `requests==2.31.0.1`) and network blocks (`10.0.0.0/8`, `192.168.1.0/24`:
  host bits all zero) are not IP addresses; dates, times, versions and addresses are not phone
  numbers; a card number must pass the Luhn check and fit a card network's prefix and length; an
  IBAN must fit its country's length and pass its mod-97 check; a US SSN needs `SSN` or
  `social security` just before it and a possible area (not 000, 666 or 9xx);
- **line breaks**: `Bearer` and `Authorization:` never take the next line as their token (a bare
  `Authorization: Bearer` with nothing after it on the line is left as it is).
"""

_COMMAND_RULES = frozenset(("cli-password", "stdin-password", "htpasswd-password", "credential-flag", "config-directive-password"))
# values that are data (a YAML or JSON env list) or a quoted literal (auth=("u", "x")): never a reference
_DATA_RULES = frozenset(("credential-name-value", "basic-auth-call"))
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
_DATE_OR_VERSION = re.compile(r"^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d+\.\d+(?:\.\d+)?)$")
_AUTH_SCHEMES = frozenset(("bearer", "basic", "token", "digest", "apikey", "api-key", "negotiate", "ntlm"))
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")  # W3C trace context
# the five in one call (each keeps its own ^ and $): most candidate values are one of them
_PUBLIC_SHAPE = re.compile("|".join(f"(?:{rx.pattern})" for rx in (_UUID, _HEX_DIGEST, _INTEGRITY, _VERSIONISH, _TRACEPARENT)))
_NEXT_IS_KEY = re.compile(r"""["'`]?[ \t]*:(?!:)""")
_SSH_BEFORE = re.compile(r"\b(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id|sshpass|autossh)\b[^\n]*$")
_VERSION_BEFORE = re.compile(r"(?:version|release|\bver|\bv|\bbuild|\btag|@|[a-z0-9_\]](?<!ip)(?<!addr)(?<!host)[=~!<>]=)[\"'(\[=: \t]*\Z")  # pip's requests==1.2.3.4; not ip==; \Z: $ would also match before a line break
# api-key, github_token: how a secret store names the secret (super-secret-password is a password)
_CRED_NAME = re.compile(r"^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*[-_.](?:key|token)(?:[-_.][a-z0-9]+)*$")
_ARTIFACT = re.compile(r"^[a-z][a-z0-9\-]*-\d+(?:\.\d+)+$")  # jjwt-jackson-0.11.2


# Checks look at most this much of a value: a 1 MB blob assigned to `token` is redacted whole
# without walking all of it in Python.
CHECK_LIMIT = 4096


def _placeholder(value: str, code: bool = True) -> bool:
    """A value that names or stands for a secret rather than being one (see LEFT_ALONE).
    Remembered per value: code repeats its values (config.api_key, capacity)."""
    return _placeholder_memo(value, code) if len(value) <= 256 else _placeholder_uncached(value, code)


@functools.lru_cache(maxsize=4096)
def _placeholder_memo(value: str, code: bool) -> bool:
    return _placeholder_uncached(value, code)


def _placeholder_uncached(value: str, code: bool = True) -> bool:
    v = value[:CHECK_LIMIT].strip().strip("\"'`")
    if len(v) < 4 or _ARTIFACT.match(v) or v.endswith(":") or _has_run(v, 10):
        return True  # ...0123456789, abcdefghij...: a fixture, not a credential
    raw = value[:CHECK_LIMIT]
    if code and (" = " in raw or " := " in raw):
        return True  # a line of code quoted inside a string (after a password flag: a password with blanks)
    if _CRED_NAME.match(v):
        return True  # secretKey: api-key: the name of a secret in a store, not the secret
    low = v.lower()
    if " " in v and value.lstrip().startswith("`"):
        return True  # `command substitution`
    if low in _STOPWORDS or low.startswith(("$", "[", "{", "(", "{{", "<", "#{", "[redacted", "env:", "env.", "process.env",
                                           "os.environ", "secrets.", "vault:", "ref:", "op://", "file:")):
        return True
    if _sigil_reference(v, code):
        return True
    # masks (all of * x . - _ and blanks) and one character repeated; strip and count run in C
    # where sets of a long value's characters did not
    if not low.strip("*x.-_ ") or low.count(low[0]) == len(low):
        return True
    if code and "." in v and _IDENT_PATH.match(v) and not _random_dotted(v) or _SNAKE.match(v):
        return True  # config.token, self.api_key, called_with, ACCESS_TOKEN: code, not a value
    # //comment, //host/path and a::b scopes; a base64 key may start with // too (an Azure key)
    return v.startswith("//") and not _BASE64_BLOB.match(v) or "::" in v


_BASE64_BLOB = re.compile(r"^[A-Za-z0-9+/]{40,}={0,2}$")


_SCHEMES = frozenset(("http", "https", "ssh", "ftp", "sftp", "git", "file", "s3", "gs"))
# what may follow the credential's name in "use X as the password ...": the sentence goes on about
# the secret (for the DB, here, instead), where "use sha256 as the key derivation" names something else
_AFTER_NAME = re.compile(r"[ \t]*(?:$|[.,;:!?)\r\n]|(?:for|of|on|in|at|to|and|or|here|now|instead|when|while|with|from"
                         r"|this|that|so|but|if|please|then|until)\b)", re.IGNORECASE)
_COPULA = re.compile(r"[ \t](?:is|was|to)[ \t]", re.IGNORECASE)
_CODE_ROOTS = frozenset("""
settings config cfg conf configuration env environ os process self this ctx context app secrets vault params
args opts options request req props state credentials creds keys auth client server session user db
""".split())
# Words that make "the token lifetime is X", "the secret name is X" say something about the
# secret rather than give it (credential-in-prose takes up to four words before is/was/to)
_NOT_THE_SECRET = frozenset("""
name names arn id ids ttl lifetime expiry expiration expires length size version type endpoint url uri
path file filename format header policy policies field hash hashing algorithm prefix scope scopes
audience issuer count age rotation manager env variable var rule rules label mount template
""".split())
_LETTER_RUNS = re.compile(r"[a-z]+")  # words of lower-cased text (here and in _random_local_part)


_PREFIX_LENGTH = re.compile(r"/(\d{1,2})(?![0-9])")


def _network_block(address: str, text: str, end: int) -> bool:
    """address/prefix whose host bits are all zero: 10.0.0.0/8, not 10.1.2.3/8 or 10.1.2.3/32."""
    m = _PREFIX_LENGTH.match(text, end)
    if m is None or int(m.group(1)) > 31:
        return False
    a, b, c, d = (int(x) for x in address.split("."))
    return ((a << 24 | b << 16 | c << 8 | d) & ((1 << (32 - int(m.group(1)))) - 1)) == 0


def _password_like(v: str) -> bool:
    """A word that looks like a password rather than prose: letters and digits, or symbols with
    digits or mixed case, or long and mixed case."""
    has_digit = any(map(str.isdigit, v))
    has_symbol = not v.isalnum()
    mixed = any(map(str.isupper, v[1:])) and any(map(str.islower, v))
    return (has_digit and any(map(str.isalpha, v))) or (has_symbol and (has_digit or mixed)) or (mixed and len(v) >= 12)


def _sigil_reference(v: str, code: bool) -> bool:
    """A value led by % = @ or ... that refers to something or elides it (%(password)s,
    %APPDATA%, == x, @Value(...), @secrets/db.txt, @db.internal:5432, ...) rather than being a
    password that happens to begin with a symbol (%Tq9zW2x!k, =%Xv-etg16.kI, @96lrPz.bHP2CnD.ee)."""
    if v.startswith("..."):
        return not _random_after_sigil(v[3:], code)
    if v[0] in "%=":
        return not _random_after_sigil(v[1:], code)
    if v[0] == "@":
        rest = v[1:]
        host = _HOSTLIKE.match(rest.split(":", 1)[0].split("/", 1)[0].lower())
        # an address under a common or internal suffix; a password may end in .ee (@96lrPz.bHP2CnD.ee)
        return not _random_after_sigil(rest, code) or host is not None and host.group(1) in _HOST_SUFFIXES
    return False


def _random_after_sigil(rest: str, code: bool) -> bool:
    """What follows a leading %, @, = or ... is a password's random rest (a generated password may begin
    with any symbol): it looks like a password, holds none of a reference's brackets, is no
    %WINDOWS_VARIABLE% and, where code is possible, no dotted name (@Model.Token2)."""
    return (len(rest) >= 6 and not any(c in rest for c in "(){}$") and _password_like(rest)
            and not (_PERCENT_VARIABLE.fullmatch(rest) and (rest.isupper() or rest.islower() or not any(map(str.isdigit, rest))))
            and (not code or not _IDENT_PATH.match(rest) or _random_dotted(rest)))


# %APPDATA%, %DB_PASS2%, %SystemRoot%, %TestSourcePassword% (after the leading %); not %nar1h3rSv%,
# in both cases with digits
_PERCENT_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*%")


def _pem64_private(value: str) -> bool:
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


def _in_url(text: str, start: int) -> bool:
    """Whether ``start`` is inside the scheme://... of a URL (in the same word)."""
    return _url_start(text, start) >= 0


def _in_userinfo(text: str, start: int) -> bool:
    """Whether ``start`` is in a URL's user:password part (before any / ? # of its path or query):
    jdbc:mysql://db/shop?user=root&password=X@Y is a query's password, which holds an @."""
    k = _url_start(text, start)
    return k >= 0 and not any(c in "/?#" for c in text[k:start])


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


_YAML_PAIR = re.compile(r"[ \t]*(?:- )?[A-Za-z_][\w.\-]*:(?:[ \t]+[^\s#][^\r\n]*)?\r?")


def _random_enough(v: str) -> bool:
    """Digits and both cases, under no code root: nxZly5.wC5, not a type annotation in a class body
    (password: models.CharField, token: np.int64) nor settings.AWS_KEY2."""
    return (any(map(str.isdigit, v)) and not v.islower() and not v.isupper()
            and v.split(".", 1)[0].lower() not in _CODE_ROOTS)


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


_NAME_THEN_EQUALS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_KEYWORD_ARGUMENT = re.compile(r"[a-z_][a-z0-9_]*=(?:[a-z0-9_.\-]*|True|False|None)")
_PORT = re.compile(r"\d{1,5}(?:/|$)")
_DATA_SEPARATORS = frozenset(("=", '="', "='", ": ", ': "', ": '"))
_NEXT_PAIR = re.compile(r"[ \t]+[A-Za-z_]+=")


def _random_dotted(v: str) -> bool:
    """Dotted like code, but random: k3x9pq.9f8e7d6c5b4a3x2w (a kubeadm token), Qb9sM6.ET3 (a
    password with a dot). X25519.KeyPair, kVK_Return.u16, jetbrains.mps.v8_elimination are code."""
    if sum(map(str.isdigit, v)) < 2:
        return False
    letters, _ = _vowels(v)
    if letters >= 6 and 2 * _case_switches(v.replace(".", "")) >= letters:
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
                and 5 * vowels < letters or len(p) >= 8 and _random_case(p):
            return True
    return False


_DIGIT_LETTER = re.compile(r"[0-9][A-Za-z]")


def _random_case(s: str) -> bool:
    """Letters cased at random: capitals side by side or one letter apart (XY, XyZ), several
    times (more than one place in three in random text), where a camelCase or PascalCase name has
    one capital a word and two letters or more between them; and the case switching often."""
    close = sum(1 for i, c in enumerate(s[:-1]) if c.isupper() and (s[i + 1].isupper() or s[i + 2:i + 3].isupper()))
    return close >= 3 and _case_switches(s) >= len(s) // 4


def _few_vowels(s: str) -> bool:
    """Random letters: a fifth of them vowels (5 in 26), where names made of words have two fifths
    (dckr_pat_pjnrrsgNhbzrAPOxsjAn__Ae-_G against s.AcceptanceTimeoutSeconds)."""
    letters, vowels = _vowels(s)
    return letters >= 16 and vowels < 0.3 * letters


def _vowels(s: str) -> tuple[int, int]:
    """How many letters ``s`` holds, and how many of them are vowels."""
    letters = [c for c in s.lower() if c.isalpha()]
    return len(letters), sum(c in "aeiou" for c in letters)


def _case_switches(s: str) -> int:
    return sum(1 for a, b in zip(s, s[1:], strict=False) if a.isupper() != b.isupper() and a.isalpha() and b.isalpha())


def _entropy(s: str) -> float:
    """Shannon entropy in bits a character. Remembered per value (quoted-high-entropy asks twice
    for each value, generic-high-entropy again), and each count's term is worked out once: a
    200-character value has 55 distinct characters but a handful of distinct counts."""
    if len(s) <= 256:
        return _entropy_memo(s)
    return _entropy_long(s) if len(s) <= CHECK_LIMIT else _entropy_uncached(s)


def _entropy_uncached(s: str) -> float:
    n = len(s)
    if not n:
        return 0.0
    counts = Counter(s).values()
    log2 = math.log2
    term = {c: c / n * log2(c / n) for c in set(counts)}
    return -sum(map(term.__getitem__, counts))  # the same terms in the same order as ever


_entropy_memo = functools.lru_cache(maxsize=4096)(_entropy_uncached)
# Long values (a kubeconfig's key data, a base64 blob: 600-800 characters on a varied message)
# come back too: quoted-high-entropy, generic-high-entropy and _random_looking each ask, 4.5 times
# a message for the same text. A few are kept: 32, of at most CHECK_LIMIT characters (a longer
# one, hostile or a pasted file, is counted afresh), so at most 512 KiB stay alive after a text.
_entropy_long = functools.lru_cache(maxsize=32)(_entropy_uncached)


def _counting_windows(k: int) -> Any:
    """Every run of ``k`` consecutive code points in printable ASCII, lower-cased: abcdefgh,
    01234567, ...; one automaton finds any of them in one pass."""
    low = "".join(chr(c) for c in range(0x20, 0x7F)).lower()
    words = sorted({low[i:i + k] for i in range(len(low) - k + 1)
                    if all(ord(b) == ord(a) + 1 for a, b in zip(low[i:i + k], low[i + 1:i + k], strict=False))})
    return ahocorasick_rs.AhoCorasick(words)


_RUN8 = _counting_windows(8)
_RUN10 = _counting_windows(10)


def _has_run(s: str, k: int) -> bool:
    """Whether ``s`` holds a counting run (abcdefgh, 12345678) of ``k`` (8 or 10), whatever the case."""
    if len(s) < k:
        return False
    return bool((_RUN10 if k == 10 else _RUN8).find_matches_as_indexes(s.lower()))


def _shaped(body: str) -> bool:
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
    hexa = _HEX_BODY.fullmatch(body.rsplit("-", 1)[-1]) is not None or _HEX_BODY.fullmatch(tail) is not None
    return (not _has_run(body, 10) and _entropy(body) >= (2.7 if hexa else 3.0)
            and (_entropy(tail) >= 2.5 or len(set(tail)) >= (6 if hexa else 7)))


_HEX_BODY = re.compile(r"[0-9a-fA-F]{16,}")


def _random_looking_cached(value: str) -> bool:
    """The same value is often checked twice (quoted-high-entropy and generic-high-entropy both
    see `session_id=...`), and log lines repeat ids. Long values: see _entropy_long."""
    if len(value) <= 256:
        return _random_looking_memo(value)
    return _random_looking_long(value) if len(value) <= CHECK_LIMIT else _random_looking(value)


@functools.lru_cache(maxsize=4096)
def _random_looking_memo(value: str) -> bool:
    return _random_looking(value)


def _random32_cached(value: str) -> bool:
    """quoted-high-entropy's test: random-looking, and 3.6 bits a character."""
    if len(value) <= 256:
        return _random32_memo(value)
    return _random_looking_cached(value) and _entropy(value) >= 3.6


@functools.lru_cache(maxsize=4096)
def _random32_memo(value: str) -> bool:
    return _random_looking(value) and _entropy(value) >= 3.6


@functools.lru_cache(maxsize=32)  # long values: see _entropy_long
def _random_looking_long(value: str) -> bool:
    return _random_looking(value)


def _plainly_public(v: str) -> bool:
    """_random_looking's cheap shape tests: most candidates are digests, ids, paths and names."""
    if len(v) < 12 or " " in v:
        return True
    if _PUBLIC_SHAPE.match(v):  # a UUID, a digest, an integrity hash, a version, a traceparent
        return True
    if "/" in v and v.count("/") >= 2 and not v.endswith("="):
        return True  # a path or URL
    return v.count(".") >= 2 and not any(c in v for c in "+/=_")  # a host name or dotted identifier


def _random_looking(value: str) -> bool:
    v = value[:CHECK_LIMIT].strip().strip("\"'`")
    if _plainly_public(v):
        return False
    has_digit = any(map(str.isdigit, v))
    has_alpha = any(map(str.isalpha, v))
    if not (has_digit and has_alpha) and not (len(v) >= 30 and any(map(str.isupper, v)) and any(map(str.islower, v))):
        return False
    if _entropy(v) < 3.3 or _WORDY.match(v):
        return False  # words joined by separators: an identifier, a file or host name
    # ABCDEFGH..., 0123456789: an alphabet, not a key
    return not _has_run(v, 8) and not _placeholder(v)


# 16 equal lower-case letters are a placeholder (aaaa...). Upper case is left alone: A and Q
# encode zero bits in base64 and bech32, and real tokens hold long runs of them (Twitter bearer
# tokens begin with 20 A's).
_FAKE = re.compile(r"([xX*.#])\1{7}|(\d)\2{15}|EXAMPLE|<|\$\{|^\$")
_LOWER_RUN = re.compile(r"([a-z])\1{15}")  # apart: in one pattern it slowed every search by half
# Both for ASCII text, without backreferences, spelled out: 8 of x X * . #, 16 of a digit or of a
# lower-case letter, and the rest as they are (Python's \d also takes other scripts' digits, so a
# non-ASCII value goes the way above)
_FAKE_ASCII = _re2.RE2("|".join([re.escape(c * 8) for c in "xX*.#"] + [c * 16 for c in "0123456789abcdefghijklmnopqrstuvwxyz"]
                                + ["EXAMPLE", "<", r"\$\{", r"^\$"]).encode(), _OPTIONS)


_MASKED_TAILS = ("###", "***", "[REDACTED", "[Redacted", "[redacted")


def looks_fake(value: str, text: str = "", end: int = 0) -> bool:
    """Documentation placeholders, whatever rule matched them: ghp_xxxxxxxx, AKIA...EXAMPLE,
    <your token>, ${TOKEN}, ****, or a token whose tail is masked (xoxp-1234-...-#####) or
    already redacted (ops_eyJzaWdu..[Redacted])."""
    if text.startswith(_MASKED_TAILS, end):
        return True
    return _fake_value(value) if len(value) <= 256 else _fake_value.__wrapped__(value)


@functools.lru_cache(maxsize=4096)
def _fake_value(value: str) -> bool:
    v = value[:CHECK_LIMIT]
    if v.isascii():  # nearly always: RE2 on the bytes, 10x faster than the backreferences
        b = v.encode("ascii")
        start: int = _FAKE_ASCII.Match(_UNANCHORED, b, 0, len(b))[0][0]
        return start >= 0
    return _FAKE.search(v) is not None or len(v) >= 16 and _LOWER_RUN.search(v) is not None


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
_SECRET_NAME_WORDS = ("pass", "pwd", "secret", "token", "cred", "private", "api_key", "apikey", "api-key", "access_key")
_CREDENTIAL_WORDS = ("pass", "pwd", "secret", "token", "cred", "bearer", "jwt", "auth", "sig", "salt", "cookie", "account")


@functools.lru_cache(maxsize=2048)
def _entropy_key_ok(key: str) -> bool:
    low = key.lower().strip("\"'`")
    if not _key_ok(key):
        return False
    if any(low == k or low.endswith(("-" + k, "_" + k, "." + k)) for k in _PUBLIC_RANDOM_KEYS):
        # encrypted_data, certificate-authority-data: public or ciphertext; but client-key-data,
        # secret_data, token-data name what they hold
        if low.endswith(("signature", "publickey", "public_key", "publictoken", "public_token", "etag")):
            return False
        return any(w in low for w in ("key", "secret", "token", "pass", "pwd", "cred"))
    return True


@functools.lru_cache(maxsize=2048)  # names repeat (self.api_key, cache_key): decide each once
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


def _k8s_secret(low: str) -> bool:
    """Whether the lower-cased text holds a Kubernetes Secret manifest's kind (one search for
    what all four spellings begin with, then the four)."""
    return "kind:" in low and any(k in low for k in _K8S_KINDS)


_K8S_KINDS = ("kind: secret", "kind: 'secret'", 'kind: "secret"', "kind:secret")


def _check(rule: Rule, value: str, text: str, start: int, end: int, m: Any = None, lower: str = "") -> bool:
    kind = rule.check
    if not kind:
        return True
    if kind == "value":
        if end < len(text) and text[end] == "(":
            return False  # get_token(): a call, not a value
        if "@" in value and _in_userinfo(text, start):
            return False  # https://x-access-token:PASS@host: url-credentials takes the password alone
        if rule.name == "basic-auth-call" and m is not None and text.startswith(".", m.start()) and not _password_like(value):
            return False  # client.login('user', 'pass'): a method named login says less than HTTPBasicAuth
        if value.startswith("/") and rule.name == "cli-password" or value.startswith("--") and rule.name == "config-directive-password":
            return False  # net use ... /persistent:no, net user bob /add: a Windows flag; rootpw --iscrypted HASH
        key = (m.group(1) or (m.group(2) if rule.name == "credential-name-value" else None)) if m is not None else None
        if key and rule.name in ("credential-assignment", "credential-xml", "credential-name-value") and not _key_ok(key):
            return False
        if rule.name == "credential-name-value" and m is not None and text[m.start():m.start() + 3].lower() == "key" \
                and not any(w in (key or "").lower() for w in _SECRET_NAME_WORDS):
            return False  # Key: TagKey / Value: TagValue (AWS tags): under key/value only a credential's name counts
        if m is not None and rule.name == "credential-assignment" and " " in (m.group(4) or ""):
            return False  # KEY=`some command`: command substitution, not a value
        if m is not None and rule.name == "credential-assignment" and m.group(5) and text[end:end + 1] in "\"'" \
                and _NAME_THEN_EQUALS.fullmatch(value) and text[m.end(1):start].rstrip().endswith(","):
            return False  # Key="mykey",Value="v": the next pair's name, not this key's value
        if m is not None and rule.name == "credential-assignment" and _PORT.match(value) and m.group(1) \
                and text.startswith(":", m.end(1)) and _hostlike(m.group(1).lower()):
            return False  # db-pwdy.corp.example.org:6379: a host and its port ("pwd" in a host name)
        if _NEXT_IS_KEY.match(text, end) and not text.startswith(("://", ":/"), end) and text[start - 1:start] in "\"'`":
            return False  # "kind": "Secret", "data": {...}: the next key of an object, not this one's value
        # A password on a command line, or assigned where no language has dotted references (see
        # _data_assignment), is a value even where it looks like code (ti.KsPc75_Y, F493.erpXS1).
        if m is not None and (m.group(1) or "").lower() in ("pass", "pw") and (
                not _password_like(value.rstrip(".:!?)")) or any(map(str.isalpha, text[m.end(1):start]))):
            return False  # pass: 3/3, pw: true, "you can pass timeout = 30s": "pass" alone says less than "password"
        code = rule.name not in _COMMAND_RULES and rule.name not in _DATA_RULES and not (
            m is not None and rule.name == "credential-assignment" and _data_assignment(m, text, start, end))
        return not _placeholder(value, code=code)
    if kind == "entropy":
        return (m is None or _entropy_key_ok(m.group(1) or "")) and _random_looking_cached(value)
    if kind == "entropy32":
        if len(value) < 32 or value.isdigit() or value.isalpha():
            return False
        if _PUBLIC_SHAPE.match(value[:CHECK_LIMIT].strip().strip("\"'`")):
            return False  # what _random_looking rejects first (digests, UUIDs: half the candidates), before the key name
        name = (m.group(1) or "") if m is not None else ""
        if m is not None and not _entropy_key_ok(name):
            return False
        quoted = start > 0 and text[start - 1] in "\"'`"
        if not quoted and m is not None and _CAMEL.search(name) and "=" in text[m.end(1):start]:
            return False  # sumOfExposures = 3Kof...: code, where a secret would be a string literal
        return any(map(str.isdigit, value)) and _random32_cached(value)
    if kind == "authz":
        parts = value.split(None, 1)
        cred = parts[1] if len(parts) == 2 else parts[0]
        if len(parts) == 1 and cred.lower() in _AUTH_SCHEMES:
            return False  # "Authorization: Bearer" and the credential on another line, or none
        return not _placeholder(cred) and not cred.startswith(("$", "{", "..."))
    if kind == "prose":
        v = value.rstrip(".:!?)")
        if rule.name == "credential-use-as" and m is not None and (
                _VERSIONISH.match(v) or not _AFTER_NAME.match(text, m.end(0))):
            return False  # use sha256 as the key derivation function, use v2.3.1 as the token format: not the secret
        # after is/was/to, prose names code by its object (the key is settings.OPENAI_KEY): any
        # other dotted value there is a password (caqpk.oa15); after = or : it may be code
        # (and in "use X as the password", as after is/was/to)
        code = "." in v and (m is None or v.split(".", 1)[0].lower() in _CODE_ROOTS
                             or rule.name != "credential-use-as" and _COPULA.search(text, m.start(), start) is None)
        if _placeholder(v, code=code) or v.lower() in _STOPWORDS or _SNAKE.match(v) or "/" in v:
            return False
        if m is not None and m.start() > 0 and text[m.start() - 1] in "/\\":
            return False  # .../oauth/token region=eu-west-1: the end of a path, not prose
        if m is not None and not _NOT_THE_SECRET.isdisjoint(_LETTER_RUNS.findall(text[m.start():start].lower())):
            return False  # the secret's name, ARN, lifetime or header is X: about the secret, not it
        if m is not None and rule.name == "credential-in-prose":
            words = text[m.start():start].lower().split()
            if len(words) == 2 and words[1] == "to" and not words[0].startswith("pass"):
                return False  # "replicates a secret to eu-west-3": only a password is set to a value
        if start > 0 and text[start - 1] == "(" and (_KEYWORD_ARGUMENT.fullmatch(v) or not any(map(str.isdigit, v))):
            return False  # "one token (whitespace_split=True)": an aside, where a token in brackets has digits
        return _password_like(v)
    if kind == "userinfo":
        # https://TOKEN@github.com: git takes a token as the user name; an account (git, deploy-bot) stays
        return (_random_looking_cached(value) or len(value) >= 32 and _HEX_BODY.fullmatch(value) is not None) and _shaped(value)
    if kind == "cell":
        # | password | string | The user's password |: a type or a description, not the password
        return _password_like(value) and value.lower() not in _STOPWORDS and not _placeholder(value, code=False)
    if kind == "pair":
        v = value.rstrip(".:!?)")
        user = (m.group(1) or "") if m is not None else ""
        if v.startswith(("/", ":")) or "://" in v or v.count("/") >= 2 or len(user) == 1 or user.lower() in _SCHEMES:
            return False  # login at https://host/login, credentials: C:/Users/..., login from fe80::1: a URL, a path, an address
        if user.replace(".", "").isdigit() or _hostlike(user.lower()):
            return False  # login at 10:30:15.12Z, login 10.0.0.5:2222/tcp, sign in to example.com:8443: a time, a host and port
        return _password_like(v) and v.lower() != user.lower() and not _placeholder(v, code=False)
    if kind == "slack":
        # Slack's numeric parts are team, user and bot ids (6 to 13 digits in every token seen);
        # a one-digit version may lead. xoxp-1234-1234-1234-... is a made-up shape.
        numbers = [p for p in value.replace(".", "-").split("-") if p.isdigit() and len(p) > 1]
        return sum(map(str.isdigit, value)) >= 8 and all(len(p) >= 6 for p in numbers)
    if kind == "anthropic":
        # API and admin keys are 95 characters ending AA; a value of about that length that
        # varies is taken too (a key cut or mistyped by a few characters still works as a
        # lead), a short one with words in it is a fixture. Other kinds (OAuth, session) are
        # taken at any length.
        kind_end = value.find("-", 7) + 1
        if value.startswith(("sk-ant-api", "sk-ant-admin")):
            body = value[kind_end:]
            return len(body) == 95 and value.endswith("AA") or 85 <= len(body) <= 110 and _shaped(body)
        return True
    if kind == "shape":
        return _shaped(value)
    if kind == "random":
        body = value.split("_", 1)[-1] if "_" in value[:8] else value
        if start > 0 and text[start - 1] == ".":
            return False  # video_box.ico-7a38....png: part of a dotted file or host name
        # no digit: a random body is still mixed case all through (dckr_pat_viHyZdcTMsgvoYE__rYSOu,
        # ATBBEhOFNJGredodwpEAIJzSlq...), where code is words (s.AcceptanceTimeoutSeconds); for a
        # bootstrap token, its exact shape (6.16 lower-case, after the word token) is the evidence;
        # capitals close together say random even where the case switches only 7 times in 27
        # (dckr_pat_kemyCDEPojGnqrNqeg-Huopoa-A)
        return _shaped(body) and (any(map(str.isdigit, body)) or len(body) >= 40
                                  or len(body) >= 20 and (_case_switches(body) >= 8 and "_" in value[:10]
                                                          or _random_case(body) or _few_vowels(body))
                                  or rule.name == "kubeadm-token")
    if kind == "userpass":
        user, _, password = value.replace('"', "").partition(":")
        if not password:  # an API key given as the user name (curl -u "KEY:")
            return len(user) >= 8 and not _placeholder(user) and _entropy(user) >= 3.0
        # user:password is never a reference in code: a dotted password (qUpq04.CYRP1) is a value
        return not _placeholder(password, code=False) and password.lower() not in ("token", "pass", user.lower())
    if kind == "k8s":
        if not _k8s_secret(lower or text.lower()):
            return False
        return any(map(str.isdigit, value)) or value.endswith("=") or "+" in value
    if kind == "home":
        return not value.startswith(("$", "{", "<", "%", "*")) and value.lower() not in ("shared", "public", "default", "all users")
    if kind == "ip":
        before = text[start - 1] if start > 0 else " "
        after = text[end:end + 2]
        if before.isalnum() or before in "._-" or (after[:1] == "." and after[1:2].isdigit()):
            return False  # part of a version string or longer dotted number
        if _VERSION_BEFORE.search(lower or text.lower(), max(0, start - 40), start):
            return False  # AssemblyVersion("2.1.0.3"), "version": "1.2.3.4", upgraded to version 1.2.3.4
        if after[:1] == "/" and _network_block(value, text, end):
            return False  # 10.0.0.0/8, 192.168.1.0/24: a range (a VPC, a firewall rule), no one's address
        return not value.startswith(("127.", "0.0.0.0", "255.255.255.", "0."))
    if kind == "email":
        if text.startswith(":", end) and not text.startswith((": ", ":\t", ":\n"), end):
            return False  # git@github.com:org/repo.git, user@host:path: an scp-style remote
        if _in_url(text, start):
            return False  # scheme://user@host or scheme://user:pass@host: a URL
        # ssh deploy@host, scp f root@host:/tmp: an account on a host, not a mailbox
        return not _SSH_BEFORE.search(text, max(0, start - 120), start)
    if kind == "aws40":
        # one real key in 900 has no digit (40 of 64 characters): then its letters are cased at
        # random, where a long CamelCase name has one capital a word, or it holds a + (no name or
        # path does: c+qAHEdgavv/IAE/LrHZ..., vowels and all)
        return ((any(map(str.isdigit, value)) or "+" in value or _random_case(value) or _few_vowels(value)) and any(map(str.isupper, value))
                and any(map(str.islower, value)) and _entropy(value) >= 4.0 and not looks_fake(value))
    if kind == "pem64":
        return _pem64_private(value)
    if kind == "phone":
        return pii.phone(value)
    if kind == "dockerauth":
        if not value.startswith("e"):
            try:  # "auth": base64 of user:password
                plain = base64.b64decode(value + "=" * (-len(value) % 4)).decode("utf-8")
            except ValueError:
                return False
            user, sep, pw = plain.partition(":")
            return bool(sep and user and pw) and not _placeholder(pw)
        return True
    if kind == "phonelabel":
        digits = sum(map(str.isdigit, value))
        if not 7 <= digits <= 15 or _DATE_OR_VERSION.match(value):
            return False
        return value.count(".") != 3  # 10.0.0.12: an address
    if kind == "card":
        return pii.card(value)
    if kind == "ssn":
        d = value.replace("-", "").replace(" ", "")
        # a possible number (not area 000, 666 or 9xx, group 00, serial 0000), not one digit
        # repeated, not the famous fakes; two digits are possible (552-55-2222)
        return (d[:3] not in ("000", "666") and d[0] != "9" and d[3:5] != "00" and d[5:] != "0000" and len(set(d)) > 1
                and d not in ("123456789", "078051120", "219099999"))
    if kind == "ip6":
        return value != "::1" and (value.count(":") >= 3 or any(map(str.isdigit, value)))
    return True


def find(text: str, disabled: Iterable[str] = (), joints: bool = True,
         across: list[int] | None = None, windowed: bool = True) -> list[Finding]:
    """Every finding, before merging. With ``joints``, also what a secret split across lines
    becomes once its pieces are put back together (see _rejoined). With ``across`` (sorted
    positions), a match that spans none of them is not checked: the caller drops its findings."""
    off = set(disabled)
    rules = compiled()
    # Rules with ASCII patterns run on a one-byte-per-character view of the text, where every
    # non-ASCII character (and a lone surrogate from JSON) is \x1a: byte offsets are character
    # offsets, and for RE2's ASCII-only \s, \w and \b, and for value classes like [^\s"'], a
    # non-ASCII character and \x1a are alike. Only rules with non-ASCII literals see UTF-8.
    ascii_view = one_byte_view(text)
    lower = text.lower()
    pf = _PF
    possible: set[int] | None = None
    gated: frozenset[int] = frozenset()  # the patterns `possible` answers for
    if pf is not None:
        try:
            lower_utf8 = lower.encode("utf-8", "surrogatepass")
            ids, where = pf.keywords(lower_utf8)
            long_text = len(ascii_view) >= _WINDOWS_FROM  # as the ends database for long texts (below)
            possible = pf.possible(ascii_view, long_text)
            gated = pf.long_ids if long_text else pf.pattern_ids
        except prefilter.Error:  # a scan Hyperscan refuses: this text goes the slower way
            pf = possible = None
        else:
            present = {_GATE_WORDS[k] for k in ids}
            hits = _char_hits(lower, lower_utf8, where)
    if pf is None:
        # Aho-Corasick, overlapping: every keyword occurrence in one linear pass ("sk_test_" holds
        # both "sk" and "k_test_", which a non-overlapping regex scan would not both report).
        try:
            hits = _GATE.find_matches_as_indexes(lower, overlapping=True)
        except UnicodeEncodeError:  # a lone surrogate (from JSON): no keyword holds one
            hits = _GATE.find_matches_as_indexes(_SURROGATE.sub("\x1a", lower), overlapping=True)
        present = {_GATE_WORDS[k] for k, _, _ in hits}
        # the automaton's positions are the one-byte view's only where lower-casing kept every
        # length; and past a budget (it reports `id`, `key`, ... too) looking through them costs
        # more than the passes they would spare
        anchor_hits = hits if len(lower) == len(text) and len(hits) <= 64 + len(text) // 256 else None
    present.update(k for k, b in _COMMON_BYTES if b in ascii_view)  # punctuation: the same in text, lower and view
    selected = set(_ALWAYS)
    for k in present:
        selected.update(_BY_KEYWORD.get(k, ()))
    out: list[Finding] = []
    utf8s: list[tuple[bytes, _Offsets]] = []
    ends_dbs = list(_ENDS) if pf is not None else [None, None]
    if len(ascii_view) < _WINDOWS_FROM:
        ends_dbs[1] = None
    ends: list[dict[int, list[int]] | None] = [None, None]
    # _near reads the lower-cased text: its offsets are the view's, and its words the view's
    # lower-cased (U+212A KELVIN SIGN lower-cases to k), where lengths stay and no such sign is there
    near_ok = len(lower) == len(text) and (text.isascii() or "\u212a" not in text)
    windows: dict[int, list[tuple[int, int]]] = {}
    if windowed and len(ascii_view) >= _WINDOWS_FROM and not _BY_LINES.isdisjoint(selected):
        if pf is not None:
            try:
                anchor_hits = _ANCHORS.scan(ascii_view) if _ANCHORS is not None else None
            except prefilter.Error:
                anchor_hits = None
        if anchor_hits is not None:
            windows = _windows(ascii_view, anchor_hits, selected, near_ok)
    for i in sorted(selected):
        rule = RULES[i]
        if rule.name in off:
            continue
        if rule.check == "k8s" and not _k8s_secret(lower):
            continue  # its check wants a kind: Secret somewhere in the text: none, no finding
        if rule.check in _LOCATED and len(lower) == len(text):
            # The gate already found every word these rules start from: no need for RE2 to
            # look again (with Unicode case folding, their patterns are the slowest).
            out.extend(_located_findings(rule, text, lower, hits))
            continue
        for c in rules[i]:
            if possible is not None and c.pid not in possible and c.pid in gated:
                continue  # Hyperscan: this pattern cannot match here
            j = _END_DB.get(rule.name)
            db = ends_dbs[j] if j is not None else None
            if db is not None and j is not None:
                if ends[j] is None:
                    try:
                        ends[j] = db.ends(ascii_view)
                    except prefilter.Error:
                        ends[j] = None
                    if ends[j] is None:  # refused, or too many matches: RE2 walks as ever
                        ends_dbs[j] = None
                found = ends[j]
                if found is not None:
                    _run(c, text, lower, ascii_view, utf8s, out, across, (found.get(c.pid, []), _BY_END[rule.name]))
                    continue
            _run(c, text, lower, ascii_view, utf8s, out, across, windows=windows.get(i))
    if joints:
        out.extend(_rejoined(text, off, ascii_view, windowed))
    return out


def _windows(view: bytes, hits: list[tuple[int, int, int]], selected: set[int],
             near_ok: bool) -> dict[int, list[tuple[int, int]]]:
    """For each selected rule searched by lines, where to search, merged where they touch: for
    a rule of _WINDOWED, the lines that hold one of its anchors, each with the line breaks on
    either side (every match of the rule lies inside one of them, anchored.py); for one of
    _NEAR_WINDOWED, the lines that the 64 characters after each of its near words reach (no match
    elsewhere has its word near enough to count)."""
    n = len(view)
    spans: dict[int, list[tuple[int, int]]] = {}
    line: dict[int, tuple[int, int]] = {}  # hit start -> its line, for words that anchor several rules
    for k, s, e in hits:
        rules = _ANCHOR_RULES.get(k)
        if rules is not None:
            span = line.get(s)
            if span is None:
                b = view.find(b"\n", e)
                span = line[s] = (max(0, view.rfind(b"\n", 0, s)), n if b < 0 else b + 1)
            for i in rules:
                if i in selected:
                    spans.setdefault(i, []).append(span)
        rules = _NEAR_RULES.get(k) if near_ok else None
        if rules is not None:
            b = view.find(b"\n", min(n, s + _NEAR_REACH))
            span = (max(0, view.rfind(b"\n", 0, s + 1)), n if b < 0 else b + 1)
            for i in rules:
                if i in selected:
                    spans.setdefault(i, []).append(span)
    out: dict[int, list[tuple[int, int]]] = {}
    for i in _BY_LINES.intersection(selected):
        got = spans.get(i)
        if i in _NEAR_WINDOWED:
            if not near_ok:
                continue
            if not got:
                out[i] = []  # no near word: no match can count
                continue
        elif not got:
            # selected, so a keyword occurs, but none was located here (a word the scan could
            # not place): the whole text, as before
            continue
        got.sort()
        merged = [got[0]]
        for a, b in got[1:]:
            if a <= merged[-1][1]:
                if b > merged[-1][1]:
                    merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        out[i] = merged
    return out


_CONTINUATION = bytes(range(0x80, 0xC0))


def _char_len(data: bytes, start: int, end: int) -> int:
    """Characters in a slice of UTF-8 (a surrogate passed through counts one): the bytes that
    are not continuation bytes, counted in C (4x faster than RE2's BytesToCharLen)."""
    return len(data[start:end].translate(None, _CONTINUATION))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _char_hits(lower: str, data: bytes, where: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Hyperscan's (word, end byte offset) in the lower-cased text's UTF-8 as the automaton's
    (word, start, end) in characters."""
    if len(data) == len(lower):
        return [(k, e - len(_GATE_WORDS[k]), e) for k, e in where]
    out = []
    b = c = 0
    for k, e in sorted(where, key=lambda h: h[1]):
        c += _char_len(data, b, e)
        b = e
        out.append((k, c - len(_GATE_WORDS[k]), c))
    return out


# Where a value may have been split: between string literals joined by implicit or explicit
# concatenation ("abc"\n "def", "abc" + "def"), at a shell line continuation (abc\<newline>def),
# and at a terminal's hard wrap (a line of exactly 80, 100 or 120 characters running on).
_TOKCH = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~")
_TOKB = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~")
# Found with RE2 on the one-byte view (Python's re tried every position of 32 KiB), checked in Python:
# - a quote, what may sit between two pieces of one literal ("abc" "def", "abc" +\n "def",
#   "abc" f"def"), a quote;
# - a shell line continuation (abc\<newline>def);
# - a line holding one token, then a line holding one token at the same indentation (a token wrapped
#   in a YAML folded block, a base64 blob cut into lines; not KEY=value lines of an env file).
_JOINT_RX = _re2.RE2(
    rb"""(["'])[ \t]*(?:\+[ \t]*)?(?:\\[ \t]*)?(?:\r?\n[ \t]*(?:\+[ \t]*)?)?[rbfuRBFU]{0,2}["']"""
    rb"""|(\\\r?\n[ \t]*)"""
    rb"""|(?m:^([ \t]*)[A-Za-z0-9+/_\-.~]{8,}(\r?\n)([ \t]*)[A-Za-z0-9+/_\-.~]{4,}={0,2}[ \t]*\r?$)""", _OPTIONS)
_WRAP_WIDTHS = frozenset((80, 100, 120))
_JOINT_WINDOW = 256
_PII_RULES = frozenset(r.name for r in RULES if r.category == "pii")  # a phone number is not split in two


def _joints(text: str, view: bytes) -> list[tuple[int, int]]:
    n = len(view)
    cuts: list[tuple[int, int]] = []
    at = 0
    match = _JOINT_RX.Match
    while at < n:
        sp = match(_UNANCHORED, view, at, n)
        a, b = sp[0]
        if a < 0:
            break
        at = b if b > a else a + 1
        if sp[1][0] >= 0:  # string pieces: the same quote, token characters outside
            if view[a] == view[b - 1] and a > 0 and b < n and view[a - 1] in _TOKB and view[b] in _TOKB:
                cuts.append((a, b))
        elif sp[2][0] >= 0:
            cuts.append(sp[2])
        else:
            nl, indent2 = sp[4], sp[5]
            if sp[3][1] - sp[3][0] == indent2[1] - indent2[0]:
                cuts.append((nl[0], indent2[1]))
            at = nl[1]  # the second line may start the next pair
    # a terminal's hard wrap: a line of exactly 80, 100 or 120 characters running on
    # (on the one-byte view: a line's length in bytes is its length in characters, and a
    # non-ASCII character is no token character there either)
    lens = list(map(len, view.split(b"\n")))
    if not _WRAP_WIDTHS.isdisjoint(lens):
        # only the lines of those widths are looked at: where line i ends is the sum of the
        # lengths up to it plus its i line breaks (accumulate and compress run in C)
        upto = list(itertools.accumulate(lens))
        for i in itertools.compress(range(len(lens)), map(_WRAP_WIDTHS.__contains__, lens)):
            end = upto[i] + i
            if view[end - 1] in _TOKB and end + 1 < n and view[end + 1] in _TOKB:
                cuts.append((end, end + 1))
    return sorted(set(cuts))


def _rejoined(text: str, off: set[str], view: bytes, windowed: bool = True) -> list[Finding]:
    """Findings that exist only once the pieces of a split value are joined: each joint is cut
    out of a window around it, the window is scanned, and what crosses a joint maps back to the
    original text (covering both pieces and the joint)."""
    cuts = _joints(text, view)
    if not cuts:
        return []
    cuts.sort()
    out: list[Finding] = []
    i = 0
    while i < len(cuts):
        w0 = max(0, cuts[i][0] - _JOINT_WINDOW)
        j = i
        while j + 1 < len(cuts) and cuts[j + 1][0] - _JOINT_WINDOW <= cuts[j][1] + _JOINT_WINDOW:
            j += 1
        w1 = min(len(text), cuts[j][1] + _JOINT_WINDOW)
        parts: list[str] = []
        marks: list[tuple[int, int]] = []  # (joined position of the cut, characters removed before it and by it)
        pos, removed = w0, 0
        for a, b in cuts[i:j + 1]:
            if a < pos:
                continue
            parts.append(text[pos:a])
            removed += b - a
            marks.append((a - w0 - (removed - (b - a)), removed))
            pos = b
        parts.append(text[pos:w1])
        joined = "".join(parts)

        def orig(jpos: int, marks: list[tuple[int, int]] = marks, w0: int = w0) -> int:
            k = bisect.bisect_right(marks, (jpos, 1 << 62)) - 1
            return w0 + jpos + (marks[k][1] if k >= 0 else 0)

        for f in find(joined, off | _PII_RULES, joints=False, across=[jp for jp, _ in marks], windowed=windowed):
            if any(f.start < jp < f.end for jp, _ in marks):
                out.append(Finding(f.rule, orig(f.start), orig(f.end - 1) + 1))
        i = j + 1
    return out


def _run(c: _Compiled, text: str, lower: str, ascii_view: bytes, utf8s: list[tuple[bytes, _Offsets]],
         out: list[Finding], across: list[int] | None = None,
         by_end: tuple[list[int], int] | None = None, windows: list[tuple[int, int]] | None = None) -> None:
    """One compiled pattern over the text, each match checked; findings appended to ``out``.
    With ``across``, a match that spans none of those positions is passed over unchecked: its
    finding, inside the match, could not span one either (a span hook's can: those are checked).
    With ``by_end`` (Hyperscan's match ends, the longest match), RE2 starts near the next match.
    With ``windows`` (ascending, apart), RE2 searches only them, each with the whole text as
    context: the rule's matches all lie inside them (see _windows)."""
    rule = c.rule
    if c.unicode and not text.isascii():
        if not utf8s:
            b = text.encode("utf-8", "replace")
            utf8s.append((b, _Offsets(b, False)))
        data, pos = utf8s[0]
    else:
        data, pos = ascii_view, _ASCII_OFFSETS
    n = len(data)
    scan = c.scan
    match = scan or c.rx.Match
    # what the loop reads for every candidate, read once (150 candidates a varied message)
    check, name, near, groups = rule.check, rule.name, rule.near, c.groups
    word_start, secret, ascii_pos = c.word_start, c.secret, pos.ascii
    rejects = c.rejects
    span_hook = check in _SPAN_HOOKS
    read_value = c.value if ascii_pos else ""
    groups_for_check = c.needs_match
    skip_far = across is not None and ascii_pos and not span_hook
    joints_at = across or []
    seek = name == "email"
    seen = [0]  # the @ looked at (see _next_email)
    at = 0
    for w0, w1 in windows if windows is not None else ((0, n),):
        at, n = max(at, w0), w1
        while at <= n:
            if by_end is not None:
                # Hyperscan's match ends (ascending): no match starts more than the rule's longest
                # match before the first end after `at`, and none at all past the last
                k = bisect.bisect_right(by_end[0], at)
                if k == len(by_end[0]):
                    break
                # (a length of 0: the match stays on its line, which starts after the line break
                # before its last character)
                end = by_end[0][k]
                start = end - by_end[1] if by_end[1] else data.rfind(b"\n", 0, end - 1)
                spans = match(_UNANCHORED, data, max(at, start), n)
            elif seek:
                spans = _next_email(match, data, at, seen)
            else:
                spans = match(_UNANCHORED, data, at, n)
            s0, e0 = spans[0]
            if s0 < 0:
                break
            if word_start and s0 > 0 and data[s0 - 1] in _WORD_BYTES:
                at = s0 + 1  # where \b would have failed: look again from the next byte
                continue
            at = e0 if e0 > at else at + 1
            if skip_far:
                k = bisect.bisect_right(joints_at, s0)
                if k == len(joints_at) or joints_at[k] >= e0:
                    continue
            if rejects is not None and rejects(text, data, s0, e0):
                continue
            if scan is not None:
                if read_value:  # the group read off the match: the match is all the check needs
                    spans = [(s0, e0), _value_span(read_value, data, s0, e0)]
                else:
                    spans = _submatches(c, data, s0, e0)
            for g in groups:
                s, e = spans[g]
                if e > s:
                    break
            else:
                continue
            if not ascii_pos:
                s, e = pos.char(s), pos.char(e)
            if span_hook:
                span = _span_hook(check, text, s, e, _Groups(spans, text, pos))
                if span is None:
                    continue
                s, e = span
                if secret and looks_fake(text[s:e], text, e):
                    continue
                out.append(Finding(name, s, e))
                continue
            value = text[s:e]
            # Every test below only rejects, so their order changes nothing but the cost: the rule's
            # own check first, since most candidates fail it on a cached key-name test or a shape
            # test (a digest, a UUID) before the placeholder regexes would have to run.
            if near and not _near(lower, s, near):
                continue
            if check and not _check(rule, value, text, s, e, _Groups(spans, text, pos) if groups_for_check else None, lower):
                continue
            if secret and (looks_fake(value, text, e) or value.startswith("LS0tLS1CRUdJTi") and not _pem64_private(value)
                           and name != "kubernetes-secret-data"):
                continue
            out.append(Finding(name, s, e))


def _next_email(match: Any, data: bytes, at: int, seen: list[int]) -> Any:
    """``match(_UNANCHORED, data, at, len(data))`` for the e-mail pattern, with RE2 looking only
    around each @: an address holds one, its local part is the run of local characters just
    before it and its domain lies in the run of domain characters after it (RE2 cannot skip ahead
    to the @ itself, as it does to a literal a match starts with). The byte after the domain run
    stays in view, for the closing \b. A Python step an @ against RE2's 1.5 ns a byte: where
    the @ come more than one a KiB (hostile text, a list of addresses), RE2 walks as before."""
    n = len(data)
    while True:
        at_sign = data.find(b"@", at)
        if at_sign < 0:
            return _NO_MATCH
        seen[0] += 1
        if seen[0] > 16 + at_sign // _EMAIL_SEEK_BYTES:
            return match(_UNANCHORED, data, at, n)
        # the local part's run before the @ and the domain's after it, byte by byte for the first
        # 64 (an address's parts are short), then in C (linear in the text, however hostile)
        p, stop = at_sign, max(at, at_sign - 64)
        while p > stop and data[p - 1] in _EMAIL_LOCAL:
            p -= 1
        if p == stop > at:
            before = data[at:at_sign]
            p = at_sign - (len(before) - len(before.rstrip(_EMAIL_LOCAL_CHARS)))
        end, stop = at_sign + 1, min(n, at_sign + 65)
        while end < stop and data[end] in _EMAIL_DOMAIN:
            end += 1
        if end == stop < n:
            end = _EMAIL_DOMAIN_RUN.match(data, end).end()  # type: ignore[union-attr]
        spans = match(_UNANCHORED, data, p, min(n, end + 1))
        if spans[0][0] >= 0:
            return spans
        at = at_sign + 1  # no address around this @: the next one starts after it


_NO_MATCH = [(-1, -1)]


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


class _Offsets:
    """UTF-8 byte offsets to str offsets. ASCII text: the same. Otherwise counted from the
    nearest offset already converted, so converting every finding stays linear in the text."""

    __slots__ = ("data", "ascii", "b", "c")

    def __init__(self, data: bytes, ascii_: bool) -> None:
        self.data, self.ascii = data, ascii_
        self.b, self.c = [0], [0]

    def char(self, off: int) -> int:
        if self.ascii:
            return off
        i = bisect.bisect_right(self.b, off) - 1
        b0 = self.b[i]
        if b0 == off:
            return self.c[i]
        c: int = self.c[i] + _char_len(self.data, b0, off)
        self.b.insert(i + 1, off)
        self.c.insert(i + 1, c)
        return c


_ASCII_OFFSETS = _Offsets(b"", True)  # on the one-byte view an offset is its own: nothing to remember

class _Groups:
    """A match's groups as str and str offsets, for the checks that look at the key name."""

    __slots__ = ("spans", "text", "pos")

    def __init__(self, spans: list[tuple[int, int]], text: str, pos: _Offsets) -> None:
        self.spans, self.text, self.pos = spans, text, pos

    def group(self, i: int) -> str | None:
        s, e = self.spans[i]
        if s < 0:
            return None
        return self.text[self.pos.char(s):self.pos.char(e)]

    def end(self, i: int) -> int:
        return self.pos.char(self.spans[i][1])

    def start(self, i: int = 0) -> int:
        return self.pos.char(self.spans[i][0])


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


# Between the fields of one record when they are scrubbed together: a line break stops every
# one-line rule, and NUL is no rule's value character, so a match rarely spans two fields (one
# that does, a PEM block cut in two, is clipped and redacted in both).
FIELD_SEP = "\n\x00\n"


def scrub_many(texts: list[str], disabled: Iterable[str] = ()) -> list[tuple[str, int]]:
    """``[(clean_text, findings)]`` for several texts (a record's fields) in one pass: the
    keyword gate and each rule run once over all of them instead of once per field."""
    if len(texts) == 1:
        clean, found = scrub(texts[0], disabled)
        return [(clean, len(found))]
    joined = FIELD_SEP.join(texts)
    findings = merge(find(joined, disabled)) if joined else []
    out: list[tuple[str, int]] = []
    base = 0
    k = 0
    for t in texts:
        end = base + len(t)
        while k < len(findings) and findings[k].end <= base:
            k += 1
        parts: list[str] = []
        pos = base
        count = 0
        j = k
        while j < len(findings) and findings[j].start < end:
            f = findings[j]
            s, e = max(f.start, base), min(f.end, end)
            parts.append(joined[pos:s])
            parts.append(f"[REDACTED:{f.rule}]")
            pos = e
            count += 1
            j += 1
        if count:
            parts.append(joined[pos:end])
            out.append(("".join(parts), count))
        else:
            out.append((t, 0))
        base = end + len(FIELD_SEP)
    return out


# --- span hooks: rules whose match says where to look, and Python says what to redact --------------

_I18N_TOKEN = re.compile(r"[A-Za-z0-9!#$%&*+\-./:;=?@^_|~]+")
# A host name ends in a top-level domain or an internal suffix (mq-bt05.svc.cluster.local,
# db-1.internal); ee5u79.5x0, a77h706-.r and p60vr3w.uhz are passwords with a dot.
_HOSTLIKE = re.compile(r"^[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.([a-z]{2,})$")
_HOST_SUFFIXES = frozenset("""
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


def _hostlike(tok: str) -> bool:
    """A host name: its last label a top-level domain or an internal suffix. Under a country code,
    one label switching between letters and digits three times or more is a password with a dot
    (4ui2wqp.ls, io1f58o1.gg), not a name (api2.example.de, k8s.io)."""
    m = _HOSTLIKE.match(tok)
    if m is None:
        return False
    tld = m.group(1)
    random_label = tok.count(".") == 1 and len(_DIGIT_SWITCH.findall(tok)) >= 3
    if tld in _HOST_SUFFIXES:
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


def _random_local_part(tok: str) -> bool:
    """Whether a version-shaped word has letters after its + that no version's local part holds:
    a password that looks like a version (1.06+wbxali, 8-1+dws75r, 0.0+emodgm)."""
    plus = tok.find("+")
    if plus < 0:
        return False
    for group in _LOCAL_SPLIT.split(tok[plus + 1:].lower()):
        if not _HEXISH.fullmatch(group) and any(w not in _LOCAL_WORDS for w in _LETTER_RUNS.findall(group)):
            return True
    return False


def _i18n_span(text: str, s: int, e: int) -> tuple[int, int] | None:
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
        if not _password_like(tok):
            continue
        if _placeholder(tok, code=False) or _hostlike(tok) or "://" in tok or tok.count("/") >= 2:
            continue
        if _VERSIONISH.match(tok) and (tok.lower() == tok or tok.upper() == tok) and not _random_local_part(tok) \
                or _UUID.match(tok):
            continue  # 1.2.3, 2.0.0-rc1, 4.1-SNAPSHOT; not 2-56-XfvX3s, whose tail is cased at random
        return a, b
    return None


_LABELLED_PHONE = re.compile(r"[^0-9+\n]{0,24}?(\+?\(?[0-9][0-9 ().\-/]{5,20}[0-9])(?![0-9A-Za-z_])")


def _located_findings(rule: Rule, text: str, lower: str, hits: list[tuple[int, int, int]]) -> list[Finding]:
    """credential-i18n and phone-number-labelled from the gate's keyword positions: the value is
    looked for in the line after the word."""
    out = []
    n = len(text)
    words = frozenset(rule.keywords)
    for k, s, e in hits:
        word = _GATE_WORDS[k]
        if word not in words:
            continue
        if word.isascii():
            # a word in Latin letters stands alone (mdp and clave hide inside base64, tel in hotel)
            if s > 0 and (lower[s - 1].isascii() and (lower[s - 1].isalnum() or lower[s - 1] == "_")):
                continue
            if e < n and lower[e].isascii() and lower[e].isalnum() and word[-1].isalnum():
                continue  # (a word ending in an apostrophe, dell', d', runs into the next word)
        if rule.check == "i18n":
            if _in_url(text, s):
                continue  # postgres://root:j5cC.mdP@host: a word inside a URL labels nothing
            end = text.find("\n", e, e + 64)
            if end < 0:
                end = min(n, e + 64)
                rest = _I18N_TOKEN.match(text, end, min(n, end + 256)) if _I18N_TOKEN.match(text, end - 1, end) else None
                if rest:  # the 64 characters cut a word: it is taken whole (a host name ends in its suffix)
                    end = rest.end()
            span = _i18n_span(text, e, end)
        else:
            m = _LABELLED_PHONE.match(text, e, min(n, e + 72))
            span = m.span(1) if m and _check(rule, m.group(1), text, m.start(1), m.end(1)) else None
        if span is not None and not (rule.category == "secret" and looks_fake(text[span[0]:span[1]], text, span[1])):
            out.append(Finding(rule.name, span[0], span[1]))
    return out


_YAML_BLOCK_LIMIT = 8 * 1024


def _yaml_block_span(text: str, s: int, e: int, indent: int) -> tuple[int, int] | None:
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
    if _placeholder(text[first:last]):
        return None
    return first, last


def _span_hook(kind: str, text: str, s: int, e: int, g: _Groups) -> tuple[int, int] | None:
    if kind == "i18n":
        return _i18n_span(text, s, e)
    if kind == "iban":
        return pii.iban_span(text, s, e)
    if kind == "yamlblock":
        return _yaml_block_span(text, s, e, len((g.group(1) or "").expandtabs(4)))
    return (s, e)


_SPAN_HOOKS = frozenset(("i18n", "iban", "yamlblock"))
