"""A session that runs thousands of subagents keeps a bounded lineage file: finished subagents
leave it (their ids and the searches they counted toward an open turn stay), with the captured
Claude Code payloads of a foreground subagent."""

from __future__ import annotations

import os

from conftest import queued, run, state_of

from jevlin_hooks import replay
from jevlin_hooks.capture import engine, hook, lineage

SID = "orchestrator"


def subagent_events(i: int, prompt_id: str) -> list[dict]:
    """One foreground subagent's events (Agent call, start, its search, stop, Agent result)."""
    evs = replay.subagent_shapes()
    out = []
    for p in evs:
        q = {**p, "session_id": SID, "prompt_id": prompt_id, "transcript_path": "/nonexistent/t.jsonl"}
        if "agent_id" in q:
            q["agent_id"] = f"a{i:016x}"
            q["agent_transcript_path"] = "/nonexistent/a.jsonl"
        if q.get("tool_name") == "Agent":
            q["tool_use_id"] = f"toolu_spawn{i:06d}"
        elif "tool_use_id" in q:
            q["tool_use_id"] = f"toolu_sub{i:06d}"
        out.append(q)
    return out


def prompt(n: int) -> tuple[str, dict]:
    pid = f"prompt-{n}"
    start = [p for _, p in replay.scenario_events("subagent_fg") if p["hook_event_name"] == "UserPromptSubmit"][0]
    return pid, {**start, "session_id": SID, "prompt_id": pid}


def stop(pid: str) -> dict:
    p = [p for _, p in replay.scenario_events("subagent_fg") if p["hook_event_name"] == "Stop"][0]
    return {**p, "session_id": SID, "prompt_id": pid, "transcript_path": "/nonexistent/t.jsonl"}


def size(home: str) -> int:
    return os.path.getsize(os.path.join(home, "sessions", lineage.file_name("claude-code", SID) + ".json"))


def test_finished_subagents_leave_the_lineage_through_the_real_hook(probe_home):
    n = engine.AGENTS_ENDED_KEEP + 4
    pid, p = prompt(0)
    run(probe_home, p)
    for i in range(n):
        for ev in subagent_events(i, pid):
            run(probe_home, ev)
    st = state_of(probe_home, SID)
    assert len(st["agents"]) == engine.AGENTS_ENDED_KEEP
    assert st["agents_gone"] == [f"a{i:016x}" for i in range(4)]
    # the pruned ones' searches still count toward the turn still open
    assert st["agent_searches"] == {pid: 4}
    # a duplicated SubagentStop of a pruned subagent changes nothing and brings nothing back
    run(probe_home, subagent_events(0, pid)[4])
    assert state_of(probe_home, SID)["agents"] == st["agents"]
    run(probe_home, stop(pid))
    (te,) = queued(probe_home, "turn_end")
    assert te["search_count"] == n  # every subagent's search, pruned or kept
    searches = queued(probe_home, "search")
    assert len(searches) == n and {r["seq"] for r in searches} == {1}  # each child thread's own seq
    assert len({r["session_id"] for r in searches}) == n
    assert state_of(probe_home, SID)["agent_searches"] == {}  # counted once, then gone


def test_lineage_stays_small_after_thousands_of_subagents(probe_home, monkeypatch):
    """The hook's own code (hook.handle: normalize, engine, locked write, spool), in-process for
    speed; the subprocess test above shows the same path through the real entry point."""
    monkeypatch.setenv("CLAUDE_PID", str(os.getpid()))
    sizes = {}
    done = 0
    for turn in range(3):
        pid, p = prompt(turn)
        hook.handle("claude-code", p, probe_home)
        for _ in range(400):
            evs = subagent_events(done, pid)
            if done % 50:  # most subagents do no search here (a search fsyncs a record: slow to test)
                evs = [evs[0], evs[1], evs[4], evs[5]]
            for ev in evs:
                hook.handle("claude-code", ev, probe_home)
            done += 1
        hook.handle("claude-code", stop(pid), probe_home)
        sizes[done] = size(probe_home)
    st = state_of(probe_home, SID)
    assert len(st["agents"]) == engine.AGENTS_ENDED_KEEP and len(st["agents_gone"]) == engine.CLOSED_KEEP
    assert sizes[1200] < 64 * 1024
    # 800 more subagents after both bounds were reached add two turns and 16 closed calls to the
    # file, not 800 entries (unpruned, each one was about 250 bytes)
    assert sizes[1200] - sizes[400] < 3000, sizes
    assert [t["search_count"] for t in queued(probe_home, "turn_end")] == [8, 8, 8]
