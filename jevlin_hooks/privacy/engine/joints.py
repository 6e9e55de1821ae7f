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

import bisect
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
# Widths panes and viewers wrap at (and fold's default); any other width counts once two lines in
# a row are exactly that wide, the first cut inside a value (a value wrapped onto three lines or
# more, `fold -w 57`), and then every line of that width in the text does. (base64 and PEM
# bodies, 64 and 76 wide, are blocks of one-token lines: _JOINT_RX's third part.)
WRAP_WIDTHS = frozenset((80, 100, 120, 132, 160))
_RUN_WIDTH_MIN = 40
# What a viewer may put before a wrapped line's continuation (in the one-byte view, \x1a).
CONTINUATION_MARKS = frozenset("↪↳⤷⮑⏎»")
# what a value's pieces are read as for _secretish: a password holds @ : ! and the like too
_VALUE_BYTES = frozenset(range(33, 127)) - frozenset(b"\"'`\\")
_VALUE_BEFORE = re.compile(rb"[!#-&(-\[\]-_a-~]{1,64}$")  # a run of _VALUE_BYTES ending where it is searched to (value_before)
_VALUE_AFTER = re.compile(rb"[!#-&(-\[\]-_a-~]{1,64}")
_TOKEN_AFTER = re.compile(rb"[A-Za-z0-9+/=_\-.~%]+")


def _value_before(view: bytes, end: int) -> bytes:
    """``_VALUE_BEFORE.search(view, max(0, end - 64), end)``'s text (b"" for none) without the
    search: re tries each of the 64 starts and walks each run to its end (a line of prose ending
    in a token costs it some 2,000 steps). The run of _VALUE_BYTES ending at ``end``, at most 64
    long; $ also matches before a line break that ends the range, as it does there."""
    lo = max(0, end - 64)
    if end > lo and view[end - 1] == 10:
        end -= 1
    s = end
    while s > lo and view[s - 1] in _VALUE_BYTES:
        s -= 1
    return view[s:end]
# what a wrapped line may end with and its continuation start with: a value's characters, not the
# punctuation that ends or opens a line of code, a list or a comment
_WRAP_END = _VALUE_BYTES - frozenset(b",;{[(<")
_WRAP_START = _VALUE_BYTES - frozenset(b"}])>,;")
# a line cut inside a word or a value ends in one of these, not in a sentence's or a line's
# punctuation (for the widths two lines show)
_CUT_END = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_SECRETISH_MIN = 12
# a line that starts a record of its own, not a wrapped value's next piece: KEY=value, an empty
# KEY= or key_name=, key = value, a bare ENV_NAME, key: value, a timestamp, a list's bullet, a
# shell prompt, a table's row (| cell |: Markdown tables and PaaS CLIs' boxes) (env dumps, YAML
# and logs printed indented, a diff's context lines); a base64
# piece's = stays a piece's. A bare name with two runs of digits that letters part (NT6C4P_L) is
# a random value's last piece: names put a digit or two in a word (S3, K8S, OAUTH2), not so.
_RECORD_START = re.compile(rb"[+\-]?(?:[A-Za-z_][A-Za-z0-9_.\-]+(?:=[^=\s]|[ \t]+:?=[ \t]|:(?:[ \t]|$))"
                           rb"|(?:[A-Z][A-Z0-9_]*|[a-z][a-z0-9]*_[a-z0-9_]*)=[ \t]*\r?$"
                           rb"|(?![A-Z0-9_]*[0-9][A-Z]+[0-9])[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:[ \t]|\r?$))"
                           rb"|\d{4}-\d\d-\d\d[T ]|\d\d:\d\d:\d\d|(?:[-*+>$%#|]|\d{1,3}[.)])[ \t]", re.M)

# a checksum tool's line (md5sum, sha256sum, shasum: a digest of one of the usual lengths, then
# the file's name) starts a record of its own, as a line of `ls` does
_DIGEST_LINE = re.compile(rb"(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{56}|[0-9a-f]{64}|[0-9a-f]{96}|[0-9a-f]{128}"
                          rb"|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64})[ \t]+\*?[^\s*]")


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
    """Hard wraps: a line exactly as wide as its pane, whose value goes on on the next line
    (_next_piece). The pane's width is one of WRAP_WIDTHS, or one that two lines in a row show,
    each cut inside a value; a line is counted in characters, or in terminal columns where it
    holds wide (CJK) characters. Found in C where it can be: a text pays a split and a few maps
    unless some line is as wide as a pane."""
    lines = view.split(b"\n")
    if len(lines) < 2:
        return []
    lens = list(map(len, lines))
    widths = set(WRAP_WIDTHS)
    for i in itertools.compress(range(len(lens) - 1), map(operator.eq, lens, lens[1:])):
        # two lines in a row as wide, the first cut inside a word or a value that the second goes
        # on with (not two log lines of one width: the second starts a record of its own)
        w = lens[i]
        if w >= _RUN_WIDTH_MIN and w not in widths and lines[i][-1] in _CUT_END:
            content = _after_indent(lines[i + 1])
            if content and content[0] in _WRAP_START and not _RECORD_START.match(content):
                widths.add(w)
    candidates = [(i, lens[i]) for i in itertools.compress(range(len(lens) - 1), map(widths.__contains__, lens))]
    ascii_only = text.isascii()
    if not candidates and ascii_only:
        return []
    # where line i ends is the sum of the lengths up to it plus its i line breaks
    upto = list(itertools.accumulate(lens))
    if not ascii_only:
        # a line holding wide characters, counted in columns: only where it could end inside a value
        # (each character outside ASCII, \x1a in the view, takes one column or two)
        ws = sorted(widths)
        # (the lines holding \x1a picked in C: a Python step for each of them, not for every line)
        holding = itertools.compress(range(len(lines) - 1), map(operator.contains, lines, itertools.repeat(26)))
        for i in [i for i in holding if lines[i][-1] in _WRAP_END]:
            n = lens[i]
            k = bisect.bisect_right(ws, n)  # the narrowest pane wider than n characters
            if k == len(ws) or ws[k] > n + lines[i].count(26):
                continue
            content = _after_indent(lines[i + 1])
            if not content or content[0] not in _WRAP_START or _RECORD_START.match(content):
                continue
            cols = _columns(text, upto[i] + i - n, upto[i] + i)
            if cols != lens[i] and cols in widths:
                candidates.append((i, cols))
        candidates.sort()
    if not candidates:
        return []
    out: list[Joint] = []
    pane: dict[int, int] = {}
    for i, width in candidates:
        # the cheap tests first: most lines as wide as a pane end a sentence or a row
        line, nxt = lines[i], lines[i + 1]
        content = _after_indent(nxt)
        if not line or line[-1] not in _WRAP_END or not content or content[0] not in _WRAP_START or _RECORD_START.match(content):
            continue
        end = upto[i] + i
        p = _content_start(text, view, end + 1)
        if not _next_piece(view, end, p):
            continue
        if width not in pane:
            pane[width] = _pane_indent(text, view, lines, [c for c in candidates if c[1] == width], upto)
        if p - end - 1 > pane[width]:
            out.append((end, p, " "))
        elif not _word_beside(_value_before(view, end), _VALUE_AFTER.match(view, p)):
            out.append((end, p, ""))
    return out


def _pane_indent(text: str, view: bytes, lines: list[bytes], candidates: list[tuple[int, int]], upto: list[int]) -> int:
    """A pane indents every continuation alike. Its indentation, from its ``candidates`` (the
    lines as wide as it): the least of the lines that follow one, where they are wrapped in turn,
    or where they are indented at all (a flush-left line after a value's last piece may start
    the next record); one space is a value's own space, no pane's indentation. A continuation
    indented more than its pane goes on after a space: its joint reads " " (Bearer⏎ sk-...)."""
    seen = []
    for k, (i, width) in enumerate(candidates):
        a = upto[i] + i + 1
        nxt = lines[i + 1]
        d = _content_start(text, view, a + len(nxt) - len(nxt.lstrip(b" \t"))) - a
        wrapped_in_turn = k + 1 < len(candidates) and candidates[k + 1] == (i + 1, width)
        if (wrapped_in_turn or d > 0) and (d != 1 or view[a] != 32):
            seen.append(d)
    return min(seen, default=0)


def _word_beside(before: bytes, after: re.Match[bytes] | None) -> bool:
    """Whether the pane cut between a value and a word of prose, or between two words: joined,
    a digest and the word after it would read as one random value. A word (the run of a value's
    characters either side of the cut): letters only, lower case after an optional capital; or
    all capitals, unless the other side is capitals and digits too (a base32 value's pieces).
    Before the cut, a short lower-case run is a value's prefix, not a word (Bearer glp⏎at-...)."""
    runs = [before, after.group() if after else b""]
    for k, run in enumerate(runs):
        if not run.isalpha():
            continue
        if run[1:].islower() and (k or run[0] < 97 or len(run) > 6):
            return True
        other = runs[1 - k]
        if run.isupper() and not (other.isupper() and other.isalnum()):
            return True
    return False


def continues(text: str, view: bytes, end: int) -> int | None:
    """For a secret's cut that reaches the end of a line (whole.py): where the value's next piece
    starts on the next line, when the line looks hard-wrapped at a width that nothing else in the
    text shows: the next line goes on as a random value's piece does (letters and digits, or
    both cases: not a name like SESSION_COOKIE_NAME), the line is 40 columns or more, and no line
    within two of it is wider (a pane's lines are no wider than the one it wrapped)."""
    if end >= len(view) or view[end] != 10:
        return None
    p = _content_start(text, view, end + 1)
    m = _TOKEN_AFTER.match(view, p)
    piece = m.group() if m else b""
    if len(piece) < 6 or not (piece.upper() != piece != piece.lower() or any(c in b"0123456789" for c in piece)
                              and any(65 <= c <= 90 or 97 <= c <= 122 for c in piece)):
        return None
    if not _next_piece(view, end, p):
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
    return p


def _after_indent(line: bytes) -> bytes:
    """A line of the one-byte view without its indentation and a mark (any non-ASCII character
    there: a cheap first test, _content_start tells a mark from a word)."""
    content = line.lstrip(b" \t")
    return content[1:].lstrip(b" ") if content[:1] == b"\x1a" else content


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


def _next_piece(view: bytes, end: int, p: int) -> bool:
    """Whether the next line's content, starting at ``p``, reads as the next piece of a value cut
    at the line end ``end``: the line ends and the next goes on in a value's characters, the next
    line does not start a record of its own (_RECORD_START) or a comment, and the two read
    together look like a value (_secretish)."""
    n = len(view)
    if end == 0 or end >= n or p >= n or view[end - 1] not in _WRAP_END or view[p] not in _WRAP_START:
        return False
    if (view[p] == 35 and view[p + 1:p + 2] in (b" ", b"\t", b"\n", b"")) or _RECORD_START.match(view, p):
        return False  # (# and a space: a comment)
    if _DIGEST_LINE.match(view, p):
        return False
    return _secretish(view, end, p)


def _width(text: str, view: bytes, start: int, end: int) -> int:
    """A line's width: its characters, or its terminal columns where it holds wide characters."""
    return end - start if 26 not in view[start:end] else _columns(text, start, end)


def _secretish(view: bytes, end: int, start: int) -> bool:
    """Whether the value run ending the line and the one starting its continuation, read
    together, look like a value: 12 characters or more with a digit, a capital after the first
    letter, or one of + / = _ - %  (two words of prose cut by a pane's edge do not)."""
    after = _VALUE_AFTER.match(view, start)
    joined = _value_before(view, end) + (after.group() if after else b"")
    if len(joined) < _SECRETISH_MIN:
        return False
    tail = joined[1:]
    return any(c in b"0123456789+/=_-%" for c in joined) or tail.lower() != tail


_BEYOND_LATIN = re.compile("[^\x00-\u10ff]")  # (no character below U+1100 is wide)


def _columns(text: str, start: int, end: int) -> int:
    """How many terminal columns text[start:end] takes: two for a wide (East Asian) character."""
    return end - start + sum(1 for c in _BEYOND_LATIN.findall(text, start, end) if unicodedata.east_asian_width(c) in "WF")
