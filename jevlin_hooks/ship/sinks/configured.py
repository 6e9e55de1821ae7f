"""The sink the config names ([ship] sink), built with its settings."""

from __future__ import annotations

from typing import Any

from jevlin_hooks.ship.sinks import Sink


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
