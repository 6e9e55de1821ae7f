"""The groups of a match whose span is known: RE2's NFA (a Pike VM) over the match alone.

Every thread advances in step, in priority order, each with its captures; where two reach the
same instruction the first (higher priority) goes on, so the captures are those of the
leftmost-first match, as RE2 reports them, in time linear in the match. Its steps are cached
like a DFA's: a state is a list of threads, and a step (from a state, the kinds of byte on either
side and the byte) says which threads go on, from which thread each comes and which capture slots
it sets on the way. A token's run of a thousand bytes then costs a dictionary look-up a byte.
"""

from __future__ import annotations

import threading
from typing import Any

from jevlin_hooks.privacy.linear.dfa import CTX, EDGE, HOLDS, right_of
from jevlin_hooks.privacy.linear.program import BYTE, EMPTY, MATCH, SAVE, SPLIT, Program


class Groups:
    """The capture slots of a program's matches (see the module's docstring)."""

    def __init__(self, p: Program, slots: int) -> None:
        self.p, self.slots = p, slots
        self._local = threading.local()

    def _tables(self) -> _Steps:
        got: _Steps | None = getattr(self._local, "t", None)
        if got is None or len(got.steps) > _MAX_STEPS:
            got = self._local.t = _Steps()
        return got

    def slots_of(self, data: bytes, s: int, e: int) -> list[int] | None:
        """The capture slots of the leftmost-first match that spans exactly [s, e], or None."""
        t = self._tables()
        ids, keys, steps = t.ids, t.keys, t.steps
        sid = ids.setdefault((self.p.start,), len(keys))
        if sid == len(keys):
            keys.append((self.p.start,))
        caps: list[tuple[int, ...]] = [(-1,) * self.slots]
        left = CTX[data[s - 1]] if s > 0 else EDGE
        for i in range(s, e):
            b = data[i]
            right = CTX[b]
            key = ((sid * 4 + left) * 4 + right) * 256 + b
            got = steps.get(key)
            if got is None:
                got = steps[key] = self._step(ids, keys, sid, left, right, b)
            sid, moves = got
            if not sid:
                return None
            if moves is not None:
                caps = [caps[src] if not saves else _saved(caps[src], saves, i) for src, saves in moves]
            left = right
        key = -1 - ((sid * 4 + left) * 4 + right_of(data, e))  # the closure at the end: its first MATCH
        match = steps.get(key, False)
        if match is False:
            match = steps[key] = _plan(self.p, keys[sid], left, right_of(data, e))[1]
        if match is None:
            return None
        src, saves = match
        return list(_saved(caps[src], saves, e))

    def _step(self, ids: dict[tuple[int, ...], int], keys: list[tuple[int, ...]], sid: int, left: int, right: int,
              b: int) -> tuple[int, Any]:
        waiting = _plan(self.p, keys[sid], left, right)[0]
        arg, out = self.p.arg, self.p.out
        nxt: dict[int, tuple[int, tuple[int, ...]]] = {}
        for pc, src, saves in waiting:
            if arg[pc][b] and out[pc] not in nxt:  # the first (highest priority) thread there wins
                nxt[out[pc]] = (src, saves)
        pcs = tuple(nxt)
        n = ids.setdefault(pcs, len(keys))
        if n == len(keys):
            keys.append(pcs)
        moves = tuple(nxt.values())
        same = all(src == k and not saves for k, (src, saves) in enumerate(moves))
        return n, None if same and len(moves) == len(keys[sid]) else moves


_MAX_STEPS = 50_000


class _Steps:
    """One thread's states of a Groups (pcs -> number, number -> pcs; 0: no thread left) and its steps."""

    def __init__(self) -> None:
        self.ids: dict[tuple[int, ...], int] = {(): 0}
        self.keys: list[tuple[int, ...]] = [()]
        self.steps: dict[int, Any] = {}


def _saved(caps: tuple[int, ...], saves: tuple[int, ...], i: int) -> tuple[int, ...]:
    out = list(caps)
    for k in saves:
        out[k] = i
    return tuple(out)


def _plan(p: Program, pcs: tuple[int, ...], left: int, right: int) -> tuple[list[tuple[int, int, tuple[int, ...]]], Any]:
    """The closure of threads ``pcs`` between bytes of kinds ``left`` and ``right``, as what to
    replay: each BYTE instruction reached (in priority order) with the thread it came from and
    the capture slots set on the way (to the position), and the first MATCH reached likewise."""
    op, out, out1, arg = p.op, p.out, p.out1, p.arg
    seen: set[int] = set()
    waiting: list[tuple[int, int, tuple[int, ...]]] = []
    match: Any = None
    stack: list[tuple[int, int, tuple[int, ...]]] = [(pc, src, ()) for src, pc in reversed(list(enumerate(pcs)))]
    while stack:
        pc, src, saves = stack.pop()
        if pc in seen:
            continue
        seen.add(pc)
        o = op[pc]
        if o == BYTE:
            waiting.append((pc, src, saves))
        elif o == SPLIT:
            stack.append((out1[pc], src, saves))
            stack.append((out[pc], src, saves))
        elif o == EMPTY:
            if HOLDS[arg[pc]][left][right]:
                stack.append((out[pc], src, saves))
        elif o == SAVE:
            stack.append((out[pc], src, saves + (arg[pc],)))
        elif o == MATCH:
            if match is None:
                match = (src, saves)
        else:
            stack.append((out[pc], src, saves))
    return waiting, match
