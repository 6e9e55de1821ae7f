"""The daemon draining a queue, beside the OpenTelemetry Python SDK exporting the same records.

    .venv/bin/python bench/queue_vs_otel.py [--sizes 10000,100000] [--sink jevlin|otlp]

For each size: N search records (1-3 KiB of history, 20% holding a secret) are written into a
spool; then, in the same run and against the same receiver on 127.0.0.1:
  * `jevlin-hooks daemon run --once` (read, validate, scrub, hash, batch, gzip, POST, delete
    after the ack; with 2,048 or more records, worker processes beside it), timed from its
    start until it exits with the queue empty;
  * bench/otel_sdk_export.py: the SDK's BatchSpanProcessor + OTLP/HTTP protobuf exporter on
    the same records, unscrubbed, timed from its start until its force_flush returns.
Both are whole processes (start-up included); the receiver counts what arrived (spans decoded
from protobuf, records counted in the gzip JSON) so a dropped record shows. CPU is each side's
own, worker processes included (wait4 of a process that waited for its children). Memory is
the largest sum over the process and its children of their proportional set size (PSS, from
/proc/<pid>/smaps_rollup every 50 ms: a page shared by two processes, libpython or a library's
code, counts half in each, so the sum is the memory they use together; wait4's peak RSS would
give only the largest single process, hiding a worker's memory).
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from daemon_throughput import make_records  # noqa: E402


class Receiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # As production servers do (Go's net/http, nginx, uvicorn): with Nagle's algorithm on, the
    # answer's body waits for the client's delayed ACK of its headers, 40 ms per request here,
    # which the SDK's export thread hides and a sender waiting for each answer does not.
    disable_nagle_algorithm = True
    received = {"spans": 0, "records": 0}
    lock = threading.Lock()

    def log_message(self, *a: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.headers.get("Content-Type", "").startswith("application/x-protobuf"):
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

            req = ExportTraceServiceRequest()
            req.ParseFromString(body)
            n = sum(len(ss.spans) for rs in req.resource_spans for ss in rs.scope_spans)
            key = "spans"
        else:
            # counted without parsing, so the receiver costs each side about the same
            if body.startswith(b'{"resourceSpans"'):
                n, key = body.count(b'"spanId"'), "spans"
            else:
                n, key = body.count(b'"record_id"'), "records"
        with self.lock:
            self.received[key] += n
        out = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _family(pid: int) -> list[int]:
    out = [pid]
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def reap(proc: subprocess.Popen[bytes]) -> tuple[float, float]:
    """Wait for ``proc``: (CPU seconds of it and the children it waited for, peak memory MB of
    it and its children together, PSS)."""
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.05):
            peak = max(peak, sum(_pss_kb(p) for p in _family(proc.pid)))

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    _, status, ru = os.wait4(proc.pid, 0)
    done.set()
    t.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, peak / 1024


def run_daemon(home: str, url: str, sink: str) -> tuple[float, float, float]:
    """(seconds, CPU seconds, peak PSS MB, the process and its children together)."""
    endpoint = url + ("/v1/records" if sink == "jevlin" else "")
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'[ship]\nsink = "{sink}"\nendpoint = "{endpoint}"\napi_key = "k"\n'
                f'[daemon]\nautostart = false\n[spool]\nmax_mb = 100000\n')
    env = {**os.environ, "JEVLIN_HOME": home}
    t0 = time.perf_counter()
    # `run --once` drains the queue and exits (draining, the long-running daemon does the same
    # work: its file watcher is off while a backlog lasts), so both sides are timed start to exit
    proc = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"], env=env)
    cpu, rss = reap(proc)
    took = time.perf_counter() - t0
    assert proc.returncode == 0, "the daemon failed"
    left = sum(len(os.listdir(os.path.join(home, "spool", d))) for d in ("new", "cur"))
    assert left == 0, f"{left} records left in the spool"
    return took, cpu, rss


def run_sdk(spool_new: str, url: str) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "bench", "otel_sdk_export.py"), spool_new, url])
    cpu, rss = reap(proc)
    took = time.perf_counter() - t0
    assert proc.returncode == 0, "the SDK exporter failed"
    return took, cpu, rss


def compare(n: int, srv: ThreadingHTTPServer, url: str, sink: str, tmp: str) -> dict[str, float]:
    """One size: the SDK first (it leaves the spool as it is), then the daemon on the same files."""
    home = os.path.join(tmp, f"q{n}")
    make_records(home, n, random.Random(n))
    # The hooks fsync every record they queue; the bench writes them without, for speed, so it
    # syncs them here: otherwise the daemon's first directory fsync pays for writing them all.
    os.sync()
    new = os.path.join(home, "spool", "new")
    Receiver.received.update(spans=0, records=0)
    sdk_s, sdk_cpu, sdk_rss = run_sdk(new, url)
    got_sdk = Receiver.received["spans"]
    Receiver.received.update(spans=0, records=0)
    d_s, d_cpu, d_rss = run_daemon(home, url, sink)
    got_d = Receiver.received["records" if sink == "jevlin" else "spans"]
    shutil.rmtree(home, ignore_errors=True)
    return {"n": n, "daemon_rps": n / d_s, "daemon_cpu_ms": d_cpu / n * 1000, "daemon_rss": d_rss,
            "daemon_got": got_d, "sdk_rps": n / sdk_s, "sdk_cpu_ms": sdk_cpu / n * 1000, "sdk_rss": sdk_rss,
            "sdk_got": got_sdk}


def serve() -> tuple[ThreadingHTTPServer, str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def print_rows(rows: list[dict[str, float]]) -> None:
    print(f"{'queued':>8} | {'daemon rec/s':>12} {'CPU ms/rec':>10} {'PSS MB':>7} | "
          f"{'SDK rec/s':>10} {'CPU ms/rec':>10} {'PSS MB':>7} | {'rate ratio':>10} | arrived (daemon/SDK)")
    for r in rows:
        print(f"{r['n']:>8,} | {r['daemon_rps']:>12,.0f} {r['daemon_cpu_ms']:>10.3f} {r['daemon_rss']:>7.0f} | "
              f"{r['sdk_rps']:>10,.0f} {r['sdk_cpu_ms']:>10.3f} {r['sdk_rss']:>7.0f} | "
              f"{r['daemon_rps'] / r['sdk_rps']:>9.2f}x | {r['daemon_got']:,}/{r['sdk_got']:,}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--sink", default="jevlin", choices=("jevlin", "otlp"))
    args = ap.parse_args()
    srv, url = serve()
    tmp = tempfile.mkdtemp(prefix="jevlin-otel-bench-")
    try:
        rows = [compare(int(n), srv, url, args.sink, tmp) for n in args.sizes.split(",")]
    finally:
        srv.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    print_rows(rows)


if __name__ == "__main__":
    main()
