"""Checks of personal data named by its field: a label's word, its field's value, the judgement.

Each family of rules/labels.py is one rule that starts from the gate's positions of its label
words (``from_word``): privacy/personal/layout.py finds the field(s) the word's key names (the
value after it, or its column's cells under a table header) and privacy/personal judges each
(key, value); a value is this rule's finding when the judgement names this rule. Texts whose
lower-casing changes their length (a Turkish İ) are read by the rule's own pattern, the label
words, with the same hook (``span``).

Also here: the phone numbers found by their own shape (+CC, North American), checked with
libphonenumber; the names before an ``<e-mail address>``; VAT numbers by their country prefix.
"""

from __future__ import annotations

import re
from typing import Any

from jevlin_hooks.privacy.checks.judges import FieldJudge, cell_forms, register_judge
from jevlin_hooks.privacy.checks.registry import Check, register
from jevlin_hooks.privacy.personal import families, judge_span, numbers, signature, value_span, values
from jevlin_hooks.privacy.personal.keys import Family
from jevlin_hooks.privacy.personal.layout import fields_at
from jevlin_hooks.privacy.rules import labels

Spans = list[tuple[int, int]]


_SIGNATURE = frozenset(signature.KEYWORDS)


def word_end(text: str, s: int, e: int) -> int:
    """The end of the label word at [s, e) without what the gate's form of a short word holds
    after it (``sin:``, ``nie ``: rules/pii.py)."""
    if text[e - 1].isalnum() or text[s] == "\n":  # a signature's delimiter is all it is
        return e
    while e > s + 1 and not text[e - 1].isalnum():
        e -= 1
    return e


def field_values(rule: str, text: str, s: int, e: int) -> Spans | None:
    """The values of the fields the label word at [s, e) starts that are ``rule``'s (or, for a
    signature's delimiter or closing, the lines of the signature that are)."""
    if (text[s] == "\n" or s == 0 or text[s - 1] in "\n \t") and text[s:e].lower() in _SIGNATURE:  # a closing starts its line
        return [(a, b) for r, a, b in signature.fields(text, s, e) if r == rule] or None
    e = word_end(text, s, e)
    out: Spans = []
    for key, vs, ve in fields_at(text, s, e):
        judged = judge_span(key, text[vs:ve], rule)
        if judged is not None:
            out.append((vs + judged[1], vs + judged[2]))
    return out or None


def _register(name: str, rule: str) -> None:
    def from_word(text: str, s: int, e: int) -> Spans | None:
        return field_values(rule, text, s, e)

    register(Check(name, span=lambda text, s, e, m: from_word(text, s, e), from_word=from_word, inside_words=True))


for _name, _rule in (("field-birth", labels.BIRTH), ("field-address", labels.ADDRESS)):
    _register(_name, _rule)


def name_after_word(text: str, s: int, e: int) -> Spans | None:
    """A name its label gives: its field's value, or the rest of the line after a label that
    reads as prose (Jenkins's "Started by user Jane Doe")."""
    found = field_values(labels.NAME, text, s, e)
    e = word_end(text, s, e)
    if found or text[s:e].lower() not in labels.NAME_PROSE:
        return found
    a = e + 1 if text.startswith(" ", e) else e
    b = text.find("\n", a)
    b = len(text) if b < 0 else b
    while b > a and text[b - 1] in " \t\r":
        b -= 1
    span = values.name(text[a:b], specific=False)
    return [(a + span[0], a + span[1])] if span is not None and a + span[1] == b else None


register(Check("field-name", span=lambda text, s, e, m: name_after_word(text, s, e), from_word=name_after_word,
               inside_words=True))


# after an id's label in prose: "BSN 111222333", "my SSN is 536-22-8714", "PESEL nr 44051401359"
_KEY_WORD = re.compile(r"[\w.\-]*")
_ID_GAP = re.compile(r"(?i:[ \t:#=\-–—]+|\b(?:is|ist|est|es|no|nr|n[°º]|number|nummer|numero|número)\b\.?)+(?=[0-9A-Z])")
_DIGIT_SOON = re.compile(r"[^\n\d]{0,60}\d")
_ID_TOKENS = re.compile(r"[0-9A-Z][0-9A-Za-z.\-/]*(?: [0-9A-Z][0-9A-Za-z.\-/]*){0,7}")


def _key_ends(text: str, e: int) -> list[int]:
    """Where a label holding the word that ends at ``e`` can end: the word's own end (with what
    is glued to it: Steuer-ID), then after each of up to three more words (TC Kimlik No)."""
    ends = [_KEY_WORD.match(text, e).end()]  # type: ignore[union-attr]
    while len(ends) < 4 and text.startswith(" ", ends[-1]) and ends[-1] + 1 < len(text) and text[ends[-1] + 1].isalpha():
        ends.append(_KEY_WORD.match(text, ends[-1] + 1).end())  # type: ignore[union-attr]
    return ends


# an identity document as a record: {"type": "nif", "number": "140304193"}
_TYPE_BEFORE = re.compile(r"""["']?\b(?:type|kind|document_type|doc_type|id_type|scheme)["']?\s*[:=]\s*["']$""", re.I)
_NUMBER_AFTER = re.compile(r"""[^{}]{0,160}?["']?\b(?:number|value|no|nr|num|id|document_number|doc_number)["']?\s*[:=]\s*["']([^"'\n]{5,40})["']""")


def _typed_document(text: str, s: int, e: int) -> Spans | None:
    """The number of an identity document whose type is the label at [s, e)."""
    if _TYPE_BEFORE.search(text, max(0, s - 40), s) is None:
        return None
    q = text.find(text[s - 1], e, e + 40)  # the type's closing quote
    fams = [f for f in families(text[s:q]) if f.rule == labels.NATIONAL_ID] if q > 0 else []
    m = _NUMBER_AFTER.match(text, q + 1, min(len(text), q + 240)) if fams else None
    if m is None or not numbers.national_id(m.group(1), fams[0].validators):
        return None
    return [m.span(1)]


def _in_prose(rule: str, text: str, s: int, e: int) -> Spans | None:
    """A number right after its label in prose (a few words and separators between) that passes
    its family's test: the longest run of words that does (2 84 10 34 358 252 39)."""
    if s > 0 and (text[s - 1].isalnum() or text[s - 1] == "_") or _DIGIT_SOON.match(text, e) is None:
        return None
    if e - s <= 3 and text.startswith(" ", e) and not text[s:e].isupper():
        return None  # a short label in prose is an acronym (BSN 111222333, not "nie ist")
    for end in _key_ends(text, e):
        fams = _specific([f for f in families(text[s:end]) if f.rule == rule], rule, text, s, end)
        gap = _ID_GAP.match(text, end, min(len(text), end + 24)) if fams else None
        if gap is None:
            continue
        m = _ID_TOKENS.match(text, gap.end(), min(len(text), gap.end() + 40))
        words = m.group(0).split(" ") if m else []
        for n in range(len(words), 0, -1):
            value = " ".join(words[:n]).rstrip(".-/")
            if value_span(fams[0], value) == (0, len(value)):
                return [(gap.end(), gap.end() + len(value))]
    return None


def _specific(fams: list[Family], rule: str, text: str, s: int, end: int) -> list[Family]:
    """The label's families read with the word before it where that names a country's id and the
    word alone names any ("TC Kimlik": Turkey's, "kimlik": any)."""
    if not fams or fams[0].specific or s < 2 or text[s - 1] != " ":
        return fams
    ps = s - 1
    while ps > 0 and (text[ps - 1].isalnum() or text[ps - 1] in ".-"):
        ps -= 1
    return [f for f in families(text[ps:end]) if f.rule == rule and f.specific] or fams


def id_after_word(text: str, s: int, e: int) -> Spans | None:
    """A national id its label names: its field's value, the number of a document of that type,
    else one right after the label in prose, whose check digits hold for the label's country."""
    e0 = word_end(text, s, e)
    if e0 - s <= 3 and text.startswith(" ", e0) and e0 + 1 < len(text) and text[e0 + 1].islower() \
            and text[s:e0].islower():
        return None  # a short word in prose before another ("nie jest", "sin embargo"): no label
    return field_values(labels.NATIONAL_ID, text, s, e) or _typed_document(text, s, e0) \
        or _in_prose(labels.NATIONAL_ID, text, s, e0)


def vat_after_word(text: str, s: int, e: int) -> Spans | None:
    """A VAT number its label names (a field's value, or right after the label in prose: USt-IdNr.
    DE136695976), whose check digits hold (python-stdnum)."""
    return field_values(labels.VAT, text, s, e) or _in_prose(labels.VAT, text, s, word_end(text, s, e))


register(Check("field-vat", span=lambda text, s, e, m: vat_after_word(text, s, e), from_word=vat_after_word,
               inside_words=True))


register(Check("field-id", span=lambda text, s, e, m: id_after_word(text, s, e), from_word=id_after_word,
               inside_words=True))


# --- phone numbers ------------------------------------------------------------------------------

# a number within 24 characters after a phone word in prose ("call me on 0151 8489026")
_PROSE_PHONE = re.compile(r"[^0-9+\n]{0,24}?(\+?\(?[0-9][0-9 ().\-/]{5,20}[0-9])(?![0-9A-Za-z_])")


def phone_after_word(text: str, s: int, e: int) -> Spans | None:
    """The phone number a phone word labels: its field's value (a table's column, ``Tel: ...``),
    else a number in the 24 characters after the word standing alone in prose."""
    found = field_values(labels.PHONE, text, s, e)
    if found:
        return found
    e = word_end(text, s, e)
    if s > 0 and (text[s - 1].isalnum() or text[s - 1] == "_") or e < len(text) and text[e].isalnum():
        return None  # in prose the word stands alone (not tel in hotel, nor phone in phones)
    m = _PROSE_PHONE.match(text, e, min(len(text), e + 72))
    if m is None or m.group(1).count(".") == 3 or not numbers.phone(m.group(1)):
        return None
    return [m.span(1)]


register(Check("phonelabel", span=lambda text, s, e, m: phone_after_word(text, s, e), from_word=phone_after_word,
               inside_words=True))


def _phone(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A number of the phone rule's own shape: +CC in that country's plan (libphonenumber's
    metadata), or North American."""
    digits = sum(c.isdigit() for c in value)
    if value.startswith("+"):
        if not 8 <= digits <= 15:
            return False
        groups = [g for g in re.split(r"[ .\-()]+", value[1:]) if g]
        # +1.2.3 or +12.5.1: a version or an offset, not a number someone dials
        if not (len(groups) == 1 or len(groups) >= 4 or max(len(g) for g in groups) >= 3):
            return False
        if len(groups) == 1 and digits >= 10:
            # one unbroken run, as programs print E.164 (+302101234567): nothing else in a text is
            # written so; a known calling code is enough (a digit short is still someone's number)
            return numbers.calling_code(value) > 0
        return numbers.international_phone(value)
    if digits != 10 and not (digits == 11 and value.startswith("1")):
        return False
    # the North American plan's shape is the pattern's: [2-9]XX [2-9]XX XXXX
    return "." not in value or value.count(".") == 2


register(Check("phone", accept=_phone))


# --- names before an e-mail address, in a chat ------------------------------------------------

def display_name(text: str, s: int) -> tuple[int, int] | None:
    """The full name before the ``<address>`` at ``s`` on its line (mail headers, git's Author:,
    Co-authored-by:): its last two to five words that are a full name, or two to four CJK
    characters."""
    if s < 3 or text[s - 1] != " ":
        return None
    line = text[max(0, s - 80, text.rfind("\n", 0, s) + 1):s - 1]
    words = line.split(" ")
    for n in range(min(5, len(words)), 0, -1):
        cand = " ".join(words[-n:]).lstrip("\"'(")
        span = values.name(cand, specific=False) if n > 1 or not cand.isascii() else None
        if span == (0, len(cand)):
            return s - 1 - len(cand), s - 1
    return None


register(Check("display-name", span=lambda text, s, e, m: display_name(text, s)))


def _full_name(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A full name (two words or more in capitals, none a common word; or CJK, Hangul)."""
    return values.name(value, specific=False) == (0, len(value))


register(Check("full-name", accept=_full_name))


# --- the field judge: personal data in a table's column, a CSV's, a key above its value -------

def _key_words() -> tuple[str, ...]:
    """The label words of the families a field judge reads (lower case; a word of several also
    as a key writes it: social_security, national-id, taxid). A word that hides inside others
    (_INSIDE_WORDS) is replaced by the labels that hold it (sin number, nie-nummer, p.iva)."""
    words = (*labels.PHONE_KEYWORDS, *labels.NAME_KEYWORDS, *labels.BIRTH_KEYWORDS, *labels.ADDRESS_KEYWORDS,
             *labels.NATIONAL_ID_KEYWORDS, *labels.VAT_KEYWORDS, *labels.IBAN_PHRASES, *labels.PASSPORT_KEYWORDS,
             *labels.DRIVING_KEYWORDS, *labels.PLATE_KEYWORDS, *labels.MEDICAL_KEYWORDS, *labels.USERNAME_KEYWORDS, *labels.INSURANCE_KEYWORDS)
    kept = [w.lower() for w in words if w.lower() not in _INSIDE_WORDS]
    phrases = (*labels.VAT_PHRASES, *labels.PHONE_PHRASES, *labels.NAME_PHRASES,
               *(p for ps, _ in labels.ID_LABELS for p in ps), *labels.ID_GENERIC_PHRASES, *labels.PLATE_PHRASES)
    kept += [p.lower() for p in phrases if len(p) > 3 and not any(w in p.lower() for w in kept)]
    out: dict[str, None] = {}
    for w in kept:
        out[w] = None
        if " " in w:
            out.update((w.replace(" ", joint), None) for joint in ("_", "-", ""))
    # ... and each of them as a whole cell of a header (SIN, Tel, Nom, plate): with the cell's
    # delimiters, which the gate finds and engine/fields.py reads as "the key is this word alone"
    for w in sorted(_INSIDE_WORDS):
        out.update((f, None) for f in cell_forms(w))
    return tuple(out)


# Label words that hide inside thousands of other words (using, dict, setting, custom, private,
# authorization, the Polish "nie"): a line holding one is no more likely a table's. A key made of
# one of them alone (a column named SIN) is read inline only (``SIN: ...``); in a longer label it
# is read here (sin number, NIE-Nummer, USt-IdNr., P.IVA, author_name).
_INSIDE_WORDS = frozenset(("sin", "nie", "dic", "nip", "tin", "ust", "iva", "author", "nom", "cui", "uid", "tel",
                           "plate", "mrn", "nhi", "nhc", "cnh", "vrm", "kfz", "dl no", "cccd"))


def personal_field(key: str, value: str) -> str | None:
    """The layout reader's question (engine/fields.py): what the value under ``key`` is. The
    rule of the family the key names whose test the value passes (privacy/personal)."""
    found = judge_span(key, value)
    return found[0] if found is not None and found[0] in _JUDGED else None


_JUDGED = frozenset((labels.PHONE, labels.NAME, labels.BIRTH, labels.ADDRESS, labels.NATIONAL_ID, labels.VAT, labels.IBAN,
                     labels.PASSPORT, labels.DRIVING, labels.PLATE, labels.MEDICAL, labels.USERNAME, labels.INSURANCE))

register_judge(FieldJudge(
    "personal-field", "pii",
    "personal data in a table, a CSV/TSV file, aligned columns, a key above its value or a Name:/Value: pair, under "
    "a header or key that names it (phone, first_name, date_of_birth, address, national_id, SSN, Steuer-ID, "
    "PESEL, VAT, IBAN, ... in many languages): each cell judged as the inline label's value is (a phone number "
    "libphonenumber finds possible, a name's shape, a date, an address's words and number, an id's check digits "
    "by python-stdnum); the finding carries that family's rule, so turning the family off turns it off here too",
    personal_field, _key_words(),
    examples=("id,full_name,phone,status\n7,Bram Bakker,+31 6 1234 5678,active\n",
              "| id | date_of_birth | city |\n|---|---|---|\n| 3 | 1984-03-02 | Porto |",
              "customer;national_id;status\n1;X1234567L;open\n",
              "Steuer-ID\n36574261809\n", "employee\tpassport\tplate\nE7\tGX2878301\tCP71 HEV\n",
              "mrn            patient        dob\n-------------  -------------  ----------\nKH2019/092064  Ida Sørensen   1976-09-10\n",
              "| # | Nom | Tel |\n|---|---|---|\n| 1 | Camille Rousseau | 06 12 34 56 78 |"),
    counter_examples=("id,name,status\n7,build-and-test,active\n", "| phone_model | os |\n|---|---|\n| Pixel 8 | 14 |",
                      "customer;national_id;status\n1;X1234567A;open\n", "id,template,plate\n3,base.html,n/a\n",
                      "Name      Status\n--------  ------\nbuild     passed\n"),
))
