"""Personal data: e-mail addresses, user names in home paths, phone numbers, cards, IBANs, SSNs, IP addresses."""

from __future__ import annotations

from jevlin_hooks.privacy.rules import parts
from jevlin_hooks.privacy.rules.rule import Rule

RULES: tuple[Rule, ...] = (
    Rule("email", "pii", "e-mail addresses (not the user@host of a URL or of a git/scp remote: git@github.com:org/repo stays)",
         r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,24}\b", ("@",), 0, "email", around_at_sign=True,
         examples=("ping alice@example.com about it",),
         counter_examples=("git@github.com:org/repo.git", "ssh deploy@build-host uptime")),
    Rule("home-username", "pii", "the user name in home-directory paths (/Users/NAME, /home/NAME, C:\\Users\\NAME), also a name with spaces (C:\\Users\\John Smith\\...); the rest of the path stays",
         r"(?:[A-Za-z]:\\{1,2}[Uu]sers\\{1,2}((?:[^/\\\s\"'<>:|*?]{1,30} ){1,3}[^/\\\s\"'<>:|*?]{1,30})\\"
         r"|(?:/[Uu]sers/|/home/|[A-Za-z]:\\{1,2}[Uu]sers\\{1,2})(?:((?:(?:[A-Z][^/\\\s\"'<>:]{0,30}|van|von|de|da|del|der|den|di|du|la|le|dos|das|bin|al|ten|ter) ){1,3}[A-Za-z][^/\\\s\"'<>:]{0,30})[/\\]|([^/\\\s\"'<>:]{1,64})))",
         ("/users/", "/home/", "users\\"), (1, 2, 3), "home",
         examples=("cd /home/alice/src && ls", "C:\\Users\\carol\\AppData", "/Users/John Smith/Documents/x"),
         counter_examples=("/home/shared/data",)),
    Rule("phone-number", "pii", "phone numbers: international (+CC ..., E.164) and North American ((415) 555-0132, 415-555-0132); versions, dates, times and IP addresses stay",
         r"(?:^|[^\w+.\-/:])(\+[1-9][0-9]{0,3}(?:[ .\-]?\(?[0-9]{1,5}\)?){1,6}|(?:1[ .\-])?\(?[2-9][0-9]{2}\)?[ .\-]?[2-9][0-9]{2}[ .\-][0-9]{4})(?:[^\w.\-:/]|[.\-:/](?:[^0-9]|$)|$)",
         (), 1, "phone", prefilter=True, longest=56, longest_in_long_texts=True,
         examples=("call +49 30 1234567 tomorrow", "(415) 555-0132"),
         counter_examples=("version 1.2.3.4", "at 2024-05-01 10:30")),
    Rule("phone-number-labelled", "pii", "any phone number (national formats too: 06 12 34 56 78, 020 7946 0958, 4155550132) within 24 characters after a word like phone, tel, call, callback, hotline, mobile, cell, fax, WhatsApp, contact, reach, Telefon, Telefonnummer, téléphone, teléfono, телефон, 电话, 電話, 전화",
         r"(?i)(?:(?:^|[^A-Za-z0-9_])(?:" + "|".join(parts.PHONE_WORDS_LATIN) + r")(?:[^A-Za-z0-9_]|$)|" + "|".join(parts.PHONE_WORDS_OTHER)
         + r")[^0-9+\n]{0,24}(\+?\(?[0-9][0-9 ().\-/]{5,20}[0-9])(?:[^0-9A-Za-z_]|$)",
         (*parts.PHONE_WORDS_LATIN, *parts.PHONE_WORDS_OTHER), 1, "phonelabel",
         examples=("Telefon: 030 1234567", "phone 06 12 34 56 78", "电话 13800138000"),
         counter_examples=("tel 2024-05-01",)),
    Rule("payment-card", "pii", "payment card numbers: 13-19 digits, grouped by spaces or dashes or not at all, Luhn-valid and with a card network's prefix and length",
         r"(?:^|[^\w.\-+/])([0-9]{4}[ \-][0-9]{4}[ \-][0-9]{4}[ \-][0-9]{4}|[0-9]{4}[ \-][0-9]{6}[ \-][0-9]{4,5}|[0-9]{13,19})(?:[^\w.\-/]|[.\-](?:[^0-9]|$)|$)",
         (), 1, "card", prefilter=True, longest=22, longest_in_long_texts=True,
         examples=("card 4012 8888 8888 1881 exp 12/27", "5425233430109903"),
         counter_examples=("order 4012 8888 8888 1882", "test card 4111 1111 1111 1111")),
    Rule("iban", "pii", "IBANs (international bank account numbers), with or without spaces, whose length fits the country and whose mod-97 checksum holds",
         r"\b([A-Z]{2}[0-9]{2}[ ]?[A-Z0-9]{4}(?:[ ]?[A-Z0-9]{1,4}){2,8})", (), 1, "iban", prefilter=True, longest=49, longest_in_long_texts=True,
         examples=("IBAN DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432"),
         counter_examples=("DE89 3704 0044 0532 0130 01",)),
    Rule("us-ssn", "pii", "US social security numbers (NNN-NN-NNNN or 9 digits) after SSN or social security; impossible numbers (000, 666, 9xx areas) stay",
         r"\b([0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{3} [0-9]{2} [0-9]{4}|[0-9]{9})\b", ("ssn", "social security", "social-security"), 1, "ssn",
         ("ssn", "social security", "social-security", "ss#"),
         examples=("SSN: 536-22-8714",),
         counter_examples=("SSN: 123-45-6789", "order 536-22-8714")),
    Rule("ipv4", "pii", "IPv4 addresses (loopback, 0.0.0.0, version-number lookalikes and network blocks, 10.0.0.0/8 or 192.168.1.0/24, stay)",
         r"\b(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}\b", (".",), 0, "ip", longest=15,
         examples=("server at 192.168.10.23 answered",),
         counter_examples=("version 1.2.3.4 of the tool, on 127.0.0.1", "route 10.0.0.0/8")),
    Rule("ipv6", "pii", "IPv6 addresses (loopback stays)", r"\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b|\b(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}\b", (":",), 0, "ip6",
         examples=("peer 2001:db8:85a3::8a2e:370:7334 joined",),
         counter_examples=("listening on ::1",)),
)
