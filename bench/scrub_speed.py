"""Scrubbing speed on 32 KiB agent messages: ours, detect-secrets and LangSmith side by side.

    .venv/bin/python bench/scrub_speed.py [--n 200] [--cpu]

Two mixes, each 32 KiB a message:

* `bench`: the assistant-style messages of earlier releases (English prose, code, logs, a few
  secrets), kept so the figures stay comparable;
* `varied`: what agents really write: prose in twelve languages with em dashes and emoji, Python,
  Go, SQL, stack traces, JSON API responses, logs full of UUIDs, SHAs, IPs and timestamps, `.env`
  and kubeconfig excerpts, lines dense with random-looking candidate tokens (digests, base64,
  key=value pairs), and the labelled agent-text rows (bench/agent_text) with their planted secrets.

All three scanners see the same messages in the same run, interleaved (the figure the targets
are read from), then fresh messages of the varied mix in blocks, each scanner taking every message
in a row as the daemon scrubs a batch. Interleaved, each of our messages starts with caches that
detect-secrets and LangSmith have just filled; in blocks they stay warm. detect-secrets scans line
by line (its API) with its default plugins and only finds; LangSmith's `create_secret_anonymizer`
(its default secret rules, Python `re`) and ours find and rewrite. What each catches is measured
on the labelled agent-text set (secrets and personal data gone, no 8-character piece left).
Cold start (import + compiling every rule) is measured in a fresh process. ``--cpu`` times each
call by the thread's CPU time, not the wall clock (run with nice on a busy machine, the wall time
is mostly waiting for a core: see bench/scrub_ab.py).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import scrub_eval  # noqa: E402
from bench.agent_text import generate  # noqa: E402
from jevlin_hooks.privacy import scrub  # noqa: E402
from jevlin_hooks.privacy.engine import prefilter  # noqa: E402

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


def bench_message(rng: random.Random, size: int = 32 * 1024) -> str:
    parts: list[str] = []
    n = 0
    while n < size:
        pool = rng.choice([PROSE, PROSE, CODE, LOGS, SECRETS if rng.random() < 0.15 else PROSE])
        piece = rng.choice(pool) + ("\n" if pool is PROSE else "")
        parts.append(piece)
        n += len(piece)
    return "".join(parts)[:size]


# --- the varied mix -----------------------------------------------------------------------------

FOREIGN = generate.FOREIGN + [
    "Ich habe den Fehler gefunden — die Zeitzone wird zweimal umgerechnet. 🎉",
    "Le test échoue parce que l'horodatage est arrondi à la seconde près… étrange.",
    "El índice no se usa: la consulta filtra por una función sobre la columna «creado».",
    "O cliente repete a requisição três vezes antes de desistir — é o padrão.",
    "Проблема в том, что кэш не сбрасывается после миграции базы данных.",
    "这个函数在并发调用时会出现竞态条件，需要加锁。",
    "このテストはタイムゾーンに依存しているため、CIでのみ失敗します。",
    "이 함수는 동시에 호출될 때 경쟁 상태가 발생합니다.",
]
VARIED_CODE = CODE + [
    'func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {\n\tctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)\n\tdefer cancel()\n\tif err := s.store.Put(ctx, key, value); err != nil {\n\t\thttp.Error(w, err.Error(), 500)\n\t}\n}\n',
    'Traceback (most recent call last):\n  File "/srv/app/worker.py", line 88, in run\n    result = self.client.post(url, json=payload, timeout=10)\n  File "/srv/app/.venv/lib/python3.12/site-packages/httpx/_client.py", line 1145, in post\nhttpx.ReadTimeout: timed out\n',
    "class TokenBucket:\n    def __init__(self, rate: float, capacity: int) -> None:\n        self.rate, self.capacity = rate, capacity\n        self.tokens = capacity\n        self.api_key = config.api_key\n",
    "UPDATE accounts SET balance = balance - 100 WHERE id = 42 RETURNING id, balance;\n",
]


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def candidate_line(rng: random.Random) -> str:
    """Random-looking tokens that are not secrets: what makes the value checks work."""
    hexd = "0123456789abcdef"
    b64 = string.ascii_letters + string.digits + "+/"
    return rng.choice([
        f"commit {_rand(rng, hexd, 40)} Merge pull request #{rng.randint(1, 9999)} from org/{_rand(rng, hexd, 7)}\n",
        f'{{"id": "{_rand(rng, hexd, 8)}-{_rand(rng, hexd, 4)}-4{_rand(rng, hexd, 3)}-a{_rand(rng, hexd, 3)}-{_rand(rng, hexd, 12)}", '
        f'"etag": "W/\\"{_rand(rng, hexd, 32)}\\"", "sha": "{_rand(rng, hexd, 40)}", "size": {rng.randint(1, 10 ** 6)}}}\n',
        f"image: ghcr.io/org/app@sha256:{_rand(rng, hexd, 64)}\n",
        f'"integrity": "sha512-{_rand(rng, b64, 86)}=="\n',
        f"cache_key={_rand(rng, hexd, 32)} user_id={rng.randint(1, 10 ** 9)} session_id={_rand(rng, hexd, 24)}\n",
        f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)} - - [30/Nov/2026:10:{rng.randint(10, 59)}:01 +0000] "
        f'"GET /api/v1/items/{rng.randint(1, 99999)} HTTP/1.1" 200 {rng.randint(100, 99999)}\n',
        f"traceparent: 00-{_rand(rng, hexd, 32)}-{_rand(rng, hexd, 16)}-01\n",
        f"upgraded numpy {rng.randint(1, 2)}.{rng.randint(0, 30)}.{rng.randint(0, 9)} -> build {_rand(rng, hexd, 12)}\n",
        f"ENCRYPTED_BLOB={_rand(rng, b64, 120)}\n",
        f"name={_rand(rng, string.ascii_lowercase, 8)} token_url=https://auth.example.com/oauth/token region=eu-west-1 "
        f"client_id={_rand(rng, hexd, 20)}\n",
    ])


def varied_message(rng: random.Random, secrets: list[str], size: int = 32 * 1024) -> str:
    parts: list[str] = []
    n = 0
    while n < size:
        r = rng.random()
        if r < 0.25:
            piece = rng.choice(FOREIGN) + "\n"
        elif r < 0.40:
            piece = rng.choice(PROSE) + "\n"
        elif r < 0.58:
            piece = rng.choice(VARIED_CODE)
        elif r < 0.70:
            piece = rng.choice(LOGS)
        elif r < 0.92:
            piece = candidate_line(rng)
        else:
            piece = rng.choice(secrets)
        parts.append(piece)
        n += len(piece)
    return "".join(parts)[:size]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--cpu", action="store_true", help="time each call by the thread's CPU time (bench/scrub_ab.py --cpu)")
    args = ap.parse_args()
    clock = time.thread_time if args.cpu else time.perf_counter
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings
    from langsmith.anonymizer import create_secret_anonymizer

    langsmith = create_secret_anonymizer()
    rng = random.Random(7)
    rows = generate.rows(7, 400)
    agent_snippets = [r.text for r in rows]
    mixes = {
        "bench": [bench_message(rng) for _ in range(args.n)],
        "varied": [varied_message(rng, agent_snippets) for _ in range(args.n)],
    }
    # the steady state: Hyperscan compiles (or loads) in the background; on a busy machine, with
    # other checkouts evicting the cached databases, that can take more than the default 10 s
    if not scrub.wait_prefilter(600) and prefilter.available():
        raise SystemExit("the Hyperscan prefilter is not ready after 600 s: nothing measured")
    langsmith("warm up")
    for name, msgs in mixes.items():
        ours, ds, ls = [], [], []
        with default_settings():
            for m in msgs:
                t0 = clock()
                scrub.scrub(m)
                ours.append(clock() - t0)
                t0 = clock()
                for line in m.splitlines():
                    list(scan_line(line))
                ds.append(clock() - t0)
                t0 = clock()
                langsmith(m)
                ls.append(clock() - t0)
        non_ascii = sum(not m.isascii() for m in msgs)
        print(f"{name} mix: {len(msgs)} messages of 32 KiB ({non_ascii} with non-ASCII text), interleaved")
        print(f"  ours            p50 {p(ours, .5):7.2f} ms  p99 {p(ours, .99):7.2f} ms")
        print(f"  detect-secrets  p50 {p(ds, .5):7.2f} ms  p99 {p(ds, .99):7.2f} ms   ours {p(ds, .5) / p(ours, .5):5.1f}x faster")
        print(f"  LangSmith       p50 {p(ls, .5):7.2f} ms  p99 {p(ls, .99):7.2f} ms   ours {p(ls, .5) / p(ours, .5):5.1f}x faster")
    # The same three in blocks, on fresh messages of the varied mix (none seen above: the scrubber
    # remembers values): each scanner takes every message in a row, as the daemon scrubs a batch,
    # so its caches stay its own. Interleaved, each of our messages starts after detect-secrets and
    # LangSmith have filled the processor's caches (2 MiB of L2 a core here): about 1 ms more.
    fresh = [varied_message(rng, agent_snippets) for _ in range(args.n)]
    blocks: dict[str, list[float]] = {"ours": [], "detect-secrets": [], "LangSmith": []}
    with default_settings():
        for who, fn in (("ours", scrub.scrub), ("detect-secrets", lambda m: [list(scan_line(x)) for x in m.splitlines()]),
                        ("LangSmith", langsmith)):
            for m in fresh:
                t0 = clock()
                fn(m)
                blocks[who].append(clock() - t0)
    b = {who: p(ts, .5) for who, ts in blocks.items()}
    print(f"varied mix in blocks ({len(fresh)} fresh messages a scanner, one after another): ours p50 {b['ours']:.2f} ms "
          f"p99 {p(blocks['ours'], .99):.2f} ms, detect-secrets p50 {b['detect-secrets']:.2f} ms "
          f"({b['detect-secrets'] / b['ours']:.1f}x), LangSmith p50 {b['LangSmith']:.2f} ms ({b['LangSmith'] / b['ours']:.1f}x)")
    label = generate.rows(13, 700)
    for who, fn in (("ours", lambda t: scrub.scrub(t)[0]), ("LangSmith", langsmith)):
        res = scrub_eval.evaluate_agent_text(label, fn)
        t = res["total"]
        print(f"caught on the labelled agent text (700 rows, seed 13), {who:9}: secrets {t[0]}/{t[1]} ({t[0] / t[1]:.1%}), "
              f"personal data {t[2]}/{t[3]} ({t[2] / t[3]:.1%}), rows with a fragment {t[4]}, decoys kept {t[6]}/{t[7]}")
    print(f"make_safe on the daemon bench's records (1-3 KiB history, 20% with a secret): "
          f"{make_safe_cpu_us():.0f} us CPU per record")
    # a cache directory of its own, filled first: other checkouts on the machine, with other
    # rules, would evict the databases from the user's (bench/scrub_startup.py measures both cases)
    cache = tempfile.mkdtemp(prefix="jevlin-speed-cache-")
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    subprocess.run([sys.executable, "-c", "from jevlin_hooks.privacy import scrub; scrub.wait_prefilter()"],
                   check=True, cwd=ROOT, env=env)

    def median_run(code: str) -> float:
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)
            runs.append(time.perf_counter() - t0)
        return statistics.median(runs) * 1000

    floor = median_run("pass")
    cold = median_run("from jevlin_hooks.privacy import scrub; scrub.default()")
    ready = median_run("from jevlin_hooks.privacy import scrub; scrub.wait_prefilter()")
    print(f"cold start: import + compile all rules {cold - floor:.0f} ms over a bare interpreter ({cold:.0f} ms vs "
          f"{floor:.0f} ms); the Hyperscan prefilter, compiled in a background thread (texts scrubbed before it is "
          f"ready skip it, with the same output), is ready {ready - floor:.0f} ms after start (its databases cached)")
    shutil.rmtree(cache, ignore_errors=True)


def make_safe_cpu_us(n: int = 3000) -> float:
    """CPU per record of record.make_safe (hash the ids, scrub every text in one pass), on records
    shaped like bench/daemon_throughput.py's: the daemon's per-record privacy cost."""
    from bench.daemon_throughput import PROSE as D_PROSE
    from bench.daemon_throughput import SECRET_LINES
    from jevlin_hooks.privacy import record

    rng = random.Random(3)
    recs = []
    for i in range(n):
        history = D_PROSE * rng.randint(8, 24) + (rng.choice(SECRET_LINES) if rng.random() < 0.2 else "")
        recs.append({"v": 1, "record_id": os.urandom(16).hex(), "kind": "search", "ts": "2026-11-30T10:00:00.000Z",
                     "harness": "claude-code", "session_id": f"session-{i // 200}", "turn_id": f"turn-{i // 10}",
                     "call_id": f"toolu_{i:08d}", "parent_session_id": None, "window": 0, "seq": i % 200 + 1,
                     "history": history, "host_meta": {"platform": "linux", "model": "claude-x"},
                     "query": f"httpx retry backoff {i}", "tool": "Bash", "status": "ok", "duration_ms": 40})
    key = b"k" * 32
    t0 = time.process_time()
    for r in recs:
        record.make_safe(r, key)
    return (time.process_time() - t0) / n * 1e6


def p(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] * 1000


if __name__ == "__main__":
    main()
