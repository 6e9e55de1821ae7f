"""64 hook processes at once on one session: no lost update, seqs exactly 1..64."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import queued, state_of

from jevlin_hooks import replay


def test_64_parallel_searches_get_distinct_seqs(home):
    base = {"session_id": "par", "prompt_id": "turn-1", "hook_event_name": "PreToolUse", "tool_name": "Bash"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_")}
    env["JEVLIN_HOME"] = home
    procs = []
    for i in range(64):
        payload = {**base, "tool_use_id": f"toolu_{i:03d}", "tool_input": {"command": f"jevlin search q{i}"}}
        p = subprocess.Popen([sys.executable, "-I", "-S", replay.ENTRY, "claude-code"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, env=env)
        procs.append((p, json.dumps(payload).encode()))
    for p, data in procs:  # write stdin only now, so all 64 race for the lock together
        p.stdin.write(data)
        p.stdin.close()
    for p, _ in procs:
        assert p.wait(60) == 0 and p.stdout.read() == b""
    st = state_of(home, "par")
    seqs = sorted(p["seq"] for p in st["pending"].values())
    assert seqs == list(range(1, 65)) and st["seq"] == 64
    # and closing them in parallel queues each exactly once
    procs = []
    for i in range(64):
        payload = {**base, "hook_event_name": "PostToolUse", "tool_use_id": f"toolu_{i:03d}",
                   "tool_input": {"command": f"jevlin search q{i}"}, "tool_response": {"stdout": "r"}}
        procs.append(subprocess.Popen([sys.executable, "-I", "-S", replay.ENTRY, "claude-code"],
                                      stdin=subprocess.PIPE, env=env))
        procs[-1].stdin.write(json.dumps(payload).encode())
        procs[-1].stdin.close()
    for p in procs:
        assert p.wait(60) == 0
    recs = queued(home, "search")
    assert sorted(r["seq"] for r in recs) == list(range(1, 65))
    assert len({r["record_id"] for r in recs}) == 64
    assert {r["query"]: r["seq"] for r in recs} == {p_["query"]: p_["seq"] for p_ in st["pending"].values()}


def test_two_sessions_in_one_workspace_never_mix(home):
    for sid in ("A", "B"):
        for ev in ("SessionStart", "UserPromptSubmit"):
            replay.run_hook(home, {"session_id": sid, "prompt_id": f"{sid}-t", "hook_event_name": ev, "cwd": "/w"})
    for i, sid in enumerate(["A", "B", "A", "A"]):
        replay.run_hook(home, {"session_id": sid, "prompt_id": f"{sid}-t", "hook_event_name": "PreToolUse",
                               "tool_name": "WebSearch", "tool_input": {"query": f"{sid}{i}"}, "tool_use_id": f"c{i}",
                               "cwd": "/w"})
    assert state_of(home, "A")["seq"] == 3 and state_of(home, "B")["seq"] == 1
    assert {p["query"] for p in state_of(home, "B")["pending"].values()} == {"B1"}
