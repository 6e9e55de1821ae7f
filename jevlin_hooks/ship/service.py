"""The daemon's loop: watch the spool, make each record safe, batch, send, acknowledge.

One instance per ``$JEVLIN_HOME`` (an flock on ``state/daemon.lock`` held for the process's
life; a stale pid file never blocks a start). Being the only reader, it reads a record where
it is, in ``spool/new``, and deletes it only after its sink acknowledged it: a daemon killed
at any point (kill -9 included) leaves every unacknowledged record in ``new/`` for the next
start, and no record is renamed on the way (a rename per record was a tenth of the daemon's
time). The names it is working on are kept in ``owned``, so a new listing of ``new/`` skips
them. SIGTERM ends the loop at once: an in-flight batch is either finished by the sink call
already under way or stays queued, so nothing is lost either way.

Nothing stops the loop but SIGTERM: every iteration and every sink call is guarded, an
unexpected exception is logged with its traceback (to ``logs/daemon.log``) and retried with
backoff. The current problem, if any, is kept in ``state/daemon.json`` for `status` and
`doctor`, and logged once each time it changes, not on every attempt.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time
import traceback
from collections import deque
from typing import TYPE_CHECKING, Any

from jevlin_hooks.base import config, log, paths, spool
from jevlin_hooks.privacy import ids
from jevlin_hooks.ship import daemon_state as status_file
from jevlin_hooks.ship import housekeeping, prepare, quarantine
from jevlin_hooks.ship.acker import Acker
from jevlin_hooks.ship.sinks import MIN_RETRY_AFTER_S, Result, Sink
from jevlin_hooks.ship.sinks.configured import from_config

if TYPE_CHECKING:
    from jevlin_hooks.capture.shapes import Record, State

LOCK_NAME = paths.DAEMON_LOCK
PID_NAME = paths.DAEMON_PID
SPOOL_FULL_FLAG = "spool_full"
BACKOFF_BASE_S = 1.0
MIN_DELAY_S = 0.1  # whatever the config says, a failing loop never spins
LISTING_MAX = 20_000  # names held at once (under 2 MB)
SIZE_CHECK_S = 30.0  # how often the spool's size is taken (a stat of every queued file)
BUSY_REFRESH_S = 0.5


class _Abort(BaseException):
    """Raised by SIGTERM inside a sink call: the batch stays queued for the next start."""


def acquire_lock(home: str) -> int | None:
    return paths.try_daemon_lock(home)


class Daemon:
    def __init__(self, home: str, once: bool = False) -> None:
        self.home = home
        self.once = once
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.cfg: dict[str, Any] = config.defaults()
        self.config_problem: str | None = None
        self.sink: Sink | None = None
        self.sink_key: tuple[Any, ...] | None = None
        self.inflight: list[tuple[str, dict[str, Any]]] = []
        self.failures = 0
        self.crashes = 0
        self.next_try = 0.0
        self.last_size_check = 0.0  # 0: not taken since start
        self.st = status_file.load(home)
        self.observer: Any = None
        self.sending = False
        self.failed_once: str | None = None
        self.backlog: list[str] = []  # oldest-first names listed once, taken over several batches
        # Names taken off the listing and not yet deleted or given back: listed, in a worker's
        # hands, prepared, in flight, or acknowledged and waiting for the acker's unlink.
        self.owned: set[str] = set()
        self.depth = 0  # records in new/ at the last listing
        self.busy = False  # the last pass sent a batch and the next follows at once
        self.last_reload = 0.0
        self.last_save = 0.0
        self.claimed: deque[str] = deque()  # owned, not prepared yet: a failed pool's chunks
        self.prepared: deque[prepare.Item] = deque()  # owned and prepared, not in a batch yet
        self.pool: prepare.Pool | None = None  # workers, while a backlog lasts
        self.pool_failed = False  # once a pool failed, this run prepares inline
        self.prep_settings: prepare.Settings | None = None
        self.last_sweep = 0.0
        self.last_retention = 0.0
        self.acker: Acker | None = None  # started with the loop (run)
        self.logged: set[str] = set()  # tracebacks already written, by where they happened
        self.quarantine_checked = False

    # --- lifecycle -------------------------------------------------------------------------

    def run(self) -> int:
        os.umask(0o077)
        refused = paths.untrusted(self.home)
        if refused:  # not ours: nothing read from it, nothing written into it
            print(f"jevlin-hooks daemon: {refused}", file=sys.stderr)
            return 1
        try:
            lock = acquire_lock(self.home)
        except Exception as exc:  # noqa: BLE001 - an unusable home: say so where the user looks
            return self._cannot_start(exc)
        if lock is None:
            print("jevlin-hooks daemon: already running for this JEVLIN_HOME", file=sys.stderr)
            return 1
        try:
            try:
                self._start()
            except Exception as exc:  # noqa: BLE001
                return self._cannot_start(exc)
            try:
                self._loop()
            except _Abort:
                log.write(self.home, "daemon.log", f"stopped during a send; {len(self.inflight)} record(s) "
                          "go back to the queue and out after the next start")
            if self.failed_once:
                print(f"jevlin-hooks daemon: delivery failed ({self.failed_once}); the records stay queued",
                      file=sys.stderr)
                return 1
            return 0
        finally:
            self._watching(False)
            if self.acker is not None:
                self.acker.close()  # every acknowledged record deleted before anything goes back
            if self.sink is not None:
                self.sink.close()
            self._drop_prepared()
            self.inflight = []  # not sent, or not acknowledged: still in new/, waiting again
            self.st.update(running=False, in_flight=0)
            status_file.save(self.home, self.st)
            try:
                os.unlink(os.path.join(self.home, "state", PID_NAME))
            except OSError:
                pass
            os.close(lock)

    def _start(self) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._on_signal)
            signal.signal(signal.SIGINT, self._on_signal)
        for sub in spool.SUBDIRS:
            os.close(paths.open_dir(self.home, "spool", sub))
        back = spool.reclaim(self.home)
        if back:
            log.write(self.home, "daemon.log", f"queued again {back} record(s) an earlier version left in spool/cur")
        try:
            sfd = paths.open_dir(self.home, "state")
            try:
                paths.write_atomic(sfd, PID_NAME, f"{os.getpid()}\n".encode())
            finally:
                os.close(sfd)
        except OSError as exc:  # a full disk: `status` finds us through the lock instead
            log.write(self.home, "daemon.log", f"cannot write state/{PID_NAME} ({exc.strerror}); running without it")
        self.st.pop("start_error", None)
        self.st.update(pid=os.getpid(), started=time.time(), running=True)
        self.acker = Acker(self.home, gone=self.owned.discard)
        status_file.save(self.home, self.st)

    def _cannot_start(self, exc: BaseException) -> int:
        why = _one_line(exc)
        msg = f"cannot start: {why}"
        self._log_traceback("start", exc, msg)
        self.st.update(running=False, start_error=why, start_error_at=time.time())
        status_file.save(self.home, self.st)
        print(f"jevlin-hooks daemon: {msg} (see {os.path.join(self.home, 'logs', 'daemon.log')})", file=sys.stderr)
        return 1

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

    # --- problems: one place that logs, counts and shows them ---------------------------------

    def _log_traceback(self, where: str, exc: BaseException, line: str) -> None:
        """The traceback's frames (never the exception's message: it may quote a raw value),
        once per place it happened until that place works again."""
        self._log_frames(where, type(exc).__name__, "".join(traceback.format_tb(exc.__traceback__)).rstrip(), line)

    def _log_frames(self, where: str, kind: str, frames: str, line: str) -> None:
        key = f"{where}:{kind}"
        if key in self.logged:
            return
        self.logged.add(key)
        frames = frames.replace("\n", "\n    ")
        log.write(self.home, "daemon.log", f"{line}\n    Traceback (most recent call last):\n    {frames}\n    {kind}")

    def _problem(self, kind: str, message: str, source: str = "send") -> None:
        """The current problem: "held" (the config must change) or "failing" (retried), and
        what raised it ("config", "key", "send", "loop"), so only its own fix clears it."""
        cur = self.st.get("problem") if isinstance(self.st.get("problem"), dict) else None
        state = message.split(":", 1)[0] if kind == "failing" else message
        if not cur or cur.get("kind") != kind or cur.get("state") != state:
            log.write(self.home, "daemon.log", ("delivery held: " if kind == "held" else "delivery failing: ") + message)
            self.st["problem"] = {"kind": kind, "message": message, "state": state, "source": source,
                                  "since": time.time()}
        else:
            cur["message"] = message

    def _clear_problem(self, source: str | None = None) -> None:
        cur = self.st.get("problem")
        if isinstance(cur, dict) and source is not None and cur.get("source") != source:
            return
        if cur:
            log.write(self.home, "daemon.log", f"delivery works again (sink {self.st.get('sink', '-')})")
            self.st["problem"] = None
        self.logged.clear()

    def _backoff(self, n: int) -> float:
        delay: float = min(self.cfg["daemon"]["backoff_max_s"], BACKOFF_BASE_S * 2 ** min(n - 1, 20))
        return max(MIN_DELAY_S, delay * random.uniform(0.5, 1.0))

    # --- the loop --------------------------------------------------------------------------

    def _reload(self) -> None:
        # Fail closed: the one function hooks, status and doctor ask too. A config we cannot
        # use may say trace = "off": hold as for "off", with the same one-line reason.
        cfg, why = config.settings(self.home)
        if cfg is None:
            self.config_problem = why
            self.st["config_error"] = why
            self.st["sink"] = "-"
            self.cfg = dict(config.defaults(), trace="off")  # only the loop's timings are used
            return
        self.cfg = cfg
        self.config_problem = None
        self.st.pop("config_error", None)
        ship = self.cfg["ship"]
        key = (ship["sink"], ship["endpoint"], ship["api_key"], os.environ.get("JEVLIN_API_KEY"),
               tuple(sorted((ship.get("headers") or {}).items())), ship.get("otlp_protocol"),
               self.cfg["miner"]["turn_end"])
        if key != self.sink_key:
            if self.sink is not None:
                self.sink.close()
            self.sink = None  # made at its first use (_open_sink)
            self.sink_key = key
            self.st["sink"] = ship["sink"]
            # A changed config is the usual fix for a held queue: try it at once.
            self.next_try = 0.0
            self.failures = 0

    def _open_sink(self) -> Sink:
        """The configured sink, made when the first batch is ready: an HTTP sink's client
        (importing httpx, loading the CA bundle: 65-90 ms) is then built while the worker
        processes of a backlog start, rather than before them."""
        if self.sink is None:
            self.sink = from_config(self.cfg, self.home)
        return self.sink

    def _wait(self, seconds: float) -> None:
        self.wake.wait(max(0.0, seconds))
        self.wake.clear()

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                wait = self._step()
                if self.crashes:
                    self.crashes = 0
                    self._clear_problem("loop")
            except _Abort:
                raise
            except Exception as exc:  # noqa: BLE001 - the loop never dies of a bug: log, back off, go on
                self.crashes += 1
                msg = f"error in the daemon loop: {_one_line(exc)}"
                self._log_traceback("loop", exc, msg)
                self._problem("failing", msg, "loop")
                self._save_status()
                if self.once:
                    self.failed_once = msg
                    return
                wait = self._backoff(self.crashes)
            if wait is None:
                return
            if wait > 0:
                self._wait(wait)

    def _step(self) -> float | None:
        """One pass: seconds to wait before the next (0: go on at once), None: stop (--once)."""
        # Draining a backlog, the config is read again and the status written at most every
        # BUSY_REFRESH_S (each was a few percent of the time per batch); otherwise every pass.
        if not self.busy or time.monotonic() - self.last_reload >= BUSY_REFRESH_S:
            self.last_reload = time.monotonic()
            self._reload()
        self.busy = False
        if self.config_problem or not config.trace_on(self.cfg):
            self._trace_off(self.config_problem)
            return None if self.once else float(self.cfg["daemon"]["rescan_s"])
        self._clear_problem("config")
        self._check_size()
        self._sweep()
        now = time.time()
        if now < self.next_try:
            self._save_status()
            return min(self.next_try - now, float(self.cfg["daemon"]["rescan_s"]))
        limit = max(1, int(self.cfg["daemon"]["batch_size"]))
        if len(self.inflight) < limit:
            # Empty, or what is left of a batch that failed: fill it up, so a record that fails
            # alone is retried beside others and can be told apart from a sink that is down.
            spool.pin(self.home)
            try:
                self._claim_batch()
            finally:
                spool.unpin()
        if not self.inflight:
            self._save_status()
            if self.once:
                return None
            if self.observer is None:
                self._watching(True)
                if spool.oldest(self.home, 1):
                    return 0  # queued while the watcher was starting: no event will come
            return float(self.cfg["daemon"]["rescan_s"])
        self._watching(False)
        spool.pin(self.home)
        try:
            self._send()
        finally:
            spool.unpin()
        self.busy = True
        if time.monotonic() - self.last_save >= BUSY_REFRESH_S or self.inflight:
            self._save_status()
        return 0

    def _trace_off(self, why: str | None) -> None:
        """Tracing turned off, or a config that cannot be used: nothing more leaves. Queued
        records wait in spool/held/ until the user releases them."""
        self._drop_prepared()
        self.inflight = []
        if self.acker is not None:
            self.acker.flush()  # what was delivered is deleted, not held
        self.owned.clear()  # everything left goes to held/; released, it is listed afresh
        held = spool.hold_all(self.home)
        reason = why or "trace is off"
        if held:
            log.write(self.home, "daemon.log", f"{reason}: moved {held} queued record(s) to spool/held")
        if why:  # config.settings' one line, as status and doctor give it
            self._problem("held", f"{why} (then `jevlin-hooks spool release-held`)", "config")
        else:
            self._clear_problem("config")
        self.st["trace"] = "off"
        self._save_status()

    def _key(self) -> bytes | None:
        try:
            key = ids.load_key(self.home)
        except (ids.KeyError_, OSError) as exc:
            self._problem("held", f"cannot use the local key: {_one_line(exc)}", "key")
            return None
        if key is None:
            self._problem("held", f"no local key and cannot create one in {os.path.join(self.home, 'state')}", "key")
        else:
            self._clear_problem("key")
        return key

    def _claim_batch(self) -> None:
        dcfg = self.cfg["daemon"]
        limit = max(1, int(dcfg["batch_size"]))
        budget = max(1024, int(dcfg["batch_bytes"]))
        key = self._key()
        if key is None:
            self.next_try = time.time() + self._backoff(self.failures + 1)
            self.failures += 1
            if self.once:
                self.failed_once = self.st["problem"]["message"]
                self.stop.set()
            return
        if not self.quarantine_checked:  # once per start: entries an older version kept raw
            self.quarantine_checked = True
            try:
                n = quarantine.migrate(self.home, key, tuple(self.cfg["privacy"]["disabled_rules"]))
            except OSError as exc:  # a full disk must not stop delivery: tried again at the next start
                n = 0
                log.write(self.home, "daemon.log", f"quarantine: cannot convert older raw entries yet ({exc.strerror})")
            if n:
                log.write(self.home, "daemon.log", f"quarantine: {n} raw entr{'y' if n == 1 else 'ies'} of an older "
                                                   "version made safe or sealed")
        local = self.cfg["ship"]["sink"] == "local" and bool(self.cfg["privacy"].get("local_results", True))
        settings = prepare.Settings(key, tuple(self.cfg["privacy"]["disabled_rules"]), local)
        if settings != self.prep_settings:  # a new key or rule set: what was prepared under the old one goes back
            self._drop_prepared()
            self.prep_settings = settings
        size = 0
        if not self.backlog:
            owned = self.owned
            # Each listing reads the whole directory: for a deep queue take a bigger share of it at
            # once (a quarter of what the last listing saw, up to LISTING_MAX names), so draining
            # N records lists the directory a bounded number of times instead of N / (20 batches).
            want = min(max(limit * 20, prepare.MIN_BACKLOG, self.depth // 4), LISTING_MAX) + len(owned)
            listed, self.depth = spool.oldest_counted(self.home, want)
            self.backlog = [n for n in listed if n not in owned]
            self.backlog.reverse()  # pop() from the end = oldest first
        while len(self.inflight) < limit:
            item = self._next_item(settings)
            if item is None:
                break
            if item.safe is None:
                if item.reason is not None:
                    self._quarantine_item(item, key)
                elif item.error is None:  # gone (deleted or moved by someone else): nothing to send
                    self.owned.discard(item.name)
                # else unreadable now (EIO, EACCES): it stays queued and owned, tried after the next start
                continue
            if self.inflight and size + item.size > budget:
                self.prepared.appendleft(item)  # next batch
                break
            self.inflight.append((item.name, item.safe))
            size += item.size
        self._feed()  # the workers prepare the next chunks while this batch is sent
        self.st["trace"] = "on"

    # --- preparing records: inline, or in worker processes while a backlog lasts (prepare.py) ---

    def _next_item(self, settings: prepare.Settings) -> prepare.Item | None:
        while True:
            if self.prepared:
                return self.prepared.popleft()
            if self.pool is None and not self.pool_failed and len(self.backlog) >= prepare.MIN_BACKLOG \
                    and prepare.worker_count() > 0 and not self.claimed:
                self._start_pool(settings)
            if self.pool is not None:
                self._feed()
                if not self.pool.order:  # drained: workers are for backlogs
                    self._close_pool()
                    continue
                if self.backlog and not self.pool.ready():
                    # rather than wait for a worker, prepare one here: the daemon's own core is
                    # used too (a record may go out a little before an older one; order is a hint)
                    return self._prepare_here(settings)
                try:
                    self.prepared.extend(self.pool.take(self.stop))
                except prepare.Stopped:
                    return None  # SIGTERM: the batch so far is sent or given back, as the loop decides
                except Exception as exc:  # noqa: BLE001 - a dead or broken worker: inline from here on
                    self._pool_broke(exc)
                continue
            return self._prepare_here(settings)

    def _prepare_here(self, settings: prepare.Settings) -> prepare.Item | None:
        if self.claimed:
            name = self.claimed.popleft()
        elif self.backlog:
            name = self.backlog.pop()
            self.owned.add(name)
        else:
            return None
        return prepare.prepare_named(self.home, name, settings)

    def _start_pool(self, settings: prepare.Settings) -> None:
        try:
            self.pool = prepare.Pool(self.home, settings, prepare.worker_count())
            log.write(self.home, "daemon.log", f"{len(self.backlog)} or more records queued: preparing them in "
                                               f"{len(self.pool.workers)} worker process(es) beside the daemon")
        except Exception as exc:  # noqa: BLE001 - no workers (no fork, no memory): inline is the same work
            self.pool_failed = True
            self._log_traceback("workers", exc, f"cannot start worker processes ({_one_line(exc)}); "
                                                "preparing records in the daemon itself")

    def _feed(self) -> None:
        pool = self.pool
        if pool is None:
            return
        while pool.room() > 0 and self.backlog:
            names = self.backlog[-prepare.CHUNK:]
            names.reverse()
            del self.backlog[-prepare.CHUNK:]
            self.owned.update(names)
            try:
                pool.submit(names)
            except Exception as exc:  # noqa: BLE001 - a dead worker: this chunk is prepared here
                self.claimed.extend(names)
                self._pool_broke(exc)
                return

    def _pool_broke(self, exc: BaseException) -> None:
        """A worker died, hung or answered garbage: what it held is prepared here instead."""
        assert self.pool is not None
        self.claimed.extend(self.pool.outstanding())
        self._close_pool()
        self.pool_failed = True
        log.write(self.home, "daemon.log", f"a worker process failed ({type(exc).__name__}); its "
                                           f"{len(self.claimed)} record(s) and the rest are prepared in the daemon")

    def _close_pool(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def _drop_prepared(self) -> None:
        """Give back what was listed, prepared or handed to a worker and not sent yet: it is still
        in new/, and the next listing finds it again."""
        names = [it.name for it in self.prepared] + list(self.claimed)
        if self.pool is not None:
            names += self.pool.outstanding()
            self._close_pool()
        self.prepared.clear()
        self.claimed.clear()
        self.backlog = []
        self.owned.difference_update(names)

    def _quarantine_item(self, item: prepare.Item, key: bytes) -> None:
        assert item.reason is not None
        if item.error is not None and item.frames is not None:
            self._log_frames("make_safe", item.error, item.frames, f"{item.error} while making a record safe")
        try:
            raw = spool.read(self.home, "new", item.name)
        except OSError:
            return  # unreadable now: left alone (still owned) until the next start
        self._quarantine_raw(item.name, raw, item.reason, key)

    def _quarantine_raw(self, name: str, raw: bytes, reason: str, key: bytes) -> None:
        try:
            quarantine.put_sealed(self.home, name, raw, reason, key)
            spool.ack(self.home, [name])
        except OSError as exc:  # a full disk: the record stays queued, tried again later
            self._problem("failing", f"cannot write spool/quarantine: {exc.strerror or exc}")
            return
        finally:
            self.owned.discard(name)
        self.st["quarantined_total"] = self.st.get("quarantined_total", 0) + 1

    def _quarantine_safe(self, name: str, safe: dict[str, Any], reason: str) -> bool:
        try:
            quarantine.put_safe(self.home, name, safe, reason)
            spool.ack(self.home, [name])
        except OSError as exc:  # stays in flight, retried with the next batch
            self._problem("failing", f"cannot write spool/quarantine: {exc.strerror or exc}")
            return False
        self.owned.discard(name)
        self.st["quarantined_total"] = self.st.get("quarantined_total", 0) + 1
        return True

    def _call(self, records: list[dict[str, Any]]) -> Result:
        """One sink call, guarded: an exception is logged and reported as a refusal of the batch
        (split), so a record the sink cannot handle is found and set aside alone."""
        sink = self._open_sink()
        self.sending = True
        try:
            if self.stop.is_set():
                raise _Abort()
            return sink.send(records)
        except Exception as exc:  # noqa: BLE001 - a sink bug must not kill delivery of the rest
            msg = f"{type(exc).__name__} in sink {sink.name}"
            self._log_traceback(f"sink {sink.name}", exc, msg)
            return Result(split=True, error=f"{msg} (see logs/daemon.log)")
        finally:
            self.sending = False

    def _deliver(self, records: list[dict[str, Any]], suspects: dict[str, str]) -> Result:
        """Send, splitting a refused batch in halves down to single records. A single record
        refused on its own lands in ``suspects``; the caller decides whether that is the record
        (others went through) or the server (nothing went through)."""
        r = self._call(records)
        if not r.split:
            return r
        if len(records) == 1:
            suspects[records[0]["record_id"]] = r.error or "refused"
            return Result(rejected=r.rejected)
        mid = len(records) // 2
        a = self._deliver(records[:mid], suspects)
        if a.retry:
            a.rejected.update(r.rejected)
            return a
        b = self._deliver(records[mid:], suspects)
        b.accepted = a.accepted + b.accepted
        b.rejected = {**r.rejected, **a.rejected, **b.rejected}
        return b

    def _send(self) -> None:
        sink = self._open_sink()
        records = [r for _, r in self.inflight]
        suspects: dict[str, str] = {}
        result = self._deliver(records, suspects)
        by_id = {r["record_id"]: name for name, r in self.inflight}
        safe_by_id = {r["record_id"]: r for _, r in self.inflight}
        if suspects:
            if result.accepted:  # others went through: these records are the problem
                result.rejected.update(suspects)
            elif not result.retry:  # nothing went through: the sink or server, not the records
                only = next(iter(suspects.values()))
                result = Result(retry=True, error=f"{only} (every record refused, one by one)",
                                rejected=result.rejected)
        quarantined = 0
        for rid, reason in result.rejected.items():
            if rid in by_id and self._quarantine_safe(by_id[rid], safe_by_id[rid], f"{sink.name}: {reason}"):
                quarantined += 1
            elif rid in by_id:
                result.rejected = {k: v for k, v in result.rejected.items() if k != rid}
        if quarantined:
            log.write(self.home, "daemon.log", f"quarantined {quarantined} record(s) the {sink.name} sink refused "
                                               "(`jevlin-hooks quarantine list`)")
        done = [by_id[rid] for rid in result.accepted if rid in by_id]
        if self.acker is not None:
            self.acker.ack(done)  # deleted in the background: the next batch need not wait on the disk
        else:
            spool.ack(self.home, done)
            self.owned.difference_update(done)
        if done:
            status_file.count_delivered(self.st, len(done))
            self.st["last_success"] = time.time()
        if result.note:
            self.st["last_note"] = result.note
        handled = set(done) | {by_id[r] for r in result.rejected if r in by_id}
        self.inflight = [(n, r) for n, r in self.inflight if n not in handled]
        if result.retry:
            self.failures += 1
            if self.failures == 1:
                self._check_size(force=True)  # the queue may grow from here: is it at its cap?
            delay = self._backoff(self.failures)
            if result.retry_after is not None or result.hold:
                # the server's word, or a config problem (which no retry within a second fixes)
                delay = max(result.retry_after or 0.0, delay, MIN_RETRY_AFTER_S)
            self.next_try = time.time() + delay
            self.st["last_error"] = result.hold or result.error
            self.st["last_error_at"] = time.time()
            self.st["next_retry"] = self.next_try
            if result.hold:
                self._problem("held", result.hold + "; nothing is quarantined, everything goes out once it is fixed")
            else:
                self._problem("failing", result.error or "delivery failed")
            if self.once:  # one pass only: what failed stays queued for the next run
                self.failed_once = (f"held: {result.hold}" if result.hold else result.error) or "delivery failed"
                self.stop.set()
        else:
            if result.error:
                self.st["last_error"] = result.error
                self.st["last_error_at"] = time.time()
            self._clear_problem()
            self.failures = 0
            self.next_try = 0.0
            self.st["next_retry"] = None

    def _sweep(self) -> None:
        """Close what crashed agents left open: a session with a turn or call still open and no
        event for `abandon_after_s` ends as abandoned (its records queued like any other).
        Only sessions in the open index are looked at; retention runs here too, hourly."""
        now = time.time()
        if now - self.last_sweep < 600 and not (self.once and self.last_sweep == 0):
            return
        self.last_sweep = now
        from jevlin_hooks import harnesses
        from jevlin_hooks.capture import engine, lineage

        try:
            housekeeping.build_open_index(self.home)
        except OSError as exc:
            log.write(self.home, "daemon.log", f"open-session index: {type(exc).__name__}")
        max_age = float(self.cfg["daemon"]["abandon_after_s"])

        def close(name: str, state: State) -> bool:
            try:
                return self._close_abandoned(state, engine, lineage, harnesses, max_age)
            except Exception as exc:  # noqa: BLE001 - one broken session must not stop the sweep
                self._log_traceback("sweep", exc, f"{type(exc).__name__} closing an abandoned session; skipped")
                return False

        housekeeping.sweep_abandoned(self.home, now, max_age, close)
        if now - self.last_retention >= 3600 or (self.once and self.last_retention == 0):
            self.last_retention = now
            try:
                housekeeping.retention(self.home, float(self.cfg["retention"]["days"]), now)
            except OSError as exc:
                log.write(self.home, "daemon.log", f"retention: {type(exc).__name__}")

    def _close_abandoned(self, state: State, engine: Any, lineage: Any, harnesses: Any,
                         max_age: float) -> bool:
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
        log.write(self.home, "daemon.log", f"closed an abandoned {harness} session")
        return True

    def _check_size(self, force: bool = False) -> None:
        """The spool's size against its cap, every SIZE_CHECK_S: over it, state/spool_full tells
        the hooks to stop queueing. The cap is for a queue that grows while delivery fails, so
        at start the first check waits for the first failure or SIZE_CHECK_S (a stat of each of
        10,000 queued files is 30-50 ms, a tenth of a drain's start-up), unless a flag from
        before must be judged again."""
        now = time.time()
        flag = os.path.join(self.home, "state", SPOOL_FULL_FLAG)
        if not force:
            if not self.last_size_check and not os.path.exists(flag):
                self.last_size_check = now  # the first check, deferred
                return
            if now - self.last_size_check < SIZE_CHECK_S:
                return
        self.last_size_check = now
        cap = float(self.cfg["spool"]["max_mb"]) * 1024 * 1024
        size = spool.size_bytes(self.home)
        self.st["spool_bytes"] = size
        try:
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
        except OSError:
            pass  # a full disk: the flag is written at the next check

    def _save_status(self) -> None:
        self.last_save = time.monotonic()
        self.st["in_flight"] = len(self.inflight)
        self.st["updated"] = time.time()
        status_file.save(self.home, self.st)


def _one_line(exc: BaseException) -> str:
    """An exception as one line for status: OS errors and our own errors carry no record data."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror}{where}"
    if isinstance(exc, (config.ConfigError, ids.KeyError_)):
        return str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
    return f"unexpected {type(exc).__name__} (see logs/daemon.log)"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    once = "--once" in args
    return Daemon(paths.home(), once=once).run()


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]:
        sys.exit(main(sys.argv[2:]))
    sys.exit(main())
