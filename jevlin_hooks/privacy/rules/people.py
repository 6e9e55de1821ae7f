"""People's names by the place a message gives them: a chat's heading over each message (Discord's
``Jane Doe — 23.11.2026 23:39``, an export's ``**Jane Doe** (2026-11-12 07:53):``) and the name a
greeting addresses (``Hi Anna,``, ``Hola, Elena:``, ``Bonjour Maxime,``, ``Hallo Herr Weber,``,
``Здравствуйте, Иван!``, ``مرحباً ريم،``). The value must have a name's shape
(privacy/personal/values.py); a greeting's word for a group (team, all, everyone) stays.
"""

from __future__ import annotations

from jevlin_hooks.privacy.rules import labels
from jevlin_hooks.privacy.rules.pii import _keywords, _words
from jevlin_hooks.privacy.rules.rule import Rule

# words that open a message to someone, lower case (the gate's keywords: with what follows them)
GREETINGS = (
    "hi", "hello", "hey", "dear", "good morning", "good afternoon", "hola", "buenos días", "buenas", "estimado",
    "estimada", "querido", "querida", "bonjour", "bonsoir", "salut", "cher", "chère", "hallo", "hi", "liebe", "lieber",
    "guten tag", "guten morgen", "moin", "servus", "ciao", "salve", "gentile", "caro", "cara", "buongiorno", "olá",
    "ola", "oi", "prezado", "prezada", "caro", "bom dia", "hej", "hei", "moi", "hoi", "beste", "goedemorgen", "dag",
    "cześć", "witam", "dzień dobry", "szanowny", "szanowna", "merhaba", "sayın", "selam", "привет", "здравствуйте",
    "добрый день", "уважаемый", "уважаемая", "привіт", "вітаю", "добрий день", "xin chào", "chào", "مرحبا", "مرحباً",
    "أهلاً", "عزيزي", "عزيزتي", "नमस्ते", "प्रिय", "שלום", "สวัสดี", "γεια σου", "αγαπητέ", "αγαπητή",
)
_LATIN = tuple(g for g in dict.fromkeys(GREETINGS) if g.isascii())
_OTHER = tuple(g for g in dict.fromkeys(GREETINGS) if not g.isascii())


def _words_of(greetings: tuple[str, ...]) -> str:
    return "|".join(sorted(greetings, key=len, reverse=True))


def _keywords_of(greetings: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(g + c for g in greetings for c in (" ", ","))

_NAME = r"([^\s,:!;.،、*][^\n,:!;،、()\[\]<>]{0,48}?)"
_NAME_ASCII = r"([^\s,:!;.*][^\n,:!;()\[\]<>]{0,48}?)"  # (an ASCII pattern is read on the text's one-byte view)
# a heading's date or time: 23.11.2026 23:39, 2026-11-12, 10:02, Today at 10:02
_DAYS = ("today", "yesterday", "heute", "gestern", "hoy", "ayer", "aujourd'hui", "hier", "oggi", "ieri", "hoje", "ontem",
         "vandaag", "gisteren", "dzisiaj", "wczoraj", "bugün", "dün", "сегодня", "вчера")
_WHEN = r"(?:[0-9]{1,4}[./\-][0-9]{1,2}|[0-9]{1,2}:[0-9]{2}|(?i:" + "|".join(_DAYS) + "))"
# (the gate: a dash and then a digit or a day, not a dash in prose)
_HEADING_WORDS = tuple(f" {d} {w}" for d in "—–" for w in (*"0123456789", *_DAYS)) + ("** (",)



RULES: tuple[Rule, ...] = (
    Rule("chat-heading", "pii", "a full name heading a pasted chat message: Jane Doe — 23.11.2026 23:39 (Discord), Jane Doe — Today at 10:02, **Jane Doe** (2026-11-12 07:53): (an export in Markdown)",
         r"(?m)^(?:\*\*)?([^\n*—–\[\]:<>|#]{2,60}?)(?:\*\*)?[ \t]+[—–][ \t]+" + _WHEN
         + r"|^\*\*([^\n*]{2,60}?)\*\*[ \t]*\([0-9]",
         _HEADING_WORDS, (1, 2), "full-name",
         examples=("Pieter Dupont — 15.11.2026 00:51\nQuestion sur la commande", "**Juha Virtanen** (2026-11-12 07:53):\n> hi",
                   "박도윤 — 23.11.2026 09:52\n주문"),
         counter_examples=("Build Step — 12.01.2026 10:00", "v2.3 — 2026-01-02 release notes", "**Note** (2026): x")),
    Rule("greeting-name", "pii", "the name a greeting addresses, at the start of a line: Hi Anna, Dear Mr Smith, Hola, Elena: Bonjour Maxime, Hallo Herr Weber, Ciao Giulia, Hej Karin, Merhaba Zeynep, Beste Jan, ... (a title and a first name, or a full name; a word for a group, team, all, everyone, folks, stays)",
         # (the greeting's word then a blank or a comma: every match holds a keyword, so the rule is
         # searched only on the lines holding one, engine/anchored.py)
         r"(?m)^[ \t>*]*(?i:" + _words_of(_LATIN) + r")(?: |,)[ \t]*" + _NAME_ASCII + r"[ \t]*(?:[,:!]|$)",
         _keywords_of(_LATIN), 1, "greeting-name",
         examples=("Hi Anna,\nthe deploy is done", "Dear Mr Smith,\n", "Hola, Elena:\nAquí tienes", "Bonjour Maxime,\n",
                   "Hej Chloé!\n"),
         counter_examples=("Hi team,\n", "Hello world!\n", "Hi all, the build is red", "Hey there,\n", "Hallo zusammen,\n")),
    # (the greetings written with letters outside ASCII: their own rule, whose pattern is read on the
    # text as it is; the one above is read on the text's one-byte view, on the lines of its words)
    Rule("greeting-name-intl", "pii", "the name a greeting in another script or with accents addresses, at the start of a line: Olá Ana, Cześć Ola, Здравствуйте, Иван! Привіт, Тарас! Xin chào Lan, مرحباً ريم، नमस्ते प्रिया, שלום דנה, ... (as greeting-name)",
         r"(?m)^[ \t>*]*(?i:" + _words_of(_OTHER) + r")[ \t]*,?[ \t]+" + _NAME + r"[ \t]*(?:[,:!،、]|$)",
         _keywords_of(_OTHER), 1, "greeting-name",
         examples=("Olá Ana,\n", "Здравствуйте, Иван!\n", "مرحباً ريم،\n", "Cześć Ola,\n"),
         counter_examples=("Привет всем!\n", "Olá pessoal,\n")),
)

USERNAME_RULE = Rule(
    labels.USERNAME, "pii", "a person's user name where a label names it (username, login, Benutzername, nom d'utilisateur, usuario, usuário, utente, gebruikersnaam, użytkownik, kullanıcı adı, имя пользователя, логин, ユーザー名, 用户名, 사용자 이름, tên đăng nhập, اسم المستخدم, ...): a first.last handle in lower case (elena.romero, thanh.huong.vu) none of whose parts is a service's word, or a full name (git's user.name); a service's account (admin, postgres, app_user, svc.deploy) stays",
    _words(labels.USERNAME_KEYWORDS, labels.USERNAME_PHRASES), _keywords(labels.USERNAME_KEYWORDS, labels.USERNAME_PHRASES),
    0, "field-username",
    examples=("usuario: elena.romero", "nom d'utilisateur: maxime.lambert", "user.name=Jane Doe", "اسم المستخدم: reem.al-ghamdi"),
    counter_examples=("username: admin", "login: postgres", "username: svc.deploy", "user name: app_user"))
RULES = (*RULES, USERNAME_RULE)

# an e-mail address written into a URL or a form: its @ percent-encoded (otpauth://totp/Acme:jane%40example.org,
# ?email=jane%40example.org, mailto:jane%40...)
ENCODED_EMAIL = Rule(
    "email-encoded", "pii", "e-mail addresses with the @ percent-encoded, as a URL, a form or an otpauth:// link writes them (?email=jane.doe%40example.org, otpauth://totp/Acme:jane%40example.org); a role's mailbox stays (support%40...)",
    r"(?i)(?:^|[^A-Za-z0-9._%+\-])([A-Za-z0-9._+\-]{1,64}%40[A-Za-z0-9.\-]{1,200}\.[A-Za-z]{2,24})\b", ("%40",), 1,
    "email-encoded",
    examples=("otpauth://totp/Acme:lambert.maxime99%40telenet.be?secret=JBSWY3DPEHPK3PXP", "GET /signup?email=jane.doe%40example.org&x=1"),
    counter_examples=("GET /contact?to=support%40example.org", "a%40b"))
RULES = (*RULES, ENCODED_EMAIL)

# a person's contact details as a list: "Customer contact: Jane Doe, +49 151 2345678, jane@example.org"
CONTACT_LIST = Rule(
    "contact-name", "pii", "a full name leading a list of contact details, a +CC phone number next, after a label's colon or at a line's start (Kontaktdaten des Kunden: Katharina Müller, +49 ..., katharina@...); the name must have a full name's shape (two words in capitals, none a common word, or a name in a script without capitals). (Name, address@: the address spells the name, email-name)",
    r"(?m)(?:^|[:：][ \t]*)([^\n:：,;()\[\]<>@]{2,60}?), \+[0-9]",
    (", +",), 1, "full-name",
    examples=("Kontaktdaten des Kunden: Katharina Müller, +49 151 2345678, k@example.de", "Jane Doe, +1 415 555 0132\n"),
    counter_examples=("Build Server, +1 bump", "Support Team, +44 20 7946 0000"))
RULES = (*RULES, CONTACT_LIST)

# the name an address spells, near it: "Klant Emma Mulder belde ... E-mail: emma_mulder12@gmail.com"
EMAIL_NAME = Rule(
    "email-name", "pii", "a full name near a personal e-mail address (within 3,000 characters) whose local part spells it: emma_mulder12@ names Emma Mulder, lambert.maxime99@ Maxime Lambert, e.lindqvist@ E... Lindqvist, charlottepryce@ Charlotte Pryce (accents aside: katharina.muller@ names Katharina Müller); a role's mailbox names no one",
    r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,24}\b", ("@",), 0, "email-name", around_at_sign=True,
    examples=("Klant Emma Mulder belde over ORD-2851.\nE-mail: emma_mulder12@example.nl",
              "Kontakt: Katharina Müller (katharina.muller@example.de)"),
    counter_examples=("Release Notes by support@example.org", "Build Server at build.server@example.org\nBuild Server is down"))
RULES = (*RULES, EMAIL_NAME)

# CJK names by the honorific or the customer word around them, where no space tells a word
_HONORIFIC_WORDS = ("様", "さん", "さま", "氏", "先生", "女士", "小姐", "님", "씨")
# (a customer word is in nearly every Chinese text about software, 客户端: read from its places)
CUSTOMER_WORDS = ("客户", "顾客", "用户", "患者", "顧客", "客戶")
HONORIFIC_NAME = Rule(
    "honorific-name", "pii", "a name in Chinese, Japanese or Korean told by its honorific: 高橋 直樹様, 大輔 さん, 王磊先生, 李娜女士, 최서연 고객님, 김민준 씨, or by a greeting after it at a line's start (丽娟，你好); a title alone (고객님, 会員様, お客様) stays",
    r"(?:^|[^\x{4e00}-\x{9fff}\x{3040}-\x{30ff}])([\x{4e00}-\x{9fff}]{1,3}[ \x{3000}]?[\x{3040}-\x{30ff}\x{4e00}-\x{9fff}]{1,4}?)[ \x{3000}]?(?:様|さん|さま|氏)"
    r"|(?m:^)[ \t]*([\x{4e00}-\x{9fff}]{2,3})[，,、][ \t]*(?:你好|您好)"
    r"|(?:^|[^\x{4e00}-\x{9fff}])([\x{4e00}-\x{9fff}]{2,3})(?:先生|女士|小姐)"
    r"|(?:^|[^\x{ac00}-\x{d7af}])([\x{ac00}-\x{d7af}]{2,4}) ?(?:고객님|님|씨)(?:[^\x{ac00}-\x{d7af}]|[이가은는을를의께]|$)",
    (*_HONORIFIC_WORDS, "你好", "您好"), (1, 2, 3, 4), "honorific-name",
    examples=("高橋 直樹様から注文について電話がありました", "최서연 고객님이 전화하셨습니다", "王磊先生", "大輔 さん\n", "丽娟，你好：\n"),
    counter_examples=("고객님이 전화하셨습니다", "会員様へ", "お客様から", "사용자님", "管理员先生"))
RULES = (*RULES, HONORIFIC_NAME)

CUSTOMER_NAME = Rule(
    "customer-name-cjk", "pii", "a Chinese name after a customer word and before a verb of calling or saying: 客户赵雨桐来电, 顾客王磊表示, 患者李静询问 (客户端, a software client, stays)",
    "|".join(CUSTOMER_WORDS), CUSTOMER_WORDS, 0, "customer-name-cjk",
    examples=("客户赵雨桐来电询问订单", "顾客王磊表示不满"), counter_examples=("客户端连接超时", "用户名不能为空"))
RULES = (*RULES, CUSTOMER_NAME)
