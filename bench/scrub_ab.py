"""This tree's scrubber beside another tree's, interleaved message by message on the same texts.

    .venv/bin/python bench/scrub_ab.py OTHER_TREE [--n 100]

On a shared machine two separate runs of bench/scrub_speed.py differ by more than most speed
changes; here both scrubbers see each message back to back, so load hits both alike. It also
checks that both give the same output (clean text and findings) on every message: a speed change
that changes what is redacted shows up as a count below n. A third mix is the daemon's: the texts
of one record (bench/daemon_throughput.py's records, 1-3 KiB of history) scrubbed together by
`scrub_many`, timed in microseconds. OTHER_TREE is a checkout, e.g.
`git archive main | tar -x -C /tmp/main`. The other tree's whole package is loaded on its own
(its rules, checks and engine), beside this tree's, in the same process.

With ``--cold``, 64 MB are read before each call (outside the timing): each scrubber then starts
with the processor's caches full of other data, as in bench/scrub_speed.py, where detect-secrets
and LangSmith run between two of our messages. On these machines (2 MiB of L2 a core) that costs
a varied message about 1 ms of its 3.5: a change can save instructions and still lose there.

With ``--cpu``, each call is timed by its thread's CPU time instead of the wall clock. Run with
``nice`` on a machine busy with other work, a call's wall time is mostly time spent waiting for
a core (a varied message's p50 went from 6 to 50-90 ms) and the two trees' ratio moved by 0.2
from one run to the next; the CPU time leaves the waiting out (it still counts what the other
work costs the caches).
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
import time
from types import ModuleType
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import scrub_speed  # noqa: E402
from bench.agent_text import generate  # noqa: E402
from jevlin_hooks.privacy import scrub  # noqa: E402


def prefilter_installed() -> bool:
    try:
        import hyperscan  # noqa: F401
    except ImportError:
        return False
    return True


def _ours(name: str) -> bool:
    return name == "jevlin_hooks" or name.startswith("jevlin_hooks.")


def load_other(tree: str) -> ModuleType:
    """The other tree's jevlin_hooks.privacy.scrub with everything it imports of its own package:
    imported with that tree first on the path and this tree's modules set aside, then set aside
    in turn (its functions keep their own modules' globals)."""
    mine = {k: v for k, v in sys.modules.items() if _ours(k)}
    for k in mine:
        del sys.modules[k]
    sys.path.insert(0, os.path.abspath(tree))
    try:
        other = importlib.import_module("jevlin_hooks.privacy.scrub")
    finally:
        sys.path.remove(os.path.abspath(tree))
        for k in [k for k in sys.modules if _ours(k)]:
            del sys.modules[k]
        sys.modules.update(mine)
    assert os.path.abspath(other.__file__ or "").startswith(os.path.abspath(tree)), other.__file__
    return other


def key(result: tuple[str, list]) -> tuple[str, list[tuple[str, int, int]]]:
    return result[0], [(f.rule, f.start, f.end) for f in result[1]]


def record_texts(rng: random.Random, n: int) -> list[list[str]]:
    """The texts record.make_safe gives scrub_many for records shaped like the daemon bench's."""
    from bench.daemon_throughput import PROSE, SECRET_LINES

    out = []
    for i in range(n):
        history = PROSE * rng.randint(8, 24) + (rng.choice(SECRET_LINES) if rng.random() < 0.2 else "")
        out.append([history, f"httpx retry backoff {i}", "claude-code", "linux", "claude-x", "Bash", "ok"])
    return out


_EVICT = bytearray(0)


def set_cold(cold: bool) -> None:
    """Whether evict() reads 64 MB (see --cold)."""
    _EVICT[:] = bytes(64 << 20) if cold else b""


def evict() -> None:
    """Fill the caches with something else (see --cold)."""
    if _EVICT:
        bytes(_EVICT)


CLOCK = [time.perf_counter]  # or time.thread_time (--cpu)


def interleaved(theirs_fn: Any, ours_fn: Any, inputs: list[Any], as_key: Any) -> tuple[float, float, int]:
    """Both scrubbers on each input back to back: (their p50 ms, our p50 ms, inputs with the same output)."""
    theirs: list[float] = []
    ours: list[float] = []
    same = 0
    clock = CLOCK[0]
    for x in inputs:
        evict()
        t0 = clock()
        a = theirs_fn(x)
        theirs.append(clock() - t0)
        evict()
        t0 = clock()
        b = ours_fn(x)
        ours.append(clock() - t0)
        same += as_key(a) == as_key(b)
    return scrub_speed.p(theirs, .5), scrub_speed.p(ours, .5), same


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("other", help="the other tree (a checkout of main, say)")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--cold", action="store_true", help="read 64 MB before each call: caches as in scrub_speed.py")
    ap.add_argument("--cpu", action="store_true", help="time the thread's CPU, not the wall clock (see the docstring)")
    args = ap.parse_args()
    if args.cpu:
        CLOCK[0] = time.thread_time
    set_cold(args.cold)
    other = load_other(args.other)
    rng = random.Random(7)  # the same messages as bench/scrub_speed.py
    snippets = [r.text for r in generate.rows(7, 400)]
    mixes = {"bench": [scrub_speed.bench_message(rng) for _ in range(args.n)],
             "varied": [scrub_speed.varied_message(rng, snippets) for _ in range(args.n)]}
    # The steady state: Hyperscan compiles (or loads) in the background. The cache directory is
    # shared by every checkout on the machine, and each evicts the others' databases: on a busy
    # machine a compile took more than the default 10 s, and the messages before it was ready
    # were timed on the slower gate (a tree's p50 10x its steady state). Wait for both, or say so.
    if not (scrub.wait_prefilter(600) and other.wait_prefilter(600)) and prefilter_installed():
        raise SystemExit("a Hyperscan prefilter is not ready after 600 s: nothing measured")
    for name, msgs in mixes.items():
        p_theirs, p_ours, same = interleaved(other.scrub, scrub.scrub, msgs, key)
        print(f"{name:6} mix: other tree p50 {p_theirs:.2f} ms, this tree p50 {p_ours:.2f} ms "
              f"({p_theirs / p_ours:.2f}x), same output on {same}/{len(msgs)} messages")
    records = record_texts(random.Random(3), args.n * 10)
    p_theirs, p_ours, same = interleaved(other.scrub_many, scrub.scrub_many, records, lambda r: r)
    print(f"daemon records (scrub_many): other tree p50 {p_theirs * 1000:.0f} us, this tree p50 {p_ours * 1000:.0f} us "
          f"({p_theirs / p_ours:.2f}x), same output on {same}/{len(records)} records")


if __name__ == "__main__":
    main()
