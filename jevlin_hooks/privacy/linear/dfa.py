"""Searching with a program in time linear in the text: RE2's lazy DFA, and its NFA for groups.

A DFA state is the ordered list of the program's threads waiting for a byte (their BYTE
instructions, before the epsilon closure), what the byte before was (for ``^``, ``$``, ``\\b``:
the edge of the text, a newline, a word byte or another byte) and, when searching unanchored,
whether a match may still start later. Reading a byte takes the closure with both sides known,
then the byte: each state is worked out once, on first use, and cached (256 entries a state), so
a text costs one table look-up a byte whatever the pattern; RE2's DFA, in Python.

Leftmost-first (Perl's and RE2's choice between matches): the closure follows the threads in
priority order and stops at the first that matches, dropping the lower ones and the new starts.
The match ends where the last such cut happened; the reversed program, run backwards from there
and keeping every thread, finds the leftmost start. (Its groups: groups.py.)
"""

from __future__ import annotations

import re
import threading
from array import array
from typing import Any

from jevlin_hooks.privacy.linear.program import BYTE, EMPTY, MATCH, SPLIT, Program
from jevlin_hooks.privacy.linear.syntax import (
    BEGIN_LINE,
    BEGIN_TEXT,
    END_LINE,
    END_TEXT,
    NOT_WORD_BOUNDARY,
    WORD_BOUNDARY,
)

EDGE, NEWLINE, WORD, OTHER = range(4)  # what stands on one side of a position
_WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
CTX = bytes(NEWLINE if b == 10 else WORD if b in _WORD_BYTES else OTHER for b in range(256))
_MAX_STATES = 1000  # states a DFA keeps (half a KiB each) before it starts again
_UNKNOWN = array("h", [-1] * 256)


def _holds(kind: int, left: int, right: int) -> bool:
    if kind == BEGIN_TEXT:
        return left == EDGE
    if kind == END_TEXT:
        return right == EDGE
    if kind == BEGIN_LINE:
        return left <= NEWLINE
    if kind == END_LINE:
        return right <= NEWLINE
    if kind == WORD_BOUNDARY:
        return (left == WORD) != (right == WORD)
    assert kind == NOT_WORD_BOUNDARY, kind
    return (left == WORD) == (right == WORD)


HOLDS = tuple(tuple(tuple(_holds(k, a, b) for b in range(4)) for a in range(4)) for k in range(6))


def left_of(data: bytes, i: int) -> int:
    return CTX[data[i - 1]] if i > 0 else EDGE


def right_of(data: bytes, i: int) -> int:
    return CTX[data[i]] if i < len(data) else EDGE


def closure(p: Program, pcs: tuple[int, ...], left: int, right: int, cut: bool) -> tuple[list[int], bool]:
    """The BYTE instructions reached from ``pcs`` (in priority order) through empty steps, and
    whether MATCH was reached; with ``cut``, nothing after the first MATCH (leftmost-first)."""
    op, out, out1, arg = p.op, p.out, p.out1, p.arg
    seen: set[int] = set()
    chars: list[int] = []
    matched = False
    stack = list(reversed(pcs))
    while stack:
        pc = stack.pop()
        if pc in seen:
            continue
        seen.add(pc)
        o = op[pc]
        if o == BYTE:
            chars.append(pc)
        elif o == SPLIT:
            stack.append(out1[pc])
            stack.append(out[pc])
        elif o == EMPTY:
            if HOLDS[arg[pc]][left][right]:
                stack.append(out[pc])
        elif o == MATCH:
            matched = True
            if cut:
                break
        else:  # SAVE, NOP
            stack.append(out[pc])
    return chars, matched


class _Cache:
    """One thread's states of one DFA (a thread of the daemon's never shares them)."""

    def __init__(self) -> None:
        self.keys: list[Any] = [None]  # state 0: dead
        self.ids: dict[Any, int] = {}
        # a row per state, the next state for each byte (int16: a quarter of a list's memory)
        self.rows: list[array[int]] = [array("h", bytes(512))]  # the dead state's: dead
        self.idle: list[bool] = [False]
        self.loops: list[bytearray | None] = [None]  # the bytes known to lead a state back to itself
        self.counts: dict[int, int] = {}  # state -> how many loop bytes
        self.runs: dict[int, tuple[int, Any]] = {}  # state -> (how many loop bytes, the search past them)
        self.finals: dict[tuple[int, int], bool] = {}

    def full(self) -> bool:
        return len(self.keys) > _MAX_STATES


_RUN = 8  # bytes a state has led back to itself before the search jumps over the rest of the run


class DFA:
    """A lazily built DFA over a program: ``reverse`` reads the text backwards; ``cut`` makes it
    leftmost-first (else it keeps every thread: longest match).

    Two jumps keep the per-byte Python step off long stretches, as RE2 and Hyperscan jump with
    memchr: from the state where no thread runs yet, a C search for the next byte that can start
    a match; and from a state that keeps leading back to itself (inside a long token), a C search
    for the first byte not known to do so."""

    def __init__(self, p: Program, reverse: bool, cut: bool) -> None:
        self.p, self.reverse, self.cut = p, reverse, cut
        # what the states need to tell apart about the byte before: nothing without assertions,
        # word or not with only \b, all four otherwise
        if not p.kinds:
            self.ctxmap = (0, 0, 0, 0)
        elif p.kinds <= {WORD_BOUNDARY, NOT_WORD_BOUNDARY}:
            self.ctxmap = (OTHER, OTHER, WORD, OTHER)
        else:
            self.ctxmap = (EDGE, NEWLINE, WORD, OTHER)
        self._local = threading.local()
        self._skip: Any = None if reverse else False  # worked out on the first forward search

    def cache(self) -> _Cache:
        c: _Cache | None = getattr(self._local, "c", None)
        if c is None:
            c = self._local.c = _Cache()
        return c

    def state(self, c: _Cache, key: Any) -> int:
        sid = c.ids.get(key)
        if sid is None:
            sid = c.ids[key] = len(c.keys)
            c.keys.append(key)
            c.rows.append(array("h", _UNKNOWN))
            c.idle.append(not key[0] and key[2])
            c.loops.append(None)
        return sid

    def start(self, c: _Cache, ctx: int, unanchored: bool) -> int:
        return self.state(c, (() if unanchored else (self.p.start,), self.ctxmap[ctx], unanchored))

    def step(self, c: _Cache, s: int, b: int) -> tuple[_Cache, int]:
        """The transition from state ``s`` on byte ``b``: the next state, or -2 - the next state
        where a match ended (forward) or started (backward) just before the byte (-1 in a row: not
        worked out yet). A full cache starts again (as
        RE2's does when its DFA's memory is used up): memory stays bounded, and a text that makes a
        new state each byte costs a closure each byte, still linear; the cache is returned, the
        state numbers of the old one mean nothing in it."""
        pcs, ctx, restart = c.keys[s]
        bctx = CTX[b]
        left, right = (bctx, ctx) if self.reverse else (ctx, bctx)
        p = self.p
        chars, matched = closure(p, pcs + (p.start,) if restart else pcs, left, right, self.cut)
        if matched and self.cut:
            restart = False
        nxt: dict[int, None] = {}
        for pc in chars:
            if p.arg[pc][b]:
                nxt[p.out[pc]] = None
        if c.full():
            c = self._local.c = _Cache()
            s = 0  # not remembered: its row went with the old cache
        n = self.state(c, (tuple(nxt), self.ctxmap[bctx], restart)) if nxt or restart else 0
        t = -2 - n if matched else n
        if s:
            c.rows[s][b] = t
            if t == s:
                loops = c.loops[s]
                if loops is None:
                    loops = c.loops[s] = bytearray(256)
                    c.counts[s] = 0
                loops[b] = 1
                c.counts[s] += 1
        return c, t

    def run_end(self, c: _Cache, s: int, data: bytes, i: int, end: int) -> int:
        """The first position from ``i`` whose byte is not known to lead ``s`` back to itself
        (``end`` if none)."""
        loops = c.loops[s]
        if loops is None:
            return i
        count = c.counts[s]
        got = c.runs.get(s)
        if got is None or got[0] != count:
            members = b"".join(re.escape(bytes([x])) for x in range(256) if loops[x])
            got = c.runs[s] = (count, re.compile(b"[^" + members + b"]").search)
        m = got[1](data, i, end)
        return m.start() if m is not None else end

    def final(self, c: _Cache, s: int, edge: int) -> bool:
        """Whether a match ends (starts, backward) at the last position, ``edge`` beyond it."""
        got = c.finals.get((s, edge))
        if got is None:
            pcs, ctx, restart = c.keys[s]
            left, right = (edge, ctx) if self.reverse else (ctx, edge)
            got = c.finals[(s, edge)] = closure(self.p, pcs + (self.p.start,) if restart else pcs, left, right, False)[1]
        return got

    def forward(self, data: bytes, at: int, end: int, unanchored: bool) -> int:
        """Where the match found from ``at`` ends (inside [at, end]), or -1."""
        c = self.cache()
        if self._skip is False:
            self._skip = _skipper(self.p)
        skip = self._skip if unanchored else None
        s = self.start(c, left_of(data, at), unanchored)
        row = c.rows[s]
        last = -1
        i = at
        same = 0  # bytes in a row that led the state back to itself
        next_skip = at  # after a short jump the next is tried only further on
        while i < end:
            t = row[data[i]]
            if t == s:  # (the state's own number, no match: the common case)
                same += 1
                i += 1
                if same >= _RUN:
                    same = 0
                    i = self.run_end(c, s, data, i, end)
                continue
            if t == -1:
                c2, t = self.step(c, s, data[i])
                if c2 is not c:
                    c, s = c2, -1
                if t == s:
                    continue
            if t < 0:
                last = i
                n = -2 - t
            else:
                n = t
            if not n:
                return last
            i += 1
            if n != s:
                s, row, same = n, c.rows[n], 0
                if skip is not None and c.idle[n] and i >= next_skip and i < end:
                    m = skip(data, i, end)
                    j = m.start() if m is not None else end
                    if j - i < 16:
                        next_skip = j + 64
                    if j > i:
                        i = j
                        s = self.start(c, CTX[data[i - 1]], True)
                        row = c.rows[s]
            else:
                same += 1
        if self.final(c, s, right_of(data, end)):
            last = end
        return last

    def exactly(self, data: bytes, s: int, e: int) -> bool:
        """Whether a match spans exactly [s, e] (with every thread kept, ``cut`` False: a shorter
        match of higher priority must not hide it)."""
        c = self.cache()
        st = self.start(c, left_of(data, s), False)
        for i in range(s, e):
            t = c.rows[st][data[i]]
            if t == -1:
                c, t = self.step(c, st, data[i])
            st = t if t >= 0 else -2 - t
            if not st:
                return False
        return self.final(c, st, right_of(data, e))

    def backward(self, data: bytes, end: int, low: int) -> int:
        """The leftmost start (not before ``low``) of a match that ends at ``end``, or -1."""
        c = self.cache()
        s = self.state(c, ((self.p.start,), self.ctxmap[right_of(data, end)], False))
        row = c.rows[s]
        best = -1
        i = end
        same = 0
        flipped: bytes | None = None  # data[low:end] backwards, made for the first long run
        while i > low:
            if same >= _RUN:
                same = 0
                if flipped is None:
                    flipped = data[low:end][::-1]
                i = end - self.run_end(c, s, flipped, end - i, end - low)
                if i == low:
                    break
            b = data[i - 1]
            t = row[b]
            if t == -1:
                c2, t = self.step(c, s, b)
                if c2 is not c:
                    c, s = c2, -1
            if t < 0:
                best = i
                n = -2 - t
            else:
                n = t
            if n == s:
                same += 1
            else:
                if not n:
                    return best
                s, row, same = n, c.rows[n], 0
            i -= 1
        if self.final(c, s, left_of(data, low)):
            best = low
        return best


def _skipper(p: Program) -> Any:
    """A search for the next byte a match can start with (a C-speed jump over the rest), or None
    where that is nearly any byte or the pattern can match the empty string."""
    seen: set[int] = set()
    first = bytearray(256)
    stack = [p.start]
    while stack:
        pc = stack.pop()
        if pc in seen:
            continue
        seen.add(pc)
        o = p.op[pc]
        if o == MATCH:
            return None
        if o == BYTE:
            first = bytearray(map(max, first, p.arg[pc]))
        elif o == SPLIT:
            stack += (p.out[pc], p.out1[pc])
        else:
            stack.append(p.out[pc])
    members = bytes(b for b in range(256) if first[b])
    if len(members) > 192:
        return None
    return re.compile(b"[" + b"".join(re.escape(bytes([b])) for b in members) + b"]").search if members else \
        re.compile(b"(?!)").search
