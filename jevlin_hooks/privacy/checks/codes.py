"""Recovery and backup codes after their label, in the user's language.

Sites print an account's one-time recovery codes as a list (GitHub's ``xxxxx-xxxxx``, Google's
``1234 5678``, ``ABCD-EFGH-IJKL``), and people paste them under a label: ``Recovery codes: 2675
8087  R7LT-N7X2-XCPH``, ``Backup-Codes:`` and one code a line, ``códigos de recuperación``,
``резервные коды``, ``恢复码``. Each code is a login: the whole list goes.

The label is one of rules/codes.py's words, with ``:`` after it on its line (or nothing, the
codes on the lines below). What follows must be codes only: runs of 3 to 10 letters and digits,
joined by dashes, or two groups of digits with one blank between them (Google's form); the items
apart by two blanks, a comma, or a line each (a bullet or a number before each is fine), one
with a digit at least. A sentence after the label ("Recovery codes: stored in 1Password") has
words that are no codes, and stays.
"""

from __future__ import annotations

import re

from jevlin_hooks.privacy.checks.registry import Check, register

_CODE = re.compile(r"[A-Za-z0-9]{3,10}(?:-[A-Za-z0-9]{3,10}){0,4}|\d{3,5} \d{3,5}")
_BULLET = re.compile(r"(?:[-*\u2022]|\d{1,2}[.)])[ \t]+")  # a bullet or a number before an item
_APART = re.compile(r"[ \t]{2,}|[ \t]*[,;][ \t]*|\t")
_LABEL_END = re.compile(r"[^\n:\uff1a]{0,24}?[:\uff1a]")
_MAX_LINES = 20


def _items(line: str, a: int, b: int) -> int | None:
    """Where the codes of line [a, b) start (past blanks and a bullet), or None if it holds
    anything but codes (see the module's docstring), or no digit."""
    body = line[a:b]
    lead = len(body) - len(body.lstrip())
    bullet = _BULLET.match(body, lead)
    if bullet is not None:
        lead = bullet.end()
    items = [x for x in _APART.split(body[lead:].rstrip()) if x]
    if not items or not all(_CODE.fullmatch(x) for x in items):
        return None
    # a word of letters alone is no code: each needs a digit, or six upper-case letters or more
    if not all(any(c.isdigit() for c in x) or x.isupper() and len(x) >= 6 for x in items):
        return None
    if not any(c.isdigit() for c in body):
        return None
    return a + lead


def codes_after_label(text: str, s: int, e: int) -> list[tuple[int, int]] | None:
    """The codes after a recovery-code label at [s, e): the rest of its line, or the lines below."""
    le = text.find("\n", e)
    le = len(text) if le < 0 else le
    m = _LABEL_END.match(text, e, le)
    rest_start = m.end() if m else e
    if m is None and text[e:le].strip():
        return None  # "the recovery codes we printed last year": prose, no list
    spans: list[tuple[int, int]] = []
    if text[rest_start:le].strip():
        a = _items(text, rest_start, le)
        return [(a, len(text[:le].rstrip()))] if a is not None else None
    pos = le + 1
    for _ in range(_MAX_LINES):
        if pos >= len(text):
            break
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        a = _items(text, pos, end)
        if a is None:
            break
        spans.append((a, len(text[:end].rstrip())))
        pos = end + 1
    return spans or None


register(Check("recovery-codes", span=lambda text, s, e, m: codes_after_label(text, s, e), from_word=codes_after_label,
               inside_words=True))
