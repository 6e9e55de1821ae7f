"""Names under the labels of a person's role (issue 28), from random values: a patient, a doctor,
a parcel's or an invoice's addressee, in many languages, the name on the label's line or on the
line below, after a doctor's title, under a key with a gender's mark (Patient(in), Kunde (m/w/d));
what the same labels also hold and is no one's name (a word, a country, a group) stays."""

from __future__ import annotations

import random

import pytest

from jevlin_hooks.privacy import scrub

SEEDS = range(8)
ROLES = ("Patient", "Paciente", "Paziente", "Patiënt", "Pacjent", "Пациент", "患者", "환자", "Attending", "Physician",
         "Doctor", "Arzt", "Médecin", "Médico", "Врач", "担当医", "Ship to", "SHIP TO", "Bill to", "Recipient",
         "Empfänger", "Destinataire", "Destinatario", "Получатель", "收货人", "お届け先", "수령인")
HAN = "伟芳娜敏静丽强磊洋艳勇军杰娟涛明超秀霞平刚桂"
HANGUL = "민준서연예은수빈도현지우하은시우지호윤서"
DEVANAGARI = ("राहुल", "प्रिया", "नेहा", "अमित", "शर्मा", "वर्मा", "गुप्ता", "सिंह")


def _latin(rng: random.Random) -> str:
    def word() -> str:
        return "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randrange(2, 4))).capitalize()
    return f"{word()} {word()}"


def _name(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return _latin(rng)
    if kind == 1:
        return rng.choice("王李张刘陈杨赵黄") + "".join(rng.choices(HAN, k=rng.randrange(1, 3)))
    if kind == 2:
        return rng.choice("김이박최정강") + "".join(rng.choices(HANGUL, k=2))
    return f"{rng.choice(DEVANAGARI)} {rng.choice(DEVANAGARI)}"


def _gone(text: str, value: str) -> None:
    clean = scrub.scrub(text)[0]
    assert value not in clean, (value, text, clean)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_name_under_a_roles_label_is_gone(seed: int) -> None:
    rng = random.Random(f"role {seed}")
    for _ in range(16):
        name, role = _name(rng), rng.choice(ROLES)
        title = rng.choice(("", "", "Dr. ", "Prof. ")) if role in ("Attending", "Physician", "Doctor", "Arzt") else ""
        sep = rng.choice((": ", ":\n", " : ", "：")) if role[0].isascii() else rng.choice((": ", "："))
        _gone(f"Export\n{role}{sep}{title}{name}\nDOB: 1970-01-0{rng.randrange(1, 9)}\n", name)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_key_with_a_genders_mark_is_read(seed: int) -> None:
    rng = random.Random(f"gender mark {seed}")
    for _ in range(6):
        name = _latin(rng)
        key = rng.choice(("Patient(in)", "Patient (in)", "Kunde (m/w/d)", "Empfänger(in)", "Paciente(a)"))
        _gone(f"{key}: {name}\n", name)


@pytest.mark.parametrize("seed", SEEDS)
def test_what_else_such_labels_hold_stays(seed: int) -> None:
    rng = random.Random(f"role kept {seed}")
    for _ in range(8):
        role = rng.choice(("Doctor", "Recipient", "Ship to", "Bill to", "Attending", "Patient"))
        value = rng.choice(("all", "EU", "yes", "none", "n/a", "who", "same as billing", "Germany", "pending"))
        text = f"{role}: {value}"
        assert scrub.scrub(text)[0] == text, text
    assert scrub.scrub("f(x): Hans Meier")[0] == "f(x): Hans Meier"
