"""``jevlin-hooks demo``: real sessions through the whole path, in a scratch home.

A developer's day with Claude Code 2.1.328 and Codex 0.169.0, captured from the real programs
by tools/capture_demo.py (hook payloads, transcripts and rollouts, bundled in the package), goes
through the real hook entry point (one process per event, as the agents run it) -> the queue ->
the daemon, drained once, scrubbing and hashing -> the local SQLite store -> the trajectory views.
The searches are ``jevlin search "..."`` commands, counted by the default config.

The demo turns one thing on that a default install leaves off, ``[miner] turn_end``, so the views
show each turn's prompt, conclusion and tokens; ``--turn-end off`` shows what a default install
records instead. It writes only under one scratch directory, which it leaves for exploring and
names at the end with the command that removes it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from typing import Any

from jevlin_hooks import replay
from jevlin_hooks.base import spool
from jevlin_hooks.capture import lineage
from jevlin_hooks.privacy import ids
from jevlin_hooks.views import trajectory, trajectory_html

# The day's runs in the order they were captured (tools/capture_demo.py).
CLAUDE = ("basic", "resume", "compact", "aftercompact", "fork", "autocompact", "subagent", "subagent_fg",
          "failures", "apierror", "interrupt")
CODEX = ("basic", "resume", "failures", "compact", "subagent", "interrupt")
DEMO_CONFIG = """\
trace = "on"
[miner]
turn_end = {turn_end}
[ship]
sink = "local"
[search]
shell_commands = ["jevlin search"]
[daemon]
autostart = false
"""


def main(turn_end: bool = True) -> int:
    root = tempfile.mkdtemp(prefix="jevlin-demo-")
    home = os.path.join(root, "home")
    os.makedirs(home, mode=0o700)
    with open(os.path.join(home, "config.toml"), "w", encoding="utf-8") as f:
        f.write(DEMO_CONFIG.format(turn_end="true" if turn_end else "false"))
    if turn_end:
        print("This demo turns on `[miner] turn_end`, which a default install leaves off: the views then show\n"
              "each turn's prompt, conclusion and tokens. `jevlin-hooks demo --turn-end off` shows what a\n"
              "default install records (searches only).\n")
    else:
        print("Turn ends are off, as in a default install: searches only, no prompts, conclusions or tokens.\n")
    cache = _cache_files()
    t0 = time.monotonic()
    n = 0
    for harness, scenarios in (("claude-code", CLAUDE), ("codex", CODEX)):
        for scenario in scenarios:
            results = replay.replay(home, scenario, os.path.join(root, "transcripts", harness), harness)
            n += len(results)
            bad = [r for r in results if r.returncode != 0 or r.stdout]
            if bad:
                print(f"a hook misbehaved in {harness}/{scenario}: exit {bad[0].returncode}")
                return 1
    hooks_took = time.monotonic() - t0
    queued = spool.count(home, "new")
    os.environ["JEVLIN_HOME"] = home
    from jevlin_hooks.ship.service import Daemon

    t1 = time.monotonic()
    Daemon(home, once=True).run()
    daemon_took = time.monotonic() - t1
    left = spool.count(home, "new") + spool.count(home, "cur")
    runs = len(CLAUDE) + len(CODEX)
    sessions = _sessions()
    known = len(lineage.list_names(home))
    print(f"1. hooks: {n} real hook events from {runs} runs of the agents ({len(CLAUDE)} of Claude Code 2.1.328, "
          f"{len(CODEX)} of Codex 0.169.0; a run that resumes a session continues it, so {len(sessions)} "
          f"sessions) through {replay.ENTRY}, one process each, in {hooks_took:.1f}s; every hook exited 0 and "
          f"printed nothing")
    print(f"2. queue: {queued} records in {os.path.join(home, 'spool')}")
    print(f"3. daemon: drained once in {daemon_took:.1f}s (scrubbed, ids hashed) into {os.path.join(home, 'traces.db')}; "
          f"{left} left")
    threads = trajectory.build(trajectory.load_records(home))
    print("\n$ jevlin-hooks threads")
    print(trajectory.render_rows(trajectory.rows(threads)))
    key = ids.load_key(home, create=False)
    shown: set[str | None] = {t.id for t in trajectory.roots(threads)}
    quiet = [(h, prompt) for (h, sid), prompt in sessions.items() if key is None or ids.hash_id(sid, key) not in shown]
    import textwrap

    print()
    print(textwrap.fill(f"{len(sessions)} sessions ran (`status` says {known} kept). A thread is made of search "
                        f"records, so `threads` lists the {len(shown)} that searched; the other {len(quiet)} "
                        f"searched nothing:", 80))
    for h, prompt in quiet:
        print(f"  {h:<11} {_clip(prompt, 66)}")
    # the richest thread: the one with the most turns, then searches
    best = max(trajectory.roots(threads), key=lambda t: (len(t.turns), len(t.all_searches())))
    print(f"\n$ jevlin-hooks thread {best.id[:8]}")
    print(trajectory.render_text(best))
    page = os.path.join(root, f"thread-{best.id[:8]}.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(trajectory_html.render(best))
    sub = next((t for t in trajectory.roots(threads) if any(c for x in t.turns for c in x.children)), None)
    if sub is not None:
        sub_page = os.path.join(root, f"thread-{sub.id[:8]}.html")
        with open(sub_page, "w", encoding="utf-8") as f:
            f.write(trajectory_html.render(sub))
    if sub is not None and sub is not best:
        print(f"\n$ jevlin-hooks thread {sub.id[:8]}")
        print(trajectory.render_text(sub))
    sample = next((s for s in best.searches if s.get("history")), best.searches[0] if best.searches else None)
    if sample is not None:
        import json

        print("\none search record as the local store received it (ids hashed, text scrubbed):")
        print(json.dumps(sample, indent=2, sort_keys=True))
    print(f"\nHTML: {page}")
    if sub is not None:
        print(f"      {sub_page} (a thread with a subagent)")
    cli = _cli()
    print(f"\nExplore the same store (from {os.getcwd()}):")
    for args in ("threads", f"thread {best.id[:8]}", f"summarize {best.id[:8]}", "status"):
        print(f"  JEVLIN_HOME={home} {cli} {args}")
    print(f"\nLeft in place for that: {root} ({_size(root)}: the scratch JEVLIN_HOME,\n"
          f"the agents' transcripts, the HTML pages). Remove it with:\n  rm -rf {root}")
    made = sorted(_cache_files() - cache)
    if made:
        print(f"Also made: the scrubber's compiled rules, {', '.join(made)} (no data of yours; "
              "any jevlin-hooks rebuilds it when missing).")
    print("Nothing else was touched: no agent's settings, not ~/.jevlin, and no daemon is left running.")
    return 0


def _cache_files() -> set[str]:
    """The scrubber's compiled-rule cache files (privacy/engine/prefilter.py), the one thing the demo may
    write outside its scratch directory."""
    from jevlin_hooks.privacy.engine import prefilter

    where = prefilter.cache_dir()
    try:
        return {os.path.join(where, n) for n in os.listdir(where)}
    except OSError:
        return set()


def _size(root: str) -> str:
    total = 0
    for dirpath, _, names in os.walk(root):
        for n in names:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_size
            except OSError:
                pass
    return f"{total / 1e6:.1f} MB" if total >= 100_000 else f"{total // 1000} KB"


def _sessions() -> dict[tuple[str, str], str]:
    """(harness, session id) -> its first prompt, for every session the bundled runs made
    (subagents are part of their parent's session)."""
    out: dict[tuple[str, str], str] = {}
    for harness, scenarios in (("claude-code", CLAUDE), ("codex", CODEX)):
        for scenario in scenarios:
            for _, p in replay.scenario_events(scenario, harness):
                sid = p.get("session_id")
                if not isinstance(sid, str) or p.get("agent_id"):
                    continue
                key = (harness, sid)
                if not out.get(key) and isinstance(p.get("prompt"), str):
                    out[key] = p["prompt"]
                out.setdefault(key, "")
    return out


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _cli() -> str:
    """The command that runs this very jevlin-hooks, as it can be typed here: its name if PATH
    finds this one, else its path (relative when under the current directory)."""
    mine = os.path.join(os.path.dirname(sys.executable), "jevlin-hooks")
    if not os.path.exists(mine):
        return f"{sys.executable} -m jevlin_hooks.cli"
    found: Any = shutil.which("jevlin-hooks")
    if found and os.path.realpath(found) == os.path.realpath(mine):
        return "jevlin-hooks"
    rel = os.path.relpath(mine)
    return rel if not rel.startswith("..") else mine
