"""Where the daemon's CPU goes, per record: scrubbing against everything else on its path.

    XDG_CACHE_HOME=DIR nice -n 10 .venv/bin/python bench/daemon_split.py [--n 10000] [--tree DIR]

Queues N of bench/spool_records.py's records (as bench/queue_vs_otel.py does: 1-3 KiB of
agent-text history, a fifth with a planted secret or personal data), makes what an install
leaves (queue_vs_otel.installed: bytecode, the scrubber's cached databases), then runs
`jevlin-hooks daemon run --once` with `sink = "otlp"` (protobuf) against bench/otlp_receiver.py,
pinned to one CPU, the receiver on another. Inside the daemon, the functions of each step are
wrapped before it starts, and each step's CPU is counted exclusively (time.thread_time of the
main thread, a step's time not counted again in the step that called it); the other threads
(the acknowledged records' deletes, the scrubber's database loader) are counted together as
process CPU minus the main thread's. The scrubber's imports (privacy.record and what it
imports: the engine, rules and checks) are counted as scrubbing; the interpreter's start, the
other imports and reading the config (until the scheduler runs) as start-up. What the process
spends after that (the interpreter's exit) is in wait4's total only. The wrappers cost a little
themselves (a few microseconds per record): compare shares, and take the total from
bench/queue_vs_otel.py.
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
BENCH = os.path.join(ROOT, "bench")
sys.path.insert(0, BENCH)

from queue_vs_otel import Receiver, installed, pinned, reap  # noqa: E402
from spool_records import make_spool  # noqa: E402

# (module, function, step): a method is "Class.method"
STEPS = [
    ("jevlin_hooks.privacy.scrub", "default", "scrubbing: the scrubber made (rules compiled, databases loaded)"),
    ("jevlin_hooks.privacy.scrub", "scrub_fields", "scrubbing: the texts scrubbed"),
    ("jevlin_hooks.privacy.record", "_reads_whole_text", "scrubbing: the whole-text check (Kubernetes kind)"),
    ("jevlin_hooks.privacy.record", "_spread", "scrubbing: a value cut in one text cut in the others"),
    ("jevlin_hooks.privacy.known_ids", "replace", "ids: raw ids in texts replaced by their hashes"),
    ("jevlin_hooks.privacy.known_ids", "table", "ids: each id's spellings and hashes"),
    ("jevlin_hooks.privacy.ids", "hash_id", "ids: HMAC of each id"),
    ("jevlin_hooks.privacy.record", "clean", "record: cleaned and validated"),
    ("jevlin_hooks.privacy.record", "make_safe_many", "record: fields allowed, texts collected and put back"),
    ("jevlin_hooks.ship.codec", "loads", "queue: JSON parsed"),
    ("jevlin_hooks.base.spool", "read", "queue: files read"),
    ("jevlin_hooks.ship.prepare", "prepare_chunk", "queue: chunks and groups"),
    ("jevlin_hooks.ship.prepare", "prepare_many", "queue: chunks and groups"),
    ("jevlin_hooks.ship.sinks.otlp_spans", "build", "OTLP: spans built"),
    ("jevlin_hooks.ship.sinks.otlp_wire", "span_pb", "OTLP: protobuf written"),
    ("jevlin_hooks.ship.sinks.otlp_wire", "request_pb", "OTLP: protobuf written"),
    ("jevlin_hooks.ship.sinks.http", "compress", "HTTP: gzip"),
    ("jevlin_hooks.ship.sinks.http", "post", "HTTP: the request and its answer"),
    ("jevlin_hooks.ship.sinks.http", "client", "HTTP: the client made"),
    ("jevlin_hooks.ship.report", "Report.save", "status and log writes"),
    ("jevlin_hooks.ship.report", "Report.log", "status and log writes"),
]
# modules that took one of STEPS' functions by name, rebound to the wrapper
REBOUND = [("jevlin_hooks.ship.sinks.otlp", "build", "jevlin_hooks.ship.sinks.otlp_spans"),
           ("jevlin_hooks.ship.sinks.otlp", "post", "jevlin_hooks.ship.sinks.http"),
           ("jevlin_hooks.ship.sinks.otlp", "client", "jevlin_hooks.ship.sinks.http")]
START = "start-up: the interpreter, imports, the config (until the scheduler runs)"
OTHER_MAIN = "the scheduler and the rest of the main thread"
THREADS = "other threads: deletes of acknowledged records, the scrubber's database loader"

# Run in the daemon's process (python -c) before jevlin_hooks.cli's main.
_INSIDE = r'''
import atexit, importlib, json, sys, threading, time
steps, rebound, start, other_main, threads_name, out_path = json.loads(sys.argv.pop(1))
acc = {}
stack = []
main_thread = threading.main_thread()
tt = time.thread_time


def wrap(f, step):
    def w(*a, **k):
        if threading.current_thread() is not main_thread:
            return f(*a, **k)
        now = tt()
        if stack:
            acc[stack[-1][0]] = acc.get(stack[-1][0], 0.0) + now - stack[-1][1]
        stack.append([step, now])
        try:
            return f(*a, **k)
        finally:
            end = tt()
            s, t0 = stack.pop()
            acc[s] = acc.get(s, 0.0) + end - t0
            if stack:
                stack[-1][1] = end
    return w


t0 = time.process_time()
importlib.import_module("jevlin_hooks.privacy.record")  # the scrubber's modules, rules and checks
imported = time.process_time() - t0
for mod, name, step in steps:
    m = importlib.import_module(mod)
    if "." in name:
        cls, meth = name.split(".")
        c = getattr(m, cls)
        setattr(c, meth, wrap(getattr(c, meth), step))
    else:
        setattr(m, name, wrap(getattr(m, name), step))
for mod, name, src in rebound:
    setattr(importlib.import_module(mod), name, getattr(importlib.import_module(src), name))
sched = importlib.import_module("jevlin_hooks.ship.scheduler").Scheduler
run = sched.run
ends = {}


def timed_run(self, *a, **k):
    acc[start] = time.process_time() - imported
    acc["scrubbing: its modules imported (privacy.record and what it imports)"] = imported
    ends["main0"] = tt()
    stack.append([other_main, tt()])
    try:
        return run(self, *a, **k)
    finally:
        end = tt()
        s, t0 = stack.pop()
        acc[s] = acc.get(s, 0.0) + end - t0
        main_cpu = end - ends["main0"]
        acc[threads_name] = time.process_time() - acc[start] - imported - main_cpu


sched.run = timed_run


def report():
    with open(out_path, "w") as f:
        json.dump(acc, f)


atexit.register(report)
from jevlin_hooks import cli
sys.exit(cli.main(sys.argv[1:]))
'''


def split(n: int, tree: str) -> tuple[dict[str, float], float]:
    """({step: CPU seconds}, the process's CPU seconds as wait4 gives it)."""
    tmp = tempfile.mkdtemp(prefix="jevlin-split-")
    rcv = Receiver({1} if len(os.sched_getaffinity(0)) > 1 else None)
    try:
        home = os.path.join(tmp, "home")
        make_spool(home, n)
        os.sync()
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(f'[ship]\nsink = "otlp"\nendpoint = "{rcv.url}"\notlp_protocol = "http/protobuf"\n'
                    '[daemon]\nautostart = false\n[spool]\nmax_mb = 100000\n')
        out = os.path.join(tmp, "split.json")
        import json

        arg = json.dumps([STEPS, REBOUND, START, OTHER_MAIN, THREADS, out])
        proc = subprocess.Popen([sys.executable, "-c", _INSIDE, arg, "daemon", "run", "--once"],
                                env={**os.environ, "JEVLIN_HOME": home, "PYTHONPATH": tree}, cwd=tree,
                                preexec_fn=pinned({sorted(os.sched_getaffinity(0))[0]}))
        cpu, _ = reap(proc)
        assert proc.returncode == 0, "the daemon failed"
        got = rcv.counts()
        assert got["spans"] == n and got["errors"] == 0, got
        with open(out) as f:
            return json.load(f), cpu
    finally:
        rcv.close()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--tree", default=ROOT)
    args = ap.parse_args()
    tree = os.path.abspath(args.tree)
    print(f"installed (bytecode, the scrubber's cached databases): {installed(tree):.2f} s of CPU, not counted; "
          f"load {os.getloadavg()[0]:.1f}")
    t0 = time.perf_counter()
    acc, cpu = split(args.n, tree)
    counted = sum(acc.values())
    print(f"n = {args.n:,}: {cpu:.2f} s of CPU ({cpu / args.n * 1000:.3f} ms a record), {counted:.2f} s placed; "
          f"{time.perf_counter() - t0:.1f} s wall; load {os.getloadavg()[0]:.1f}")
    groups: dict[str, float] = {}
    for step, s in sorted(acc.items(), key=lambda kv: -kv[1]):
        print(f"  {s / args.n * 1000:7.3f} ms/record  {100 * s / counted:5.1f}%  {step}")
        head = step.split(":")[0] if ":" in step else step
        groups[head] = groups.get(head, 0.0) + s
    print("by part:")
    for head, s in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"  {s / args.n * 1000:7.3f} ms/record  {100 * s / counted:5.1f}%  {head}")


if __name__ == "__main__":
    main()
