"""Aho-Corasick: every occurrence of many words in one linear pass (ahocorasick-rs).

The keyword gate (engine/) and the counting-run test (heuristics.py) take it from here, so that
another implementation (a fallback where ahocorasick-rs has no wheel) goes behind the same name.
:func:`build` gives an object with ahocorasick-rs's own interface, which the callers use
directly (a Python wrapper would cost a call per value checked): ``find_matches_as_indexes(text,
overlapping=False)`` -> ``[(word index, start, end)]`` in characters, and UnicodeEncodeError on a
text holding a lone surrogate.
"""

from __future__ import annotations

from typing import Any

import ahocorasick_rs


def build(words: list[str]) -> Any:
    """An automaton over ``words`` (standard match semantics, so overlapping matches can be asked for)."""
    return ahocorasick_rs.AhoCorasick(words, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)
