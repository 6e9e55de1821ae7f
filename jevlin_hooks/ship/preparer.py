"""The daemon's preparer: claim queued records and make them safe (scrub, hash), inline or in
worker processes while a backlog lasts (ship/prepare.py), and hand them over as a batch.

Being the only reader, the daemon reads a record where it is, in ``spool/new``, and deletes it
only after its sink acknowledged it. The names it is working on are kept in ``owned`` (listed,
in a worker's hands, prepared, in flight, or acknowledged and waiting for the acker's unlink),
so a new listing of ``new/`` skips them; ``release`` gives a name up once it is gone.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from jevlin_hooks.base import config, spool
from jevlin_hooks.privacy import ids
from jevlin_hooks.ship import prepare
from jevlin_hooks.ship.report import Report, one_line

LISTING_MAX = 20_000  # names held at once (under 2 MB)


class Preparer:
    def __init__(self, home: str, report: Report, stop: threading.Event) -> None:
        self.home = home
        self.report = report
        self.stop = stop
        self.backlog: list[str] = []  # oldest-first names listed once, taken over several batches
        self.owned: set[str] = set()
        self.depth = 0  # records in new/ at the last listing
        self.claimed: deque[str] = deque()  # owned, not prepared yet: a failed pool's chunks
        self.prepared: deque[prepare.Item] = deque()  # owned and prepared, not in a batch yet
        self.pool: prepare.Pool | None = None  # workers, while a backlog lasts
        self.pool_failed = False  # once a pool failed, this run prepares inline
        self.current: prepare.Settings | None = None
        self.workers = 0  # [daemon] workers

    def release(self, name: str) -> None:
        self.owned.discard(name)

    def key(self) -> bytes | None:
        """The local key, or None with the problem reported (delivery is held until it is fixed)."""
        try:
            key = ids.load_key(self.home)
        except (ids.KeyError_, OSError) as exc:
            self.report.problem("held", f"cannot use the local key: {one_line(exc)}", "key")
            return None
        if key is None:
            self.report.problem("held", f"no local key and cannot create one in {os.path.join(self.home, 'state')}",
                                "key")
        else:
            self.report.clear_problem("key")
        return key

    def settings(self, cfg: dict[str, Any], key: bytes) -> prepare.Settings:
        """What a record is made safe with; a new key or rule set gives back what was prepared
        under the old one."""
        self.workers = int(cfg["daemon"].get("workers", 0))
        local = cfg["ship"]["sink"] == "local" and bool(cfg["privacy"].get("local_results", True))
        s = prepare.Settings(key, config.disabled_rules(cfg), local)
        if s != self.current:
            self.give_back()
            self.current = s
        return s

    def fill(self, batch: list[tuple[str, dict[str, Any]]], limit: int, budget: int, s: prepare.Settings,
             quarantine: Callable[[prepare.Item], None]) -> None:
        """Add prepared records to ``batch`` up to ``limit`` records or ``budget`` bytes; a record
        that cannot be made safe goes to ``quarantine``."""
        if not self.backlog:
            owned = self.owned
            # Each listing reads the whole directory: for a deep queue take a bigger share of it at
            # once (a quarter of what the last listing saw, up to LISTING_MAX names), so draining
            # N records lists the directory a bounded number of times instead of N / (20 batches).
            want = min(max(limit * 20, prepare.MIN_BACKLOG, self.depth // 4), LISTING_MAX) + len(owned)
            listed, self.depth = spool.oldest_counted(self.home, want)
            self.backlog = [n for n in listed if n not in owned]
            self.backlog.reverse()  # pop() from the end = oldest first
        size = 0
        while len(batch) < limit:
            item = self._next_item(s)
            if item is None:
                break
            if item.safe is None:
                if item.reason is not None:
                    quarantine(item)
                elif item.error is None:  # gone (deleted or moved by someone else): nothing to send
                    self.owned.discard(item.name)
                # else unreadable now (EIO, EACCES): it stays queued and owned, tried after the next start
                continue
            if batch and size + item.size > budget:
                self.prepared.appendleft(item)  # next batch
                break
            batch.append((item.name, item.safe))
            size += item.size
        self._feed()  # the workers prepare the next chunks while this batch is sent

    def _next_item(self, s: prepare.Settings) -> prepare.Item | None:
        while True:
            if self.prepared:
                return self.prepared.popleft()
            if self.pool is None and not self.pool_failed and len(self.backlog) >= prepare.MIN_BACKLOG \
                    and prepare.worker_count(self.workers) > 0 and not self.claimed:
                self._start_pool(s)
            if self.pool is not None:
                self._feed()
                if not self.pool.order:  # drained: workers are for backlogs
                    self._close_pool()
                    continue
                if self.backlog and not self.pool.ready():
                    # rather than wait for a worker, prepare one here: the daemon's own core is
                    # used too (a record may go out a little before an older one; order is a hint)
                    return self._prepare_here(s)
                try:
                    self.prepared.extend(self.pool.take(self.stop, self._slow_worker))
                except prepare.Stopped:
                    return None  # SIGTERM: the batch so far is sent or given back, as the loop decides
                except Exception as exc:  # noqa: BLE001 - a dead or broken worker: inline from here on
                    self._pool_broke(exc)
                finally:
                    self.report.st.pop("waiting", None)
                continue
            return self._prepare_here(s)

    def _slow_worker(self, pid: int, waited: float) -> None:
        """Waiting on a worker's answer for a while: `status` shows it (a hung worker is given up
        on after prepare.ANSWER_TIMEOUT_S)."""
        self.report.st["waiting"] = {"on": "worker", "pid": pid, "since": time.time() - waited,
                                     "gives_up_s": prepare.ANSWER_TIMEOUT_S}
        self.report.save()

    def _prepare_here(self, s: prepare.Settings) -> prepare.Item | None:
        """A chunk prepared here (its records scrubbed together); the first of it, the rest
        kept in ``prepared``."""
        names: list[str] = []
        while self.claimed and len(names) < prepare.CHUNK:
            names.append(self.claimed.popleft())
        if not names and self.backlog:
            names = self.backlog[-prepare.CHUNK:]
            names.reverse()
            del self.backlog[-prepare.CHUNK:]
            self.owned.update(names)
        if not names:
            return None
        items = prepare.prepare_chunk(self.home, names, s)
        self.prepared.extend(items[1:])
        return items[0]

    def _start_pool(self, s: prepare.Settings) -> None:
        try:
            self.pool = prepare.Pool(self.home, s, prepare.worker_count(self.workers))
            self.report.log(f"{len(self.backlog)} or more records queued: preparing them in "
                            f"{len(self.pool.workers)} worker process(es) beside the daemon")
        except Exception as exc:  # noqa: BLE001 - no workers (no fork, no memory): inline is the same work
            self.pool_failed = True
            self.report.traceback("workers", exc, f"cannot start worker processes ({one_line(exc)}); "
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
        self.report.log(f"a worker process failed ({type(exc).__name__}); its {len(self.claimed)} record(s) "
                        "and the rest are prepared in the daemon")

    def _close_pool(self, kill: bool = False) -> None:
        if self.pool is not None:
            self.pool.close(kill)
            self.pool = None

    def give_back(self, kill: bool = False) -> None:
        """Give back what was listed, prepared or handed to a worker and not sent yet: it is still
        in new/, and the next listing finds it again. ``kill``: the daemon is stopping, its
        workers are killed rather than waited for."""
        names = [it.name for it in self.prepared] + list(self.claimed)
        if self.pool is not None:
            names += self.pool.outstanding()
            self._close_pool(kill)
        self.prepared.clear()
        self.claimed.clear()
        self.backlog = []
        self.owned.difference_update(names)
