"""Layers of encoding: the text as the rules should read it, each finding mapped back to the original.

A value often reaches the scrubber wrapped in some encoding: inside a JSON string (\\" \\n \\u00e9,
JSON in a JSON string escaped twice), as HTML or XML entities (&quot; &#x2F;), URL-encoded (%2F),
shell-quoted ('\\'' "\\"" $'...'), or cut across lines (joints.py). The rules are written for the
plain form. A *view* is the text with those units decoded (and the joints taken out) plus an edit
list that maps every position back; the same rules run on it, and each finding maps back to a
span of the original that covers every encoded character and every piece of a wrapped value.

A view is built only where its trigger occurs (a backslash, an & or a %, a shell quoting idiom, a
joint), and only the windows around its edits are searched, checking only the matches that hold an
edit (scan.run's ``across``): text without a trigger pays a few byte scans. What a view decodes
may hold another layer (JSON in JSON, a URL-encoded value in a JSON string): the view is decoded
again, up to MAX_DEPTH layers. Each part can be turned off by name, like a rule (see OFF).

A quote decoded inside a word (a password holding \\" or '\\'') reads as ” or ’ in the view, so
that the rules, which end a quoted value at a quote, see the value whole.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from jevlin_hooks.privacy.engine import joints as joints_
from jevlin_hooks.privacy.engine.findings import Finding
from jevlin_hooks.privacy.engine.text import one_byte_view

Edit = tuple[int, int, str]  # parent start, parent end, what it reads as in the view

# The parts, by the name that turns each off in `disabled_rules` (as a rule's name does).
JSON_ESCAPES = "decode-escapes"
ENTITIES = "decode-entities"
URL = "decode-url"
SHELL = "decode-shell-quoting"
JOINTS = "rejoin-lines"
OFF = (JSON_ESCAPES, ENTITIES, URL, SHELL, JOINTS)
MAX_DEPTH = 3
WINDOW = 128  # characters of context on either side of an edit: a key name and its value
TOKEN = 512  # how far a window's edge moves out so as not to cut a value
_BREAKS = " \n\t\"'`"  # what ends a value, for a window's edges
_VALUE_END = re.compile(r"[^\s\"'`]*")
SEP = "\n\x00\n"  # between the windows of a view searched together (as scrubber.FIELD_SEP between fields)

_ESCAPE = re.compile(r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})"
                     r"|\\([\"'\\/bfnrt])")
_SIMPLE = {"\"": "\"", "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
# shell: a quote inside a quoted word ('\'' and '"'"' inside single quotes, "\"" inside double
# ones), and ANSI-C quoting $'...' with its backslash escapes
_SHELL_QUOTES = (("'\\''", "'"), ("'\"'\"'", "'"), ("\"\\\"\"", "\""))
_ANSI_C_STRING = re.compile(r"\$'((?:[^'\\\n]|\\[^\n])*)'")
_ANSI_C = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|u[0-9A-Fa-f]{4}|[abefnrtv\\'\"?])")
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                "\\": "\\", "'": "’", "\"": "\"", "?": "?"}
# what cannot sit on either side of a quote inside a word: a quote ending a value sits next to one
_NOT_IN_WORD = frozenset(" \t\r\n\"'\\`{}[]()<>,:;=")
_NOT_IN_SHELL_WORD = frozenset(" \t\r\n\"'=")
_IN_WORD_QUOTE = {"\"": "”", "'": "’"}


@dataclass(frozen=True)
class Layer:
    """A view of its parent text: ``text``, and ``edits`` (view start, view end, parent start,
    parent end), ascending, for every place the two differ; ``joints``: the view positions
    where lines were joined (personal data is never read across one)."""

    text: str
    edits: list[tuple[int, int, int, int]]
    starts: list[int]
    joints: list[int]
    view: bytes = b""  # the text's one-byte view (engine/text.py), where the parent's was given

    def parent(self, start: int, end: int) -> tuple[int, int]:
        """A span of the view (not empty) as the span of the parent it was read from: a decoded
        unit it touches counts whole, a joint inside it too."""
        return self._at(start, 0), self._at(end - 1, 1)

    def _at(self, pos: int, end: int) -> int:
        """Where the view's character at ``pos`` starts in the parent (``end``=0) or ends (1)."""
        k = bisect.bisect_right(self.starts, pos) - 1
        if k < 0:
            return pos + end
        vs, ve, ps, pe = self.edits[k]
        if pos < ve:
            return pe if end else ps
        return pos + (pe - ve) + end

    def marks(self) -> list[int]:
        """Positions a match must hold one of (strictly inside it) to be read again: one either
        side of every edit, so that a match that holds an edit or only touches one (a token
        after a decoded space, a value after a decoded quote) is checked, and none other."""
        found: set[int] = set()
        add = found.update
        for vs, ve, _, _ in self.edits:
            add((vs - 1, vs, ve, ve + 1))
        found.discard(-1)  # (the only one below 0: an edit at the view's start)
        return sorted(found)


def layer(text: str, edits: list[Edit], joined: frozenset[int] = frozenset(), view: bytes | None = None) -> Layer:
    """The view of ``text`` with ``edits`` (ascending, apart) made; ``joined``: the parent starts
    of the edits that join two lines. ``view``: the text's one-byte view, where the caller has
    it: the layer's is made from it piece by piece (a character's byte does not depend on its
    neighbours), where the next layer would otherwise encode the whole text again."""
    parts: list[str] = []
    mapped: list[tuple[int, int, int, int]] = []
    joint_at: list[int] = []
    pos = v = 0
    for a, b, r in edits:
        parts.append(text[pos:a])
        v += a - pos
        mapped.append((v, v + len(r), a, b))
        if a in joined:
            joint_at.append(v)
        parts.append(r)
        v += len(r)
        pos = b
    parts.append(text[pos:])
    bytes_view = b""
    if view is not None:
        pieces: list[bytes] = []
        pos = 0
        for a, b, r in edits:
            pieces.append(view[pos:a])
            pieces.append(r.encode() if r.isascii() else one_byte_view(r))
            pos = b
        pieces.append(view[pos:])
        bytes_view = b"".join(pieces)
    return Layer("".join(parts), mapped, [m[0] for m in mapped], joint_at, bytes_view)


def _in_words(text: str, edits: list[tuple[int, int, str, str]]) -> list[Edit]:
    """``edits`` (start, end, part, decoded) with each decoded quote that sits inside a word (a
    character that can be part of a value on both sides, once decoded) read as ” or ’. A shell
    idiom is inside a word unless a space, = or a quote stands beside it: it quotes a quote
    inside a quoted string, and where the string is itself quoted again, its own quotes are
    structure."""
    out: list[Edit] = []
    for k, (a, b, part, r) in enumerate(edits):
        if r in _IN_WORD_QUOTE:
            prev = edits[k - 1] if k and edits[k - 1][1] == a else None
            nxt = edits[k + 1] if k + 1 < len(edits) and edits[k + 1][0] == b else None
            # (two idioms in a row quote two quotes of one word)
            before = "x" if prev and part == prev[2] == SHELL else prev[3][-1:] if prev else text[a - 1:a]
            after = "x" if nxt and part == nxt[2] == SHELL else nxt[3][:1] if nxt else text[b:b + 1]
            stops = _NOT_IN_SHELL_WORD if part == SHELL else _NOT_IN_WORD
            if before and after and before not in stops and after not in stops:
                r = _IN_WORD_QUOTE[r]
        out.append((a, b, r))
    return out


def _at_each(text: str, lead: str, rx: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """The matches of ``rx`` that start at an occurrence of ``lead``, found with str.find (re
    tries every position of a text: 0.5 ms a 32 KiB message whatever it holds)."""
    i = text.find(lead)
    while i >= 0:
        m = rx.match(text, i)
        if m is not None:
            yield m
            i = text.find(lead, m.end())
        else:
            i = text.find(lead, i + 1)


def escapes(text: str) -> list[Edit]:
    """JSON and C-style backslash escapes: \\" \\\\ \\/ \\n \\t ... and \\uXXXX, a surrogate pair as one character."""
    out: list[Edit] = []
    for m in _at_each(text, "\\", _ESCAPE):
        hi, lo, u, c = m.groups()
        if hi is not None:
            r = chr(0x10000 + ((int(hi, 16) - 0xD800) << 10) + int(lo, 16) - 0xDC00)
        elif u is not None:
            r = chr(int(u, 16))
        else:
            r = _SIMPLE[c]
        out.append((m.start(), m.end(), r))
    return out


def entities(text: str) -> list[Edit]:
    """HTML and XML character references: &quot; &amp; &#47; &#x2F; (a name HTML does not know stays)."""
    out: list[Edit] = []
    for m in _at_each(text, "&", _ENTITY):
        r = html.unescape(m.group())
        if r != m.group():
            out.append((m.start(), m.end(), r))
    return out


def percents(text: str) -> list[Edit]:
    """URL-encoding: each %XX, or the run of them that is one UTF-8 character, as that printable
    character (a run that is not UTF-8 is a %VAR% reference, not an encoding). A + stays a +: in
    the base64 values a URL carries it is part of the value (and whole.py keeps it in the cut)."""
    out: list[Edit] = []
    for m in _at_each(text, "%", _PERCENT):
        data = bytes.fromhex(m.group().replace("%", ""))
        at, i = m.start(), 0
        units: list[Edit] = []
        while i < len(data):
            size = 1 if data[i] < 0xC0 else 2 if data[i] < 0xE0 else 3 if data[i] < 0xF0 else 4
            try:
                r = data[i:i + size].decode("utf-8")
            except UnicodeDecodeError:
                units = []
                break
            if not (r.isprintable() or r in "\n\r\t"):
                units = []
                break
            end = at + 3 * size
            units.append((at, end, r))
            at, i = end, i + size
        out.extend(units)
    return out


def shell(text: str) -> list[Edit]:
    """Shell quoting: a quote inside a quoted word ('\\'' '"'"' "\\""), read as ’ or ” inside a
    word; ANSI-C strings $'...' with their escapes decoded (the $ goes, the quotes stay)."""
    out: list[Edit] = []
    for idiom, q in _SHELL_QUOTES:
        i = text.find(idiom)
        while i >= 0:
            out.append((i, i + len(idiom), q))
            i = text.find(idiom, i + len(idiom))
    for m in _at_each(text, "$'", _ANSI_C_STRING):
        out.append((m.start(), m.start() + 1, ""))
        base = m.start(1)
        for e in _ANSI_C.finditer(m.group(1)):
            c = e.group(1)
            if c[0] in "xu":
                r = chr(int(c[1:], 16))
            elif c[0] in "01234567":
                r = chr(int(c, 8) & 0xFF)
            else:
                r = _ANSI_SIMPLE[c]
            out.append((base + e.start(), base + e.end(), r))
    return sorted(out)


def _shell_trigger(v: bytes) -> bool:
    # Each idiom looked for from its rarest byte, found by memchr ($ and backslash: a few dozen a
    # message); a search for the two to five bytes themselves reads the whole text at ~4 ns a byte.
    return _occurs(v, (b"$'",), 0) or _occurs(v, (b"'\\''", b'"\\""'), 1) or _QUOTE_IDIOM.search(v) is not None


_QUOTE_IDIOM = re.compile(rb"'\"'\"'")  # ' and " may be thousands: re's literal search (memchr, then compare)
_OCCURS_STEPS = 64  # past this many of the lead byte, one plain search is cheaper than the loop


def _occurs(v: bytes, needles: tuple[bytes, ...], k: int) -> bool:
    """Whether one of ``needles`` (their byte ``k`` the same) occurs in ``v``:
    at each of that byte (memchr) compared in place (the two idioms led by a backslash in one
    walk over the backslashes)."""
    lead = needles[0][k]
    i = v.find(lead)
    for _ in range(_OCCURS_STEPS):
        if i < 0:
            return False
        if i >= k and v.startswith(needles, i - k):
            return True
        i = v.find(lead, i + 1)
    return i >= 0 and any(re.search(re.escape(n), v[i - k:]) is not None for n in needles)


# each part: its name, the byte test on the text's one-byte view that says it may have something
# to do (memchr-fast: a text without the trigger pays that alone), and its decoder
_DECODERS: tuple[tuple[str, Callable[[bytes], bool], Callable[[str], list[Edit]]], ...] = (
    (SHELL, _shell_trigger, shell),
    (JSON_ESCAPES, lambda v: b"\\" in v, escapes),
    (ENTITIES, lambda v: b"&" in v and b";" in v, entities),
    (URL, lambda v: b"%" in v, percents),
)


def decoded(text: str, off: set[str] | frozenset[str], view: bytes | None = None) -> list[Edit]:
    """Every unit of ``text`` that some part decodes, ascending, apart (where two overlap, the one
    that starts first, then the longer, then the part listed first, wins: '\\'' over \\').
    ``view``: the text's one-byte view, where the caller has it."""
    if view is None:
        view = one_byte_view(text)
    found: list[tuple[int, int, int, str]] = []
    for rank, (name, trigger, decode) in enumerate(_DECODERS):
        if name not in off and trigger(view):
            found.extend((a, -b, rank, r) for a, b, r in decode(text))
    if not found:
        return []
    found.sort()
    out: list[tuple[int, int, int, str]] = []
    for a, nb, rank, r in found:
        if not out or a >= out[-1][1]:
            out.append((a, -nb, rank, r))
    return _in_words(text, [(a, b, _DECODERS[rank][0], r) for a, b, rank, r in out])


def layers(text: str, view: bytes, off: set[str] | frozenset[str]) -> tuple[list[Layer], list[joints_.Joint]]:
    """The views of ``text``, each of the one before (the first: the joints taken out and the
    encoded units decoded; then what those held encoded in turn), and the joints."""
    found_joints = joints_.joints(text, view) if JOINTS not in off else []
    units = decoded(text, off, view)
    if found_joints:
        starts = {a for a, _, _ in found_joints}
        merged = sorted(found_joints + units)
        edits: list[Edit] = []
        for e in merged:
            if not edits or e[0] >= edits[-1][1]:
                edits.append(e)
        out = [layer(text, edits, frozenset(starts), view)]
    elif units:
        out = [layer(text, units, view=view)]
    else:
        return [], found_joints
    while len(out) < MAX_DEPTH:
        units = decoded(out[-1].text, off, out[-1].view)
        if not units:
            break
        out.append(layer(out[-1].text, units, view=out[-1].view if len(out) + 1 < MAX_DEPTH else None))
    return out, found_joints


FindAcross = Callable[[str, set[str], list[int]], list[Finding]]


def windows(lay: Layer) -> list[tuple[int, int, list[int]]]:
    """Where a view is searched: (start, end, its marks relative to start), WINDOW characters
    around its edits, each edge moved out to a space or a quote (up to TOKEN more) so that no
    value is cut in two, merged where they meet."""
    marks = lay.marks()
    text = lay.text
    n = len(text)
    out: list[tuple[int, int, list[int]]] = []
    i = 0
    while i < len(marks):
        j = i
        while j + 1 < len(marks) and marks[j + 1] - WINDOW <= marks[j] + WINDOW:
            j += 1
        w0, w1 = _edges(text, max(0, marks[i] - WINDOW), min(n, marks[j] + WINDOW))
        if out and w0 <= out[-1][1]:
            w0 = out[-1][0]
            ms = [m + w0 for m in out.pop()[2]]
        else:
            ms = []
        out.append((w0, w1, [m - w0 for m in ms + marks[i:j + 1]]))
        i = j + 1
    return out


def _edges(text: str, w0: int, w1: int) -> tuple[int, int]:
    """A window's edges moved out to where a value ends: the text's ends, or a space or a quote
    within TOKEN characters (else TOKEN characters out: a value that long is cut, and what is
    found at that edge does not count)."""
    if w0:
        lo = max(0, w0 - TOKEN)
        w0 = max([text.rfind(c, lo, w0) + 1 for c in _BREAKS] + [lo])
    m = _VALUE_END.match(text, w1, min(len(text), w1 + TOKEN))
    return w0, m.end() if m is not None else w1


def _cut(text: str, w0: int, w1: int) -> tuple[bool, bool]:
    """Whether a window's start and end cut a value (see _edges)."""
    return (w0 > 0 and text[w0 - 1] not in _BREAKS), (w1 < len(text) and text[w1] not in _BREAKS)


def found(views: list[Layer], off: set[str], pii: frozenset[str], find: FindAcross) -> list[Finding]:
    """What the rules find in each view, as spans of the original text: a view's windows (see
    windows) searched in one pass, joined by SEP, checking only the matches that hold or touch an
    edit. A finding at a window's cut edge (its context cut off) does not count, nor personal
    data read across a joint."""
    out: list[Finding] = []
    for depth, lay in enumerate(views):
        spans = windows(lay)
        parts: list[str] = []
        at: list[int] = []  # where each window starts in the joined text
        marks: list[int] = []
        pos = 0
        for w0, w1, ms in spans:
            at.append(pos)
            parts.append(lay.text[w0:w1])
            marks.extend(pos + m for m in ms)
            pos += w1 - w0 + len(SEP)
        for f in find(SEP.join(parts), off, marks):
            k = bisect.bisect_right(at, f.start) - 1
            w0, w1, _ = spans[k]
            s, e = f.start - at[k] + w0, f.end - at[k] + w0
            cut0, cut1 = _cut(lay.text, w0, w1)
            if e > w1 or (s == w0 and cut0) or (e == w1 and cut1):
                continue  # across two windows, or at a window's edge that cuts a value
            if f.rule in pii and _crosses(lay.joints, s, e):
                continue
            if f.rule not in pii:
                e = _closing(lay, s, e)
            for up in reversed(views[:depth + 1]):
                s, e = up.parent(s, e)
            out.append(Finding(f.rule, s, e))
    return out


def _decoded_at(lay: Layer, pos: int) -> bool:
    """Whether the view's character at ``pos`` was decoded from an encoded unit of its parent."""
    k = bisect.bisect_right(lay.starts, pos) - 1
    return k >= 0 and pos < lay.edits[k][1]


def _closing(lay: Layer, s: int, e: int) -> int:
    """The end of a value found from ``s`` to ``e`` in a view, carried on to its closing quote
    where it stopped at an escaped one. A value opened by a quote its parent shows as is
    (the " of "password": "...") closes only at a quote shown so too: a quote this view decoded
    (\\" &quot; %22 \\u0022, one encoding deeper) lies inside the value, whichever character
    stands beside it (_in_words cannot tell a password's ;\\"x from a nested string's end)."""
    text = lay.text
    if s == 0 or e >= len(text) or text[e] not in _IN_WORD_QUOTE or text[s - 1] != text[e] \
            or not _decoded_at(lay, e) or _decoded_at(lay, s - 1):
        return e
    q, limit = text[e], min(len(text), e + TOKEN)
    i = text.find(q, e + 1, limit)
    while i >= 0 and _decoded_at(lay, i):
        i = text.find(q, i + 1, limit)
    if i < 0 or "\n" in text[e:i]:
        return e
    return i


def _crosses(points: list[int], s: int, e: int) -> bool:
    k = bisect.bisect_right(points, s)
    return k < len(points) and points[k] < e
