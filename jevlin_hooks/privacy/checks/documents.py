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
                     ("field-medical", labels.MEDICAL), ("field-username", labels.USERNAME),
                     ("field-insurance", labels.INSURANCE)):
    _register(_name, _rule)


# --- national ids by their own shape --------------------------------------------------------------

# the python-stdnum modules (or own checks) a shape may be, tried in turn
_SHAPE_VALIDATORS = ("mx.curp", "it.codicefiscale", "cn.ric", "ae.eid", "ru.snils", "br.cpf", "kr.rrn", "fi.hetu",
                     "fr.nir", "in_.aadhaar", "be.nn")
# words that say the text around is about a person: whole words (not name in namespace or
# hostname), and stems a word may go on from (nacim-iento, geburt-sdatum); lower case, any case
_PERSON = re.compile(
    r"(?i)@|(?<![^\W\d_])(?:(?:name|full name|first name|last name|surname|nom|nombre|nome|naam|namn|navn|imię|имя|фио|піб|"
    r"customer|client|cliente|kunde|klant|kund|patient|paciente|paziente|employee|contact|kontakt|contato|contatto|"
    r"dob|phone|telephone|telefon|teléfono|telefone|telefono|mobile|e-mail|email|correo|address|adresse|adres|"
    r"passport|citizen|member|holder|applicant|müşteri|hasta|клиент|пациент|сотрудник)(?![^\W\d_])"
    r"|(?:birth|geburt|nacim|nascit|naiss|direcci|indirizz|endere|mitarbeiter|empleado|funcion|personnummer|"
    r"national|identit|identif)"
    r"|姓名|氏名|이름|客户|患者|고객|환자)")
_CONTEXT_BEFORE, _CONTEXT_AFTER = 120, 60


def id_shape(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A national id in a format of its own whose check digits hold, with a word about a person
    near it (a 10-digit build number that happens to pass a check is no one's id)."""
    if not numbers.national_id(value, _SHAPE_VALIDATORS):
        return False
    return _PERSON.search(text, max(0, start - _CONTEXT_BEFORE), min(len(text), end + _CONTEXT_AFTER)) is not None


register(Check("id-shape", accept=id_shape))


# every check a labelled national id may pass (rules/labels.py ID_LABELS)
_EVERY_ID = tuple(dict.fromkeys(v for _, vs in labels.ID_LABELS for v in vs))


def id_labelled(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A national id under a bare ID label: its check digits hold and a word about a person is
    near (ID: 4711 in a build log is a build's)."""
    if not numbers.national_id(value, _EVERY_ID):
        return False
    return _PERSON.search(text, max(0, start - _CONTEXT_BEFORE), min(len(text), end + _CONTEXT_AFTER)) is not None


register(Check("id-labelled", accept=id_labelled))
