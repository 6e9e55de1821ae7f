"""Where a varied message's time goes with warm caches and with cold ones, part by part.

    .venv/bin/python bench/scrub_cold.py [--n 60] [--rounds 3]

bench/scrub_speed.py times our scrubber between detect-secrets and LangSmith, which fill the
processor's caches (these machines have 2 MiB of L2 a core), so each of our messages starts cold;
the daemon, scrubbing a batch, runs warm, and a record that arrives alone after the agent has run
runs cold again. This takes each message of the varied mix (bench/scrub_speed.py, seed 7) through
`find` whole and with parts left out, warm (back to back) and cold (after reading 64 MB), and the
daemon's records (bench/scrub_ab.py's: 1-3 KiB of history) through `scrub_many` both ways. A part's
cost is the whole's p50 less the p50 without it. Every configuration sees every message in the
same round, so load hits all alike, and every message is scrubbed once before the timing starts.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import scrub_ab, scrub_speed  # noqa: E402
from bench.agent_text import generate  # noqa: E402
from jevlin_hooks.privacy import scrub  # noqa: E402
from jevlin_hooks.privacy.rules import RULES  # noqa: E402

CANDIDATE_HEAVY = ("quoted-high-entropy", "generic-high-entropy", "credential-assignment", "credential-in-prose")


def timed(inputs: list, configs: dict[str, Callable], rounds: int, cold: bool) -> dict[str, float]:
    scrub_ab.set_cold(cold)
    times: dict[str, list[float]] = {k: [] for k in configs}
    for r in range(rounds):
        order = list(configs.items())
        if r % 2:
            order.reverse()
        for x in inputs:
            for name, fn in order:
                scrub_ab.evict()
                t0 = time.perf_counter()
                fn(x)
                times[name].append(time.perf_counter() - t0)
    return {k: scrub_speed.p(v, .5) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(7)
    snippets = [r.text for r in generate.rows(7, 400)]
    [scrub_speed.bench_message(rng) for _ in range(args.n)]  # the same varied messages as scrub_speed.py
    msgs = [scrub_speed.varied_message(rng, snippets) for _ in range(args.n)]
    records = scrub_ab.record_texts(random.Random(3), args.n * 5)
    scrub.wait_prefilter()
    every = tuple(r.name for r in RULES)
    configs: dict[str, Callable] = {
        "whole": lambda m: scrub.find(m),
        "gate only (every rule off)": lambda m: scrub.find(m, every, decoded=False),
        "no decoded views (decoded=False)": lambda m: scrub.find(m, decoded=False),
        "without the 4 candidate-heavy rules": lambda m: scrub.find(m, CANDIDATE_HEAVY),
    }
    # every message seen once before any timing, so that no configuration pays alone for what the
    # scrubber remembers of a value (its memos) the first time it meets it
    for m in msgs:
        scrub.find(m)
    for cold in (False, True):
        got = timed(msgs, configs, args.rounds, cold)
        whole = got["whole"]
        gate = got["gate only (every rule off)"]
        split = whole - got["no decoded views (decoded=False)"]
        heavy = whole - got["without the 4 candidate-heavy rules"]
        rec = timed(records, {"records": scrub.scrub_many}, args.rounds, cold)["records"]
        print(f"{'cold' if cold else 'warm'}: varied message p50 {whole:.2f} ms = gate {gate:.2f} (lower-casing, views, "
              f"Hyperscan's scans) + split values {split:.2f} (joints and their windows) + the 4 candidate-heavy rules "
              f"{heavy:.2f} + the other rules {whole - gate - split - heavy:.2f}; a daemon record (scrub_many) "
              f"{rec * 1000:.0f} us")


if __name__ == "__main__":
    main()
