#!/usr/bin/env python3
"""Write a labelled first-sight test set for a secret/PII scrubber (set.jsonl).

Standard library only and seeded: `python generate.py` writes the same bytes every run.
Every value is random and made for this set; none is a live credential or a real person.
The set was written without reading how the scrubber works (see README.md beside this file).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import re
import string
import struct
import unicodedata
import urllib.parse
import uuid
import zlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

DEFAULT_SEED = 20261203
R = random.Random(DEFAULT_SEED)

DIGITS = string.digits
HEX = "0123456789abcdef"
UHEX = HEX.upper()
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
ALNUM = DIGITS + UPPER + LOWER  # base62 in the order GitHub and npm use for their checksums
B64 = UPPER + LOWER + DIGITS + "+/"
B64URL = UPPER + LOWER + DIGITS + "-_"
B32 = UPPER + "234567"
LOWER_ALNUM = LOWER + DIGITS
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
NOW = datetime(2026, 12, 3, 9, 41, 17, tzinfo=UTC)


def rs(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def hx(n: int) -> str:
    return rs(HEX, n)


def dg(n: int) -> str:
    return rs(DIGITS, n)


def pick(seq):  # type: ignore[no-untyped-def]
    return R.choice(seq)


def chance(p: float) -> bool:
    return R.random() < p


def b64_bytes(n: int) -> str:
    return base64.b64encode(R.randbytes(n)).decode()


def b64url_bytes(n: int, pad: bool = False) -> str:
    s = base64.urlsafe_b64encode(R.randbytes(n)).decode()
    return s if pad else s.rstrip("=")


def b64s(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64u_json(obj: object) -> str:
    raw = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def when(days_back: float = 30.0) -> datetime:
    return NOW - timedelta(seconds=R.randint(0, int(days_back * 86400)))


def iso(dt: datetime, frac: int = 0) -> str:
    base = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        base += "." + dg(frac)
    return base + "Z"


def epoch(dt: datetime) -> int:
    return int(dt.timestamp())


# ---------------------------------------------------------------- check digits


def luhn_digit(payload: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(payload)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def luhn_ok(num: str) -> bool:
    return luhn_digit(num[:-1]) == num[-1]


def b62(n: int, width: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = ALNUM[r] + out
    return out.rjust(width, "0")


def crc_tail(body: str) -> str:
    return b62(zlib.crc32(body.encode()), 6)


_VD = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_VP = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]
_VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_digit(payload: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(payload)):
        c = _VD[c][_VP[(i + 1) % 8][int(ch)]]
    return str(_VINV[c])


def verhoeff_ok(num: str) -> bool:
    c = 0
    for i, ch in enumerate(reversed(num)):
        c = _VD[c][_VP[i % 8][int(ch)]]
    return c == 0


def mod11_10_digit(payload: str) -> str:
    """ISO 7064 MOD 11,10 (German Steuer-ID and USt-IdNr.)."""
    product = 10
    for ch in payload:
        s = (int(ch) + product) % 10
        if s == 0:
            s = 10
        product = (s * 2) % 11
    check = 11 - product
    return "0" if check == 10 else str(check)


def iban_check(country: str, bban: str) -> str:
    rearranged = bban + country + "00"
    num = "".join(str(int(ch, 36)) for ch in rearranged)
    return f"{98 - int(num) % 97:02d}"


def iban_ok(iban: str) -> bool:
    s = iban.replace(" ", "")
    num = "".join(str(int(ch, 36)) for ch in s[4:] + s[:4])
    return int(num) % 97 == 1


def crc24(data: bytes) -> int:
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


_CF_ODD = {
    **dict(zip(DIGITS, [1, 0, 5, 7, 9, 13, 15, 17, 19, 21], strict=True)),
    **dict(zip(UPPER, [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23], strict=True)),
}
_CF_EVEN = {**{d: int(d) for d in DIGITS}, **{c: i for i, c in enumerate(UPPER)}}


def cf_check_char(payload: str) -> str:
    """Odd/even table check used by the Italian codice fiscale and the CIN of Italian IBANs."""
    total = 0
    for i, ch in enumerate(payload):
        total += _CF_ODD[ch] if i % 2 == 0 else _CF_EVEN[ch]
    return UPPER[total % 26]


# ---------------------------------------------------------------- national ids and money


def ssn() -> str:
    area = R.choice([n for n in range(1, 900) if n != 666])
    return f"{area:03d}-{R.randint(1, 99):02d}-{R.randint(1, 9999):04d}"


def aadhaar() -> str:
    body = str(R.randint(2, 9)) + dg(10)
    num = body + verhoeff_digit(body)
    assert verhoeff_ok(num)
    return f"{num[:4]} {num[4:8]} {num[8:]}"


def steuer_id() -> str:
    while True:
        digits = R.sample(DIGITS, 9)
        digits.append(R.choice(digits))
        R.shuffle(digits)
        if digits[0] != "0":
            break
    body = "".join(digits)
    return body + mod11_10_digit(body)


def de_vat() -> str:
    body = str(R.randint(1, 9)) + dg(7)
    return "DE" + body + mod11_10_digit(body)


def nir(sex: int, born: datetime) -> str:
    dept = f"{R.choice([n for n in range(1, 96) if n != 20]):02d}"
    body = f"{sex}{born:%y}{born:%m}{dept}{R.randint(1, 990):03d}{R.randint(1, 999):03d}"
    key = 97 - int(body) % 97
    return f"{body[0]} {body[1:3]} {body[3:5]} {body[5:7]} {body[7:10]} {body[10:13]} {key:02d}"


def dni() -> str:
    n = R.randint(10000000, 99999999)
    return f"{n}{'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}"


def nie() -> str:
    p = R.randint(0, 2)
    n = R.randint(0, 9999999)
    return f"{'XYZ'[p]}{n:07d}{'TRWAGMYFPDXBNJZSQVHLCKE'[int(f'{p}{n:07d}') % 23]}"


def cpf(formatted: bool = True) -> str:
    while True:
        d = [R.randint(0, 9) for _ in range(9)]
        if len(set(d)) > 1:
            break
    for n in (10, 11):
        s = sum(v * w for v, w in zip(d, range(n, 1, -1), strict=False))
        r = s % 11
        d.append(0 if r < 2 else 11 - r)
    t = "".join(map(str, d))
    return f"{t[:3]}.{t[3:6]}.{t[6:9]}-{t[9:]}" if formatted else t


def cnpj() -> str:
    d = [R.randint(0, 9) for _ in range(8)] + [0, 0, 0, 1]
    for w in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        r = sum(v * x for v, x in zip(d, w, strict=True)) % 11
        d.append(0 if r < 2 else 11 - r)
    t = "".join(map(str, d))
    return f"{t[:2]}.{t[2:5]}.{t[5:8]}/{t[8:12]}-{t[12:]}"


def pt_nif() -> str:
    d = [R.choice([1, 2, 3])] + [R.randint(0, 9) for _ in range(7)]
    r = sum(v * w for v, w in zip(d, range(9, 1, -1), strict=True)) % 11
    d.append(0 if r < 2 else 11 - r)
    return "".join(map(str, d))


def pesel(born: datetime, female: bool) -> str:
    month = born.month + (20 if born.year >= 2000 else 0)
    serial = dg(3) + str(R.choice([0, 2, 4, 6, 8] if female else [1, 3, 5, 7, 9]))
    body = f"{born:%y}{month:02d}{born:%d}{serial}"
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    s = sum(int(c) * x for c, x in zip(body, w, strict=True))
    return body + str((10 - s % 10) % 10)


def kr_rrn(born: datetime, female: bool) -> str:
    g = (3 if born.year >= 2000 else 1) + (1 if female else 0)
    body = f"{born:%y%m%d}{g}{dg(5)}"
    w = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]
    s = sum(int(c) * x for c, x in zip(body, w, strict=True))
    num = body + str((11 - s % 11) % 10)
    return f"{num[:6]}-{num[6:]}"


def bsn() -> str:
    while True:
        d = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(7)]
        s = sum(v * w for v, w in zip(d, range(9, 1, -1), strict=True))
        last = s % 11
        if last < 10:
            return "".join(map(str, d)) + str(last)


def nl_vat() -> str:
    return "NL" + bsn() + "B" + f"{R.randint(1, 3):02d}"


def _consonants(s: str) -> str:
    return "".join(c for c in s if c.isalpha() and c not in "AEIOU")


def _vowels(s: str) -> str:
    return "".join(c for c in s if c in "AEIOU")


def ascii_upper(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s.upper()) if c.isalpha() and c.isascii())


def codice_fiscale(first: str, last: str, born: datetime, female: bool) -> str:
    ln, fn = ascii_upper(last), ascii_upper(first)
    sur = (_consonants(ln) + _vowels(ln) + "XXX")[:3]
    cons = _consonants(fn)
    name = cons[0] + cons[2] + cons[3] if len(cons) >= 4 else (cons + _vowels(fn) + "XXX")[:3]
    day = born.day + (40 if female else 0)
    place = R.choice(["H501", "F205", "L219", "F839", "A944", "D612", "G273", "L736", "L424", "B157"])
    body = f"{sur}{name}{born:%y}{'ABCDEHLMPRST'[born.month - 1]}{day:02d}{place}"
    return body + cf_check_char(body)


def it_vat() -> str:
    body = dg(7) + f"{R.randint(1, 100):03d}"
    return "IT" + body + luhn_digit(body)


_CURP_DICT = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"


def curp(first: str, last1: str, last2: str, born: datetime, female: bool) -> str:
    a, b, c = ascii_upper(last1), ascii_upper(last2), ascii_upper(first)
    inner_vowel = next((ch for ch in a[1:] if ch in "AEIOU"), "X")
    inner_cons = [next((ch for ch in s[1:] if ch not in "AEIOU"), "X") for s in (a, b, c)]
    state = R.choice(["DF", "JC", "NL", "PL", "GT", "MC", "VZ", "YN", "QT", "BC"])
    homoclave = R.choice(UPPER) if born.year >= 2000 else R.choice(DIGITS)
    body = f"{a[0]}{inner_vowel}{b[0]}{c[0]}{born:%y%m%d}{'M' if female else 'H'}{state}{''.join(inner_cons)}{homoclave}"
    s = sum(_CURP_DICT.index(ch) * (18 - i) for i, ch in enumerate(body))
    return body + str((10 - s % 10) % 10)


def nino() -> str:
    first = "ABCEGHJKLMNOPRSTWXYZ"
    second = "ABCEGHJKLMNPRSTWXYZ"
    while True:
        p = R.choice(first) + R.choice(second)
        if p not in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}:
            break
    n = dg(6)
    return f"{p} {n[:2]} {n[2:4]} {n[4:]} {R.choice('ABCD')}"


def cn_resident_id(born: datetime, female: bool) -> str:
    region = R.choice(["110101", "310115", "440305", "330106", "510107", "320102", "420106", "610113"])
    seq = f"{R.randint(0, 99):02d}{R.choice('02468' if female else '13579')}"
    body = f"{region}{born:%Y%m%d}{seq}"
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    s = sum(int(c) * x for c, x in zip(body, w, strict=True))
    return body + "10X98765432"[s % 11]


def tc_kimlik() -> str:
    d = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(8)]
    d10 = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    d.append(d10)
    d.append(sum(d) % 10)
    return "".join(map(str, d))


def my_number() -> str:
    body = dg(11)
    s = sum(int(p) * (n + 1 if n <= 6 else n - 5) for n, p in enumerate(reversed(body), start=1))
    r = s % 11
    num = body + ("0" if r <= 1 else str(11 - r))
    return f"{num[:4]} {num[4:8]} {num[8:]}"


def snils() -> str:
    while True:
        body = dg(9)
        if int(body) > 1001998:
            break
    s = sum(int(c) * w for c, w in zip(body, range(9, 0, -1), strict=True))
    if s < 100:
        c = s
    elif s in (100, 101):
        c = 0
    else:
        c = s % 101
        c = 0 if c == 100 else c
    return f"{body[:3]}-{body[3:6]}-{body[6:]} {c:02d}"


def ca_sin() -> str:
    body = str(R.randint(1, 7)) + dg(7)
    n = body + luhn_digit(body)
    return f"{n[:3]} {n[3:6]} {n[6:]}"


def au_tfn() -> str:
    w = [1, 4, 3, 7, 5, 8, 6, 9, 10]
    while True:
        body = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(7)]
        for last in range(10):
            if sum(v * x for v, x in zip([*body, last], w, strict=True)) % 11 == 0:
                t = "".join(map(str, [*body, last]))
                return f"{t[:3]} {t[3:6]} {t[6:]}"


def fr_vat() -> str:
    siren = dg(8)
    siren += luhn_digit(siren)
    key = (12 + 3 * (int(siren) % 97)) % 97
    return f"FR{key:02d}{siren}"


def pl_nip() -> str:
    w = [6, 5, 7, 2, 3, 4, 5, 6, 7]
    while True:
        d = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(8)]
        c = sum(v * x for v, x in zip(d, w, strict=True)) % 11
        if c < 10:
            return "".join(map(str, d)) + str(c)


def be_vat() -> str:
    body = "0" + str(R.randint(2, 9)) + dg(6)
    return f"BE{body}{97 - int(body) % 97:02d}"


def gb_vat() -> str:
    while True:
        d = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(6)]
        s = sum(v * w for v, w in zip(d, range(8, 1, -1), strict=True)) + 55
        return "GB" + "".join(map(str, d)) + f"{(97 - s % 97) % 97:02d}"


def _es_dc(digits10: str) -> str:
    w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6]
    r = 11 - sum(int(c) * x for c, x in zip(digits10, w, strict=True)) % 11
    return "0" if r == 11 else "1" if r == 10 else str(r)


def _fr_rib_key(bank: str, branch: str, acct: str) -> str:
    return f"{97 - (89 * int(bank) + 15 * int(branch) + 3 * int(acct)) % 97:02d}"


def _nl_account() -> str:
    while True:
        d = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(9)]
        if sum(v * w for v, w in zip(d, range(10, 0, -1), strict=True)) % 11 == 0:
            return "".join(map(str, d))


def iban(country: str) -> str:
    if country == "DE":
        bban = pick(["10070000", "20040000", "37040044", "50010517", "76026000", "12030000"]) + dg(10)
    elif country == "FR":
        bank, branch, acct = pick(["30004", "30003", "20041", "10278"]), dg(5), dg(11)
        bban = bank + branch + acct + _fr_rib_key(bank, branch, acct)
    elif country == "ES":
        bank, branch, acct = pick(["2100", "0049", "0182", "2085", "0081"]), dg(4), dg(10)
        bban = bank + branch + _es_dc("00" + bank + branch) + _es_dc(acct) + acct
    elif country == "IT":
        rest = pick(["03069", "02008", "05034", "03062"]) + dg(5) + dg(12)
        bban = cf_check_char(rest) + rest
    elif country == "NL":
        bban = pick(["ABNA", "INGB", "RABO", "TRIO", "SNSB", "ASNB", "KNAB", "BUNQ"]) + _nl_account()
    elif country == "GB":
        bban = pick(["NWBK", "BARC", "LOYD", "HBUK", "MIDL"]) + dg(6) + dg(8)
    elif country == "PL":
        bban = pick(["1020", "1140", "1050", "1090", "2490"]) + dg(20)
    elif country == "PT":
        b19 = pick(["0035", "0033", "0010", "0007"]) + dg(15)
        bban = b19 + f"{98 - int(b19 + '00') % 97:02d}"
    elif country == "BE":
        b10 = dg(10)
        c = int(b10) % 97 or 97
        bban = b10 + f"{c:02d}"
    elif country == "AT":
        bban = pick(["12000", "20111", "14000", "32000"]) + dg(11)
    elif country == "CH":
        bban = pick(["00762", "00230", "08390"]) + dg(12)
    elif country == "TR":
        bban = pick(["00062", "00010", "00046", "00111"]) + "0" + dg(16)
    else:
        raise ValueError(country)
    out = country + iban_check(country, bban) + bban
    assert iban_ok(out)
    return out


def group4(s: str) -> str:
    return " ".join(s[i : i + 4] for i in range(0, len(s), 4))


def card_number(brand: str | None = None) -> str:
    brand = brand or pick(["visa", "visa", "mc", "mc", "amex"])
    if brand == "visa":
        body = "4" + dg(14)
    elif brand == "mc":
        body = pick(["51", "52", "53", "54", "55", "2221", "2720"])
        body += dg(15 - len(body))
    else:
        body = pick(["34", "37"]) + dg(12)
    num = body + luhn_digit(body)
    assert luhn_ok(num)
    return num


def card_fmt(num: str) -> str:
    if len(num) == 15:
        return f"{num[:4]} {num[4:10]} {num[10:]}"
    sep = pick([" ", "-", " ", ""])
    return sep.join(num[i : i + 4] for i in range(0, 16, 4))


def public_ipv4() -> str:
    first = pick([31, 37, 46, 62, 77, 78, 79, 80, 81, 84, 85, 86, 87, 88, 89, 91, 93, 94, 95, 109, 176, 178, 185, 188, 189, 190, 201, 212, 213, 217])
    return f"{first}.{R.randint(0, 255)}.{R.randint(0, 255)}.{R.randint(1, 254)}"


def public_ipv6() -> str:
    return f"2a02:{hx(4)}:{hx(4)}:{hx(4)}:{hx(4)}:{hx(4)}:{hx(4)}:{hx(4)}"


def private_ip() -> str:
    return pick([f"10.{R.randint(0, 255)}.{R.randint(0, 255)}.{R.randint(2, 250)}", f"172.{R.randint(16, 31)}.{R.randint(0, 255)}.{R.randint(2, 250)}", f"192.168.{R.randint(0, 20)}.{R.randint(2, 250)}"])


# ---------------------------------------------------------------- key material


def pem(label: str, der: bytes, width: int = 64) -> str:
    b = base64.b64encode(der).decode()
    body = "\n".join(b[i : i + width] for i in range(0, len(b), width))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def rsa_pkcs8_pem() -> str:
    head = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100")
    return pem("PRIVATE KEY", head + R.randbytes(1217 - len(head)))


def rsa_pkcs1_pem() -> str:
    head = bytes.fromhex("308204a40201000282010100")
    return pem("RSA PRIVATE KEY", head + R.randbytes(1192 - len(head)))


def ec_pem() -> str:
    der = bytes.fromhex("30770201010420") + R.randbytes(32) + bytes.fromhex("a00a06082a8648ce3d030107a14403420004") + R.randbytes(64)
    return pem("EC PRIVATE KEY", der)


def _ssh_str(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def ssh_ed25519_pair(comment: str) -> tuple[str, str]:
    """(private OpenSSH block, public line) built in the real openssh-key-v1 layout."""
    pub = R.randbytes(32)
    blob = _ssh_str(b"ssh-ed25519") + _ssh_str(pub)
    check = R.randbytes(4)
    priv = check + check + blob + _ssh_str(R.randbytes(32) + pub) + _ssh_str(comment.encode())
    pad = 1
    while len(priv) % 8:
        priv += bytes([pad])
        pad += 1
    raw = b"openssh-key-v1\x00" + _ssh_str(b"none") + _ssh_str(b"none") + _ssh_str(b"") + struct.pack(">I", 1) + _ssh_str(blob) + _ssh_str(priv)
    return pem("OPENSSH PRIVATE KEY", raw, 70), f"ssh-ed25519 {base64.b64encode(blob).decode()} {comment}"


def ssh_rsa_pub(comment: str) -> str:
    blob = _ssh_str(b"ssh-rsa") + _ssh_str(b"\x01\x00\x01") + _ssh_str(b"\x00" + bytes([R.randint(0xC0, 0xFF)]) + R.randbytes(255))
    return f"ssh-rsa {base64.b64encode(blob).decode()} {comment}"


def ssh_fingerprint(pub_line: str) -> str:
    blob = base64.b64decode(pub_line.split()[1])
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def ssh_md5_fingerprint() -> str:
    return ":".join(hx(2) for _ in range(16))


def pgp_block(kind: str) -> str:
    """ASCII-armoured PGP block with a real CRC24 tail; kind is PRIVATE or PUBLIC."""
    tag = 0x94 if kind == "PRIVATE" else 0x98
    body = bytes([tag, 0x58 if kind == "PRIVATE" else 0x33, 0x04]) + R.randbytes(4) + bytes.fromhex("16092b06010401da470f0101") + R.randbytes(300 if kind == "PRIVATE" else 160)
    b = base64.b64encode(body).decode()
    lines = "\n".join(b[i : i + 64] for i in range(0, len(b), 64))
    c = base64.b64encode(crc24(body).to_bytes(3, "big")).decode()
    return f"-----BEGIN PGP {kind} KEY BLOCK-----\n\n{lines}\n={c}\n-----END PGP {kind} KEY BLOCK-----"


def public_key_pem() -> str:
    head = bytes.fromhex("30820122300d06092a864886f70d01010105000382010f003082010a0282010100")
    return pem("PUBLIC KEY", head + bytes([R.randint(0xC0, 0xFF)]) + R.randbytes(255) + bytes.fromhex("0203010001"))


def certificate_pem() -> str:
    head = bytes.fromhex("3082036b30820253a003020102021400")
    return pem("CERTIFICATE", head + R.randbytes(879 - len(head)))


def gpg_fpr() -> str:
    return hx(40).upper()


def gpg_fpr_spaced(f: str) -> str:
    g = [f[i : i + 4] for i in range(0, 40, 4)]
    return " ".join(g[:5]) + "  " + " ".join(g[5:])


# ---------------------------------------------------------------- credential formats


def aws_akid(prefix: str = "AKIA") -> str:
    return prefix + rs(B32, 16)


def aws_secret() -> str:
    return rs(UPPER + LOWER + DIGITS + "+/", 40)


def aws_session_token() -> str:
    return "IQoJb3JpZ2luX2VjE" + rs(B64, R.randint(380, 620)) + pick(["", "=", "=="])


def gh_token(prefix: str = "ghp") -> str:
    body = rs(ALNUM, 30)
    return f"{prefix}_{body}{crc_tail(body)}"


def gh_fine_grained() -> str:
    return "github_pat_11" + rs(UPPER + DIGITS, 9) + rs(ALNUM, 11) + "_" + rs(ALNUM, 59)


def npm_token() -> str:
    body = rs(ALNUM, 30)
    return f"npm_{body}{crc_tail(body)}"


def glpat() -> str:
    return "glpat-" + rs(ALNUM + "-_", 20)


def slack_bot() -> str:
    return f"xoxb-{dg(R.choice([11, 12]))}-{dg(R.choice([12, 13]))}-{rs(ALNUM, 24)}"


def slack_user() -> str:
    return f"xoxp-{dg(11)}-{dg(12)}-{dg(13)}-{hx(32)}"


def slack_app() -> str:
    return f"xapp-1-A{rs(UPPER + DIGITS, 10)}-{dg(13)}-{hx(64)}"


def slack_webhook() -> tuple[str, str]:
    tok = rs(ALNUM, 24)
    return f"https://hooks.slack.com/services/T0{rs(UPPER + DIGITS, 8)}/B0{rs(UPPER + DIGITS, 9)}/{tok}", tok


def discord_webhook() -> tuple[str, str]:
    tok = rs(B64URL, 68)
    return f"https://discord.com/api/webhooks/{R.randint(10**17, 10**18)}/{tok}", tok


def stripe_secret(live: bool = True) -> str:
    mode = "live" if live else "test"
    return f"sk_{mode}_51" + rs(ALNUM, 97) if chance(0.6) else f"sk_{mode}_" + rs(ALNUM, 24)


def stripe_restricted() -> str:
    return "rk_live_51" + rs(ALNUM, 97)


def stripe_whsec() -> str:
    return "whsec_" + rs(ALNUM, 32)


def stripe_publishable() -> str:
    return "pk_live_51" + rs(ALNUM, 97)


def openai_key() -> str:
    r = R.random()
    if r < 0.6:
        return "sk-proj-" + rs(B64URL, 74) + "T3BlbkFJ" + rs(B64URL, 74)
    if r < 0.8:
        return "sk-svcacct-" + rs(B64URL, 74) + "T3BlbkFJ" + rs(B64URL, 74)
    return "sk-" + rs(ALNUM, 20) + "T3BlbkFJ" + rs(ALNUM, 20)


def anthropic_key() -> str:
    return ("sk-ant-api03-" if chance(0.85) else "sk-ant-admin01-") + rs(B64URL, 93) + "AA"


def hf_token() -> str:
    return "hf_" + rs(UPPER + LOWER, 34)


def pypi_token(test: bool = False) -> str:
    head = "pypi-AgENdGVzdC5weXBpLm9yZw" if test else "pypi-AgEIcHlwaS5vcmc"
    return head + "CJ" + rs(B64URL, R.randint(150, 190))


def twilio_sid() -> str:
    return "AC" + hx(32)


def twilio_auth() -> str:
    return hx(32)


def sendgrid_key() -> str:
    return "SG." + rs(B64URL, 22) + "." + rs(B64URL, 43)


def shopify_token(kind: str = "shpat") -> str:
    return f"{kind}_{hx(32)}"


def do_token() -> str:
    return pick(["dop_v1_", "doo_v1_", "dor_v1_"]) + hx(64)


def vault_token() -> str:
    r = R.random()
    if r < 0.5:
        return "hvs." + rs(ALNUM, 24)
    if r < 0.85:
        return "hvs.CAESI" + rs(B64URL, 86)
    return "hvb.AAAAAQ" + rs(B64URL, 128)


def doppler_token() -> str:
    kind = pick(["st", "st", "pt", "sa", "ct"])
    if kind == "st":
        return f"dp.st.{pick(['prd', 'stg', 'dev', 'prd_eu'])}.{rs(ALNUM, 40)}"
    return f"dp.{kind}.{rs(ALNUM, 43)}"


def google_api_key() -> str:
    return "AIzaSy" + rs(B64URL, 33)


def gcp_access_token() -> str:
    return "ya29.a0A" + rs(B64URL, R.randint(170, 230)) + "0" + rs(B64URL, 3)


def google_refresh() -> str:
    return "1//0" + rs(B64URL, 2) + rs(B64URL, 99)


def gocspx() -> str:
    return "GOCSPX-" + rs(B64URL, 28)


def azure_storage_key() -> str:
    return b64_bytes(64)


def azure_client_secret() -> str:
    return rs(ALNUM, 3) + "8Q~" + rs(ALNUM + "_~.-", 34)


def azure_devops_pat() -> str:
    return rs("abcdefghijklmnopqrstuvwxyz234567", 52)


def azure_sas_sig() -> str:
    return b64_bytes(32)


def telegram_token() -> str:
    return f"{R.randint(10**9, 8 * 10**9)}:AA{rs(B64URL, 33)}"


def mailgun_key() -> str:
    return "key-" + hx(32)


def cloudflare_token() -> str:
    return rs(B64URL, 40)


def linear_key() -> str:
    return "lin_api_" + rs(ALNUM, 40)


def atlassian_token() -> str:
    return "ATATT3xFfGF0" + rs(B64URL, 170) + "=" + hx(8).upper()


def tfc_token() -> str:
    return rs(ALNUM, 14) + ".atlasv1." + rs(ALNUM, 67)


def databricks_token() -> str:
    return "dapi" + hx(32) + pick(["", "-2", "-3"])


def grafana_token() -> str:
    return "glsa_" + rs(ALNUM, 32) + "_" + hx(8)


def postman_key() -> str:
    return f"PMAK-{hx(24)}-{hx(34)}"


def netlify_token() -> str:
    return "nfp_" + rs(ALNUM, 36)


def sentry_token() -> str:
    return "sntryu_" + hx(64)


def square_token() -> str:
    return "EAAA" + rs(B64URL, 60)


def age_key() -> str:
    return "AGE-SECRET-KEY-1" + rs(BECH32, 58).upper()


def op_service_token() -> str:
    head = b64u_json({"signInAddress": "my.1password.eu", "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256", "iterations": 650000}})
    return "ops_" + head + rs(B64URL, 420)


def fly_token() -> str:
    return "FlyV1 fm2_" + rs(B64URL, 180)


def heroku_key() -> str:
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def dd_api() -> str:
    return hx(32)


def dd_app() -> str:
    return hx(40)


def django_key() -> str:
    alpha = LOWER + DIGITS + "!@#$%^&*(-_=+)"
    return ("django-insecure-" if chance(0.3) else "") + rs(alpha, 50)


def rails_key_base() -> str:
    return hx(128)


def laravel_key() -> str:
    return "base64:" + b64_bytes(32)


def fernet_key() -> str:
    return b64url_bytes(32, pad=True)


def internal_key() -> str:
    r = R.random()
    if r < 0.3:
        return hx(32)
    if r < 0.55:
        return rs(ALNUM, 40)
    if r < 0.75:
        return b64url_bytes(30)
    return rs(ALNUM, 8) + "." + rs(ALNUM, 32)


def totp_secret() -> str:
    return rs(B32, 32)


def recovery_code() -> str:
    return f"{hx(5)}-{hx(5)}"


def session_cookie(kind: str) -> tuple[str, str]:
    """(cookie name, value) in the shapes common frameworks use."""
    if kind == "django":
        return "sessionid", rs(LOWER_ALNUM, 32)
    if kind == "php":
        return "PHPSESSID", rs(LOWER_ALNUM, 26)
    if kind == "java":
        return "JSESSIONID", hx(32).upper()
    if kind == "flask":
        payload = b64u_json({"_user_id": str(R.randint(1000, 99999)), "_fresh": True, "csrf_token": hx(40)})
        return "session", f"{payload}.{rs(B64URL, 6)}.{rs(B64URL, 27)}"
    if kind == "rails":
        return "_app_session", f"{rs(B64, 96)}--{rs(B64, 24)}--{rs(B64, 22)}%3D%3D"
    if kind == "aspnet":
        return ".AspNetCore.Cookies", "CfDJ8" + rs(B64URL, 300)
    return "connect.sid", "s%3A" + rs(B64URL, 32) + "." + rs(B64URL, 43)


def jwt_token(alg: str = "HS256", claims: dict[str, object] | None = None, kid: bool = False) -> str:
    header: dict[str, object] = {"alg": alg, "typ": "JWT"}
    if kid:
        header["kid"] = rs(B64URL, 22)
    iat = epoch(when(2))
    payload: dict[str, object] = claims or {
        "sub": pick([str(uuid.UUID(int=R.getrandbits(128), version=4)), f"user_{R.randint(10000, 999999)}", f"auth0|{hx(24)}"]),
        "iss": pick(["https://auth.tessellate.dev/", "https://login.fernwood.app", "https://sso.kvarnberg.io/realms/main"]),
        "aud": pick(["api", "https://api.fernwood.app", "orders-service"]),
        "iat": iat,
        "exp": iat + pick([900, 3600, 86400]),
        "scope": pick(["read:orders write:orders", "openid profile email", "admin"]),
    }
    sig_len = {"HS256": 32, "HS512": 64, "RS256": 256, "ES256": 64}[alg]
    return f"{b64u_json(header)}.{b64u_json(payload)}.{b64url_bytes(sig_len)}"


def supabase_jwt(role: str, ref: str) -> str:
    iat = epoch(when(300))
    return jwt_token("HS256", {"iss": "supabase", "ref": ref, "role": role, "iat": iat, "exp": iat + 315360000})


WORDS = {
    "en": ["orange", "falcon", "river", "copper", "lantern", "maple", "thunder", "velvet", "harbor", "pickle", "granite", "violet", "comet", "walnut"],
    "de": ["Tulpe", "Fahrrad", "Nebel", "Brücke", "Kuchen", "Sommer", "Wolke", "Apfel", "Bahnhof", "Eiche", "Kaffee", "Igel", "Donner", "Schnee"],
    "fr": ["soleil", "fromage", "nuage", "cerise", "bateau", "forêt", "lapin", "marché", "violon", "tortue", "bougie", "plage"],
    "es": ["naranja", "tortuga", "montaña", "guitarra", "ventana", "lluvia", "camino", "cereza", "pájaro", "luna", "río", "arena"],
    "pt": ["janela", "laranja", "cavalo", "saudade", "farol", "chuva", "sardinha", "estrela", "praia", "azulejo"],
    "it": ["gelato", "finestra", "girasole", "montagna", "treno", "farfalla", "limone", "pioggia", "cavallo", "spiaggia"],
    "nl": ["fiets", "molen", "tulp", "kaas", "gracht", "regen", "appel", "wolk", "haven", "klomp"],
    "pl": ["jabłko", "rower", "zamek", "chmura", "pierogi", "rzeka", "wiatr", "słońce", "gwiazda", "las"],
    "ru": ["ромашка", "самовар", "берёза", "снегирь", "окно", "зима", "ветер", "малина"],
    "tr": ["çınar", "simit", "deniz", "kelebek", "bulut", "lale", "kapı", "yağmur", "köprü"],
    "ja": ["sakura", "kaminari", "tsuki", "neko", "kawa", "yama", "hoshi", "umi"],
    "zh": ["longjing", "xiongmao", "taiyang", "shanshui", "baozi", "yueliang", "changcheng"],
    "ko": ["haneul", "baram", "kimchi", "namu", "byeol", "bada", "sarang", "hodu"],
}


def human_password(lang: str = "en", special: bool = False) -> str:
    """Passwords shaped the way people pick them; special=True adds characters that need escaping."""
    words = WORDS.get(lang, WORDS["en"])
    r = R.random()
    if special:
        core = pick([
            f'{pick(words).capitalize()}"{R.randint(10, 99)}&{pick(words)}<',
            f"{pick(words).capitalize()}\\{pick(words)}#{R.randint(100, 999)}",
            f"{pick(words)}@{pick(words)}/{R.randint(10, 99)}:%{rs(ALNUM, 3)}",
            f"Café-{pick(words).capitalize()}-{R.randint(1990, 2025)}!",
            f"{rs(ALNUM, 6)}&amp{rs(ALNUM, 4)}'{pick(['<', '>', '&'])}{rs(ALNUM, 3)}",
        ])
        return core
    if r < 0.3:
        return f"{pick(words).capitalize()}{pick(['!', '#', '$', '?', '*', '.'])}{pick(words).capitalize()}{R.randint(10, 9999)}"
    if r < 0.55:
        return rs(ALNUM + "!#%*+-=?@^_", R.randint(14, 24))
    if r < 0.7:
        return f"{pick(words)}-{pick(words)}-{pick(words)}-{R.randint(2, 99)}"
    if r < 0.85:
        return f"{pick(words).capitalize()}{R.randint(1970, 2025)}{pick(['!', '?', '#', '%'])}"
    return rs(UPPER + LOWER + DIGITS, R.randint(16, 32))


def passphrase(lang: str = "en") -> str:
    words = WORDS.get(lang, WORDS["en"])
    return " ".join(R.sample(words, R.randint(4, 5)))


# ---------------------------------------------------------------- decoy formats


def git_sha() -> str:
    return hx(40)


def short_sha() -> str:
    return hx(R.choice([7, 8, 9, 10, 12]))


def sha256_digest() -> str:
    return "sha256:" + hx(64)


def uuid4() -> str:
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def trace_id() -> str:
    return hx(32)


def span_id() -> str:
    return hx(16)


def traceparent() -> str:
    return f"00-{hx(32)}-{hx(16)}-01"


def amz_request_id() -> str:
    return rs(UHEX, 16)


def amz_id2() -> str:
    return rs(B64, 76)


def cf_ray() -> str:
    return f"{hx(16)}-{pick(['FRA', 'AMS', 'CDG', 'NRT', 'ICN', 'GRU', 'IAD', 'LHR', 'WAW', 'IST'])}"


def etag() -> str:
    return f'"{hx(32)}"' if chance(0.5) else f'W/"{hx(8)}-{rs(B64URL, 27)}"'


def npm_integrity() -> str:
    return "sha512-" + b64_bytes(64)


def go_sum() -> str:
    return "h1:" + b64_bytes(32)


def docker_digest() -> str:
    return "sha256:" + hx(64)


def container_id() -> str:
    return hx(64)


def pod_name(app: str) -> str:
    return f"{app}-{rs('bcdfghjklmnpqrstvwxz2456789', 9)}-{rs('bcdfghjklmnpqrstvwxz2456789', 5)}"


def aws_account() -> str:
    return str(R.randint(10**11, 10**12 - 1))


def aws_region() -> str:
    return pick(["eu-central-1", "eu-west-1", "us-east-1", "us-west-2", "ap-northeast-1", "ap-northeast-2", "sa-east-1", "eu-north-1"])


def version() -> str:
    return pick([
        f"v{R.randint(0, 4)}.{R.randint(0, 30)}.{R.randint(0, 20)}",
        f"{R.randint(1, 3)}.{R.randint(0, 30)}.{R.randint(0, 12)}",
        f"{R.randint(1, 3)}.{R.randint(0, 30)}.{R.randint(0, 12)}-rc.{R.randint(1, 5)}",
        f"1.{R.randint(27, 31)}.{R.randint(0, 9)}-eks-{hx(7)}",
    ])


def oauth_client_id() -> str:
    return f"{R.randint(10**11, 10**12 - 1)}-{rs(LOWER_ALNUM, 32)}.apps.googleusercontent.com"


def recaptcha_site_key() -> str:
    return "6L" + rs(B64URL, 38)


def ulid() -> str:
    return rs("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)


def op_item_id() -> str:
    return rs(LOWER_ALNUM, 26)


def tool_call_id(kind: str) -> str:
    if kind == "anthropic":
        return "toolu_01" + rs(ALNUM, 22)
    if kind == "openai":
        return "call_" + rs(ALNUM, 24)
    return "fc_" + hx(48)


def masked(secret: str, style: str | None = None) -> str:
    style = style or pick(["dots", "stars_tail", "prefix_tail", "stars"])
    if style == "dots":
        return secret[: secret.find("-") + 1 if "-" in secret[:8] else 3] + "..." + secret[-4:]
    if style == "stars_tail":
        return "*" * 16 + secret[-4:]
    if style == "prefix_tail":
        cut = secret.find("_") + 1 if "_" in secret[:12] else 4
        return secret[:cut] + "*" * 8 + secret[-4:]
    return "********"


AWS_DOC_AKID = "AKIAIOSFODNN7EXAMPLE"
AWS_DOC_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT_IO_EXAMPLE = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
STRIPE_DOC_TEST = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"

PLACEHOLDERS = [
    "<your-api-key>", "${DB_PASSWORD}", "changeme", "xxxxxxxxxxxxxxxxxxxxxxxx", "YOUR_TOKEN_HERE", "<redacted>",
    "${{ secrets.DEPLOY_TOKEN }}", "{{ vault_admin_password }}", "%(SMTP_PASSWORD)s", "$(cat /run/secrets/api_key)",
    "REPLACE_ME", "<paste-token-here>", "sk-...", "your-secret-key", "${env:GITHUB_TOKEN}", "ENC[AES256_GCM,data:...,type:str]",
    "op://Prod/postgres/password", "vault:secret/data/app#api_key", "[REDACTED]", "********",
]


# ---------------------------------------------------------------- phrasebook

P: dict[str, dict[str, object]] = {
    "en": {
        "ask": ["Here's what `{cmd}` prints, why does the deploy still fail?", "Output of `{cmd}` below. Can you spot what's wrong?", "I ran `{cmd}` and got this:"],
        "ask2": ["Can you take a look at this?", "This is what I see, any idea?", "Pasting the whole thing so you have context:"],
        "pw": "password", "token": "token", "key": "API key", "secret": "secret", "user": "user",
        "pw_is": ["the {what} password is {v}", "use this password for the {what}: {v}", "login for the {what}: admin / {v}"],
        "key_is": ["the signing key is {v}", "here's the key we use in prod: {v}", "API key (don't share): {v}"],
        "token_is": ["my token is {v}, it expires on Friday", "token for the bot: {v}", "I generated a new token: {v}"],
        "rotate": ["I'll rotate it after the demo.", "Rotating this tonight, promise.", "Yes I know, it goes into the vault tomorrow."],
        "placeholder": "Replace {v} with your own key before running it.",
        "masked": "The key ending in {v} was revoked yesterday.",
        "commit": "The fix landed in commit {v}.",
        "ttl": "Tokens live for {v} seconds, then the client refreshes them.",
        "doc": "The docs use {v} as the example value, so that one is fine.",
        "systems": ["staging database", "admin panel", "VPN", "SMTP relay", "build server", "router"],
        "customer": "Customer {name} called about order {ref}.",
        "lbl": {"name": "Name", "email": "Email", "phone": "Phone", "address": "Address", "dob": "Date of birth", "iban": "IBAN", "id": "ID number", "card": "Card"},
        "filler": ["The service starts fine locally but crashes in the container.", "I checked the logs twice and the timestamps line up with the deploy.", "Restarting the pod did not help.", "The health check passes, so it must be the config.", "It worked last week before we bumped the base image.", "Retries make it worse because the connection pool fills up.", "I compared both environments line by line."],
        "hello": "Hi team,", "thanks": "Thanks!", "fixed": ["Fixed: it was the wrong port in the config.", "Solved, the region was wrong."], "title": "Debugging notes",
    },
    "de": {
        "ask": ["Das gibt `{cmd}` aus, warum schlägt das Deployment trotzdem fehl?", "Hier die Ausgabe von `{cmd}`. Siehst du den Fehler?", "Ich habe `{cmd}` ausgeführt und bekomme das:"],
        "ask2": ["Kannst du dir das mal ansehen?", "Das sehe ich hier, hast du eine Idee?", "Ich kopiere alles rein, damit du den Kontext hast:"],
        "pw": "Passwort", "token": "Token", "key": "API-Schlüssel", "secret": "Geheimnis", "user": "Benutzer",
        "pw_is": ["das Passwort für die {what} ist {v}", "nimm dieses Passwort für die {what}: {v}", "Zugang zur {what}: admin / Kennwort {v}"],
        "key_is": ["der Signaturschlüssel lautet {v}", "hier der Schlüssel aus Produktion: {v}", "API-Schlüssel (nicht weitergeben): {v}"],
        "token_is": ["mein Token ist {v}, läuft am Freitag ab", "Token für den Bot: {v}", "ich habe ein neues Token erzeugt: {v}"],
        "rotate": ["Ich rotiere das nach der Demo.", "Wird heute Abend getauscht, versprochen.", "Ja, kommt morgen in den Vault."],
        "placeholder": "Ersetze {v} durch deinen eigenen Schlüssel, bevor du es startest.",
        "masked": "Der Schlüssel mit der Endung {v} wurde gestern widerrufen.",
        "commit": "Der Fix ist in Commit {v}.",
        "ttl": "Tokens gelten {v} Sekunden, danach erneuert der Client sie.",
        "doc": "Die Doku nimmt {v} als Beispielwert, der ist also harmlos.",
        "systems": ["Staging-Datenbank", "Admin-Oberfläche", "VPN", "Mail-Relay", "Build-Maschine", "Fritzbox"],
        "customer": "Kunde {name} hat wegen Auftrag {ref} angerufen.",
        "lbl": {"name": "Name", "email": "E-Mail", "phone": "Telefon", "address": "Anschrift", "dob": "Geburtsdatum", "iban": "IBAN", "id": "Steuer-ID", "card": "Kreditkarte"},
        "filler": ["Lokal startet der Dienst, im Container stürzt er ab.", "Ich habe die Logs zweimal geprüft, die Zeitstempel passen zum Deployment.", "Ein Neustart des Pods hat nichts gebracht.", "Der Healthcheck ist grün, also liegt es an der Konfiguration.", "Letzte Woche lief es noch, vor dem Update des Base-Images.", "Die Wiederholungen machen es schlimmer, weil der Connection-Pool vollläuft.", "Ich habe beide Umgebungen Zeile für Zeile verglichen."],
        "hello": "Hallo zusammen,", "thanks": "Danke!", "fixed": ["Gelöst: falscher Port in der Konfiguration.", "Erledigt, die Region war falsch."], "title": "Notizen zur Fehlersuche",
    },
    "fr": {
        "ask": ["Voici ce que renvoie `{cmd}`, pourquoi le déploiement échoue-t-il encore ?", "Sortie de `{cmd}` ci-dessous. Tu vois le problème ?", "J'ai lancé `{cmd}` et j'obtiens ça :"],
        "ask2": ["Tu peux regarder ça ?", "Voilà ce que je vois, une idée ?", "Je colle tout pour le contexte :"],
        "pw": "mot de passe", "token": "jeton", "key": "clé d'API", "secret": "secret", "user": "utilisateur",
        "pw_is": ["le mot de passe de la {what} est {v}", "utilise ce mot de passe pour la {what} : {v}", "accès {what} : admin / {v}"],
        "key_is": ["la clé de signature est {v}", "voici la clé de prod : {v}", "clé d'API (à ne pas partager) : {v}"],
        "token_is": ["mon jeton est {v}, il expire vendredi", "jeton du bot : {v}", "j'ai généré un nouveau jeton : {v}"],
        "rotate": ["Je la change après la démo.", "Je fais la rotation ce soir, promis.", "Oui, ça part dans le coffre demain."],
        "placeholder": "Remplace {v} par ta propre clé avant de lancer.",
        "masked": "La clé qui se termine par {v} a été révoquée hier.",
        "commit": "Le correctif est dans le commit {v}.",
        "ttl": "Les jetons durent {v} secondes, ensuite le client les renouvelle.",
        "doc": "La doc utilise {v} comme valeur d'exemple, celle-là ne risque rien.",
        "systems": ["base de recette", "console d'admin", "box", "passerelle SMTP", "machine de build"],
        "customer": "Le client {name} a appelé au sujet de la commande {ref}.",
        "lbl": {"name": "Nom", "email": "Courriel", "phone": "Téléphone", "address": "Adresse", "dob": "Date de naissance", "iban": "IBAN", "id": "N° de sécurité sociale", "card": "Carte bancaire"},
        "filler": ["Le service démarre bien en local mais plante dans le conteneur.", "J'ai relu les journaux deux fois, les horodatages collent avec le déploiement.", "Redémarrer le pod n'a rien changé.", "Le contrôle de santé passe, donc c'est la configuration.", "Ça marchait la semaine dernière, avant la mise à jour de l'image de base.", "Les nouvelles tentatives aggravent les choses car le pool de connexions sature.", "J'ai comparé les deux environnements ligne par ligne."],
        "hello": "Bonjour à tous,", "thanks": "Merci !", "fixed": ["Corrigé : mauvais port dans la config.", "Résolu, la région était fausse."], "title": "Notes de débogage",
    },
    "es": {
        "ask": ["Esto es lo que imprime `{cmd}`, ¿por qué sigue fallando el despliegue?", "Abajo va la salida de `{cmd}`. ¿Ves el error?", "Ejecuté `{cmd}` y me sale esto:"],
        "ask2": ["¿Puedes echarle un vistazo?", "Esto es lo que veo, ¿alguna idea?", "Pego todo para que tengas contexto:"],
        "pw": "contraseña", "token": "token", "key": "clave de API", "secret": "secreto", "user": "usuario",
        "pw_is": ["la contraseña de la {what} es {v}", "usa esta contraseña para la {what}: {v}", "acceso a la {what}: admin / {v}"],
        "key_is": ["la clave de firma es {v}", "aquí va la clave de producción: {v}", "clave de API (no compartir): {v}"],
        "token_is": ["mi token es {v}, caduca el viernes", "token del bot: {v}", "generé un token nuevo: {v}"],
        "rotate": ["La cambio después de la demo.", "La roto esta noche, prometido.", "Sí, mañana la paso al vault."],
        "placeholder": "Sustituye {v} por tu propia clave antes de ejecutarlo.",
        "masked": "La clave que termina en {v} se revocó ayer.",
        "commit": "La corrección está en el commit {v}.",
        "ttl": "Los tokens duran {v} segundos y luego el cliente los renueva.",
        "doc": "La documentación usa {v} como valor de ejemplo, así que ese no pasa nada.",
        "systems": ["base de datos de pruebas", "consola de administración", "VPN", "pasarela SMTP", "servidor de compilación"],
        "customer": "El cliente {name} llamó por el pedido {ref}.",
        "lbl": {"name": "Nombre", "email": "Correo", "phone": "Teléfono", "address": "Dirección", "dob": "Fecha de nacimiento", "iban": "IBAN", "id": "DNI", "card": "Tarjeta"},
        "filler": ["El servicio arranca bien en local pero se cae en el contenedor.", "Revisé los logs dos veces y las marcas de tiempo coinciden con el despliegue.", "Reiniciar el pod no sirvió de nada.", "El health check pasa, así que tiene que ser la configuración.", "La semana pasada funcionaba, antes de actualizar la imagen base.", "Los reintentos lo empeoran porque se llena el pool de conexiones.", "Comparé los dos entornos línea por línea."],
        "hello": "Hola a todos,", "thanks": "¡Gracias!", "fixed": ["Arreglado: el puerto de la configuración estaba mal.", "Resuelto, la región era incorrecta."], "title": "Notas de depuración",
    },
    "pt": {
        "ask": ["Isto é o que o `{cmd}` mostra, por que o deploy ainda falha?", "Segue a saída do `{cmd}`. Consegues ver o erro?", "Rodei `{cmd}` e apareceu isto:"],
        "ask2": ["Podes dar uma olhada nisto?", "É isto que aparece, alguma ideia?", "Colo tudo para teres contexto:"],
        "pw": "senha", "token": "token", "key": "chave de API", "secret": "segredo", "user": "utilizador",
        "pw_is": ["a senha da {what} é {v}", "usa esta palavra-passe para a {what}: {v}", "acesso à {what}: admin / {v}"],
        "key_is": ["a chave de assinatura é {v}", "aqui está a chave de produção: {v}", "chave de API (não partilhar): {v}"],
        "token_is": ["o meu token é {v}, expira na sexta", "token do bot: {v}", "gerei um token novo: {v}"],
        "rotate": ["Troco depois da demo.", "Faço a rotação hoje à noite, prometo.", "Sim, amanhã vai para o cofre."],
        "placeholder": "Substitui {v} pela tua própria chave antes de executar.",
        "masked": "A chave que termina em {v} foi revogada ontem.",
        "commit": "A correção está no commit {v}.",
        "ttl": "Os tokens valem {v} segundos, depois o cliente renova.",
        "doc": "A documentação usa {v} como valor de exemplo, esse não tem problema.",
        "systems": ["base de dados de homologação", "painel de administração", "VPN", "servidor de e-mail", "servidor de build"],
        "customer": "O cliente {name} ligou por causa do pedido {ref}.",
        "lbl": {"name": "Nome", "email": "E-mail", "phone": "Telefone", "address": "Morada", "dob": "Data de nascimento", "iban": "IBAN", "id": "NIF", "card": "Cartão"},
        "filler": ["O serviço arranca bem localmente mas cai no contentor.", "Verifiquei os logs duas vezes e os horários batem com o deploy.", "Reiniciar o pod não resolveu.", "O health check passa, então deve ser a configuração.", "Funcionava na semana passada, antes de atualizarmos a imagem base.", "As novas tentativas pioram porque o pool de conexões enche.", "Comparei os dois ambientes linha a linha."],
        "hello": "Olá pessoal,", "thanks": "Obrigado!", "fixed": ["Resolvido: porta errada na configuração.", "Corrigido, a região estava errada."], "title": "Notas de depuração",
    },
    "it": {
        "ask": ["Ecco cosa stampa `{cmd}`, perché il deploy fallisce ancora?", "Qui sotto l'output di `{cmd}`. Vedi l'errore?", "Ho lanciato `{cmd}` e ottengo questo:"],
        "ask2": ["Puoi darci un'occhiata?", "Questo è quello che vedo, qualche idea?", "Incollo tutto così hai il contesto:"],
        "pw": "password", "token": "token", "key": "chiave API", "secret": "segreto", "user": "utente",
        "pw_is": ["la password del {what} è {v}", "usa questa password per il {what}: {v}", "accesso al {what}: admin / {v}"],
        "key_is": ["la chiave di firma è {v}", "ecco la chiave di produzione: {v}", "chiave API (non condividere): {v}"],
        "token_is": ["il mio token è {v}, scade venerdì", "token del bot: {v}", "ho generato un nuovo token: {v}"],
        "rotate": ["La cambio dopo la demo.", "Faccio la rotazione stasera, promesso.", "Sì, domani finisce nel vault."],
        "placeholder": "Sostituisci {v} con la tua chiave prima di eseguirlo.",
        "masked": "La chiave che finisce con {v} è stata revocata ieri.",
        "commit": "La correzione è nel commit {v}.",
        "ttl": "I token durano {v} secondi, poi il client li rinnova.",
        "doc": "La documentazione usa {v} come valore d'esempio, quindi quello è innocuo.",
        "systems": ["database di collaudo", "pannello di amministrazione", "server SMTP", "server di build", "router"],
        "customer": "Il cliente {name} ha chiamato per l'ordine {ref}.",
        "lbl": {"name": "Nome", "email": "Email", "phone": "Telefono", "address": "Indirizzo", "dob": "Data di nascita", "iban": "IBAN", "id": "Codice fiscale", "card": "Carta"},
        "filler": ["Il servizio parte bene in locale ma va in crash nel container.", "Ho controllato i log due volte e gli orari coincidono con il deploy.", "Riavviare il pod non è servito.", "L'health check passa, quindi è la configurazione.", "La settimana scorsa funzionava, prima dell'aggiornamento dell'immagine base.", "I tentativi ripetuti peggiorano le cose perché il pool di connessioni si riempie.", "Ho confrontato i due ambienti riga per riga."],
        "hello": "Ciao a tutti,", "thanks": "Grazie!", "fixed": ["Risolto: porta sbagliata nella configurazione.", "Sistemato, la regione era sbagliata."], "title": "Note di debug",
    },
    "nl": {
        "ask": ["Dit geeft `{cmd}` terug, waarom faalt de deploy nog steeds?", "Hieronder de uitvoer van `{cmd}`. Zie jij de fout?", "Ik heb `{cmd}` gedraaid en krijg dit:"],
        "ask2": ["Kun je hier even naar kijken?", "Dit zie ik, enig idee?", "Ik plak alles zodat je de context hebt:"],
        "pw": "wachtwoord", "token": "token", "key": "API-sleutel", "secret": "geheim", "user": "gebruiker",
        "pw_is": ["het wachtwoord van de {what} is {v}", "gebruik dit wachtwoord voor de {what}: {v}", "login {what}: admin / {v}"],
        "key_is": ["de ondertekeningssleutel is {v}", "hier de sleutel van productie: {v}", "API-sleutel (niet delen): {v}"],
        "token_is": ["mijn token is {v}, verloopt vrijdag", "token voor de bot: {v}", "nieuw token aangemaakt: {v}"],
        "rotate": ["Ik roteer het na de demo.", "Vanavond vervangen, beloofd.", "Ja, morgen gaat het in de kluis."],
        "placeholder": "Vervang {v} door je eigen sleutel voordat je het draait.",
        "masked": "De sleutel die eindigt op {v} is gisteren ingetrokken.",
        "commit": "De fix zit in commit {v}.",
        "ttl": "Tokens zijn {v} seconden geldig, daarna ververst de client ze.",
        "doc": "De documentatie gebruikt {v} als voorbeeldwaarde, die is dus onschuldig.",
        "systems": ["testdatabase", "beheeromgeving", "VPN", "mailserver", "buildserver"],
        "customer": "Klant {name} belde over bestelling {ref}.",
        "lbl": {"name": "Naam", "email": "E-mail", "phone": "Telefoon", "address": "Adres", "dob": "Geboortedatum", "iban": "IBAN", "id": "BSN", "card": "Creditcard"},
        "filler": ["Lokaal start de dienst prima, in de container crasht hij.", "Ik heb de logs twee keer nagekeken, de tijden passen bij de deploy.", "De pod herstarten hielp niet.", "De healthcheck is groen, dus het zit in de configuratie.", "Vorige week werkte het nog, voor de update van het base image.", "Herhaalpogingen maken het erger omdat de connection pool volloopt.", "Ik heb beide omgevingen regel voor regel vergeleken."],
        "hello": "Hoi allemaal,", "thanks": "Bedankt!", "fixed": ["Opgelost: verkeerde poort in de config.", "Gefixt, de regio klopte niet."], "title": "Debugnotities",
    },
    "pl": {
        "ask": ["Tak wygląda wynik `{cmd}`, dlaczego wdrożenie dalej się wywala?", "Poniżej wyjście z `{cmd}`. Widzisz błąd?", "Uruchomiłem `{cmd}` i dostaję to:"],
        "ask2": ["Możesz na to zerknąć?", "To widzę, masz pomysł?", "Wklejam całość, żebyś miał kontekst:"],
        "pw": "hasło", "token": "token", "key": "klucz API", "secret": "sekret", "user": "użytkownik",
        "pw_is": ["hasło do {what} to {v}", "użyj tego hasła do {what}: {v}", "dostęp do {what}: admin / {v}"],
        "key_is": ["klucz podpisujący to {v}", "tu klucz z produkcji: {v}", "klucz API (nie udostępniać): {v}"],
        "token_is": ["mój token to {v}, wygasa w piątek", "token bota: {v}", "wygenerowałem nowy token: {v}"],
        "rotate": ["Zmienię go po demo.", "Dziś wieczorem rotuję, obiecuję.", "Tak, jutro trafi do sejfu."],
        "placeholder": "Zamień {v} na własny klucz przed uruchomieniem.",
        "masked": "Klucz kończący się na {v} został wczoraj unieważniony.",
        "commit": "Poprawka jest w commicie {v}.",
        "ttl": "Tokeny są ważne {v} sekund, potem klient je odświeża.",
        "doc": "Dokumentacja używa {v} jako przykładowej wartości, więc ten jest niegroźny.",
        "systems": ["bazy testowej", "panelu administracyjnego", "VPN-a", "serwera pocztowego", "serwera buildów"],
        "customer": "Klient {name} dzwonił w sprawie zamówienia {ref}.",
        "lbl": {"name": "Imię i nazwisko", "email": "E-mail", "phone": "Telefon", "address": "Adres", "dob": "Data urodzenia", "iban": "IBAN", "id": "PESEL", "card": "Karta"},
        "filler": ["Lokalnie usługa startuje, w kontenerze się wysypuje.", "Sprawdziłem logi dwa razy, znaczniki czasu zgadzają się z wdrożeniem.", "Restart poda nic nie dał.", "Health check przechodzi, więc to konfiguracja.", "W zeszłym tygodniu działało, przed aktualizacją obrazu bazowego.", "Ponowienia pogarszają sprawę, bo pula połączeń się zapełnia.", "Porównałem oba środowiska linijka po linijce."],
        "hello": "Cześć wszystkim,", "thanks": "Dzięki!", "fixed": ["Naprawione: zły port w konfiguracji.", "Rozwiązane, region był zły."], "title": "Notatki z debugowania",
    },
    "ru": {
        "ask": ["Вот что выводит `{cmd}`, почему деплой всё ещё падает?", "Ниже вывод `{cmd}`. Видишь ошибку?", "Запустил `{cmd}` и получил вот это:"],
        "ask2": ["Можешь посмотреть?", "Вот что я вижу, есть идеи?", "Вставляю всё целиком для контекста:"],
        "pw": "пароль", "token": "токен", "key": "API-ключ", "secret": "секрет", "user": "пользователь",
        "pw_is": ["пароль от {what}: {v}", "используй этот пароль для {what}: {v}", "доступ к {what}: admin / {v}"],
        "key_is": ["ключ подписи: {v}", "вот ключ с прода: {v}", "API-ключ (никому не давать): {v}"],
        "token_is": ["мой токен {v}, истекает в пятницу", "токен бота: {v}", "сгенерировал новый токен: {v}"],
        "rotate": ["Поменяю после демо.", "Сегодня вечером сделаю ротацию, обещаю.", "Да, завтра переложу в vault."],
        "placeholder": "Замени {v} на свой ключ перед запуском.",
        "masked": "Ключ, оканчивающийся на {v}, отозвали вчера.",
        "commit": "Исправление в коммите {v}.",
        "ttl": "Токены живут {v} секунд, потом клиент их обновляет.",
        "doc": "В документации {v} используется как пример, так что он безопасен.",
        "systems": ["тестовой базы", "админки", "VPN", "почтового релея", "билд-сервера"],
        "customer": "Клиент {name} звонил по заказу {ref}.",
        "lbl": {"name": "ФИО", "email": "Эл. почта", "phone": "Телефон", "address": "Адрес", "dob": "Дата рождения", "iban": "IBAN", "id": "СНИЛС", "card": "Карта"},
        "filler": ["Локально сервис стартует, а в контейнере падает.", "Я дважды проверил логи, время совпадает с деплоем.", "Перезапуск пода не помог.", "Health check проходит, значит дело в конфиге.", "На прошлой неделе всё работало, до обновления базового образа.", "Повторные попытки только хуже, пул соединений забивается.", "Сравнил оба окружения построчно."],
        "hello": "Всем привет,", "thanks": "Спасибо!", "fixed": ["Исправлено: в конфиге был не тот порт.", "Решено, был неверный регион."], "title": "Заметки по отладке",
    },
    "ja": {
        "ask": ["`{cmd}` の出力です。なぜまだデプロイが失敗するのでしょうか？", "以下が `{cmd}` の結果です。どこがおかしいか分かりますか？", "`{cmd}` を実行したらこうなりました："],
        "ask2": ["これを見てもらえますか？", "こう表示されます。何か分かりますか？", "文脈のために全部貼ります："],
        "pw": "パスワード", "token": "トークン", "key": "APIキー", "secret": "シークレット", "user": "ユーザー",
        "pw_is": ["{what}のパスワードは {v} です", "{what}にはこのパスワードを使ってください: {v}", "{what}のログイン: admin / {v}"],
        "key_is": ["署名鍵は {v} です", "本番の鍵はこれです: {v}", "APIキー（共有禁止）: {v}"],
        "token_is": ["私のトークンは {v} です。金曜日に失効します", "ボット用トークン: {v}", "新しいトークンを発行しました: {v}"],
        "rotate": ["デモの後でローテーションします。", "今夜差し替えます。", "はい、明日 Vault に移します。"],
        "placeholder": "実行前に {v} を自分のキーに置き換えてください。",
        "masked": "末尾が {v} のキーは昨日失効しました。",
        "commit": "修正はコミット {v} に入っています。",
        "ttl": "トークンの有効期間は {v} 秒で、その後クライアントが更新します。",
        "doc": "ドキュメントでは {v} を例として使っているので、これは問題ありません。",
        "systems": ["検証用DB", "管理画面", "VPN", "メールリレー", "ビルドサーバー"],
        "customer": "{name}様から注文 {ref} について電話がありました。",
        "lbl": {"name": "氏名", "email": "メール", "phone": "電話番号", "address": "住所", "dob": "生年月日", "iban": "IBAN", "id": "マイナンバー", "card": "カード番号"},
        "filler": ["ローカルでは起動しますが、コンテナ内ではクラッシュします。", "ログを二回確認しましたが、タイムスタンプはデプロイと一致しています。", "Pod を再起動しても直りませんでした。", "ヘルスチェックは通るので、設定の問題だと思います。", "先週はベースイメージを更新する前で、動いていました。", "リトライでコネクションプールが埋まり、悪化します。", "両方の環境を一行ずつ比較しました。"],
        "hello": "皆さん、お疲れさまです。", "thanks": "よろしくお願いします。", "fixed": ["解決：設定のポートが間違っていました。", "直りました。リージョンが違っていました。"], "title": "デバッグメモ",
    },
    "zh": {
        "ask": ["这是 `{cmd}` 的输出，为什么部署还是失败？", "下面是 `{cmd}` 的结果，你能看出哪里不对吗？", "我运行了 `{cmd}`，得到这个："],
        "ask2": ["能帮忙看一下吗？", "我这边看到的是这样，有什么想法？", "我把全部内容贴上来，方便你了解上下文："],
        "pw": "密码", "token": "令牌", "key": "API 密钥", "secret": "密钥", "user": "用户",
        "pw_is": ["{what}的密码是 {v}", "{what}请用这个密码：{v}", "{what}登录：admin / {v}"],
        "key_is": ["签名密钥是 {v}", "这是生产环境的密钥：{v}", "API 密钥（请勿外传）：{v}"],
        "token_is": ["我的令牌是 {v}，周五过期", "机器人令牌：{v}", "我新生成了一个令牌：{v}"],
        "rotate": ["演示结束后我就轮换。", "今晚就换，保证。", "对，明天放进 Vault。"],
        "placeholder": "运行前把 {v} 换成你自己的密钥。",
        "masked": "以 {v} 结尾的密钥昨天已经吊销。",
        "commit": "修复在提交 {v} 里。",
        "ttl": "令牌有效期是 {v} 秒，之后客户端会刷新。",
        "doc": "文档里用 {v} 作为示例值，所以这个没问题。",
        "systems": ["测试数据库", "管理后台", "VPN", "邮件中继", "构建服务器"],
        "customer": "客户{name}来电询问订单 {ref}。",
        "lbl": {"name": "姓名", "email": "邮箱", "phone": "电话", "address": "地址", "dob": "出生日期", "iban": "IBAN", "id": "身份证号", "card": "银行卡号"},
        "filler": ["服务在本地能启动，但在容器里崩溃。", "我把日志看了两遍，时间戳和部署时间吻合。", "重启 Pod 没有用。", "健康检查通过了，所以应该是配置问题。", "上周还正常，那时还没升级基础镜像。", "重试让情况更糟，因为连接池被占满了。", "我逐行对比了两个环境。"],
        "hello": "大家好，", "thanks": "谢谢！", "fixed": ["已解决：配置里的端口写错了。", "搞定，区域配置错了。"], "title": "调试笔记",
    },
    "ko": {
        "ask": ["`{cmd}` 출력입니다. 왜 아직도 배포가 실패할까요?", "아래는 `{cmd}` 결과입니다. 뭐가 문제인지 보이세요?", "`{cmd}`를 실행했더니 이렇게 나옵니다:"],
        "ask2": ["이것 좀 봐 주실 수 있나요?", "이렇게 보이는데, 짚이는 게 있나요?", "맥락을 위해 전부 붙여 넣습니다:"],
        "pw": "비밀번호", "token": "토큰", "key": "API 키", "secret": "시크릿", "user": "사용자",
        "pw_is": ["{what} 비밀번호는 {v} 입니다", "{what}에는 이 비밀번호를 쓰세요: {v}", "{what} 로그인: admin / {v}"],
        "key_is": ["서명 키는 {v} 입니다", "운영 환경 키입니다: {v}", "API 키 (공유 금지): {v}"],
        "token_is": ["제 토큰은 {v} 이고 금요일에 만료됩니다", "봇 토큰: {v}", "새 토큰을 발급했습니다: {v}"],
        "rotate": ["데모 끝나고 교체하겠습니다.", "오늘 밤에 로테이션할게요.", "네, 내일 Vault로 옮깁니다."],
        "placeholder": "실행하기 전에 {v} 를 본인 키로 바꾸세요.",
        "masked": "{v} 로 끝나는 키는 어제 폐기되었습니다.",
        "commit": "수정 사항은 커밋 {v} 에 있습니다.",
        "ttl": "토큰 유효 시간은 {v}초이고 그 후 클라이언트가 갱신합니다.",
        "doc": "문서에서 {v} 를 예시 값으로 쓰니 그건 괜찮습니다.",
        "systems": ["스테이징 DB", "관리자 페이지", "VPN", "메일 릴레이", "빌드 서버"],
        "customer": "{name} 고객님이 주문 {ref} 건으로 전화하셨습니다.",
        "lbl": {"name": "이름", "email": "이메일", "phone": "전화번호", "address": "주소", "dob": "생년월일", "iban": "IBAN", "id": "주민등록번호", "card": "카드번호"},
        "filler": ["로컬에서는 서비스가 뜨는데 컨테이너에서는 죽습니다.", "로그를 두 번 확인했는데 타임스탬프가 배포 시각과 맞습니다.", "파드를 재시작해도 소용없었습니다.", "헬스 체크는 통과하니 설정 문제 같습니다.", "지난주 베이스 이미지 업데이트 전에는 잘 됐습니다.", "재시도 때문에 커넥션 풀이 가득 차서 더 나빠집니다.", "두 환경을 한 줄씩 비교했습니다."],
        "hello": "안녕하세요,", "thanks": "감사합니다!", "fixed": ["해결: 설정의 포트가 잘못되어 있었습니다.", "해결했습니다. 리전이 틀렸어요."], "title": "디버깅 메모",
    },
    "tr": {
        "ask": ["`{cmd}` çıktısı bu, dağıtım neden hâlâ başarısız?", "Aşağıda `{cmd}` çıktısı var. Hatayı görebiliyor musun?", "`{cmd}` çalıştırdım ve şunu aldım:"],
        "ask2": ["Buna bir bakabilir misin?", "Bende böyle görünüyor, fikrin var mı?", "Bağlam olsun diye hepsini yapıştırıyorum:"],
        "pw": "şifre", "token": "token", "key": "API anahtarı", "secret": "gizli anahtar", "user": "kullanıcı",
        "pw_is": ["{what} şifresi {v}", "{what} için bu parolayı kullan: {v}", "{what} girişi: admin / {v}"],
        "key_is": ["imzalama anahtarı {v}", "üretim anahtarı şu: {v}", "API anahtarı (paylaşma): {v}"],
        "token_is": ["token'ım {v}, cuma günü sona eriyor", "bot token'ı: {v}", "yeni bir token oluşturdum: {v}"],
        "rotate": ["Demodan sonra değiştireceğim.", "Bu akşam yeniliyorum, söz.", "Evet, yarın kasaya taşınacak."],
        "placeholder": "Çalıştırmadan önce {v} yerine kendi anahtarını yaz.",
        "masked": "Sonu {v} ile biten anahtar dün iptal edildi.",
        "commit": "Düzeltme {v} commit'inde.",
        "ttl": "Token'lar {v} saniye geçerli, sonra istemci yeniliyor.",
        "doc": "Dokümantasyon {v} değerini örnek olarak kullanıyor, o yüzden o zararsız.",
        "systems": ["test veritabanı", "yönetim paneli", "VPN", "e-posta sunucusu", "derleme sunucusu"],
        "customer": "Müşteri {name}, {ref} numaralı sipariş için aradı.",
        "lbl": {"name": "Ad Soyad", "email": "E-posta", "phone": "Telefon", "address": "Adres", "dob": "Doğum tarihi", "iban": "IBAN", "id": "TC Kimlik No", "card": "Kart"},
        "filler": ["Servis yerelde açılıyor ama konteynerde çöküyor.", "Logları iki kez kontrol ettim, zaman damgaları dağıtımla örtüşüyor.", "Pod'u yeniden başlatmak işe yaramadı.", "Sağlık kontrolü geçiyor, demek ki sorun yapılandırmada.", "Geçen hafta temel imajı güncellemeden önce çalışıyordu.", "Yeniden denemeler bağlantı havuzunu doldurduğu için durumu kötüleştiriyor.", "İki ortamı satır satır karşılaştırdım."],
        "hello": "Merhaba ekip,", "thanks": "Teşekkürler!", "fixed": ["Çözüldü: yapılandırmadaki port yanlıştı.", "Düzeldi, bölge yanlıştı."], "title": "Hata ayıklama notları",
    },
}
LANGS = list(P)


def ph(lang: str, key: str) -> str:
    v = P[lang][key]
    return pick(v) if isinstance(v, list) else str(v)


def lbl(lang: str, key: str) -> str:
    table = P[lang]["lbl"]
    assert isinstance(table, dict)
    return str(table[key])


def fill(lang: str, n: int) -> str:
    sentences = P[lang]["filler"]
    assert isinstance(sentences, list)
    sep = "" if lang in ("ja", "zh") else " "
    return sep.join(R.sample(sentences, min(n, len(sentences))))


UNSET = {
    "en": "{v} is not set here on purpose, it comes from the secret store at runtime.",
    "de": "{v} ist hier absichtlich nicht gesetzt, der Wert kommt zur Laufzeit aus dem Secret Store.",
    "fr": "{v} n'est volontairement pas défini ici, la valeur vient du coffre au démarrage.",
    "es": "{v} no está definida aquí a propósito, el valor viene del gestor de secretos.",
    "pt": "{v} não está definida aqui de propósito, o valor vem do cofre de segredos.",
    "it": "{v} non è impostata qui di proposito, il valore arriva dal secret store.",
    "nl": "{v} is hier bewust niet gezet, de waarde komt uit de secret store.",
    "pl": "{v} celowo nie jest tu ustawiona, wartość przychodzi z menedżera sekretów.",
    "ru": "{v} здесь специально не задана, значение приходит из хранилища секретов.",
    "ja": "{v} はここでは意図的に未設定で、実行時にシークレットストアから読み込みます。",
    "zh": "{v} 这里故意没有设置，运行时从密钥管理服务读取。",
    "ko": "{v} 는 일부러 여기서 설정하지 않았고, 실행 시 시크릿 저장소에서 가져옵니다.",
    "tr": "{v} burada bilerek ayarlanmadı, değer çalışma anında secret store'dan geliyor.",
}


# ---------------------------------------------------------------- people

# (given names female, given names male, family names); family names may be "m|f" for gendered forms
NAMES: dict[str, tuple[list[str], list[str], list[str]]] = {
    "US": (["Mary", "Jennifer", "Emily", "Sarah", "Ashley", "Megan", "Linda", "Rachel"], ["James", "Robert", "Michael", "David", "Daniel", "Kevin", "Brian", "Tyler"], ["Smith", "Johnson", "Williams", "Brown", "Garcia", "Miller", "Davis", "Rodriguez", "Wilson", "Anderson", "Thompson", "Nguyen", "Patel"]),
    "GB": (["Amelia", "Isla", "Ava", "Sophie", "Charlotte", "Grace"], ["Oliver", "George", "Harry", "Jack", "Alfie", "Callum"], ["Taylor", "Davies", "Evans", "Thomas", "Roberts", "Walker", "Wright", "Hughes", "O'Connor"]),
    "IN": (["Priya", "Ananya", "Sneha", "Kavya", "Divya", "Meera"], ["Aarav", "Rohan", "Vikram", "Arjun", "Karthik", "Siddharth"], ["Sharma", "Iyer", "Reddy", "Nair", "Gupta", "Kulkarni", "Menon", "Banerjee"]),
    "DE": (["Anna", "Lea", "Sophie", "Marie", "Julia", "Renate", "Jana", "Katrin"], ["Lukas", "Jonas", "Felix", "Maximilian", "Tobias", "Jürgen", "Niklas", "Stefan"], ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann", "Krüger", "Weiß"]),
    "FR": (["Camille", "Léa", "Chloé", "Manon", "Élodie", "Inès", "Margaux"], ["Louis", "Hugo", "Lucas", "Théo", "Nicolas", "Mathieu", "Julien"], ["Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand", "Lefèvre", "Moreau", "Girard"]),
    "ES": (["Lucía", "Martina", "Sofía", "Carmen", "Marta", "Elena", "Nuria"], ["Hugo", "Pablo", "Alejandro", "Javier", "Álvaro", "Sergio", "Jorge"], ["García", "Fernández", "González", "Rodríguez", "López", "Martínez", "Sánchez", "Pérez", "Gómez", "Ruiz", "Jiménez", "Muñoz"]),
    "MX": (["Guadalupe", "María José", "Ximena", "Fernanda", "Valeria"], ["José Luis", "Juan Carlos", "Santiago", "Diego", "Emiliano"], ["Hernández", "Ramírez", "Flores", "Torres", "Vázquez", "Morales", "Castillo", "Ortiz", "Mendoza", "Cruz"]),
    "PT": (["Inês", "Beatriz", "Mariana", "Leonor", "Carolina", "Matilde"], ["João", "Tiago", "Rodrigo", "Diogo", "Duarte", "Miguel"], ["Silva", "Santos", "Ferreira", "Pereira", "Oliveira", "Costa", "Rodrigues", "Martins", "Sousa", "Gonçalves"]),
    "BR": (["Ana Clara", "Júlia", "Larissa", "Fernanda", "Camila", "Letícia"], ["Gabriel", "Lucas", "Matheus", "Rafael", "Thiago", "Gustavo"], ["Silva", "Souza", "Oliveira", "Lima", "Carvalho", "Almeida", "Ribeiro", "Barbosa", "Araújo"]),
    "IT": (["Giulia", "Francesca", "Chiara", "Sara", "Elena", "Martina", "Valentina"], ["Marco", "Alessandro", "Matteo", "Lorenzo", "Davide", "Federico", "Stefano"], ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco", "Conti"]),
    "NL": (["Emma", "Julia", "Tess", "Sanne", "Fleur", "Lotte"], ["Daan", "Sem", "Lucas", "Milan", "Bram", "Thijs"], ["de Jong", "Jansen", "de Vries", "van den Berg", "Bakker", "Visser", "Smit", "Meijer", "de Boer", "Mulder"]),
    "PL": (["Zuzanna", "Julia", "Maja", "Agnieszka", "Katarzyna", "Magdalena"], ["Jakub", "Kacper", "Mateusz", "Paweł", "Łukasz", "Tomasz"], ["Nowak", "Wójcik", "Kowalczyk", "Mazur", "Krawczyk", "Kaczmarek", "Zając", "Król", "Wieczorek"]),
    "RU": (["Мария", "Анна", "Екатерина", "Ольга", "Татьяна", "Наталья"], ["Алексей", "Дмитрий", "Сергей", "Иван", "Андрей", "Михаил"], ["Иванов|Иванова", "Смирнов|Смирнова", "Кузнецов|Кузнецова", "Попов|Попова", "Соколов|Соколова", "Волков|Волкова", "Морозов|Морозова"]),
    "JP": (["陽菜", "美咲", "結衣", "さくら", "愛子"], ["健太", "翔太", "大輔", "拓也", "直樹"], ["佐藤", "鈴木", "高橋", "田中", "渡辺", "伊藤", "山本", "中村"]),
    "CN": (["芳", "静", "丽娜", "雨桐", "秀英"], ["伟", "磊", "晓明", "子轩", "志强"], ["王", "李", "张", "刘", "陈", "杨", "黄", "赵"]),
    "KR": (["서연", "수빈", "지은", "민서", "하은"], ["민준", "지훈", "현우", "도윤", "성민"], ["김", "이", "박", "최", "정", "강", "조", "윤"]),
    "TR": (["Ayşe", "Fatma", "Zeynep", "Elif", "Selin", "Büşra"], ["Mehmet", "Mustafa", "Emre", "Burak", "Can", "Oğuz"], ["Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Yıldız", "Yıldırım", "Öztürk", "Aydın", "Özdemir"]),
    "CA": (["Chloé", "Emma", "Olivia", "Maëlle"], ["Liam", "Noah", "Étienne", "Owen"], ["Tremblay", "Gagnon", "Roy", "Côté", "MacDonald", "Campbell"]),
    "AU": (["Charlotte", "Matilda", "Ruby", "Chloe"], ["Jack", "Lachlan", "Cooper", "Riley"], ["Smith", "Jones", "Williams", "Kelly", "Murphy", "Ryan"]),
}
ROMAJI = {
    "陽菜": "hina", "美咲": "misaki", "結衣": "yui", "さくら": "sakura", "愛子": "aiko", "健太": "kenta", "翔太": "shota", "大輔": "daisuke", "拓也": "takuya", "直樹": "naoki",
    "佐藤": "sato", "鈴木": "suzuki", "高橋": "takahashi", "田中": "tanaka", "渡辺": "watanabe", "伊藤": "ito", "山本": "yamamoto", "中村": "nakamura",
    "芳": "fang", "静": "jing", "丽娜": "lina", "雨桐": "yutong", "秀英": "xiuying", "伟": "wei", "磊": "lei", "晓明": "xiaoming", "子轩": "zixuan", "志强": "zhiqiang",
    "王": "wang", "李": "li", "张": "zhang", "刘": "liu", "陈": "chen", "杨": "yang", "黄": "huang", "赵": "zhao",
    "서연": "seoyeon", "수빈": "subin", "지은": "jieun", "민서": "minseo", "하은": "haeun", "민준": "minjun", "지훈": "jihoon", "현우": "hyunwoo", "도윤": "doyun", "성민": "sungmin",
    "김": "kim", "이": "lee", "박": "park", "최": "choi", "정": "jung", "강": "kang", "조": "cho", "윤": "yoon",
}
_CYR = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя", ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o", "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e", "yu", "ya"], strict=True))
DOMAINS = {
    "US": ["gmail.com", "yahoo.com", "outlook.com", "icloud.com", "comcast.net"], "GB": ["btinternet.com", "gmail.com", "outlook.com", "sky.com"],
    "IN": ["gmail.com", "rediffmail.com", "yahoo.co.in"], "DE": ["web.de", "gmx.de", "t-online.de", "posteo.de", "gmail.com"],
    "FR": ["orange.fr", "free.fr", "laposte.net", "gmail.com", "sfr.fr"], "ES": ["gmail.com", "hotmail.es", "telefonica.net", "yahoo.es"],
    "MX": ["hotmail.com", "prodigy.net.mx", "gmail.com"], "PT": ["sapo.pt", "gmail.com", "netcabo.pt"], "BR": ["uol.com.br", "bol.com.br", "gmail.com", "terra.com.br"],
    "IT": ["libero.it", "alice.it", "virgilio.it", "gmail.com"], "NL": ["ziggo.nl", "kpnmail.nl", "hotmail.nl", "gmail.com"],
    "PL": ["wp.pl", "onet.pl", "o2.pl", "interia.pl"], "RU": ["yandex.ru", "mail.ru", "rambler.ru"], "JP": ["docomo.ne.jp", "yahoo.co.jp", "gmail.com", "ezweb.ne.jp"],
    "CN": ["qq.com", "163.com", "126.com", "sina.com"], "KR": ["naver.com", "daum.net", "kakao.com"], "TR": ["hotmail.com", "yandex.com.tr", "gmail.com"],
    "CA": ["videotron.ca", "rogers.com", "gmail.com"], "AU": ["bigpond.com", "optusnet.com.au", "gmail.com"],
}
COUNTRY_FOR_LANG = {
    "en": ["US", "GB", "IN", "CA", "AU"], "de": ["DE"], "fr": ["FR"], "es": ["ES", "MX"], "pt": ["PT", "BR"],
    "it": ["IT"], "nl": ["NL"], "pl": ["PL"], "ru": ["RU"], "ja": ["JP"], "zh": ["CN"], "ko": ["KR"], "tr": ["TR"],
    "*": ["US", "GB", "IN", "DE", "FR", "ES", "MX", "PT", "BR", "IT", "NL", "PL", "RU", "JP", "CN", "KR", "TR", "CA", "AU"],
}


def translit(s: str) -> str:
    if s in ROMAJI:
        return ROMAJI[s]
    out = []
    for ch in s.lower():
        if ch in _CYR:
            out.append(_CYR[ch])
        elif ch in "ßłøıðþ":
            out.append({"ß": "ss", "ł": "l", "ø": "o", "ı": "i", "ð": "d", "þ": "th"}[ch])
        else:
            out.append(ch)
    flat = unicodedata.normalize("NFKD", "".join(out))
    return "".join(c for c in flat if c.isascii() and (c.isalnum() or c in " -'")).replace(" ", "").replace("'", "")


def phone(cc: str, intl: bool | None = None) -> str:
    intl = chance(0.35) if intl is None else intl
    if cc in ("US", "CA"):
        a = pick([206, 312, 415, 512, 617, 646, 718, 773, 917, 303, 404] if cc == "US" else [416, 514, 604, 613, 780])
        ex, ln = R.randint(201, 989), dg(4)
        return f"+1 {a} {ex} {ln}" if intl else pick([f"({a}) {ex}-{ln}", f"{a}-{ex}-{ln}", f"{a}.{ex}.{ln}"])
    if cc == "GB":
        n = f"7{R.randint(400, 999)}{dg(6)}"
        return f"+44 {n[:4]} {n[4:]}" if intl else pick([f"0{n[:4]} {n[4:]}", f"020 {R.randint(3, 8)}{dg(3)} {dg(4)}"])
    if cc == "IN":
        n = str(R.randint(7, 9)) + dg(9)
        return f"+91 {n[:5]} {n[5:]}" if intl else f"0{n[:5]} {n[5:]}"
    if cc == "DE":
        pre = pick(["151", "152", "160", "170", "171", "176", "179"])
        n = dg(pick([7, 8]))
        return pick([f"+49 {pre} {n}", f"+49 (0){pre} {n}"]) if intl else pick([f"0{pre} {n}", f"0{pre}/{n}", f"030 {dg(8)}", f"089 {dg(7)}"])
    if cc == "FR":
        n = [str(R.randint(6, 7))] + [dg(2) for _ in range(4)]
        return "+33 " + " ".join(n) if intl else pick(["0" + " ".join(n), "0" + ".".join(n), f"01 {dg(2)} {dg(2)} {dg(2)} {dg(2)}"])
    if cc == "ES":
        n = str(R.randint(6, 7)) + dg(8)
        return f"+34 {n[:3]} {n[3:5]} {n[5:7]} {n[7:]}" if intl else pick([f"{n[:3]} {n[3:6]} {n[6:]}", f"91 {dg(3)} {dg(2)} {dg(2)}"])
    if cc == "MX":
        a = pick(["55", "33", "81"])
        return f"+52 {a} {dg(4)} {dg(4)}" if intl else f"{a} {dg(4)} {dg(4)}"
    if cc == "PT":
        n = "9" + pick("1236") + dg(7)
        return f"+351 {n[:3]} {n[3:6]} {n[6:]}" if intl else pick([f"{n[:3]} {n[3:6]} {n[6:]}", f"21 {dg(3)} {dg(4)}"])
    if cc == "BR":
        a = pick(["11", "21", "31", "41", "51", "61", "71", "81"])
        return f"+55 {a} 9{dg(4)}-{dg(4)}" if intl else pick([f"({a}) 9{dg(4)}-{dg(4)}", f"({a}) 3{dg(3)}-{dg(4)}"])
    if cc == "IT":
        n = "3" + pick(["33", "35", "38", "40", "47", "49"]) + dg(7)
        return f"+39 {n[:3]} {n[3:6]} {n[6:]}" if intl else pick([f"{n[:3]} {n[3:6]} {n[6:]}", f"{n[:3]}-{n[3:]}", f"06 {dg(4)} {dg(4)}"])
    if cc == "NL":
        n = dg(8)
        return f"+31 6 {n}" if intl else pick([f"06-{n}", f"06 {n[:2]} {n[2:4]} {n[4:6]} {n[6:]}", f"020-{dg(7)}"])
    if cc == "PL":
        n = pick(["5", "6", "7", "8"]) + dg(8)
        return f"+48 {n[:3]} {n[3:6]} {n[6:]}" if intl else pick([f"{n[:3]} {n[3:6]} {n[6:]}", f"{n[:3]}-{n[3:6]}-{n[6:]}", f"22 {dg(3)} {dg(2)} {dg(2)}"])
    if cc == "RU":
        a = pick(["916", "903", "925", "985", "912", "495"])
        return f"+7 ({a}) {dg(3)}-{dg(2)}-{dg(2)}" if intl else pick([f"8 ({a}) {dg(3)}-{dg(2)}-{dg(2)}", f"8-{a}-{dg(3)}-{dg(2)}-{dg(2)}"])
    if cc == "JP":
        return f"+81 {pick(['90', '80', '70'])}-{dg(4)}-{dg(4)}" if intl else pick([f"0{pick(['90', '80', '70'])}-{dg(4)}-{dg(4)}", f"03-{dg(4)}-{dg(4)}", f"06-{dg(4)}-{dg(4)}"])
    if cc == "CN":
        n = "1" + pick(["38", "39", "58", "86", "36", "50"]) + dg(8)
        return f"+86 {n[:3]} {n[3:7]} {n[7:]}" if intl else pick([f"{n[:3]} {n[3:7]} {n[7:]}", n, f"010-{dg(4)} {dg(4)}"])
    if cc == "KR":
        return f"+82 10-{dg(4)}-{dg(4)}" if intl else pick([f"010-{dg(4)}-{dg(4)}", f"02-{dg(3)}-{dg(4)}", f"010 {dg(4)} {dg(4)}"])
    if cc == "TR":
        n = "5" + pick(["32", "33", "35", "42", "44", "52", "05"]) + dg(7)
        return f"+90 {n[:3]} {n[3:6]} {n[6:8]} {n[8:]}" if intl else pick([f"0{n[:3]} {n[3:6]} {n[6:8]} {n[8:]}", f"(0212) {dg(3)} {dg(2)} {dg(2)}"])
    if cc == "AU":
        n = "4" + dg(8)
        return f"+61 {n[:3]} {n[3:6]} {n[6:]}" if intl else pick([f"0{n[:3]} {n[3:6]} {n[6:]}", f"(02) {dg(4)} {dg(4)}"])
    raise ValueError(cc)


def address(cc: str) -> str:
    n = R.randint(1, 180)
    if cc == "US":
        return f"{R.randint(100, 9999)} {pick(['Maple Ave', 'Oak Street', 'Pine Rd', 'Cedar Lane', 'Elm St', 'Lakeview Dr'])}{pick(['', ', Apt ' + str(R.randint(1, 20)) + pick('ABCD')])}, {pick(['Portland, OR 972', 'Austin, TX 787', 'Denver, CO 802', 'Columbus, OH 432', 'Raleigh, NC 276'])}{dg(2)}"
    if cc == "GB":
        return f"{n} {pick(['Kingsley Road', 'Church Lane', 'Victoria Street', 'Mill Close', 'Park Avenue'])}, {pick(['Leeds LS6', 'Bristol BS7', 'Manchester M14', 'York YO10', 'Cardiff CF24'])} {R.randint(1, 9)}{pick(UPPER)}{pick(UPPER)}"
    if cc == "IN":
        return f"Flat {R.randint(101, 904)}, {pick(['Sai Residency', 'Green Park Apartments', 'Lotus Towers'])}, {pick(['14th Cross, Indiranagar, Bengaluru 5600', 'Andheri West, Mumbai 4000', 'Anna Nagar, Chennai 6000'])}{dg(2)}"
    if cc == "DE":
        return f"{pick(['Lindenstraße', 'Hauptstraße', 'Goethestraße', 'Am Mühlbach', 'Schillerweg', 'Bahnhofstraße'])} {n}{pick(['', 'a', 'b'])}, {pick(['10115 Berlin', '80331 München', '50667 Köln', '20095 Hamburg', '04109 Leipzig', '70173 Stuttgart'])}"
    if cc == "FR":
        return f"{n} {pick(['rue des Lilas', 'avenue Jean Jaurès', 'boulevard Voltaire', 'rue de la République', 'impasse des Acacias'])}, {pick(['69003 Lyon', '75011 Paris', '13006 Marseille', '31000 Toulouse', '44000 Nantes'])}"
    if cc == "ES":
        return f"{pick(['Calle de Alcalá', 'Avenida de la Constitución', 'Calle Mayor', 'Carrer de Mallorca'])} {n}, {R.randint(1, 8)}º {pick('ABCD')}, {pick(['28014 Madrid', '08013 Barcelona', '41001 Sevilla', '46002 Valencia'])}"
    if cc == "MX":
        return f"{pick(['Av. Insurgentes Sur', 'Calle Durango', 'Av. Vallarta', 'Calle Hidalgo'])} {R.randint(10, 2500)}, Col. {pick(['Roma Norte', 'Del Valle', 'Americana', 'Centro'])}, {pick(['06700 Ciudad de México, CDMX', '44160 Guadalajara, Jal.', '64000 Monterrey, N.L.'])}"
    if cc == "PT":
        return f"{pick(['Rua Augusta', 'Avenida da Liberdade', 'Rua de Santa Catarina', 'Travessa do Carmo'])} {n}, {R.randint(1, 6)}º {pick(['Esq.', 'Dto.'])}, {pick(['1100-053 Lisboa', '4000-447 Porto', '3000-150 Coimbra'])}"
    if cc == "BR":
        return f"{pick(['Rua das Flores', 'Av. Paulista', 'Rua Oscar Freire', 'Rua XV de Novembro'])}, {n}, apto {R.randint(11, 182)} - {pick(['Pinheiros, São Paulo - SP, 05422-', 'Copacabana, Rio de Janeiro - RJ, 22070-', 'Centro, Curitiba - PR, 80020-'])}{dg(3)}"
    if cc == "IT":
        return f"{pick(['Via Garibaldi', 'Corso Vittorio Emanuele II', 'Via Roma', 'Piazza Cavour', 'Via dei Mille'])} {n}, {pick(['20121 Milano MI', '00184 Roma RM', '10123 Torino TO', '40126 Bologna BO', '80132 Napoli NA'])}"
    if cc == "NL":
        return f"{pick(['Prinsengracht', 'Kerkstraat', 'Dorpsstraat', 'Oudegracht', 'Laan van Meerdervoort'])} {n}{pick(['', '-1', 'A', '-II'])}, {R.randint(1011, 9999)} {pick(UPPER)}{pick(UPPER)} {pick(['Amsterdam', 'Utrecht', 'Rotterdam', 'Den Haag', 'Groningen'])}"
    if cc == "PL":
        return f"ul. {pick(['Marszałkowska', 'Piotrkowska', 'Floriańska', 'Długa', 'Świętojańska'])} {n} m. {R.randint(1, 60)}, {pick(['00-514 Warszawa', '90-001 Łódź', '31-019 Kraków', '80-830 Gdańsk'])}"
    if cc == "RU":
        return f"ул. {pick(['Тверская', 'Ленина', 'Садовая', 'Пушкина', 'Гагарина'])}, д. {n}, кв. {R.randint(1, 240)}, {pick(['Москва, 125009', 'Санкт-Петербург, 191186', 'Казань, 420111', 'Новосибирск, 630099'])}"
    if cc == "JP":
        return f"〒{dg(3)}-{dg(4)} {pick(['東京都渋谷区神南', '大阪府大阪市北区梅田', '神奈川県横浜市中区山下町', '京都府京都市左京区下鴨'])}{R.randint(1, 5)}-{R.randint(1, 30)}-{R.randint(1, 20)} {pick(['メゾン青山', 'グランドハイツ', 'パークサイド'])}{R.randint(101, 1205)}号室"
    if cc == "CN":
        return f"{pick(['上海市浦东新区世纪大道', '北京市朝阳区建国路', '广东省深圳市南山区科技园南路', '浙江省杭州市西湖区文三路'])}{R.randint(1, 300)}号{R.randint(1, 12)}栋{R.randint(101, 2802)}室"
    if cc == "KR":
        return f"{pick(['서울특별시 강남구 테헤란로', '서울특별시 마포구 양화로', '부산광역시 해운대구 센텀중앙로', '경기도 성남시 분당구 판교역로'])} {R.randint(1, 300)}, {R.randint(101, 2503)}호"
    if cc == "TR":
        return f"{pick(['Atatürk Cad.', 'Bağdat Cad.', 'İstiklal Cad.', 'Cumhuriyet Mah. 1203. Sok.'])} No: {n} D: {R.randint(1, 24)}, {pick(['34710 Kadıköy/İstanbul', '06690 Çankaya/Ankara', '35220 Konak/İzmir'])}"
    if cc == "CA":
        return f"{R.randint(10, 9999)} {pick(['Rue Sherbrooke Ouest', 'Queen Street West', 'Granville St'])}, {pick(['Montréal QC H3A', 'Toronto ON M5V', 'Vancouver BC V6B'])} {R.randint(1, 9)}{pick(UPPER)}{R.randint(1, 9)}"
    if cc == "AU":
        return f"{R.randint(1, 250)} {pick(['George Street', 'Collins Street', 'Queen Street'])}, {pick(['Sydney NSW 2000', 'Melbourne VIC 3000', 'Brisbane QLD 4000'])}"
    raise ValueError(cc)


def dob_fmt(d: datetime, lang: str, cc: str) -> str:
    if lang in ("ja", "zh"):
        return f"{d.year}年{d.month}月{d.day}日"
    if lang == "ko":
        return f"{d.year}년 {d.month}월 {d.day}일"
    if cc == "US":
        return pick([f"{d:%m/%d/%Y}", f"{d:%Y-%m-%d}"])
    if lang in ("de", "ru", "tr", "pl"):
        return f"{d:%d.%m.%Y}"
    if lang == "nl":
        return f"{d:%d-%m-%Y}"
    return pick([f"{d:%d/%m/%Y}", f"{d:%Y-%m-%d}"])


ID_KIND = {
    "US": "us_ssn", "GB": "uk_nino", "IN": "in_aadhaar", "DE": "de_steuer_id", "FR": "fr_nir", "ES": "es_dni", "MX": "mx_curp", "PT": "pt_nif",
    "BR": "br_cpf", "IT": "it_codice_fiscale", "NL": "nl_bsn", "PL": "pl_pesel", "RU": "ru_snils", "JP": "jp_my_number", "CN": "cn_resident_id",
    "KR": "kr_rrn", "TR": "tr_tc_kimlik", "CA": "ca_sin", "AU": "au_tfn",
}
IBAN_CC = {"DE": "DE", "FR": "FR", "ES": "ES", "IT": "IT", "NL": "NL", "GB": "GB", "PL": "PL", "PT": "PT", "TR": "TR", "BR": "PT", "MX": "ES", "US": "GB", "IN": "GB",
           "RU": "DE", "JP": "NL", "CN": "BE", "KR": "AT", "CA": "CH", "AU": "GB"}


@dataclass
class Person:
    cc: str
    lang: str
    first: str
    last: str
    full: str
    female: bool
    email: str
    phone: str
    address: str
    born: datetime
    dob: str
    natid: str
    natid_kind: str
    iban: str
    card: str
    ip: str
    username: str


_NEXT_COUNTRY: dict[str, int] = {}


def next_country(lang: str) -> str:
    """Countries of a language in turn, so every national id format shows up."""
    options = COUNTRY_FOR_LANG[lang]
    i = _NEXT_COUNTRY.get(lang, 0)
    _NEXT_COUNTRY[lang] = i + 1
    return options[i % len(options)]


def person(lang: str, cc: str | None = None) -> Person:
    cc = cc or next_country(lang)
    fem_names, male_names, lasts = NAMES[cc]
    female = chance(0.5)
    first = pick(fem_names if female else male_names)
    last_raw = pick(lasts)
    last = last_raw.split("|")[1 if female else 0] if "|" in last_raw else last_raw
    last2 = pick(lasts) if cc == "MX" else ""
    if cc in ("JP", "CN", "KR"):
        full = f"{last}{first}" if cc != "JP" else f"{last} {first}"
    elif cc == "RU":
        full = f"{first} {last}"
    elif cc in ("ES", "MX"):
        second = last2 or pick(lasts)
        full = f"{first} {last} {second}"
        last2 = second
    else:
        full = f"{first} {last}"
    born = datetime(R.randint(1952, 2004), R.randint(1, 12), R.randint(1, 28), tzinfo=UTC)
    fl, ll = translit(first.split()[0]), translit(last)
    local = pick([f"{fl}.{ll}", f"{fl}{ll}", f"{fl[0]}{ll}", f"{ll}.{fl}", f"{fl}.{ll}{born:%y}", f"{fl}_{ll}{R.randint(1, 99)}"])
    email = f"{local}@{pick(DOMAINS[cc])}"
    gen = {
        "US": ssn, "GB": nino, "IN": aadhaar, "DE": steuer_id, "ES": lambda: dni() if chance(0.75) else nie(), "PT": pt_nif, "BR": cpf,
        "NL": bsn, "RU": snils, "JP": my_number, "TR": tc_kimlik, "CA": ca_sin, "AU": au_tfn,
    }
    if cc == "FR":
        natid = nir(2 if female else 1, born)
    elif cc == "IT":
        natid = codice_fiscale(first, last, born, female)
    elif cc == "MX":
        natid = curp(first.split()[0], last, last2, born, female)
    elif cc == "PL":
        natid = pesel(born, female)
    elif cc == "KR":
        natid = kr_rrn(born, female)
    elif cc == "CN":
        natid = cn_resident_id(born, female)
    else:
        natid = gen[cc]()
    kind = ID_KIND[cc]
    if cc == "ES" and natid[0] in "XYZ":
        kind = "es_nie"
    ib = iban(IBAN_CC[cc])
    return Person(cc, lang, first, last, full, female, email, phone(cc), address(cc), born, dob_fmt(born, lang, cc), natid, kind, ib,
                  card_number(), public_ipv4() if chance(0.85) else public_ipv6(), f"{fl[:1]}{ll}"[:12])


def company_vat(cc: str) -> tuple[str, str]:
    if cc == "BR":
        return cnpj(), "br_cnpj"
    fn = {"DE": de_vat, "FR": fr_vat, "IT": it_vat, "PL": lambda: "PL" + pl_nip(), "BE": be_vat, "GB": gb_vat, "NL": nl_vat}
    c = cc if cc in fn else pick(list(fn))
    return fn[c](), f"vat_{c.lower()}"


# ---------------------------------------------------------------- rows and labels

CLASSES = ("secrets", "pii", "decoys")


@dataclass
class Label:
    value: str
    kind: str
    shown: str | None = None
    pieces: list[str] | None = None

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"value": self.value, "kind": self.kind}
        if self.shown is not None:
            out["shown"] = self.shown
        if self.pieces is not None:
            out["pieces"] = self.pieces
        return out

    def forms(self) -> list[str]:
        """Strings that must all be present in the text (before scrubbing) for this label."""
        if self.pieces is not None:
            return list(self.pieces)
        if self.shown is not None:
            return [self.shown]
        return [self.value]


class Row:
    def __init__(self, style: str, lang: str) -> None:
        self.style = style
        self.lang = lang
        self.long = False  # ask the style for a long row (logs, transcripts, notes of 8-20 KB)
        self.items: dict[str, list[Label]] = {c: [] for c in CLASSES}

    def add(self, cls: str, value: str, kind: str, shown: str | None = None) -> str:
        if shown == value:
            shown = None
        form = value if shown is None else shown
        if cls == "decoys" and shown is not None:
            return form  # a decoy must read verbatim; an escaped one is left unlabelled
        for lab in self.items[cls]:
            if lab.value == value and lab.shown == shown:
                return form
        self.items[cls].append(Label(value, kind, shown))
        return form

    def S(self, value: str, kind: str, shown: str | None = None) -> str:
        return self.add("secrets", value, kind, shown)

    def P(self, value: str, kind: str, shown: str | None = None) -> str:
        return self.add("pii", value, kind, shown)

    def D(self, value: str, kind: str) -> str:
        return self.add("decoys", value, kind)

    def transform(self, esc) -> None:  # type: ignore[no-untyped-def]
        """Apply a character-wise encoding (JSON string escaping) to every label's visible form."""
        for cls in CLASSES:
            kept = []
            for lab in self.items[cls]:
                if lab.pieces is not None:
                    lab.pieces = [esc(p) for p in lab.pieces]
                    if lab.shown is not None:
                        lab.shown = esc(lab.shown)
                elif lab.shown is not None:
                    lab.shown = esc(lab.shown)
                else:
                    enc = esc(lab.value)
                    if enc != lab.value:
                        if cls == "decoys":
                            continue
                        lab.shown = enc
                kept.append(lab)
            self.items[cls] = kept

    def pii_person(self, p: Person, *fields: str) -> dict[str, str]:
        out = {}
        for f in fields:
            if f == "name":
                out[f] = self.P(p.full, "person_name")
            elif f == "email":
                out[f] = self.P(p.email, "email")
            elif f == "phone":
                out[f] = self.P(p.phone, "phone")
            elif f == "address":
                out[f] = self.P(p.address, "postal_address")
            elif f == "dob":
                out[f] = self.P(p.dob, "date_of_birth")
            elif f == "id":
                out[f] = self.P(p.natid, p.natid_kind)
            elif f == "iban":
                out[f] = self.P(p.iban if chance(0.6) else group4(p.iban), "iban")
            elif f == "card":
                out[f] = self.P(card_fmt(p.card), "credit_card")
            elif f == "ip":
                out[f] = self.P(p.ip, "ip_address")
            else:
                raise ValueError(f)
        return out


def json_esc(ensure_ascii: bool = False):  # type: ignore[no-untyped-def]
    def esc(s: str) -> str:
        return json.dumps(s, ensure_ascii=ensure_ascii)[1:-1]

    return esc


def wrap_text(row: Row, text: str, width: int, indent: str = "", min_piece: int = 6) -> str | None:
    """Hard-wrap every line longer than width as a terminal does; continuation lines get indent.

    Secrets cut by the wrap get `pieces`; a cut PII item or decoy loses its label. Returns None when
    a piece would be shorter than min_piece (the caller then lays the row out again).
    """
    out_lines: list[str] = []
    spans: list[tuple[int, int, int]] = []  # per original line: (start offset in text, chunk widths...)
    offset = 0
    cuts: list[list[int]] = []
    for line in text.split("\n"):
        bounds = [0]
        if len(line) > width:
            out_lines.append(line[:width])
            pos = width
            bounds.append(pos)
            step = width - len(indent)
            while pos < len(line):
                out_lines.append(indent + line[pos : pos + step])
                pos += step
                bounds.append(min(pos, len(line)))
        else:
            out_lines.append(line)
            bounds.append(len(line))
        spans.append((offset, len(line), 0))
        cuts.append(bounds)
        offset += len(line) + 1
    new = "\n".join(out_lines)

    def locate(form: str) -> list[str] | None:
        at = text.find(form)
        if at < 0 or "\n" in form:
            return None
        for (start, length, _), bounds in zip(spans, cuts, strict=True):
            if start <= at <= start + length:
                lo, hi = at - start, at - start + len(form)
                inner = [b for b in bounds if lo < b < hi]
                if not inner:
                    return None
                edges = [lo, *inner, hi]
                return [form[edges[i] - lo : edges[i + 1] - lo] for i in range(len(edges) - 1)]
        return None

    for cls in CLASSES:
        kept = []
        for lab in row.items[cls]:
            forms = lab.forms()
            if all(f in new for f in forms):
                kept.append(lab)
                continue
            if cls == "pii":
                return None  # personal data cut by the wrap would stay in the text unlabelled
            if cls != "secrets" or lab.pieces is not None:
                continue
            parts = locate(forms[0])
            if parts is None:
                return None
            if min(len(p) for p in parts) < min_piece:
                return None
            lab.pieces = parts
            kept.append(lab)
        row.items[cls] = kept
    return new


# ---------------------------------------------------------------- fields and renderers


@dataclass
class F:
    name: str
    value: str
    labels: list[tuple[str, str, str, str]] = field(default_factory=list)  # (class, value, kind, form inside value)
    kv: str | None = None  # decoy kind for the rendered `key = value` fragment (credential-named, harmless)


def sec(name: str, value: str, kind: str) -> F:
    return F(name, value, [("secrets", value, kind, value)])


def dec(name: str, value: str, kind: str) -> F:
    return F(name, value, [("decoys", value, kind, value)])


def plain(name: str, value: str) -> F:
    return F(name, value)


def kvd(name: str, value: str, kind: str = "credential_named_setting") -> F:
    return F(name, value, kv=kind)


def put(row: Row, f: F, esc=None) -> None:  # type: ignore[no-untyped-def]
    for cls, value, kind, form in f.labels:
        shown = esc(form) if esc else form
        row.add(cls, value, kind, shown if shown != value else None)


def key_case(name: str, case: str) -> str:
    low = name.lower()
    if case == "lower":
        return low
    if case == "camel":
        head, *rest = low.split("_")
        return head + "".join(w.capitalize() for w in rest)
    if case == "kebab":
        return low.replace("_", "-")
    if case == "dotted":
        return low.replace("_", ".")
    return name


_ENV_SAFE = re.compile(r"^[A-Za-z0-9_./:@%+,=~-]*$")


def r_env(row: Row, fields: list[F], prefix: str = "", quote_all: bool = False, case: str = "upper") -> list[str]:
    lines = []
    for f in fields:
        v = f.value
        if _ENV_SAFE.match(v) and not quote_all:
            lit, esc = v, None
        elif "'" not in v and (not quote_all or chance(0.4)):
            lit, esc = f"'{v}'", None
        else:

            def esc(s: str) -> str:
                return s.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")

            lit = f'"{esc(v)}"'
        put(row, f, esc)
        frag = f"{key_case(f.name, case)}={lit}"
        if f.kv:
            row.D(frag, f.kv)
        lines.append(prefix + frag)
    return lines


_YAML_SAFE = re.compile(r"^[A-Za-z0-9_./+=~-][A-Za-z0-9_./@:+=~-]*$")


def yaml_lit(v: str) -> tuple[str, object]:
    if v and _YAML_SAFE.match(v) and not re.match(r"^(true|false|yes|no|null|on|off|~|\d+)$", v, re.I) and ":" not in v:
        return v, None
    esc = json_esc(False)
    return f'"{esc(v)}"', esc


def r_yaml(row: Row, fields: list[F], indent: str = "", case: str = "lower", sep: str = ": ") -> list[str]:
    lines = []
    for f in fields:
        lit, esc = yaml_lit(f.value)
        put(row, f, esc)
        frag = f"{key_case(f.name, case)}{sep}{lit}"
        if f.kv:
            row.D(frag, f.kv)
        lines.append(indent + frag)
    return lines


def r_json_obj(row: Row, fields: list[F], case: str = "lower", ensure_ascii: bool = False) -> dict[str, str]:
    esc = json_esc(ensure_ascii)
    obj = {}
    for f in fields:
        put(row, f, esc)
        k = key_case(f.name, case)
        if f.kv:
            row.D(f"{json.dumps(k)}: {json.dumps(f.value, ensure_ascii=ensure_ascii)}", f.kv)
        obj[k] = f.value
    return obj


def r_toml(row: Row, fields: list[F], case: str = "lower") -> list[str]:
    esc = json_esc(False)
    lines = []
    for f in fields:
        put(row, f, esc)
        frag = f'{key_case(f.name, case)} = "{esc(f.value)}"'
        if f.kv:
            row.D(frag, f.kv)
        lines.append(frag)
    return lines


def r_ini(row: Row, fields: list[F], case: str = "lower", sep: str = " = ") -> list[str]:
    lines = []
    for f in fields:
        put(row, f)
        frag = f"{key_case(f.name, case)}{sep}{f.value}"
        if f.kv:
            row.D(frag, f.kv)
        lines.append(frag)
    return lines


def xml_attr_esc(s: str) -> str:
    return xml_escape(s, {'"': "&quot;"})


def r_xml(row: Row, fields: list[F], mode: str = "elements", indent: str = "  ") -> list[str]:
    lines = []
    for f in fields:
        if mode == "elements":
            k = key_case(f.name, "camel")
            put(row, f, xml_escape)
            frag = f"<{k}>{xml_escape(f.value)}</{k}>"
        else:
            put(row, f, xml_attr_esc)
            frag = f'<add key="{key_case(f.name, "camel")}" value="{xml_attr_esc(f.value)}" />'
        if f.kv:
            row.D(frag, f.kv)
        lines.append(indent + frag)
    return lines


def r_hcl(row: Row, fields: list[F], indent: str = "  ") -> list[str]:
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace('"', '\\"')

    width = max(len(f.name) for f in fields)
    lines = []
    for f in fields:
        put(row, f, esc)
        frag = f'{f.name.lower().ljust(width)} = "{esc(f.value)}"'
        if f.kv:
            row.D(frag.strip(), f.kv)
        lines.append(indent + frag)
    return lines


def r_aligned(row: Row, fields: list[F], header: tuple[str, str] | None = ("KEY", "VALUE"), case: str = "upper", gap: int = 4, rule: bool | None = None) -> list[str]:
    keys = [key_case(f.name, case) for f in fields]
    width = max([len(k) for k in keys] + [len(header[0]) if header else 0]) + gap
    lines = []
    if header:
        lines.append(header[0].ljust(width) + header[1])
        if chance(0.5) if rule is None else rule:
            lines.append("-" * len(header[0]) + " " * (width - len(header[0])) + "-" * len(header[1]))
    for k, f in zip(keys, fields, strict=True):
        put(row, f)
        frag = k.ljust(width) + f.value
        if f.kv:
            row.D(frag.rstrip(), f.kv)
        lines.append(frag.rstrip())
    return lines


def r_box(row: Row, rows: list[list[str]], header: list[str], heavy: bool = False) -> list[str]:
    """Box-drawing table; cell labelling is the caller's job."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    h, v = ("━", "┃") if heavy else ("─", "│")
    corners = ("┏┳┓", "┣╋┫", "┗┻┛") if heavy else ("┌┬┐", "├┼┤", "└┴┘")

    def rule(c: str) -> str:
        return c[0] + c[1].join(h * (w + 2) for w in widths) + c[2]

    def line(cells: list[str]) -> str:
        return v + v.join(f" {str(c).ljust(w)} " for c, w in zip(cells, widths, strict=True)) + v

    out = [rule(corners[0]), line(header), rule(corners[1])]
    out += [line(r) for r in rows]
    out.append(rule(corners[2]))
    return out


def r_ascii_grid(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def line(cells: list[str]) -> str:
        return "|" + "|".join(f" {str(c).ljust(w)} " for c, w in zip(cells, widths, strict=True)) + "|"

    return [rule, line(header), rule, *[line(r) for r in rows], rule]


def r_psql(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    out = [" " + " | ".join(h.center(w) for h, w in zip(header, widths, strict=True))]
    out.append("-" + "-+-".join("-" * w for w in widths) + "-")
    for r in rows:
        out.append((" " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True))).rstrip())
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return out


def r_md(rows: list[list[str]], header: list[str]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


CORPS = ["tessellate.dev", "fernwood.app", "kvarnberg.io", "lumenfold.com", "nordhafen.de", "brightmoss.net", "orchardly.co", "quillstack.io", "marbleyard.fr", "hanami-labs.jp", "tidewell.com.br", "pasaport.com.tr"]
APPS = ["api", "billing", "orders", "checkout", "search", "auth", "worker", "ingest", "notifier", "gateway", "ledger", "reports"]
USERS = ["dev", "ubuntu", "deploy", "ci", "runner", "app", "admin", "mk", "jlee", "sofia", "tkowalski", "root"]
LOCALES = {"en": "en_US.UTF-8", "de": "de_DE.UTF-8", "fr": "fr_FR.UTF-8", "es": "es_ES.UTF-8", "pt": "pt_BR.UTF-8", "it": "it_IT.UTF-8", "nl": "nl_NL.UTF-8",
           "pl": "pl_PL.UTF-8", "ru": "ru_RU.UTF-8", "ja": "ja_JP.UTF-8", "zh": "zh_CN.UTF-8", "ko": "ko_KR.UTF-8", "tr": "tr_TR.UTF-8"}
TZS = {"en": "America/New_York", "de": "Europe/Berlin", "fr": "Europe/Paris", "es": "Europe/Madrid", "pt": "America/Sao_Paulo", "it": "Europe/Rome", "nl": "Europe/Amsterdam",
       "pl": "Europe/Warsaw", "ru": "Europe/Moscow", "ja": "Asia/Tokyo", "zh": "Asia/Shanghai", "ko": "Asia/Seoul", "tr": "Europe/Istanbul"}


def corp() -> str:
    return pick(CORPS)


def db_host(kind: str = "pg") -> str:
    c = corp().split(".")[0]
    return pick([
        f"{pick(APPS)}-db.{rs(LOWER_ALNUM, 12)}.{aws_region()}.rds.amazonaws.com",
        f"db-primary.prod.{c}.internal",
        f"{c}-{kind}.postgres.database.azure.com" if kind == "pg" else f"{c}-{kind}.mysql.database.azure.com",
        f"{pick(APPS)}-{kind}-{R.randint(0, 3)}.{pick(['prod', 'stg', 'eu'])}.svc.cluster.local",
        f"{kind}{R.randint(1, 9)}.{pick(['fra', 'ams', 'par', 'waw'])}.{c}.net",
    ])


def db_url_field(lang: str, name: str = "DATABASE_URL", special: bool | None = None, host_decoy: bool | None = None) -> F:
    scheme, port, user = pick([("postgres", 5432, "app"), ("postgresql", 5432, "orders_rw"), ("mysql", 3306, "root"), ("mysql2", 3306, "shop"),
                               ("mongodb", 27017, "admin"), ("redis", 6379, "default"), ("amqp", 5672, "rabbit"), ("mssql", 1433, "sa")])
    special = chance(0.25) if special is None else special
    pw = human_password(lang, special=special)
    enc = urllib.parse.quote(pw, safe="")
    host = db_host("pg" if scheme.startswith("postgres") else "mysql" if scheme.startswith("mysql") else scheme)
    db = pick(["app", "orders", "shop_prod", "billing", "analytics", "0"]) if scheme == "redis" else pick(["app", "orders", "shop_prod", "billing", "analytics"])
    url = f"{scheme}://{user}:{enc}@{host}:{port}/{db}"
    if scheme == "postgres" and chance(0.3):
        url += "?sslmode=require"
    labels = [("secrets", pw, "database_password", enc)]
    if host_decoy if host_decoy is not None else chance(0.4):
        labels.append(("decoys", host, "hostname", host))
    return F(name, url, labels)


def azure_conn_field() -> F:
    acct = corp().split(".")[0].replace("-", "")[:10] + rs(LOWER + DIGITS, 4)
    key = azure_storage_key()
    conn = f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};EndpointSuffix=core.windows.net"
    return F("AZURE_STORAGE_CONNECTION_STRING", conn, [("secrets", key, "azure_storage_key", key)])


def webhook_field(kind: str) -> F:
    if kind == "slack":
        url, tok = slack_webhook()
        return F("SLACK_WEBHOOK_URL", url, [("secrets", tok, "slack_webhook_token", tok)])
    if kind == "discord":
        url, tok = discord_webhook()
        return F("DISCORD_WEBHOOK_URL", url, [("secrets", tok, "discord_webhook_token", tok)])
    tok = rs(ALNUM, 32)
    url = f"https://hooks.{corp()}/ingest/{uuid4()}?token={tok}"
    return F("ALERT_WEBHOOK_URL", url, [("secrets", tok, "webhook_token", tok)])


_GROUP_DECK: list[str] = []


def next_group() -> str:
    """Credential families in shuffled turns, so rare vendors show up as often as common ones."""
    if not _GROUP_DECK:
        _GROUP_DECK.extend(SECRET_GROUPS)
        R.shuffle(_GROUP_DECK)
    return _GROUP_DECK.pop()


def gcp_sa_field() -> F:
    """A service-account key file pasted into one variable, as CI systems ask for it."""
    project = f"{pick(APPS)}-{pick(['prod', 'data', 'ml'])}-{dg(6)}"
    key = rsa_pkcs8_pem() + "\n"
    sa = f"{pick(['ci-deployer', 'bq-reader', 'terraform'])}@{project}.iam.gserviceaccount.com"
    obj = {"type": "service_account", "project_id": project, "private_key_id": hx(40), "private_key": key, "client_email": sa, "client_id": dg(21),
           "token_uri": "https://oauth2.googleapis.com/token"}
    return F(pick(["GOOGLE_CREDENTIALS", "GCP_SA_KEY", "GOOGLE_APPLICATION_CREDENTIALS_JSON"]), json.dumps(obj, separators=(",", ":")),
             [("secrets", key, "gcp_service_account_private_key", json_esc(False)(key))])


def secret_group(lang: str, which: str | None = None) -> list[F]:
    """A coherent set of settings around one credential, named as projects name them."""
    g = which or next_group()
    if g == "aws":
        return [sec("AWS_ACCESS_KEY_ID", aws_akid(), "aws_access_key_id"), sec("AWS_SECRET_ACCESS_KEY", aws_secret(), "aws_secret_access_key"), plain("AWS_DEFAULT_REGION", aws_region())]
    if g == "aws_sts":
        return [sec("AWS_ACCESS_KEY_ID", aws_akid("ASIA"), "aws_access_key_id"), sec("AWS_SECRET_ACCESS_KEY", aws_secret(), "aws_secret_access_key"), sec("AWS_SESSION_TOKEN", aws_session_token(), "aws_session_token")]
    if g == "github":
        return [sec(pick(["GITHUB_TOKEN", "GH_TOKEN", "GITHUB_PAT", "HOMEBREW_GITHUB_API_TOKEN"]), pick([gh_token("ghp"), gh_token("gho"), gh_token("ghs"), gh_fine_grained(), gh_token("ghu")]), "github_token")]
    if g == "gitlab":
        return [plain("GITLAB_URL", f"https://gitlab.{corp()}"), sec(pick(["GITLAB_TOKEN", "GITLAB_PRIVATE_TOKEN", "DANGER_GITLAB_API_TOKEN"]), glpat(), "gitlab_token")]
    if g == "slack":
        out = [sec("SLACK_BOT_TOKEN", slack_bot(), "slack_bot_token"), sec("SLACK_SIGNING_SECRET", hx(32), "slack_signing_secret")]
        if chance(0.4):
            out.append(sec("SLACK_APP_TOKEN", slack_app(), "slack_app_token"))
        return out
    if g == "slack_user":
        return [sec("SLACK_USER_TOKEN", slack_user(), "slack_user_token")]
    if g == "webhook":
        return [webhook_field(pick(["slack", "discord", "generic"]))]
    if g == "stripe":
        out = [sec("STRIPE_SECRET_KEY", stripe_secret(chance(0.75)), "stripe_secret_key"), sec("STRIPE_WEBHOOK_SECRET", stripe_whsec(), "stripe_webhook_secret")]
        if chance(0.35):
            out.insert(0, dec("STRIPE_PUBLISHABLE_KEY", stripe_publishable(), "public_by_design"))
        if chance(0.2):
            out.append(sec("STRIPE_RESTRICTED_KEY", stripe_restricted(), "stripe_restricted_key"))
        return out
    if g == "openai":
        out = [sec("OPENAI_API_KEY", openai_key(), "openai_api_key")]
        if chance(0.4):
            out.append(dec("OPENAI_ORG_ID", "org-" + rs(ALNUM, 24), "org_id"))
        return out
    if g == "anthropic":
        return [sec("ANTHROPIC_API_KEY", anthropic_key(), "anthropic_api_key"), kvd("ANTHROPIC_MAX_TOKENS", pick(["4096", "8192", "64000"]))]
    if g == "hf":
        return [sec(pick(["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"]), hf_token(), "huggingface_token"), plain("HF_HOME", "/data/hf-cache")]
    if g == "npm":
        return [sec("NPM_TOKEN", npm_token(), "npm_token")]
    if g == "pypi":
        return [plain("TWINE_USERNAME", "__token__"), sec("TWINE_PASSWORD", pypi_token(chance(0.2)), "pypi_token")]
    if g == "twilio":
        return [plain("TWILIO_ACCOUNT_SID", twilio_sid()), sec("TWILIO_AUTH_TOKEN", twilio_auth(), "twilio_auth_token")]
    if g == "sendgrid":
        return [sec("SENDGRID_API_KEY", sendgrid_key(), "sendgrid_api_key"), plain("MAIL_FROM", f"noreply@{corp()}")]
    if g == "datadog":
        return [sec("DD_API_KEY", dd_api(), "datadog_api_key"), sec("DD_APP_KEY", dd_app(), "datadog_app_key"), plain("DD_SITE", pick(["datadoghq.eu", "datadoghq.com", "us5.datadoghq.com"]))]
    if g == "shopify":
        return [plain("SHOPIFY_STORE_DOMAIN", f"{pick(['acme-outlet', 'lumen-store', 'fernwood-shop'])}.myshopify.com"), sec("SHOPIFY_ADMIN_ACCESS_TOKEN", shopify_token("shpat"), "shopify_access_token"), sec("SHOPIFY_API_SECRET", shopify_token("shpss"), "shopify_shared_secret")]
    if g == "digitalocean":
        return [sec("DIGITALOCEAN_ACCESS_TOKEN", do_token(), "digitalocean_token")]
    if g == "vault":
        return [dec("VAULT_ADDR", f"https://vault.{corp()}:8200", "url"), sec("VAULT_TOKEN", vault_token(), "vault_token"), plain("VAULT_NAMESPACE", "admin")]
    if g == "doppler":
        return [sec("DOPPLER_TOKEN", doppler_token(), "doppler_token")]
    if g == "google":
        return [sec(pick(["GOOGLE_MAPS_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"]), google_api_key(), "google_api_key")]
    if g == "google_oauth":
        out = [dec("GOOGLE_CLIENT_ID", oauth_client_id(), "oauth_client_id"), sec("GOOGLE_CLIENT_SECRET", gocspx(), "oauth_client_secret")]
        if chance(0.5):
            out.append(sec("GOOGLE_REFRESH_TOKEN", google_refresh(), "oauth_refresh_token"))
        return out
    if g == "gcp_access":
        return [sec("CLOUDSDK_AUTH_ACCESS_TOKEN", gcp_access_token(), "gcp_access_token")]
    if g == "azure_sp":
        return [dec("AZURE_TENANT_ID", uuid4(), "uuid"), dec("AZURE_CLIENT_ID", uuid4(), "uuid"), sec("AZURE_CLIENT_SECRET", azure_client_secret(), "azure_client_secret")]
    if g == "azure_storage":
        return [azure_conn_field()]
    if g == "azure_devops":
        return [plain("AZURE_DEVOPS_ORG", f"https://dev.azure.com/{corp().split('.')[0]}"), sec("AZURE_DEVOPS_EXT_PAT", azure_devops_pat(), "azure_devops_pat")]
    if g == "db_url":
        return [db_url_field(lang)]
    if g == "db_parts":
        return [dec("DB_HOST", db_host(), "hostname"), plain("DB_PORT", "5432"), plain("DB_USER", pick(["app", "orders_rw", "postgres"])), sec("DB_PASSWORD", human_password(lang), "password"), plain("DB_NAME", pick(["app", "orders"]))]
    if g == "redis":
        pw = human_password(lang) if chance(0.5) else rs(ALNUM, 32)
        return [plain("REDIS_HOST", db_host("redis")), sec("REDIS_PASSWORD", pw, "password")]
    if g == "jwt":
        return [sec(pick(["JWT_SECRET", "JWT_SIGNING_KEY", "AUTH_JWT_SECRET", "NEXTAUTH_SECRET"]), pick([hx(64), rs(ALNUM, 48), b64_bytes(48)]), "jwt_signing_key"), kvd("JWT_EXPIRES_IN", pick(["3600", "15m", "1h", "7d"]))]
    if g == "django":
        return [sec("DJANGO_SECRET_KEY", django_key(), "django_secret_key"), plain("DJANGO_SETTINGS_MODULE", "config.settings.production")]
    if g == "rails":
        return [sec("SECRET_KEY_BASE", rails_key_base(), "rails_secret_key_base"), plain("RAILS_ENV", "production")]
    if g == "laravel":
        return [sec("APP_KEY", laravel_key(), "laravel_app_key"), plain("APP_ENV", "production")]
    if g == "fernet":
        return [sec(pick(["FERNET_KEY", "FIELD_ENCRYPTION_KEY", "AIRFLOW__CORE__FERNET_KEY"]), fernet_key(), "encryption_key")]
    if g == "session":
        return [sec(pick(["SESSION_SECRET", "COOKIE_SECRET", "FLASK_SECRET_KEY", "EXPRESS_SESSION_SECRET"]), rs(ALNUM + "-_", R.randint(32, 64)), "session_secret"), kvd("SESSION_TIMEOUT", pick(["30m", "1800", "12h"]))]
    if g == "internal":
        return [sec(pick(["PAYMENTS_API_KEY", "BILLING_SERVICE_KEY", "INTERNAL_API_KEY", "LEDGER_API_TOKEN", "PARTNER_API_KEY", "SEARCH_ADMIN_KEY", "GEO_SERVICE_SECRET"]), internal_key(), "internal_api_key")]
    if g == "hmac":
        return [sec(pick(["HMAC_SIGNING_KEY", "WEBHOOK_SIGNING_SECRET", "URL_SIGNING_KEY", "MASTER_KEY", "DATA_ENCRYPTION_KEY"]), pick([hx(64), b64_bytes(32)]), "signing_key")]
    if g == "heroku":
        return [sec("HEROKU_API_KEY", heroku_key(), "heroku_api_key")]
    if g == "sentry":
        return [sec("SENTRY_AUTH_TOKEN", sentry_token(), "sentry_auth_token"), plain("SENTRY_ORG", corp().split(".")[0])]
    if g == "telegram":
        return [sec("TELEGRAM_BOT_TOKEN", telegram_token(), "telegram_bot_token")]
    if g == "mailgun":
        return [sec("MAILGUN_API_KEY", mailgun_key(), "mailgun_api_key"), plain("MAILGUN_DOMAIN", f"mg.{corp()}")]
    if g == "cloudflare":
        return [sec("CLOUDFLARE_API_TOKEN", cloudflare_token(), "cloudflare_api_token"), dec("CLOUDFLARE_ZONE_ID", hx(32), "zone_id")]
    if g == "linear":
        return [sec("LINEAR_API_KEY", linear_key(), "linear_api_key")]
    if g == "atlassian":
        return [plain("JIRA_BASE_URL", f"https://{corp().split('.')[0]}.atlassian.net"), sec("JIRA_API_TOKEN", atlassian_token(), "atlassian_api_token")]
    if g == "tfc":
        return [sec("TF_TOKEN_app_terraform_io", tfc_token(), "terraform_cloud_token")]
    if g == "databricks":
        return [dec("DATABRICKS_HOST", f"https://adb-{dg(16)}.{R.randint(1, 19)}.azuredatabricks.net", "hostname"), sec("DATABRICKS_TOKEN", databricks_token(), "databricks_token")]
    if g == "grafana":
        return [sec("GRAFANA_SERVICE_ACCOUNT_TOKEN", grafana_token(), "grafana_token")]
    if g == "postman":
        return [sec("POSTMAN_API_KEY", postman_key(), "postman_api_key")]
    if g == "netlify":
        return [sec("NETLIFY_AUTH_TOKEN", netlify_token(), "netlify_token"), dec("NETLIFY_SITE_ID", uuid4(), "uuid")]
    if g == "square":
        return [sec("SQUARE_ACCESS_TOKEN", square_token(), "square_access_token")]
    if g == "age":
        return [sec("SOPS_AGE_KEY", age_key(), "age_secret_key")]
    if g == "onepassword":
        return [sec("OP_SERVICE_ACCOUNT_TOKEN", op_service_token(), "onepassword_service_token")]
    if g == "fly":
        return [sec("FLY_API_TOKEN", fly_token(), "fly_api_token")]
    if g == "smtp":
        return [plain("SMTP_HOST", f"smtp.{corp()}"), plain("SMTP_PORT", "587"), plain("SMTP_USER", f"noreply@{corp()}"), sec("SMTP_PASSWORD", human_password(lang), "password")]
    if g == "admin":
        return [sec(pick(["ADMIN_PASSWORD", "GRAFANA_ADMIN_PASSWORD", "RABBITMQ_DEFAULT_PASS", "KEYCLOAK_ADMIN_PASSWORD", "MINIO_ROOT_PASSWORD", "POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "ELASTIC_PASSWORD", "PGADMIN_DEFAULT_PASSWORD"]), human_password(lang), "password")]
    if g == "passphrase":
        return [sec(pick(["BACKUP_PASSPHRASE", "RESTIC_PASSWORD", "GPG_PASSPHRASE", "BORG_PASSPHRASE"]), passphrase(lang), "passphrase")]
    if g == "webhook_secret":
        return [sec("GITHUB_WEBHOOK_SECRET", rs(ALNUM, 40), "webhook_secret")]
    if g == "totp":
        return [sec("MFA_TOTP_SECRET", totp_secret(), "totp_secret")]
    if g == "gcp_sa":
        return [gcp_sa_field()]
    if g == "azure_sas":
        sig = azure_sas_sig()
        enc = urllib.parse.quote(sig, safe="")
        start = NOW - timedelta(hours=R.randint(1, 48))
        url = (f"https://st{pick(APPS)}{rs(LOWER + DIGITS, 4)}.blob.core.windows.net/{pick(['backups', 'exports', 'uploads'])}?sv=2022-11-02&ss=b&srt=co&sp={pick(['rl', 'rwdl', 'racwdl'])}"
               f"&se={(start + timedelta(days=R.randint(7, 365))):%Y-%m-%dT%H:%M:%SZ}&st={start:%Y-%m-%dT%H:%M:%SZ}&spr=https&sig={enc}")
        return [F(pick(["AZURE_BACKUP_SAS_URL", "EXPORT_CONTAINER_SAS"]), url, [("secrets", sig, "azure_sas_signature", enc)])]
    if g == "supabase":
        ref = rs(LOWER, 20)
        return [dec("NEXT_PUBLIC_SUPABASE_URL", f"https://{ref}.supabase.co", "url"), dec("NEXT_PUBLIC_SUPABASE_ANON_KEY", supabase_jwt("anon", ref), "public_by_design"),
                sec("SUPABASE_SERVICE_ROLE_KEY", supabase_jwt("service_role", ref), "jwt")]
    raise ValueError(g)


SECRET_GROUPS = [
    "aws", "aws", "aws", "aws_sts", "github", "github", "github", "gitlab", "slack", "slack_user", "webhook", "webhook", "stripe", "stripe", "openai", "openai",
    "anthropic", "anthropic", "hf", "npm", "pypi", "twilio", "sendgrid", "datadog", "shopify", "digitalocean", "vault", "doppler", "google", "google_oauth",
    "gcp_access", "azure_sp", "azure_storage", "azure_devops", "db_url", "db_url", "db_url", "db_parts", "db_parts", "redis", "jwt", "jwt", "django", "rails",
    "laravel", "fernet", "session", "internal", "internal", "internal", "hmac", "hmac", "heroku", "sentry", "telegram", "mailgun", "cloudflare", "linear",
    "atlassian", "tfc", "databricks", "grafana", "postman", "netlify", "square", "age", "onepassword", "fly", "smtp", "admin", "admin", "passphrase",
    "webhook_secret", "totp", "supabase", "azure_sas", "azure_sas", "gcp_sa", "gcp_sa",
]


def benign_field(lang: str) -> F:
    """Settings that sit beside credentials but are harmless; many of them tempt a scrubber."""
    r = pick(BENIGN_KINDS)
    app = pick(APPS)
    if r == "home":
        return dec("HOME", f"/home/{pick(USERS)}", "file_path")
    if r == "path":
        return plain("PATH", pick(["/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "/home/dev/.local/bin:/home/dev/.cargo/bin:/usr/local/bin:/usr/bin:/bin", "/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin"]))
    if r == "shell":
        return plain("SHELL", pick(["/bin/bash", "/bin/zsh", "/usr/bin/fish"]))
    if r == "lang":
        return plain("LANG", LOCALES[lang])
    if r == "tz":
        return plain("TZ", TZS[lang])
    if r == "hostname":
        return dec("HOSTNAME", pod_name(app), "pod_name")
    if r == "env":
        return plain(pick(["NODE_ENV", "APP_ENV", "RAILS_ENV", "ENVIRONMENT"]), pick(["production", "staging"]))
    if r == "loglevel":
        return plain("LOG_LEVEL", pick(["info", "debug", "warn"]))
    if r == "port":
        return plain(pick(["PORT", "HTTP_PORT", "METRICS_PORT"]), pick(["8080", "3000", "9090", "8443"]))
    if r == "version":
        return dec(pick(["APP_VERSION", "RELEASE", "SERVICE_VERSION"]), version(), "version")
    if r == "commit":
        return dec(pick(["GIT_COMMIT", "GIT_SHA", "SOURCE_COMMIT", "COMMIT_SHA", "HEROKU_SLUG_COMMIT"]), git_sha(), "git_sha")
    if r == "image":
        return dec("IMAGE", f"{pick(['ghcr.io', 'registry.gitlab.com', f'{aws_account()}.dkr.ecr.{aws_region()}.amazonaws.com'])}/{corp().split('.')[0]}/{app}@{docker_digest()}", "image_digest")
    if r == "ttl":
        name, val = pick([("TOKEN_TTL_SECONDS", "86400"), ("ACCESS_TOKEN_LIFETIME", "15m"), ("REFRESH_TOKEN_TTL", "720h"), ("JWT_EXPIRES_IN", "3600"),
                          ("SESSION_TIMEOUT", "30m"), ("PASSWORD_RESET_TOKEN_TTL", "1800"), ("API_KEY_MAX_AGE_DAYS", "90"), ("SECRET_ROTATION_DAYS", "90"),
                          ("OAUTH_TOKEN_REFRESH_MARGIN", "300s"), ("AUTH_CACHE_TTL", "5m")])
        return kvd(name, val, "duration")
    if r == "credname":
        name, val = pick([("PASSWORD_MIN_LENGTH", "12"), ("API_KEY_HEADER", "X-Api-Key"), ("JWT_ALGORITHM", "RS256"), ("PASSWORD_HASHER", "argon2id"),
                          ("MAX_TOKENS", "4096"), ("AUTH_TOKEN_HEADER", "Authorization"), ("CSRF_COOKIE_NAME", "csrftoken"), ("SESSION_COOKIE_NAME", "sessionid"),
                          ("SECRET_BACKEND", "vault"), ("KEY_SIZE", "4096"), ("TOKEN_ENDPOINT", f"https://auth.{corp()}/oauth2/token"), ("PASSWORD_RESET_URL", f"https://{corp()}/account/reset"),
                          ("SECRETS_MANAGER_PREFIX", "prod/"), ("TOKENIZER", "cl100k_base"), ("KEYRING_BACKEND", "keyring.backends.SecretService.Keyring")])
        return kvd(name, val)
    if r == "file":
        name, val = pick([("DB_PASSWORD_FILE", "/run/secrets/db_password"), ("GOOGLE_APPLICATION_CREDENTIALS", "/var/secrets/google/key.json"),
                          ("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/secrets/eks.amazonaws.com/serviceaccount/token"), ("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt"),
                          ("KUBECONFIG", "/home/dev/.kube/config"), ("SSH_AUTH_SOCK", f"/tmp/ssh-{rs(LOWER_ALNUM, 10)}/agent.{R.randint(1000, 99999)}"),
                          ("NETRC", "/home/ci/.netrc"), ("VAULT_CACERT", "/etc/vault/tls/ca.pem"), ("TLS_KEY_PATH", "/etc/nginx/tls/server.key")])
        return dec(name, val, "file_path")
    if r == "arn":
        acct = aws_account()
        return dec(pick(["AWS_ROLE_ARN", "TASK_ROLE_ARN", "SECRET_ARN"]), pick([f"arn:aws:iam::{acct}:role/{app}-{pick(['deploy', 'task', 'reader'])}",
                                                                                 f"arn:aws:secretsmanager:{aws_region()}:{acct}:secret:prod/{app}/db-{rs(ALNUM, 6)}",
                                                                                 f"arn:aws:kms:{aws_region()}:{acct}:key/{uuid4()}"]), "aws_arn")
    if r == "account":
        return dec("AWS_ACCOUNT_ID", aws_account(), "aws_account_id")
    if r == "region":
        return plain("AWS_REGION", aws_region())
    if r == "placeholder":
        # "changeme" in a running system's settings would be a real (weak) password, so it stays in example files
        return dec(pick(["API_KEY", "DB_PASSWORD", "STRIPE_SECRET_KEY", "OPENAI_API_KEY", "SECRET_KEY", "GITHUB_TOKEN", "SMTP_PASSWORD", "SLACK_BOT_TOKEN"]),
                   pick([x for x in PLACEHOLDERS if x != "changeme"]), "placeholder")
    if r == "masked":
        name, gen = pick([("OPENAI_API_KEY", openai_key), ("AWS_SECRET_ACCESS_KEY", aws_secret), ("GITHUB_TOKEN", lambda: gh_token("ghp")),
                          ("STRIPE_SECRET_KEY", stripe_secret), ("ANTHROPIC_API_KEY", anthropic_key), ("SENDGRID_API_KEY", sendgrid_key)])
        return dec(name, masked(gen(), pick(["dots", "stars_tail", "prefix_tail"])), "masked")
    if r == "otel":
        return dec("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://otel-collector.observability.svc:{pick(['4317', '4318'])}", "url")
    if r == "k8s":
        return dec("KUBERNETES_SERVICE_HOST", f"10.{R.randint(96, 100)}.0.1", "private_ip")
    if r == "public":
        return pick([
            lambda: dec("RECAPTCHA_SITE_KEY", recaptcha_site_key(), "public_by_design"),
            lambda: dec("GOOGLE_CLIENT_ID", oauth_client_id(), "oauth_client_id"),
            lambda: dec("STRIPE_PUBLISHABLE_KEY", stripe_publishable(), "public_by_design"),
            lambda: dec("GITHUB_APP_ID", str(R.randint(100000, 999999)), "app_id"),
        ])()
    if r == "uuid":
        return dec(pick(["TENANT_ID", "INSTANCE_ID", "DEPLOYMENT_ID", "WORKSPACE_ID"]), uuid4(), "uuid")
    if r == "build":
        return plain(pick(["BUILD_NUMBER", "CI_PIPELINE_ID", "GITHUB_RUN_ID"]), str(R.randint(1000, 9_999_999_999)))
    if r == "empty":
        return kvd(pick(["REDIS_PASSWORD", "SMTP_PASSWORD", "HTTP_PROXY_PASSWORD"]), "", "empty_value")
    raise ValueError(r)


BENIGN_KINDS = ["home", "path", "shell", "lang", "tz", "hostname", "env", "loglevel", "port", "version", "commit", "commit", "image", "ttl", "ttl", "ttl",
                "credname", "credname", "file", "file", "arn", "account", "region", "placeholder", "placeholder", "masked", "masked", "otel", "k8s", "public",
                "uuid", "build", "empty"]


def benign_fields(lang: str, n: int) -> list[F]:
    out: list[F] = []
    names: set[str] = set()
    while len(out) < n:
        f = benign_field(lang)
        if f.name not in names:
            names.add(f.name)
            out.append(f)
    return out


def mix(lang: str, n_secret_groups: int, n_benign: int) -> list[F]:
    fields: list[F] = []
    names: set[str] = set()
    for _ in range(n_secret_groups):
        for f in secret_group(lang):
            if f.name not in names:
                names.add(f.name)
                fields.append(f)
    for f in benign_fields(lang, n_benign):
        if f.name not in names:
            names.add(f.name)
            fields.append(f)
    R.shuffle(fields)
    return fields


# ---------------------------------------------------------------- style helpers

CRED_NAMES = ["AWS_SECRET_ACCESS_KEY", "STRIPE_SECRET_KEY", "DATABASE_URL", "OPENAI_API_KEY", "GITHUB_TOKEN", "SLACK_BOT_TOKEN", "DB_PASSWORD",
              "ANTHROPIC_API_KEY", "JWT_SECRET", "SENDGRID_API_KEY", "VAULT_TOKEN", "NPM_TOKEN", "HF_TOKEN", "TWILIO_AUTH_TOKEN", "DD_API_KEY"]


def framed(row: Row, cmd: str | None, body: str, fence: bool | None = None, prompt: str = "$ ") -> str:
    L = row.lang
    parts = []
    if cmd and len(cmd.split("\n")[0]) <= 72 and chance(0.85):
        parts.append(ph(L, "ask").format(cmd=cmd.split("\n")[0]))
    elif chance(0.7):
        parts.append(ph(L, "ask2"))
    asked = bool(parts)
    fence = chance(0.55) if fence is None else fence
    block = f"{prompt}{cmd}\n{body}" if cmd else body
    parts.append(f"```\n{block}\n```" if fence else block)
    if not asked or chance(0.35):
        parts.append(fill(L, R.randint(1, 3)))  # every row carries some prose in its language
    return "\n\n".join(parts)


def mention_name(row: Row) -> str:
    name = pick(CRED_NAMES)
    row.D(name, "env_var_name")
    return UNSET[row.lang].format(v=name)


def pii_field(name: str, value: str, kind: str) -> F:
    return F(name, value, [("pii", value, kind, value)])


def ts_decoy(row: Row, dt: datetime | None = None, frac: int = 0) -> str:
    return row.D(iso(dt or when(), frac), "timestamp")


def sh_prompt(user: str | None = None, host: str | None = None) -> str:
    u = user or pick(USERS)
    h = host or pick(["ip-10-0-3-17", "build-07", "devbox", "mbp-" + pick(USERS), "bastion", "worker-2", pod_name(pick(APPS))])
    return pick([f"{u}@{h}:~$ ", f"{u}@{h}:~/src/{pick(APPS)}$ ", f"[{u}@{h} ~]$ ", "$ ", "❯ ", f"{h}% "])


# ---------------------------------------------------------------- styles: environment dumps


def st_env_dump(row: Row, mode: str) -> str:
    L = row.lang
    variant = pick(["printenv", "env_sort", "dotenv", "dotenv", "export", "docker_inspect", "proc_environ", "grep", "systemctl"])
    fields = mix(L, R.randint(1, 3) if mode == "S" else 0, R.randint(5, 13))
    if mode == "P":
        p = person(L)
        fields.insert(R.randint(0, len(fields)), pii_field("GIT_AUTHOR_NAME", p.full, "person_name"))
        fields.insert(R.randint(0, len(fields)), pii_field("GIT_AUTHOR_EMAIL", p.email, "email"))
    if variant == "grep":
        pat = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH", re.I)
        kept = [f for f in fields if pat.search(f.name)]
        if kept and (mode != "S" or any(lab[0] == "secrets" for f in kept for lab in f.labels)):
            fields = kept
            cmd = pick(["env | grep -iE 'key|token|secret|pass|auth'", "printenv | grep -i -e token -e key -e secret -e pass"])
        else:
            variant = "printenv"
    if variant in ("printenv", "env_sort"):
        if variant == "env_sort":
            fields.sort(key=lambda f: f.name)
        lines = r_env(row, fields)
        cmd = "printenv" if variant == "printenv" else "env | sort"
        text = framed(row, cmd, "\n".join(lines), prompt=sh_prompt())
    elif variant == "grep":
        text = framed(row, cmd, "\n".join(r_env(row, fields)), prompt=sh_prompt())
    elif variant == "dotenv":
        fname = pick([".env", ".env.production", ".env.local", "deploy/.env.staging", ".env.example" if mode == "C" else ".env"])
        lines = r_env(row, fields, quote_all=chance(0.3))
        heads = [f"# {ph(L, 'secret')} / {ph(L, 'key')}", f"# {ph(L, 'pw')}", f"# --- {pick(APPS)} ---", "#" + "-" * 30]
        for _ in range(R.randint(1, 3)):
            lines.insert(R.randint(0, len(lines)), pick(heads))
        text = framed(row, f"cat {fname}", "\n".join(lines), prompt=sh_prompt())
    elif variant == "export":
        lines = r_env(row, fields, prefix="export ", quote_all=chance(0.5))
        text = framed(row, pick(["cat .envrc", "tail -n 20 ~/.bashrc", "cat ~/.zshrc.local"]), "\n".join(lines), prompt=sh_prompt())
    elif variant == "docker_inspect":
        esc = json_esc(False)
        items = []
        for f in fields:
            put(row, f, esc)
            item = f"{f.name}={f.value}"
            if f.kv and esc(item) == item:
                row.D(item, f.kv)
            items.append(item)
        body = json.dumps(items, ensure_ascii=False)
        text = framed(row, f"docker inspect --format '{{{{json .Config.Env}}}}' {pick(APPS)}-{R.randint(1, 3)}", body, prompt=sh_prompt())
    elif variant == "proc_environ":
        lines = []
        for f in fields:
            put(row, f)
            frag = f"{f.name}={f.value}"
            if f.kv:
                row.D(frag, f.kv)
            lines.append(frag)
        text = framed(row, f"sudo cat /proc/$(pgrep -f {pick(['gunicorn', 'node', 'java', 'puma', 'uvicorn'])} | head -1)/environ | tr '\\0' '\\n'", "\n".join(lines), prompt=sh_prompt())
    else:
        safe = [f for f in fields if " " not in f.value and '"' not in f.value]
        parts = []
        for f in safe:
            put(row, f)
            frag = f"{f.name}={f.value}"
            if f.kv:
                row.D(frag, f.kv)
            parts.append(frag)
        unit = f"{pick(APPS)}.service"
        body = f"Environment={' '.join(parts)}"
        if mode == "S" and not row.items["secrets"]:
            return st_env_dump(row, mode)
        text = framed(row, f"systemctl show {unit} -p Environment", body, prompt=sh_prompt())
    if chance(0.3):
        text += "\n\n" + mention_name(row)
    return text


# ---------------------------------------------------------------- styles: secret managers and cloud CLIs


def vault_table(rows: list[tuple[str, str]]) -> list[str]:
    w = max(len(k) for k, _ in rows) + 4
    return ["Key".ljust(w) + "Value", "---".ljust(w) + "-----", *[(k.ljust(w) + v).rstrip() for k, v in rows]]


def st_secret_cli(row: Row, mode: str) -> str:
    L = row.lang
    app = pick(APPS)
    if mode == "S":
        variant = pick(["vault_kv", "vault_kv_json", "vault_token", "aws_sm", "aws_sts", "aws_iam", "gcloud", "az_kv", "az_keys", "heroku", "op_item", "pass", "security", "gh_token", "doppler_get"])
    else:
        variant = pick(["fly_list", "aws_caller", "gh_status", "aws_configure", "vault_meta", "az_list", "op_list", "vault_lease", "doppler_names"])
    if variant == "vault_kv":
        path = row.D(f"secret/data/{app}/{pick(['prod', 'staging', 'eu-prod'])}", "secret_path")
        fields = mix(L, R.randint(1, 2), R.randint(0, 2))
        data = []
        for f in fields:
            put(row, f)
            data.append((key_case(f.name, "lower"), f.value))
        meta = [("created_time", ts_decoy(row, frac=6)), ("custom_metadata", "<nil>"), ("deletion_time", "n/a"), ("destroyed", "false"), ("version", str(R.randint(1, 30)))]
        body = "\n".join(["====== Secret Path ======", path, "", "======= Metadata =======", *vault_table(meta), "", "====== Data ======", *vault_table(data)])
        return framed(row, f"vault kv get {path.replace('/data', '')}", body, prompt=sh_prompt())
    if variant == "vault_kv_json":
        fields = mix(L, R.randint(1, 2), R.randint(0, 2))
        data = r_json_obj(row, fields, case="lower")
        obj = {"request_id": row.D(uuid4(), "uuid"), "lease_id": "", "lease_duration": 0, "renewable": False,
               "data": {"data": data, "metadata": {"created_time": ts_decoy(row, frac=6), "custom_metadata": None, "deletion_time": "", "destroyed": False, "version": R.randint(1, 12)}}, "warnings": None}
        return framed(row, f"vault kv get -format=json secret/{app}/prod", json.dumps(obj, indent=2, ensure_ascii=False), prompt=sh_prompt())
    if variant == "vault_token":
        tok = row.S(vault_token(), "vault_token")
        rows = [("token", tok), ("token_accessor", rs(ALNUM, 24)), ("token_duration", "768h"), ("token_renewable", "true"),
                ("token_policies", '["default" "deploy"]'), ("identity_policies", "[]"), ("policies", '["default" "deploy"]')]
        lines = vault_table(rows)
        row.D(lines[4], "duration")
        return framed(row, "vault token create -policy=deploy -period=768h", "\n".join(lines), prompt=sh_prompt())
    if variant == "aws_sm":
        acct = aws_account()
        name = f"prod/{app}/db"
        pw = human_password(L, special=chance(0.3))
        inner = json.dumps({"username": f"{app}_rw", "password": pw, "engine": "postgres", "host": db_host(), "port": 5432, "dbname": app}, ensure_ascii=False)
        row.S(pw, "database_password", json_esc(False)(json_esc(False)(pw)))
        obj = {"ARN": row.D(f"arn:aws:secretsmanager:{aws_region()}:{acct}:secret:{name}-{rs(ALNUM, 6)}", "aws_arn"), "Name": name,
               "VersionId": row.D(uuid4(), "uuid"), "SecretString": inner, "VersionStages": ["AWSCURRENT"], "CreatedDate": f"{when():%Y-%m-%dT%H:%M:%S}.{dg(3)}000+01:00"}
        return framed(row, f"aws secretsmanager get-secret-value --secret-id {name}", json.dumps(obj, indent=4, ensure_ascii=False), prompt=sh_prompt())
    if variant == "aws_sts":
        acct = aws_account()
        role = f"{app}-deploy"
        exp = NOW + timedelta(hours=1)
        obj = {"Credentials": {"AccessKeyId": row.S(aws_akid("ASIA"), "aws_access_key_id"), "SecretAccessKey": row.S(aws_secret(), "aws_secret_access_key"),
                               "SessionToken": row.S(aws_session_token(), "aws_session_token"), "Expiration": f"{exp:%Y-%m-%dT%H:%M:%S}+00:00"},
               "AssumedRoleUser": {"AssumedRoleId": row.D(f"AROA{rs(UPPER + DIGITS, 17)}:ci-{R.randint(1000, 9999)}", "aws_unique_id"),
                                   "Arn": row.D(f"arn:aws:sts::{acct}:assumed-role/{role}/ci-{R.randint(1000, 9999)}", "aws_arn")}}
        return framed(row, f"aws sts assume-role --role-arn arn:aws:iam::{acct}:role/{role} --role-session-name ci", json.dumps(obj, indent=4), prompt=sh_prompt())
    if variant == "aws_iam":
        obj = {"AccessKey": {"UserName": f"{app}-ci", "AccessKeyId": row.S(aws_akid(), "aws_access_key_id"), "Status": "Active",
                             "SecretAccessKey": row.S(aws_secret(), "aws_secret_access_key"), "CreateDate": iso(when(1))}}
        return framed(row, f"aws iam create-access-key --user-name {app}-ci", json.dumps(obj, indent=4), prompt=sh_prompt())
    if variant == "gcloud":
        p = person(L)
        lines = ["$ gcloud config list", "[core]", f"account = {row.P(p.email, 'email')}", "disable_usage_reporting = True",
                 f"project = {row.D(app + '-prod-' + dg(6), 'gcp_project_id')}", "", "Your active configuration is: [default]",
                 "$ gcloud auth print-access-token", row.S(gcp_access_token(), "gcp_access_token")]
        return framed(row, None, "\n".join(lines))
    if variant == "az_kv":
        vault = f"kv-{app}-{pick(['weu', 'neu', 'prod'])}"
        name = pick(["db-password", "api-key", "storage-key", "jwt-secret"])
        value = human_password(L) if name == "db-password" else internal_key()
        obj = {"attributes": {"created": f"{when():%Y-%m-%dT%H:%M:%S}+00:00", "enabled": True, "expires": None, "notBefore": None, "recoverableDays": 90,
                              "recoveryLevel": "Recoverable", "updated": f"{when():%Y-%m-%dT%H:%M:%S}+00:00"},
               "contentType": None, "id": row.D(f"https://{vault}.vault.azure.net/secrets/{name}/{hx(32)}", "url"), "kid": None, "managed": None,
               "name": name, "tags": {}, "value": value}
        row.S(value, "password" if name == "db-password" else "internal_api_key", json_esc(False)(value))
        return framed(row, f"az keyvault secret show --vault-name {vault} --name {name}", json.dumps(obj, indent=2, ensure_ascii=False), prompt=sh_prompt())
    if variant == "az_keys":
        keys = [{"creationTime": f"{when(200):%Y-%m-%dT%H:%M:%S}.{dg(6)}+00:00", "keyName": f"key{i}", "permissions": "FULL", "value": row.S(azure_storage_key(), "azure_storage_key")} for i in (1, 2)]
        return framed(row, f"az storage account keys list -g rg-{app} -n st{app}{dg(4)}", json.dumps(keys, indent=2), prompt=sh_prompt())
    if variant == "heroku":
        user, db, pw = rs(LOWER, 14), rs(LOWER, 14), hx(64)
        ip = f"ec2-{R.randint(3, 54)}-{R.randint(0, 255)}-{R.randint(0, 255)}-{R.randint(1, 254)}.compute-1.amazonaws.com"
        rows = [("DATABASE_URL", f"postgres://{user}:{row.S(pw, 'database_password')}@{ip}:5432/{db}"), ("LANG", "en_US.UTF-8"),
                ("PAPERTRAIL_API_TOKEN", row.S(rs(ALNUM, 20), "papertrail_token")), ("RACK_ENV", "production"),
                ("REDIS_URL", f"rediss://:{row.S('p' + hx(63), 'redis_password')}@{ip}:{R.randint(10000, 30000)}")]
        for f in secret_group(L, pick(["stripe", "sendgrid", "openai", "hmac"])):
            put(row, f)
            rows.append((f.name, f.value))
        rows.sort()
        w = max(len(k) for k, _ in rows) + 2
        body = f"=== {app}-prod Config Vars\n" + "\n".join(f"{(k + ':').ljust(w)}{v}" for k, v in rows)
        return framed(row, f"heroku config -a {app}-prod", body, prompt=sh_prompt())
    if variant == "op_item":
        who = person(L)
        host = db_host()
        pw = human_password(L)
        lines = [f"ID:          {row.D(op_item_id(), 'item_id')}", f"Title:       {app} db",
                 f"Vault:       Infra ({op_item_id()})", "Created:     3 months ago", f"Updated:     2 days ago by {row.P(who.full, 'person_name')}",
                 "Favorite:    false", f"Version:     {R.randint(2, 9)}", "Category:    DATABASE", "Fields:", "  type:        postgresql",
                 f"  server:      {host}", "  port:        5432", f"  database:    {app}", f"  username:    {app}_rw", f"  password:    {row.S(pw, 'password')}"]
        return framed(row, f'op item get "{app} db" --vault Infra --reveal', "\n".join(lines), prompt=sh_prompt())
    if variant == "pass":
        pw = human_password(L)
        body = "\n".join([row.S(pw, "password"), f"login: {pick(['admin', 'relay@' + corp(), 'ops'])}", f"url: https://{pick(['smtp', 'grafana', 'router', 'nas'])}.{corp()}", "note: rotated Q3"])
        return framed(row, f"pass show infra/{pick(['smtp-relay', 'grafana-admin', 'router', 'nas'])}", body, prompt=sh_prompt())
    if variant == "security":
        if chance(0.5):
            return framed(row, 'security find-generic-password -s "gh:github.com" -w', row.S(gh_token("gho"), "github_token"), prompt=sh_prompt())
        pw = human_password(L)
        return framed(row, f"security find-internet-password -s {pick(['nas.local', 'wiki.' + corp(), 'vpn.' + corp()])} -a {pick(USERS)} -w", row.S(pw, "password"), prompt=sh_prompt())
    if variant == "gh_token":
        return framed(row, "gh auth token", row.S(gh_token("gho"), "github_token"), prompt=sh_prompt())
    if variant == "doppler_get":
        fields = mix(L, R.randint(1, 3), R.randint(1, 3))
        rows = []
        for f in fields:
            put(row, f)
            rows.append([f.name, f.value])
        return framed(row, f"doppler secrets --project {app} --config prd", "\n".join(r_box(row, rows, ["NAME", "VALUE"])), prompt=sh_prompt())
    if variant == "fly_list":
        names = R.sample(CRED_NAMES, R.randint(3, 6))
        w = max(len(n) for n in names) + 4
        lines = ["NAME".ljust(w) + "DIGEST".ljust(20) + "CREATED AT"]
        for n in names:
            lines.append(n.ljust(w) + row.D(hx(16), "secret_digest").ljust(20) + pick(["1h20m ago", "3d ago", "2mo ago", "Nov 14 2026 08:12"]))
        row.D(names[0], "env_var_name")
        return framed(row, f"fly secrets list -a {app}-prod", "\n".join(lines), prompt=sh_prompt())
    if variant == "aws_caller":
        acct = aws_account()
        obj = {"UserId": row.D("AIDA" + rs(UPPER + DIGITS, 17), "aws_unique_id"), "Account": row.D(acct, "aws_account_id"), "Arn": row.D(f"arn:aws:iam::{acct}:user/{app}-ci", "aws_arn")}
        return framed(row, "aws sts get-caller-identity", json.dumps(obj, indent=4), prompt=sh_prompt())
    if variant == "gh_status":
        tok = row.D("gho_" + "*" * 36, "masked")
        body = f"github.com\n  ✓ Logged in to github.com account {pick(USERS)} (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: {tok}\n  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'"
        return framed(row, "gh auth status", body, prompt=sh_prompt())
    if variant == "aws_configure":
        a, s = row.D("*" * 16 + rs(UPPER + DIGITS, 4), "masked"), row.D("*" * 16 + rs(ALNUM, 4), "masked")
        body = "\n".join([
            "      Name                    Value             Type    Location", "      ----                    -----             ----    --------",
            "   profile                <not set>             None    None", f"access_key     {a} shared-credentials-file",
            f"secret_key     {s} shared-credentials-file", f"    region             {aws_region():>12}      config-file    ~/.aws/config"])
        return framed(row, "aws configure list", body, prompt=sh_prompt())
    if variant == "vault_meta":
        path = row.D(f"secret/metadata/{app}/prod", "secret_path")
        rows = [("cas_required", "false"), ("created_time", ts_decoy(row, frac=6)), ("current_version", "4"), ("custom_metadata", "map[owner:platform]"),
                ("delete_version_after", "0s"), ("max_versions", "0"), ("oldest_version", "0"), ("updated_time", ts_decoy(row, frac=6))]
        body = "\n".join(["======= Metadata Path =======", path, "", "========== Metadata ==========", *vault_table(rows)])
        return framed(row, f"vault kv metadata get secret/{app}/prod", body, prompt=sh_prompt())
    if variant == "az_list":
        vault = f"kv-{app}-weu"
        lines = [row.D(f"https://{vault}.vault.azure.net/secrets/{n}", "url") for n in R.sample(["db-password", "api-key", "storage-key", "jwt-secret", "smtp-password", "stripe-key"], 4)]
        return framed(row, f'az keyvault secret list --vault-name {vault} --query "[].id" -o tsv', "\n".join(lines), prompt=sh_prompt())
    if variant == "op_list":
        lines = ["ID                            TITLE                    VAULT            EDITED"]
        for t in R.sample(["Prod Postgres", "Stripe live key", "AWS root", "Grafana admin", "GitHub deploy token", "SMTP relay"], 4):
            lines.append(f"{row.D(op_item_id(), 'item_id')}    {t.ljust(25)}Infra            {pick(['2 days ago', '3 weeks ago', '5 months ago'])}")
        return framed(row, "op item list --vault Infra", "\n".join(lines), prompt=sh_prompt())
    if variant == "vault_lease":
        lease = row.D(f"database/creds/readonly/{rs(ALNUM, 24)}", "lease_id")
        rows = [("expire_time", ts_decoy(row, NOW + timedelta(hours=1), 6)), ("id", lease), ("issue_time", ts_decoy(row, NOW, 6)), ("last_renewal", "<nil>"), ("renewable", "true"), ("ttl", "59m48s")]
        lines = vault_table(rows)
        row.D(lines[-1], "duration")
        return framed(row, f"vault lease lookup {lease}", "\n".join(lines), prompt=sh_prompt())
    names = R.sample(CRED_NAMES, R.randint(4, 7))
    for n in names[:2]:
        row.D(n, "env_var_name")
    return framed(row, f"doppler secrets --project {app} --config prd --only-names", "\n".join(r_box(row, [[n] for n in names], ["NAME"])), prompt=sh_prompt())


# ---------------------------------------------------------------- styles: kubernetes


WHOLE_KIND = {"database_password": "database_url", "azure_storage_key": "azure_storage_connection_string", "slack_webhook_token": "webhook_url",
              "discord_webhook_token": "webhook_url", "webhook_token": "webhook_url"}


def b64_field(row: Row, f: F) -> str:
    """Label a field whose value is shown only base64-encoded (Kubernetes Secret data)."""
    enc = b64s(f.value)
    secrets = [lab for lab in f.labels if lab[0] == "secrets"]
    if secrets:
        whole = len(secrets) == 1 and secrets[0][3] == f.value
        row.S(f.value, secrets[0][2] if whole else WHOLE_KIND.get(secrets[0][2], secrets[0][2]), enc)
    return enc


def k8s_meta(row: Row, name: str, ns: str, indent: str = "  ") -> list[str]:
    return ["metadata:", f'{indent}creationTimestamp: "{ts_decoy(row, when(200))}"', f"{indent}name: {name}", f"{indent}namespace: {ns}",
            f'{indent}resourceVersion: "{R.randint(1000000, 99999999)}"', f"{indent}uid: {row.D(uuid4(), 'uuid')}"]


def st_kubernetes(row: Row, mode: str) -> str:
    L = row.lang
    app, ns = pick(APPS), pick(["prod", "production", "default", "payments", "staging"])
    variant = pick(["secret_yaml", "secret_yaml", "tls", "dockercfg", "create", "pod_literal", "jsonpath", "kubeconfig", "helm"]) if mode == "S" else pick(["describe_secret", "configmap", "pod_refs", "get_pods", "describe_secret"])
    if variant == "secret_yaml":
        fields = mix(L, R.randint(1, 3), 0)
        lines = ["apiVersion: v1", "data:"]
        for f in sorted(fields, key=lambda x: x.name):
            lines.append(f"  {f.name}: {b64_field(row, f)}")
        lines += ["kind: Secret", *k8s_meta(row, f"{app}-env", ns), "type: Opaque"]
        return framed(row, f"kubectl get secret {app}-env -n {ns} -o yaml", "\n".join(lines), prompt=sh_prompt())
    if variant == "tls":
        cert = b64s(certificate_pem() + "\n")
        key_pem = pick([rsa_pkcs8_pem, ec_pem, rsa_pkcs1_pem])() + "\n"
        lines = ["apiVersion: v1", "data:", f"  tls.crt: {row.D(cert, 'certificate')}", f"  tls.key: {row.S(key_pem, 'tls_private_key', b64s(key_pem))}",
                 "kind: Secret", *k8s_meta(row, f"{app}-tls", ns), "type: kubernetes.io/tls"]
        return framed(row, f"kubectl get secret {app}-tls -n {ns} -o yaml", "\n".join(lines), prompt=sh_prompt())
    if variant == "dockercfg":
        user = pick(["ci-bot", "deploy", "robot$ci"])
        tok = pick([gh_token("ghp"), glpat(), rs(ALNUM, 32)])
        reg = pick(["ghcr.io", "registry.gitlab.com", "harbor." + corp()])
        auth = b64s(f"{user}:{tok}")
        cfg = json.dumps({"auths": {reg: {"username": user, "password": tok, "auth": auth}}}, separators=(",", ":"))
        outer = b64s(cfg)
        row.S(cfg, "docker_config_json", outer)
        lines = ["apiVersion: v1", "data:", f"  .dockerconfigjson: {outer}", "kind: Secret", *k8s_meta(row, "regcred", ns), "type: kubernetes.io/dockerconfigjson"]
        text = framed(row, f"kubectl get secret regcred -n {ns} -o yaml", "\n".join(lines), prompt=sh_prompt())
        if chance(0.5):
            row.S(tok, "registry_token")
            row.S(f"{user}:{tok}", "basic_auth_credentials", auth)
            text += f"\n\n```\n$ kubectl get secret regcred -n {ns} -o jsonpath='{{.data.\\.dockerconfigjson}}' | base64 -d\n{cfg}\n```"
        return text
    if variant == "create":
        fields = mix(L, R.randint(1, 2), R.randint(0, 2))
        lines = r_env(row, fields, prefix="  --from-literal=", quote_all=chance(0.5))
        cmd = f"kubectl create secret generic {app}-env -n {ns} \\\n" + " \\\n".join(lines)
        return framed(row, cmd, f"secret/{app}-env created", prompt=sh_prompt())
    if variant in ("pod_literal", "pod_refs"):
        fields = mix(L, R.randint(1, 2) if mode == "S" else 0, R.randint(2, 4))
        env = []
        w = max(len(f.name) for f in fields) + 3
        for f in fields:
            put(row, f)
            env.append(f"      {(f.name + ':').ljust(w)}{f.value}")
        for n in R.sample(CRED_NAMES, R.randint(1, 3)):
            frag = f"{(n + ':').ljust(w)}<set to the key '{n.lower().replace('_', '-')}' in secret '{app}-{pick(['db', 'env', 'api'])}'>  Optional: false"
            row.D(frag, "secret_reference")
            env.insert(R.randint(0, len(env)), "      " + frag)
        pod = row.D(pod_name(app), "pod_name")
        node_ip = private_ip()
        img = f"ghcr.io/{corp().split('.')[0]}/{app}"
        lines = [f"Name:             {pod}", f"Namespace:        {ns}", "Priority:         0", f"Service Account:  {app}",
                 f"Node:             ip-{node_ip.replace('.', '-')}.{aws_region()}.compute.internal/{node_ip}", f"Start Time:       {when(5):%a, %d %b %Y %H:%M:%S} +0000",
                 f"Labels:           app={app}", "Status:           Running", f"IP:               {row.D(private_ip(), 'private_ip')}", "Containers:", f"  {app}:",
                 f"    Container ID:   containerd://{row.D(container_id(), 'container_id')}", f"    Image:          {img}:{version()}",
                 f"    Image ID:       {img}@{row.D(docker_digest(), 'image_digest')}", "    Port:           8080/TCP", "    State:          Running",
                 "    Ready:          True", f"    Restart Count:  {R.randint(0, 7)}", "    Environment:", *env, "    Mounts:",
                 f"      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-{rs(LOWER_ALNUM, 5)} (ro)"]
        return framed(row, f"kubectl describe pod {pod} -n {ns}", "\n".join(lines), prompt=sh_prompt())
    if variant == "jsonpath":
        pw = human_password(L)
        enc = b64s(pw)
        prompt = sh_prompt()
        row.S(pw, "password", enc)
        body = f"{enc}{prompt}kubectl get secret {app}-db -n {ns} -o jsonpath='{{.data.password}}' | base64 -d\n{pw}{prompt.rstrip()}"
        return framed(row, f"kubectl get secret {app}-db -n {ns} -o jsonpath='{{.data.password}}'", body, prompt=prompt)
    if variant == "kubeconfig":
        server = f"https://{hx(32).upper()}.gr7.{aws_region()}.eks.amazonaws.com"
        ca = b64s(certificate_pem() + "\n")
        lines = ["apiVersion: v1", "clusters:", "- cluster:", f"    certificate-authority-data: {row.D(ca, 'certificate')}", f"    server: {server}", "  name: prod",
                 "contexts:", "- context:", "    cluster: prod", "    user: ci", "  name: prod", "current-context: prod", "kind: Config", "preferences: {}", "users:", "- name: ci", "  user:"]
        if chance(0.5):
            claims = {"aud": ["https://kubernetes.default.svc"], "exp": epoch(NOW) + 31536000, "iat": epoch(NOW), "iss": "https://kubernetes.default.svc",
                      "kubernetes.io": {"namespace": ns, "serviceaccount": {"name": "ci", "uid": uuid4()}}, "sub": f"system:serviceaccount:{ns}:ci"}
            lines.append(f"    token: {row.S(jwt_token('RS256', claims, kid=True), 'kubernetes_sa_token')}")
        else:
            key = ec_pem() + "\n"
            lines.append(f"    client-certificate-data: {row.D(b64s(certificate_pem() + chr(10)), 'certificate')}")
            lines.append(f"    client-key-data: {row.S(key, 'tls_private_key', b64s(key))}")
        return framed(row, "kubectl config view --raw", "\n".join(lines), prompt=sh_prompt())
    if variant == "helm":
        fields = mix(L, R.randint(1, 3), R.randint(1, 3))
        lines = ["USER-SUPPLIED VALUES:", "image:", f"  repository: ghcr.io/{corp().split('.')[0]}/{app}", f"  tag: {row.D(version(), 'version')}", "replicaCount: 3", "env:"]
        lines += r_yaml(row, fields, indent="  ", case="upper")
        return framed(row, f"helm get values {app} -n {ns}", "\n".join(lines), prompt=sh_prompt())
    if variant == "describe_secret":
        names = R.sample(CRED_NAMES, R.randint(2, 5))
        w = max(len(n) for n in names) + 3
        data = []
        for n in names:
            frag = f"{(n + ':').ljust(w)}{R.randint(16, 180)} bytes"
            data.append(row.D(frag, "secret_metadata"))
        lines = [f"Name:         {app}-env", f"Namespace:    {ns}", f"Labels:       app.kubernetes.io/name={app}", "Annotations:  <none>", "", "Type:  Opaque", "", "Data", "====", *data]
        text = framed(row, f"kubectl describe secret {app}-env -n {ns}", "\n".join(lines), prompt=sh_prompt())
        return text + ("\n\n" + mention_name(row) if chance(0.4) else "")
    if variant == "configmap":
        fields = benign_fields(L, R.randint(4, 8))
        blob = pick(['{"theme":"dark","locale":"de-DE","beta":false}', "Welcome to the orders service.\nMaintenance window: Sundays 02:00-04:00 UTC.\n", "feature.checkout.v2=true\nfeature.search.fuzzy=false\n"])
        lines = ["apiVersion: v1", "binaryData:", f"  defaults.bin: {row.D(b64s(blob), 'base64_non_secret')}", "data:", *r_yaml(row, fields, indent="  ", case="upper"),
                 "kind: ConfigMap", *k8s_meta(row, f"{app}-config", ns)]
        return framed(row, f"kubectl get configmap {app}-config -n {ns} -o yaml", "\n".join(lines), prompt=sh_prompt())
    pods = [row.D(pod_name(pick(APPS)), "pod_name") for _ in range(R.randint(3, 7))]
    lines = ["NAME                               READY   STATUS             RESTARTS        AGE"]
    for p in pods:
        st = pick(["Running", "Running", "Running", "CrashLoopBackOff", "Pending"])
        lines.append(f"{p.ljust(35)}{'1/1' if st == 'Running' else '0/1'}     {st.ljust(19)}{str(R.randint(0, 40)).ljust(16)}{R.randint(1, 40)}d")
    return framed(row, f"kubectl get pods -n {ns}", "\n".join(lines), prompt=sh_prompt())


# ---------------------------------------------------------------- styles: HTTP


def user_profile(row: Row, p: Person) -> dict[str, object]:
    out: dict[str, object] = {"id": R.randint(10000, 999999), "name": row.P(p.full, "person_name"), "email": row.P(p.email, "email"), "phone": row.P(p.phone, "phone"),
                              "address": row.P(p.address, "postal_address"), "created_at": iso(when(900)), "locale": LOCALES[p.lang].split(".")[0]}
    if chance(0.7):
        out["kyc"] = {"document_type": ID_COLUMN[p.natid_kind], "document_number": row.P(p.natid, p.natid_kind), "birth_date": row.P(f"{p.born:%Y-%m-%d}", "date_of_birth")}
    return out


def resp_headers(row: Row, status: str, ctype: str = "application/json") -> list[str]:
    hs = [f"< HTTP/2 {status}", f"< date: {NOW:%a, %d %b %Y %H:%M:%S} GMT", f"< content-type: {ctype}", f"< x-request-id: {row.D(uuid4(), 'request_id')}"]
    extra = [lambda: f"< traceparent: {row.D(traceparent(), 'trace_id')}", lambda: f"< etag: {row.D(etag(), 'etag')}", lambda: f"< cf-ray: {row.D(cf_ray(), 'request_id')}",
             lambda: f"< x-amz-request-id: {row.D(amz_request_id(), 'request_id')}", lambda: f"< x-amz-id-2: {row.D(amz_id2(), 'request_id')}",
             lambda: "< strict-transport-security: max-age=31536000", lambda: f"< server: {pick(['nginx/1.25.4', 'envoy', 'cloudflare', 'AmazonS3', 'uvicorn'])}",
             lambda: "< vary: Accept-Encoding"]
    return hs + [make() for make in R.sample(extra, R.randint(2, 5))]


def st_http_dump(row: Row, mode: str) -> str:
    L = row.lang
    host = f"api.{corp()}"
    path = pick(["/v1/orders?limit=20", "/v2/customers/me", "/api/internal/reindex", "/v1/invoices/INV-2026-" + dg(5), "/graphql"])
    req = [f"* Connected to {host} ({row.D(private_ip(), 'private_ip') if chance(0.3) else public_ipv4()}) port 443", "* ALPN: server accepted h2",
           "* Server certificate:", f"*  subject: CN=*.{host.split('.', 1)[1]}", "*  issuer: C=US; O=Let's Encrypt; CN=R11", "*  SSL certificate verify ok.",
           f"> {pick(['GET', 'POST'])} {path} HTTP/2", f"> Host: {host}", "> User-Agent: curl/8.5.0", "> Accept: */*"]
    cmd = f"curl -v https://{host}{path}"
    if mode == "S":
        variant = pick(["bearer", "bearer", "basic", "apikey", "cookie", "oauth"])
        if variant == "bearer":
            tok = pick([lambda: jwt_token(pick(["HS256", "RS256"])), openai_key, anthropic_key, gh_fine_grained, hf_token, lambda: gh_token("ghp"), slack_bot, do_token, vault_token])()
            row.S(tok, "jwt" if tok.startswith("eyJ") else "bearer_token")
            req.append(f"> Authorization: Bearer {tok}")
            cmd = f'curl -v -H "Authorization: Bearer $TOKEN" https://{host}{path}'
        elif variant == "basic":
            user, pw = pick(["admin", "api", "svc-reporting", "jenkins"]), human_password(L)
            enc = b64s(f"{user}:{pw}")
            row.S(f"{user}:{pw}", "basic_auth_credentials", enc)
            req.append(f"> Authorization: Basic {enc}")
            cmd = f"curl -v -u {user}:\"$PW\" https://{host}{path}"
        elif variant == "apikey":
            k = pick([internal_key, sendgrid_key, lambda: dd_api(), lambda: "key-" + hx(32)])()
            hname = pick(["X-API-Key", "X-Api-Key", "api-key", "DD-API-KEY", "X-Auth-Token"])
            row.S(k, "api_key")
            req.append(f"> {hname}: {k}")
        elif variant == "cookie":
            name, val = session_cookie(pick(["django", "php", "java", "flask", "rails", "express", "aspnet"]))
            row.S(val, "session_cookie")
            req.append(f"> Cookie: {name}={val}; theme=dark")
        else:
            cid, csec = rs(ALNUM, 24), rs(ALNUM + "-_", 40)
            row.S(csec, "oauth_client_secret")
            cmd = f"curl -v -X POST https://auth.{corp()}/oauth/token -d 'grant_type=client_credentials&client_id={cid}&client_secret={csec}'"
            at, rt = jwt_token("RS256", kid=True), rs(B64URL, 64)
            body = json.dumps({"access_token": row.S(at, "oauth_access_token"), "token_type": "Bearer", "expires_in": 3600,
                               "refresh_token": row.S(rt, "oauth_refresh_token"), "scope": "orders:read orders:write"}, indent=2)
            req = req[:6] + ["> POST /oauth/token HTTP/2", f"> Host: auth.{corp()}", "> User-Agent: curl/8.5.0", "> Content-Type: application/x-www-form-urlencoded", f"> Content-Length: {R.randint(90, 140)}", ">"]
            resp = resp_headers(row, "200")
            resp.insert(3, "< cache-control: no-store")
            return framed(row, cmd, "\n".join(req + resp + ["<", body]), prompt=sh_prompt())
        req.append(">")
        status = pick(["200", "401", "403", "500"])
        resp = resp_headers(row, status)
        if status == "200" and chance(0.4):
            name, val = session_cookie(pick(["django", "php", "java", "express"]))
            resp.append(f"< set-cookie: {name}={row.S(val, 'session_cookie')}; Path=/; HttpOnly; Secure; SameSite=Lax")
        if status == "401":
            resp.append('< www-authenticate: Bearer error="invalid_token", error_description="The access token expired"')
            body = '{"error":"invalid_token","message":"token expired at ' + iso(when(1)) + '"}'
        elif status == "403":
            body = '{"error":"forbidden","required_scope":"orders:write"}'
        elif status == "500":
            body = json.dumps({"error": "internal", "trace_id": row.D(trace_id(), "trace_id")})
        else:
            body = json.dumps({"data": [{"id": f"ord_{rs(ALNUM, 14)}", "status": pick(["paid", "shipped"]), "total": R.randint(100, 99999)} for _ in range(2)], "next_cursor": row.D(b64s(json.dumps({"offset": 20})), "base64_non_secret")})
        return framed(row, cmd, "\n".join(req + resp + ["<", body]), prompt=sh_prompt())
    if mode == "P":
        p = person(L)
        req += ["> Accept-Language: " + LOCALES[L].split(".")[0].replace("_", "-"), ">"]
        body = json.dumps(user_profile(row, p), indent=2, ensure_ascii=False)
        return framed(row, f"curl -v https://{host}/v2/customers/{R.randint(1000, 99999)}", "\n".join(req + resp_headers(row, "200") + ["<", body]), prompt=sh_prompt())
    req.append(">")
    resp = resp_headers(row, pick(["200", "304", "404"]))
    if chance(0.5):
        resp.append(f"< x-ratelimit-remaining: {R.randint(0, 5000)}")
        resp.append(f"< x-ratelimit-reset: {epoch(NOW) + 3600}")
    body = json.dumps({"version": row.D(version(), "version"), "commit": row.D(git_sha(), "git_sha"), "build": iso(when(3))})
    text = framed(row, cmd, "\n".join(req + resp + ["<", body]), prompt=sh_prompt())
    if chance(0.4):
        text += "\n\n" + ph(L, "placeholder").format(v=row.D(pick(["<your-api-key>", "YOUR_TOKEN_HERE", "<paste-token-here>"]), "placeholder"))
    return text


def har_headers(row: Row, pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in pairs]


def st_har(row: Row, mode: str) -> str:
    L = row.lang
    host = f"https://app.{corp()}"
    esc = json_esc(False)
    entries = []
    n = R.randint(1, 3)
    secret_at = R.randrange(n)
    for i in range(n):
        path = pick(["/api/session", "/api/v1/me", "/api/v1/orders", "/login", "/api/graphql", "/api/v1/cart"])
        hdrs = [(":authority", host[8:]), (":method", "GET"), (":path", path), ("accept", "application/json"), ("accept-language", LOCALES[L].split(".")[0].replace("_", "-") + ",en;q=0.8"),
                ("user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"), ("x-request-id", row.D(uuid4(), "request_id"))]
        post = None
        content: dict[str, object] = {"size": 0, "mimeType": "application/json", "text": ""}
        if mode == "S" and i == secret_at:
            variant = pick(["auth", "cookie", "login", "token_resp"])
            if variant == "auth":
                tok = jwt_token(pick(["HS256", "RS256"]))
                hdrs.append(("authorization", "Bearer " + row.S(tok, "jwt")))
            elif variant == "cookie":
                name, val = session_cookie(pick(["django", "php", "java", "flask", "express", "rails"]))
                hdrs.append(("cookie", f"{name}={row.S(val, 'session_cookie', esc(val))}; lang={L}"))
            elif variant == "login":
                p = person(L)
                pw = human_password(L, special=chance(0.4))
                form = f"username={urllib.parse.quote(p.email, safe='')}&password={urllib.parse.quote(pw, safe='')}&remember=1"
                row.S(pw, "password", esc(urllib.parse.quote(pw, safe="")))
                row.P(p.email, "email", esc(urllib.parse.quote(p.email, safe="")))
                post = {"mimeType": "application/x-www-form-urlencoded", "text": form}
                hdrs[1] = (":method", "POST")
            else:
                at, rt = jwt_token("RS256", kid=True), rs(B64URL, 86)
                row.S(at, "oauth_access_token", esc(at))
                row.S(rt, "oauth_refresh_token", esc(rt))
                content["text"] = json.dumps({"access_token": at, "refresh_token": rt, "expires_in": 900, "token_type": "Bearer"})
        if mode == "P" and i == secret_at:
            p = person(L)
            prof = {"id": R.randint(1000, 99999), "displayName": p.full, "email": p.email, "phone": p.phone, "birthDate": p.dob}
            inner = json.dumps(prof, ensure_ascii=False)
            for k, kind in (("displayName", "person_name"), ("email", "email"), ("phone", "phone"), ("birthDate", "date_of_birth")):
                row.P(str(prof[k]), kind, esc(json_esc(False)(str(prof[k]))))
            content["text"] = inner
        if not content["text"]:
            content["text"] = json.dumps({"ok": True, "build": row.D(short_sha(), "git_sha")})
        content["size"] = len(str(content["text"]))
        entry: dict[str, object] = {
            "startedDateTime": iso(when(1), 3), "time": round(R.uniform(20, 900), 3),
            "request": {"method": dict(hdrs)[":method"], "url": host + path, "httpVersion": "h2", "headers": har_headers(row, hdrs), "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "", "httpVersion": "h2", "headers": har_headers(row, [("content-type", "application/json"), ("etag", etag()), ("x-trace-id", row.D(trace_id(), "trace_id"))]),
                         "content": content, "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"blocked": round(R.uniform(0, 5), 3), "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": round(R.uniform(10, 800), 3), "receive": 0.4},
            "serverIPAddress": row.D(private_ip(), "private_ip") if chance(0.2) else "104.18." + str(R.randint(0, 255)) + "." + str(R.randint(1, 254)), "_priority": "High",
        }
        if post:
            entry["request"]["postData"] = post  # type: ignore[index]
        entries.append(entry)
    har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [], "entries": entries}}
    body = json.dumps(har, indent=2, ensure_ascii=False)
    return framed(row, None, body, fence=chance(0.7))


# ---------------------------------------------------------------- styles: configuration files


def gcp_sa_json(row: Row, indent: int | None = 2, ensure_ascii: bool = False, outer_esc=None) -> str:  # type: ignore[no-untyped-def]
    project = f"{pick(APPS)}-{pick(['prod', 'data', 'ml'])}-{dg(6)}"
    key = rsa_pkcs8_pem() + "\n"
    sa = f"{pick(['ci-deployer', 'bq-reader', 'terraform', 'vertex-runner'])}@{project}.iam.gserviceaccount.com"
    obj = {"type": "service_account", "project_id": project, "private_key_id": hx(40), "private_key": key, "client_email": sa, "client_id": dg(21),
           "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token",
           "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
           "client_x509_cert_url": f"https://www.googleapis.com/robot/v1/metadata/x509/{urllib.parse.quote(sa)}", "universe_domain": "googleapis.com"}
    shown = json_esc(ensure_ascii)(key)
    if outer_esc:
        shown = outer_esc(shown)
    row.S(key, "gcp_service_account_private_key", shown)
    return json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii)


def st_config_file(row: Row, mode: str) -> str:
    L = row.lang
    app = pick(APPS)
    S = mode == "S"
    variants_s = ["compose", "spring", "appsettings", "django", "toml", "npmrc", "pypirc", "dockercfg", "awscreds", "netrc", "terraform", "wpconfig",
                  "webconfig", "maven", "gitcreds", "rclone", "pgpass", "gcp_sa", "gradle", "workflow", "pipconf", "ini"]
    variants_c = ["nginx", "compose", "spring", "env_example", "sshconfig", "workflow", "package_lock", "gosum", "requirements", "terraform", "toml", "ini"]
    variant = pick(variants_s if S else variants_c)
    if variant == "compose":
        f1 = mix(L, R.randint(1, 2) if S else 0, R.randint(2, 4))
        pg_pw = [sec("POSTGRES_PASSWORD", human_password(L), "password")] if S and chance(0.7) else [dec("POSTGRES_PASSWORD", pick(["${POSTGRES_PASSWORD:?set me}", "${DB_PASSWORD}"]), "placeholder")]
        lines = ["services:", f"  {app}:", f"    image: ghcr.io/{corp().split('.')[0]}/{app}:{row.D(version(), 'version')}", "    ports:", '      - "8080:8080"', "    environment:",
                 *r_yaml(row, f1, indent="      ", case="upper"), "    depends_on: [db]", "  db:", "    image: postgres:16-alpine", "    environment:",
                 *r_yaml(row, [plain("POSTGRES_USER", app), *pg_pw, plain("POSTGRES_DB", app)], indent="      ", case="upper"), "    volumes:", "      - pgdata:/var/lib/postgresql/data", "volumes:", "  pgdata: {}"]
        return framed(row, "cat docker-compose.yml", "\n".join(lines), prompt=sh_prompt())
    if variant == "spring":
        url = f"jdbc:postgresql://{row.D(db_host(), 'hostname')}:5432/{app}"
        pw_f = sec("PASSWORD", human_password(L), "database_password") if S else dec("PASSWORD", "${DB_PASSWORD}", "placeholder")
        lines = ["spring:", "  application:", f"    name: {app}", "  datasource:", f"    url: {url}", *r_yaml(row, [plain("USERNAME", f"{app}_rw"), pw_f], indent="    "),
                 "    hikari:", "      maximum-pool-size: 20", "  jpa:", "    open-in-view: false", "server:", "  port: 8080", "  servlet:", "    session:",
                 *r_yaml(row, [kvd("TIMEOUT", "30m", "duration")], indent="      ")]
        if S and chance(0.6):
            lines += ["app:", "  integrations:", *r_yaml(row, mix(L, 1, 1), indent="    ", case="kebab")]
        return framed(row, "cat src/main/resources/application-prod.yml", "\n".join(lines), prompt=sh_prompt())
    if variant == "appsettings":
        pw = human_password(L, special=chance(0.4))
        server = f"tcp:{corp().split('.')[0]}-sql.database.windows.net,1433"
        cs = f"Server={server};Initial Catalog={app};Persist Security Info=False;User ID={app}admin;Password={pw};MultipleActiveResultSets=False;Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;"
        esc = json_esc(False)
        row.S(pw, "database_password", esc(pw))
        other = mix(L, R.randint(0, 1), R.randint(1, 3))
        obj = {"Logging": {"LogLevel": {"Default": "Information", "Microsoft.AspNetCore": "Warning"}}, "AllowedHosts": "*",
               "ConnectionStrings": {"DefaultConnection": cs}, "App": r_json_obj(row, other, case="camel")}
        return framed(row, "cat appsettings.Production.json", json.dumps(obj, indent=2, ensure_ascii=False), prompt=sh_prompt())
    if variant == "django":
        key = django_key()
        pw = human_password(L)
        mail = human_password(L)
        lines = ["from .base import *  # noqa", "", "DEBUG = False", f'ALLOWED_HOSTS = ["{app}.{corp()}"]', f"SECRET_KEY = '{row.S(key, 'django_secret_key')}'", "",
                 "DATABASES = {", '    "default": {', '        "ENGINE": "django.db.backends.postgresql",', f'        "NAME": "{app}",', f'        "USER": "{app}",',
                 f'        "PASSWORD": "{row.S(pw, "database_password")}",', f'        "HOST": "{db_host()}",', '        "PORT": "5432",', "    }", "}", "",
                 f'EMAIL_HOST = "smtp.{corp()}"', f'EMAIL_HOST_PASSWORD = "{row.S(mail, "password")}"', row.D("SESSION_COOKIE_AGE = 1209600", "duration"), row.D("PASSWORD_RESET_TIMEOUT = 259200", "duration")]
        return framed(row, f"cat {app}/settings/production.py", "\n".join(lines), prompt=sh_prompt())
    if variant == "toml":
        f1 = mix(L, R.randint(1, 2) if S else 0, R.randint(1, 3))
        f2 = [plain("HOST", db_host()), plain("PORT", "5432"), sec("PASSWORD", human_password(L, chance(0.3)), "database_password") if S else dec("PASSWORD_ENV", "DB_PASSWORD", "env_var_name")]
        lines = [f'# {app} {ph(L, "secret")}s', "[server]", 'bind = "0.0.0.0:8080"', *r_toml(row, [kvd("SHUTDOWN_TIMEOUT", "30s", "duration")]), "", "[database]", *r_toml(row, f2), "", "[integrations]", *r_toml(row, f1)]
        return framed(row, "cat config/production.toml", "\n".join(lines), prompt=sh_prompt())
    if variant == "npmrc":
        tok = npm_token()
        gh = gh_token("ghp")
        lines = [f"//registry.npmjs.org/:_authToken={row.S(tok, 'npm_token')}", f"@{corp().split('.')[0]}:registry=https://npm.pkg.github.com",
                 f"//npm.pkg.github.com/:_authToken={row.S(gh, 'github_token')}", "always-auth=true", "save-exact=true"]
        return framed(row, "cat ~/.npmrc", "\n".join(lines), prompt=sh_prompt())
    if variant == "pypirc":
        lines = ["[distutils]", "index-servers =", "    pypi", "    testpypi", "", "[pypi]", "username = __token__", f"password = {row.S(pypi_token(), 'pypi_token')}", "",
                 "[testpypi]", "repository = https://test.pypi.org/legacy/", "username = __token__", f"password = {row.S(pypi_token(True), 'pypi_token')}"]
        return framed(row, "cat ~/.pypirc", "\n".join(lines), prompt=sh_prompt())
    if variant == "dockercfg":
        auths = {}
        for reg in R.sample(["ghcr.io", "registry.gitlab.com", "https://index.docker.io/v1/", f"{aws_account()}.dkr.ecr.{aws_region()}.amazonaws.com", f"harbor.{corp()}"], 2):
            user = pick(["ci-bot", "deploy", pick(USERS), "AWS"])
            tok = pick([lambda: gh_token("ghp"), glpat, lambda: human_password(L), lambda: rs(ALNUM, 36)])()
            enc = b64s(f"{user}:{tok}")
            row.S(f"{user}:{tok}", "basic_auth_credentials", enc)
            auths[reg] = {"auth": enc}
        obj = {"auths": auths, "credsStore": "", "currentContext": "default"}
        return framed(row, "cat ~/.docker/config.json", json.dumps(obj, indent="\t"), prompt=sh_prompt())
    if variant == "awscreds":
        lines = ["[default]", f"aws_access_key_id = {row.S(aws_akid(), 'aws_access_key_id')}", f"aws_secret_access_key = {row.S(aws_secret(), 'aws_secret_access_key')}", ""]
        lines += [f"[profile {app}-prod]", f"role_arn = {row.D(f'arn:aws:iam::{aws_account()}:role/{app}-admin', 'aws_arn')}", "source_profile = default", f"region = {aws_region()}"]
        if chance(0.5):
            lines += ["", "[legacy]", f"aws_access_key_id = {row.S(aws_akid(), 'aws_access_key_id')}", f"aws_secret_access_key = {row.S(aws_secret(), 'aws_secret_access_key')}"]
        return framed(row, "cat ~/.aws/credentials", "\n".join(lines), prompt=sh_prompt())
    if variant == "netrc":
        makers = [lambda: f"machine api.heroku.com\n  login {pick(USERS)}@{corp()}\n  password {row.S(heroku_key(), 'heroku_api_key')}",
                  lambda: f"machine github.com login {pick(USERS)} password {row.S(gh_token(pick(['ghp', 'gho'])), 'github_token')}",
                  lambda: f"machine nexus.{corp()} login deploy password {row.S(human_password(L), 'password')}"]
        return framed(row, "cat ~/.netrc", "\n".join(make() for make in R.sample(makers, R.randint(2, 3))), prompt=sh_prompt())
    if variant == "terraform":
        if S:
            f = pick([lambda: [sec("ACCESS_KEY", aws_akid(), "aws_access_key_id"), sec("SECRET_KEY", aws_secret(), "aws_secret_access_key"), plain("REGION", aws_region())],
                      lambda: [plain("SUBSCRIPTION_ID", uuid4()), dec("TENANT_ID", uuid4(), "uuid"), sec("CLIENT_SECRET", azure_client_secret(), "azure_client_secret")],
                      lambda: [sec("TOKEN", do_token(), "digitalocean_token")], lambda: [sec("API_TOKEN", cloudflare_token(), "cloudflare_api_token")]])()
            prov = pick(["aws", "azurerm", "digitalocean", "cloudflare"])
            lines = [f'provider "{prov}" {{', *r_hcl(row, f), "}", "", 'resource "random_id" "suffix" {', "  byte_length = 4", "}", "", 'variable "db_password" {', "  type      = string",
                     "  sensitive = true", f'  default   = "{row.S(human_password(L), "database_password")}"', "}"]
            return framed(row, "cat main.tf", "\n".join(lines), prompt=sh_prompt())
        lines = ['terraform {', '  required_providers {', '    aws = {', '      source  = "hashicorp/aws"', f'      version = "~> {R.randint(4, 5)}.{R.randint(0, 80)}"', '    }', '  }', '}', '',
                 'resource "aws_db_instance" "main" {', f'  identifier        = "{app}-prod"', '  engine            = "postgres"', '  username          = var.db_username',
                 row.D("  password          = var.db_password", "placeholder"), '  storage_encrypted = true', f'  kms_key_id        = "{row.D(f"arn:aws:kms:{aws_region()}:{aws_account()}:key/{uuid4()}", "aws_arn")}"', '}']
        return framed(row, "cat rds.tf", "\n".join(lines), prompt=sh_prompt())
    if variant == "wpconfig":
        salts = [(n, rs(ALNUM + "!@#$%^&*()-_[]{}<>~`+=,.;:/?|", 64)) for n in ("AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY")]
        lines = ["<?php", f"define( 'DB_NAME', '{app}' );", f"define( 'DB_USER', '{app}_wp' );", f"define( 'DB_PASSWORD', '{row.S(human_password(L), 'database_password')}' );",
                 "define( 'DB_HOST', 'localhost' );", "define( 'DB_CHARSET', 'utf8mb4' );", ""]
        for n, v in salts:
            if "'" not in v and "\\" not in v:
                lines.append(f"define( '{n}', '{row.S(v, 'wordpress_salt')}' );")
        lines += ["", "$table_prefix = 'wp_';", "define( 'WP_DEBUG', false );"]
        return framed(row, "cat wp-config.php", "\n".join(lines), prompt=sh_prompt())
    if variant == "webconfig":
        pw = human_password(L, special=chance(0.5))
        cs = f"Data Source={db_host('mssql')};Initial Catalog={app};User ID={app};Password={pw};"
        row.S(pw, "database_password", xml_attr_esc(pw))
        lines = ['<?xml version="1.0" encoding="utf-8"?>', "<configuration>", "  <connectionStrings>", f'    <add name="Default" connectionString="{xml_attr_esc(cs)}" providerName="System.Data.SqlClient" />',
                 "  </connectionStrings>", "  <appSettings>", *r_xml(row, mix(L, 1, R.randint(1, 3)), mode="attrs", indent="    "), "  </appSettings>", "</configuration>"]
        return framed(row, "type Web.config", "\n".join(lines), prompt="PS C:\\inetpub\\wwwroot> ")
    if variant == "maven":
        pw = human_password(L, special=chance(0.4))
        lines = ["<settings>", "  <servers>", "    <server>", "      <id>nexus-releases</id>", "      <username>deploy</username>",
                 f"      <password>{row.S(pw, 'password', xml_escape(pw))}</password>", "    </server>", "    <server>", "      <id>github</id>", f"      <username>{pick(USERS)}</username>",
                 f"      <password>{row.S(gh_token('ghp'), 'github_token')}</password>", "    </server>", "  </servers>", "</settings>"]
        return framed(row, "cat ~/.m2/settings.xml", "\n".join(lines), prompt=sh_prompt())
    if variant == "gitcreds":
        lines = [f"https://{pick(USERS)}:{row.S(gh_token(pick(['ghp', 'gho'])), 'github_token')}@github.com",
                 f"https://oauth2:{row.S(glpat(), 'gitlab_token')}@gitlab.{corp()}"]
        if chance(0.5):
            pw = human_password(L, special=True)
            enc = urllib.parse.quote(pw, safe="")
            lines.append(f"https://{pick(USERS)}:{row.S(pw, 'password', enc)}@bitbucket.org")
        return framed(row, "cat ~/.git-credentials", "\n".join(lines), prompt=sh_prompt())
    if variant == "rclone":
        lines = ["[s3-backup]", "type = s3", "provider = AWS", f"access_key_id = {row.S(aws_akid(), 'aws_access_key_id')}", f"secret_access_key = {row.S(aws_secret(), 'aws_secret_access_key')}",
                 f"region = {aws_region()}", "", "[b2]", "type = b2", f"account = {hx(12)}", f"key = {row.S('K' + dg(3) + rs(ALNUM + '/+', 27), 'backblaze_app_key')}"]
        return framed(row, "cat ~/.config/rclone/rclone.conf", "\n".join(lines), prompt=sh_prompt())
    if variant == "pgpass":
        lines = []
        for _ in range(R.randint(2, 3)):
            pw = human_password(L).replace(":", "")
            lines.append(f"{db_host()}:5432:{pick(APPS)}:{pick(APPS)}_rw:{row.S(pw, 'database_password')}")
        lines.append("localhost:5432:*:postgres:postgres")
        return framed(row, "cat ~/.pgpass", "\n".join(lines), prompt=sh_prompt())
    if variant == "gcp_sa":
        return framed(row, f"cat {pick(['key.json', 'gcp-sa.json', 'secrets/terraform-sa.json'])}", gcp_sa_json(row), prompt=sh_prompt())
    if variant == "gradle":
        kid = hx(8).upper()
        lines = ["org.gradle.jvmargs=-Xmx4g", f"ossrhUsername={pick(USERS)}", f"ossrhPassword={row.S(human_password(L), 'password')}",
                 f"signing.keyId={row.D(kid, 'gpg_key_id')}", f"signing.password={row.S(passphrase(L), 'passphrase')}",
                 f"signing.secretKeyRingFile={row.D('/home/' + pick(USERS) + '/.gnupg/secring.gpg', 'file_path')}"]
        return framed(row, "cat ~/.gradle/gradle.properties", "\n".join(lines), prompt=sh_prompt())
    if variant == "workflow":
        if S:
            env = r_yaml(row, mix(L, R.randint(1, 2), 1), indent="      ", case="upper")
        else:
            env = []
            for n in R.sample(CRED_NAMES, 3):
                frag = f"{n}: ${{{{ secrets.{n} }}}}"
                row.D(frag, "placeholder")
                env.append("      " + frag)
        lines = ["name: deploy", "on:", "  push:", "    branches: [main]", "jobs:", "  deploy:", "    runs-on: ubuntu-24.04", "    env:", *env, "    steps:",
                 f"      - uses: actions/checkout@{row.D(git_sha(), 'git_sha')} # v4", "      - run: ./scripts/deploy.sh"]
        return framed(row, "cat .github/workflows/deploy.yml", "\n".join(lines), prompt=sh_prompt())
    if variant == "pipconf":
        tok = pick([lambda: human_password(L), lambda: rs(ALNUM, 32), glpat])()
        enc = urllib.parse.quote(tok, safe="")
        lines = ["[global]", f"index-url = https://{pick(['deploy', '__token__', 'gitlab-ci-token'])}:{row.S(tok, 'password', enc)}@pypi.{corp()}/simple/", "timeout = 60"]
        return framed(row, "cat ~/.config/pip/pip.conf", "\n".join(lines), prompt=sh_prompt())
    if variant == "ini":
        f1 = mix(L, R.randint(1, 2) if S else 0, R.randint(2, 4))
        lines = ["[app]", *r_ini(row, f1), "", "[limits]", *r_ini(row, [kvd("TOKEN_BUCKET_SIZE", "100"), kvd("LOGIN_ATTEMPTS_MAX", "5")])]
        return framed(row, f"cat /etc/{app}/{app}.ini", "\n".join(lines), prompt=sh_prompt())
    if variant == "nginx":
        lines = ["server {", "    listen 443 ssl http2;", f"    server_name {row.D(app + '.' + corp(), 'hostname')};",
                 f"    ssl_certificate     {row.D('/etc/letsencrypt/live/' + corp() + '/fullchain.pem', 'file_path')};",
                 f"    ssl_certificate_key {row.D('/etc/letsencrypt/live/' + corp() + '/privkey.pem', 'file_path')};", "    ssl_session_timeout 1d;",
                 "    location / {", f"        proxy_pass http://127.0.0.1:{pick(['8080', '3000', '8000'])};", "        proxy_set_header Authorization $http_authorization;",
                 "        proxy_set_header X-Request-Id $request_id;", "    }", "}"]
        return framed(row, f"cat /etc/nginx/sites-enabled/{app}.conf", "\n".join(lines), prompt=sh_prompt())
    if variant == "env_example":
        lines = r_env(row, benign_fields(L, R.randint(5, 9)))
        for n in R.sample(CRED_NAMES, 3):
            ph_v = pick(PLACEHOLDERS[:16])
            lines.append(f"{n}={row.D(ph_v, 'placeholder')}" if _ENV_SAFE.match(ph_v) else f"{n}='{row.D(ph_v, 'placeholder')}'")
        return framed(row, "cat .env.example", "\n".join(lines), prompt=sh_prompt())
    if variant == "sshconfig":
        lines = []
        for h in R.sample(["bastion", "db-jump", "build", "gitlab", "nas"], 3):
            lines += [f"Host {h}", f"    HostName {row.D(h + '.' + corp(), 'hostname')}", f"    User {pick(USERS)}", f"    IdentityFile {row.D('~/.ssh/id_ed25519_' + h, 'file_path')}", "    IdentitiesOnly yes", ""]
        return framed(row, "cat ~/.ssh/config", "\n".join(lines).rstrip(), prompt=sh_prompt())
    if variant == "package_lock":
        lines = ["{", f'  "name": "{app}-web",', '  "lockfileVersion": 3,', '  "packages": {']
        for pkg in R.sample(["react", "lodash", "axios", "zod", "dayjs", "jsonwebtoken", "dotenv", "bcryptjs"], 3):
            v = f"{R.randint(1, 19)}.{R.randint(0, 20)}.{R.randint(0, 9)}"
            lines += [f'    "node_modules/{pkg}": {{', f'      "version": "{v}",', f'      "resolved": "https://registry.npmjs.org/{pkg}/-/{pkg}-{v}.tgz",',
                      f'      "integrity": "{row.D(npm_integrity(), "npm_integrity")}",', '      "license": "MIT"', "    },"]
        lines[-1] = "    }"
        lines += ["  }", "}"]
        return framed(row, "sed -n '1,40p' package-lock.json", "\n".join(lines), prompt=sh_prompt())
    if variant == "gosum":
        lines = []
        for mod in R.sample(["github.com/golang-jwt/jwt/v5", "golang.org/x/crypto", "github.com/aws/aws-sdk-go-v2", "github.com/hashicorp/vault/api", "go.uber.org/zap"], 3):
            v = f"v{R.randint(0, 5)}.{R.randint(0, 40)}.{R.randint(0, 9)}"
            lines.append(f"{mod} {v} {row.D(go_sum(), 'go_sum')}")
            lines.append(f"{mod} {v}/go.mod {go_sum()}")
        return framed(row, "grep -E 'jwt|crypto|vault|aws|zap' go.sum", "\n".join(lines), prompt=sh_prompt())
    lines = []
    for pkg in R.sample(["cryptography", "pyjwt", "requests", "boto3", "hvac", "python-dotenv", "passlib"], 3):
        lines.append(f"{pkg}=={R.randint(1, 44)}.{R.randint(0, 30)}.{R.randint(0, 9)} \\")
        lines.append(f"    --hash=sha256:{row.D(hx(64), 'content_digest')}")
    return framed(row, "head requirements.lock", "\n".join(lines), prompt=sh_prompt())


# ---------------------------------------------------------------- styles: CI logs


def ci_filler(row: Row, n: int) -> list[str]:
    pkgs = ["requests", "urllib3", "pydantic", "fastapi", "sqlalchemy", "boto3", "botocore", "typing-extensions", "idna", "certifi", "charset-normalizer"]
    out = []
    for _ in range(n):
        r = R.random()
        if r < 0.15:
            p = pick(pkgs)
            v = f"{R.randint(1, 3)}.{R.randint(0, 40)}.{R.randint(0, 9)}"
            out += [f"Collecting {p}=={v}", f"  Downloading {p.replace('-', '_')}-{v}-py3-none-any.whl ({R.randint(20, 900)} kB)"]
        elif r < 0.3:
            out.append(f"tests/test_{pick(APPS)}.py::test_{pick(['refund', 'create', 'list', 'auth_expired', 'token_refresh', 'idempotency'])}_{R.randint(1, 40)} PASSED{' ' * R.randint(2, 20)}[{R.randint(1, 99):3d}%]")
        elif r < 0.42:
            out += [f"#{R.randint(5, 30)} [build {R.randint(2, 9)}/9] RUN {pick(['npm ci', 'pip install -r requirements.lock', 'go build ./...', 'cargo build --release'])}", f"#{R.randint(5, 30)} DONE {R.uniform(0.1, 90):.1f}s"]
        elif r < 0.5:
            out.append(f"#{R.randint(5, 30)} writing image {docker_digest()} done")
        elif r < 0.6:
            out.append(f"  ✓ {pick(['creates an order', 'rejects expired token', 'rotates keys', 'paginates results', 'handles 429'])} ({R.randint(1, 400)} ms)")
        elif r < 0.7:
            out.append(f"added {R.randint(200, 2000)} packages, and audited {R.randint(200, 2000)} packages in {R.randint(5, 90)}s")
        elif r < 0.8:
            out.append(f"[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/{pick(['springframework', 'apache', 'slf4j'])}/{pick(['core', 'commons', 'api'])}/{R.randint(1, 6)}.{R.randint(0, 9)}.{R.randint(0, 9)}/x.jar ({R.randint(10, 900)} kB at {R.uniform(1, 9):.1f} MB/s)")
        elif r < 0.9:
            out.append(f"{pick(['Compiling', 'Checking'])} {pick(['serde', 'tokio', 'ring', 'rustls', 'hyper', 'jsonwebtoken'])} v{R.randint(0, 2)}.{R.randint(0, 40)}.{R.randint(0, 9)}")
        else:
            out.append(f"HEAD is now at {short_sha()} {pick(['fix: retry on 503', 'chore: bump deps', 'feat: add refunds', 'docs: rotate key howto'])}")
    return out


def st_ci_log(row: Row, mode: str) -> str:
    L = row.lang
    app = pick(APPS)
    flavor = pick(["gha", "gitlab", "jenkins"])
    long = row.long
    n_fill = R.randint(110, 190) if long else R.randint(6, 25)
    leak: list[str] = []
    if mode == "S":
        kind = pick(["docker_login", "curl_bearer", "env_dump", "curl_basic", "config_cat", "npmrc"])
        if kind == "docker_login":
            tok = pick([lambda: gh_token("ghp"), glpat, lambda: human_password(L)])()
            leak = [f"+ docker login -u ci-bot -p {row.S(tok, 'registry_token')} ghcr.io", "WARNING! Using --password via the CLI is insecure. Use --password-stdin.", "Login Succeeded"]
        elif kind == "curl_bearer":
            tok = pick([vault_token, lambda: jwt_token("RS256"), gcp_access_token, openai_key])()
            leak = [f"+ TOKEN={tok}" if chance(0.5) else "+ TOKEN=$(vault write -field=token auth/jwt/login role=ci jwt=$CI_JOB_JWT)",
                    f"+ curl -sf -H 'Authorization: Bearer {tok}' https://deploy.{corp()}/v1/releases -d @release.json"]
            row.S(tok, "bearer_token")
        elif kind == "curl_basic":
            pw = human_password(L)
            leak = [f"+ curl -sf -u deploy:{row.S(pw, 'password')} -T dist/{app}.tar.gz https://nexus.{corp()}/repository/raw/{app}/"]
        elif kind == "npmrc":
            leak = ["+ echo //registry.npmjs.org/:_authToken=" + row.S(npm_token(), "npm_token"), "+ npm publish --access public",
                    f"npm notice 📦  @{corp().split('.')[0]}/{app}@{row.D(version().lstrip('v'), 'version')}"]
        else:
            fields = mix(L, R.randint(1, 2), R.randint(2, 5))
            leak = ["+ cat config/ci.env" if kind == "config_cat" else "+ env | sort", *r_env(row, fields)]
    masked_lines = []
    for n in R.sample(CRED_NAMES, R.randint(1, 3)):
        frag = f"{n}: ***" if flavor == "gha" else f'declare -x {n}="[MASKED]"' if flavor == "gitlab" else f"{n}=****"
        masked_lines.append(row.D(frag, "masked"))
    sha = git_sha()
    filler = ci_filler(row, n_fill)
    cut = R.randint(0, len(filler))
    if flavor == "gha":
        steps = ["##[group]Run actions/checkout@v4", f"Syncing repository: {corp().split('.')[0]}/{app}", f"HEAD is now at {sha[:7]} {pick(['fix: retry', 'feat: refunds'])}", "##[endgroup]",
                 *filler[:cut], "##[group]Run ./scripts/deploy.sh", "./scripts/deploy.sh", "shell: /usr/bin/bash -e {0}", "env:", f"  AWS_REGION: {aws_region()}",
                 *["  " + m for m in masked_lines], "##[endgroup]", *leak, *filler[cut:], f"Deployed {sha} to production"]
        t = when(2)
        lines = []
        for s in steps:
            t += timedelta(milliseconds=R.randint(5, 4000))
            lines.append(f"{t:%Y-%m-%dT%H:%M:%S}.{dg(7)}Z {s}")
        body = "\n".join(lines)
    elif flavor == "gitlab":
        head = [f"Running with gitlab-runner 17.{R.randint(0, 6)}.{R.randint(0, 3)} ({hx(8)})", f"  on {pick(['shared-runner', 'k8s-runner'])}-{rs(LOWER_ALNUM, 8)} {rs(ALNUM, 8)}, system ID: s_{hx(12)}",
                'Preparing the "docker" executor', "Using Docker executor with image python:3.12-slim ...",
                f"Using docker image sha256:{hx(64)} for python:3.12-slim with digest python@{row.D(docker_digest(), 'image_digest')} ...",
                "Getting source from Git repository", "Fetching changes with git depth set to 20...", f"Checking out {sha[:8]} as detached HEAD (ref is main)...",
                'Executing "step_script" stage of the job script', "$ export", *masked_lines, *leak]
        body = "\n".join(head + filler + ["Cleaning up project directory and file based variables", "Job succeeded"])
    else:
        who = person(L)
        head = [f"Started by user {row.P(who.full, 'person_name')}" if mode != "C" and chance(0.6) else pick(["Started by timer", "Started by an SCM change"]), "Running as SYSTEM", "[Pipeline] Start of Pipeline", "[Pipeline] node",
                f"Running on agent-{R.randint(1, 9)} in /var/jenkins_home/workspace/{app}-deploy", "[Pipeline] withCredentials", "Masking supported pattern matches of $DOCKER_PASS",
                "[Pipeline] sh", "+ docker login -u ci -p **** registry." + corp(), *(["[Pipeline] sh", *leak] if leak else []), *["# " + m for m in masked_lines]]
        body = "\n".join(head + filler + ["[Pipeline] End of Pipeline", "Finished: " + pick(["SUCCESS", "FAILURE"])])
    for form in (sha, sha[:8], sha[:7]):
        if form in body:
            row.D(form, "git_sha")
            break
    return framed(row, None, body, fence=chance(0.5))


# ---------------------------------------------------------------- styles: application logs


def log_base(row: Row, level: str, msg: str, label_ids: bool = False) -> dict[str, object]:
    rid = uuid4()
    tid = trace_id()
    if label_ids:
        row.D(rid, "request_id")
        row.D(tid, "trace_id")
    return {"ts": iso(when(1), 3), "level": level, "logger": pick(["app.http", "app.db", "app.worker", "uvicorn.access", "orders.api"]), "msg": msg,
            "request_id": rid, "trace_id": tid, "span_id": span_id()}


def log_events(row: Row, mode: str, n: int, esc) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """Log records; labels use esc, the string escaping of the log format that will print them."""
    L = row.lang
    ev: list[dict[str, object]] = []
    for _ in range(n):
        e = log_base(row, pick(["info", "info", "debug"]), pick(["request completed", "cache hit", "job finished", "health check ok"]), label_ids=chance(0.15))
        e.update({"method": pick(["GET", "POST"]), "path": pick(["/v1/orders", "/v1/cart", "/healthz", "/v1/search"]), "status": pick([200, 200, 201, 204, 304]), "duration_ms": round(R.uniform(1, 400), 1)})
        ev.append(e)
    specials: list[dict[str, object]] = []
    if mode == "S":
        for _ in range(R.randint(1, 2)):
            k = pick(["headers", "config", "dsn", "webhook", "token_refresh"])
            if k == "headers":
                e = log_base(row, "debug", "outgoing request")
                tok = pick([lambda: jwt_token(), openai_key, anthropic_key, lambda: gh_token("ghs"), sendgrid_key, slack_bot])()
                e["http"] = {"url": f"https://{pick(['api.openai.com', 'api.anthropic.com', 'api.github.com', 'api.sendgrid.com', 'slack.com'])}/v1/x", "headers": {"Authorization": "Bearer " + row.S(tok, "bearer_token"), "User-Agent": f"{pick(APPS)}/{version()}"}}
            elif k == "config":
                e = log_base(row, "info", "configuration loaded")
                cfg = {}
                for f in mix(L, R.randint(1, 2), R.randint(1, 3)):
                    put(row, f, esc)
                    cfg[key_case(f.name, "lower")] = f.value
                e["config"] = cfg
            elif k == "dsn":
                e = log_base(row, "error", "database connection failed")
                f = db_url_field(L)
                put(row, f, esc)
                e["dsn"] = f.value
                e["error"] = pick(["connection refused", "timeout expired", "password authentication failed"])
            elif k == "webhook":
                e = log_base(row, "warn", "webhook delivery failed, will retry")
                f = webhook_field(pick(["slack", "discord", "generic"]))
                put(row, f, esc)
                e["url"] = f.value
                e["attempt"] = R.randint(1, 5)
            else:
                e = log_base(row, "debug", "token refreshed")
                e["refresh_token"] = row.S(google_refresh() if chance(0.5) else rs(B64URL, 64), "oauth_refresh_token")
                e["expires_in"] = 3599
            specials.append(e)
    if mode in ("S", "P") and (mode == "P" or chance(0.4)):
        for _ in range(R.randint(1, 2)):
            p = person(L)
            k = pick(["login", "reset", "order", "signup"])
            e = log_base(row, "info", {"login": "login succeeded", "reset": "password reset requested", "order": "order created", "signup": "user signed up"}[k])
            if k == "login":
                e["user"] = {"email": p.email, "ip": p.ip}
                row.P(p.email, "email", esc(p.email))
                row.P(p.ip, "ip_address")
            elif k == "reset":
                e["email"] = p.email
                e["client_ip"] = p.ip
                row.P(p.email, "email", esc(p.email))
                row.P(p.ip, "ip_address")
            elif k == "order":
                e["customer"] = {"name": p.full, "phone": p.phone, "address": p.address}
                row.P(p.full, "person_name", esc(p.full))
                row.P(p.phone, "phone", esc(p.phone))
                row.P(p.address, "postal_address", esc(p.address))
            else:
                e["email"] = p.email
                e["birthdate"] = f"{p.born:%Y-%m-%d}"
                e["kyc_document"] = {"type": ID_COLUMN[p.natid_kind], "number": p.natid}
                row.P(p.email, "email", esc(p.email))
                row.P(f"{p.born:%Y-%m-%d}", "date_of_birth")
                row.P(p.natid, p.natid_kind, esc(p.natid))
            specials.append(e)
    for e in specials:
        ev.insert(R.randint(0, len(ev)), e)
    ev.sort(key=lambda e: str(e["ts"]))
    return ev


def st_app_log_json(row: Row, mode: str) -> str | None:
    n = R.randint(35, 65) if row.long else R.randint(3, 12)
    ev = log_events(row, mode, n, json_esc(False))
    body = "\n".join(json.dumps(e, ensure_ascii=False, separators=(",", ":") if chance(0.5) else (", ", ": ")) for e in ev)
    cmd = pick([f"kubectl logs deploy/{pick(APPS)} -n prod --since=10m", f"journalctl -u {pick(APPS)} -o cat --since '10 min ago'", f"tail -n 50 /var/log/{pick(APPS)}/app.json", None])
    if mode == "S" and chance(0.35):
        # copied out of a narrow tmux pane: every long record is hard-wrapped
        wrapped = wrap_text(row, body, pick([100, 120, 160]))
        if wrapped is None:
            return None
        body = wrapped
    return framed(row, cmd, body, prompt=sh_prompt())


def logfmt_esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def logfmt_value(v: object) -> str:
    s = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    if s == "" or any(c in s for c in ' ="\\'):
        return '"' + logfmt_esc(s) + '"'
    return s


def flatten(prefix: str, obj: object) -> list[tuple[str, object]]:
    if isinstance(obj, dict):
        out: list[tuple[str, object]] = []
        for k, v in obj.items():
            out += flatten(f"{prefix}.{k}" if prefix else k, v)
        return out
    return [(prefix, obj)]


def st_app_log_logfmt(row: Row, mode: str) -> str:
    n = R.randint(40, 70) if row.long else R.randint(3, 12)
    ev = log_events(row, mode, n, logfmt_esc)
    lines = []
    for e in ev:
        pairs = [("time", e.pop("ts")), ("level", e.pop("level")), ("msg", e.pop("msg"))] + flatten("", e)
        lines.append(" ".join(f"{k}={logfmt_value(v)}" for k, v in pairs))
    return framed(row, pick([f"kubectl logs {pod_name(pick(APPS))} -n prod", f"docker logs --tail 40 {pick(APPS)}-1", None]), "\n".join(lines), prompt=sh_prompt())


# ---------------------------------------------------------------- styles: stack traces


def py_frames(n: int) -> list[str]:
    out = []
    for _ in range(n):
        mod = pick(["sqlalchemy/engine/base.py", "sqlalchemy/pool/base.py", "psycopg/connection.py", "httpx/_client.py", "django/core/handlers/exception.py", "botocore/client.py"])
        out += [f'  File "/app/.venv/lib/python3.12/site-packages/{mod}", line {R.randint(30, 2400)}, in {pick(["_connect", "__init__", "send", "connect", "_make_api_call", "inner"])}',
                f"    {pick(['return self._pool.connect()', 'raise ex.with_traceback(None)', 'conn = cls._connect_gen(conninfo)', 'response = self._send_handling_auth(request)'])}"]
    return out


def st_stack_trace(row: Row, mode: str) -> str:
    L = row.lang
    app = pick(APPS)
    lang_ = pick(["python", "java", "node", "go", "ruby"])
    host = db_host()
    user = f"{app}_rw"
    if lang_ == "python":
        lines = ["Traceback (most recent call last):", *py_frames(R.randint(2, 4)), f'  File "/app/{app}/db.py", line {R.randint(10, 90)}, in connect',
                 "    return psycopg.connect(dsn, connect_timeout=5)"]
        if mode == "S":
            pw = human_password(L)
            lines += [f"    dsn = 'postgresql://{user}:{row.S(pw, 'database_password')}@{host}:5432/{app}'", "    settings = <Settings env='prod' debug=False>"]
        else:
            lines += [f"    dsn = '{row.D(f'postgresql://{user}:***@{host}:5432/{app}', 'masked')}'"]
        err = f'psycopg.OperationalError: connection failed: connection to server at "{host}" ({private_ip()}), port 5432 failed: FATAL:  password authentication failed for user "{user}"'
        if mode == "P":
            p = person(L)
            err = f'psycopg.errors.UniqueViolation: duplicate key value violates unique constraint "users_email_key"\nDETAIL:  Key (email)=({row.P(p.email, "email")}) already exists.'
        lines.append(err)
        if mode == "S" and chance(0.5):
            lines += ["", "Environment:", *r_env(row, mix(L, 1, R.randint(2, 4)), prefix="  ")]
        lines.append(f"\n(Background on this error at: https://sqlalche.me/e/20/{row.D('e3q8', 'doc_code')})")
    elif lang_ == "java":
        lines = [f"{when(1):%Y-%m-%d %H:%M:%S}.{dg(3)}  WARN 1 --- [{app}] [           main] o.s.b.d.LoggingFailureAnalysisReporter   : ", "",
                 "***************************", "APPLICATION FAILED TO START", "***************************", "", "Description:", ""]
        if mode == "S":
            f = pick(secret_group(L, pick(["stripe", "openai", "sendgrid", "internal", "hmac", "db_parts"])) )
            if not any(lab[0] == "secrets" for lab in f.labels):
                f = sec("API_KEY", internal_key(), "internal_api_key")
            prop = "app." + key_case(f.name, "kebab").replace("-", ".", 1)
            put(row, f, lambda s: s.replace("\\", "\\\\").replace('"', '\\"'))
            val = f.value.replace("\\", "\\\\").replace('"', '\\"')
            lines += [f"Failed to bind properties under '{prop}' to java.lang.String:", "", f"    Property: {prop}", f'    Value: "{val}"',
                      f'    Origin: System Environment Property "{prop.upper().replace(".", "_").replace("-", "_")}"', "    Reason: java.lang.IllegalStateException: value rejected by validator"]
        elif mode == "P":
            p = person(L)
            lines += [f"Failed to load customer fixture for {row.P(p.email, 'email')} ({row.P(p.phone, 'phone')})"]
        else:
            lines += ["Failed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.", "",
                      "Reason: Failed to determine a suitable driver class"]
        lines += ["", "Action:", "", "Update your application's configuration", "", f"Caused by: org.postgresql.util.PSQLException: FATAL: password authentication failed for user \"{user}\""]
        for _ in range(R.randint(4, 9)):
            lines.append(f"\tat {pick(['org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:693)', 'com.zaxxer.hikari.pool.HikariPool.checkFailFast(HikariPool.java:562)', 'org.springframework.boot.SpringApplication.run(SpringApplication.java:1352)', 'java.base/java.lang.Thread.run(Thread.java:1583)'])}")
        lines.append(f"\t... {R.randint(10, 60)} common frames omitted")
    elif lang_ == "node":
        lines = [f"/app/node_modules/pg/lib/client.js:{R.randint(100, 600)}", "          reject(err)", "          ^", "",
                 f"Error: {pick(['getaddrinfo ENOTFOUND', 'connect ECONNREFUSED'])} {host}", "    at GetAddrInfoReqWrap.onlookup [as oncomplete] (node:dns:107:26) {",
                 "  errno: -3008,", "  code: 'ENOTFOUND',", "  syscall: 'getaddrinfo',", f"  hostname: '{host}',", "  config: {", f"    host: '{host}',", f"    user: '{user}',"]
        if mode == "S":
            pw = human_password(L).replace("'", "")
            lines.append(f"    password: '{row.S(pw, 'database_password')}',")
        else:
            lines.append(f"    password: {row.D('[Redacted]', 'masked')},")
        lines += ["    port: 5432,", f"    database: '{app}'", "  }", "}", "", f"Node.js v{R.randint(18, 22)}.{R.randint(0, 19)}.{R.randint(0, 9)}"]
        if mode == "P":
            p = person(L)
            lines.insert(0, f"[{iso(when(1), 3)}] ERROR: failed to sync contact {row.P(p.email, 'email')}")
    elif lang_ == "go":
        if mode == "S":
            f = db_url_field(L, special=False)
            put(row, f)
            lines = [f"{when(1):%Y/%m/%d %H:%M:%S} connect {f.value}: dial tcp {private_ip()}:5432: connect: connection refused", "exit status 1"]
        else:
            lines = [f"{when(1):%Y/%m/%d %H:%M:%S} connect: dial tcp {private_ip()}:5432: connect: connection refused"]
        lines += ["panic: runtime error: invalid memory address or nil pointer dereference", "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x6b4c2e]", "",
                  "goroutine 1 [running]:", "main.(*Server).Start(0x0)", f"\t/src/cmd/{app}/main.go:{R.randint(20, 200)} +0x{hx(2)}", "main.main()",
                  f"\t/src/cmd/{app}/main.go:{R.randint(20, 200)} +0x{hx(3)}"]
        if mode == "P":
            p = person(L)
            lines.insert(0, f"{when(1):%Y/%m/%d %H:%M:%S} processing signup for {row.P(p.full, 'person_name')} <{row.P(p.email, 'email')}>")
    else:
        lines = [f"ActiveRecord::DatabaseConnectionError: There is an issue connecting to your database with your username/password, username: {user}."]
        if mode == "S":
            lines.append(f"Config: {{adapter: \"postgresql\", host: \"{host}\", username: \"{user}\", password: \"{row.S(human_password(L).replace(chr(34), ''), 'database_password')}\", database: \"{app}\"}}")
        elif mode == "P":
            p = person(L)
            lines.append(f"Last request: POST /users {{\"user\"=>{{\"name\"=>\"{row.P(p.full, 'person_name')}\", \"email\"=>\"{row.P(p.email, 'email')}\"}}}}")
        lines += [f"/usr/local/bundle/gems/activerecord-7.{R.randint(0, 2)}.{R.randint(0, 5)}/lib/active_record/connection_adapters/postgresql_adapter.rb:{R.randint(40, 90)}:in `rescue in new_client'",
                  f"/app/app/jobs/{app}_sync_job.rb:{R.randint(5, 40)}:in `perform'"]
    body = "\n".join(lines)
    if chance(0.3):
        body = f"request_id={row.D(uuid4(), 'request_id')} commit={row.D(short_sha(), 'git_sha')}\n" + body
    return framed(row, None, body, fence=chance(0.6))


# ---------------------------------------------------------------- styles: tables

HEADERS_KV = {"en": ("Key", "Value"), "de": ("Schlüssel", "Wert"), "fr": ("Clé", "Valeur"), "es": ("Clave", "Valor"), "pt": ("Chave", "Valor"), "it": ("Chiave", "Valore"),
              "nl": ("Sleutel", "Waarde"), "pl": ("Klucz", "Wartość"), "ru": ("Ключ", "Значение"), "ja": ("キー", "値"), "zh": ("键", "值"), "ko": ("키", "값"), "tr": ("Anahtar", "Değer")}
ID_COLUMN = {"us_ssn": "ssn", "uk_nino": "ni_number", "in_aadhaar": "aadhaar", "de_steuer_id": "steuer_id", "fr_nir": "nir", "es_dni": "dni_nie", "es_nie": "dni_nie",
             "mx_curp": "curp", "pt_nif": "nif", "br_cpf": "cpf", "it_codice_fiscale": "codice_fiscale", "nl_bsn": "bsn", "pl_pesel": "pesel", "ru_snils": "snils",
             "jp_my_number": "my_number", "cn_resident_id": "id_card_no", "kr_rrn": "rrn", "tr_tc_kimlik": "tc_kimlik", "ca_sin": "sin", "au_tfn": "tfn"}


def people_rows(row: Row, lang: str, n: int, cols: list[str]) -> tuple[list[str], list[list[str]]]:
    """A header and n rows of people; columns are PII names plus harmless ones."""
    mixed = chance(0.7)  # an international export: one country after another, ids under one column
    if mixed:
        people = [person(lang, next_country("*")) for _ in range(n)]
        if "natid" in cols and "country" not in cols:
            cols = [*cols, "country"]
        idcol = "national_id"
    else:
        cc = next_country(lang)
        people = [person(lang, cc) for _ in range(n)]
        idcol = ID_COLUMN[people[0].natid_kind]
    header = [idcol if c == "natid" else c for c in cols]
    out = []
    for p in people:
        cells = []
        for c in cols:
            if c == "customer_id":
                cells.append(row.D(uuid4(), "uuid"))
            elif c == "id":
                cells.append(str(R.randint(1000, 99999)))
            elif c == "created_at":
                cells.append(ts_decoy(row, when(400)) if chance(0.3) else iso(when(400)))
            elif c == "order_total":
                cells.append(f"{R.uniform(5, 900):.2f}")
            elif c == "sku":
                cells.append(f"SKU-{rs(UPPER + DIGITS, 8)}")
            elif c == "country":
                cells.append(p.cc)
            elif c in ("name", "full_name"):
                cells.append(row.P(p.full, "person_name"))
            elif c == "email":
                cells.append(row.P(p.email, "email"))
            elif c == "phone":
                cells.append(row.P(p.phone, "phone"))
            elif c == "address":
                cells.append(row.P(p.address, "postal_address"))
            elif c == "dob":
                cells.append(row.P(p.dob, "date_of_birth"))
            elif c == "natid":
                cells.append(row.P(p.natid, p.natid_kind))
            elif c == "iban":
                cells.append(row.P(p.iban if chance(0.7) else group4(p.iban), "iban"))
            elif c == "card_number":
                cells.append(row.P(card_fmt(p.card), "credit_card"))
            elif c == "last_login_ip":
                cells.append(row.P(p.ip, "ip_address"))
            elif c == "status":
                cells.append(pick(["active", "active", "pending", "closed"]))
            else:
                raise ValueError(c)
        out.append(cells)
    return header, out


def pii_cols() -> list[str]:
    core = ["name", *R.sample(["email", "phone", "address", "dob", "iban", "card_number", "last_login_ip"], R.randint(2, 4))]
    if chance(0.85):
        core.insert(1, "natid")
    extra = R.sample(["customer_id", "created_at", "order_total", "sku", "country", "status"], R.randint(1, 3))
    cols = core + extra
    R.shuffle(cols)
    return cols


def st_kv_aligned(row: Row, mode: str) -> str:
    L = row.lang
    if mode == "P":
        p = person(L)
        items = [(lbl(L, "name"), row.P(p.full, "person_name")), (lbl(L, "email"), row.P(p.email, "email")), (lbl(L, "phone"), row.P(p.phone, "phone")),
                 (lbl(L, "address"), row.P(p.address, "postal_address")), (lbl(L, "dob"), row.P(p.dob, "date_of_birth"))]
        items.append((ID_COLUMN[p.natid_kind].upper().replace("_", " "), row.P(p.natid, p.natid_kind)))
        if chance(0.6):
            items.append((lbl(L, "iban"), row.P(p.iban, "iban")))
        items.append(("customer_id", row.D(uuid4(), "uuid")))
        items.append(("created", iso(when(600))))
        w = max(len(k) for k, _ in items) + R.randint(2, 6)
        body = "\n".join(k.ljust(w) + v for k, v in items)
        return framed(row, None, body, fence=chance(0.5))
    fields = mix(L, R.randint(1, 3) if mode == "S" else 0, R.randint(3, 8))
    variant = pick(["generic", "generic", "localized", "powershell", "noheader"])
    if variant == "powershell":
        body = "\n".join(r_aligned(row, fields, header=("Name", "Value"), case="upper", gap=1, rule=True))
        return framed(row, "Get-ChildItem Env: | Sort-Object Name", body, prompt="PS C:\\Users\\dev> ")
    if variant == "localized":
        body = "\n".join(r_aligned(row, fields, header=HEADERS_KV[L], case=pick(["upper", "lower"])))
    elif variant == "noheader":
        body = "\n".join(r_aligned(row, fields, header=None, case="lower", gap=R.randint(2, 8)))
    else:
        body = "\n".join(r_aligned(row, fields, header=("KEY", "VALUE")))
    return framed(row, pick([None, f"{pick(APPS)}ctl config show", "./manage.py show_settings --env prod", "show-config --all"]), body, prompt=sh_prompt())


def st_box_table(row: Row, mode: str) -> str:
    L = row.lang
    heavy = chance(0.3)
    if mode == "P":
        header, rows = people_rows(row, L, R.randint(2, 6), pii_cols()[:5])
        return framed(row, None, "\n".join(r_box(row, rows, header, heavy)), fence=chance(0.5))
    if mode == "S":
        fields = [f for f in mix(L, R.randint(1, 3), R.randint(1, 4)) if len(f.value) <= 160]  # wider cells make the box unreadable
        rows = []
        for f in fields:
            put(row, f)
            rows.append([f.name, f.value] + ([pick(["env", "vault", "default", "file"])] if chance(0.3) else []))
        if any(len(r) == 3 for r in rows):
            rows = [r if len(r) == 3 else [*r, "env"] for r in rows]
            header = ["NAME", "VALUE", "SOURCE"]
        else:
            header = ["NAME", "VALUE"]
        return framed(row, pick([f"doppler secrets -p {pick(APPS)} -c prd", "infisical secrets --env=prod", f"{pick(APPS)} config list --show-secrets"]), "\n".join(r_box(row, rows, header, heavy)), prompt=sh_prompt())
    variant = pick(["releases", "keys", "images"])
    if variant == "releases":
        rows = [[row.D(version(), "version"), row.D(short_sha(), "git_sha"), iso(when(90)), pick(["deployed", "rolled back", "superseded"])] for _ in range(R.randint(3, 6))]
        return framed(row, f"{pick(APPS)} releases list", "\n".join(r_box(row, rows, ["VERSION", "COMMIT", "CREATED", "STATUS"], heavy)), prompt=sh_prompt())
    if variant == "keys":
        rows = []
        for _ in range(R.randint(2, 5)):
            pub = ssh_ed25519_pair(f"{pick(USERS)}@{pick(['laptop', 'ci', 'bastion'])}")[1] if chance(0.6) else ssh_rsa_pub(pick(USERS) + "@ci")
            rows.append([pub.split()[2], row.D(ssh_fingerprint(pub), "ssh_fingerprint"), iso(when(400))[:10], pick(["read-only", "read-write"])])
        return framed(row, "gh ssh-key list", "\n".join(r_box(row, rows, ["TITLE", "FINGERPRINT", "ADDED", "ACCESS"], heavy)), prompt=sh_prompt())
    rows = [[f"ghcr.io/{corp().split('.')[0]}/{pick(APPS)}", row.D(version(), "version"), row.D(docker_digest(), "image_digest"), f"{R.randint(20, 900)} MB"] for _ in range(R.randint(2, 4))]
    return framed(row, "docker images --digests", "\n".join(r_box(row, rows, ["REPOSITORY", "TAG", "DIGEST", "SIZE"], heavy)), prompt=sh_prompt())


MD_HEAD = {"en": ("Variable", "Value", "Notes"), "de": ("Variable", "Wert", "Hinweis"), "fr": ("Variable", "Valeur", "Remarque"), "es": ("Variable", "Valor", "Notas"),
           "pt": ("Variável", "Valor", "Notas"), "it": ("Variabile", "Valore", "Note"), "nl": ("Variabele", "Waarde", "Opmerking"), "pl": ("Zmienna", "Wartość", "Uwagi"),
           "ru": ("Переменная", "Значение", "Примечание"), "ja": ("変数", "値", "備考"), "zh": ("变量", "值", "备注"), "ko": ("변수", "값", "비고"), "tr": ("Değişken", "Değer", "Not")}


def st_markdown_table(row: Row, mode: str) -> str:
    L = row.lang
    h = MD_HEAD[L]
    if mode == "P":
        p_rows = []
        for _ in range(R.randint(2, 5)):
            p = person(L)
            p_rows.append([row.P(p.full, "person_name"), pick(["Ops", "Billing", "On-call", "DPO", "Support"]), row.P(p.phone, "phone"), row.P(p.email, "email")])
        body = "\n".join(r_md(p_rows, [lbl(L, "name"), "Role", lbl(L, "phone"), lbl(L, "email")]))
        return f"## {ph(L, 'title')}\n\n{ph(L, 'hello')}\n\n{body}\n\n{fill(L, 2)}"
    fields = mix(L, R.randint(1, 3) if mode == "S" else 0, R.randint(3, 7))
    rows = []
    for f in fields:
        put(row, f)
        val = f.value.replace("|", "\\|")
        if f.kv:
            row.D(f"`{f.name}` | `{val}`", f.kv)
        rows.append([f"`{f.name}`", f"`{val}`", pick(["", "prod", "rotate after launch" if mode == "S" else "see runbook", "required", "optional"])])
    body = "\n".join(r_md(rows, list(h)))
    intro = f"# {pick(APPS)} {ph(L, 'secret')}s / config\n\n{fill(L, 1)}"
    out = f"{intro}\n\n{body}"
    if mode == "C" and chance(0.6):
        out += "\n\n" + ph(L, "doc").format(v=row.D(pick([AWS_DOC_AKID, AWS_DOC_SECRET, STRIPE_DOC_TEST]), "doc_example"))
    return out


def st_csv(row: Row, mode: str) -> str:
    import csv
    import io

    L = row.lang
    buf = io.StringIO()
    tsv = chance(0.3)
    w = csv.writer(buf, delimiter="\t" if tsv else pick([",", ",", ";"]), lineterminator="\n")
    if mode == "P" or (mode == "S" and chance(0.25)):
        header, rows = people_rows(row, L, R.randint(3, 12), pii_cols())
        w.writerow(header)
        w.writerows(rows)
        cmd = pick([f"head -n 15 exports/customers_{NOW:%Y%m%d}.csv", "cat crm_export.tsv" if tsv else "cat leads.csv", None])
        if mode == "S":
            text = framed(row, cmd, buf.getvalue().rstrip(), prompt=sh_prompt())
            p = pick(["s3", "sftp"])
            if p == "s3":
                return text + f"\n\nupload: aws s3 cp ... --profile legacy  # {ph(L, 'key')}: {row.S(aws_akid(), 'aws_access_key_id')} / {row.S(aws_secret(), 'aws_secret_access_key')}"
            return text + f"\n\nsftp {pick(USERS)}@sftp.{corp()}  ({ph(L, 'pw')}: {row.S(human_password(L), 'password')})"
        return framed(row, cmd, buf.getvalue().rstrip(), prompt=sh_prompt())
    if mode == "S":
        variant = pick(["aws_csv", "tokens", "b2b"])
        if variant == "aws_csv":
            user = f"{pick(APPS)}-ci"
            rows = [[user, row.S(human_password(L), "password"), row.S(aws_akid(), "aws_access_key_id"), row.S(aws_secret(), "aws_secret_access_key"),
                     f"https://{aws_account()}.signin.aws.amazon.com/console"]]
            w.writerow(["User name", "Password", "Access key ID", "Secret access key", "Console login link"])
            w.writerows(rows)
            return framed(row, f"cat ~/Downloads/{user}_credentials.csv", buf.getvalue().rstrip(), prompt=sh_prompt())
        if variant == "tokens":
            w.writerow(["service", "env", "token", "expires"])
            for _ in range(R.randint(2, 5)):
                g = secret_group(L, pick(["github", "gitlab", "npm", "hf", "openai", "slack", "digitalocean", "linear", "sendgrid"]))
                f = next(x for x in g if any(lab[0] == "secrets" for lab in x.labels))
                put(row, f)
                w.writerow([f.name.split("_")[0].lower(), pick(["prod", "staging", "ci"]), f.value, pick(["never", "2027-03-01", "2026-12-31"])])
            return framed(row, "cat tokens.csv", buf.getvalue().rstrip(), prompt=sh_prompt())
        w.writerow(["company", "vat_id", "iban", "contact", "api_key"])
        for _ in range(R.randint(2, 5)):
            p = person(L)
            vat, vkind = company_vat(p.cc)
            w.writerow([f"{p.last} {pick(['GmbH', 'SARL', 'S.L.', 'Ltda.', 'S.r.l.', 'B.V.', 'sp. z o.o.', 'Ltd'])}", row.P(vat, vkind), row.P(p.iban, "iban"), row.P(p.email, "email"), row.S(internal_key(), "internal_api_key")])
        return framed(row, "cat partners.csv", buf.getvalue().rstrip(), prompt=sh_prompt())
    variant = pick(["builds", "keys", "perf"])
    if variant == "builds":
        w.writerow(["build_id", "commit", "image_digest", "version", "finished_at", "status"])
        for _ in range(R.randint(3, 8)):
            w.writerow([R.randint(10000, 99999), row.D(git_sha(), "git_sha"), row.D(docker_digest(), "image_digest"), version(), iso(when(30)), pick(["success", "failed"])])
    elif variant == "keys":
        w.writerow(["key_id", "fingerprint", "algorithm", "created", "status"])
        for _ in range(R.randint(3, 6)):
            f = gpg_fpr()
            w.writerow([row.D(f[-16:], "gpg_key_id"), row.D(f, "gpg_fingerprint"), pick(["ed25519", "rsa4096"]), iso(when(900))[:10], pick(["active", "revoked", "expired"])])
    else:
        w.writerow(["trace_id", "span_id", "route", "p50_ms", "p99_ms", "token_count"])
        for _ in range(R.randint(3, 8)):
            w.writerow([row.D(trace_id(), "trace_id"), span_id(), pick(["/v1/chat", "/v1/search", "/v1/orders"]), R.randint(10, 300), R.randint(300, 4000), R.randint(100, 9000)])
    return framed(row, None, buf.getvalue().rstrip(), fence=chance(0.6))


def st_sql_result(row: Row, mode: str) -> str:
    L = row.lang
    fmt = pick(["psql", "psql", "mysql", "expanded"])

    def render(header: list[str], rows: list[list[str]]) -> str:
        if fmt == "psql":
            return "\n".join(r_psql(rows, header))
        if fmt == "mysql":
            return "\n".join(r_ascii_grid(rows, header) + [f"{len(rows)} rows in set (0.0{R.randint(0, 9)} sec)"])
        out = []
        w = max(len(h) for h in header)
        for i, r in enumerate(rows, 1):
            out.append(f"-[ RECORD {i} ]" + "-" * max(2, w - 10) + "+" + "-" * 20)
            out += [f"{h.ljust(w)} | {c}" for h, c in zip(header, r, strict=True)]
        return "\n".join(out)

    prompt = pick(["orders=> ", "mysql> ", "app=# ", "analytics=> "])
    if mode == "P" or (mode == "S" and chance(0.2)):
        cols = pii_cols()[:5]
        header, rows = people_rows(row, L, R.randint(2, 6), cols)
        q = f"SELECT {', '.join(header)} FROM customers ORDER BY created_at DESC LIMIT {len(rows)};"
        text = framed(row, q, render(header, rows), prompt=prompt)
        if mode == "S":
            f = db_url_field(L, special=False)
            put(row, f)
            text = f"psql {f.value}\n\n" + text
        return text
    if mode == "S":
        variant = pick(["integrations", "oauth", "settings"])
        if variant == "integrations":
            header = ["id", "provider", "api_key", "webhook_url", "created_at"]
            rows = []
            for i in range(R.randint(2, 5)):
                g = secret_group(L, pick(["stripe", "sendgrid", "twilio", "mailgun", "openai", "slack", "hf"]))
                f = next(x for x in g if any(lab[0] == "secrets" for lab in x.labels))
                put(row, f)
                wf = webhook_field(pick(["slack", "generic"])) if chance(0.4) else None
                if wf:
                    put(row, wf)
                rows.append([str(i + 1), f.name.split("_")[0].lower(), f.value, wf.value if wf else "", iso(when(300))])
            return framed(row, "SELECT id, provider, api_key, webhook_url, created_at FROM integrations;", render(header, rows), prompt=prompt)
        if variant == "oauth":
            header = ["user_id", "provider", "access_token", "refresh_token", "expires_at"]
            rows = []
            for _ in range(R.randint(1, 3)):
                prov = pick(["google", "github", "slack"])
                at = {"google": gcp_access_token, "github": lambda: gh_token("gho"), "slack": slack_user}[prov]()
                rt = google_refresh() if prov == "google" else ("ghr_" + rs(ALNUM, 76) if prov == "github" else "xoxe-1-" + rs(ALNUM, 140))
                rows.append([str(R.randint(100, 99999)), prov, row.S(at, "oauth_access_token"), row.S(rt, "oauth_refresh_token"), iso(NOW + timedelta(minutes=R.randint(5, 60)))])
            return framed(row, "SELECT user_id, provider, access_token, refresh_token, expires_at FROM oauth_tokens LIMIT 3;", render(header, rows), prompt=prompt)
        fields = mix(L, R.randint(1, 2), R.randint(1, 4))
        rows = []
        for f in fields:
            put(row, f)
            rows.append([key_case(f.name, "dotted"), f.value])
        return framed(row, "SELECT key, value FROM app_settings WHERE key ~* '(secret|token|key|pass)';", render(["key", "value"], rows), prompt=prompt)
    variant = pick(["migrations", "deployments", "sessions_meta"])
    if variant == "migrations":
        header = ["version", "description", "checksum", "installed_on"]
        rows = [[str(20240000 + R.randint(100, 9999)), pick(["add refunds", "index orders", "drop legacy tokens", "add api_keys.hash"]), row.D(str(R.randint(-2**31, 2**31)), "checksum"), iso(when(700))] for _ in range(R.randint(3, 6))]
        return framed(row, "SELECT version, description, checksum, installed_on FROM flyway_schema_history ORDER BY installed_rank DESC LIMIT 5;", render(header, rows), prompt=prompt)
    if variant == "deployments":
        header = ["id", "commit_sha", "image_digest", "deployed_at"]
        rows = [[str(R.randint(100, 999)), row.D(git_sha(), "git_sha"), row.D(docker_digest(), "image_digest"), iso(when(60))] for _ in range(R.randint(3, 6))]
        return framed(row, "SELECT id, commit_sha, image_digest, deployed_at FROM deployments ORDER BY id DESC LIMIT 5;", render(header, rows), prompt=prompt)
    header = ["id", "key_prefix", "last_used_at", "ttl_seconds", "revoked"]
    rows = [[str(R.randint(1, 999)), row.D(pick(["sk_live_", "ghp_", "pk_", "key_"]) + rs(ALNUM, 4) + "…", "masked"), iso(when(20)), "86400", pick(["t", "f"])] for _ in range(R.randint(3, 6))]
    return framed(row, "SELECT id, key_prefix, last_used_at, ttl_seconds, revoked FROM api_keys;", render(header, rows), prompt=prompt)


# ---------------------------------------------------------------- styles: copied UI text


def st_key_above(row: Row, mode: str) -> str:
    L = row.lang
    if mode == "P":
        p = person(L)
        parts = [lbl(L, "name"), row.P(p.full, "person_name"), lbl(L, "email"), row.P(p.email, "email"), lbl(L, "phone"), row.P(p.phone, "phone"),
                 lbl(L, "address"), row.P(p.address, "postal_address"), lbl(L, "dob"), row.P(p.dob, "date_of_birth")]
        if chance(0.9):
            parts += [ID_COLUMN[p.natid_kind].upper().replace("_", " "), row.P(p.natid, p.natid_kind)]
        if chance(0.5):
            parts += [lbl(L, "card"), row.P(card_fmt(p.card), "credit_card")]
        sep = pick(["\n", "\n\n"])
        return ph(L, "ask2") + "\n\n" + sep.join(parts)
    if mode == "S":
        variant = pick(["aws", "azure", "recovery", "stripe", "generic", "totp", "gcp_key"])
        if variant == "aws":
            body = ["Retrieve access keys", "Access key", row.S(aws_akid(), "aws_access_key_id"), "Secret access key", row.S(aws_secret(), "aws_secret_access_key"), "Hide", "Download .csv file"]
        elif variant == "azure":
            body = ["Description", "ci-deploy", "Expires", f"{(NOW + timedelta(days=180)):%-m/%-d/%Y}", "Value", row.S(azure_client_secret(), "azure_client_secret"), "Secret ID", row.D(uuid4(), "uuid")]
        elif variant == "recovery":
            codes = [row.S(recovery_code(), "recovery_code") for _ in range(R.randint(4, 8))]
            body = ["Download your recovery codes", "Keep your recovery codes as safe as your password. We recommend saving them with a password manager.", *codes, "Download  Print  Copy"]
        elif variant == "stripe":
            body = ["Standard keys", "Publishable key", row.D(stripe_publishable(), "public_by_design"), "Secret key", row.S(stripe_secret(), "stripe_secret_key"),
                    f"Last used {pick(['Nov 30', 'Dec 1', 'today'])}", "Created", f"{when(400):%b %-d, %Y}"]
        elif variant == "totp":
            key = totp_secret()
            shown = " ".join(key.lower()[i : i + 4] for i in range(0, 32, 4))
            body = ["Unable to scan? You can use the setup key to manually configure your authenticator app.", "Setup key", row.S(shown, "totp_secret"), "Verify the code from the app", "XXXXXX"]
        elif variant == "gcp_key":
            body = ["API key created", "Use this key in your application by passing it with the key=API_KEY parameter.", "Your API key", row.S(google_api_key(), "google_api_key"),
                    "Restrict key", f"Project ID: {row.D(pick(APPS) + '-prod-' + dg(6), 'gcp_project_id')}"]
        else:
            body = [ph(L, "user").capitalize(), pick(["admin", "root", "ops", f"svc-{pick(APPS)}"]), ph(L, "pw").capitalize(), row.S(human_password(L), "password"),
                    "URL", f"https://{pick(['grafana', 'rabbitmq', 'keycloak', 'pgadmin'])}.{corp()}"]
        intro = ph(L, "ask2")
        return intro + "\n\n" + "\n".join(body) + ("\n\n" + ph(L, "rotate") if chance(0.4) else "")
    variant = pick(["gpg", "token_meta", "azure_list"])
    if variant == "gpg":
        f = gpg_fpr()
        body = ["GPG keys", "Email address:", f"ci@{corp()}", "Key ID:", row.D(f[-16:], "gpg_key_id"), "Fingerprint", row.D(gpg_fpr_spaced(f), "gpg_fingerprint"),
                "Subkeys:", row.D(gpg_fpr()[-16:], "gpg_key_id"), "Added on", f"{when(700):%b %-d, %Y}"]
    elif variant == "token_meta":
        body = ["Token name", f"{pick(APPS)}-deploy", "Expiration", f"{(NOW + timedelta(days=R.randint(10, 300))):%a, %b %-d %Y}", "Scopes", "repo, workflow, read:packages",
                "Token", row.D(pick(["ghp_", "glpat-", "npm_"]) + "•" * 12 + rs(ALNUM, 4), "masked"), "Last used", "within the last week"]
    else:
        body = ["Client secrets (2)", "Description", "ci-deploy", "Expires", f"{(NOW + timedelta(days=90)):%-m/%-d/%Y}", "Value", row.D(rs(ALNUM, 3) + "*" * 12, "masked"), "Secret ID", row.D(uuid4(), "uuid")]
    text = ph(L, "ask2") + "\n\n" + "\n".join(body)
    if chance(0.5):
        text += "\n\n" + ph(L, "masked").format(v=row.D(pick(["sk-...", "ghp_...", "…"]) + rs(ALNUM, 4), "masked"))
    return text


def st_name_value(row: Row, mode: str) -> str:
    L = row.lang
    variant = pick(["azure", "powershell", "gitlab", "localized"])
    fields = mix(L, R.randint(1, 3) if mode == "S" else 0, R.randint(2, 5))
    if mode == "C" and chance(0.7):
        kv = f"kv-{pick(APPS)}-prod"
        for n in R.sample(["DB_PASSWORD", "STRIPE_SECRET_KEY", "JWT_SECRET", "SMTP_PASSWORD"], 2):
            fields.insert(R.randint(0, len(fields)), dec(n, f"@Microsoft.KeyVault(SecretUri=https://{kv}.vault.azure.net/secrets/{n.lower().replace('_', '-')}/)", "secret_reference"))
    blocks = []
    for f in fields:
        put(row, f)
        if variant == "azure":
            b = f"Name: {f.name}\nValue: {f.value}\nDeployment slot setting: {pick(['false', 'true'])}"
        elif variant == "powershell":
            b = f"Name  : {f.name}\nValue : {f.value}"
        elif variant == "gitlab":
            b = f"Key: {f.name}\nValue: {f.value}\nType: Variable\nProtected: {pick(['true', 'false'])}\nMasked: {pick(['false', 'false', 'true'])}\nEnvironments: All (default)"
        else:
            k, v = HEADERS_KV[L]
            b = f"Name: {f.name}\n{v}: {f.value}"
        if f.kv:
            row.D("\n".join(b.split("\n")[:2]), f.kv)
        blocks.append(b)
    cmd = {"azure": None, "powershell": "Get-ChildItem Env: | Format-List", "gitlab": None, "localized": None}[variant]
    body = "\n\n".join(blocks)
    if cmd:
        return framed(row, cmd, body, prompt="PS C:\\src> ")
    return ph(L, "ask2") + "\n\n" + body if chance(0.8) else body + "\n\n" + fill(L, 2)


# ---------------------------------------------------------------- agent transcripts

AGENT = {
    "en": ("Let me check the configuration first.", "Found it: {v} points at the wrong host.", "Done. The value now comes from the secret store instead of the file.", "Heads-up: that output contains a live credential, you should rotate it.", "Why does the {app} service fail to start in staging? Check the env and config."),
    "de": ("Ich prüfe zuerst die Konfiguration.", "Gefunden: {v} zeigt auf den falschen Host.", "Erledigt. Der Wert kommt jetzt aus dem Secret Store statt aus der Datei.", "Achtung: die Ausgabe enthält ein echtes Zugangsdatum, bitte rotieren.", "Warum startet der {app}-Dienst in Staging nicht? Prüf bitte Env und Konfiguration."),
    "fr": ("Je vérifie d'abord la configuration.", "Trouvé : {v} pointe vers le mauvais hôte.", "C'est fait. La valeur vient maintenant du coffre et plus du fichier.", "Attention : cette sortie contient un identifiant réel, il faut le changer.", "Pourquoi le service {app} ne démarre pas en recette ? Regarde l'env et la config."),
    "es": ("Primero reviso la configuración.", "Encontrado: {v} apunta al host equivocado.", "Listo. El valor ahora viene del gestor de secretos y no del archivo.", "Ojo: esa salida contiene una credencial real, conviene rotarla.", "¿Por qué no arranca el servicio {app} en staging? Revisa el entorno y la configuración."),
    "pt": ("Primeiro vou verificar a configuração.", "Encontrei: {v} aponta para o host errado.", "Feito. O valor agora vem do cofre de segredos e não do ficheiro.", "Atenção: essa saída contém uma credencial real, convém trocá-la.", "Por que o serviço {app} não sobe em homologação? Verifica o env e a configuração."),
    "it": ("Controllo prima la configurazione.", "Trovato: {v} punta all'host sbagliato.", "Fatto. Il valore ora arriva dal secret store e non dal file.", "Attenzione: quell'output contiene una credenziale vera, va ruotata.", "Perché il servizio {app} non parte in staging? Controlla env e configurazione."),
    "nl": ("Ik controleer eerst de configuratie.", "Gevonden: {v} wijst naar de verkeerde host.", "Klaar. De waarde komt nu uit de secret store in plaats van uit het bestand.", "Let op: die uitvoer bevat een echte credential, roteer die.", "Waarom start de {app}-service niet op staging? Check de env en config."),
    "pl": ("Najpierw sprawdzę konfigurację.", "Mam: {v} wskazuje na zły host.", "Gotowe. Wartość pochodzi teraz z menedżera sekretów, a nie z pliku.", "Uwaga: to wyjście zawiera prawdziwe dane logowania, trzeba je zmienić.", "Dlaczego usługa {app} nie startuje na stagingu? Sprawdź env i konfigurację."),
    "ru": ("Сначала проверю конфигурацию.", "Нашёл: {v} указывает не на тот хост.", "Готово. Значение теперь берётся из хранилища секретов, а не из файла.", "Внимание: в выводе настоящий секрет, его нужно сменить.", "Почему сервис {app} не стартует на стейдже? Проверь env и конфиг."),
    "ja": ("まず設定を確認します。", "見つかりました。{v} が間違ったホストを指しています。", "完了しました。値はファイルではなくシークレットストアから読み込むようにしました。", "注意：この出力には本物の認証情報が含まれています。ローテーションしてください。", "ステージングで {app} サービスが起動しないのはなぜ？env と設定を確認して。"),
    "zh": ("我先检查一下配置。", "找到了：{v} 指向了错误的主机。", "完成。现在该值从密钥管理服务读取，而不是从文件读取。", "注意：这段输出包含真实凭据，建议立即轮换。", "为什么 {app} 服务在预发环境起不来？帮我看看环境变量和配置。"),
    "ko": ("먼저 설정을 확인하겠습니다.", "찾았습니다: {v} 가 잘못된 호스트를 가리킵니다.", "완료했습니다. 이제 값은 파일이 아니라 시크릿 저장소에서 가져옵니다.", "주의: 이 출력에는 실제 자격 증명이 들어 있으니 교체하세요.", "스테이징에서 {app} 서비스가 왜 안 뜨나요? env와 설정을 확인해 주세요."),
    "tr": ("Önce yapılandırmayı kontrol ediyorum.", "Buldum: {v} yanlış sunucuyu gösteriyor.", "Tamam. Değer artık dosyadan değil secret store'dan geliyor.", "Dikkat: bu çıktı gerçek bir kimlik bilgisi içeriyor, yenilemelisin.", "{app} servisi staging'de neden başlamıyor? Env ve yapılandırmaya bak."),
}


def tool_output(row: Row, mode: str) -> tuple[str, str]:
    """(command, output) of one tool call; labels go on row relative to the raw output."""
    L = row.lang
    app = pick(APPS)
    if mode == "S":
        k = pick(["env", "env", "yaml", "curl", "aws_sm", "k8s", "json_cfg", "docker_cfg"])
        if k == "docker_cfg":
            user, tok = pick(["ci-bot", "deploy", "AWS"]), pick([lambda: gh_token("ghp"), glpat, lambda: human_password(L)])()
            enc = b64s(f"{user}:{tok}")
            row.S(f"{user}:{tok}", "basic_auth_credentials", enc)
            return "cat ~/.docker/config.json", json.dumps({"auths": {pick(["ghcr.io", "registry.gitlab.com", f"harbor.{corp()}"]): {"auth": enc}}}, indent="\t")
        if k == "env":
            return pick(["cat .env", "printenv | grep -v PATH", f"cat deploy/{app}.env"]), "\n".join(r_env(row, mix(L, R.randint(1, 2), R.randint(2, 6))))
        if k == "yaml":
            return f"cat config/{pick(['prod', 'staging'])}.yaml", "\n".join([f"{app}:", *r_yaml(row, mix(L, R.randint(1, 2), R.randint(1, 4)), indent="  ")])
        if k == "json_cfg":
            return "cat config.json", json.dumps(r_json_obj(row, mix(L, R.randint(1, 2), R.randint(1, 3)), case="camel"), indent=2, ensure_ascii=False)
        if k == "curl":
            tok = pick([lambda: jwt_token(), openai_key, anthropic_key, lambda: gh_token("ghp"), hf_token])()
            row.S(tok, "bearer_token")
            return f'curl -s -H "Authorization: Bearer {tok}" https://api.{corp()}/v1/me', json.dumps({"id": R.randint(1, 9999), "scopes": ["read", "write"], "request_id": row.D(uuid4(), "request_id")})
        if k == "aws_sm":
            pw = human_password(L, special=chance(0.4))
            inner = json.dumps({"username": f"{app}_rw", "password": pw}, ensure_ascii=False)
            row.S(pw, "database_password", json_esc(False)(json_esc(False)(pw)))
            out = json.dumps({"ARN": row.D(f"arn:aws:secretsmanager:{aws_region()}:{aws_account()}:secret:prod/{app}-{rs(ALNUM, 6)}", "aws_arn"), "Name": f"prod/{app}", "SecretString": inner}, indent=4, ensure_ascii=False)
            return f"aws secretsmanager get-secret-value --secret-id prod/{app}", out
        fields = mix(L, 1, 0)
        lines = ["apiVersion: v1", "data:", *[f"  {f.name}: {b64_field(row, f)}" for f in fields], "kind: Secret", f"metadata:\n  name: {app}-env"]
        return f"kubectl get secret {app}-env -o yaml", "\n".join(lines)
    if mode == "P":
        header, rows = people_rows(row, L, R.randint(2, 4), pii_cols()[:4])
        return f'psql -c "SELECT {", ".join(header)} FROM customers LIMIT {len(rows)}"', "\n".join(r_psql(rows, header))
    k = pick(["git", "pytest", "ls", "env", "docker", "digest"])
    if k == "digest":
        ref = f"ghcr.io/{corp().split('.')[0]}/{app}:{version()}"
        lines = [f"{hx(12)}: Pushed", f"{version().lstrip('v')}: digest: {row.D(sha256_digest(), 'content_digest')} size: {R.randint(900, 3000)}",
                 f"$ sha256sum dist/{app}.tar.gz", f"{row.D(hx(64), 'content_digest')}  dist/{app}.tar.gz"]
        return f"docker push {ref}", "\n".join(lines)
    if k == "git":
        lines = [f"{row.D(short_sha(), 'git_sha')} {pick(['fix: read DB password from env', 'chore: rotate nothing, only docs', 'feat: token refresh', 'refactor: config loader'])}" for _ in range(R.randint(3, 7))]
        return "git log --oneline -n 5", "\n".join(lines)
    if k == "pytest":
        return "pytest -q tests/test_config.py", f"{'.' * R.randint(5, 30)}{'F' if chance(0.4) else ''}\n{R.randint(5, 30)} passed in {R.uniform(0.5, 9):.2f}s"
    if k == "ls":
        lines = [f"-rw-r--r--  1 {pick(USERS)} staff  {R.randint(100, 9000):>5} {when(30):%b %d %H:%M} {n}" for n in [".env.example", "config.yaml", "docker-compose.yml", "README.md"]]
        return "ls -la", "total 48\n" + "\n".join(lines)
    if k == "env":
        return "printenv | sort", "\n".join(r_env(row, benign_fields(L, R.randint(4, 8))))
    lines = ["CONTAINER ID   IMAGE                          STATUS          NAMES"]
    for _ in range(R.randint(2, 4)):
        lines.append(f"{row.D(hx(12), 'container_id')}   ghcr.io/{corp().split('.')[0]}/{pick(APPS)}:{version()}   Up {R.randint(1, 40)} hours   {pick(APPS)}-1")
    return "docker ps", "\n".join(lines)


def st_agent_claude(row: Row, mode: str) -> str | None:
    L = row.lang
    app = pick(APPS)
    a = AGENT[L]
    parts = []
    if chance(0.4):
        cwd = f"/home/{pick(USERS)}/src/{app}"
        w = max(len(cwd) + 10, 48)
        parts.append("╭" + "─" * w + "╮\n│ ✻ Welcome to Claude Code!" + " " * (w - 25) + "│\n│" + " " * w + "│\n│   cwd: " + cwd + " " * (w - 8 - len(cwd)) + "│\n╰" + "─" * w + "╯")
    parts.append("> " + a[4].format(app=app))
    parts.append("⏺ " + a[0])
    n_calls = R.randint(6, 12) if row.long else R.randint(1, 3)
    secret_call = R.randrange(n_calls)
    for i in range(n_calls):
        cmd, out = tool_output(row, mode if i == secret_call else "C")
        lines = out.split("\n")
        block = [f"⏺ Bash({cmd})", "  ⎿  " + lines[0], *["     " + x for x in lines[1:]]]
        if chance(0.3):
            block.append(f"     … +{R.randint(3, 40)} lines (ctrl+r to expand)")
        parts.append("\n".join(block))
        if chance(0.3):
            parts.append(f"⏺ Read({pick(['config/settings.py', 'src/config.ts', '.env.example', 'docker-compose.yml'])})\n  ⎿  Read {R.randint(20, 400)} lines (ctrl+r to expand)")
    v = pick(CRED_NAMES + ["DB_HOST", "REDIS_URL", "API_BASE_URL"])
    row.D(v, "env_var_name")
    parts.append("⏺ " + a[1].format(v=v))
    if mode == "S" and chance(0.6):
        parts.append("⏺ " + a[3])
    parts.append("⏺ " + a[2])
    text = "\n\n".join(parts)
    if chance(0.6):
        return wrap_text(row, text, pick([80, 100, 120]), "     ")
    return text


def st_agent_codex(row: Row, mode: str) -> str | None:
    L = row.lang
    app = pick(APPS)
    a = AGENT[L]
    flavor = pick(["exec_log", "tui", "transcript"])
    n_calls = R.randint(6, 12) if row.long else R.randint(1, 3)
    secret_call = R.randrange(n_calls)
    parts = []
    t = when(1)
    cwd = f"/home/{pick(USERS)}/src/{app}"
    if flavor == "transcript":
        parts.append("user\n" + a[4].format(app=app))
        parts.append("thinking\n**" + pick(["Inspecting configuration", "Checking environment variables", "Reviewing deploy settings"]) + "**")
    elif flavor == "exec_log":
        parts.append(f"[{iso(t)}] User instructions:\n{a[4].format(app=app)}")
    else:
        parts.append("› " + a[4].format(app=app))
    for i in range(n_calls):
        cmd, out = tool_output(row, mode if i == secret_call else "C")
        t += timedelta(seconds=R.randint(1, 40))
        ms = R.randint(8, 900)
        if flavor == "exec_log":
            parts.append(f"[{iso(t)}] exec bash -lc '{cmd}' in {cwd}\n[{iso(t)}] bash -lc '{cmd}' succeeded in {ms}ms:\n{out}")
        elif flavor == "transcript":
            parts.append(f"exec\nbash -lc '{cmd}' in {cwd}\n succeeded in {ms}ms:\n{out}")
        else:
            lines = out.split("\n")
            parts.append(f"• Ran {cmd}\n  └ {lines[0]}" + "".join("\n    " + x for x in lines[1:]))
    v = pick(CRED_NAMES + ["DB_HOST", "REDIS_URL"])
    row.D(v, "env_var_name")
    tail = a[1].format(v=v) + ("\n\n" + a[3] if mode == "S" and chance(0.5) else "")
    parts.append(("codex\n" if flavor != "tui" else "• ") + tail)
    if flavor == "exec_log":
        parts.append(f"[{iso(t + timedelta(seconds=3))}] tokens used: {R.randint(2000, 40000)}")
    text = "\n\n".join(parts)
    if flavor == "tui" and chance(0.5):
        return wrap_text(row, text, pick([80, 100]), "    ")
    return text


def merge(into: Row, sub: Row) -> None:
    for cls in CLASSES:
        for lab in sub.items[cls]:
            if lab.pieces is None:
                into.add(cls, lab.value, lab.kind, lab.shown)
            else:
                into.items[cls].append(lab)


def st_agent_json(row: Row, mode: str) -> str:
    L = row.lang
    app = pick(APPS)
    ascii_ = chance(0.5)
    esc = json_esc(ascii_)
    flavor = pick(["openai", "anthropic", "claude_jsonl"])
    n_calls = R.randint(6, 12) if row.long else R.randint(1, 2)
    secret_call = R.randrange(n_calls)
    msgs: list[dict[str, object]] = [{"role": "user", "content": AGENT[L][4].format(app=app)}]
    for i in range(n_calls):
        sub = Row(row.style, L)
        cmd, out = tool_output(sub, mode if i == secret_call else "C")
        # the command travels inside a JSON string (arguments) inside the message JSON, so it is escaped twice
        cmd_sub = Row(row.style, L)
        for lab in sub.items["secrets"]:
            if lab.value in cmd and lab.value not in out:
                cmd_sub.items["secrets"].append(Label(lab.value, lab.kind))
        sub.items["secrets"] = [lab for lab in sub.items["secrets"] if not (lab.value in cmd and lab.value not in out)]
        sub.transform(esc)
        merge(row, sub)
        if flavor == "openai":
            cid = row.D(tool_call_id("openai"), "tool_call_id")
            args = json.dumps({"command": ["bash", "-lc", cmd]}, ensure_ascii=ascii_)
            cmd_sub.transform(esc)
            cmd_sub.transform(esc)
            msgs.append({"role": "assistant", "content": None, "tool_calls": [{"id": cid, "type": "function", "function": {"name": "shell", "arguments": args}}]})
            msgs.append({"role": "tool", "tool_call_id": cid, "content": out})
        else:
            cid = row.D(tool_call_id("anthropic"), "tool_call_id")
            cmd_sub.transform(esc)
            msgs.append({"role": "assistant", "content": [{"type": "text", "text": AGENT[L][0]}, {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": cmd, "description": "inspect"}}]})
            msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": [{"type": "text", "text": out}], "is_error": False}]})
        merge(row, cmd_sub)
    msgs.append({"role": "assistant", "content": AGENT[L][2]})
    cwd = f"/home/{pick(USERS)}/src/{app}"
    if flavor == "claude_jsonl":
        lines = []
        parent = None
        for m in msgs:
            u = uuid4()
            rec = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": row.D(uuid4(), "uuid") if parent is None else None,
                   "version": "2.0.31", "type": "assistant" if m["role"] == "assistant" else "user", "message": m, "uuid": u, "timestamp": iso(when(1), 3)}
            if rec["sessionId"] is None:
                del rec["sessionId"]
            lines.append(json.dumps(rec, ensure_ascii=ascii_))
            parent = u
        return "\n".join(lines)
    if chance(0.5):
        return "\n".join(json.dumps(m, ensure_ascii=ascii_) for m in msgs)
    return json.dumps({"model": pick(["gpt-5-codex", "claude-sonnet-4-5", "o4-mini"]), "messages": msgs}, indent=2, ensure_ascii=ascii_)


# ---------------------------------------------------------------- styles: prose, shells, diffs, keys


def prose_secret(row: Row) -> str:
    """One sentence in the row's language that hands over a credential."""
    L = row.lang
    r = R.random()
    if r < 0.45:
        pw = human_password(L) if chance(0.8) else passphrase(L)
        return ph(L, "pw_is").format(what=pick(P[L]["systems"]), v=row.S(pw, "password" if " " not in pw else "passphrase"))  # type: ignore[arg-type]
    if r < 0.75:
        f = next(x for x in secret_group(L, pick(["hmac", "jwt", "internal", "stripe", "openai", "anthropic", "sendgrid", "fernet", "age", "django"])) if any(lab[0] == "secrets" for lab in x.labels))
        put(row, f)
        return ph(L, "key_is").format(v=f.value)
    f = next(x for x in secret_group(L, pick(["github", "gitlab", "slack", "hf", "npm", "telegram", "vault", "doppler", "digitalocean", "linear"])) if any(lab[0] == "secrets" for lab in x.labels))
    put(row, f)
    return ph(L, "token_is").format(v=f.value)


def prose_decoy(row: Row) -> str:
    L = row.lang
    r = pick(["commit", "ttl", "placeholder", "masked", "doc", "unset"])
    if r == "commit":
        return ph(L, "commit").format(v=row.D(pick([git_sha(), short_sha()]), "git_sha"))
    if r == "ttl":
        return ph(L, "ttl").format(v=row.D(pick(["3600", "86400", "1800", "604800"]), "duration"))
    if r == "placeholder":
        return ph(L, "placeholder").format(v=row.D(pick(PLACEHOLDERS[:14]), "placeholder"))
    if r == "masked":
        return ph(L, "masked").format(v=row.D(masked(pick([openai_key, stripe_secret, lambda: gh_token("ghp")])(), pick(["dots", "stars_tail", "prefix_tail"])), "masked"))
    if r == "doc":
        return ph(L, "doc").format(v=row.D(pick([AWS_DOC_AKID, AWS_DOC_SECRET, STRIPE_DOC_TEST, JWT_IO_EXAMPLE]), "doc_example"))
    return mention_name(row)


def st_debug_notes(row: Row, mode: str) -> str:
    L = row.lang
    app = pick(APPS)
    long = row.long
    n_sections = R.randint(8, 16) if long else R.randint(2, 4)
    secret_sections = set(R.sample(range(n_sections), min(n_sections, R.randint(1, 3)))) if mode == "S" else set()
    pii_section = R.randrange(n_sections) if mode == "P" or (mode == "S" and chance(0.3)) else -1
    out = [f"# {ph(L, 'title')} — {app} ({NOW:%Y-%m-%d})", "", fill(L, R.randint(2, 4))]
    for i in range(n_sections):
        out.append("")
        out.append(f"## {i + 1}. " + pick(["Config", "Env", "Logs", "Repro", "DB", "Deploy", "Auth"]))
        out.append(fill(L, R.randint(1, 3)))
        cmd, body = tool_output(row, "S" if i in secret_sections and chance(0.6) else "C")
        out += ["", f"```\n$ {cmd}\n{body}\n```", ""]
        if i in secret_sections:
            out.append(prose_secret(row))
        out.append(prose_decoy(row))
        if i == pii_section:
            p = person(L)
            out.append(ph(L, "customer").format(name=row.P(p.full, "person_name"), ref=row.D(f"ORD-{dg(4)}-{rs(UPPER, 3)}", "order_id")))
            out.append(f"{lbl(L, 'email')}: {row.P(p.email, 'email')}, {lbl(L, 'phone')}: {row.P(p.phone, 'phone')}, {ID_COLUMN[p.natid_kind]}: {row.P(p.natid, p.natid_kind)}")
    out += ["", ph(L, "fixed")]
    if mode == "S":
        out.append(ph(L, "rotate"))
    return "\n".join(out)


def st_terminal_wrap(row: Row, mode: str) -> str | None:
    L = row.lang
    prompt = sh_prompt()
    width = pick([80, 80, 100, 120])
    indent = pick(["", "", "  ", "    ", "↪ "])
    if mode == "S":
        variant = pick(["gcloud", "jwt", "sts_text", "logline", "op_read", "twine", "azconn", "fold", "openai_env"])
        if variant == "gcloud":
            body = [f"{prompt}gcloud auth print-access-token", row.S(gcp_access_token(), "gcp_access_token")]
        elif variant == "jwt":
            body = [f"{prompt}echo $ID_TOKEN", row.S(jwt_token(pick(["RS256", "ES256", "HS512"]), kid=True), "jwt")]
        elif variant == "sts_text":
            body = [f"{prompt}aws sts get-session-token --duration-seconds 3600 --output text",
                    f"CREDENTIALS\t{row.S(aws_akid('ASIA'), 'aws_access_key_id')}\t{(NOW + timedelta(hours=1)):%Y-%m-%dT%H:%M:%S}+00:00\t{row.S(aws_secret(), 'aws_secret_access_key')}\t{row.S(aws_session_token(), 'aws_session_token')}"]
        elif variant == "logline":
            tok = pick([lambda: jwt_token(), openai_key, anthropic_key, pypi_token, atlassian_token])()
            body = [f"{prompt}kubectl logs deploy/{pick(APPS)} --tail=3", f'{iso(when(1), 3)} DEBUG httpx: request headers: {{"authorization": "Bearer {row.S(tok, "bearer_token")}", "x-request-id": "{uuid4()}"}}',
                    f"{iso(when(1), 3)} INFO  {row.D(uuid4(), 'request_id')} GET /healthz 200"]
        elif variant == "op_read":
            body = [f"{prompt}op read op://Prod/openai/credential", row.S(openai_key(), "openai_api_key")]
        elif variant == "twine":
            body = [f"{prompt}twine upload -u __token__ -p {row.S(pypi_token(), 'pypi_token')} dist/*", "Uploading distributions to https://upload.pypi.org/legacy/",
                    f"Uploading {pick(APPS)}-{version().lstrip('v')}-py3-none-any.whl"]
        elif variant == "azconn":
            f = azure_conn_field()
            put(row, f)
            body = [f"{prompt}az storage account show-connection-string -n st{pick(APPS)}prod -o tsv", f.value]
        elif variant == "fold":
            tok = pick([lambda: jwt_token("RS256"), pypi_token, op_service_token, lambda: azure_storage_key() + azure_storage_key()])()
            n = pick([64, 76])
            chunks = [tok[i : i + n] for i in range(0, len(tok), n)]
            if min(len(c) for c in chunks) < 6:
                return None
            kind = "jwt" if tok.startswith("eyJ") else "pypi_token" if tok.startswith("pypi-") else "onepassword_service_token" if tok.startswith("ops_") else "azure_storage_key"
            row.items["secrets"].append(Label(tok, kind, pieces=chunks))
            return framed(row, f"fold -w {n} token.txt", "\n".join(chunks), prompt=prompt)
        else:
            body = [f"{prompt}grep -h API_KEY .env*", f"OPENAI_API_KEY={row.S(openai_key(), 'openai_api_key')}", f"ANTHROPIC_API_KEY={row.S(anthropic_key(), 'anthropic_api_key')}"]
    else:
        body = [f"{prompt}docker pull ghcr.io/{corp().split('.')[0]}/{pick(APPS)}:{version()}", f"Digest: {row.D(docker_digest(), 'image_digest')}",
                f"Status: Downloaded newer image for ghcr.io/{corp().split('.')[0]}/{pick(APPS)}",
                f"{prompt}kubectl get events -n prod --field-selector type=Warning",
                f"{R.randint(1, 50)}m  Warning  BackOff  pod/{pod_name(pick(APPS))}  Back-off restarting failed container {pick(APPS)} in pod {pod_name(pick(APPS))}_{pick(['prod', 'default'])}({uuid4()})",
                f"{prompt}git log -1 --format='%H %s'", f"{row.D(git_sha(), 'git_sha')} {pick(['fix: rotate webhook secret reference', 'chore: bump token ttl to 3600'])}"]
        if mode == "P":
            p = person(L)
            body.append(f"{prompt}grep -m1 {p.email.split('@')[0]} /var/log/{pick(APPS)}/audit.log")
            body.append(f"{iso(when(2))} login user={row.P(p.email, 'email')} ip={row.P(p.ip, 'ip_address')} ua=\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15\" result=ok session_ttl=86400")
    body.append(prompt.rstrip())
    text = "\n".join(body)
    wrapped = wrap_text(row, text, width, indent)
    if wrapped is None:
        return None
    if mode == "S" and not any(lab.pieces for lab in row.items["secrets"]):
        return None
    return ph(L, "ask2") + "\n\n" + wrapped if chance(0.7) else wrapped + "\n\n" + fill(L, 2)


def st_shell(row: Row, mode: str) -> str:
    L = row.lang
    app = pick(APPS)
    host = f"{pick(['db', 'db-primary', 'mysql-0', 'pg'])}.{pick(['prod', 'stg'])}.{corp()}"
    benign = [f"cd ~/src/{app}", "git status", "git pull --rebase", "docker ps -a", "kubectl get pods -n prod", f"vault kv get secret/{app}/prod", "ls -la",
              "docker login ghcr.io -u ci-bot --password-stdin < ~/.ghcr_token", "read -s DB_PASSWORD && export DB_PASSWORD", "ssh-keygen -lf ~/.ssh/id_ed25519.pub",
              "history | grep curl", f"aws sts get-caller-identity --profile {app}-prod", "export TOKEN_TTL_SECONDS=3600", "make test", "htop", "tail -f /var/log/syslog",
              "gh auth status", "npm whoami", f"export AWS_PROFILE={app}-prod", "unset AWS_SECRET_ACCESS_KEY"]
    cmds = R.sample(benign, R.randint(4, 9))
    for c in ("export TOKEN_TTL_SECONDS=3600", "docker login ghcr.io -u ci-bot --password-stdin < ~/.ghcr_token", "unset AWS_SECRET_ACCESS_KEY"):
        if c in cmds:
            row.D(c, "command_without_secret")
    if mode == "S":
        for _ in range(R.randint(1, 3)):
            k = pick(["mysql", "export", "docker", "curl", "git", "pgpass", "redis", "sshpass", "az", "htpasswd", "mongo", "rabbit", "openssl", "vault_login"])
            pw = human_password(L).replace("'", "")
            if k == "mysql":
                c = f"mysql -h {host} -u root -p{row.S(pw, 'database_password')} {app}" if chance(0.5) else f"mysql -h {host} -u root -p'{row.S(pw, 'database_password')}' {app}"
            elif k == "export":
                f = next(x for x in secret_group(L) if any(lab[0] == "secrets" for lab in x.labels))
                c = r_env(row, [f], prefix="export ")[0]
            elif k == "docker":
                c = f"docker login -u ci-bot -p {row.S(pick([lambda: gh_token('ghp'), glpat])(), 'registry_token')} {pick(['ghcr.io', 'registry.gitlab.com'])}"
            elif k == "curl":
                c = f"curl -u admin:{row.S(pw, 'password')} https://{pick(['jenkins', 'nexus', 'grafana'])}.{corp()}/api/health"
            elif k == "git":
                c = f"git clone https://oauth2:{row.S(glpat(), 'gitlab_token')}@gitlab.{corp()}/platform/{app}.git"
            elif k == "pgpass":
                c = f"PGPASSWORD='{row.S(pw, 'database_password')}' pg_dump -h {host} -U {app} {app} > /tmp/{app}.sql"
            elif k == "redis":
                c = f"redis-cli -h {host} -a '{row.S(pw, 'password')}' ping"
            elif k == "sshpass":
                c = f"sshpass -p '{row.S(pw, 'password')}' ssh deploy@{host}"
            elif k == "az":
                c = f"az login --service-principal -u {row.D(uuid4(), 'uuid')} -p {row.S(azure_client_secret(), 'azure_client_secret')} --tenant {uuid4()}"
            elif k == "htpasswd":
                c = f"htpasswd -b -c /etc/nginx/.htpasswd admin '{row.S(pw, 'password')}'"
            elif k == "mongo":
                c = f'mongosh "mongodb+srv://admin:{row.S(rs(ALNUM, 20), "database_password")}@cluster0.{rs(LOWER_ALNUM, 5)}.mongodb.net/{app}"'
            elif k == "rabbit":
                c = f"rabbitmqctl add_user {app} '{row.S(pw, 'password')}'"
            elif k == "openssl":
                c = f"openssl enc -aes-256-cbc -pbkdf2 -k '{row.S(passphrase(L), 'passphrase')}' -in backup.tar -out backup.tar.enc"
            else:
                c = f"echo '{row.S(vault_token(), 'vault_token')}' | vault login -"
            cmds.insert(R.randint(0, len(cmds)), c)
    fmt = pick(["history", "prompt", "zsh"])
    start = R.randint(100, 2000)
    if fmt == "history":
        body = "\n".join(f"{start + i:5d}  {c}" for i, c in enumerate(cmds))
        return framed(row, "history | tail -n 20", body, prompt=sh_prompt())
    if fmt == "zsh":
        t = epoch(when(20))
        stamps = []
        for _ in cmds:
            t += R.randint(5, 600)
            stamps.append(t)
        body = "\n".join(f": {ts}:0;{c}" for ts, c in zip(stamps, cmds, strict=True))
        return framed(row, "tail -n 20 ~/.zsh_history", body, prompt=sh_prompt())
    p = sh_prompt()
    return framed(row, None, "\n".join(p + c for c in cmds), fence=chance(0.6))


SUBJECT = {"en": "Access to", "de": "Zugang", "fr": "Accès", "es": "Acceso", "pt": "Acesso", "it": "Accesso", "nl": "Toegang", "pl": "Dostęp",
           "ru": "Доступ", "ja": "アクセス", "zh": "访问", "ko": "접속", "tr": "Erişim"}


def st_chat(row: Row, mode: str) -> str:
    L = row.lang
    variant = pick(["slack", "email", "teams"])
    people = [person(L) for _ in range(2)]
    if mode == "C":
        names = ["ops-bot", "deploy-bot", "oncall", "platform-team"]
    else:
        names = [row.P(p.full, "person_name") for p in people]
    msgs = [ph(L, "hello") + " " + fill(L, 1)]
    if mode == "S":
        msgs.append(prose_secret(row))
        if chance(0.5):
            msgs.append(prose_secret(row))
        msgs.append(ph(L, "rotate"))
    msgs.append(prose_decoy(row))
    if chance(0.6):
        msgs.append(prose_decoy(row))
    msgs.append(ph(L, "thanks"))
    if variant == "slack":
        t = when(3)
        lines = []
        for i, m in enumerate(msgs):
            t += timedelta(minutes=R.randint(0, 9))
            lines.append(f"{names[i % 2]}  {t:%H:%M}\n{m}")
        return "\n\n".join(lines)
    if variant == "teams":
        stamps = sorted(when(3) for _ in msgs)
        return "\n".join(f"[{t:%d.%m. %H:%M}] {names[i % 2]}: {m}" for i, (t, m) in enumerate(zip(stamps, msgs, strict=True)))
    sender = people[0]
    to = f"{names[1]} <{row.P(people[1].email, 'email')}>" if mode != "C" else f"platform@{corp()}"
    head = [f"From: {names[0]} <{row.P(sender.email, 'email') if mode != 'C' else 'ops-bot@' + corp()}>", f"To: {to}", f"Date: {when(5):%a, %d %b %Y %H:%M:%S} +0100",
            f"Subject: {SUBJECT[L]} {pick(APPS)}", f"Message-ID: <{row.D(uuid4(), 'uuid')}@mail.{corp()}>", ""]
    sig = ["", "--", names[0]]
    if mode != "C":
        sig += [row.P(sender.phone, "phone")]
        if chance(0.5):
            sig.append(row.P(sender.address, "postal_address"))
    return "\n".join(head + ["\n\n".join(msgs)] + sig)


def st_diff(row: Row, mode: str) -> str:
    L = row.lang
    app = pick(APPS)
    if mode == "C":
        author = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"
    else:
        p = person(L)
        author = f"{row.P(p.full, 'person_name')} <{row.P(p.email, 'email')}>"
    sha = row.D(git_sha(), "git_sha")
    a, b = hx(7), hx(7)
    row.D(f"index {a}..{b} 100644", "git_index_line")
    fname = pick([f"config/{app}.env", "deploy/values-prod.yaml", "src/settings.py", ".github/workflows/deploy.yml", "docker-compose.yml"])
    ctx = [" " + x for x in r_env(row, benign_fields(L, R.randint(2, 4)))]
    if mode == "S":
        fields = mix(L, 1, 0)
        secret_lines = r_env(row, fields)
        if chance(0.5):
            change = [f"-{fields[0].name}=" + pick(["${" + fields[0].name + "}", "changeme", "<set-me>"]), *["+" + x for x in secret_lines]]
        else:
            change = [*["-" + x for x in secret_lines], f"+{fields[0].name}=${{{fields[0].name}}}"]
        msg = pick(["fix staging config", "temporary: hardcode creds for demo", "remove hardcoded credentials", "wip"])
    else:
        v1, v2 = version(), version()
        change = [f"-IMAGE_TAG={v1}", f"+IMAGE_TAG={row.D(v2, 'version')}"]
        if chance(0.5):
            change += [f"-API_KEY={row.D('<your-api-key>', 'placeholder')}", "+API_KEY=${API_KEY}"]
        msg = pick(["chore(deps): bump base image", "docs: explain token ttl", "ci: pin actions by sha"])
        if mode == "P":
            p2 = person(L)
            change += [f"-MAINTAINER_EMAIL=ops@{corp()}", f"+MAINTAINER_EMAIL={row.P(p2.email, 'email')}"]
    lines = [f"commit {sha}", f"Author: {author}", f"Date:   {when(30):%a %b %-d %H:%M:%S %Y} +0100", "", f"    {msg}", "", f"diff --git a/{fname} b/{fname}",
             f"index {a}..{b} 100644", f"--- a/{fname}", f"+++ b/{fname}", f"@@ -{R.randint(1, 40)},{len(ctx) + 1} +{R.randint(1, 40)},{len(ctx) + 1} @@", *ctx[:2], *change, *ctx[2:]]
    text = framed(row, f"git show {sha[:8]}", "\n".join(lines), prompt=sh_prompt())
    if mode == "S" and chance(0.5):
        text += "\n\n" + ph(L, "rotate")
    return text


def st_key_material(row: Row, mode: str) -> str:
    user = pick(USERS)
    comment = f"{user}@{pick(['laptop', 'ci', 'build-07', 'mbp'])}"
    if mode == "S":
        variant = pick(["ssh_priv", "keygen", "gpg_export", "openssl", "pem_bundle", "age"])
        if variant in ("ssh_priv", "keygen"):
            priv, pub = ssh_ed25519_pair(comment)
            row.S(priv, "ssh_private_key")
            if variant == "keygen":
                fp = row.D(ssh_fingerprint(pub), "ssh_fingerprint")
                art = ["+--[ED25519 256]--+", *["|" + "".join(pick(" " * 24 + ".o+=*BOX@%&#/^") for _ in range(17)) + "|" for _ in range(9)], "+----[SHA256]-----+"]
                out = ["Generating public/private ed25519 key pair.", f"Your identification has been saved in /home/{user}/.ssh/id_ed25519", f"Your public key has been saved in /home/{user}/.ssh/id_ed25519.pub",
                       "The key fingerprint is:", f"{fp} {comment}", "The key's randomart image is:", *art, "$ cat ~/.ssh/id_ed25519", priv, "$ cat ~/.ssh/id_ed25519.pub", row.D(pub, "ssh_public_key")]
                return framed(row, f'ssh-keygen -t ed25519 -C "{comment}" -N ""', "\n".join(out), prompt="$ ")
            return framed(row, "cat ~/.ssh/id_ed25519", priv, prompt=sh_prompt())
        if variant == "gpg_export":
            block = pgp_block("PRIVATE")
            return framed(row, f"gpg --export-secret-keys --armor {row.D(gpg_fpr()[-16:], 'gpg_key_id')}", row.S(block, "pgp_private_key"), prompt=sh_prompt())
        if variant == "openssl":
            key = pick([rsa_pkcs8_pem, rsa_pkcs1_pem, ec_pem])()
            return framed(row, "openssl genpkey -algorithm RSA -out server.key && cat server.key", row.S(key, "tls_private_key"), prompt=sh_prompt())
        if variant == "pem_bundle":
            cert = certificate_pem()
            key = pick([rsa_pkcs8_pem, ec_pem])()
            site = pick(APPS)
            return framed(row, f"cat /etc/ssl/{site}/fullchain.pem /etc/ssl/{site}/privkey.pem", row.D(cert, "certificate") + "\n" + row.S(key, "tls_private_key"), prompt=sh_prompt())
        pub = "age1" + rs(BECH32, 58)
        body = f"# created: {NOW:%Y-%m-%dT%H:%M:%S}+01:00\n# public key: {row.D(pub, 'age_public_key')}\n{row.S(age_key(), 'age_secret_key')}"
        return framed(row, "age-keygen", body, prompt=sh_prompt())
    variant = pick(["pub", "fingerprint", "gpg_list", "x509", "authorized", "known_hosts", "gpg_pub", "pem_pub", "pem_pub"])
    if variant == "pem_pub":
        return framed(row, pick(["openssl rsa -in jwt-signing.key -pubout 2>/dev/null", "cat keys/jwt-signing.pub.pem", "kubectl get cm oidc-keys -o jsonpath='{.data.public\\.pem}'"]),
                      row.D(public_key_pem(), "public_key"), prompt=sh_prompt())
    if variant == "pub":
        pub = ssh_ed25519_pair(comment)[1] if chance(0.6) else ssh_rsa_pub(comment)
        return framed(row, "cat ~/.ssh/id_ed25519.pub", row.D(pub, "ssh_public_key"), prompt=sh_prompt())
    if variant == "fingerprint":
        pub = ssh_ed25519_pair(comment)[1]
        body = f"256 {row.D(ssh_fingerprint(pub), 'ssh_fingerprint')} {comment} (ED25519)\n$ ssh-keygen -E md5 -lf ~/.ssh/id_ed25519.pub\n256 MD5:{row.D(ssh_md5_fingerprint(), 'ssh_fingerprint')} {comment} (ED25519)"
        return framed(row, "ssh-keygen -lf ~/.ssh/id_ed25519.pub", body, prompt=sh_prompt())
    if variant == "gpg_list":
        out = []
        for _ in range(R.randint(1, 3)):
            f = gpg_fpr()
            out += [f"pub   {pick(['ed25519', 'rsa4096'])}/{row.D(f[-16:], 'gpg_key_id')} {when(900):%Y-%m-%d} [SC] [expires: 2027-{R.randint(1, 12):02d}-01]",
                    f"      {row.D(f, 'gpg_fingerprint')}", f"uid                 [ultimate] {pick(['Release Signing Key', 'CI Bot', 'Ops Team'])} <release@{corp()}>",
                    f"sub   cv25519/{gpg_fpr()[-16:]} {when(900):%Y-%m-%d} [E]", ""]
        return framed(row, "gpg --list-keys --keyid-format long", "\n".join(out).rstrip(), prompt=sh_prompt())
    if variant == "x509":
        serial = ":".join(hx(2) for _ in range(16))
        body = ["Certificate:", "    Data:", "        Version: 3 (0x2)", "        Serial Number:", f"            {row.D(serial, 'certificate_serial')}", "        Signature Algorithm: ecdsa-with-SHA384",
                "        Issuer: C=US, O=Let's Encrypt, CN=E6", "        Validity", f"            Not Before: {when(60):%b %d %H:%M:%S %Y} GMT", f"            Not After : {(NOW + timedelta(days=30)):%b %d %H:%M:%S %Y} GMT",
                f"        Subject: CN={pick(APPS)}.{corp()}", "        Subject Public Key Info:", "            Public Key Algorithm: id-ecPublicKey", "                Public-Key: (256 bit)", "                pub:",
                *["                    " + ":".join(hx(2) for _ in range(15)) + ":" for _ in range(4)], "        X509v3 extensions:", "            X509v3 Subject Key Identifier:",
                f"                {row.D(':'.join(hx(2).upper() for _ in range(20)), 'key_identifier')}"]
        return framed(row, "openssl x509 -in cert.pem -noout -text | head -30", "\n".join(body), prompt=sh_prompt())
    if variant == "authorized":
        keys = [row.D(ssh_ed25519_pair(f"{u}@{pick(['laptop', 'ci'])}")[1], "ssh_public_key") for u in R.sample(USERS, R.randint(2, 4))]
        return framed(row, "cat ~/.ssh/authorized_keys", "\n".join(keys), prompt=sh_prompt())
    if variant == "known_hosts":
        lines = []
        for _ in range(R.randint(2, 5)):
            h = f"|1|{b64_bytes(20)}|{b64_bytes(20)}"
            pub = ssh_ed25519_pair("x")[1].rsplit(" ", 1)[0]
            lines.append(f"{row.D(h, 'hashed_hostname')} {pub}")
        return framed(row, "cat ~/.ssh/known_hosts", "\n".join(lines), prompt=sh_prompt())
    return framed(row, f"gpg --armor --export release@{corp()}", row.D(pgp_block("PUBLIC"), "pgp_public_key"), prompt=sh_prompt())


def st_ticket(row: Row, mode: str) -> str:
    L = row.lang
    p = person(L)
    tid = R.randint(10000, 99999)
    lines = [f"Ticket #{tid} · {pick(['Billing', 'Account', 'Login', 'Refund', 'Delivery'])} · {pick(['open', 'pending', 'escalated'])}", "",
             f"{lbl(L, 'name')}: {row.P(p.full, 'person_name')}", f"{lbl(L, 'email')}: {row.P(p.email, 'email')}", f"{lbl(L, 'phone')}: {row.P(p.phone, 'phone')}"]
    extra = R.sample(["address", "dob", "iban", "card", "ip"], R.randint(1, 3)) + ["id"]
    for e in extra:
        if e == "ip":
            lines.append(f"IP: {row.P(p.ip, 'ip_address')}")
        else:
            lines.append(f"{lbl(L, e)}: {row.pii_person(p, e)[e]}")
    lines += ["", ph(L, "customer").format(name=p.full, ref=row.D(f"ORD-{dg(4)}-{rs(UPPER, 3)}", "order_id")), fill(L, R.randint(1, 3))]
    if mode == "S":
        lines.append(prose_secret(row))
    lines += ["", f"request_id: {row.D(uuid4(), 'request_id')}", f"app_version: {row.D(version(), 'version')}"]
    if chance(0.4):
        lines.append(prose_decoy(row))
    return "\n".join(lines)


HR_LABELS = {
    "en": ("Employee onboarding", "Emergency contact", "Salary account", "Tax / national id"),
    "de": ("Personalbogen", "Notfallkontakt", "Gehaltskonto", "Steuer-/Ausweisnummer"),
    "fr": ("Fiche d'embauche", "Contact d'urgence", "Compte de salaire", "Numéro fiscal / identité"),
    "es": ("Alta de empleado", "Contacto de emergencia", "Cuenta de nómina", "Número fiscal / identidad"),
    "pt": ("Ficha de admissão", "Contacto de emergência", "Conta salário", "Número fiscal / identidade"),
    "it": ("Scheda di assunzione", "Contatto di emergenza", "Conto stipendio", "Codice fiscale / documento"),
    "nl": ("Indiensttredingsformulier", "Contact bij nood", "Salarisrekening", "Fiscaal / identiteitsnummer"),
    "pl": ("Karta pracownika", "Kontakt awaryjny", "Konto do wynagrodzenia", "Numer podatkowy / tożsamości"),
    "ru": ("Анкета сотрудника", "Экстренный контакт", "Зарплатный счёт", "Налоговый / личный номер"),
    "ja": ("入社手続き票", "緊急連絡先", "給与振込口座", "個人番号"),
    "zh": ("入职登记表", "紧急联系人", "工资账户", "证件号码"),
    "ko": ("입사 서류", "비상 연락처", "급여 계좌", "주민/납세 번호"),
    "tr": ("İşe giriş formu", "Acil durum kişisi", "Maaş hesabı", "Vergi / kimlik no"),
}


def st_identity_record(row: Row, mode: str) -> str:
    """KYC responses, onboarding forms and payroll exports: where national ids live."""
    L = row.lang
    variant = pick(["kyc_json", "hr_form", "payroll_xml", "form_post"])
    if variant == "kyc_json":
        p = person(L, next_country("*"))
        obj = {"applicant_id": row.D(uuid4(), "uuid"), "status": pick(["approved", "review", "rejected"]),
               "person": {"first_name": p.first, "last_name": p.last, "dob": f"{p.born:%Y-%m-%d}", "nationality": p.cc,
                          "document": {"type": ID_COLUMN[p.natid_kind], "number": p.natid, "issuing_country": p.cc, "expiry": f"20{R.randint(28, 35)}-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}"},
                          "address": p.address, "email": p.email},
               "checks": [{"name": "document", "result": "clear"}, {"name": "watchlist", "result": pick(["clear", "consider"])}],
               "created_at": ts_decoy(row, when(20), 3)}
        ascii_ = chance(0.5)
        esc = json_esc(ascii_)
        row.P(p.first, "person_name", esc(p.first))
        row.P(p.last, "person_name", esc(p.last))
        row.P(f"{p.born:%Y-%m-%d}", "date_of_birth")
        row.P(p.natid, p.natid_kind, esc(p.natid))
        row.P(p.address, "postal_address", esc(p.address))
        row.P(p.email, "email")
        body = json.dumps(obj, indent=2, ensure_ascii=ascii_)
        cmd = f"curl -s https://kyc.{corp()}/v3/applicants/{obj['applicant_id']}"
        if mode == "S":
            cmd = f'curl -s -H "Authorization: Token token={row.S("kyc_live_" + rs(ALNUM, 40), "api_key")}" https://kyc.{corp()}/v3/applicants/{obj["applicant_id"]}'
        return framed(row, cmd, body, prompt=sh_prompt())
    if variant == "hr_form":
        p = person(L)
        c = person(L, p.cc)
        title, emerg, salary, taxid = HR_LABELS[L]
        lines = [f"== {title} ==", f"{lbl(L, 'name')}: {row.P(p.full, 'person_name')}", f"{lbl(L, 'dob')}: {row.P(p.dob, 'date_of_birth')}",
                 f"{taxid}: {row.P(p.natid, p.natid_kind)}", f"{lbl(L, 'address')}: {row.P(p.address, 'postal_address')}", f"{lbl(L, 'phone')}: {row.P(p.phone, 'phone')}",
                 f"{salary}: {row.P(group4(p.iban), 'iban')}", f"{emerg}: {row.P(c.full, 'person_name')}, {row.P(c.phone, 'phone')}",
                 f"employee_id: {row.D(ulid(), 'employee_id')}"]
        if mode == "S":
            lines += ["", ph(L, "pw_is").format(what="HR portal", v=row.S(human_password(L), "password"))]
        return ph(L, "ask2") + "\n\n" + "\n".join(lines)
    if variant == "payroll_xml":
        vat, vkind = company_vat(pick(["BR", "DE", "FR", "IT", "PL", "BE", "GB", "NL"]))
        out = ['<?xml version="1.0" encoding="UTF-8"?>', f'<payroll period="{NOW:%Y-%m}" batch="{row.D(uuid4(), "uuid")}">', f'  <employer vatId="{row.P(vat, vkind)}" />']
        for _ in range(R.randint(2, 4)):
            p = person(L, next_country("*"))
            out += ["  <employee>", f"    <name>{row.P(p.full, 'person_name', xml_escape(p.full))}</name>", f"    <taxId country=\"{p.cc}\">{row.P(p.natid, p.natid_kind)}</taxId>",
                    f"    <iban>{row.P(p.iban, 'iban')}</iban>", f"    <gross>{R.randint(2500, 9800)}.00</gross>", "  </employee>"]
        out.append("</payroll>")
        text = framed(row, "cat payroll_export.xml", "\n".join(out), prompt=sh_prompt())
        if mode == "S":
            pw = human_password(L, special=chance(0.5))
            text += f"\n\n```\n$ cat sftp-upload.xml\n<sftp host=\"sftp.payroll-{corp()}\" user=\"upload\" password=\"{row.S(pw, 'password', xml_attr_esc(pw))}\" />\n```"
        return text
    p = person(L, next_country("*"))
    form = {"full_name": p.full, "email": p.email, "birth_date": f"{p.born:%Y-%m-%d}", "tax_id": p.natid, "iban": p.iban, "consent": "on"}
    body = urllib.parse.urlencode(form)
    for k, kind in (("full_name", "person_name"), ("email", "email"), ("birth_date", "date_of_birth"), ("tax_id", p.natid_kind), ("iban", "iban")):
        row.P(form[k], kind, urllib.parse.quote_plus(form[k]))
    line = f'{row.D(private_ip(), "private_ip")} - - [{NOW:%d/%b/%Y:%H:%M:%S} +0000] "POST /onboarding/submit HTTP/1.1" 302 0 "-" "Mozilla/5.0" request_body="{body}"'
    if mode == "S":
        line += f' cookie="sessionid={row.S(session_cookie("django")[1], "session_cookie")}"'
    return framed(row, "grep 'POST /onboarding' /var/log/nginx/access_body.log | tail -1", line, prompt=sh_prompt())


# ---------------------------------------------------------------- schedule, checks, output

STYLES = {
    # name: (generator, modes it can produce: S secret, C decoys only, P personal data without secrets)
    "env_dump": (st_env_dump, "SCP"),
    "secret_manager_cli": (st_secret_cli, "SC"),
    "kubernetes": (st_kubernetes, "SC"),
    "http_dump": (st_http_dump, "SCP"),
    "har_fragment": (st_har, "SCP"),
    "config_file": (st_config_file, "SC"),
    "ci_log": (st_ci_log, "SC"),
    "app_log_json": (st_app_log_json, "SCP"),
    "app_log_logfmt": (st_app_log_logfmt, "SCP"),
    "stack_trace": (st_stack_trace, "SCP"),
    "aligned_kv_table": (st_kv_aligned, "SCP"),
    "box_table": (st_box_table, "SCP"),
    "markdown_table": (st_markdown_table, "SCP"),
    "csv_tsv": (st_csv, "SCP"),
    "sql_result": (st_sql_result, "SCP"),
    "key_above_value": (st_key_above, "SCP"),
    "name_value_pairs": (st_name_value, "SC"),
    "agent_claude_code": (st_agent_claude, "SCP"),
    "agent_codex": (st_agent_codex, "SCP"),
    "agent_json_messages": (st_agent_json, "SCP"),
    "debug_notes": (st_debug_notes, "SCP"),
    "terminal_wrap": (st_terminal_wrap, "SCP"),
    "shell_history": (st_shell, "SC"),
    "chat_message": (st_chat, "SCP"),
    "git_diff": (st_diff, "SCP"),
    "key_material": (st_key_material, "SC"),
    "support_ticket": (st_ticket, "SP"),
    "identity_record": (st_identity_record, "SP"),
}
ROWS_PER_STYLE = 15
MODE_PLAN = {"SCP": "S" * 10 + "C" * 4 + "P", "SC": "S" * 11 + "C" * 4, "SP": "S" * 11 + "P" * 4}
LONG_ROWS = {"ci_log": 2, "app_log_json": 2, "debug_notes": 3, "agent_claude_code": 2, "agent_json_messages": 2, "app_log_logfmt": 1, "agent_codex": 1}
MIN_CHARS, MAX_CHARS = 200, 22000


def check_row(row: Row, text: str, mode: str) -> str | None:
    """Why the row is unusable, or None when every label holds."""
    sec, pii, dec_ = (row.items[c] for c in CLASSES)
    if mode == "S" and not sec:
        return "no secret"
    if mode == "C" and (sec or pii):
        return "clean row with labels"
    if mode == "P" and (sec or not pii):
        return "pii row without pii"
    if not MIN_CHARS <= len(text) <= MAX_CHARS:
        return "length"
    for cls in CLASSES:
        for lab in row.items[cls]:
            if lab.pieces is not None:
                if "".join(lab.pieces) != (lab.shown if lab.shown is not None else lab.value):
                    return "pieces do not join"
                if any(p not in text for p in lab.pieces):
                    return "piece missing"
            elif lab.shown is not None:
                if lab.shown not in text:
                    return "shown form missing"
            elif lab.value not in text:
                return "value missing"
            if not lab.value.strip():
                return "empty label"
    classes: dict[str, str] = {}
    for cls in CLASSES:
        for lab in row.items[cls]:
            if classes.setdefault(lab.value, cls) != cls:
                return "value in two classes"
    sensitive = [lab for lab in sec + pii]
    for d in dec_:
        for s in sensitive:
            forms = [s.value, *s.forms()]
            if any(d.value in f or (len(f) >= 6 and f in d.value) for f in forms):
                return "decoy overlaps a labelled value"
    for s in sec:
        for p in pii:
            if s.value in p.value or p.value in s.value:
                if not (s.kind in ("basic_auth_credentials", "docker_config_json") and p.value in s.value):
                    return "secret overlaps pii"
    return None


def assert_labels(rec: dict[str, object]) -> None:
    """The promise every row keeps: each label's value, shown form or pieces is in the text as written."""
    text = str(rec["text"])
    seen: dict[str, str] = {}
    for cls in CLASSES:
        for lab in rec[cls]:  # type: ignore[attr-defined]
            if "pieces" in lab:
                assert "".join(lab["pieces"]) == lab.get("shown", lab["value"]), (rec["id"], lab)
                assert all(p in text for p in lab["pieces"]), (rec["id"], lab)
            elif "shown" in lab:
                assert lab["shown"] in text, (rec["id"], lab)
            else:
                assert lab["value"] in text, (rec["id"], lab)
            assert seen.setdefault(lab["value"], cls) == cls, (rec["id"], lab)


def build_rows(seed: int) -> list[dict[str, object]]:
    R.seed(seed)
    _NEXT_COUNTRY.clear()
    _GROUP_DECK.clear()
    plan: list[tuple[str, str, str, bool]] = []
    for style, (_fn, modes) in STYLES.items():
        deck = LANGS + ["en", "en"]
        R.shuffle(deck)
        mode_list = list(MODE_PLAN[modes])
        R.shuffle(mode_list)
        n_long = LONG_ROWS.get(style, 0)
        long_idx = [i for i, m in enumerate(mode_list) if m != "P"][:n_long]
        for i in range(ROWS_PER_STYLE):
            plan.append((style, deck[i % len(deck)], mode_list[i], i in long_idx))
    R.shuffle(plan)
    out: list[dict[str, object]] = []
    global_classes: dict[str, str] = {}
    for n, (style, lang, mode, long) in enumerate(plan, start=1):
        fn = STYLES[style][0]
        for _attempt in range(200):
            row = Row(style, lang)
            row.long = long
            text = fn(row, mode)
            if text is None:
                continue
            if len(text) < MIN_CHARS:
                text += "\n\n" + fill(lang, 3)
            if len(text) < MIN_CHARS:
                text += "\n" + fill(lang, 7)
            if check_row(row, text, mode) is None:
                clash = any(global_classes.get(lab.value, cls) != cls for cls in CLASSES for lab in row.items[cls])
                if not clash:
                    break
        else:
            raise RuntimeError(f"could not build a {mode} row of style {style}: {check_row(row, text or '', mode)}")
        for cls in CLASSES:
            for lab in row.items[cls]:
                global_classes[lab.value] = cls
        out.append({"id": f"fs-{n:04d}", "style": style, "lang": lang, "text": text,
                    "secrets": [lab.as_json() for lab in row.items["secrets"]], "pii": [lab.as_json() for lab in row.items["pii"]],
                    "decoys": [lab.as_json() for lab in row.items["decoys"]]})
        assert_labels(out[-1])
    return out


def stats(rows: list[dict[str, object]]) -> str:
    def table(title: str, counter: Counter[str]) -> str:
        lines = [f"| {title} | rows |", "|---|---:|"] + [f"| {k} | {v} |" for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))]
        return "\n".join(lines)

    def items(cls: str) -> list[dict[str, object]]:
        return [lab for r in rows for lab in r[cls]]  # type: ignore[attr-defined]

    n_secret_rows = sum(1 for r in rows if r["secrets"])
    n_clean = sum(1 for r in rows if not r["secrets"] and not r["pii"])
    lens = sorted(len(str(r["text"])) for r in rows)
    head = [
        f"- rows: {len(rows)}; with a secret: {n_secret_rows}; without any secret: {len(rows) - n_secret_rows} "
        f"({100 * (len(rows) - n_secret_rows) / len(rows):.1f}%), of which decoys only: {n_clean}",
        f"- labelled items: {len(items('secrets'))} secrets, {len(items('pii'))} PII, {len(items('decoys'))} decoys",
        f"- secrets with `pieces`: {sum(1 for x in items('secrets') if 'pieces' in x)}; with `shown`: {sum(1 for x in items('secrets') if 'shown' in x)}; "
        f"PII with `shown`: {sum(1 for x in items('pii') if 'shown' in x)}",
        f"- text length: min {lens[0]}, median {lens[len(lens) // 2]}, max {lens[-1]}; rows over 8,000 characters: {sum(1 for x in lens if x > 8000)}",
    ]
    def split(key: str) -> str:
        lines = [f"| {key} | rows | with a secret | PII, no secret | decoys only |", "|---|---:|---:|---:|---:|"]
        for k, n in sorted(Counter(str(r[key]) for r in rows).items(), key=lambda kv: (-kv[1], kv[0])):
            mine = [r for r in rows if r[key] == k]
            lines.append(f"| {k} | {n} | {sum(1 for r in mine if r['secrets'])} | {sum(1 for r in mine if r['pii'] and not r['secrets'])} | "
                         f"{sum(1 for r in mine if not r['pii'] and not r['secrets'])} |")
        return "\n".join(lines)

    parts = ["\n".join(head), split("style"), split("lang")]
    for cls in CLASSES:
        parts.append(table(f"{cls} kind", Counter(str(x["kind"]) for x in items(cls))).replace("| rows |", "| items |"))
    return "\n\n".join(parts) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("set.jsonl"))
    ap.add_argument("--stats", action="store_true", help="print counts per style, language and kind as Markdown")
    args = ap.parse_args()
    rows = build_rows(args.seed)
    with args.out.open("w", encoding="utf-8", newline="\n") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    if args.stats:
        print(stats(rows), end="")
    else:
        print(f"wrote {len(rows)} rows to {args.out}")


if __name__ == "__main__":
    main()
