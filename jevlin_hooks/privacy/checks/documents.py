"""Checks of identity documents and records named by their field (rules/documents.py): the value
of the field a passport's, a driving licence's, a plate's or a medical record's label starts,
judged by privacy/personal/documents.py through the same field reading as the other families."""

from __future__ import annotations

from jevlin_hooks.privacy.checks.personal import field_values
from jevlin_hooks.privacy.checks.registry import Check, register
from jevlin_hooks.privacy.rules import labels

Spans = list[tuple[int, int]]


def _register(name: str, rule: str) -> None:
    def from_word(text: str, s: int, e: int) -> Spans | None:
        return field_values(rule, text, s, e)

    register(Check(name, span=lambda text, s, e, m: from_word(text, s, e), from_word=from_word, inside_words=True))


for _name, _rule in (("field-passport", labels.PASSPORT), ("field-driving", labels.DRIVING), ("field-plate", labels.PLATE),
                     ("field-medical", labels.MEDICAL), ("field-username", labels.USERNAME)):
    _register(_name, _rule)
