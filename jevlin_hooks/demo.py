"""``jevlin-hooks demo``: real sessions through the whole path, in a scratch home.

Claude Code 2.1.328 and Codex 0.169.0 sessions, captured from the real programs (hook payloads
and transcripts, bundled in the package), go through the real hook entry point (one process per
event, as the agents run it) -> the queue -> the daemon, drained once, scrubbing and hashing ->
the local SQLite store -> the trajectory views. The captured sessions' "search" is a probe
script standing in for ``jevlin search``, so the demo's config counts that script as a search.
"""

from __future__ import annotations

import os
import tempfile
import time

from jevlin_hooks import replay
from jevlin_hooks.base import spool
from jevlin_hooks.views import trajectory, trajectory_html

CLAUDE = ("basic", "resume", "compact", "subagent", "autocompact", "failures", "interrupt", "apierror")
CODEX = ("basic", "resume", "compact", "subagent", "interrupt", "failures")
DEMO_CONFIG = """\
trace = "on"
[miner]
turn_end = true
[ship]
sink = "local"
[search]
shell_commands = ["jevlin search", "/opt/probe/tool_probe.sh"]
[daemon]
autostart = false
"""


def main() -> int:
    root = tempfile.mkdtemp(prefix="jevlin-demo-")
    home = os.path.join(root, "home")
    os.makedirs(home, mode=0o700)
    with open(os.path.join(home, "config.toml"), "w", encoding="utf-8") as f:
        f.write(DEMO_CONFIG)
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
    print(f"1. hooks: {n} real hook events ({len(CLAUDE)} Claude Code 2.1.328 and {len(CODEX)} Codex 0.169.0 "
          f"sessions) through {replay.ENTRY}, one process each, in {hooks_took:.1f}s; every hook exited 0 and "
          f"printed nothing")
    print(f"2. queue: {queued} records in {os.path.join(home, 'spool')}")
    print(f"3. daemon: drained once in {daemon_took:.1f}s (scrubbed, ids hashed) into {os.path.join(home, 'traces.db')}; "
          f"{left} left")
    threads = trajectory.build(trajectory.load_records(home))
    print("\n$ jevlin-hooks threads")
    print(trajectory.render_rows(trajectory.rows(threads)))
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
    print(f"Explore: JEVLIN_HOME={home} jevlin-hooks threads | thread ID | summarize ID")
    return 0
