"""Queued search records for the daemon benches, with varied history texts.

Each record is what a hook queues for one search (bench/README.md, "Daemon"): ids that vary
per session, turn and call, and 1-3 KiB of history made of rows of the agent-text generator
(bench/agent_text/generate.py): narration in several languages around commands, log lines,
paths, hosts, digests and versions. By default a fifth of the records also hold one row that
plants a secret or personal data (a password in a command, a cloud key, a split value, an
IBAN...), the rest only rows whose planted values must survive. Every value is random; the
same seed gives the same records.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from agent_text.generate import rows  # noqa: E402

POOL_ROWS = 6000  # generator rows the histories are drawn from (about 720 of them clean)


class Texts:
    """Histories drawn from a pool of generator rows."""

    def __init__(self, seed: int) -> None:
        pool = rows(seed, POOL_ROWS)
        self.clean = [r.text for r in pool if not (r.secrets or r.pii)]
        self.planted = [r.text for r in pool if r.secrets or r.pii]
        self.rng = random.Random(seed)

    def history(self, secret_share: float) -> str:
        rng = self.rng
        target = rng.randint(1024, 3072)
        parts = [rng.choice(self.planted)] if rng.random() < secret_share else []
        size = sum(len(p) for p in parts)
        while size < target:
            p = rng.choice(self.clean)
            parts.append(p)
            size += len(p) + 1
        rng.shuffle(parts)
        return "\n".join(parts)[:target]


def record(i: int, history: str, rng: random.Random) -> dict[str, object]:
    return {"v": 1, "record_id": rng.randbytes(16).hex(), "kind": "search",
            "ts": f"2026-11-30T10:{i // 6000 % 60:02d}:{i // 100 % 60:02d}.{i % 1000:03d}Z",
            "harness": "claude-code", "session_id": f"session-{i // 200}", "turn_id": f"turn-{i // 10}",
            "call_id": f"toolu_{i:08d}", "parent_session_id": None, "window": 0, "seq": i % 200 + 1,
            "history": history, "host_meta": {"platform": "linux", "model": "claude-x"},
            "query": f"httpx retry backoff {i}", "tool": "Bash", "status": "ok", "duration_ms": 40 + i % 300}


def make_spool(home: str, n: int, seed: int = 1, secret_share: float = 0.2) -> None:
    """``n`` records in ``home``'s spool/new, named as hooks name them (oldest first). Written
    without fsync (the writer is not what is measured): call os.sync() before timing a reader."""
    new = os.path.join(home, "spool", "new")
    os.makedirs(new, mode=0o700, exist_ok=True)
    for sub in ("tmp", "cur", "quarantine", "held"):
        os.makedirs(os.path.join(home, "spool", sub), mode=0o700, exist_ok=True)
    texts = Texts(seed)
    rng = random.Random(seed + 1)
    t0 = time.time_ns()
    for i in range(n):
        name = f"{t0 + i:020d}.1.{i:08x}.json"
        with open(os.path.join(new, name), "w") as f:
            f.write(json.dumps(record(i, texts.history(secret_share), rng)))


def copy_spool(src_home: str, dst_home: str) -> int:
    """A copy of ``src_home``'s queue in ``dst_home``, file by file (not hard links: deleting the
    last link of a file is what the daemon pays for in real use)."""
    src = os.path.join(src_home, "spool", "new")
    for sub in ("tmp", "new", "cur", "quarantine", "held"):
        os.makedirs(os.path.join(dst_home, "spool", sub), mode=0o700, exist_ok=True)
    dst = os.path.join(dst_home, "spool", "new")
    n = 0
    for name in os.listdir(src):
        with open(os.path.join(src, name), "rb") as f:
            data = f.read()
        fd = os.open(os.path.join(dst, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        n += 1
    return n
