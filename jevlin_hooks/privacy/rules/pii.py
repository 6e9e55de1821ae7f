"""Personal data: e-mail addresses, user names in home paths, phone numbers, cards, IBANs, SSNs, IP addresses."""

from __future__ import annotations

from jevlin_hooks.privacy.rules import parts
from jevlin_hooks.privacy.rules.rule import Rule

RULES: tuple[Rule, ...] = (
    Rule("email", "pii", "e-mail addresses (not the user@host of a URL or of a git/scp remote: git@github.com:org/repo stays; nor a message's id, Message-ID: <uuid@host>, nor an address whose local part is a UUID or a long hex run)",
         r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,24}\b", ("@",), 0, "email", around_at_sign=True,
         examples=("ping alice@example.com about it",),
         counter_examples=("git@github.com:org/repo.git", "ssh deploy@build-host uptime",
                           "Message-ID: <1b34f903-0be8-452d-87ea-795a62d44df3@mail.example.com>")),
    Rule("home-username", "pii", "the user name in home-directory paths (/Users/NAME, /home/NAME, C:\\Users\\NAME), also a name with spaces (C:\\Users\\John Smith\\...); the rest of the path stays, and so do the accounts a system, an image or a CI runner comes with (root, admin, ubuntu, ec2-user, runner, ci, dev, app, node, vagrant, www-data, ...)",
         r"(?:[A-Za-z]:\\{1,2}[Uu]sers\\{1,2}((?:[^/\\\s\"'<>:|*?]{1,30} ){1,3}[^/\\\s\"'<>:|*?]{1,30})\\"
         r"|(?:/[Uu]sers/|/home/|[A-Za-z]:\\{1,2}[Uu]sers\\{1,2})(?:((?:(?:[A-Z][^/\\\s\"'<>:]{0,30}|van|von|de|da|del|der|den|di|du|la|le|dos|das|bin|al|ten|ter) ){1,3}[A-Za-z][^/\\\s\"'<>:]{0,30})[/\\]|([^/\\\s\"'<>:]{1,64})))",
         ("/users/", "/home/", "users\\"), (1, 2, 3), "home",
         examples=("cd /home/alice/src && ls", "C:\\Users\\carol\\AppData", "/Users/John Smith/Documents/x"),
         counter_examples=("/home/shared/data", "HOME=/home/ubuntu", "KUBECONFIG=/home/runner/.kube/config", "| `NETRC` | `/home/ci/.netrc` |")),
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
    Rule("ipv4", "pii", "public IPv4 addresses; private and reserved ones stay (RFC 1918 10/8, 172.16/12, 192.168/16, loopback, link-local, CGNAT 100.64/10, the documentation and benchmark ranges, multicast: no one's address on the internet), and so do version-number lookalikes and network blocks (10.0.0.0/8, 81.2.0.0/16)",
         r"\b(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}\b", (".",), 0, "ip", longest=15,
         examples=("server at 81.36.66.248 answered",),
         counter_examples=("version 1.2.3.4 of the tool, on 127.0.0.1", "route 10.0.0.0/8", "server at 192.168.10.23 answered",
                           "* Connected to api.example.com (172.28.161.250) port 443", "KUBERNETES_SERVICE_HOST=10.96.0.1",
                           "metadata at 169.254.169.254, CGNAT 100.72.4.9, docs 203.0.113.7")),
    Rule("ipv6", "pii", "public IPv6 addresses; loopback, unique-local (fc00::/7), link-local (fe80::/10), documentation (2001:db8::/32) and multicast ones stay, and so does a longer run of hex pairs (an MD5 fingerprint, MD5:a5:4d:...)",
         r"\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b|\b(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}\b", (":",), 0, "ip6",
         examples=("peer 2a02:5829:1ef1:35bc::8a2e:370:7334 joined",),
         counter_examples=("listening on ::1", "peer 2001:db8:85a3::8a2e:370:7334 joined", "fd12:3456:789a:1::5 and fe80::1ff:fe23:4567:890a%eth0",
                           "256 MD5:a5:4d:ce:4a:dc:d8:fd:8e:0b:a7:16:8e:18:87:c1:fa deploy@build-07 (ED25519)")),
)
