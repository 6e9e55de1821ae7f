"""Personal data: e-mail addresses, user names in home paths, phone numbers, names, dates of birth,
postal addresses, national ids, VAT numbers, cards, IBANs, SSNs, IP addresses."""

from __future__ import annotations

import re

from jevlin_hooks.privacy.rules import labels, parts
from jevlin_hooks.privacy.rules.rule import Rule

PHONE_WORDS = tuple(dict.fromkeys((*parts.PHONE_WORDS_LATIN, *parts.PHONE_WORDS_OTHER, *labels.PHONE_KEYWORDS,
                                   *labels.SIGNATURE_KEYWORDS)))
NAME_WORDS = (*labels.NAME_KEYWORDS, *labels.NAME_PROSE, *labels.SIGNATURE_KEYWORDS)
ADDRESS_WORDS = (*labels.ADDRESS_KEYWORDS, *labels.SIGNATURE_KEYWORDS)
NAME_PHRASES = (*labels.NAME_PHRASES, *labels.NAME_GENERIC_PHRASES)
ID_PHRASES = (*(p for phrases, _ in labels.ID_LABELS for p in phrases), *labels.ID_GENERIC_PHRASES)


def _keywords(words: tuple[str, ...], phrases: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The gate's words for a family's labels: each in lower case, and a word of several also as
    a key writes it (national_id, national-id, nationalid); and the phrases written as one word
    that hold one of them (telefonnummer, birthdate: a key's words stand alone, engine/scan.py
    key_part)."""
    out: dict[str, None] = {}
    for p in phrases:
        p = p.lower()
        if not any(w in p for w in words):
            continue
        if " " not in p and p not in words:
            out[p] = None
        elif " " in p and len(p.split(" ")[0]) <= 3:  # vatId, id_card, tc-kimlik: the short word in a key
            for joint in ("_", "-", ""):
                out[p.replace(" ", joint)] = None
    for w in words:
        w = w.lower()
        if (len(w) <= 3 or w in _EVERYWHERE) and w.isascii() and w.isalpha():
            # a short word (sin, nie, tin) hides in thousands of words (using, inner, setting):
            # the gate looks for it with what may follow a label's word
            out.update((w + c, None) for c in (_AFTER_EVERYWHERE if w in _EVERYWHERE else _AFTER_SHORT))
            continue
        out[w] = None
        if " " in w:
            for joint in ("_", "-", ""):
                out[w.replace(" ", joint)] = None
    return tuple(out)


# words in nearly every agent text (a file's, a step's, a function's name; git's Author:): looked
# for with what follows a label's word, as the short ones are
_EVERYWHERE = frozenset(("name", "author", "isim"))
# (not a comma: a CSV header's cell is the layout reader's, engine/fields.py)
_AFTER_SHORT = (":", " ", "=", "\t", '"', "'", "_", "-", "#", ".", "|", "\n", "/", ")", "]", "：", ">")
# ... and a word everywhere not before one space: "the name of" is prose, "Name  value" a column
_AFTER_EVERYWHERE = (*(c for c in _AFTER_SHORT if c != " "), "  ", " :", " =", " |", " -", " (", "\r")


def _words(words: tuple[str, ...], phrases: tuple[str, ...] = ()) -> str:
    """The family's label words as a pattern: what the rule's hook starts from where the text's
    lower-casing changed its length (otherwise the gate's positions are used, the same words)."""
    escaped = (re.escape(w).replace("\\\n", r"\n").replace("\\\r", r"\r") for w in sorted(_keywords(words, phrases), key=len, reverse=True))
    return "(?i)(?:" + "|".join(escaped) + ")"


RULES: tuple[Rule, ...] = (
    Rule("email", "pii", "e-mail addresses (not the user@host of a URL or of a git/scp remote: git@github.com:org/repo stays; nor a message's id, Message-ID: <uuid@host>, nor an address whose local part is a UUID or a long hex run, nor a role's mailbox: support@, noreply@, billing@, security@, info@, ...; nor a cloud's service account: ci@project.iam.gserviceaccount.com)",
         r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,24}\b", ("@",), 0, "email", around_at_sign=True,
         examples=("ping alice@example.com about it",),
         counter_examples=("git@github.com:org/repo.git", "ssh deploy@build-host uptime",
                           "Message-ID: <1b34f903-0be8-452d-87ea-795a62d44df3@mail.example.com>",
                           "write to support@example.com or noreply+alerts@example.org",
                           "--iam-account=bq-reader@shop-analytics.iam.gserviceaccount.com")),
    Rule("home-username", "pii", "the user name in home-directory paths (/Users/NAME, /home/NAME, C:\\Users\\NAME), also a name with spaces (C:\\Users\\John Smith\\...); the rest of the path stays, and so do the accounts a system, an image or a CI runner comes with (root, admin, ubuntu, ec2-user, runner, ci, dev, app, node, vagrant, www-data, ...)",
         r"(?:[A-Za-z]:\\{1,2}[Uu]sers\\{1,2}((?:[^/\\\s\"'<>:|*?]{1,30} ){1,3}[^/\\\s\"'<>:|*?]{1,30})\\"
         r"|(?:/[Uu]sers/|/home/|[A-Za-z]:\\{1,2}[Uu]sers\\{1,2})(?:((?:(?:[A-Z][^/\\\s\"'<>:]{0,30}|van|von|de|da|del|der|den|di|du|la|le|dos|das|bin|al|ten|ter) ){1,3}[A-Za-z][^/\\\s\"'<>:]{0,30})[/\\]|([^/\\\s\"'<>:]{1,64})))",
         ("/users/", "/home/", "users\\"), (1, 2, 3), "home",
         examples=("cd /home/alice/src && ls", "C:\\Users\\carol\\AppData", "/Users/John Smith/Documents/x"),
         counter_examples=("/home/shared/data", "HOME=/home/ubuntu", "KUBECONFIG=/home/runner/.kube/config", "| `NETRC` | `/home/ci/.netrc` |")),
    Rule("phone-number", "pii", "phone numbers by their own shape: international (+CC ..., E.164) and North American ((415) 555-0132, 415-555-0132); a grouped +CC number must have a length its country's numbering plan allows (libphonenumber), an unbroken +CC run of 10-15 digits a calling code libphonenumber knows; versions, dates, times and IP addresses stay",
         r"(?:^|[^\w+.\-/:])(\+[1-9][0-9]{0,3}(?:[ .\-]?\(?[0-9]{1,5}\)?){1,6}|(?:1[ .\-])?\(?[2-9][0-9]{2}\)?[ .\-]?[2-9][0-9]{2}[ .\-][0-9]{4})(?:[^\w.\-:/]|[.\-:/](?:[^0-9]|$)|$)",
         (), 1, "phone", prefilter=True, longest=56, longest_in_long_texts=True,
         examples=("call +49 30 1234567 tomorrow", "(415) 555-0132"),
         counter_examples=("version 1.2.3.4", "at 2024-05-01 10:30", "offset +05:30 from UTC", "+1.2.3 release")),
    Rule("phone-number-labelled", "pii", "phone numbers in national formats too (06 12 34 56 78, 020 7946 0958, 4155550132) where a label says so: a field or column named phone, tel, mobile, fax, Telefon, Telefonnummer, téléphone, teléfono, telefone, telefoon, телефон, 电话, 電話番号, 전화번호, ... (also inside a key: customer.phone, mobileNumber), or within 24 characters after such a word in prose (call, reach, contact, WhatsApp); the value must be a number libphonenumber finds possible",
         _words(PHONE_WORDS, labels.PHONE_PHRASES), _keywords(PHONE_WORDS, labels.PHONE_PHRASES), 0, "phonelabel",
         examples=("Telefon: 030 1234567", "phone 06 12 34 56 78", "电话 13800138000", "customer.phone=06-81393445"),
         counter_examples=("tel 2024-05-01", "hotel 0612345678", "phone_model: 15042609926x", "phone: 1.2.3")),
    Rule("personal-name", "pii", "a person's name where a label or column says so, or the first line of a signature (after a line -- or a closing such as Kind regards, Mit freundlichen Grüßen, Cordialement, С уважением; a first name alone only after a closing): first_name, last_name, full name, surname, customer, Nome, Nombre, Prénom, Vorname, Naam, Imię, Ad Soyad, Имя, ФИО, 이름, 氏名, 姓名, ... The value must have a name's shape (words in capitals, or two to four CJK or Hangul characters); under a bare name, customer or contact only a full name of two words or more, none of them a common word (a step named Run Tests, a company_name, a file name stay)",
         _words(NAME_WORDS, NAME_PHRASES), _keywords(NAME_WORDS, NAME_PHRASES), 0, "field-name",
         examples=("Name: Jane Doe", '{"first_name": "Matilde", "id": 3}', "<name>Charlotte Ryan</name>", "이름: 최서연", "Started by user Bram Visser\n",
                   "Thanks!\n\n--\nSophie Wagner\n0151 8489026\n", "Kind regards,\nAnna\n"),
         counter_examples=("name: build-and-test", "name: Run Tests", "company_name: Acme Widgets", "the name of the file: x",
                           "username: jdoe")),
    Rule("display-name", "pii", "a full name before an e-mail address in angle brackets: From: Jane Doe <jane@example.org>, git's Author: and Co-authored-by: lines (the address is the e-mail rule's)",
         r"<[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,24}>", ("@",), 0, "display-name",
         examples=("Author: Diogo Sousa <dsousa@example.org>", "From: 王磊 <lei.wang@example.cn>"),
         counter_examples=("GitHub <noreply@github.com>", "Build Bot Service <ci@example.org>")),
    Rule("chat-speaker", "pii", "a full name that speaks in a pasted chat: [30.11. 23:26] Jane Doe: ..., 30/11/2026, 23:26 - Jane Doe: ... (WhatsApp, Telegram), Jane Doe  16:09 on its own line (Slack)",
         r"(?m)(?:^\[[0-9][0-9./,: \-]{3,22}\] ?(?:- )?|^[0-9]{1,2}[./][0-9]{1,2}[./][0-9]{2,4},? [0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?: ?[APap][Mm])? - )([^\[\]:\n]{2,60}?):[ \t]"
         r"|^([^\n:]{2,40}?)[ ]{2,}[0-9]{1,2}:[0-9]{2}(?: ?[APap][Mm])?[ \t]*$",
         (":",), (1, 2), "full-name", longest=0,
         examples=("[30.11. 23:26] Noah MacDonald: the health check passes", "Rohan Nair  18:30\nthe relay is down"),
         counter_examples=("[12:01] Build: failed", "Started  10:30", "[2026-11-30 23:26] INFO: ready")),
    Rule("birth-date", "pii", "a date of birth where a label or column says so: dob, date_of_birth, birthday, Geburtsdatum, fecha de nacimiento, data de nascimento, date de naissance, geboortedatum, data urodzenia, doğum tarihi, дата рождения, 生年月日, 出生日期, 생년월일, ... in any common order and spelling (1984-03-02, 02.03.1984, 2 March 1984, 1984年3月2日)",
         _words(labels.BIRTH_KEYWORDS, labels.BIRTH_PHRASES), _keywords(labels.BIRTH_KEYWORDS, labels.BIRTH_PHRASES), 0, "field-birth",
         examples=("DOB: 1984-03-02", '"dateOfBirth": "02/03/1984"', "Data de nascimento: 16.07.1958", "생년월일: 1995년 6월 4일"),
         counter_examples=("dob: unknown", "birth_date_format: YYYY-MM-DD", "born in 1984")),
    Rule("postal-address", "pii", "a postal address where a label or column says so, or on a line of a signature (after -- or a closing, under the sender's name): address, home/billing/shipping address, street, Adresse, Anschrift, dirección, endereço, morada, indirizzo, adres, адрес, 住所, 地址, 주소, ...: words and a number, to the end of the field; an IP, a host:port, a URL, a path or a hex address stays, and so does a machine's address (ip_address, mac address, listen address, wallet address)",
         _words(ADDRESS_WORDS, labels.ADDRESS_PHRASES), _keywords(ADDRESS_WORDS, labels.ADDRESS_PHRASES), 0, "field-address",
         examples=("Adresse: 25 rue des Lilas, 69003 Lyon", 'customer.address="Kerkstraat 59-1, 9767 XI Amsterdam"',
                   "地址: 浙江省杭州市西湖区文三路149号"),
         counter_examples=("address: 10.0.0.12", "listen_address: 0.0.0.0:8080", "address: 0x71C7656EC7ab88b098defB751B7401B5f6d8976F",
                           "ip_address: 192.168.1.10")),
    Rule("national-id", "pii", "national identifiers where a label or column names them, checked with python-stdnum (format and check digits): SSN, ITIN, Aadhaar, Steuer-ID, NIR, DNI/NIE/NIF, CPF/CNPJ, NIF (PT), PESEL, RRN, BSN, codice fiscale, CURP/RFC, SIN, TFN, personnummer, CPR, henkilötunnus, My Number, 身份证 (RIC), TC Kimlik, SNILS, INN, NINO, NHS, PPS, Emirates ID, Saudi id and iqama, RNOKPP, CCCD (its label only: no check digit), and 25 more; under a label that names no country (national_id, tax id, ID number, document number) any of them",
         _words(labels.NATIONAL_ID_KEYWORDS, ID_PHRASES), _keywords(labels.NATIONAL_ID_KEYWORDS, ID_PHRASES), 0, "field-id",
         examples=("Steuer-ID: 36574261809", "PESEL: 44051401359", '"tax_id": "390.533.447-05"', "BSN 111222333",
                   "codice fiscale: RCCMNL83S18D969H"),
         counter_examples=("PESEL: 44051401358", "order id: 36574261809", "SIN: 123", "id number: 12345")),
    Rule("vat-number", "pii", "VAT numbers where a label or column names them (VAT, vat_id, USt-IdNr., TVA, P.IVA, BTW, NIP, CIF, MVA, MWST, UID, ...), with or without their country's prefix (DE136695976, FR40303265045), whose check digits hold (python-stdnum)",
         _words(labels.VAT_KEYWORDS, labels.VAT_PHRASES), _keywords(labels.VAT_KEYWORDS, labels.VAT_PHRASES), 0, "field-vat",
         examples=("USt-IdNr. DE136695976", 'vatId="FR40303265045"'),
         counter_examples=("VAT DE136695977", "DE136695976 without a label", "vat: 20%")),
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
