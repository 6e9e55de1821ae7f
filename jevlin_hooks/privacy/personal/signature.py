"""A signature block: the lines after ``--`` or a valediction are a name, a phone, an address.

Mail and chat messages end the same way in every language: a line ``--`` (the signature
delimiter, RFC 3676) or a closing (``Kind regards,``, ``Mit freundlichen Grüßen``,
``Cordialement,``, ``С уважением,``), then the sender's name on a line of its own, and often a
phone number and a postal address on the lines under it. Their place is their label: the name
line must have a name's shape (a single word only after a closing, and no common word), the
others must pass the phone and address tests; the block ends at a blank line or after five lines.
"""

from __future__ import annotations

from jevlin_hooks.privacy.personal import numbers, values
from jevlin_hooks.privacy.rules import labels

KEYWORDS = labels.SIGNATURE_KEYWORDS
_ENDINGS = frozenset(",!.，、。 \t\r")
MAX_LINES = 5


def fields(text: str, s: int, e: int) -> list[tuple[str, int, int]]:
    """``(rule, start, end)`` of the name, phones and addresses of the signature that the
    delimiter or valediction at [s, e) starts; empty if it starts none."""
    if text[s:e].startswith("\n"):
        line_end = e - 1  # the delimiter's own line break
        after_closing = False
    else:
        line_start = text.rfind("\n", 0, s) + 1
        if text[line_start:s].strip(" \t-–—*_>"):
            return []  # a closing starts its line
        line_end = text.find("\n", e)
        if line_end < 0 or not all(c in _ENDINGS for c in text[e:line_end]):
            return []
        after_closing = True
    out: list[tuple[str, int, int]] = []
    pos = line_end + 1
    for n in range(MAX_LINES):
        nl = text.find("\n", pos)
        nl = len(text) if nl < 0 else nl
        a, b = pos, nl
        while a < b and text[a] in " \t":
            a += 1
        while b > a and text[b - 1] in " \t\r":
            b -= 1
        if a == b:
            if n == 0 and not after_closing and nl < len(text):
                pos = nl + 1
                continue
            break
        line = text[a:b]
        if not out and n <= 1:
            span = _name(line, after_closing)
            if span is None:
                return []  # a signature starts with its sender's name
            out.append((labels.NAME, a + span[0], a + span[1]))
        elif numbers.phone(line):
            out.append((labels.PHONE, a, b))
        else:
            span = values.postal_address(line)
            if span is not None and ("," in line or "،" in line or any(c.isdigit() for c in line[:8])):
                out.append((labels.ADDRESS, a + span[0], a + span[1]))
        if nl >= len(text):
            break
        pos = nl + 1
    return out


def _name(line: str, after_closing: bool) -> tuple[int, int] | None:
    """The sender's name: a full name, or after a closing a first name alone."""
    span = values.name(line, specific=False)
    if span is not None and span == (0, len(line)):
        return span
    if after_closing and " " not in line and values.name(line, specific=True) == (0, len(line)) \
            and line.lower() not in values.NOT_NAMES:
        return 0, len(line)
    return None
