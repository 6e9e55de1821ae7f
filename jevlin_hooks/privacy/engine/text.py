"""The views of a text the patterns run on, and offsets between them.

Rules with ASCII patterns run on a one-byte-per-character view of the text, where every non-ASCII
character (and a lone surrogate from JSON) is \\x1a: byte offsets are character offsets, and for
RE2's ASCII-only \\s, \\w and \\b, and for value classes like [^\\s"'], a non-ASCII character and
\\x1a are alike. Only rules with non-ASCII literals (credential words in other scripts) see UTF-8,
whose offsets Offsets turns into characters.
"""

from __future__ import annotations

import bisect
import codecs
import operator
import re

_ONE_BYTE = "jevlin-one-byte"


def _one_byte(e: UnicodeError) -> tuple[str, int]:
    """What does not convert becomes one \\x1a per character (or byte), so offsets agree."""
    if not isinstance(e, (UnicodeDecodeError, UnicodeEncodeError)):
        raise e
    return "\x1a" * (e.end - e.start), e.end


codecs.register_error(_ONE_BYTE, _one_byte)
ONE_BYTE = _ONE_BYTE  # the error handler's name: text.encode("ascii", ONE_BYTE) is the view, the slow way
_QUESTION_TO_SUB = bytes.maketrans(b"?", b"\x1a")


def one_byte_view(text: str) -> bytes:
    """``text.encode("ascii", ONE_BYTE)``, without a Python call per run of non-ASCII characters:
    the C encoder's "replace" writes one ? per character (a lone surrogate too), every ? becomes
    \x1a, and the text's own question marks (few) are put back."""
    if text.isascii():
        return text.encode("ascii")
    view = text.encode("ascii", "replace").translate(_QUESTION_TO_SUB)
    i = text.find("?")
    if i < 0:
        return view
    buf = bytearray(view)
    while i >= 0:
        buf[i] = 63  # ?
        i = text.find("?", i + 1)
    return bytes(buf)


_CONTINUATION = bytes(range(0x80, 0xC0))


def char_len(data: bytes, start: int, end: int) -> int:
    """Characters in a slice of UTF-8 (a surrogate passed through counts one): the bytes that
    are not continuation bytes, counted in C (4x faster than RE2's BytesToCharLen)."""
    return len(data[start:end].translate(None, _CONTINUATION))


_END = operator.itemgetter(1)
SURROGATE = re.compile("[\ud800-\udfff]")


def char_hits(lower: str, data: bytes, where: list[tuple[int, int]], words: list[str]) -> list[tuple[int, int, int]]:
    """Hyperscan's (word, end byte offset) in the lower-cased text's UTF-8 as the automaton's
    (word, start, end) in characters."""
    if len(data) == len(lower):
        return [(k, e - len(words[k]), e) for k, e in where]
    out: list[tuple[int, int, int]] = []
    append = out.append
    b = c = 0
    cont = _CONTINUATION
    # char_len inline: a varied message has ~150 hits (the layout reader's key words), all converted
    for k, e in sorted(where, key=_END):
        c += len(data[b:e].translate(None, cont))
        b = e
        append((k, c - len(words[k]), c))
    return out


class Offsets:
    """UTF-8 byte offsets to str offsets. ASCII text: the same. Otherwise counted from the
    nearest offset already converted, so converting every finding stays linear in the text."""

    __slots__ = ("data", "ascii", "b", "c")

    def __init__(self, data: bytes, ascii_: bool) -> None:
        self.data, self.ascii = data, ascii_
        self.b, self.c = [0], [0]

    def char(self, off: int) -> int:
        if self.ascii:
            return off
        i = bisect.bisect_right(self.b, off) - 1
        b0 = self.b[i]
        if b0 == off:
            return self.c[i]
        c: int = self.c[i] + char_len(self.data, b0, off)
        self.b.insert(i + 1, off)
        self.c.insert(i + 1, c)
        return c


ASCII_OFFSETS = Offsets(b"", True)  # on the one-byte view an offset is its own: nothing to remember


class Groups:
    """A match's groups as str and str offsets, for the checks that look at the key name."""

    __slots__ = ("spans", "text", "pos")

    def __init__(self, spans: list[tuple[int, int]], text: str, pos: Offsets) -> None:
        self.spans, self.text, self.pos = spans, text, pos

    def group(self, i: int) -> str | None:
        s, e = self.spans[i]
        if s < 0:
            return None
        return self.text[self.pos.char(s):self.pos.char(e)]

    def end(self, i: int) -> int:
        return self.pos.char(self.spans[i][1])

    def start(self, i: int = 0) -> int:
        return self.pos.char(self.spans[i][0])
