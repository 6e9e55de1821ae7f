"""The regular-expression engine the scrubber matches with: RE2, linear in the input whatever it is.

Everything the engine and the checks take from it is here, so that another engine (a fallback
where google-re2 has no wheel) goes behind the same few names. :func:`compile_bytes` gives an
object with RE2's own low-level interface on bytes: ``Match(anchor, data, start, end)`` returns the
(start, end) of the match and of each group, (-1, -1) for none; ``NumberOfCapturingGroups()``;
``ProgramSize()``. The scan loop calls ``Match`` itself: a Python wrapper around it would cost a
call per candidate, and there are hundreds a message.
"""

from __future__ import annotations

from typing import Any

import re2
from re2 import _re2

_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20
# The wrapper's finditer re-encodes a str subject for every rule and builds a match object per
# match; the scrubber encodes once and calls RE2's Match on the bytes itself (a third of the cost).
UNANCHORED = _re2.RE2.Anchor.UNANCHORED
ANCHOR_BOTH = _re2.RE2.Anchor.ANCHOR_BOTH
Error = re2.error


def compile_bytes(pattern: str) -> Any:
    """``pattern`` (RE2 syntax) compiled to match UTF-8 or one-byte bytes; re2.error if RE2 refuses it."""
    rx = _re2.RE2(pattern.encode(), _OPTIONS)
    if not rx.ok():
        raise Error(rx.error())
    return rx
