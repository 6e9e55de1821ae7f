"""A parsed pattern compiled to a byte-level program (Thompson's construction, as RE2 does).

Instructions, one per index: BYTE (a 256-entry mask, then ``out``), SPLIT (``out`` first, then
``out1``: the order is the priority, which leftmost-first matching follows), EMPTY (an assertion,
then ``out``), SAVE (a capture slot, then ``out``), NOP and MATCH. A set of characters becomes UTF-8
byte sequences, so a character outside ASCII is matched whole, and an invalid byte (or a
surrogate's encoding) by nothing, as RE2 does. The reversed program (for finding where a match
starts, from where it ends) reads the same bytes backwards and keeps no captures.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from jevlin_hooks.privacy.linear.syntax import Error, Node, Ranges

BYTE, SPLIT, EMPTY, SAVE, NOP, MATCH = range(6)
MAX_PROGRAM = 250_000  # instructions; RE2 gave 64 MiB (engine/patterns: max_mem), the rules use under 10,000

_ENDS = (0x7F, 0x7FF, 0xFFFF)


def utf8_sequences(lo: int, hi: int) -> list[list[tuple[int, int]]]:
    """The code points lo..hi (surrogates left out) as sequences of byte ranges, one byte range
    per byte of the encoding, whose union is exactly their UTF-8 (the split of Rust's
    regex-syntax, utf8.rs)."""
    out: list[list[tuple[int, int]]] = []
    todo = [(lo, hi)]
    while todo:
        lo, hi = todo.pop()
        if lo <= 0xDFFF and hi >= 0xD800:  # no surrogates: they are not UTF-8
            if hi > 0xDFFF:
                todo.append((0xE000, hi))
            if lo < 0xD800:
                todo.append((lo, 0xD7FF))
            continue
        split = _split(lo, hi)
        if split is not None:
            todo.extend(split)
            continue
        a, b = chr(lo).encode(), chr(hi).encode()
        out.append(list(zip(a, b, strict=True)))
    return out


def _split(lo: int, hi: int) -> list[tuple[int, int]] | None:
    """lo..hi in two where its encodings differ in length or cannot be one range per byte."""
    for end in _ENDS:
        if lo <= end < hi:
            return [(end + 1, hi), (lo, end)]
    if hi <= 0x7F:
        return None
    for i in (1, 2, 3):
        m = (1 << (6 * i)) - 1
        if lo & ~m != hi & ~m:
            if lo & m:
                return [((lo | m) + 1, hi), (lo, lo | m)]
            if hi & m != m:
                return [(hi & ~m, hi), (lo, (hi & ~m) - 1)]
    return None


@functools.lru_cache(maxsize=4096)
def mask(ranges: tuple[tuple[int, int], ...]) -> bytes:
    """A byte mask: 1 for the bytes in ``ranges``."""
    m = bytearray(256)
    for lo, hi in ranges:
        m[lo:hi + 1] = b"\x01" * (hi - lo + 1)
    return bytes(m)


@dataclass
class Program:
    op: list[int] = field(default_factory=list)
    arg: list[Any] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    out1: list[int] = field(default_factory=list)
    start: int = 0
    kinds: frozenset[int] = frozenset()  # the assertion kinds it holds

    def __len__(self) -> int:
        return len(self.op)


Frag = tuple[int, list[tuple[int, int]]]  # (start pc, the holes: (pc, 0 for out / 1 for out1))


class _Compiler:
    def __init__(self, reverse: bool) -> None:
        self.p = Program()
        self.reverse = reverse

    def emit(self, op: int, arg: Any = None) -> int:
        p = self.p
        if len(p.op) >= MAX_PROGRAM:
            raise Error("pattern too large: the program would exceed the engine's limit")
        p.op.append(op)
        p.arg.append(arg)
        p.out.append(-1)
        p.out1.append(-1)
        return len(p.op) - 1

    def patch(self, holes: list[tuple[int, int]], to: int) -> None:
        for pc, which in holes:
            (self.p.out1 if which else self.p.out)[pc] = to

    def node(self, n: Node) -> Frag:
        kind = n[0]
        if kind == "set":
            return self.chars(n[1])
        if kind == "cat":
            items = list(reversed(n[1])) if self.reverse else n[1]
            return self.cat([self.node(x) for x in items])
        if kind == "alt":
            return self.alt([self.node(x) for x in n[1]])
        if kind == "rep":
            return self.rep(n[1], n[2], n[3], n[4])
        if kind == "group":
            if self.reverse:
                return self.node(n[2])
            return self.cat([self.one(SAVE, 2 * n[1]), self.node(n[2]), self.one(SAVE, 2 * n[1] + 1)])
        if kind == "assert":
            return self.one(EMPTY, n[1])
        return self.one(NOP)

    def one(self, op: int, arg: Any = None) -> Frag:
        pc = self.emit(op, arg)
        return pc, [(pc, 0)]

    def cat(self, frags: list[Frag]) -> Frag:
        if not frags:
            return self.one(NOP)
        start, holes = frags[0]
        for s, h in frags[1:]:
            self.patch(holes, s)
            holes = h
        return start, holes

    def alt(self, frags: list[Frag]) -> Frag:
        start, holes = frags[-1]
        holes = list(holes)
        for s, h in reversed(frags[:-1]):
            pc = self.emit(SPLIT)
            self.p.out[pc], self.p.out1[pc] = s, start
            start = pc
            holes = h + holes
        return start, holes

    def rep(self, lo: int, hi: int, greedy: bool, body: Node) -> Frag:
        """As RE2 simplifies and compiles them: x{0,} is x*, x{n,} is n-1 copies and x+, x{n,m}
        is n copies and m-n nested x?."""
        if hi < 0:
            if lo == 0:
                return self.star(body, greedy)
            return self.cat([self.node(body) for _ in range(lo - 1)] + [self.plus(body, greedy)])
        frags = [self.node(body) for _ in range(lo)]
        if hi > lo:
            frags.append(self.optionals(hi - lo, greedy, body))
        return self.cat(frags)

    def split(self, greedy: bool, into: int) -> tuple[int, tuple[int, int]]:
        """A SPLIT whose preferred branch (by ``greedy``) goes ``into``; the other is its hole."""
        pc = self.emit(SPLIT)
        if greedy:
            self.p.out[pc] = into
            return pc, (pc, 1)
        self.p.out1[pc] = into
        return pc, (pc, 0)

    def plus(self, body: Node, greedy: bool) -> Frag:
        s, holes = self.node(body)
        pc, hole = self.split(greedy, s)
        self.patch(holes, pc)
        return s, [hole]

    def star(self, body: Node, greedy: bool) -> Frag:
        """x*; where x can match the empty string, (x+)? as RE2 compiles it (one SPLIT would not
        keep the priority order within the closure, RE2's compile.cc says)."""
        if nullable(body):
            s, holes = self.plus(body, greedy)
            pc, hole = self.split(greedy, s)
            return pc, [hole] + holes
        s, holes = self.node(body)
        pc, hole = self.split(greedy, s)
        self.patch(holes, pc)
        return pc, [hole]

    def optionals(self, k: int, greedy: bool, body: Node) -> Frag:
        """(x(x(x)?)?)? for k = 3: each one tried only after the one before it matched."""
        s, holes = self.node(body)
        if k > 1:
            inner_start, inner_holes = self.optionals(k - 1, greedy, body)
            self.patch(holes, inner_start)
            holes = inner_holes
        pc, hole = self.split(greedy, s)
        return pc, [hole] + holes

    def chars(self, ranges: Ranges) -> Frag:
        """One character of ``ranges``: a BYTE per byte of its encodings, the sequences that end
        alike (in reading order) sharing their ends, those that differ only in the first byte
        sharing one instruction (RE2 caches UTF-8 suffixes the same way)."""
        plan = _plan(ranges, self.reverse)
        holes: list[tuple[int, int]] = []
        shared: dict[tuple[bytes, ...], int] = {}

        def chain(rest: tuple[bytes, ...]) -> int:
            pc = shared.get(rest)
            if pc is None:
                pc = shared[rest] = self.emit(BYTE, rest[0])
                if len(rest) == 1:
                    holes.append((pc, 0))
                else:
                    self.p.out[pc] = chain(rest[1:])
            return pc

        starts = [chain(seq) for seq in plan]
        if len(starts) == 1:
            return starts[0], holes
        return self.alt([(pc, []) for pc in starts[:-1]] + [(starts[-1], holes)])


@functools.lru_cache(maxsize=2048)
def _plan(ranges: Ranges, reverse: bool) -> tuple[tuple[bytes, ...], ...]:
    """``ranges`` as sequences of byte masks in reading order, those with the same rest merged
    into one by their first byte."""
    seqs: list[list[tuple[int, int]]] = [[(lo, min(hi, 0x7F))] for lo, hi in ranges if lo <= 0x7F]
    seqs += [seq for lo, hi in ranges if hi > 0x7F for seq in utf8_sequences(max(lo, 0x80), hi)]
    by_rest: dict[tuple[tuple[int, int], ...], list[tuple[int, int]]] = {}
    for seq in seqs:
        if reverse:
            seq = seq[::-1]
        by_rest.setdefault(tuple(seq[1:]), []).append(seq[0])
    if not seqs:
        return ((mask(()),),)
    return tuple((mask(tuple(firsts)),) + tuple(mask((r,)) for r in rest) for rest, firsts in by_rest.items())


def nullable(n: Node) -> bool:
    """Whether ``n`` can match the empty string."""
    kind = n[0]
    if kind == "set":
        return False
    if kind == "cat":
        return all(nullable(x) for x in n[1])
    if kind == "alt":
        return any(nullable(x) for x in n[1])
    if kind == "rep":
        return n[1] == 0 or nullable(n[4])
    if kind == "group":
        return nullable(n[2])
    return True  # an assertion, the empty pattern


def compile_tree(tree: Node, reverse: bool = False) -> Program:
    """The program for ``tree``: forward with the captures (slot 2k and 2k+1 for group k, 0 and
    1 for the whole match), or reversed without them."""
    c = _Compiler(reverse)
    body = c.node(tree)
    if reverse:
        start, holes = body
    else:
        start, holes = c.cat([c.one(SAVE, 0), body, c.one(SAVE, 1)])
    c.patch(holes, c.emit(MATCH))
    c.p.start = start
    c.p.kinds = frozenset(a for o, a in zip(c.p.op, c.p.arg, strict=True) if o == EMPTY)
    return c.p
