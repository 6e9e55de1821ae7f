"""The daemon's deliverer: send a batch of safe records, split what the sink refuses as a whole,
quarantine what it refuses for good, acknowledge what it accepted, and keep the retry clock.

The batch in flight (``inflight``: spool name and safe record) stays until the sink answered for
each record: accepted (handed to the acker, which deletes it), rejected (quarantined in safe
form), or not answered (retried with backoff, beside the next records, so a record that fails
alone can be told apart from a sink that is down). Retries wait in monotonic time: the wall
clock stepping back or forth does not move them.

While a request is in flight, the status file says so (``sending``: since when, how many
records, the sink's answer deadline), so `status` shows a collector that is slow to answer.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from jevlin_hooks.base import config, spool
from jevlin_hooks.ship import daemon_state, prepare, quarantine
from jevlin_hooks.ship.acker import Acker
from jevlin_hooks.ship.report import Report
from jevlin_hooks.ship.sinks import MIN_RETRY_AFTER_S, Result, Sink
from jevlin_hooks.ship.sinks.configured import from_config

BACKOFF_BASE_S = 1.0
MIN_DELAY_S = 0.1  # whatever the config says, a failing loop never spins
SHOW_EVERY_S = 0.5  # while draining, the status file shows the send in flight at most this stale


class Aborted(BaseException):
    """Raised by SIGTERM inside a sink call: the batch stays queued for the next start."""


class Deliverer:
    def __init__(self, home: str, report: Report, stop: threading.Event, release: Callable[[str], None]) -> None:
        self.home = home
        self.report = report
        self.stop = stop
        self.release = release  # the name is no longer ours to send (acknowledged or quarantined)
        self.cfg: dict[str, Any] = config.defaults()
        self.sink: Sink | None = None
        self.sink_key: tuple[Any, ...] | None = None
        self.inflight: list[tuple[str, dict[str, Any]]] = []
        self.failures = 0
        self.next_try = 0.0  # time.monotonic() of the next attempt; 0: now
        self.sending = False
        self.failed_once: str | None = None  # --once: why the pass failed
        self.acker: Acker | None = None
        self.on_first_failure: Callable[[], None] = lambda: None

    # --- the sink ---------------------------------------------------------------------------

    def configure(self, cfg: dict[str, Any]) -> None:
        """A usable config: the sink is made again (at its next use) when its settings changed."""
        self.cfg = cfg
        ship = cfg["ship"]
        key = (ship["sink"], ship["endpoint"], ship["api_key"], os.environ.get("JEVLIN_API_KEY"),
               tuple(sorted((ship.get("headers") or {}).items())), ship.get("otlp_protocol"),
               ship.get("timeout_s"), cfg["miner"]["turn_end"])
        self.report.st["sink"] = ship["sink"]
        if key != self.sink_key:
            self.close_sink()
            self.sink_key = key
            # A changed config is the usual fix for a held queue: try it at once.
            self.next_try = 0.0
            self.failures = 0

    def open_sink(self) -> Sink:
        """The configured sink, made when the first batch is ready: an HTTP sink's client
        (importing httpx; for an https:// endpoint, loading the CA bundle: 50 ms) is then
        built while the worker processes of a backlog start, rather than before them."""
        if self.sink is None:
            self.sink = from_config(self.cfg, self.home)
        return self.sink

    def close_sink(self) -> None:
        if self.sink is not None:
            self.sink.close()
        self.sink = None

    def start(self) -> None:
        self.acker = Acker(self.home, gone=self.release)

    def close(self) -> None:
        if self.acker is not None:
            self.acker.close()  # every acknowledged record deleted before anything goes back
        self.close_sink()
        self.inflight = []  # not sent, or not acknowledged: still in new/, waiting again

    def flush(self) -> None:
        """What was acknowledged is deleted (before the rest of the queue is held)."""
        if self.acker is not None:
            self.acker.flush()

    # --- the retry clock ---------------------------------------------------------------------

    def backoff(self, n: int) -> float:
        delay: float = min(self.cfg["daemon"]["backoff_max_s"], BACKOFF_BASE_S * 2 ** min(n - 1, 20))
        return max(MIN_DELAY_S, delay * random.uniform(0.5, 1.0))

    def wait_left(self) -> float:
        """Seconds until the next attempt (0: now)."""
        return max(0.0, self.next_try - time.monotonic())

    def retry_in(self, delay: float) -> None:
        self.next_try = time.monotonic() + delay
        self.report.st["next_retry"] = time.time() + delay  # shown as "next retry in", not waited on

    def defer(self, once: bool) -> None:
        """Nothing can be sent now (no usable key): back off as for a failed send."""
        self.failures += 1
        self.retry_in(self.backoff(self.failures))
        if once:
            self.failed_once = self.report.problem_message()
            self.stop.set()

    # --- quarantine -----------------------------------------------------------------------------

    def quarantine_item(self, item: prepare.Item, key: bytes) -> None:
        """A record that cannot be made safe: its raw bytes sealed under the local key."""
        assert item.reason is not None
        if item.error is not None and item.frames is not None:
            self.report.frames("make_safe", item.error, item.frames, f"{item.error} while making a record safe")
        try:
            raw = spool.read(self.home, "new", item.name)
        except OSError:
            return  # unreadable now: left alone (still owned) until the next start
        try:
            quarantine.put_sealed(self.home, item.name, raw, item.reason, key)
            spool.ack(self.home, [item.name])
        except OSError as exc:  # a full disk, no cryptography: the record stays queued, tried again later
            # (a problem of its own: a later send that works does not make it go from `status`)
            self.report.problem("failing", f"cannot write spool/quarantine: {exc.strerror or exc}", "quarantine")
            return
        finally:
            self.release(item.name)
        self.report.clear_problem("quarantine")
        self._count_quarantined()

    def _quarantine_safe(self, name: str, safe: dict[str, Any], reason: str) -> bool:
        try:
            quarantine.put_safe(self.home, name, safe, reason)
            spool.ack(self.home, [name])
        except OSError as exc:  # stays in flight, retried with the next batch
            self.report.problem("failing", f"cannot write spool/quarantine: {exc.strerror or exc}")
            return False
        self.release(name)
        self._count_quarantined()
        return True

    def _count_quarantined(self) -> None:
        self.report.st["quarantined_total"] = self.report.st.get("quarantined_total", 0) + 1

    # --- sending --------------------------------------------------------------------------------

    def _call(self, records: list[dict[str, Any]]) -> Result:
        """One sink call, guarded: an exception is logged and reported as a refusal of the batch
        (split), so a record the sink cannot handle is found and set aside alone."""
        sink = self.open_sink()
        self._show_sending(sink, len(records))
        self.sending = True
        try:
            if self.stop.is_set():
                raise Aborted()
            return sink.send(records)
        except Exception as exc:  # noqa: BLE001 - a sink bug must not kill delivery of the rest
            msg = f"{type(exc).__name__} in sink {sink.name}"
            self.report.traceback(f"sink {sink.name}", exc, msg)
            return Result(split=True, error=f"{msg} (see logs/daemon.log)")
        finally:
            self.sending = False

    def _show_sending(self, sink: Sink, n: int) -> None:
        """Written before the request unless the file already shows a send from under SHOW_EVERY_S
        ago (a drain sends many batches a second): a hung request is always visible. The
        scheduler takes it off (``sent``) once nothing is in flight."""
        shown = isinstance(self.report.st.get("sending"), dict)
        self.report.st["sending"] = {"since": time.time(), "records": n, "sink": sink.name,
                                     "deadline_s": getattr(sink, "timeout_s", None)}
        self.report.st["in_flight"] = len(self.inflight)
        if not shown or self.report.since_save() >= SHOW_EVERY_S:
            self.report.save(force=True)

    def sent(self) -> None:
        """Nothing in flight any more: the status file stops showing a send."""
        self.report.st.pop("sending", None)

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

    def send(self, once: bool) -> None:
        """Send what is in flight; what is not answered for stays in flight, retried later."""
        sink = self.open_sink()
        suspects: dict[str, str] = {}
        result = self._deliver([r for _, r in self.inflight], suspects)
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
        for rid, reason in list(result.rejected.items()):
            if rid in by_id and self._quarantine_safe(by_id[rid], safe_by_id[rid], f"{sink.name}: {reason}"):
                quarantined += 1
            elif rid in by_id:
                del result.rejected[rid]
        if quarantined:
            self.report.log(f"quarantined {quarantined} record(s) the {sink.name} sink refused "
                            "(`jevlin-hooks quarantine list`)")
        done = [by_id[rid] for rid in result.accepted if rid in by_id]
        if self.acker is not None:
            self.acker.ack(done)  # deleted in the background: the next batch need not wait on the disk
        else:
            spool.ack(self.home, done)
            for name in done:
                self.release(name)
        st = self.report.st
        if done:
            daemon_state.count_delivered(st, len(done))
            st["last_success"] = time.time()
        if result.note:
            st["last_note"] = result.note
        handled = set(done) | {by_id[r] for r in result.rejected if r in by_id}
        self.inflight = [(n, r) for n, r in self.inflight if n not in handled]
        if result.retry:
            self._failed(result, once)
        else:
            if result.error:
                st["last_error"] = result.error
                st["last_error_at"] = time.time()
            self.report.clear_problem()
            self.failures = 0
            self.next_try = 0.0
            st["next_retry"] = None

    def _failed(self, result: Result, once: bool) -> None:
        self.failures += 1
        if self.failures == 1:
            self.on_first_failure()  # the queue may grow from here: is it at its cap?
        delay = self.backoff(self.failures)
        if result.retry_after is not None or result.hold:
            # the server's word, or a config problem (which no retry within a second fixes)
            delay = max(result.retry_after or 0.0, delay, MIN_RETRY_AFTER_S)
        self.retry_in(delay)
        st = self.report.st
        st["last_error"] = result.hold or result.error
        st["last_error_at"] = time.time()
        if result.hold:
            self.report.problem("held", result.hold + "; nothing is quarantined, everything goes out once it is fixed")
        else:
            self.report.problem("failing", result.error or "delivery failed")
        if once:  # one pass only: what failed stays queued for the next run
            self.failed_once = (f"held: {result.hold}" if result.hold else result.error) or "delivery failed"
            self.stop.set()
