"""Text from records made inert before it reaches a terminal.

A recorded prompt, query or final message can hold ESC sequences (an OSC 52 clipboard write, a
cursor move, a title change), C1 controls (U+009B is a one-byte CSI) or bidi overrides that
reorder what is shown. Every view that prints recorded text passes it through ``inert``:
those characters are shown escaped (``\\x1b``, ``\\u202e``), never sent raw. Newlines and tabs
are layout and stay.
"""

from __future__ import annotations

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _unsafe(c: str) -> bool:
    o = ord(c)
    return (o < 0x20 and c not in "\n\t") or 0x7F <= o <= 0x9F or c in _BIDI or c in "\u2028\u2029"


def inert(text: str) -> str:
    if text.isprintable() or not any(_unsafe(c) for c in text):
        return text
    return "".join((f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}") if _unsafe(c) else c
                   for c in text)
