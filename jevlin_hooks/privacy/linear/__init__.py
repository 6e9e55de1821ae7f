"""A regular-expression engine in pure Python with RE2's syntax, semantics and time bound.

privacy/regex.py uses it where google-re2 cannot be imported (no wheel for the platform): the
scrubber must never pass text through unscrubbed, nor hang on hostile text, because a native
package is missing. Like RE2 it never backtracks: a search reads each byte of the text once
through a lazily built DFA (dfa.py), so its time is linear in the text whatever the pattern and
the input; the groups of a match come from an NFA run over the match alone. It gives the same
matches and groups as RE2 on the scrubber's patterns (tests/test_platform_fallbacks.py holds it
to that on every corpus); it is slower (docs/platforms.md has the figures).

:func:`compile` gives an object with the part of RE2's low-level interface the scrubber calls:
``Match(anchor, data, start, end)`` on UTF-8 (or one-byte) bytes, ``NumberOfCapturingGroups()``
and ``ProgramSize()``. As in RE2, a match lies inside [start, end] while ``^``, ``$`` and
``\\b`` see the whole of ``data``.
"""

from __future__ import annotations

from jevlin_hooks.privacy.linear.dfa import DFA
from jevlin_hooks.privacy.linear.groups import Groups
from jevlin_hooks.privacy.linear.program import Program, compile_tree
from jevlin_hooks.privacy.linear.syntax import Error, parse

UNANCHORED, ANCHOR_START, ANCHOR_BOTH = 0, 1, 2

__all__ = ["ANCHOR_BOTH", "ANCHOR_START", "UNANCHORED", "Error", "Regex", "compile"]


class Regex:
    """A compiled pattern (see the module's docstring)."""

    def __init__(self, pattern: str) -> None:
        self._tree, self._groups = parse(pattern)
        self._none = [(-1, -1)] * (self._groups + 1)
        # compiled on first use: a scrubber compiles 200 patterns, and most texts need few of them
        self._forward: Program | None = None
        self._dfas: tuple[DFA, DFA, DFA] | None = None
        self._pike: Groups | None = None

    def _program(self) -> Program:
        if self._forward is None:
            self._forward = compile_tree(self._tree)
        return self._forward

    def _searchers(self) -> tuple[DFA, DFA, DFA]:
        """Leftmost-first forward (where a match ends), every thread forward (does a match end
        exactly here?) and backward (where it starts)."""
        if self._dfas is None:
            p = self._program()
            self._dfas = (DFA(p, reverse=False, cut=True), DFA(p, reverse=False, cut=False),
                          DFA(compile_tree(self._tree, reverse=True), reverse=True, cut=False))
        return self._dfas

    def NumberOfCapturingGroups(self) -> int:  # noqa: N802 - RE2's name
        return self._groups

    def ProgramSize(self) -> int:  # noqa: N802 - RE2's name
        return len(self._program())

    def Match(self, anchor: int, data: bytes, start: int, end: int) -> list[tuple[int, int]]:  # noqa: N802
        """The match inside data[start:end] (see the module's docstring): (start, end) of the match
        and of each group, (-1, -1) for a group that took no part; all (-1, -1) for no match."""
        end = min(end, len(data))
        if start > end:
            return self._none
        first, every, backward = self._dfas or self._searchers()
        if anchor == ANCHOR_BOTH:
            s, e = start, end
            if not self._groups:
                return [(s, e)] if every.exactly(data, s, e) else self._none
        else:
            e = first.forward(data, start, end, unanchored=anchor == UNANCHORED)
            if e < 0:
                return self._none
            s = backward.backward(data, e, start) if anchor == UNANCHORED else start
            if not self._groups:
                return [(s, e)]
        if self._pike is None:
            self._pike = Groups(self._program(), 2 * self._groups + 2)
        slots = self._pike.slots_of(data, s, e)
        if slots is None:
            return self._none
        return [(slots[2 * k], slots[2 * k + 1]) if slots[2 * k] >= 0 else (-1, -1) for k in range(self._groups + 1)]


def compile(pattern: str) -> Regex:  # noqa: A001 - the name RE2's and re's modules use
    """``pattern`` (RE2 syntax) compiled; Error if RE2 would refuse it or this engine lacks a part of it."""
    return Regex(pattern)
