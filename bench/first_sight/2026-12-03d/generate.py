#!/usr/bin/env python3
"""Blind labelled test set for a secret / personal-data scrubber (fsd set).

Stdlib only. Seeded. Run: python3 generate.py [--seed N] [--out set.jsonl] [--stats]
"""

import argparse
import base64
import collections
import hashlib
import json
import random
import string
import sys
import unicodedata
import urllib.parse
import zlib
from xml.sax.saxutils import escape as xml_escape

R = random.Random()

B62 = string.ascii_letters + string.digits
B64URL = B62 + "-_"
B64 = B62 + "+/"
HEX = "0123456789abcdef"
UPPER_DIG = string.ascii_uppercase + string.digits
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
SYMS = "!#$%&*+-=?@^_~.,:;"


def rs(n, alpha=B62):
    return "".join(R.choice(alpha) for _ in range(n))


def pick(seq):
    return R.choice(seq)


def chance(p):
    return R.random() < p


def b64(data):
    return base64.b64encode(data).decode()


def b64url_nopad(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b62num(n, width):
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = B62_ORDERED[r] + out
    return out.rjust(width, "0")


B62_ORDERED = string.digits + string.ascii_uppercase + string.ascii_lowercase


def deaccent(s):
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


# ---------------------------------------------------------------- secrets

def gh_token(prefix="ghp_"):
    body = rs(30)
    crc = zlib.crc32(body.encode())
    return prefix + body + b62num(crc, 6)


def gh_fine():
    return f"github_pat_11{rs(20, UPPER_DIG)}_{rs(59)}"


def aws_key_id(prefix="AKIA"):
    return prefix + rs(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def aws_secret():
    return rs(40, B64)


def aws_session():
    return "FwoGZXIvYXdzE" + rs(R.randint(200, 320), B64)


def slack_bot():
    return f"xoxb-{rs(12, string.digits)}-{rs(13, string.digits)}-{rs(24)}"


def slack_user():
    return f"xoxp-{rs(12, string.digits)}-{rs(12, string.digits)}-{rs(13, string.digits)}-{rs(32, HEX)}"


def slack_hook_path():
    return f"T{rs(9, UPPER_DIG)}/B{rs(10, UPPER_DIG)}/{rs(24)}"


def stripe_key(kind="sk_live_"):
    return kind + rs(pick([24, 99]))


def openai_key():
    return f"sk-proj-{rs(58, B64URL)}T3BlbkFJ{rs(58, B64URL)}"


def anthropic_key():
    return f"sk-ant-api03-{rs(93, B64URL)}AA"


def google_api_key():
    return "AIza" + rs(35, B64URL)


def gitlab_pat():
    return "glpat-" + rs(20, B64URL)


def npm_token():
    return "npm_" + rs(36)


def pypi_token():
    return "pypi-AgEIcHlwaS5vcmc" + rs(R.randint(60, 140), B64URL)


def sendgrid_key():
    return f"SG.{rs(22, B64URL)}.{rs(43, B64URL)}"


def hf_token():
    return "hf_" + rs(34, string.ascii_letters)


def do_token():
    return "dop_v1_" + rs(64, HEX)


def shopify_token():
    return "shpat_" + rs(32, HEX)


def vault_token():
    return "hvs." + rs(R.choice([24, 91]))


def doppler_token():
    return f"dp.st.{pick(['prd', 'stg', 'dev'])}.{rs(40)}"


def telegram_token():
    return f"{R.randint(100000000, 7999999999)}:AA{rs(33, B64URL)}"


def discord_bot():
    uid = str(R.randint(10**17, 10**18 - 1))
    return f"{b64url_nopad(uid.encode())}.{rs(6, B64URL)}.{rs(38, B64URL)}"


def azure_storage_key():
    return b64(rbytes(64))


def azure_client_secret():
    return f"{rs(3)}8Q~{rs(31, B62 + '_.~-')}"


def mailgun_key():
    return "key-" + rs(32, HEX)


def hex_key(n=32):
    return rs(n, HEX)


def jwt(name=None, email=None):
    header = b64url_nopad(json.dumps({"alg": pick(["HS256", "RS256"]), "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {"sub": str(R.randint(10000, 999999)), "iat": R.randint(1700000000, 1760000000)}
    claims["exp"] = claims["iat"] + pick([900, 3600, 86400])
    if name:
        claims["name"] = name
    if email:
        claims["email"] = email
    claims["scope"] = pick(["read write", "admin", "openid profile email", "api:all"])
    payload = b64url_nopad(json.dumps(claims, separators=(",", ":"), ensure_ascii=False).encode())
    return f"{header}.{payload}.{rs(43, B64URL)}"


def password_human():
    words = ["Sommer", "Bailey", "Dragon", "Kasia", "Marseille", "Ronaldo", "Sakura", "Monkey", "Lisboa",
             "Fenerbahce", "Zlatan", "Pikachu", "Barcelona", "Mustang", "Schalke", "Natasha", "Chelsea"]
    return f"{pick(words)}{pick(['', '19', '20'])}{R.randint(0, 99):02d}{pick(['!', '', '#', '?', '$', '.'])}"


def password_generated(n=None):
    n = n or R.randint(14, 28)
    while True:
        p = rs(n, B62 + SYMS)
        if any(c in SYMS for c in p) and any(c.isdigit() for c in p):
            return p


def passphrase():
    words = ["correct", "horse", "battery", "staple", "purple", "monkey", "dishwasher", "river", "lantern",
             "orbit", "velvet", "cactus", "thunder", "marble", "pepper", "glacier", "violin", "harbor"]
    return " ".join(R.sample(words, R.randint(4, 5)))


def password_any():
    r = R.random()
    if r < 0.4:
        return password_human()
    if r < 0.85:
        return password_generated()
    return passphrase()


def password_urlsafe():
    return pick([password_human().rstrip("#?$."), rs(R.randint(12, 24))])


def totp_seed():
    return rs(32, B32)


def recovery_codes(n=8):
    return [f"{rs(4, 'abcdefghjkmnpqrstuvwxyz23456789')}-{rs(4, 'abcdefghjkmnpqrstuvwxyz23456789')}" for _ in range(n)]


def django_secret():
    return "django-insecure-" + rs(50, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)")


def pem_body(nbytes, width=64):
    data = b64(rbytes(nbytes))
    lines = [data[i:i + width] for i in range(0, len(data), width)]
    if len(lines[-1]) < 8:
        lines[-2] = lines[-2] + lines[-1]
        lines = lines[:-1]
        lines = [lines[0]] + lines[1:]
        joined = "".join(lines)
        lines = [joined[i:i + width] for i in range(0, len(joined), width)]
        if len(lines[-1]) < 8:
            lines[-1] = lines[-1] + "AAAAAAAA"
    return lines


def pem_key(kind=None):
    kind = kind or pick(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"])
    if kind == "OPENSSH PRIVATE KEY":
        lines = pem_body(R.choice([300, 390]), 70)
        lines[0] = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAA" + lines[0][:14]
    elif kind == "EC PRIVATE KEY":
        lines = pem_body(121)
        lines[0] = "MHcCAQEEI" + lines[0][9:]
    else:
        lines = pem_body(pick([608, 1190]))
        prefix = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" if kind == "PRIVATE KEY" else "MIIEowIBAAKCAQEA"
        lines[0] = prefix + lines[0][len(prefix):]
    return [f"-----BEGIN {kind}-----"] + lines + [f"-----END {kind}-----"]


def pgp_key():
    lines = pem_body(700, 64)
    return ["-----BEGIN PGP PRIVATE KEY BLOCK-----", "", "lQOYBG" + lines[0][6:]] + lines[1:] + [
        "=" + rs(4, B64), "-----END PGP PRIVATE KEY BLOCK-----"]


# ---------------------------------------------------------------- decoys

def sha1():
    return rs(40, HEX)


def sha256hex():
    return rs(64, HEX)


def uuid4():
    h = rs(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{pick('89ab')}{h[17:20]}-{h[20:]}"


def ts(year=2026):
    return f"{year}-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}T{R.randint(0, 23):02d}:{R.randint(0, 59):02d}:" \
           f"{R.randint(0, 59):02d}.{R.randint(0, 999):03d}Z"


def internal_ip():
    return pick([f"10.{R.randint(0, 255)}.{R.randint(0, 255)}.{R.randint(1, 254)}",
                 f"172.{R.randint(16, 31)}.{R.randint(0, 255)}.{R.randint(1, 254)}",
                 f"192.168.{R.randint(0, 255)}.{R.randint(1, 254)}"])


def public_ip():
    while True:
        a = R.randint(2, 223)
        if a not in (10, 127, 169, 172, 192):
            return f"{a}.{R.randint(0, 255)}.{R.randint(0, 255)}.{R.randint(1, 254)}"


def version():
    return f"{R.randint(0, 9)}.{R.randint(0, 30)}.{R.randint(0, 20)}"


def aws_account():
    return rs(12, string.digits)


def ssh_pub():
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(43, B64)


def ssh_fp():
    return "SHA256:" + rs(43, B64)


def company():
    return pick(["Nordwind Logistik GmbH", "Acme Retail", "Bluefin Analytics", "Kestrel Health", "Papyrus SA",
                 "Orbital Foods Ltd", "Tanuki Systems", "Lumen & Co", "Vistula Software sp. z o.o.", "Atlas Freight",
                 "Hanbit Commerce", "Sever Telecom", "Cedar Clinic Group", "Minh Phat Trading", "Ostrava Steelworks"])


def host():
    return f"{pick(['api', 'db', 'cache', 'auth', 'billing', 'search', 'mq', 'gw'])}-" \
           f"{pick(['prod', 'stg', 'dev', 'eu1', 'us2'])}-{R.randint(1, 9)}." \
           f"{pick(['internal', 'svc.cluster.local', 'corp.example.net', 'eu-central-1.rds.amazonaws.com'])}"


USER_AGENTS = ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X)", "curl/8.5.0",
               "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"]

MASKS = ["****", "********", "[MASKED]", "<your-token>", "${SECRET}", "changeme", "REDACTED", "***", "<redacted>",
         "xxxxxxxxxxxx", "{{ .Values.password }}", "<PASSWORD>", "${DB_PASSWORD}", "%PASSWORD%", "TODO"]


TOKEN_PREFIXES = ("sk-", "sk_", "rk_", "ghp_", "gho_", "github_pat_", "xox", "glpat-", "npm_", "hf_", "AKIA", "pypi-",
                  "SG.", "dop_v1_", "shpat_", "hvs.", "dp.st.", "whsec_", "AIza")


def mask_for(value):
    if chance(0.35) and value.startswith(TOKEN_PREFIXES):
        cut = next(len(p) for p in TOKEN_PREFIXES if value.startswith(p))
        return f"{value[:cut]}...{value[-4:]}"
    return pick(MASKS)


# ---------------------------------------------------------------- people and locales

NAMES = {
    "en": (["James", "Olivia", "Marcus", "Priya", "Hannah", "Tyrone"], ["Walker", "Okafor", "Bennett", "Sullivan",
                                                                        "Nguyen"]),
    "de": (["Jürgen", "Anja", "Lukas", "Sabine", "Dieter", "Mia"], ["Müller", "Schröder", "Hoffmann", "Weißmann",
                                                                    "Krause"]),
    "fr": (["Amélie", "Théo", "Sébastien", "Chloé", "Mathieu"], ["Lefèvre", "Dubois", "Moreau", "Girard", "Rousseau"]),
    "es": (["Lucía", "Javier", "Álvaro", "Carmen", "Sofía"], ["García", "Martínez", "Fernández", "López", "Ruiz"]),
    "pt": (["João", "Mariana", "Thiago", "Beatriz", "Gonçalo"], ["Silva", "Oliveira", "Santos", "Conceição", "Souza"]),
    "it": (["Giulia", "Alessandro", "Chiara", "Matteo", "Francesca"], ["Rossi", "Bianchi", "Esposito", "Ricci",
                                                                       "Greco"]),
    "nl": (["Sanne", "Daan", "Femke", "Joris", "Lotte"], ["de Vries", "Jansen", "van Dijk", "Bakker", "Visser"]),
    "pl": (["Małgorzata", "Krzysztof", "Agnieszka", "Paweł", "Zofia"], ["Kowalski", "Wiśniewska", "Nowak", "Wójcik",
                                                                        "Zieliński"]),
    "sv": (["Linnéa", "Oskar", "Astrid", "Björn", "Elsa"], ["Andersson", "Lindqvist", "Johansson", "Öberg", "Nilsson"]),
    "cs": (["Jiří", "Petra", "Tomáš", "Kateřina", "Lukáš"], ["Novák", "Dvořáková", "Procházka", "Černý", "Svobodová"]),
    "tr": (["Ayşe", "Mehmet", "Elif", "Burak", "Zeynep"], ["Yılmaz", "Kaya", "Demir", "Şahin", "Çelik"]),
    "ru": (["Алексей", "Екатерина", "Дмитрий", "Ольга", "Сергей"], ["Иванов", "Смирнова", "Кузнецов", "Попова",
                                                                    "Соколов"]),
    "uk": (["Олена", "Тарас", "Андрій", "Ірина", "Богдан"], ["Шевченко", "Коваленко", "Бондаренко", "Ткаченко",
                                                             "Мельник"]),
    "ja": (["太郎", "花子", "健太", "美咲", "翔太"], ["山田", "佐藤", "鈴木", "高橋", "田中"]),
    "zh": (["伟", "芳", "娜", "强", "静"], ["王", "李", "张", "刘", "陈"]),
    "ko": (["민준", "서연", "지훈", "하은", "도윤"], ["김", "이", "박", "최", "정"]),
    "ar": (["محمد", "فاطمة", "أحمد", "ليلى", "يوسف"], ["الحسن", "العتيبي", "المصري", "الخطيب", "حداد"]),
    "hi": (["राहुल", "प्रिया", "अमित", "सुनीता", "विकास"], ["शर्मा", "वर्मा", "गुप्ता", "सिंह", "पटेल"]),
    "he": (["יוסי", "נועה", "אבי", "מיכל", "דניאל"], ["כהן", "לוי", "מזרחי", "פרץ", "ביטון"]),
    "th": (["สมชาย", "สุดา", "ปิยะ", "วรรณา", "ธนา"], ["ศรีสุข", "แก้วมณี", "ทองดี", "สุวรรณ", "บุญมา"]),
    "vi": (["Nguyễn Văn", "Trần Thị", "Lê Minh", "Phạm Thu", "Hoàng Đức"], ["An", "Hương", "Tuấn", "Lan", "Phúc"]),
    "id": (["Budi", "Siti", "Agus", "Dewi", "Rizky"], ["Santoso", "Rahmawati", "Wijaya", "Kusuma", "Hidayat"]),
}

ROMAN = {
    "ru": (["aleksey", "ekaterina", "dmitry", "olga", "sergey"], ["ivanov", "smirnova", "kuznetsov", "popova",
                                                                  "sokolov"]),
    "uk": (["olena", "taras", "andriy", "iryna", "bohdan"], ["shevchenko", "kovalenko", "bondarenko", "tkachenko",
                                                             "melnyk"]),
    "ja": (["taro", "hanako", "kenta", "misaki", "shota"], ["yamada", "sato", "suzuki", "takahashi", "tanaka"]),
    "zh": (["wei", "fang", "na", "qiang", "jing"], ["wang", "li", "zhang", "liu", "chen"]),
    "ko": (["minjun", "seoyeon", "jihoon", "haeun", "doyun"], ["kim", "lee", "park", "choi", "jung"]),
    "ar": (["mohammed", "fatima", "ahmed", "layla", "youssef"], ["alhassan", "alotaibi", "almasri", "alkhatib",
                                                                 "haddad"]),
    "hi": (["rahul", "priya", "amit", "sunita", "vikas"], ["sharma", "verma", "gupta", "singh", "patel"]),
    "he": (["yossi", "noa", "avi", "michal", "daniel"], ["cohen", "levi", "mizrahi", "peretz", "biton"]),
    "th": (["somchai", "suda", "piya", "wanna", "thana"], ["srisuk", "kaewmanee", "thongdee", "suwan", "boonma"]),
}

DOMAINS = {
    "en": ["gmail.com", "outlook.com", "yahoo.com"], "de": ["web.de", "gmx.de", "t-online.de"],
    "fr": ["orange.fr", "free.fr", "laposte.net"], "es": ["gmail.com", "hotmail.es", "telefonica.net"],
    "pt": ["gmail.com", "uol.com.br", "sapo.pt"], "it": ["libero.it", "virgilio.it", "gmail.com"],
    "nl": ["ziggo.nl", "kpnmail.nl", "gmail.com"], "pl": ["wp.pl", "onet.pl", "o2.pl"],
    "sv": ["telia.com", "gmail.com", "bredband.net"], "cs": ["seznam.cz", "email.cz", "centrum.cz"],
    "tr": ["gmail.com", "hotmail.com.tr", "yandex.com.tr"], "ru": ["yandex.ru", "mail.ru", "rambler.ru"],
    "uk": ["ukr.net", "i.ua", "gmail.com"], "ja": ["docomo.ne.jp", "yahoo.co.jp", "gmail.com"],
    "zh": ["qq.com", "163.com", "126.com"], "ko": ["naver.com", "daum.net", "kakao.com"],
    "ar": ["gmail.com", "hotmail.com", "yahoo.com"], "hi": ["rediffmail.com", "gmail.com", "yahoo.co.in"],
    "he": ["walla.co.il", "gmail.com", "bezeqint.net"], "th": ["hotmail.co.th", "gmail.com", "truemail.co.th"],
    "vi": ["gmail.com", "yahoo.com.vn", "fpt.vn"], "id": ["gmail.com", "yahoo.co.id", "telkom.net"],
}

LANGS = list(NAMES)
PROSE_LANGS = [lang for lang in LANGS if lang != "en"]


def d(n):
    return rs(n, string.digits)


def phone(lang):
    f = {
        "en": lambda: pick([f"+1 {R.randint(201, 989)} {d(3)} {d(4)}", f"({R.randint(201, 989)}) {d(3)}-{d(4)}",
                            f"+44 7{d(3)} {d(6)}", f"07{d(3)} {d(6)}"]),
        "de": lambda: pick([f"+49 1{pick('567')}{d(1)} {d(8)}", f"0{pick(['30', '89', '40', '221'])} {d(7)}",
                            f"+49 (0)1{pick('567')}{d(1)}-{d(7)}"]),
        "fr": lambda: pick([f"+33 {pick('67')} {d(2)} {d(2)} {d(2)} {d(2)}",
                            f"0{pick('67')} {d(2)} {d(2)} {d(2)} {d(2)}"]),
        "es": lambda: pick([f"+34 6{d(2)} {d(2)} {d(2)} {d(2)}", f"6{d(2)} {d(3)} {d(3)}"]),
        "pt": lambda: pick([f"+55 11 9{d(4)}-{d(4)}", f"(21) 9{d(4)}-{d(4)}", f"+351 91{d(1)} {d(3)} {d(3)}"]),
        "it": lambda: pick([f"+39 3{d(2)} {d(3)} {d(4)}", f"3{d(2)} {d(7)}"]),
        "nl": lambda: pick([f"+31 6 {d(8)}", f"06-{d(8)}"]),
        "pl": lambda: pick([f"+48 {pick('5678')}{d(2)} {d(3)} {d(3)}", f"{pick('5678')}{d(2)}-{d(3)}-{d(3)}"]),
        "sv": lambda: pick([f"+46 70 {d(3)} {d(2)} {d(2)}", f"07{pick('0236')}-{d(3)} {d(2)} {d(2)}"]),
        "cs": lambda: pick([f"+420 {pick('67')}{d(2)} {d(3)} {d(3)}", f"{pick('67')}{d(2)} {d(3)} {d(3)}"]),
        "tr": lambda: pick([f"+90 5{d(2)} {d(3)} {d(2)} {d(2)}", f"0 (5{d(2)}) {d(3)} {d(2)} {d(2)}"]),
        "ru": lambda: pick([f"+7 9{d(2)} {d(3)}-{d(2)}-{d(2)}", f"8 (9{d(2)}) {d(3)}-{d(2)}-{d(2)}"]),
        "uk": lambda: pick([f"+380 {pick(['67', '50', '63', '97'])} {d(3)} {d(4)}",
                            f"0{pick(['67', '50'])} {d(3)} {d(2)} {d(2)}"]),
        "ja": lambda: pick([f"0{pick('789')}0-{d(4)}-{d(4)}", f"+81 {pick('789')}0-{d(4)}-{d(4)}",
                            f"03-{d(4)}-{d(4)}"]),
        "zh": lambda: pick([f"+86 1{pick('3589')}{d(1)} {d(4)} {d(4)}", f"1{pick('3589')}{d(9)}"]),
        "ko": lambda: pick([f"010-{d(4)}-{d(4)}", f"+82 10-{d(4)}-{d(4)}", f"02-{d(3)}-{d(4)}"]),
        "ar": lambda: pick([f"+971 5{pick('0256')} {d(3)} {d(4)}", f"+966 5{d(1)} {d(3)} {d(4)}",
                            f"+20 10 {d(4)} {d(4)}"]),
        "hi": lambda: pick([f"+91 {pick('6789')}{d(4)} {d(5)}", f"0{pick('6789')}{d(4)}{d(5)}"]),
        "he": lambda: pick([f"+972 5{pick('0234')}-{d(3)}-{d(4)}", f"05{pick('0234')}-{d(7)}"]),
        "th": lambda: pick([f"+66 {pick('689')}{d(1)} {d(3)} {d(4)}", f"0{pick('689')}{d(1)}-{d(3)}-{d(4)}"]),
        "vi": lambda: pick([f"+84 9{d(1)} {d(3)} {d(4)}", f"09{d(2)} {d(3)} {d(3)}"]),
        "id": lambda: pick([f"+62 81{d(1)}-{d(4)}-{d(4)}", f"081{d(1)}{d(4)}{d(4)}"]),
    }
    return f[lang]()


KO_STREETS = ['서울특별시 강남구 테헤란로', '부산광역시 해운대구 센텀로', '경기도 성남시 분당구 판교로']

STREETS = {
    "en": lambda: f"{R.randint(1, 999)} {pick(['Maple Avenue', 'Kingsway', 'Elm Street', 'High Street'])}, "
                  f"{pick(['Springfield, IL 62704', 'Leeds LS6 2AB', 'Austin, TX 78701', 'Bristol BS1 4DJ'])}",
    "de": lambda: f"{pick(['Lindenstraße', 'Hauptstr.', 'Am Mühlbach', 'Goethestraße'])} {R.randint(1, 120)}, "
                  f"{R.randint(10115, 99998)} {pick(['Berlin', 'Köln', 'Leipzig', 'Freiburg im Breisgau'])}",
    "fr": lambda: f"{R.randint(1, 80)} {pick(['rue des Lilas', 'avenue Jean Jaurès', 'boulevard Voltaire'])}, "
                  f"{R.randint(10000, 95999)} {pick(['Lyon', 'Paris', 'Nantes', 'Toulouse'])}",
    "es": lambda: f"{pick(['Calle Mayor', 'Avenida de la Constitución', 'Carrer de Mallorca'])} {R.randint(1, 200)}, "
                  f"{pick(['3º B', '1º izq.', 'bajo'])}, {R.randint(10000, 52999):05d}"
                  f" {pick(['Madrid', 'Sevilla', 'Barcelona'])}",
    "pt": lambda: f"{pick(['Rua das Flores', 'Av. Paulista', 'Rua Augusta'])}, {R.randint(1, 2000)}, "
                  f"{pick(['apto 52', 'sala 1203', 'casa 2'])},"
                  f" {pick(['São Paulo - SP', 'Lisboa', 'Porto Alegre - RS'])}",
    "it": lambda: f"{pick(['Via Roma', 'Corso Vittorio Emanuele II', 'Via Garibaldi'])} {R.randint(1, 150)}, "
                  f"{R.randint(10100, 98100)} {pick(['Milano', 'Torino', 'Bologna'])}",
    "nl": lambda: f"{pick(['Kerkstraat', 'Prinsengracht', 'Dorpsweg'])} {R.randint(1, 400)}, "
                  f"{R.randint(1000, 9999)} {rs(2, string.ascii_uppercase)}"
                  f" {pick(['Amsterdam', 'Utrecht', 'Groningen'])}",
    "pl": lambda: f"ul. {pick(['Marszałkowska', 'Długa', 'Piotrkowska'])} {R.randint(1, 200)}/{R.randint(1, 40)}, "
                  f"{R.randint(0, 99):02d}-{R.randint(0, 999):03d} {pick(['Warszawa', 'Kraków', 'Łódź'])}",
    "sv": lambda: f"{pick(['Storgatan', 'Drottninggatan', 'Kungsvägen'])} {R.randint(1, 90)}, "
                  f"{R.randint(100, 999)} {R.randint(10, 99)} {pick(['Stockholm', 'Göteborg', 'Uppsala'])}",
    "cs": lambda: f"{pick(['Vinohradská', 'Husova', 'Masarykova'])} {R.randint(1, 3000)}/{R.randint(1, 60)}, "
                  f"{R.randint(100, 799)} {R.randint(10, 99)} {pick(['Praha 2', 'Brno', 'Ostrava'])}",
    "tr": lambda: f"{pick(['Atatürk Cad.', 'İstiklal Cd.', 'Bağdat Cad.'])} No:{R.randint(1, 300)}"
                  f" D:{R.randint(1, 20)}, "
                  f"{pick(['Kadıköy/İstanbul', 'Çankaya/Ankara', 'Konak/İzmir'])}",
    "ru": lambda: f"г. {pick(['Москва', 'Казань', 'Новосибирск'])}, ул. {pick(['Ленина', 'Тверская', 'Гагарина'])}, "
                  f"д. {R.randint(1, 120)}, кв. {R.randint(1, 300)}",
    "uk": lambda: f"м. {pick(['Київ', 'Львів', 'Харків'])}, вул. {pick(['Хрещатик', 'Шевченка', 'Франка'])}, "
                  f"буд. {R.randint(1, 90)}, кв. {R.randint(1, 200)}",
    "ja": lambda: f"〒{R.randint(100, 999)}-{R.randint(0, 9999):04d} "
                  f"{pick(['東京都新宿区西新宿', '大阪府大阪市北区梅田', '神奈川県横浜市中区'])}"
                  f"{R.randint(1, 9)}-{R.randint(1, 20)}-{R.randint(1, 30)}",
    "zh": lambda: f"{pick(['北京市朝阳区建国路', '上海市浦东新区世纪大道', '广州市天河区天河路'])}{R.randint(1, 999)}号"
                  f"{R.randint(1, 30)}栋{R.randint(101, 2505)}室",
    "ko": lambda: f"{pick(KO_STREETS)} "
                  f"{R.randint(1, 500)}, {R.randint(101, 1505)}호",
    "ar": lambda: f"{pick(['شارع الملك فهد', 'شارع التحرير', 'شارع الشيخ زايد'])}، مبنى {R.randint(1, 90)}، "
                  f"{pick(['الرياض', 'القاهرة', 'دبي'])}",
    "hi": lambda: f"{pick(['फ्लैट', 'मकान नं.'])} {R.randint(1, 500)},"
                  f" {pick(['सेक्टर 15, नोएडा', 'एमजी रोड, बेंगलुरु', 'अंधेरी पूर्व, मुंबई'])}"
                  f" {R.randint(110001, 560100)}",
    "he": lambda: f"{pick(['רחוב הרצל', 'שדרות רוטשילד', 'רחוב יפו'])} {R.randint(1, 150)},"
                  f" {pick(['תל אביב', 'ירושלים', 'חיפה'])}",
    "th": lambda: f"{R.randint(1, 999)}/{R.randint(1, 99)} {pick(['ถนนสุขุมวิท', 'ถนนพหลโยธิน', 'ถนนสีลม'])} "
                  f"{pick(['เขตวัฒนา กรุงเทพฯ 10110', 'เขตบางรัก กรุงเทพฯ 10500'])}",
    "vi": lambda: f"Số {R.randint(1, 300)} {pick(['Nguyễn Trãi', 'Lê Lợi', 'Trần Hưng Đạo'])}, "
                  f"{pick(['Quận 1, TP. Hồ Chí Minh', 'Quận Hoàn Kiếm, Hà Nội', 'Quận Hải Châu, Đà Nẵng'])}",
    "id": lambda: f"Jl. {pick(['Sudirman', 'Gatot Subroto', 'Diponegoro'])} No. {R.randint(1, 200)}, "
                  f"{pick(['Jakarta Selatan 12190', 'Bandung 40115', 'Surabaya 60271'])}",
}


class Person:
    def __init__(self, lang):
        firsts, lasts = NAMES[lang]
        i = R.randrange(len(firsts))
        j = R.randrange(len(lasts))
        self.first = firsts[i]
        self.last = lasts[j]
        if lang in ("ja", "zh", "ko"):
            self.full = f"{self.last}{' ' if lang == 'ja' else ''}{self.first}"
        elif lang == "vi":
            self.full = f"{self.first} {self.last}"
        else:
            self.full = f"{self.first} {self.last}"
        if lang in ROMAN:
            rf = ROMAN[lang][0][i % len(ROMAN[lang][0])]
            rl = ROMAN[lang][1][j % len(ROMAN[lang][1])]
        else:
            rf = deaccent(self.first).lower().replace(" ", "")
            rl = deaccent(self.last).lower().replace(" ", "")
        rf = rf.replace("ł", "l").replace("ı", "i").replace("ø", "o")
        rl = rl.replace("ł", "l").replace("ı", "i").replace("ø", "o")
        self.user = pick([f"{rf[0]}{rl}", f"{rf}.{rl}", f"{rf}", f"{rl}{rf[0]}"])
        sep = pick([".", "_", ""])
        self.email = f"{rf}{sep}{rl}{pick(['', str(R.randint(1, 99))])}@{pick(DOMAINS[lang])}"
        work_domains = ['nordwind-logistik.de', 'bluefin-analytics.io', 'kestrelhealth.com', 'tanuki.co.jp',
                        'vistula.pl']
        self.work_email = f"{rf}.{rl}@{pick(work_domains)}"
        self.phone = phone(lang)
        self.address = STREETS[lang]()
        self.dob = f"{R.randint(1950, 2004)}-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}"
        self.lang = lang


# ---------------------------------------------------------------- national ids with check digits

def luhn_digit(num):
    total = 0
    for i, ch in enumerate(reversed(num)):
        v = int(ch)
        if i % 2 == 0:
            v *= 2
            if v > 9:
                v -= 9
        total += v
    return str((10 - total % 10) % 10)


def card():
    kind = pick(["visa", "mc", "amex"])
    if kind == "visa":
        base = "4" + d(14)
    elif kind == "mc":
        base = pick(["51", "52", "53", "54", "55"]) + d(13)
    else:
        base = pick(["34", "37"]) + d(12)
    num = base + luhn_digit(base)
    if kind == "amex":
        return pick([num, f"{num[:4]} {num[4:10]} {num[10:]}"])
    return pick([num, " ".join(num[i:i + 4] for i in range(0, 16, 4)), "-".join(num[i:i + 4] for i in range(0, 16, 4))])


IBAN_BBAN = {
    "DE": lambda: d(18), "FR": lambda: d(10) + rs(11, UPPER_DIG) + d(2), "ES": lambda: d(20),
    "NL": lambda: pick(["ABNA", "INGB", "RABO"]) + d(10), "PL": lambda: d(24), "IT": lambda: "X" + d(10) + d(12),
    "GB": lambda: pick(["NWBK", "BARC", "HBUK"]) + d(14), "SE": lambda: d(20), "CZ": lambda: d(20),
    "TR": lambda: d(5) + "0" + d(16), "UA": lambda: d(25), "PT": lambda: d(21), "BE": lambda: d(12),
    "AT": lambda: d(16),
}
LANG_IBAN = {"de": "DE", "fr": "FR", "es": "ES", "nl": "NL", "pl": "PL", "it": "IT", "en": "GB", "sv": "SE", "cs": "CZ",
             "tr": "TR", "uk": "UA", "pt": "PT"}


def iban(cc=None):
    cc = cc or pick(list(IBAN_BBAN))
    bban = IBAN_BBAN[cc]()
    rearr = bban + cc + "00"
    num = "".join(str(int(c, 36)) for c in rearr)
    check = 98 - int(num) % 97
    raw = f"{cc}{check:02d}{bban}"
    if chance(0.5):
        return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))
    return raw


def de_taxid():
    while True:
        digits = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(9)]
        counts = collections.Counter(digits)
        if max(counts.values()) in (2, 3) and sum(1 for v in counts.values() if v > 1) == 1:
            break
    product = 10
    for x in digits:
        s = (x + product) % 10
        if s == 0:
            s = 10
        product = (s * 2) % 11
    check = 11 - product
    if check == 10:
        check = 0
    return "".join(map(str, digits)) + str(check)


def fr_nir():
    base = f"{pick('12')}{R.randint(50, 99):02d}{R.randint(1, 12):02d}{R.randint(1, 95):02d}{d(3)}{d(3)}"
    key = 97 - int(base) % 97
    return pick([f"{base}{key:02d}",
                 f"{base[0]} {base[1:3]} {base[3:5]} {base[5:7]} {base[7:10]} {base[10:13]} {key:02d}"])


def es_dni():
    n = R.randint(10000000, 99999999)
    return f"{n}{'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}"


def pl_pesel():
    yy = R.randint(50, 99)
    mm = R.randint(1, 12)
    dd = R.randint(1, 28)
    base = f"{yy:02d}{mm:02d}{dd:02d}{d(4)}"
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    s = sum(int(c) * w[i] for i, c in enumerate(base))
    return base + str((10 - s % 10) % 10)


def nl_bsn():
    while True:
        ds = [R.randint(0, 9) for _ in range(8)]
        s = sum(x * w for x, w in zip(ds, range(9, 1, -1), strict=True))
        last = s % 11
        if last < 10 and ds[0] != 0:
            return "".join(map(str, ds)) + str(last)


def se_pnr():
    base = f"{R.randint(50, 99):02d}{R.randint(1, 12):02d}{R.randint(1, 28):02d}{d(3)}"
    return f"{base[:6]}-{base[6:]}{luhn_digit_plain(base)}"


def luhn_digit_plain(num):
    total = 0
    for i, ch in enumerate(num):
        v = int(ch) * (2 if i % 2 == 0 else 1)
        total += v - 9 if v > 9 else v
    return str((10 - total % 10) % 10)


def br_cpf():
    ds = [R.randint(0, 9) for _ in range(9)]
    for n in (10, 11):
        s = sum(x * w for x, w in zip(ds, range(n, 1, -1), strict=False))
        r = (s * 10) % 11
        ds.append(0 if r == 10 else r)
    t = "".join(map(str, ds))
    return pick([t, f"{t[:3]}.{t[3:6]}.{t[6:9]}-{t[9:]}"])


def cn_id():
    base = (f"{pick(['110105', '310115', '440106', '510104'])}{R.randint(1960, 2004)}"
            f"{R.randint(1, 12):02d}{R.randint(1, 28):02d}{d(3)}")
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    s = sum(int(c) * w[i] for i, c in enumerate(base))
    return base + "10X98765432"[s % 11]


def kr_rrn():
    base = f"{R.randint(60, 99):02d}{R.randint(1, 12):02d}{R.randint(1, 28):02d}{pick('12')}{d(5)}"
    w = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]
    s = sum(int(c) * w[i] for i, c in enumerate(base))
    return f"{base[:6]}-{base[6:]}{(11 - s % 11) % 10}"


def jp_mynumber():
    base = d(11)
    s = 0
    for n in range(1, 12):
        p = int(base[11 - n])
        q = n + 1 if n <= 6 else n - 5
        s += p * q
    r = s % 11
    check = 0 if r <= 1 else 11 - r
    t = base + str(check)
    return pick([t, f"{t[:4]} {t[4:8]} {t[8:]}"])


def tr_tckn():
    ds = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(8)]
    d10 = ((ds[0] + ds[2] + ds[4] + ds[6] + ds[8]) * 7 - (ds[1] + ds[3] + ds[5] + ds[7])) % 10
    ds.append(d10)
    ds.append(sum(ds) % 10)
    return "".join(map(str, ds))


def us_ssn():
    area = R.randint(1, 899)
    while area == 666:
        area = R.randint(1, 899)
    return f"{area:03d}-{R.randint(1, 99):02d}-{R.randint(1, 9999):04d}"


def uk_nino():
    return f"{pick('ABCEGHJKLMNPRSTWXYZ')}{pick('ABCEGHJKLMNPRSTWXYZ')} {d(2)} {d(2)} {d(2)} {pick('ABCD')}"


def cz_rc():
    while True:
        base = f"{R.randint(54, 99):02d}{R.randint(1, 12) + pick([0, 50]):02d}{R.randint(1, 28):02d}{d(3)}"
        check = int(base) % 11
        if check < 10:
            return f"{base[:6]}/{base[6:]}{check}"


def de_kvnr():
    letter = pick(string.ascii_uppercase)
    body = d(8)
    digits = f"{ord(letter) - 64:02d}{body}"
    s = 0
    for i, c in enumerate(digits):
        v = int(c) * (1 if i % 2 == 0 else 2)
        s += v // 10 + v % 10
    return f"{letter}{body}{s % 10}"


def in_pan():
    return f"{rs(3, string.ascii_uppercase)}P{rs(1, string.ascii_uppercase)}{d(4)}{rs(1, string.ascii_uppercase)}"


NATIONAL_ID = {
    "de": ("tax_id", de_taxid), "fr": ("national_id", fr_nir), "es": ("national_id", es_dni),
    "pl": ("national_id", pl_pesel), "nl": ("national_id", nl_bsn), "sv": ("national_id", se_pnr),
    "pt": ("tax_id", br_cpf), "zh": ("national_id", cn_id), "ko": ("national_id", kr_rrn),
    "ja": ("national_id", jp_mynumber), "tr": ("national_id", tr_tckn), "en": ("national_id", us_ssn),
    "cs": ("national_id", cz_rc), "hi": ("tax_id", in_pan), "gb": ("national_id", uk_nino),
}


def national_id(lang):
    kind, fn = NATIONAL_ID.get(lang, pick(list(NATIONAL_ID.values())))
    return kind, fn()


def passport():
    return pick([f"C{rs(8, 'CFGHJKLMNPRTVWXYZ0123456789')}", d(9), f"{rs(2, string.ascii_uppercase)}{d(7)}"])


# ---------------------------------------------------------------- prose

PROSE = {
    "en": ["Can you check why this fails on staging?", "Here is the full output:", "It works locally but not in CI.",
           "I'll rotate the key once this is fixed.", "Thanks!", "Customer {name} ({email}) says login keeps failing.",
           "Contact: {name}, {phone}"],
    "de": ["Kannst du mal schauen, warum das auf Staging fehlschlägt?", "Hier die komplette Ausgabe:",
           "Lokal läuft es, in der CI nicht.", "Den Schlüssel rotiere ich, sobald das behoben ist.", "Danke dir!",
           "Kunde {name} ({email}) meldet, dass der Login ständig scheitert.", "Ansprechpartner: {name}, Tel. {phone}"],
    "fr": ["Tu peux regarder pourquoi ça plante en préprod ?", "Voici la sortie complète :",
           "Ça marche en local mais pas dans la CI.", "Je ferai la rotation de la clé après le correctif.", "Merci !",
           "Le client {name} ({email}) signale que la connexion échoue.", "Contact : {name}, {phone}"],
    "es": ["¿Puedes revisar por qué falla en staging?", "Aquí está la salida completa:",
           "En local funciona, en la CI no.", "Rotaré la clave cuando esto esté arreglado.", "¡Gracias!",
           "El cliente {name} ({email}) dice que el inicio de sesión falla.", "Contacto: {name}, tel. {phone}"],
    "pt": ["Consegue ver por que isso falha em homologação?", "Segue a saída completa:",
           "Localmente funciona, no CI não.", "Vou rotacionar a chave depois da correção.", "Valeu!",
           "O cliente {name} ({email}) diz que o login continua falhando.", "Contato: {name}, {phone}"],
    "it": ["Puoi controllare perché fallisce in staging?", "Ecco l'output completo:", "In locale va, in CI no.",
           "Ruoterò la chiave appena sistemato.", "Grazie!",
           "Il cliente {name} ({email}) segnala che il login fallisce.",
           "Referente: {name}, tel. {phone}"],
    "nl": ["Kun je kijken waarom dit op staging faalt?", "Hier is de volledige output:",
           "Lokaal werkt het, in de CI niet.", "Ik roteer de sleutel zodra dit opgelost is.", "Bedankt!",
           "Klant {name} ({email}) meldt dat inloggen steeds mislukt.", "Contactpersoon: {name}, {phone}"],
    "pl": ["Możesz sprawdzić, czemu to się wywala na stagingu?", "Tu jest pełny output:",
           "Lokalnie działa, na CI nie.", "Klucz zrotuję, jak tylko to naprawimy.", "Dzięki!",
           "Klient {name} ({email}) zgłasza, że logowanie ciągle nie działa.", "Kontakt: {name}, tel. {phone}"],
    "sv": ["Kan du kolla varför det här misslyckas i staging?", "Här är hela utskriften:",
           "Lokalt funkar det, men inte i CI.", "Jag roterar nyckeln när det här är fixat.", "Tack!",
           "Kunden {name} ({email}) säger att inloggningen misslyckas.", "Kontaktperson: {name}, {phone}"],
    "cs": ["Můžeš se podívat, proč to na stagingu padá?", "Tady je celý výstup:", "Lokálně to jede, v CI ne.",
           "Klíč vyměním, jakmile to opravíme.", "Díky!", "Zákazník {name} ({email}) hlásí, že přihlášení nefunguje.",
           "Kontakt: {name}, tel. {phone}"],
    "tr": ["Bunun staging'de neden patladığına bakabilir misin?", "Tam çıktı şu:",
           "Lokalde çalışıyor, CI'da çalışmıyor.",
           "Düzelince anahtarı yenileyeceğim.", "Teşekkürler!",
           "Müşteri {name} ({email}) girişin sürekli başarısız olduğunu söylüyor.",
           "İletişim: {name}, {phone}"],
    "ru": ["Посмотришь, почему это падает на стейджинге?", "Вот полный вывод:", "Локально работает, в CI — нет.",
           "Ключ перевыпущу, как только починим.", "Спасибо!", "Клиент {name} ({email}) пишет, что не может войти.",
           "Контакт: {name}, тел. {phone}"],
    "uk": ["Можеш глянути, чому це падає на стейджингу?", "Ось повний вивід:", "Локально працює, а в CI — ні.",
           "Ключ перевипущу, щойно це виправимо.", "Дякую!", "Клієнт {name} ({email}) пише, що не може увійти.",
           "Контакт: {name}, тел. {phone}"],
    "ja": ["ステージングでこれが失敗する原因を見てもらえますか？", "出力の全文はこちらです：",
           "ローカルでは動くのにCIでは動きません。",
           "修正が終わったらキーはローテーションします。", "よろしくお願いします。",
           "お客様の{name}様（{email}）からログインできないと連絡がありました。",
           "担当：{name}（{phone}）"],
    "zh": ["能帮我看看为什么在预发布环境会失败吗？", "完整输出如下：", "本地正常，CI 里就报错。",
           "修好之后我会轮换这个密钥。",
           "谢谢！",
           "客户{name}（{email}）反馈一直无法登录。", "联系人：{name}，电话 {phone}"],
    "ko": ["스테이징에서 이게 왜 실패하는지 봐줄 수 있어요?", "전체 출력입니다:", "로컬에서는 되는데 CI에서는 안 돼요.",
           "수정되면 키는 교체할게요.", "감사합니다!", "고객 {name}님({email})이 로그인이 계속 실패한다고 합니다.",
           "담당자: {name}, {phone}"],
    "ar": ["هل يمكنك التحقق من سبب فشل هذا في بيئة الاختبار؟", "هذا هو الناتج الكامل:", "يعمل محليًا لكن ليس في CI.",
           "سأقوم بتغيير المفتاح بعد الإصلاح.", "شكرًا!", "العميل {name} ({email}) يقول إن تسجيل الدخول يفشل باستمرار.",
           "جهة الاتصال: {name}، هاتف {phone}"],
    "hi": ["क्या आप देख सकते हैं कि यह staging पर क्यों फेल हो रहा है?", "पूरा आउटपुट यह है:", "लोकल पर चलता है, CI में नहीं।",
           "ठीक होते ही मैं key बदल दूँगा।", "धन्यवाद!", "ग्राहक {name} ({email}) का कहना है कि लॉगिन बार-बार फेल हो रहा है।",
           "संपर्क: {name}, फ़ोन {phone}"],
    "he": ["אפשר לבדוק למה זה נכשל בסטייג'ינג?", "הנה הפלט המלא:", "מקומית זה עובד, ב-CI לא.",
           "אחליף את המפתח אחרי התיקון.", "תודה!", "הלקוח {name} ({email}) מדווח שההתחברות נכשלת.",
           "איש קשר: {name}, טלפון {phone}"],
    "th": ["ช่วยดูหน่อยได้ไหมว่าทำไมถึงล้มเหลวบน staging", "นี่คือผลลัพธ์ทั้งหมด:", "รันในเครื่องได้ แต่ใน CI ไม่ได้",
           "แก้เสร็จแล้วจะเปลี่ยนคีย์ใหม่", "ขอบคุณครับ", "ลูกค้า {name} ({email}) แจ้งว่าเข้าสู่ระบบไม่ได้",
           "ผู้ติดต่อ: {name} โทร {phone}"],
    "vi": ["Bạn xem giúp sao cái này lỗi trên staging không?", "Đây là toàn bộ output:",
           "Chạy local thì được, trên CI thì không.",
           "Sửa xong mình sẽ đổi key.", "Cảm ơn nhé!", "Khách hàng {name} ({email}) báo không đăng nhập được.",
           "Liên hệ: {name}, SĐT {phone}"],
    "id": ["Bisa cek kenapa ini gagal di staging?", "Ini output lengkapnya:", "Di lokal jalan, di CI tidak.",
           "Kuncinya akan saya rotasi setelah ini beres.", "Makasih!",
           "Pelanggan {name} ({email}) bilang login terus gagal.",
           "Kontak: {name}, {phone}"],
}
ASK, HERE, WORKS, ROTATE, THANKS, CUSTOMER, CONTACT = range(7)


# ---------------------------------------------------------------- row model

class Row:
    def __init__(self, style, lang, clean):
        self.style = style
        self.lang = lang
        self.clean = clean
        self.secrets = []
        self.pii = []
        self.decoys = []
        self.used_prose = False

    def sec(self, kind, value, shown=None, mask=None):
        if self.clean:
            m = mask if mask is not None else mask_for(value)
            self.dec("placeholder", m)
            return m
        lab = {"value": value, "kind": kind}
        if shown is not None and shown != value:
            lab["shown"] = shown
        self.secrets.append(lab)
        return lab.get("shown", value)

    def pi(self, kind, value, shown=None):
        lab = {"value": value, "kind": kind}
        if shown is not None and shown != value:
            lab["shown"] = shown
        self.pii.append(lab)
        return lab.get("shown", value)

    def dec(self, kind, value):
        self.decoys.append({"value": value, "kind": kind})
        return value

    def person(self, lang=None):
        p = Person(lang or self.lang)
        return p

    def name(self, p):
        return self.pi("person_name", p.full)

    def email(self, p, work=False):
        return self.pi("email", p.work_email if work else p.email)

    def phone(self, p):
        return self.pi("phone", p.phone)

    def prose(self, idx, p=None, lang=None):
        lang = lang or self.lang
        self.used_prose = True
        t = PROSE[lang][idx]
        if "{name}" in t:
            p = p or Person(lang)
            t = t.replace("{name}", self.name(p))
            if "{email}" in t:
                t = t.replace("{email}", self.email(p))
            if "{phone}" in t:
                t = t.replace("{phone}", self.phone(p))
        return t

    def labels(self):
        return self.secrets + self.pii + self.decoys

    def sha(self):
        return self.dec("commit_sha", sha1())

    def uuid(self):
        return self.dec("uuid", uuid4())

    def ts(self):
        return self.dec("timestamp", ts())

    def ip_int(self):
        return self.dec("server_ip", internal_ip())

    def host(self):
        return self.dec("hostname", host())

    def ver(self):
        return self.dec("version", version())


def encode_labels(row, fn):
    """Apply an encoding transform (json, xml) to every label: value stays plain, shown = encoded form."""
    for lab in row.labels():
        if "pieces" in lab:
            lab["pieces"] = [fn(p) for p in lab["pieces"]]
            continue
        base = lab.get("shown", lab["value"])
        enc = fn(base)
        if enc != lab["value"]:
            lab["shown"] = enc
        elif "shown" in lab and enc == lab["value"]:
            del lab["shown"]


def json_esc(ascii_only):
    def fn(s):
        return json.dumps(s, ensure_ascii=ascii_only)[1:-1]
    return fn


def wrap_text(row, text, width, indent):
    """Hard-wrap long lines like a terminal does; labels cut by a wrap get pieces."""
    out_lines = []
    breaks = []
    pos = 0
    for line in text.split("\n"):
        if len(line) <= width:
            out_lines.append(line)
        else:
            out_lines.append(line[:width])
            breaks.append(pos + width)
            i = width
            step = width - indent
            while i < len(line):
                out_lines.append(" " * indent + line[i:i + step])
                if i + step < len(line):
                    breaks.append(pos + i + step)
                i += step
        pos += len(line) + 1
    new_text = "\n".join(out_lines)
    for lab in row.labels():
        shown = lab.get("shown", lab["value"])
        if "pieces" in lab or shown in new_text:
            continue
        if "\n" in shown:
            return None
        start = text.find(shown)
        if start < 0:
            return None
        cuts = [b for b in breaks if start < b < start + len(shown)]
        pieces = []
        prev = start
        for c in cuts + [start + len(shown)]:
            pieces.append(text[prev:c])
            prev = c
        if any(len(p) < 6 for p in pieces) or "shown" in lab:
            return None
        lab["pieces"] = pieces
    return new_text


def wrap_maybe(row, text, p=0.5):
    if not chance(p):
        return text
    for _ in range(30):
        w = pick([80, 100, 120, 132])
        ind = R.randint(0, 6)
        saved = json.dumps([row.secrets, row.pii, row.decoys])
        res = wrap_text(row, text, w, ind)
        if res is not None:
            return res
        row.secrets, row.pii, row.decoys = json.loads(saved)
    return text


# ---------------------------------------------------------------- shared building blocks

VENDOR = [
    ("GITHUB_TOKEN", gh_token, "github_token"),
    ("GH_PAT", gh_fine, "github_token"),
    ("STRIPE_SECRET_KEY", stripe_key, "stripe_key"),
    ("OPENAI_API_KEY", openai_key, "openai_key"),
    ("ANTHROPIC_API_KEY", anthropic_key, "anthropic_key"),
    ("SLACK_BOT_TOKEN", slack_bot, "slack_token"),
    ("SENDGRID_API_KEY", sendgrid_key, "sendgrid_key"),
    ("GOOGLE_MAPS_API_KEY", google_api_key, "google_api_key"),
    ("GITLAB_TOKEN", gitlab_pat, "gitlab_token"),
    ("NPM_TOKEN", npm_token, "npm_token"),
    ("HF_TOKEN", hf_token, "huggingface_token"),
    ("DIGITALOCEAN_TOKEN", do_token, "digitalocean_token"),
    ("SHOPIFY_ACCESS_TOKEN", shopify_token, "shopify_token"),
    ("VAULT_TOKEN", vault_token, "vault_token"),
    ("DOPPLER_TOKEN", doppler_token, "doppler_token"),
    ("TELEGRAM_BOT_TOKEN", telegram_token, "telegram_token"),
    ("MAILGUN_API_KEY", mailgun_key, "mailgun_key"),
    ("DD_API_KEY", lambda: hex_key(32), "datadog_key"),
    ("INTERNAL_API_KEY", lambda: rs(R.choice([32, 40, 48])), "api_key"),
    ("PARTNER_API_SECRET", lambda: rs(R.choice([24, 36]), B62 + "-_"), "api_key"),
    ("STRIPE_WEBHOOK_SECRET", lambda: "whsec_" + rs(32), "webhook_secret"),
    ("JWT_SECRET", lambda: hex_key(64), "signing_secret"),
    ("ENCRYPTION_KEY", lambda: b64(rbytes(32)), "encryption_key"),
    ("SESSION_SECRET", lambda: rs(48, B64URL), "signing_secret"),
    ("DISCORD_BOT_TOKEN", discord_bot, "discord_token"),
    ("AZURE_CLIENT_SECRET", azure_client_secret, "azure_client_secret"),
    ("TWILIO_AUTH_TOKEN", lambda: hex_key(32), "twilio_token"),
    ("PYPI_API_TOKEN", pypi_token, "pypi_token"),
]

BENIGN = [
    ("PORT", lambda: str(pick([3000, 8080, 8000, 5000, 9090]))),
    ("LOG_LEVEL", lambda: pick(["debug", "info", "warn"])),
    ("NODE_ENV", lambda: pick(["production", "staging", "development"])),
    ("TOKEN_TTL", lambda: str(pick([900, 3600, 86400]))),
    ("JWT_EXPIRES_IN", lambda: pick(["15m", "1h", "7d"])),
    ("PASSWORD_MIN_LENGTH", lambda: str(pick([8, 12, 16]))),
    ("SESSION_COOKIE_NAME", lambda: pick(["sid", "_app_session", "connect.sid"])),
    ("SECRET_KEY_LENGTH", lambda: str(pick([32, 64]))),
    ("AWS_REGION", lambda: pick(["eu-central-1", "us-east-1", "ap-northeast-1"])),
    ("FEATURE_FLAGS", lambda: pick(["new_checkout,dark_mode", "beta_api", ""])),
    ("CACHE_TTL_SECONDS", lambda: str(pick([60, 300, 600]))),
    ("MAX_UPLOAD_MB", lambda: str(pick([10, 25, 100]))),
    ("TZ", lambda: pick(["UTC", "Europe/Berlin", "Asia/Tokyo"])),
    ("STRIPE_PUBLISHABLE_KEY", lambda: "pk_live_" + rs(24)),
    ("GOOGLE_CLIENT_ID",
     lambda: f"{d(12)}-{rs(32, string.ascii_lowercase + string.digits)}.apps.googleusercontent.com"),
    ("SENTRY_DSN", lambda: f"https://{hex_key(32)}@o{d(6)}.ingest.sentry.io/{d(7)}"),
    ("BUILD_SHA", sha1),
    ("REQUEST_ID_HEADER", lambda: "X-Request-Id"),
    ("API_BASE_URL",
     lambda: f"https://{pick(['api', 'gw'])}.{pick(['example.com', 'acme.io', 'nordwind.de'])}/v{R.randint(1, 3)}"),
    ("TWILIO_ACCOUNT_SID", lambda: "AC" + hex_key(32)),
    ("AUTH_TOKEN_HEADER", lambda: "Authorization"),
]


def vendor_secret(r):
    name, fn, kind = pick(VENDOR)
    value = fn()
    return name, r.sec(kind, value)


def benign_pairs(r, n):
    out = []
    for name, fn in R.sample(BENIGN, n):
        v = fn()
        if name in ("STRIPE_PUBLISHABLE_KEY", "GOOGLE_CLIENT_ID", "TWILIO_ACCOUNT_SID"):
            r.dec("public_id", v)
        elif name == "SENTRY_DSN":
            r.dec("public_dsn", v)
        elif name == "BUILD_SHA":
            r.dec("commit_sha", v)
        elif name in ("TOKEN_TTL", "JWT_EXPIRES_IN", "PASSWORD_MIN_LENGTH", "SECRET_KEY_LENGTH") and len(v) > 1:
            r.dec("setting", v)
        out.append((name, v))
    return out


def db_url(r, scheme=None, p=None):
    scheme = scheme or pick(["postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp", "mssql"])
    user = p.user if p else pick(["app", "svc_orders", "admin", "root", "readonly", "billing_rw"])
    if p:
        r.pi("username", user)
    pw = password_any() if chance(0.5) else rs(R.randint(16, 32))
    enc = urllib.parse.quote(pw, safe="")
    h = r.host()
    port = {"postgres": 5432, "postgresql": 5432, "mysql": 3306, "mongodb+srv": None, "redis": 6379, "amqp": 5672,
            "mssql": 1433}[scheme]
    shown = r.sec("password", pw, shown=enc, mask=pick(["****", "${DB_PASSWORD}", "<password>", "xxxxx"]))
    portpart = f":{port}" if port else ""
    db = pick(["orders", "app_production", "crm", "analytics", "0"]) if scheme != "amqp" else "vhost"
    return f"{scheme}://{user}:{shown}@{h}{portpart}/{db}"


def pem_text(r, kind=None):
    lines = pem_key(kind)
    value = "\n".join(lines)
    if r.clean:
        r.dec("placeholder", "<private key redacted>")
        return ["<private key redacted>"]
    r.secrets.append({"value": value, "kind": "private_key"})
    return lines


def pem_indented(r, indent, kind=None):
    lines = pem_key(kind)
    value = "\n".join(lines)
    if r.clean:
        r.dec("placeholder", "REDACTED")
        return " " * indent + "REDACTED"
    r.secrets.append({"value": value, "kind": "private_key", "pieces": list(lines)})
    return "\n".join(" " * indent + ln for ln in lines)


def log_noise(r, n):
    out = []
    for _ in range(n):
        t = ts()
        k = R.random()
        if k < 0.3:
            out.append(f"{t} INFO  http request method=GET path=/healthz status=200 dur={R.randint(1, 40)}ms")
        elif k < 0.5:
            tid = hex_key(32)
            r.dec("trace_id", tid)
            out.append(f"{t} DEBUG tracing span exported trace_id={tid} span_id={hex_key(16)}")
        elif k < 0.7:
            out.append(f"{t} WARN  pool: connection to {host()} idle for {R.randint(30, 600)}s, recycling")
        elif k < 0.85:
            out.append(f"{t} INFO  worker[{R.randint(1, 16)}] processed job {uuid4()} in {R.random() * 3:.3f}s")
        else:
            out.append(f"{t} ERROR retry {R.randint(1, 5)}/5 upstream timeout after 30000ms")
    return out


NO_PROSE = [False]


def prose_wrap(r, body, before=0.7, after=0.4):
    if NO_PROSE[0]:
        return body
    parts = []
    if chance(before):
        parts.append(r.prose(pick([ASK, WORKS])))
        if chance(0.5):
            parts.append(r.prose(HERE))
    parts.append(body)
    if chance(after):
        parts.append(r.prose(pick([ROTATE, THANKS, CUSTOMER, CONTACT])))
    return "\n\n".join(parts)


def home_path(r, p):
    u = r.pi("username", p.user)
    return pick([f"/home/{u}", f"/Users/{u}", f"C:\\Users\\{u}"])


# ---------------------------------------------------------------- styles: cloud CLIs

def st_aws_cli(r):
    shape = R.randrange(4)
    kid = aws_key_id(pick(["AKIA", "AKIA", "ASIA"]))
    acct = r.dec("account_id", aws_account())
    if shape == 0:
        k = r.sec("aws_access_key_id", kid)
        s = r.sec("aws_secret_access_key", aws_secret())
        body = f"""$ cat ~/.aws/credentials
[default]
aws_access_key_id = {k}
aws_secret_access_key = {s}
region = {pick(['eu-west-1', 'us-east-1'])}

[{pick(['legacy-prod', 'sandbox', 'ci'])}]
role_arn = {r.dec('arn', f'arn:aws:iam::{acct}:role/{pick(["Deployer", "ReadOnly", "OrgAdmin"])}')}
source_profile = default
duration_seconds = {r.dec('setting', str(pick([3600, 43200])))}"""
    elif shape == 1:
        pw = password_any()
        user = pick(["app_rw", "postgres", "admin"])
        placeholder = "PLACEHOLDER_PW"
        inner = json.dumps({"username": user, "password": placeholder, "engine": "postgres", "host": host(),
                            "port": 5432})
        inner_text = json.dumps(inner)[1:-1]
        pw_twice = json.dumps(json.dumps(pw)[1:-1])[1:-1]
        v = r.sec("password", pw, shown=pw_twice, mask="****")
        inner_text = inner_text.replace(placeholder, v)
        arn = r.dec("arn", f"arn:aws:secretsmanager:eu-central-1:{acct}:secret:prod/db/orders-{rs(6)}")
        body = f"""$ aws secretsmanager get-secret-value --secret-id prod/db/orders
{{
    "ARN": "{arn}",
    "Name": "prod/db/orders",
    "VersionId": "{r.uuid()}",
    "SecretString": "{inner_text}",
    "VersionStages": [
        "AWSCURRENT"
    ],
    "CreatedDate": "{r.ts()}"
}}"""
    elif shape == 2:
        k = r.sec("aws_access_key_id", kid)
        s = r.sec("aws_secret_access_key", aws_secret())
        tok = r.sec("aws_session_token", aws_session()) if kid.startswith("ASIA") else None
        body = f"""$ aws sts assume-role --role-arn arn:aws:iam::{acct}:role/ci-deploy --role-session-name gha-{d(10)}
{{
    "Credentials": {{
        "AccessKeyId": "{k}",
        "SecretAccessKey": "{s}",
        "SessionToken": "{tok or r.sec('aws_session_token', aws_session())}",
        "Expiration": "{r.ts()}"
    }},
    "AssumedRoleUser": {{
        "AssumedRoleId": "AROA{rs(17, UPPER_DIG)}:gha-{d(10)}",
        "Arn": "arn:aws:sts::{acct}:assumed-role/ci-deploy/gha"
    }}
}}"""
    else:
        k = kid[:4] + "*" * 12 + kid[-4:]
        r.dec("masked", k)
        body = f"""$ aws configure list
      Name                    Value             Type    Location
      ----                    -----             ----    --------
   profile                <not set>             None    None
access_key     {k} shared-credentials-file
secret_key     ****************{rs(4, B64)} shared-credentials-file
    region             eu-central-1      config-file    ~/.aws/config
$ aws sts get-caller-identity
{{
    "UserId": "AIDA{rs(17, UPPER_DIG)}",
    "Account": "{acct}",
    "Arn": "arn:aws:iam::{acct}:user/{pick(['ci-bot', 'terraform', 'backup-agent'])}"
}}"""
        r.clean = True
    return prose_wrap(r, body)


def st_gcp_azure(r):
    shape = R.randrange(4)
    if shape == 0:
        project = f"{pick(['acme', 'bluefin', 'kestrel'])}-{pick(['prod', 'data', 'ml'])}-{d(6)}"
        lines = pem_key("PRIVATE KEY")
        key = "\n".join(lines) + "\n"
        sa = f"{pick(['deployer', 'bq-reader', 'gke-nodes'])}@{project}.iam.gserviceaccount.com"
        r.dec("service_account", sa)
        kid = hex_key(40)
        r.dec("key_id", kid)
        pk = r.sec("gcp_private_key", key, shown=json.dumps(key)[1:-1], mask="<redacted>")
        body = f"""$ cat sa-key.json
{{
  "type": "service_account",
  "project_id": "{project}",
  "private_key_id": "{kid}",
  "private_key": "{pk}",
  "client_email": "{sa}",
  "client_id": "{d(21)}",
  "auth_uri": "https://accounts.google.com/o/oauth2/auth",
  "token_uri": "https://oauth2.googleapis.com/token"
}}"""
    elif shape == 1:
        acc = f"{pick(['stacme', 'kestreldata', 'nordwindlogs'])}{d(3)}"
        k1 = r.sec("azure_storage_key", azure_storage_key())
        k2 = r.sec("azure_storage_key", azure_storage_key())
        body = f"""$ az storage account keys list -g rg-{pick(['prod', 'shared'])} -n {acc} -o table
KeyName    Permissions    Value
---------  -------------  ----------------------------------------------------------------------------------------
key1       FULL           {k1}
key2       FULL           {k2}
$ az storage account show -n {acc} --query primaryEndpoints.blob
"https://{acc}.blob.core.windows.net/\""""
    elif shape == 2:
        acc = f"st{pick(['media', 'backup', 'exports'])}{d(4)}"
        sig = b64(rbytes(32))
        enc = urllib.parse.quote(sig, safe="")
        sv = r.sec("sas_signature", sig, shown=enc)
        url = (f"https://{acc}.blob.core.windows.net/{pick(['exports', 'invoices'])}/report-{d(6)}.csv?sv=2022-11-02"
               f"&ss=b&srt=o&sp=r&se=2026-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}T00:00:00Z&spr=https&sig={sv}")
        conn_key = r.sec("azure_storage_key", azure_storage_key())
        body = f"""Generated SAS for the partner download (expires in 7 days):
{url}

AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName={acc};AccountKey={conn_key};EndpointSuffix=core.windows.net\""""
    else:
        app = r.uuid()
        ten = r.uuid()
        sec = r.sec("azure_client_secret", azure_client_secret())
        body = f"""$ az ad sp create-for-rbac --name {pick(['gh-deployer', 'aks-ci', 'backup-sp'])} --role contributor\
 --scopes /subscriptions/{uuid4()}
Creating 'contributor' role assignment under scope '/subscriptions/...'
The output includes credentials that you must protect. Be sure that you do not include these credentials in your code.
{{
  "appId": "{app}",
  "displayName": "gh-deployer",
  "password": "{sec}",
  "tenant": "{ten}"
}}"""
    return prose_wrap(r, body)


def st_secret_managers(r):
    shape = R.randrange(5)
    p = r.person()
    if shape == 0:
        tok = r.sec("api_key", rs(40))
        pw = r.sec("password", password_any())
        body = f"""$ vault kv get -mount=secret {pick(['payments/stripe', 'apps/crm', 'team/ops'])}
======= Secret Path =======
secret/data/apps/crm

======= Metadata =======
Key                Value
---                -----
created_time       {r.ts()}
custom_metadata    <nil>
deletion_time      n/a
destroyed          false
version            {R.randint(2, 40)}

====== Data ======
Key             Value
---             -----
api_key         {tok}
admin_password  {pw}
admin_user      {pick(['admin', 'ops'])}"""
    elif shape == 1:
        pw = r.sec("password", password_any())
        seed = r.sec("totp_seed", totp_seed())
        body = f"""$ op item get "{pick(['AWS root', 'Router admin', 'Grafana'])}" --reveal
ID:          {rs(26, string.ascii_lowercase + string.digits)}
Title:       AWS root
Vault:       {pick(['Infra', 'Private', 'Shared-Ops'])} ({rs(26, string.ascii_lowercase + string.digits)})
Created:     {R.randint(2, 11)} months ago
Updated:     {R.randint(2, 20)} days ago by {r.name(p)}
Favorite:    false
Version:     {R.randint(1, 9)}
Category:    LOGIN
Fields:
  username:    {r.email(p, work=True)}
  password:    {pw}
  one-time password: {seed}
URLs:
  website: https://console.aws.amazon.com (primary)"""
    elif shape == 2:
        pw = password_any()
        item = {"object": "item", "id": uuid4(), "name": pick(["Wi-Fi office", "NAS", "FTP partner"]),
                "login": {"username": p.user, "password": pw, "totp": None}, "notes": None,
                "revisionDate": ts()}
        r.pi("username", p.user)
        text = json.dumps(item, indent=2, ensure_ascii=False)
        r.sec("password", pw, shown=json.dumps(pw)[1:-1], mask="********")
        if r.clean:
            text = text.replace(json.dumps(pw), '"********"')
        body = f"$ bw get item \"{item['name']}\" | jq .\n{text}"
    elif shape == 3:
        rows = []
        for _ in range(R.randint(3, 6)):
            name, v = vendor_secret(r)
            rows.append(f"│ {name:<24} │ {v:<60} │")
        for name, v in benign_pairs(r, 3):
            rows.append(f"│ {name:<24} │ {v:<60} │")
        R.shuffle(rows)
        bar = "─" * 26
        bar2 = "─" * 62
        body = (f"$ doppler secrets --project {pick(['api', 'web', 'worker'])} --config prd\n"
                f"┌{bar}┬{bar2}┐\n│ NAME{' ' * 20} │ VALUE{' ' * 56}│\n├{bar}┼{bar2}┤\n" + "\n".join(rows)
                + f"\n└{bar}┴{bar2}┘")
    else:
        key, v = vendor_secret(r)
        pw = r.sec("password", password_any())
        body = f"""$ infisical export --env=prod --format=dotenv
{key}='{v}'
DB_PASSWORD='{pw}'
""" + "\n".join(f"{k}='{val}'" for k, val in benign_pairs(r, 4))
    return prose_wrap(r, body)


def st_sops_k8s_secret(r):
    shape = R.randrange(3)
    if shape == 0:
        pw = password_any()
        api = vendor_secret(r)
        body = f"""$ sops -d secrets/prod.enc.yaml
database:
    host: {r.host()}
    user: orders
    password: '{r.sec('password', pw)}'
{api[0].lower()}: {api[1]}
smtp:
    host: smtp.{pick(['sendgrid.net', 'mailgun.org', 'office365.com'])}
    port: 587
    password: {r.sec('smtp_password', rs(20))}
sops:
    kms:
        - arn: arn:aws:kms:eu-central-1:{aws_account()}:key/{uuid4()}
    lastmodified: "{ts()}"
    mac: ENC[AES256_GCM,data:{rs(60, B64)}=,iv:{rs(43, B64)}=,tag:{rs(22, B64)}==,type:str]
    version: 3.{R.randint(7, 9)}.{R.randint(0, 4)}"""
    else:
        items = []
        for key, plain, kind in [("DB_PASSWORD", password_any(), "password"),
                                 ("API_TOKEN", pick(VENDOR)[1](), "api_key"),
                                 ("REDIS_URL", None, "password")]:
            if plain is None:
                pw = rs(24)
                plain_full = f"redis://default:{pw}@{host()}:6379/0"
                enc = b64(plain_full.encode())
                if r.clean:
                    items.append(f"  {key}: {r.dec('base64_data', b64(f'redis://{host()}:6379/0'.encode()))}")
                else:
                    r.secrets.append({"value": plain_full, "kind": "connection_string", "shown": enc})
                    items.append(f"  {key}: {enc}")
                continue
            enc = b64(plain.encode())
            if r.clean:
                items.append(f"  {key}: {r.dec('placeholder', '')}" if False else f"  {key}: \"\"")
            else:
                r.secrets.append({"value": plain, "kind": kind, "shown": enc})
                items.append(f"  {key}: {enc}")
        user_b64 = b64(pick(["app", "orders", "admin"]).encode())
        r.dec("base64_data", user_b64)
        items.append(f"  DB_USER: {user_b64}")
        R.shuffle(items)
        body = f"""$ kubectl get secret {pick(['app-secrets', 'orders-env', 'api-credentials'])} -n\
 {pick(['prod', 'payments'])} -o yaml
apiVersion: v1
data:
""" + "\n".join(items) + f"""
kind: Secret
metadata:
  creationTimestamp: "{ts()}"
  name: app-secrets
  resourceVersion: "{d(8)}"
  uid: {r.uuid()}
type: Opaque"""
        if shape == 2:
            body = body.replace("$ kubectl get secret", "$ kubectl get secret --show-managed-fields=false")
            body += "\n---\n# sealed version (safe to commit)\nencryptedData:\n"
            body += f"  DB_PASSWORD: {rs(R.randint(300, 500), B64)}=="
    return prose_wrap(r, body)


# ---------------------------------------------------------------- styles: containers and IaC

def st_docker(r):
    shape = R.randrange(4)
    img = f"{pick(['ghcr.io/acme/api', 'registry.gitlab.com/bluefin/worker', 'nginx', 'postgres'])}"
    digest = r.dec("image_digest", "sha256:" + sha256hex())
    if shape == 0:
        pw = r.sec("password", password_any().replace("'", ""))
        name, v = vendor_secret(r)
        env = [f'                "POSTGRES_PASSWORD={pw}"', f'                "{name}={v}"']
        env += [f'                "{k}={val}"' for k, val in benign_pairs(r, 3)]
        env.append('                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"')
        R.shuffle(env)
        body = f"""$ docker inspect {rs(12, HEX)} --format '{{{{json .Config}}}}' | jq
[
    {{
        "Id": "{sha256hex()}",
        "Created": "{r.ts()}",
        "Image": "{digest}",
        "Config": {{
            "Hostname": "{rs(12, HEX)}",
            "Env": [
{(',' + chr(10)).join(env)}
            ],
            "Image": "{img}:{r.ver()}"
        }}
    }}
]"""
    elif shape == 1:
        pw = r.sec("password", password_urlsafe())
        name, v = vendor_secret(r)
        body = f"""$ docker run -d --name api -p 8080:8080 \\
    -e DATABASE_URL={db_url(r, 'postgres')} \\
    -e {name}={v} \\
    -e REDIS_PASSWORD={pw} \\
    {img}:{version()}
{sha256hex()}"""
    elif shape == 2:
        user = pick(["ci-bot", "deploy", "_json_key"])
        tok = gh_token() if chance(0.5) else rs(32)
        plain = f"{user}:{tok}"
        enc = b64(plain.encode())
        if r.clean:
            auth_line = '"credsStore": "desktop"'
            r.dec("placeholder", "desktop")
        else:
            r.secrets.append({"value": plain, "kind": "registry_credential", "shown": enc})
            auth_line = f'"auths": {{\n\t\t"ghcr.io": {{\n\t\t\t"auth": "{enc}"\n\t\t}}\n\t}}'
        body = f"""$ cat ~/.docker/config.json
{{
\t{auth_line},
\t"currentContext": "{pick(['default', 'desktop-linux', 'colima'])}"
}}"""
    else:
        pw = r.sec("password", password_urlsafe())
        name, v = vendor_secret(r)
        body = f"""# docker-compose.yml
services:
  db:
    image: postgres:{R.randint(13, 17)}
    environment:
      POSTGRES_USER: app
      POSTGRES_PASSWORD: {pw}
      POSTGRES_DB: app
    volumes:
      - pgdata:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U app"]
      interval: 10s
  api:
    build: .
    environment:
      - {name}={v}
      - DATABASE_URL=postgres://app:{pw}@db:5432/app
""" + "\n".join(f"      - {k}={val}" for k, val in benign_pairs(r, 3)) + "\nvolumes:\n  pgdata: {}"
    return prose_wrap(r, body)


def st_kubectl_helm(r):
    shape = R.randrange(4)
    pod = (f"{pick(['api', 'worker', 'checkout'])}-{rs(10, string.ascii_lowercase + string.digits)}-"
           f"{rs(5, string.ascii_lowercase)}")
    if shape == 0:
        name, v = vendor_secret(r)
        body = f"""$ kubectl describe pod {pod} -n prod
Name:             {pod}
Namespace:        prod
Node:             {r.host()}/{r.ip_int()}
Start Time:       {ts()}
Status:           CrashLoopBackOff
Containers:
  app:
    Image:          {pick(['ghcr.io/acme/api', 'eu.gcr.io/kestrel/worker'])}:{version()}
    Image ID:       docker-pullable://ghcr.io/acme/api@{r.dec('image_digest', 'sha256:' + sha256hex())}
    Port:           8080/TCP
    Environment:
      {name}:  {v}
      DB_PASSWORD:  <set to the key 'password' in secret 'db'>  Optional: false
      LOG_LEVEL:    info
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
Events:
  Type     Reason     Age                From     Message
  ----     ------     ----               ----     -------
  Warning  BackOff    {R.randint(1, 50)}s (x{R.randint(2, 30)} over 5m)  kubelet  Back-off restarting failed\
 container"""
        r.dec("placeholder", "<set to the key 'password' in secret 'db'>")
    elif shape == 1:
        pw = r.sec("password", password_generated())
        key = pem_indented(r, 6)
        body = f"""# values-prod.yaml (helm upgrade --install api ./chart -f values-prod.yaml)
replicaCount: {R.randint(2, 6)}
image:
  repository: ghcr.io/acme/api
  tag: "{r.ver()}"
postgresql:
  auth:
    username: app
    password: "{pw}"
    database: app
ingress:
  enabled: true
  hosts:
    - host: {pick(['api.acme.io', 'shop.nordwind.de'])}
tls:
  cert: |
    -----BEGIN CERTIFICATE-----
    MIID{rs(60, B64)}
    {rs(64, B64)}
    -----END CERTIFICATE-----
  key: |
{key}"""
    elif shape == 2:
        tok = r.sec("argocd_token", jwt())
        body = f"""$ argocd login argocd.{pick(['acme.io', 'internal'])} --sso
Opening browser for authentication
Authentication successful
'{pick(['admin', 'ops@acme.io'])}' logged in (issuer: https://dex.acme.io)
Context 'argocd.acme.io' updated
$ cat ~/.config/argocd/config
contexts:
- name: argocd.acme.io
  server: argocd.acme.io
  user: argocd.acme.io
servers:
- grpc-web-root-path: ""
  server: argocd.acme.io
users:
- auth-token: {tok}
  name: argocd.acme.io"""
    else:
        name, v = vendor_secret(r)
        body = f"""job "api" {{
  datacenters = ["dc1"]
  group "web" {{
    task "server" {{
      driver = "docker"
      config {{
        image = "ghcr.io/acme/api:{version()}"
      }}
      env {{
        {name} = "{v}"
        PORT = "8080"
      }}
    }}
  }}
}}
$ nomad job run api.nomad
==> {ts()}: Monitoring evaluation "{rs(8, HEX)}"
    Evaluation triggered by job "api\""""
    return prose_wrap(r, body, before=0.5)


def st_terraform(r):
    shape = R.randrange(3)
    acct = aws_account()
    if shape == 0:
        pw = r.sec("password", password_generated())
        body = f"""$ terraform plan -out tfplan
Terraform will perform the following actions:

  # aws_db_instance.main will be created
  + resource "aws_db_instance" "main" {{
      + allocated_storage     = {pick([20, 100, 500])}
      + arn                   = (known after apply)
      + engine                = "postgres"
      + engine_version        = "{R.randint(13, 16)}.{R.randint(1, 9)}"
      + identifier            = "orders-prod"
      + password              = "{pw}"
      + username              = "orders"
      + vpc_security_group_ids = [
          + "sg-{rs(17, HEX)}",
        ]
    }}

  # aws_secretsmanager_secret_version.api will be created
  + resource "aws_secretsmanager_secret_version" "api" {{
      + secret_string = (sensitive value)
    }}

Plan: 2 to add, 0 to change, 0 to destroy."""
        r.dec("placeholder", "(sensitive value)")
    elif shape == 1:
        pw = password_any()
        k = aws_key_id()
        s = aws_secret()
        kk = r.sec("aws_access_key_id", k)
        ss = r.sec("aws_secret_access_key", s)
        pp = r.sec("password", pw, shown=json.dumps(pw)[1:-1])
        body = f"""$ cat terraform.tfstate | jq '.resources[] | select(.type=="aws_iam_access_key")'
{{
  "mode": "managed",
  "type": "aws_iam_access_key",
  "name": "ci",
  "provider": "provider[\\"registry.terraform.io/hashicorp/aws\\"]",
  "instances": [
    {{
      "schema_version": 0,
      "attributes": {{
        "id": "{kk}",
        "secret": "{ss}",
        "ses_smtp_password_v4": "{r.sec('smtp_password', rs(44, B64))}",
        "status": "Active",
        "user": "ci-{pick(['deploy', 'backup'])}",
        "create_date": "{r.ts()}"
      }},
      "sensitive_attributes": []
    }}
  ]
}}
# and from the db module:
#   "master_password": "{pp}"
#   "arn": "arn:aws:rds:eu-central-1:{acct}:db:orders-prod\""""
    else:
        name, v = vendor_secret(r)
        body = f"""# terraform.tfvars  (DO NOT COMMIT — see .gitignore)
region          = "eu-central-1"
environment     = "prod"
db_password     = "{r.sec('password', password_any().replace('"', ''))}"
{name.lower()} = "{v}"
cloudflare_api_token = "{r.sec('cloudflare_token', rs(40, B64URL))}"
allowed_cidrs   = ["{r.ip_int()}/32", "0.0.0.0/0"]
tags = {{
  owner = "{pick(['platform', 'data-eng'])}"
}}"""
    return prose_wrap(r, body, before=0.5)


def st_ansible_pulumi_cfn(r):
    shape = R.randrange(3)
    if shape == 0:
        pw = r.sec("password", password_any().replace("'", ""))
        wifi = r.sec("wifi_password", pick([password_human(), passphrase()]))
        body = f"""# group_vars/prod/vars.yml
mysql_root_password: '{pw}'
wifi_psk: "{wifi}"
app_user: deploy
app_port: 8080
ntp_servers:
  - 0.pool.ntp.org
$ ansible-playbook -i inventory/prod site.yml -vvv
TASK [mysql : set root password] ****************************************
ok: [{r.host()}] => {{"changed": false, "msg": "user root exists"}}"""
    elif shape == 1:
        name, v = vendor_secret(r)
        body = f"""$ pulumi config --show-secrets
KEY                       VALUE
aws:region                eu-west-1
{pick(['acme', 'api'])}:dbPassword         {r.sec('password', password_generated())}
{pick(['acme', 'api'])}:{name.lower()}  {v}
{pick(['acme', 'api'])}:replicas           {R.randint(1, 5)}"""
    else:
        pw = r.sec("password", password_urlsafe())
        body = f"""$ cat params/prod.json
[
  {{"ParameterKey": "Environment", "ParameterValue": "prod"}},
  {{"ParameterKey": "DBMasterUsername", "ParameterValue": "admin"}},
  {{"ParameterKey": "DBMasterPassword", "ParameterValue": "{pw}"}},
  {{"ParameterKey": "VpcId", "ParameterValue": "vpc-{rs(17, HEX)}"}},
  {{"ParameterKey": "CertificateArn", "ParameterValue":\
 "{r.dec('arn', f'arn:aws:acm:us-east-1:{aws_account()}:certificate/{uuid4()}')}"}}
]
$ aws cloudformation deploy --template-file stack.yml --stack-name orders --parameter-overrides file://params/prod.json"""
    return prose_wrap(r, body, before=0.5)


# ---------------------------------------------------------------- styles: app configs

def st_dotenv(r):
    pairs = benign_pairs(r, R.randint(3, 7))
    for _ in range(R.randint(1, 3)):
        pairs.append(vendor_secret(r))
    pairs.append(("DATABASE_URL", db_url(r)))
    if chance(0.5):
        pairs.append(("SMTP_PASSWORD", r.sec("smtp_password", password_any())))
    if chance(0.3):
        pairs.append(("ADMIN_EMAIL", r.email(r.person(), work=True)))
    R.shuffle(pairs)
    lines = []
    for k, v in pairs:
        q = pick(["", '"', "'"]) if " " not in v else '"'
        lines.append(f"{k}={q}{v}{q}")
        if chance(0.15):
            lines.append(pick(["", "# --- third party ---", "# rotate quarterly", "#DEBUG=true"]))
    head = pick(["$ cat .env", "$ cat .env.production", ".env.local:", "```dotenv", "$ printenv | sort"])
    body = head + "\n" + "\n".join(lines) + ("\n```" if head.startswith("```") else "")
    return prose_wrap(r, body)


def st_yaml_toml_ini(r):
    shape = R.randrange(3)
    name, v = vendor_secret(r)
    pw = password_any().replace('"', "").replace("'", "")
    if shape == 0:
        body = f"""# config/application-prod.yml
server:
  port: 8443
spring:
  datasource:
    url: jdbc:postgresql://{r.host()}:5432/orders
    username: orders_app
    password: "{r.sec('password', pw)}"
  jpa:
    hibernate.ddl-auto: validate
integrations:
  {name.lower()}: {v}
  timeout: 30s
management.endpoints.web.exposure.include: health,info"""
    elif shape == 1:
        body = f"""# config.toml
[server]
addr = "0.0.0.0:{pick([8080, 9000])}"
read_timeout = "15s"

[database]
dsn = "{db_url(r, 'postgres')}"
max_open = {R.randint(5, 50)}

[auth]
{name.lower()} = "{v}"
token_ttl = "{r.dec('setting', pick(['15m', '24h']))}"

[smtp]
user = "{pick(['postmaster', 'apikey', 'noreply@acme.io'])}"
password = "{r.sec('smtp_password', pw)}\""""
    else:
        body = f"""; php.ini / my.cnf style
[client]
user = backup
password = {r.sec('password', pw)}
host = {r.host()}

[mysqld]
bind-address = 0.0.0.0
max_connections = {R.randint(100, 500)}

[api]
{name.lower()} = {v}"""
    return prose_wrap(r, body)


def st_code_config(r):
    shape = R.randrange(6)
    name, v = vendor_secret(r)
    pw = password_any().replace('"', "").replace("'", "").replace("\\", "")
    if shape == 0:
        body = f"""<?php
return [
    'default' => env('DB_CONNECTION', 'mysql'),
    'connections' => [
        'mysql' => [
            'driver' => 'mysql',
            'host' => '{r.host()}',
            'port' => '3306',
            'database' => 'shop',
            'username' => 'shop_rw',
            'password' => '{r.sec('password', pw)}',
            'charset' => 'utf8mb4',
        ],
    ],
    '{name.lower()}' => '{v}',
];"""
    elif shape == 1:
        body = f"""# config/initializers/stripe.rb
Rails.configuration.stripe = {{
  publishable_key: '{r.dec('public_id', 'pk_live_' + rs(24))}',
  secret_key: '{r.sec('stripe_key', stripe_key())}'
}}
Stripe.api_key = Rails.configuration.stripe[:secret_key]
ActionMailer::Base.smtp_settings = {{ address: 'smtp.office365.com', port: 587, user_name: 'noreply@acme.io',
  password: '{r.sec('smtp_password', pw)}' }}"""
        r.dec("role_mailbox", "noreply@acme.io")
    elif shape == 2:
        body = f"""# config/runtime.exs
config :my_app, MyApp.Repo,
  username: "postgres",
  password: "{r.sec('password', pw)}",
  hostname: "{r.host()}",
  pool_size: 10

config :my_app, MyAppWeb.Endpoint,
  secret_key_base: "{r.sec('signing_secret', rs(64, B64))}"

config :my_app, :integrations, {name.lower()}: "{v}\""""
    elif shape == 3:
        body = f"""package config

var Default = Config{{
\tListenAddr: ":8080",
\tDSN:        "{db_url(r, 'postgres')}?sslmode=require",
\tAPIKey:     "{v}", // TODO move to env
\tTimeout:    30 * time.Second,
}}"""
    elif shape == 4:
        body = f"""// src/config.rs
pub const DATABASE_URL: &str = "{db_url(r, 'mysql')}";
pub const {name}: &str = "{v}";
pub const MAX_RETRIES: u32 = {R.randint(3, 10)};"""
    else:
        body = f"""# settings.py
DEBUG = False
SECRET_KEY = '{r.sec('signing_secret', django_secret())}'
ALLOWED_HOSTS = ['{pick(['shop.acme.io', '.nordwind.de'])}']
DATABASES = {{
    'default': {{
        'ENGINE': 'django.db.backends.postgresql',
        'NAME': 'shop',
        'USER': 'shop',
        'PASSWORD': '{r.sec('password', pw)}',
        'HOST': '{r.host()}',
        'PORT': '5432',
    }}
}}
EMAIL_HOST_PASSWORD = '{r.sec('smtp_password', rs(16, string.ascii_lowercase))}'"""
    return prose_wrap(r, body, before=0.6)


def st_dotnet_java(r):
    shape = R.randrange(3)
    pw = password_any()
    if shape == 0:
        js_pw = json.dumps(pw)[1:-1]
        shown = r.sec("password", pw, shown=js_pw)
        body = f"""// appsettings.Production.json
{{
  "Logging": {{ "LogLevel": {{ "Default": "Information" }} }},
  "ConnectionStrings": {{
    "Default": "Server=tcp:{pick(['sql-prod', 'acme-db'])}.database.windows.net,1433;Initial Catalog=Orders;User\
 ID=orders_app;Password={shown};Encrypt=True;"
  }},
  "Jwt": {{ "Issuer": "https://auth.acme.io", "Key": "{r.sec('signing_secret', rs(48))}" }},
  "AllowedHosts": "*"
}}"""
    elif shape == 1:
        xml_pw = xml_escape(pw, {'"': "&quot;"})
        shown = r.sec("password", pw, shown=xml_pw)
        body = f"""<!-- web.config -->
<configuration>
  <connectionStrings>
    <add name="CrmDb" connectionString="Data Source={r.host()};Initial Catalog=Crm;User\
 Id=crm_web;Password={shown};MultipleActiveResultSets=true" providerName="System.Data.SqlClient" />
  </connectionStrings>
  <appSettings>
    <add key="SmtpHost" value="smtp.office365.com" />
    <add key="PaymentApiKey" value="{r.sec('api_key', rs(32))}" />
    <add key="webpages:Version" value="3.0.0.0" />
  </appSettings>
</configuration>"""
    else:
        prop_pw = pw.replace("\\", "\\\\").replace(":", "\\:").replace("=", "\\=").replace("#", "\\#").replace("!",
                                                                                                               "\\!")
        shown = r.sec("password", pw, shown=prop_pw)
        name, v = vendor_secret(r)
        body = f"""# src/main/resources/application.properties
spring.datasource.url=jdbc:mysql://{r.host()}:3306/inventory?useSSL=true
spring.datasource.username=inventory
spring.datasource.password={shown}
spring.mail.password={r.sec('smtp_password', rs(16, string.ascii_lowercase))}
app.{name.lower().replace('_', '-')}={v}
server.servlet.session.timeout=30m"""
    return prose_wrap(r, body, before=0.6)


def st_pkg_creds(r):
    shape = R.randrange(7)
    p = r.person()
    if shape == 0:
        body = f"""$ cat ~/.npmrc
registry=https://registry.npmjs.org/
//registry.npmjs.org/:_authToken={r.sec('npm_token', npm_token())}
@acme:registry=https://npm.pkg.github.com
//npm.pkg.github.com/:_authToken={r.sec('github_token', gh_token())}
save-exact=true"""
    elif shape == 1:
        body = f"""$ cat ~/.pypirc
[distutils]
index-servers =
    pypi
    internal

[pypi]
username = __token__
password = {r.sec('pypi_token', pypi_token())}

[internal]
repository = https://nexus.{pick(['acme.io', 'corp.example.net'])}/repository/pypi-internal/
username = {r.pi('username', p.user)}
password = {r.sec('password', password_any())}"""
    elif shape == 2:
        body = f"""$ cat ~/.netrc
machine api.heroku.com
  login {r.email(p)}
  password {r.sec('api_key', uuid4())}
machine ftp.{pick(['partner-edi.com', 'nordwind.de'])}
  login edi_{d(4)}
  password {r.sec('ftp_password', password_any().replace(' ', ''))}"""
    elif shape == 3:
        body = f"""<!-- ~/.m2/settings.xml -->
<settings>
  <servers>
    <server>
      <id>acme-releases</id>
      <username>{r.pi('username', p.user)}</username>
      <password>{r.sec('password', rs(20))}</password>
    </server>
    <server>
      <id>github</id>
      <username>{p.user}</username>
      <password>{r.sec('github_token', gh_token())}</password>
    </server>
  </servers>
</settings>"""
    elif shape == 4:
        body = f"""$ cat ~/.cargo/credentials.toml
[registry]
token = "{r.sec('api_key', 'cio' + rs(32))}"
$ cat ~/.gem/credentials
---
:rubygems_api_key: rubygems_{r.sec('api_key', rs(48, HEX))}
$ cat ~/.config/pip/pip.conf
[global]
index-url = https://{p.user}:{r.sec('password', password_urlsafe())}@pypi.{pick(['acme.io', 'internal.example.net'])}/\
simple"""
        r.pi("username", p.user)
    elif shape == 5 and chance(0.5):
        kind = pick(["OPENSSH PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"])
        key = "\n".join(pem_text(r, kind))
        pub = r.dec("public_key", ssh_pub() + f" {p.user}@{pick(['laptop', 'mbp', 'build01'])}")
        fp = r.dec("fingerprint", ssh_fp())
        r.pi("username", p.user)
        body = f"""$ cat ~/.ssh/id_{pick(['ed25519', 'rsa', 'deploy'])}
{key}
$ cat ~/.ssh/id_ed25519.pub
{pub}
$ ssh-keygen -lf ~/.ssh/id_ed25519.pub
256 {fp} {p.user}@laptop (ED25519)"""
    else:
        body = f"""$ cat ~/.config/gh/hosts.yml
github.com:
    git_protocol: ssh
    users:
        {r.pi('username', p.user)}:
            oauth_token: {r.sec('github_token', gh_token('gho_'))}
    user: {p.user}
$ cat ~/.git-credentials
https://{p.user}:{r.sec('github_token', gh_token())}@github.com
https://oauth2:{r.sec('gitlab_token', gitlab_pat())}@gitlab.{pick(['acme.io', 'com'])}"""
    return prose_wrap(r, body, before=0.5)


# ---------------------------------------------------------------- styles: databases and HTTP

def st_db_session(r):
    shape = R.randrange(5)
    people = [r.person(pick(LANGS)) for _ in range(R.randint(2, 4))]
    if shape == 0:
        pw = r.sec("password", password_urlsafe())
        rows = "\n".join(f" {R.randint(1000, 9999):>5} | {r.name(p):<22} | {r.email(p):<32} |"
                         f" {r.pi('date_of_birth', p.dob)}"
                         for p in people)
        body = f"""$ PGPASSWORD={pw} psql -h {r.host()} -U analyst -d crm
psql (16.{R.randint(1, 4)}, server 15.{R.randint(1, 8)})
SSL connection (protocol: TLSv1.3, cipher: TLS_AES_256_GCM_SHA384, compression: off)
crm=> SELECT id, full_name, email, birth_date FROM customers ORDER BY created_at DESC LIMIT {len(people)};
  id   |       full_name        |              email               | birth_date
-------+------------------------+----------------------------------+------------
{rows}
({len(people)} rows)"""
    elif shape == 1:
        pw = password_any().replace("'", "")
        body = f"""$ mysql -u root -p'{r.sec('password', pw)}' -h {r.host()} shop
mysql: [Warning] Using a password on the command line interface can be insecure.
mysql> CREATE USER 'report'@'%' IDENTIFIED BY '{r.sec('password', password_generated().replace("'", ''))}';
Query OK, 0 rows affected ({R.random():.2f} sec)
mysql> SELECT user, host, plugin FROM mysql.user;
+------------------+-----------+-----------------------+
| user             | host      | plugin                |
+------------------+-----------+-----------------------+
| report           | %         | caching_sha2_password |
| root             | localhost | caching_sha2_password |
+------------------+-----------+-----------------------+"""
    elif shape == 2:
        p = people[0]
        body = f"""$ mongosh "{db_url(r, 'mongodb+srv')}"
Current Mongosh Log ID: {rs(24, HEX)}
Using MongoDB:          7.0.{R.randint(1, 12)}
Atlas atlas-{rs(6, string.ascii_lowercase)}-shard-0 [primary] crm> db.users.findOne({{email: "{r.email(p)}"}})
{{
  _id: ObjectId('{r.dec('object_id', rs(24, HEX))}'),
  name: '{r.name(p)}',
  phone: '{r.phone(p)}',
  passwordHash: '{r.dec('password_hash', '$2b$12$' + rs(53, B62 + './'))}',
  createdAt: ISODate('{ts()}')
}}"""
    elif shape == 3:
        pw = r.sec("password", rs(32))
        body = f"""$ redis-cli -h {r.host()} -p 6379 -a {pw} --no-auth-warning
{r.host()}:6379> CONFIG GET requirepass
1) "requirepass"
2) "{pw}"
{r.host()}:6379> GET session:{rs(32, HEX)}
"{{\\"user_id\\":{R.randint(1000, 99999)},\\"role\\":\\"customer\\"}}"
{r.host()}:6379> TTL session:{rs(32, HEX)}
(integer) {R.randint(100, 3600)}"""
    else:
        pw = password_any().replace('"', "")
        body = f"""PS C:\\> sqlcmd -S {pick(['sql01', 'tcp:acme-sql.database.windows.net'])} -U sa -P\
 "{r.sec('password', pw)}" -d Payroll
1> SELECT TOP 3 EmployeeId, FullName, IBAN FROM dbo.Employees;
2> GO
EmployeeId  FullName                 IBAN
----------- ------------------------ ----------------------------------
""" + "\n".join(f"{R.randint(100, 999):<11} {r.name(p):<24} {r.pi('iban', iban(LANG_IBAN.get(p.lang, 'DE')))}"
                for p in people[:3]) + f"\n\n({min(3, len(people))} rows affected)"
    return prose_wrap(r, body, before=0.6)


def st_conn_strings(r):
    lines = []
    drivers = R.sample(["pg", "jdbc", "adonet", "mongo", "redis", "amqp", "ldap", "smtp", "ftp", "odbc", "sqlalchemy"],
                       R.randint(3, 6))
    for dv in drivers:
        if dv == "pg":
            lines.append(f"postgres (libpq): {db_url(r, 'postgresql')}?sslmode=verify-full")
        elif dv == "jdbc":
            pw = r.sec("password", password_urlsafe())
            lines.append(f"jdbc: jdbc:sqlserver://{r.host()}:1433;databaseName=hr;user=hr_app;password={pw};encrypt=true")
        elif dv == "adonet":
            pw = r.sec("password", password_urlsafe())
            lines.append(f"ado.net: Host={r.host()};Port=5432;Database=ledger;Username=ledger;"
                         f"Password={pw};Pooling=true")
        elif dv == "mongo":
            lines.append(f"mongo: {db_url(r, 'mongodb+srv')}?retryWrites=true&w=majority")
        elif dv == "redis":
            pw = r.sec("password", rs(32))
            lines.append(f"redis: rediss://:{pw}@{r.host()}:6380/0")
        elif dv == "amqp":
            lines.append(f"amqp: {db_url(r, 'amqp')}")
        elif dv == "ldap":
            pw = r.sec("ldap_password", password_any())
            lines.append(f"ldap: bind_dn=cn=svc-ldap,ou=services,dc=acme,dc=local bind_pw=\"{pw}\" url=ldaps://{r.host()}:636")
        elif dv == "smtp":
            pw = password_any()
            enc = urllib.parse.quote(pw, safe="")
            lines.append(f"smtp: smtp://noreply%40acme.io:{r.sec('smtp_password', pw, shown=enc)}"
                         f"@smtp.{pick(['gmail.com', 'office365.com'])}:587")
        elif dv == "ftp":
            pw = password_urlsafe()
            lines.append(f"ftp: ftp://edi_{d(4)}:{r.sec('ftp_password', pw)}"
                         f"@ftp.{pick(['partner-edi.com', 'acme.io'])}/inbound/")
        elif dv == "odbc":
            pw = r.sec("password", password_urlsafe())
            lines.append(f"odbc: Driver={{ODBC Driver 18 for SQL"
                         f" Server}};Server={r.host()};Uid=etl;Pwd={pw};TrustServerCertificate=yes")
        else:
            lines.append(f"sqlalchemy: {db_url(r, 'mysql').replace('mysql://', 'mysql+pymysql://')}?charset=utf8mb4")
    intro = pick(["Connection strings we found in the old wiki page:",
                  "inventory of DSNs (from `grep -r ://` on the repo):",
                  "## Datasources", "Current connection settings per service:"])
    body = intro + "\n" + "\n".join(f"- {ln}" if chance(0.6) else ln for ln in lines)
    return prose_wrap(r, body, before=0.6)


def st_curl_verbose(r):
    shape = R.randrange(3)
    tok = pick(VENDOR)[1]()
    hosts = pick(["api.stripe.com", "api.github.com", "api.acme.io", "graph.microsoft.com", "api.openai.com"])
    if shape == 0:
        body = f"""$ curl -v https://{hosts}/v1/{pick(['charges', 'user', 'orders?limit=5'])} -H "Authorization:\
 Bearer {r.sec('bearer_token', tok)}"
*   Trying {r.dec('server_ip', public_ip())}:443...
* Connected to {hosts} port 443
* ALPN: server accepted h2
* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256
> GET /v1/charges HTTP/2
> Host: {hosts}
> User-Agent: curl/8.{R.randint(0, 9)}.{R.randint(0, 2)}
> Accept: */*
> Authorization: Bearer {tok if not r.clean else '****'}
>
< HTTP/2 {pick([200, 401, 403, 429])}
< content-type: application/json
< request-id: {r.dec('request_id', 'req_' + rs(14))}
< x-ratelimit-remaining: {R.randint(0, 5000)}
<
{{"error": {{"message": "{pick(['Invalid API key provided', 'Rate limit exceeded', 'Not found'])}", "type":\
 "invalid_request_error"}}}}"""
    elif shape == 1:
        user = pick(["admin", "api", "elastic"])
        pw = password_urlsafe()
        plain = f"{user}:{pw}"
        enc = b64(plain.encode())
        if r.clean:
            authline = "> Authorization: Basic ****"
            r.dec("placeholder", "Basic ****")
        else:
            r.sec("password", pw)
            r.secrets.append({"value": plain, "kind": "basic_auth", "shown": enc})
            authline = f"> Authorization: Basic {enc}"
        pwpart = pw if not r.clean else "****"
        body = f"""$ curl -v -u {user}:{pwpart} https://{r.host()}:9200/_cluster/health
* Server auth using Basic with user '{user}'
> GET /_cluster/health HTTP/1.1
> Host: {host()}:9200
{authline}
> User-Agent: curl/7.88.1
>
< HTTP/1.1 200 OK
< content-type: application/json
{{"cluster_name":"logs","status":"yellow","number_of_nodes":{R.randint(1, 9)}}}"""
    else:
        cookie = rs(32, string.ascii_lowercase + string.digits)
        body = f"""$ http --verbose POST https://{hosts}/api/v2/session email={r.email(r.person())}\
 password='{r.sec('password', password_any().replace("'", ''))}'
POST /api/v2/session HTTP/1.1
Accept: application/json, */*;q=0.5
Content-Type: application/json
Host: {hosts}
User-Agent: HTTPie/3.2.{R.randint(1, 4)}

HTTP/1.1 200 OK
Set-Cookie: sessionid={r.sec('session_cookie', cookie)}; HttpOnly; Path=/; SameSite=Lax
X-Request-Id: {r.uuid()}

{{"ok": true, "expires_in": {r.dec('setting', str(pick([3600, 1209600])))}}}"""
    return prose_wrap(r, body)


def st_copy_as_curl_har(r):
    shape = R.randrange(2)
    p = r.person()
    if shape == 0:
        sess = rs(R.choice([32, 40]), B64URL)
        xsrf = rs(40, B64URL)
        body = f"""curl 'https://app.{pick(['acme.io', 'kestrelhealth.com', 'nordwind.de'])}/api/graphql' \\
  -H 'accept: */*' \\
  -H 'accept-language: {pick(['de-DE,de;q=0.9', 'ja,en-US;q=0.8', 'pl-PL,pl;q=0.9,en;q=0.8'])}' \\
  -H 'content-type: application/json' \\
  -H 'cookie: _ga=GA1.1.{d(9)}.{d(10)}; session={r.sec('session_cookie', sess)};\
 XSRF-TOKEN={r.dec('csrf_token', xsrf)}' \\
  -H 'origin: https://app.acme.io' \\
  -H 'user-agent: Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko)\
 Chrome/131.0.0.0 Safari/537.36' \\
  --data-raw '{{"operationName":"UpdateProfile","variables":{{"email":"{r.email(p)}","phone":"{r.phone(p)}"}},"query":\
"mutation UpdateProfile($email: String!) {{ updateProfile(email: $email) {{ id }} }}"}}'"""
    else:
        tok = jwt(p.full if chance(0.5) else None)
        body = json.dumps({"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                                   "entries": [{"startedDateTime": ts(), "time": round(R.random() * 500, 3),
                                                "request": {"method": "GET",
                                                            "url": "https://api.acme.io/v1/me?locale="
                                                                   + pick(['de', 'fr', 'ja']),
                                                            "headers": [{"name": "authorization",
                                                                         "value": f"Bearer {tok}"},
                                                                        {"name": "x-request-id", "value": uuid4()}]},
                                                "response": {"status": 200, "content": {"mimeType": "application/json",
                                                             "text": json.dumps({"id": d(6), "name": p.full,
                                                                                 "email": p.email},
                                                                                ensure_ascii=False)}}}]}},
                          indent=2, ensure_ascii=False)
        if r.clean:
            body = body.replace(tok, "[redacted]")
            r.dec("placeholder", "[redacted]")
        else:
            r.secrets.append({"value": tok, "kind": "jwt"})
        r.pi("person_name", p.full)
        r.pi("email", p.email)
        body = "Exported HAR (trimmed):\n" + body
    return prose_wrap(r, body)


def st_api_collection(r):
    shape = R.randrange(3)
    if shape == 0:
        tok = pick(VENDOR)[1]()
        v = r.sec("bearer_token", tok)
        coll = {"info": {"name": f"{company()} API", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
                         "_postman_id": uuid4()},
                "auth": {"type": "bearer", "bearer": [{"key": "token", "value": v, "type": "string"}]},
                "variable": [{"key": "baseUrl", "value": "https://api.acme.io"},
                             {"key": "clientSecret", "value": r.sec("client_secret", rs(40, B64URL))}],
                "item": [{"name": "List orders", "request": {"method": "GET",
                                                             "url": "{{baseUrl}}/orders?status=open"}}]}
        body = json.dumps(coll, indent=2)
    elif shape == 1:
        body = f"""meta {{
  name: Create invoice
  type: http
  seq: {R.randint(1, 9)}
}}

post {{
  url: {{{{host}}}}/v2/invoices
  body: json
  auth: basic
}}

auth:basic {{
  username: billing
  password: {r.sec('password', password_any())}
}}

headers {{
  X-Api-Key: {r.sec('api_key', rs(40))}
}}"""
    else:
        body = f"""openapi: 3.0.3
info:
  title: Partner API
  version: {version()}
components:
  securitySchemes:
    ApiKeyAuth:
      type: apiKey
      in: header
      name: X-API-Key
paths:
  /v1/shipments:
    get:
      parameters:
        - in: header
          name: X-API-Key
          example: {r.sec('api_key', rs(32))}
      responses:
        "200":
          description: OK
          content:
            application/json:
              example:
                id: {r.uuid()}
                tracking: "{r.dec('tracking_number', '1Z' + rs(16, UPPER_DIG))}\""""
    return prose_wrap(r, body, before=0.5)


# ---------------------------------------------------------------- styles: logs

def st_app_logs(r):
    shape = R.randrange(3)
    p = r.person(pick(LANGS))
    lines = log_noise(r, R.randint(3, 12))
    if shape == 0:
        ev = {"ts": ts(), "level": "error", "logger": "payments.client", "msg": "charge failed",
              "customer": {"name": p.full, "email": p.email}, "card_last4": d(4),
              "request": {"headers": {"authorization": f"Bearer {stripe_key('rk_live_')}"}},
              "trace_id": hex_key(32)}
        text = json.dumps(ev, ensure_ascii=chance(0.5))
        tok = ev["request"]["headers"]["authorization"][7:]
        if r.clean:
            text = text.replace(tok, "[FILTERED]")
            r.dec("placeholder", "[FILTERED]")
        else:
            r.secrets.append({"value": tok, "kind": "stripe_key"})
        r.dec("trace_id", ev["trace_id"])
        sub = Row("x", "en", False)
        sub.pi("person_name", p.full)
        sub.pi("email", p.email)
        encode_labels(sub, json_esc('\\u' in text))
        r.pii.extend(sub.pii)
        lines.insert(R.randrange(len(lines) + 1), text)
    elif shape == 1:
        pw = password_urlsafe()
        lines.insert(R.randrange(len(lines) + 1),
                     f"time={ts()} level=debug msg=\"outgoing request\" method=POST url=https://{host()}/oauth/token "
                     f"body=\"grant_type=password&username={urllib.parse.quote(p.email)}"
                     f"&password={r.sec('password', pw)}\" "
                     f"client_ip={r.pi('ip_address', public_ip())}")
        r.pi("email", p.email, shown=urllib.parse.quote(p.email))
        lines.insert(R.randrange(len(lines) + 1),
                     f"time={ts()} level=info msg=\"token issued\" user_id={d(6)}"
                     f" access_token={r.sec('oauth_token', 'ya29.' + rs(120, B64URL))} "
                     f"expires_in={r.dec('setting', '3599')}")
    else:
        name, v = vendor_secret(r)
        lines.insert(R.randrange(len(lines) + 1),
                     f"[{ts()}] production.INFO: Loaded config"
                     f" {{\"env\":\"prod\",\"{name.lower()}\":\"{v}\",\"debug\":false}}")
        lines.insert(R.randrange(len(lines) + 1),
                     f"[{ts()}] production.WARNING: Login failed for {r.name(p)} <{r.email(p)}> from"
                     f" {r.pi('ip_address', public_ip())}")
    body = "\n".join(lines)
    return prose_wrap(r, body, before=0.5, after=0.3)


def st_nginx_access(r):
    lines = []
    for _ in range(R.randint(5, 18)):
        ip = public_ip()
        path = pick(["/", "/static/app.js", "/api/v1/products?page=2", "/healthz", "/login", "/favicon.ico"])
        lines.append((ip, path, False))
    n_sens = R.randint(1, 3)
    for _ in range(n_sens):
        k = R.randrange(4)
        if k == 0:
            path = f"/api/v1/export?format=csv&api_key={rs(32)}"
        elif k == 1:
            path = f"/reset-password?token={rs(43, B64URL)}&email={urllib.parse.quote(r.person(pick(LANGS)).email)}"
        elif k == 2:
            path = f"/oauth/callback?code={rs(40, B64URL)}&state={rs(16)}"
        else:
            path = f"/download/invoice/{d(8)}.pdf?sig={rs(64, HEX)}&expires={R.randint(1760000000, 1790000000)}"
        lines.insert(R.randrange(len(lines) + 1), (public_ip(), path, True))
    out = []
    for ip, path, sens in lines:
        if sens:
            r.pi("ip_address", ip)
            q = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
            for key in ("api_key", "token", "code", "sig"):
                if key in q:
                    kind = {"api_key": "api_key", "token": "reset_token", "code": "oauth_code",
                            "sig": "url_signature"}[key]
                    val = q[key][0]
                    if r.clean:
                        path = path.replace(val, "REDACTED")
                        r.dec("placeholder", "REDACTED")
                    else:
                        r.secrets.append({"value": val, "kind": kind})
            if "email" in q:
                em = q["email"][0]
                r.pi("email", em, shown=urllib.parse.quote(em))
        status = pick([200, 200, 200, 304, 302, 404, 499])
        out.append(f'{ip} - - [{R.randint(1, 28):02d}/Nov/2026:'
                   f'{R.randint(0, 23):02d}:{R.randint(0, 59):02d}:{R.randint(0, 59):02d} +0000] '
                   f'"GET {path} HTTP/1.1" {status} {R.randint(0, 90000)} "-"'
                   f' "{pick(USER_AGENTS)}"')
    body = f"$ tail -n {len(out)} /var/log/nginx/access.log\n" + "\n".join(out)
    return prose_wrap(r, body, before=0.5)


def st_ci_logs(r):
    shape = R.randrange(5)
    name, v = vendor_secret(r)
    if shape == 0:
        body = f"""Run ./scripts/deploy.sh
  ./scripts/deploy.sh
  shell: /usr/bin/bash -e {{0}}
  env:
    AWS_ACCESS_KEY_ID: ***
    AWS_SECRET_ACCESS_KEY: ***
    {name}: ***
+ echo "debug: using token {v}"
debug: using token {v}
+ curl -sf -X POST https://api.{pick(['acme.io', 'netlify.com'])}/deploys
Error: Process completed with exit code 22."""
        r.dec("masked", "***")
    elif shape == 1:
        pw = r.sec("password", password_urlsafe())
        body = f"""Running with gitlab-runner 17.{R.randint(0, 6)}.0 (
  on {pick(['shared-runner', 'k8s-runner-eu'])} {rs(8, string.ascii_lowercase + string.digits)}
$ echo "$CI_REGISTRY_PASSWORD" | docker login -u "$CI_REGISTRY_USER" --password-stdin $CI_REGISTRY
Login Succeeded
$ export DATABASE_URL="postgres://ci:{pw}@postgres:5432/test"
$ bundle exec rake db:setup
[MASKED] is masked; variable DB_ROOT_PASSWORD is protected
Job succeeded"""
        r.dec("masked", "[MASKED]")
    elif shape == 2:
        body = f"""[Pipeline] withCredentials
Masking supported pattern matches of $NEXUS_PASSWORD
[Pipeline] {{
[Pipeline] sh
+ mvn -s settings.xml deploy -Dnexus.password=****
[INFO] Uploading to nexus: https://nexus.acme.io/repository/releases/com/acme/core/{version()}/core.jar
[Pipeline] sh
+ set -x; export {name}={v}
[Pipeline] }}
[Pipeline] // withCredentials
Finished: {pick(['SUCCESS', 'FAILURE'])}"""
        r.dec("masked", "****")
    elif shape == 3:
        body = f"""~~~ :docker: Building image
$ docker build --build-arg NPM_TOKEN={r.sec('npm_token', npm_token())} -t acme/web:{r.dec('commit_sha', sha1()[:12])} .
Step 4/12 : ARG NPM_TOKEN
Step 5/12 : RUN echo "//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}" > .npmrc && npm ci
~~~ :rocket: Deploy
{name}={v} ./deploy.sh --env production
🚨 Error: The command exited with status 1"""
    else:
        body = f"""##[section]Starting: Deploy to App Service
Task         : Azure App Service deploy
Version      : 4.{R.randint(200, 250)}.0
##[debug]Agent.BuildDirectory=D:\\a\\1
##[debug]{name}=********
##[debug]connectionString=DefaultEndpointsProtocol=https;AccountName=stdeploy{d(3)};AccountKey\
={r.sec('azure_storage_key', azure_storage_key())};EndpointSuffix=core.windows.net
##[error]Failed to deploy web package to App Service.
##[section]Finishing: Deploy to App Service"""
        r.dec("masked", "********")
    return prose_wrap(r, body, before=0.6)


def st_sentry_event(r):
    p = r.person(pick(LANGS))
    ip = public_ip()
    cookie = rs(32, HEX)
    ev = {"event_id": hex_key(32), "level": "error", "platform": "python", "timestamp": ts(),
          "release": f"web@{version()}", "environment": "production",
          "user": {"id": d(7), "email": p.email, "ip_address": ip, "username": p.user},
          "request": {"url": f"https://shop.acme.io/checkout?step={R.randint(1, 4)}", "method": "POST",
                      "headers": {"Cookie": f"sessionid={cookie}; csrftoken={rs(32)}", "User-Agent": "Mozilla/5.0"},
                      "data": {"card_number": "[Filtered]", "cardholder": p.full}},
          "exception": {"values": [{"type": "KeyError", "value": "'shipping_address'"}]},
          "tags": {"trace_id": hex_key(32)}}
    text = json.dumps(ev, indent=2, ensure_ascii=False)
    if r.clean:
        text = text.replace(cookie, "[Filtered]")
    else:
        r.secrets.append({"value": cookie, "kind": "session_cookie"})
    r.dec("masked", "[Filtered]")
    r.dec("event_id", ev["event_id"])
    r.pi("email", p.email)
    r.pi("ip_address", ip)
    r.pi("username", p.user)
    r.pi("person_name", p.full)
    if chance(0.4):
        text = "Datadog event dump:\n" + text.replace('"platform": "python"', '"source": "datadog-agent"')
    return prose_wrap(r, text, before=0.6)


def st_stack_trace(r):
    shape = R.randrange(3)
    p = r.person()
    home = home_path(r, p)
    sep = "\\" if home.startswith("C:") else "/"
    if shape == 0:
        dsn = db_url(r, "postgresql")
        body = f"""Traceback (most recent call last):
  File "{home}{sep}src{sep}orders{sep}app.py", line {R.randint(10, 400)}, in <module>
    engine = create_engine(settings.DATABASE_URL)
  File "{home}{sep}.venv{sep}lib{sep}python3.12{sep}site-packages{sep}sqlalchemy{sep}engine{sep}create.py", line 602,\
 in create_engine
    u = _url.make_url(url)
sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "{host()}" failed: FATAL: \
 password authentication failed for user "orders"
(Background on this error at: https://sqlalche.me/e/20/e3q8)
DATABASE_URL={dsn}"""
    elif shape == 1:
        name, v = vendor_secret(r)
        body = f"""Exception in thread "main" org.springframework.beans.factory.BeanCreationException: Error creating\
 bean with name 'paymentClient'
\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.initializeBean(AbstractAutowireCapab\
leBeanFactory.java:1806)
\tat com.acme.payments.PaymentClient.<init>(PaymentClient.java:{R.randint(20, 200)})
Caused by: java.lang.IllegalStateException: 401 from upstream, key={v}
\tat com.acme.payments.PaymentClient.auth(PaymentClient.java:88)
\t... {R.randint(10, 40)} more
# config loaded from {home}{sep}acme{sep}payments{sep}application-local.yml"""
    else:
        tok = jwt(p.full, p.email)
        body = f"""Unhandled Runtime Error
TypeError: Cannot read properties of undefined (reading 'tenantId')
    at getTenant (webpack-internal:///./src/lib/auth.ts:{R.randint(10, 90)}:{R.randint(5, 40)})
    at async handler ({home}{sep}work{sep}web{sep}.next{sep}server{sep}pages{sep}api{sep}me.js\
:{R.randint(10, 90)}:{R.randint(5, 40)})
token was: {r.sec('jwt', tok)}
decoded: {{"name":"{r.name(p)}","email":"{r.email(p)}"}}"""
    return prose_wrap(r, body)


# ---------------------------------------------------------------- styles: people talking

def st_chat(r):
    shape = R.randrange(3)
    a = r.person()
    b = r.person()
    t0 = f"{R.randint(8, 18)}:{R.randint(10, 59)}"
    name, v = vendor_secret(r)
    pw = r.sec("password", password_any())
    msgs = [(a, r.prose(ASK)), (b, r.prose(HERE)), (a, f"`{name}={v}`"), (b, r.prose(WORKS)),
            (a, f"{pick(['pw', 'password', 'pass', 'mdp', 'hasło', 'пароль', 'パスワード'])}: {pw}"), (b,
                                                                                                  r.prose(ROTATE))]
    if chance(0.5):
        msgs.append((a, r.prose(CUSTOMER)))
    if chance(0.25):
        key = "\n".join(pem_text(r, pick(["OPENSSH PRIVATE KEY", "RSA PRIVATE KEY"])))
        msgs.append((b, f"```\n{key}\n```"))
    if shape == 0:
        lines = [f"{r.name(p)}  {t0 if i == 0 else ''}\n{m}" for i, (p, m) in enumerate(msgs)]
        body = f"#{pick(['ops', 'backend', 'incident-4711', 'team-payments'])}\n\n" + "\n\n".join(lines)
    elif shape == 1:
        lines = [f"[{R.randint(8, 18)}:{R.randint(10, 59)}] {r.name(p)}: {m}" for p, m in msgs]
        body = "Teams chat export\n" + "\n".join(lines)
    else:
        lines = [f"**{r.pi('username', p.user)}** — {pick(['Today', 'Yesterday'])} at"
                 f" {R.randint(1, 12)}:{R.randint(10, 59)} PM\n{m}"
                 for p, m in msgs]
        body = "\n\n".join(lines)
    return body


def st_ticket(r):
    shape = R.randrange(3)
    reporter = r.person()
    cust = r.person(pick(LANGS))
    key = f"{pick(['OPS', 'SUP', 'PAY', 'INFRA'])}-{R.randint(100, 9999)}"
    r.dec("ticket_id", key)
    pw = password_any()
    nid_kind, nid = national_id(cust.lang)
    fields = [f"Reporter: {r.name(reporter)} <{r.email(reporter, work=True)}>",
              f"Customer: {r.name(cust)}, {r.phone(cust)}, {r.pi('postal_address', cust.address)}"]
    if chance(0.6):
        fields.append(f"{pick(['ID number', 'Ausweis-Nr.', 'PESEL/NIR', 'ID'])}: {r.pi(nid_kind, nid)}")
    if shape == 0:
        body = (f"{key}: {pick(['Login broken after password reset', 'Refund not processed', 'SFTP upload fails'])}\n"
                f"Status: {pick(['Open', 'In Progress'])}   Priority: {pick(['High', 'Medium'])}\n"
                + "\n".join(fields) +
                f"\n\n{r.prose(ASK)}\n{r.prose(CUSTOMER)}\n\nTemporary password set by support:"
                f" {r.sec('password', pw)}\n")
    elif shape == 1:
        body = (f"Zendesk ticket #{R.randint(10000, 999999)}\n" + "\n".join(fields) +
                f"\n\nInternal note ({r.name(reporter)}): {r.prose(WORKS)} "
                f"SFTP creds for the partner: user=edi_{d(4)} pass={r.sec('ftp_password', password_urlsafe())}\n"
                f"Public reply: {r.prose(THANKS)}")
    else:
        name, v = vendor_secret(r)
        body = (f"Linear · {key}\n{r.prose(ASK)}\n\n```\n{name}={v}\n```\n\n" + "\n".join(fields) +
                f"\n\n— {r.name(reporter)} commented: {r.prose(ROTATE)}")
    return body


def st_email(r):
    a = r.person()
    b = r.person()
    subjects = {"de": "Zugangsdaten Testumgebung", "fr": "Accès SFTP", "es": "Credenciales API",
                "ru": "Доступы к серверу",
                "ko": "API 키 전달", "ja": "アカウント情報", "zh": "服务器账号", "pl": "Dane dostępowe",
                "it": "Credenziali SFTP",
                "pt": "Acesso ao servidor", "tr": "Sunucu erişimi", "uk": "Доступи до сервера", "nl": "Inloggegevens"}
    subj = subjects.get(r.lang, pick(["VPN access", "Re: invoice", "SFTP access", "Fwd: credentials"]))
    pw = r.sec("password", password_any())
    user = pick(["admin", b.user, "partner_ro"])
    extra = ""
    if chance(0.5):
        codes = recovery_codes(R.randint(4, 8))
        extra = "\nBackup codes:\n" + "\n".join(r.sec("recovery_code", c) for c in codes)
    org = company()
    r.dec("company", org)
    titles = ['Senior DevOps Engineer', 'IT-Administrator', 'Chef de projet', 'Head of Support']
    sig = f"--\n{r.name(a)}\n{pick(titles)}\n{org}\n" \
          f"{pick(['Tel', 'Mob', 'T'])}: {r.phone(a)}\n{r.pi('postal_address', a.address)}"
    quoted = "\n".join("> " + ln for ln in f"{r.prose(ASK)}\n\n{r.name(b)}".split("\n"))
    body = f"""From: {r.name(a)} <{r.email(a, work=True)}>
To: {r.name(b)} <{r.email(b)}>
Subject: {subj}
Date: {pick(['Mon', 'Tue', 'Wed', 'Thu'])}, {R.randint(1, 28)} Nov 2026 {R.randint(8, 18)}:{R.randint(10, 59)}:00 +0100

{r.prose(HERE)}

Host: sftp.{pick(['acme.io', 'nordwind.de'])}
User: {user}
Password: {pw}{extra}

{r.prose(THANKS)}

{sig}

On {R.randint(1, 28)} Nov 2026, {b.full} <{b.email}> wrote:
{quoted}"""
    return body


# ---------------------------------------------------------------- styles: business exports

def st_business_csv(r):
    shape = R.randrange(3)
    n = R.randint(3, 9)
    people = [r.person(pick(LANGS)) for _ in range(n)]
    sep = "\t" if shape == 2 else pick([",", ";"])
    if shape == 0:
        hdr = ["id", "first_name", "last_name", "email", "phone", "company", "created_at", "lead_source"]
        rows = [sep.join(hdr)]
        for p in people:
            r.pi("person_name", p.first)
            r.pi("person_name", p.last)
            rows.append(sep.join([str(R.randint(1000, 99999)), p.first, p.last, r.email(p), r.phone(p), company(),
                                  ts()[:10], pick(["webinar", "referral", "ads"])]))
    elif shape == 1:
        hdr = ["employee_no", "name", "birth_date", "national_id", "iban", "gross_salary", "department"]
        rows = [sep.join(hdr)]
        for p in people:
            kind, nid = national_id(p.lang)
            rows.append(sep.join([f"E{d(5)}", f'"{r.name(p)}"', r.pi("date_of_birth", p.dob), r.pi(kind, nid),
                                  r.pi("iban", iban(LANG_IBAN.get(p.lang))), f"{R.randint(30, 140) * 1000}",
                                  pick(["Finance", "IT", "Sales", "Lager"])]))
    else:
        hdr = ["Kunde", "E-Mail", "Telefon", "Adresse", "Karte", "Bestellnr.", "SKU", "Summe"]
        rows = [sep.join(hdr)]
        for p in people:
            rows.append(sep.join([r.name(p), r.email(p), r.phone(p), r.pi("postal_address", p.address),
                                  r.pi("payment_card", card()) if chance(0.4) else "****" + d(4),
                                  r.dec("order_number", f"SO-{d(7)}"), r.dec("sku",
                                                                             f"{rs(3, string.ascii_uppercase)}-{d(4)}"),
                                  f"{R.randint(5, 900)},{d(2)} EUR"]))
    body = f"{pick(['export.csv', 'crm_leads_2026-11.csv', 'payroll_nov.csv', 'orders.tsv'])}:\n" + "\n".join(rows)
    if chance(0.3):
        key = r.sec("api_key", rs(32))
        body += f"\n\n# exported via https://crm.acme.io/api/export?key={key}"
    return prose_wrap(r, body, before=0.6, after=0.3)


def st_invoice_bank(r):
    shape = R.randrange(3)
    p = r.person()
    if shape == 0:
        inv = r.dec("invoice_number", f"INV-2026-{d(5)}")
        body = f"""{company()}
INVOICE {inv}
Bill to: {r.name(p)}
{r.pi('postal_address', p.address)}
VAT ID: {r.dec('vat_id', pick(['DE', 'FR', 'PL']) + d(9))}

Item                         Qty   Price
{pick(['Support plan Pro', 'Cloud hosting M'])}             1     {R.randint(50, 900)}.00
{pick(['Setup fee', 'Extra seats'])}                    {R.randint(1, 9)}     {R.randint(10, 90)}.00

Payment to IBAN {r.pi('iban', iban())} within 14 days. Reference: {inv}"""
    elif shape == 1:
        lines = []
        for _ in range(R.randint(4, 10)):
            q = r.person(pick(LANGS))
            lines.append(f"{R.randint(1, 28):02d}.11.2026 "
                         f" {pick(['SEPA-Überweisung', 'Lastschrift', 'Kartenzahlung'])}  "
                         f"{r.name(q):<22} {r.pi('iban', iban())}  {pick(['-', '+'])}{R.randint(5, 3000)},{d(2)}")
        body = f"Kontoauszug {r.name(p)} — Konto {r.pi('iban', iban('DE'))}\n" + "\n".join(lines)
    else:
        body = f"""Shipping label / Sendungsdaten
Tracking: {r.dec('tracking_number', '00340434' + d(12))}
Recipient: {r.name(p)}
Address: {r.pi('postal_address', p.address)}
Phone: {r.phone(p)}
Order: {r.dec('order_number', f'#{d(6)}')}   SKU: {r.dec('sku', f'{rs(2, string.ascii_uppercase)}{d(5)}')}
Paid with {pick(['Visa', 'Mastercard'])} {r.pi('payment_card', card())}"""
    return prose_wrap(r, body, before=0.4, after=0.3)


def st_clinic_insurance(r):
    p = r.person()
    kind, nid = national_id(p.lang)
    mrn = f"MRN-{d(8)}"
    ins = de_kvnr() if p.lang == "de" else f"{rs(3, string.ascii_uppercase)}{d(9)}"
    body = f"""{pick(['Patient record', 'Patientenakte', 'Dossier patient', 'Karta pacjenta', '診療記録'])}
Name: {r.name(p)}
DOB: {r.pi('date_of_birth', p.dob)}
{pick(['MRN', 'Patienten-Nr.'])}: {r.pi('medical_record_number', mrn)}
Insurance no.: {r.pi('insurance_number', ins)}
ID: {r.pi(kind, nid)}
Phone: {r.phone(p)}
Address: {r.pi('postal_address', p.address)}
Diagnosis: {pick(['J06.9', 'E11.9', 'M54.5', 'I10'])} (ICD-10)
Attending: Dr. {r.name(r.person())}
Portal login: {p.email} / {r.sec('password', password_human())}"""
    r.pi("email", p.email)
    if chance(0.3):
        body += f"\nPassport: {r.pi('passport_number', passport())}"
    return prose_wrap(r, body, before=0.5, after=0.3)


# ---------------------------------------------------------------- styles: agent transcripts and terminals

def inner_output(r):
    """Tool output for agent panes: reuse a config/CLI style without surrounding prose."""
    fn = pick([st_dotenv, st_yaml_toml_ini, st_aws_cli, st_docker, st_kubectl_helm, st_db_session, st_curl_verbose,
               st_pkg_creds, st_code_config, st_conn_strings, st_ci_logs, st_secret_managers, st_terraform,
               st_stack_trace, st_app_logs, st_sops_k8s_secret])
    NO_PROSE[0] = True
    try:
        text = fn(r)
    finally:
        NO_PROSE[0] = False
    lines = text.split("\n")
    first = lines[0]
    if first.startswith("$ "):
        return first[2:], "\n".join(lines[1:])
    if first.startswith("PS C:\\> "):
        return first[len("PS C:\\> "):], "\n".join(lines[1:])
    words = first.split(" ")
    if first.startswith(("# ", "// ")) and len(words) > 1 and ("." in words[1] or "/" in words[1]):
        return f"cat {words[1]}", text
    return pick(["./scripts/debug.sh 2>&1 | tail -n 60", "make check-config", "cat /tmp/out.log"]), text


def multiline_to_pieces(r):
    for lab in r.labels():
        shown = lab.get("shown", lab["value"])
        if "pieces" not in lab and "\n" in shown:
            lab["pieces"] = [ln for ln in shown.split("\n") if len(ln.strip()) >= 6]
            lab["pieces"] = [ln.strip() for ln in lab["pieces"]]
            lab.pop("shown", None)


def indent_lines(text, first, rest):
    lines = text.split("\n")
    return "\n".join((first if i == 0 else rest) + ln for i, ln in enumerate(lines))


def user_prompt(r):
    return pick([r.prose(ASK), r.prose(WORKS) + " " + r.prose(ASK), "why does the deploy fail? check the config"])


def st_agent_claude(r):
    cmd, out = inner_output(r)
    lines = out.split("\n")
    if len(lines) > 25 and chance(0.5):
        shown_lines = lines[:20]
        out_txt = "\n".join(shown_lines) + f"\n… +{len(lines) - 20} lines (ctrl+r to expand)"
        hidden = "\n".join(lines[20:])
        for cls in (r.secrets, r.pii, r.decoys):
            keep = []
            for lab in cls:
                sh = lab.get("shown", lab["value"])
                if sh in "\n".join(shown_lines) or any(p in "\n".join(shown_lines) for p in lab.get("pieces", [])) \
                        or sh not in hidden:
                    keep.append(lab)
            cls[:] = keep
    else:
        out_txt = out
    multiline_to_pieces(r)
    pane = indent_lines(out_txt, "  ⎿  ", "     ")
    text = f"""> {user_prompt(r)}

⏺ {pick(["I'll look at the configuration first.", "Let me check the environment.", "Checking the failing step."])}

⏺ Bash({cmd})
{pane}

⏺ {pick(['The connection fails because the password contains characters that need URL encoding.',
         'The token in this file is being used in production; it should be rotated and moved to the secret store.',
         'I found the problem: the service reads the wrong variable name.'])}"""
    return wrap_maybe(r, text, 0.3)


def st_agent_codex(r):
    cmd, out = inner_output(r)
    multiline_to_pieces(r)
    p = r.person()
    cwd = home_path(r, p) + pick(["/src/api", "/work/shop", "/projects/infra"])
    text = f"""user
{user_prompt(r)}

codex
{pick(['I will inspect the config and logs.', 'Inspecting the repo for the failing setting.'])}

exec
bash -lc '{cmd}' in {cwd}
 succeeded in {R.randint(8, 900)}ms:
{out}

codex
{pick(['The secret is committed in plain text; recommend moving it to the vault.', 'Found the misconfigured host.'])}
tokens used: {R.randint(1000, 40000):,}"""
    return wrap_maybe(r, text, 0.2)


def st_agent_json(r):
    cmd, out = inner_output(r)
    msgs = [{"role": "user", "content": user_prompt(r)},
            {"role": "assistant", "content": [{"type": "text", "text": "Let me look."},
                                              {"type": "tool_use", "id": "toolu_" + rs(24), "name": "Bash",
                                               "input": {"command": cmd}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_" + rs(24), "content": out}]}]
    ascii_only = chance(0.5)
    multiline_to_pieces(r)
    text = json.dumps(msgs, ensure_ascii=ascii_only, indent=pick([None, 2]))
    encode_labels(r, json_esc(ascii_only))
    if chance(0.3):
        outer = json.dumps({"session": uuid4(), "transcript": text}, ensure_ascii=ascii_only)
        encode_labels(r, json_esc(ascii_only))
        text = outer
    return text


def box(lines, width):
    top = "╭" + "─" * (width + 2) + "╮"
    bot = "╰" + "─" * (width + 2) + "╯"
    body = []
    for ln in lines:
        if len(ln) <= width:
            body.append(f"│ {ln}{' ' * (width - len(ln))} │")
        else:
            body.append(f"│ {ln}")
    return "\n".join([top] + body + [bot])


def st_agent_gemini_copilot_cursor(r):
    cmd, out = inner_output(r)
    multiline_to_pieces(r)
    shape = R.randrange(3)
    if shape == 0:
        lines = [f"✔  Shell {cmd}", ""] + ["   " + ln for ln in out.split("\n")]
        text = f"> {user_prompt(r)}\n\n" + box(lines, pick([90, 100, 116])) + \
            "\n\n✦ " + pick(['The password is hardcoded in the file above.',
                             'I see the issue in the connection string.'])
    elif shape == 1:
        text = f"""● {pick(['Run the config check', 'Inspect environment'])}
  $ {cmd}
{indent_lines(out, '  ↪ ', '    ')}

● {pick(['The API key is exposed in the output above.', 'The service is pointing at the wrong database host.'])}"""
    else:
        text = f"""**User**

{user_prompt(r)}

**Cursor**

Ran terminal command: `{cmd}`

```
{out}
```

{pick(['Never commit this file; add it to .gitignore.', 'The value on line 3 looks malformed.'])}"""
    return wrap_maybe(r, text, 0.2)


def st_terminal_wrap(r):
    cmd, out = inner_output(r)
    p = r.person()
    prompt = pick([f"{r.pi('username', p.user)}@{pick(['laptop', 'mbp', 'devbox'])}:~/src$ ",
                   f"[{p.user}@{host().split('.')[0]} ~]$ ", f"PS C:\\Users\\{p.user}> "])
    r.pi("username", p.user)
    extra = []
    for _ in range(R.randint(0, 2)):
        name, v = vendor_secret(r)
        extra.append(pick([f"{prompt}export {name}={v}", f"{prompt}echo ${name}\n{v}",
                           f"{prompt}curl -sS -H 'Authorization: Bearer {v}'"
                           f" https://api.acme.io/v2/{pick(['reports', 'users'])}"
                           f"?since={ts()}&limit=500 | jq '.items[] | {{id, status, created_at}}'"]))
    text = prompt + cmd + "\n" + out + "\n" + "\n".join(extra) + ("\n" if extra else "") + prompt
    for _ in range(40):
        w = pick([80, 80, 100, 120, 132])
        ind = R.randint(0, 6)
        saved = json.dumps([r.secrets, r.pii, r.decoys])
        res = wrap_text(r, text, w, ind)
        if res is not None:
            return res
        r.secrets, r.pii, r.decoys = json.loads(saved)
    return text


# ---------------------------------------------------------------- styles: code, reviews, notes

def st_git_diff(r):
    shape = R.randrange(3)
    p = r.person()
    sha = r.sha()
    name, v = vendor_secret(r)
    if shape == 0:
        body = f"""$ git show {sha[:pick([7, 12])]}
commit {sha}
Author: {r.name(p)} <{r.email(p, work=True)}>
Date:   {pick(['Mon', 'Fri'])} Nov {R.randint(1, 28)} {R.randint(8, 20)}:{R.randint(10, 59)}:{R.randint(10, 59)} 2026\
 +0100

    {pick(['quick fix for staging', 'add payment config', 'wip: hotfix', 'fix: use new token'])}

diff --git a/config/production.env b/config/production.env
index {rs(7, HEX)}..{rs(7, HEX)} 100644
--- a/config/production.env
+++ b/config/production.env
@@ -3,{R.randint(4, 9)} +3,{R.randint(4, 9)} @@ LOG_LEVEL=info
 PORT=8080
-{name}=
+{name}={v}
 CACHE_TTL_SECONDS=300
+DB_PASSWORD={r.sec('password', password_urlsafe())}"""
    elif shape == 1:
        old = pick(VENDOR)[1]()
        body = f"""diff --git a/src/client.ts b/src/client.ts
--- a/src/client.ts
+++ b/src/client.ts
@@ -12,7 +12,7 @@ import {{ Client }} from './http';
 export const client = new Client({{
   baseUrl: 'https://api.acme.io',
-  apiKey: '{r.sec('api_key', old)}',
+  apiKey: process.env.API_KEY ?? '',
   timeoutMs: {r.dec('setting', str(pick([5000, 30000])))},
 }});"""
        r.dec("placeholder", "process.env.API_KEY")
    else:
        body = f"""$ git log --oneline -n 6
{rs(7, HEX)} (HEAD -> main, origin/main) Merge pull request #{R.randint(100, 4000)} from {p.user}/fix-auth
{rs(7, HEX)} remove leaked key ({name} {v})
{rs(7, HEX)} bump {pick(['axios', 'django', 'rails'])} to {version()}
{rs(7, HEX)} chore: rotate credentials, see {pick(['SEC', 'INFRA'])}-{R.randint(10, 999)}
$ git remote -v
origin\thttps://{p.user}:{r.sec('github_token', gh_token())}@github.com/acme/{pick(['api', 'web', 'infra'])}.git\
 (fetch)"""
        r.pi("username", p.user)
    return prose_wrap(r, body, before=0.5)


def st_tables(r):
    shape = R.randrange(3)
    rows = []
    for _ in range(R.randint(3, 6)):
        svc = pick(["Grafana", "Jenkins", "Router", "NAS", "pgAdmin", "Wi-Fi Gäste", "Mailbox", "VPN", "Kibana"])
        user = pick(["admin", "root", "ops", "guest", r.person().user])
        pw = r.sec(pick(["password", "password", "wifi_password", "admin_password"]), password_any().replace("|", "!"))
        slug = svc.lower().replace(' ', '-').replace('ä', 'ae')
        url = r.dec("url", f"https://{slug}.{pick(['corp.example.net', 'acme.local'])}")
        rows.append((svc, user, pw, url))
    owner = r.person()
    if shape == 0:
        body = "| Service | User | Password | URL |\n|---|---|---|---|\n"
        body += "\n".join(f"| {a} | {b} | {c} | {u} |" for a, b, c, u in rows)
    elif shape == 1:
        w = [max(len(x[i]) for x in rows + [("Service", "User", "Password", "URL")]) for i in range(4)]
        sep = "┼".join("─" * (x + 2) for x in w)
        head = "│".join(f" {h:<{w[i]}} " for i, h in enumerate(["Service", "User", "Password", "URL"]))
        lines = ["│".join(f" {c:<{w[i]}} " for i, c in enumerate(row)) for row in rows]
        body = f"┌{sep.replace('┼', '┬')}┐\n│{head}│\n├{sep}┤\n"
        body += "\n".join(f"│{ln}│" for ln in lines) + f"\n└{sep.replace('┼', '┴')}┘"
    else:
        w = [max(len(x[i]) for x in rows) for i in range(4)]
        body = "\n".join("  ".join(f"{c:<{w[i]}}" for i, c in enumerate(row)).rstrip() for row in rows)
    title = pick(['Zugänge Büro', 'Credentials (internal)', 'Accès', 'Доступы', '계정 목록'])
    body = f"{title} — owner {r.name(owner)}\n\n" + body
    return prose_wrap(r, body, before=0.4)


def st_notebook_repl(r):
    shape = R.randrange(3)
    name, v = vendor_secret(r)
    if shape == 0:
        src = ["import os\n", f"os.environ['{name}'] = '{v}'\n", "client = Client()\n", "df = client.fetch('orders')\n"]
        p = r.person(pick(LANGS))
        out_txt = f"   order_id  customer                 email\n0  {d(6)}    {p.full:<24} {p.email}\n"
        nb = {"cells": [{"cell_type": "code", "execution_count": R.randint(1, 40), "metadata": {}, "source": src,
                         "outputs": [{"output_type": "stream", "name": "stdout", "text": [out_txt]}]}],
              "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}}, "nbformat": 4,
              "nbformat_minor": 5}
        r.pi("person_name", p.full)
        r.pi("email", p.email)
        ascii_only = chance(0.5)
        text = json.dumps(nb, indent=1, ensure_ascii=ascii_only)
        encode_labels(r, json_esc(ascii_only))
        return text
    if shape == 1:
        body = f""">>> import requests
>>> s = requests.Session()
>>> s.headers["Authorization"] = "Bearer {v}"
>>> r = s.get("https://api.acme.io/v1/me")
>>> r.status_code
{pick([200, 401])}
>>> r.json()
{{'id': {R.randint(1000, 99999)}, 'plan': 'pro', 'request_id': '{r.uuid()}'}}"""
    else:
        pw = r.sec("password", password_urlsafe())
        body = f"""irb(main):001> ENV['DATABASE_URL']
=> "postgres://rails:{pw}@{r.host()}:5432/app_production"
irb(main):002> User.find_by(email: '{r.email(r.person())}')
=> #<User id: {R.randint(1, 9999)}, created_at: "{ts()}">
> const k = process.env.{name}
undefined
> k
'{v}'"""
    return prose_wrap(r, body, before=0.5)


def st_debug_notes(r):
    lang = r.lang
    pw = password_any()
    name, v = vendor_secret(r)
    p = r.person()
    notes = [f"## {pick(['Debug notes', 'Notizen', 'Notes', 'メモ', '笔记', 'Заметки', 'Notatki'])} {ts()[:10]}",
             f"- {r.prose(WORKS)}",
             f"- {r.prose(ASK)}",
             f"- `{name}` = `{v}`",
             f"- db: `{db_url(r)}`",
             f"- admin pw {pick(['(temp)', '', '(alt)'])}: {r.sec('password', pw)}",
             f"- {r.prose(CONTACT, p)}",
             f"- {r.prose(ROTATE)}",
             f"- trace: {r.dec('trace_id', hex_key(32))}, build {r.dec('commit_sha', sha1()[:10])}"]
    middle = notes[1:]
    if chance(0.25):
        key = "\n".join(pem_text(r, pick(["PRIVATE KEY", "EC PRIVATE KEY"])))
        middle.append(f"- deploy key:\n```\n{key}\n```")
    if chance(0.15):
        key = "\n".join(pgp_key())
        if r.clean:
            key = r.dec("placeholder", "[PGP key removed]")
        else:
            r.secrets.append({"value": key, "kind": "private_key"})
        middle.append(f"- signing key:\n{key}")
    R.shuffle(middle)
    if chance(0.4):
        middle.append(f"- {PROSE[lang][CUSTOMER].split('{')[0].strip()} → {r.email(r.person())}")
    return "\n".join([notes[0]] + middle)


def st_code_review(r):
    p = r.person()
    q = r.person()
    name, v = vendor_secret(r)
    fname = pick(["src/settings.py", "deploy/values.yaml", "app/config.ts", "internal/db/conn.go"])
    body = f"""**{r.pi('username', p.user)}** commented on `{fname}` line {R.randint(3, 120)}:

```suggestion
{name.lower()} = os.environ["{name}"]
```
{pick(['Please do not hardcode this.', 'Bitte nicht im Code hinterlegen.', 'Merci de ne pas commiter ce secret.',
       'これはハードコードしないでください。', '请不要把密钥写死在代码里。', 'Не хардкодь ключ.'])}

> -    {name.lower()} = "{v}"

**{r.pi('username', q.user)}** replied:
{r.prose(ROTATE, lang=r.lang)} {r.prose(THANKS, lang=r.lang)}

Review status: Changes requested · commit {r.dec('commit_sha', sha1()[:7])}"""
    return body


# ---------------------------------------------------------------- driver

STYLES = {
    "aws_cli": st_aws_cli,
    "gcp_azure_cli": st_gcp_azure,
    "secret_manager_cli": st_secret_managers,
    "sops_k8s_secret": st_sops_k8s_secret,
    "docker": st_docker,
    "kubectl_helm_nomad": st_kubectl_helm,
    "terraform": st_terraform,
    "ansible_pulumi_cfn": st_ansible_pulumi_cfn,
    "dotenv": st_dotenv,
    "yaml_toml_ini": st_yaml_toml_ini,
    "code_config": st_code_config,
    "dotnet_java_config": st_dotnet_java,
    "package_credentials": st_pkg_creds,
    "db_session": st_db_session,
    "connection_strings": st_conn_strings,
    "curl_httpie": st_curl_verbose,
    "copy_as_curl_har": st_copy_as_curl_har,
    "api_collection": st_api_collection,
    "app_logs": st_app_logs,
    "nginx_access_log": st_nginx_access,
    "ci_logs": st_ci_logs,
    "sentry_datadog_event": st_sentry_event,
    "stack_trace": st_stack_trace,
    "chat": st_chat,
    "ticket": st_ticket,
    "email": st_email,
    "business_csv": st_business_csv,
    "invoice_bank_shipping": st_invoice_bank,
    "clinic_insurance": st_clinic_insurance,
    "agent_claude_code": st_agent_claude,
    "agent_codex": st_agent_codex,
    "agent_json_messages": st_agent_json,
    "agent_gemini_copilot_cursor": st_agent_gemini_copilot_cursor,
    "terminal_wrapped": st_terminal_wrap,
    "git_diff_log": st_git_diff,
    "tables": st_tables,
    "notebook_repl": st_notebook_repl,
    "debug_notes": st_debug_notes,
    "code_review": st_code_review,
}

LONG_OK = {"app_logs", "ci_logs", "agent_claude_code", "agent_codex", "nginx_access_log", "stack_trace", "debug_notes",
           "terminal_wrapped", "dotenv"}
NO_WRAP = {"agent_json_messages", "notebook_repl", "terminal_wrapped", "chat", "email", "business_csv"}
ALWAYS_PROSE = {"chat", "ticket", "email", "debug_notes", "code_review"}


def check_row(row, text):
    problems = []
    for cls in ("secrets", "pii", "decoys"):
        for lab in getattr(row, cls):
            if not lab["value"]:
                problems.append(f"{cls}: empty value")
            elif "pieces" in lab:
                for piece in lab["pieces"]:
                    if len(piece) < 6 or piece not in text:
                        problems.append(f"{cls}: bad piece {piece!r}")
            elif "shown" in lab:
                if lab["shown"] not in text:
                    problems.append(f"{cls}: shown missing {lab['shown'][:40]!r}")
            elif lab["value"] not in text:
                problems.append(f"{cls}: value missing {lab['value'][:40]!r}")
    if row.clean and row.secrets:
        problems.append("clean row has secrets")
    return problems


def dedupe(labels):
    seen = set()
    out = []
    for lab in labels:
        key = json.dumps(lab, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        out.append(lab)
    return out


def pad_long(row, text):
    extra = log_noise(row, R.randint(60, 160))
    cut = R.randint(0, len(extra))
    return "\n".join(extra[:cut]) + "\n" + text + "\n" + "\n".join(extra[cut:])


def build_row(style, fn, lang, clean, long_text):
    row = Row(style, lang, clean)
    text = fn(row)
    if long_text:
        text = pad_long(row, text)
    if style not in NO_WRAP and chance(0.12):
        text = wrap_maybe(row, text, 1.0)
    row.secrets = dedupe(row.secrets)
    row.pii = dedupe(row.pii)
    row.decoys = dedupe([lab for lab in row.decoys if lab["value"]])
    return row, text


def generate(seed, per_style):
    R.seed(seed)
    rows = []
    styles = list(STYLES.items())
    plan = []
    for style, fn in styles:
        for _ in range(per_style):
            plan.append((style, fn))
    for style, fn in styles[:R.randint(10, 16)]:
        plan.append((style, fn))
    R.shuffle(plan)
    failures = collections.Counter()
    for style, fn in plan:
        lang = pick(PROSE_LANGS) if chance(0.85) or style in ALWAYS_PROSE else "en"
        clean = chance(0.25)
        long_text = style in LONG_OK and chance(0.12)
        for _ in range(30):
            row, text = build_row(style, fn, lang, clean, long_text)
            if not check_row(row, text):
                break
            failures[style] += 1
        else:
            raise SystemExit(f"could not build a valid row for {style}: {check_row(row, text)}")
        if clean and row.secrets:
            raise SystemExit(f"clean row with secrets in {style}")
        out_lang = lang if (row.used_prose or style in ALWAYS_PROSE) else "en"
        rows.append({"id": f"fsd-{len(rows) + 1:04d}", "style": style, "lang": out_lang, "text": text,
                     "secrets": row.secrets, "pii": row.pii, "decoys": row.decoys})
    return rows, failures


def stats(rows):
    by_style = collections.Counter(r["style"] for r in rows)
    by_lang = collections.Counter(r["lang"] for r in rows)
    kinds = collections.Counter()
    for r in rows:
        for cls in ("secrets", "pii", "decoys"):
            for lab in r[cls]:
                kinds[f"{cls}:{lab['kind']}"] += 1
    no_secret = sum(1 for r in rows if not r["secrets"])
    lengths = sorted(len(r["text"]) for r in rows)
    print(f"rows: {len(rows)}  no-secret rows: {no_secret} ({100 * no_secret / len(rows):.1f}%)")
    print(f"text length: min {lengths[0]}  median {lengths[len(lengths) // 2]}  max {lengths[-1]}")
    print(f"with shown: {sum(1 for r in rows for c in ('secrets', 'pii', 'decoys') for x in r[c] if 'shown' in x)}  "
          f"with pieces: {sum(1 for r in rows for c in ('secrets', 'pii', 'decoys') for x in r[c] if 'pieces' in x)}")
    print("\nby style:")
    for k, v in sorted(by_style.items()):
        print(f"  {k:<30} {v}")
    print("\nby language:")
    for k, v in sorted(by_lang.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<6} {v}")
    print("\nby label kind:")
    for k, v in sorted(kinds.items()):
        print(f"  {k:<40} {v}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=50321)
    ap.add_argument("--per-style", type=int, default=11)
    ap.add_argument("--out", default="set.jsonl")
    ap.add_argument("--stats", action="store_true")
    args = ap.parse_args()
    rows, _failures = generate(args.seed, args.per_style)
    with open(args.out, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    with open(args.out, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    print(f"wrote {len(rows)} rows to {args.out} sha256={digest}", file=sys.stderr)
    if args.stats:
        stats(rows)


if __name__ == "__main__":
    main()
