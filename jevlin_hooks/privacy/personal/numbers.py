"""Numbers that identify a person, checked with the field's own libraries.

Phone numbers with ``phonenumbers`` (Google's libphonenumber: every country's numbering plan and
formats), national identifiers, VAT numbers and IBANs with ``python-stdnum`` (each format's
length, structure and check digits, country by country). Both are imported on first use, once
per process (the daemon's: the hook path never scrubs), and only when a candidate reaches a
check: text without a phone-like or labelled number never loads them.

Where stdnum has no module (the UK's National Insurance number, Russia's SNILS) the check is
here, from the format's public definition.
"""

from __future__ import annotations

import functools
import importlib
import re
from types import ModuleType
from typing import Any

# The regions a phone number written without its country code is tried in, under a label that
# says it is a phone number, until one finds it possible: where agent text and its users mostly
# come from, the most permissive plans first (Germany's numbers are 6 to 15 digits long).
REGIONS = ("DE", "US", "GB", "FR", "IT", "JP", "CN", "IN", "BR", "RU", "KR", "AU", "MX", "ES", "PT", "NL", "PL",
           "TR", "CA", "SE", "CH", "AT", "BE", "IE")


@functools.cache
def phonenumbers() -> Any:
    """The phonenumbers module, imported once (about 60 ms and 1.5 MB; each region's metadata on
    its first use)."""
    return importlib.import_module("phonenumbers")


@functools.cache
def stdnum(name: str) -> ModuleType:
    """``stdnum.<name>``, imported once."""
    return importlib.import_module("stdnum." + name)


# --- phone numbers ------------------------------------------------------------------------------

_PHONE_CHARS = re.compile(r"\+?\(?[0-9][0-9 ()./\-]*[0-9](?:\s*(?:ext\.?|x|#)\s*[0-9]{1,5})?")
# a phone number inside a field's longer value ("Fernanda Araújo, (21) 3512-1426")
PHONE_RUN = re.compile(r"(?<![\w+])\+?\(?[0-9][0-9 ().\-/]{5,20}[0-9](?![\w])")
_NOT_PHONE = re.compile(
    r"^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$|^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$|^\d+\.\d+\.\d+\.\d+$|^\d{1,2}:\d{2}"
)
_VERSION = re.compile(r"\d+(?:\.\d+){1,2}")


@functools.lru_cache(maxsize=4096)
def phone(value: str) -> bool:
    """A phone number as a person writes one, under a label that says it is one: international
    (+CC, 00CC) in its country's plan (international_phone), or national: 7 to 15 digits in a
    phone's characters. Not a date, a version, an IP address or a time. Cached: a session's
    records carry the same history again."""
    v = value.strip()
    if not _PHONE_CHARS.fullmatch(v) or _NOT_PHONE.match(v):
        return False
    digits = sum(c.isdigit() for c in v)
    if not 7 <= digits <= 15 or digits < 9 and _VERSION.fullmatch(v):
        return False
    if v.startswith("+") or v.startswith("00") and digits >= 9:
        return international_phone("+" + v[2:] if v.startswith("00") else v)
    # A national number names no country: libphonenumber cannot tell more than its shape does
    # (one region or another finds any 7 to 15 digits possible).
    return True


_TRUNK = re.compile(r"\(0\)")


def calling_code(value: str) -> int:
    """The country calling code ``+CC...`` starts with, if libphonenumber knows it (codes are
    prefix-free: one reading at most), else 0."""
    digits = "".join(c for c in value if c.isdigit())
    pn = phonenumbers()
    for n in (1, 2, 3):
        if len(digits) > n and int(digits[:n]) in pn.COUNTRY_CODE_TO_REGION_CODE:
            return int(digits[:n])
    return 0


@functools.lru_cache(maxsize=4096)
def international_phone(value: str) -> bool:
    """``+CC ...``: a country calling code libphonenumber knows, and a national number of a
    length that country's plan allows (libphonenumber's is_possible_number, read from its
    metadata without parsing: 3 us, not 60)."""
    digits = "".join(c for c in _TRUNK.sub("", value) if c.isdigit())
    pn = phonenumbers()
    for n in (1, 2, 3):  # calling codes are prefix-free
        regions = pn.COUNTRY_CODE_TO_REGION_CODE.get(int(digits[:n]) if len(digits) > n else -1)
        if regions:
            md = pn.PhoneMetadata.metadata_for_region_or_calling_code(int(digits[:n]), regions[0])
            if md is None or md.general_desc is None:
                return False
            desc = md.general_desc
            lengths = (*(desc.possible_length or ()), *(desc.possible_length_local_only or ()))
            national = digits[n:]
            prefix = md.national_prefix or ""  # +44 (0)20 ..., +880 0961...: a trunk prefix written anyway
            return len(national) in lengths or bool(prefix) and national.startswith(prefix) and len(national) - len(prefix) in lengths
    return False


# --- national identifiers -----------------------------------------------------------------------

_ID_CHARS = re.compile(r"[0-9A-Za-z][0-9A-Za-z .\-/]{4,28}[0-9A-Za-z]")
_NINO = re.compile(r"(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z][0-9]{6}[A-D]")


def gb_nino(number: str) -> bool:
    """A UK National Insurance number: two prefix letters (D, F, I, Q, U, V never; O never second;
    not BG, GB, NK, KN, TN, NT, ZZ), six digits, a suffix A-D. It has no check digit."""
    return _NINO.fullmatch(re.sub(r"[ \-]", "", number).upper()) is not None


def ru_snils(number: str) -> bool:
    """A Russian SNILS: 11 digits, the last two a checksum of the first nine (weights 9..1, mod
    101, 100 and 101 giving 00)."""
    d = re.sub(r"[ \-]", "", number)
    if len(d) != 11 or not d.isdigit() or len(set(d[:9])) < 2:
        return False
    total = sum(int(c) * w for c, w in zip(d[:9], range(9, 0, -1), strict=True)) % 101
    return d[9:] == f"{0 if total == 100 else total:02d}"


def us_ssn(number: str) -> bool:
    """stdnum's SSN check, and not the number every form shows as an example (123-45-6789)."""
    return re.sub(r"[ \-]", "", number) != "123456789" and bool(stdnum("us.ssn").is_valid(number))


def cn_ric(number: str) -> bool:
    """A Chinese resident id: stdnum's check digit and birth date, without its table of region
    codes (a new or renamed district's code is still a person's id)."""
    ric = stdnum("cn.ric")
    n = ric.compact(number)
    try:
        return len(n) == 18 and n[:17].isdigit() and ric.calc_check_digit(n) == n[17].upper() and bool(ric.get_birth_date(n))
    except Exception:  # noqa: BLE001 - an impossible birth date
        return False


def _luhn(digits: str) -> bool:
    return bool(stdnum("luhn").is_valid(digits))


def ae_eid(number: str) -> bool:
    """An Emirates ID: 784 (the UAE's ISO code), a year of birth, seven digits and a Luhn check
    digit (784-1984-1234567-1)."""
    d = re.sub(r"[ \-]", "", number)
    return len(d) == 15 and d.isdigit() and d.startswith("784") and 1900 <= int(d[3:7]) <= 2030 and _luhn(d)


def sa_nid(number: str) -> bool:
    """A Saudi national id (1...) or iqama (2...): ten digits, a Luhn check digit."""
    d = re.sub(r"[ \-]", "", number)
    return len(d) == 10 and d.isdigit() and d[0] in "12" and _luhn(d)


def vn_cccd(number: str) -> bool:
    """A Vietnamese citizen id (CCCD): twelve digits, a province code (001-096), a century and
    sex digit, the year of birth's last two digits. It has no check digit: only under its label."""
    d = re.sub(r"[ \-.]", "", number)
    return len(d) == 12 and d.isdigit() and 1 <= int(d[:3]) <= 96 and len(set(d)) > 3


_OWN = {"gb.nino": gb_nino, "ru.snils": ru_snils, "us.ssn": us_ssn, "cn.ric": cn_ric, "ae.eid": ae_eid, "sa.nid": sa_nid,
        "vn.cccd": vn_cccd}


@functools.lru_cache(maxsize=4096)
def national_id(value: str, validators: tuple[str, ...]) -> bool:
    """``value`` passes one of ``validators`` (stdnum module names, or gb.nino, ru.snils)."""
    v = value.strip()
    if not _ID_CHARS.fullmatch(v) or len(set(c for c in v if c.isalnum())) < 3:
        return False
    for name in validators:
        own = _OWN.get(name)
        try:
            if own(v) if own is not None else stdnum(name).is_valid(v):
                return True
        except Exception:  # noqa: BLE001, S112 - a validator's quirk on odd input is a "no", never a crash
            continue
    return False


# --- VAT numbers, IBANs, cards ------------------------------------------------------------------

_VAT_MODULES = {"GB": "gb.vat", "CH": "ch.vat", "NO": "no.mva"}


@functools.lru_cache(maxsize=1024)
def vat(value: str) -> bool:
    """A VAT number with its country's prefix whose check digits hold (the EU's, the UK's, Swiss
    and Norwegian), or, with no prefix, one that holds for some EU country."""
    v = value.strip().replace(" ", "").replace(".", "").replace("-", "")
    if not 8 <= len(v) <= 16 or not v.isalnum():
        return False
    prefix = v[:2].upper()
    try:
        if prefix in _VAT_MODULES:
            return bool(stdnum(_VAT_MODULES[prefix]).is_valid(v))
        eu = stdnum("eu.vat")
        if prefix.isalpha():
            return bool(eu.is_valid(v))
        return bool(eu.guess_country(v))
    except Exception:  # noqa: BLE001 - as above
        return False


def iban(value: str) -> bool:
    """An IBAN: its country's length and the mod-97 check (stdnum's, without the national
    account-number checks, which test sets and real exports both skip)."""
    try:
        stdnum("iban").validate(value.strip(), check_country=False)
        return True
    except Exception:  # noqa: BLE001 - stdnum raises its ValidationError subclasses
        return False


def card(value: str) -> bool:
    """12-19 digits whose Luhn check holds."""
    d = re.sub(r"[ \-]", "", value.strip())
    return d.isdigit() and 12 <= len(d) <= 19 and len(set(d)) > 3 and bool(stdnum("luhn").is_valid(d))
