"""RE2's pattern syntax, parsed into a small tree, with RE2's meaning for every construct.

Character classes are sets of code points (RE2 matches UTF-8 text by character, not by byte);
``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII-only as in RE2 (``\\s`` is ``[\\t\\n\\f\\r ]``,
without ``\\v``); ``(?i)`` folds case by Unicode's simple case folding, as RE2 does (so ``k`` also
matches U+212A KELVIN SIGN); ``$`` without ``(?m)`` is the end of the text only. What RE2 refuses
is refused, and so is what this engine does not implement (``\\p{..}``, ``\\Q..\\E``, ``\\C``):
:class:`Error` either way, which the rule table's validation reports.

The tree: ``("set", ranges)`` one character of a set of (lo, hi) code point ranges;
``("cat", items)``; ``("alt", branches)``; ``("rep", min, max, greedy, node, flags)`` with max -1 for
no bound; ``("group", index, node)`` a capturing group (index from 1); ``("assert", kind)``;
``("empty",)``.
"""

from __future__ import annotations

import bisect
import functools
import unicodedata
from typing import Any

Node = tuple[Any, ...]
Ranges = tuple[tuple[int, int], ...]

MAX_CHAR = 0x10FFFF
MAX_REPEAT = 1000  # RE2's limit on {n,m}

# assertion kinds (the search evaluates them from the characters on either side)
BEGIN_TEXT, END_TEXT, BEGIN_LINE, END_LINE, WORD_BOUNDARY, NOT_WORD_BOUNDARY = range(6)

DIGIT: Ranges = ((0x30, 0x39),)
WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
SPACE: Ranges = ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20))
_PERL = {"d": DIGIT, "w": WORD, "s": SPACE}


@functools.cache
def unicode_category(name: str) -> Ranges:
    """\\p{L}, \\p{Lu}, \\pN, ...: the code points of a Unicode general category (one letter: the
    categories it starts), from the interpreter's Unicode tables, which may be a version behind or
    ahead of RE2's (a character new in one of them is the only difference). Made once, when a rule
    that names the category is compiled."""
    if not (len(name) in (1, 2) and name[0] in "CLMNPSZ"):
        raise ValueError(name)
    items: list[tuple[int, int]] = []
    start = -1
    for cp in range(MAX_CHAR + 2):
        inside = cp <= MAX_CHAR and unicodedata.category(chr(cp)).startswith(name)
        if inside and start < 0:
            start = cp
        elif not inside and start >= 0:
            items.append((start, cp - 1))
            start = -1
    if not items:
        raise ValueError(name)
    return tuple(items)
_POSIX: dict[str, Ranges] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)), "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),), "blank": ((0x09, 0x09), (0x20, 0x20)), "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": DIGIT, "graph": ((0x21, 0x7E),), "lower": ((0x61, 0x7A),), "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)), "upper": ((0x41, 0x5A),), "word": WORD,
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}
_CONTROL = {"n": 0x0A, "r": 0x0D, "t": 0x09, "f": 0x0C, "v": 0x0B, "a": 0x07}


class Error(ValueError):
    """A pattern RE2 refuses, or one this engine does not implement."""


def normalize(ranges: Any) -> Ranges:
    """Sorted, merged ranges."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def negate(ranges: Ranges) -> Ranges:
    out, at = [], 0
    for lo, hi in ranges:
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= MAX_CHAR:
        out.append((at, MAX_CHAR))
    return tuple(out)


def _simple_fold(ch: str) -> str:
    """Unicode simple case folding, from what Python exposes: the full folding where it is one
    character, else the lower case where that is one (U+1E9E -> U+00DF), else the character.
    (Checked against RE2 for every code point whose case orbit has more than one member.)"""
    f = ch.casefold()
    if len(f) == 1:
        return f
    low = ch.lower()
    return low if len(low) == 1 else ch


# Case pairs end at U+1E943 (Adlam); scanning to U+1FFFF finds them all in a few tens of ms.
_CASED_BELOW = 0x20000


@functools.lru_cache(maxsize=1)
def _orbits() -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """Every code point whose case orbit has more than one member (sorted) and its orbit; built
    once, on the first case-insensitive pattern."""
    by_fold: dict[str, set[int]] = {}
    for cp in range(_CASED_BELOW):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        key = _simple_fold(ch)
        if key != ch or ch.lower() != ch or ch.upper() != ch:
            by_fold.setdefault(key, {ord(key)}).add(cp)
    out = {cp: tuple(sorted(orbit)) for orbit in by_fold.values() if len(orbit) > 1 for cp in orbit}
    return sorted(out), out


def fold(ranges: Ranges) -> Ranges:
    """``ranges`` with every member's case orbit added (RE2's ``(?i)``)."""
    keys, orbits = _orbits()
    out = list(ranges)
    for lo, hi in ranges:
        k = bisect.bisect_left(keys, lo)
        while k < len(keys) and keys[k] <= hi:
            out.extend((x, x) for x in orbits[keys[k]])
            k += 1
    return normalize(out)


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p, self.i, self.groups = pattern, 0, 0
        self.flags = {"i": False, "m": False, "s": False, "U": False}

    def error(self, what: str) -> Error:
        return Error(f"{what} at offset {self.i} of {self.p[:80]!r}")

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def parse(self) -> Node:
        node = self.alternation()
        if self.i < len(self.p):
            raise self.error("unexpected )")
        return node

    def alternation(self) -> Node:
        saved = dict(self.flags)
        branches = [self.concat()]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.concat())
        self.flags = saved
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def concat(self) -> Node:
        items: list[Node] = []
        while self.i < len(self.p) and self.peek() not in "|)":
            atom = self.atom()
            if atom is not None:
                items.append(self.repeats(atom))
        if not items:
            return ("empty",)
        return items[0] if len(items) == 1 else ("cat", items)

    def chars(self, ranges: Ranges) -> Node:
        return ("set", fold(ranges) if self.flags["i"] else ranges)

    def atom(self) -> Node | None:
        c = self.peek()
        if c == "(":
            return self.group()
        if c == "[":
            return ("set", self.char_class())
        self.i += 1
        if c == ".":
            return ("set", ((0, MAX_CHAR),) if self.flags["s"] else ((0, 0x09), (0x0B, MAX_CHAR)))
        if c == "^":
            return ("assert", BEGIN_LINE if self.flags["m"] else BEGIN_TEXT)
        if c == "$":
            return ("assert", END_LINE if self.flags["m"] else END_TEXT)
        if c in "*+?":
            self.i -= 1
            raise self.error("missing argument to repetition operator")
        if c == "{" and self.bounds(self.i - 1) is not None:
            self.i -= 1
            raise self.error("missing argument to repetition operator")
        if c == "\\":
            return self.escape()
        return self.chars(((ord(c), ord(c)),))

    def group(self) -> Node | None:
        self.i += 1  # (
        index: int | None = None
        saved = dict(self.flags)
        if self.peek() == "?":
            j = self.i + 1
            if self.p.startswith("P<", j) or (self.peek(1) == "<" and self.peek(2) not in "=!"):
                close = self.p.find(">", j)
                name = self.p[j + (2 if self.p.startswith("P<", j) else 1):close]
                if close < 0 or not name or not (name[0].isalpha() or name[0] == "_") \
                        or not all(ch.isalnum() or ch == "_" for ch in name) or not name.isascii():
                    raise self.error("invalid named capture group")
                self.i = close + 1
                self.groups += 1
                index = self.groups
            else:
                k = j
                on = True
                while k < len(self.p) and self.p[k] not in ":)":
                    ch = self.p[k]
                    if ch == "-" and on:
                        on = False
                    elif ch in self.flags:
                        self.flags[ch] = on
                    else:
                        raise self.error("invalid or unsupported group flags")
                    k += 1
                if k >= len(self.p) or (k == j and self.p[k] == ")") or self.p[k - 1] == "-":
                    raise self.error("missing closing ) or invalid flags")
                self.i = k + 1
                if self.p[k] == ")":
                    return None  # (?i): the flags hold to the end of the enclosing group
        else:
            self.groups += 1
            index = self.groups
        node = self.alternation()
        if self.peek() != ")":
            raise self.error("missing closing )")
        self.i += 1
        self.flags = saved
        return ("group", index, node) if index is not None else node

    def bounds(self, at: int) -> tuple[int, int, int] | None:
        """``{n}``, ``{n,}`` or ``{n,m}`` at ``at``: (min, max or -1, end offset), else None
        (RE2 reads any other brace as a literal)."""
        close = self.p.find("}", at)
        if close < 0:
            return None
        body = self.p[at + 1:close]
        lo, comma, hi = body.partition(",")
        if not lo.isdigit() or not lo.isascii() or (hi and not (hi.isdigit() and hi.isascii())):
            return None
        return int(lo), (int(hi) if hi else -1) if comma else int(lo), close + 1

    def repeats(self, atom: Node) -> Node:
        node, seen = atom, False
        while True:
            c = self.peek()
            if c in ("*", "+", "?"):
                lo, hi, end = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[c] + (self.i + 1,)
            elif c == "{" and (b := self.bounds(self.i)) is not None:
                lo, hi, end = b
                if lo > MAX_REPEAT or hi > MAX_REPEAT or (hi >= 0 and hi < lo):
                    raise self.error("bad repetition operator")
            else:
                return node
            if seen:
                raise self.error("bad repetition operator")  # RE2 refuses a** and a{2}*
            self.i = end
            lazy = self.peek() == "?"
            if lazy:
                self.i += 1
            node = self.squash(("rep", lo, hi, lazy == self.flags["U"], node, tuple(self.flags.values())))
            seen = True

    @staticmethod
    def squash(node: Node) -> Node:
        """(?:x+)? as RE2's parser makes it: a *, + or ? applied to another (through a group that
        captures nothing, with the same flags) is one of them if they are alike, else a *. Which
        one changes which thread a Pike VM keeps, so groups follow it."""
        inner: Node = node[4]
        simple = {(0, -1), (1, -1), (0, 1)}
        if inner[0] == "rep" and (node[1], node[2]) in simple and (inner[1], inner[2]) in simple \
                and inner[3] == node[3] and inner[5] == node[5]:
            if (inner[1], inner[2]) == (node[1], node[2]):
                return inner
            return ("rep", 0, -1, node[3], inner[4], node[5])
        return node

    def escape(self) -> Node:
        c = self.peek()
        if not c:
            raise self.error("trailing \\")
        self.i += 1
        if c in "bB":
            return ("assert", WORD_BOUNDARY if c == "b" else NOT_WORD_BOUNDARY)
        if c == "A":
            return ("assert", BEGIN_TEXT)
        if c == "z":
            return ("assert", END_TEXT)
        if c.lower() in _PERL:
            return ("set", self.named_class(_PERL[c.lower()], c.isupper()))
        if c in "pP":
            return ("set", self.named_class(self.category(), c == "P"))
        return self.chars(((self.escaped_char(c),) * 2,))

    def category(self) -> Ranges:
        """The class of \\p{Name} or \\pN, after the p."""
        if self.peek() == "{":
            close = self.p.find("}", self.i)
            name = self.p[self.i + 1:close] if close > 0 else ""
            self.i = close + 1 if close > 0 else self.i
        else:
            name = self.peek()
            self.i += 1
        neg = name.startswith("^")
        try:
            ranges = unicode_category(name.lstrip("^"))
        except ValueError:
            raise self.error("invalid character class range") from None
        return negate(ranges) if neg else ranges

    def named_class(self, ranges: Ranges, negated: bool) -> Ranges:
        """\\d, \\W, [:alpha:], ...: under (?i) RE2 folds the class, then negates (so (?i)\\W
        does not match U+212A KELVIN SIGN, which (?i)\\w does)."""
        if self.flags["i"]:
            ranges = fold(ranges)
        return negate(ranges) if negated else ranges

    def escaped_char(self, c: str) -> int:
        """The character an escape other than a class or an assertion stands for (after the \\)."""
        if c in _CONTROL:
            return _CONTROL[c]
        if c == "x":
            if self.peek() == "{":
                close = self.p.find("}", self.i)
                digits = self.p[self.i + 1:close] if close > 0 else ""
                self.i = close + 1
            else:
                digits = self.p[self.i:self.i + 2]
                self.i += 2
            if not digits or len(digits) > 8 or any(ch not in "0123456789abcdefABCDEF" for ch in digits) \
                    or int(digits, 16) > MAX_CHAR:
                raise self.error("invalid escape sequence")
            return int(digits, 16)
        if c in "01234567":
            if c == "0" or self.peek() in "01234567" and self.peek():
                j = self.i
                while j < len(self.p) and j - self.i < 2 and self.p[j] in "01234567":
                    j += 1
                value = int(c + self.p[self.i:j], 8)
                self.i = j
                return value
            raise self.error("invalid escape sequence (a back reference)")
        if c.isascii() and not c.isalnum() and c != "_":
            return ord(c)
        raise self.error(f"invalid or unsupported escape \\{c}")

    def char_class(self) -> Ranges:
        self.i += 1  # [
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        items: list[tuple[int, int]] = []
        named: list[tuple[int, int]] = []  # \\d, [:alpha:]: folded already where they are
        first = True
        while True:
            c = self.peek()
            if not c:
                raise self.error("missing closing ]")
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            if c == "[" and self.peek(1) == ":":
                close = self.p.find(":]", self.i + 2)
                name = self.p[self.i + 2:close] if close > 0 else ""
                neg = name.startswith("^")
                if name.lstrip("^") in _POSIX:
                    named.extend(self.named_class(_POSIX[name.lstrip("^")], neg))
                    self.i = close + 2
                    continue
                if close > 0:
                    raise self.error("invalid character class range")
            if c == "\\" and self.peek(1).lower() in _PERL:
                e = self.peek(1)
                named.extend(self.named_class(_PERL[e.lower()], e.isupper()))
                self.i += 2
                continue
            if c == "\\" and self.peek(1) in ("p", "P"):
                e = self.peek(1)
                self.i += 2
                named.extend(self.named_class(self.category(), e == "P"))
                continue
            lo = self.class_char()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.i += 1
                hi = self.class_char()
                if hi < lo:
                    raise self.error("invalid character class range")
                items.append((lo, hi))
            else:
                items.append((lo, lo))
        ranges = normalize(items)
        if self.flags["i"]:
            ranges = fold(ranges)
        ranges = normalize(ranges + tuple(named))
        return negate(ranges) if negated else ranges

    def class_char(self) -> int:
        c = self.peek()
        self.i += 1
        if c != "\\":
            return ord(c)
        e = self.peek()
        if not e:
            raise self.error("trailing \\")
        self.i += 1
        if e.lower() in _PERL or e in "bBAz":
            raise self.error("invalid character class range")
        return self.escaped_char(e)


def parse(pattern: str) -> tuple[Node, int]:
    """The tree of ``pattern`` and its number of capturing groups."""
    p = _Parser(pattern)
    node = p.parse()
    return node, p.groups
