"""The embedded default: SQLite at ``$JEVLIN_HOME/traces.db``. No account, no network.

WAL mode so readers (the trajectory views) never block the daemon; upsert by ``record_id`` so
a re-sent record replaces itself instead of duplicating.
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

from jevlin_hooks.ship.sinks import Result
from jevlin_hooks.ship.sinks.local_schema import migrate

UPSERT = """
INSERT INTO records (record_id, kind, ts, harness, session_id, parent_session_id, turn_id, call_id,
                     window, seq, status, outcome, duration_ms, body)
VALUES (:record_id, :kind, :ts, :harness, :session_id, :parent_session_id, :turn_id, :call_id,
        :window, :seq, :status, :outcome, :duration_ms, :body)
ON CONFLICT(record_id) DO UPDATE SET
    kind=excluded.kind, ts=excluded.ts, harness=excluded.harness, session_id=excluded.session_id,
    parent_session_id=excluded.parent_session_id, turn_id=excluded.turn_id, call_id=excluded.call_id,
    window=excluded.window, seq=excluded.seq, status=excluded.status, outcome=excluded.outcome,
    duration_ms=excluded.duration_ms, body=excluded.body
"""


def connect(path: str) -> sqlite3.Connection:
    # Create it 0600 ourselves, and never open a symlink planted in its place (O_NOFOLLOW).
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    os.close(fd)
    db = sqlite3.connect(path, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    migrate(db)
    return db


class LocalSink:
    name = "local"

    def __init__(self, home: str) -> None:
        self.path = os.path.join(home, "traces.db")
        self.db: sqlite3.Connection | None = None

    def send(self, records: list[dict[str, Any]]) -> Result:
        try:
            if self.db is None:
                self.db = connect(self.path)
            rows = [{
                "record_id": r["record_id"], "kind": r["kind"], "ts": r["ts"], "harness": r.get("harness"),
                "session_id": r.get("session_id"), "parent_session_id": r.get("parent_session_id"),
                "turn_id": r.get("turn_id"), "call_id": r.get("call_id"), "window": r.get("window"),
                "seq": r.get("seq"), "status": r.get("status"), "outcome": r.get("outcome"),
                "duration_ms": r.get("duration_ms"), "body": json.dumps(r, sort_keys=True),
            } for r in records]
            with self.db:
                self.db.executemany(UPSERT, rows)
            return Result(accepted=[r["record_id"] for r in records])
        except sqlite3.Error as exc:
            self.close()
            return Result(retry=True, error=f"sqlite: {exc}")

    def close(self) -> None:
        if self.db is not None:
            try:
                self.db.close()
            finally:
                self.db = None
