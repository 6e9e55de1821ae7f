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
        "ship": {"sink": "local", "endpoint": "", "api_key": "", "headers": {}, "otlp_protocol": "", "timeout_s": 120.0},
        "search": {
            "shell_commands": ["jevlin search"],
            "tools": ["WebSearch", "web_search", "google_web_search", "mcp__jevlin__*", "mcp_jevlin_*"],
        },
        "daemon": {"autostart": True, "batch_size": 500, "batch_bytes": 1048576, "backoff_max_s": 300.0,
                   "rescan_s": 30.0, "abandon_after_s": 3600.0, "workers": 0},
        "spool": {"max_mb": 512},
        "retention": {"days": 30},
        "privacy": {"disabled_rules": [], "local_results": True, **{k: True for k in PERSONAL_FAMILIES}},
    }


# [privacy] switches, one per family of personal data: false turns off the scrub rules (and the
# field judge) that find it. Rule names here and in privacy/rules/ are held equal by a test.
PERSONAL_FAMILIES: dict[str, tuple[str, ...]] = {
    "phone_numbers": ("phone-number", "phone-number-labelled"),
    "personal_names": ("personal-name", "display-name", "chat-speaker", "chat-heading", "greeting-name", "greeting-name-intl",
                       "contact-name", "email-name", "honorific-name", "customer-name-cjk"),
    "birth_dates": ("birth-date",),
    "postal_addresses": ("postal-address", "street-address"),
    "national_ids": ("national-id", "us-ssn", "national-id-shape", "national-id-under-id"),
    "iban": ("iban",),
    "vat_numbers": ("vat-number",),
    "passport_numbers": ("passport-number",),
    "driving_licences": ("driving-licence",),
    "licence_plates": ("licence-plate",),
    "medical_records": ("medical-record",),
    "insurance_numbers": ("insurance-number",),
    "user_names": ("personal-username",),
    "personal_columns": ("personal-field",),
}


def disabled_rules(cfg: dict[str, Any] | None) -> tuple[str, ...]:
    """The scrub rules turned off by ``cfg``: ``disabled_rules`` and the rules of each family of
    personal data switched off. No config (an unusable one): every rule on."""
    if not cfg:
        return ()
    privacy = cfg["privacy"]
    off = list(privacy["disabled_rules"])
    for key, rules in PERSONAL_FAMILIES.items():
        if not privacy.get(key, True):
            off.extend(rules)
    return tuple(dict.fromkeys(off))


class ConfigError(ValueError):
    fresh = True  # False: the same file's same error, found again from the cache


_TYPES: dict[tuple[str, ...], type | tuple[type, ...]] = {
    ("trace",): str,
    ("miner", "turn_end"): bool,
    ("ship", "sink"): str,
    ("ship", "endpoint"): str,
    ("ship", "api_key"): str,
    ("ship", "headers"): dict,
    ("ship", "otlp_protocol"): str,
    ("ship", "timeout_s"): (int, float),
    ("search", "shell_commands"): list,
    ("search", "tools"): list,
    ("daemon", "autostart"): bool,
    ("daemon", "batch_size"): int,
    ("daemon", "batch_bytes"): int,
    ("daemon", "backoff_max_s"): (int, float),
    ("daemon", "rescan_s"): (int, float),
    ("daemon", "abandon_after_s"): (int, float),
    ("daemon", "workers"): int,
    ("spool", "max_mb"): (int, float),
    ("retention", "days"): (int, float),
    ("privacy", "disabled_rules"): list,
    ("privacy", "local_results"): bool,
    **{("privacy", k): bool for k in PERSONAL_FAMILIES},
}


_KINDS = {str: "a string", bool: "true or false", dict: "a table", list: "a list of strings",
          int: "an integer", (int, float): "a number"}
_ENUMS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("trace",): ("on", "off"),
    ("ship", "sink"): ("local", "jevlin", "otlp"),
    ("ship", "otlp_protocol"): ("", "http/protobuf", "http/json"),  # "": OTEL_EXPORTER_OTLP_PROTOCOL
}


# values never quoted in a reason (status, doctor, logs): they may hold a credential
_SECRET = frozenset({("ship", "api_key"), ("ship", "headers"), ("ship", "endpoint")})


def _show(value: Any, key: tuple[str, ...] = ()) -> str:
    if key in _SECRET:
        return "(value not shown)"
    if isinstance(value, str):
        return '"' + value[:40] + '"'
    return repr(value)[:40]


def _check(key: tuple[str, ...], value: Any) -> None:
    name = ".".join(key)
    want = _TYPES[key]
    # bool is an int to Python, never to a user who wrote `batch_size = true`
    wrong = not isinstance(value, want) or (isinstance(value, bool) and want is not bool)
    if wrong:
        raise ConfigError(f"{name} = {_show(value, key)}: must be {_KINDS[want]}")
    if want is list and not all(isinstance(x, str) for x in value):
        raise ConfigError(f"{name}: must be a list of strings")
    if want is dict and not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{name}: values must be strings")
    allowed = _ENUMS.get(key)
    if allowed and value not in allowed:
        raise ConfigError(f"{name} = {_show(value)}: must be " + " or ".join(f'"{a}"' for a in allowed))


def _check_rule_names(names: list[str]) -> None:
    """A misspelt rule name turns nothing off: refused, with the closest known name. (Read here,
    when a config is parsed, never on a hook's path: rule_names is a copy of the scrubber's.)"""
    from jevlin_hooks.base.rule_names import NAMES

    for name in names:
        if name not in NAMES:
            import difflib

            close = difflib.get_close_matches(name, sorted(NAMES), n=1, cutoff=0.5)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            raise ConfigError(f'privacy.disabled_rules: no rule named "{name[:60]}"{hint}')


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
                _check((key, sub), subval)
                if (key, sub) == ("privacy", "disabled_rules"):
                    _check_rule_names(subval)
                cfg[key][sub] = subval
        else:
            _check((key,), value)
            cfg[key] = value
    return cfg


def parse_toml(data: bytes) -> dict[str, Any]:
    import tomllib

    try:
        return merge(tomllib.loads(data.decode("utf-8")))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8") from None


def _open_config(path: str) -> tuple[int, list[int]] | None:
    """An fd on the config file and its stamp; None when there is none.

    A symlink is followed (stow, chezmoi, home-manager make them) when the link and its target
    both belong to the user; the target must be a regular file nobody else can write. The
    checks are made on the opened file (fstat), so a swap after them changes nothing.
    """
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return None
    uid = os.geteuid()
    if (lst.st_mode & 0o170000) == 0o120000 and lst.st_uid != uid:
        raise ConfigError(f"is a symlink owned by uid {lst.st_uid}, not you (uid {uid}): refused")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ConfigError("is a symlink to a file that does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot be read ({exc.strerror})") from None
    st = os.fstat(fd)
    why = None
    if (st.st_mode & 0o170000) != 0o100000:
        why = "is not a regular file: refused"
    elif st.st_uid != uid:
        why = f"is owned by uid {st.st_uid}, not you (uid {uid}): refused"
    elif st.st_mode & 0o022:
        why = f"is writable by group or others (mode {st.st_mode & 0o777:o}): refused; run `chmod go-w` on it"
    if why:
        os.close(fd)
        raise ConfigError(why)
    return fd, [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_mode, st.st_uid]


def _cache_read(home: str) -> Any:
    try:
        sfd = paths.open_dir(home, "state", create=False)
    except OSError:
        return None
    try:
        return fastjson.loads(paths.read_bytes(sfd, CACHE_NAME, limit=1 << 20))
    except (OSError, ValueError):
        return None
    finally:
        os.close(sfd)


def _cache_write(home: str, body: dict[str, Any]) -> None:
    try:
        sfd = paths.open_dir(home, "state")
        try:
            paths.write_atomic(sfd, CACHE_NAME, fastjson.dumps(body).encode())
        finally:
            os.close(sfd)
    except OSError:
        pass  # a read-only home still works, it just parses every time


def load(home: str | None = None, use_cache: bool = True) -> dict[str, Any]:
    """The config file's settings. Raises ConfigError for a config file that cannot be used;
    its ``fresh`` is False when the same error was already found for this very file (cached)."""
    home = home or paths.home()
    opened = _open_config(os.path.join(home, CONFIG_NAME))
    if opened is None:
        return defaults()
    fd, stamp = opened
    try:
        if use_cache:
            cached = _cache_read(home)
            if isinstance(cached, dict) and cached.get("stamp") == stamp:
                if isinstance(cached.get("config"), dict):
                    conf: dict[str, Any] = cached["config"]
                    return conf
                if isinstance(cached.get("error"), str):
                    err = ConfigError(cached["error"])
                    err.fresh = False
                    raise err
        data = paths.read_fd(fd, 1 << 20, 1 << 16)  # a config over 1 MiB is cut, then fails to parse
    finally:
        os.close(fd)
    try:
        cfg = parse_toml(data)
    except ConfigError as exc:
        if use_cache:  # the next event need not pay for tomllib to find the same error
            _cache_write(home, {"stamp": stamp, "error": str(exc)})
        exc.fresh = True
        raise
    if use_cache:
        _cache_write(home, {"stamp": stamp, "config": cfg})
    return cfg


_ENV_ON = ("on", "1", "true", "yes")
_ENV_OFF = ("off", "0", "false", "no")


def settings(home: str | None = None, use_cache: bool = True) -> tuple[dict[str, Any] | None, str]:
    """The effective settings, or None and the one line that says why they cannot be used.

    Every reader (hooks, ``context``, the daemon, ``status``, ``doctor``) asks this one
    function, so they all agree. None means fail closed: hooks queue nothing, the daemon
    holds the queue. ``JEVLIN_TRACE`` from the environment is folded into ``trace``.
    """
    cfg, why, _ = check(home, use_cache)
    return cfg, why


def check(home: str | None = None, use_cache: bool = True) -> tuple[dict[str, Any] | None, str, bool]:
    """``settings`` plus whether to log the reason: False when this very file's error was
    already found by an earlier event (logged once, not on every event), and for a home we
    refuse (nothing is ever written into it)."""
    home = home or paths.home()
    held = "; tracing is off and queued records are held until it is fixed"
    why = paths.untrusted(home)
    if why:
        return None, why + held, False
    path = os.path.join(home, CONFIG_NAME)
    try:
        cfg = load(home, use_cache)
    except ConfigError as exc:
        return None, f"config unusable: {path}: {exc}{held}", getattr(exc, "fresh", True)
    except OSError as exc:
        return None, f"config unusable: {path}: cannot be read ({exc.strerror or type(exc).__name__}){held}", True
    env = os.environ.get("JEVLIN_TRACE", "").strip().lower()
    if env in _ENV_OFF:
        cfg["trace"] = "off"
    elif env and env not in _ENV_ON:
        return None, f"JEVLIN_TRACE={env[:20]!r} in the environment: must be \"on\" or \"off\"{held}", True
    return cfg, "", False


def trace_on(cfg: dict[str, Any]) -> bool:
    env = os.environ.get("JEVLIN_TRACE", "").strip().lower()
    if env in _ENV_OFF:
        return False
    return cfg.get("trace") != "off"


def save(cfg: dict[str, Any], home: str | None = None) -> None:
    """Write the config; through a symlink to its target (a dotfile manager's link stays)."""
    import tomli_w

    home = home or paths.home()
    merge(cfg)  # refuse to write what we could not read back
    body = tomli_w.dumps(cfg).encode()
    link = os.path.join(home, CONFIG_NAME)
    if os.path.islink(link):
        opened = _open_config(link)  # the same trust checks as reading: ConfigError if not ours
        if opened is not None:
            os.close(opened[0])
        target = os.path.realpath(link)
        dfd = os.open(os.path.dirname(target), os.O_RDONLY | os.O_DIRECTORY)
        name = os.path.basename(target)
    else:
        dfd = paths.open_dir(home)
        name = CONFIG_NAME
    try:
        paths.write_atomic(dfd, name, body, sync=True)
    finally:
        os.close(dfd)
