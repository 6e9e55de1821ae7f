"""A rule's patterns compiled for RE2, and the rewrites that make RE2 scan them faster.

A rule with alternatives as its whole pattern becomes one pattern per alternative (RE2 skips ahead
by memchr only to a literal every match starts with); a leading \\b is checked in Python instead
(it costs RE2 its literal-prefix scan); a vendor token's closing \\b after an open-ended run of a
class holding non-word characters goes (the run already ends where the token does). None of these
changes what matches: the equivalence tests and bench/scrub_equivalence.py hold them to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from jevlin_hooks.privacy.checks import Check
from jevlin_hooks.privacy.checks.registry import Accept, Rejects, SpanHook, ValueSpan
from jevlin_hooks.privacy.regex import ANCHOR_BOTH, Error, compile_bytes
from jevlin_hooks.privacy.rules import Rule, pattern_pieces


@dataclass(frozen=True, slots=True)
class Pattern:
    """One compiled pattern of a rule, with what the scan loop reads of its rule and check."""

    rule: Rule
    rx: Any  # regex.compile_bytes: RE2 on UTF-8 or one-byte bytes
    groups: tuple[int, ...]
    secret: bool
    needs_match: bool  # the check reads the match's groups
    word_start: bool  # the pattern began with \b, checked in Python (see split_word_start)
    unicode: bool  # the rule's pattern holds non-ASCII literals (credential words in other scripts)
    pid: int  # this pattern's number in the Hyperscan prefilter
    scan: Any  # Match of the pattern without capture groups, for the patterns whose groups are costly, or None
    value_span: ValueSpan | None  # how the value is read off a group-less match (the check's), or None
    memo: dict[tuple[int, bytes, int], tuple[tuple[int, int], ...]]  # see submatches
    pattern: str  # the text RE2 compiled (anchored.py reads it)
    rejects: Rejects | None  # the check would turn the match down, told without its groups, or None
    accept: Accept | None  # the check's test of a value, or None
    span: SpanHook | None  # the check says where the finding is, or None
    public_pem_kept: bool
    around_at_sign: bool


# From this program size on, RE2 takes 3-8 us to work out a match's groups (its bit-state
# backtracker over a big alternation of key names, case-folded): such a pattern is scanned without
# groups, and the groups are worked out once per distinct match text (submatches).
COSTLY_GROUPS = 400
_MEMO_LIMIT = 4096


def compile_rule(rule: Rule, check: Check | None, first_pid: int) -> list[Pattern]:
    """The rule's patterns (one per vendor prefix, see alternatives), numbered from ``first_pid``.
    A pattern RE2 refuses or a group the pattern does not have is an error naming the rule."""
    out: list[Pattern] = []
    for part in alternatives(rule.pattern) if rule.group == 0 else [rule.pattern]:
        pattern, word_start = split_word_start(open_end(part))
        try:
            rx = compile_bytes(pattern)
        except Error as e:
            raise Error(f"{rule.name}: {e}") from None
        missing = [g for g in rule.groups if g > rx.NumberOfCapturingGroups()]
        if missing:
            raise ValueError(f"{rule.name}: no group {missing[0]} in its pattern ({rx.NumberOfCapturingGroups()} groups)")
        scan = None
        value_span = check.value_span if check is not None else None
        rejects = check.rejects if check is not None else None
        if rx.NumberOfCapturingGroups() and (rx.ProgramSize() >= COSTLY_GROUPS or value_span or rejects):
            scan = compile_bytes(without_groups(pattern))
            assert not scan.NumberOfCapturingGroups(), rule.name
        out.append(Pattern(
            rule, rx, rule.groups, rule.category == "secret", check is not None and check.needs_match, word_start,
            not rule.pattern.isascii(), first_pid + len(out), scan.Match if scan else None, value_span, {}, pattern,
            rejects, check.accept if check is not None else None, check.span if check is not None else None,
            check is None or check.public_pem_kept, rule.around_at_sign))
    return out


def without_groups(pattern: str) -> str:
    """Every capturing ( as (?: (not inside a character class, not escaped)."""
    return "".join("(?:" if piece == "(" and not in_class and pattern[i + 1:i + 2] != "?" else piece
                   for i, piece, in_class in pattern_pieces(pattern))


def submatches(c: Pattern, data: bytes, s0: int, e0: int) -> list[tuple[int, int]]:
    """The groups of the match [s0, e0): what RE2's own unanchored search does after finding the
    match (its groups, anchored at both ends of the match), remembered for the match text and the
    byte on each side (all that ^, $ and \\b at its ends can see): agent text repeats its lines."""
    key = (data[s0 - 1] if s0 else 256, data[s0:e0], data[e0] if e0 < len(data) else 256)
    rel = c.memo.get(key)
    if rel is None:
        spans = c.rx.Match(ANCHOR_BOTH, data, s0, e0)
        rel = tuple((a - s0, b - s0) if a >= 0 else (-1, -1) for a, b in spans)
        if len(c.memo) >= _MEMO_LIMIT:
            c.memo.clear()
        c.memo[key] = rel
    return [(a + s0, b + s0) if a >= 0 else (-1, -1) for a, b in rel]


def alternatives(pattern: str) -> list[str]:
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


def open_end(pattern: str) -> str:
    r"""A vendor token's pattern without its closing \b where it ends in an unbounded run of a
    class holding non-word characters (figd_[A-Za-z0-9_\-]{40,}\b): the greedy run already ends
    where the token does, and the \b only made a token ending in `-` or `=` give that character
    back, or not match at all when it was the 40th."""
    m = _OPEN_END.search(pattern)
    if m and re.search(r"\\-|[.+/=~,]", m.group(1).replace("\\.", ".")):
        return pattern[:-2]
    return pattern


def split_word_start(pattern: str) -> tuple[str, bool]:
    """A leading \b costs RE2 its literal-prefix scan (memchr to the next "ghp_"): 100x slower
    on text without the prefix. Every such pattern starts with a word character, so the \b means
    "no word character before", which the scan loop (scan.py) checks itself."""
    for flags in ("", "(?i)"):
        if pattern.startswith(flags + "\\b"):
            rest = pattern[len(flags) + 2:]
            head = rest[3:] if rest.startswith("(?:") else rest[1:] if rest.startswith("(") else rest
            if head[:1].isalnum():  # a literal first: RE2 can skip to it (a class it cannot)
                return flags + rest, True
    return pattern, False


