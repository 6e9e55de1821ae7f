"""The value checks, by name: a rule's ``check`` field names one of them (registry.py says what a
check is). values.py: values given to credentials (command lines, key names, XML, calls);
prose.py: credentials named in prose and in the user's language; tokens.py: tokens with a known
shape; pii.py: personal data; personal.py: personal data named by its field, and phone numbers
and VAT numbers checked with their own libraries. left_alone.py tells users what the checks leave alone."""

from __future__ import annotations

from jevlin_hooks.privacy.checks import (
    assigned,
    codes,
    documents,
    flags,
    labelled,
    people,
    personal,
    pii,
    printed,
    prose,
    tokens,
    values,
)
from jevlin_hooks.privacy.checks.left_alone import LEFT_ALONE
from jevlin_hooks.privacy.checks.registry import CHECKS, Check, UnknownCheck, get

__all__ = ["CHECKS", "LEFT_ALONE", "Check", "UnknownCheck", "assigned", "codes", "documents", "flags", "get", "labelled",
           "people", "personal", "pii", "printed", "prose",
           "tokens", "values"]
