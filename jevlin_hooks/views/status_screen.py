"""``jevlin-hooks status``: threads known, queue depth, recent hook errors, on one screen."""

from __future__ import annotations

import heapq
import os
import time

from jevlin_hooks.base import config, log, lost, paths
from jevlin_hooks.capture import lineage
from jevlin_hooks.views import term


def _age(seconds: float) -> str:
    if seconds < 90:
        return f"{int(seconds)}s ago"
    if seconds < 5400:
        return f"{int(seconds // 60)}m ago"
    if seconds < 172800:
        return f"{int(seconds // 3600)}h ago"
    return f"{int(seconds // 86400)}d ago"


def _kept(home: str) -> list[tuple[float, str]]:
    """(mtime, name) of every lineage file: the last write is the last event."""
    out = []
    try:
        with os.scandir(os.path.join(home, "sessions")) as it:
            for e in it:
                if e.name.endswith(".json") and not e.name.startswith("."):
                    try:
                        out.append((e.stat(follow_symlinks=False).st_mtime, e.name[:-5]))
                    except OSError:
                        pass
    except OSError:
        pass
    return out


def lines(home: str) -> list[str]:
    out = [f"home      {home}"]
    cfg, why = config.settings(home, use_cache=False)
    if cfg is None:  # the same effective settings the hooks and the daemon use: off
        out.append("trace     off   sink: -   turn_end: -   (see the config line below)")
        if paths.untrusted(home):  # read nothing from a home we refuse
            out.append(f"config    {why}")
            return out
    else:
        trace = "on" if config.trace_on(cfg) else "off"
        out.append(f"trace     {trace}   sink: {cfg['ship']['sink']}   turn_end: "
                   f"{'on' if cfg['miner']['turn_end'] else 'off'}")
    # Names and mtimes only (no file read): with a year of sessions, reading every lineage file
    # to print five cost seconds and hundreds of MB. Only the five printed are read.
    kept = _kept(home)
    now = time.time()
    out.append(f"threads   {len(kept)} kept, {len(lineage.open_names(home))} with a turn or search open")
    for _, name in heapq.nlargest(5, kept):
        s = lineage.read(home, name)
        if not s:
            continue
        turn = s.get("turn")
        out.append(
            f"  {s.get('harness', '?'):<11} {_age(now - s.get('updated', now)):>8}  "
            f"window {s.get('window', 0)}  seq {s.get('seq', 0)}  searches {s.get('searches', 0)}"
            f"{'  (turn open)' if turn else ''}  {s.get('status')}"
        )
    from jevlin_hooks.ship import control

    out += control.status_lines(home)
    recording = lost.problems(home)  # a home hooks cannot write: their log cannot be written either
    out += [f"recording {line}" for _, line in recording]
    errors = log.tail(home, "hook.log", 5)
    if errors:
        out.append("hook errors (latest last):")
        out += [f"  {e}" for e in errors]
    elif recording:
        out.append("hook errors: none logged, and none could be: see the recording line")
    else:
        out.append("hook errors: none")
    return out


def main() -> int:
    home = paths.home()
    if not os.path.isdir(home):
        recording = lost.problems(home)  # hooks ran, and could not create it
        print(term.inert("\n".join([f"home      {home} (not created yet" + ("" if recording else ": no hook has run") + ")",
                                    *(f"recording {line}" for _, line in recording)])))
        return 0
    print(term.inert("\n".join(lines(home))))  # log lines and records never drive the terminal
    return 0
