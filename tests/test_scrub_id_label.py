"""A national id under a bare ID label (issue 28), from random values: the id's check digits hold
for some country and a word about a person is near, so it is gone; the same id in a build's or an
order's record, or a value whose check fails, stays."""

from __future__ import annotations

import random

import pytest
from test_scrub_personal import ID_TEMPLATES, random_id

from jevlin_hooks.privacy import scrub

SEEDS = range(6)
MODULES = ("us.ssn", "es.nie", "es.dni", "in_.aadhaar", "de.idnr", "pl.pesel", "it.codicefiscale")


@pytest.mark.parametrize("seed", SEEDS)
def test_an_id_near_a_person_is_gone(seed: int) -> None:
    rng = random.Random(f"id label {seed}")
    for module in MODULES:
        if module not in ID_TEMPLATES:
            continue
        value = random_id(rng, module)
        person = rng.choice(("Patient: Ann Lee", "Name: Jo Park", "DOB: 1973-05-27", "Phone: +44 7700 900123",
                             "Пациент: Иван Петров", "Customer since 2019"))
        key = rng.choice(("ID", "Id", "ID No.", "ID#"))
        text = f"{person}\n{key}: {value}\nVisit 2026-05-08\n"
        assert value not in scrub.scrub(text)[0], text


@pytest.mark.parametrize("seed", SEEDS)
def test_an_id_with_no_person_near_stays(seed: int) -> None:
    rng = random.Random(f"id label kept {seed}")
    for module in MODULES:
        if module not in ID_TEMPLATES:
            continue
        value = random_id(rng, module)
        text = f"{rng.choice(('Build', 'Order', 'Job', 'Row'))} {rng.randrange(100)}\nID: {value}\nstatus: done\n"
        assert scrub.scrub(text)[0] == text, text


@pytest.mark.parametrize("seed", SEEDS)
def test_a_clouds_service_account_stays_and_a_persons_mailbox_goes(seed: int) -> None:
    rng = random.Random(f"service account {seed}")
    for _ in range(6):
        local = rng.choice(("github-ci", "bq-reader", "deployer", "firebase-adminsdk-x1y2z", "sa-" + str(rng.randrange(999))))
        project = f"{rng.choice(('acme', 'shop', 'data'))}-{rng.choice(('prod', 'analytics', 'dev'))}-{rng.randrange(9999)}"
        account = f"{local}@{project}.iam.gserviceaccount.com"
        text = f"$ gcloud iam service-accounts keys create key.json --iam-account={account}\n"
        assert account in scrub.scrub(text)[0], text
        person = f"{rng.choice(('anna', 'lars', 'mei'))}.{rng.choice(('berg', 'li', 'ross'))}@{project}.com"
        assert person not in scrub.scrub(f"owner: {person}\n")[0]
