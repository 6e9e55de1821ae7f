"""The daemon's status file, ``state/daemon.json``: what `status` shows when it runs and after."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from jevlin_hooks.base import paths

NAME = "daemon.json"


def load(home: str) -> dict[str, Any]:
    try:
        with open(os.path.join(home, "state", NAME), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save(home: str, st: dict[str, Any]) -> None:
    try:
        sfd = paths.open_dir(home, "state")
        try:
            paths.write_atomic(sfd, NAME, json.dumps(st, sort_keys=True).encode())
        finally:
            os.close(sfd)
    except OSError:
        pass


def count_delivered(st: dict[str, Any], n: int) -> None:
    today = time.strftime("%Y-%m-%d", time.gmtime())
    raw = st.get("delivered")
    delivered: dict[str, int] = raw if isinstance(raw, dict) else {}
    delivered = {d: v for d, v in delivered.items() if d >= time.strftime("%Y-%m-%d", time.gmtime(time.time() - 7 * 86400))}
    delivered[today] = delivered.get(today, 0) + n
    st["delivered"] = delivered
    st["delivered_total"] = st.get("delivered_total", 0) + n


def delivered_today(st: dict[str, Any]) -> int:
    d = st.get("delivered") or {}
    return int(d.get(time.strftime("%Y-%m-%d", time.gmtime()), 0)) if isinstance(d, dict) else 0
