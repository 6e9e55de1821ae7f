"""What the hook path's modules cost to import, per module, optionally beside another tree.

    .venv/bin/python bench/import_cost.py [--n 80] [OTHER_CHECKOUT]

Each sample is one `python -X importtime -I -S -c "import <hook path modules>"` process; runs of
this tree and OTHER_CHECKOUT (for example `git archive <commit> | tar -x -C /tmp/base`)
alternate, so machine noise hits both alike. Printed: each module's own import time (self, not
cumulative) at the 20th percentile over the samples, in microseconds, and the sum. Finer than
bench/hook_latency.py for a question like "does this change cost start-up?".
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = (
    "jevlin_hooks.capture.hook", "jevlin_hooks.capture.engine", "jevlin_hooks.capture.lineage",
    "jevlin_hooks.harnesses.claude_code.capture", "jevlin_hooks.harnesses.codex.capture",
    "jevlin_hooks.harnesses.cursor.capture", "jevlin_hooks.capture.transcript",
    "jevlin_hooks.capture.context", "jevlin_hooks.base.config", "jevlin_hooks.base.spool",
    "jevlin_hooks.privacy.ids",
)
LINE = re.compile(r"^import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)$", re.M)


def sample(tree: str) -> dict[str, int]:
    code = f"import sys; sys.path.insert(0, {tree!r}); import " + ", ".join(MODULES)
    p = subprocess.run([sys.executable, "-X", "importtime", "-I", "-S", "-c", code],
                       capture_output=True, text=True, check=True)
    return {m: int(us) for us, m in LINE.findall(p.stderr)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=80)
    ap.add_argument("other", nargs="?")
    ns = ap.parse_args()
    trees = [ROOT] + ([os.path.abspath(ns.other)] if ns.other else [])
    got: dict[str, dict[str, list[int]]] = {t: defaultdict(list) for t in trees}
    for _ in range(ns.n):
        for t in trees:
            for m, us in sample(t).items():
                got[t][m].append(us)
    names = sorted({m for t in trees for m in got[t] if m.startswith("jevlin_hooks")})
    print(f"python {sys.version.split()[0]}  n={ns.n}  self import time, p20, us")
    print(f"{'module':45s}" + "".join(f"{os.path.basename(t) or t:>14s}" for t in trees))
    totals = dict.fromkeys(trees, 0)
    for m in names:
        row = []
        for t in trees:
            v = sorted(got[t].get(m) or [0])
            us = v[len(v) // 5]
            totals[t] += us
            row.append(f"{us:>14d}")
        print(f"{m:45s}" + "".join(row))
    print(f"{'sum':45s}" + "".join(f"{totals[t]:>14d}" for t in trees))


if __name__ == "__main__":
    main()
