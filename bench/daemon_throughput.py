"""The long-running daemon draining a queue to a local OTLP receiver, and its memory with a deep
queue: what it and its worker processes hold while 100,000 records wait.

    nice -n 10 .venv/bin/python bench/daemon_throughput.py [--n 20000] [--deep 100000] [--cores N]
        [--config 'workers = 1'] [--tree DIR]

Records are bench/spool_records.py's (1-3 KiB of agent-text history, a fifth with a planted
secret), written straight into spool/new. The daemon runs as `jevlin-hooks daemon run` (the
long-running form, file watcher on, worker processes as it starts them on this machine: one
fewer than the CPUs it may use), with no CPU pinning unless ``--cores``; it sends to
bench/otlp_receiver.py (OTLP/HTTP protobuf, every request decoded). Timed from its start until the queue is empty, then
stopped with SIGTERM. Memory: every 50 ms, the proportional set size (PSS, from
/proc/<pid>/smaps_rollup) of the daemon and of each of its children; the peak of their sum, and
each one's own peak, are reported (a page shared by two processes counts half in each, so the
sum is what they use together).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from queue_vs_otel import Receiver, _pss_kb, family, pinned  # noqa: E402
from spool_records import make_spool  # noqa: E402

# bench/scrub_speed.py and bench/scrub_ab.py build "daemon record" texts from these (the records
# of this bench before it used the agent-text generator's rows)
PROSE = ("Let me check how the client retries after a connection reset before I change it. "
         "The docs mention exponential backoff with jitter and a cap; I will search for the exact default. ")
SECRET_LINES = ["export GITHUB_TOKEN=ghp_" + "R8x2Kq9mW4nP7sT1vY6zB3cD5fG8hJ0kL2mN\n",
                "password: hunter2-correct-horse\n", "see /home/alice/project/src and bob@example.com\n"]


def run_daemon(home: str, url: str, cpus: set[int] | None, tree: str = ROOT, extra: str = ""
               ) -> tuple[float, float, dict[int, float], int]:
    """(seconds, peak PSS MB of the daemon and its children together, each one's peak PSS MB,
    records left)."""
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'[ship]\nsink = "otlp"\nendpoint = "{url}"\n[daemon]\nautostart = false\n{extra}\n'
                f'[spool]\nmax_mb = 100000\n')
    env = {**os.environ, "JEVLIN_HOME": home, "PYTHONPATH": tree}
    new = os.path.join(home, "spool", "new")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run"], env=env,
                            preexec_fn=pinned(cpus), cwd=tree)
    peak = 0.0
    each: dict[int, float] = {}
    while True:
        pids = family(proc.pid)
        sizes = {p: _pss_kb(p) / 1024 for p in pids}
        peak = max(peak, sum(sizes.values()))
        for p, mb in sizes.items():
            each[p] = max(each.get(p, 0.0), mb)
        if not any(n.endswith(".json") for n in os.listdir(new)):
            break
        time.sleep(0.05)
    took = time.perf_counter() - t0
    proc.terminate()
    proc.wait(60)
    left = sum(1 for n in os.listdir(new) if n.endswith(".json"))
    return took, peak, each, left


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--deep", type=int, default=100000)
    ap.add_argument("--cores", type=int, default=0, help="pin the daemon to this many CPUs (0: not pinned)")
    ap.add_argument("--tree", default=ROOT, help="the checkout whose daemon runs (default: this one)")
    ap.add_argument("--config", default="", help="lines added under [daemon], e.g. 'workers = 1'")
    args = ap.parse_args()
    cpus = set(sorted(os.sched_getaffinity(0))[:args.cores]) if args.cores else None
    rcv = Receiver(None)
    tmp = tempfile.mkdtemp(prefix="jevlin-daemon-bench-")
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} CPUs, daemon on "
          f"{sorted(cpus) if cpus else 'all'}; load {os.getloadavg()[0]:.1f}")
    try:
        for label, n in (("throughput", args.n), ("deep queue", args.deep)):
            if not n:
                continue
            home = os.path.join(tmp, label.replace(" ", "-"))
            make_spool(home, n, seed=3)
            os.sync()
            rcv.reset()
            took, peak, each, left = run_daemon(home, rcv.url, cpus, os.path.abspath(args.tree), args.config)
            got = rcv.counts()
            assert left == 0, f"{left} records left"
            assert got["spans"] == n and got["errors"] == 0, f"{got['spans']} spans arrived, {n} expected"
            shutil.rmtree(home, ignore_errors=True)
            parts = ", ".join(f"{mb:.0f}" for mb in each.values())
            print(f"{label}: {n:,} records waiting at start, drained in {took:.1f} s ({n / took:,.0f}/s); "
                  f"peak PSS {peak:.0f} MB, daemon and workers together (each one's peak: {parts} MB)")
    finally:
        rcv.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
