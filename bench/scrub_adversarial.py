"""Hostile text, 1 MB each: the linear-time engine keeps every case bounded.

    .venv/bin/python bench/scrub_adversarial.py
"""

from __future__ import annotations

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from jevlin_hooks.privacy import scrub  # noqa: E402

MB = 1 << 20


def cases() -> dict[str, str]:
    rng = random.Random(1)
    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return {
        "near-miss prefixes (sk- x 350k)": "sk-" * (MB // 3),
        "near-miss AWS ids": ("AKIA" + "A" * 15 + " ") * (MB // 20),
        "password= x 116k": "password=" * (MB // 9),
        "one 1 MB value after token:": "token: " + "a1B2" * (MB // 4),
        "BEGIN PRIVATE KEY, no END": "-----BEGIN RSA PRIVATE KEY-----\n" + "QUJD" * (MB // 4),
        "one 1 MB base64 line": "".join(rng.choice(b64) for _ in range(MB)),
        "binary junk": bytes(rng.randrange(256) for _ in range(MB)).decode("latin-1"),
        "nested-quantifier bait a*!": "a" * MB + "!",
        "eyJ. x 150k": "eyJabc." * (MB // 7),
        "scheme://user: x 116k": "http://a:" * (MB // 9),
        "a@ x 500k": "a@" * (MB // 2),
        "key=value; x 95k": "key=value; " * (MB // 11),
        "Authorization: Bearer x 47k": "Authorization: Bearer " * (MB // 22),
    }


def main() -> None:
    scrub.wait_prefilter()  # the steady state: Hyperscan compiles in the background
    worst = 0.0
    for name, text in cases().items():
        t0 = time.perf_counter()
        _, findings = scrub.scrub(text)
        took = time.perf_counter() - t0
        worst = max(worst, took)
        print(f"{name:34} {took * 1000:7.0f} ms  {len(findings):6d} findings")
    print(f"worst case: {worst * 1000:.0f} ms per MB")


if __name__ == "__main__":
    main()
