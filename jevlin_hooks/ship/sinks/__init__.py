"""Sinks: where safe records go. Each takes a batch and says what happened to every record.

A sink never raises for a delivery problem; it returns a Result:
- ``accepted``: record ids the sink acknowledged (they leave the spool);
- ``rejected``: {record id: reason} refused for good (quarantine);
- ``retry``: True when nothing was acknowledged and the batch must be sent again later, with
  ``retry_after`` seconds when the server said so (Retry-After), and ``error`` for status;
- ``hold``: a configuration problem (the fix, one line): the whole queue waits, nothing is
  quarantined, and delivery resumes once the config or the server is fixed;
- ``split``: the batch as a whole was refused (413, another 4xx, a sink that raised): the daemon
  sends the halves, and quarantines a record refused on its own while others went through.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Result:
    accepted: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    retry: bool = False
    retry_after: float | None = None
    error: str | None = None
    note: str | None = None  # e.g. an OTLP partial success message
    hold: str | None = None
    split: bool = False


class Sink(Protocol):
    name: str

    def send(self, records: list[dict[str, Any]]) -> Result: ...

    def close(self) -> None: ...


RETRYABLE = {408, 425, 429, 500, 502, 503, 504}
MIN_RETRY_AFTER_S = 1.0  # `Retry-After: 0` (or negative) must not make a hot loop
MAX_RETRY_AFTER_S = 3600.0


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds or as an HTTP date, clamped to [1 s, 1 h]; None when absent or
    unreadable (then the daemon's own backoff applies)."""
    if not value:
        return None
    value = value.strip()
    try:
        secs = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        secs = when.timestamp() - (now if now is not None else time.time())
    if secs != secs:  # NaN
        return None
    return min(max(secs, MIN_RETRY_AFTER_S), MAX_RETRY_AFTER_S)


def from_config(cfg: dict[str, Any], home: str) -> Sink:
    ship = cfg["ship"]
    kind = ship["sink"]
    if kind == "local":
        from jevlin_hooks.ship.sinks.local import LocalSink

        return LocalSink(home)
    if kind == "jevlin":
        from jevlin_hooks.ship.sinks.jevlin import JevlinSink

        return JevlinSink(ship["endpoint"], _api_key(ship), ship.get("timeout_s"))
    if kind == "otlp":
        from jevlin_hooks.ship.sinks.otlp import OtlpSink

        # turn_end decides whether a turn span will ever be sent, so whether searches may name it
        return OtlpSink(ship, turn_end=bool(cfg.get("miner", {}).get("turn_end")))
    raise ValueError(f"unknown sink {kind!r}")


def _api_key(ship: dict[str, Any]) -> str:
    import os

    return os.environ.get("JEVLIN_API_KEY") or ship.get("api_key") or ""
