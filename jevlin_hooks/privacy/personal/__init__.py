"""Personal data named by its field: a key that says what a value is, and a value that is it.

:func:`judge_personal_field` is the one judgement: given a field's key (a label, a column
header, a JSON or XML name) and its value, the rule that redacts the value, or None. It is pure
(no text around, no state) so that every layout can use it: inline labels (layout.py, here), and
a table's, a CSV file's or an aligned block's columns by their header, a key above its value
(the shared layout reader, engine/fields.py, through checks/personal.py's field judge).

Families (rules/labels.py): phone numbers, names, dates of birth, postal addresses, national
identifiers, e-mail addresses, IBANs, VAT numbers, card numbers. A key may name several
(``contact``: a phone, an e-mail or a name): the first whose test the value passes wins.
"""

from __future__ import annotations

from jevlin_hooks.privacy.personal import documents, numbers, values
from jevlin_hooks.privacy.personal.keys import Family, families
from jevlin_hooks.privacy.rules import labels

Span = tuple[int, int]


def _whole(value: str, ok: bool) -> Span | None:
    if not ok:
        return None
    start = len(value) - len(value.lstrip())
    return start, len(value.rstrip())


_DOCUMENTS = {labels.PASSPORT: documents.passport, labels.DRIVING: documents.driving_licence,
              labels.PLATE: documents.plate, labels.MEDICAL: documents.medical_record, labels.USERNAME: documents.handle,
              labels.INSURANCE: documents.insurance}


def value_span(family: Family, value: str) -> Span | None:
    """The span of ``value`` that is personal data of ``family``, or None."""
    rule = family.rule
    if rule == labels.NAME:
        return values.name(value, family.specific)
    if rule == labels.BIRTH:
        return values.birth_date(value)
    if rule == labels.ADDRESS:
        return values.postal_address(value)
    if rule == labels.EMAIL:
        return values.email(value)
    if rule in _DOCUMENTS:
        return _DOCUMENTS[rule](value)
    v = values.readable(value) if "%" in value or "\\u" in value or "+" in value[1:] else value
    if rule == labels.PHONE:
        if numbers.phone(v):
            return _whole(value, True)
        # a contact's "name, number": the number in it
        return next((m.span() for m in numbers.PHONE_RUN.finditer(value) if numbers.phone(m.group(0))), None)
    if rule == labels.NATIONAL_ID:
        return _whole(value, numbers.national_id(v, family.validators))
    if rule == labels.VAT:
        return _whole(value, numbers.vat(v))
    if rule == labels.IBAN:
        return _whole(value, numbers.iban(v))
    if rule == labels.CARD:
        return _whole(value, numbers.card(v))
    raise ValueError(f"no test for {rule!r}")


def judge_span(key: str, value: str, rule: str = "") -> tuple[str, int, int] | None:
    """``(rule, start, end)``: the part of ``value`` that is personal data of the family ``key``
    names (of the first whose test it passes; with ``rule``, of that family only), or None."""
    if not value or len(value) > 400:
        return None
    for fam in families(key):
        if rule and fam.rule != rule:
            continue
        span = value_span(fam, value)
        if span is not None and span[1] > span[0]:
            return fam.rule, span[0], span[1]
    return None


def judge_personal_field(key: str, value: str) -> str | None:
    """The rule that redacts ``value`` in a field named ``key`` (``"phone-number-labelled"``,
    ``"personal-name"``, ``"birth-date"``, ``"postal-address"``, ``"national-id"``, ``"email"``,
    ``"iban"``, ``"vat-number"``, ``"payment-card"``), or None: the key names no personal data,
    or the value is not what it names (a step's name, an IP under ``address``)."""
    found = judge_span(key, value)
    return found[0] if found is not None else None


__all__ = ["Family", "families", "judge_personal_field", "judge_span", "value_span"]
