"""Personal data on identity documents and records, read under a label or a column naming them:
passport numbers, driving licence numbers, vehicles' licence plates, medical record numbers.

They have no check digit that holds across countries: a value is taken only where its key names
it (``Passport: X1234567``, a CSV column ``plate``, ``MRN: P358915091``, ``Reisepass``,
``Führerschein``, ``Kennzeichen``, ``immatriculation``, ``パスポート``, ``车牌``, ``환자번호``, ...)
and has the document's shape (privacy/personal/documents.py).
"""

from __future__ import annotations

from jevlin_hooks.privacy.rules import labels
from jevlin_hooks.privacy.rules.pii import _keywords, _words
from jevlin_hooks.privacy.rules.rule import Rule

RULES: tuple[Rule, ...] = (
    Rule(labels.PASSPORT, "pii", "passport numbers where a label or column names them (passport, passport_no, Reisepass, passeport, pasaporte, passaporto, paspoort, paszport, pasaport, паспорт, 护照, 旅券, パスポート, 여권, पासपोर्ट, جواز السفر, hộ chiếu, ...): 6 to 12 capital letters and digits, at least two digits; a word, a date or a placeholder under the label stays",
         _words(labels.PASSPORT_KEYWORDS, labels.PASSPORT_PHRASES), _keywords(labels.PASSPORT_KEYWORDS, labels.PASSPORT_PHRASES),
         0, "field-passport",
         examples=("Passport: JY9429384", "passport_no=C01X00T47",
                   "Reisepassnummer: C4J8R7K21"),
         counter_examples=("passport: expired", "passport_expiry: 2031-05-01", "Passport: XXXXXXXX",
                           "the passport page is blurry")),
    Rule(labels.DRIVING, "pii", "driving licence numbers where a label or column names them (driving licence, driver's license, DL number, Führerschein, permis de conduire, licencia de conducir, CNH, patente di guida, rijbewijs, prawo jazdy, ehliyet, körkort, водительское удостоверение, 驾驶证, 運転免許, 운전면허, ...): 5 to 24 capital letters and digits, at least four digits",
         _words(labels.DRIVING_KEYWORDS, labels.DRIVING_PHRASES), _keywords(labels.DRIVING_KEYWORDS, labels.DRIVING_PHRASES),
         0, "field-driving",
         examples=("Driver's license: D1234-56789-01234", "Führerschein: B072RRE2I55"),
         counter_examples=("driver license: valid", "driving licence class: B", "driver_license_expiry: 2030-01-01")),
    Rule(labels.PLATE, "pii", "vehicles' licence plates where a label or column names them (license plate, plate, number plate, VRM, Kfz, Kennzeichen, plaque, immatriculation, matrícula, placa, targa, kenteken, numer rejestracyjny, plaka, госномер, 车牌, ナンバープレート, 번호판, biển số, ...): 4 to 12 letters of any script (Latin ones in capitals) and digits, at least one digit, in up to five groups",
         _words(labels.PLATE_KEYWORDS, labels.PLATE_PHRASES), _keywords(labels.PLATE_KEYWORDS, labels.PLATE_PHRASES),
         0, "field-plate",
         examples=("License plate: 7ABC123", "Kennzeichen: HH-RG 3909", "车牌: 川A·2371F"),
         counter_examples=("plate: n/a", "template: base.html", "plate: 2026-11-08", "number plate: missing")),
    Rule(labels.MEDICAL, "pii", "medical record numbers where a label or column names them (MRN, medical record number, patient id, Patientennummer, Fallnummer, numéro de dossier, historia clínica, prontuário, cartella clinica, numer pacjenta, hasta no, номер медкарты, 病历号, カルテ番号, 환자번호, ...): 5 to 24 capital letters, digits and joints (- / . :), at least four digits",
         _words(labels.MEDICAL_KEYWORDS, labels.MEDICAL_PHRASES), _keywords(labels.MEDICAL_KEYWORDS, labels.MEDICAL_PHRASES),
         0, "field-medical",
         examples=("MRN: P358915091", "patient_id=KH2019/092064"),
         counter_examples=("MRN: pending", "patient id: none", "mrn: 12")),
    Rule(labels.INSURANCE, "pii", "insurance policy and member numbers where a label or column names them (insurance, policy number, Versicherungsnummer, Krankenkasse, numéro de police, mutuelle, número de póliza, apólice, polizza, polisnummer, numer polisy, poliçe, номер полиса, 保单号, 保険証番号, 보험증권번호, बीमा पॉलिसी, رقم الوثيقة, ...): 6 to 24 capital letters and digits, at least four digits (six when digits only); the value, or the one number after an insurer's name (Insurance: AOK / policy QLD338489449)",
         _words(labels.INSURANCE_KEYWORDS, labels.INSURANCE_PHRASES), _keywords(labels.INSURANCE_KEYWORDS, labels.INSURANCE_PHRASES),
         0, "field-insurance",
         examples=("Insurance: AOK / policy QLD338489449", "policy_number=HX-4417-0923", "Versicherungsnummer: A123456789",
                   "Krankenkasse: TK, Versichertennummer K482917365"),
         counter_examples=("insurance: none", "Insurance: premium 1200 EUR", "policy number: pending",
                           "retry policy: 3", "insurance_expiry: 2031-05-01")),
)

# A postal address by its own shape, with no label: a house number and a street word, then a
# postcode and a city, as most of Europe and the English-speaking countries write one on a line.
_CITY = r"\p{Lu}[\p{L}'\-]+(?: \p{Lu}[\p{L}'\-]+){0,2}"
_STREET_AFTER = (r"(?i:street|st\.|road|rd\.|avenue|ave\.|lane|drive|boulevard|blvd\.|way|court|place|terrace|close|walk|"
                 r"crescent|square|parkway|highway|row|gardens|grove|hill|mews)")
_STREET_SUFFIX = (r"(?i:stra(?:ss|ß)e|str\.|gasse|weg|allee|platz|ring|damm|laan|straat|gracht|plein|kade|dijk|vej|gade|"
                  r"gatan|v[äa]gen|gata|tie|katu|kuja|polku|utca)")
_STREET_BEFORE = (r"(?i:rue|avenue|av\.|boulevard|bd|chemin|place|all[ée]e|impasse|quai|via|viale|piazza|corso|largo|"
                  r"calle|avenida|avda\.|paseo|plaza|carrer|rua|travessa|pra[çc]a|ulica|ul\.|aleja|al\.)")
# (the gate: a street's word, as the patterns hold it; the short English ones with their comma)
STREET_WORDS = (
    "street", "st., ", "road", "rd., ", "avenue", "ave., ", "lane", "drive", "boulevard", "blvd", "way, ", "court",
    "place, ", "terrace", "close, ", "walk, ", "crescent", "square, ", "parkway", "highway", "row, ", "gardens", "grove",
    "hill, ", "mews", "straße", "strasse", "str. ", "gasse", "weg ", "allee", "platz ", "ring ", "damm ", "laan ",
    "straat ", "gracht ", "plein ", "kade ", "dijk ", "vej ", "gade ", "gatan ", "vägen ", "vagen ", "gata ", "tie ",
    "katu ", "kuja ", "polku ", "utca ", "rue ", "av. ", "bd ", "chemin ", "allée ", "impasse ", "quai ", "via ", "viale ",
    "piazza ", "corso ", "largo ", "calle ", "avda. ", "paseo ", "plaza ", "carrer ", "rua ", "travessa ", "praça ",
    "praca ", "ulica ", "ul. ", "aleja ", "al. ",
)
STREET_ADDRESS = Rule(
    "street-address", "pii", "a postal address by its shape, with no label: a house number and a street (Victoria Street, Lindenstraße, rue de la République, Via Roma, Calle Sierpes, ul. Długa, Drottninggatan, Mannerheimintie, ...) then a postcode and a city on the same line (79 Church Walk, Bristol BS7 7FJ; Lindenstraße 161, 50667 Köln; 124 rue de la République, 75011 Paris; 350 Fifth Avenue, New York, NY 10118); a street named without a postcode and a city stays",
    r"(?:^|[^\p{L}\p{N}])("
    r"[0-9]{1,5}[A-Za-z]?,? (?:\p{Lu}[\p{L}'\-]+ ){1,3}" + _STREET_AFTER + r",? (?:[^,\n]{1,30}, )?" + _CITY
    + r",? (?:[A-Z]{2} [0-9]{5}(?:-[0-9]{4})?|[A-Z]{1,2}[0-9][A-Z0-9]? ?[0-9][A-Z]{2})"
    r"|\p{Lu}[\p{L}\-]*" + _STREET_SUFFIX + r" [0-9]{1,4}[A-Za-z]?(?:[\-/][0-9]{1,4})?(?: [A-Z](?: [0-9]{1,3})?)?,? (?:[^,\n]{1,20}, )?[0-9]{3} ?[0-9]{2} " + _CITY
    + r"|\p{Lu}[\p{L}\-]*" + _STREET_SUFFIX + r" [0-9]{1,4}[A-Za-z]?(?:[\-/][0-9]{1,4})?(?: [A-Z](?: [0-9]{1,3})?)?,? (?:[^,\n]{1,20}, )?[0-9]{4} ?[A-Z]{0,2} ?" + _CITY
    + r"|(?:[0-9]{1,4}(?:bis|ter)?,? )?" + _STREET_BEFORE + r" [^\d,\n]{2,40}?,? [0-9]{1,4}[A-Za-z]?(?:/[0-9]{1,4})?(?:,? [^,\n]{1,20})?, [0-9]{2}-?[0-9]{3} " + _CITY
    + r"|[0-9]{1,4}(?:bis|ter)?,? " + _STREET_BEFORE + r" [^\d,\n]{2,40}?, [0-9]{5} " + _CITY
    + r")",
    STREET_WORDS, 1, "", prefilter=True,
    examples=("ship to 79 Church Walk, Bristol BS7 7FJ today", "Lindenstraße 161, 50667 Köln", "124 rue de la République, 75011 Paris",
              "Via Roma 132, 20121 Milano MI", "ul. Długa 160/29, 00-624 Warszawa", "Drottninggatan 38, 114 55 Stockholm",
              "Kerkstraat 22-3, 1064 SJ Utrecht", "350 Fifth Avenue, New York, NY 10118"),
    counter_examples=("the Victoria Street office", "Lindenstraße is closed", "port 8080 on Main Street", "version 2.3, 4 workers"))
RULES = (*RULES, STREET_ADDRESS)

# National ids with no label, where their format and check digits leave little to chance and the
# text around them is about a person: privacy/checks/documents.py id_shape.
ID_SHAPE = Rule(
    "national-id-shape", "pii", "national identifiers with no label, in a format of their own whose check digits hold (python-stdnum) and with a word about a person within 120 characters (a name, customer, patient, contact, date of birth, phone, e-mail, address, id, ... in many languages): Mexico's CURP, Italy's codice fiscale, China's resident id, the Emirates ID, Russia's SNILS, Brazil's CPF, Korea's RRN, Finland's henkilötunnus, France's NIR, India's Aadhaar (in its groups of four), Belgium's national number",
    r"(?:^|[^\p{L}\p{N}])("
    r"[A-Z][AEIOUX][A-Z]{2}[0-9]{6}[HM][A-Z]{5}[0-9A-Z][0-9]"
    r"|[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-EHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]"
    r"|[1-9][0-9]{5}(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])[0-9]{3}[0-9Xx]"
    r"|784-?(?:19|20)[0-9]{2}-?[0-9]{7}-?[0-9]"
    r"|[0-9]{3}-[0-9]{3}-[0-9]{3}[ \-][0-9]{2}"
    r"|[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}"
    r"|[0-9]{6}-[1-4][0-9]{6}"
    r"|[0-9]{6}[\-+A][0-9]{3}[0-9A-Y]"
    r"|[12] [0-9]{2} [0-9]{2} [0-9A-B]{2} [0-9]{3} [0-9]{3} [0-9]{2}"
    r"|[2-9][0-9]{3} [0-9]{4} [0-9]{4}"
    r"|[0-9]{2}\.[0-9]{2}\.[0-9]{2}-[0-9]{3}\.[0-9]{2}"
    r")(?:[^\p{L}\p{N}\-.]|[.\-](?:[^\p{N}]|$)|$)",
    (), 1, "id-shape", prefilter=True,
    examples=("Cliente: Juan Pérez, CURP HEGJ860524HJCRRN02", "patient Mario Rossi RSSMRA85T10A562S",
              "contact 王磊 110105199001011232", "customer Maria Ivanova 112-233-445 95"),
    counter_examples=("build 110105199001011232 finished", "Cliente: Juan Pérez, CURP HEGJ860524HJCRRN03",
                      "order 4024 0071 5336", "trace 123-456-789 01"))
RULES = (*RULES, ID_SHAPE)

# A national id under a bare "ID" label (ID: 383-40-4578 in a patient's record): "ID" names any
# thing's id, so the value must pass a national id's check digits and the text around it be about
# a person, as for ids with no label: privacy/checks/documents.py id_labelled.
ID_LABELLED = Rule(
    "national-id-under-id", "pii", "a national identifier under a bare ID label (ID: 383-40-4578, Id: Y7002381E, ID No.: 33 652 831 909) whose check digits hold for one of the countries the national-id rule knows (python-stdnum), with a word about a person within 120 characters (name, patient, date of birth, phone, address, ...); a build's, an order's or a row's id stays",
    r"(?:^|[^\p{L}\p{N}_.\-])(?:ID|Id|ID No\.?|ID Nr\.?|ID#)[ \t]*[:：=][ \t]*([0-9A-Z][0-9A-Z .\-/]{4,22}[0-9A-Z])[ \t]*(?:\r?\n|$)",
    (), 1, "id-labelled", prefilter=True,
    examples=("Patient: Ann Lee\nDOB: 1973-05-27\nID: 383-40-4578\n", "Name: Javier Gómez\nID: Y7002381E\n"),
    counter_examples=("Build ID: 383-40-4578\n", "Order\nID: 383-40-4578\n", "Name: Javier Gómez\nID: Y7002381F\n"))
RULES = (*RULES, ID_LABELLED)
