"""Checks of identity documents and records named by their field (rules/documents.py): the value
of the field a passport's, a driving licence's, a plate's or a medical record's label starts,
judged by privacy/personal/documents.py through the same field reading as the other families."""

from __future__ import annotations

import re
from typing import Any

from jevlin_hooks.privacy.checks.personal import field_values
from jevlin_hooks.privacy.checks.registry import Check, register
from jevlin_hooks.privacy.personal import numbers
from jevlin_hooks.privacy.rules import labels

Spans = list[tuple[int, int]]


def _register(name: str, rule: str) -> None:
    def from_word(text: str, s: int, e: int) -> Spans | None:
        return field_values(rule, text, s, e)

    register(Check(name, span=lambda text, s, e, m: from_word(text, s, e), from_word=from_word, inside_words=True))


for _name, _rule in (("field-passport", labels.PASSPORT), ("field-driving", labels.DRIVING), ("field-plate", labels.PLATE),
                     ("field-medical", labels.MEDICAL), ("field-username", labels.USERNAME)):
    _register(_name, _rule)


# --- national ids by their own shape --------------------------------------------------------------

# the python-stdnum modules (or own checks) a shape may be, tried in turn
_SHAPE_VALIDATORS = ("mx.curp", "it.codicefiscale", "cn.ric", "ae.eid", "ru.snils", "br.cpf", "kr.rrn", "fi.hetu",
                     "fr.nir", "in_.aadhaar", "be.nn")
# words that say the text around is about a person (lower case; found as words' starts)
_PERSON = re.compile(
    r"(?i)(?<![^\W\d_])(?:name|nom|nombre|nome|naam|namn|navn|imi|имя|фио|піб|姓名|氏名|이름|customer|client|kund|klant|"
    r"patient|pacient|paziente|employee|mitarbeiter|empleado|funcion|contact|kontakt|contato|contatto|dob|birth|geburt|"
    r"nacim|nascit|naiss|phone|tel|telef|mobile|e-?mail|correo|address|adress|direcc|indiriz|ender|id|ident|document|"
    r"passport|national|citizen|person|personal|user|guest|member|holder|applicant|клиент|пациент|сотрудник|客户|患者|"
    r"고객|환자|cliente|müşteri|hasta|@)")
_CONTEXT_BEFORE, _CONTEXT_AFTER = 120, 60


def id_shape(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A national id in a format of its own whose check digits hold, with a word about a person
    near it (a 10-digit build number that happens to pass a check is no one's id)."""
    if not numbers.national_id(value, _SHAPE_VALIDATORS):
        return False
    return _PERSON.search(text, max(0, start - _CONTEXT_BEFORE), min(len(text), end + _CONTEXT_AFTER)) is not None


register(Check("id-shape", accept=id_shape))
