"""The local store is versioned: a traces.db made by an earlier schema is migrated in place."""

from __future__ import annotations

import json
import sqlite3

import pytest

from jevlin_hooks.ship.sinks import local, local_schema

# The schema as the first release created it, before versioning (user_version 0).
UNVERSIONED = """
CREATE TABLE records (
    record_id TEXT PRIMARY KEY, kind TEXT NOT NULL, ts TEXT NOT NULL, harness TEXT, session_id TEXT,
    parent_session_id TEXT, turn_id TEXT, call_id TEXT, window INTEGER, seq INTEGER, status TEXT,
    outcome TEXT, duration_ms INTEGER, body TEXT NOT NULL,
    received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX records_session ON records(session_id, ts);
CREATE INDEX records_parent ON records(parent_session_id);
CREATE INDEX records_turn ON records(turn_id);
"""


def _rec(rid: str, seq: int) -> dict[str, object]:
    return {"record_id": rid, "kind": "search", "ts": f"2026-11-30T10:00:0{seq}.000Z", "harness": "codex",
            "session_id": "s" * 64, "window": 0, "seq": seq, "query": "q", "status": "ok"}


def test_store_from_the_previous_schema_is_migrated(tmp_path):
    path = tmp_path / "traces.db"
    db = sqlite3.connect(path)
    db.executescript(UNVERSIONED)
    old = _rec("a" * 32, 1)
    db.execute("INSERT INTO records (record_id, kind, ts, body) VALUES (?, ?, ?, ?)",
               (old["record_id"], old["kind"], old["ts"], json.dumps(old)))
    db.commit()
    db.close()

    sink = local.LocalSink(str(tmp_path))
    assert sink.send([_rec("b" * 32, 2)]).accepted == ["b" * 32]
    sink.close()

    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == local_schema.VERSION >= 2
    indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"records_session", "records_ts"} <= indexes
    bodies = [json.loads(b)["record_id"] for (b,) in db.execute("SELECT body FROM records ORDER BY ts")]
    assert bodies == ["a" * 32, "b" * 32]


def test_each_migration_runs_once(tmp_path):
    path = tmp_path / "traces.db"
    for _ in range(3):
        local.connect(str(path)).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == local_schema.VERSION


def test_a_store_newer_than_this_version_is_not_written(tmp_path):
    path = tmp_path / "traces.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {local_schema.VERSION + 1}")
    db.close()
    with pytest.raises(local_schema.StoreTooNew):
        local.connect(str(path))
    sink = local.LocalSink(str(tmp_path))
    res = sink.send([_rec("c" * 32, 1)])
    assert res.retry and not res.accepted and "upgrade jevlin-hooks" in (res.error or "")
