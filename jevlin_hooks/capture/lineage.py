"""Lineage files: one JSON document per harness session under ``$JEVLIN_HOME/sessions``.

Every update takes an exclusive ``flock`` on the session's ``.lock`` file, reads the state,
applies a transition, queues the transition's records, then replaces the state atomically.
Records are queued before the state is written: a crash between the two leaves the call
pending (it is closed again later under the same ``record_id``, which sinks de-duplicate),
never a lost record.

Index files let a search process find its lineage without any id in its environment:
``sessions/pid/<agent pid>`` and ``sessions/cwd/<sha256(workspace)>`` name the lineage file.
``sessions/open/<name>`` (empty) exists while a session has a turn or call open (or a record
held for its content): the daemon's
abandoned-session sweep reads that index, never the whole directory. It changes under the same
lock as the state, only when the session opens or closes, so a hook pays for it twice a turn.

Retention (jevlin_hooks/ship/housekeeping.py) deletes old closed sessions with their lock files:
whoever takes a lock checks that the file it locked is still the one at that name, so a lock
file unlinked by retention while another process waited on it is never shared with a new one.
"""

from __future__ import annotations

import fcntl
import os

from jevlin_hooks.base import fastjson, paths, spool

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jevlin_hooks.capture.shapes import State, Transition


def file_name(harness: str, session_id: str) -> str:
    return f"{harness}.{paths.safe_name(session_id)}"


def update(home: str, harness: str, session_id: str, transition: Transition) -> State | None:
    """Apply ``transition`` under the session's lock; returns the new state."""
    name = file_name(harness, session_id)
    dfd = paths.open_dir(home, "sessions")
    try:
        lfd = lock(dfd, name + ".lock")
        try:
            state = _read(dfd, name + ".json", home)
            was_open = may_be_open(state)  # before the transition, which may change state in place
            new, records = transition(state)
            if records:
                try:  # text is text: a lone surrogate must not make a record unsendable
                    spool.enqueue(home, [fastjson.valid(r) for r in records])
                except spool.NotQueued as exc:  # lineage still moves on; the drop is counted
                    from jevlin_hooks.base import log

                    log.write(home, "hook.log", f"{harness}: {exc}")
            if new is not None:
                paths.write_atomic(dfd, name + ".json", fastjson.dumps(new).encode("ascii"))
                if may_be_open(new) != was_open:
                    mark_open(dfd, name, not was_open)
            return new
        finally:
            os.close(lfd)  # closing releases the flock
    finally:
        os.close(dfd)


def lock(dfd: int, lock_name: str, block: bool = True) -> int:
    """An fd holding the exclusive flock on ``lock_name`` (closing it releases the lock).

    Retention may unlink a lock file while another process waits on it; the waiter then holds a
    lock on a file no one else will ever open, so it checks the name still points at its file
    and starts over when it does not. ``block=False`` raises BlockingIOError when held.
    """
    for _ in range(16):
        lfd = paths.open_lock(dfd, lock_name)
        try:
            fcntl.flock(lfd, fcntl.LOCK_EX if block else fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.stat(lock_name, dir_fd=dfd, follow_symlinks=False).st_ino == os.fstat(lfd).st_ino:
                return lfd
        except FileNotFoundError:
            pass  # unlinked between our open and our lock: open it again
        except BaseException:
            os.close(lfd)
            raise
        os.close(lfd)
    raise OSError(f"lock file {lock_name} keeps being replaced")


def may_be_open(state: State | None) -> bool:
    """A turn or a call still open, or a record held for its content (engine._release): what the
    abandoned-session sweep may have to close or queue."""
    return state is not None and (state.get("turn") is not None or bool(state.get("pending"))
                                  or bool(state.get("held")))


OPEN_DIR = "open"


def mark_open(dfd: int, name: str, is_open: bool) -> None:
    """Add ``name`` to the open-session index (``sessions/open/``) or take it out."""
    try:
        ofd = os.open(OPEN_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dfd)
    except FileNotFoundError:
        if not is_open:
            return
        try:
            os.mkdir(OPEN_DIR, paths.DIR_MODE, dir_fd=dfd)
        except FileExistsError:
            pass
        ofd = os.open(OPEN_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dfd)
    try:
        if is_open:
            try:
                paths.write_new(ofd, name, b"", sync=False)
            except FileExistsError:
                pass
        else:
            try:
                os.unlink(name, dir_fd=ofd)
            except FileNotFoundError:
                pass
    finally:
        os.close(ofd)


def open_names(home: str) -> list[str]:
    """The sessions with a turn or call open (the index, not a scan of sessions/)."""
    try:
        return sorted(n for n in os.listdir(os.path.join(home, "sessions", OPEN_DIR)) if not n.startswith("."))
    except OSError:
        return []


def _read(dfd: int, name: str, home: str = "") -> State | None:
    try:
        data = paths.read_bytes(dfd, name)
    except FileNotFoundError:
        return None
    try:
        loaded = fastjson.loads(data)
    except ValueError:
        loaded = None
    valid = isinstance(loaded, dict) and loaded.get("v") == 1
    if not valid:
        set_aside(dfd, name, home)
        return None
    state: State = loaded  # the one writer is update(): the shape engine.apply returned
    return state


def set_aside(dfd: int, name: str, home: str) -> None:
    """A file we cannot read (a disk that filled mid-write, a hand edit): renamed to
    ``<name>.broken-<time>`` for inspection and logged once (the rename is the once), so the
    session starts fresh instead of failing every later event."""
    import time

    aside = f"{name}.broken-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{os.urandom(2).hex()}"
    try:
        os.rename(name, aside, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError:
        return
    if home:
        from jevlin_hooks.base import log

        log.write(home, "hook.log", f"unreadable state set aside as sessions/{aside}; starting fresh")


def read(home: str, name: str) -> State | None:
    """Read a lineage file without locking (atomic replace makes this consistent)."""
    try:
        dfd = paths.open_dir(home, "sessions", create=False)
    except OSError:
        return None
    try:
        data = paths.read_bytes(dfd, name + ".json")
        loaded = fastjson.loads(data)
    except (OSError, ValueError):
        return None
    finally:
        os.close(dfd)
    valid = isinstance(loaded, dict)
    if not valid:
        return None
    state: State = loaded
    return state


def list_names(home: str) -> list[str]:
    try:
        return sorted(n[:-5] for n in os.listdir(os.path.join(home, "sessions")) if n.endswith(".json"))
    except OSError:
        return []


def workspace_key(cwd: str) -> str:
    return paths.sha256_hex(os.path.normpath(cwd).encode("utf-8", "surrogatepass"))[:40]


def write_index(home: str, kind: str, key: str, value: dict[str, Any]) -> None:
    dfd = paths.open_dir(home, "sessions", kind)
    try:
        paths.write_atomic(dfd, key, fastjson.dumps(value).encode("ascii"))
    finally:
        os.close(dfd)


def read_index(home: str, kind: str, key: str) -> dict[str, Any] | None:
    try:
        dfd = paths.open_dir(home, "sessions", kind, create=False)
    except OSError:
        return None
    try:
        value = fastjson.loads(paths.read_bytes(dfd, key, limit=1 << 16))
        return value if isinstance(value, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        os.close(dfd)
