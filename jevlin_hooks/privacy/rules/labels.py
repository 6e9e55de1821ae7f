"""The labels that say what a field holds: personal data named by its key, in many languages.

A label is how a person or a program names a field: ``Telefon:``, ``"date_of_birth":``,
``<taxId>``, a CSV column ``national_id``, ``생년월일`` in an aligned table. privacy/personal/
reads a key, normalises it (lower case, accents off, ``dateOfBirth`` and ``date_of_birth`` both
``date of birth``) and finds the phrases below in it; the value must then pass its family's test
(a name's shape, a date, an address's digits and words, a national id's check digits).

``KEYWORDS`` are what the scrubber's keyword gate looks for (lower-cased surface forms): a text
holding none of a family's keywords costs that family nothing. Every phrase holds one of its
family's keywords (tests/test_personal.py holds the table to it).
"""

from __future__ import annotations

# The families of personal data a field can hold, each the rule that redacts it.
PHONE, NAME, BIRTH, ADDRESS, NATIONAL_ID, EMAIL, IBAN, VAT, CARD = (
    "phone-number-labelled", "personal-name", "birth-date", "postal-address", "national-id", "email", "iban",
    "vat-number", "payment-card")

PHONE_PHRASES = (
    "phone", "telephone", "tel", "tel.", "mobile", "mobile number", "cell", "cellphone", "cell phone", "fax",
    "whatsapp", "sms", "msisdn", "phone number", "contact number", "telefon", "telefonnummer", "handynummer",
    "mobilnummer", "rufnummer", "handy", "mobil", "téléphone", "portable", "teléfono", "móvil", "celular",
    "telefone", "telemóvel", "telefono", "cellulare", "telefoon", "mobiel", "gsm", "numer telefonu", "tlf",
    "puhelin", "телефон", "мобильный", "电话", "手机", "手机号", "電話", "電話番号", "携帯", "携帯電話", "전화",
    "전화번호", "휴대폰", "핸드폰", "contact", "kontakt", "contato", "contacto", "điện thoại", "số điện thoại", "sđt",
    "โทรศัพท์", "เบอร์โทร", "טלפון", "هاتف", "الهاتف", "جوال", "الجوال", "رقم الجوال", "फ़ोन", "फोन", "मोबाइल",
    "τηλέφωνο", "κινητό", "telefonszám", "телефону", "puhelinnumero",
)
PHONE_KEYWORDS = (
    "phone", "tel", "mobile", "cell", "fax", "whatsapp", "sms", "msisdn", "telefon", "handy", "mobil", "téléphone",
    "portable", "teléfono", "móvil", "celular", "telefone", "telemóvel", "telefono", "cellulare", "telefoon",
    "mobiel", "gsm", "tlf", "puhelin", "телефон", "мобильн", "电话", "手机", "電話", "携帯", "전화", "휴대폰", "핸드폰",
    "contact", "kontakt", "contato", "contacto", "điện thoại", "sđt", "โทรศัพท์", "เบอร์โทร", "טלפון", "هاتف",
    "جوال", "फ़ोन", "फोन", "मोबाइल", "τηλέφωνο", "κινητό", "telefonszám", "puhelinnumero",
)

# A person's name: after these a single word is a name ("first_name": "Matilde").
NAME_PHRASES = (
    "first name", "firstname", "given name", "forename", "last name", "lastname", "surname", "family name",
    "middle name", "full name", "fullname", "legal name", "maiden name", "real name", "customer name",
    "contact name", "client name", "patient name", "employee name", "person name", "cardholder", "card holder",
    "holder name", "account holder", "beneficiary", "beneficiary name", "recipient name", "sender name",
    "passenger name", "guest name", "applicant name", "nome", "nome completo", "cognome", "nominativo", "nombre",
    "nombre completo", "apellido", "apellidos", "prénom", "prenom", "nom complet", "nom de famille", "vorname",
    "nachname", "familienname", "voornaam", "achternaam", "volledige naam", "naam", "imię", "imie", "nazwisko",
    "imię i nazwisko", "soyad", "soyadı", "ad soyad", "adı soyadı", "isim", "имя", "фамилия", "отчество", "фио",
    "이름", "성명", "성함", "氏名", "名前", "お名前", "姓名", "名字", "联系人", "titular", "destinatário",
    "namn", "fullständigt namn", "navn", "fulde navn", "nimi", "koko nimi", "jméno", "příjmení", "név", "όνομα",
    "επώνυμο", "ім'я", "прізвище", "піб", "họ tên", "họ và tên", "tên khách hàng", "ชื่อ", "ชื่อ นามสกุล", "שם מלא",
    "الاسم", "الاسم الكامل", "नाम", "पूरा नाम",
)
# ... and after these only what has a full name's shape (two words or more): "name" is also a
# step's, a service's and a file's
NAME_GENERIC_PHRASES = (
    "name", "nom", "customer", "client", "patient", "employee", "contact", "author", "display name",
    "emergency contact", "contacto", "contato", "contatto", "kontakt", "contact d'urgence", "assignee", "reporter",
    "requester", "approver", "reviewer", "owner", "account holder name", "started by user", "triggered by user",
    "kunde", "klant", "klient", "cliente", "müşteri", "клиент", "客户", "顧客", "고객", "اسم", "שם", "العميل",
    "ग्राहक", "khách hàng",
    # a patient, a doctor, a parcel's or an invoice's addressee (the value may stand on the line below)
    "paciente", "paziente", "patiënt", "pacjent", "hasta", "пациент", "пацієнт", "患者", "病人", "환자", "مريض",
    "المريض", "मरीज़", "मरीज", "bệnh nhân", "attending", "attending physician", "physician", "doctor", "treating physician",
    "referring physician", "arzt", "ärztin", "behandelnder arzt", "médecin", "médico", "medico", "врач", "医生", "医師",
    "担当医", "의사", "담당의", "डॉक्टर", "طبيب", "bác sĩ", "ship to", "bill to", "sold to", "deliver to", "recipient",
    "consignee", "empfänger", "rechnungsempfänger", "lieferung an", "destinataire", "facturer à", "livrer à",
    "destinatario", "facturar a", "enviar a", "entregar a", "faturar para", "spedire a", "fatturare a", "получатель",
    "收货人", "收件人", "お届け先", "請求先", "받는 사람", "수령인", "المستلم", "प्राप्तकर्ता", "người nhận", "alıcı",
)
NAME_KEYWORDS = (
    "name", "nome", "nombre", "nom", "prénom", "prenom", "vorname", "nachname", "naam", "imię", "imie",
    "nazwisko", "soyad", "isim", "имя", "фамилия", "отчество", "фио", "이름", "성명", "성함", "氏名", "名前", "姓名",
    "名字", "联系人", "surname", "forename", "cardholder", "holder", "beneficiary", "customer", "patient",
    "employee", "contact", "author", "contato", "contatto", "kontakt", "assignee", "reporter", "requester",
    "approver", "reviewer", "owner", "started by user", "triggered by user", "cognome", "nominativo", "apellido",
    "titular", "destinatário", "kunde", "klant", "müşteri", "顧客", "고객", "namn", "navn", "nimi", "jméno",
    "příjmení", "név", "όνομα", "επώνυμο", "ім'я", "прізвище", "піб", "họ tên", "họ và tên", "khách hàng", "ชื่อ",
    "שם", "الاسم", "اسم", "العميل", "नाम", "ग्राहक",
    "paciente", "paziente", "patiënt", "pacjent", "пациент", "пацієнт", "患者", "病人", "환자", "مريض", "मरीज",
    "bệnh nhân", "attending", "physician", "doctor", "arzt", "ärztin", "médecin", "médico", "medico", "врач", "医生",
    "医師", "担当医", "의사", "담당의", "डॉक्टर", "طبيب", "bác sĩ", "ship to", "bill to", "sold to", "deliver to",
    "recipient", "consignee", "empfänger", "lieferung an", "destinataire", "facturer à", "livrer à", "destinatario",
    "facturar a", "enviar a", "entregar a", "faturar para", "spedire a", "fatturare a", "получатель", "收货人", "收件人",
    "お届け先", "請求先", "받는 사람", "수령인", "المستلم", "प्राप्तकर्ता", "người nhận", "alıcı",
)

# labels that a name follows after a space, as prose: Jenkins's "Started by user Jane Doe"
NAME_PROSE = ("started by user", "triggered by user")

BIRTH_PHRASES = (
    "dob", "d.o.b", "date of birth", "birth date", "birthdate", "birthday", "born", "born on", "geburtsdatum",
    "geburtstag", "geb.", "geboren", "geboren am", "fecha de nacimiento", "nacimiento", "f. nacimiento",
    "data de nascimento", "nascimento", "data di nascita", "nascita", "nato il", "nata il", "date de naissance",
    "naissance", "né le", "née le", "geboortedatum", "geboren op", "data urodzenia", "urodzony", "urodzona",
    "doğum tarihi", "dogum tarihi", "дата рождения", "рождения", "生年月日", "出生日期", "出生年月日", "誕生日",
    "생년월일", "생일", "जन्म तिथि", "जन्मतिथि", "जन्म की तारीख", "تاريخ الميلاد", "ngày sinh", "วันเกิด", "תאריך לידה",
    "ημερομηνία γέννησης", "дата народження", "födelsedatum", "fødselsdato", "syntymäaika", "datum narození",
    "születési dátum", "data nașterii", "data nasterii",
)
BIRTH_KEYWORDS = (
    "dob", "d.o.b", "birth", "born", "geburt", "geb.", "geboren", "nacimiento", "nascimento", "nascita", "nato il",
    "nata il", "naissance", "né le", "née le", "geboorte", "urodzenia", "urodzon", "doğum", "dogum", "рождения",
    "生年月日", "出生", "誕生日", "생년월일", "생일", "जन्म", "الميلاد", "ngày sinh", "วันเกิด", "לידה", "γέννησης",
    "народження", "födelsedatum", "fødselsdato", "syntymäaika", "narození", "születési", "nașterii", "nasterii",
)

ADDRESS_PHRASES = (
    "address", "home address", "postal address", "mailing address", "billing address", "shipping address",
    "street address", "residential address", "delivery address", "address line", "street", "adresse",
    "anschrift", "wohnadresse", "straße", "strasse", "dirección", "direccion", "domicilio", "endereço",
    "endereco", "morada", "indirizzo", "residenza", "adres", "adresa", "адрес", "адрес проживания", "住所",
    "地址", "住址", "收货地址", "주소", "adress", "postadress", "osoite", "adresa", "διεύθυνση", "адреса", "địa chỉ",
    "ที่อยู่", "כתובת", "العنوان", "عنوان", "पता", "ship to", "bill to", "deliver to", "shipping", "lieferadresse",
    "rechnungsadresse", "adresse de livraison", "dirección de envío", "indirizzo di spedizione", "afleveradres",
)
ADDRESS_KEYWORDS = (
    "address", "street", "adresse", "anschrift", "straße", "strasse", "dirección", "direccion", "domicilio",
    "endereço", "endereco", "morada", "indirizzo", "residenza", "adres", "адрес", "住所", "地址", "住址", "주소",
    "osoite", "διεύθυνση", "địa chỉ", "ที่อยู่", "כתובת", "عنوان", "पता", "ship to", "ship_to", "shipto", "bill to",
    "bill_to", "deliver to", "shipping",
)
# "address" in these keys is a machine's: ip_address, mac address, listen_address, wallet address
ADDRESS_BLOCKERS = frozenset((
    "ip", "ipv4", "ipv6", "mac", "email", "mail", "bind", "listen", "remote", "local", "server", "host",
    "hostname", "peer", "node", "wallet", "contract", "memory", "base", "return", "web", "url", "public",
    "private", "network", "net", "hardware", "broadcast", "gateway", "advertise", "external", "internal", "pod",
    "cluster", "lb", "proxy", "dns", "smtp", "socket", "bus", "eth", "btc", "bitcoin", "ethereum", "crypto",
    "hex", "pointer", "virtual", "physical", "load", "start", "end", "offset", "register", "target", "source",
    "destination", "dest", "src", "dst", "bitcoin", "token", "deposit", "api", "service", "endpoint", "http",
))

# "name" alone in these keys is a thing's: company_name, file name, step name, street name, user name
NAME_BLOCKERS = frozenset((
    "company", "organisation", "organization", "org", "business", "product", "project", "app", "application",
    "service", "host", "file", "repo", "repository", "branch", "bucket", "db", "database", "table", "column", "field",
    "class", "function", "method", "module", "package", "image", "container", "pod", "node", "cluster", "namespace",
    "domain", "server", "device", "queue", "topic", "job", "step", "task", "test", "event", "metric", "tag", "label",
    "model", "resource", "stack", "region", "zone", "index", "schema", "bundle", "font", "path", "dir", "folder",
    "sheet", "vendor", "brand", "plan", "tier", "store", "shop", "merchant", "bank", "team", "group", "role", "key",
    "secret", "var", "variable", "env", "tool", "workflow", "pipeline", "stage", "environment", "entity", "type",
    "kind", "street", "city", "country", "state", "place", "location", "site", "venue", "course", "campaign", "list",
    "channel", "room", "network", "ssid", "printer", "cert", "certificate", "common", "dns", "record", "school",
    "account", "screen", "nick", "nickname", "user", "login", "feature", "flag", "setting", "config",
    "profile", "route", "view", "component", "plugin", "extension", "library", "lib", "artifact", "release", "build",
    "version", "object", "instance", "volume", "disk", "share", "policy", "rule", "alias", "المستخدم", "المستخدمين",
))

# National identifiers: the label's phrases and the python-stdnum modules that check the value
# (own checks where stdnum has none: gb.nino, ru.snils). The first phrase of each row names it.
ID_LABELS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("ssn", "social security", "social security number", "social security no"), ("us.ssn",)),
    (("itin",), ("us.itin",)),
    (("aadhaar", "aadhar", "aadhaar number", "आधार"), ("in_.aadhaar",)),
    (("pan number", "pan card", "pan no"), ("in_.pan",)),
    (("steuer id", "steuerid", "steuer-id", "steuer identifikationsnummer", "steueridentifikationsnummer", "idnr",
      "identifikationsnummer", "steuerliche identifikationsnummer"), ("de.idnr",)),
    (("steuernummer", "st.-nr.", "stnr"), ("de.stnr", "de.idnr")),
    (("nir", "insee", "numéro insee", "sécurité sociale", "securite sociale", "numéro de sécurité sociale",
      "n° de sécurité sociale"), ("fr.nir",)),
    (("dni", "documento nacional de identidad"), ("es.dni", "es.nie", "ar.dni", "mx.curp", "pe.cui")),
    (("nie",), ("es.nie",)),
    (("nif", "número fiscal", "numero fiscal", "número de contribuinte", "numero de contribuinte", "contribuinte",
      "numéro fiscal"), ("es.nif", "pt.nif", "fr.nif", "es.dni", "es.nie")),
    (("cpf",), ("br.cpf",)),
    (("cnpj",), ("br.cnpj",)),
    (("pesel",), ("pl.pesel",)),
    (("rrn", "resident registration number", "주민등록번호", "주민번호"), ("kr.rrn",)),
    (("bsn", "burgerservicenummer", "sofinummer", "sofi-nummer"), ("nl.bsn",)),
    (("codice fiscale", "cod. fiscale", "codicefiscale"), ("it.codicefiscale",)),
    (("curp",), ("mx.curp",)),
    (("rfc",), ("mx.rfc",)),
    (("sin", "social insurance number", "numéro d'assurance sociale", "nas"), ("ca.sin",)),
    (("tfn", "tax file number"), ("au.tfn",)),
    (("personnummer", "personnr"), ("se.personnummer", "dk.cpr", "no.fodselsnummer", "fi.hetu")),
    (("cpr", "cpr-nummer", "cpr nummer"), ("dk.cpr",)),
    (("fødselsnummer", "fodselsnummer"), ("no.fodselsnummer",)),
    (("henkilötunnus", "henkilotunnus", "hetu", "sotu"), ("fi.hetu",)),
    (("rnokpp", "рнокпп", "іпн", "ідентифікаційний код", "ідентифікаційний номер"), ("ua.rntrc",)),
    (("cccd", "số cccd", "căn cước", "căn cước công dân", "cmnd", "số định danh"), ("vn.cccd",)),
    (("emirates id", "هوية إماراتية", "رقم الهوية الإماراتية"), ("ae.eid",)),
    (("iqama", "saudi id", "الهوية الوطنية", "رقم الإقامة"), ("sa.nid",)),
    (("my number", "mynumber", "my_number", "マイナンバー", "個人番号"), ("jp.in_",)),
    (("身份证", "身份证号", "身份证号码", "公民身份号码", "居民身份证"), ("cn.ric",)),
    (("tc kimlik", "tc kimlik no", "t.c. kimlik no", "tckn", "kimlik no", "kimlik numarası"), ("tr.tckimlik",)),
    (("snils", "снилс"), ("ru.snils",)),
    (("инн", "inn"), ("ru.inn",)),
    (("nino", "ni number", "ni no", "national insurance", "national insurance number"), ("gb.nino",)),
    (("nhs number", "nhs no"), ("gb.nhs",)),
    (("pps", "ppsn", "pps number"), ("ie.pps",)),
    (("rijksregisternummer", "numéro national", "niss", "insz"), ("be.nn",)),
    (("ahv", "ahv-nummer", "avs"), ("ch.ssn",)),
    (("sozialversicherungsnummer", "versicherungsnummer", "svnr"), ("at.vnr",)),
    (("cnp",), ("ro.cnp",)),
    (("egn", "егн"), ("bg.egn",)),
    (("rodné číslo", "rodne cislo"), ("cz.rc", "sk.rc")),
    (("amka",), ("gr.amka",)),
    (("oib",), ("hr.oib",)),
    (("emšo", "emso"), ("si.emso",)),
    (("isikukood",), ("ee.ik",)),
    (("asmens kodas",), ("lt.asmens",)),
    (("kennitala",), ("is_.kennitala",)),
    (("teudat zehut", "mispar zehut", "תעודת זהות"), ("il.idnr",)),
    (("nik",), ("id.nik",)),
    (("nric", "mykad"), ("my.nric",)),
    (("ird number", "ird no"), ("nz.ird",)),
    (("rut",), ("cl.rut",)),
    (("cuit", "cuil"), ("ar.cuit",)),
    (("cui",), ("pe.cui",)),
)
# Labels that name no country: the value may be any of the identifiers above.
ID_GENERIC_PHRASES = (
    "national id", "national identifier", "national id number", "id number", "id no", "id nr", "id card",
    "id card no", "id card number", "identity number", "identity card", "identification number", "personal id",
    "personal number", "personal identity number", "personal code", "tax id", "taxid", "tax number",
    "tax identification number", "tin", "document number", "document no", "citizen id", "resident id",
    "gov id", "government id", "nat id", "numéro d'identification", "numero de identificacion", "número de identidad",
    "documento de identidad", "número de identificação", "numero identificativo", "numer identyfikacyjny",
    "identiteitsnummer", "kimlik", "идентификационный номер", "номер паспорта", "ausweisnummer",
    "número de documento", "numero de documento", "numéro de document", "номер документа", "номер документу",
    "dokumentnummer", "numer dokumentu", "belge no", "رقم الهوية", "الهوية", "هوية", "पहचान संख्या", "बायोमेट्रिक",
    "numero documento", "numero di documento", "n documento", "identificatienummer", "identificatie nummer",
    "documentnummer", "henkilöllisyystodistus", "identitetsnummer", "identifikační číslo",
)
NATIONAL_ID_KEYWORDS = (
    "ssn", "social security", "itin", "aadhaar", "aadhar", "आधार", "pan number", "pan card", "pan no", "steuer",
    "idnr", "identifikationsnummer", "st.-nr.", "stnr", "nir", "insee", "sécurité sociale", "securite sociale",
    "dni", "documento nacional", "nie", "nif", "fiscal", "contribuinte", "cpf", "cnpj", "pesel", "rrn",
    "resident registration", "주민등록번호", "주민번호", "bsn", "burgerservicenummer", "sofinummer", "sofi-nummer",
    "codice fiscale", "cod. fiscale", "codicefiscale", "curp", "rfc", "sin", "social insurance", "assurance sociale",
    "nas", "tfn", "tax file", "personnummer", "personnr", "cpr", "fødselsnummer", "fodselsnummer", "henkilötunnus",
    "henkilotunnus", "hetu", "sotu", "my number", "mynumber", "my_number", "マイナンバー", "個人番号", "身份证",
    "公民身份", "kimlik", "tckn", "snils", "снилс", "инн", "inn", "nino", "ni number", "ni no", "national insurance",
    "nhs number", "nhs no", "pps", "rijksregisternummer", "numéro national", "niss", "insz", "ahv", "avs",
    "versicherungsnummer", "svnr", "cnp", "egn", "егн", "rodné číslo", "rodne cislo", "amka", "oib", "emšo", "emso",
    "isikukood", "asmens kodas", "kennitala", "zehut", "תעודת זהות", "nik", "nric", "mykad", "ird number",
    "ird no", "rut", "cuit", "cuil", "cui", "national id", "national identifier", "id number", "id no", "id nr",
    "id card", "identity", "identification", "identificación", "identificacion", "identidad", "identificação",
    "identificativo", "identyfikacyjny", "identiteitsnummer", "personal id", "personal number", "personal code",
    "tax id", "taxid", "tax number", "tin", "document", "citizen id", "resident id", "gov id", "government id",
    "nat id", "идентификационный", "паспорт", "ausweisnummer", "rnokpp", "рнокпп", "іпн", "ідентифікаційн", "cccd",
    "căn cước", "cmnd", "số định danh", "emirates id", "إماراتية", "iqama", "saudi id", "الهوية", "هوية",
    "الإقامة", "номер документ", "documento", "dokumentnummer", "dokumentu", "belge no", "पहचान", "identificatie",
    "documentnummer", "identitetsnummer", "identifikační",
)

EMAIL_PHRASES = ("email", "e-mail", "e mail", "mail", "email address", "correo", "courriel", "e-posta", "eposta",
                 "почта", "электронная почта", "メール", "邮箱", "电子邮件", "이메일")
IBAN_PHRASES = ("iban", "bank account", "kontonummer", "rekeningnummer", "numer konta", "conta", "cuenta")
VAT_PHRASES = ("vat", "vat id", "vat number", "vat no", "vat reg", "ust-idnr", "ust id", "ustid", "ust-id", "ust idnr",
               "mwst", "mwst nr", "uid", "uid nummer", "btw id",
               "umsatzsteuer", "tva", "n° tva", "numéro de tva", "p.iva", "p. iva", "partita iva", "btw",
               "btw nummer", "btw-nummer", "nip", "cif", "mva", "moms", "alv", "dič", "dic")
VAT_KEYWORDS = ("vat", "ust", "umsatzsteuer", "tva", "iva", "btw", "nip", "cif", "mva", "moms", "alv", "dič", "dic", "mwst",
                "uid")
CARD_PHRASES = ("card", "card number", "credit card", "debit card", "karta", "numer karty", "kartennummer",
                "kreditkarte", "carte", "numéro de carte", "tarjeta", "cartão", "carta di credito", "카드번호",
                "银行卡号", "卡号", "カード番号")

# A signature's delimiter and closings (privacy/personal/signature.py): the name, phone and address
# rules start from them too. Lower case; a closing must stand alone on its line.
SIGNATURE_DELIMITERS = ("\n--\n", "\n-- \n", "\n--\r\n")
VALEDICTIONS = (
    "regards", "kind regards", "best regards", "warm regards", "best", "best wishes", "cheers", "thanks", "thank you",
    "many thanks", "sincerely", "yours sincerely", "sincerely yours", "yours truly", "grüße", "gruß", "grüsse",
    "viele grüße", "mit freundlichen grüßen", "cordialement", "bien à vous", "saludos", "un saludo",
    "atentamente", "cumprimentos", "atenciosamente", "abraços", "saluti", "cordiali saluti", "distinti saluti",
    "groeten", "met vriendelijke groet", "pozdrawiam", "pozdrowienia", "saygılarımla", "sevgiler", "с уважением",
    "спасибо", "よろしくお願いします", "敬具", "此致", "谢谢", "감사합니다",
)
SIGNATURE_KEYWORDS = (*SIGNATURE_DELIMITERS, *VALEDICTIONS)


# Identity documents and records that are a person's without check digits: passports, driving
# licences, vehicles' licence plates, medical record numbers (privacy/personal/documents.py
# tests the value's shape). Read only under a label or a column that names them.
PASSPORT, DRIVING, PLATE, MEDICAL = "passport-number", "driving-licence", "licence-plate", "medical-record"

PASSPORT_PHRASES = (
    "passport", "passport number", "passport no", "passport nr", "passport id", "reisepass", "reisepassnummer",
    "passnummer", "passeport", "numéro de passeport", "pasaporte", "número de pasaporte", "passaporte",
    "passaporto", "paspoort", "paspoortnummer", "paszport", "numer paszportu", "pasaport", "pasaport no", "passi",
    "загранпаспорт", "паспорт", "номер паспорта", "закордонний паспорт", "护照", "护照号", "護照", "旅券", "旅券番号",
    "パスポート", "여권", "여권번호", "पासपोर्ट", "جواز السفر", "رقم الجواز", "جواز", "hộ chiếu", "หนังสือเดินทาง", "דרכון",
)
PASSPORT_KEYWORDS = (
    "passport", "reisepass", "passnummer", "passeport", "pasaporte", "passaporte", "passaporto", "paspoort",
    "paszport", "pasaport", "passi", "паспорт", "护照", "護照", "旅券", "パスポート", "여권", "पासपोर्ट", "جواز",
    "hộ chiếu", "หนังสือเดินทาง", "דרכון",
)
DRIVING_PHRASES = (
    "driving licence", "driving license", "driver license", "driver licence", "drivers license", "driver's license",
    "driver’s license", "drivers licence", "dl number", "dl no", "führerschein", "führerscheinnummer",
    "fuhrerschein", "permis de conduire", "licencia de conducir", "carnet de conducir", "carné de conducir",
    "carteira de motorista", "carta de condução", "cnh", "patente di guida", "rijbewijs", "rijbewijsnummer",
    "prawo jazdy", "ehliyet", "ehliyet no", "körkort", "kørekort", "førerkort", "ajokortti", "водительское удостоверение",
    "водительские права", "посвідчення водія", "驾驶证", "驾照", "運転免許", "運転免許証", "免許証番号", "운전면허", "운전면허번호",
    "ड्राइविंग लाइसेंस", "رخصة القيادة", "رخصة السياقة", "giấy phép lái xe", "bằng lái", "ใบขับขี่",
)
DRIVING_KEYWORDS = (
    "driving licence", "driving license", "driver licence", "driver license", "drivers licence", "drivers license",
    "driver's licence", "driver's license", "driver’s license", "dl number", "dl no",
    "führerschein", "fuhrerschein", "permis de conduire", "licencia de conducir", "carnet de conducir",
    "carné de conducir", "carteira de motorista", "carta de condução", "cnh", "patente di guida", "rijbewijs",
    "prawo jazdy", "ehliyet", "körkort", "kørekort", "førerkort", "ajokortti", "водительск", "посвідчення водія",
    "驾驶证", "驾照", "運転免許", "免許証", "운전면허", "ड्राइविंग", "رخصة", "giấy phép lái", "bằng lái", "ใบขับขี่",
)
PLATE_PHRASES = (
    "licence plate", "license plate", "plate", "plate number", "plate no", "number plate", "vehicle plate",
    "car plate", "registration plate", "vehicle registration", "vrm", "kfz", "kfz kennzeichen", "kennzeichen",
    "nummernschild", "autokennzeichen", "plaque", "plaque d'immatriculation", "immatriculation", "matrícula",
    "matricula", "placa", "targa", "kenteken", "numer rejestracyjny", "tablica rejestracyjna", "plaka",
    "госномер", "гос номер", "номерной знак", "номер автомобиля", "номер авто", "车牌", "车牌号", "ナンバープレート",
    "車両番号", "自動車登録番号", "번호판", "차량번호", "biển số", "biển số xe", "لوحة", "رقم اللوحة", "नंबर प्लेट",
    "वाहन संख्या", "ทะเบียนรถ",
)
PLATE_KEYWORDS = (
    "plate", "vrm", "kfz", "kennzeichen", "nummernschild", "plaque", "immatriculation", "matrícula", "matricula",
    "placa", "targa", "kenteken", "rejestracyjny", "plaka", "госномер", "гос номер", "номерной знак", "номер авто",
    "车牌", "ナンバープレート", "車両番号", "自動車登録番号", "번호판", "차량번호", "biển số", "لوحة", "नंबर प्लेट",
    "वाहन संख्या", "ทะเบียนรถ",
)
MEDICAL_PHRASES = (
    "mrn", "medical record", "medical record number", "medical record no", "medical records number", "patient id",
    "patient number", "patient no", "patient nr", "health record number", "chart number", "nhi", "nhi number",
    "patientennummer", "patienten id", "patientenid", "fallnummer", "krankenaktennummer", "numéro de dossier",
    "dossier médical", "numéro patient", "numéro de patient", "historia clínica", "historia clinica",
    "número de historia clínica", "nhc", "prontuário", "prontuario", "número do prontuário", "cartella clinica",
    "numero cartella", "patiëntnummer", "patientnummer", "numer pacjenta", "numer historii choroby", "hasta no",
    "hasta numarası", "protokol no", "номер медкарты", "медкарта", "медицинская карта", "номер карты пациента",
    "病历号", "病案号", "住院号", "カルテ番号", "診察券番号", "患者番号", "患者id", "병록번호", "환자번호", "등록번호 환자",
    "mã bệnh nhân", "số hồ sơ bệnh án", "رقم الملف الطبي", "رقم المريض", "मेडिकल रिकॉर्ड", "मरीज़ आईडी",
)
MEDICAL_KEYWORDS = (
    "mrn", "medical record", "patient id", "patient number", "patient no", "patient nr", "patient_id", "patientid",
    "patient-id", "health record", "chart number", "nhi", "patienten", "fallnummer", "krankenakte", "dossier",
    "numéro patient", "numéro de patient", "historia clínica", "historia clinica", "nhc", "prontuário", "prontuario",
    "cartella", "patiëntnummer", "patientnummer", "pacjenta", "historii choroby", "hasta no", "hasta numarası",
    "медкарт", "медицинская карта", "карты пациента", "病历", "病案", "住院号", "カルテ", "診察券", "患者", "병록번호",
    "환자번호", "bệnh nhân", "bệnh án", "الملف الطبي", "رقم المريض", "मेडिकल रिकॉर्ड", "मरीज़",
)

# Insurance policy and membership numbers (health, car, life): read only under a label or a column
# naming them (privacy/personal/documents.py insurance). A bare "policy" is a machine's as often
# (retry policy, IAM policy): it counts only as "policy number" and its kin.
INSURANCE = "insurance-number"
INSURANCE_PHRASES = (
    "insurance", "insurance number", "insurance no", "insurance id", "insurance policy", "health insurance",
    "policy number", "policy no", "policy nr", "insurance policy number", "insured id", "insured number",
    "versicherung", "versicherungsnummer", "versichertennummer", "krankenversicherung", "krankenkasse",
    "policennummer", "assurance", "numéro de police", "numéro d'assuré", "numéro de contrat d'assurance", "mutuelle",
    "póliza", "poliza", "número de póliza", "aseguradora", "seguro médico", "apólice", "apolice", "número da apólice",
    "convênio", "carteirinha", "polizza", "numero polizza", "numero di polizza", "assicurazione", "polisnummer",
    "verzekering", "zorgverzekering", "polisa", "numer polisy", "ubezpieczenie", "sigorta", "poliçe", "poliçe no",
    "полис", "номер полиса", "страховка", "страховой полис", "страхование", "保险", "保单号", "保险单号", "医保",
    "保険", "保険証", "証券番号", "保険証番号", "被保険者番号", "보험", "보험증권번호", "증권번호", "बीमा", "पॉलिसी",
    "पॉलिसी नंबर", "تأمين", "التأمين", "رقم الوثيقة", "بوليصة", "bảo hiểm", "số hợp đồng bảo hiểm",
)
INSURANCE_KEYWORDS = (
    "insurance", "insured", "policy number", "policy no", "policy nr", "policy_number", "policy_no", "policynumber",
    "versicher", "krankenkasse", "police", "assurance", "assuré", "mutuelle", "póliza", "poliza", "aseguradora",
    "seguro", "apólice", "apolice", "convênio", "carteirinha", "polizza", "assicurazione", "polis", "verzekering",
    "polisa", "polisy", "ubezpiecz", "sigorta", "poliçe", "полис", "страхов", "保险", "保单", "医保", "保険", "証券番号",
    "보험", "증권번호", "बीमा", "पॉलिसी", "تأمين", "التأمين", "الوثيقة", "بوليصة", "bảo hiểm",
)

# Mailboxes of a role, not of a person: an address whose local part (before any +tag) is one of
# these is no personal data (support@, noreply@, billing@, security@, ...).
ROLE_MAILBOXES = frozenset("""
info noreply no-reply no_reply donotreply do-not-reply do_not_reply devops admin administrator hello ops alerts alert
security support privacy billing sales contact team help helpdesk service services webmaster postmaster hostmaster
abuse root mailer-daemon notifications notification notify news newsletter marketing office hr jobs careers press
legal compliance finance accounts accounting invoices invoice orders feedback dev engineering it sysadmin oncall
on-call status bounce bounces reply ci build deploy bot robot dpo gdpr enquiries inquiries kontakt contacto contato
bonjour hola ciao hallo team-lead platform infra sre monitoring backup reports mail email system it-support
customerservice customer-service care
""".split())

# A person's user name (a login): read under these labels only, and only in a person's shape
# (privacy/personal/documents.py handle: elena.romero, thanh.huong.vu; or a full name, as git's
# user.name holds). A bare "user" key is left alone: it names a database's or a service's account
# as often (user: postgres).
USERNAME = "personal-username"
USERNAME_PHRASES = (
    "username", "user name", "login", "login name", "benutzername", "nom d'utilisateur", "identifiant", "utilisateur",
    "usuario", "nombre de usuario", "usuário", "nome de usuário", "utente", "nome utente", "gebruikersnaam",
    "nazwa użytkownika", "użytkownik", "login użytkownika", "kullanıcı adı", "kullanıcı", "имя пользователя",
    "пользователь", "логин", "ім'я користувача", "користувач", "ユーザー名", "ユーザーid", "用户名", "账号", "帳號",
    "사용자 이름", "사용자명", "아이디", "tên người dùng", "tên đăng nhập", "اسم المستخدم", "المستخدم", "उपयोगकर्ता नाम",
    "שם משתמש", "ชื่อผู้ใช้", "käyttäjätunnus", "käyttäjänimi", "brugernavn", "användarnamn", "brukernavn",
    "uživatelské jméno", "यूज़रनेम", "यूजरनेम",
)
USERNAME_KEYWORDS = (
    "username", "user name", "user.name", "login", "benutzername", "utilisateur", "identifiant", "usuario", "usuário",
    "utente", "gebruikersnaam", "użytkownik", "użytkownika", "kullanıcı", "пользовател", "логин", "користувач",
    "ユーザー", "用户名", "账号", "帳號", "사용자", "아이디", "người dùng", "đăng nhập", "المستخدم", "उपयोगकर्ता", "משתמש",
    "ชื่อผู้ใช้", "käyttäjä", "brugernavn", "användarnamn", "brukernavn", "uživatel", "यूज़रनेम", "यूजरनेम",
)

# The order in which a key is read: the first family whose phrase it holds names it
# ("email_address" is an e-mail, "contact_phone" a phone, "customer_address" an address).
ORDER = (EMAIL, IBAN, VAT, NATIONAL_ID, PASSPORT, DRIVING, MEDICAL, INSURANCE, PLATE, CARD, BIRTH, PHONE, ADDRESS, USERNAME, NAME)
