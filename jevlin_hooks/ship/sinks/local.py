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


def _row(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "record_id": r["record_id"], "kind": r["kind"], "ts": r["ts"], "harness": r.get("harness"),
        "session_id": r.get("session_id"), "parent_session_id": r.get("parent_session_id"),
        "turn_id": r.get("turn_id"), "call_id": r.get("call_id"), "window": r.get("window"),
        "seq": r.get("seq"), "status": r.get("status"), "outcome": r.get("outcome"),
        "duration_ms": r.get("duration_ms"), "body": json.dumps(r, sort_keys=True, allow_nan=False),
    }


class LocalSink:
    name = "local"

    def __init__(self, home: str) -> None:
        self.path = os.path.join(home, "traces.db")
        self.db: sqlite3.Connection | None = None

    def send(self, records: list[dict[str, Any]]) -> Result:
        try:
            if self.db is None:
                self.db = connect(self.path)
            rows, rejected = [], {}
            for r in records:
                try:
                    rows.append(_row(r))
                except (TypeError, ValueError) as exc:
                    rejected[r["record_id"]] = f"cannot be stored: {type(exc).__name__}"
            try:
                with self.db:
                    self.db.executemany(UPSERT, rows)
            except sqlite3.OperationalError:
                raise  # the store itself (read-only, full disk, locked): retried as a whole
            except (sqlite3.Error, OverflowError, ValueError):
                # One row SQLite cannot take must not hold back the others: row by row.
                for row in rows:
                    try:
                        with self.db:
                            self.db.execute(UPSERT, row)
                    except sqlite3.OperationalError:
                        raise
                    except (sqlite3.Error, OverflowError, ValueError) as exc:
                        rejected[row["record_id"]] = f"cannot be stored: {type(exc).__name__}: {str(exc)[:200]}"
            return Result(accepted=[r["record_id"] for r in records if r["record_id"] not in rejected],
                          rejected=rejected)
        except (sqlite3.Error, OSError) as exc:
            self.close()
            return Result(retry=True, error=f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}")

    def close(self) -> None:
        if self.db is not None:
            try:
                self.db.close()
            finally:
                self.db = None
