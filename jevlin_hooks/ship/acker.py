"""Deleting acknowledged records off the daemon's main thread.

On a busy disk an unlink waits on the file system's journal (up to milliseconds each; the
fsync of the directory after a batch longer). The main thread need not wait: a record is
acknowledged the moment the sink said so, and deleting it is bookkeeping. So the deletes run in
a thread of their own (the GIL is free during the system calls) while the main thread claims,
reads and makes safe the next batch. A record acknowledged but not yet deleted when the
daemon dies is sent again after the next start, which ``record_id`` makes harmless; nothing is
lost either way. The thread opens its own descriptor for ``spool/new`` (never the main
thread's pinned ones, which are closed and reused under it). ``gone`` is told each name once it
is deleted: until then the daemon must not list it as waiting. A name that cannot be deleted is
never reported: this run does not send it again (the next start does, which is harmless).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable

from jevlin_hooks.base import log, paths


class Acker:
    def __init__(self, home: str, gone: Callable[[str], None] = lambda name: None) -> None:
        self.home = home
        self.gone = gone
        self.jobs: queue.SimpleQueue[list[str] | threading.Event | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="jevlin-acker", daemon=True)
        self.thread.start()

    def ack(self, names: list[str]) -> None:
        """These were acknowledged: delete them soon (in order, after any earlier batch)."""
        if names:
            self.jobs.put(list(names))

    def flush(self) -> None:
        """Return once every name handed over so far is deleted (or found gone)."""
        if not self.thread.is_alive():
            return
        done = threading.Event()
        self.jobs.put(done)
        while not done.wait(1.0):
            if not self.thread.is_alive():
                return

    def close(self, timeout: float = 30.0) -> None:
        """Finish what was handed over; on a disk that hangs, give up after ``timeout`` (what is
        left in new/ is sent again after the next start)."""
        if self.thread.is_alive():
            self.jobs.put(None)
            self.thread.join(timeout)

    def _run(self) -> None:
        dfd: int | None = None
        try:
            while True:
                job = self.jobs.get()
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
                    os.fsync(dfd)
                    for name in job:
                        self.gone(name)
                except OSError as exc:  # left in new/: sent again after a restart
                    log.write(self.home, "daemon.log", f"could not delete {len(job)} delivered record(s): "
                              f"{exc.strerror or type(exc).__name__}; they may be sent again")
        finally:
            if dfd is not None:
                os.close(dfd)
