"""The scrubber's speed where native modules have no wheel, beside the native one (docs/platforms.md).

    .venv/bin/python bench/scrub_fallback.py [--messages 40] [--rounds 3]

Each configuration runs in its own process with the missing modules made unimportable
(tests/without/sitecustomize.py, as the tests do), one for each set of engines a platform gets
(CONFIGS; docs/platforms.md says which): from RE2 and Hyperscan (the usual install) to the
pure-Python engine (privacy/linear/) and automaton with no prefilter (nothing native). The rounds
run the configurations in turn, so a busy machine slows them alike.

1. Varied 32 KiB agent messages (bench/scrub_speed.py's varied_message): CPU time per message
   (process time, so other load counts less), median and the spread of the per-round medians,
   and the ratio to RE2 with Hyperscan.
2. The hostile texts of bench/scrub_adversarial.py at 64 KiB (the most a record's field holds:
   base/spool.py TEXT_LIMIT) and 256 KiB: seconds per MiB at each size. Linear time shows as the
   same figure at both sizes; a backtracking engine's would grow with the size.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# each as a platform in docs/platforms.md has it
CONFIGS = {
    "RE2 + Hyperscan": (),  # Linux glibc, macOS 13+, Windows x86-64 (CPython 3.11-3.14)
    "RE2, no Hyperscan": ("hyperscan",),  # anywhere, until the prefilter is ready
    "RE2, Python automaton": ("ahocorasick_rs", "hyperscan"),  # Windows arm64
    "Python engine + Hyperscan": ("re2",),  # macOS 12 and earlier
    "Python engine, automaton + HS": ("re2", "ahocorasick_rs"),  # CPython 3.15
    "nothing native": ("re2", "ahocorasick_rs", "hyperscan"),
}
SIZES = (64 * 1024, 256 * 1024)

_CHILD = r"""
import json, random, sys, time
sys.path.insert(0, ROOT); sys.path.insert(0, ROOT + "/bench")
from bench import scrub_adversarial, scrub_speed
from bench.agent_text import generate
from jevlin_hooks.privacy import scrub
what, n = sys.argv[1], int(sys.argv[2])
s = scrub.default()
s.wait_prefilter(60)
out = {}
if what == "mix":
    rng = random.Random(7)
    rows = [r.text for r in generate.rows(7, 400)]
    msgs = [scrub_speed.varied_message(rng, rows) for _ in range(n)]
    for m in msgs[:3]:
        s.scrub(m)  # the DFA states, the prefilter's scratch: the steady state
    times = []
    for m in msgs:
        t0 = time.process_time()
        s.scrub(m)
        times.append(time.process_time() - t0)
    out["per_message"] = sorted(times)[len(times) // 2]
else:
    for name, text in scrub_adversarial.cases().items():
        for size in SIZES:
            t0 = time.process_time()
            s.scrub(text[:size])
            out[f"{name}|{size}"] = (time.process_time() - t0) * (1 << 20) / size
print(json.dumps(out))
"""


def child(missing: tuple[str, ...], what: str, n: int) -> dict[str, float]:
    env = dict(os.environ, JEVLIN_TEST_WITHOUT=",".join(missing),
               PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "tests", "without"), ROOT]))
    code = f"ROOT = {ROOT!r}; SIZES = {SIZES!r}" + _CHILD
    p = subprocess.run([sys.executable, "-c", code, what, str(n)], env=env, capture_output=True, text=True, check=True)
    got: dict[str, float] = json.loads(p.stdout)
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    mix: dict[str, list[float]] = {k: [] for k in CONFIGS}
    for _ in range(args.rounds):
        for name, missing in CONFIGS.items():
            mix[name].append(child(missing, "mix", args.messages)["per_message"])
    base = statistics.median(mix["RE2 + Hyperscan"])
    print(f"varied 32 KiB messages, CPU ms per message (median of {args.rounds} rounds of {args.messages}; range):")
    for name, xs in mix.items():
        m = statistics.median(xs)
        print(f"  {name:32} {m * 1000:7.1f}  ({min(xs) * 1000:.1f}-{max(xs) * 1000:.1f})  {m / base:5.1f}x")
    print("\nhostile texts, CPU s per MiB at " + " and ".join(f"{s // 1024} KiB" for s in SIZES) + ":")
    for name, missing in CONFIGS.items():
        got = child(missing, "hostile", 0)
        worst = {size: max(v for k, v in got.items() if k.endswith(f"|{size}")) for size in SIZES}
        slowest = max(got, key=got.__getitem__).split("|")[0]
        grow = worst[SIZES[-1]] / worst[SIZES[0]]
        print(f"  {name:32} worst " + " / ".join(f"{worst[s]:6.2f}" for s in SIZES) +
              f"   {SIZES[-1] // SIZES[0]}x the text: {grow:4.2f}x the time per MiB   (slowest: {slowest})")


if __name__ == "__main__":
    main()
