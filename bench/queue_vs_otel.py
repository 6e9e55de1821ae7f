"""The daemon draining a queue beside the OpenTelemetry Python SDK exporting the same records,
like for like: same wire format, same receiver, same cores, alternating order.

    nice -n 10 .venv/bin/python bench/queue_vs_otel.py [--sizes 10000] [--rounds 6]
        [--formats protobuf,json] [--cores 1] [--sdk-compression none|gzip] [--json FILE] [--tree DIR]

For each size, N search records (bench/spool_records.py: 1-3 KiB of history made of the
agent-text generator's rows, a fifth of them with a planted secret or personal data) are
written once; every run gets its own fresh copy of that queue. Then, ``--rounds`` times, the
order alternating (the daemon first in even rounds, the SDK first in odd ones), each of:

* the daemon: ``jevlin-hooks daemon run --once`` with ``sink = "otlp"`` and ``otlp_protocol``
  set to the format (read each file, validate, scrub every text, HMAC every id, build the
  spans, encode, gzip, POST, delete each record once its batch was acknowledged), worker
  processes included;
* the SDK: bench/otel_sdk_export.py, the same spans (same names, same attributes, from the raw
  records: no scrubbing, no hashing) through a BatchSpanProcessor and the SDK's own OTLP/HTTP
  exporter for that format, without compression (its default; ``--sdk-compression gzip`` for
  its gzip, level 9);

each a whole process timed from its start until it exits (start-up included), pinned with
``sched_setaffinity`` to the same ``--cores`` CPUs (children inherit it: the daemon's workers
share them). The receiver (bench/otlp_receiver.py) is a process of its own, pinned to the other
CPUs when there are any; it decodes every request fully with opentelemetry-proto's classes and
counts spans, and a run whose span count is not N, or with a request it could not decode,
fails. Before any run, what an install leaves is made once and not counted (installed()): the
tree byte-compiled, as `pip install` does, and the scrubber's Hyperscan databases compiled into
the cache directory, as the first process that scrubs does. Per run: records/s (N / wall seconds), CPU ms per record (user + system of the process
and every child it waited for, from wait4), and peak PSS of the process and its children
together (sampled from /proc/<pid>/smaps_rollup every 50 ms). Reported per side as
min / median / max over rounds, and the daemon/SDK ratios of each round's pair.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
sys.path.insert(0, BENCH)

from spool_records import copy_spool, make_spool  # noqa: E402

PROTOCOL = {"protobuf": "http/protobuf", "json": "http/json"}


# --- processes --------------------------------------------------------------------------------

def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def family(pid: int) -> list[int]:
    """The process and its children (the daemon's workers)."""
    out = [pid]
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def family_pss_mb(pid: int) -> float:
    return sum(_pss_kb(p) for p in family(pid)) / 1024


def pinned(cpus: set[int] | None) -> Callable[[], None] | None:
    if not cpus:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def reap(proc: subprocess.Popen[bytes]) -> tuple[float, float]:
    """Wait for ``proc``: (CPU seconds of it and every child it waited for, peak PSS MB of it and
    its children together)."""
    peak = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.05):
            peak = max(peak, family_pss_mb(proc.pid))

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    _, status, ru = os.wait4(proc.pid, 0)
    done.set()
    t.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, peak


class Receiver:
    def __init__(self, cpus: set[int] | None) -> None:
        self.proc = subprocess.Popen([sys.executable, os.path.join(BENCH, "otlp_receiver.py")],
                                     stdout=subprocess.PIPE, preexec_fn=pinned(cpus))
        assert self.proc.stdout is not None
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline())}"

    def reset(self) -> None:
        urllib.request.urlopen(urllib.request.Request(self.url + "/reset", data=b"", method="POST")).read()

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = json.loads(urllib.request.urlopen(self.url + "/count").read())
        return out

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


# --- one run of each side ---------------------------------------------------------------------

def run_daemon(home: str, url: str, fmt: str, cpus: set[int] | None, tree: str = ROOT) -> tuple[float, float, float]:
    """(seconds, CPU seconds, peak PSS MB). ``tree``: the checkout whose daemon runs (another
    one, from `git archive REV | tar -x -C DIR`, for a before/after)."""
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'[ship]\nsink = "otlp"\nendpoint = "{url}"\notlp_protocol = "{PROTOCOL[fmt]}"\n'
                '[daemon]\nautostart = false\n[spool]\nmax_mb = 100000\n')
    env = {**os.environ, "JEVLIN_HOME": home, "PYTHONPATH": tree}
    t0 = time.perf_counter()
    # `run --once` drains the queue and exits; draining, the long-running daemon does the same work
    proc = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"], env=env,
                            preexec_fn=pinned(cpus), cwd=tree)
    cpu, pss = reap(proc)
    took = time.perf_counter() - t0
    assert proc.returncode == 0, "the daemon failed"
    left = sum(len(os.listdir(os.path.join(home, "spool", d))) for d in ("new", "cur", "quarantine"))
    assert left == 0, f"{left} records left in the spool"
    return took, cpu, pss


def run_sdk(home: str, url: str, fmt: str, cpus: set[int] | None, compression: str) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, os.path.join(BENCH, "otel_sdk_export.py"),
                             os.path.join(home, "spool", "new"), url + "/v1/traces", fmt, compression],
                            preexec_fn=pinned(cpus))
    cpu, pss = reap(proc)
    took = time.perf_counter() - t0
    assert proc.returncode == 0, "the SDK exporter failed"
    return took, cpu, pss


def one(side: str, n: int, template: str, tmp: str, rcv: Receiver, fmt: str, cpus: set[int] | None,
        compression: str, tree: str = ROOT) -> dict[str, float]:
    home = os.path.join(tmp, f"run-{side}")
    shutil.rmtree(home, ignore_errors=True)
    copy_spool(template, home)
    # The hooks fsync every record they queue; the copy is written without, so it is synced here:
    # otherwise whichever side runs first pays for writing it back.
    os.sync()
    rcv.reset()
    if side == "daemon":
        took, cpu, pss = run_daemon(home, rcv.url, fmt, cpus, tree)
    else:
        took, cpu, pss = run_sdk(home, rcv.url, fmt, cpus, compression)
    got = rcv.counts()
    shutil.rmtree(home, ignore_errors=True)
    assert got["errors"] == 0, f"{side}: {got['errors']} request(s) the receiver could not decode"
    assert got["spans"] == n, f"{side}: {got['spans']} spans arrived, {n} expected"
    return {"rps": n / took, "cpu_ms": cpu / n * 1000, "pss": pss, "bytes": got["bytes"] / n, "requests": got["requests"]}


# --- rounds and the summary -------------------------------------------------------------------

def spread(xs: list[float]) -> tuple[float, float, float]:
    return min(xs), statistics.median(xs), max(xs)


def compare(n: int, fmt: str, rounds: int, template: str, tmp: str, rcv: Receiver, cpus: set[int] | None,
            compression: str, tree: str = ROOT, log: Callable[[str], None] = print) -> dict[str, Any]:
    runs: dict[str, list[dict[str, float]]] = {"daemon": [], "sdk": []}
    for r in range(rounds):
        for side in (("daemon", "sdk") if r % 2 == 0 else ("sdk", "daemon")):
            runs[side].append(one(side, n, template, tmp, rcv, fmt, cpus, compression, tree))
        d, s = runs["daemon"][-1], runs["sdk"][-1]
        log(f"  {fmt} n={n:,} round {r + 1}/{rounds}: daemon {d['rps']:,.0f} rec/s {d['cpu_ms']:.3f} CPU ms/rec "
            f"{d['pss']:.0f} MB | SDK {s['rps']:,.0f} rec/s {s['cpu_ms']:.3f} CPU ms/rec {s['pss']:.0f} MB "
            f"| load {os.getloadavg()[0]:.1f}")
    out: dict[str, Any] = {"n": n, "format": fmt, "rounds": rounds, "runs": runs}
    for key in ("rps", "cpu_ms", "pss", "bytes"):
        for side in runs:
            out[f"{side}_{key}"] = spread([x[key] for x in runs[side]])
    out["rate_ratio"] = spread([d["rps"] / s["rps"] for d, s in zip(runs["daemon"], runs["sdk"], strict=True)])
    out["cpu_ratio"] = spread([d["cpu_ms"] / s["cpu_ms"] for d, s in zip(runs["daemon"], runs["sdk"], strict=True)])
    return out


def fmt3(t: tuple[float, float, float], f: str) -> str:
    return "/".join(format(x, f) for x in t)


def print_rows(rows: list[dict[str, Any]]) -> None:
    print("min/median/max over rounds; ratios are daemon/SDK of each round's pair")
    print(f"{'format':>8} {'queued':>7} | {'daemon rec/s':>17} {'CPU ms/rec':>17} {'PSS MB':>11} | "
          f"{'SDK rec/s':>17} {'CPU ms/rec':>17} {'PSS MB':>11} | {'rate ratio':>14} {'CPU/rec ratio':>14}")
    for r in rows:
        print(f"{r['format']:>8} {r['n']:>7,} | {fmt3(r['daemon_rps'], '.0f'):>17} {fmt3(r['daemon_cpu_ms'], '.3f'):>17} "
              f"{fmt3(r['daemon_pss'], '.0f'):>11} | {fmt3(r['sdk_rps'], '.0f'):>17} {fmt3(r['sdk_cpu_ms'], '.3f'):>17} "
              f"{fmt3(r['sdk_pss'], '.0f'):>11} | {fmt3(r['rate_ratio'], '.2f'):>14} {fmt3(r['cpu_ratio'], '.2f'):>14}")
    print("bytes on the wire per record (median): " + ", ".join(
        f"{r['format']} n={r['n']:,}: daemon {r['daemon_bytes'][1]:,.0f} (gzip), SDK {r['sdk_bytes'][1]:,.0f}" for r in rows))


def sdk_has_json() -> bool:
    try:
        import opentelemetry.exporter.otlp.json.http.trace_exporter  # noqa: F401
    except ImportError:
        return False
    return True


def cpu_sets(cores: int) -> tuple[set[int], set[int] | None]:
    """The CPUs each side is pinned to, and the receiver's (the rest; None: shared)."""
    allowed = sorted(os.sched_getaffinity(0))
    if cores > len(allowed):
        raise SystemExit(f"--cores {cores}: only {len(allowed)} CPU(s) here")
    side, rest = set(allowed[:cores]), set(allowed[cores:])
    return side, (rest or None)


def installed(tree: str) -> float:
    """What an install leaves before the daemon's first start, done once before any run; the CPU
    seconds it took. The tree's modules compiled to bytecode, as `pip install` does: where
    PYTHONDONTWRITEBYTECODE is set (or the tree is read-only), every run of either side would
    otherwise compile the package's sources again (0.2 s of CPU for the daemon). And the
    scrubber's Hyperscan databases compiled into the cache directory (XDG_CACHE_HOME) by the
    first process that scrubs (1.3 s of CPU, once per install and version): with an empty cache,
    the first two daemon runs would each pay part of it."""
    import compileall

    compileall.compile_dir(os.path.join(tree, "jevlin_hooks"), quiet=2)
    proc = subprocess.Popen([sys.executable, "-c", "from jevlin_hooks.privacy import scrub; scrub.wait_prefilter(120)"],
                            env={**os.environ, "PYTHONPATH": tree}, cwd=tree)
    cpu, _ = reap(proc)
    assert proc.returncode == 0, "the scrubber could not start"
    return cpu


def bench(sizes: list[int], formats: list[str], rounds: int, cores: int, compression: str = "none",
          seed: int = 1, secret_share: float = 0.2, tree: str = ROOT) -> list[dict[str, Any]]:
    if "json" in formats and not sdk_has_json():
        print("the SDK's OTLP/JSON exporter (opentelemetry-exporter-otlp-json-http) is not installed: "
              "protobuf only")
        formats = [f for f in formats if f != "json"]
    side_cpus, rcv_cpus = cpu_sets(cores)
    print(f"installed (bytecode, the scrubber's cached databases): {installed(tree):.2f} s of CPU, not counted")
    print(f"python {sys.version.split()[0]}; each side on CPU(s) {sorted(side_cpus)}, the receiver on "
          f"{sorted(rcv_cpus) if rcv_cpus else 'the same'}; SDK compression: {compression}; "
          f"load {os.getloadavg()[0]:.1f}")
    tmp = tempfile.mkdtemp(prefix="jevlin-otel-bench-")
    rcv = Receiver(rcv_cpus)
    rows = []
    try:
        for n in sizes:
            template = os.path.join(tmp, f"template-{n}")
            make_spool(template, n, seed, secret_share)
            for fmt in formats:
                rows.append(compare(n, fmt, rounds, template, tmp, rcv, side_cpus, compression, tree))
            shutil.rmtree(template, ignore_errors=True)
    finally:
        rcv.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--formats", default="protobuf,json")
    ap.add_argument("--cores", type=int, default=1, help="CPUs each side is pinned to")
    ap.add_argument("--sdk-compression", default="none", choices=("none", "gzip"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--secret-share", type=float, default=0.2)
    ap.add_argument("--json", help="also write every run's figures to this file")
    ap.add_argument("--tree", default=ROOT, help="the checkout whose daemon runs (default: this one)")
    args = ap.parse_args()
    rows = bench([int(n) for n in args.sizes.split(",")], args.formats.split(","), args.rounds, args.cores,
                 args.sdk_compression, args.seed, args.secret_share, os.path.abspath(args.tree))
    print_rows(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
