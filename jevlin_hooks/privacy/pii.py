"""Checks for personal data that follows a rule: phone numbers, payment cards, IBANs.

Numbers are everywhere in agent text (ids, timestamps, versions, ports); these checks are what
keep a regex for "digits in groups" from redacting them: lengths, prefixes and checksums.
"""

from __future__ import annotations

import re


def phone(value: str) -> bool:
    """An international (+...) or North American number, not a version or an offset."""
    digits = sum(c.isdigit() for c in value)
    if value.startswith("+"):
        if not 8 <= digits <= 15:
            return False
        groups = [g for g in re.split(r"[ .\-()]+", value[1:]) if g]
        # +1.2.3 or +12.5.1: a version or an offset, not a number someone dials
        return len(groups) == 1 or len(groups) >= 4 or max(len(g) for g in groups) >= 3
    if digits != 10 and not (digits == 11 and value.startswith("1")):
        return False
    if "." in value and not value.count(".") == 2:
        return False
    return True


CARD_LENGTHS = {"4": (13, 16, 19), "5": (16,), "2": (16,), "3": (14, 15, 16, 19), "6": (16, 17, 18, 19)}


def card(value: str) -> bool:
    """Luhn-valid, with a card network's prefix and length."""
    d = value.replace(" ", "").replace("-", "")
    if not d.isdigit() or len(d) not in CARD_LENGTHS.get(d[0], ()) or len(set(d)) < 4:
        return False
    if d[0] == "5" and not "51" <= d[:2] <= "55" or d[0] == "2" and not "2221" <= d[:4] <= "2720":
        return False
    if d[0] == "3" and d[:2] not in ("34", "37", "36", "38", "30", "35"):
        return False
    total = 0
    for i, c in enumerate(reversed(d)):
        n = ord(c) - 48
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


IBAN_LENGTH = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "BY": 28,
    "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
    "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19,
    "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}


def iban_span(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The IBAN's exact extent (its country's length, spaces skipped) if its checksum holds."""
    n = IBAN_LENGTH.get(text[s:s + 2])
    if n is None:
        return None
    chars: list[str] = []
    i = s
    while i < e and len(chars) < n:
        if text[i] != " ":
            chars.append(text[i])
        i += 1
    if len(chars) < n or (i < len(text) and text[i].isalnum()):
        return None
    iban = "".join(chars)
    moved = iban[4:] + iban[:4]
    if int("".join(str(int(c, 36)) for c in moved)) % 97 != 1:
        return None
    return s, i
