"""The daemon's loop: watch the spool, make each record safe, batch, send, acknowledge.

One instance per ``$JEVLIN_HOME`` (an flock on ``state/daemon.lock`` held for the process's
life; a stale pid file never blocks a start). A record is claimed by renaming it from
``spool/new`` to ``spool/cur`` and deleted only after its sink acknowledged it; whatever a
crashed daemon left in ``cur/`` is reclaimed at the next start. SIGTERM ends the loop at once:
an in-flight batch is either finished by the sink call already under way or left in ``cur/``
for the next start, so nothing is lost either way.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time
from typing import Any

from jevlin_hooks.base import config, log, paths, spool
from jevlin_hooks.privacy import ids, record
from jevlin_hooks.ship import codec, housekeeping
from jevlin_hooks.ship import daemon_state as status_file
from jevlin_hooks.ship.sinks import Result, Sink, from_config

LOCK_NAME = paths.DAEMON_LOCK
PID_NAME = paths.DAEMON_PID
SPOOL_FULL_FLAG = "spool_full"
BACKOFF_BASE_S = 1.0


class _Abort(BaseException):
    """Raised by SIGTERM inside a sink call: the batch stays in cur/ for the next start."""


def acquire_lock(home: str) -> int | None:
    return paths.try_daemon_lock(home)


class Daemon:
    def __init__(self, home: str, once: bool = False) -> None:
        self.home = home
        self.once = once
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.cfg: dict[str, Any] = config.defaults()
        self.sink: Sink | None = None
        self.sink_key: tuple[Any, ...] | None = None
        self.inflight: list[tuple[str, dict[str, Any]]] = []
        self.failures = 0
        self.next_try = 0.0
        self.last_size_check = 0.0
        self.st = status_file.load(home)
        self.observer: Any = None
        self.sending = False
        self.failed_once: str | None = None
        self.backlog: list[str] = []  # oldest-first names listed once, claimed over several batches
        self.last_sweep = 0.0
        self.last_retention = 0.0

    # --- lifecycle -------------------------------------------------------------------------

    def run(self) -> int:
        os.umask(0o077)
        lock = acquire_lock(self.home)
        if lock is None:
            print("jevlin-hooks daemon: already running for this JEVLIN_HOME", file=sys.stderr)
            return 1
        try:
            sfd = paths.open_dir(self.home, "state")
            try:
                paths.write_atomic(sfd, PID_NAME, f"{os.getpid()}\n".encode())
            finally:
                os.close(sfd)
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, self._on_signal)
                signal.signal(signal.SIGINT, self._on_signal)
            for sub in spool.SUBDIRS:
                os.close(paths.open_dir(self.home, "spool", sub))
            back = spool.reclaim(self.home)
            if back:
                log.write(self.home, "daemon.log", f"reclaimed {back} record(s) left in flight by a previous run")
            self.st.update(pid=os.getpid(), started=time.time(), running=True)
            try:
                self._loop()
            except _Abort:
                log.write(self.home, "daemon.log", f"stopped during a send; {len(self.inflight)} record(s) "
                          "stay in spool/cur and go out after the next start")
            if self.failed_once:
                print(f"jevlin-hooks daemon: delivery failed ({self.failed_once}); the records stay queued",
                      file=sys.stderr)
                return 1
            return 0
        finally:
            self._watching(False)
            if self.sink is not None:
                self.sink.close()
            self.st.update(running=False, in_flight=len(self.inflight))
            status_file.save(self.home, self.st)
            try:
                os.unlink(os.path.join(self.home, "state", PID_NAME))
            except OSError:
                pass
            os.close(lock)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.stop.set()
        self.wake.set()
        if self.sending:
            raise _Abort()

    def _watching(self, on: bool) -> None:
        """File events only matter while the queue is empty: draining a backlog, every claim
        would raise one more (the daemon's own renames), costing up to 40% of throughput. So the
        watcher runs while idle and stops while busy; a rescan is the safety net either way."""
        if on and self.observer is None and not self.once:
            self._watch()
        elif not on and self.observer is not None:
            self.observer.stop()
            self.observer.join(timeout=2)
            self.observer = None

    def _watch(self) -> None:
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:  # pragma: no cover - watchdog is a dependency; rescans still work
            return
        wake = self.wake

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                wake.set()

        obs = Observer()
        obs.schedule(Handler(), os.path.join(self.home, "spool", "new"), recursive=False)
        obs.daemon = True
        obs.start()
        self.observer = obs

    # --- the loop --------------------------------------------------------------------------

    def _reload(self) -> None:
        try:
            self.cfg = config.load(self.home)
            self.st.pop("config_error", None)
        except (config.ConfigError, OSError) as exc:
            self.st["config_error"] = f"config.toml: {exc} (still using the last good config)"
        ship = self.cfg["ship"]
        key = (ship["sink"], ship["endpoint"], ship["api_key"], os.environ.get("JEVLIN_API_KEY"),
               tuple(sorted((ship.get("headers") or {}).items())))
        if key != self.sink_key:
            if self.sink is not None:
                self.sink.close()
            self.sink = from_config(self.cfg, self.home)
            self.sink_key = key
            self.st["sink"] = ship["sink"]

    def _wait(self, seconds: float) -> None:
        self.wake.wait(max(0.0, seconds))
        self.wake.clear()

    def _loop(self) -> None:
        while not self.stop.is_set():
            self._reload()
            if not config.trace_on(self.cfg):
                self._trace_off()
                if self.once:
                    return
                self._wait(self.cfg["daemon"]["rescan_s"])
                continue
            self._check_size()
            self._sweep()
            now = time.time()
            if now < self.next_try:
                self._save_status()
                self._wait(min(self.next_try - now, self.cfg["daemon"]["rescan_s"]))
                continue
            if not self.inflight:
                spool.pin(self.home)
                try:
                    self._claim_batch()
                finally:
                    spool.unpin()
            if not self.inflight:
                self._save_status()
                if self.once:
                    return
                if self.observer is None:
                    self._watching(True)
                    if spool.oldest(self.home, 1):
                        continue  # queued while the watcher was starting: no event will come
                self._wait(self.cfg["daemon"]["rescan_s"])
                continue
            self._watching(False)
            spool.pin(self.home)
            try:
                self._send()
            finally:
                spool.unpin()
            self._save_status()

    def _trace_off(self) -> None:
        """Tracing turned off: nothing more leaves. Queued records wait in spool/held/."""
        self.inflight = []
        self.backlog = []
        held = spool.hold_all(self.home)
        if held:
            log.write(self.home, "daemon.log", f"trace is off: moved {held} queued record(s) to spool/held")
        self.st["trace"] = "off"
        self._save_status()

    def _claim_batch(self) -> None:
        dcfg = self.cfg["daemon"]
        limit = max(1, int(dcfg["batch_size"]))
        budget = max(1024, int(dcfg["batch_bytes"]))
        key = ids.load_key(self.home)
        if key is None:
            self.st["last_error"] = "no local key and cannot create one"
            return
        disabled = tuple(self.cfg["privacy"]["disabled_rules"])
        size = 0
        if not self.backlog:
            self.backlog = spool.oldest(self.home, limit * 20)
            self.backlog.reverse()  # pop() from the end = oldest first
        while self.backlog and len(self.inflight) < limit:
            name = self.backlog.pop()
            if not spool.claim(self.home, name):
                continue
            try:
                raw = spool.read(self.home, "cur", name)
                safe = record.make_safe(codec.loads(raw), key, disabled)
            except (ValueError, record.InvalidRecord) as exc:
                reason = str(exc) if isinstance(exc, record.InvalidRecord) else "not valid JSON"
                spool.quarantine(self.home, name, f"invalid record: {reason}")
                self.st["quarantined_total"] = self.st.get("quarantined_total", 0) + 1
                continue
            except OSError:
                continue
            n = len(raw)  # the safe record is no larger than the raw one, give or take the hashes
            if self.inflight and size + n > budget:
                spool.unclaim(self.home, name)  # next batch
                self.backlog.append(name)
                break
            self.inflight.append((name, safe))
            size += n
        self.st["trace"] = "on"

    def _send(self) -> None:
        assert self.sink is not None
        records = [r for _, r in self.inflight]
        self.sending = True
        try:
            if self.stop.is_set():
                raise _Abort()
            result = self.sink.send(records)
        except Exception as exc:  # noqa: BLE001 - a sink bug must not kill delivery of the rest
            result = Result(retry=True, error=f"{type(exc).__name__} in sink {self.sink.name}")
        finally:
            self.sending = False
        by_id = {r["record_id"]: name for name, r in self.inflight}
        if result.rejected:
            for rid, reason in result.rejected.items():
                if rid in by_id:
                    spool.quarantine(self.home, by_id[rid], f"{self.sink.name}: {reason}")
            self.st["quarantined_total"] = self.st.get("quarantined_total", 0) + len(result.rejected)
        done = [by_id[rid] for rid in result.accepted if rid in by_id]
        spool.ack(self.home, done)
        if done:
            status_file.count_delivered(self.st, len(done))
            self.st["last_success"] = time.time()
        if result.note:
            self.st["last_note"] = result.note
        if result.retry:
            self.failures += 1
            delay = min(self.cfg["daemon"]["backoff_max_s"], BACKOFF_BASE_S * 2 ** min(self.failures - 1, 20))
            delay *= random.uniform(0.5, 1.0)
            if result.retry_after is not None:
                delay = min(max(result.retry_after, 0.0), 3600.0)
            self.next_try = time.time() + delay
            self.st["last_error"] = result.error
            self.st["last_error_at"] = time.time()
            self.st["next_retry"] = self.next_try
            handled = set(done) | {by_id[r] for r in result.rejected if r in by_id}
            self.inflight = [(n, r) for n, r in self.inflight if n not in handled]
            if self.once:  # one pass only: what failed stays queued for the next run
                self.failed_once = result.error or "delivery failed"
                self.stop.set()
        else:
            if result.error:
                self.st["last_error"] = result.error
                self.st["last_error_at"] = time.time()
            self.failures = 0
            self.next_try = 0.0
            self.st["next_retry"] = None
            self.inflight = []

    def _sweep(self) -> None:
        """Close what crashed agents left open: a session with a turn or call still open and no
        event for `abandon_after_s` ends as abandoned (its records queued like any other).
        Only sessions in the open index are looked at; retention runs here too, hourly."""
        now = time.time()
        if now - self.last_sweep < 600 and not (self.once and self.last_sweep == 0):
            return
        self.last_sweep = now
        from jevlin_hooks.capture import engine, lineage
        from jevlin_hooks.capture import harness as harnesses

        try:
            housekeeping.build_open_index(self.home)
        except OSError as exc:
            log.write(self.home, "daemon.log", f"open-session index: {type(exc).__name__}")
        max_age = float(self.cfg["daemon"]["abandon_after_s"])

        def close(name: str, state: dict[str, Any]) -> bool:
            harness = state.get("harness", "")
            try:
                history_for = harnesses.get(harness).history_for
            except ValueError:
                return False  # a lineage file of a harness this version does not know

            def transition(st: dict[str, Any] | None) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
                if st is None:
                    return None, []
                recs = engine.close_stale(st, self.cfg, time.time(), max_age, history_for)
                return (st if recs or st.get("status") == "abandoned" else None), recs

            try:
                lineage.update(self.home, harness, state["session_id"], transition)
            except (OSError, KeyError):
                return False
            log.write(self.home, "daemon.log", f"closed an abandoned {harness} session")
            return True

        housekeeping.sweep_abandoned(self.home, now, max_age, close)
        if now - self.last_retention >= 3600 or (self.once and self.last_retention == 0):
            self.last_retention = now
            try:
                housekeeping.retention(self.home, float(self.cfg["retention"]["days"]), now)
            except OSError as exc:
                log.write(self.home, "daemon.log", f"retention: {type(exc).__name__}")

    def _check_size(self) -> None:
        now = time.time()
        if now - self.last_size_check < 30:
            return
        self.last_size_check = now
        cap = float(self.cfg["spool"]["max_mb"]) * 1024 * 1024
        size = spool.size_bytes(self.home)
        flag = os.path.join(self.home, "state", SPOOL_FULL_FLAG)
        self.st["spool_bytes"] = size
        if size >= cap:
            if not os.path.exists(flag):
                sfd = paths.open_dir(self.home, "state")
                try:
                    paths.write_atomic(sfd, SPOOL_FULL_FLAG, f"{size} {cap:.0f}\n".encode())
                finally:
                    os.close(sfd)
                log.write(self.home, "daemon.log", f"spool full ({size} bytes >= [spool] max_mb): hooks stop queueing")
        elif os.path.exists(flag):
            os.unlink(flag)
            log.write(self.home, "daemon.log", "spool back under its cap: hooks queue again")

    def _save_status(self) -> None:
        self.st["in_flight"] = len(self.inflight)
        self.st["updated"] = time.time()
        status_file.save(self.home, self.st)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    once = "--once" in args
    return Daemon(paths.home(), once=once).run()


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]:
        sys.exit(main(sys.argv[2:]))
    sys.exit(main())
