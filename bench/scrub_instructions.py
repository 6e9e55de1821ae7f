"""Instructions the scrubber runs per 32 KiB varied message, this tree beside others: a count, not a
time, so it repeats whatever else the machine is doing (valgrind's callgrind).

    .venv/bin/python bench/scrub_instructions.py [OTHER_TREE ...] [--n 30]

Timings on these shared 2-core machines move by 30% from one minute to the next, more than most
speed changes; bench/scrub_ab.py interleaves two trees to cancel that, this counts instead. Each
tree scrubs 20 messages to warm up (DFA states, memos, the Hyperscan prefilter built and cached
in a cache directory of its own), then K more; the count for K = 10 is taken from the count for
K = 10 + n, which leaves what n messages cost and nothing of start-up or of making the
messages (both counts make the same 30 + n, bench/scrub_speed.py's varied mix, seed 7). OTHER_TREE is a
checkout of the package (`git archive REV | tar -x -C DIR`); all of its modules are its own.
Needs valgrind (Debian's package).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = """
import random, sys
sys.path.insert(0, sys.argv[1])
from bench import scrub_speed as ss
from bench.agent_text import generate
from jevlin_hooks.privacy import scrub
rng = random.Random(7)
snippets = [r.text for r in generate.rows(7, 400)]
[ss.bench_message(rng) for _ in range(60)]
k, made = int(sys.argv[2]), int(sys.argv[3])
msgs = [ss.varied_message(rng, snippets) for _ in range(made)]  # as many in every count
try:
    from jevlin_hooks.privacy.engine import prefilter
except ImportError:  # a tree from before privacy/engine/ (345efb8 and older)
    from jevlin_hooks.privacy import prefilter
assert scrub.wait_prefilter(900) or not prefilter.available()
for m in msgs[:20 + k]:
    scrub.scrub(m)
"""


def count(tree: str, k: int, made: int, cache: str) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0", XDG_CACHE_HOME=cache)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", _CHILD,
                            tree, str(k), str(made)], env=env, capture_output=True, text=True, check=True, cwd=tree)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if m is None:
        raise SystemExit(f"callgrind printed no count for {tree}:\n{r.stderr[-2000:]}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="*", help="other checkouts to count beside this one")
    ap.add_argument("--n", type=int, default=30)
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    for tree in [ROOT, *args.trees]:
        tree = os.path.abspath(tree)
        with tempfile.TemporaryDirectory() as cache:
            # the prefilter is compiled and cached once, outside both counts
            made = 30 + args.n
            subprocess.run([sys.executable, "-c", _CHILD, tree, "0", "20"], env=dict(os.environ, XDG_CACHE_HOME=cache),
                           check=True, cwd=tree)
            base, more = count(tree, 10, made, cache), count(tree, 10 + args.n, made, cache)
        per = (more - base) / args.n
        print(f"{tree}: {per / 1e6:.2f} million instructions per varied message ({args.n} messages)")


if __name__ == "__main__":
    main()
