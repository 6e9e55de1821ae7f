"""Secrets split across lines: found once the pieces of a value are put back together.

Agents and terminals cut long values: between string literals joined by implicit or explicit
concatenation ("abc"\\n "def", "abc" + "def"), at a shell line continuation (abc\\<newline>def),
and at a terminal's hard wrap (a line of exactly 80, 100 or 120 characters running on). Around
each such joint the text is also read with the joint taken out, and what crosses a joint maps back
to the original text (covering both pieces and the joint).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable

from jevlin_hooks.privacy.engine.findings import Finding
from jevlin_hooks.privacy.regex import UNANCHORED, compile_bytes

_TOKB = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~")
# Found with RE2 on the one-byte view (Python's re tried every position of 32 KiB), checked in Python:
# - a quote, what may sit between two pieces of one literal ("abc" "def", "abc" +\n "def",
#   "abc" f"def"), a quote;
# - a shell line continuation (abc\<newline>def);
# - a line holding one token, then a line holding one token at the same indentation (a token wrapped
#   in a YAML folded block, a base64 blob cut into lines; not KEY=value lines of an env file).
_JOINT_RX = compile_bytes(
    r"""(["'])[ \t]*(?:\+[ \t]*)?(?:\\[ \t]*)?(?:\r?\n[ \t]*(?:\+[ \t]*)?)?[rbfuRBFU]{0,2}["']"""
    r"""|(\\\r?\n[ \t]*)"""
    r"""|(?m:^([ \t]*)[A-Za-z0-9+/_\-.~]{8,}(\r?\n)([ \t]*)[A-Za-z0-9+/_\-.~]{4,}={0,2}[ \t]*\r?$)""")
_WRAP_WIDTHS = frozenset((80, 100, 120))
_JOINT_WINDOW = 256


def joints(text: str, view: bytes) -> list[tuple[int, int]]:
    n = len(view)
    cuts: list[tuple[int, int]] = []
    at = 0
    match = _JOINT_RX.Match
    while at < n:
        sp = match(UNANCHORED, view, at, n)
        a, b = sp[0]
        if a < 0:
            break
        at = b if b > a else a + 1
        if sp[1][0] >= 0:  # string pieces: the same quote, token characters outside
            if view[a] == view[b - 1] and a > 0 and b < n and view[a - 1] in _TOKB and view[b] in _TOKB:
                cuts.append((a, b))
        elif sp[2][0] >= 0:
            cuts.append(sp[2])
        else:
            nl, indent2 = sp[4], sp[5]
            if sp[3][1] - sp[3][0] == indent2[1] - indent2[0]:
                cuts.append((nl[0], indent2[1]))
            at = nl[1]  # the second line may start the next pair
    # a terminal's hard wrap: a line of exactly 80, 100 or 120 characters running on
    # (on the one-byte view: a line's length in bytes is its length in characters, and a
    # non-ASCII character is no token character there either)
    lens = list(map(len, view.split(b"\n")))
    if not _WRAP_WIDTHS.isdisjoint(lens):
        # only the lines of those widths are looked at: where line i ends is the sum of the
        # lengths up to it plus its i line breaks (accumulate and compress run in C)
        upto = list(itertools.accumulate(lens))
        for i in itertools.compress(range(len(lens)), map(_WRAP_WIDTHS.__contains__, lens)):
            end = upto[i] + i
            if view[end - 1] in _TOKB and end + 1 < n and view[end + 1] in _TOKB:
                cuts.append((end, end + 1))
    return sorted(set(cuts))


def rejoined(text: str, off: set[str], view: bytes, find: Callable[[str, set[str], list[int]], list[Finding]]) -> list[Finding]:
    """Findings that exist only once the pieces of a split value are joined: each joint is cut
    out of a window around it, the window is scanned, and what crosses a joint maps back to the
    original text (covering both pieces and the joint)."""
    cuts = joints(text, view)
    if not cuts:
        return []
    cuts.sort()
    out: list[Finding] = []
    i = 0
    while i < len(cuts):
        w0 = max(0, cuts[i][0] - _JOINT_WINDOW)
        j = i
        while j + 1 < len(cuts) and cuts[j + 1][0] - _JOINT_WINDOW <= cuts[j][1] + _JOINT_WINDOW:
            j += 1
        w1 = min(len(text), cuts[j][1] + _JOINT_WINDOW)
        parts: list[str] = []
        marks: list[tuple[int, int]] = []  # (joined position of the cut, characters removed before it and by it)
        pos, removed = w0, 0
        for a, b in cuts[i:j + 1]:
            if a < pos:
                continue
            parts.append(text[pos:a])
            removed += b - a
            marks.append((a - w0 - (removed - (b - a)), removed))
            pos = b
        parts.append(text[pos:w1])
        joined = "".join(parts)

        def orig(jpos: int, marks: list[tuple[int, int]] = marks, w0: int = w0) -> int:
            k = bisect.bisect_right(marks, (jpos, 1 << 62)) - 1
            return w0 + jpos + (marks[k][1] if k >= 0 else 0)

        for f in find(joined, off, [jp for jp, _ in marks]):
            if any(f.start < jp < f.end for jp, _ in marks):
                out.append(Finding(f.rule, orig(f.start), orig(f.end - 1) + 1))
        i = j + 1
    return out
