"""The regular-expression engine the scrubber matches with: RE2, linear in the input whatever it is.

Everything the engine and the checks take from it is here, so that another engine goes behind
the same few names. :func:`compile_bytes` gives an object with RE2's own low-level interface on
bytes: ``Match(anchor, data, start, end)`` returns the (start, end) of the match and of each group,
(-1, -1) for none; ``NumberOfCapturingGroups()``; ``ProgramSize()``. The scan loop calls ``Match``
itself: a Python wrapper around it would cost a call per candidate, and there are hundreds a
message.

Where google-re2 cannot be imported (no wheel for the platform: docs/platforms.md), the same
interface comes from privacy/linear/, RE2's method in pure Python: the same matches, the same
linear time on any input, at a fraction of RE2's speed. ``ENGINE`` says which one runs.
"""

from __future__ import annotations

from typing import Any

try:
    import re2
    from re2 import _re2
except ImportError:  # no google-re2 for this platform (docs/platforms.md): the pure-Python engine
    re2 = None

if re2 is not None:
    ENGINE = "re2"
    _OPTIONS = re2.Options()
    _OPTIONS.max_mem = 64 << 20
    # The wrapper's finditer re-encodes a str subject for every rule and builds a match object per
    # match; the scrubber encodes once and calls RE2's Match on the bytes itself (a third of the cost).
    UNANCHORED: Any = _re2.RE2.Anchor.UNANCHORED
    ANCHOR_BOTH: Any = _re2.RE2.Anchor.ANCHOR_BOTH
    Error: type[Exception] = re2.error

    def compile_bytes(pattern: str) -> Any:
        """``pattern`` (RE2 syntax) compiled to match UTF-8 or one-byte bytes; Error if RE2 refuses it."""
        rx = _re2.RE2(pattern.encode(), _OPTIONS)
        if not rx.ok():
            raise Error(rx.error())
        return rx

else:
    from jevlin_hooks.privacy import linear

    ENGINE = "linear"
    UNANCHORED, ANCHOR_BOTH = linear.UNANCHORED, linear.ANCHOR_BOTH
    Error = linear.Error

    def compile_bytes(pattern: str) -> Any:
        """``pattern`` (RE2 syntax) compiled to match UTF-8 or one-byte bytes; Error if RE2 would refuse it."""
        return linear.compile(pattern)
