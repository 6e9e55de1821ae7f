"""What the daemon tells about itself: ``state/daemon.json`` (for `status` and `doctor`) and
``logs/daemon.log``. Every part of the daemon reports through one :class:`Report`.

- The current problem, if any: "held" (the config must change) or "failing" (retried), with
  what raised it, so only its own fix clears it; logged once each time it changes, not on
  every attempt.
- Tracebacks: the frames only (an exception's message may quote a raw value), once per place
  until that place works again.
- The status file is written only when what it says changed: an idle daemon writes nothing.
  Counters kept for debugging (``loop_passes``: how often the loop woke) ride along with the
  next real change and the last write at exit, and never cause a write on their own.
"""

from __future__ import annotations

import json
import time
import traceback
from typing import Any

from jevlin_hooks.base import config, log
from jevlin_hooks.privacy import ids
from jevlin_hooks.ship import daemon_state as status_file

QUIET = ("updated", "loop_passes", "status_writes")  # not a change on their own


class Report:
    def __init__(self, home: str) -> None:
        self.home = home
        self.st: dict[str, Any] = status_file.load(home)
        for k in ("sending", "waiting"):  # what an earlier run was doing is over
            self.st.pop(k, None)
        self.logged: set[str] = set()
        self.saved: bytes | None = None  # what the file says, less QUIET
        self.last_save = 0.0  # monotonic
        self.passes = 0
        self.writes = 0

    def log(self, line: str) -> None:
        log.write(self.home, "daemon.log", line)

    # --- problems ---------------------------------------------------------------------------

    def traceback(self, where: str, exc: BaseException, line: str) -> None:
        """The traceback's frames (never the exception's message: it may quote a raw value),
        once per place it happened until that place works again."""
        self.frames(where, type(exc).__name__, "".join(traceback.format_tb(exc.__traceback__)).rstrip(), line)

    def frames(self, where: str, kind: str, frames: str, line: str) -> None:
        key = f"{where}:{kind}"
        if key in self.logged:
            return
        self.logged.add(key)
        frames = frames.replace("\n", "\n    ")
        self.log(f"{line}\n    Traceback (most recent call last):\n    {frames}\n    {kind}")

    def problem(self, kind: str, message: str, source: str = "send") -> None:
        """The current problem: "held" (the config must change) or "failing" (retried), and
        what raised it ("config", "key", "send", "loop"), so only its own fix clears it."""
        cur = self.st.get("problem") if isinstance(self.st.get("problem"), dict) else None
        state = message.split(":", 1)[0] if kind == "failing" else message
        if not cur or cur.get("kind") != kind or cur.get("state") != state:
            self.log(("delivery held: " if kind == "held" else "delivery failing: ") + message)
            self.st["problem"] = {"kind": kind, "message": message, "state": state, "source": source,
                                  "since": time.time()}
        else:
            cur["message"] = message

    def clear_problem(self, source: str | None = None) -> None:
        """The current problem is over: any (``source`` None: a send worked), or only one that
        ``source`` raised. A record that could not go to quarantine stays a problem until one goes."""
        cur = self.st.get("problem")
        if isinstance(cur, dict) and cur.get("source") != source and (source is not None or cur.get("source") == "quarantine"):
            return
        if cur:
            self.log(f"delivery works again (sink {self.st.get('sink', '-')})")
            self.st["problem"] = None
        self.logged.clear()

    def problem_message(self) -> str:
        cur = self.st.get("problem")
        return str(cur.get("message")) if isinstance(cur, dict) else "delivery failed"

    # --- the status file --------------------------------------------------------------------

    def save(self, force: bool = False) -> bool:
        """Write the status file if what it says changed (or ``force``); whether it was written."""
        self.last_save = time.monotonic()
        body = json.dumps({k: v for k, v in self.st.items() if k not in QUIET}, sort_keys=True).encode()
        if body == self.saved and not force:
            return False
        self.writes += 1
        self.st.update(updated=time.time(), loop_passes=self.passes, status_writes=self.writes)
        status_file.save(self.home, self.st)
        self.saved = body
        return True

    def since_save(self) -> float:
        return time.monotonic() - self.last_save


def one_line(exc: BaseException) -> str:
    """An exception as one line for status: OS errors and our own errors carry no record data."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror}{where}"
    if isinstance(exc, (config.ConfigError, ids.KeyError_)):
        return str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
    return f"unexpected {type(exc).__name__} (see logs/daemon.log)"
