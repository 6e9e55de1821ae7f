"""``jevlin-hooks demo``: real Claude Code sessions through the real hooks, in a scratch home.

The bundled sessions were captured from Claude Code 2.1.328 (hook payloads and transcripts).
Their "search" is a probe script standing in for ``jevlin search``, so the demo's config
also counts that script as a search command.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time

from jevlin_hooks import lineage, replay, spool

SCENARIOS = ("basic", "resume", "compact", "subagent", "autocompact", "failures", "interrupt", "apierror")
DEMO_CONFIG = """\
trace = "on"
[miner]
turn_end = true
[search]
shell_commands = ["jevlin search", "/opt/probe/tool_probe.sh"]
tools = ["WebSearch", "web_search", "mcp__jevlin__*"]
[daemon]
autostart = false
"""


def _short(raw: str | None) -> str:
    return (raw or "-")[:8]


def _clip(text: str, n: int = 60) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def render(home: str) -> list[str]:
    out: list[str] = []
    records = spool.read_all(home)
    searches = [r for r in records if r.get("kind") == "search"]
    for name in lineage.list_names(home):
        st = lineage.read(home, name)
        if not st:
            continue
        out.append(
            f"thread {_short(st['session_id'])}  {st['harness']}  sources {','.join(st['sources']) or '-'}"
            f"  windows {st['window'] + 1}  searches {st['searches']}  status {st['status']}"
        )
        for t in st["turns"]:
            tok = t.get("tokens") or {}
            out.append(
                f"  turn {_short(t['id'])}  window {t['window']}  {t['outcome']:<11} tools {','.join(t['tools']) or '-'}"
                f"  searches {t['searches']}  tokens in/out {tok.get('input', 0)}/{tok.get('output', 0)}"
            )
            for r in searches:
                if r["turn_id"] == t["id"] and r["parent_session_id"] is None and r["session_id"] == st["session_id"]:
                    out.append(
                        f"    search seq {r['seq']}  {r['status']:<11} {r['duration_ms']} ms  query {_clip(r['query'], 40)!r}"
                    )
                    out.append(f"      history: {_clip(r['history']) or '(none before the call)'!r}")
        for aid, a in st["agents"].items():
            if not a.get("searches"):
                continue
            out.append(f"  subagent {_short(aid)} ({a.get('agent_type') or '?'}) parent thread {_short(st['session_id'])}")
            for r in searches:
                if r["session_id"] == aid:
                    out.append(f"    search seq {r['seq']}  {r['status']:<11} query {_clip(r['query'], 40)!r}")
    kinds: dict[str, int] = {}
    for r in records:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    out.append("")
    out.append(f"queued records: {len(records)} ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))})"
               f" in {os.path.join(home, 'spool', 'new')}")
    if searches:
        out.append("one of them, as queued (raw: scrubbing and hashing happen before anything is sent):")
        out.append(json.dumps(searches[0], indent=2)[:2000])
    return out


def main(keep: bool = False) -> int:
    root = tempfile.mkdtemp(prefix="jevlin-demo-")
    home = os.path.join(root, "home")
    os.makedirs(home, mode=0o700)
    with open(os.path.join(home, "config.toml"), "w", encoding="utf-8") as f:
        f.write(DEMO_CONFIG)
    t0 = time.monotonic()
    n = 0
    try:
        for scenario in SCENARIOS:
            results = replay.replay(home, scenario, os.path.join(root, "transcripts"))
            n += len(results)
            bad = [r for r in results if r.returncode != 0 or r.stdout]
            if bad:
                print(f"hook misbehaved in {scenario}: exit {bad[0].returncode}")
                return 1
        took = time.monotonic() - t0
        print(f"replayed {n} real Claude Code 2.1.328 hook events ({len(SCENARIOS)} scenarios) through "
              f"{replay.ENTRY} in {took:.1f}s; every hook exited 0 and printed nothing\n")
        print("\n".join(render(home)))
        if keep:
            print(f"\nkept: JEVLIN_HOME={home}")
        return 0
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
