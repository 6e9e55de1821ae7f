"""`jevlin-hooks daemon run`: the daemon that watches the spool, makes each record safe, and ships it.

It is split by job, the way the OpenTelemetry SDK splits queueing, encoding and transport:

- ``scheduler.py``: its life (one instance per home, signals), the loop, its timers (monotonic),
  the config read again while it runs;
- ``preparer.py``: claiming queued records and making them safe (scrub, hash), inline or in
  worker processes (``prepare.py``);
- ``deliverer.py``: sending, splitting what a sink refuses as a whole, what an answer means,
  retries, quarantine, acknowledgements (``acker.py`` deletes);
- ``housekeeping.py``: abandoned sessions, retention, the spool's cap, the daemon's own output;
- ``report.py``: what all of them tell `status` (``state/daemon.json``) and ``logs/daemon.log``;
- ``watch.py``: the file system events that wake it; ``instance.py``: the lock and pids.

A record stays in ``spool/new`` until its sink acknowledged it: a daemon killed at any point
(kill -9 included) leaves every unacknowledged record there for the next start.
"""

from __future__ import annotations

import sys

from jevlin_hooks.base import paths
from jevlin_hooks.ship.scheduler import Scheduler

Daemon = Scheduler  # the name the CLI, the demo and older scripts use


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    once = "--once" in args
    return Scheduler(paths.home(), once=once).run()


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]:
        sys.exit(main(sys.argv[2:]))
    sys.exit(main())
