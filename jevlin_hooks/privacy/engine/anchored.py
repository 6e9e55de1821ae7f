"""Which patterns need looking for only on the lines that hold one of their keywords.

A rule's RE2 pass walks the whole text (0.05-0.1 ms a 32 KiB message) even where its keyword, say
``mysql`` or ``authorization``, occurs on one line of 600. Two facts about a pattern make it enough
to search the lines that hold a keyword (scan.py's run, given those lines by windows.py):

* **every match holds a keyword** (ASCII case aside): some part of the pattern that every match
  goes through can only match strings that contain one (``\\b(?:mysql|mariadb)\\b`` does; a pattern
  whose keyword is only context, like the word "token" before a kubeadm token, does not);
* **a match stays on one line**: a line break can only be its first or its last character, as in
  ``(?:^|[^A-Za-z0-9_])...`` or ``...\\r?\\n`` (``[^\\n|;&]*`` stays on its line, ``\\s*`` does not).

Then every match lies on a line that holds a keyword, within that line and the line breaks on
either side of it, and RE2 searching only those lines (with the whole text around them as
context, so ``^``, ``$`` and ``\\b`` see what they always saw) finds the same matches, in the
same order. Both facts are worked out here from the pattern itself (Python's regular-expression
parser reads RE2's syntax for every construct the rules use); a pattern that cannot be read, or
is not shown to have both, is searched whole, as before. The second fact alone (one_line) lets
scan.py start RE2 at the line of the next match end Hyperscan reports; a pattern whose matches
hold no line break at all (within_lines) can be searched on the lines near a word that only
gives context.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# Python's own parser for regular expressions (the module sre_parse was, before 3.11; no stubs).
# Private: where a later Python moves it, nothing is searched by lines and the output is the same.
try:
    P: Any = importlib.import_module("re._parser")
    C: Any = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - not on 3.11-3.13
    P = C = None

# How many strings a part of a pattern may stand for before it counts as "anything" (a class of
# letters, a short alternation and a few fixed characters multiply up fast).
_MAX_STRINGS = 512
_MAX_CLASS = 8


def _readable(pattern: str) -> bool:
    """RE2 syntax that Python's parser reads the same: ASCII, and no POSIX class ([[:alpha:]],
    which Python takes for a set of brackets, a colon and letters); the rest RE2 has and Python
    has not (\\z, \\pL, \\Q...\\E, (?U), \\x{41}) it refuses."""
    return P is not None and pattern.isascii() and _POSIX_CLASS.search(pattern) is None


_POSIX_CLASS = re.compile(r"\[:\^?[a-z]+:\]")


def line_anchored(pattern: str, anchors: tuple[str, ...]) -> bool:
    """Whether every match of ``pattern`` (RE2 syntax, ASCII) holds one of ``anchors`` (lower
    case) ASCII-case-insensitively, and holds a line break only as its first or last character."""
    if not _readable(pattern) or not anchors or not all(a.isascii() and a and a == a.lower() and "\n" not in a
                                                       for a in anchors):
        return False
    try:
        tree = P.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    flags = tree.state.flags
    try:
        return _covered(list(tree), flags, anchors) and _one_line(list(tree), flags)
    except _Unknown:
        return False


def one_line(pattern: str) -> bool:
    """Whether a match of ``pattern`` holds a line break only as its first or its last character."""
    if not _readable(pattern):
        return False
    try:
        tree = P.parse(pattern)
        return _one_line(list(tree), tree.state.flags)
    except (re.error, RecursionError, OverflowError, _Unknown):
        return False


def within_lines(pattern: str) -> bool:
    """Whether no match of ``pattern`` holds a line break at all (a rule whose keyword is only
    context nearby, like a near word, can then be searched on the lines around that word)."""
    if not _readable(pattern):
        return False
    try:
        tree = P.parse(pattern)
        return all(_no_newline(op, av, tree.state.flags) for op, av in tree)
    except (re.error, RecursionError, OverflowError, _Unknown):
        return False


class _Unknown(Exception):
    """A construct this analysis does not know: the pattern is searched whole."""


# --- every match holds an anchor -------------------------------------------------------------

def _covered(seq: list[Any], flags: int, anchors: tuple[str, ...]) -> bool:
    """Whether every string the sequence matches contains an anchor: one element always does, or
    a run of elements that each match one of a few fixed strings always spells one out."""
    run = {""}
    for op, av in seq:
        if _element_covered(op, av, flags, anchors):
            return True
        strings = _strings(op, av, flags)
        if strings is None:
            # a repeat of one of a few strings (`[ \t]+`) still starts and ends with one of them
            ends = _repeat_body(op, av, flags)
            if ends is not None and _all_hold({a + b for a in run for b in ends}, anchors):
                return True
            run = ends if ends is not None else {""}
            continue
        run = {a + b for a in run for b in strings}
        if len(run) > _MAX_STRINGS:
            run = {""}
            continue
        if _all_hold(run, anchors):
            return True
    return False


def _all_hold(strings: set[str], anchors: tuple[str, ...]) -> bool:
    return len(strings) <= _MAX_STRINGS and all(any(x in s for x in anchors) for s in strings)


def _repeat_body(op: Any, av: Any, flags: int) -> set[str] | None:
    """For a repeat at least once of a part with few strings: those strings (every match of the
    repeat starts with one and ends with one)."""
    if op not in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) or av[0] < 1:
        return None
    body = _seq_strings(list(av[2]), flags)
    return body if body is not None and "" not in body else None


def _element_covered(op: Any, av: Any, flags: int, anchors: tuple[str, ...]) -> bool:
    if op is C.SUBPATTERN:
        _, add, remove, sub = av
        return _covered(list(sub), (flags | add) & ~remove, anchors)
    if op is C.BRANCH:
        return all(_covered(list(branch), flags, anchors) for branch in av[1])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, _, sub = av
        return lo >= 1 and _covered(list(sub), flags, anchors)
    return False


def _strings(op: Any, av: Any, flags: int) -> set[str] | None:
    """The strings (lower-cased) an element can match, or None for too many."""
    fold = bool(flags & C.SRE_FLAG_IGNORECASE)
    if op is C.LITERAL:
        return {chr(av).lower()}
    if op is C.AT:
        return {""}
    if op is C.IN:
        chars = _class_chars(av, fold)
        if chars is None or len(chars) > _MAX_CLASS:
            return None
        return {c.lower() for c in chars}
    if op is C.SUBPATTERN:
        _, add, remove, sub = av
        return _seq_strings(list(sub), (flags | add) & ~remove)
    if op is C.BRANCH:
        out: set[str] = set()
        for branch in av[1]:
            s = _seq_strings(list(branch), flags)
            if s is None:
                return None
            out |= s
            if len(out) > _MAX_STRINGS:
                return None
        return out
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, hi, sub = av
        if hi is C.MAXREPEAT or hi > 4:
            return None
        body = _seq_strings(list(sub), flags)
        if body is None:
            return None
        out = set()
        level = {""}
        for k in range(hi + 1):
            if k >= lo:
                out |= level
            if k < hi:
                level = {a + b for a in level for b in body}
                if len(level) > _MAX_STRINGS:
                    return None
        return out
    return None


def _seq_strings(seq: list[Any], flags: int) -> set[str] | None:
    out = {""}
    for op, av in seq:
        s = _strings(op, av, flags)
        if s is None:
            return None
        out = {a + b for a in out for b in s}
        if len(out) > _MAX_STRINGS:
            return None
    return out


def _class_chars(items: list[Any], fold: bool) -> set[str] | None:
    """The characters a (non-negated, small) class holds, or None."""
    chars: set[str] = set()
    for op, av in items:
        if op is C.LITERAL:
            chars.add(chr(av))
        elif op is C.RANGE:
            lo, hi = av
            if hi - lo > _MAX_CLASS:
                return None
            chars.update(chr(c) for c in range(lo, hi + 1))
        else:  # NEGATE, CATEGORY: wide
            return None
    return chars


# --- a match stays on its line ---------------------------------------------------------------

def _one_line(seq: list[Any], flags: int) -> bool:
    """Whether a line break can only be the first or the last character of a match: every
    element between the first and the last matches none, and the first (the last) can match one
    only as the first (the last) character it matches."""
    if not seq:
        return True
    if len(seq) == 1:
        op, av = seq[0]
        if op is C.SUBPATTERN:
            _, add, remove, sub = av
            return _one_line(list(sub), (flags | add) & ~remove)
        if op is C.BRANCH:
            return all(_one_line(list(b), flags) for b in av[1])
        return _no_newline(op, av, flags) or _width(op, av) <= 1
    (op0, av0), *middle, (op1, av1) = seq
    return (all(_no_newline(op, av, flags) for op, av in middle)
            and _at_edge(op0, av0, flags, first=True) and _at_edge(op1, av1, flags, first=False))


def _at_edge(op: Any, av: Any, flags: int, first: bool) -> bool:
    """Whether the element can match a line break only as its first character (``first``) or
    only as its last."""
    if _no_newline(op, av, flags) or _width(op, av) <= 1:
        return True
    if op is C.SUBPATTERN:
        _, add, remove, sub = av
        return _seq_at_edge(list(sub), (flags | add) & ~remove, first)
    if op is C.BRANCH:
        return all(_seq_at_edge(list(b), flags, first) for b in av[1])
    return False


def _seq_at_edge(seq: list[Any], flags: int, first: bool) -> bool:
    if not seq:
        return True
    edge, rest = (seq[0], seq[1:]) if first else (seq[-1], seq[:-1])
    return all(_no_newline(op, av, flags) for op, av in rest) and _at_edge(edge[0], edge[1], flags, first)


def _width(op: Any, av: Any) -> int:
    sub = P.SubPattern(P.State(), [(op, av)])
    hi: int = sub.getwidth()[1]
    return hi


def _no_newline(op: Any, av: Any, flags: int) -> bool:
    """Whether no character the element matches can be a line break."""
    if op is C.LITERAL:
        return bool(av != 10)
    if op is C.NOT_LITERAL:
        return bool(av == 10)
    if op is C.AT:
        return True
    if op is C.ANY:
        return not flags & C.SRE_FLAG_DOTALL  # RE2's . takes no line break without (?s)
    if op is C.IN:
        return not _class_has_newline(av)
    if op is C.SUBPATTERN:
        _, add, remove, sub = av
        return all(_no_newline(o, a, (flags | add) & ~remove) for o, a in sub)
    if op is C.BRANCH:
        return all(_no_newline(o, a, flags) for b in av[1] for o, a in b)
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        return all(_no_newline(o, a, flags) for o, a in av[2])
    if op is C.CATEGORY:
        return av not in (C.CATEGORY_SPACE, C.CATEGORY_NOT_WORD, C.CATEGORY_NOT_DIGIT)
    raise _Unknown(op)


def _class_has_newline(items: list[Any]) -> bool:
    negate = bool(items) and items[0][0] is C.NEGATE
    has = False
    for op, av in items[1:] if negate else items:
        if op is C.LITERAL and av == 10:
            has = True
        elif op is C.RANGE and av[0] <= 10 <= av[1]:
            has = True
        elif op is C.CATEGORY:
            if av in (C.CATEGORY_SPACE, C.CATEGORY_NOT_WORD, C.CATEGORY_NOT_DIGIT, C.CATEGORY_NOT_LINEBREAK):
                has = True
            elif av not in (C.CATEGORY_NOT_SPACE, C.CATEGORY_WORD, C.CATEGORY_DIGIT, C.CATEGORY_LINEBREAK):
                raise _Unknown(av)
            elif av is C.CATEGORY_LINEBREAK:
                has = True
        elif op not in (C.LITERAL, C.RANGE):
            raise _Unknown(op)
    return has != negate
