"""`jevlin-hooks config path | show | example`: where the config is, what is in effect and why.

`show` prints every effective setting with where it came from (default, file, environment), the
same settings hooks, the daemon, `status` and `doctor` use (``config.settings``); secrets are
never printed, only whether they are set.
"""

from __future__ import annotations

import os
import sys
from importlib import resources
from typing import Any

from jevlin_hooks.base import config, paths

SECRET_KEYS = {("ship", "api_key"), ("ship", "headers")}
# environment variable -> the setting it provides, when the config file does not set it
ENV_KEYS = {"JEVLIN_TRACE": ("trace",), "JEVLIN_API_KEY": ("ship", "api_key")}
# the OpenTelemetry exporter's standard variables, read by the otlp sink for what the file leaves empty
OTEL_KEYS = {
    ("ship", "endpoint"): ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"),
    ("ship", "headers"): ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"),
    ("ship", "otlp_protocol"): ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"),
}


def example_text() -> str:
    return resources.files("jevlin_hooks").joinpath("config.example.toml").read_text(encoding="utf-8")


def _user_keys(path: str) -> set[tuple[str, ...]]:
    """The keys the user's file sets (it parsed already: settings() said it is usable)."""
    import tomllib

    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except (OSError, ValueError):
        return set()
    keys: set[tuple[str, ...]] = set()
    for k, v in raw.items():
        if isinstance(v, dict):
            keys.update((k, sub) for sub in v)
        else:
            keys.add((k,))
    return keys


def _flatten(cfg: dict[str, Any]) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    for k, v in cfg.items():
        if isinstance(v, dict) and k != "headers":
            out.extend(((k, sub), subv) for sub, subv in v.items())
        else:
            out.append(((k,), v))
    return out


def _value(key: tuple[str, ...], value: Any) -> str:
    import json

    if key == ("ship", "endpoint") and isinstance(value, str):
        from jevlin_hooks.base import redact

        value = redact.endpoint(value)  # never a password or a query's token
    if key in SECRET_KEYS:
        if isinstance(value, dict):
            return f"({len(value)} header(s), values not shown)" if value else "{}"
        return "(set, not shown)" if value else '""'
    return json.dumps(value)


def show(home: str) -> int:
    path = os.path.join(home, config.CONFIG_NAME)
    cfg, why = config.settings(home, use_cache=False)
    print(f"# {path}" + ("" if os.path.exists(path) else " (not present: every setting is its default)"))
    if cfg is None:
        print(f"jevlin-hooks: {why}", file=sys.stderr)
        return 1
    in_file = _user_keys(path) if os.path.exists(path) else set()
    env_set = {key: var for var, key in ENV_KEYS.items() if os.environ.get(var)}
    if cfg["ship"]["sink"] == "otlp":
        for otel_key, names in OTEL_KEYS.items():
            var = next((n for n in names if os.environ.get(n, "").strip()), None)
            if var and not cfg["ship"].get(otel_key[1]):
                env_set[otel_key] = var
    for key, value in _flatten(cfg):
        name = ".".join(key) if len(key) == 1 else f"{key[0]}.{key[1]}"
        if key in env_set and (key == ("trace",) or key not in in_file):
            source = f"environment ({env_set[key]})"
            if key != ("trace",):
                value = os.environ[env_set[key]]
        elif key in in_file:
            source = "file"
        else:
            source = "default"
        print(f"{name} = {_value(key, value)}  # {source}")
    return 0


def main(action: str) -> int:
    home = paths.home()
    if action == "path":
        path = os.path.join(home, config.CONFIG_NAME)
        print(path if os.path.exists(path) else f"{path} (not present yet: `jevlin-hooks config example > {path}`)")
        return 0
    if action == "example":
        sys.stdout.write(example_text())
        return 0
    return show(home)
