"""What wakes a waiting daemon: a record arriving in ``spool/new``, or ``config.toml`` changing.

File system events (watchdog: inotify, FSEvents, kqueue) set ``wake``, so the daemon sleeps until
there is something to do; its periodic rescan (``[daemon] rescan_s``) is only the safety net for
events the system drops. The kernel is asked only for what matters: in ``new/``, a file created
or moved in (not the daemon's own reads and deletes there, which used to cost up to 40% of a
drain's throughput as events); in the home, a file created, moved in, or closed after a write
(the way config.toml changes; not the hooks reading it on every event, nor the local store's
writes to its open database). So one watcher runs for the daemon's life: started once, never
started again between batches, it can miss nothing in between.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from jevlin_hooks.base import config

OBSERVER_TIMEOUT_S = 30.0  # watchdog before 2.1.7 polls its event queue this often (later ones block)


class Watcher:
    def __init__(self, home: str, wake: threading.Event) -> None:
        self.home = home
        self.wake = wake
        self.observer: Any = None
        self.spool_events = True  # False while a backoff runs: a new record changes nothing then
        self.new_dir = os.path.join(home, "spool", "new")
        self.config_path = os.path.join(home, config.CONFIG_NAME)

    def start(self) -> None:
        """Raises OSError when the system refuses (an inotify watch limit): rescans still work."""
        if self.observer is not None:
            return
        from watchdog.events import FileClosedEvent, FileCreatedEvent, FileMovedEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                watcher._event(event)

        obs = Observer(timeout=OBSERVER_TIMEOUT_S)
        obs.daemon = True
        obs.schedule(Handler(), self.new_dir, recursive=False, event_filter=[FileCreatedEvent, FileMovedEvent])
        obs.schedule(Handler(), self.home, recursive=False,
                     event_filter=[FileCreatedEvent, FileMovedEvent, FileClosedEvent])
        obs.start()
        self.observer = obs

    def stop(self) -> None:
        if self.observer is not None:
            self.observer.stop()
            self.observer.join(timeout=2)
            self.observer = None

    def _event(self, event: Any) -> None:
        kind = getattr(event, "event_type", "")
        src = os.fsdecode(getattr(event, "src_path", "") or "")
        dest = os.fsdecode(getattr(event, "dest_path", "") or "")
        arrived = dest if kind == "moved" else src if kind == "created" else ""
        if arrived and os.path.dirname(arrived) == self.new_dir:  # into new/ (not out of it: ours)
            if self.spool_events:
                self.wake.set()
        elif self.config_path in (src, dest):
            self.wake.set()
