"""Sinks: where safe records go. Each takes a batch and says what happened to every record.

A sink never raises for a delivery problem; it returns a Result:
- ``accepted``: record ids the sink acknowledged (they leave the spool);
- ``rejected``: {record id: reason} refused for good (quarantine);
- ``retry``: True when nothing was acknowledged and the batch must be sent again later, with
  ``retry_after`` seconds when the server said so (Retry-After), and ``error`` for status.
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


class Sink(Protocol):
    name: str

    def send(self, records: list[dict[str, Any]]) -> Result: ...

    def close(self) -> None: ...


RETRYABLE = {408, 425, 429, 500, 502, 503, 504}


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds or as an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))


def from_config(cfg: dict[str, Any], home: str) -> Sink:
    ship = cfg["ship"]
    kind = ship["sink"]
    if kind == "local":
        from jevlin_hooks.ship.sinks.local import LocalSink

        return LocalSink(home)
    if kind == "jevlin":
        from jevlin_hooks.ship.sinks.jevlin import JevlinSink

        return JevlinSink(ship["endpoint"], _api_key(ship))
    if kind == "otlp":
        from jevlin_hooks.ship.sinks.otlp import OtlpSink

        # turn_end decides whether a turn span will ever be sent, so whether searches may name it
        return OtlpSink(ship, turn_end=bool(cfg.get("miner", {}).get("turn_end")))
    raise ValueError(f"unknown sink {kind!r}")


def _api_key(ship: dict[str, Any]) -> str:
    import os

    return os.environ.get("JEVLIN_API_KEY") or ship.get("api_key") or ""
