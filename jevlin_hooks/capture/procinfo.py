"""Process facts from /proc (Linux), cheap enough for the hook path.

A pid alone can be reused; a pid with its start time (field 22 of /proc/PID/stat) cannot.
"""

from __future__ import annotations

import os


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    # comm (field 2) may contain spaces and parentheses: split after the last ")".
    close = raw.rfind(")")
    if close < 0:
        return None
    return [raw[: close + 1]] + raw[close + 2:].split()


def start_time(pid: int) -> int | None:
    st = _stat(pid)
    if st is None or len(st) < 21:
        return None
    try:
        return int(st[20])
    except ValueError:
        return None


def parent(pid: int) -> int | None:
    st = _stat(pid)
    if st is None or len(st) < 3:
        return None
    try:
        return int(st[2])
    except ValueError:
        return None


def ancestors(pid: int | None = None, limit: int = 64) -> list[int]:
    """``pid``'s ancestors, nearest first (empty where /proc is missing)."""
    out = []
    cur = pid if pid is not None else os.getpid()
    for _ in range(limit):
        nxt = parent(cur)
        if not nxt or nxt == cur:
            break
        out.append(nxt)
        if nxt == 1:
            break
        cur = nxt
    return out


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read(1 << 20).replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
