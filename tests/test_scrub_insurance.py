"""Insurance policy and member numbers under a label or a column naming them (issue 28), from
random values: the number alone, after an insurer's name, in a table's or a CSV's column, in many
languages; what the same labels also hold (a word, an amount, a date, a placeholder, a machine's
policy) stays."""

from __future__ import annotations

import random
import string

import pytest

from jevlin_hooks.privacy import scrub
from jevlin_hooks.privacy.personal import documents

SEEDS = range(8)
UP, DIG = string.ascii_uppercase, string.digits
INSURERS = ("AOK", "Allianz", "BUPA", "Aetna", "AXA", "Generali", "Mapfre", "Unimed", "TK", "Cigna", "Zurich")
LABELS = ("Insurance", "Insurance no", "insurance_id", "Policy number", "policy_no", "Versicherungsnummer",
          "Versichertennummer", "Krankenkasse", "Numéro de police", "Mutuelle", "Número de póliza", "Apólice",
          "Numero polizza", "Polisnummer", "Numer polisy", "Poliçe no", "Номер полиса", "保单号", "保険証番号",
          "보험증권번호", "पॉलिसी नंबर", "رقم الوثيقة", "Số hợp đồng bảo hiểm")


def _number(rng: random.Random) -> str:
    """A policy number in one of the shapes insurers print."""
    shape = rng.randrange(4)
    if shape == 0:
        return "".join(rng.choices(UP, k=rng.randrange(1, 4))) + "".join(rng.choices(DIG, k=rng.randrange(6, 12)))
    if shape == 1:
        return "-".join("".join(rng.choices(UP + DIG, k=rng.randrange(3, 6))) for _ in range(rng.randrange(2, 4))) \
            + "-" + "".join(rng.choices(DIG, k=4))
    if shape == 2:
        return str(rng.randrange(10**7, 10**11))
    return "".join(rng.choices(DIG, k=4)) + "/" + "".join(rng.choices(DIG, k=rng.randrange(4, 8)))


def _gone(text: str, value: str) -> None:
    clean = scrub.scrub(text)[0]
    assert value not in clean, (value, text, clean)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_number_under_its_label_is_gone(seed: int) -> None:
    rng = random.Random(f"insurance label {seed}")
    for _ in range(12):
        n, label = _number(rng), rng.choice(LABELS)
        sep = rng.choice((": ", " : ", "=", "：", ":\t"))
        _gone(f"{label}{sep}{n}\n", n)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_number_after_an_insurers_name_is_gone(seed: int) -> None:
    rng = random.Random(f"insurance insurer {seed}")
    for _ in range(12):
        n = _number(rng)
        between = rng.choice((" / policy ", ", ", " - ", " policy no. ", " / "))
        _gone(f"DOB: 1980-01-02\nInsurance: {rng.choice(INSURERS)}{between}{n}\nPhone: n/a\n", n)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_number_in_a_column_named_by_it_is_gone(seed: int) -> None:
    rng = random.Random(f"insurance column {seed}")
    rows = [(rng.choice(INSURERS), _number(rng)) for _ in range(3)]
    head = rng.choice(("policy_number", "insurance_no", "Versicherungsnummer", "policy number"))
    csv = f"id,insurer,{head}\n" + "".join(f"{i},{a},{n}\n" for i, (a, n) in enumerate(rows))
    md = f"| insurer | {head} |\n|---|---|\n" + "".join(f"| {a} | {n} |\n" for a, n in rows)
    for text in (csv, md):
        for _, n in rows:
            _gone(text, n)


@pytest.mark.parametrize("seed", SEEDS)
def test_what_else_such_labels_hold_stays(seed: int) -> None:
    rng = random.Random(f"insurance kept {seed}")
    for _ in range(8):
        label = rng.choice(LABELS)
        value = rng.choice(("none", "pending", "n/a", "XXXXXXXX", f"{rng.randrange(100, 9999)} EUR",
                            f"20{rng.randrange(10, 40)}-0{rng.randrange(1, 9)}-1{rng.randrange(0, 9)}",
                            f"premium {rng.randrange(100, 9999)}", rng.choice(INSURERS)))
        text = f"{label}: {value}"
        assert scrub.scrub(text)[0] == text, text
    for text in (f"retry policy: {rng.randrange(1, 9)}", f"policy: arn:aws:iam::{rng.randrange(10**11, 10**12)}:policy/ReadOnly",
                 f"Restart policy: on-failure:{rng.randrange(1, 9)}"):
        assert scrub.scrub(text)[0] == text, text


def test_the_value_test_takes_one_number_only() -> None:
    assert documents.insurance("AOK / policy QLD338489449") == (13, 25)
    assert documents.insurance("A123456 or B7654321") is None  # two numbers: no reading of which
    assert documents.insurance("1200") is None and documents.insurance("12345") is None
