"""Whether a value is what its field's label says: a person's name, a date of birth, an address.

Each test takes the value as the field shows it and answers with the span of it that is the
personal data (a name before its ``<address>``, the date before a time), or None. They decide
on the value's shape alone: the label has already said what the field is, so a test only has to
turn down what the field is not (a service's name under ``name``, an IP under ``address``, a
version under ``dob``). Numbers with check digits are numbers.py's.
"""

from __future__ import annotations

import functools
import re
import unicodedata
import urllib.parse

Span = tuple[int, int]

_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


def readable(value: str) -> str:
    """The value as a person reads it: a form's ``%C3%A9`` and ``+``, JSON's ``\\u00e9``. Only
    for judging; the span redacted is always the value as the text holds it."""
    if "\\u" in value:
        value = _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), value)
    if "%" in value and _PERCENT.search(value) or "+" in value and " " not in value and not value.startswith("+"):
        value = urllib.parse.unquote_plus(value)
    return value


# --- names --------------------------------------------------------------------------------------

# where a name stops: its address, a remark, the next item of a list
_NAME_END = re.compile(r"\s*(?:<|\(|\[|,|،|、|;|\||/|\s-\s|\s–\s|\s—\s|\s\d)")
_PARTICLES = frozenset((
    "van", "von", "de", "da", "del", "della", "der", "den", "di", "du", "la", "le", "dos", "das", "do", "bin", "bint",
    "al", "el", "ten", "ter", "y", "e", "zu", "af", "av", "mc", "st", "ibn", "ben", "het", "'t",
))
# Title-case words a step's, a service's or a document's name is made of, never a person's:
# "Build Docker Image", "Run Tests", "Production Server" stay under a bare "name".
NOT_NAMES = frozenset((
    "the", "and", "or", "of", "for", "to", "in", "on", "with", "by", "at", "from", "new", "old", "my", "your", "our",
    "all", "test", "tests", "testing", "build", "builds", "run", "runs", "deploy", "deployment", "install", "setup",
    "set", "check", "checks", "lint", "upload", "download", "cache", "release", "publish", "checkout", "create",
    "update", "delete", "get", "start", "stop", "server", "service", "services", "default", "production",
    "staging", "development", "dev", "prod", "main", "master", "app", "application", "api", "web", "data", "user",
    "users", "admin", "system", "local", "remote", "docker", "image", "images", "node", "python", "java", "go",
    "rust", "linux", "windows", "macos", "ubuntu", "debian", "job", "step", "task", "pipeline", "workflow",
    "action", "actions", "bot", "team", "group", "inc", "ltd", "llc", "gmbh", "corp", "company", "co", "sa", "ag",
    "bv", "srl", "spa", "plc", "project", "config", "configuration", "settings", "error", "warning", "info",
    "debug", "unknown", "none", "null", "true", "false", "yes", "no", "example", "sample", "demo", "foo", "bar",
    "database", "db", "cluster", "network", "storage", "bucket", "queue", "worker", "workers", "job", "jobs",
    "account", "accounts", "support", "billing", "sales", "security", "operations", "ops", "engineering",
    "marketing", "platform", "infrastructure", "internal", "external", "public", "private", "global", "cloud",
    "code", "tools", "tool", "engine", "manager", "management", "monitor", "monitoring", "report", "reports",
    "policy", "role", "key", "keys", "token", "secret", "secrets", "file", "files", "page", "home", "index",
    "search", "login", "logout", "sign", "payment", "payments", "order", "orders", "invoice", "customer",
    "customers", "product", "products", "store", "shop", "free", "pro", "plus", "premium", "basic", "standard",
    "enterprise", "edition", "version", "beta", "alpha", "preview", "stable", "latest", "nightly", "frontend",
    "backend", "gateway", "proxy", "router", "load", "balancer", "instance", "function", "lambda", "container",
    "pod", "volume", "disk", "backup", "restore", "migration", "migrate", "sync", "import", "export", "lead",
    "manager", "group", "center", "centre", "office", "department", "unit", "division", "board", "committee",
    "hospital", "clinic", "school", "university", "bank", "street", "road", "avenue", "city", "park", "hotel",
    "nv", "sas", "sarl", "kg", "ohg", "oy", "oyj", "aps", "kft", "sro", "doo", "pty", "pvt", "spzoo", "bhd", "kk", "systems",
    "solutions", "technologies", "labs", "logistics", "analytics", "software", "consulting", "group", "holdings",
))
_CJK_NAME = re.compile(r"[\u4e00-\u9fff]{2,4}|[\u4e00-\u9fff]{1,3} [\u3040-\u30ff\u4e00-\u9fff]{1,5}|[\uac00-\ud7af]{2,4}"
                       r"|[\u30a0-\u30ff\u3040-\u309f]{2,8}(?: [\u30a0-\u30ff\u3040-\u309f]{2,8})?")


# a word of a script without capitals: Arabic, Hebrew, the Indic scripts, Thai (letters and their
# combining signs; their digits and punctuation are no part of a name)
_UNCASED_WORD = (r"[\u0620-\u065f\u066e-\u06d3\u06d5-\u06ef\u06fa-\u06ff\u05d0-\u05ea\u0591-\u05c7"
                 r"\u0900-\u0963\u0970-\u0be5\u0bf0-\u0c65\u0c70-\u0ce5\u0cf0-\u0d65\u0d70-\u0d7f\u0e01-\u0e4e]{2,24}")
_UNCASED_NAME = re.compile(rf"{_UNCASED_WORD}(?: {_UNCASED_WORD}){{0,3}}")
_INITIALS = re.compile(r"(?:[^\W\d_]\.)+")


def _name_word(w: str, first: bool) -> bool:
    """A word of a name: letters, an apostrophe or a hyphen inside (O'Brien, Jean-Luc), a dot
    only after an initial (J., J.R.R.) or a short title (Jr.); never a dot inside (Fly.io)."""
    if "." in w and not (_INITIALS.fullmatch(w) or w.endswith(".") and "." not in w[:-1] and len(w) <= 4):
        return False
    letters = w.replace("'", "").replace("’", "").replace("-", "").replace(".", "")
    if not letters.isalpha():
        return False
    if w.lower() in _PARTICLES and not first:
        return True
    return w[0].isupper() and (len(letters) > 1 or w.endswith("."))


# a title before a name in a script without capitals (the name is read after it)
_TITLE = re.compile(r"(?:Dr|Prof|Mr|Mrs|Ms|Mx|Dra|Dott|Sr|Sra)\.? (?=\S)")


def name(value: str, specific: bool) -> Span | None:
    """A person's name at the start of ``value``: words in capitals ("Jean-Luc O'Brien", "van
    der Berg" inside one), or two to four Han or Hangul characters, or kana. Under a bare label
    (``specific`` False) only a full name: two words or more, none of them a common word of
    names of things."""
    text = readable(value)
    m = _NAME_END.search(text)
    head = text[:m.start()] if m else text
    head = head.strip().strip("\"'*")
    if not 2 <= len(head) <= 70 or head != head.strip():
        return None
    title = _TITLE.match(head)
    if title is not None and not head.isascii():
        head = head[title.end():]  # Dr. 李娜, Dr. प्रिया वर्मा: the name after a doctor's title
    if _CJK_NAME.fullmatch(head):
        ok = True
    elif not head.isascii() and _UNCASED_NAME.fullmatch(head):
        ok = specific or " " in head  # (no capitals to tell a name from a word: two words under a bare label)
    else:
        words = head.split(" ")
        if not 1 <= len(words) <= 5 or (not specific and len(words) < 2):
            return None
        ok = all(_name_word(w, i == 0) for i, w in enumerate(words))
        if ok and not specific:
            # (a company's suffix with its dots, S.r.l., B.V., S.A.S.: srl, bv, sas)
            ok = not any(w.lower().strip(".") in NOT_NAMES or w.lower().replace(".", "") in NOT_NAMES for w in words)
    if not ok:
        return None
    if text is not value:  # a form's or JSON's encoding: the whole value
        return 0, len(value)
    start = value.find(head)
    return start, start + len(head)


# --- dates of birth -----------------------------------------------------------------------------

_MONTHS = frozenset((
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "january",
    "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
    "januar", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember", "janvier", "février", "mars", "avril",
    "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre", "enero", "febrero", "marzo", "abril",
    "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre", "gennaio", "febbraio",
    "aprile", "maggio", "giugno", "luglio", "settembre", "ottobre", "dicembre", "janeiro", "fevereiro", "março",
    "maio", "junho", "julho", "setembro", "outubro", "novembro", "dezembro", "januari", "februari", "maart", "mei",
    "augustus", "stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września",
    "października", "listopada", "grudnia", "ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz",
    "ağustos", "eylül", "ekim", "kasım", "aralık", "января", "февраля", "марта", "апреля", "мая", "июня", "июля",
    "августа", "сентября", "октября", "ноября", "декабря",
))
_DATE = re.compile(
    r"(?P<ymd>(?P<y1>\d{4})[-/.](?P<m1>\d{1,2})[-/.](?P<d1>\d{1,2}))"
    r"|(?P<dmy>(?P<a2>\d{1,2})[-/.](?P<b2>\d{1,2})[-/.](?P<y2>\d{4}|\d{2}))"
    r"|(?P<cjk>(?P<y3>\d{4})\s*[年년]\s*(?P<m3>\d{1,2})\s*[月월]\s*(?P<d3>\d{1,2})\s*[日일]?)"
    r"|(?P<dm>(?P<d4>\d{1,2})\.?\s+(?P<mon4>[^\W\d_]{3,12})\.?,?\s+(?P<y4>\d{4}))"
    r"|(?P<md>(?P<mon5>[^\W\d_]{3,12})\.?\s+(?P<d5>\d{1,2}),?\s+(?P<y5>\d{4}))"
    r"|(?P<dmon>(?P<d6>\d{1,2})-(?P<mon6>[^\W\d_]{3,9})-(?P<y6>\d{4}|\d{2}))"
)


def _plausible(y: int, m: int, d: int) -> bool:
    return 1 <= m <= 12 and 1 <= d <= 31 and (y < 100 or 1880 <= y <= 2030)


def birth_date(value: str) -> Span | None:
    """A date at the start of ``value`` in any of the common orders and spellings (1984-03-02,
    02.03.1984, 03/02/1984, 2 March 1984, 1984年3月2日, 1984년 3월 2일); a time after it stays."""
    text = value.lstrip()
    lead = len(value) - len(text)
    m = _DATE.match(text)
    if m is None:
        return None
    g = m.groupdict()
    if g["ymd"]:
        ok = _plausible(int(g["y1"]), int(g["m1"]), int(g["d1"]))
    elif g["dmy"]:
        a, b, y = int(g["a2"]), int(g["b2"]), int(g["y2"])
        ok = _plausible(y, b, a) or _plausible(y, a, b)
    elif g["cjk"]:
        ok = _plausible(int(g["y3"]), int(g["m3"]), int(g["d3"]))
    else:
        mon = g["mon4"] or g["mon5"] or g["mon6"]
        d = int(g["d4"] or g["d5"] or g["d6"])
        y = int(g["y4"] or g["y5"] or g["y6"])
        ok = mon.lower() in _MONTHS and _plausible(y, 1, d)
    if not ok or (m.end() < len(text) and text[m.end()].isalnum() and text[m.end()] not in "T日일"):
        return None
    return lead, lead + m.end()


# --- postal addresses ---------------------------------------------------------------------------

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_CJK_ADDRESS = re.compile(r"[0-9０-９〒号丁目番地区市省県都府道路街洞동로길구읍면리호층]")
_NOT_POSTAL = re.compile(
    r"://|@|^[~/\\.$%{<]|^[A-Za-z]:\\|^0x[0-9a-fA-F]|^\[?[0-9a-fA-F:.]+\]?(?::\d+)?$|^[\w.\-]+:\d{1,5}$"
    r"|^(?:[0-9a-fA-F]{2}[:\-]){5}[0-9a-fA-F]{2}$"
)


def postal_address(value: str) -> Span | None:
    """A postal address: words and a number (a house, a postcode), not a host, an IP, a URL, a
    path or a hex address; in CJK scripts, characters and a number or an address word."""
    text = readable(value).strip().strip("\"'*").strip()
    if not 5 <= len(text) <= 200 or _NOT_POSTAL.search(text):
        return None
    if _CJK.search(text):
        if not (len(text) >= 6 and _CJK_ADDRESS.search(text)):
            return None
    elif not (any(c.isdigit() for c in text) and " " in text and sum(c.isalpha() for c in text) >= 4):
        return None
    if text is value or value.strip().strip("\"'*").strip() == text:
        start = value.find(text)
        if start >= 0:
            return start, start + len(text)
    return 0, len(value)


# --- e-mail -------------------------------------------------------------------------------------

_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+(?:@|%40)[A-Za-z0-9.\-]+\.[A-Za-z]{2,24}")


def email(value: str) -> Span | None:
    m = _EMAIL.search(value)
    return m.span() if m else None


# --- a greeting's addressee ---------------------------------------------------------------------

# who a greeting addresses when it is no one's name: a group, the world, a time of day
_GROUPS = frozenset("""
team all everyone everybody folks there world guys people friends colleagues both again y'all you
todos todas equipo chicos amigos tous toutes équipe zusammen alle leute team tutti ragazzi amici
pessoal equipe galera allemaal iedereen wszystkim wszyscy państwo herkese arkadaşlar всем коллеги
друзья команда всім колеги mọi người
""".split())
_TITLES = frozenset("""
mr mr. mrs mrs. ms ms. miss dr dr. prof prof. sir madam herr frau fr. hr. monsieur madame mme mme. m. mlle señor
señora sr sr. sra sra. don doña signor signore signora sig. sig.ra dott. dott.ssa senhor senhora pan pani bay bayan
господин госпожа пан пані anh chị em
""".split())


def addressee(value: str) -> Span | None:
    """The name a greeting addresses: a first name alone, a title and a name, or a full name
    (not a group's word: team, all, everyone)."""
    words = value.split()
    if not words or words[0].lower() in _GROUPS or value.lower() in _GROUPS:
        return None
    lead = 0
    while len(words) > 1 and words[0].lower() in _TITLES:
        lead = value.index(words[1], lead + len(words[0]))
        words = words[1:]
    rest = value[lead:]
    span = name(rest, specific=True)
    if span is None or span != (0, len(rest)) or rest.lower() in NOT_NAMES or rest.lower() in _GROUPS:
        return None
    if len(words) == 1 and rest.isupper() and rest.isascii():
        return None  # an acronym (Hi IT,)
    return lead, lead + len(rest)


# --- the name an e-mail address spells ------------------------------------------------------------

# a run of two or three words in capitals (Latin letters, with accents too: Émma Müller)
_UPPER = "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper())
_LOWER = "".join(c for c in map(chr, range(0xDF, 0x250)) if c.islower())
_CAPITALISED = rf"[A-Z{_UPPER}][a-z{_LOWER}'\-]+"
_CAPS_RUN = re.compile(rf"(?<![\w.@]){_CAPITALISED}(?:[ \t]+{_CAPITALISED}){{1,2}}(?![\w@])")
_NEAR = 3000  # how far from its address a name is looked for


@functools.lru_cache(maxsize=1)
def _fold_table() -> dict[int, str]:
    """Latin letters with accents to their base letter, one character for one (é: e, ø: o)."""
    table: dict[int, str] = {}
    for cp in range(0xC0, 0x250):
        base = unicodedata.normalize("NFKD", chr(cp))[0]
        if base.isascii() and base.isalpha():
            table[cp] = base
    table[ord("ø")], table[ord("Ø")], table[ord("ł")], table[ord("Ł")] = "o", "O", "l", "L"
    return table


@functools.lru_cache(maxsize=1024)
def _token_rx(token: str) -> re.Pattern[bytes]:
    """``token`` as a text shown with ``?`` for each character outside ASCII may write it (muller
    finds M?ller): each letter itself or a ?."""
    return re.compile(b"".join(b"[" + c.encode() + b"?]" for c in token))


def _accented_hits(shown: bytes, key: str) -> list[int]:
    """Where ``key`` is in ``shown`` (? for a letter outside ASCII: muller in m?ller), found from
    its first or its last three letters (bytes.find), each place then matched whole."""
    rx = _token_rx(key)
    places: set[int] = set()
    for part, back in ((key[:3].encode(), 0), (key[-3:].encode(), len(key) - 3)):
        i = shown.find(part)
        while i >= 0:
            if i - back >= 0 and rx.match(shown, i - back):
                places.add(i - back)
            i = shown.find(part, i + 1)
    return sorted(places)


@functools.lru_cache(maxsize=2)
def _lowered(text: str) -> str | None:
    """An ASCII text in lower case, once a text whatever number of addresses it holds; None for
    another (lower-casing may change its length: its tokens are looked for by pattern)."""
    return text.lower() if text.isascii() else None


def named_by_address(local: str, text: str, s: int, e: int) -> list[Span]:
    """The spans near [s, e) of ``text`` of the person the address's local part ``local`` names:
    a full name whose words it spells (emma_mulder12: Emma Mulder; lambert.maxime: Maxime Lambert;
    e.lindqvist: Erik Lindqvist; charlottepryce: Charlotte Pryce). The longest of its words is
    looked for first (one search near the address); runs of words in capitals only around it."""
    toks = [t for t in re.split(r"[^a-z]+", local.lower()) if t]
    if not toks or len(toks) > 3 or len(toks) == 1 and len(toks[0]) < 6:
        return []
    full = [t for t in toks if len(t) >= 2]
    if len(toks) > 1 and not full:
        return []  # initials alone (j.d@): they spell no name
    initial = next((t for t in toks if len(t) == 1), "")
    key = max(full, key=len) if len(toks) > 1 else toks[0][:4]
    lo, hi = max(0, s - _NEAR), min(len(text), e + _NEAR)
    low = _lowered(text)
    if low is not None:  # (str.find on the lower-cased text: 10 times quicker than the pattern)
        hits, i = [], low.find(key, lo, hi)
        while i >= 0:
            hits.append(i)
            i = low.find(key, i + 1, hi)
    else:  # one byte a character, ? for the rest (an accented letter, C-fast): offsets stay the text's
        shown = text[lo:hi].encode("ascii", "replace").lower()
        hits = [lo + i for i in _accented_hits(shown, key)]
    out: list[Span] = []
    for hit in hits:
        if s <= hit < e:
            continue  # the address itself
        for m in _CAPS_RUN.finditer(text, max(0, hit - 60), min(len(text), hit + len(key) + 60)):
            if not m.start() <= hit < m.end():
                continue
            run = m.group(0)
            folded = run if run.isascii() else run.translate(_fold_table())
            words = [(w.group(0).lower(), m.start() + w.start(), m.start() + w.end()) for w in _WORD.finditer(folded)]
            span = _spelt(words, toks, full, initial)
            if span is not None and span not in out and name(text[span[0]:span[1]], specific=False) == (0, span[1] - span[0]):
                out.append(span)
    return out


_WORD = re.compile(r"[^ \t]+")


def _spelt(words: list[tuple[str, int, int]], toks: list[str], full: list[str], initial: str) -> Span | None:
    """The longest run of ``words`` that the local part's tokens spell: each word a token (or the
    first the initial's), or, for one token, the words run together."""
    for n in range(len(words), 1, -1):
        for i in range(len(words) - n + 1):
            run = [w for w, _, _ in words[i:i + n]]
            if len(toks) == 1:
                ok = toks[0] == "".join(run)
            else:
                by_initial = bool(initial) and run[0][0] == initial and run[0] not in full
                rest = run[1:] if by_initial else run
                # two tokens at least (emma, mulder), or the initial's word and a token (e., lindqvist)
                ok = all(w in full for w in rest) and len(set(rest)) == len(rest) and (len(rest) >= 2 or by_initial)
            if ok:
                return words[i][1], words[i + n - 1][2]
    return None
