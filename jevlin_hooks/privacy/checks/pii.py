"""Checks of personal data: addresses, user names in home paths, cards, IBANs, SSNs (phone numbers: personal.py).

Numbers are everywhere in agent text (ids, timestamps, versions, ports); these checks are what
keep a regex for "digits in groups" from redacting them: lengths, prefixes and checksums.
"""

from __future__ import annotations

import re
from typing import Any

from jevlin_hooks.privacy.checks.decoys import server_address
from jevlin_hooks.privacy.checks.registry import Check, check, register
from jevlin_hooks.privacy.heuristics import in_url
from jevlin_hooks.privacy.public import reserved_address
from jevlin_hooks.privacy.rules import labels

CARD_LENGTHS = {"4": (13, 16, 19), "5": (16,), "2": (16,), "3": (14, 15, 16, 19), "6": (16, 17, 18, 19)}


def card_number(value: str) -> bool:
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


_MESSAGE_ID_BEFORE = re.compile(r"(?i)\b(?:message-id|in-reply-to|references|content-id|resent-message-id)[\"']?[ \t]*[:=][^\n]*<\Z")
# a local part that is a UUID or a long hex run names an object (a message, a commit's noreply), no one
_ID_LOCAL_PART = re.compile(r"(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{16,})@")
_SSH_BEFORE = re.compile(r"\b(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id|sshpass|autossh)\b[^\n]*$")
# pip's requests==1.2.3.4; not ip==; \Z: $ would also match before a line break
_VERSION_BEFORE = re.compile(r"(?:version|release|\bver|\bv|\bbuild|\btag|@|[a-z0-9_\]](?<!ip)(?<!addr)(?<!host)[=~!<>]=)[\"'(\[=: \t]*\Z")
_PREFIX_LENGTH = re.compile(r"/(\d{1,2})(?![0-9])")


def _network_block(address: str, text: str, end: int) -> bool:
    """address/prefix whose host bits are all zero: 10.0.0.0/8, not 10.1.2.3/8 or 10.1.2.3/32."""
    m = _PREFIX_LENGTH.match(text, end)
    if m is None or int(m.group(1)) > 31:
        return False
    a, b, c, d = (int(x) for x in address.split("."))
    return ((a << 24 | b << 16 | c << 8 | d) & ((1 << (32 - int(m.group(1)))) - 1)) == 0


# the domains of a cloud's service accounts (a workload's identity, no person's mailbox)
_MACHINE_DOMAINS = (".gserviceaccount.com", "@gserviceaccount.com")


@check("email")
def email(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    if text.startswith(":", end) and not text.startswith((": ", ":\t", ":\n"), end):
        return False  # git@github.com:org/repo.git, user@host:path: an scp-style remote
    if in_url(text, start):
        return False  # scheme://user@host or scheme://user:pass@host: a URL
    if value.split("@", 1)[0].split("+", 1)[0].lower() in labels.ROLE_MAILBOXES:
        return False  # support@, noreply@, billing@: a role's mailbox, no one's personal data
    if value.lower().endswith(_MACHINE_DOMAINS):
        return False  # ci@proj.iam.gserviceaccount.com: a cloud's service account, a machine's
    if _ID_LOCAL_PART.match(value) or text[start - 1:start] == "<" and _MESSAGE_ID_BEFORE.search(text, max(0, start - 120), start):
        return False  # Message-ID: <uuid@mail.host>, <hex@...>: a message's id, not a mailbox
    # ssh deploy@host, scp f root@host:/tmp: an account on a host, not a mailbox
    return not _SSH_BEFORE.search(text, max(0, start - 120), start)


# Accounts that come with a system, an image or a tool, not with a person: /home/ubuntu,
# /home/runner, /Users/Shared name no one.
SYSTEM_ACCOUNTS = frozenset(("all users", *"""
shared public default root admin administrator ubuntu debian centos fedora rocky almalinux alpine arch
ec2-user opc azureuser cloud-user core ci dev app runner runneradmin node vagrant jenkins git gitlab-runner buildkite
circleci travis codespace vscode coder gitpod www-data nginx apache deploy deployer build builder user docker
postgres mysql redis ansible operator service svc nobody daemon guest test tester ops
""".split()))


@check("home")
def home(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    return not value.startswith(("$", "{", "<", "%", "*")) and value.rstrip("`'\",;|)]}.").lower() not in SYSTEM_ACCOUNTS


@check("ip")
def ip(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end:end + 2]
    if before.isalnum() or before in "._-" or (after[:1] == "." and after[1:2].isdigit()):
        return False  # part of a version string or longer dotted number
    if _VERSION_BEFORE.search(lower or text.lower(), max(0, start - 40), start):
        return False  # AssemblyVersion("2.1.0.3"), "version": "1.2.3.4", upgraded to version 1.2.3.4
    if server_address(text, start):
        return False  # Connected to host (IP), HostName IP, Endpoint = IP:port: a server's (decoys.py)
    if after[:1] == "/" and _network_block(value, text, end):
        return False  # 10.0.0.0/8, 192.168.1.0/24: a range (a VPC, a firewall rule), no one's address
    return not reserved_address(value)  # 10.x, 192.168.x, 127.x, 100.64/10, 192.0.2.x, ...: no one's address


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


@check("ip6")
def ip6(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    if text[end:end + 1] == ":" and text[end + 1:end + 2] in _HEX_DIGITS or \
            start > 1 and text[start - 1] == ":" and text[start - 2].isalnum():
        return False  # MD5:a5:4d:...:fa, a MAC or a longer run of hex pairs: a fingerprint, not an address
    return (value.count(":") >= 3 or any(map(str.isdigit, value))) and not reserved_address(value)


@check("card")
def card(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    return card_number(value)


@check("ssn")
def ssn(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    d = value.replace("-", "").replace(" ", "")
    # a possible number (not area 000, 666 or 9xx, group 00, serial 0000), not one digit
    # repeated, not the famous fakes; two digits are possible (552-55-2222)
    return (d[:3] not in ("000", "666") and d[0] != "9" and d[3:5] != "00" and d[5:] != "0000" and len(set(d)) > 1
            and d not in ("123456789", "078051120", "219099999"))


register(Check("iban", span=lambda text, s, e, m: iban_span(text, s, e)))
