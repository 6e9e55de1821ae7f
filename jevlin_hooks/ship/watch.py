"""What wakes an idle daemon: a record arriving in ``spool/new``, or ``config.toml`` changing.

File system events (watchdog: inotify, FSEvents, kqueue) set ``wake``, so the daemon sleeps until
there is something to do; its periodic rescan (``[daemon] rescan_s``) is only the safety net for
events the system drops. Only what matters wakes it: a file created or moved into ``new/`` (not
the daemon's own deletes there, nor any file being opened or read), and a write, creation or
rename of ``config.toml`` in the home (not the hooks reading it on every event).

The watcher runs while the daemon waits (an empty queue, a backoff, tracing off) and is stopped
while it drains a backlog: each of its own deletes would raise one more event, which cost up to
40% of throughput.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from jevlin_hooks.base import config

OBSERVER_TIMEOUT_S = 30.0  # older watchdog versions poll their event queue this often (7.x blocks)


class Watcher:
    def __init__(self, home: str, wake: threading.Event) -> None:
        self.home = home
        self.wake = wake
        self.observer: Any = None
        self.spool_events = True  # False while a backoff runs: a new record changes nothing then
        self.new_dir = os.path.join(home, "spool", "new")
        self.config_path = os.path.join(home, config.CONFIG_NAME)

    @property
    def on(self) -> bool:
        return self.observer is not None

    def start(self) -> None:
        if self.observer is not None:
            return
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:  # pragma: no cover - watchdog is a dependency; rescans still work
            return
        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                watcher._event(event)

        obs = Observer(timeout=OBSERVER_TIMEOUT_S)
        obs.daemon = True
        kinds = _event_kinds()
        for path in (self.new_dir, self.home):
            try:
                obs.schedule(Handler(), path, recursive=False, event_filter=kinds)
            except TypeError:  # watchdog before 4.0: no event_filter (the handler filters the same)
                obs.schedule(Handler(), path, recursive=False)
        obs.start()
        self.observer = obs

    def stop(self) -> None:
        if self.observer is not None:
            self.observer.stop()
            self.observer.join(timeout=2)
            self.observer = None

    def _event(self, event: Any) -> None:
        kind = getattr(event, "event_type", "")
        if kind not in ("created", "moved", "modified", "closed"):
            return
        src = os.fsdecode(getattr(event, "src_path", "") or "")
        dest = os.fsdecode(getattr(event, "dest_path", "") or "")
        arrived = dest if kind == "moved" else src if kind == "created" else ""
        if arrived and os.path.dirname(arrived) == self.new_dir:  # into new/ (not out of it: ours)
            if self.spool_events:
                self.wake.set()
        elif self.config_path in (src, dest):
            self.wake.set()


def _event_kinds() -> list[Any] | None:
    """The kernel is asked only for creations, moves and writes (no open or read events: hooks
    read config.toml on every event)."""
    try:
        from watchdog import events as ev
    except ImportError:  # pragma: no cover
        return None
    names = ("FileCreatedEvent", "FileMovedEvent", "FileModifiedEvent", "FileClosedEvent")
    return [getattr(ev, n) for n in names if hasattr(ev, n)]
