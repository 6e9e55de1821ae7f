"""Where a value was split across lines: the joints views.py takes out, and whole.py crosses.

Agents and terminals cut long values: between string literals joined by implicit or explicit
concatenation ("abc"\\n "def", "abc" + "def"), at a shell line continuation (abc\\<newline>def),
in a block of lines that each hold one token (``fold -w N``, a base64 blob cut into lines, a YAML
folded block), and where a terminal pane, a log viewer or ``fold`` hard-wraps a long line: the
line is exactly as wide as the pane and the value runs on at the start of the next line, flush
left, indented (often like the first line) or behind a continuation mark (↪). A joint is
``(start, end, replacement)``: the characters that join the pieces, and what they read as once
taken out ("", or " " where the wrap fell on a space).
"""

from __future__ import annotations

import itertools
import operator
import re
import unicodedata

from jevlin_hooks.privacy.regex import UNANCHORED, compile_bytes

Joint = tuple[int, int, str]

TOKEN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~%")
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
# Widths panes, viewers and tools wrap at (fold's default, base64's, PEM's, common panes); any
# other width counts once two lines in a row are exactly that wide (a value wrapped onto three
# lines or more, `fold -w 57`), and then every line of that width in the text does.
WRAP_WIDTHS = frozenset((64, 76, 80, 100, 120, 132, 160))
_RUN_WIDTH_MIN = 40
# What a viewer may put before a wrapped line's continuation (in the one-byte view, \x1a).
CONTINUATION_MARKS = frozenset("↪↳⤷⮑⏎»")
# what a value's pieces are read as for _secretish: a password holds @ : ! and the like too
_VALUE_BYTES = frozenset(range(33, 127)) - frozenset(b"\"'`\\")
# what a wrapped line may end with and its continuation start with: a value's characters, not the
# punctuation that ends or opens a line of code, a list or a comment
_WRAP_END = _VALUE_BYTES - frozenset(b",;{[(<")
_WRAP_START = _VALUE_BYTES - frozenset(b"}])>,;")
_SECRETISH_MIN = 12
# a line that starts a record of its own, not a wrapped value's next piece: KEY=value, an empty
# KEY= or key_name=, key: value, a timestamp (env dumps, YAML and logs printed indented, a diff's
# context lines); a base64 piece's = stays a piece's
_RECORD_START = re.compile(rb"[+\-]?(?:[A-Za-z_][A-Za-z0-9_.\-]+(?:=[^=\s]|:(?:[ \t]|$))"
                           rb"|(?:[A-Z][A-Z0-9_]*|[a-z][a-z0-9]*_[a-z0-9_]*)=[ \t]*\r?$)"
                           rb"|\d{4}-\d\d-\d\d[T ]|\d\d:\d\d:\d\d", re.M)


def joints(text: str, view: bytes) -> list[Joint]:
    """Every joint in the text, ascending and apart."""
    n = len(view)
    cuts: list[Joint] = []
    at = 0
    match = _JOINT_RX.Match
    while at < n:
        sp = match(UNANCHORED, view, at, n)
        a, b = sp[0]
        if a < 0:
            break
        at = b if b > a else a + 1
        if sp[1][0] >= 0:  # string pieces: the same quote, token characters outside
            if view[a] == view[b - 1] and a > 0 and b < n and view[a - 1] in TOKEN_BYTES and view[b] in TOKEN_BYTES:
                cuts.append((a, b, ""))
        elif sp[2][0] >= 0:
            cuts.append((sp[2][0], sp[2][1], ""))
        else:
            nl, indent2 = sp[4], sp[5]
            if sp[3][1] - sp[3][0] == indent2[1] - indent2[0] and not _RECORD_START.match(view, indent2[1]):
                cuts.append((nl[0], indent2[1], ""))
            at = nl[1]  # the second line may start the next pair
    cuts.extend(wraps(text, view))
    cuts.sort()
    out: list[Joint] = []
    for c in cuts:
        if not out or c[0] >= out[-1][1]:
            out.append(c)
    return out


def wraps(text: str, view: bytes) -> list[Joint]:
    """A hard wrap: a line exactly as wide as the pane (see WRAP_WIDTHS) that ends in a token
    character, and a next line that goes on with one after its indentation and continuation mark,
    where the two pieces read together look like a value, not like two words (_secretish). The
    line's width is counted in characters, or in terminal columns where it holds wide (CJK)
    characters."""
    lines = view.split(b"\n")
    if len(lines) < 2:
        return []
    lens = list(map(len, lines))
    widths = set(WRAP_WIDTHS)
    # runs of equal widths, found in C: lens[i] == lens[i + 1]
    widths.update(w for w in itertools.compress(lens, map(operator.eq, lens, lens[1:])) if w >= _RUN_WIDTH_MIN)
    # where line i ends is the sum of the lengths up to it plus its i line breaks
    upto = list(itertools.accumulate(lens))
    candidates = [(i, lens[i]) for i in itertools.compress(range(len(lens) - 1), map(widths.__contains__, lens))]
    if not text.isascii():
        longest = max(widths)
        for i in range(len(lens) - 1):
            if lens[i] < longest and 26 in lines[i]:
                cols = _columns(text, upto[i] + i - lens[i], upto[i] + i)
                if cols in widths:
                    candidates.append((i, cols))
        candidates.sort()
    # A pane indents every continuation alike. Its indentation at a width: the least of the
    # lines that follow a line that wide, where they are wrapped in turn, or where they are
    # indented at all (a flush-left line after the last piece may start the next record); one
    # space is a value's own space, no pane's indentation. A continuation indented more than its
    # pane's indentation goes on after a space: the joint reads " " (Bearer⏎ sk-...).
    blocks: list[list[tuple[int, int]]] = []
    for c in candidates:
        if blocks and c == (blocks[-1][-1][0] + 1, blocks[-1][-1][1]):
            blocks[-1].append(c)
        else:
            blocks.append([c])
    seen: dict[int, list[int]] = {}
    for block in blocks:
        starts = [upto[i] + i + 1 for i, _ in block]
        indents = [_content_start(text, view, a) - a for a in starts]
        seen.setdefault(block[0][1], []).extend(d for k, (a, d) in enumerate(zip(starts, indents, strict=True))
                                                if (k + 1 < len(indents) or d > 0) and view[a:a + d] != b" ")
    pane = {w: min(ds, default=0) for w, ds in seen.items()}
    out: list[Joint] = []
    for block in blocks:
        for i, width in block:
            end = upto[i] + i
            p = _content_start(text, view, end + 1)
            if lens[i] and _next_piece(text, view, end, p):
                out.append((end, p, " " if p - end - 1 > pane[width] else ""))
    return out


def continues(text: str, view: bytes, end: int) -> int | None:
    """For a secret's cut that reaches the end of a line (whole.py): where the value's next piece
    starts on the next line, when the line looks hard-wrapped at a width that nothing else in the
    text shows: 40 columns or more, and no line within two of it is wider (a pane's lines are no
    wider than the one it wrapped), and the next line goes on as a wrapped piece does."""
    if end >= len(view) or view[end] != 10:
        return None
    start = view.rfind(b"\n", 0, end) + 1
    width = _width(text, view, start, end)
    if width < _RUN_WIDTH_MIN:
        return None
    lo = start
    for _ in range(2):
        lo = view.rfind(b"\n", 0, max(0, lo - 1)) + 1
    hi = end
    for _ in range(3):
        nxt = view.find(b"\n", hi + 1)
        hi = len(view) if nxt < 0 else nxt
    at = lo
    while at < hi:
        stop = view.find(b"\n", at)
        stop = hi if stop < 0 or stop > hi else stop
        if _width(text, view, at, stop) > width:
            return None
        at = stop + 1
    p = _content_start(text, view, end + 1)
    q = p
    while q < len(view) and view[q] in TOKEN_BYTES:
        q += 1
    piece = view[p:q]
    # without a width to go by, the next line must start as a random value's piece does, not as
    # a name (SESSION_COOKIE_NAME, HF_TOKEN): letters and digits, or both cases
    if len(piece) < 6 or not (piece.upper() != piece != piece.lower() or any(c in b"0123456789" for c in piece)
                              and any(65 <= c <= 90 or 97 <= c <= 122 for c in piece)):
        return None
    return p if _next_piece(text, view, end, p) else None


def _content_start(text: str, view: bytes, p: int) -> int:
    """Where a line's content starts: after its indentation and a continuation mark (↪)."""
    n = len(view)
    while p < n and view[p] in b" \t":
        p += 1
    if p < n and view[p] == 26 and text[p] in CONTINUATION_MARKS:
        p += 1
        if p < n and view[p] == 32:
            p += 1
    return p


def _next_piece(text: str, view: bytes, end: int, p: int) -> bool:
    """Whether the next line's content, starting at ``p``, reads as the next piece of a value cut
    at the line end ``end``: the line ends and the next goes on in a value's characters, the two
    read together look like a value (_secretish), and the next line does not start a record of
    its own (_RECORD_START) or a comment."""
    if end == 0 or end >= len(view) or view[end - 1] not in _WRAP_END:
        return False
    return not (p >= len(view) or view[p] not in _WRAP_START or (view[p] == 35 and view[p + 1:p + 2] in (b" ", b"\t", b"\n", b""))
                or not _secretish(view, end, p) or _RECORD_START.match(view, p))


def _width(text: str, view: bytes, start: int, end: int) -> int:
    """A line's width: its characters, or its terminal columns where it holds wide characters."""
    return end - start if 26 not in view[start:end] else _columns(text, start, end)


def _secretish(view: bytes, end: int, start: int) -> bool:
    """Whether the token run ending the line and the one starting its continuation, read together,
    look like a value: 12 characters or more with a digit, a capital after the first letter, or
    one of + / = _ - %  (two words of prose cut by a pane's edge do not)."""
    a = end
    while a > 0 and view[a - 1] in _VALUE_BYTES and end - a < 64:
        a -= 1
    b = start
    while b < len(view) and view[b] in _VALUE_BYTES and b - start < 64:
        b += 1
    joined = view[a:end] + view[start:b]
    if len(joined) < _SECRETISH_MIN:
        return False
    tail = joined[1:]
    return (any(c in b"0123456789+/=_-%" for c in joined) or tail.lower() != tail)


def _columns(text: str, start: int, end: int) -> int:
    """How many terminal columns text[start:end] takes: two for a wide (East Asian) character."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text[start:end])
