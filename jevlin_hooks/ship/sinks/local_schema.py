"""The local store's schema, as migrations applied in order (in the style of `llm`'s migrations).

``PRAGMA user_version`` holds how many have run. A store made by any earlier version of this
package is brought up to date when the daemon or a view opens it; a migration is never edited
once released, only followed by a new one. A store newer than this package is refused rather
than written in a shape this version does not understand.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = []


def migration(fn: Callable[[sqlite3.Connection], None]) -> Callable[[sqlite3.Connection], None]:
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_records(db: sqlite3.Connection) -> None:
    # IF NOT EXISTS: stores from before versioning (user_version 0) already have this table.
    db.executescript("""
    CREATE TABLE IF NOT EXISTS records (
        record_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        ts TEXT NOT NULL,
        harness TEXT,
        session_id TEXT,
        parent_session_id TEXT,
        turn_id TEXT,
        call_id TEXT,
        window INTEGER,
        seq INTEGER,
        status TEXT,
        outcome TEXT,
        duration_ms INTEGER,
        body TEXT NOT NULL,
        received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX IF NOT EXISTS records_session ON records(session_id, ts);
    CREATE INDEX IF NOT EXISTS records_parent ON records(parent_session_id);
    CREATE INDEX IF NOT EXISTS records_turn ON records(turn_id);
    """)


@migration
def m002_records_by_time(db: sqlite3.Connection) -> None:
    # The views read records in time order (and the ui pages threads by last activity).
    db.execute("CREATE INDEX IF NOT EXISTS records_ts ON records(ts, seq)")


VERSION = len(MIGRATIONS)


class StoreTooNew(sqlite3.DatabaseError):
    pass


def migrate(db: sqlite3.Connection) -> int:
    """Apply what has not run yet, each migration in its own transaction; the version reached."""
    (current,) = db.execute("PRAGMA user_version").fetchone()
    if current > VERSION:
        raise StoreTooNew(f"traces.db has schema version {current}; this jevlin-hooks knows up to {VERSION}: "
                          "upgrade jevlin-hooks")
    for n in range(current, VERSION):
        with db:
            MIGRATIONS[n](db)
            db.execute(f"PRAGMA user_version = {n + 1}")
    return VERSION
