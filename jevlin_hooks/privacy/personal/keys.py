"""What a field's key says it holds: the families of personal data its label names.

A key is read the same way whatever its style: ``dateOfBirth``, ``date_of_birth``,
``Date of birth``, ``DATE-OF-BIRTH`` and ``"Data de nascimento"`` become words in lower case
without accents (``date of birth``, ``data de nascimento``), and a phrase of rules/labels.py is
found in them as whole words (``tel`` is in ``tel no``, not in ``hotel``); a phrase in a script
written without spaces (``生年月日``, ``주민등록번호``) is found anywhere in the key.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from jevlin_hooks.privacy.rules import labels

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_WORD = re.compile(r"[\W_]+")
# letters NFKD leaves whole: dotless i, sharp s, the Nordic and Polish ones
_FOLD = str.maketrans({"ı": "i", "ß": "ss", "ø": "o", "æ": "ae", "ł": "l", "đ": "d", "þ": "th", "œ": "oe"})
# scripts written without spaces between words: their phrases are found anywhere in the key
_NO_SPACES = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
MAX_KEY = 60


def normalize(key: str, camel: bool = True) -> str:
    """``key`` as lower-case words without accents, one space apart; with ``camel``, a key in
    camelCase split at its capitals (dateOfBirth: date of birth; not USt-IdNr, read both ways)."""
    key = (_CAMEL.sub(" ", key.strip()) if camel else key.strip()).lower().translate(_FOLD)
    if not key.isascii():
        key = "".join(c for c in unicodedata.normalize("NFKD", key) if not unicodedata.combining(c))
        key = unicodedata.normalize("NFC", key)
    return _NOT_WORD.sub(" ", key).strip()


@dataclass(frozen=True)
class Family:
    """A family a key names: the rule it is (labels.ORDER), whether a one-word value counts as a
    name under it, and for national ids the checks the value may pass."""

    rule: str
    specific: bool = True
    validators: tuple[str, ...] = ()


def _phrases() -> list[tuple[str, Family]]:
    out: list[tuple[str, Family]] = []
    table: dict[str, tuple[str, ...]] = {
        labels.EMAIL: labels.EMAIL_PHRASES, labels.IBAN: labels.IBAN_PHRASES, labels.VAT: labels.VAT_PHRASES,
        labels.CARD: labels.CARD_PHRASES, labels.BIRTH: labels.BIRTH_PHRASES, labels.PHONE: labels.PHONE_PHRASES,
        labels.ADDRESS: labels.ADDRESS_PHRASES, labels.NAME: labels.NAME_PHRASES,
        labels.PASSPORT: labels.PASSPORT_PHRASES, labels.DRIVING: labels.DRIVING_PHRASES,
        labels.PLATE: labels.PLATE_PHRASES, labels.MEDICAL: labels.MEDICAL_PHRASES, labels.USERNAME: labels.USERNAME_PHRASES,
        labels.INSURANCE: labels.INSURANCE_PHRASES,
    }
    for rule, phrases in table.items():
        out += [(p, Family(rule)) for p in phrases]
    out += [(p, Family(labels.NAME, specific=False)) for p in labels.NAME_GENERIC_PHRASES]
    every_id = tuple(dict.fromkeys(v for _, vs in labels.ID_LABELS for v in vs))
    for phrases, validators in labels.ID_LABELS:
        out += [(p, Family(labels.NATIONAL_ID, validators=validators)) for p in phrases]
    out += [(p, Family(labels.NATIONAL_ID, specific=False, validators=every_id)) for p in labels.ID_GENERIC_PHRASES]
    return out


def _index() -> tuple[dict[str, list[tuple[tuple[str, ...], Family]]], list[tuple[str, Family]]]:
    """Phrases by their first word (found as whole words), and the phrases of scripts without spaces."""
    by_first: dict[str, list[tuple[tuple[str, ...], Family]]] = {}
    anywhere: list[tuple[str, Family]] = []
    for phrase, fam in _phrases():
        n = normalize(phrase)
        if not n:
            continue
        if _NO_SPACES.search(n):
            anywhere.append((n.replace(" ", ""), fam))
        else:
            words = tuple(n.split())
            by_first.setdefault(words[0], []).append((words, fam))
    return by_first, anywhere


_BY_FIRST, _ANYWHERE = _index()
_RANK = {rule: i for i, rule in enumerate(labels.ORDER)}


@functools.lru_cache(maxsize=4096)
def families(key: str) -> tuple[Family, ...]:
    """The families ``key`` names, in labels.ORDER; of each family its longest phrase's reading
    (``first name`` over ``name``). Empty for a key that names none, or one longer than a label."""
    if len(key) > MAX_KEY:
        return ()
    words = normalize(key).split()
    if not words or len(words) > 8:
        return ()
    found: dict[str, tuple[int, Family]] = {}
    plain = words if key.islower() or key.isupper() else normalize(key, camel=False).split()
    for ws in (words, plain) if plain != words else (words,):
        for i, w in enumerate(ws):
            for phrase, fam in _BY_FIRST.get(w, ()):
                if tuple(ws[i:i + len(phrase)]) == phrase and len(phrase) > found.get(fam.rule, (0, fam))[0]:
                    found[fam.rule] = (len(phrase), fam)
    if _ANYWHERE and not key.isascii():
        joined = "".join(words)
        for chars, fam in _ANYWHERE:
            if chars in joined and len(chars) > found.get(fam.rule, (0, fam))[0]:
                found[fam.rule] = (len(chars), fam)
    if labels.ADDRESS in found and not labels.ADDRESS_BLOCKERS.isdisjoint(words):
        del found[labels.ADDRESS]  # ip_address, mac address, wallet address: a machine's
    name = found.get(labels.NAME)
    if name is not None and not name[1].specific and not labels.NAME_BLOCKERS.isdisjoint(words):
        del found[labels.NAME]  # company_name, file name, user name: a thing's, or a handle
    return tuple(f for _, f in sorted(found.values(), key=lambda t: _RANK[t[1].rule]))
