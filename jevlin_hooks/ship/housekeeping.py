"""The daemon's housekeeping: closing abandoned sessions, retention, the spool's size cap, its
own output file's cap, and converting quarantine entries older versions kept raw.

Its timers run in monotonic time (:class:`Housekeeper`); what it compares with file times
(a session idle for ``abandon_after_s``, retention's days) is wall-clock time, as the files are.

Both read the open-session index (``sessions/open/``, kept by lineage.update) instead of every
lineage file. The abandoned-session sweep reads only the sessions in that index. Retention
lists ``sessions/`` (names and mtimes, no file read) once an hour and deletes each closed
session idle for ``[retention] days``: its lineage file, its lock file and the index entries
that name it. A session is re-checked under its own lock before it goes, so one that an event
reopened in the meantime stays.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jevlin_hooks.base import config, fastjson, log, paths, spool
from jevlin_hooks.capture import lineage
from jevlin_hooks.ship import quarantine
from jevlin_hooks.ship.report import Report

if TYPE_CHECKING:
    from jevlin_hooks.capture.shapes import Record, State

OPEN_INDEX_FLAG = "open_index_v1"  # in state/: the open index was built from a full scan once
SPOOL_FULL_FLAG = "spool_full"
DAY = 86400.0
SWEEP_S = 600.0
RETENTION_S = 3600.0
SIZE_CHECK_S = 30.0  # how often the spool's size is taken (a stat of every queued file)
OUTPUT = "daemon.out"  # logs/: the daemon's stdout and stderr when `daemon start` or a hook started it


class Housekeeper:
    def __init__(self, home: str, report: Report) -> None:
        self.home = home
        self.report = report
        self.cfg: dict[str, Any] = config.defaults()  # the daemon's, from its first pass on
        self.last_sweep: float | None = None  # monotonic; None: not yet this run
        self.last_retention: float | None = None
        self.last_size_check: float | None = None
        self.quarantine_checked = False

    def tick(self, cfg: dict[str, Any]) -> None:
        """What is due: the spool's size, the output file's cap, the sweep (at the first pass,
        then every SWEEP_S) and retention (at the first pass, then every RETENTION_S)."""
        self.cfg = cfg
        self.check_size()
        self.cap_output()
        now = time.monotonic()
        if self.last_sweep is None or now - self.last_sweep >= SWEEP_S:
            self.sweep()
        if self.last_retention is None or now - self.last_retention >= RETENTION_S:
            self.retain()

    def next_due(self) -> float:
        """Seconds until the next timed job (the loop's idle wait is no longer than this); none is
        due before the first tick (while tracing is off, nothing ticks)."""
        now = time.monotonic()
        due = [t + every - now for t, every in ((self.last_sweep, SWEEP_S), (self.last_retention, RETENTION_S))
               if t is not None]
        return max(0.0, min(due)) if due else float("inf")

    # --- sessions -------------------------------------------------------------------------------

    def sweep(self) -> int:
        """Close what crashed agents left open: a session with a turn or call still open and no
        event for `abandon_after_s` ends as abandoned (its records queued like any other). Only
        sessions in the open index are looked at."""
        self.last_sweep = time.monotonic()
        try:
            build_open_index(self.home)
        except OSError as exc:
            self.report.log(f"open-session index: {type(exc).__name__}")
        max_age = float(self.cfg["daemon"]["abandon_after_s"])

        def close(name: str, state: State) -> bool:
            try:
                return self._close_abandoned(state, max_age)
            except Exception as exc:  # noqa: BLE001 - one broken session must not stop the sweep
                self.report.traceback("sweep", exc, f"{type(exc).__name__} closing an abandoned session; skipped")
                return False

        return sweep_abandoned(self.home, time.time(), max_age, close)

    def retain(self) -> None:
        self.last_retention = time.monotonic()
        try:
            retention(self.home, float(self.cfg["retention"]["days"]), time.time())
        except OSError as exc:
            self.report.log(f"retention: {type(exc).__name__}")

    def _close_abandoned(self, state: State, max_age: float) -> bool:
        from jevlin_hooks import harnesses
        from jevlin_hooks.capture import engine

        harness = state.get("harness", "")
        try:
            history_for = harnesses.capture(harness).history_for
        except ValueError:
            return False  # a lineage file of a harness this version does not know

        def transition(st: State | None) -> tuple[State | None, list[Record]]:
            if st is None:
                return None, []
            recs = engine.close_stale(st, self.cfg, time.time(), max_age, history_for)
            return (st if recs or st.get("status") == "abandoned" else None), recs

        try:
            lineage.update(self.home, harness, state["session_id"], transition)
        except (OSError, KeyError):
            return False
        self.report.log(f"closed an abandoned {harness} session")
        return True

    # --- the spool's cap --------------------------------------------------------------------------

    def check_size(self, force: bool = False) -> None:
        """The spool's size against its cap, every SIZE_CHECK_S: over it, state/spool_full tells
        the hooks to stop queueing. The cap is for a queue that grows while delivery fails, so
        at start the first check waits for the first failure or SIZE_CHECK_S (a stat of each of
        10,000 queued files is 30-50 ms, a tenth of a drain's start-up), unless a flag from
        before must be judged again."""
        now = time.monotonic()
        flag = os.path.join(self.home, "state", SPOOL_FULL_FLAG)
        if not force:
            if self.last_size_check is None and not os.path.exists(flag):
                self.last_size_check = now  # the first check, deferred
                return
            if self.last_size_check is not None and now - self.last_size_check < SIZE_CHECK_S:
                return
        self.last_size_check = now
        cap = float(self.cfg["spool"]["max_mb"]) * 1024 * 1024
        size = spool.size_bytes(self.home)
        self.report.st["spool_bytes"] = size
        try:
            if size >= cap:
                if not os.path.exists(flag):
                    sfd = paths.open_dir(self.home, "state")
                    try:
                        paths.write_atomic(sfd, SPOOL_FULL_FLAG, f"{size} {cap:.0f}\n".encode())
                    finally:
                        os.close(sfd)
                    self.report.log(f"spool full ({size} bytes >= [spool] max_mb): hooks stop queueing")
            elif os.path.exists(flag):
                os.unlink(flag)
                self.report.log("spool back under its cap: hooks queue again")
        except OSError:
            pass  # a full disk: the flag is written at the next check

    # --- the daemon's own output --------------------------------------------------------------------

    def cap_output(self) -> None:
        """``logs/daemon.out``, which this process writes through its stdout and stderr, rotated
        like every log once it passes log.MAX_BYTES (one fstat a pass; nothing when the output
        goes elsewhere: a terminal, the journal)."""
        try:
            out = os.fstat(2)
            if out.st_size <= log.MAX_BYTES or (out.st_mode & 0o170000) != 0o100000:
                return
            dfd = paths.open_dir(self.home, "logs")
        except OSError:
            return
        try:
            st = os.stat(OUTPUT, dir_fd=dfd, follow_symlinks=False)
            if (st.st_dev, st.st_ino) != (out.st_dev, out.st_ino):
                return
            fd = log.open_append(dfd, OUTPUT)  # renames the full one to daemon.out.1
            try:
                for target in (1, 2):
                    os.dup2(fd, target)
            finally:
                os.close(fd)
        except OSError:
            pass
        finally:
            os.close(dfd)

    # --- quarantine ------------------------------------------------------------------------------

    def migrate_quarantine(self, key: bytes, disabled: tuple[str, ...]) -> None:
        """Once per start: entries an older version kept raw are made safe or sealed."""
        if self.quarantine_checked:
            return
        self.quarantine_checked = True
        try:
            n = quarantine.migrate(self.home, key, disabled)
        except OSError as exc:  # a full disk must not stop delivery: tried again at the next start
            self.report.log(f"quarantine: cannot convert older raw entries yet ({exc.strerror})")
            return
        if n:
            self.report.log(f"quarantine: {n} raw entr{'y' if n == 1 else 'ies'} of an older version made safe "
                            "or sealed")


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

