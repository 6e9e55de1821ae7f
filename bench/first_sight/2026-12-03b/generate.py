#!/usr/bin/env python3
"""Write the first-sight labelled set (set.jsonl) for a secret/PII scrubber.

Standalone, standard library only, seeded: the same seed gives the same bytes.
Every row carries the text plus three label lists (secrets, pii, decoys); a value
that the text shows wrapped over lines carries "pieces", one that the text shows
only encoded carries "shown". The generator checks its own labels before writing.

    python3 generate.py                # seed 4242, writes set.jsonl next to this file
    python3 generate.py --seed 7 --out /tmp/other.jsonl
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import hashlib
import hmac
import html
import json
import random
import string
import unicodedata
import urllib.parse
import uuid
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
B62 = DIGITS + UPPER + LOWER
HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B64 = UPPER + LOWER + DIGITS + "+/"
B64URL = UPPER + LOWER + DIGITS + "-_"
B32 = UPPER + "234567"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

# every date in the set is drawn around this day, never from the clock
BASE_DAY = dt.datetime(2026, 11, 24, 8, 0, 0, tzinfo=dt.UTC)


def rs(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def rbytes(rng: random.Random, n: int) -> bytes:
    return rng.randbytes(n)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def base62(num: int) -> str:
    if num == 0:
        return "0"
    out = []
    while num:
        num, rem = divmod(num, 62)
        out.append(B62[rem])
    return "".join(reversed(out))


def crc32_b62(payload: str) -> str:
    # GitHub's and npm's token formats end in base62(crc32(random part)), left-padded to six
    return base62(zlib.crc32(payload.encode())).rjust(6, "0")


def luhn_check_digit(partial: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(partial)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def mod11_10(digits: str) -> str:
    # ISO 7064 MOD 11,10 (German Steuer-ID and USt-IdNr.)
    product = 10
    for ch in digits:
        s = (int(ch) + product) % 10
        if s == 0:
            s = 10
        product = (2 * s) % 11
    check = 11 - product
    return "0" if check == 10 else str(check)


VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]
VERHOEFF_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_check(partial: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(partial)):
        c = VERHOEFF_D[c][VERHOEFF_P[(i + 1) % 8][int(ch)]]
    return str(VERHOEFF_INV[c])


def verhoeff_ok(number: str) -> bool:
    c = 0
    for i, ch in enumerate(reversed(number)):
        c = VERHOEFF_D[c][VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


def crc24(data: bytes) -> int:
    # OpenPGP armor checksum (RFC 4880, 6.1)
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def iban_check(country: str, bban: str) -> str:
    rearranged = bban + country + "00"
    num = "".join(str(int(c, 36)) for c in rearranged)
    return f"{98 - int(num) % 97:02d}"


def iban_ok(iban: str) -> bool:
    compact = iban.replace(" ", "")
    rearranged = compact[4:] + compact[:4]
    num = "".join(str(int(c, 36)) for c in rearranged)
    return int(num) % 97 == 1


def group4(s: str) -> str:
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


def rand_day(rng: random.Random, lo_days: int = -20, hi_days: int = 8) -> dt.datetime:
    return BASE_DAY + dt.timedelta(seconds=rng.randint(lo_days * 86400, hi_days * 86400))


def iso_z(t: dt.datetime, ms: bool = True) -> str:
    if ms:
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def strip_accents(s: str) -> str:
    s = s.replace("ß", "ss").replace("ø", "o").replace("æ", "ae").replace("đ", "d").replace("Đ", "D")
    s = s.replace("ı", "i").replace("ł", "l").replace("Ł", "L")
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


# ---------------------------------------------------------------- key material


def pem_wrap(label: str, der: bytes, width: int = 64) -> str:
    body = b64(der)
    lines = [body[i:i + width] for i in range(0, len(body), width)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def fit_der(der: bytes, rng: random.Random, width: int = 64) -> bytes:
    # keep the last armoured line long enough to be labelled as a piece on its own
    while len(b64(der)) % width and len(b64(der)) % width < 8:
        der += rbytes(rng, 3)
    return der


def rsa_pkcs1_pem(rng: random.Random) -> str:
    head = bytes.fromhex("308204a40201000282010100")
    der = fit_der(head + rbytes(rng, 0x4A8 - len(head)), rng)
    return pem_wrap("RSA PRIVATE KEY", der)


def rsa_pkcs8_pem(rng: random.Random) -> str:
    head = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100")
    der = fit_der(head + rbytes(rng, 0x4C1 - len(head)), rng)
    return pem_wrap("PRIVATE KEY", der)


def ec_pem(rng: random.Random) -> str:
    der = (bytes.fromhex("30770201010420") + rbytes(rng, 32) + bytes.fromhex("a00a06082a8648ce3d030107a14403420004")
           + rbytes(rng, 64))
    return pem_wrap("EC PRIVATE KEY", der)


def ssh_string(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def ed25519_pair(rng: random.Random, comment: str) -> tuple[str, str, str]:
    """An OpenSSH private key (structurally valid), its public line and its SHA256 fingerprint."""
    pub = rbytes(rng, 32)
    seed = rbytes(rng, 32)
    pub_blob = ssh_string(b"ssh-ed25519") + ssh_string(pub)
    check = rbytes(rng, 4)
    priv = check + check + ssh_string(b"ssh-ed25519") + ssh_string(pub) + ssh_string(seed + pub) + ssh_string(comment.encode())
    pad = 1
    while len(priv) % 8:
        priv += bytes([pad])
        pad += 1
    blob = (b"openssh-key-v1\x00" + ssh_string(b"none") + ssh_string(b"none") + ssh_string(b"")
            + (1).to_bytes(4, "big") + ssh_string(pub_blob) + ssh_string(priv))
    body = b64(blob)
    lines = [body[i:i + 70] for i in range(0, len(body), 70)]
    private = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END OPENSSH PRIVATE KEY-----"
    public = f"ssh-ed25519 {b64(pub_blob)} {comment}"
    fp = "SHA256:" + base64.b64encode(hashlib.sha256(pub_blob).digest()).decode().rstrip("=")
    return private, public, fp


def pgp_block(rng: random.Random, private: bool) -> str:
    kind = "PRIVATE KEY" if private else "PUBLIC KEY"
    tag = b"\xc5" if private else b"\xc6"
    data = tag + rbytes(rng, 1) + b"\x04" + rbytes(rng, 4) + b"\x16\x09\x2b\x06\x01\x04\x01\xda\x47\x0f\x01\x01\x07\x40"
    data += rbytes(rng, 300 if private else 220)
    data = fit_der(data, rng)
    body = b64(data)
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    csum = b64(crc24(data).to_bytes(3, "big"))
    return (f"-----BEGIN PGP {kind} BLOCK-----\n\n" + "\n".join(lines) + f"\n={csum}\n"
            f"-----END PGP {kind} BLOCK-----")


def oci_pem(rng: random.Random) -> str:
    return rsa_pkcs8_pem(rng) + "\nOCI_API_KEY"


def certificate_pem(rng: random.Random) -> str:
    head = bytes.fromhex("3082036d30820255a003020102021400")
    der = fit_der(head + rbytes(rng, 0x371 - len(head)), rng)
    return pem_wrap("CERTIFICATE", der)


def public_key_pem(rng: random.Random) -> str:
    der = (bytes.fromhex("30820122300d06092a864886f70d01010105000382010f003082010a0282010100")
           + rbytes(rng, 256) + bytes.fromhex("0203010001"))
    return pem_wrap("PUBLIC KEY", der)


def jwt_token(rng: random.Random, payload: dict[str, object], alg: str = "HS256", kid: str | None = None) -> str:
    header: dict[str, object] = {"alg": alg, "typ": "JWT"}
    if kid:
        header["kid"] = kid
    h = b64u(json.dumps(header, separators=(",", ":")).encode())
    p = b64u(json.dumps(payload, separators=(",", ":")).encode())
    if alg == "HS256":
        sig = b64u(hmac.new(rbytes(rng, 32), f"{h}.{p}".encode(), hashlib.sha256).digest())
    else:
        sig = b64u(rbytes(rng, 256))
    return f"{h}.{p}.{sig}"


def epoch(t: dt.datetime) -> int:
    return int(t.timestamp())


# ---------------------------------------------------------------- secrets


WORDS = (
    "amber anchor apple arctic atlas badge bamboo banjo basil beacon birch bison blossom bonfire breeze bridge "
    "bronze cabin cactus canyon carbon castle cedar cherry cobalt comet copper coral cotton crater dahlia delta "
    "denim desert dolphin dragon eagle ember falcon fennel fiddle forest fossil garnet geyser ginger glacier "
    "granite gravel harbor hazel heron hollow island ivory jasper juniper kayak kettle lagoon lantern lemon "
    "lilac lobster maple marble meadow mango mint monsoon mosaic nectar nickel nutmeg oasis olive onyx orbit "
    "otter oyster paddle panda pepper pebble pilot pine plume prairie quartz quill radish raven reef ribbon "
    "river rocket saffron salmon sapphire satin shadow sierra silver slate sparrow spruce summit sunset "
    "thistle thunder timber tulip tundra turnip velvet violet walnut willow winter yarrow zephyr zinc"
).split()


def gen_password(rng: random.Random, shape: str | None = None) -> str:
    shapes = ["word_digits", "diceware", "short", "punct", "leet", "pin_word", "sentence", "random_long", "unicode"]
    shape = shape or rng.choice(shapes)
    if shape == "word_digits":
        w = rng.choice(WORDS).capitalize()
        return w + str(rng.randint(1, 2029)) + rng.choice(["!", "?", "#", "", "$", "*"])
    if shape == "diceware":
        n = rng.randint(4, 6)
        sep = rng.choice(["-", " ", ".", "_"])
        return sep.join(rng.sample(WORDS, n))
    if shape == "short":
        return rs(rng, LOWER + DIGITS, rng.randint(6, 8))
    if shape == "punct":
        pool = ALNUM + "!@#$%^&*()-_=+[]{};:,.<>?/|~\"'\\"
        while True:
            pw = rs(rng, pool, rng.randint(14, 24))
            if any(c in pw for c in "\"\\&<'"):
                return pw
    if shape == "leet":
        w = rng.choice(WORDS)
        w = w.replace("a", "@").replace("o", "0").replace("e", "3").replace("i", "1").replace("s", "$")
        return w.capitalize() + rng.choice(["!", "#", "%", "&"]) + str(rng.randint(10, 99))
    if shape == "pin_word":
        return rng.choice(WORDS) + rng.choice(WORDS).capitalize() + str(rng.randint(100, 9999))
    if shape == "sentence":
        a, b, c = rng.sample(WORDS, 3)
        return f"{a.capitalize()}s {b} the {c} at {rng.randint(2, 12)}!"
    if shape == "random_long":
        return rs(rng, ALNUM, rng.randint(20, 32))
    # non-ASCII passwords: they turn into \\uXXXX in ASCII-only JSON
    stems = ["Größe", "Fußball", "Ñandú", "Café", "Żółw", "Sommarö", "çiçek", "Пароль", "Škoda"]
    return rng.choice(stems) + rng.choice(["#", "!", "-", "_"]) + str(rng.randint(10, 9999))


def g_aws_key_id(rng: random.Random) -> str:
    return "AKIA" + rs(rng, UPPER + "234567", 16)


def g_aws_temp_key_id(rng: random.Random) -> str:
    return "ASIA" + rs(rng, UPPER + "234567", 16)


def g_aws_secret(rng: random.Random) -> str:
    return rs(rng, ALNUM + "+/", 40)


def g_aws_session_token(rng: random.Random) -> str:
    return "IQoJb3JpZ2luX2VjE" + rs(rng, B64, rng.randint(360, 420))


def g_gcp_api_key(rng: random.Random) -> str:
    return "AIza" + rs(rng, ALNUM + "-_", 35)


def g_gcp_access_token(rng: random.Random) -> str:
    return "ya29." + rs(rng, ALNUM + "-_", rng.randint(160, 230))


def g_gcp_refresh(rng: random.Random) -> str:
    return "1//0" + rs(rng, ALNUM, 1) + rs(rng, ALNUM + "-_", 98)


def g_azure_storage_key(rng: random.Random) -> str:
    return b64(rbytes(rng, 64))


def g_azure_client_secret(rng: random.Random) -> str:
    return rs(rng, ALNUM, 3) + rng.choice(DIGITS) + "Q~" + rs(rng, ALNUM + "_.-~", 34)


def g_azure_conn(rng: random.Random) -> str:
    acct = rng.choice(["stprodweu", "stshopdata", "acmelogs", "stbackup01", "sainvoices"]) + rs(rng, LOWER + DIGITS, 4)
    return (f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={g_azure_storage_key(rng)};"
            "EndpointSuffix=core.windows.net")


def g_azure_sb_conn(rng: random.Random) -> str:
    ns = rng.choice(["sb-orders", "sb-prod-events", "acme-bus"]) + rs(rng, DIGITS, 2)
    return (f"Endpoint=sb://{ns}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
            f"SharedAccessKey={b64(rbytes(rng, 32))}")


def g_azure_sas_url(rng: random.Random) -> str:
    acct = "st" + rs(rng, LOWER, 6) + rs(rng, DIGITS, 2)
    sig = urllib.parse.quote(b64(rbytes(rng, 32)), safe="")
    start = rand_day(rng)
    end = start + dt.timedelta(days=rng.choice([7, 30, 365]))
    return (f"https://{acct}.blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=o&sp=rl"
            f"&se={end.strftime('%Y-%m-%dT%H:%M:%SZ')}&st={start.strftime('%Y-%m-%dT%H:%M:%SZ')}&spr=https&sig={sig}")


def g_azure_access_token(rng: random.Random) -> str:
    t = rand_day(rng)
    payload = {"aud": "https://management.core.windows.net/", "iss": f"https://sts.windows.net/{uuid4(rng)}/",
               "iat": epoch(t), "nbf": epoch(t), "exp": epoch(t) + 4479, "appid": uuid4(rng),
               "oid": uuid4(rng), "scp": "user_impersonation", "tid": uuid4(rng), "ver": "1.0"}
    return jwt_token(rng, payload, alg="RS256", kid=rs(rng, ALNUM + "-_", 27))


def g_alibaba_id(rng: random.Random) -> str:
    return "LTAI5t" + rs(rng, ALNUM, 18)


def g_alibaba_secret(rng: random.Random) -> str:
    return rs(rng, ALNUM, 30)


def g_oci_auth_token(rng: random.Random) -> str:
    return rs(rng, ALNUM + "()[]{}<>;:+-_.#", 20)


def g_ibm_key(rng: random.Random) -> str:
    return rs(rng, ALNUM + "_-", 44)


def g_ghp(rng: random.Random, prefix: str = "ghp_") -> str:
    body = rs(rng, ALNUM, 30)
    return prefix + body + crc32_b62(body)


def g_gho(rng: random.Random) -> str:
    return g_ghp(rng, "gho_")


def g_ghs(rng: random.Random) -> str:
    return g_ghp(rng, "ghs_")


def g_ghr(rng: random.Random) -> str:
    return g_ghp(rng, "ghr_") + rs(rng, ALNUM, 40)


def g_github_pat(rng: random.Random) -> str:
    return "github_pat_11" + rs(rng, UPPER + DIGITS, 7) + "0" + rs(rng, ALNUM, 12) + "_" + rs(rng, ALNUM, 59)


def g_glpat(rng: random.Random) -> str:
    return "glpat-" + rs(rng, ALNUM + "-_", 20)


def g_glrt(rng: random.Random) -> str:
    return "glrt-" + rs(rng, ALNUM + "-_", 20)


def g_gldt(rng: random.Random) -> str:
    return "gldt-" + rs(rng, ALNUM + "-_", 20)


def g_bitbucket(rng: random.Random) -> str:
    return "ATBB" + rs(rng, ALNUM, 28) + rs(rng, HEXU, 8)


def g_atlassian(rng: random.Random) -> str:
    return "ATATT3xFfGF0" + rs(rng, ALNUM + "-_", 170) + "=" + rs(rng, HEXU, 8)


def g_slack_bot(rng: random.Random) -> str:
    return f"xoxb-{rng.randint(10**10, 10**13)}-{rng.randint(10**12, 10**13)}-{rs(rng, ALNUM, 24)}"


def g_slack_user(rng: random.Random) -> str:
    return (f"xoxp-{rng.randint(10**10, 10**12)}-{rng.randint(10**10, 10**12)}-{rng.randint(10**12, 10**13)}-"
            f"{rs(rng, HEX, 32)}")


def g_slack_app(rng: random.Random) -> str:
    return f"xapp-1-A0{rs(rng, UPPER + DIGITS, 9)}-{rng.randint(10**12, 10**13)}-{rs(rng, HEX, 64)}"


def g_slack_webhook(rng: random.Random) -> str:
    return f"https://hooks.slack.com/services/T{rs(rng, UPPER + DIGITS, 8)}/B{rs(rng, UPPER + DIGITS, 10)}/{rs(rng, ALNUM, 24)}"


def g_discord_bot(rng: random.Random) -> str:
    uid = str(rng.randint(10**17, 13 * 10**17))
    return b64u(uid.encode()) + "." + rs(rng, ALNUM + "-_", 6) + "." + rs(rng, ALNUM + "-_", 38)


def g_discord_webhook(rng: random.Random) -> str:
    return f"https://discord.com/api/webhooks/{rng.randint(10**17, 13 * 10**17)}/{rs(rng, ALNUM + '-_', 68)}"


def g_teams_webhook(rng: random.Random) -> str:
    tenant = rs(rng, LOWER, 6)
    return (f"https://{tenant}.webhook.office.com/webhookb2/{uuid4(rng)}@{uuid4(rng)}/IncomingWebhook/"
            f"{rs(rng, HEX, 32)}/{uuid4(rng)}/V2{rs(rng, ALNUM + '-_', 43)}")


def g_telegram(rng: random.Random) -> str:
    return f"{rng.randint(10**9, 8 * 10**9)}:AA{rs(rng, ALNUM + '-_', 33)}"


def g_stripe_sk(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "sk_live_" + rs(rng, ALNUM, 24)
    return "sk_live_51" + rs(rng, ALNUM, 97)


def g_stripe_rk(rng: random.Random) -> str:
    return "rk_live_51" + rs(rng, ALNUM, 97)


def g_stripe_whsec(rng: random.Random) -> str:
    return "whsec_" + rs(rng, ALNUM, 32)


def g_square(rng: random.Random) -> str:
    return "EAAA" + rs(rng, ALNUM + "-_", 60)


def g_square_secret(rng: random.Random) -> str:
    return "sq0csp-" + rs(rng, ALNUM + "-_", 43)


def g_braintree(rng: random.Random) -> str:
    return f"access_token$production${rs(rng, LOWER + DIGITS, 16)}${rs(rng, HEX, 32)}"


def g_paypal_secret(rng: random.Random) -> str:
    return "E" + rs(rng, UPPER, 1) + rs(rng, ALNUM + "-_", 78)


def g_openai(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.6:
        return "sk-proj-" + rs(rng, ALNUM + "-_", 74) + "T3BlbkFJ" + rs(rng, ALNUM + "-_", 74)
    if pick < 0.8:
        return "sk-svcacct-" + rs(rng, ALNUM + "-_", 74) + "T3BlbkFJ" + rs(rng, ALNUM + "-_", 74)
    return "sk-" + rs(rng, ALNUM, 20) + "T3BlbkFJ" + rs(rng, ALNUM, 20)


def g_anthropic(rng: random.Random) -> str:
    prefix = "sk-ant-api03-" if rng.random() < 0.85 else "sk-ant-admin01-"
    return prefix + rs(rng, ALNUM + "-_", 93) + "AA"


def g_cohere(rng: random.Random) -> str:
    return rs(rng, ALNUM, 40)


def g_mistral(rng: random.Random) -> str:
    return rs(rng, ALNUM, 32)


def g_groq(rng: random.Random) -> str:
    return "gsk_" + rs(rng, ALNUM, 52)


def g_replicate(rng: random.Random) -> str:
    return "r8_" + rs(rng, ALNUM, 37)


def g_hf(rng: random.Random) -> str:
    return "hf_" + rs(rng, UPPER + LOWER, 34)


def g_npm(rng: random.Random) -> str:
    body = rs(rng, ALNUM, 30)
    return "npm_" + body + crc32_b62(body)


def g_pypi(rng: random.Random) -> str:
    return "pypi-AgEIcHlwaS5vcmc" + rs(rng, ALNUM + "-_", rng.randint(150, 200))


def g_rubygems(rng: random.Random) -> str:
    return "rubygems_" + rs(rng, HEX, 48)


def g_nuget(rng: random.Random) -> str:
    return "oy2" + rs(rng, LOWER + DIGITS, 43)


def g_docker_pat(rng: random.Random) -> str:
    return "dckr_pat_" + rs(rng, ALNUM + "-_", 27)


def g_twilio_token(rng: random.Random) -> str:
    return rs(rng, HEX, 32)


def g_sendgrid(rng: random.Random) -> str:
    return "SG." + rs(rng, ALNUM + "-_", 22) + "." + rs(rng, ALNUM + "-_", 43)


def g_mailgun(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "key-" + rs(rng, HEX, 32)
    return rs(rng, HEX, 32) + "-" + rs(rng, HEX, 8) + "-" + rs(rng, HEX, 8)


def g_postmark(rng: random.Random) -> str:
    return uuid4(rng)


def g_datadog_api(rng: random.Random) -> str:
    return rs(rng, HEX, 32)


def g_datadog_app(rng: random.Random) -> str:
    return rs(rng, HEX, 40)


def g_newrelic(rng: random.Random) -> str:
    return "NRAK-" + rs(rng, UPPER + DIGITS, 27)


def g_newrelic_license(rng: random.Random) -> str:
    return rs(rng, HEX, 36) + "NRAL"


def g_sentry_dsn_secret(rng: random.Random) -> str:
    return (f"https://{rs(rng, HEX, 32)}:{rs(rng, HEX, 32)}@o{rng.randint(100000, 9999999)}.ingest.sentry.io/"
            f"{rng.randint(1000000, 9999999)}")


def g_sentry_token(rng: random.Random) -> str:
    return "sntryu_" + rs(rng, HEX, 64)


def g_shopify(rng: random.Random) -> str:
    return rng.choice(["shpat_", "shpca_", "shppa_"]) + rs(rng, HEX, 32)


def g_shopify_secret(rng: random.Random) -> str:
    return "shpss_" + rs(rng, HEX, 32)


def g_linear(rng: random.Random) -> str:
    return "lin_api_" + rs(rng, ALNUM, 40)


def g_notion(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "secret_" + rs(rng, ALNUM, 43)
    return "ntn_" + rs(rng, DIGITS, 11) + rs(rng, ALNUM, 35)


def g_airtable(rng: random.Random) -> str:
    return "pat" + rs(rng, ALNUM, 14) + "." + rs(rng, HEX, 64)


def g_vercel(rng: random.Random) -> str:
    return rs(rng, ALNUM, 24)


def g_netlify(rng: random.Random) -> str:
    return "nfp_" + rs(rng, ALNUM, 36)


def g_cloudflare_token(rng: random.Random) -> str:
    return rs(rng, ALNUM + "-_", 40)


def g_cloudflare_global(rng: random.Random) -> str:
    return rs(rng, HEX, 37)


def g_do(rng: random.Random) -> str:
    return rng.choice(["dop_v1_", "doo_v1_"]) + rs(rng, HEX, 64)


def g_heroku(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "HRKU-AA" + rs(rng, ALNUM + "-_", 58)
    return uuid4(rng)


def g_fly(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "fo1_" + rs(rng, ALNUM + "-_", 43)
    return "FlyV1 fm2_lJPECAAAAAAAA" + rs(rng, B64, 180) + ",fm2_lJPE" + rs(rng, B64, 160)


def g_supabase_service(rng: random.Random) -> str:
    ref = rs(rng, LOWER, 20)
    t = rand_day(rng, -400, -30)
    return jwt_token(rng, {"iss": "supabase", "ref": ref, "role": "service_role", "iat": epoch(t),
                           "exp": epoch(t) + 10 * 365 * 86400})


def g_supabase_secret(rng: random.Random) -> str:
    return "sb_secret_" + rs(rng, ALNUM + "-_", 31)


def g_fcm(rng: random.Random) -> str:
    return "AAAA" + rs(rng, ALNUM + "-_", 7) + ":APA91b" + rs(rng, ALNUM + "-_", 134)


def g_vault(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "hvs." + rs(rng, ALNUM, 24)
    return "hvs.CAESI" + rs(rng, ALNUM + "-_", 86)


def g_doppler(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "dp.st." + rng.choice(["prd", "stg", "dev"]) + "." + rs(rng, ALNUM, 40)
    return "dp.pt." + rs(rng, ALNUM, 43)


def g_op_service(rng: random.Random) -> str:
    inner = {
        "signInAddress": "my.1password.com",
        "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256", "iterations": 650000, "salt": b64u(rbytes(rng, 16))},
        "email": rs(rng, LOWER + DIGITS, 13) + "@1passwordserviceaccounts.com",
        "srpX": rs(rng, HEX, 64),
        "muk": {"alg": "A256GCM", "ext": False, "k": b64u(rbytes(rng, 32)), "key_ops": ["encrypt", "decrypt"],
                "kty": "oct", "kid": "mp"},
        "secretKey": "A3-" + "-".join(rs(rng, UPPER + DIGITS, n) for n in (6, 6, 5, 5, 5, 5)),
        "throttleSecret": {"seed": rs(rng, HEX, 64), "uuid": rs(rng, UPPER + DIGITS, 26)},
        "deviceUuid": rs(rng, LOWER + DIGITS, 26),
    }
    return "ops_" + b64u(json.dumps(inner, separators=(",", ":")).encode())


def g_pulumi(rng: random.Random) -> str:
    return "pul-" + rs(rng, HEX, 40)


def g_tfc(rng: random.Random) -> str:
    return rs(rng, ALNUM, 14) + ".atlasv1." + rs(rng, ALNUM, 67)


def g_jwt_generic(rng: random.Random) -> str:
    t = rand_day(rng)
    payload: dict[str, object] = {"sub": uuid4(rng), "iat": epoch(t), "exp": epoch(t) + rng.choice([900, 3600, 86400])}
    if rng.random() < 0.5:
        payload["scope"] = rng.choice(["read:orders write:orders", "admin", "openid profile email"])
    if rng.random() < 0.5:
        payload["iss"] = rng.choice(["https://auth.acme-pay.io/", "https://login.shopwave.dev", "api-gateway"])
    return jwt_token(rng, payload, alg=rng.choice(["HS256", "RS256"]))


def g_oauth_access(rng: random.Random) -> str:
    return rng.choice([
        lambda: rs(rng, ALNUM + "-_", 43),
        lambda: "at_" + rs(rng, ALNUM, 40),
        lambda: "EwB" + rs(rng, ALNUM + "+/", 120) + "=",
    ])()


def g_oauth_refresh(rng: random.Random) -> str:
    pick = rng.randrange(4)
    if pick == 0:
        return "rt_" + rs(rng, ALNUM, 48)
    if pick == 1:
        return "0.AX" + rs(rng, ALNUM + "-_", 300)
    if pick == 2:
        return "v1." + rs(rng, ALNUM + "-_", 96)
    return g_gcp_refresh(rng)


def g_hex_key(rng: random.Random) -> str:
    return rs(rng, HEX, rng.choice([32, 64]))


def g_b64_key(rng: random.Random) -> str:
    return b64(rbytes(rng, rng.choice([32, 48, 64])))


def g_django_secret(rng: random.Random) -> str:
    return rs(rng, LOWER + DIGITS + "!@#%^&*(-_=+)", 50)


def g_rails_secret(rng: random.Random) -> str:
    return rs(rng, HEX, 128)


def g_laravel_key(rng: random.Random) -> str:
    return "base64:" + b64(rbytes(rng, 32))


def g_fernet(rng: random.Random) -> str:
    return base64.urlsafe_b64encode(rbytes(rng, 32)).decode()


def g_totp(rng: random.Random) -> str:
    return base64.b32encode(rbytes(rng, rng.choice([10, 20]))).decode().rstrip("=")


def g_recovery_code(rng: random.Random) -> str:
    return rng.choice([
        rs(rng, HEX, 5) + "-" + rs(rng, HEX, 5),
        rs(rng, DIGITS, 4) + " " + rs(rng, DIGITS, 4),
        rs(rng, UPPER + DIGITS, 4) + "-" + rs(rng, UPPER + DIGITS, 4) + "-" + rs(rng, UPPER + DIGITS, 4),
    ])


def g_inhouse(rng: random.Random) -> str:
    return rng.choice([
        "acme_live_" + rs(rng, ALNUM, 32),
        "sw_prod_" + rs(rng, HEX, 40),
        rs(rng, ALNUM, 48),
        "kp-" + rs(rng, LOWER + DIGITS, 8) + "-" + rs(rng, ALNUM, 32),
        "int." + b64u(rbytes(rng, 24)),
    ])


def g_wireguard_private(rng: random.Random) -> str:
    return b64(rbytes(rng, 32))


def g_session_cookie(rng: random.Random) -> tuple[str, str]:
    name = rng.choice(["sessionid", "PHPSESSID", "JSESSIONID", "connect.sid", "_shop_session", "laravel_session"])
    if name == "sessionid":
        return name, rs(rng, LOWER + DIGITS, 32)
    if name == "PHPSESSID":
        return name, rs(rng, "abcdefghijklmnopqrstuv" + DIGITS, 26)
    if name == "JSESSIONID":
        return name, rs(rng, HEXU, 32)
    if name == "connect.sid":
        return name, "s%3A" + rs(rng, ALNUM + "-_", 32) + "." + urllib.parse.quote(b64(rbytes(rng, 32)).rstrip("="), safe="")
    if name == "_shop_session":
        return name, urllib.parse.quote(b64(rbytes(rng, 96)), safe="") + "--" + rs(rng, HEX, 40)
    return name, "eyJpdiI6" + rs(rng, ALNUM, 180) + "%3D%3D"


def uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


@dataclass(frozen=True)
class Spec:
    kind: str
    envs: tuple[str, ...]
    gen: Callable[[random.Random], str]
    vendor: str


SECRET_SPECS: list[Spec] = [
    Spec("aws_access_key_id", ("AWS_ACCESS_KEY_ID",), g_aws_key_id, "AWS"),
    Spec("aws_secret_access_key", ("AWS_SECRET_ACCESS_KEY",), g_aws_secret, "AWS"),
    Spec("gcp_api_key", ("GOOGLE_API_KEY", "GCP_API_KEY", "MAPS_SERVER_KEY"), g_gcp_api_key, "Google Cloud"),
    Spec("gcp_oauth_access_token", ("GOOGLE_OAUTH_ACCESS_TOKEN", "GCLOUD_ACCESS_TOKEN"), g_gcp_access_token, "Google"),
    Spec("azure_storage_connection_string", ("AZURE_STORAGE_CONNECTION_STRING",), g_azure_conn, "Azure"),
    Spec("azure_servicebus_connection_string", ("SERVICEBUS_CONNECTION",), g_azure_sb_conn, "Azure"),
    Spec("azure_client_secret", ("AZURE_CLIENT_SECRET",), g_azure_client_secret, "Azure"),
    Spec("azure_sas_url", ("EXPORT_SAS_URL",), g_azure_sas_url, "Azure"),
    Spec("alibaba_access_key_id", ("ALIBABA_CLOUD_ACCESS_KEY_ID",), g_alibaba_id, "Alibaba Cloud"),
    Spec("alibaba_access_key_secret", ("ALIBABA_CLOUD_ACCESS_KEY_SECRET",), g_alibaba_secret, "Alibaba Cloud"),
    Spec("oci_auth_token", ("OCI_AUTH_TOKEN", "OCIR_PASSWORD"), g_oci_auth_token, "Oracle Cloud"),
    Spec("ibm_cloud_api_key", ("IBMCLOUD_API_KEY", "IC_API_KEY"), g_ibm_key, "IBM Cloud"),
    Spec("github_classic_pat", ("GITHUB_TOKEN", "GH_TOKEN", "HOMEBREW_GITHUB_API_TOKEN"), g_ghp, "GitHub"),
    Spec("github_oauth_token", ("GH_OAUTH_TOKEN",), g_gho, "GitHub"),
    Spec("github_app_token", ("GITHUB_APP_INSTALLATION_TOKEN",), g_ghs, "GitHub"),
    Spec("github_fine_grained_pat", ("GITHUB_PAT", "GH_TOKEN"), g_github_pat, "GitHub"),
    Spec("gitlab_pat", ("GITLAB_TOKEN", "CI_JOB_PAT"), g_glpat, "GitLab"),
    Spec("gitlab_runner_token", ("RUNNER_TOKEN",), g_glrt, "GitLab"),
    Spec("gitlab_deploy_token", ("GITLAB_DEPLOY_TOKEN",), g_gldt, "GitLab"),
    Spec("bitbucket_app_password", ("BITBUCKET_APP_PASSWORD",), g_bitbucket, "Bitbucket"),
    Spec("atlassian_api_token", ("JIRA_API_TOKEN", "CONFLUENCE_TOKEN"), g_atlassian, "Atlassian"),
    Spec("slack_bot_token", ("SLACK_BOT_TOKEN",), g_slack_bot, "Slack"),
    Spec("slack_user_token", ("SLACK_USER_TOKEN",), g_slack_user, "Slack"),
    Spec("slack_app_token", ("SLACK_APP_TOKEN",), g_slack_app, "Slack"),
    Spec("slack_webhook_url", ("SLACK_WEBHOOK_URL",), g_slack_webhook, "Slack"),
    Spec("discord_bot_token", ("DISCORD_TOKEN", "DISCORD_BOT_TOKEN"), g_discord_bot, "Discord"),
    Spec("discord_webhook_url", ("DISCORD_WEBHOOK",), g_discord_webhook, "Discord"),
    Spec("teams_webhook_url", ("TEAMS_WEBHOOK_URL",), g_teams_webhook, "Microsoft Teams"),
    Spec("telegram_bot_token", ("TELEGRAM_BOT_TOKEN", "TG_TOKEN"), g_telegram, "Telegram"),
    Spec("stripe_secret_key", ("STRIPE_SECRET_KEY", "STRIPE_API_KEY"), g_stripe_sk, "Stripe"),
    Spec("stripe_restricted_key", ("STRIPE_RESTRICTED_KEY",), g_stripe_rk, "Stripe"),
    Spec("stripe_webhook_secret", ("STRIPE_WEBHOOK_SECRET",), g_stripe_whsec, "Stripe"),
    Spec("square_access_token", ("SQUARE_ACCESS_TOKEN",), g_square, "Square"),
    Spec("square_app_secret", ("SQUARE_APP_SECRET",), g_square_secret, "Square"),
    Spec("braintree_access_token", ("BRAINTREE_ACCESS_TOKEN", "PAYPAL_ACCESS_TOKEN"), g_braintree, "PayPal Braintree"),
    Spec("paypal_client_secret", ("PAYPAL_CLIENT_SECRET",), g_paypal_secret, "PayPal"),
    Spec("openai_api_key", ("OPENAI_API_KEY",), g_openai, "OpenAI"),
    Spec("anthropic_api_key", ("ANTHROPIC_API_KEY",), g_anthropic, "Anthropic"),
    Spec("cohere_api_key", ("COHERE_API_KEY", "CO_API_KEY"), g_cohere, "Cohere"),
    Spec("mistral_api_key", ("MISTRAL_API_KEY",), g_mistral, "Mistral"),
    Spec("groq_api_key", ("GROQ_API_KEY",), g_groq, "Groq"),
    Spec("replicate_api_token", ("REPLICATE_API_TOKEN",), g_replicate, "Replicate"),
    Spec("huggingface_token", ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"), g_hf, "Hugging Face"),
    Spec("npm_token", ("NPM_TOKEN", "NODE_AUTH_TOKEN"), g_npm, "npm"),
    Spec("pypi_token", ("PYPI_API_TOKEN", "TWINE_PASSWORD"), g_pypi, "PyPI"),
    Spec("rubygems_api_key", ("GEM_HOST_API_KEY",), g_rubygems, "RubyGems"),
    Spec("nuget_api_key", ("NUGET_API_KEY",), g_nuget, "NuGet"),
    Spec("docker_hub_pat", ("DOCKERHUB_TOKEN", "DOCKER_PASSWORD"), g_docker_pat, "Docker Hub"),
    Spec("twilio_auth_token", ("TWILIO_AUTH_TOKEN",), g_twilio_token, "Twilio"),
    Spec("sendgrid_api_key", ("SENDGRID_API_KEY",), g_sendgrid, "SendGrid"),
    Spec("mailgun_api_key", ("MAILGUN_API_KEY",), g_mailgun, "Mailgun"),
    Spec("postmark_server_token", ("POSTMARK_SERVER_TOKEN", "POSTMARK_API_TOKEN"), g_postmark, "Postmark"),
    Spec("datadog_api_key", ("DD_API_KEY", "DATADOG_API_KEY"), g_datadog_api, "Datadog"),
    Spec("datadog_app_key", ("DD_APP_KEY",), g_datadog_app, "Datadog"),
    Spec("newrelic_user_key", ("NEW_RELIC_API_KEY",), g_newrelic, "New Relic"),
    Spec("newrelic_license_key", ("NEW_RELIC_LICENSE_KEY",), g_newrelic_license, "New Relic"),
    Spec("sentry_dsn_with_secret", ("SENTRY_DSN",), g_sentry_dsn_secret, "Sentry"),
    Spec("sentry_auth_token", ("SENTRY_AUTH_TOKEN",), g_sentry_token, "Sentry"),
    Spec("shopify_access_token", ("SHOPIFY_ACCESS_TOKEN", "SHOPIFY_ADMIN_TOKEN"), g_shopify, "Shopify"),
    Spec("shopify_shared_secret", ("SHOPIFY_API_SECRET",), g_shopify_secret, "Shopify"),
    Spec("linear_api_key", ("LINEAR_API_KEY",), g_linear, "Linear"),
    Spec("notion_token", ("NOTION_TOKEN", "NOTION_API_KEY"), g_notion, "Notion"),
    Spec("airtable_pat", ("AIRTABLE_API_KEY", "AIRTABLE_PAT"), g_airtable, "Airtable"),
    Spec("vercel_token", ("VERCEL_TOKEN",), g_vercel, "Vercel"),
    Spec("netlify_token", ("NETLIFY_AUTH_TOKEN",), g_netlify, "Netlify"),
    Spec("cloudflare_api_token", ("CLOUDFLARE_API_TOKEN", "CF_API_TOKEN"), g_cloudflare_token, "Cloudflare"),
    Spec("cloudflare_global_api_key", ("CLOUDFLARE_API_KEY", "CF_API_KEY"), g_cloudflare_global, "Cloudflare"),
    Spec("digitalocean_token", ("DIGITALOCEAN_TOKEN", "DO_API_TOKEN"), g_do, "DigitalOcean"),
    Spec("heroku_api_key", ("HEROKU_API_KEY",), g_heroku, "Heroku"),
    Spec("fly_token", ("FLY_API_TOKEN",), g_fly, "Fly.io"),
    Spec("supabase_service_role_key", ("SUPABASE_SERVICE_ROLE_KEY",), g_supabase_service, "Supabase"),
    Spec("supabase_secret_key", ("SUPABASE_SECRET_KEY",), g_supabase_secret, "Supabase"),
    Spec("firebase_fcm_server_key", ("FCM_SERVER_KEY", "FIREBASE_SERVER_KEY"), g_fcm, "Firebase"),
    Spec("vault_token", ("VAULT_TOKEN",), g_vault, "HashiCorp Vault"),
    Spec("doppler_token", ("DOPPLER_TOKEN",), g_doppler, "Doppler"),
    Spec("onepassword_service_account_token", ("OP_SERVICE_ACCOUNT_TOKEN",), g_op_service, "1Password"),
    Spec("pulumi_access_token", ("PULUMI_ACCESS_TOKEN",), g_pulumi, "Pulumi"),
    Spec("terraform_cloud_token", ("TFE_TOKEN", "TF_TOKEN_app_terraform_io"), g_tfc, "Terraform Cloud"),
    Spec("jwt", ("AUTH_TOKEN", "API_JWT", "SERVICE_JWT"), g_jwt_generic, "JWT"),
    Spec("oauth_access_token", ("OAUTH_ACCESS_TOKEN", "ACCESS_TOKEN"), g_oauth_access, "OAuth"),
    Spec("oauth_refresh_token", ("OAUTH_REFRESH_TOKEN", "REFRESH_TOKEN"), g_oauth_refresh, "OAuth"),
    Spec("signing_key", ("JWT_SECRET", "WEBHOOK_SIGNING_SECRET", "HMAC_KEY", "SIGNING_KEY"), g_hex_key, "app"),
    Spec("encryption_key", ("ENCRYPTION_KEY", "MASTER_KEY", "DATA_KEY"), g_b64_key, "app"),
    Spec("django_secret_key", ("DJANGO_SECRET_KEY", "SECRET_KEY"), g_django_secret, "Django"),
    Spec("rails_secret_key_base", ("SECRET_KEY_BASE",), g_rails_secret, "Rails"),
    Spec("laravel_app_key", ("APP_KEY",), g_laravel_key, "Laravel"),
    Spec("fernet_key", ("FERNET_KEY",), g_fernet, "app"),
    Spec("totp_seed", ("TOTP_SECRET", "MFA_SEED"), g_totp, "TOTP"),
    Spec("inhouse_api_key", ("INTERNAL_API_KEY", "PARTNER_API_KEY", "BILLING_SERVICE_KEY"), g_inhouse, "in-house"),
]
SPEC_BY_KIND = {s.kind: s for s in SECRET_SPECS}


# the kinds that travel as "Authorization: Bearer ..." in real traffic
BEARER_KINDS = ["jwt", "oauth_access_token", "openai_api_key", "anthropic_api_key", "github_classic_pat", "github_fine_grained_pat",
                "github_app_token", "gitlab_pat", "stripe_secret_key", "slack_bot_token", "inhouse_api_key", "sendgrid_api_key",
                "groq_api_key", "mistral_api_key", "huggingface_token", "linear_api_key", "notion_token", "airtable_pat",
                "vercel_token", "netlify_token", "cloudflare_api_token", "digitalocean_token", "gcp_oauth_access_token",
                "square_access_token", "shopify_access_token", "replicate_api_token", "cohere_api_key", "doppler_token",
                "terraform_cloud_token", "pulumi_access_token", "supabase_service_role_key", "sentry_auth_token"]


# Rows that take "any vendor" draw from a shuffled deck rather than at random, so that every vendor
# format shows up about equally often; build() resets the deck from the seed.
_DECK: list[Spec] = []
_DECK_RNG = random.Random(0)


def reset_deck(seed: int) -> None:
    _DECK.clear()
    _DECK_RNG.seed(f"{seed}:deck")


def deal_specs(n: int, exclude: tuple[str, ...] = ()) -> list[Spec]:
    out: list[Spec] = []
    skipped: list[Spec] = []
    while len(out) < n:
        if not _DECK:
            fresh = list(SECRET_SPECS)
            _DECK_RNG.shuffle(fresh)
            _DECK[:0] = fresh
        s = _DECK.pop()
        if s.kind in exclude or s in out:
            skipped.append(s)
            continue
        out.append(s)
    _DECK.extend(reversed(skipped))
    return out


def gen_db_url(rng: random.Random, pw: str | None = None, scheme: str | None = None) -> tuple[str, str]:
    """A connection URL with a password; returns (url, password)."""
    choices = [("postgres", 5432, "app"), ("postgresql", 5432, "orders"), ("mysql", 3306, "shop"),
               ("mongodb+srv", 0, "analytics"), ("redis", 6379, "0"), ("amqp", 5672, "vhost"), ("mssql", 1433, "crm")]
    scheme, port, db = rng.choice([c for c in choices if scheme is None or c[0] == scheme])
    user = rng.choice(["app", "svc_orders", "admin", "readonly", "etl", "root", "api"])
    if pw is None:
        pw = gen_password(rng, rng.choice(["word_digits", "random_long", "leet", "short"]))
    enc = urllib.parse.quote(pw, safe="")
    host = rng.choice({
        "postgres": ["db.internal", "pg-prod-1.c8xk2lq.eu-west-1.rds.amazonaws.com", "10.0.4.21", "db-shop.postgres.database.azure.com"],
        "postgresql": ["postgres.svc.cluster.local", "orders-db.internal", "10.20.3.14"],
        "mysql": ["mysql.svc.cluster.local", "shop-db.cluster-c9akciq32.eu-central-1.rds.amazonaws.com", "10.0.7.12"],
        "mongodb+srv": ["cluster0.ab1cd.mongodb.net", "analytics.x7kq2.mongodb.net"],
        "redis": ["redis-prod.acme.internal", "10.0.5.9", "cache.shop.internal"],
        "amqp": ["rabbit.prod.local", "mq.acme.internal"],
        "mssql": ["sql-crm.database.windows.net"],
    }[scheme])
    if scheme == "mongodb+srv":
        return f"mongodb+srv://{user}:{enc}@{host}/{db}?retryWrites=true&w=majority", pw
    if scheme == "redis":
        return f"redis://:{enc}@{host}:{port}/{db}", pw
    return f"{scheme}://{user}:{enc}@{host}:{port}/{db}", pw


# ---------------------------------------------------------------- personal data


def _pairs(s: str) -> list[tuple[str, str]]:
    """'native/latin, other' -> [(native, latin), (other, other)]."""
    out = []
    for item in s.split(","):
        item = item.strip()
        if "/" in item:
            a, b = item.split("/")
            out.append((a, b))
        else:
            out.append((item, strip_accents(item)))
    return out


def _families(s: str) -> list[tuple[str, str, str, str]]:
    """'m_native/m_latin|f_native/f_latin' or 'neutral' -> (m_native, f_native, m_latin, f_latin)."""
    out = []
    for item in s.split(","):
        item = item.strip()
        if "|" in item:
            m, f = item.split("|")
            mn, ml = _pairs(m)[0]
            fn, fl = _pairs(f)[0]
            out.append((mn, fn, ml, fl))
        else:
            n, lat = _pairs(item)[0]
            out.append((n, n, lat, lat))
    return out


NAMES: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, str, str, str]]]] = {
    "US": (_pairs("James, Michael, David, Robert, Daniel, Kevin, Marcus"),
           _pairs("Jennifer, Emily, Sarah, Jessica, Ashley, Megan, Danielle"),
           _families("Miller, Johnson, Carter, Brooks, Hernandez, Walker, Sullivan, Reed, Coleman")),
    "GB": (_pairs("Oliver, Harry, George, Thomas, Callum"),
           _pairs("Amelia, Charlotte, Sophie, Eleanor, Imogen"),
           _families("Thompson, Hughes, Clarke, Fletcher, Whitaker, Pryce, Osborne")),
    "CA": (_pairs("Liam, Noah, Ethan, Mathieu"), _pairs("Olivia, Chloe, Avery, Geneviève"),
           _families("Tremblay, MacDonald, Gagnon, Campbell, Wilson")),
    "AU": (_pairs("Jack, Lachlan, Cooper, Riley"), _pairs("Isla, Matilda, Ruby, Zoe"),
           _families("Nguyen, Kelly, O'Brien, Mitchell, Harris")),
    "DE": (_pairs("Lukas, Jonas, Felix, Matthias, Tobias, Jörg"),
           _pairs("Anna, Lea, Katharina, Sabine, Miriam, Anke"),
           _families("Müller, Schneider, Fischer, Weber, Becker, Hoffmann, Schäfer, Krüger")),
    "FR": (_pairs("Julien, Mathieu, Nicolas, Antoine, Hugo"), _pairs("Camille, Léa, Manon, Chloé, Élodie"),
           _families("Martin, Bernard, Dubois, Lefèvre, Moreau, Girard, Rousseau")),
    "BE": (_pairs("Wouter, Pieter, Maxime, Arnaud"), _pairs("Lien, Elke, Aurélie, Margaux"),
           _families("Peeters, Janssens, Maes, Dupont, Lambert, Claes")),
    "ES": (_pairs("Javier, Alejandro, Sergio, Pablo"), _pairs("Lucía, Marta, Carmen, Elena"),
           _families("García, Fernández, López, Martínez, Sánchez, Romero, Navarro, Ortega")),
    "MX": (_pairs("Jose, Luis, Jorge, Ricardo"), _pairs("Guadalupe, Fernanda, Ximena, Adriana"),
           _families("Hernandez, Ramirez, Flores, Torres, Cruz, Morales, Vazquez, Gutierrez")),
    "BR": (_pairs("João, Pedro, Gabriel, Rafael, Thiago"), _pairs("Ana, Juliana, Beatriz, Larissa, Camila"),
           _families("Silva, Santos, Oliveira, Souza, Pereira, Costa, Almeida, Ferreira")),
    "PT": (_pairs("Tiago, Rui, Duarte, Nuno"), _pairs("Inês, Mariana, Sofia, Leonor"),
           _families("Ferreira, Rodrigues, Gonçalves, Carvalho, Marques")),
    "IT": (_pairs("Marco, Alessandro, Luca, Giuseppe, Matteo"),
           _pairs("Giulia, Francesca, Chiara, Valentina, Sara"),
           _families("Rossi, Russo, Ferrari, Esposito, Bianchi, Romano, Colombo, Ricci, Marino")),
    "NL": (_pairs("Daan, Sander, Bram, Joost, Thijs"), _pairs("Sanne, Lotte, Fleur, Femke, Anouk"),
           _families("de Vries, Jansen, van den Berg, Bakker, Visser, Smit, Meijer, de Boer")),
    "PL": (_pairs("Piotr, Krzysztof, Tomasz, Michał, Paweł"),
           _pairs("Agnieszka, Katarzyna, Magdalena, Joanna, Ewa"),
           _families("Kowalski|Kowalska, Nowak, Wiśniewski|Wiśniewska, Wójcik, Lewandowski|Lewandowska, "
                     "Zieliński|Zielińska, Kamiński|Kamińska")),
    "RU": (_pairs("Алексей/Aleksey, Дмитрий/Dmitry, Сергей/Sergey, Иван/Ivan, Никита/Nikita"),
           _pairs("Анна/Anna, Екатерина/Ekaterina, Ольга/Olga, Мария/Maria, Татьяна/Tatiana"),
           _families("Иванов/Ivanov|Иванова/Ivanova, Смирнов/Smirnov|Смирнова/Smirnova, "
                     "Кузнецов/Kuznetsov|Кузнецова/Kuznetsova, Попов/Popov|Попова/Popova, "
                     "Соколов/Sokolov|Соколова/Sokolova, Волков/Volkov|Волкова/Volkova")),
    "UA": (_pairs("Олександр/Oleksandr, Андрій/Andrii, Тарас/Taras, Дмитро/Dmytro, Богдан/Bohdan"),
           _pairs("Олена/Olena, Ірина/Iryna, Оксана/Oksana, Наталія/Nataliia, Софія/Sofiia"),
           _families("Шевченко/Shevchenko, Коваленко/Kovalenko, Бондаренко/Bondarenko, Ткаченко/Tkachenko, "
                     "Мельник/Melnyk, Кравчук/Kravchuk, Бойко/Boiko")),
    "JP": (_pairs("翔太/Shota, 大輔/Daisuke, 健一/Kenichi, 拓也/Takuya"),
           _pairs("陽子/Yoko, 美咲/Misaki, 結衣/Yui, 恵/Megumi"),
           _families("佐藤/Sato, 鈴木/Suzuki, 高橋/Takahashi, 田中/Tanaka, 伊藤/Ito, 渡辺/Watanabe")),
    "CN": (_pairs("伟/Wei, 强/Qiang, 磊/Lei, 建国/Jianguo, 浩然/Haoran"),
           _pairs("芳/Fang, 静/Jing, 丽娟/Lijuan, 晓燕/Xiaoyan, 雨桐/Yutong"),
           _families("王/Wang, 李/Li, 张/Zhang, 刘/Liu, 陈/Chen, 杨/Yang, 黄/Huang")),
    "KR": (_pairs("민준/Minjun, 지훈/Jihoon, 도윤/Doyoon, 현우/Hyunwoo"),
           _pairs("서연/Seoyeon, 지은/Jieun, 수빈/Subin, 하은/Haeun"),
           _families("김/Kim, 이/Lee, 박/Park, 최/Choi, 정/Jung, 강/Kang")),
    "TR": (_pairs("Mehmet, Mustafa, Emre, Burak, Oğuz"), _pairs("Ayşe, Elif, Zeynep, Fatma, Büşra"),
           _families("Yılmaz, Kaya, Demir, Şahin, Çelik, Yıldız, Öztürk")),
    "SE": (_pairs("Erik, Lars, Johan, Oskar, Björn"), _pairs("Emma, Maja, Karin, Linnea, Ingrid"),
           _families("Andersson, Johansson, Karlsson, Nilsson, Lindqvist, Bergström")),
    "DK": (_pairs("Mads, Rasmus, Frederik, Søren"), _pairs("Mette, Sofie, Ida, Signe"),
           _families("Jensen, Nielsen, Hansen, Pedersen, Christensen, Sørensen")),
    "FI": (_pairs("Mikko, Juha, Antti, Ville"), _pairs("Aino, Laura, Sanna, Helmi"),
           _families("Korhonen, Virtanen, Mäkinen, Nieminen, Heikkinen")),
    "SA": (_pairs("محمد/Mohammed, عبدالله/Abdullah, خالد/Khalid, فيصل/Faisal"),
           _pairs("نورة/Noura, سارة/Sara, ريم/Reem, فاطمة/Fatimah"),
           _families("العتيبي/Al-Otaibi, الشمري/Al-Shammari, القحطاني/Al-Qahtani, الحربي/Al-Harbi, الغامدي/Al-Ghamdi")),
    "AE": (_pairs("أحمد/Ahmed, سعيد/Saeed, راشد/Rashid"), _pairs("مريم/Maryam, شيخة/Shaikha, عائشة/Aisha"),
           _families("المنصوري/Al-Mansouri, الكعبي/Al-Kaabi, الظاهري/Al-Dhaheri")),
    "IN": (_pairs("राहुल/Rahul, अमित/Amit, विकास/Vikas, अर्जुन/Arjun, संजय/Sanjay"),
           _pairs("प्रिया/Priya, नेहा/Neha, अंजलि/Anjali, पूजा/Pooja, कविता/Kavita"),
           _families("शर्मा/Sharma, वर्मा/Verma, गुप्ता/Gupta, सिंह/Singh, पटेल/Patel, अय्यर/Iyer")),
    "VN": (_pairs("Văn Minh, Đức Anh, Quang Huy, Hoàng Nam"), _pairs("Thị Lan, Thu Hà, Ngọc Anh, Thanh Hương"),
           _families("Nguyễn, Trần, Lê, Phạm, Hoàng, Vũ")),
}

LANG_LOCALES: dict[str, list[str]] = {
    "en": ["US", "GB", "CA", "AU", "DK", "FI", "US", "GB"], "de": ["DE"], "fr": ["FR", "FR", "BE"], "es": ["ES", "MX"],
    "pt": ["BR", "PT"], "it": ["IT"], "nl": ["NL", "NL", "BE"], "pl": ["PL"], "ru": ["RU"], "uk": ["UA"],
    "ja": ["JP"], "zh": ["CN"], "ko": ["KR"], "tr": ["TR"], "sv": ["SE", "SE", "FI"], "ar": ["SA", "AE"],
    "hi": ["IN"], "vi": ["VN"],
}

MAIL_DOMAINS = {
    "US": "gmail.com yahoo.com outlook.com icloud.com", "GB": "btinternet.com gmail.com hotmail.co.uk",
    "CA": "gmail.com rogers.com", "AU": "bigpond.com gmail.com", "DE": "web.de gmx.de t-online.de posteo.de",
    "FR": "orange.fr free.fr laposte.net gmail.com", "BE": "skynet.be telenet.be", "ES": "gmail.com hotmail.es telefonica.net",
    "MX": "gmail.com hotmail.com prodigy.net.mx", "BR": "gmail.com uol.com.br bol.com.br", "PT": "sapo.pt gmail.com",
    "IT": "libero.it virgilio.it gmail.com", "NL": "ziggo.nl kpnmail.nl gmail.com", "PL": "wp.pl onet.pl interia.pl",
    "RU": "mail.ru yandex.ru", "UA": "ukr.net i.ua gmail.com", "JP": "yahoo.co.jp docomo.ne.jp gmail.com",
    "CN": "qq.com 163.com 126.com", "KR": "naver.com daum.net kakao.com", "TR": "gmail.com hotmail.com.tr yandex.com.tr",
    "SE": "telia.com gmail.com bredband.net", "DK": "gmail.com mail.dk", "FI": "gmail.com elisanet.fi",
    "SA": "gmail.com hotmail.com", "AE": "gmail.com eim.ae", "IN": "gmail.com rediffmail.com yahoo.co.in",
    "VN": "gmail.com yahoo.com.vn",
}

@dataclass
class Person:
    locale: str
    given: str
    family: str
    full: str
    latin: str
    sex: str
    dob: dt.date
    email: str
    phone_nat: str
    phone_intl: str
    address: str
    natid_kind: str
    natid: str


def digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(DIGITS) for _ in range(n))


def gen_phone(rng: random.Random, loc: str) -> tuple[str, str]:
    d = digits
    if loc in ("US", "CA"):
        area = rng.choice(["212", "312", "415", "503", "617", "646", "702", "713", "404", "612"] if loc == "US"
                          else ["416", "604", "514", "403", "613"])
        exch = str(rng.randint(2, 9)) + d(rng, 2)
        if exch == "555":
            exch = "556"
        line = d(rng, 4)
        nat = rng.choice([f"({area}) {exch}-{line}", f"{area}-{exch}-{line}", f"{area}.{exch}.{line}"])
        return nat, rng.choice([f"+1 {area} {exch} {line}", f"+1 ({area}) {exch}-{line}", f"+1-{area}-{exch}-{line}"])
    if loc == "GB":
        pre = str(rng.choice([74, 75, 77, 78, 79])) + d(rng, 2)
        if pre.startswith("77"):
            pre = "78" + pre[2:]
        rest = d(rng, 6)
        return f"0{pre} {rest}", f"+44 {pre} {rest[:3]} {rest[3:]}"
    if loc == "AU":
        a, b, c = "4" + d(rng, 2), d(rng, 3), d(rng, 3)
        return f"0{a} {b} {c}", f"+61 {a} {b} {c}"
    if loc == "DE":
        if rng.random() < 0.6:
            pre = rng.choice(["151", "152", "160", "170", "171", "176", "157"])
            rest = d(rng, 8 if pre.startswith("15") else 7)
            return f"0{pre} {rest}", f"+49 {pre} {rest}"
        city = rng.choice(["30", "40", "89", "221", "69"])
        rest = d(rng, 8 if len(city) == 2 else 7)
        return f"0{city} {rest}", f"+49 {city} {rest}"
    if loc == "FR":
        g = [rng.choice("67")] + [d(rng, 2) for _ in range(4)]
        return "0" + g[0] + " " + " ".join(g[1:]), "+33 " + " ".join(g)
    if loc == "BE":
        a, b, c, e = "4" + rng.choice(["70", "75", "77", "85", "95"]), d(rng, 2), d(rng, 2), d(rng, 2)
        return f"0{a} {b} {c} {e}", f"+32 {a} {b} {c} {e}"
    if loc == "ES":
        a, b, c = "6" + d(rng, 2), d(rng, 3), d(rng, 3)
        return rng.choice([f"{a} {b} {c}", f"{a}{b}{c}"]), f"+34 {a} {b} {c}"
    if loc == "MX":
        a, b = d(rng, 4), d(rng, 4)
        return f"55 {a} {b}", f"+52 55 {a} {b}"
    if loc == "BR":
        area = rng.choice(["11", "21", "31", "41", "51", "61"])
        a, b = "9" + d(rng, 4), d(rng, 4)
        return f"({area}) {a}-{b}", f"+55 {area} {a}-{b}"
    if loc == "PT":
        a, b, c = "9" + rng.choice("1236") + d(rng, 1), d(rng, 3), d(rng, 3)
        return f"{a} {b} {c}", f"+351 {a} {b} {c}"
    if loc == "IT":
        a, b, c = "3" + rng.choice(["47", "48", "33", "39", "40", "28"]), d(rng, 3), d(rng, 4)
        return f"{a} {b}{c}", f"+39 {a} {b} {c}"
    if loc == "NL":
        rest = d(rng, 8)
        return f"06-{rest}", f"+31 6 {rest}"
    if loc == "PL":
        a, b, c = rng.choice("5678") + d(rng, 2), d(rng, 3), d(rng, 3)
        return f"{a} {b} {c}", f"+48 {a} {b} {c}"
    if loc == "RU":
        a, b, c, e = "9" + d(rng, 2), d(rng, 3), d(rng, 2), d(rng, 2)
        return f"8 ({a}) {b}-{c}-{e}", f"+7 ({a}) {b}-{c}-{e}"
    if loc == "UA":
        op = rng.choice(["67", "50", "93", "97", "63", "66"])
        a, b, c = d(rng, 3), d(rng, 2), d(rng, 2)
        return f"0{op} {a} {b} {c}", f"+380 {op} {a} {b} {c}"
    if loc == "JP":
        if rng.random() < 0.7:
            p = rng.choice(["90", "80", "70"])
            a, b = d(rng, 4), d(rng, 4)
            return f"0{p}-{a}-{b}", f"+81 {p}-{a}-{b}"
        a, b = d(rng, 4), d(rng, 4)
        return f"03-{a}-{b}", f"+81 3-{a}-{b}"
    if loc == "CN":
        a, b, c = "1" + rng.choice(["38", "39", "58", "86", "35"]), d(rng, 4), d(rng, 4)
        return rng.choice([f"{a}{b}{c}", f"{a} {b} {c}"]), f"+86 {a} {b} {c}"
    if loc == "KR":
        a, b = d(rng, 4), d(rng, 4)
        return f"010-{a}-{b}", f"+82 10-{a}-{b}"
    if loc == "TR":
        a, b, c, e = "5" + rng.choice(["32", "33", "35", "42", "05", "55"]), d(rng, 3), d(rng, 2), d(rng, 2)
        return f"0{a} {b} {c} {e}", f"+90 {a} {b} {c} {e}"
    if loc == "SE":
        a, b, c, e = "7" + rng.choice("0236"), d(rng, 3), d(rng, 2), d(rng, 2)
        return f"0{a}-{b} {c} {e}", f"+46 {a} {b} {c} {e}"
    if loc == "DK":
        g = [rng.choice(["20", "22", "26", "28", "30", "40", "42", "50", "60"])] + [d(rng, 2) for _ in range(3)]
        return " ".join(g), "+45 " + " ".join(g)
    if loc == "FI":
        a, b, c = "4" + rng.choice("0145"), d(rng, 3), d(rng, 4)
        return f"0{a} {b} {c}", f"+358 {a} {b} {c}"
    if loc in ("SA", "AE"):
        a, b, c = "5" + rng.choice("0345"), d(rng, 3), d(rng, 4)
        cc = "966" if loc == "SA" else "971"
        return f"0{a} {b} {c}", f"+{cc} {a} {b} {c}"
    if loc == "IN":
        a, b = rng.choice("6789") + d(rng, 4), d(rng, 5)
        return f"0{a} {b}", f"+91 {a} {b}"
    if loc == "VN":
        a, b, c = "9" + d(rng, 2), d(rng, 3), d(rng, 3)
        return f"0{a} {b} {c}", f"+84 {a} {b} {c}"
    raise ValueError(loc)


def gen_address(rng: random.Random, loc: str) -> str:
    n = rng.randint(2, 180)
    c = rng.choice
    if loc == "US":
        return (f"{rng.randint(100, 9899)} {c(['Maple Ave', 'Oak Street', 'W 72nd St', 'Elm Drive', 'Lakeview Blvd'])}"
                f"{c(['', ', Apt ' + str(rng.randint(1, 40)) + c('ABCD')])}, "
                f"{c(['Columbus, OH 432', 'Austin, TX 787', 'Portland, OR 972', 'Denver, CO 802', 'Raleigh, NC 276'])}{digits(rng, 2)}")
    if loc == "GB":
        return (f"{n} {c(['Kingsley Road', 'Mill Lane', 'Victoria Street', 'Church Walk'])}, "
                f"{c(['Leeds LS6', 'Bristol BS7', 'Manchester M20', 'London N16'])} {rng.randint(1, 9)}{c(UPPER)}{c(UPPER)}")
    if loc == "CA":
        return (f"{rng.randint(10, 3999)} {c(['Rue Saint-Denis', 'Queen Street West', 'Granville St'])}, "
                f"{c(['Montréal, QC H2X', 'Toronto, ON M5V', 'Vancouver, BC V6Z'])} {rng.randint(1, 9)}{c('ABCEGHJ')}{rng.randint(1, 9)}")
    if loc == "AU":
        return (f"{n} {c(['Beach Road', 'George Street', 'Smith St'])}, "
                f"{c(['Bondi NSW 2026', 'Fitzroy VIC 3065', 'Fremantle WA 6160'])}")
    if loc == "DE":
        return (f"{c(['Lindenstraße', 'Hauptstraße', 'Schillerweg', 'Am Markt', 'Bahnhofstraße'])} {n}"
                f"{c(['', 'a', 'b'])}, {c(['10969 Berlin', '80331 München', '50667 Köln', '20095 Hamburg', '04109 Leipzig'])}")
    if loc == "FR":
        return (f"{n} {c(['rue des Lilas', 'avenue Jean Jaurès', 'boulevard Voltaire', 'rue de la République'])}, "
                f"{c(['69003 Lyon', '75011 Paris', '13006 Marseille', '31000 Toulouse', '44000 Nantes'])}")
    if loc == "BE":
        return (f"{c(['Rue de la Loi', 'Meir', 'Kerkstraat', 'Avenue Louise'])} {n}, "
                f"{c(['1000 Bruxelles', '2000 Antwerpen', '9000 Gent', '4000 Liège'])}")
    if loc == "ES":
        return (f"{c(['Calle de Alcalá', 'Calle Mayor', 'Avenida Diagonal', 'Calle Sierpes'])} {n}, "
                f"{rng.randint(1, 8)}º {c('ABCD')}, {c(['28009 Madrid', '08029 Barcelona', '41004 Sevilla', '46002 Valencia'])}")
    if loc == "MX":
        return (f"Av. {c(['Insurgentes Sur', 'Reforma', 'Juárez'])} {rng.randint(100, 3000)}, Col. {c(['Roma Norte', 'Del Valle', 'Condesa'])}, "
                f"{c(['06700', '03100', '06140'])} Ciudad de México, CDMX")
    if loc == "BR":
        return (f"{c(['Rua Augusta', 'Av. Paulista', 'Rua das Flores', 'Rua XV de Novembro'])}, {rng.randint(10, 2500)}, "
                f"apto {rng.randint(11, 184)}, {c(['São Paulo - SP, 01304-001', 'Curitiba - PR, 80020-310', 'Rio de Janeiro - RJ, 22041-011'])}")
    if loc == "PT":
        return (f"{c(['Rua Augusta', 'Avenida da Liberdade', 'Rua de Santa Catarina'])} {n}, {rng.randint(1, 6)}.º "
                f"{c(['Esq.', 'Dto.'])}, {c(['1100-053 Lisboa', '4000-442 Porto', '3000-150 Coimbra'])}")
    if loc == "IT":
        return (f"{c(['Via Garibaldi', 'Corso Vittorio Emanuele II', 'Via Roma', 'Viale dei Mille'])} {n}, "
                f"{c(['20121 Milano MI', '00184 Roma RM', '10123 Torino TO', '50122 Firenze FI', '80138 Napoli NA'])}")
    if loc == "NL":
        return (f"{c(['Prinsengracht', 'Kerkstraat', 'Oudegracht', 'Witte de Withstraat'])} {n}{c(['', '-1', 'A', '-3'])}, "
                f"{rng.randint(1011, 3599)} {c(UPPER)}{c(UPPER)} {c(['Amsterdam', 'Utrecht', 'Rotterdam', 'Den Haag'])}")
    if loc == "PL":
        return (f"ul. {c(['Długa', 'Marszałkowska', 'Piotrkowska', 'Floriańska'])} {n}/{rng.randint(1, 40)}, "
                f"{c(['80-831 Gdańsk', '00-624 Warszawa', '90-102 Łódź', '31-019 Kraków'])}")
    if loc == "RU":
        return (f"ул. {c(['Ленина', 'Пушкина', 'Тверская', 'Советская'])}, д. {n}, кв. {rng.randint(1, 220)}, "
                f"{c(['Екатеринбург, 620014', 'Москва, 125009', 'Казань, 420111', 'Новосибирск, 630099'])}")
    if loc == "UA":
        return (f"вул. {c(['Хрещатик', 'Шевченка', 'Сагайдачного', 'Городоцька'])}, {n}, кв. {rng.randint(1, 120)}, "
                f"{c(['Київ, 01001', 'Львів, 79000', 'Одеса, 65000', 'Харків, 61000'])}")
    if loc == "JP":
        return (f"〒{c(['150-0002', '530-0001', '060-0005'])} {c(['東京都渋谷区渋谷', '大阪府大阪市北区梅田', '北海道札幌市中央区北五条西'])}"
                f"{rng.randint(1, 5)}丁目{rng.randint(1, 30)}-{rng.randint(1, 20)}")
    if loc == "CN":
        return (f"{c(['上海市浦东新区世纪大道', '北京市朝阳区建国路', '深圳市南山区科技园南路'])}{rng.randint(1, 300)}号"
                f"{rng.randint(1, 30)}栋{rng.randint(101, 2804)}室")
    if loc == "KR":
        return (f"{c(['서울특별시 강남구 테헤란로', '부산광역시 해운대구 센텀중앙로', '서울특별시 마포구 월드컵북로'])} {rng.randint(1, 400)}, "
                f"{rng.randint(101, 120)}동 {rng.randint(101, 2504)}호")
    if loc == "TR":
        return (f"{c(['Atatürk Cad.', 'Bağdat Cad.', 'İstiklal Cad.'])} No:{n} D:{rng.randint(1, 20)}, "
                f"{c(['34710 Kadıköy/İstanbul', '06690 Çankaya/Ankara', '35220 Konak/İzmir'])}")
    if loc == "SE":
        return (f"{c(['Storgatan', 'Drottninggatan', 'Kungsgatan', 'Vasagatan'])} {n}, "
                f"{c(['114 55 Stockholm', '411 38 Göteborg', '211 22 Malmö', '753 20 Uppsala'])}")
    if loc == "DK":
        return f"{c(['Nørrebrogade', 'Vesterbrogade', 'Strøget'])} {n}, {rng.randint(1, 5)}. tv, {c(['2200 København N', '8000 Aarhus C'])}"
    if loc == "FI":
        return f"{c(['Mannerheimintie', 'Hämeenkatu', 'Aleksanterinkatu'])} {n} B {rng.randint(1, 40)}, {c(['00100 Helsinki', '33100 Tampere'])}"
    if loc == "SA":
        return f"{c(['حي الملقا', 'حي النخيل', 'حي العليا'])}، شارع {c(['الأمير محمد بن سعد', 'التخصصي', 'العروبة'])}، مبنى {n}، الرياض {rng.randint(11000, 13999)}"
    if loc == "AE":
        return f"شقة {rng.randint(101, 2405)}، برج {c(['الريم', 'المارينا', 'الخليج'])}، {c(['دبي', 'أبوظبي', 'الشارقة'])}"
    if loc == "IN":
        return (f"Flat {rng.randint(101, 1204)}, {c(['Sai Residency', 'Green Park Apartments', 'Shanti Nagar'])}, "
                f"{c(['Indiranagar, Bengaluru 560038', 'Andheri West, Mumbai 400053', 'Sector 62, Noida 201309'])}")
    if loc == "VN":
        return (f"{n} {c(['Nguyễn Huệ', 'Lê Lợi', 'Trần Hưng Đạo', 'Hai Bà Trưng'])}, "
                f"{c(['Phường Bến Nghé, Quận 1, TP. Hồ Chí Minh', 'Phường Hàng Bài, Quận Hoàn Kiếm, Hà Nội'])}")
    raise ValueError(loc)


# ---- national ids, each with the check its issuer defines


def ssn(rng: random.Random) -> str:
    while True:
        area = rng.randint(1, 899)
        if area != 666:
            break
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def nino(rng: random.Random) -> str:
    first = [c for c in UPPER if c not in "DFIQUV"]
    second = [c for c in UPPER if c not in "DFIOQUV"]
    while True:
        p = rng.choice(first) + rng.choice(second)
        if p not in ("BG", "GB", "NK", "KN", "TN", "NT", "ZZ"):
            break
    d = digits(rng, 6)
    return f"{p} {d[:2]} {d[2:4]} {d[4:]} {rng.choice('ABCD')}"


def aadhaar(rng: random.Random) -> str:
    base = str(rng.randint(2, 9)) + digits(rng, 10)
    full = base + verhoeff_check(base)
    return f"{full[:4]} {full[4:8]} {full[8:]}"


def steuer_id(rng: random.Random) -> str:
    while True:
        pool = rng.sample(DIGITS, 9)
        dup = rng.choice(pool)
        ds = pool + [dup]
        rng.shuffle(ds)
        if ds[0] != "0":
            break
    body = "".join(ds)
    return body + mod11_10(body)


def nir(rng: random.Random, sex: str, dob: dt.date) -> str:
    dept = rng.choice(["75", "69", "13", "33", "59", "44", "67", "31"])
    body = f"{1 if sex == 'M' else 2}{dob.year % 100:02d}{dob.month:02d}{dept}{rng.randint(1, 990):03d}{rng.randint(1, 999):03d}"
    key = 97 - int(body) % 97
    return f"{body[0]} {body[1:3]} {body[3:5]} {body[5:7]} {body[7:10]} {body[10:13]} {key:02d}"


DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni(rng: random.Random) -> str:
    n = rng.randint(10000000, 79999999)
    return f"{n}{DNI_LETTERS[n % 23]}"


def nie(rng: random.Random) -> str:
    p = rng.choice("XYZ")
    n = rng.randint(0, 9999999)
    num = int(str("XYZ".index(p)) + f"{n:07d}")
    return f"{p}{n:07d}{DNI_LETTERS[num % 23]}"


def cpf(rng: random.Random) -> str:
    while True:
        d = [rng.randint(0, 9) for _ in range(9)]
        if len(set(d)) > 1:
            break
    for n in (10, 11):
        s = sum(v * w for v, w in zip(d, range(n, 1, -1), strict=True))
        r = s % 11
        d.append(0 if r < 2 else 11 - r)
    t = "".join(map(str, d))
    return f"{t[:3]}.{t[3:6]}.{t[6:9]}-{t[9:]}"


def cnpj(rng: random.Random) -> str:
    d = [rng.randint(0, 9) for _ in range(8)] + [0, 0, 0, 1]
    for w in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        r = sum(v * x for v, x in zip(d, w, strict=True)) % 11
        d.append(0 if r < 2 else 11 - r)
    t = "".join(map(str, d))
    return f"{t[:2]}.{t[2:5]}.{t[5:8]}/{t[8:12]}-{t[12:]}"


def nif_pt(rng: random.Random) -> str:
    d = [rng.choice([1, 2, 3])] + [rng.randint(0, 9) for _ in range(7)]
    r = sum(v * w for v, w in zip(d, range(9, 1, -1), strict=True)) % 11
    d.append(0 if r < 2 else 11 - r)
    return "".join(map(str, d))


def pesel(rng: random.Random, sex: str, dob: dt.date) -> str:
    month = dob.month + (20 if dob.year >= 2000 else 0)
    serial = digits(rng, 3)
    sexd = rng.choice("13579" if sex == "M" else "02468")
    body = f"{dob.year % 100:02d}{month:02d}{dob.day:02d}{serial}{sexd}"
    s = sum(int(c) * w for c, w in zip(body, [1, 3, 7, 9, 1, 3, 7, 9, 1, 3], strict=True))
    return body + str((10 - s % 10) % 10)


def rrn(rng: random.Random, sex: str, dob: dt.date) -> str:
    g = ("1" if sex == "M" else "2") if dob.year < 2000 else ("3" if sex == "M" else "4")
    body = f"{dob.year % 100:02d}{dob.month:02d}{dob.day:02d}{g}{digits(rng, 5)}"
    s = sum(int(c) * w for c, w in zip(body, [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5], strict=True))
    return f"{body[:6]}-{body[6:]}{(11 - s % 11) % 10}"


def bsn(rng: random.Random) -> str:
    while True:
        d = [rng.randint(1, 6)] + [rng.randint(0, 9) for _ in range(7)]
        s = sum(v * w for v, w in zip(d, range(9, 1, -1), strict=True))
        last = s % 11
        if last <= 9:
            return "".join(map(str, d)) + str(last)


CF_ODD = {**dict(zip("0123456789", [1, 0, 5, 7, 9, 13, 15, 17, 19, 21], strict=True)),
          **dict(zip(UPPER, [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23],
                     strict=True))}
CF_EVEN = {**{str(i): i for i in range(10)}, **{c: i for i, c in enumerate(UPPER)}}


def cf_check(body: str) -> str:
    s = sum(CF_ODD[c] if i % 2 == 0 else CF_EVEN[c] for i, c in enumerate(body))
    return UPPER[s % 26]


def codice_fiscale(rng: random.Random, family: str, given: str, sex: str, dob: dt.date) -> str:
    def letters(name: str) -> tuple[list[str], list[str]]:
        up = [c for c in strip_accents(name).upper() if c.isalpha()]
        return [c for c in up if c not in "AEIOU"], [c for c in up if c in "AEIOU"]

    cons, vow = letters(family)
    sur = "".join((cons + vow + ["X", "X", "X"])[:3])
    cons, vow = letters(given)
    if len(cons) >= 4:
        nam = cons[0] + cons[2] + cons[3]
    else:
        nam = "".join((cons + vow + ["X", "X", "X"])[:3])
    day = dob.day + (40 if sex == "F" else 0)
    comune = rng.choice(["F205", "H501", "L219", "F839", "D612", "A944", "G273"])
    body = f"{sur}{nam}{dob.year % 100:02d}{'ABCDEHLMPRST'[dob.month - 1]}{day:02d}{comune}"
    return body + cf_check(body)


CURP_ALPHA = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"


def curp(rng: random.Random, family: str, given: str, sex: str, dob: dt.date) -> str:
    fam = strip_accents(family).upper().split()
    first = fam[0]
    second = fam[1] if len(fam) > 1 else rng.choice(["LOPEZ", "GARCIA", "PEREZ", "DIAZ"])
    g = strip_accents(given).upper().split()[0]
    vowel = next((c for c in first[1:] if c in "AEIOU"), "X")

    def cons(s: str) -> str:
        return next((c for c in s[1:] if c.isalpha() and c not in "AEIOU"), "X")

    state = rng.choice(["DF", "JC", "NL", "PL", "VZ", "GT", "MC"])
    diff = str(rng.randint(0, 9)) if dob.year < 2000 else rng.choice(UPPER)
    body = (f"{first[0]}{vowel}{second[0]}{g[0]}{dob.year % 100:02d}{dob.month:02d}{dob.day:02d}"
            f"{'H' if sex == 'M' else 'M'}{state}{cons(first)}{cons(second)}{cons(g)}{diff}")
    s = sum(CURP_ALPHA.index(c) * (18 - i) for i, c in enumerate(body))
    return body + str((10 - s % 10) % 10)


def sin_ca(rng: random.Random) -> str:
    base = str(rng.choice([1, 2, 3, 4, 5, 6, 7])) + digits(rng, 7)
    full = base + luhn_check_digit(base)
    return f"{full[:3]} {full[3:6]} {full[6:]}"


def tfn(rng: random.Random) -> str:
    w = [1, 4, 3, 7, 5, 8, 6, 9, 10]
    while True:
        d = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(7)]
        for last in range(10):
            if (sum(v * x for v, x in zip(d + [last], w, strict=True))) % 11 == 0:
                t = "".join(map(str, d + [last]))
                return f"{t[:3]} {t[3:6]} {t[6:]}"


def personnummer(rng: random.Random, dob: dt.date, sex: str) -> str:
    serial = digits(rng, 2) + rng.choice("13579" if sex == "M" else "02468")
    body = f"{dob.year % 100:02d}{dob.month:02d}{dob.day:02d}{serial}"
    return f"{body[:6]}-{body[6:]}{luhn_check_digit(body)}"


def cpr(rng: random.Random, dob: dt.date) -> str:
    w = [4, 3, 2, 7, 6, 5, 4, 3, 2, 1]
    while True:
        seq = str(rng.randint(0, 3)) + digits(rng, 3)
        body = f"{dob.day:02d}{dob.month:02d}{dob.year % 100:02d}{seq}"
        if sum(int(c) * x for c, x in zip(body, w, strict=True)) % 11 == 0:
            return f"{body[:6]}-{body[6:]}"


def hetu(rng: random.Random, dob: dt.date) -> str:
    n = rng.randint(2, 899)
    body = f"{dob.day:02d}{dob.month:02d}{dob.year % 100:02d}"
    sign = "-" if dob.year < 2000 else "A"
    return f"{body}{sign}{n:03d}{'0123456789ABCDEFHJKLMNPRSTUVWXY'[int(body + f'{n:03d}') % 31]}"


def cn_resident_id(rng: random.Random, dob: dt.date, sex: str) -> str:
    region = rng.choice(["110105", "310115", "440305", "510104", "330106"])
    seq = digits(rng, 2) + rng.choice("13579" if sex == "M" else "02468")
    body = f"{region}{dob.year}{dob.month:02d}{dob.day:02d}{seq}"
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return body + "10X98765432"[sum(int(c) * x for c, x in zip(body, w, strict=True)) % 11]


def tc_kimlik(rng: random.Random) -> str:
    d = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(8)]
    d10 = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    d.append(d10)
    d.append(sum(d) % 10)
    return "".join(map(str, d))


def my_number(rng: random.Random) -> str:
    body = digits(rng, 11)
    s = 0
    for n in range(1, 12):
        p = int(body[11 - n])
        q = n + 1 if n <= 6 else n - 5
        s += p * q
    r = s % 11
    check = 0 if r <= 1 else 11 - r
    full = body + str(check)
    return f"{full[:4]} {full[4:8]} {full[8:]}"


def saudi_id(rng: random.Random) -> str:
    base = "1" + digits(rng, 8)
    return base + luhn_check_digit(base)


def emirates_id(rng: random.Random, dob: dt.date) -> str:
    base = f"784{dob.year}{digits(rng, 7)}"
    return f"784-{dob.year}-{base[7:14]}-{luhn_check_digit(base)}"


def snils(rng: random.Random) -> str:
    while True:
        d = digits(rng, 9)
        if int(d) > 1001998:
            break
    s = sum(int(c) * w for c, w in zip(d, range(9, 0, -1), strict=True))
    if s < 100:
        check = s
    elif s in (100, 101):
        check = 0
    else:
        check = s % 101
        if check == 100:
            check = 0
    return f"{d[:3]}-{d[3:6]}-{d[6:]} {check:02d}"


def inn_person(rng: random.Random) -> str:
    d = [int(c) for c in rng.choice(["77", "78", "50", "66", "16"]) + digits(rng, 8)]
    w1 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
    d.append(sum(a * b for a, b in zip(d, w1, strict=True)) % 11 % 10)
    w2 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
    d.append(sum(a * b for a, b in zip(d, w2, strict=True)) % 11 % 10)
    return "".join(map(str, d))


def rnokpp(rng: random.Random, dob: dt.date, sex: str) -> str:
    days = (dob - dt.date(1899, 12, 31)).days
    body = f"{days:05d}{digits(rng, 3)}{rng.choice('13579' if sex == 'M' else '02468')}"
    w = [-1, 5, 7, 9, 4, 6, 10, 5, 7]
    return body + str(sum(int(c) * x for c, x in zip(body, w, strict=True)) % 11 % 10)


def cccd(rng: random.Random, dob: dt.date, sex: str) -> str:
    prov = rng.choice(["001", "079", "048", "031"])
    g = (0 if sex == "M" else 1) + (2 if dob.year >= 2000 else 0)
    return f"{prov}{g}{dob.year % 100:02d}{digits(rng, 6)}"


def be_national_number(rng: random.Random, dob: dt.date, sex: str) -> str:
    serial = rng.randint(1, 997)
    if (serial % 2 == 1) != (sex == "M"):
        serial += 1
    body = f"{dob.year % 100:02d}{dob.month:02d}{dob.day:02d}{serial:03d}"
    base = int(("2" if dob.year >= 2000 else "") + body)
    cc = 97 - base % 97
    return f"{body[:2]}.{body[2:4]}.{body[4:6]}-{body[6:9]}.{cc:02d}"


def national_id(rng: random.Random, loc: str, family: str, given_latin: str, sex: str, dob: dt.date) -> tuple[str, str]:
    if loc == "US":
        return "us_ssn", ssn(rng)
    if loc == "GB":
        return "uk_nino", nino(rng)
    if loc == "CA":
        return "ca_sin", sin_ca(rng)
    if loc == "AU":
        return "au_tfn", tfn(rng)
    if loc == "DE":
        return "de_steuer_id", steuer_id(rng)
    if loc == "FR":
        return "fr_nir", nir(rng, sex, dob)
    if loc == "BE":
        return "be_national_number", be_national_number(rng, dob, sex)
    if loc == "ES":
        return ("es_dni", dni(rng)) if rng.random() < 0.7 else ("es_nie", nie(rng))
    if loc == "MX":
        return "mx_curp", curp(rng, family, given_latin, sex, dob)
    if loc == "BR":
        return "br_cpf", cpf(rng)
    if loc == "PT":
        return "pt_nif", nif_pt(rng)
    if loc == "IT":
        return "it_codice_fiscale", codice_fiscale(rng, family, given_latin, sex, dob)
    if loc == "NL":
        return "nl_bsn", bsn(rng)
    if loc == "PL":
        return "pl_pesel", pesel(rng, sex, dob)
    if loc == "RU":
        return ("ru_snils", snils(rng)) if rng.random() < 0.5 else ("ru_inn", inn_person(rng))
    if loc == "UA":
        return "ua_rnokpp", rnokpp(rng, dob, sex)
    if loc == "JP":
        return "jp_my_number", my_number(rng)
    if loc == "CN":
        return "cn_resident_id", cn_resident_id(rng, dob, sex)
    if loc == "KR":
        return "kr_rrn", rrn(rng, sex, dob)
    if loc == "TR":
        return "tr_tc_kimlik", tc_kimlik(rng)
    if loc == "SE":
        return "se_personnummer", personnummer(rng, dob, sex)
    if loc == "DK":
        return "dk_cpr", cpr(rng, dob)
    if loc == "FI":
        return "fi_henkilotunnus", hetu(rng, dob)
    if loc == "SA":
        return "sa_national_id", saudi_id(rng)
    if loc == "AE":
        return "ae_emirates_id", emirates_id(rng, dob)
    if loc == "IN":
        return "in_aadhaar", aadhaar(rng)
    if loc == "VN":
        return "vn_cccd", cccd(rng, dob, sex)
    raise ValueError(loc)


def make_person(rng: random.Random, loc: str) -> Person:
    males, females, fams = NAMES[loc]
    sex = rng.choice("MF")
    gnat, glat = rng.choice(males if sex == "M" else females)
    fm, ff, lm, lf = rng.choice(fams)
    fnat, flat = (fm, lm) if sex == "M" else (ff, lf)
    if loc in ("JP", "KR"):
        full = f"{fnat} {gnat}" if loc == "JP" else f"{fnat}{gnat}"
    elif loc == "CN":
        full = f"{fnat}{gnat}"
    elif loc == "VN":
        full = f"{fnat} {gnat}"
    elif loc == "RU" and rng.random() < 0.4:
        full = f"{fnat} {gnat}"
    else:
        full = f"{gnat} {fnat}"
    latin = f"{glat} {flat}"
    dob = dt.date(rng.randint(1952, 2004), rng.randint(1, 12), rng.randint(1, 28))
    g = strip_accents(glat).lower().replace(" ", "")
    f = strip_accents(flat).lower().replace(" ", "").replace("'", "").replace("-", "")
    dom = rng.choice(MAIL_DOMAINS[loc].split())
    if dom in ("qq.com", "163.com") and rng.random() < 0.5:
        local = str(rng.randint(10**6, 10**10))
    else:
        local = rng.choice([f"{g}.{f}", f"{g}{f}", f"{g[0]}.{f}", f"{g}_{f}{rng.randint(1, 99)}",
                            f"{f}.{g}{dob.year % 100:02d}", f"{g}{dob.year}"])
    nat, intl = gen_phone(rng, loc)
    kind, nid = national_id(rng, loc, flat, glat, sex, dob)
    return Person(loc, gnat, fnat, full, latin, sex, dob, f"{local}@{dom}", nat, intl, gen_address(rng, loc), kind, nid)


def fmt_dob(rng: random.Random, d: dt.date, loc: str) -> str:
    if loc in ("JP", "CN"):
        return f"{d.year}年{d.month}月{d.day}日"
    if loc == "KR":
        return f"{d.year}년 {d.month}월 {d.day}일"
    if loc == "US":
        return rng.choice([f"{d.month:02d}/{d.day:02d}/{d.year}", f"{d.strftime('%B')} {d.day}, {d.year}", d.isoformat()])
    if loc in ("DE", "PL", "RU", "UA", "TR", "FI", "DK"):
        return rng.choice([f"{d.day:02d}.{d.month:02d}.{d.year}", d.isoformat()])
    if loc in ("NL", "IN"):
        return f"{d.day:02d}-{d.month:02d}-{d.year}"
    if loc == "SE":
        return d.isoformat()
    return rng.choice([f"{d.day:02d}/{d.month:02d}/{d.year}", d.isoformat()])


# ---- bank and payment data


BANK_COUNTRY = {"US": "DE", "CA": "FR", "AU": "GB", "MX": "ES", "BR": "PT", "JP": "DE", "CN": "GB", "KR": "DE",
                "IN": "GB", "VN": "FR", "RU": "DE"}


def _es_dc(digs: str) -> str:
    w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6]
    r = 11 - sum(int(c) * x for c, x in zip(digs.rjust(10, "0"), w, strict=True)) % 11
    return str({11: 0, 10: 1}.get(r, r))


def gen_iban(rng: random.Random, country: str) -> str:
    if country == "DE":
        bban = rng.choice(["10010010", "37040044", "50010517", "20041133", "70150000"]) + digits(rng, 10)
    elif country == "FR":
        bank, branch, acct = digits(rng, 5), digits(rng, 5), digits(rng, 11)
        key = 97 - (89 * int(bank) + 15 * int(branch) + 3 * int(acct)) % 97
        bban = f"{bank}{branch}{acct}{key:02d}"
    elif country == "ES":
        bank, branch, acct = rng.choice(["2100", "0049", "0182", "2085"]), digits(rng, 4), digits(rng, 10)
        bban = bank + branch + _es_dc(bank + branch) + _es_dc(acct) + acct
    elif country == "IT":
        abi_cab_acct = rng.choice(["03069", "02008", "05034"]) + digits(rng, 5) + digits(rng, 12)
        bban = cf_check(abi_cab_acct) + abi_cab_acct
    elif country == "NL":
        bban = rng.choice(["ABNA", "INGB", "RABO", "TRIO", "KNAB"]) + digits(rng, 10)
    elif country == "GB":
        bban = rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "MONZ"]) + digits(rng, 14)
    elif country == "PL":
        bban = digits(rng, 24)
    elif country == "PT":
        bban = digits(rng, 21)
    elif country == "SE":
        bban = digits(rng, 20)
    elif country == "BE":
        first = digits(rng, 10)
        cc = int(first) % 97 or 97
        bban = f"{first}{cc:02d}"
    elif country == "TR":
        bban = digits(rng, 5) + "0" + digits(rng, 16)
    elif country == "SA":
        bban = digits(rng, 2) + digits(rng, 18)
    elif country == "UA":
        bban = digits(rng, 25)
    elif country == "DK":
        bban = digits(rng, 14)
    elif country == "FI":
        bban = digits(rng, 14)
    elif country == "AE":
        bban = digits(rng, 19)
    else:
        raise ValueError(country)
    return country + iban_check(country, bban) + bban


def iban_for(rng: random.Random, loc: str) -> str:
    country = {"UA": "UA", "SA": "SA", "AE": "AE", "TR": "TR", "DK": "DK", "FI": "FI", "SE": "SE", "PL": "PL",
               "PT": "PT", "NL": "NL", "IT": "IT", "ES": "ES", "FR": "FR", "BE": "BE", "DE": "DE", "GB": "GB"}.get(
        loc, BANK_COUNTRY.get(loc, "DE"))
    iban = gen_iban(rng, country)
    return group4(iban) if rng.random() < 0.6 else iban


def vat_number(rng: random.Random, loc: str) -> str:
    if loc == "DE":
        body = str(rng.randint(1, 9)) + digits(rng, 7)
        return "DE" + body + mod11_10(body)
    if loc == "FR":
        base = str(rng.randint(1, 9)) + digits(rng, 7)
        siren = base + luhn_check_digit(base)
        return f"FR{(12 + 3 * (int(siren) % 97)) % 97:02d}{siren}"
    if loc == "IT":
        base = digits(rng, 7) + rng.choice(["120", "150", "960", "010"])
        return "IT" + base + luhn_check_digit(base)
    if loc == "ES":
        return "ES" + dni(rng)
    if loc == "NL":
        return "NL" + bsn(rng) + "B0" + str(rng.randint(1, 9))
    if loc == "BE":
        first = "0" + str(rng.randint(200, 999)) + digits(rng, 4)
        return f"BE{first}{97 - int(first) % 97:02d}"
    if loc == "PL":
        w = [6, 5, 7, 2, 3, 4, 5, 6, 7]
        while True:
            body = str(rng.randint(1, 9)) + digits(rng, 8)
            c = sum(int(a) * b for a, b in zip(body, w, strict=True)) % 11
            if c != 10:
                return f"PL{body}{c}"
    if loc == "SE":
        base = str(rng.choice([5, 7, 8])) + digits(rng, 8)
        return f"SE{base}{luhn_check_digit(base)}01"
    if loc == "PT":
        return "PT" + nif_pt(rng)
    # GB: weights 8..2 over seven digits, then two digits so that the total is a multiple of 97
    body = str(rng.randint(1, 9)) + digits(rng, 6)
    s = sum(int(a) * b for a, b in zip(body, range(8, 1, -1), strict=True))
    return f"GB{body}{(-s) % 97:02d}"


VAT_LOCALES = ["DE", "FR", "IT", "ES", "NL", "BE", "PL", "SE", "PT", "GB"]

TEST_CARDS = {"4111111111111111", "4242424242424242", "5555555555554444", "378282246310005", "6011111111111117",
              "4000056655665556", "5105105105105100", "4012888888881881"}


def card_number(rng: random.Random) -> tuple[str, str]:
    while True:
        brand = rng.choice(["visa", "visa", "mastercard", "mastercard", "amex", "discover", "jcb", "unionpay"])
        if brand == "visa":
            base, n = "4" + digits(rng, 14), 16
        elif brand == "mastercard":
            base = (rng.choice(["51", "52", "53", "54", "55"]) + digits(rng, 13)) if rng.random() < 0.7 else (
                str(rng.randint(2221, 2720)) + digits(rng, 11))
            n = 16
        elif brand == "amex":
            base, n = rng.choice(["34", "37"]) + digits(rng, 12), 15
        elif brand == "discover":
            base, n = "6011" + digits(rng, 11), 16
        elif brand == "jcb":
            base, n = "35" + str(rng.randint(28, 89)) + digits(rng, 11), 16
        else:
            base, n = "62" + digits(rng, 13), 16
        num = base + luhn_check_digit(base)
        assert len(num) == n
        if num not in TEST_CARDS:
            break
    style = rng.random()
    if brand == "amex":
        shown = f"{num[:4]} {num[4:10]} {num[10:]}" if style < 0.6 else num
    elif style < 0.5:
        shown = group4(num)
    elif style < 0.7:
        shown = "-".join(num[i:i + 4] for i in range(0, 16, 4))
    else:
        shown = num
    return brand, shown


def public_ipv4(rng: random.Random) -> str:
    while True:
        a, b = rng.randint(1, 223), rng.randint(0, 255)
        if a in (0, 10, 127) or a >= 224:
            continue
        if (a == 100 and 64 <= b < 128) or (a == 169 and b == 254) or (a == 172 and 16 <= b < 32):
            continue
        if (a == 192 and b in (0, 168)) or (a == 198 and b in (18, 19, 51)) or (a == 203 and b == 0):
            continue
        return f"{a}.{b}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def public_ipv6(rng: random.Random) -> str:
    pre = rng.choice(["2a02:8109", "2a01:cb00", "2003:e6", "2600:1700", "2804:14c", "2409:4071", "2a00:1370"])
    return pre + ":" + ":".join(f"{rng.getrandbits(16):x}" for _ in range(8 - pre.count(":") - 1))


def passport_number(rng: random.Random, loc: str) -> str:
    if loc in ("US", "GB", "AU", "CA"):
        return str(rng.randint(5, 9)) + digits(rng, 8) if loc != "CA" else rs(rng, UPPER, 2) + digits(rng, 6)
    if loc == "DE":
        return rng.choice("CFGHJK") + rs(rng, "CFGHJKLMNPRTVWXYZ0123456789", 8)
    if loc == "FR":
        return digits(rng, 2) + rs(rng, UPPER, 2) + digits(rng, 5)
    if loc == "ES":
        return rs(rng, UPPER, 3) + digits(rng, 6)
    if loc in ("IT", "JP"):
        return rs(rng, UPPER, 2) + digits(rng, 7)
    if loc == "NL":
        return rs(rng, "ABCDEFGHIJKLMNPRSTUVWXYZ", 2) + rs(rng, "ABCDEFGHIJKLMNPRSTUVWXYZ0123456789", 6) + rng.choice(DIGITS)
    if loc == "CN":
        return "E" + digits(rng, 8)
    if loc == "KR":
        return "M" + digits(rng, 8)
    if loc == "IN":
        return rng.choice("JKLMNPRSTVWZ") + digits(rng, 7)
    if loc == "RU":
        return f"{digits(rng, 2)} {digits(rng, 7)}"
    if loc == "TR":
        return "U" + digits(rng, 8)
    if loc in ("SE", "FI", "DK"):
        return digits(rng, 8)
    return rs(rng, UPPER, 2) + digits(rng, 7)


def licence_plate(rng: random.Random, loc: str) -> str:
    c = rng.choice
    if loc == "DE":
        return f"{c(['B', 'M', 'HH', 'K', 'F', 'S'])}-{rs(rng, 'ABCDEFGHJKLMNPRSTUVWXYZ', 2)} {rng.randint(1, 9999)}"
    if loc == "GB":
        return f"{rs(rng, 'ABCDEFGHJKLMNOPRSTUVWXY', 2)}{c(['19', '69', '21', '71', '23', '73'])} {rs(rng, 'ABCDEFGHJKLMNOPRSTUVWXYZ', 3)}"
    if loc in ("FR", "IT"):
        sep = "-" if loc == "FR" else " "
        return f"{rs(rng, 'ABCDEFGHJKLMNPRSTVWXYZ', 2)}{sep}{rng.randint(100, 999)}{sep}{rs(rng, 'ABCDEFGHJKLMNPRSTVWXYZ', 2)}"
    if loc == "ES":
        return f"{rng.randint(1000, 9999)} {rs(rng, 'BCDFGHJKLMNPRSTVWXYZ', 3)}"
    if loc == "NL":
        return f"{rng.randint(10, 99)}-{rs(rng, 'BDFGHJKLNPRSTVXZ', 3)}-{rng.randint(1, 9)}"
    if loc == "PL":
        return f"{c(['WA', 'KR', 'GD', 'PO', 'WR'])} {rng.randint(10000, 99999)}"
    if loc == "BR":
        return f"{rs(rng, UPPER, 3)}{rng.randint(0, 9)}{c(UPPER)}{rng.randint(10, 99)}"
    if loc == "SE":
        return f"{rs(rng, 'ABCDEFGHJKLMNOPRSTUWXYZ', 3)} {rng.randint(10, 99)}{c('ABCDEFGHJKLMNPRSTUWXYZ')}"
    if loc == "RU":
        return f"{c('АВЕКМНОРСТУХ')}{rng.randint(100, 999)}{rs(rng, 'АВЕКМНОРСТУХ', 2)} {c(['77', '97', '177', '78', '66'])}"
    if loc == "JP":
        return f"{c(['品川', '練馬', 'なにわ', '札幌'])} {rng.randint(300, 599)} {c('さすせそたちつてとなにぬねの')} {rng.randint(10, 99)}-{rng.randint(10, 99)}"
    if loc == "CN":
        return f"{c(['京A', '沪B', '粤B', '川A'])}·{rs(rng, DIGITS + 'DF', 5)}"
    if loc == "KR":
        return f"{rng.randint(10, 399)}{c('가나다라마거너더러머')} {rng.randint(1000, 9999)}"
    if loc == "TR":
        return f"{c(['34', '06', '35'])} {rs(rng, 'ABCDEFGHJKLMNPRSTUVYZ', 3)} {rng.randint(10, 999)}"
    if loc == "IN":
        return f"{c(['MH', 'KA', 'DL', 'UP'])} {rng.randint(1, 50):02d} {rs(rng, UPPER, 2)} {rng.randint(1000, 9999)}"
    if loc == "UA":
        return f"{c(['AA', 'KA', 'BC', 'AX'])} {rng.randint(1000, 9999)} {rs(rng, 'ABCEHIKMOPTX', 2)}"
    return f"{rng.randint(1, 9)}{rs(rng, UPPER, 3)}{rng.randint(100, 999)}"


def mrn(rng: random.Random) -> str:
    return rng.choice([
        f"MRN-{digits(rng, 8)}", f"{rs(rng, UPPER, 2)}{digits(rng, 7)}", f"{digits(rng, 3)}-{digits(rng, 3)}-{digits(rng, 4)}",
        f"KH{rng.randint(2015, 2026)}/{digits(rng, 6)}", f"P{digits(rng, 9)}",
    ])


# ---------------------------------------------------------------- decoys (must stay readable)


def sha1_hex(rng: random.Random) -> str:
    return rs(rng, HEX, 40)


def sha256_hex(rng: random.Random) -> str:
    return rs(rng, HEX, 64)


def short_sha(rng: random.Random) -> str:
    return rs(rng, HEX, rng.choice([7, 8, 10, 12]))


def ulid(rng: random.Random) -> str:
    ms = int(rand_day(rng).timestamp() * 1000)
    t = ""
    for _ in range(10):
        ms, r = divmod(ms, 32)
        t = CROCKFORD[r] + t
    return t + rs(rng, CROCKFORD, 16)


def trace_id(rng: random.Random) -> str:
    return rs(rng, HEX, 32)


def span_id(rng: random.Random) -> str:
    return rs(rng, HEX, 16)


def traceparent(rng: random.Random) -> str:
    return f"00-{trace_id(rng)}-{span_id(rng)}-01"


def request_id(rng: random.Random) -> str:
    return rng.choice([
        uuid4(rng), "req_" + rs(rng, ALNUM, 24), rs(rng, HEXU, 16), f"{rs(rng, HEX, 16)}-{rng.choice(['FRA', 'AMS', 'IAD', 'NRT', 'CDG'])}",
        "1-" + rs(rng, HEX, 8) + "-" + rs(rng, HEX, 24),
    ])


def gpg_fingerprint(rng: random.Random) -> str:
    fp = rs(rng, HEXU, 40)
    return " ".join(fp[i:i + 4] for i in range(0, 40, 4))


def gpg_key_id(rng: random.Random) -> str:
    return rs(rng, HEXU, 16)


def version_string(rng: random.Random) -> str:
    return rng.choice([
        f"v{rng.randint(0, 4)}.{rng.randint(0, 40)}.{rng.randint(0, 20)}", f"{rng.randint(1, 3)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}",
        f"1.{rng.randint(26, 31)}.{rng.randint(1, 9)}-gke.{rng.randint(100, 2400)}", f"{rng.randint(14, 22)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}-alpine",
        f"v{rng.randint(1, 2)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}-rc.{rng.randint(1, 5)}",
    ])


def internal_host(rng: random.Random) -> str:
    return rng.choice([
        f"ip-10-{rng.randint(0, 255)}-{rng.randint(0, 255)}-{rng.randint(1, 254)}.eu-west-1.compute.internal",
        f"{rng.choice(['api', 'db', 'cache', 'queue', 'auth'])}-{rng.randint(1, 9)}.{rng.choice(['prod', 'stg'])}.acme.internal",
        f"{rng.choice(['orders', 'billing', 'search'])}.svc.cluster.local",
        f"build-{rng.randint(1, 40):02d}.ci.shopwave.dev",
    ])


def private_ip(rng: random.Random) -> str:
    return rng.choice([
        f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        f"172.{rng.randint(16, 31)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
    ])


def cidr(rng: random.Random) -> str:
    return rng.choice([f"10.{rng.randint(0, 255)}.0.0/16", f"172.{rng.randint(16, 31)}.{rng.randint(0, 255)}.0/24",
                       f"192.168.{rng.randint(0, 255)}.0/24", "10.0.0.0/8"])


def aws_account_id(rng: random.Random) -> str:
    return str(rng.randint(10**11, 10**12 - 1))


def arn(rng: random.Random, acct: str | None = None) -> str:
    acct = acct or aws_account_id(rng)
    return rng.choice([
        f"arn:aws:iam::{acct}:role/{rng.choice(['DeployRole', 'ci-deployer', 'LambdaExec', 'ReadOnly'])}",
        f"arn:aws:s3:::{rng.choice(['acme-artifacts', 'shopwave-logs', 'invoices-prod'])}",
        f"arn:aws:secretsmanager:eu-west-1:{acct}:secret:prod/db-{rs(rng, ALNUM, 6)}",
        f"arn:aws:kms:eu-central-1:{acct}:key/{uuid4(rng)}",
        f"arn:aws:lambda:us-east-1:{acct}:function:{rng.choice(['resize-images', 'send-receipts'])}",
    ])


def image_digest(rng: random.Random) -> str:
    return "sha256:" + sha256_hex(rng)


def sri_hash(rng: random.Random) -> str:
    return rng.choice(["sha512-" + b64(rbytes(rng, 64)), "sha384-" + b64(rbytes(rng, 48)), "sha256-" + b64(rbytes(rng, 32))])


def ts_iso(rng: random.Random) -> str:
    return iso_z(rand_day(rng))


def order_number(rng: random.Random) -> str:
    return rng.choice([f"INV-{rng.randint(2024, 2026)}-{rng.randint(1, 99999):05d}", f"ORD-{rng.randint(10**7, 10**8)}",
                       f"#{rng.randint(100000, 999999)}", f"PO-{rs(rng, UPPER, 2)}-{rng.randint(1000, 9999)}",
                       f"{rng.randint(100, 999)}-{rng.randint(1000000, 9999999)}-{rng.randint(1000000, 9999999)}"])


def sku(rng: random.Random) -> str:
    return rng.choice([f"SKU-{rs(rng, UPPER, 3)}-{rng.choice(['BLK', 'WHT', 'RED', 'NVY'])}-{rng.choice(['S', 'M', 'L', 'XL'])}",
                       "B0" + rs(rng, UPPER + DIGITS, 8), f"{rs(rng, UPPER, 2)}-{rng.randint(1000, 9999)}-{rng.randint(10, 99)}"])


COMPANIES = ["Acme Logistics GmbH", "Shopwave Ltd", "Nordlicht Software AB", "Bluepeak Analytics Inc.", "Kestrel Pay SAS",
             "Vela Systems S.r.l.", "Tulip Data B.V.", "Orbita Sp. z o.o.", "Harbor & Pine LLC", "Sakura Cloud K.K."]
ROLE_LOCALS = ["support", "billing", "noreply", "security", "ops", "info", "hello", "admin", "alerts", "devops", "privacy"]
COMPANY_DOMAINS = ["acme-logistics.de", "shopwave.co.uk", "nordlicht.se", "bluepeak.io", "kestrelpay.fr", "velasystems.it",
                   "tulipdata.nl", "orbita.pl", "harborpine.com", "sakuracloud.jp"]


def role_mailbox(rng: random.Random) -> str:
    return f"{rng.choice(ROLE_LOCALS)}@{rng.choice(COMPANY_DOMAINS)}"


PLACEHOLDERS = ["<API_KEY>", "${SECRET}", "{{ .Values.password }}", "changeme", "xxxx", "your-api-key-here", "REPLACE_ME",
                "<your-token>", "${DB_PASSWORD}", "{{ vault_db_password }}", "${{ secrets.NPM_TOKEN }}", "%(DB_PASSWORD)s",
                "<redacted>", "TODO", "sk-...", "xxxxxxxxxxxxxxxxxxxx", "$(cat /run/secrets/db_password)", "<PASSWORD>",
                "${env:STRIPE_KEY}", "{{ secrets.API_TOKEN }}", "op://Engineering/Stripe/credential", "#{DeployKey}#"]


def placeholder(rng: random.Random) -> str:
    return rng.choice(PLACEHOLDERS)


def masked(rng: random.Random) -> str:
    return rng.choice([
        "sk-****" + rs(rng, ALNUM, 4), "********", "[REDACTED]", "***", "ghp_****" + rs(rng, ALNUM, 4), "••••••••",
        "AKIA************" + rs(rng, UPPER, 4), "****************" + rs(rng, UPPER, 4), "xoxb-****-****", "[FILTERED]",
        "<hidden>", "(sensitive value)", "*****" + rs(rng, DIGITS, 4),
    ])


TTL_DECOYS = [("TOKEN_TTL", "3600"), ("SESSION_TIMEOUT", "1800"), ("max_password_length", "128"), ("PASSWORD_RESET_TOKEN_TTL", "900"),
              ("JWT_EXPIRES_IN", "15m"), ("API_KEY_ROTATION_DAYS", "90d"), ("SECRET_CACHE_SIZE", "512MB"),
              ("REFRESH_TOKEN_LIFETIME", "30d"), ("AUTH_LOCKOUT_SECONDS", "600"), ("key_size", "4096"), ("token_bucket_rate", "250"),
              ("SECRET_ROTATION_INTERVAL", "720h"), ("ACCESS_TOKEN_EXPIRE_MINUTES", "1440"),
              ("CREDENTIALS_CACHE_TTL", "300s"), ("max_tokens", "8192"), ("KEY_DERIVATION_ITERATIONS", "600000"),
              ("PASSWORD_MAX_AGE_DAYS", "365"), ("SESSION_COOKIE_MAX_AGE", "86400")]

DOC_EXAMPLES = [("aws_doc_access_key", "AKIAIOSFODNN7EXAMPLE"), ("aws_doc_secret_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                ("test_card", "4242 4242 4242 4242"), ("test_card", "4111 1111 1111 1111"), ("doc_email", "jane.doe@example.com"),
                ("doc_email", "user@example.org"), ("doc_iban", "DE89 3704 0044 0532 0130 00"), ("doc_iban", "GB82 WEST 1234 5698 7654 32"),
                ("doc_ip", "203.0.113.42"), ("doc_ip", "198.51.100.7"), ("doc_ipv6", "2001:db8::1"), ("doc_phone", "+1 555 0100"),
                ("aws_doc_account", "123456789012"), ("doc_jwt_secret", "your-256-bit-secret")]


def hostname_public(rng: random.Random) -> str:
    return rng.choice(["api.github.com", "registry.npmjs.org", "hooks.slack.com", "api.stripe.com", "login.microsoftonline.com",
                       "oauth2.googleapis.com", "sts.amazonaws.com", "gitlab.com", "api.openai.com", "ghcr.io"])


def file_path(rng: random.Random) -> str:
    return rng.choice(["/var/lib/postgresql/data", "/etc/ssl/certs/ca-certificates.crt", "/run/secrets/db_password",
                       "~/.aws/credentials", "/home/runner/work/api/api/.env", "C:\\ProgramData\\Acme\\config.json",
                       "/opt/app/config/settings.yaml", "/usr/local/lib/python3.11/site-packages/requests/sessions.py",
                       "~/.ssh/id_ed25519.pub", "/var/run/secrets/kubernetes.io/serviceaccount/token"])


def env_names(rng: random.Random, n: int) -> list[str]:
    names = [e for s in SECRET_SPECS for e in s.envs] + ["DATABASE_URL", "DB_PASSWORD", "REDIS_PASSWORD", "SMTP_PASSWORD"]
    return rng.sample(names, n)


def b64_harmless(rng: random.Random) -> tuple[str, str]:
    plain = rng.choice(['{"alg":"none"}', "hello world\n", "app=orders;env=staging", '{"theme":"dark","lang":"de"}',
                        "region=eu-west-1", "feature-flags:v2", "Content-Type: text/plain", "pong"])
    return plain, b64(plain.encode())


def google_client_id(rng: random.Random) -> str:
    return f"{rng.randint(10**11, 10**12)}-{rs(rng, LOWER + DIGITS, 32)}.apps.googleusercontent.com"


def stripe_publishable(rng: random.Random) -> str:
    return "pk_live_51" + rs(rng, ALNUM, 97)


def sentry_public_dsn(rng: random.Random) -> str:
    return f"https://{rs(rng, HEX, 32)}@o{rng.randint(100000, 9999999)}.ingest.sentry.io/{rng.randint(1000000, 9999999)}"


def twilio_sid(rng: random.Random) -> str:
    return "AC" + rs(rng, HEX, 32)


def vault_accessor(rng: random.Random) -> str:
    return rs(rng, ALNUM, 24)


def aws_role_id(rng: random.Random) -> str:
    return rng.choice(["AROA", "AIDA"]) + rs(rng, UPPER + "234567", 17)


def ocid(rng: random.Random) -> str:
    return f"ocid1.{rng.choice(['tenancy', 'user', 'compartment'])}.oc1..aaaaaaaa{rs(rng, LOWER + DIGITS, 52)}"


def pod_name(rng: random.Random) -> str:
    return f"{rng.choice(['api', 'worker', 'web', 'payments'])}-{rs(rng, LOWER + DIGITS, 10)}-{rs(rng, LOWER + DIGITS, 5)}"


def ansible_vault_blob(rng: random.Random) -> str:
    body = rs(rng, DIGITS + "abcdef", 64 * 5)
    lines = [body[i:i + 80] for i in range(0, len(body), 80)]
    return "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(lines)


# ---------------------------------------------------------------- prose in eighteen languages

PHRASE_KEYS = ("pw tok key creds user here_creds rotate dont_share error_when fixed config placeholders customer order_q "
               "debug temp_pw see_log deploy_fail masked hi thanks regards address phone dob name email idno bank "
               "nothing_secret ask_help update_details").split()

_PHRASES_RAW = {
    "en": [
        "password", "token", "key", "credentials", "username",
        "Here are the credentials for {svc}:", "Please rotate this after the demo.",
        "Don't forward this, it's the production one.", "I get this error when I run {cmd}:",
        "It works now, the token had expired.", "This is the current config:",
        "The values below are placeholders, nothing real.", "Customer contact details:", "Question about order {order}",
        "Debugging notes", "Your temporary password is {pw}", "See the log below.",
        "Deployment to staging fails since this morning.", "I masked the key, only the last four characters are visible.",
        "Hi {name},", "Thanks,", "Best regards,", "Address", "Phone", "Date of birth", "Name", "Email", "ID number",
        "Bank account", "No secrets in here, just ids and hashes.", "Can someone take a look?", "Please update my details:",
    ],
    "de": [
        "Passwort", "Token", "Schlüssel", "Zugangsdaten", "Benutzername",
        "Hier sind die Zugangsdaten für {svc}:", "Bitte nach der Demo neu generieren.",
        "Bitte nicht weiterleiten, das ist der Produktivzugang.", "Ich bekomme diesen Fehler, wenn ich {cmd} ausführe:",
        "Jetzt geht es, das Token war abgelaufen.", "Das ist die aktuelle Konfiguration:",
        "Die Werte unten sind nur Platzhalter, nichts Echtes.", "Kontaktdaten des Kunden:", "Frage zur Bestellung {order}",
        "Debug-Notizen", "Ihr vorläufiges Passwort lautet {pw}", "Siehe Log unten.",
        "Das Deployment auf Staging schlägt seit heute Morgen fehl.",
        "Ich habe den Schlüssel maskiert, nur die letzten vier Zeichen sind sichtbar.",
        "Hallo {name},", "Danke,", "Viele Grüße", "Adresse", "Telefon", "Geburtsdatum", "Name", "E-Mail", "Ausweisnummer",
        "Bankverbindung", "Hier sind keine Geheimnisse drin, nur IDs und Hashes.", "Kann sich das jemand anschauen?",
        "Bitte aktualisieren Sie meine Daten:",
    ],
    "fr": [
        "mot de passe", "jeton", "clé", "identifiants", "nom d'utilisateur",
        "Voici les identifiants pour {svc} :", "Merci de la régénérer après la démo.",
        "Ne transférez pas ce message, c'est l'accès de production.", "J'obtiens cette erreur quand je lance {cmd} :",
        "Ça marche maintenant, le jeton avait expiré.", "Voici la configuration actuelle :",
        "Les valeurs ci-dessous sont des exemples, rien de réel.", "Coordonnées du client :", "Question sur la commande {order}",
        "Notes de débogage", "Votre mot de passe temporaire est {pw}", "Voir le journal ci-dessous.",
        "Le déploiement sur staging échoue depuis ce matin.",
        "J'ai masqué la clé, seuls les quatre derniers caractères sont visibles.",
        "Bonjour {name},", "Merci,", "Cordialement,", "Adresse", "Téléphone", "Date de naissance", "Nom", "E-mail",
        "Numéro d'identification", "Coordonnées bancaires", "Rien de secret ici, seulement des identifiants techniques et des empreintes.",
        "Quelqu'un peut regarder ?", "Merci de mettre à jour mes coordonnées :",
    ],
    "es": [
        "contraseña", "token", "clave", "credenciales", "usuario",
        "Aquí tienes las credenciales de {svc}:", "Por favor, rótala después de la demo.",
        "No reenvíes esto, es el acceso de producción.", "Me sale este error al ejecutar {cmd}:",
        "Ya funciona, el token había caducado.", "Esta es la configuración actual:",
        "Los valores de abajo son solo marcadores de posición, nada real.", "Datos de contacto del cliente:",
        "Consulta sobre el pedido {order}", "Notas de depuración", "Tu contraseña temporal es {pw}", "Mira el log de abajo.",
        "El despliegue a staging falla desde esta mañana.", "He enmascarado la clave, solo se ven los últimos cuatro caracteres.",
        "Hola, {name}:", "Gracias,", "Un saludo,", "Dirección", "Teléfono", "Fecha de nacimiento", "Nombre", "Correo",
        "Número de documento", "Cuenta bancaria", "Aquí no hay secretos, solo identificadores y hashes.",
        "¿Alguien puede echarle un vistazo?", "Por favor, actualicen mis datos:",
    ],
    "pt": [
        "senha", "token", "chave", "credenciais", "usuário",
        "Seguem as credenciais do {svc}:", "Por favor, troque depois da demo.",
        "Não encaminhe isto, é o acesso de produção.", "Recebo este erro quando executo {cmd}:",
        "Agora funciona, o token tinha expirado.", "Esta é a configuração atual:",
        "Os valores abaixo são apenas exemplos, nada real.", "Dados de contato do cliente:", "Dúvida sobre o pedido {order}",
        "Notas de depuração", "Sua senha provisória é {pw}", "Veja o log abaixo.",
        "O deploy em staging está falhando desde hoje de manhã.", "Mascarei a chave, só os últimos quatro caracteres aparecem.",
        "Olá, {name},", "Obrigado,", "Atenciosamente,", "Endereço", "Telefone", "Data de nascimento", "Nome", "E-mail",
        "Número do documento", "Conta bancária", "Nada secreto aqui, só IDs e hashes.", "Alguém pode dar uma olhada?",
        "Por favor, atualizem meus dados:",
    ],
    "it": [
        "password", "token", "chiave", "credenziali", "nome utente",
        "Ecco le credenziali per {svc}:", "Per favore rigenerala dopo la demo.",
        "Non inoltrare questo messaggio, è l'accesso di produzione.", "Ricevo questo errore quando eseguo {cmd}:",
        "Ora funziona, il token era scaduto.", "Questa è la configurazione attuale:",
        "I valori qui sotto sono solo segnaposto, niente di reale.", "Dati di contatto del cliente:",
        "Domanda sull'ordine {order}", "Note di debug", "La tua password temporanea è {pw}", "Vedi il log qui sotto.",
        "Il deploy su staging fallisce da stamattina.", "Ho mascherato la chiave, si vedono solo gli ultimi quattro caratteri.",
        "Ciao {name},", "Grazie,", "Cordiali saluti,", "Indirizzo", "Telefono", "Data di nascita", "Nome", "Email",
        "Numero documento", "Conto corrente", "Niente di segreto qui, solo ID e hash.", "Qualcuno può darci un'occhiata?",
        "Vi prego di aggiornare i miei dati:",
    ],
    "nl": [
        "wachtwoord", "token", "sleutel", "inloggegevens", "gebruikersnaam",
        "Hier zijn de inloggegevens voor {svc}:", "Graag na de demo vernieuwen.",
        "Niet doorsturen, dit is de productietoegang.", "Ik krijg deze fout als ik {cmd} uitvoer:",
        "Het werkt nu, het token was verlopen.", "Dit is de huidige configuratie:",
        "De waarden hieronder zijn alleen plaatshouders, niets echts.", "Contactgegevens van de klant:",
        "Vraag over bestelling {order}", "Debugnotities", "Je tijdelijke wachtwoord is {pw}", "Zie de log hieronder.",
        "De deployment naar staging faalt sinds vanochtend.",
        "Ik heb de sleutel gemaskeerd, alleen de laatste vier tekens zijn zichtbaar.",
        "Hoi {name},", "Bedankt,", "Met vriendelijke groet,", "Adres", "Telefoon", "Geboortedatum", "Naam", "E-mail",
        "Identificatienummer", "Bankrekening", "Hier staan geen geheimen in, alleen ID's en hashes.",
        "Kan iemand even meekijken?", "Wilt u mijn gegevens bijwerken:",
    ],
    "pl": [
        "hasło", "token", "klucz", "dane logowania", "nazwa użytkownika",
        "Oto dane logowania do {svc}:", "Proszę wygenerować nowy po prezentacji.",
        "Nie przekazuj tego dalej, to dostęp produkcyjny.", "Dostaję ten błąd, gdy uruchamiam {cmd}:",
        "Teraz działa, token wygasł.", "To jest aktualna konfiguracja:",
        "Wartości poniżej to tylko symbole zastępcze, nic prawdziwego.", "Dane kontaktowe klienta:",
        "Pytanie o zamówienie {order}", "Notatki z debugowania", "Twoje tymczasowe hasło to {pw}", "Log poniżej.",
        "Wdrożenie na staging nie działa od rana.", "Zamaskowałem klucz, widać tylko ostatnie cztery znaki.",
        "Cześć {name},", "Dzięki,", "Pozdrawiam,", "Adres", "Telefon", "Data urodzenia", "Imię i nazwisko", "E-mail",
        "Numer identyfikacyjny", "Rachunek bankowy", "Nie ma tu żadnych sekretów, tylko identyfikatory i hashe.",
        "Czy ktoś może na to spojrzeć?", "Proszę o aktualizację moich danych:",
    ],
    "ru": [
        "пароль", "токен", "ключ", "учётные данные", "имя пользователя",
        "Вот учётные данные для {svc}:", "Пожалуйста, смени его после демо.",
        "Не пересылай это, это боевой доступ.", "Получаю эту ошибку, когда запускаю {cmd}:",
        "Теперь работает, токен просто истёк.", "Вот текущий конфиг:",
        "Значения ниже — просто заглушки, ничего настоящего.", "Контактные данные клиента:", "Вопрос по заказу {order}",
        "Заметки по отладке", "Ваш временный пароль: {pw}", "Лог ниже.", "Деплой на staging падает с сегодняшнего утра.",
        "Я замаскировал ключ, видны только последние четыре символа.",
        "Привет, {name}!", "Спасибо,", "С уважением,", "Адрес", "Телефон", "Дата рождения", "ФИО", "Эл. почта",
        "Номер документа", "Банковский счёт", "Секретов тут нет, только идентификаторы и хеши.", "Кто-нибудь может посмотреть?",
        "Прошу обновить мои данные:",
    ],
    "uk": [
        "пароль", "токен", "ключ", "облікові дані", "ім'я користувача",
        "Ось облікові дані для {svc}:", "Будь ласка, зміни його після демо.",
        "Не пересилай це, це продакшн-доступ.", "Отримую цю помилку, коли запускаю {cmd}:",
        "Тепер працює, токен просто прострочився.", "Ось поточна конфігурація:",
        "Значення нижче — лише заглушки, нічого справжнього.", "Контактні дані клієнта:", "Питання щодо замовлення {order}",
        "Нотатки з налагодження", "Ваш тимчасовий пароль: {pw}", "Лог нижче.", "Деплой на staging падає з сьогоднішнього ранку.",
        "Я замаскував ключ, видно лише останні чотири символи.",
        "Привіт, {name}!", "Дякую,", "З повагою,", "Адреса", "Телефон", "Дата народження", "ПІБ", "Ел. пошта",
        "Номер документа", "Банківський рахунок", "Секретів тут немає, лише ідентифікатори та хеші.", "Хтось може подивитися?",
        "Прошу оновити мої дані:",
    ],
    "ja": [
        "パスワード", "トークン", "キー", "認証情報", "ユーザー名",
        "{svc} の認証情報です：", "デモの後で再発行してください。", "本番用なので転送しないでください。",
        "{cmd} を実行するとこのエラーが出ます：", "トークンの期限切れが原因でした。今は動いています。", "現在の設定はこちらです：",
        "以下の値はプレースホルダーで、本物ではありません。", "お客様の連絡先：", "注文 {order} についての問い合わせ",
        "デバッグメモ", "仮パスワードは {pw} です", "ログは以下の通りです。", "今朝からステージングへのデプロイが失敗しています。",
        "キーはマスクしてあり、末尾4文字だけ見えます。",
        "{name} さん", "よろしくお願いします。", "よろしくお願いいたします。", "住所", "電話番号", "生年月日", "氏名", "メール",
        "個人番号", "銀行口座", "ここに秘密情報はありません。IDとハッシュだけです。", "どなたか見ていただけますか？",
        "登録情報の変更をお願いします：",
    ],
    "zh": [
        "密码", "令牌", "密钥", "凭据", "用户名",
        "这是 {svc} 的凭据：", "演示结束后请重新生成。", "请不要转发，这是生产环境的。", "运行 {cmd} 时出现这个错误：",
        "现在好了，原来是令牌过期了。", "这是当前的配置：", "下面的值只是占位符，不是真实的。", "客户联系方式：",
        "关于订单 {order} 的问题", "调试笔记", "您的临时密码是 {pw}", "日志见下。", "从今天早上开始部署到 staging 一直失败。",
        "我把密钥遮住了，只显示最后四位。",
        "{name}，你好：", "谢谢，", "此致", "地址", "电话", "出生日期", "姓名", "邮箱", "身份证号", "银行账户",
        "这里没有机密信息，只有 ID 和哈希。", "有人能帮忙看一下吗？", "请更新我的资料：",
    ],
    "ko": [
        "비밀번호", "토큰", "키", "인증 정보", "사용자 이름",
        "{svc} 인증 정보입니다:", "데모 끝나면 재발급해 주세요.", "운영 환경 계정이니 전달하지 마세요.",
        "{cmd} 실행하면 이 오류가 납니다:", "이제 됩니다. 토큰이 만료됐던 거였어요.", "현재 설정입니다:",
        "아래 값은 자리표시자일 뿐 실제 값이 아닙니다.", "고객 연락처:", "주문 {order} 문의", "디버깅 메모",
        "임시 비밀번호는 {pw} 입니다", "아래 로그를 참고하세요.", "오늘 아침부터 스테이징 배포가 실패합니다.",
        "키는 마스킹했고 마지막 네 글자만 보입니다.",
        "{name}님, 안녕하세요.", "감사합니다.", "감사합니다.", "주소", "전화번호", "생년월일", "이름", "이메일",
        "주민등록번호", "계좌번호", "여기에는 비밀 정보가 없고 ID와 해시뿐입니다.", "누가 좀 봐주실 수 있나요?",
        "제 정보를 수정해 주세요:",
    ],
    "tr": [
        "şifre", "token", "anahtar", "kimlik bilgileri", "kullanıcı adı",
        "{svc} için kimlik bilgileri şunlar:", "Lütfen demodan sonra yenileyin.", "Bunu iletmeyin, canlı ortam erişimi.",
        "{cmd} çalıştırınca bu hatayı alıyorum:", "Şimdi çalışıyor, token'ın süresi dolmuştu.", "Mevcut yapılandırma bu:",
        "Aşağıdaki değerler sadece yer tutucu, gerçek değil.", "Müşteri iletişim bilgileri:",
        "{order} numaralı sipariş hakkında soru", "Hata ayıklama notları", "Geçici şifreniz: {pw}", "Log aşağıda.",
        "Bu sabahtan beri staging'e dağıtım başarısız oluyor.", "Anahtarı maskeledim, sadece son dört karakter görünüyor.",
        "Merhaba {name},", "Teşekkürler,", "Saygılarımla,", "Adres", "Telefon", "Doğum tarihi", "Ad Soyad", "E-posta",
        "T.C. Kimlik No", "Banka hesabı", "Burada gizli bir şey yok, sadece kimlikler ve hash'ler var.", "Biri bakabilir mi?",
        "Lütfen bilgilerimi güncelleyin:",
    ],
    "sv": [
        "lösenord", "token", "nyckel", "inloggningsuppgifter", "användarnamn",
        "Här är inloggningsuppgifterna för {svc}:", "Byt gärna ut den efter demon.",
        "Vidarebefordra inte det här, det är produktionsåtkomsten.", "Jag får det här felet när jag kör {cmd}:",
        "Nu fungerar det, token hade gått ut.", "Det här är den nuvarande konfigurationen:",
        "Värdena nedan är bara platshållare, inget riktigt.", "Kundens kontaktuppgifter:", "Fråga om order {order}",
        "Felsökningsanteckningar", "Ditt tillfälliga lösenord är {pw}", "Se loggen nedan.",
        "Driftsättningen till staging misslyckas sedan i morse.", "Jag har maskerat nyckeln, bara de fyra sista tecknen syns.",
        "Hej {name},", "Tack,", "Med vänliga hälsningar,", "Adress", "Telefon", "Födelsedatum", "Namn", "E-post",
        "Personnummer", "Bankkonto", "Inga hemligheter här, bara id:n och hashar.", "Kan någon kika på det?",
        "Vänligen uppdatera mina uppgifter:",
    ],
    "ar": [
        "كلمة المرور", "الرمز المميز", "المفتاح", "بيانات الدخول", "اسم المستخدم",
        "هذه بيانات الدخول الخاصة بـ {svc}:", "يرجى تغييرها بعد العرض التجريبي.",
        "لا تُعد توجيه هذه الرسالة، فهذه بيانات بيئة الإنتاج.", "يظهر لي هذا الخطأ عند تشغيل {cmd}:",
        "يعمل الآن، كانت صلاحية الرمز قد انتهت.", "هذه هي الإعدادات الحالية:", "القيم أدناه مجرد عناصر نائبة وليست حقيقية.",
        "بيانات الاتصال بالعميل:", "استفسار بخصوص الطلب {order}", "ملاحظات تصحيح الأخطاء",
        "كلمة المرور المؤقتة الخاصة بك هي {pw}", "انظر السجل أدناه.", "النشر على بيئة staging يفشل منذ صباح اليوم.",
        "أخفيت المفتاح، تظهر فقط آخر أربعة أحرف.",
        "مرحباً {name}،", "شكراً،", "مع التحية،", "العنوان", "الهاتف", "تاريخ الميلاد", "الاسم", "البريد الإلكتروني",
        "رقم الهوية", "الحساب البنكي", "لا توجد أسرار هنا، فقط معرّفات وقيم تجزئة.", "هل يمكن لأحد أن يلقي نظرة؟",
        "يرجى تحديث بياناتي:",
    ],
    "hi": [
        "पासवर्ड", "टोकन", "कुंजी", "लॉगिन विवरण", "यूज़रनेम",
        "{svc} के लॉगिन विवरण ये रहे:", "कृपया डेमो के बाद इसे बदल दें।", "इसे आगे मत भेजिए, यह प्रोडक्शन का एक्सेस है।",
        "{cmd} चलाने पर मुझे यह एरर मिलता है:", "अब चल रहा है, टोकन की मियाद खत्म हो गई थी।", "यह मौजूदा कॉन्फ़िगरेशन है:",
        "नीचे दिए गए मान सिर्फ़ प्लेसहोल्डर हैं, असली नहीं।", "ग्राहक के संपर्क विवरण:", "ऑर्डर {order} के बारे में सवाल",
        "डीबगिंग नोट्स", "आपका अस्थायी पासवर्ड {pw} है", "नीचे लॉग देखें।", "आज सुबह से स्टेजिंग पर डिप्लॉयमेंट फेल हो रहा है।",
        "मैंने कुंजी छिपा दी है, सिर्फ़ आख़िरी चार अक्षर दिख रहे हैं।",
        "नमस्ते {name},", "धन्यवाद,", "सादर,", "पता", "फ़ोन", "जन्म तिथि", "नाम", "ईमेल", "आधार नंबर", "बैंक खाता",
        "यहाँ कोई गोपनीय जानकारी नहीं है, सिर्फ़ आईडी और हैश हैं।", "क्या कोई इसे देख सकता है?", "कृपया मेरी जानकारी अपडेट करें:",
    ],
    "vi": [
        "mật khẩu", "token", "khóa", "thông tin đăng nhập", "tên đăng nhập",
        "Đây là thông tin đăng nhập cho {svc}:", "Nhớ đổi lại sau buổi demo nhé.",
        "Đừng chuyển tiếp tin này, đây là quyền truy cập production.", "Mình gặp lỗi này khi chạy {cmd}:",
        "Giờ chạy được rồi, token đã hết hạn.", "Đây là cấu hình hiện tại:",
        "Các giá trị bên dưới chỉ là giá trị mẫu, không phải thật.", "Thông tin liên hệ của khách hàng:",
        "Câu hỏi về đơn hàng {order}", "Ghi chú gỡ lỗi", "Mật khẩu tạm thời của bạn là {pw}", "Xem log bên dưới.",
        "Triển khai lên staging bị lỗi từ sáng nay.", "Mình đã che khóa, chỉ còn thấy bốn ký tự cuối.",
        "Chào {name},", "Cảm ơn,", "Trân trọng,", "Địa chỉ", "Điện thoại", "Ngày sinh", "Họ tên", "Email", "Số CCCD",
        "Tài khoản ngân hàng", "Ở đây không có bí mật gì, chỉ có ID và hash.", "Ai xem giúp mình với?",
        "Vui lòng cập nhật thông tin của tôi:",
    ],
}
PHRASES: dict[str, dict[str, str]] = {}
for _lang, _vals in _PHRASES_RAW.items():
    assert len(_vals) == len(PHRASE_KEYS), (_lang, len(_vals))
    PHRASES[_lang] = dict(zip(PHRASE_KEYS, _vals, strict=True))
LANGS = list(PHRASES)

# a config key in the prose language, for notes that quote hand-written configs
LOCAL_KEYS = {
    "en": ("password", "user", "token"), "de": ("Passwort", "Benutzer", "Zugangstoken"), "fr": ("mot_de_passe", "utilisateur", "jeton"),
    "es": ("contraseña", "usuario", "clave_api"), "pt": ("senha", "usuario", "chave_api"), "it": ("password", "utente", "chiave_api"),
    "nl": ("wachtwoord", "gebruiker", "sleutel"), "pl": ("hasło", "użytkownik", "klucz_api"), "ru": ("пароль", "логин", "токен"),
    "uk": ("пароль", "логін", "токен"), "ja": ("パスワード", "ユーザー", "APIキー"), "zh": ("密码", "用户名", "密钥"),
    "ko": ("비밀번호", "아이디", "API키"), "tr": ("şifre", "kullanıcı", "api_anahtarı"), "sv": ("lösenord", "användare", "nyckel"),
    "ar": ("كلمة_المرور", "المستخدم", "المفتاح"), "hi": ("पासवर्ड", "यूज़र", "कुंजी"), "vi": ("mat_khau", "nguoi_dung", "khoa_api"),
}

# ---------------------------------------------------------------- encodings


def jesc(v: str, ascii_only: bool = False) -> str:
    return json.dumps(v, ensure_ascii=ascii_only)[1:-1]


def xml_esc(v: str) -> str:
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&apos;")


def encode(v: str, enc: str) -> str:
    if enc == "json":
        return jesc(v)
    if enc == "json_ascii":
        return jesc(v, True)
    if enc == "json2":
        return jesc(jesc(v))
    if enc == "json2_ascii":
        return jesc(jesc(v, True), True)
    if enc == "go_json":
        return jesc(v, True).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if enc == "url":
        return urllib.parse.quote(v, safe="")
    if enc == "form":
        return urllib.parse.quote_plus(v)
    if enc == "html":
        return html.escape(v, quote=True)
    if enc == "xml":
        return xml_esc(v)
    if enc == "b64":
        return b64(v.encode())
    if enc == "sh_single":
        return v.replace("'", "'\\''")
    if enc == "sql":
        return v.replace("'", "''")
    if enc == "csv":
        return v.replace('"', '""')
    raise ValueError(enc)


def jdump(obj: object, indent: int | None = 2, ascii_only: bool = False, compact: bool = False) -> str:
    if compact:
        return json.dumps(obj, ensure_ascii=ascii_only, separators=(",", ":"))
    return json.dumps(obj, ensure_ascii=ascii_only, indent=indent)


# ---------------------------------------------------------------- rows and labels


@dataclass
class Label:
    value: str
    kind: str
    shown: str | None = None
    pieces: list[str] | None = None

    def form(self) -> str:
        return self.shown if self.shown is not None else self.value

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"value": self.value, "kind": self.kind}
        if self.shown is not None:
            out["shown"] = self.shown
        if self.pieces is not None:
            out["pieces"] = self.pieces
        return out


CLASSES = ("secrets", "pii", "decoys")


@dataclass
class Row:
    rng: random.Random
    style: str
    lang: str
    clean: bool
    loc: str = ""
    labels: dict[str, list[Label]] = field(default_factory=lambda: {c: [] for c in CLASSES})

    def __post_init__(self) -> None:
        if not self.loc:
            self.loc = self.rng.choice(LANG_LOCALES[self.lang])

    def _add(self, cls: str, value: str, kind: str, enc: str | None) -> str:
        shown = encode(value, enc) if enc else None
        if shown == value:
            shown = None
        for lab in self.labels[cls]:
            if lab.value == value and lab.shown == shown:
                return lab.form()
        self.labels[cls].append(Label(value, kind, shown))
        return shown if shown is not None else value

    def S(self, value: str, kind: str, enc: str | None = None) -> str:
        if self.clean:
            raise AssertionError(f"{self.style}: secret {kind} in a clean row")
        return self._add("secrets", value, kind, enc)

    def P(self, value: str, kind: str, enc: str | None = None) -> str:
        return self._add("pii", value, kind, enc)

    def D(self, value: str, kind: str, enc: str | None = None) -> str:
        return self._add("decoys", value, kind, enc)

    def t(self, key: str, **kw: str) -> str:
        return PHRASES[self.lang][key].format(**kw)

    def person(self, loc: str | None = None) -> Person:
        return make_person(self.rng, loc or self.loc)

    def spec(self, n: int = 1, exclude: tuple[str, ...] = ()) -> list[Spec]:
        return deal_specs(n, exclude)

    def secret(self, spec: Spec, enc: str | None = None) -> tuple[str, str]:
        """Generate a value for spec, label it, return (raw value, displayed form)."""
        v = spec.gen(self.rng)
        return v, self.S(v, spec.kind, enc)

    def pw(self, kind: str = "password", shape: str | None = None, enc: str | None = None) -> str:
        return self.S(gen_password(self.rng, shape), kind, enc)

    def decoy_ttl(self) -> tuple[str, str]:
        k, v = self.rng.choice(TTL_DECOYS)
        self.D(v, "credential_setting_number")
        return k, v

    def label_person(self, p: Person, fields: str) -> None:
        """Label the chosen fields of p that the caller has put into the text."""
        for f in fields.split():
            if f == "name":
                self.P(p.full, "person_name")
            elif f == "latin":
                self.P(p.latin, "person_name")
            elif f == "email":
                self.P(p.email, "email")
            elif f == "phone":
                self.P(p.phone_nat, "phone")
            elif f == "intl":
                self.P(p.phone_intl, "phone")
            elif f == "address":
                self.P(p.address, "postal_address")
            elif f == "id":
                self.P(p.natid, p.natid_kind)
            else:
                raise ValueError(f)


def hard_wrap(text: str, width: int, indent: int) -> tuple[str, list[int]]:
    """Cut every line longer than width the way a terminal does; map input index -> output index."""
    out: list[str] = []
    mapping: list[int] = []
    pos = 0
    for li, line in enumerate(text.split("\n")):
        if li:
            out.append("\n")
            mapping.append(pos)
            pos += 1
        col = 0
        for ch in line:
            if col >= width:
                out.append("\n" + " " * indent)
                pos += 1 + indent
                col = indent
            out.append(ch)
            mapping.append(pos)
            pos += 1
            col += 1
    return "".join(out), mapping


def pieces_of(start: int, length: int, mapping: list[int], wrapped: str, value: str) -> list[str]:
    pieces: list[str] = []
    run = ""
    prev = -2
    for i in range(start, start + length):
        o = mapping[i]
        ch = value[i - start]
        if ch == "\n" or (o != prev + 1 and run):
            if run:
                pieces.append(run)
            run = ""
        if ch != "\n":
            run += wrapped[o]
        prev = o
    if run:
        pieces.append(run)
    return pieces


def wrap_row(r: Row, text: str, width: int, indent: int = 0) -> str:
    """Wrap text like a terminal pane and give every label that no longer shows whole its pieces."""
    for _attempt in range(60):
        wrapped, mapping = hard_wrap(text, width, indent)
        bad_at: int | None = None
        for cls in CLASSES:
            for lab in r.labels[cls]:
                form = lab.form()
                if form in wrapped:
                    lab.pieces = None
                    continue
                at = text.find(form)
                if at < 0:
                    raise AssertionError(f"{r.style}: {lab.kind} missing before wrapping")
                ps = pieces_of(at, len(form), mapping, wrapped, form)
                if lab.shown is not None or len(ps) < 2 or min(len(p) for p in ps) < 6:
                    bad_at = at
                    break
                lab.pieces = ps
            if bad_at is not None:
                break
        if bad_at is None:
            return wrapped
        # shift the offending value by one column: double a space before it on its line, else indent the line
        line_start = text.rfind("\n", 0, bad_at) + 1
        taken = [(a, a + len(lab.form())) for cls in CLASSES for lab in r.labels[cls] for a in occurrences(text, lab.form())]
        free = [k for k in range(line_start, bad_at) if text[k] == " " and not any(a <= k < e for a, e in taken)]
        ins = free[0] if free else line_start
        text = text[:ins] + " " + text[ins:]
    raise AssertionError(f"{r.style}: could not wrap at {width}")


def indent_pieces(r: Row, value: str) -> None:
    """A multi-line value shown with every line indented: its lines are the pieces."""
    for cls in CLASSES:
        for lab in r.labels[cls]:
            if lab.value == value:
                # lines under six characters (blank lines, a PGP "=abcd" checksum) are not pieces
                lab.pieces = [ln for ln in value.split("\n") if len(ln) >= 6]


def indent_block(s: str, n: int) -> str:
    return "\n".join((" " * n + ln) if ln else ln for ln in s.split("\n"))


# ---------------------------------------------------------------- shared pieces for the styles

PROMPTS = ["$ ", "dev@build-07:~/api$ ", "➜  shop git:(main) ✗ ", "[ci@runner-3 ~]$ ", "root@web-2:/srv/app# ", "% ",
           "PS C:\\src\\api> ", "ops@bastion:~$ ", "(.venv) dev@laptop api % "]


def prompt(r: Row) -> str:
    return r.rng.choice(PROMPTS)


def decoy_env(r: Row) -> tuple[str, str]:
    """A NAME=value pair whose value looks sensitive but is not; labelled as a decoy."""
    rng = r.rng
    pick = rng.randrange(24)
    if pick < 4:
        return r.decoy_ttl()
    table: list[tuple[str, Callable[[random.Random], str], str]] = [
        ("SENTRY_RELEASE", sha1_hex, "commit_sha"), ("BUILD_ID", uuid4, "uuid"), ("AWS_ACCOUNT_ID", aws_account_id, "aws_account_id"),
        ("DEPLOY_ROLE_ARN", arn, "aws_arn"), ("REDIS_HOST", private_ip, "private_ip"), ("INTERNAL_API_HOST", internal_host, "hostname"),
        ("IMAGE_DIGEST", image_digest, "image_digest"), ("STRIPE_PUBLISHABLE_KEY", stripe_publishable, "stripe_publishable_key"),
        ("GOOGLE_CLIENT_ID", google_client_id, "oauth_client_id"), ("APP_VERSION", version_string, "version"),
        ("VPC_CIDR", cidr, "cidr"), ("GPG_KEY_ID", gpg_key_id, "gpg_key_id"), ("TWILIO_ACCOUNT_SID", twilio_sid, "twilio_account_sid"),
        ("KMS_KEY_ID", uuid4, "uuid"), ("ARTIFACT_SHA256", sha256_hex, "sha256"), ("RUN_ID", ulid, "ulid"),
        ("OTEL_TRACE_ID", trace_id, "trace_id"), ("SENTRY_PUBLIC_DSN", sentry_public_dsn, "sentry_public_dsn"),
        ("OCI_TENANCY", ocid, "oci_ocid"), ("HOSTNAME", pod_name, "pod_name"),
    ]
    name, gen, kind = table[pick - 4]
    return name, r.D(gen(rng), kind)


def placeholder_env(r: Row) -> tuple[str, str]:
    name = r.rng.choice([e for s in SECRET_SPECS for e in s.envs] + ["DB_PASSWORD", "SMTP_PASSWORD"])
    if r.rng.random() < 0.6:
        return name, r.D(placeholder(r.rng), "placeholder")
    return name, r.D(masked(r.rng), "masked")


def doc_example(r: Row, kinds: tuple[str, ...] = ()) -> str:
    """A value copied from vendor documentation (AKIAIOSFODNN7EXAMPLE, 4242 4242 4242 4242, ...), labelled a decoy."""
    kind, val = r.rng.choice([d for d in DOC_EXAMPLES if not kinds or d[0] in kinds])
    return r.D(val, kind)


def secret_env(r: Row, exclude: tuple[str, ...] = ()) -> tuple[str, str]:
    spec = r.spec(1, exclude)[0]
    _, shown = r.secret(spec)
    return r.rng.choice(spec.envs), shown


def db_url(r: Row) -> str:
    url, _pw = gen_db_url(r.rng)
    return r.S(url, "database_url_with_password")


def bearer_spec(r: Row) -> Spec:
    return SPEC_BY_KIND[r.rng.choice(BEARER_KINDS)]


def lang_comment(r: Row, key: str = "config", prefix: str = "#", **kw: str) -> str:
    return f"{prefix} {r.t(key, **kw)}"


def pii_kv(r: Row, p: Person, fields: str) -> list[tuple[str, str]]:
    """Localised field names with the person's values, labelled."""
    out = []
    for f in fields.split():
        if f == "name":
            out.append((r.t("name"), r.P(p.full, "person_name")))
        elif f == "email":
            out.append((r.t("email"), r.P(p.email, "email")))
        elif f == "phone":
            out.append((r.t("phone"), r.P(r.rng.choice([p.phone_nat, p.phone_intl]), "phone")))
        elif f == "address":
            out.append((r.t("address"), r.P(p.address, "postal_address")))
        elif f == "dob":
            out.append((r.t("dob"), r.P(fmt_dob(r.rng, p.dob, p.locale), "date_of_birth")))
        elif f == "id":
            out.append((r.t("idno"), r.P(p.natid, p.natid_kind)))
        elif f == "iban":
            out.append(("IBAN", r.P(iban_for(r.rng, p.locale), "iban")))
        elif f == "passport":
            out.append(("Passport", r.P(passport_number(r.rng, p.locale), "passport_number")))
        elif f == "plate":
            out.append(("Kfz/plate", r.P(licence_plate(r.rng, p.locale), "licence_plate")))
        elif f == "card":
            out.append(("Card", r.P(card_number(r.rng)[1], "card_number")))
        elif f == "mrn":
            out.append(("MRN", r.P(mrn(r.rng), "medical_record_number")))
        else:
            raise ValueError(f)
    return out


# ---------------------------------------------------------------- styles


def st_shell_session(r: Row, i: int) -> str:
    rng = r.rng
    p = prompt(r)
    v = i % 6
    out: list[str] = []
    if r.lang != "en":
        out.append(lang_comment(r, "ask_help"))
    if v == 0:
        host = rng.choice(["api.shopwave.dev", "billing.acme-logistics.de", "api.kestrelpay.fr"])
        rid = r.D(request_id(rng), "request_id")
        tp = r.D(traceparent(rng), "traceparent")
        if r.clean:
            r.D("API_TOKEN", "env_var_name")
            out.append(f'{p}curl -s -H "Authorization: Bearer $API_TOKEN" -H "traceparent: {tp}" https://{host}/v1/orders?limit=1 | jq .')
        else:
            spec = SPEC_BY_KIND[rng.choice(["jwt", "inhouse_api_key", "oauth_access_token", "stripe_secret_key"])]
            _, tok = r.secret(spec)
            env = rng.choice(spec.envs)
            out.append(f"{p}export {env}={tok}")
            out.append(f'{p}curl -s -H "Authorization: Bearer ${env}" -H "traceparent: {tp}" https://{host}/v1/orders?limit=1 | jq .')
        cust = r.person()
        body = {"data": [{"id": r.D(order_number(rng), "order_number"), "status": "paid",
                          "customer": {"name": r.P(cust.latin, "person_name"), "email": r.P(cust.email, "email")},
                          "sku": r.D(sku(rng), "sku"), "created_at": r.D(ts_iso(rng), "timestamp")}],
                "request_id": rid}
        out.append(jdump(body))
    elif v == 1:
        host = r.D(internal_host(rng), "hostname")
        if r.clean:
            out.append(f"{p}mysql -h {host} -u report -p shop")
            out.append("Enter password: ")
        else:
            pw = r.pw("database_password", enc="sh_single")
            out.append(f"{p}mysql -h {host} -u report -p'{pw}' shop")
            out.append("mysql: [Warning] Using a password on the command line interface can be insecure.")
        out.append("Welcome to the MySQL monitor.  Commands end with ; or \\g.")
        out.append(f"Server version: {r.D('8.0.' + str(rng.randint(30, 40)), 'version')} MySQL Community Server - GPL")
        out.append("mysql> SELECT id, full_name, email, phone FROM customers ORDER BY id DESC LIMIT 3;")
        rows = []
        for _ in range(3):
            c = r.person(rng.choice(LANG_LOCALES[rng.choice(["en", "de", "fr", "es"])]))
            rows.append((str(rng.randint(10000, 99999)), r.P(c.latin, "person_name"), r.P(c.email, "email"),
                         r.P(c.phone_intl, "phone")))
        widths = [max(len(x[k]) for x in rows + [("id", "full_name", "email", "phone")]) for k in range(4)]
        sep = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        out.append(sep)
        out.append("| " + " | ".join(h.ljust(w) for h, w in zip(("id", "full_name", "email", "phone"), widths, strict=True)) + " |")
        out.append(sep)
        for row in rows:
            out.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
        out.append(sep)
        out.append(f"3 rows in set (0.0{rng.randint(0, 9)} sec)")
    elif v == 2:
        reg = rng.choice(["registry.gitlab.com", "ghcr.io", "docker.io", "acme.azurecr.io"])
        if r.clean:
            out.append(f"{p}docker login {reg} -u ci-bot --password-stdin < ~/.secrets/registry")
        else:
            spec = SPEC_BY_KIND[rng.choice(["docker_hub_pat", "github_classic_pat", "gitlab_pat"])]
            _, tok = r.secret(spec)
            out.append(f"{p}docker login {reg} -u ci-bot -p {tok}")
            out.append("WARNING! Using --password via the CLI is insecure. Use --password-stdin.")
        out.append("Login Succeeded")
        tag = r.D(version_string(rng), "version")
        out.append(f"{p}docker pull {reg}/shop/api:{tag}")
        out.append(f"{tag}: Pulling from shop/api")
        for _ in range(3):
            out.append(f"{r.D(short_sha(rng) + rs(rng, HEX, 4), 'image_layer_id')}: Pull complete")
        out.append(f"Digest: {r.D(image_digest(rng), 'image_digest')}")
        out.append(f"Status: Downloaded newer image for {reg}/shop/api:{tag}")
    elif v == 3:
        if r.clean:
            out.append(f"{p}git clone git@github.com:shopwave/checkout.git")
        else:
            spec = SPEC_BY_KIND[rng.choice(["github_classic_pat", "gitlab_pat", "github_fine_grained_pat", "bitbucket_app_password"])]
            _, tok = r.secret(spec)
            host = {"gitlab_pat": "gitlab.com", "bitbucket_app_password": "bitbucket.org"}.get(spec.kind, "github.com")
            out.append(f"{p}git clone https://oauth2:{tok}@{host}/shopwave/checkout.git")
        out.append("Cloning into 'checkout'...")
        out.append(f"remote: Enumerating objects: {rng.randint(900, 9000)}, done.")
        out.append(f"{p}cd checkout && git log -2 --format='%H %an <%ae> %s'")
        for _ in range(2):
            a = r.person(rng.choice(LANG_LOCALES[rng.choice(LANGS)]))
            out.append(f"{r.D(sha1_hex(rng), 'commit_sha')} {r.P(a.full, 'person_name')} <{r.P(a.email, 'email')}> "
                       f"{rng.choice(['fix: retry on 502', 'chore: bump deps', 'feat: add refunds endpoint'])}")
    elif v == 4:
        if r.clean:
            out.append(f"{p}npm config get //registry.npmjs.org/:_authToken")
            out.append(r.D(masked(rng), "masked"))
            out.append(f"{p}cat .npmrc")
            out.append(f"//registry.npmjs.org/:_authToken={r.D('${NPM_TOKEN}', 'placeholder')}")
        else:
            _, tok = r.secret(SPEC_BY_KIND["npm_token"])
            out.append(f"{p}npm config set //registry.npmjs.org/:_authToken={tok}")
            out.append(f"{p}cat ~/.pypirc")
            _, pt = r.secret(SPEC_BY_KIND["pypi_token"])
            out.append(f"[pypi]\n  username = __token__\n  password = {pt}")
        out.append(f"{p}npm view left-pad dist.integrity")
        out.append(r.D(sri_hash(rng), "integrity_hash"))
    else:
        priv, pub, fp = ed25519_pair(rng, "deploy@ci")
        out.append(f'{p}ssh-keygen -t ed25519 -C "deploy@ci" -f ./deploy_key -N ""')
        out.append("Generating public/private ed25519 key pair.")
        out.append("Your identification has been saved in ./deploy_key")
        out.append("Your public key has been saved in ./deploy_key.pub")
        out.append("The key fingerprint is:")
        out.append(f"{r.D(fp, 'ssh_fingerprint')} deploy@ci")
        out.append(f"{p}cat deploy_key.pub")
        out.append(r.D(pub, "ssh_public_key"))
        if not r.clean:
            out.append(f"{p}cat deploy_key")
            out.append(r.S(priv, "ssh_private_key"))
    return "\n".join(out)


def st_env_dump(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    head = [
        f"{prompt(r)}env | sort", f"{prompt(r)}printenv", f"{prompt(r)}cat .env", f"{prompt(r)}docker exec -it api-1 env",
    ][v]
    pairs: list[tuple[str, str]] = []
    base = [("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"), ("HOME", "/root"), ("LANG", "C.UTF-8"),
            ("NODE_ENV", "production"), ("LOG_LEVEL", "info"), ("PORT", "8080")]
    pairs += rng.sample(base, rng.randint(2, 5))
    for _ in range(rng.randint(3, 6)):
        pairs.append(decoy_env(r))
    if r.clean:
        for _ in range(rng.randint(2, 4)):
            pairs.append(placeholder_env(r))
    else:
        used: list[str] = []
        for _ in range(rng.randint(2, 5)):
            name, val = secret_env(r, tuple(used))
            used.append(next(s.kind for s in SECRET_SPECS if name in s.envs))
            pairs.append((name, val))
        if rng.random() < 0.6:
            pairs.append(("DATABASE_URL", db_url(r)))
    if rng.random() < 0.4:
        p = r.person()
        pairs.append(("GIT_AUTHOR_EMAIL", r.P(p.email, "email")))
        pairs.append(("GIT_AUTHOR_NAME", r.P(p.latin, "person_name")))
    seen: set[str] = set()
    for n, (k, val) in enumerate(pairs):
        if k in seen:
            pairs[n] = (k + "_OLD", val)
        seen.add(k)
    if v == 0:
        pairs.sort()
    else:
        rng.shuffle(pairs)
    lines = [head]
    if v == 2:
        lines.append(lang_comment(r, "placeholders" if r.clean else "dont_share"))
        if rng.random() < 0.5:
            lines.append(f"# e.g. AWS_ACCESS_KEY_ID={doc_example(r, ('aws_doc_access_key',))} "
                         f"AWS_SECRET_ACCESS_KEY={doc_example(r, ('aws_doc_secret_key',))}")
        for k, val in pairs:
            q = rng.choice(["", "", '"'])
            if q and ('"' in val or "\\" in val or "$" in val):
                q = ""
            lines.append(f"{k}={q}{val}{q}")
    else:
        if r.lang != "en":
            lines.insert(0, lang_comment(r, "see_log"))
        lines += [f"{k}={val}" for k, val in pairs]
    return "\n".join(lines)


def st_secret_cli(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 9
    # the macOS keychain command only runs in a macOS shell
    p = "build@mac-mini ~ % " if v == 8 else prompt(r)
    out: list[str] = []
    if r.lang != "en":
        out.append(lang_comment(r, "here_creds" if not r.clean else "nothing_secret", svc="staging"))
    out.append(f"{p}git rev-parse HEAD && date -u +%Y-%m-%dT%H:%M:%SZ")
    out.append(r.D(sha1_hex(rng), "commit_sha"))
    out.append(r.D(iso_z(rand_day(rng), ms=False), "timestamp"))
    if v == 0:
        if r.clean:
            out.append(f"{p}vault token lookup")
            rows = [("accessor", r.D(vault_accessor(rng), "vault_token_accessor")), ("creation_ttl", "768h"),
                    ("display_name", "oidc-ci"), ("entity_id", r.D(uuid4(rng), "uuid")), ("expire_time", r.D(ts_iso(rng), "timestamp")),
                    ("id", r.D("n/a (token hidden by policy)", "masked")), ("policies", "[default deploy]"), ("ttl", r.D("767h59m", "duration"))]
        else:
            path = rng.choice(["secret/data/shop/prod/db", "database/creds/readonly", "kv/payments/stripe"])
            out.append(f"{p}vault read {path}")
            if path.startswith("database"):
                rows = [("lease_id", r.D(f"database/creds/readonly/{rs(rng, ALNUM, 24)}", "vault_lease_id")),
                        ("lease_duration", "1h"), ("lease_renewable", "true"),
                        ("password", r.S("A1a-" + rs(rng, ALNUM, 20), "database_password")),
                        ("username", f"v-token-readonly-{rs(rng, LOWER + DIGITS, 20)}-{rng.randint(10**9, 10**10)}")]
            elif "stripe" in path:
                rows = [("refresh_interval", "768h"), ("api_key", r.secret(SPEC_BY_KIND["stripe_secret_key"])[1]),
                        ("webhook_secret", r.secret(SPEC_BY_KIND["stripe_webhook_secret"])[1])]
            else:
                rows = [("refresh_interval", "768h"), ("password", r.pw("database_password")),
                        ("username", "shop_app"), ("host", r.D(internal_host(rng), "hostname"))]
        w = max(len(k) for k, _ in rows) + 4
        out.append("Key".ljust(w) + "Value")
        out.append("---".ljust(w) + "-----")
        out += [k.ljust(w) + val for k, val in rows]
    elif v == 1:
        acct = aws_account_id(rng)
        role = rng.choice(["DeployRole", "BreakGlass", "ci-terraform"])
        if r.clean:
            out.append(f"{p}aws sts get-caller-identity")
            out.append(jdump({"UserId": r.D(aws_role_id(rng), "aws_unique_id") + ":ci-session", "Account": r.D(acct, "aws_account_id"),
                              "Arn": r.D(f"arn:aws:sts::{acct}:assumed-role/{role}/ci-session", "aws_arn")}, indent=4))
        else:
            out.append(f"{p}aws sts assume-role --role-arn arn:aws:iam::{acct}:role/{role} --role-session-name ci-session")
            exp = rand_day(rng)
            out.append(jdump({"Credentials": {
                "AccessKeyId": r.S(g_aws_temp_key_id(rng), "aws_temporary_access_key_id"),
                "SecretAccessKey": r.S(g_aws_secret(rng), "aws_secret_access_key"),
                "SessionToken": r.S(g_aws_session_token(rng), "aws_session_token"),
                "Expiration": r.D(exp.strftime("%Y-%m-%dT%H:%M:%S+00:00"), "timestamp")},
                "AssumedRoleUser": {"AssumedRoleId": r.D(aws_role_id(rng).replace("AIDA", "AROA"), "aws_unique_id") + ":ci-session",
                                    "Arn": r.D(f"arn:aws:sts::{acct}:assumed-role/{role}/ci-session", "aws_arn")}}, indent=4))
            r.D(acct, "aws_account_id")
    elif v == 2:
        name = rng.choice(["stripe-live-key", "db-password", "openai-key", "sendgrid"])
        proj = rng.choice(["shop-prod-4471", "acme-data-eu", "payments-312018"])
        if r.clean:
            out.append(f"{p}gcloud secrets versions list {name} --project {proj}")
            out.append("NAME  STATE     CREATED              DESTROYED")
            for n in range(3, 0, -1):
                out.append(f"{n}     {'enabled ' if n == 3 else 'disabled'}  {r.D(ts_iso(rng)[:19], 'timestamp')}  -")
        else:
            out.append(f"{p}gcloud secrets versions access latest --secret={name} --project {proj}")
            kind = {"stripe-live-key": "stripe_secret_key", "openai-key": "openai_api_key", "sendgrid": "sendgrid_api_key"}.get(name)
            val = r.secret(SPEC_BY_KIND[kind])[1] if kind else r.pw("database_password")
            # the secret has no trailing newline, so the next prompt follows it on the same line
            out.append(val + p.rstrip() + " ")
    elif v == 3:
        sub, tenant = uuid4(rng), uuid4(rng)
        if r.clean:
            out.append(f"{p}az account show")
            who = r.person("US")
            out.append(jdump({"environmentName": "AzureCloud", "id": r.D(sub, "azure_subscription_id"), "isDefault": True,
                              "name": "Pay-As-You-Go", "state": "Enabled", "tenantId": r.D(tenant, "azure_tenant_id"),
                              "user": {"name": r.P(who.email, "email"), "type": "user"}}))
        else:
            out.append(f"{p}az account get-access-token --resource https://management.azure.com")
            exp = rand_day(rng)
            out.append(jdump({"accessToken": r.S(g_azure_access_token(rng), "azure_access_token"),
                              "expiresOn": exp.strftime("%Y-%m-%d %H:%M:%S.000000"), "expires_on": epoch(exp),
                              "subscription": r.D(sub, "azure_subscription_id"), "tenant": r.D(tenant, "azure_tenant_id"),
                              "tokenType": "Bearer"}))
    elif v == 4:
        sec = rng.choice(["db-creds", "api-keys", "smtp"])
        if r.clean:
            out.append(f"{p}kubectl get secrets -n shop")
            out.append("NAME                  TYPE                                  DATA   AGE")
            for nm, tp, n in [(sec, "Opaque", 3), ("default-token-" + rs(rng, LOWER + DIGITS, 5), "kubernetes.io/service-account-token", 3),
                              ("regcred", "kubernetes.io/dockerconfigjson", 1)]:
                out.append(f"{nm.ljust(22)}{tp.ljust(38)}{str(n).ljust(7)}{rng.randint(2, 400)}d")
        else:
            key = rng.choice(["password", "api-key", "smtp-password"])
            out.append(f"{p}kubectl get secret {sec} -n shop -o jsonpath='{{.data.{key}}}' | base64 -d")
            val = r.pw("database_password" if key == "password" else "smtp_password") if key != "api-key" else r.S(g_inhouse(rng), "inhouse_api_key")
            out.append(val + p.rstrip() + " ")
            out.append(f"{p}kubectl get secret {sec} -n shop -o jsonpath='{{.data.{key}}}'")
            # the same value again, base64 as the API stores it: a second label with its shown form
            out.append(r.S(val, r.labels["secrets"][-1].kind, enc="b64"))
    elif v == 5:
        app = rng.choice(["shop-api-prod", "acme-worker", "billing-eu"])
        if r.clean:
            out.append(f"{p}heroku config:get LOG_LEVEL WEB_CONCURRENCY -a {app}")
            out.append("info\n4")
            out.append(f"{p}heroku releases -a {app} -n 2")
            out.append(f"=== {app} Releases - Current: v{rng.randint(100, 400)}")
            dev = r.person("US")
            out.append(f"v{rng.randint(100, 400)}  Deploy {r.D(short_sha(rng), 'commit_sha')}  {r.P(dev.email, 'email')}  "
                       f"{r.D(ts_iso(rng)[:16].replace('T', ' '), 'timestamp')}")
        else:
            var = rng.choice(["DATABASE_URL", "REDIS_URL", "SENDGRID_API_KEY"])
            out.append(f"{p}heroku config:get {var} -a {app}")
            if var == "SENDGRID_API_KEY":
                out.append(r.secret(SPEC_BY_KIND["sendgrid_api_key"])[1])
            else:
                url, _ = gen_db_url(rng)
                if var == "REDIS_URL":
                    url = f"rediss://:{rs(rng, HEX, 64)}@ec2-{rng.randint(3, 54)}-{rng.randint(1, 250)}-{rng.randint(1, 250)}-{rng.randint(1, 250)}.compute-1.amazonaws.com:{rng.randint(10000, 30000)}"
                out.append(r.S(url, "database_url_with_password"))
    elif v == 6:
        item = rng.choice(["Stripe", "OpenAI", "Prod DB", "Sentry"])
        if r.clean:
            out.append(f"{p}op item get \"{item}\" --vault Engineering --fields label=username,label=website")
            out.append(f"ci-bot,https://{rng.choice(['dashboard.stripe.com', 'platform.openai.com', 'sentry.io'])}")
            out.append(f"{p}op item list --vault Engineering --format json | jq '.[0].id'")
            out.append(f'"{r.D(rs(rng, LOWER + DIGITS, 26), "onepassword_item_id")}"')
        else:
            field_ = rng.choice(["credential", "password", "api key"])
            out.append(f'{p}op read "op://Engineering/{item}/{field_}"')
            kind = {"Stripe": "stripe_secret_key", "OpenAI": "openai_api_key", "Sentry": "sentry_auth_token"}.get(item)
            out.append(r.secret(SPEC_BY_KIND[kind])[1] if kind else r.pw("database_password"))
    elif v == 7:
        if r.clean:
            out.append(f"{p}gh auth status")
            out.append("github.com\n  ✓ Logged in to github.com account ci-bot (keyring)\n  - Active account: true\n"
                       "  - Git operations protocol: https")
            out.append(f"  - Token: {r.D('gho_************************************', 'masked')}")
            out.append("  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'")
        else:
            out.append(f"{p}gh auth token")
            out.append(r.secret(SPEC_BY_KIND[rng.choice(["github_oauth_token", "github_fine_grained_pat", "github_classic_pat"])])[1])
            out.append(f"{p}gh api user --jq .login")
            out.append("ci-bot")
    else:
        svc = rng.choice(["github.com", "AWS-vault-ci", "Docker Credentials", "prod-db"])
        if r.clean:
            out.append(f"{p}security find-generic-password -s \"{svc}\"")
            out.append('keychain: "/Users/build/Library/Keychains/login.keychain-db"\nversion: 512\nclass: "genp"\nattributes:')
            out.append(f'    "acct"<blob>="ci-bot"\n    "svce"<blob>="{svc}"\n    "mdat"<timedate>=0x{rs(rng, HEXU, 30)}00  '
                       f'"{r.D(ts_iso(rng)[:19].replace("-", "").replace(":", "").replace("T", ""), "timestamp")}Z\\000"')
        else:
            out.append(f"{p}security find-generic-password -s \"{svc}\" -a ci-bot -w")
            out.append(r.pw("keychain_password"))
    if rng.random() < 0.5:
        out.append(f"{p}echo ${r.D(rng.choice(['SESSION_TTL', 'TOKEN_TTL', 'VAULT_MAX_TTL']), 'env_var_name')}")
        out.append(r.D(rng.choice(["3600", "768h", "86400"]), "credential_setting_number"))
    return "\n".join(out)


def st_http_dump(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    host = rng.choice(["api.shopwave.dev", "auth.kestrelpay.fr", "internal-gw.acme-logistics.de", "api.bluepeak.io"])
    out: list[str] = []
    if r.lang != "en":
        out.append(r.t("error_when", cmd="curl -v"))
    rid = r.D(request_id(rng), "request_id")
    date = rand_day(rng).strftime("%a, %d %b %Y %H:%M:%S GMT")
    if v == 0:
        out.append(f"> POST /oauth/token HTTP/1.1\n> Host: {host}\n> User-Agent: curl/8.5.0\n> Accept: */*")
        if r.clean:
            out.append(f"> Authorization: Basic {r.D('********', 'masked')}")
        else:
            user = rng.choice(["shop-backend", "reporting", "mobile-app"])
            cred = f"{user}:{gen_password(rng, rng.choice(['random_long', 'word_digits']))}"
            out.append(f"> Authorization: Basic {r.S(cred, 'basic_auth_credentials', enc='b64')}")
        out.append("> Content-Type: application/x-www-form-urlencoded\n>\n* upload completely sent off: 29 bytes")
        out.append(f"< HTTP/1.1 200 OK\n< Date: {date}\n< Content-Type: application/json\n< X-Request-Id: {rid}")
        out.append("< Strict-Transport-Security: max-age=31536000\n<")
        if r.clean:
            body = {"error": "invalid_client", "error_description": "Client authentication failed", "request_id": rid}
        else:
            body = {"access_token": r.S(g_jwt_generic(rng), "oauth_access_token"), "token_type": "Bearer", "expires_in": 3600,
                    "refresh_token": r.S(g_oauth_refresh(rng), "oauth_refresh_token"), "scope": "orders:read orders:write"}
        out.append(jdump(body, compact=True))
    elif v == 1:
        out.append(f"GET /v2/customers/{r.D(uuid4(rng), 'uuid')} HTTP/2\nHost: {host}")
        if r.clean:
            out.append(f"Authorization: Bearer {r.D('<API_KEY>', 'placeholder')}")
        else:
            spec = bearer_spec(r)
            out.append(f"{rng.choice(['Authorization: Bearer ', 'X-Api-Key: ', 'Authorization: Token '])}{r.secret(spec)[1]}")
        out.append(f"traceparent: {r.D(traceparent(rng), 'traceparent')}\nAccept: application/json\n")
        p = r.person()
        out.append(f"HTTP/2 200\ndate: {date}\ncontent-type: application/json; charset=utf-8\nx-request-id: {rid}")
        out.append(f"etag: W/\"{r.D(rs(rng, HEX, 27), 'etag')}\"\n")
        out.append(jdump({"id": r.D(ulid(rng), "ulid"), "name": r.P(p.full, "person_name"), "email": r.P(p.email, "email"),
                          "phone": r.P(p.phone_intl, "phone"), "address": r.P(p.address, "postal_address"),
                          "created_at": r.D(ts_iso(rng), "timestamp"), "plan": "pro"}))
    elif v == 2:
        out.append(f"POST /login HTTP/1.1\nHost: {host}\nContent-Type: application/x-www-form-urlencoded\nOrigin: https://{host}")
        p = r.person()
        if r.clean:
            body = f"email={urllib.parse.quote(p.email, safe='')}&password=&remember=1"
            r.P(p.email, "email", enc="url")
        else:
            pw = gen_password(rng, rng.choice(["punct", "word_digits", "sentence", "leet"]))
            body = f"email={urllib.parse.quote(p.email, safe='')}&password={urllib.parse.quote_plus(pw)}&remember=1"
            r.P(p.email, "email", enc="url")
            r.S(pw, "password", enc="form")
        out.append(f"Content-Length: {len(body)}\n\n{body}\n")
        out.append(f"HTTP/1.1 302 Found\nLocation: /dashboard\nDate: {date}\nX-Request-Id: {rid}")
        if r.clean:
            out.append(f"Set-Cookie: consent={r.D(b64_harmless(rng)[1], 'base64_harmless')}; Path=/; SameSite=Lax")
        else:
            name, val = g_session_cookie(rng)
            out.append(f"Set-Cookie: {name}={r.S(val, 'session_cookie')}; Path=/; HttpOnly; Secure; SameSite=Lax")
            out.append(f"Set-Cookie: csrftoken={r.S(rs(rng, ALNUM, 64), 'csrf_token')}; Path=/; SameSite=Lax")
    else:
        out.append(f"$ curl -sv https://{host}/v1/webhooks -H 'Content-Type: application/json' \\")
        if r.clean:
            out.append("    -H \"Authorization: Bearer ${WEBHOOK_ADMIN_TOKEN}\" -d @hook.json")
            r.D("${WEBHOOK_ADMIN_TOKEN}", "placeholder")
            target = f"https://{host}/hooks/{r.D(uuid4(rng), 'uuid')}"
            secret_field = r.D("[REDACTED]", "masked")
        else:
            _, tok = r.secret(SPEC_BY_KIND[rng.choice(["inhouse_api_key", "github_app_token", "jwt"])])
            out.append(f"    -H \"Authorization: Bearer {tok}\" -d @hook.json")
            spec = SPEC_BY_KIND[rng.choice(["slack_webhook_url", "discord_webhook_url", "teams_webhook_url"])]
            target = r.secret(spec)[1]
            secret_field = r.S(rs(rng, HEX, 40), "webhook_signing_secret")
        out.append(f"* Connected to {host} ({r.D(public_ipv4(rng), 'server_ip')}) port 443")
        out.append(f"< HTTP/2 201\n< x-request-id: {rid}\n< cf-ray: {r.D(rs(rng, HEX, 16) + '-FRA', 'request_id')}")
        out.append(jdump({"id": r.D("wh_" + rs(rng, ALNUM, 24), "webhook_id"), "url": target, "events": ["order.paid", "order.refunded"],
                          "secret": secret_field, "created": r.D(str(epoch(rand_day(rng))), "unix_timestamp")}, indent=2))
    return "\n".join(out)


def st_api_client_export(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 3
    base = rng.choice(["https://api.shopwave.dev", "https://billing.acme-logistics.de/api", "https://api.bluepeak.io/v3"])
    desc = r.t("placeholders") if r.clean else r.t("dont_share")
    p = r.person()
    example = {"name": r.P(p.latin, "person_name"), "email": r.P(p.email, "email"), "phone": r.P(p.phone_intl, "phone")}
    if v == 0:
        if r.clean:
            auth: dict[str, object] = {"type": "bearer", "bearer": [{"key": "token", "value": "{{access_token}}", "type": "string"}]}
            r.D("{{access_token}}", "placeholder")
        else:
            kind = rng.choice(["bearer", "apikey", "basic"])
            if kind == "bearer":
                raw, _ = r.secret(r.spec(1)[0], enc="json")
                auth = {"type": "bearer", "bearer": [{"key": "token", "value": raw, "type": "string"}]}
            elif kind == "apikey":
                raw = g_inhouse(rng)
                r.S(raw, "inhouse_api_key", enc="json")
                auth = {"type": "apikey", "apikey": [{"key": "value", "value": raw, "type": "string"},
                                                     {"key": "key", "value": "X-Api-Key", "type": "string"}]}
            else:
                pw = gen_password(rng)
                r.S(pw, "password", enc="json")
                auth = {"type": "basic", "basic": [{"key": "password", "value": pw, "type": "string"},
                                                   {"key": "username", "value": "integration", "type": "string"}]}
        coll = {"info": {"_postman_id": r.D(uuid4(rng), "uuid"), "name": "Shop API", "description": desc,
                         "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
                         "_exporter_id": r.D(str(rng.randint(10**7, 10**8)), "exporter_id")},
                "item": [{"name": "Create customer", "request": {
                    "method": "POST", "header": [{"key": "Content-Type", "value": "application/json"}],
                    "body": {"mode": "raw", "raw": jdump(example, indent=4)},
                    "url": {"raw": "{{baseUrl}}/customers", "host": ["{{baseUrl}}"], "path": ["customers"]}}}],
                "auth": auth,
                "variable": [{"key": "baseUrl", "value": base, "type": "string"}]}
        return jdump(coll, indent="\t")
    if v == 1:
        values: list[dict[str, object]] = [{"key": "baseUrl", "value": base, "type": "default", "enabled": True}]
        if r.clean:
            values.append({"key": "client_secret", "value": r.D(rng.choice(["", "<set me>", "changeme"]) or "<set me>", "placeholder"),
                           "type": "secret", "enabled": True})
            values.append({"key": "token_ttl", "value": r.D("3600", "credential_setting_number"), "type": "default", "enabled": True})
        else:
            for _ in range(rng.randint(1, 3)):
                spec = r.spec(1)[0]
                raw, _ = r.secret(spec, enc="json")
                values.append({"key": spec.envs[0].lower(), "value": raw, "type": "secret", "enabled": True})
        values.append({"key": "test_customer_name", "value": example["name"], "type": "default", "enabled": True})
        values.append({"key": "test_customer_email", "value": example["email"], "type": "default", "enabled": True})
        values.append({"key": "test_customer_phone", "value": example["phone"], "type": "default", "enabled": True})
        return jdump({"id": r.D(uuid4(rng), "uuid"), "name": "Production", "values": values,
                      "_postman_variable_scope": "environment",
                      "_postman_exported_at": r.D(ts_iso(rng), "timestamp"), "_postman_exported_using": "Postman/11.2.0"})
    # Insomnia v4 export
    resources: list[dict[str, object]] = [
        {"_id": "wrk_" + r.D(rs(rng, HEX, 32), "insomnia_id"), "_type": "workspace", "name": "Billing", "description": desc},
    ]
    env_data: dict[str, object] = {"base_url": base}
    if r.clean:
        env_data["api_key"] = r.D("{% prompt 'API key', '', '', '', false, true %}", "placeholder")
        env_data["ttl_seconds"] = 3600
    else:
        raw, _ = r.secret(r.spec(1)[0], enc="json")
        env_data["api_key"] = raw
        pw = gen_password(rng)
        r.S(pw, "password", enc="json")
        env_data["admin_password"] = pw
    resources.append({"_id": "env_" + r.D(rs(rng, HEX, 32), "insomnia_id"), "_type": "environment", "name": "Production",
                      "data": env_data})
    resources.append({"_id": "req_" + r.D(rs(rng, HEX, 32), "insomnia_id"), "_type": "request", "method": "POST",
                      "url": "{{ _.base_url }}/customers",
                      "body": {"mimeType": "application/json", "text": jdump(example, indent=None)},
                      "headers": [{"name": "X-Api-Key", "value": "{{ _.api_key }}"}]})
    return jdump({"_type": "export", "__export_format": 4, "__export_date": r.D(ts_iso(rng), "timestamp"),
                  "__export_source": "insomnia.desktop.app:v8.6.1", "resources": resources})


def yaml_pw(r: Row, kind: str = "password") -> str:
    """A password as a double-quoted YAML scalar body (JSON-style escapes)."""
    return r.S(gen_password(r.rng), kind, enc="json")


def st_compose_helm(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 3
    dig = r.D(image_digest(rng), "image_digest")
    ver = r.D(version_string(rng), "version")
    com = lang_comment(r, "placeholders" if r.clean else "config")
    if v == 0:
        lines = [com, "services:", "  db:", "    image: postgres:16.4-alpine", "    environment:", "      POSTGRES_USER: shop"]
        if r.clean:
            lines += [f"      POSTGRES_PASSWORD_FILE: {r.D('/run/secrets/db_password', 'file_path')}",
                      "    secrets:", "      - db_password"]
        else:
            lines.append(f'      POSTGRES_PASSWORD: "{yaml_pw(r, "database_password")}"')
        lines += ["    ports:", f'      - "{r.D(private_ip(rng), "private_ip")}:5432:5432"',
                  "  api:", f"    image: ghcr.io/shopwave/api@{dig}", "    depends_on: [db]", "    environment:"]
        k, val = r.decoy_ttl()
        lines.append(f"      - {k}={val}")
        if r.clean:
            lines.append(f"      - DATABASE_URL={r.D('postgres://shop:${POSTGRES_PASSWORD}@db:5432/shop', 'placeholder')}")
            name, ph = placeholder_env(r)
            lines.append(f"      - {name}={ph}")
            lines += ["secrets:", "  db_password:", "    file: ./secrets/db_password.txt"]
        else:
            url, _ = gen_db_url(rng)
            lines.append(f"      - DATABASE_URL={r.S(url, 'database_url_with_password')}")
            for _ in range(rng.randint(1, 3)):
                name, sv = secret_env(r)
                lines.append(f"      - {name}={sv}")
        lines.append(f"      - APP_VERSION={ver}")
        return "\n".join(lines)
    if v == 1:
        lines = [f"# values-prod.yaml  (chart shop-api {ver})", com, "image:", "  repository: ghcr.io/shopwave/api",
                 f'  tag: "{ver}"', f"  digest: {dig}", "postgresql:", "  auth:", "    username: shop"]
        if r.clean:
            lines += ['    password: ""', f"    existingSecret: {r.D('shop-db-credentials', 'secret_name')}",
                      "    secretKeys:", "      userPasswordKey: password"]
        else:
            lines += [f'    password: "{yaml_pw(r, "database_password")}"', '    existingSecret: ""']
        lines += ["redis:", "  auth:", "    enabled: true"]
        if r.clean:
            lines.append(f"    password: {r.D('{{ .Values.global.redisPassword }}', 'placeholder')}")
        else:
            lines.append(f"    password: {r.S(rs(rng, ALNUM, 32), 'redis_password')}")
        lines += ["ingress:", "  enabled: true", "  hosts:", f"    - host: {r.D('shop.' + rng.choice(COMPANY_DOMAINS), 'hostname')}",
                  "config:"]
        k, val = r.decoy_ttl()
        lines.append(f"  {k.lower()}: {val}")
        if not r.clean:
            lines.append("secrets:")
            for _ in range(rng.randint(1, 3)):
                spec = r.spec(1)[0]
                lines.append(f'  {spec.envs[0].lower()}: "{r.secret(spec, enc="json")[1]}"')
        return "\n".join(lines)
    lines = [f"{prompt(r)}helm get values shop-api -n prod", "USER-SUPPLIED VALUES:", "global:", f"  imageTag: {ver}", f"  imageDigest: {dig}",
             f"  clusterCIDR: {r.D(cidr(rng), 'cidr')}"]
    if r.clean:
        lines += ["auth:", f"  adminPassword: {r.D('[REDACTED]', 'masked')}", f"  jwtSecretRef: {r.D('shop-jwt', 'secret_name')}"]
    else:
        lines += ["auth:", f"  adminPassword: {r.pw('admin_password', shape=rng.choice(['word_digits', 'diceware', 'short']))}",
                  f"  jwtSecret: {r.S(g_hex_key(rng), 'signing_key')}"]
        spec = r.spec(1)[0]
        lines += ["integrations:", f"  {spec.envs[0].lower()}: {r.secret(spec)[1]}"]
    a = r.person()
    lines += ["alerting:", f"  oncallEmail: {r.P(a.email, 'email')}", f"  oncallPhone: \"{r.P(a.phone_intl, 'phone')}\""]
    return "\n".join(lines)


def tf_resource(rtype: str, name: str, attrs: dict[str, object], sens: list[str] | None = None) -> dict[str, object]:
    provider = {"aws": "hashicorp/aws", "random": "hashicorp/random", "tls": "hashicorp/tls", "azurerm": "hashicorp/azurerm",
                "google": "hashicorp/google"}[rtype.split("_")[0]]
    return {"mode": "managed", "type": rtype, "name": name, "provider": f'provider["registry.terraform.io/{provider}"]',
            "instances": [{"schema_version": 0, "attributes": attrs,
                           "sensitive_attributes": [[{"type": "get_attr", "value": s}] for s in (sens or [])],
                           "private": "bnVsbA=="}]}


def st_terraform_state(r: Row, i: int) -> str:
    rng = r.rng
    acct = r.D(aws_account_id(rng), "aws_account_id")
    r.D("bnVsbA==", "base64_harmless")
    res: list[dict[str, object]] = []
    n_extra = 16 if i == 5 else rng.choice([1, 1, 2, 3])
    for k in range(n_extra):
        bucket = f"shop-{rng.choice(['assets', 'logs', 'exports', 'backups'])}-{k}-{rs(rng, LOWER + DIGITS, 6)}"
        res.append(tf_resource("aws_s3_bucket", bucket.replace("-", "_"), {
            "arn": r.D(f"arn:aws:s3:::{bucket}", "aws_arn"), "bucket": bucket, "id": bucket, "region": "eu-west-1",
            "hosted_zone_id": "Z1BKCTXD74EZPE", "tags": {"team": "platform"}, "versioning": [{"enabled": True, "mfa_delete": False}]}))
    sg = "sg-" + rs(rng, HEX, 17)
    res.append(tf_resource("aws_security_group", "db", {
        "id": r.D(sg, "aws_resource_id"), "arn": r.D(f"arn:aws:ec2:eu-west-1:{acct}:security-group/{sg}", "aws_arn"),
        "ingress": [{"cidr_blocks": [r.D(cidr(rng), "cidr")], "from_port": 5432, "to_port": 5432, "protocol": "tcp"}]}))
    outputs: dict[str, object] = {"bucket_arn": {"value": f"arn:aws:s3:::shop-assets-{acct}", "type": "string"}}
    if not r.clean:
        choice = rng.sample(["iam", "random", "rds", "tls", "azure"], rng.randint(1, 3))
        if "iam" in choice:
            res.append(tf_resource("aws_iam_access_key", "ci", {
                "id": r.S(g_aws_key_id(rng), "aws_access_key_id"), "secret": r.S(g_aws_secret(rng), "aws_secret_access_key"),
                "ses_smtp_password_v4": r.S("B" + rs(rng, ALNUM + "+/", 43), "smtp_password"), "status": "Active",
                "user": "ci-bot", "create_date": r.D(ts_iso(rng), "timestamp")}, ["secret", "ses_smtp_password_v4"]))
        if "random" in choice:
            pw = gen_password(rng, "punct")
            r.S(pw, "database_password", enc="json")
            res.append(tf_resource("random_password", "db", {"id": "none", "length": 24, "special": True, "result": pw,
                                                             "bcrypt_hash": None}, ["result"]))
            outputs["db_password"] = {"value": pw, "type": "string", "sensitive": True}
        if "rds" in choice:
            pw = gen_password(rng, rng.choice(["word_digits", "random_long"]))
            res.append(tf_resource("aws_db_instance", "main", {
                "address": r.D(f"shop-prod.{rs(rng, LOWER + DIGITS, 12)}.eu-west-1.rds.amazonaws.com", "hostname"),
                "arn": r.D(f"arn:aws:rds:eu-west-1:{acct}:db:shop-prod", "aws_arn"), "engine": "postgres", "engine_version": "16.3",
                "password": r.S(pw, "database_password"), "username": "shop_admin", "port": 5432}, ["password"]))
        if "tls" in choice:
            _priv, pub, fp = ed25519_pair(rng, "")
            pem = rsa_pkcs1_pem(rng)
            r.S(pem, "rsa_private_key", enc="json")
            res.append(tf_resource("tls_private_key", "deploy", {
                "algorithm": "RSA", "rsa_bits": 2048, "id": r.D(sha1_hex(rng), "sha1"), "private_key_pem": pem + "\n",
                "public_key_openssh": r.D(pub.strip(), "ssh_public_key") + "\n",
                "public_key_fingerprint_sha256": r.D(fp, "ssh_fingerprint")}, ["private_key_pem"]))
        if "azure" in choice:
            key = g_azure_storage_key(rng)
            acctname = "stshop" + rs(rng, LOWER + DIGITS, 8)
            conn = f"DefaultEndpointsProtocol=https;AccountName={acctname};AccountKey={key};EndpointSuffix=core.windows.net"
            res.append(tf_resource("azurerm_storage_account", "main", {
                "id": f"/subscriptions/{r.D(uuid4(rng), 'azure_subscription_id')}/resourceGroups/rg-shop/providers/Microsoft.Storage/storageAccounts/{acctname}",
                "name": acctname, "primary_access_key": r.S(key, "azure_storage_account_key"),
                "primary_connection_string": r.S(conn, "azure_storage_connection_string"),
                "primary_blob_endpoint": f"https://{acctname}.blob.core.windows.net/"}, ["primary_access_key", "primary_connection_string"]))
    else:
        role = "ci-deployer"
        res.append(tf_resource("aws_iam_role", "ci", {
            "arn": r.D(f"arn:aws:iam::{acct}:role/{role}", "aws_arn"), "id": role, "max_session_duration": 3600,
            "unique_id": r.D(aws_role_id(rng).replace("AIDA", "AROA"), "aws_unique_id")}))
        res.append(tf_resource("random_id", "suffix", {"b64_std": r.D(b64(rbytes(rng, 4)), "random_id"), "byte_length": 4,
                                                       "hex": r.D(rs(rng, HEX, 8), "random_id")}))
    rng.shuffle(res)
    state = {"version": 4, "terraform_version": r.D(f"1.{rng.randint(5, 10)}.{rng.randint(0, 6)}", "version"),
             "serial": rng.randint(3, 900), "lineage": r.D(uuid4(rng), "uuid"), "outputs": outputs, "resources": res,
             "check_results": None}
    head = f"{prompt(r)}terraform state pull > state.json && cat state.json" if rng.random() < 0.5 else "terraform.tfstate:"
    pre = [lang_comment(r, "see_log")] if r.lang != "en" else []
    return "\n".join(pre + [head, jdump(state)])


def st_ansible_vars(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 3
    out = [lang_comment(r, "config")]
    if v == 0:
        out += ["---", "# group_vars/prod/vars.yml", "app_user: shop", f"app_version: \"{r.D(version_string(rng), 'version')}\"",
                f"db_host: {r.D(internal_host(rng), 'hostname')}", "db_port: 5432"]
        k, val = r.decoy_ttl()
        out.append(f"{k.lower()}: {val}")
        if r.clean:
            out.append(f'db_password: "{r.D("{{ vault_db_password }}", "placeholder")}"')
            blob = ansible_vault_blob(rng)
            r.D(blob, "ansible_vault_ciphertext")
            out.append("smtp_password: !vault |\n" + indent_block(blob, 10))
            indent_pieces(r, blob)
        else:
            out.append(f'db_password: "{yaml_pw(r, "database_password")}"')
            out.append(f"smtp_password: {r.pw('smtp_password', shape=rng.choice(['word_digits', 'random_long']))}")
            out.append("api_tokens:")
            for _ in range(rng.randint(1, 3)):
                spec = r.spec(1)[0]
                out.append(f"  {spec.vendor.lower().replace(' ', '_').replace('.', '')}: \"{r.secret(spec, enc='json')[1]}\"")
        p = r.person()
        out += ["admins:", f"  - name: {r.P(p.latin, 'person_name')}", f"    email: {r.P(p.email, 'email')}",
                f"    ssh_key: \"{r.D(ed25519_pair(rng, p.email)[1].rsplit(' ', 1)[0], 'ssh_public_key')} {p.email}\""]
        return "\n".join(out)
    if v == 1:
        out += ["# inventory/prod.ini", "[web]"]
        for n in range(rng.randint(2, 4)):
            ip = r.D(private_ip(rng), "private_ip")
            if r.clean:
                out.append(f"web{n + 1} ansible_host={ip} ansible_user=deploy ansible_ssh_private_key_file=~/.ssh/deploy_ed25519")
            else:
                pw = gen_password(rng, rng.choice(["word_digits", "short", "leet", "random_long"]))
                out.append(f"web{n + 1} ansible_host={ip} ansible_user=deploy ansible_ssh_pass={r.S(pw, 'ssh_password')} "
                           f"ansible_become_pass={r.S(pw, 'ssh_password')}")
        out += ["", "[db]", f"db1 ansible_host={r.D(private_ip(rng), 'private_ip')}", "", "[all:vars]",
                "ansible_python_interpreter=/usr/bin/python3"]
        if not r.clean:
            out.append(f"vault_addr=https://vault.acme.internal:8200\nvault_token={r.secret(SPEC_BY_KIND['vault_token'])[1]}")
        return "\n".join(out)
    out.append(f"{prompt(r)}ansible-playbook -i inventory/prod.ini site.yml --tags env -v")
    out.append(f"Using /etc/ansible/ansible.cfg as config file\n\nPLAY [web] {'*' * 60}\n")
    out.append(f"TASK [Gathering Facts] {'*' * 48}\nok: [web1]\n")
    out.append(f"TASK [app : write environment file] {'*' * 35}")
    if r.clean:
        out.append('ok: [web1] => {"censored": "the output has been hidden due to the fact that \'no_log: true\' was specified for this result", "changed": true}')
        r.D("the output has been hidden due to the fact that 'no_log: true' was specified for this result", "masked")
    else:
        for _ in range(rng.randint(1, 3)):
            spec = r.spec(1)[0]
            raw, shown = r.secret(spec)
            if "'" in raw or "\\" in raw:
                continue
            out.append(f"changed: [web1] => (item={{'name': '{spec.envs[0]}', 'value': '{shown}'}})")
        pw = gen_password(rng, "word_digits")
        out.append(f"changed: [web1] => (item={{'name': 'DB_PASSWORD', 'value': '{r.S(pw, 'database_password')}'}})")
    k, val = r.decoy_ttl()
    out.append(f"ok: [web1] => (item={{'name': '{k}', 'value': '{val}'}})")
    out.append(f"\nPLAY RECAP {'*' * 60}\nweb1                       : ok=3    changed=1    unreachable=0    failed=0")
    return "\n".join(out)


def gha_ts(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}0Z"


def st_ci_log(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 3
    t = rand_day(rng)
    lines: list[str] = []
    sha = r.D(sha1_hex(rng), "commit_sha")
    long_run = i == 4

    def tick() -> str:
        nonlocal t
        t += dt.timedelta(milliseconds=rng.randint(5, 4000))
        return gha_ts(t) if v == 0 else ""

    def emit(s: str) -> None:
        for ln in s.split("\n"):
            lines.append(f"{tick()} {ln}" if v == 0 else ln)

    if v == 0:
        emit(f"Current runner version: '2.{rng.randint(315, 321)}.0'\n##[group]Operating System\nUbuntu\n24.04.1\nLTS\n##[endgroup]")
        emit(f"##[group]Run actions/checkout@v4\nwith:\n  repository: shopwave/api\n  token: {r.D('***', 'masked')}\n  ref: {sha}\n##[endgroup]")
        emit(f"HEAD is now at {sha[:7]} fix: handle 429 from payment provider")
    elif v == 1:
        emit(f"Running with gitlab-runner 17.{rng.randint(0, 6)}.0 (5a8b6{rs(rng, HEX, 3)})\n  on shared-runner-{rng.randint(1, 9)} "
             f"{rs(rng, ALNUM, 8)}, system ID: s_{rs(rng, HEX, 12)}")
        emit("Preparing the \"docker+machine\" executor\nUsing Docker executor with image node:20.11-alpine ...")
        emit(f"$ echo $CI_REGISTRY_PASSWORD\n{r.D('[MASKED]', 'masked')}")
        emit(f"Getting source from Git repository\nFetching changes with git depth set to 20...\nChecking out {sha[:8]} as detached HEAD (ref is main)...")
    else:
        emit(f"Build-agent version 1.0.{rng.randint(200000, 299999)}-{rs(rng, HEX, 8)} (2026-11-{rng.randint(10, 28)}T{rng.randint(10, 23)}:00:00+0000)")
        emit(f"System information:\n Server Version: 24.0.9\n Kernel Version: 6.8.0-1017-aws\n\nStarting container cimg/node:20.11\n"
             f"  image cache not found on this host, downloading cimg/node:20.11\n  Digest: {r.D(image_digest(rng), 'image_digest')}")
    if v == 1:
        emit(f"$ echo $CI_COMMIT_SHA\n{sha}")
    elif v == 2:
        emit(f"Checking out code at {sha} (branch main)")
    # dependency install noise, sometimes a lot of it
    n_noise = rng.randint(90, 110) if long_run else rng.randint(4, 15)
    pkgs = ["@babel/core", "typescript", "eslint", "jest", "webpack", "lodash", "zod", "express", "pg", "ioredis", "axios", "dayjs"]
    emit("$ npm ci --no-audit" if v else "##[group]Run npm ci --no-audit")
    for _ in range(n_noise):
        pkg = rng.choice(pkgs)
        emit(f"npm http fetch GET 200 https://registry.npmjs.org/{pkg}/-/{pkg.split('/')[-1]}-{rng.randint(1, 9)}.{rng.randint(0, 30)}."
             f"{rng.randint(0, 20)}.tgz {rng.randint(3, 400)}ms (cache miss)")
    emit(f"added {rng.randint(600, 1500)} packages in {rng.randint(8, 60)}s")
    cache_key = r.D(sha256_hex(rng), "sha256")
    emit(f"Cache saved with key: node-modules-{cache_key}")
    k, val = r.decoy_ttl()
    if v == 0:
        emit(f"##[group]Run ./scripts/deploy.sh\n./scripts/deploy.sh\nshell: /usr/bin/bash -e {{0}}\nenv:\n  AWS_REGION: eu-west-1\n"
             f"  NPM_TOKEN: ***\n  {k}: {val}\n##[endgroup]")
    else:
        emit(f"$ export {k}={val}\n$ ./scripts/deploy.sh")
    if r.clean:
        emit("+ vault login -method=oidc role=ci")
        emit(f"Success! You are now authenticated. token_accessor={r.D(vault_accessor(rng), 'vault_token_accessor')}")
        emit(f"+ docker push ghcr.io/shopwave/api:{sha[:7]}\n{sha[:7]}: digest: {r.D(image_digest(rng), 'image_digest')} size: 2417")
        emit(f"Deployed by {r.D(role_mailbox(rng), 'role_mailbox')} to {r.D(internal_host(rng), 'hostname')}")
    else:
        leak = rng.randrange(4)
        if leak == 0:
            spec = SPEC_BY_KIND["vault_token"]
            emit(f"+ export VAULT_TOKEN={r.secret(spec)[1]}")
            emit(f"+ vault kv get -field=password secret/shop/prod/db\n{r.pw('database_password')}")
        elif leak == 1:
            _, tok = r.secret(SPEC_BY_KIND[rng.choice(["gitlab_pat", "github_app_token", "bitbucket_app_password"])])
            emit(f"+ git remote set-url origin https://x-access-token:{tok}@github.com/shopwave/api.git")
        elif leak == 2:
            spec = r.spec(1)[0]
            raw = spec.gen(rng)
            emit(f"+ echo -n \"{spec.envs[0]}=${spec.envs[0]}\" | base64 -w0")
            emit(r.S(f"{spec.envs[0]}={raw}", "env_line_with_secret", enc="b64"))
        else:
            url, _ = gen_db_url(rng, scheme="postgresql")
            emit(f"+ psql {r.S(url, 'database_url_with_password')} -c 'select 1'\n ?column? \n----------\n        1\n(1 row)")
        if rng.random() < 0.5:
            spec = bearer_spec(r)
            emit(f"Error: request to {hostname_public(rng)} failed, config: {{ headers: {{ authorization: 'Bearer {r.secret(spec)[1]}' }} }}")
    emit("Job succeeded" if v == 1 else ("##[group]Post job cleanup." if v == 0 else "Success!"))
    if r.lang != "en":
        lines.insert(0, f"# {r.t('deploy_fail')} {r.t('see_log')}")
    return "\n".join(lines)


def st_stack_trace(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    out: list[str] = []
    if r.lang != "en":
        out.append(r.t("error_when", cmd=["python manage.py migrate", "java -jar app.jar", "node server.js", "go run ./cmd/api"][v]))
    u = r.person()
    if v == 0:
        out.append("Traceback (most recent call last):")
        out.append('  File "/srv/app/orders/tasks.py", line 88, in sync_customer')
        out.append("    resp = client.post(url, json=payload, timeout=10)")
        out.append('  File "/usr/local/lib/python3.11/site-packages/requests/sessions.py", line 637, in post')
        out.append('    return self.request("POST", url, data=data, json=json, **kwargs)')
        if r.clean:
            out.append(f"requests.exceptions.HTTPError: 422 Client Error: Unprocessable Entity for url: "
                       f"https://api.bluepeak.io/v3/customers?request_id={r.D(request_id(rng), 'request_id')}")
            out.append("\nLocal variables in sync_customer:")
            out.append(f"    customer_id = '{r.D(uuid4(rng), 'uuid')}'")
            out.append(f"    email = '{r.P(u.email, 'email')}'")
            out.append(f"    url = 'https://api.bluepeak.io/v3/customers'\n    api_key = '{r.D('********', 'masked')}'")
        else:
            spec = r.spec(1)[0]
            raw = spec.gen(rng)
            q = urllib.parse.quote(raw, safe="")
            r.S(raw, spec.kind, enc="url" if q != raw else None)
            out.append(f"requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
                       f"https://api.bluepeak.io/v3/customers?api_key={q}")
            out.append("\nDuring handling of the above exception, another exception occurred:\n")
            url, _ = gen_db_url(rng, scheme=rng.choice(["postgres", "postgresql"]))
            out.append('  File "/srv/app/orders/db.py", line 12, in connect')
            out.append("    conn = psycopg2.connect(dsn)")
            out.append(f"psycopg2.OperationalError: connection to server at \"{r.D(private_ip(rng), 'private_ip')}\", port 5432 failed: "
                       "FATAL:  password authentication failed for user \"app\"")
            out.append("\nLocal variables in connect:")
            out.append(f"    dsn = '{r.S(url, 'database_url_with_password')}'")
            out.append(f"    user_email = '{r.P(u.email, 'email')}'")
    elif v == 1:
        ts = rand_day(rng).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        if r.clean:
            out.append(f"{ts}  INFO 1 --- [main] com.zaxxer.hikari.HikariDataSource : HikariPool-1 - Starting...")
            out.append(f"{ts}  INFO 1 --- [main] o.s.b.a.j.DataSourceInitializer : url=jdbc:postgresql://{r.D(internal_host(rng), 'hostname')}:5432/shop, "
                       f"username=shop, password={r.D('******', 'masked')}")
        else:
            pw = gen_password(rng, rng.choice(["word_digits", "random_long", "leet"]))
            host = internal_host(rng)
            url = f"jdbc:mysql://{host}:3306/shop?user=shop&password={urllib.parse.quote(pw, safe='')}&useSSL=true"
            out.append(f"{ts} DEBUG 1 --- [main] o.s.jdbc.datasource.DriverManagerDataSource : Creating new JDBC DriverManager Connection to [{r.S(url, 'jdbc_url_with_password')}]")
        out.append(f"{ts} ERROR 1 --- [nio-8080-exec-3] o.a.c.c.C.[.[.[/].[dispatcherServlet] : Servlet.service() threw exception")
        out.append(f"org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection; nested exception is "
                   f"java.sql.SQLException: Access denied for user 'shop'@'{r.D(private_ip(rng), 'private_ip')}' (using password: YES)")
        for frame in ["org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)",
                      "org.springframework.jdbc.core.JdbcTemplate.execute(JdbcTemplate.java:376)",
                      "com.shopwave.orders.CustomerRepository.findByEmail(CustomerRepository.java:52)",
                      "com.shopwave.orders.CustomerService.lookup(CustomerService.java:31)",
                      "java.base/java.lang.Thread.run(Thread.java:1583)"]:
            out.append(f"\tat {frame}")
        out.append(f"Caused by: java.sql.SQLException: lookup failed for {r.P(u.email, 'email')}")
        out.append("\t... 42 common frames omitted")
    elif v == 2:
        out.append("AxiosError: Request failed with status code 401")
        out.append("    at settle (/app/node_modules/axios/dist/node/axios.cjs:1966:12)")
        out.append("    at IncomingMessage.handleStreamEnd (/app/node_modules/axios/dist/node/axios.cjs:3065:11)")
        out.append("    at async syncCustomer (/app/src/jobs/sync.js:41:17) {")
        out.append("  code: 'ERR_BAD_REQUEST',\n  config: {\n    method: 'post',\n    url: 'https://api.kestrelpay.fr/v1/charges',")
        if r.clean:
            out.append(f"    headers: Object [AxiosHeaders] {{\n      Accept: 'application/json',\n      Authorization: '{r.D('Bearer [REDACTED]', 'masked')}',")
        else:
            spec = bearer_spec(r)
            raw = spec.gen(rng)
            if "'" in raw or "\\" in raw:
                raw = g_stripe_sk(rng)
                spec = SPEC_BY_KIND["stripe_secret_key"]
            out.append(f"    headers: Object [AxiosHeaders] {{\n      Accept: 'application/json',\n      Authorization: 'Bearer {r.S(raw, spec.kind)}',")
        out.append(f"      'User-Agent': 'axios/1.7.7',\n      'X-Request-Id': '{r.D(request_id(rng), 'request_id')}'\n    }},")
        out.append(f"    data: '{{\"amount\":{rng.randint(500, 90000)},\"currency\":\"eur\",\"receipt_email\":\"{r.P(u.email, 'email')}\"}}'\n  }},")
        out.append("  response: { status: 401, statusText: 'Unauthorized' }\n}")
        out.append("\nNode.js v20.11.1")
        r.D("v20.11.1", "version")
    else:
        if r.clean:
            out.append(f"time=\"{ts_iso(rng)}\" level=error msg=\"upstream auth failed\" cfg=\"&{{Endpoint:https://api.bluepeak.io APIKey:{r.D('<nil>', 'placeholder')} Timeout:30s}}\"")
        else:
            spec = r.spec(1)[0]
            out.append(f"time=\"{ts_iso(rng)}\" level=error msg=\"upstream auth failed\" cfg=\"&{{Endpoint:https://api.bluepeak.io "
                       f"APIKey:{r.secret(spec)[1]} Timeout:30s}}\"")
        out.append("panic: runtime error: invalid memory address or nil pointer dereference")
        out.append(f"[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x{rs(rng, HEX, 7)}]\n\ngoroutine 1 [running]:")
        out.append(f"github.com/shopwave/api/internal/billing.(*Client).Charge(0x0, {{0x{rs(rng, HEX, 7)}, 0xc000{rs(rng, HEX, 6)}}}, "
                   f"{{0xc00{rs(rng, HEX, 7)}, 0x{rng.randint(10, 99)}}})\n\t/src/internal/billing/client.go:{rng.randint(40, 300)} +0x{rs(rng, HEX, 2)}")
        out.append(f"main.main()\n\t/src/cmd/api/main.go:{rng.randint(20, 90)} +0x{rs(rng, HEX, 3)}\nexit status 2")
        out.append(f"# user report from {r.P(u.email, 'email')}, trace {r.D(trace_id(rng), 'trace_id')}")
    return "\n".join(out)


def st_logfmt_log(r: Row, i: int) -> str:
    rng = r.rng
    t = rand_day(rng)
    lines = []
    if r.lang != "en":
        lines.append(f"# {r.t('see_log')}")
    n = rng.randint(6, 14) if i != 7 else rng.randint(60, 80)
    secret_at = rng.sample(range(n), min(n, rng.randint(1, 3))) if not r.clean else []
    app = rng.choice(["checkout", "auth", "billing-worker", "gateway"])
    for k in range(n):
        t += dt.timedelta(milliseconds=rng.randint(3, 900))
        tid = r.D(trace_id(rng), "trace_id") if rng.random() < 0.5 else None
        base = f"ts={iso_z(t)} app={app} level={rng.choice(['info', 'info', 'debug', 'warn'])}"
        if k in secret_at:
            which = rng.randrange(4)
            if which == 0:
                pw = gen_password(rng, rng.choice(["word_digits", "short", "leet", "diceware"]))
                shown = r.S(pw, "password", enc="json") if (" " in pw or '"' in pw) else r.S(pw, "password")
                val = f'"{shown}"' if " " in pw or '"' in pw else shown
                lines.append(f'{base} msg="login failed" user={r.P(r.person().email, "email")} password={val} attempt={rng.randint(1, 5)}')
            elif which == 1:
                spec = bearer_spec(r)
                raw = spec.gen(rng)
                if " " in raw:
                    raw = g_glpat(rng)
                    spec = SPEC_BY_KIND["gitlab_pat"]
                lines.append(f'{base} msg="outgoing request" method=POST url=https://{hostname_public(rng)}/v1/x '
                             f'authorization="Bearer {r.S(raw, spec.kind)}" status=401')
            elif which == 2:
                name, val = g_session_cookie(rng)
                lines.append(f'{base} msg="session restored" cookie={name}={r.S(val, "session_cookie")} ip={r.P(public_ipv4(rng), "ip_address")}')
            else:
                url, _ = gen_db_url(rng)
                lines.append(f'{base} msg="db connect" dsn={r.S(url, "database_url_with_password")} pool_size=10')
        else:
            what = rng.randrange(6)
            if what == 0:
                u = r.person(rng.choice(LANG_LOCALES[rng.choice(LANGS)]))
                lines.append(f'{base} msg="user signed in" user_id={rng.randint(1000, 99999)} email={r.P(u.email, "email")} '
                             f'ip={r.P(rng.choice([public_ipv4(rng), public_ipv6(rng)]), "ip_address")} mfa=totp')
            elif what == 1:
                k2, v2 = r.decoy_ttl()
                lines.append(f'{base} msg="token issued" {k2.lower()}={v2} kid={r.D(rs(rng, ALNUM, 16), "key_id")} '
                             f'token={r.D(masked(rng), "masked")}')
            elif what == 2:
                lines.append(f'{base} msg="request done" method=GET path=/v1/orders/{r.D(order_number(rng), "order_number")} status=200 '
                             f'duration_ms={rng.randint(3, 900)} request_id={r.D(request_id(rng), "request_id")}')
            elif what == 3:
                lines.append(f'{base} msg="cache hit" key=sku:{r.D(sku(rng), "sku")} etag={r.D(sha256_hex(rng)[:32], "etag")}')
            elif what == 4:
                lines.append(f'{base} msg="peer connected" addr={r.D(private_ip(rng), "private_ip")}:{rng.randint(30000, 60000)} '
                             f'version={r.D(version_string(rng), "version")}')
            else:
                lines.append(f'{base} msg="job finished" job_id={r.D(ulid(rng), "ulid")} span_id={r.D(span_id(rng), "span_id")}')
        if tid:
            lines[-1] += f" trace_id={tid}"
    return "\n".join(lines)


def st_json_log(r: Row, i: int) -> str:
    rng = r.rng
    flavor = ["zap", "pino", "bunyan", "structlog"][i % 4]
    enc = "go_json" if flavor == "zap" else ("json_ascii" if flavor == "structlog" else "json")
    t = rand_day(rng)
    lines = []
    if r.lang != "en":
        lines.append(f"// {r.t('see_log')}")
    n = rng.randint(4, 10) if i != 6 else rng.randint(45, 60)
    secret_at = rng.sample(range(n), min(n, rng.randint(1, 2))) if not r.clean else []
    for k in range(n):
        t += dt.timedelta(milliseconds=rng.randint(3, 2000))
        rec: dict[str, object]
        if flavor == "zap":
            rec = {"level": "info", "ts": round(t.timestamp(), 3), "caller": "api/handler.go:" + str(rng.randint(20, 400))}
        elif flavor == "pino":
            rec = {"level": 30, "time": int(t.timestamp() * 1000), "pid": rng.randint(10, 40000), "hostname": pod_name(rng)}
        elif flavor == "bunyan":
            rec = {"name": "billing", "hostname": pod_name(rng), "pid": rng.randint(10, 40000), "level": 30, "time": iso_z(t), "v": 0}
        else:
            rec = {"timestamp": iso_z(t), "level": "info", "logger": "orders.api"}
        if k in secret_at:
            which = rng.randrange(3)
            if which == 0:
                pw = gen_password(rng, rng.choice(["punct", "unicode", "word_digits"]))
                r.S(pw, "password", enc=enc)
                rec.update({"msg": "signup payload", "body": {"email": r.P(r.person().email, "email", enc=enc), "password": pw}})
            elif which == 1:
                spec = bearer_spec(r)
                raw = spec.gen(rng)
                r.S(raw, spec.kind, enc=enc)
                rec.update({"msg": "upstream call", "headers": {"Authorization": f"Bearer {raw}", "Accept": "application/json"}})
            else:
                url, _ = gen_db_url(rng)
                r.S(url, "database_url_with_password", enc=enc)
                rec.update({"msg": "config loaded", "database_url": url, "pool": 20})
        else:
            what = rng.randrange(4)
            if what == 0:
                u = r.person(rng.choice(LANG_LOCALES[rng.choice(LANGS)]))
                rec.update({"msg": "profile updated", "user": {"name": u.full, "email": u.email, "phone": u.phone_intl}})
                r.P(u.full, "person_name", enc=enc)
                r.P(u.email, "email", enc=enc)
                r.P(u.phone_intl, "phone", enc=enc)
            elif what == 1:
                rec.update({"msg": "request", "req_id": r.D(request_id(rng), "request_id", enc=enc), "status": 200,
                            "trace_id": r.D(trace_id(rng), "trace_id"), "span_id": r.D(span_id(rng), "span_id")})
            elif what == 2:
                k2, v2 = r.decoy_ttl()
                m = masked(rng)
                r.D(m, "masked", enc=enc)
                rec.update({"msg": "issued token", k2.lower(): v2, "token": m, "jti": r.D(uuid4(rng), "uuid")})
            else:
                rec.update({"msg": "order paid", "order": r.D(order_number(rng), "order_number", enc=enc),
                            "amount": rng.randint(100, 99999), "sku": r.D(sku(rng), "sku")})
        s = jdump(rec, compact=True, ascii_only=enc != "json")
        if flavor == "zap":
            s = s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        lines.append(s)
    return "\n".join(lines)


def aligned(rows: list[tuple[str, ...]], gap: int = 2) -> list[str]:
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return [(" " * gap).join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def st_kv_table(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    out: list[str] = []
    if r.lang != "en":
        out.append(lang_comment(r, "config"))
    if v == 0:
        out.append(f"{prompt(r)}aws configure list --profile prod")
        ak = r.D(rng.choice(["****************", "****************"]) + rs(rng, UPPER + "234567", 4), "masked")
        sk = r.D("****************" + rs(rng, ALNUM, 4), "masked")
        rows = [("Name", "Value", "Type", "Location"), ("----", "-----", "----", "--------"), ("profile", "prod", "manual", "--profile"),
                ("access_key", ak, "shared-credentials-file", ""), ("secret_key", sk, "shared-credentials-file", ""),
                ("region", "eu-west-1", "config-file", "~/.aws/config")]
        out += aligned(rows, 4)
        if not r.clean:
            out.append(f"{prompt(r)}cat ~/.aws/credentials")
            out.append(f"[prod]\naws_access_key_id = {r.S(g_aws_key_id(rng), 'aws_access_key_id')}\n"
                       f"aws_secret_access_key = {r.S(g_aws_secret(rng), 'aws_secret_access_key')}")
        else:
            out.append(f"{prompt(r)}cat ~/.aws/config\n[profile prod]\nregion = eu-west-1\n"
                       f"role_arn = {r.D(f'arn:aws:iam::{aws_account_id(rng)}:role/DeployRole', 'aws_arn')}\nsource_profile = sso\nduration_seconds = {r.D('3600', 'credential_setting_number')}")
    elif v == 1:
        app = rng.choice(["shop-api", "acme-worker", "billing-eu"])
        out.append(f"{prompt(r)}heroku config -a {app}")
        out.append(f"=== {app} Config Vars")
        rows2: list[tuple[str, str]] = []
        for _ in range(rng.randint(2, 4)):
            k, val = decoy_env(r)
            rows2.append((k + ":", val))
        if r.clean:
            for _ in range(2):
                k, val = placeholder_env(r)
                rows2.append((k + ":", val))
        else:
            rows2.append(("DATABASE_URL:", db_url(r)))
            for _ in range(rng.randint(1, 3)):
                k, val = secret_env(r)
                rows2.append((k + ":", val))
        rows2.sort()
        out += aligned(rows2, 1)
    elif v == 2:
        out.append(f"{prompt(r)}pulumi config{'' if r.clean else ' --show-secrets'}")
        rows3: list[tuple[str, str]] = [("KEY", "VALUE"), ("aws:region", "eu-central-1"), ("shop:replicas", "3")]
        k, val = r.decoy_ttl()
        rows3.append((f"shop:{k[0].lower() + k[1:]}", val))
        if r.clean:
            rows3 += [("shop:dbPassword", r.D("[secret]", "masked")), ("shop:stripeKey", r.D("[secret]", "masked"))]
        else:
            rows3 += [("shop:dbPassword", r.pw("database_password", shape=rng.choice(["word_digits", "diceware", "random_long"]))),
                      ("shop:stripeKey", r.secret(SPEC_BY_KIND["stripe_secret_key"])[1])]
        rows3.append(("shop:imageDigest", r.D(image_digest(rng), "image_digest")))
        out += aligned(rows3, 4)
    else:
        acct = "st" + rs(rng, LOWER, 8)
        if r.clean:
            out.append(f"{prompt(r)}az storage account show -n {acct} --query '{{name:name,kind:kind,id:id}}' -o table")
            out += aligned([("Name", "Kind", "Id"), ("-" * 12, "-" * 9, "-" * 40),
                            (acct, "StorageV2", f"/subscriptions/{r.D(uuid4(rng), 'azure_subscription_id')}/resourceGroups/rg-shop")])
        else:
            out.append(f"{prompt(r)}az storage account keys list -n {acct} -o table")
            rows4 = [("KeyName", "Permissions", "Value", "CreationTime"), ("-" * 7, "-" * 11, "-" * 88, "-" * 28)]
            for kn in ("key1", "key2"):
                rows4.append((kn, "FULL", r.S(g_azure_storage_key(rng), "azure_storage_account_key"),
                              r.D(iso_z(rand_day(rng, -300, -10)).replace("Z", "+00:00"), "timestamp")))
            out += aligned(rows4)
    return "\n".join(out)


def box(rows: list[tuple[str, ...]], rounded: bool = False) -> list[str]:
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    tl, tr, bl, br = ("╭", "╮", "╰", "╯") if rounded else ("┌", "┐", "└", "┘")
    top = tl + "┬".join("─" * (w + 2) for w in widths) + tr
    mid = "├" + "┼".join("─" * (w + 2) for w in widths) + "┤"
    bot = bl + "┴".join("─" * (w + 2) for w in widths) + br
    body = ["│ " + " │ ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " │" for row in rows]
    return [top, body[0], mid] + body[1:] + [bot]


def st_box_table(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 3
    out: list[str] = []
    if r.lang != "en":
        out.append(r.t("customer") if v == 0 else r.t("config"))
    if v == 0:
        head = (r.t("name"), r.t("email"), r.t("phone"), r.t("dob"), r.t("idno"))
        rows: list[tuple[str, ...]] = [head]
        for _ in range(rng.randint(3, 7)):
            p = r.person()
            rows.append((r.P(p.full, "person_name"), r.P(p.email, "email"), r.P(p.phone_nat, "phone"),
                         r.P(fmt_dob(rng, p.dob, p.locale), "date_of_birth"), r.P(p.natid, p.natid_kind)))
        out += box(rows, rounded=rng.random() < 0.5)
        if not r.clean:
            out.append(f"export token: {r.secret(SPEC_BY_KIND['airtable_pat'])[1]}")
    elif v == 1:
        out.append(f"{prompt(r)}wrangler secret list && wrangler kv key list --binding CONFIG")
        rows = [("name", "type", "value")]
        for _ in range(rng.randint(2, 4)):
            k, val = decoy_env(r)
            rows.append((k, "plain_text", val))
        if r.clean:
            rows.append(("CF_API_TOKEN", "secret_text", r.D("(hidden)", "masked")))
        else:
            for _ in range(rng.randint(1, 2)):
                spec = r.spec(1)[0]
                raw, shown = r.secret(spec)
                if "\n" in raw:
                    continue
                rows.append((spec.envs[0], "secret_text", shown))
        out += box(rows)
    else:
        out.append("API keys")
        rows = [("Label", "Key", "Created", "Last used")]
        for n in range(rng.randint(2, 5)):
            created = r.D(rand_day(rng, -300, -30).strftime("%Y-%m-%d"), "date")
            if r.clean or n % 2:
                key = r.D(rng.choice(["sk-****", "key_****", "pk_live_****"]) + rs(rng, ALNUM, 4), "masked")
            else:
                key = r.S(g_inhouse(rng), "inhouse_api_key")
            rows.append((rng.choice(["ci", "zapier", "mobile", "backup", "analytics"]) + f"-{n}", key, created,
                         rng.choice(["never", "2 hours ago", "yesterday"])))
        out += box(rows, rounded=True)
    return "\n".join(out)


def st_markdown_table(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 3
    out = [f"## {r.t('debug') if v else r.t('creds')}", ""]
    if v == 0:
        out.append(f"| Service | {r.t('user')} | {r.t('pw')} | URL |")
        out.append("|---|---|---|---|")
        for svc in rng.sample(["Grafana", "Jenkins", "pgAdmin", "RabbitMQ", "Kibana", "Argo CD", "Harbor"], rng.randint(2, 5)):
            if r.clean:
                pw = r.D(rng.choice(["see 1Password", "`${ADMIN_PASSWORD}`", "SSO only", "changeme"]), "placeholder")
            else:
                pw = "`" + r.pw("password", shape=rng.choice(["word_digits", "short", "leet", "diceware", "random_long"])) + "`"
            out.append(f"| {svc} | admin | {pw} | https://{svc.lower().replace(' ', '')}.{r.D(rng.choice(['stg', 'prod']) + '.acme.internal', 'hostname')} |")
    elif v == 1:
        out.append("| Variable | Description | Default |")
        out.append("|---|---|---|")
        for _ in range(rng.randint(3, 6)):
            k, val = r.decoy_ttl()
            out.append(f"| `{k}` | {rng.choice(['lifetime', 'limit', 'size'])} | `{val}` |")
        out.append(f"| `TEST_CARD` | card for the payment sandbox | `{doc_example(r, ('test_card',))}` |")
        out.append(f"| `SUPPORT_EMAIL` | shown in error pages | `{doc_example(r, ('doc_email',))}` |")
        for name in env_names(rng, 3):
            out.append(f"| `{r.D(name, 'env_var_name')}` | {rng.choice(['required', 'optional'])} | _none_ |")
        if not r.clean:
            out.append("")
            out.append(f"> {r.t('here_creds', svc='staging')} `{r.secret(r.spec(1)[0])[1]}`")
    else:
        out.append(f"| # | {r.t('name')} | {r.t('email')} | IBAN | {r.t('idno')} |")
        out.append("|---|---|---|---|---|")
        locs = list(NAMES)
        for n in range(7):
            p = r.person(locs[((i // 3) * 7 + 3 + n) % len(locs)])
            out.append(f"| {n + 1} | {r.P(p.full, 'person_name')} | {r.P(p.email, 'email')} | {r.P(iban_for(rng, p.locale), 'iban')} | "
                       f"{r.P(p.natid, p.natid_kind)} |")
        if not r.clean:
            out.append(f"\nSFTP: `{r.pw('sftp_password')}`")
    return "\n".join(out)


def csv_cell(v: str, sep: str) -> str:
    if sep in v or '"' in v or "\n" in v:
        return '"' + v.replace('"', '""') + '"'
    return v


def st_csv_export(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    sep = "\t" if v == 2 else rng.choice([",", ",", ";"])
    out: list[str] = []
    if v == 0:
        head = ["customer_id", "full_name", "email", "phone", "date_of_birth", "street_address", "iban", "card_number"]
        out.append(sep.join(head))
        n = rng.randint(3, 8) if i != 8 else rng.randint(40, 55)
        for _ in range(n):
            p = r.person(rng.choice(LANG_LOCALES[rng.choice(LANGS)]))
            _, card = card_number(rng)
            cells = [r.D(str(rng.randint(100000, 999999)), "customer_id"), r.P(p.full, "person_name"), r.P(p.email, "email"),
                     r.P(p.phone_intl, "phone"), r.P(p.dob.isoformat(), "date_of_birth"),
                     r.P(p.address, "postal_address", enc="csv" if '"' in p.address else None),
                     r.P(iban_for(rng, p.locale), "iban"), r.P(card, "card_number")]
            out.append(sep.join(csv_cell(c, sep) for c in cells))
        if not r.clean:
            out.append(f"# export_key={r.secret(SPEC_BY_KIND['inhouse_api_key'])[1]}")
    elif v == 1:
        out.append("User name,Password,Access key ID,Secret access key,Console login link")
        acct = aws_account_id(rng)
        if r.clean:
            out[0] = "User name,Groups,Console access,Access key age,Last activity,ARN"
            for u in ["ci-bot", "backup", "terraform"]:
                out.append(f"{u},Deployers,Disabled,{rng.randint(3, 400)} days,{r.D(rand_day(rng).strftime('%Y-%m-%d'), 'date')},"
                           f"{r.D(f'arn:aws:iam::{acct}:user/{u}', 'aws_arn')}")
        else:
            u = rng.choice(["ci-bot", "reporting", "backup-agent"])
            pw = r.pw("aws_console_password", shape=rng.choice(["word_digits", "leet", "random_long"]))
            out.append(f"{u},{pw},{r.S(g_aws_key_id(rng), 'aws_access_key_id')},{r.S(g_aws_secret(rng), 'aws_secret_access_key')},"
                       f"https://{r.D(acct, 'aws_account_id')}.signin.aws.amazon.com/console")
    elif v == 2:
        head = ["employee_id", "name", "national_id", "passport", "plate", "work_email", "mobile"]
        out.append(sep.join(head))
        # staff of an international team: every issuer's id format turns up across these rows
        locs = list(NAMES)
        start = (i // 4) * 7
        for k in range(7):
            p = r.person(locs[(start + k) % len(locs)])
            cells = [r.D(f"E{rng.randint(10000, 99999)}", "employee_id"), r.P(p.full, "person_name"), r.P(p.natid, p.natid_kind),
                     r.P(passport_number(rng, p.locale), "passport_number"), r.P(licence_plate(rng, p.locale), "licence_plate"),
                     r.P(f"{strip_accents(p.latin).lower().replace(' ', '.').replace(chr(39), '')}@{rng.choice(COMPANY_DOMAINS)}", "email"),
                     r.P(p.phone_nat, "phone")]
            out.append(sep.join(cells))
    else:
        head = ["order_id", "sku", "qty", "unit_price", "customer_email", "ship_to", "vat_id", "created_at"]
        out.append(sep.join(head))
        for _ in range(rng.randint(3, 8)):
            p = r.person(rng.choice(VAT_LOCALES))
            vat = r.P(vat_number(rng, p.locale), "vat_number") if rng.random() < 0.5 else ""
            cells = [r.D(order_number(rng), "order_number"), r.D(sku(rng), "sku"), str(rng.randint(1, 5)), f"{rng.randint(3, 400)}.{rng.randint(0, 99):02d}",
                     r.P(p.email, "email"), r.P(p.address, "postal_address"), vat, r.D(ts_iso(rng), "timestamp")]
            out.append(sep.join(csv_cell(c, sep) for c in cells))
        if not r.clean:
            out.append(f"# uploaded with sftp://exports:{r.pw('sftp_password', shape='random_long')}@{r.D(internal_host(rng), 'hostname')}/outbox")
    if r.lang != "en":
        out.insert(0, f"# {r.t('customer')}")
    return "\n".join(out)


def psql_table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(x) for x in [h] + [row[k] for row in rows]) for k, h in enumerate(head)]
    out = [" " + " | ".join(h.center(w) for h, w in zip(head, widths, strict=True)).rstrip()]
    out.append("-" + "-+-".join("-" * w for w in widths) + "-")
    for row in rows:
        out.append(" " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return out


def mysql_table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(x) for x in [h] + [row[k] for row in rows]) for k, h in enumerate(head)]
    sep = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    out = [sep, "| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |", sep]
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |" for row in rows]
    return out + [sep, f"{len(rows)} rows in set (0.00 sec)"]


def st_sql_result(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    out: list[str] = []
    if r.lang != "en":
        out.append(f"-- {r.t('debug')}")
    if v == 0:
        if r.clean:
            country = rng.choice(["DE", "NL", "ES", "BR", "US", "TR", "SE"])
            out.append(f"shop=> SELECT id, name, email, phone, tax_id FROM customers WHERE country = '{country}' LIMIT 4;")
            rows = []
            for _ in range(rng.randint(2, 4)):
                p = r.person(country)
                rows.append([str(rng.randint(1, 9999)), r.P(p.full, "person_name"), r.P(p.email, "email"), r.P(p.phone_intl, "phone"),
                             r.P(p.natid, p.natid_kind)])
            out += psql_table(["id", "name", "email", "phone", "tax_id"], rows)
        else:
            out.append("shop=> SELECT id, owner_email, api_key, scopes, created_at FROM api_clients ORDER BY id LIMIT 4;")
            rows = []
            for n in range(rng.randint(2, 4)):
                p = r.person()
                rows.append([str(n + 1), r.P(p.email, "email"), r.S(g_inhouse(rng), "inhouse_api_key"), rng.choice(["read", "read,write", "admin"]),
                             r.D(rand_day(rng).strftime("%Y-%m-%d %H:%M:%S.%f+00"), "timestamp")])
            out += psql_table(["id", "owner_email", "api_key", "scopes", "created_at"], rows)
    elif v == 1:
        if r.clean:
            out.append("mysql> SELECT build_id, commit_sha, image_digest, finished_at FROM builds ORDER BY build_id DESC LIMIT 3;")
            rows = [[str(rng.randint(4000, 9000)), r.D(sha1_hex(rng), "commit_sha"), r.D(image_digest(rng), "image_digest"),
                     r.D(rand_day(rng).strftime("%Y-%m-%d %H:%M:%S"), "timestamp")] for _ in range(3)]
            out += mysql_table(["build_id", "commit_sha", "image_digest", "finished_at"], rows)
        else:
            out.append("mysql> SELECT user_id, provider, access_token, refresh_token, expires_at FROM oauth_tokens LIMIT 3;")
            rows = []
            for _ in range(rng.randint(2, 3)):
                prov = rng.choice(["google", "github", "slack"])
                at = {"google": g_gcp_access_token, "github": g_gho, "slack": g_slack_user}[prov](rng)
                rt = g_gcp_refresh(rng) if prov == "google" else (g_ghr(rng) if prov == "github" else "xoxe-1-" + rs(rng, ALNUM, 120))
                rows.append([str(rng.randint(1, 99999)), prov, r.S(at, "oauth_access_token"), r.S(rt, "oauth_refresh_token"),
                             r.D(rand_day(rng).strftime("%Y-%m-%d %H:%M:%S"), "timestamp")])
            out += mysql_table(["user_id", "provider", "access_token", "refresh_token", "expires_at"], rows)
    elif v == 2:
        out.append("sqlite> .headers on\nsqlite> .mode column\nsqlite> SELECT mrn, patient, dob, phone, insurer FROM admissions LIMIT 4;")
        rows = []
        for _ in range(rng.randint(2, 4)):
            p = r.person()
            rows.append([r.P(mrn(rng), "medical_record_number"), r.P(p.full, "person_name"), r.P(p.dob.isoformat(), "date_of_birth"),
                         r.P(p.phone_nat, "phone"), rng.choice(["AOK", "TK", "Allianz", "Mutuelle Générale", "Aetna"])])
        widths = [max(len(x) for x in [h] + [row[k] for row in rows]) for k, h in enumerate(["mrn", "patient", "dob", "phone", "insurer"])]
        out.append("  ".join(h.ljust(w) for h, w in zip(["mrn", "patient", "dob", "phone", "insurer"], widths, strict=True)).rstrip())
        out.append("  ".join("-" * w for w in widths))
        out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
        if not r.clean:
            out.append(f"sqlite> -- exported for {r.P(r.person().email, 'email')}, zip password: {r.pw('archive_password')}")
    else:
        out.append("1> SELECT name, value FROM dbo.app_settings WHERE name LIKE '%Connection%' OR name LIKE '%Ttl%';\n2> GO")
        rows2: list[tuple[str, str]] = [("name", "value"), ("-" * 20, "-" * 40)]
        k, val = r.decoy_ttl()
        rows2.append((k, val))
        if r.clean:
            rows2.append(("StorageConnection", r.D("UseDevelopmentStorage=true", "placeholder")))
        else:
            rows2.append(("StorageConnection", r.secret(SPEC_BY_KIND["azure_storage_connection_string"])[1]))
            rows2.append(("BusConnection", r.secret(SPEC_BY_KIND["azure_servicebus_connection_string"])[1]))
        out += aligned(rows2)
        out.append(f"\n({len(rows2) - 2} rows affected)")
    return "\n".join(out)


def st_yaml_block(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 5
    out = [lang_comment(r, "config")]
    if v == 0:
        out += ["apiVersion: v1", "kind: Secret", "metadata:", "  name: shop-tls", "type: kubernetes.io/tls", "stringData:", "  tls.crt: |"]
        crt = certificate_pem(rng)
        r.D(crt, "certificate")
        out.append(indent_block(crt, 4))
        indent_pieces(r, crt)
        out.append("  jwt.pub: |")
        pub = public_key_pem(rng)
        r.D(pub, "public_key_pem")
        out.append(indent_block(pub, 4))
        indent_pieces(r, pub)
        if r.clean:
            out.append(f"  tls.key: {r.D('{{ .Values.tls.key }}', 'placeholder')}")
        else:
            key = rng.choice([rsa_pkcs8_pem, ec_pem, rsa_pkcs1_pem])(rng)
            r.S(key, "tls_private_key")
            out.append("  tls.key: |")
            out.append(indent_block(key, 4))
            indent_pieces(r, key)
    elif v == 1:
        priv, pub, fp = ed25519_pair(rng, rng.choice(["deploy@shop", "argocd@cluster", "ci@runner"]))
        out += ["repositories:", "  - url: git@github.com:shopwave/infra.git", "    name: infra",
                f"    # fingerprint {r.D(fp, 'ssh_fingerprint')}", f"    publicKey: {r.D(pub, 'ssh_public_key')}"]
        if r.clean:
            out.append(f"    sshPrivateKeySecret:\n      name: {r.D('infra-deploy-key', 'secret_name')}\n      key: sshPrivateKey")
        else:
            r.S(priv, "ssh_private_key")
            out.append("    sshPrivateKey: |")
            out.append(indent_block(priv, 6))
            indent_pieces(r, priv)
    elif v == 2:
        out.append("payments:")
        out.append("  stripe:")
        out.append("    publishable_key:")
        out.append(f"      {r.D(stripe_publishable(rng), 'stripe_publishable_key')}")
        out.append("    secret_key:")
        out.append(f"      {r.D('${STRIPE_SECRET_KEY}', 'placeholder') if r.clean else r.secret(SPEC_BY_KIND['stripe_secret_key'])[1]}")
        out.append("    webhook_secret:")
        out.append(f"      {r.D('<set in vault>', 'placeholder') if r.clean else r.secret(SPEC_BY_KIND['stripe_webhook_secret'])[1]}")
        out.append("  paypal:")
        out.append("    client_id:")
        out.append(f"      {r.D('A' + rs(rng, ALNUM + '-_', 79), 'paypal_client_id')}")
        out.append("    client_secret:")
        out.append(f"      {r.D('********', 'masked') if r.clean else r.secret(SPEC_BY_KIND['paypal_client_secret'])[1]}")
        k, val = r.decoy_ttl()
        out.append(f"  {k.lower()}:\n    {val}")
    elif v == 3:
        out += ["name: nightly-export", "on:", "  schedule:", "    - cron: '0 3 * * *'", "jobs:", "  export:", "    runs-on: ubuntu-latest",
                "    steps:", "      - uses: actions/checkout@v4", "      - name: upload", "        run: |"]
        if r.clean:
            out.append("          curl -fsS -H \"Authorization: Bearer ${{ secrets.EXPORT_TOKEN }}\" \\")
            r.D("${{ secrets.EXPORT_TOKEN }}", "placeholder")
        else:
            out.append(f"          curl -fsS -H \"Authorization: Bearer {r.secret(bearer_spec(r))[1]}\" \\")
        out.append(f"            -F file=@export.csv https://{r.D(internal_host(rng), 'hostname')}/upload")
        out.append("        env:")
        k, val = r.decoy_ttl()
        out.append(f"          {k}: \"{val}\"")
        if not r.clean:
            out.append(f"          SMTP_PASSWORD: \"{r.S(gen_password(rng, 'word_digits'), 'smtp_password')}\"")
    else:
        out.append("signing:")
        pubblock = pgp_block(rng, private=False)
        r.D(pubblock, "pgp_public_key")
        out.append(f"  key_id: {r.D(gpg_key_id(rng), 'gpg_key_id')}")
        out.append(f"  fingerprint: \"{r.D(gpg_fingerprint(rng), 'gpg_fingerprint')}\"")
        out.append("  public_key: |")
        out.append(indent_block(pubblock, 4))
        indent_pieces(r, pubblock)
        if not r.clean:
            privblock = pgp_block(rng, private=True)
            r.S(privblock, "pgp_private_key")
            out.append("  private_key: |")
            out.append(indent_block(privblock, 4))
            indent_pieces(r, privblock)
            out.append(f"  passphrase: \"{yaml_pw(r, 'pgp_passphrase')}\"")
    return "\n".join(out)


def st_name_value(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    out: list[str] = []
    if r.lang != "en":
        out.append(r.t("here_creds" if not r.clean else "nothing_secret", svc=["SSM", "CorpVault", "GitLab CI", "Kubernetes"][v]))
    if v == 0:
        name = rng.choice(["/shop/prod/DB_PASSWORD", "/shop/prod/STRIPE_KEY", "/billing/prod/SMTP_PASSWORD"])
        secure = not r.clean
        acct = aws_account_id(rng)
        out.append(f"{prompt(r)}aws ssm get-parameter --name {name}{' --with-decryption' if secure else ''} --output yaml")
        if secure:
            if "STRIPE" in name:
                val = r.secret(SPEC_BY_KIND["stripe_secret_key"])[1]
            else:
                val = r.pw("smtp_password" if "SMTP" in name else "database_password", shape="word_digits")
            ptype = "SecureString"
        else:
            val = r.D("AQICAH" + rs(rng, ALNUM + "+/", 150) + "==", "kms_ciphertext")
            ptype = "SecureString"
        out += ["Parameter:", f"  ARN: {r.D(f'arn:aws:ssm:eu-west-1:{acct}:parameter{name}', 'aws_arn')}", "  DataType: text",
                f"  LastModifiedDate: '{r.D(rand_day(rng).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3] + '000+00:00', 'timestamp')}'",
                f"  Name: {name}", f"  Type: {ptype}", f"  Value: {val}", f"  Version: {rng.randint(1, 9)}"]
    elif v == 1:
        sname = rng.choice(["SqlAdmin", "SmtpRelay", "BackupKey"])
        out.append(f"PS C:\\> Get-Secret -Vault CorpVault -Name {sname} -AsPlainText | Format-List")
        out.append("")
        if r.clean:
            out.append(f"Name      : {sname}\nVaultName : CorpVault\nType      : PSCredential\nValue     : {r.D('System.Management.Automation.PSCredential', 'type_name')}")
        else:
            kind = {"SqlAdmin": "database_password", "SmtpRelay": "smtp_password", "BackupKey": "encryption_passphrase"}[sname]
            out.append(f"Name  : {sname}\nValue : {r.pw(kind, shape=rng.choice(['punct', 'leet', 'sentence']))}")
        out.append(f"\nPS C:\\> cmdkey /list\n\nCurrently stored credentials:\n\n    Target: Domain:target={r.D(internal_host(rng), 'hostname')}\n"
                   f"    Type: Domain Password\n    User: CORP\\svc-backup")
    elif v == 2:
        out.append("GitLab > Settings > CI/CD > Variables (copied)")
        for _ in range(rng.randint(3, 5)):
            if not r.clean and rng.random() < 0.5:
                k, val = secret_env(r)
                prot, mask = "Yes", rng.choice(["Yes", "No"])
            else:
                k, val = decoy_env(r) if rng.random() < 0.6 else placeholder_env(r)
                prot, mask = "No", "No"
            out.append(f"\nKey: {k}\nValue: {val}\nType: Variable\nEnvironments: All (default)\nProtected: {prot}\nMasked: {mask}")
    else:
        out.append(f"{prompt(r)}kubectl describe secret shop-env -n prod")
        out.append("Name:         shop-env\nNamespace:    prod\nLabels:       app=shop\nAnnotations:  <none>\n\nType:  Opaque\n\nData\n====")
        for key in rng.sample(["DATABASE_URL", "STRIPE_SECRET_KEY", "JWT_SECRET", "SMTP_PASSWORD"], 3):
            out.append(f"{key}:  {r.D(str(rng.randint(16, 120)) + ' bytes', 'size')}")
        out.append(f"\n{prompt(r)}kubectl describe configmap shop-config -n prod\nName:         shop-config\nNamespace:    prod\n\nData\n====")
        k, val = r.decoy_ttl()
        out.append(f"{k}:\n----\n{val}\n")
        out.append(f"RELEASE_SHA:\n----\n{r.D(sha1_hex(rng), 'commit_sha')}\n")
        if not r.clean:
            out.append(f"LEGACY_API_KEY:\n----\n{r.secret(r.spec(1)[0])[1]}\n")
        out.append("BinaryData\n====\n\nEvents:  <none>")
    return "\n".join(out)


ASKS = {
    "en": "why does the staging deploy fail? check the env",
    "de": "warum schlägt das Staging-Deployment fehl? schau mal in die env",
    "fr": "pourquoi le déploiement staging plante ? regarde la config",
    "es": "¿por qué falla el despliegue a staging? revisa el .env",
    "pt": "por que o deploy de staging falha? dá uma olhada no .env",
    "it": "perché fallisce il deploy su staging? controlla il .env",
    "nl": "waarom faalt de staging-deploy? kijk even naar de env",
    "pl": "czemu wdrożenie na staging pada? sprawdź plik .env",
    "ru": "почему падает деплой на staging? проверь .env",
    "uk": "чому падає деплой на staging? перевір .env",
    "ja": "ステージングのデプロイが失敗する理由を調べて。.env を確認して",
    "zh": "为什么 staging 部署失败？看一下 .env",
    "ko": "스테이징 배포가 왜 실패하는지 .env 확인해 줘",
    "tr": "staging dağıtımı neden başarısız? .env dosyasına bak",
    "sv": "varför misslyckas staging-driftsättningen? kolla .env",
    "ar": "لماذا يفشل النشر على staging؟ افحص ملف .env",
    "hi": "स्टेजिंग डिप्लॉय क्यों फेल हो रहा है? .env देखो",
    "vi": "sao deploy lên staging bị lỗi? kiểm tra file .env giúp mình",
}


def env_file_lines(r: Row, n_secret: int, n_decoy: int) -> list[str]:
    lines = []
    for _ in range(n_decoy):
        k, val = decoy_env(r)
        lines.append(f"{k}={val}")
    if r.clean:
        for _ in range(max(1, n_secret)):
            k, val = placeholder_env(r)
            lines.append(f"{k}={val}")
    else:
        for _ in range(n_secret):
            k, val = secret_env(r)
            lines.append(f"{k}={val}")
    seen: dict[str, int] = {}
    for n, ln in enumerate(lines):
        k = ln.split("=", 1)[0]
        if k in seen:
            lines[n] = ln.replace(k, k + "_OLD", 1)
        seen[k] = n
    r.rng.shuffle(lines)
    return lines


def st_agent_claude(r: Row, i: int) -> str:
    rng = r.rng
    width = rng.choice([80, 100, 120])
    out = [f"> {ASKS[r.lang]}", ""]
    out.append("⏺ I'll start by looking at the environment file and the last deploy log.")
    out.append("")
    envf = rng.choice([".env.staging", ".env", "deploy/.env.production"])
    lines = env_file_lines(r, rng.randint(1, 3), rng.randint(2, 4))
    out.append(f"⏺ Read({envf})")
    out.append(f"  ⎿  Read {len(lines)} lines (ctrl+r to expand)")
    out.append("")
    out.append(f"⏺ Bash(cat {envf})")
    out.append(f"  ⎿  {lines[0]}")
    out += [f"     {ln}" for ln in lines[1:]]
    out.append("")
    if i % 3 == 0:
        out.append("⏺ Bash(kubectl logs deploy/api -n staging --tail=5)")
        t = rand_day(rng)
        logs = []
        for _ in range(4):
            t += dt.timedelta(seconds=rng.randint(1, 30))
            logs.append(f"{iso_z(t)} level=error msg=\"db connect failed\" host={r.D(internal_host(rng), 'hostname')} "
                        f"trace_id={r.D(trace_id(rng), 'trace_id')}")
        out.append(f"  ⎿  {logs[0]}")
        out += [f"     {ln}" for ln in logs[1:]]
        out.append("")
    if not r.clean and i % 2:
        url, _ = gen_db_url(rng)
        out.append("⏺ Bash(psql \"$DATABASE_URL\" -c 'select 1')")
        out.append("  ⎿  Error: psql: error: connection to server failed: FATAL:  password authentication failed")
        out.append(f"     DATABASE_URL was {r.S(url, 'database_url_with_password')}")
        out.append("")
    out.append(f"⏺ {rng.choice(['The token in the env file is expired; the deploy job reads it at start-up.', 'The database host resolves to an internal address that the runner cannot reach.', 'Nothing in the env file is wrong; the failing step is the image pull.'])}")
    if r.lang != "en":
        out.append(f"\n> {r.t('fixed')}")
    text = "\n".join(out)
    return wrap_row(r, text, width, indent=5 if rng.random() < 0.7 else 0)


def st_agent_codex(r: Row, i: int) -> str:
    rng = r.rng
    width = rng.choice([80, 100, 120])
    cwd = rng.choice(["/home/dev/shop", "/Users/build/src/api", "/workspace/billing"])
    out = ["user", ASKS[r.lang], "", "thinking", "Checking the deploy configuration and the secrets file before touching anything.", ""]
    f = rng.choice(["config/secrets.yml", "config/settings.toml", ".env.staging"])
    out += ["exec", f"bash -lc 'cat {f}' in {cwd}", f"succeeded in {rng.randint(8, 90)}ms:"]
    if f.endswith(".yml"):
        out.append("production:")
        if r.clean:
            out.append("  secret_key_base: <%= ENV[\"SECRET_KEY_BASE\"] %>")
            r.D('<%= ENV["SECRET_KEY_BASE"] %>', "placeholder")
        else:
            out.append(f"  secret_key_base: {r.S(g_rails_secret(rng), 'rails_secret_key_base')}")
        k, val = r.decoy_ttl()
        out.append(f"  {k.lower()}: {val}")
    elif f.endswith(".toml"):
        out.append("[server]\nport = 8443")
        out.append(f"version = \"{r.D(f'{rng.randint(2, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}', 'version')}\"")
        out.append("[auth]")
        k, val = r.decoy_ttl()
        out.append(f"{k.lower()} = \"{val}\"")
        if r.clean:
            out.append(f"client_secret = \"{r.D('${OAUTH_CLIENT_SECRET}', 'placeholder')}\"")
        else:
            out.append(f"client_secret = \"{r.S(rs(rng, ALNUM + '-_', 40), 'oauth_client_secret')}\"")
            out.append(f"jwt_signing_key = \"{r.S(g_b64_key(rng), 'signing_key')}\"")
    else:
        out += env_file_lines(r, rng.randint(1, 3), rng.randint(1, 3))
    out += ["", "codex", rng.choice(["The config points at the production database; switching to the staging one.",
                                     "The key is loaded from the file above, so rotating it needs a redeploy."]), ""]
    if i % 2 == 0:
        out += ["exec", f"bash -lc 'git log --oneline -3' in {cwd}", "succeeded in 12ms:"]
        for _ in range(3):
            out.append(f"{r.D(short_sha(rng)[:7], 'commit_sha')} {rng.choice(['fix config', 'bump version', 'add retry'])}")
        out.append("")
    out += ["tokens used", f"{rng.randint(2, 60)},{rng.randint(100, 999)}"]
    if r.lang != "en":
        out += ["", "user", r.t("ask_help")]
    return wrap_row(r, "\n".join(out), width, indent=rng.choice([0, 0, 2]))


def st_agent_json(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    lines: list[str] = []
    sid = r.D(uuid4(rng), "uuid")
    t = rand_day(rng)
    ascii_only = v in (1, 3)
    enc1 = "json_ascii" if ascii_only else "json"
    enc2 = "json2_ascii" if ascii_only else "json2"
    lines.append(jdump({"type": "user", "sessionId": sid, "timestamp": iso_z(t), "message": {"role": "user", "content": ASKS[r.lang]}},
                       compact=True, ascii_only=ascii_only))
    toolu = r.D(("call_" + rs(rng, ALNUM, 24)) if v == 1 else ("toolu_01" + rs(rng, ALNUM, 22)), "tool_call_id")
    before = {c: len(r.labels[c]) for c in CLASSES}
    env_lines = env_file_lines(r, rng.randint(1, 2), rng.randint(1, 3))
    # the env file is a string in the outer JSON (v0, v1) or in a JSON string inside it (v2, v3)
    env_enc = enc1 if v < 2 else enc2
    for cls in CLASSES:
        for lab in r.labels[cls][before[cls]:]:
            e = encode(lab.value, env_enc)
            lab.shown = e if e != lab.value else None
    # the HTTP body is always JSON inside a JSON string
    p = r.person(rng.choice(LANG_LOCALES[r.lang]))
    inner: dict[str, object] = {"id": r.D(uuid4(rng), "uuid"), "name": p.full, "email": p.email}
    r.P(p.full, "person_name", enc=enc2)
    r.P(p.email, "email")
    if not r.clean:
        pw = gen_password(rng, rng.choice(["punct", "unicode", "word_digits"]))
        inner["temp_password"] = pw
        r.S(pw, "password", enc=enc2)
        inner["api_token"] = r.S(g_jwt_generic(rng), "jwt")
    else:
        m = masked(rng)
        inner["api_token"] = m
        r.D(m, "masked", enc=enc2)
    if v == 0:
        content = "\n".join(env_lines) + "\n\n" + jdump(inner)
        lines.append(jdump({"type": "user", "sessionId": sid, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": toolu, "content": content}]}}, compact=True))
    elif v == 1:
        content = "\n".join(env_lines) + "\n" + jdump(inner, indent=None, ascii_only=True)
        lines.append(jdump({"type": "function_call_output", "call_id": toolu, "output": content},
                           compact=True, ascii_only=True))
    elif v == 2:
        lines.append(jdump({"role": "tool", "tool_call_id": toolu, "name": "run_shell_command",
                            "content": jdump({"stdout": "\n".join(env_lines), "stderr": "", "exit_code": 0}, compact=True)},
                           compact=True))
        lines.append(jdump({"role": "tool", "tool_call_id": "toolu_01" + rs(rng, ALNUM, 22), "name": "http_get",
                            "content": jdump(inner, compact=True)}, compact=True))
    else:
        lines.append(jdump({"functionResponse": {"id": toolu, "name": "run_shell_command", "response": {
            "output": jdump({"stdout": "\n".join(env_lines), "files": ["./.env"]}, indent=None, ascii_only=True)}}},
            compact=True, ascii_only=True))
        lines.append(jdump({"functionResponse": {"id": toolu + "b", "name": "web_fetch", "response": {
            "output": jdump(inner, indent=None, ascii_only=True)}}}, compact=True, ascii_only=True))
    lines.append(jdump({"type": "assistant", "sessionId": sid, "message": {"role": "assistant", "content": [
        {"type": "text", "text": r.t("fixed")}]}}, compact=True, ascii_only=ascii_only))
    return "\n".join(lines)


def st_chat_support(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    agent = r.person()
    cust = r.person()
    order = r.D(order_number(rng), "order_number")
    t = rand_day(rng)
    msgs: list[tuple[str, str]] = []
    msgs.append((cust.full, f"{r.t('order_q', order=order)}. {r.t('update_details')}"))
    details = pii_kv(r, cust, rng.choice(["name email phone address id", "phone address dob id", "email address iban",
                                          "name phone id passport", "plate phone", "card email dob", "mrn dob name id"]))
    msgs.append((cust.full, "\n".join(f"{k}: {val}" for k, val in details)))
    r.P(cust.full, "person_name")
    r.P(agent.full, "person_name")
    if not r.clean:
        if v % 2 == 0:
            msgs.append((cust.full, f"{r.t('pw')}: {r.pw('password', shape=rng.choice(['word_digits', 'short', 'leet', 'diceware', 'unicode']))}"))
        else:
            colleague = r.person()
            r.P(colleague.full, "person_name")
            spec = r.spec(1)[0]
            msgs.append((colleague.full, f"{r.t('here_creds', svc=spec.vendor)} {r.secret(spec)[1]}\n{r.t('rotate')}"))
    else:
        msgs.append((agent.full, f"{r.t('masked')} {r.D(masked(rng), 'masked')}"))
    msgs.append((agent.full, f"{r.t('thanks')} ticket {r.D(ulid(rng), 'ulid')}"))
    out: list[str] = []
    for who, text in msgs:
        t += dt.timedelta(minutes=rng.randint(1, 9))
        if v == 0:
            out.append(f"[{t.strftime('%H:%M')}] {who}: {text}")
        elif v == 1:
            out.append(f"{who} — {t.strftime('%d.%m.%Y %H:%M')}\n{text}\n")
        elif v == 2:
            out.append(f"{t.strftime('%d/%m/%y, %H:%M')} - {who}: {text}")
        else:
            out.append(f"**{who}** ({t.strftime('%Y-%m-%d %H:%M')}):\n> " + text.replace("\n", "\n> "))
    return "\n".join(out)


def signature(r: Row, p: Person, company_i: int) -> list[str]:
    rng = r.rng
    title = rng.choice(["Head of Operations", "Senior Backend Engineer", "Customer Success", "CTO", "Buchhaltung", "Responsable IT"])
    comp = COMPANIES[company_i]
    dom = COMPANY_DOMAINS[company_i]
    r.D(comp, "company_name")
    lines = ["-- ", r.P(p.full, "person_name"), f"{title} | {comp}"]
    lines.append(f"Tel: {r.P(p.phone_intl, 'phone')}")
    if rng.random() < 0.5:
        _, intl2 = gen_phone(rng, p.locale)
        lines.append(f"Mobile: {r.P(intl2, 'phone')}")
    lines.append(r.P(p.address, "postal_address"))
    lines.append(f"https://www.{r.D(dom, 'company_domain')}")
    if rng.random() < 0.4:
        lines.append(f"VAT: {r.P(vat_number(rng, rng.choice(VAT_LOCALES)), 'vat_number')}")
    if p.locale == "BR":
        lines.append(f"CNPJ: {r.P(cnpj(rng), 'br_cnpj')}")
    return lines


def st_email(r: Row, i: int) -> str:
    rng = r.rng
    sender = r.person()
    ci = rng.randrange(len(COMPANIES))
    to_role = r.D(f"{rng.choice(ROLE_LOCALS)}@{COMPANY_DOMAINS[ci]}", "role_mailbox")
    to_person = r.person()
    date = rand_day(rng).strftime("%a, %d %b %Y %H:%M:%S +0100")
    mid = r.D(f"<{rs(rng, HEX, 16)}.{rng.randint(10**9, 10**10)}@mail.{COMPANY_DOMAINS[ci]}>", "message_id")
    subj = r.t("order_q", order=r.D(order_number(rng), "order_number")) if r.clean else r.t("here_creds", svc="VPN").rstrip(":： ")
    out = [f"From: {r.P(sender.full, 'person_name')} <{r.P(sender.email, 'email')}>",
           f"To: {r.P(to_person.full, 'person_name')} <{r.P(to_person.email, 'email')}>",
           f"Cc: {to_role}", f"Subject: {subj}", f"Date: {date}", f"Message-ID: {mid}", ""]
    out.append(r.t("hi", name=r.P(to_person.given, "person_name")))
    out.append("")
    if r.clean:
        out.append(r.t("update_details"))
        for k, val in pii_kv(r, sender, "address phone dob iban id"):
            out.append(f"  {k}: {val}")
    else:
        out.append(r.t("here_creds", svc=rng.choice(["VPN", "Jira", "SFTP", "Grafana", "AWS"])))
        kind = rng.randrange(3)
        out.append(f"  URL: https://{r.D(internal_host(rng), 'hostname')}")
        out.append(f"  {r.t('user')}: {r.P(strip_accents(to_person.latin).lower().replace(' ', '.').replace(chr(39), ''), 'username')}")
        if kind == 0:
            out.append(f"  {r.t('pw')}: {r.pw('password')}")
        elif kind == 1:
            out.append(f"  {r.t('pw')}: {r.pw('password', shape='short')}")
            codes = [r.S(g_recovery_code(rng), "recovery_code") for _ in range(rng.randint(2, 5))]
            out.append("  Recovery codes: " + "  ".join(codes))
        else:
            seed = r.S(g_totp(rng), "totp_seed")
            out.append(f"  {r.t('pw')}: {r.pw('password', shape='diceware')}")
            out.append(f"  TOTP: otpauth://totp/Acme:{urllib.parse.quote(to_person.email, safe='')}?secret={seed}&issuer=Acme")
            r.P(to_person.email, "email", enc="url")
        out.append("")
        out.append(r.t("dont_share"))
    out.append("")
    out.append(r.t("regards"))
    out += signature(r, sender, ci)
    if rng.random() < 0.3:
        out += ["", f"> On {date}, {to_role} wrote:", "> " + r.t("ask_help")]
    return "\n".join(out)


def st_multilingual_notes(r: Row, i: int) -> str:
    rng = r.rng
    pw_key, user_key, tok_key = LOCAL_KEYS[r.lang]
    day = rand_day(rng).strftime("%Y-%m-%d")
    out = [f"## {r.t('debug')} — {r.D(day, 'date')}", "", r.t("deploy_fail"), "", r.t("config"), ""]
    fmt = i % 3
    host = r.D(internal_host(rng), "hostname")
    k, val = r.decoy_ttl()
    if fmt == 0:
        out.append("```yaml")
        out.append("db:")
        out.append(f"  host: {host}")
        out.append(f"  {user_key}: shop_app")
        out.append(f"  {pw_key}: " + (r.D(placeholder(rng), "placeholder") if r.clean else f'"{yaml_pw(r, "database_password")}"'))
        out.append(f"  {k.lower()}: {val}")
        out.append("api:")
        out.append(f"  {tok_key}: " + (r.D(masked(rng), "masked") if r.clean else r.secret(r.spec(1)[0])[1]))
        out.append("```")
    elif fmt == 1:
        out.append("```ini")
        out.append("[database]")
        out.append(f"host = {host}")
        out.append(f"{user_key} = shop_app")
        out.append(f"{pw_key} = " + (r.D(placeholder(rng), "placeholder") if r.clean else r.pw("database_password",
                                                                                             shape=rng.choice(["word_digits", "leet", "short", "unicode"]))))
        out.append(f"{k.lower()} = {val}")
        out.append("```")
    else:
        cfg: dict[str, object] = {"host": host, user_key: "shop_app", k.lower(): val}
        if r.clean:
            ph = placeholder(rng)
            r.D(ph, "placeholder", enc="json")
            cfg[pw_key] = ph
        else:
            pw = gen_password(rng)
            r.S(pw, "database_password", enc="json")
            cfg[pw_key] = pw
            raw, _ = r.secret(r.spec(1)[0], enc="json")
            cfg[tok_key] = raw
        out.append("```json")
        out.append(jdump(cfg))
        out.append("```")
    out.append("")
    out.append(r.t("error_when", cmd="`./deploy.sh staging`"))
    out.append("```")
    out.append(f"Error: dial tcp {r.D(private_ip(rng), 'private_ip')}:5432: i/o timeout (request_id={r.D(request_id(rng), 'request_id')})")
    out.append("```")
    if rng.random() < 0.5:
        p = r.person()
        out.append("")
        out.append(f"{r.t('customer')} {r.P(p.full, 'person_name')}, {r.P(p.phone_intl, 'phone')}, {r.P(p.email, 'email')}, "
                   f"{r.t('idno')}: {r.P(p.natid, p.natid_kind)}")
    out.append("")
    out.append(r.t("rotate") if not r.clean else r.t("placeholders"))
    return "\n".join(out)


def st_wrapped_terminal(r: Row, i: int) -> str:
    rng = r.rng
    width = [80, 100, 120][i % 3]
    indent = [0, 2, 4][(i // 3) % 3]
    p = prompt(r)
    out: list[str] = []
    if r.lang != "en":
        out.append(f"# {r.t('see_log')}")
    if r.clean:
        out.append(f"{p}sha256sum dist/*.tar.gz")
        for n in range(rng.randint(2, 4)):
            out.append(f"{r.D(sha256_hex(rng), 'sha256')}  dist/shop-api-{n}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.tar.gz")
        out.append(f"{p}cat ~/.ssh/authorized_keys")
        for _ in range(rng.randint(1, 3)):
            who = r.person()
            _pk, pub, _fp = ed25519_pair(rng, who.email)
            out.append(r.D(pub.rsplit(" ", 1)[0], "ssh_public_key") + " " + r.P(who.email, "email"))
        out.append(f"{p}npm view react dist.integrity dist.tarball")
        out.append(r.D(sri_hash(rng), "integrity_hash"))
        out.append(f"{p}docker inspect --format '{{{{.RepoDigests}}}}' ghcr.io/shopwave/api:latest")
        out.append(f"[ghcr.io/shopwave/api@{r.D(image_digest(rng), 'image_digest')}]")
    else:
        v = i % 4
        if v == 0:
            out.append(f"{p}gcloud auth print-access-token")
            out.append(r.S(g_gcp_access_token(rng), "gcp_oauth_access_token"))
        elif v == 1:
            spec = SPEC_BY_KIND[rng.choice(["openai_api_key", "onepassword_service_account_token", "atlassian_api_token", "pypi_token"])]
            out.append(f"{p}echo ${spec.envs[0]}")
            out.append(r.secret(spec)[1])
        elif v == 2:
            out.append(f"{p}vault login -method=userpass username=ops")
            out.append("Password (will be hidden):\nSuccess! You are now authenticated.\n")
            tok = r.secret(SPEC_BY_KIND["vault_token"])[1]
            rows = [("Key", "Value"), ("---", "-----"), ("token", tok), ("token_accessor", r.D(vault_accessor(rng), "vault_token_accessor")),
                    ("token_duration", "768h"), ("token_policies", '["default" "ops"]')]
            out += aligned(rows, 4)
        else:
            out.append(f"{p}curl -s https://{hostname_public(rng)}/oauth/token -d grant_type=client_credentials | jq -r .access_token")
            out.append(r.S(g_azure_access_token(rng), "oauth_access_token"))
        out.append(f"{p}docker inspect --format '{{{{.RepoDigests}}}}' ghcr.io/shopwave/api:latest")
        out.append(f"[ghcr.io/shopwave/api@{r.D(image_digest(rng), 'image_digest')}]")
    return wrap_row(r, "\n".join(out), width, indent)


def st_git_diff(r: Row, i: int) -> str:
    rng = r.rng
    a = r.person(rng.choice(LANG_LOCALES[r.lang]))
    sha = r.D(sha1_hex(rng), "commit_sha")
    t = rand_day(rng)
    msg = {True: r.t("placeholders"), False: r.t("fixed")}[r.clean]
    out = [f"commit {sha}", f"Author: {r.P(a.full, 'person_name')} <{r.P(a.email, 'email')}>",
           f"Date:   {t.strftime('%a %b %d %H:%M:%S %Y')} +0100", "", f"    {msg}", ""]
    f = rng.choice([".env.production", "deploy/app.env", "docker/.env", "config/staging.env"])
    h1, h2 = r.D(short_sha(rng)[:7], "short_sha"), r.D(short_sha(rng)[:7], "short_sha")
    out += [f"diff --git a/{f} b/{f}", f"index {h1}..{h2} 100644", f"--- a/{f}", f"+++ b/{f}", f"@@ -{rng.randint(3, 60)},7 +{rng.randint(3, 60)},8 @@"]
    k, val = r.decoy_ttl()
    ctx = [f" {k}={val}", " LOG_LEVEL=info"]
    if r.clean:
        dig_old, dig_new = image_digest(rng), image_digest(rng)
        body = ctx + [f"-IMAGE_DIGEST={r.D(dig_old, 'image_digest')}", f"+IMAGE_DIGEST={r.D(dig_new, 'image_digest')}",
                      f"-API_KEY={r.D('your-api-key-here', 'placeholder')}", f"+API_KEY={r.D('${API_KEY}', 'placeholder')}",
                      f"+{r.D(rng.choice(['SENTRY_AUTH_TOKEN', 'OPENAI_API_KEY', 'STRIPE_SECRET_KEY']), 'env_var_name')}="]
    else:
        spec_old, spec_new = r.spec(2)
        old_raw, old_shown = r.secret(spec_old)
        mode = rng.randrange(3)
        if mode == 0:
            # removing a hard-coded secret: the removed line still shows it
            body = ctx + [f"-{spec_old.envs[0]}={old_shown}", f"+{spec_old.envs[0]}=${{{spec_old.envs[0]}}}"]
            r.D(f"${{{spec_old.envs[0]}}}", "placeholder")
        elif mode == 1:
            _, new_shown = r.secret(spec_new)
            body = ctx + [f"-{spec_old.envs[0]}={old_shown}", f"+{spec_new.envs[0]}={new_shown}"]
        else:
            pw = r.pw("database_password", shape=rng.choice(["word_digits", "random_long", "leet"]))
            body = ctx + [f"+{spec_old.envs[0]}={old_shown}", f"+DB_PASSWORD={pw}"]
    out += body
    out.append(" REGION=eu-west-1")
    if rng.random() < 0.4:
        lock = "package-lock.json"
        out += [f"diff --git a/{lock} b/{lock}", f"--- a/{lock}", f"+++ b/{lock}", "@@ -1201,7 +1201,7 @@",
                f'       "resolved": "https://registry.npmjs.org/zod/-/zod-3.23.{rng.randint(1, 8)}.tgz",',
                f'-      "integrity": "{r.D(sri_hash(rng), "integrity_hash")}",', f'+      "integrity": "{r.D(sri_hash(rng), "integrity_hash")}",']
    return "\n".join(out)


def st_k8s_manifest(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 2
    out = [lang_comment(r, "config")] if r.lang != "en" else []
    uid = r.D(uuid4(rng), "uuid")
    created = r.D(iso_z(rand_day(rng), ms=False), "timestamp")
    if r.clean:
        out += ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: shop-config", "  namespace: prod",
                f"  uid: {uid}", f"  resourceVersion: \"{rng.randint(10**6, 10**8)}\"", f"  creationTimestamp: \"{created}\"", "data:"]
        k, val = r.decoy_ttl()
        out.append(f"  {k}: \"{val}\"")
        out.append(f"  RELEASE: \"{r.D(sha1_hex(rng), 'commit_sha')}\"")
        plain, enc = b64_harmless(rng)
        out.append(f"binaryData:\n  banner.txt: {r.D(enc, 'base64_harmless')}")
        out += ["---", "apiVersion: v1", "kind: Secret", "metadata:", "  name: shop-db", "type: Opaque", "data: {}",
                f"# filled by external-secrets from {r.D(f'arn:aws:secretsmanager:eu-west-1:{aws_account_id(rng)}:secret:prod/shop-db-{rs(rng, ALNUM, 6)}', 'aws_arn')}"]
        return "\n".join(out)
    out += [f"{prompt(r)}kubectl get secret shop-env -n prod -o yaml"] if v == 0 else []
    out += ["apiVersion: v1", "kind: Secret", "metadata:", "  name: shop-env", "  namespace: prod",
            f"  uid: {uid}", f"  creationTimestamp: \"{created}\"", "type: Opaque", "data:"]
    vals: list[tuple[str, str, str]] = []
    for _ in range(rng.randint(2, 4)):
        spec = r.spec(1)[0]
        vals.append((spec.envs[0], spec.gen(rng), spec.kind))
    vals.append(("DB_PASSWORD", gen_password(rng), "database_password"))
    for name, raw, kind in vals:
        out.append(f"  {name}: {r.S(raw, kind, enc='b64')}")
    plain, enc = b64_harmless(rng)
    out.append(f"  APP_ENV: {r.D(enc, 'base64_harmless')}")
    if v == 1:
        out.append("stringData:")
        out.append(f"  SMTP_PASSWORD: \"{yaml_pw(r, 'smtp_password')}\"")
    return "\n".join(out)


def st_source_code(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 5
    note = r.t("placeholders") if r.clean else r.t("dont_share")
    if v == 0:
        out = ['"""Django settings for shop."""', "import os", "", f"# {note}"]
        if r.clean:
            out.append('SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]')
            r.D("DJANGO_SECRET_KEY", "env_var_name")
        else:
            out.append(f"SECRET_KEY = '{r.S(g_django_secret(rng), 'django_secret_key')}'")
        out += ["DEBUG = False", f"ALLOWED_HOSTS = [\"{r.D('shop.' + rng.choice(COMPANY_DOMAINS), 'hostname')}\"]", "DATABASES = {",
                "    'default': {", "        'ENGINE': 'django.db.backends.postgresql',", "        'NAME': 'shop',",
                f"        'HOST': '{r.D(internal_host(rng), 'hostname')}',"]
        if r.clean:
            out.append("        'PASSWORD': os.environ.get('DB_PASSWORD', ''),")
        else:
            pw = gen_password(rng, rng.choice(["word_digits", "random_long", "leet"]))
            out.append(f"        'PASSWORD': '{r.S(pw, 'database_password')}',")
        out += ["    }", "}", f"SESSION_COOKIE_AGE = {r.D('1209600', 'credential_setting_number')}",
                f"PASSWORD_RESET_TIMEOUT = {r.D('259200', 'credential_setting_number')}"]
    elif v == 1:
        out = [f"# {note}", "spring.application.name=orders", f"spring.datasource.url=jdbc:postgresql://{r.D(internal_host(rng), 'hostname')}:5432/orders",
               "spring.datasource.username=orders"]
        if r.clean:
            out.append(f"spring.datasource.password={r.D('${DB_PASSWORD}', 'placeholder')}")
        else:
            out.append(f"spring.datasource.password={r.pw('database_password', shape=rng.choice(['word_digits', 'leet', 'random_long']))}")
            out.append(f"app.jwt.secret={r.S(g_b64_key(rng), 'signing_key')}")
        out += [f"app.jwt.expiration-ms={r.D('3600000', 'credential_setting_number')}", "server.port=8443",
                "management.endpoints.web.exposure.include=health,info"]
    elif v == 2:
        out = [f"// {note}", "module.exports = {", "  env: 'production',"]
        if r.clean:
            out += ["  stripeKey: process.env.STRIPE_SECRET_KEY,", f"  stripePublishableKey: '{r.D(stripe_publishable(rng), 'stripe_publishable_key')}',"]
        else:
            out += [f"  stripeKey: '{r.secret(SPEC_BY_KIND['stripe_secret_key'])[1]}',",
                    f"  stripePublishableKey: '{r.D(stripe_publishable(rng), 'stripe_publishable_key')}',",
                    f"  sendgrid: {{ apiKey: '{r.secret(SPEC_BY_KIND['sendgrid_api_key'])[1]}' }},"]
        out += [f"  sentryDsn: '{r.D(sentry_public_dsn(rng), 'sentry_public_dsn')}',", f"  sessionTtlSeconds: {r.D('86400', 'credential_setting_number')},", "};"]
    elif v == 3:
        out = ["package config", "", f"// {note}", "const ("]
        if r.clean:
            out.append(f'\tAPIKeyEnv = "{r.D("PARTNER_API_KEY", "env_var_name")}"')
        else:
            spec = r.spec(1)[0]
            out.append(f'\tAPIKey = "{r.secret(spec, enc="json")[1]}"')
            out.append(f'\tWebhookSecret = "{r.S(g_hex_key(rng), "webhook_signing_secret")}"')
        out += [f'\tBuildCommit = "{r.D(sha1_hex(rng), "commit_sha")}"', f'\tTokenTTL = {r.D("3600", "credential_setting_number")} // seconds', ")"]
    else:
        out = ["<?php", f"// {note}", "define( 'DB_NAME', 'wordpress' );", "define( 'DB_USER', 'wp_prod' );"]
        if r.clean:
            out.append("define( 'DB_PASSWORD', getenv('WORDPRESS_DB_PASSWORD') );")
            out.append(f"define( 'AUTH_KEY',         '{r.D('put your unique phrase here', 'placeholder')}' );")
        else:
            pw = gen_password(rng, rng.choice(["word_digits", "random_long", "leet"]))
            out.append(f"define( 'DB_PASSWORD', '{r.S(pw, 'database_password')}' );")
            for k in ["AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY"]:
                salt = rs(rng, ALNUM + "!@#%^&*()-_[]{}<>~+=,.;:/?|", 64)
                out.append(f"define( '{k}', {' ' * (16 - len(k))}'{r.S(salt, 'wordpress_salt')}' );")
        out.append(f"define( 'DB_HOST', '{r.D(private_ip(rng), 'private_ip')}' );")
    if rng.random() < 0.4:
        prefix = "#" if v < 2 else "//"
        out.append(f"{prefix} docs example, not ours: {doc_example(r, ('aws_doc_access_key', 'aws_doc_secret_key', 'doc_jwt_secret', 'test_card'))}")
    return "\n".join(out)


def st_html_xml(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 4
    if v == 0:
        out = ['<?xml version="1.0" encoding="UTF-8"?>', f"<!-- {r.t('config')} -->", "<settings>", "  <servers>", "    <server>",
               "      <id>nexus-releases</id>", "      <username>deploy</username>"]
        if r.clean:
            out.append(f"      <password>{r.D('${env.NEXUS_PASSWORD}', 'placeholder')}</password>")
        else:
            pw = gen_password(rng, rng.choice(["punct", "punct", "word_digits"]))
            out.append(f"      <password>{r.S(pw, 'password', enc='xml')}</password>")
        out += ["    </server>", "  </servers>", "  <profiles><profile><id>ci</id><properties>",
                f"    <sonar.host.url>https://{r.D(internal_host(rng), 'hostname')}</sonar.host.url>"]
        if not r.clean:
            out.append(f"    <sonar.login>{r.S('squ_' + rs(rng, HEX, 40), 'sonarqube_token')}</sonar.login>")
        out += ["  </properties></profile></profiles>", "</settings>"]
    elif v == 1:
        out = ['<?xml version="1.0" encoding="utf-8"?>', "<configuration>", f"  <!-- {r.t('dont_share') if not r.clean else r.t('placeholders')} -->",
               "  <connectionStrings>"]
        host = internal_host(rng)
        if r.clean:
            r.D(host, "hostname")
            cs = f"Server={host};Database=Crm;Integrated Security=True;TrustServerCertificate=True"
            out.append(f'    <add name="Crm" connectionString="{cs}" providerName="System.Data.SqlClient" />')
        else:
            pw = gen_password(rng, rng.choice(["punct", "leet", "word_digits"]))
            cs = f"Server={host};Database=Crm;User Id=sa;Password={pw};"
            r.S(cs, "database_connection_string", enc="xml")
            out.append(f'    <add name="Crm" connectionString="{xml_esc(cs)}" providerName="System.Data.SqlClient" />')
        out += ["  </connectionStrings>", "  <appSettings>"]
        k, val = r.decoy_ttl()
        out.append(f'    <add key="{k}" value="{val}" />')
        if not r.clean:
            spec = r.spec(1)[0]
            out.append(f'    <add key="{spec.envs[0]}" value="{r.secret(spec, enc="xml")[1]}" />')
        out += ["  </appSettings>", "</configuration>"]
    elif v == 2:
        p = r.person()
        out = ["<!doctype html>", f'<html lang="{r.lang}">', "<head>", '  <meta charset="utf-8">',
               f'  <meta name="google-site-verification" content="{r.D(rs(rng, ALNUM + "-_", 43), "site_verification_token")}">',
               f'  <script src="https://cdn.jsdelivr.net/npm/htmx.org@2.0.3" integrity="{r.D(sri_hash(rng), "integrity_hash")}" crossorigin="anonymous"></script>']
        if not r.clean:
            out.append(f'  <meta name="csrf-token" content="{r.S(b64(rbytes(rng, 32)), "csrf_token", enc="html")}">')
        out += ["</head>", "<body>", f"<h1>{html.escape(r.t('update_details'))}</h1>", '<form method="post" action="/account">']
        out.append(f'  <input name="name" value="{r.P(p.full, "person_name", enc="html")}">')
        out.append(f'  <input name="email" value="{r.P(p.email, "email", enc="html")}">')
        out.append(f'  <input name="phone" value="{r.P(p.phone_intl, "phone", enc="html")}">')
        out.append(f'  <textarea name="address">{r.P(p.address, "postal_address", enc="html")}</textarea>')
        if not r.clean:
            out.append(f'  <input type="hidden" name="api_key" value="{r.S(g_inhouse(rng), "inhouse_api_key", enc="html")}">')
            pw = gen_password(rng, "punct")
            out.append(f'  <input type="password" name="password" value="{r.S(pw, "password", enc="html")}">')
        else:
            out.append('  <input type="password" name="password" value="" placeholder="••••••••">')
            r.D("••••••••", "masked")
        out += ["</form>", "</body>", "</html>"]
    else:
        out = ['<?xml version="1.0" encoding="utf-8"?>', "<resources>", f"    <!-- {r.t('config')} -->",
               '    <string name="app_name">Shopwave</string>',
               f'    <string name="google_oauth_client_id">{r.D(google_client_id(rng), "oauth_client_id")}</string>']
        if not r.clean:
            out.append(f'    <string name="backend_api_secret">{r.S(g_inhouse(rng), "inhouse_api_key", enc="xml")}</string>')
            out.append(f'    <string name="crash_upload_key">{r.S(rs(rng, HEX, 32), "api_key")}</string>')
        out.append(f'    <string name="support_email">{r.D(role_mailbox(rng), "role_mailbox")}</string>')
        out.append(f'    <integer name="session_timeout">{r.D("1800", "credential_setting_number")}</integer>')
        out.append("</resources>")
    return "\n".join(out)


def st_dotfile_credentials(r: Row, i: int) -> str:
    rng = r.rng
    v = i % 6
    p = prompt(r)
    out: list[str] = [f"# {r.t('config')}"] if r.lang != "en" else []
    if r.clean:
        out.append(f"{p}cat ~/.gitconfig ~/.ssh/config")
        a = r.person()
        out += ["[user]", f"\tname = {r.P(a.full, 'person_name')}", f"\temail = {r.P(a.email, 'email')}",
                f"\tsigningkey = {r.D(gpg_key_id(rng), 'gpg_key_id')}", "[commit]", "\tgpgsign = true", "",
                "Host bastion", f"  HostName {r.D(public_ipv4(rng), 'server_ip')}", "  User ops", "  IdentityFile ~/.ssh/id_ed25519",
                "Host *.internal", "  ProxyJump bastion", f"  ServerAliveInterval {r.D('120', 'duration')}"]
        out.append(f"{p}ssh-keygen -lf ~/.ssh/id_ed25519.pub")
        _priv, pub, fp = ed25519_pair(rng, a.email)
        out.append(f"256 {r.D(fp, 'ssh_fingerprint')} {a.email} (ED25519)")
        return "\n".join(out)
    if v == 0:
        out.append(f"{p}cat ~/.netrc ~/.pgpass")
        out.append(f"machine api.heroku.com\n  login ops@shopwave.dev\n  password {r.secret(SPEC_BY_KIND['heroku_api_key'])[1]}")
        out.append(f"machine github.com login ci-bot password {r.secret(SPEC_BY_KIND['github_classic_pat'])[1]}")
        r.D("ops@shopwave.dev", "role_mailbox")
        host = r.D(internal_host(rng), "hostname")
        out.append(f"{host}:5432:shop:shop_app:{r.pw('database_password', shape=rng.choice(['word_digits', 'random_long']))}")
    elif v == 1:
        out.append(f"{p}cat ~/.docker/config.json")
        user = rng.choice(["ci-bot", "deploy", "shopwave"])
        tok = g_docker_pat(rng)
        auth = r.S(f"{user}:{tok}", "basic_auth_credentials", enc="b64")
        out.append(jdump({"auths": {"https://index.docker.io/v1/": {"auth": auth}, "ghcr.io": {"auth": r.S(f"ci-bot:{g_ghp(rng)}", "basic_auth_credentials", enc="b64")}},
                          "credsStore": "", "currentContext": "default"}, indent="\t"))
    elif v == 2:
        out.append(f"{p}sudo cat /etc/wireguard/wg0.conf")
        out += ["[Interface]", f"PrivateKey = {r.S(g_wireguard_private(rng), 'wireguard_private_key')}",
                f"Address = {r.D('10.8.0.' + str(rng.randint(2, 250)) + '/24', 'cidr')}", "ListenPort = 51820", "", "[Peer]",
                f"PublicKey = {r.D(b64(rbytes(rng, 32)), 'wireguard_public_key')}",
                f"PresharedKey = {r.S(b64(rbytes(rng, 32)), 'wireguard_preshared_key')}",
                f"AllowedIPs = {r.D(cidr(rng), 'cidr')}", f"Endpoint = {r.D(public_ipv4(rng), 'server_ip')}:51820", "PersistentKeepalive = 25"]
    elif v == 5:
        out.append(f"{p}cat ~/.oci/config && cat ~/.oci/oci_api_key.pem")
        acct = rng.choice(["frankfurt-1", "ashburn-1", "tokyo-1"])
        out += ["[DEFAULT]", f"user={r.D(ocid(rng), 'oci_ocid')}",
                f"fingerprint={r.D(':'.join(rs(rng, HEX, 2) for _ in range(16)), 'key_fingerprint')}",
                f"tenancy={r.D(ocid(rng), 'oci_ocid')}", f"region={ {'frankfurt-1': 'eu', 'ashburn-1': 'us', 'tokyo-1': 'ap'}[acct]}-{acct}",
                "key_file=~/.oci/oci_api_key.pem"]
        out.append(r.S(oci_pem(rng), "oci_api_private_key"))
    elif v == 3:
        out.append(f"{p}cat ~/.config/gh/hosts.yml ~/.s3cfg")
        out += ["github.com:", "    users:", "        ci-bot:", f"            oauth_token: {r.secret(SPEC_BY_KIND['github_oauth_token'])[1]}",
                "    git_protocol: https", "    user: ci-bot", "", "[default]", f"access_key = {r.S(g_aws_key_id(rng), 'aws_access_key_id')}",
                f"secret_key = {r.S(g_aws_secret(rng), 'aws_secret_access_key')}", "host_base = s3.eu-west-1.amazonaws.com",
                "signature_v2 = False"]
    else:
        out.append(f"{p}cat ~/.config/rclone/rclone.conf ~/.git-credentials")
        obscured = b64u(rbytes(rng, rng.randint(20, 40)))
        out += ["[backup-b2]", "type = b2", f"account = {r.D(rs(rng, HEX, 12), 'account_id')}",
                f"key = {r.S('K00' + rs(rng, ALNUM + '/+', 28), 'backblaze_application_key')}", "", "[nas]", "type = sftp",
                f"host = {r.D(private_ip(rng), 'private_ip')}", "user = backup", f"pass = {r.S(obscured, 'rclone_obscured_password')}"]
        spec = SPEC_BY_KIND[rng.choice(["github_classic_pat", "gitlab_pat", "bitbucket_app_password"])]
        host = {"gitlab_pat": "gitlab.com", "bitbucket_app_password": "bitbucket.org"}.get(spec.kind, "github.com")
        out.append(f"https://ci-bot:{r.secret(spec)[1]}@{host}")
    return "\n".join(out)


# ---------------------------------------------------------------- plan, checks, output

StyleFn = Callable[[Row, int], str]

# (style, function, rows, language mix): "tech" rows are mostly English with a line of prose in another
# language now and then; "mixed" less English; "prose" rows cycle through every language
STYLES: list[tuple[str, StyleFn, int, str]] = [
    ("shell_session", st_shell_session, 18, "tech"),
    ("env_dump", st_env_dump, 16, "tech"),
    ("secret_manager_cli", st_secret_cli, 18, "tech"),
    ("http_dump", st_http_dump, 16, "tech"),
    ("api_client_export", st_api_client_export, 12, "tech"),
    ("compose_helm_values", st_compose_helm, 15, "tech"),
    ("terraform_state", st_terraform_state, 12, "tech"),
    ("ansible_vars", st_ansible_vars, 12, "tech"),
    ("ci_log", st_ci_log, 15, "tech"),
    ("stack_trace", st_stack_trace, 16, "tech"),
    ("logfmt_log", st_logfmt_log, 14, "tech"),
    ("json_log", st_json_log, 14, "tech"),
    ("kv_table", st_kv_table, 14, "tech"),
    ("box_table", st_box_table, 12, "mixed"),
    ("markdown_table", st_markdown_table, 14, "mixed"),
    ("csv_export", st_csv_export, 16, "mixed"),
    ("sql_result", st_sql_result, 14, "tech"),
    ("yaml_block", st_yaml_block, 15, "tech"),
    ("name_value_pairs", st_name_value, 12, "tech"),
    ("agent_claude_code", st_agent_claude, 16, "prose"),
    ("agent_codex", st_agent_codex, 14, "prose"),
    ("agent_json_messages", st_agent_json, 16, "prose"),
    ("chat_support", st_chat_support, 18, "prose"),
    ("email_signature", st_email, 18, "prose"),
    ("multilingual_notes", st_multilingual_notes, 24, "prose"),
    ("wrapped_terminal", st_wrapped_terminal, 18, "tech"),
    ("git_diff", st_git_diff, 14, "tech"),
    ("k8s_manifest", st_k8s_manifest, 12, "tech"),
    ("source_code", st_source_code, 15, "tech"),
    ("html_xml", st_html_xml, 12, "tech"),
    ("dotfile_credentials", st_dotfile_credentials, 14, "tech"),
]

CLEAN_SHARE = 0.30


def pick_lang(rng: random.Random, mix: str, i: int, offset: int) -> str:
    if mix == "prose":
        return LANGS[(i + offset) % len(LANGS)]
    english = 0.55 if mix == "tech" else 0.35
    if rng.random() < english:
        return "en"
    return rng.choice(LANGS[1:])


# ---- independent checks of the check digits the generators compute


def _digits(s: str) -> list[int]:
    return [int(c) for c in s if c.isdigit()]


def check_national_id(kind: str, value: str) -> bool:
    d = _digits(value)
    if kind in ("card_number", "ca_sin", "sa_national_id", "ae_emirates_id"):
        return luhn_ok(value)
    if kind == "iban":
        return iban_ok(value)
    if kind == "in_aadhaar":
        return len(d) == 12 and verhoeff_ok("".join(map(str, d)))
    if kind == "de_steuer_id":
        s = "".join(map(str, d))
        return len(s) == 11 and mod11_10(s[:10]) == s[10] and Counter(s[:10]).most_common(1)[0][1] in (2, 3)
    if kind == "fr_nir":
        s = "".join(map(str, d))
        return 97 - int(s[:13]) % 97 == int(s[13:])
    if kind in ("es_dni", "es_nie"):
        num = value[:-1].replace("X", "0").replace("Y", "1").replace("Z", "2")
        return DNI_LETTERS[int(num) % 23] == value[-1]
    if kind == "br_cpf":
        ok = True
        for n in (9, 10):
            s = sum(v * w for v, w in zip(d[:n], range(n + 1, 1, -1), strict=True)) % 11
            ok &= d[n] == (0 if s < 2 else 11 - s)
        return ok
    if kind == "br_cnpj":
        ok = True
        for n, w in ((12, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]), (13, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])):
            s = sum(a * b for a, b in zip(d[:n], w, strict=True)) % 11
            ok &= d[n] == (0 if s < 2 else 11 - s)
        return ok
    if kind == "pt_nif":
        s = sum(v * w for v, w in zip(d[:8], range(9, 1, -1), strict=True)) % 11
        return d[8] == (0 if s < 2 else 11 - s)
    if kind == "pl_pesel":
        return sum(v * w for v, w in zip(d, [1, 3, 7, 9, 1, 3, 7, 9, 1, 3, 1], strict=True)) % 10 == 0
    if kind == "kr_rrn":
        s = sum(v * w for v, w in zip(d[:12], [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5], strict=True))
        return (11 - s % 11) % 10 == d[12]
    if kind == "nl_bsn":
        return (sum(v * w for v, w in zip(d[:8], range(9, 1, -1), strict=True)) - d[8]) % 11 == 0
    if kind == "it_codice_fiscale":
        return len(value) == 16 and cf_check(value[:15]) == value[15]
    if kind == "mx_curp":
        s = sum(CURP_ALPHA.index(c) * (18 - i) for i, c in enumerate(value[:17]))
        return str((10 - s % 10) % 10) == value[17]
    if kind == "au_tfn":
        return sum(v * w for v, w in zip(d, [1, 4, 3, 7, 5, 8, 6, 9, 10], strict=True)) % 11 == 0
    if kind == "se_personnummer":
        return luhn_ok("".join(map(str, d[-10:])))
    if kind == "dk_cpr":
        return sum(v * w for v, w in zip(d, [4, 3, 2, 7, 6, 5, 4, 3, 2, 1], strict=True)) % 11 == 0
    if kind == "fi_henkilotunnus":
        return "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(value[:6] + value[7:10]) % 31] == value[10]
    if kind == "cn_resident_id":
        w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
        return "10X98765432"[sum(v * x for v, x in zip(d[:17], w, strict=True)) % 11] == value[17]
    if kind == "tr_tc_kimlik":
        return d[0] != 0 and ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10 == d[9] and sum(d[:10]) % 10 == d[10]
    if kind == "jp_my_number":
        s = sum(d[11 - n] * (n + 1 if n <= 6 else n - 5) for n in range(1, 12))
        return d[11] == (0 if s % 11 <= 1 else 11 - s % 11)
    if kind == "ru_snils":
        s = sum(v * w for v, w in zip(d[:9], range(9, 0, -1), strict=True))
        c = s if s < 100 else (0 if s in (100, 101) else s % 101 % 100)
        return c == d[9] * 10 + d[10]
    if kind == "ru_inn":
        w1 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
        w2 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
        return (sum(a * b for a, b in zip(d[:10], w1, strict=True)) % 11 % 10 == d[10]
                and sum(a * b for a, b in zip(d[:11], w2, strict=True)) % 11 % 10 == d[11])
    if kind == "ua_rnokpp":
        return sum(v * w for v, w in zip(d[:9], [-1, 5, 7, 9, 4, 6, 10, 5, 7], strict=True)) % 11 % 10 == d[9]
    if kind == "be_national_number":
        body = "".join(map(str, d[:9]))
        return any(97 - int(p + body) % 97 == d[9] * 10 + d[10] for p in ("", "2"))
    if kind == "uk_nino":
        compact = value.replace(" ", "")
        return len(compact) == 9 and compact[:2].isalpha() and compact[2:8].isdigit() and compact[8] in "ABCD"
    if kind == "us_ssn":
        a, g, s = value.split("-")
        return a not in ("000", "666") and not a.startswith("9") and g != "00" and s != "0000"
    if kind == "vn_cccd":
        return len(d) == 12
    if kind == "vat_number":
        cc, body = value[:2], value[2:]
        if cc == "DE":
            return mod11_10(body[:8]) == body[8]
        if cc == "FR":
            return luhn_ok(body[2:]) and int(body[:2]) == (12 + 3 * (int(body[2:]) % 97)) % 97
        if cc == "IT":
            return luhn_ok(body)
        if cc == "ES":
            return DNI_LETTERS[int(body[:8]) % 23] == body[8]
        if cc == "NL":
            return check_national_id("nl_bsn", body[:9])
        if cc == "BE":
            return 97 - int(body[:8]) % 97 == int(body[8:])
        if cc == "PL":
            return sum(int(a) * b for a, b in zip(body[:9], [6, 5, 7, 2, 3, 4, 5, 6, 7], strict=True)) % 11 == int(body[9])
        if cc == "SE":
            return luhn_ok(body[:10])
        if cc == "PT":
            return check_national_id("pt_nif", body)
        if cc == "GB":
            return (sum(int(a) * b for a, b in zip(body[:7], range(8, 1, -1), strict=True)) + int(body[7:])) % 97 == 0
        return False
    return True


TOKEN_CHECKSUM_PREFIXES = ("ghp_", "gho_", "ghs_", "npm_")


def check_token(value: str) -> bool:
    for pre in TOKEN_CHECKSUM_PREFIXES:
        if value.startswith(pre) and len(value) == len(pre) + 36:
            body = value[len(pre):len(pre) + 30]
            return crc32_b62(body) == value[-6:]
    return True


def occurrences(text: str, form: str) -> list[int]:
    out = []
    at = text.find(form)
    while at >= 0:
        out.append(at)
        at = text.find(form, at + 1)
    return out


def check_row(row: dict[str, object]) -> list[str]:
    text = str(row["text"])
    errs: list[str] = []
    cls_of: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    for cls in CLASSES:
        labels = row[cls]
        assert isinstance(labels, list)
        for lab in labels:
            v, kind = lab["value"], lab["kind"]
            if v in cls_of and cls_of[v] != cls:
                errs.append(f"{v[:40]!r} is both {cls_of[v]} and {cls}")
            cls_of[v] = cls
            if "pieces" in lab:
                ps = lab["pieces"]
                target = lab.get("shown", v)
                if any(len(p) < 6 or p not in text for p in ps):
                    errs.append(f"{kind}: a piece is short or missing")
                if "\n" in target:
                    rebuilt = [ln for ln in target.split("\n") if len(ln) >= 6] == ps
                else:
                    rebuilt = "".join(ps) == target
                if not rebuilt:
                    errs.append(f"{kind}: pieces do not rebuild the value")
                forms = ps
            elif "shown" in lab:
                if lab["shown"] not in text or lab["shown"] == v:
                    errs.append(f"{kind}: shown form missing ({lab['shown'][:40]!r})")
                forms = [lab["shown"]]
            else:
                if v not in text:
                    errs.append(f"{kind}: value missing ({v[:40]!r})")
                forms = [v]
            if not v.strip():
                errs.append(f"{kind}: empty value")
            if cls in ("secrets", "pii"):
                for f in forms:
                    spans += [(a, a + len(f)) for a in occurrences(text, f)]
            if cls == "pii" and not check_national_id(kind, v):
                errs.append(f"{kind}: check digit wrong ({v!r})")
            if cls == "secrets" and not check_token(v):
                errs.append(f"{kind}: token checksum wrong ({v!r})")
    for lab in row["decoys"]:  # type: ignore[attr-defined]
        if "pieces" in lab:
            continue
        form = lab.get("shown", lab["value"])
        occ = occurrences(text, form)
        if occ and all(any(a < e and a + len(form) > s for s, e in spans) for a in occ):
            errs.append(f"decoy {lab['kind']} {form[:40]!r} only shows inside a secret or personal value")
    return errs


def build(seed: int) -> list[dict[str, object]]:
    master = random.Random(seed)
    reset_deck(seed)
    rows: list[dict[str, object]] = []
    for style, fn, n, mix in STYLES:
        plan_rng = random.Random(f"{seed}:{style}:plan")
        clean_idx = set(plan_rng.sample(range(n), round(n * CLEAN_SHARE)))
        offset = plan_rng.randrange(len(LANGS))
        for i in range(n):
            rng = random.Random(f"{seed}:{style}:{i}")
            lang = pick_lang(rng, mix, i, offset)
            r = Row(rng, style, lang, i in clean_idx)
            text = fn(r, i)
            row: dict[str, object] = {"id": "", "style": style, "lang": lang, "text": text}
            for cls in CLASSES:
                row[cls] = [lab.as_json() for lab in r.labels[cls]]
            # a short decoy that shows up more than once says nothing about what the scrubber kept: unlabel it
            row["decoys"] = [d.as_json() for d in r.labels["decoys"]
                             if len(d.form()) >= 5 or d.pieces or len(occurrences(text, d.form())) == 1]
            errs = check_row(row)
            if errs:
                raise AssertionError(f"{style}[{i}] lang={lang}: " + "; ".join(errs) + "\n" + text[:3000])
            rows.append(row)
    master.shuffle(rows)
    for k, row in enumerate(rows):
        row["id"] = f"fsb-{k + 1:04d}"
    return rows


def stats(rows: list[dict[str, object]]) -> str:
    out = []
    n = len(rows)
    no_secret = sum(1 for r in rows if not r["secrets"])
    out.append(f"rows: {n}; rows without a secret: {no_secret} ({100 * no_secret / n:.1f}%)")
    lens = sorted(len(str(r["text"])) for r in rows)
    out.append(f"text length: min {lens[0]}, median {lens[n // 2]}, max {lens[-1]}; "
               f"200-3000: {sum(1 for x in lens if 200 <= x <= 3000)}, over 3000: {sum(1 for x in lens if x > 3000)}, "
               f"under 200: {sum(1 for x in lens if x < 200)}")
    for key in ("style", "lang"):
        c = Counter(str(r[key]) for r in rows)
        out.append(f"\n{key} ({len(c)}):")
        out += [f"  {k}: {v}" for k, v in sorted(c.items())]
    for cls in CLASSES:
        c = Counter()
        for r in rows:
            for lab in r[cls]:  # type: ignore[attr-defined]
                c[lab["kind"]] += 1
        shown = sum(1 for r in rows for lab in r[cls] if "shown" in lab)  # type: ignore[attr-defined]
        pieces = sum(1 for r in rows for lab in r[cls] if "pieces" in lab)  # type: ignore[attr-defined]
        out.append(f"\n{cls}: {sum(c.values())} labels, {len(c)} kinds, {shown} with shown, {pieces} with pieces")
        out += [f"  {k}: {v}" for k, v in sorted(c.items())]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "set.jsonl")
    ap.add_argument("--stats", action="store_true", help="print counts per style, language and kind")
    args = ap.parse_args()
    rows = build(args.seed)
    n = len(rows)
    share = sum(1 for r in rows if not r["secrets"]) / n
    assert n >= 400 and 0.25 <= share <= 0.35, (n, share)
    styles = Counter(str(r["style"]) for r in rows)
    assert len(styles) >= 25 and min(styles.values()) >= 10, styles
    assert len({str(r["lang"]) for r in rows}) >= 12
    with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {n} rows to {args.out}")
    if args.stats:
        print(stats(rows))


if __name__ == "__main__":
    main()
