"""Rules searched only on the lines that hold one of their keywords, or near one of their near words.

A rule's RE2 pass walks the whole text even where its keyword occurs on one line of 600;
anchored.py tells from a pattern whether every match lies on a line that holds a keyword (then
RE2 searches those lines, with the whole text around them as context, and finds the same
matches). In texts of ``windows_from`` bytes and more (below, a pass costs RE2 about what finding
the lines costs Python) the scrubber takes the keywords' positions from Hyperscan's anchor
database or from the automaton, and searches each such rule on the lines around them.
"""

from __future__ import annotations

from dataclasses import dataclass

from jevlin_hooks.privacy.checks import Check
from jevlin_hooks.privacy.engine import anchored
from jevlin_hooks.privacy.engine.patterns import Pattern
from jevlin_hooks.privacy.rules import Rule

# Left out: rules with a keyword in nearly every agent text (each occurrence costs a Hyperscan
# report, and the lines would be most of the text): per 32 KiB of bench/scrub_speed.py's mixes,
# `ac` 140, `id` 88, `key` 50, `s.` 43, `00` 39, `token` 24, `_id` 16, `auth` 15, `account` 7.
EVERYWHERE = frozenset(("ac", "id", "_id", "key", "s.", "00", "token", "auth", "account"))
NEAR_REACH = 64  # the look-back of a rule's near words (scan.near)


@dataclass(frozen=True)
class LinePlan:
    """Which rules are searched by lines: rule index -> its anchors (``windowed``: every match
    holds one and stays on its line) or its near words (``near_windowed``: the rule's check wants
    one in the 64 characters before the value, and its matches hold no line break); and gate
    word index -> the rules it anchors or is near for."""

    windowed: dict[int, tuple[str, ...]]
    near_windowed: dict[int, tuple[str, ...]]
    anchor_rules: dict[int, tuple[int, ...]]
    near_rules: dict[int, tuple[int, ...]]
    by_lines: frozenset[int]  # the keys of both


def plan(rules: tuple[Rule, ...], checks: list[Check | None], compiled: list[list[Pattern]], words: list[str],
         common: frozenset[str]) -> LinePlan:
    """Which rules are searched only on their keywords' lines (see anchored.py), with their anchors."""
    index = {w: i for i, w in enumerate(words)}
    windowed: dict[int, tuple[str, ...]] = {}
    near_windowed: dict[int, tuple[str, ...]] = {}
    by_word: dict[int, list[int]] = {}
    by_near: dict[int, list[int]] = {}
    for i, r in enumerate(rules):
        c = checks[i]
        located = c is not None and c.from_word is not None
        if not r.keywords or not r.pattern.isascii() or located or r.longest is not None or r.around_at_sign:
            continue
        anchors = tuple(r.keywords) + r.anchors
        if (not any(k in common or k in EVERYWHERE or k != k.lower() for k in anchors)
                and all(anchored.line_anchored(p.pattern, anchors) for p in compiled[i])):
            windowed[i] = anchors
            for w in anchors:
                by_word.setdefault(index[w], []).append(i)
        elif (r.near and all(w.isascii() and w == w.lower() and w not in EVERYWHERE for w in r.near)
              and all(anchored.within_lines(p.pattern) for p in compiled[i])):
            near_windowed[i] = r.near
            for w in r.near:
                by_near.setdefault(index[w], []).append(i)
    return LinePlan(windowed, near_windowed, {k: tuple(v) for k, v in by_word.items()},
                    {k: tuple(v) for k, v in by_near.items()}, frozenset(windowed) | frozenset(near_windowed))


def windows(p: LinePlan, view: bytes, hits: list[tuple[int, int, int]], selected: set[int],
            near_ok: bool) -> dict[int, list[tuple[int, int]]]:
    """For each selected rule searched by lines, where to search, merged where they touch: for
    a windowed rule, the lines that hold one of its anchors, each with the line breaks on either
    side (every match of the rule lies inside one of them, anchored.py); for a near-windowed one,
    the lines that the 64 characters after each of its near words reach (no match elsewhere has
    its word near enough to count)."""
    n = len(view)
    spans: dict[int, list[tuple[int, int]]] = {}
    line: dict[int, tuple[int, int]] = {}  # hit start -> its line, for words that anchor several rules
    for k, s, e in hits:
        rules = p.anchor_rules.get(k)
        if rules is not None:
            span = line.get(s)
            if span is None:
                b = view.find(b"\n", e)
                span = line[s] = (max(0, view.rfind(b"\n", 0, s)), n if b < 0 else b + 1)
            for i in rules:
                if i in selected:
                    spans.setdefault(i, []).append(span)
        rules = p.near_rules.get(k) if near_ok else None
        if rules is not None:
            b = view.find(b"\n", min(n, s + NEAR_REACH))
            span = (max(0, view.rfind(b"\n", 0, s + 1)), n if b < 0 else b + 1)
            for i in rules:
                if i in selected:
                    spans.setdefault(i, []).append(span)
    out: dict[int, list[tuple[int, int]]] = {}
    for i in p.by_lines.intersection(selected):
        got = spans.get(i)
        if i in p.near_windowed:
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
