"""The durable queue: a maildir under ``$JEVLIN_HOME/spool``.

A record is written to ``tmp/``, fsynced, then renamed into ``new/``: a reader never sees a
half-written record and a crash never leaves one in ``new/``. The daemon claims a record by
renaming it into ``cur/`` and deletes it only after a sink acknowledged it; ``quarantine/``
keeps what a sink refused for good, next to a ``.reason`` file.
"""

from __future__ import annotations

import os
import time

from jevlin_hooks import fastjson, paths

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA_VERSION = 1
SUBDIRS = ("tmp", "new", "cur", "quarantine")


def new_record_id() -> str:
    return os.urandom(16).hex()


def record_name() -> str:
    # Names sort by creation time, so a scan delivers roughly in order.
    return f"{time.time_ns():020d}.{os.getpid()}.{os.urandom(4).hex()}.json"


def enqueue(home: str, records: list[dict[str, Any]]) -> list[str]:
    """Queue records durably; returns the names written to ``new/``."""
    if not records:
        return []
    tfd = paths.open_dir(home, "spool", "tmp")
    nfd = paths.open_dir(home, "spool", "new")
    names = []
    try:
        for rec in records:
            rec.setdefault("v", SCHEMA_VERSION)
            rec.setdefault("record_id", new_record_id())
            name = record_name()
            paths.write_new(tfd, name, fastjson.dumps(rec).encode("ascii"), sync=True)
            try:
                os.rename(name, name, src_dir_fd=tfd, dst_dir_fd=nfd)
            except BaseException:
                os.unlink(name, dir_fd=tfd)
                raise
            names.append(name)
        os.fsync(nfd)  # make the renames themselves durable
    finally:
        os.close(tfd)
        os.close(nfd)
    return names


def count(home: str, sub: str = "new") -> int:
    try:
        return sum(1 for e in os.scandir(os.path.join(home, "spool", sub)) if e.name.endswith(".json"))
    except OSError:
        return 0


def read_all(home: str, sub: str = "new") -> list[dict[str, Any]]:
    """Every record in one spool directory, oldest first (small queues: demo, status, tests)."""
    out = []
    try:
        dfd = paths.open_dir(home, "spool", sub, create=False)
    except OSError:
        return out
    try:
        for name in sorted(n for n in os.listdir(dfd) if n.endswith(".json")):
            try:
                out.append(fastjson.loads(paths.read_bytes(dfd, name)))
            except (OSError, ValueError):
                continue
    finally:
        os.close(dfd)
    return out
