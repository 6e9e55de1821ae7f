"""The daemon's upkeep of ``sessions/``: closing abandoned sessions and retention.

Both read the open-session index (``sessions/open/``, kept by lineage.update) instead of every
lineage file. The abandoned-session sweep reads only the sessions in that index. Retention
lists ``sessions/`` (names and mtimes, no file read) once an hour and deletes each closed
session idle for ``[retention] days``: its lineage file, its lock file and the index entries
that name it. A session is re-checked under its own lock before it goes, so one that an event
reopened in the meantime stays.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jevlin_hooks.base import fastjson, log, paths
from jevlin_hooks.capture import lineage

if TYPE_CHECKING:
    from jevlin_hooks.capture.shapes import State

OPEN_INDEX_FLAG = "open_index_v1"  # in state/: the open index was built from a full scan once
DAY = 86400.0


def build_open_index(home: str) -> int:
    """Once per home: lineage files written before the open index existed join it."""
    if os.path.exists(os.path.join(home, "state", OPEN_INDEX_FLAG)):
        return 0
    n = 0
    try:
        dfd = paths.open_dir(home, "sessions")
    except OSError:
        return 0
    try:
        for entry in os.scandir(dfd):
            if not entry.name.endswith(".json") or not entry.is_file(follow_symlinks=False):
                continue
            name = entry.name[:-5]
            if lineage.may_be_open(lineage.read(home, name)):
                lineage.mark_open(dfd, name, True)
                n += 1
    finally:
        os.close(dfd)
    sfd = paths.open_dir(home, "state")
    try:
        paths.write_atomic(sfd, OPEN_INDEX_FLAG, b"1\n")
    finally:
        os.close(sfd)
    return n


def sweep_abandoned(
    home: str, now: float, max_age: float,
    close: Callable[[str, State], bool],
) -> int:
    """Call ``close(name, state)`` for each indexed open session idle for ``max_age`` seconds;
    the count it closed."""
    closed = 0
    try:
        dfd = paths.open_dir(home, "sessions", create=False)
    except OSError:
        return 0
    try:
        for name in lineage.open_names(home):
            try:
                mtime = os.stat(name + ".json", dir_fd=dfd, follow_symlinks=False).st_mtime
            except FileNotFoundError:
                lineage.mark_open(dfd, name, False)  # its session is gone: so is its entry
                continue
            except OSError:
                continue
            if now - mtime < max_age:
                continue
            state = lineage.read(home, name)
            if state is None:
                continue
            if not lineage.may_be_open(state):
                lineage.mark_open(dfd, name, False)
                continue
            closed += close(name, state)
    finally:
        os.close(dfd)
    return closed


def retention(home: str, days: float, now: float) -> dict[str, int]:
    """Delete closed sessions idle for ``days`` (at least one) with their lock and index files;
    the counts."""
    days = max(1.0, float(days))
    cutoff = now - days * DAY
    gone = {"sessions": 0, "locks": 0, "index": 0}
    try:
        dfd = paths.open_dir(home, "sessions", create=False)
    except OSError:
        return gone
    try:
        still_open = set(lineage.open_names(home))
        old_json: list[str] = []
        old_locks: list[str] = []
        with os.scandir(dfd) as it:
            for e in it:
                if e.name.startswith("."):
                    continue
                stem, dot, ext = e.name.rpartition(".")
                if not dot or ext not in ("json", "lock") or stem in still_open:
                    continue
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if st.st_mtime < cutoff and e.is_file(follow_symlinks=False):
                    (old_json if ext == "json" else old_locks).append(stem)
        json_names = set(old_json)
        for name in old_json:
            if _remove_session(home, dfd, name, cutoff):
                gone["sessions"] += 1
                gone["locks"] += 1
        for name in old_locks:  # a lock file whose session never wrote a state (or is gone)
            if name not in json_names and _remove_lock(dfd, name):
                gone["locks"] += 1
        gone["index"] += _prune_index(dfd, cutoff)
    finally:
        os.close(dfd)
    if any(gone.values()):
        log.write(home, "daemon.log", f"retention ({days:g} days): removed {gone['sessions']} closed session(s), "
                  f"{gone['locks']} lock file(s), {gone['index']} index entr(ies)")
    return gone


def _remove_session(home: str, dfd: int, name: str, cutoff: float) -> bool:
    try:
        lfd = lineage.lock(dfd, name + ".lock", block=False)
    except OSError:
        return False  # an event holds it right now: it is not idle, so it stays
    try:
        try:
            st = os.stat(name + ".json", dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        state = lineage.read(home, name)
        if st.st_mtime >= cutoff or lineage.may_be_open(state):
            return False  # an event came in since the listing
        for kind, key in _own_index_keys(state):
            _unlink_index_if(dfd, kind, key, name)
        os.unlink(name + ".json", dir_fd=dfd)
        try:
            os.unlink(name + ".lock", dir_fd=dfd)  # while held: a waiter sees it went and starts over
        except FileNotFoundError:
            pass
        return True
    finally:
        os.close(lfd)


def _remove_lock(dfd: int, name: str) -> bool:
    try:
        lfd = lineage.lock(dfd, name + ".lock", block=False)
    except OSError:
        return False
    try:
        try:
            os.stat(name + ".json", dir_fd=dfd, follow_symlinks=False)
            return False  # a state appeared: the session lives
        except FileNotFoundError:
            pass
        os.unlink(name + ".lock", dir_fd=dfd)
        return True
    finally:
        os.close(lfd)


def _own_index_keys(state: State | None) -> list[tuple[str, str]]:
    if not state:
        return []
    keys = []
    if state.get("agent_pid"):
        keys.append(("pid", str(state.get("agent_pid"))))
    cwd = state.get("cwd")
    if isinstance(cwd, str):
        keys.append(("cwd", lineage.workspace_key(cwd)))
    return keys


def _unlink_index_if(dfd: int, kind: str, key: str, name: str) -> None:
    """Remove ``kind/key`` when it still names lineage ``name`` (a newer session may own it)."""
    try:
        kfd = os.open(kind, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dfd)
    except OSError:
        return
    try:
        value = _read_index(kfd, key)
        if value is not None and value.get("lineage") == name:
            os.unlink(key, dir_fd=kfd)
    except OSError:
        pass
    finally:
        os.close(kfd)


def _read_index(kfd: int, key: str) -> dict[str, Any] | None:
    try:
        value = fastjson.loads(paths.read_bytes(kfd, key, limit=1 << 16))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _prune_index(dfd: int, cutoff: float) -> int:
    """Index entries older than the cutoff whose lineage file is gone (pid, cwd, and the
    harnesses' child-thread maps, which name their root or parent session)."""
    from jevlin_hooks import harnesses

    n = 0
    for kind in os.listdir(dfd):
        if kind == lineage.OPEN_DIR or "." in kind:
            continue
        try:
            kfd = os.open(kind, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dfd)
        except OSError:
            continue
        try:
            with os.scandir(kfd) as it:
                entries = list(it)
            for e in entries:
                try:
                    if e.name.startswith(".") or e.stat(follow_symlinks=False).st_mtime >= cutoff:
                        continue
                except OSError:
                    continue
                value = _read_index(kfd, e.name)
                if value is None:
                    continue
                root = value.get("root") or value.get("parent")  # a child thread's root or parent session
                if isinstance(value.get("lineage"), str):
                    targets = [value["lineage"]]
                elif isinstance(root, str):
                    targets = [lineage.file_name(h, root) for h in harnesses.HARNESSES]
                else:
                    continue
                if any(_exists(dfd, t + ".json") for t in targets):
                    continue
                try:
                    os.unlink(e.name, dir_fd=kfd)
                    n += 1
                except OSError:
                    pass
        finally:
            os.close(kfd)
    return n


def _exists(dfd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dfd, follow_symlinks=False)
        return True
    except FileNotFoundError:
        return False

