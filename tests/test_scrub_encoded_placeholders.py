"""A placeholder or a mask under one layer of encoding stays (issue 28): a Kubernetes Secret's
data printed with masked values (base64 of ``***``, ``[REDACTED]``, ``<token>``), a URL-encoded
``${SECRET}``; a secret encoded the same ways, drawn at random, still goes."""

from __future__ import annotations

import base64
import random
import string
import urllib.parse

import pytest

from jevlin_hooks.privacy import heuristics, scrub

SEEDS = range(8)
KEYS = ("DB_PASSWORD", "JIRA_API_TOKEN", "LINEAR_API_KEY", "STRIPE_SECRET_KEY", "SMTP_PASSWORD")


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def _placeholder(rng: random.Random) -> str:
    word = rng.choice(("jira_api_token", "password", "api_key", "secret", "db_pass")) + rng.choice(("", "_here"))
    return rng.choice(("*" * rng.randrange(3, 12), "[REDACTED]", f"<{word}>", f"{{{{ secrets.{word.upper()} }}}}",
                       f"${{{word.upper()}}}", "x" * rng.randrange(4, 10)))


def _secret(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_letters + string.digits, k=rng.randrange(16, 40)))


@pytest.mark.parametrize("seed", SEEDS)
def test_an_encoded_placeholder_stays(seed: int) -> None:
    rng = random.Random(f"encoded placeholder {seed}")
    rows = [(rng.choice(KEYS), _b64(_placeholder(rng))) for _ in range(4)]
    text = "apiVersion: v1\ndata:\n" + "".join(f"  {k}: {v}\n" for k, v in rows) + "kind: Secret\n"
    clean = scrub.scrub(text)[0]
    for _, v in rows:
        assert v in clean, (v, base64.b64decode(v), clean)
    ref = urllib.parse.quote("${" + rng.choice(KEYS) + "}", safe="")
    assert heuristics.encoded_placeholder(ref)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_encoded_secret_still_goes(seed: int) -> None:
    rng = random.Random(f"encoded secret {seed}")
    rows = [(rng.choice(KEYS), _b64(_secret(rng))) for _ in range(4)]
    text = "apiVersion: v1\ndata:\n" + "".join(f"  {k}: {v}\n" for k, v in rows) + "kind: Secret\n"
    clean = scrub.scrub(text)[0]
    for _, v in rows:
        assert v not in clean, (v, clean)
    for _ in range(6):
        s = _secret(rng)
        assert not heuristics.encoded_placeholder(_b64(s))
        pw = s[:8] + "%" + rng.choice(string.hexdigits) + rng.choice(string.hexdigits) + s[8:12]
        assert not heuristics.encoded_placeholder(pw)
