"""Whether a value is the number of a person's document: a passport, a driving licence, a
vehicle's licence plate, a medical record.

None of them has a check digit that holds across countries, so they are read only under a label
or a column that names them (rules/labels.py), and the test here only turns down what such a
field also holds: a word (``expired``, ``n/a``, ``pending``), a date, a placeholder, a number too
short or too long to be one. A value is the field's whole value, as the layout gives it.
"""

from __future__ import annotations

import re

from jevlin_hooks.privacy.personal import values

Span = tuple[int, int]

# (upper-case letters and digits only: a word in lower case is a remark, not a number)
_PASSPORT = re.compile(r"[A-Z0-9]{1,4}(?:[ \-]?[A-Z0-9]{1,10}){0,2}")
_LICENCE = re.compile(r"[A-Z0-9]{1,12}(?:[ \-/.]?[A-Z0-9]{1,12}){0,4}")
_RECORD = re.compile(r"[A-Z]{0,6}[\-/:.# ]?[0-9][0-9A-Z]*(?:[\-/.:][0-9A-Z]+){0,4}")
# a plate: letters of any script and digits, in up to five groups (川A·2371F, 札幌 404 に 21-18, Х954ТЕ 66)
_PLATE_GROUP = re.compile(r"[^\W_]{1,8}")
_PLATE_JOINTS = frozenset(" -·.")
# an abbreviation before a record's number, with its dot (Pat.-Nr., Nr., No.)
_RECORD_PREFIX = re.compile(r"[A-Za-z][A-Za-z\-]{0,8}\.(?:-?[A-Za-z]{1,4}\.)?:? ?(?=[0-9])")
_DATE = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$|\d{1,2}:\d{2}")
_PLACEHOLDER = re.compile(r"^(.)\1+$|^(?:X+|0+|1234.*|N/?A|TBD|NONE|NULL|UNKNOWN)$", re.I)


def _trimmed(value: str) -> tuple[str, int]:
    text = value.strip().strip("\"'`*").strip()
    return text, value.find(text) if text else -1


def _digits(text: str) -> int:
    return sum(c.isdigit() for c in text)


def _span(value: str, text: str, start: int, ok: bool) -> Span | None:
    return (start, start + len(text)) if ok and start >= 0 else None


def passport(value: str) -> Span | None:
    """A passport number: 6 to 12 capital letters and digits (in up to three groups), at least
    two digits (73514325, GX2878301, PHCUEF745, 76 3810252)."""
    text, start = _trimmed(value)
    compact = re.sub(r"[ \-]", "", text)
    ok = (_PASSPORT.fullmatch(text) is not None and 6 <= len(compact) <= 12 and _digits(compact) >= 2
          and not _PLACEHOLDER.match(compact) and not _DATE.match(text))
    return _span(value, text, start, ok)


def driving_licence(value: str) -> Span | None:
    """A driving licence number: 5 to 24 capital letters and digits (groups apart by a blank,
    a dash, a slash or a dot), at least four digits."""
    text, start = _trimmed(value)
    compact = re.sub(r"[ \-/.]", "", text)
    ok = (_LICENCE.fullmatch(text) is not None and 5 <= len(compact) <= 24 and _digits(compact) >= 4
          and not _PLACEHOLDER.match(compact) and not _DATE.match(text))
    return _span(value, text, start, ok)


def plate(value: str) -> Span | None:
    """A licence plate: 4 to 12 letters (of any script, Latin ones in capitals) and digits, at
    least one digit and at most five groups (1SXR358, CP71 HEV, HX-339-EJ, Х954ТЕ 66, 川A·2371F)."""
    text, start = _trimmed(value)
    if not 4 <= len(text) <= 16 or any(c.isascii() and c.islower() for c in text) or _DATE.match(text):
        return None
    groups = _PLATE_GROUP.findall(text)
    compact = "".join(groups)
    ok = (1 <= len(groups) <= 5 and 4 <= len(compact) <= 12 and _digits(compact) >= 1
          and all(c in _PLATE_JOINTS for c in re.sub(r"[^\W_]", "", text))
          and not compact.isdigit() and not _PLACEHOLDER.match(compact))
    return _span(value, text, start, ok)


def medical_record(value: str) -> Span | None:
    """A medical record number: 5 to 24 characters, capital letters, digits and a few joints
    (P358915091, KH2019/092064, 017-209-8879, MRN-00123456), at least four digits."""
    text, start = _trimmed(value)
    prefix = _RECORD_PREFIX.match(text)
    if prefix is not None and _digits(text[prefix.end():]) == len(text) - prefix.end():
        body = text[prefix.end():]  # Pat.-Nr. 73299010, Nr. 4471920: the number after its abbreviation
        ok = 5 <= len(body) <= 24 and not _PLACEHOLDER.match(body)
        return _span(value, text, start, ok)
    compact = re.sub(r"[\-/:.# ]", "", text)
    ok = (_RECORD.fullmatch(text) is not None and 5 <= len(text) <= 24 and _digits(compact) >= 4
          and not _PLACEHOLDER.match(compact) and not _DATE.match(text))
    return _span(value, text, start, ok)


# an insurance number: capital letters and digits, groups apart by a dash, a slash or a blank
_POLICY = re.compile(r"[A-Z0-9]{1,16}(?:[\-/ ][A-Z0-9]{1,16}){0,4}")
# an amount with its currency's code (4418 EUR, USD 1200): a premium, not a number
_AMOUNT = re.compile(r"[0-9]{1,9} [A-Z]{3}|[A-Z]{3} [0-9]{1,9}")
_POLICY_TOKEN = re.compile(r"(?<![\w\-/.,])[A-Z0-9]+(?:[\-/][A-Z0-9]+){0,4}(?![\w\-/]|[.,]\d)")


def _policy_number(text: str) -> bool:
    compact = re.sub(r"[\- /]", "", text)
    digits = _digits(compact)
    return (6 <= len(compact) <= 24 and digits >= 4 and (digits < len(compact) or digits >= 6)
            and not _PLACEHOLDER.match(compact) and not _DATE.match(text) and not _AMOUNT.fullmatch(text))


def insurance(value: str) -> Span | None:
    """An insurance policy or member number: 6 to 24 capital letters and digits, at least four
    digits (six when it is digits only: not an amount). The whole value, or the number an
    insurer's name goes before (``AOK / policy QLD338489449``, ``Allianz, 40-1182-7731``)."""
    text, start = _trimmed(value)
    if _POLICY.fullmatch(text) is not None and _policy_number(text):
        return _span(value, text, start, True)
    found = [m for m in _POLICY_TOKEN.finditer(value) if _policy_number(m.group(0))]
    return found[-1].span() if len(found) == 1 else None


# a person's handle: a first and a last name (and a middle one) joined by dots, in lower case,
# digits only at its end (elena.romero, thanh.huong.vu, reem.al-ghamdi, j.doe92)
_HANDLE = re.compile(r"[a-z][a-z'\-]{0,30}(?:\.[a-z][a-z'\-]{0,30}){1,2}[0-9]{0,4}")
# parts of a service's or a machine's account or host, never of a person's name
_NOT_PERSON = frozenset("""
app svc srv bot ci cd deploy deployer admin root test dev prod stage staging local internal service system api web
db sql read readonly write ro rw sa iam com net org io co uk de fr cloud cluster default ops build runner backup
monitor monitoring sync worker job task user users guest demo sample example shop data etl report reports team
""".split())


def handle(value: str) -> Span | None:
    """A person's user name: a dotted first.last handle (none of its parts a service's word), or
    a full name (git's user.name)."""
    text, start = _trimmed(value)
    if _HANDLE.fullmatch(text) is not None:
        parts = text.rstrip("0123456789").replace("-", ".").split(".")
        ok = not any(p in _NOT_PERSON for p in parts) and max(len(p) for p in parts) >= 3
        return _span(value, text, start, ok)
    found = values.name(text, specific=False)
    return _span(value, text, start, found == (0, len(text)))
