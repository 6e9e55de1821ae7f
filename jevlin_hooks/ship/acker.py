"""Deleting acknowledged records off the daemon's main thread.

An unlink costs 75-85 us of wall time on an ext4 VM disk (25 us of it CPU), as much as making
a record safe: done in line, deletes were a third of a backlog's drain, and one thread alone
fell behind (the daemon then waited 0.4 s at the end of 10,000 records). The main thread need
not wait: a record is acknowledged the moment the sink said so, and deleting it is bookkeeping.
So the deletes run in THREADS threads of their own, each taking a share of every batch (the
GIL is free during the system calls, and unlinks in one directory overlap: four threads took
35 us each), while the main thread reads and makes safe the next batch. A record acknowledged
but not yet deleted when the daemon dies, or whose delete a power cut undid, is sent again
after the next start, which ``record_id`` makes harmless; nothing is lost either way. Each
thread opens its own descriptor for ``spool/new`` (never the main thread's pinned ones, which
are closed and reused under it). ``gone`` is told each name once it is deleted: until then the
daemon must not list it as waiting. A name that cannot be deleted is never reported: this run
does not send it again (the next start does, which is harmless).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable

from jevlin_hooks.base import log, paths

THREADS = 3  # unlinks in one directory overlap: 77 us each alone, 35 us with four threads (ext4)


class Acker:
    def __init__(self, home: str, gone: Callable[[str], None] = lambda name: None, threads: int = THREADS) -> None:
        self.home = home
        self.gone = gone
        self.queues: list[queue.SimpleQueue[list[str] | threading.Event | None]] = []
        self.threads: list[threading.Thread] = []
        for i in range(max(1, threads)):
            q: queue.SimpleQueue[list[str] | threading.Event | None] = queue.SimpleQueue()
            t = threading.Thread(target=self._run, args=(q,), name=f"jevlin-acker-{i}", daemon=True)
            t.start()
            self.queues.append(q)
            self.threads.append(t)

    def ack(self, names: list[str]) -> None:
        """These were acknowledged: delete them soon (each thread takes its share, in order)."""
        n = len(self.queues)
        for i, q in enumerate(self.queues):
            share = names[i::n]
            if share:
                q.put(share)

    def flush(self) -> None:
        """Return once every name handed over so far is deleted (or found gone)."""
        for q, t in zip(self.queues, self.threads, strict=True):
            if not t.is_alive():
                continue
            done = threading.Event()
            q.put(done)
            while not done.wait(1.0):
                if not t.is_alive():
                    break

    def close(self, timeout: float = 30.0) -> None:
        """Finish what was handed over; on a disk that hangs, give up after ``timeout`` (what is
        left in new/ is sent again after the next start)."""
        deadline = time.monotonic() + timeout
        for q, t in zip(self.queues, self.threads, strict=True):
            if t.is_alive():
                q.put(None)
        for t in self.threads:
            t.join(max(0.0, deadline - time.monotonic()))

    def _run(self, jobs: queue.SimpleQueue[list[str] | threading.Event | None]) -> None:
        dfd: int | None = None
        try:
            while True:
                job = jobs.get()
                if job is None:
                    return
                if isinstance(job, threading.Event):
                    job.set()
                    continue
                try:
                    if dfd is None:
                        dfd = paths.open_dir(self.home, "spool", "new")
                    for name in job:
                        try:
                            os.unlink(name, dir_fd=dfd)
                        except FileNotFoundError:
                            pass
                        self.gone(name)
                    # no fsync of the directory: a delete lost to a power cut brings back a record
                    # that was delivered, and sending it again is harmless (record_id)
                except OSError as exc:  # left in new/: sent again after a restart
                    log.write(self.home, "daemon.log", f"could not delete {len(job)} delivered record(s): "
                              f"{exc.strerror or type(exc).__name__}; they may be sent again")
        finally:
            if dfd is not None:
                os.close(dfd)
