"""The bundled captures (jevlin_hooks/harnesses/<folder>/data, made by tools/capture_demo.py) are what the demo and
the replay tests say they are: real `jevlin search` questions, one id per call, and every
transcript or rollout a session wrote, bundled for the run that used it."""

from __future__ import annotations

import os

import pytest

from jevlin_hooks import demo, replay

RUNS = [("claude-code", s) for s in demo.CLAUDE] + [("codex", s) for s in demo.CODEX]


def calls(harness: str) -> list[tuple[str, str]]:
    """(call id, command) of every call the harness announced before running it."""
    out = []
    for h, scenario in RUNS:
        if h != harness:
            continue
        for _, p in replay.scenario_events(scenario, harness):
            if p.get("hook_event_name") == "PreToolUse":
                cmd = (p.get("tool_input") or {}).get("command") if isinstance(p.get("tool_input"), dict) else None
                out.append((p["tool_use_id"], cmd or ""))
    return out


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_call_ids_are_unique_across_the_day(harness):
    ids = [c for c, _ in calls(harness)]
    assert len(ids) > 5 and len(ids) == len(set(ids)), "a call id names one call"


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_searches_are_real_questions(harness):
    searches = [cmd for _, cmd in calls(harness) if "search" in cmd]
    assert len(searches) >= 5
    for cmd in searches:
        assert cmd.startswith('jevlin search "') and cmd.endswith('"') and len(cmd.split()) >= 5, cmd
    assert not [cmd for _, cmd in calls(harness) if "/opt/probe" in cmd]


@pytest.mark.parametrize(("harness", "scenario"), RUNS)
def test_every_session_file_a_run_names_is_bundled(harness, scenario):
    # A compaction's own SubagentStop (agent_type "") names a transcript Claude Code never writes.
    named = {p[k] for _, p in replay.scenario_events(scenario, harness)
             for k in ("transcript_path", "agent_transcript_path") if isinstance(p.get(k), str)
             and not (k == "agent_transcript_path" and p.get("agent_type") == "")}
    bundled = replay.session_files(scenario, harness)
    assert named and named <= set(bundled), named - set(bundled)
    assert all(os.path.getsize(f) > 0 for f in bundled.values())
