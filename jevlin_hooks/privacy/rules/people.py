"""People's names by the place a message gives them: a chat's heading over each message (Discord's
``Jane Doe — 23.11.2026 23:39``, an export's ``**Jane Doe** (2026-11-12 07:53):``) and the name a
greeting addresses (``Hi Anna,``, ``Hola, Elena:``, ``Bonjour Maxime,``, ``Hallo Herr Weber,``,
``Здравствуйте, Иван!``, ``مرحباً ريم،``). The value must have a name's shape
(privacy/personal/values.py); a greeting's word for a group (team, all, everyone) stays.
"""

from __future__ import annotations

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
_GREETING_WORDS = "|".join(sorted(dict.fromkeys(GREETINGS), key=len, reverse=True))
_NAME = r"([^\s,:!;.،、][^\n,:!;،、()\[\]<>]{0,48}?)"
# a heading's date or time: 23.11.2026 23:39, 2026-11-12, 10:02, Today at 10:02
_WHEN = (r"(?:[0-9]{1,4}[./\-][0-9]{1,2}|[0-9]{1,2}:[0-9]{2}|(?i:today|yesterday|heute|gestern|hoy|ayer|"
         r"aujourd'hui|hier|oggi|ieri|hoje|ontem|vandaag|gisteren|dzisiaj|wczoraj|bugün|dün|сегодня|вчера))")

RULES: tuple[Rule, ...] = (
    Rule("chat-heading", "pii", "a full name heading a pasted chat message: Jane Doe — 23.11.2026 23:39 (Discord), Jane Doe — Today at 10:02, **Jane Doe** (2026-11-12 07:53): (an export in Markdown)",
         r"(?m)^(?:\*\*)?([^\n*—–\[\]:<>|#]{2,60}?)(?:\*\*)?[ \t]+[—–][ \t]+" + _WHEN
         + r"|^\*\*([^\n*]{2,60}?)\*\*[ \t]*\([0-9]",
         (" — ", " – ", "** ("), (1, 2), "full-name",
         examples=("Pieter Dupont — 15.11.2026 00:51\nQuestion sur la commande", "**Juha Virtanen** (2026-11-12 07:53):\n> hi",
                   "박도윤 — 23.11.2026 09:52\n주문"),
         counter_examples=("Build Step — 12.01.2026 10:00", "v2.3 — 2026-01-02 release notes", "**Note** (2026): x")),
    Rule("greeting-name", "pii", "the name a greeting addresses, at the start of a line: Hi Anna, Dear Mr Smith, Hola, Elena: Bonjour Maxime, Hallo Herr Weber, Ciao Giulia, Olá Ana, Hej Karin, Cześć Ola, Merhaba Zeynep, Здравствуйте, Иван! Xin chào Lan, مرحباً ريم، नमस्ते प्रिया, ... (a title and a first name, or a full name; a word for a group, team, all, everyone, folks, stays)",
         r"(?m)^[ \t>*]*(?i:" + _GREETING_WORDS + r")[ \t]*,?[ \t]+" + _NAME + r"[ \t]*(?:[,:!،、]|$)",
         tuple(dict.fromkeys(g + c for g in GREETINGS for c in (" ", ","))), 1, "greeting-name",
         examples=("Hi Anna,\nthe deploy is done", "Dear Mr Smith,\n", "Hola, Elena:\nAquí tienes", "Bonjour Maxime,\n", "Здравствуйте, Иван!\n",
                   "مرحباً ريم،\n"),
         counter_examples=("Hi team,\n", "Hello world!\n", "Hi all, the build is red", "Hey there,\n", "Hallo zusammen,\n")),
)
