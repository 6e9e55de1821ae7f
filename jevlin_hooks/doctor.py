"""`jevlin-hooks doctor`: is everything in place, and will the hooks actually run?

One line per finding: `ok`, or `!!` with the fix. Exit status 1 when anything needs fixing.
"""

from __future__ import annotations

import os
import stat
import time

from jevlin_hooks import harnesses
from jevlin_hooks.base import config, log, paths, spool


def check_harnesses(out: list[tuple[bool, str]]) -> None:
    """Each registered harness's own checks (harnesses/<folder>/doctor.py), in registry order."""
    for name in harnesses.HARNESSES:
        harnesses.doctor(name).check(out)


def check_engines(out: list[tuple[bool, str]]) -> None:
    """The engines the scrubber runs on: the native ones, or the pure-Python stand-ins where a
    package has no wheel for the platform (the same redactions, slower: docs/platforms.md)."""
    from jevlin_hooks.privacy import automaton, regex
    from jevlin_hooks.privacy.engine import prefilter

    native = (regex.ENGINE == "re2", automaton.ENGINE == "ahocorasick-rs", prefilter.available())
    parts = [
        "regex RE2" if native[0] else "regex pure-Python linear-time (no google-re2)",
        "keywords ahocorasick-rs" if native[1] else "keywords pure-Python (no ahocorasick-rs)",
        "prefilter Hyperscan" if native[2] else "no prefilter (no hyperscan)",
    ]
    line = "scrubber engines: " + ", ".join(parts)
    if not all(native):
        line += ": the same redactions, slower (docs/platforms.md)"
    out.append((True, line))


def check_home(home: str, out: list[tuple[bool, str]]) -> None:
    from jevlin_hooks.privacy import ids
    from jevlin_hooks.ship import control
    from jevlin_hooks.ship import daemon_state as dstatus

    got, why = config.settings(home, use_cache=False)
    if got is None:  # the same line status and the hook log give
        out.append((False, f"config: {why} (every key: `jevlin-hooks config example`; in effect: `jevlin-hooks config show`)"))
        if paths.untrusted(home):
            return  # read nothing more from a home we refuse
        cfg = dict(config.defaults(), trace="off")
    else:
        cfg = got
    if got is not None and not config.trace_on(cfg):
        out.append((True, "trace is off: nothing is recorded or sent (JEVLIN_TRACE / trace = \"off\")"))
    elif got is not None:  # what `status` shows on its trace line: the same effective settings
        out.append((True, f"config: trace on, sink {cfg['ship']['sink']}, turn_end "
                          f"{'on' if cfg['miner']['turn_end'] else 'off'}"))
    key = os.path.join(home, "state", "key")
    try:
        st = os.lstat(key)
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077:
            out.append((False, f"key: {key} is readable by others; run `chmod 600 {key}`"))
        else:
            ids.load_key(home, create=False)
            out.append((True, "key: present, 0600"))
    except FileNotFoundError:
        out.append((True, "key: not created yet (the first SessionStart creates it)"))
    except ids.KeyError_ as exc:
        out.append((False, f"key: {exc}"))
    pid = control.running_pid(home)
    if pid:
        out.append((True, f"daemon: running (pid {pid})"))
    elif got is None:
        out.append((True, "daemon: not running; hooks start none while the config is unusable"))
    elif cfg["daemon"]["autostart"]:
        out.append((True, "daemon: not running; the next SessionStart starts it (or `jevlin-hooks daemon start`)"))
    else:
        out.append((False, "daemon: not running and autostart is off; run `jevlin-hooks daemon start` "
                           "or `jevlin-hooks daemon install-service`"))
    waiting = spool.count(home, "new")
    age = spool.oldest_age(home)
    quarantined = spool.count(home, "quarantine")
    if age is not None and age > 3600 and not pid:
        out.append((False, f"queue: {waiting} record(s) waiting, oldest {age / 3600:.1f}h; start the daemon"))
    else:
        out.append((True, f"queue: {waiting} waiting, {quarantined} quarantined"))
    if quarantined:
        out.append((False, f"queue: {quarantined} record(s) in quarantine: see `jevlin-hooks quarantine list`, "
                           "then `jevlin-hooks quarantine release` (or `purge --yes`)"))
    if os.path.exists(os.path.join(home, "state", "spool_full")):
        out.append((False, "queue: SPOOL FULL, hooks are dropping new records; start the daemon or raise [spool] max_mb"))
    # Only what is wrong now: the daemon clears a problem as soon as what caused it works again.
    out += [(False, f"delivery: {p}") for p in control.problems(home, dstatus.load(home))]
    from jevlin_hooks.base import lost  # a home hooks cannot write (read-only, full): events lost, named

    out += [(not failing, f"recording: {line}") for failing, line in lost.problems(home)]
    errors = [e for e in log.tail(home, "hook.log", 50) if e[:10] == time.strftime("%Y-%m-%d", time.gmtime())]
    if errors:
        out.append((False, f"hooks: {len(errors)} failure(s) logged today in {os.path.join(home, 'logs', 'hook.log')}"))


def run() -> int:
    home = paths.home()
    out: list[tuple[bool, str]] = []
    check_harnesses(out)
    if not out:
        programs = ", ".join(harnesses.installer(h).PROGRAM for h in harnesses.HARNESSES)
        out.append((False, f"no coding agent found ({programs}); install one, then `jevlin-hooks install`"))
    check_engines(out)
    check_home(home, out)
    from jevlin_hooks.views.term import inert

    for ok, line in out:
        print(inert(("ok  " if ok else "!!  ") + line))
    return 0 if all(ok for ok, _ in out) else 1
