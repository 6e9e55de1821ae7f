"""What each of the scrubber's mechanisms costs: the varied mix with each turned off by name, beside
another tree's scrubber, in one run.

    .venv/bin/python bench/scrub_parts.py OTHER_TREE [--n 40] [--rounds 2]

Every message of bench/scrub_speed.py's varied mix (seed 7) is scrubbed by OTHER_TREE's scrubber
(a `git archive` of the tree before issue 28's mechanisms, say) and by this tree's with nothing
off, with each mechanism off (the names `disabled_rules` takes: the decoders, rejoin-lines,
whole-token and everywhere, layout) and with all of them off, in a rotating order, each call
timed by its thread's CPU time (see bench/scrub_ab.py --cpu). Printed: each configuration's p50
and its ratio to OTHER_TREE's. A mechanism's cost is the drop from "all" to its line. Turning a
mechanism off changes the output, so nothing here compares outputs (bench/scrub_ab.py does).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import scrub_ab, scrub_speed  # noqa: E402
from bench.agent_text import generate  # noqa: E402
from jevlin_hooks.privacy import scrub  # noqa: E402

DECODERS = ["decode-escapes", "decode-entities", "decode-url", "decode-shell-quoting"]
CONFIGS: dict[str, list[str]] = {
    "nothing off": [],
    "decoders off": DECODERS,
    "rejoin-lines off": ["rejoin-lines"],
    "whole-token, everywhere off": ["whole-token", "everywhere"],
    "layout off": ["layout"],
    "all of these off": DECODERS + ["rejoin-lines", "whole-token", "everywhere", "layout"],
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("other", help="the other tree (the starting code, say)")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    other = scrub_ab.load_other(args.other)
    rng = random.Random(7)  # the same messages as bench/scrub_speed.py
    snippets = [r.text for r in generate.rows(7, 400)]
    for _ in range(args.n):
        scrub_speed.bench_message(rng)  # (drawn first there: the varied messages are the same)
    varied = [scrub_speed.varied_message(rng, snippets) for _ in range(args.n)]
    if not (scrub.wait_prefilter(600) and other.wait_prefilter(600)) and scrub_ab.prefilter_installed():
        raise SystemExit("a Hyperscan prefilter is not ready after 600 s: nothing measured")
    s = scrub.default()
    runs: list[tuple[str, list[str] | None]] = [("other tree", None), *CONFIGS.items()]
    times: dict[str, list[float]] = {name: [] for name, _ in runs}
    for _ in range(args.rounds):
        for i, m in enumerate(varied):
            for name, off in runs[i % len(runs):] + runs[:i % len(runs)]:  # each first in turn
                t0 = time.thread_time()
                if off is None:
                    other.scrub(m)
                else:
                    s.scrub(m, off)
                times[name].append(time.thread_time() - t0)
    base = statistics.median(times["other tree"])
    for name, ts in times.items():
        p50 = statistics.median(ts)
        print(f"{name:28} p50 {p50 * 1000:6.2f} ms CPU  {p50 / base:.2f}x the other tree")


if __name__ == "__main__":
    main()
