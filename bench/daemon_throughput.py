"""Daemon throughput, spool to a local HTTP sink with scrubbing on, and its memory with a deep queue.

    .venv/bin/python bench/daemon_throughput.py [--n 20000] [--deep 100000]

Records look like real search records (1-3 KiB of history, some with secrets to redact). They
are written straight into spool/new (no fsync: the writer is not what is measured). The daemon
runs as `jevlin-hooks daemon run` (the long-running form, file watcher on) against a
platform-API server on 127.0.0.1 that answers 200 at once; wall time from its start until the
queue is empty gives records/s; peak RSS comes from the kernel (ru_maxrss of the finished child).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

PROSE = ("Let me check how the client retries after a connection reset before I change it. "
         "The docs mention exponential backoff with jitter and a cap; I will search for the exact default. ")
SECRET_LINES = ["export GITHUB_TOKEN=ghp_" + "R8x2Kq9mW4nP7sT1vY6zB3cD5fG8hJ0kL2mN\n",
                "password: hunter2-correct-horse\n", "see /home/alice/project/src and bob@example.com\n"]


def make_records(home: str, n: int, rng: random.Random) -> None:
    new = os.path.join(home, "spool", "new")
    os.makedirs(new, mode=0o700, exist_ok=True)
    for sub in ("tmp", "cur", "quarantine", "held"):
        os.makedirs(os.path.join(home, "spool", sub), mode=0o700, exist_ok=True)
    t0 = time.time_ns()
    for i in range(n):
        history = PROSE * rng.randint(8, 24)
        if rng.random() < 0.2:
            history += rng.choice(SECRET_LINES)
        rec = {"v": 1, "record_id": os.urandom(16).hex(), "kind": "search", "ts": "2026-11-30T10:00:00.000Z",
               "harness": "claude-code", "session_id": f"session-{i // 200}", "turn_id": f"turn-{i // 10}",
               "call_id": f"toolu_{i:08d}", "parent_session_id": None, "window": 0, "seq": i % 200 + 1,
               "history": history, "host_meta": {"platform": "linux", "model": "claude-x"},
               "query": f"httpx retry backoff {i}", "tool": "Bash", "status": "ok", "duration_ms": 40}
        name = f"{t0 + i:020d}.1.{i:08x}.json"
        with open(os.path.join(new, name), "w") as f:
            f.write(json.dumps(rec))


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    count = 0

    def log_message(self, *a: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"{}"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def run_daemon(home: str, url: str) -> tuple[float, int]:
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'[ship]\nsink = "jevlin"\nendpoint = "{url}"\napi_key = "k"\n[daemon]\nautostart = false\n'
                f'[spool]\nmax_mb = 100000\n')
    env = {**os.environ, "JEVLIN_HOME": home}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # The long-running daemon, file watcher included (its own claims raise file events), timed
    # from start until the queue is empty, then stopped with SIGTERM.
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run"], env=env)
    new, cur = (os.path.join(home, "spool", d) for d in ("new", "cur"))
    while os.listdir(new) or os.listdir(cur):
        time.sleep(0.02)
    took = time.perf_counter() - t0
    proc.terminate()
    proc.wait(30)
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    left = len(os.listdir(os.path.join(home, "spool", "new"))) + len(os.listdir(os.path.join(home, "spool", "cur")))
    assert left == 0, f"{left} records left"
    return took, max(rss_kb, before)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--deep", type=int, default=100000)
    args = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/v1/records"
    rng = random.Random(3)
    tmp = tempfile.mkdtemp(prefix="jevlin-daemon-bench-")
    try:
        home = os.path.join(tmp, "a")
        make_records(home, args.n, rng)
        took, _ = run_daemon(home, url)
        print(f"throughput: {args.n} records in {took:.2f}s = {args.n / took:,.0f} records/s "
              f"(scrub + hash + batch + gzip + HTTP + delete; {os.cpu_count()} cpus)")
        home = os.path.join(tmp, "b")
        make_records(home, args.deep, rng)
        took, rss_kb = run_daemon(home, url)
        print(f"deep queue: {args.deep} records waiting at start, drained in {took:.1f}s "
              f"({args.deep / took:,.0f}/s); peak RSS {rss_kb / 1024:.0f} MB")
    finally:
        srv.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
