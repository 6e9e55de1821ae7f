"""Each captured Codex 0.169.0 scenario through the real entry point, as subprocesses."""

from __future__ import annotations

from conftest import hook_errors, queued, replay_scenario, run, state_of

from jevlin_hooks import replay

S_BASIC = "01a22c38-e614-7e11-bb48-4d479fecf16f"
S_COMPACT = "01a22c38-fecb-71a0-bd57-a110ec49d94a"
S_SUB = "01a22c39-07b3-7fa3-8cd2-43da842c95d8"
CHILD = "01a22c39-089f-77f0-a9d0-057727f9c257"
S_INT = "01a22c39-384f-7782-998a-7a32f5b5e2aa"
S_FAIL = "01a22c38-f6e1-7761-8769-6e9f812812aa"


def replay_ok(home, scenario, tmp_path):
    for p in replay_scenario(home, scenario, str(tmp_path / "t"), harness="codex"):
        assert p.returncode == 0 and p.stdout == b"", p
    assert hook_errors(home) == ""


def test_basic_search_and_notify_counted_once(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    st = state_of(probe_home, S_BASIC, "codex")
    assert st["seq"] == 1 and len(st["turns"]) == 1 and st["turns"][0]["outcome"] == "completed"
    (rec,) = queued(probe_home, "search")
    assert rec["harness"] == "codex" and rec["call_id"] == "call_fake0002" and rec["seq"] == 1
    assert rec["turn_id"] == "01a22c38-e624-7d43-9b69-f48d39610cfd" and rec["history"] == ""
    assert rec["status"] == "ok"
    assert len(queued(probe_home, "turn_end")) == 1, "Stop and notify describe one turn"


def test_resume_continues(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    replay_ok(probe_home, "resume", tmp_path)
    st = state_of(probe_home, S_BASIC, "codex")
    assert st["sources"] == ["startup", "resume"] and st["seq"] == 2 and len(st["turns"]) == 2


def test_compact_raises_window_once(probe_home, tmp_path):
    replay_ok(probe_home, "compact", tmp_path)
    st = state_of(probe_home, S_COMPACT, "codex")
    assert st["window"] == 1 and st["seq"] == 1
    (rec,) = queued(probe_home, "search")
    assert rec["window"] == 0


def test_subagent_search_goes_to_child_thread(probe_home, tmp_path):
    replay_ok(probe_home, "subagent", tmp_path)
    st = state_of(probe_home, S_SUB, "codex")
    assert CHILD in st["agents"] and st["agents"][CHILD]["status"] == "ended"
    assert st["agents"][CHILD]["parent_call"] == "call_fake0002"  # the spawn_agent call
    (rec,) = queued(probe_home, "search")
    assert rec["session_id"] == CHILD and rec["parent_session_id"] == S_SUB and rec["seq"] == 1
    assert rec["turn_id"] == "01a22c39-08a7-7ea3-97c3-b254ca2ccb2c", "the child's own turn"
    # the child's notify went to the root lineage, not a new thread; the root turn counted once
    assert [t["outcome"] for t in st["turns"]] == ["completed"]
    assert not [n for n in __import__("os").listdir(probe_home + "/sessions") if CHILD in n]


def test_interrupt(probe_home, tmp_path):
    replay_ok(probe_home, "interrupt", tmp_path)
    (rec,) = queued(probe_home, "search")
    assert rec["status"] == "interrupted"
    assert state_of(probe_home, S_INT, "codex")["turns"][0]["outcome"] == "interrupted"


def test_failures_not_searches(probe_home, tmp_path):
    replay_ok(probe_home, "failures", tmp_path)
    assert state_of(probe_home, S_FAIL, "codex")["seq"] == 0


def test_notify_alone_for_codex_without_hooks(probe_home):
    """Codex versions without hooks only run `notify`: each one is a turn, counted once."""
    notify = next(p for n, p in replay.scenario_events("basic", "codex") if n.endswith("notify.json"))
    run(probe_home, notify, harness="codex")
    run(probe_home, notify, harness="codex")
    st = state_of(probe_home, S_BASIC, "codex")
    assert len(st["turns"]) == 1 and st["turns"][0]["outcome"] == "completed"


def test_notify_chains_the_users_program(probe_home, tmp_path):
    import json
    import os
    import subprocess
    import sys
    import time

    out = tmp_path / "chained.txt"
    prog = tmp_path / "prev-notify"
    prog.write_text(f"#!/bin/sh\nprintf '%s' \"$1\" > {out}\n")
    prog.chmod(0o755)
    notify = next(p for n, p in replay.scenario_events("basic", "codex") if n.endswith("notify.json"))
    arg = json.dumps(notify)
    p = subprocess.run([sys.executable, "-I", "-S", replay.ENTRY, "codex-notify", "--then", str(prog), arg],
                       env={**os.environ, "JEVLIN_HOME": probe_home}, capture_output=True)
    assert p.returncode == 0 and p.stdout == b""
    for _ in range(100):
        if out.exists() and out.read_text():
            break
        time.sleep(0.05)
    assert json.loads(out.read_text()) == notify
    assert len(state_of(probe_home, S_BASIC, "codex")["turns"]) == 1


def test_turn_tokens_from_the_rollout(probe_home, tmp_path):
    replay_ok(probe_home, "compact", tmp_path)
    (te,) = queued(probe_home, "turn_end")
    assert te["tokens"] == {"input": 600000, "output": 60, "cache_read": 0, "cache_creation": 0}
    assert te["model"] == "gpt-5.1-codex"
