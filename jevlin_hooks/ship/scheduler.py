"""The daemon's scheduler: its life (lock, start, signals, stop), the loop, its timers, and the
config read again while it runs.

One pass: read the config (while draining a backlog, at most every BUSY_REFRESH_S), run what
housekeeping has due, and unless a retry is pending, have the preparer fill a batch and the
deliverer send it. Then either go on at once (a backlog), or wait: for a file system event
(a record arrives, config.toml changes), for the retry's time, for the next timed job, or at most
``[daemon] rescan_s`` (default 30 s), the rescan that catches events the system dropped. Every
wait is in monotonic time. An idle daemon wakes only for those, and writes its status file only
when what it says changed.

Nothing stops the loop but SIGTERM (or SIGINT): every pass and every sink call is guarded, an
unexpected exception is logged with its traceback (to ``logs/daemon.log``) and retried with
backoff. SIGTERM ends the loop at once: a batch in flight is either finished by the sink call
already under way or stays queued; workers are killed rather than waited for (their work is
pure); so nothing is lost either way.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Any

from jevlin_hooks.base import config, paths, spool
from jevlin_hooks.ship import instance
from jevlin_hooks.ship.deliverer import Aborted, Deliverer
from jevlin_hooks.ship.housekeeping import Housekeeper
from jevlin_hooks.ship.preparer import Preparer
from jevlin_hooks.ship.report import Report, one_line
from jevlin_hooks.ship.watch import Watcher

BUSY_REFRESH_S = 0.5


class Scheduler:
    def __init__(self, home: str, once: bool = False) -> None:
        self.home = home
        self.once = once
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.report = Report(home)
        self.preparer = Preparer(home, self.report, self.stop)
        self.deliverer = Deliverer(home, self.report, self.stop, self.preparer.release)
        self.housekeeper = Housekeeper(home, self.report)
        self.deliverer.on_first_failure = lambda: self.housekeeper.check_size(force=True)
        self.watcher = Watcher(home, self.wake)
        self.cfg: dict[str, Any] = config.defaults()
        self.config_problem: str | None = None
        self.crashes = 0
        self.busy = False  # the last pass sent a batch and the next follows at once
        self.last_reload = 0.0
        self.locks: list[int] = []

    # --- life ----------------------------------------------------------------------------------

    def run(self) -> int:
        os.umask(0o077)
        refused = paths.untrusted(self.home)
        if refused:  # not ours: nothing read from it, nothing written into it
            print(f"jevlin-hooks daemon: {refused}", file=sys.stderr)
            return 1
        try:
            locks = instance.acquire(self.home)
        except Exception as exc:  # noqa: BLE001 - an unusable home: say so where the user looks
            return self._cannot_start(exc)
        if locks is None:
            print("jevlin-hooks daemon: already running for this JEVLIN_HOME", file=sys.stderr)
            return 1
        self.locks = locks
        try:
            try:
                self._start()
            except Exception as exc:  # noqa: BLE001
                return self._cannot_start(exc)
            try:
                self._loop()
            except Aborted:
                self.report.log(f"stopped during a send; {len(self.deliverer.inflight)} record(s) go back to "
                                "the queue and out after the next start")
            if self.deliverer.failed_once:
                print(f"jevlin-hooks daemon: delivery failed ({self.deliverer.failed_once}); the records stay "
                      "queued", file=sys.stderr)
                return 1
            return 0
        finally:
            self._shutdown()

    def _start(self) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._on_signal)
            signal.signal(signal.SIGINT, self._on_signal)
        for sub in spool.SUBDIRS:
            os.close(paths.open_dir(self.home, "spool", sub))
        back = spool.reclaim(self.home)
        if back:
            self.report.log(f"queued again {back} record(s) an earlier version left in spool/cur")
        try:
            sfd = paths.open_dir(self.home, "state")
            try:
                paths.write_atomic(sfd, instance.PID_NAME, f"{os.getpid()}\n".encode())
            finally:
                os.close(sfd)
        except OSError as exc:  # a full disk: `status` finds us through the lock instead
            self.report.log(f"cannot write state/{instance.PID_NAME} ({exc.strerror}); running without it")
        st = self.report.st
        st.pop("start_error", None)
        st.update(pid=os.getpid(), started=time.time(), running=True)
        self.deliverer.start()
        self.report.save(force=True)
        if not self.once:
            try:
                self.watcher.start()
            except (OSError, ImportError) as exc:  # an inotify watch limit: the rescan still finds everything
                self.report.log(f"cannot watch the queue ({one_line(exc)}); rescanning it every [daemon] rescan_s")

    def _shutdown(self) -> None:
        self.watcher.stop()
        self.preparer.give_back(kill=self.stop.is_set())  # stopping: workers killed, not waited for
        self.deliverer.close()
        st = self.report.st
        st.update(running=False, in_flight=0)
        st.pop("sending", None)
        st.pop("waiting", None)
        self.report.save(force=True)
        pid_path = os.path.join(self.home, "state", instance.PID_NAME)
        try:
            with open(pid_path) as f:
                mine = f.read().strip() == str(os.getpid())
            if mine:
                os.unlink(pid_path)
        except OSError:
            pass
        for fd in self.locks:
            os.close(fd)
        self.locks = []

    def _cannot_start(self, exc: BaseException) -> int:
        why = one_line(exc)
        msg = f"cannot start: {why}"
        self.report.traceback("start", exc, msg)
        self.report.st.update(running=False, start_error=why, start_error_at=time.time())
        self.report.save(force=True)
        print(f"jevlin-hooks daemon: {msg} (see {os.path.join(self.home, 'logs', 'daemon.log')})", file=sys.stderr)
        return 1

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.stop.set()
        self.wake.set()
        if self.deliverer.sending:
            raise Aborted()

    # --- the loop -------------------------------------------------------------------------------

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                wait = self._step()
                if self.crashes:
                    self.crashes = 0
                    self.report.clear_problem("loop")
            except Aborted:
                raise
            except Exception as exc:  # noqa: BLE001 - the loop never dies of a bug: log, back off, go on
                self.crashes += 1
                msg = f"error in the daemon loop: {one_line(exc)}"
                self.report.traceback("loop", exc, msg)
                self.report.problem("failing", msg, "loop")
                self._save()
                if self.once:
                    self.deliverer.failed_once = msg
                    return
                wait = self.deliverer.backoff(self.crashes)
            if wait is None:
                return
            if wait > 0:
                self.wake.wait(wait)  # Event.wait: monotonic time
                self.wake.clear()

    def _step(self) -> float | None:
        """One pass: seconds to wait before the next (0: go on at once), None: stop."""
        self.report.passes += 1
        if not instance.still_home(self.home, self.locks):
            self.report.log("JEVLIN_HOME was removed or replaced under the daemon: stopping (start one for the "
                            "new home)")
            self.stop.set()
            return None
        # Draining a backlog, the config is read again at most every BUSY_REFRESH_S (a few
        # percent of the time per batch); otherwise every pass.
        if not self.busy or time.monotonic() - self.last_reload >= BUSY_REFRESH_S:
            self.last_reload = time.monotonic()
            self._reload()
        self.busy = False
        d = self.deliverer
        if self.config_problem or not config.trace_on(self.cfg):
            self._trace_off(self.config_problem)
            return None if self.once else self._idle(spool_events=True)
        self.report.clear_problem("config")
        self.housekeeper.tick(self.cfg)
        if d.wait_left() > 0:  # a retry is due later
            d.sent()
            self._save()
            return self._idle(spool_events=False, longest=d.wait_left())
        limit = max(1, int(self.cfg["daemon"]["batch_size"]))
        if len(d.inflight) < limit:
            # Empty, or what is left of a batch that failed: fill it up, so a record that fails
            # alone is retried beside others and can be told apart from a sink that is down.
            spool.pin(self.home)
            try:
                self._claim(limit)
            finally:
                spool.unpin()
        if not d.inflight:
            d.sent()
            self._save()
            if self.once:
                return None
            if d.wait_left() > 0:  # no usable key: as for a failed send
                return self._idle(spool_events=False, longest=d.wait_left())
            return self._idle(spool_events=True)
        spool.pin(self.home)
        try:
            d.send(self.once)
        finally:
            spool.unpin()
        self.busy = True
        if self.report.since_save() >= BUSY_REFRESH_S or d.inflight:
            self._save()
        return 0

    def _idle(self, spool_events: bool, longest: float | None = None) -> float:
        """Wait for an event: seconds to wait at most (0: a record came while the watcher was not
        listening for new records)."""
        listening = self.watcher.spool_events
        self.watcher.spool_events = spool_events
        if spool_events and not listening and spool.oldest(self.home, 1):
            return 0.0  # queued while its event was ignored: no other will come
        wait = max(float(self.cfg["daemon"]["rescan_s"]), 0.0)
        if longest is not None:
            wait = min(wait, longest)
        return min(wait, self.housekeeper.next_due())

    def _reload(self) -> None:
        # Fail closed: the one function hooks, status and doctor ask too. A config we cannot
        # use may say trace = "off": hold as for "off", with the same one-line reason.
        cfg, why = config.settings(self.home)
        st = self.report.st
        if cfg is None:
            self.config_problem = why
            st["config_error"] = why
            st["sink"] = "-"
            self.cfg = dict(config.defaults(), trace="off")  # only the loop's timings are used
            return
        self.cfg = cfg
        self.config_problem = None
        st.pop("config_error", None)
        self.deliverer.configure(cfg)

    def _trace_off(self, why: str | None) -> None:
        """Tracing turned off, or a config that cannot be used: nothing more leaves. Queued
        records wait in spool/held/ until the user releases them."""
        self.preparer.give_back()
        self.deliverer.inflight = []
        self.deliverer.sent()
        self.deliverer.flush()  # what was delivered is deleted, not held
        self.preparer.owned.clear()  # everything left goes to held/; released, it is listed afresh
        held = spool.hold_all(self.home)
        reason = why or "trace is off"
        if held:
            self.report.log(f"{reason}: moved {held} queued record(s) to spool/held")
        if why:  # config.settings' one line, as status and doctor give it
            self.report.problem("held", f"{why} (then `jevlin-hooks spool release-held`)", "config")
        else:
            self.report.clear_problem("config")
        self.report.st["trace"] = "off"
        self._save()

    def _claim(self, limit: int) -> None:
        key = self.preparer.key()
        if key is None:
            self.deliverer.defer(self.once)
            return
        disabled = config.disabled_rules(self.cfg)
        self.housekeeper.migrate_quarantine(key, disabled)
        s = self.preparer.settings(self.cfg, key)
        budget = max(1024, int(self.cfg["daemon"]["batch_bytes"]))
        self.preparer.fill(self.deliverer.inflight, limit, budget, s,
                           lambda item: self.deliverer.quarantine_item(item, key))
        self.report.st["trace"] = "on"

    def _save(self) -> None:
        self.report.st["in_flight"] = len(self.deliverer.inflight)
        self.report.save()
