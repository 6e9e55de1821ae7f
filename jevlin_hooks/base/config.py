"""The TOML config: defaults, loading, saving.

The hook path cannot afford ``tomllib`` (it imports ``re``) on every event, so a parsed copy
is cached as JSON in ``state/config.json`` keyed by the TOML file's size and mtime. The first
event after an edit pays for the parse; every other event reads the cache.
"""

from __future__ import annotations

import os

from jevlin_hooks.base import fastjson, paths

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONFIG_NAME = "config.toml"
CACHE_NAME = "config.json"


def defaults() -> dict[str, Any]:
    return {
        "trace": "on",
        "miner": {"turn_end": False},
        "ship": {"sink": "local", "endpoint": "", "api_key": "", "headers": {}},
        "search": {
            "shell_commands": ["jevlin search"],
            "tools": ["WebSearch", "web_search", "mcp__jevlin__*"],
        },
        "daemon": {"autostart": True, "batch_size": 500, "batch_bytes": 1048576, "backoff_max_s": 300.0,
                   "rescan_s": 5.0, "abandon_after_s": 3600.0},
        "spool": {"max_mb": 512},
        "retention": {"days": 30},
        "privacy": {"disabled_rules": []},
    }


class ConfigError(ValueError):
    pass


_TYPES: dict[tuple[str, ...], type | tuple[type, ...]] = {
    ("trace",): str,
    ("miner", "turn_end"): bool,
    ("ship", "sink"): str,
    ("ship", "endpoint"): str,
    ("ship", "api_key"): str,
    ("ship", "headers"): dict,
    ("search", "shell_commands"): list,
    ("search", "tools"): list,
    ("daemon", "autostart"): bool,
    ("daemon", "batch_size"): int,
    ("daemon", "batch_bytes"): int,
    ("daemon", "backoff_max_s"): (int, float),
    ("daemon", "rescan_s"): (int, float),
    ("daemon", "abandon_after_s"): (int, float),
    ("spool", "max_mb"): (int, float),
    ("retention", "days"): (int, float),
    ("privacy", "disabled_rules"): list,
}


def merge(user: dict[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with the user's values, type-checked; unknown keys are an error."""
    cfg = defaults()
    for key, value in user.items():
        if key not in cfg:
            raise ConfigError(f"unknown key {key!r}")
        if isinstance(cfg[key], dict):
            if not isinstance(value, dict):
                raise ConfigError(f"[{key}] must be a table")
            for sub, subval in value.items():
                if sub not in cfg[key]:
                    raise ConfigError(f"unknown key {key}.{sub}")
                want = _TYPES.get((key, sub))
                if want and not isinstance(subval, want):
                    raise ConfigError(f"{key}.{sub} has the wrong type")
                if want is list and not all(isinstance(x, str) for x in subval):
                    raise ConfigError(f"{key}.{sub} must be a list of strings")
                cfg[key][sub] = subval
        else:
            if not isinstance(value, _TYPES[(key,)]):
                raise ConfigError(f"{key} has the wrong type")
            cfg[key] = value
    if cfg["trace"] not in ("on", "off"):
        raise ConfigError('trace must be "on" or "off"')
    if cfg["ship"]["sink"] not in ("local", "jevlin", "otlp"):
        raise ConfigError('ship.sink must be "local", "jevlin" or "otlp"')
    return cfg


def parse_toml(data: bytes) -> dict[str, Any]:
    import tomllib

    try:
        return merge(tomllib.loads(data.decode("utf-8")))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8") from None


def load(home: str | None = None, use_cache: bool = True) -> dict[str, Any]:
    """The effective config. Raises ConfigError for a config file that is wrong."""
    home = home or paths.home()
    path = os.path.join(home, CONFIG_NAME)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return defaults()
    stamp = [st.st_size, st.st_mtime_ns, st.st_ino]
    if use_cache:
        try:
            sfd = paths.open_dir(home, "state", create=False)
            try:
                cached = fastjson.loads(paths.read_bytes(sfd, CACHE_NAME))
            finally:
                os.close(sfd)
            if cached.get("stamp") == stamp:
                return cached["config"]
        except (OSError, ValueError, AttributeError, KeyError):
            pass
    hfd = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    try:
        data = paths.read_bytes(hfd, CONFIG_NAME, limit=1 << 20)
    finally:
        os.close(hfd)
    cfg = parse_toml(data)
    if use_cache:
        try:
            sfd = paths.open_dir(home, "state")
            try:
                body = fastjson.dumps({"stamp": stamp, "config": cfg}).encode()
                paths.write_atomic(sfd, CACHE_NAME, body)
            finally:
                os.close(sfd)
        except OSError:
            pass  # a read-only home still works, it just parses every time
    return cfg


def trace_on(cfg: dict[str, Any]) -> bool:
    env = os.environ.get("JEVLIN_TRACE", "").strip().lower()
    if env in ("off", "0", "false", "no"):
        return False
    return cfg.get("trace") != "off"


def save(cfg: dict[str, Any], home: str | None = None) -> None:
    import tomli_w

    home = home or paths.home()
    merge(cfg)  # refuse to write what we could not read back
    hfd = paths.open_dir(home)
    try:
        paths.write_atomic(hfd, CONFIG_NAME, tomli_w.dumps(cfg).encode(), sync=True)
    finally:
        os.close(hfd)
