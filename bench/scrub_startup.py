"""The scrubber's start-up in a fresh process: rules compiled, and the Hyperscan prefilter ready.

    .venv/bin/python bench/scrub_startup.py [--n 15] [OTHER_TREE ...]

Each sample is one whole process (`python -c`), timed from its start to its exit by this one,
with its CPU (user + system) and peak RSS (`wait4`):

* floor: `pass`, the same interpreter;
* rules: import the scrubber and compile every rule (`scrub.default()`), what a process pays
  before its first text;
* ready, empty cache: the same, then wait for the Hyperscan prefilter (compiled in a background
  thread; texts scrubbed before it is ready skip it, with the same output), with an empty cache
  directory: what the first process after an install or an upgrade pays;
* ready, cached: the same with the cache that an earlier process left, every later process.

Each tree (this one, then each OTHER_TREE, e.g. from `git archive REV | tar -x -C DIR`) gets a
cache directory of its own (XDG_CACHE_HOME), so that neither the trees nor other checkouts on the
machine evict each other's databases. Samples are interleaved (floor, then each tree's three),
round after round, so machine noise hits all alike; times are given as p50 and the spread
(min-max) over the rounds, and as the p50 of each sample minus its round's floor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(code: str, env: dict[str, str], cwd: str) -> tuple[float, float, float]:
    """Wall and CPU seconds, and peak RSS in MB, of one `python -c code` process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{code!r} exited {proc.returncode}")
    return took, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=15, help="rounds")
    ap.add_argument("trees", nargs="*", help="other checkouts to measure beside this one")
    args = ap.parse_args()
    trees = [ROOT] + [os.path.abspath(t) for t in args.trees]
    tmp = tempfile.mkdtemp(prefix="jevlin-startup-")
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    head = (
        "import sys; sys.path.insert(0, {tree!r}); from jevlin_hooks.privacy import scrub; "
        "assert scrub.__file__.startswith({tree!r}), scrub.__file__; "
    )
    rules = head + "scrub.default()"
    # the prefilter must really run: a sample without Hyperscan would measure nothing
    ready = head + "assert scrub.wait_prefilter(60), 'no Hyperscan prefilter'"
    samples: dict[str, list[tuple[float, float, float]]] = {"floor": []}
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for r in range(args.n):
        floor = run("pass", base, tmp)
        samples["floor"].append(floor)
        for t, tree in enumerate(trees):
            warm = os.path.join(tmp, f"warm{t}")
            empty = os.path.join(tmp, f"empty{t}-{r}")
            if r == 0:  # fill this tree's cache once
                run(ready.format(tree=tree), dict(base, XDG_CACHE_HOME=warm), tree)
            for what, code, cache in (("rules", rules, warm), ("ready, empty cache", ready, empty),
                                      ("ready, cached", ready, warm)):
                samples.setdefault(f"{t} {what}", []).append(run(code.format(tree=tree), dict(base, XDG_CACHE_HOME=cache), tree))
            shutil.rmtree(empty, ignore_errors=True)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.n} rounds; ms, p50 [min-max]")
    fl = [w for w, _, _ in samples["floor"]]
    print(f"floor (python -c pass): wall {ms(fl)}, cpu {ms([c for _, c, _ in samples['floor']])}, "
          f"peak RSS {mb([m for _, _, m in samples['floor']])}")
    for t, tree in enumerate(trees):
        print(f"tree {t}: {tree}")
        for what in ("rules", "ready, empty cache", "ready, cached"):
            got = samples[f"{t} {what}"]
            over = [w - f for (w, _, _), f in zip(got, fl, strict=True)]
            print(f"  {what:<19} wall {ms([w for w, _, _ in got])}, over the floor {ms(over)}, "
                  f"cpu {ms([c for _, c, _ in got])}, peak RSS {mb([m for _, _, m in got])}")
    shutil.rmtree(tmp, ignore_errors=True)


def mb(xs: list[float]) -> str:
    return f"{statistics.median(xs):.1f} MB [{min(xs):.1f}-{max(xs):.1f}]"


def ms(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1000:.0f} [{min(xs) * 1000:.0f}-{max(xs) * 1000:.0f}]"


if __name__ == "__main__":
    main()
