"""Aho-Corasick: every occurrence of many words in one linear pass (ahocorasick-rs).

The keyword gate (engine/) and the counting-run test (heuristics.py) take it from here, so that
another implementation goes behind the same name. :func:`build` gives an object with
ahocorasick-rs's own interface, which the callers use directly (a Python wrapper would cost a
call per value checked): ``find_matches_as_indexes(text, overlapping=False)`` -> ``[(word index,
start, end)]`` in characters, and UnicodeEncodeError on a text holding a lone surrogate.

Where ahocorasick-rs cannot be imported (no wheel for the platform: docs/platforms.md),
:class:`Automaton` gives the same answers in pure Python, in the same order (tests hold it to
ahocorasick-rs's on random words and texts): the standard automaton (a trie with failure links),
one step a character, so still linear in the text, at a fraction of the Rust crate's speed.
"""

from __future__ import annotations

from collections import deque
from typing import Any

try:
    import ahocorasick_rs
except ImportError:  # no ahocorasick-rs for this platform (docs/platforms.md): Automaton below
    ahocorasick_rs = None  # type: ignore[assignment]

ENGINE = "ahocorasick-rs" if ahocorasick_rs is not None else "python"


def build(words: list[str]) -> Any:
    """An automaton over ``words`` (standard match semantics, so overlapping matches can be asked for)."""
    if ahocorasick_rs is not None:
        return ahocorasick_rs.AhoCorasick(words, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)
    return Automaton(words)


class Automaton:
    """ahocorasick-rs's AhoCorasick (standard match kind) in pure Python.

    Matches come in the crate's order. Overlapping: by end, and at one end the longest first
    (the state's own word, then those of its failure chain), equal words by index.
    Non-overlapping (the standard semantics): the first match to end, the longest of those, and
    the search starts again where it ended."""

    def __init__(self, words: list[str]) -> None:
        if any(not w for w in words):
            raise ValueError("You passed in an empty string as a pattern")
        self._lengths = [len(w) for w in words]
        goto: list[dict[str, int]] = [{}]
        own: list[list[int]] = [[]]
        for k, w in enumerate(words):
            s = 0
            for ch in w:
                nxt = goto[s].get(ch)
                if nxt is None:
                    nxt = goto[s][ch] = len(goto)
                    goto.append({})
                    own.append([])
                s = nxt
            own[s].append(k)
        fail = [0] * len(goto)
        out: list[tuple[int, ...]] = [tuple(x) for x in own]
        order = deque(goto[0].values())  # depth 1: they fail to the root
        while order:  # breadth first: a state's failure state is shallower, so done already
            s = order.popleft()
            for ch, t in goto[s].items():
                order.append(t)
                f = fail[s]
                while f and ch not in goto[f]:
                    f = fail[f]
                fail[t] = goto[f].get(ch, 0)
                out[t] = tuple(own[t]) + out[fail[t]]
        self._goto, self._fail, self._out = goto, fail, out
        self._alphabet = frozenset(ch for w in words for ch in w)

    def _next(self, s: int, ch: str) -> int:
        goto, fail = self._goto, self._fail
        while True:
            t = goto[s].get(ch)
            if t is not None:
                return t
            if not s:
                return 0
            s = fail[s]

    def find_matches_as_indexes(self, text: str, overlapping: bool = False) -> list[tuple[int, int, int]]:
        if not text.isascii():
            text.encode("utf-8")  # a lone surrogate: UnicodeEncodeError, as the crate raises
        found: list[tuple[int, int, int]] = []
        out, lengths, alphabet, step = self._out, self._lengths, self._alphabet, self._next
        s = 0
        for i, ch in enumerate(text):
            if ch not in alphabet:
                s = 0
                continue
            s = step(s, ch)
            hits = out[s]
            if hits:
                end = i + 1
                if overlapping:
                    found.extend((k, end - lengths[k], end) for k in hits)
                else:
                    found.append((hits[0], end - lengths[hits[0]], end))
                    s = 0
        return found
