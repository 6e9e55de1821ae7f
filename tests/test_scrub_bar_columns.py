"""Personal data in columns joined by bars with no blanks (sqlite's and psql's unaligned output:
``id|email|full_name|phone``) read by their header, and a record's number after its abbreviation
(``MRN: Pat.-Nr. 73299010``), from random values; a bar-joined table of things stays."""

from __future__ import annotations

import random

import pytest

from jevlin_hooks.privacy import scrub

SEEDS = range(8)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randrange(2, 4))).capitalize()


@pytest.mark.parametrize("seed", SEEDS)
def test_a_bar_joined_export_is_read_by_its_header(seed: int) -> None:
    rng = random.Random(f"bars {seed}")
    head = rng.choice((["id", "email", "full_name", "phone", "created_at"], ["id", "name", "phone"],
                       ["customer_id", "customer_name", "mobile"]))
    rows, secrets = [], []
    for i in range(rng.randrange(2, 6)):
        name = f"{_word(rng)} {_word(rng)}"
        phone = rng.choice((f"+49 30 {rng.randrange(1000000, 9999999)}", f"+44 7700 {rng.randrange(100000, 999999)}",
                            f"+1 415 {rng.randrange(200, 999)} {rng.randrange(1000, 9999)}"))
        cells = {"id": str(rng.randrange(10**4, 10**5)), "customer_id": str(i), "email": f"u{i}@example.org",
                 "full_name": name, "name": name, "customer_name": name, "phone": phone, "mobile": phone,
                 "created_at": "2026-03-26 03:03"}
        rows.append("|".join(cells[h] for h in head))
        secrets += [name, phone]
    text = "sqlite> select * from t;\n" + "|".join(head) + "\n" + "\n".join(rows) + "\n"
    clean = scrub.scrub(text)[0]
    for v in secrets:
        assert v not in clean, (v, clean)


def test_a_bar_joined_table_of_things_stays() -> None:
    for text in ("name|version\nrequests|2.31.0\nurllib3|2.2.1\n", "cat users.txt | grep name\nfoo | bar\n"):
        assert scrub.scrub(text)[0] == text


@pytest.mark.parametrize("seed", SEEDS)
def test_a_records_number_after_its_abbreviation_is_gone(seed: int) -> None:
    rng = random.Random(f"mrn prefix {seed}")
    for _ in range(6):
        n = str(rng.randrange(10**5, 10**10))
        prefix = rng.choice(("Pat.-Nr. ", "Nr. ", "No. ", "Pat.-Nr.", "Fall-Nr. "))
        label = rng.choice(("MRN", "Patientennummer", "Medical record number", "Fallnummer"))
        text = f"{label}: {prefix}{n}\n"
        assert n not in scrub.scrub(text)[0], text
    for text in ("MRN: Nr. 12\n", "MRN: v. 2026\n"):
        assert scrub.scrub(text)[0] == text
