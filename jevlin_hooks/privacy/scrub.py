"""Scrubbing secrets and personal data out of free text: the face the rest of the package uses.

:func:`scrub` gives a text's clean form and its findings, :func:`scrub_many` does a record's
fields in one pass (:func:`scrub_fields` also gives what each gave up), :func:`find` lists what each rule finds. They use one Scrubber with the
default options, made on first use (its RE2 patterns compile then; Hyperscan's databases in the
background). For other options make a Scrubber: privacy/engine/scrubber.py says what each one
does. The rules are in privacy/rules/, their value checks in privacy/checks/.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from jevlin_hooks.privacy.engine import EVERYWHERE, FIELD_SEP, Finding, Scrubbed, Scrubber, merge

__all__ = ["EVERYWHERE", "FIELD_SEP", "Finding", "Scrubbed", "Scrubber", "default", "find", "merge", "scrub", "scrub_fields",
           "scrub_many", "wait_prefilter"]

_DEFAULT: list[Scrubber] = []
_LOCK = threading.Lock()


def default() -> Scrubber:
    """The scrubber with the default options, one per process."""
    if not _DEFAULT:
        with _LOCK:
            if not _DEFAULT:
                _DEFAULT.append(Scrubber())
    return _DEFAULT[0]


def scrub(text: str, disabled: Iterable[str] = ()) -> tuple[str, list[Finding]]:
    """``(clean_text, findings)``; each finding's span becomes ``[REDACTED:<rule>]``. Findings hold
    rule names and positions, never the secret. ``disabled``: rule names not to run."""
    return (_DEFAULT[0] if _DEFAULT else default()).scrub(text, disabled)  # (a call less for each text)


def scrub_many(texts: list[str], disabled: Iterable[str] = ()) -> list[tuple[str, int]]:
    """``[(clean_text, number of findings)]`` for several texts (a record's fields) in one pass."""
    return (_DEFAULT[0] if _DEFAULT else default()).scrub_many(texts, disabled)


def scrub_fields(texts: list[str], disabled: Iterable[str] = ()) -> list[Scrubbed]:
    """As scrub_many, with what each text gave up (``cuts``: values, for the record step to cut in
    the record's other fields; never log them)."""
    return default().scrub_fields(texts, disabled)


def find(text: str, disabled: Iterable[str] = (), decoded: bool = True) -> list[Finding]:
    """Every finding, before merging (see merge) and before the cuts grow to whole tokens. With
    ``decoded``, also what the rules find in the text's decoded views: encoded values decoded,
    values split across lines put back together."""
    return default().find(text, disabled, decoded)


def wait_prefilter(timeout: float = 10.0) -> bool:
    """Wait for the default scrubber's Hyperscan prefilter (benches and tests measure the steady
    state); whether it runs."""
    return default().wait_prefilter(timeout)
