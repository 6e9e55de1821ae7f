"""Scrubbing speed on 32 KiB assistant-style messages, ours and detect-secrets side by side.

    .venv/bin/python bench/scrub_speed.py [--n 200]

Messages mix prose, code, logs and shell transcripts with secrets sprinkled in, as an agent's
text before a search looks. Both scanners see the same messages in the same run, interleaved.
detect-secrets scans line by line (its API) with its default plugins; it only finds, we find
and rewrite. Cold start (import + compiling every rule) is measured in a fresh process.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from jevlin_hooks.privacy import scrub  # noqa: E402

PROSE = [
    "Let me look at how the retry logic handles connection resets before changing the client.",
    "The failing test points at the pagination helper; I will search the docs for the cursor format.",
    "I found the config loader, it reads TOML and falls back to environment variables when a key is missing.",
    "Next I'll check whether the cache invalidation runs before or after the write is acknowledged.",
]
CODE = [
    "def fetch(url: str, retries: int = 3) -> bytes:\n    for attempt in range(retries):\n        try:\n            return client.get(url).content\n        except httpx.ConnectError:\n            time.sleep(2 ** attempt)\n",
    "const handler = async (req, res) => {\n  const user = await db.users.find({ id: req.params.id });\n  res.json(user);\n};\n",
    "SELECT id, name, created_at FROM orders WHERE status = 'open' ORDER BY created_at DESC LIMIT 50;\n",
]
LOGS = [
    "2026-11-30T10:12:01Z INFO  worker-3 processed batch=1834 items=250 took=412ms\n",
    "2026-11-30T10:12:02Z WARN  http retrying GET /v1/items attempt=2 status=503\n",
    "$ git log --oneline -3\n9a03898 fix: retry on 503\n43fc912 feat: cursor pagination\nc1d2e3f chore: bump deps\n",
]
SECRETS = [
    "export OPENAI_API_KEY=sk-proj-4fG7hJ2kL9mN3pQ8rS1tV6wX0yZ5aB7cD2eF9gH4\n",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8sM3kT2vQ\n",
    "GITHUB_TOKEN=ghp_R8x2Kq9mW4nP7sT1vY6zB3cD5fG8hJ0kL2mN\n",
    'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz" https://api.example.com\n',
    "DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.internal:5432/prod\n",
    "password: hunter2-correct-horse\n",
]


def message(rng: random.Random, size: int = 32 * 1024) -> str:
    parts: list[str] = []
    n = 0
    while n < size:
        pool = rng.choice([PROSE, PROSE, CODE, LOGS, SECRETS if rng.random() < 0.15 else PROSE])
        piece = rng.choice(pool) + ("\n" if pool is PROSE else "")
        parts.append(piece)
        n += len(piece)
    return "".join(parts)[:size]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()
    rng = random.Random(7)
    msgs = [message(rng) for _ in range(args.n)]
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    scrub.compiled()
    ours, theirs = [], []
    with default_settings():
        for m in msgs:
            t0 = time.perf_counter()
            scrub.scrub(m)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for line in m.splitlines():
                list(scan_line(line))
            theirs.append(time.perf_counter() - t0)
    cold = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from jevlin_hooks.privacy import scrub; scrub.compiled()"], check=True,
                       cwd=ROOT)
        cold.append(time.perf_counter() - t0)
    floor = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        floor.append(time.perf_counter() - t0)

    def p(xs: list[float], q: float) -> float:
        return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] * 1000

    print(f"{args.n} messages of 32 KiB, interleaved")
    print(f"ours            p50 {p(ours, .5):7.2f} ms  p99 {p(ours, .99):7.2f} ms")
    print(f"detect-secrets  p50 {p(theirs, .5):7.2f} ms  p99 {p(theirs, .99):7.2f} ms")
    print(f"ratio (p50)     {p(theirs, .5) / p(ours, .5):.1f}x faster")
    print(f"cold start: import + compile all rules {statistics.median(cold) * 1000 - statistics.median(floor) * 1000:.0f} ms "
          f"over a bare interpreter ({statistics.median(cold) * 1000:.0f} ms vs {statistics.median(floor) * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
