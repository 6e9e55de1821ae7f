"""Each captured Codex 0.169.0 scenario through the real entry point, as subprocesses."""

from __future__ import annotations

from conftest import hook_errors, queued, replay_scenario, run, state_of

from jevlin_hooks import replay

S_BASIC = "01a22d85-886f-7523-a6d1-e906f979197e"
S_COMPACT = "01a22d85-a879-7881-8b20-0eba286a156a"
S_SUB = "01a22d85-b98b-7e83-b1fd-6a6581ee6cd1"
CHILD = "01a22d85-bc2a-78e1-ba2a-fcd302153704"
S_INT = "01a22d85-c98c-7fc3-8247-71a5558ffdc5"
S_FAIL = "01a22d85-9db1-7720-ac87-715d1e30f8ad"


def replay_ok(home, scenario, tmp_path):
    for p in replay_scenario(home, scenario, str(tmp_path / "t"), harness="codex"):
        assert p.returncode == 0 and p.stdout == b"", p
    assert hook_errors(home) == ""


def test_basic_search_and_notify_counted_once(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    st = state_of(probe_home, S_BASIC, "codex")
    assert st["seq"] == 1 and len(st["turns"]) == 1 and st["turns"][0]["outcome"] == "completed"
    (rec,) = queued(probe_home, "search")
    assert rec["harness"] == "codex" and rec["call_id"] == "call_cx_0003" and rec["seq"] == 1
    assert rec["turn_id"] == "01a22d85-8881-7e83-825f-fd1bd4e94d50" and rec["history"] == ""
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
    assert st["window"] == 1 and st["seq"] == 2
    recs = queued(probe_home, "search")
    assert [(r["seq"], r["window"]) for r in recs] == [(1, 0), (2, 1)], "one search before the compaction, one after"


def test_subagent_search_goes_to_child_thread(probe_home, tmp_path):
    replay_ok(probe_home, "subagent", tmp_path)
    st = state_of(probe_home, S_SUB, "codex")
    assert CHILD in st["agents"] and st["agents"][CHILD]["status"] == "ended"
    assert st["agents"][CHILD]["parent_call"] == "call_cx_0027"  # the spawn_agent call
    (rec,) = queued(probe_home, "search")
    assert rec["session_id"] == CHILD and rec["parent_session_id"] == S_SUB and rec["seq"] == 1
    assert rec["turn_id"] == "01a22d85-bc31-7090-ae9e-d593763a069e", "the child's own turn"
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
    # four model answers: the first reports a 300000-token context (so Codex compacts), then the
    # compaction's summary, the search after it and the final answer at 100 in / 20 out each
    assert te["tokens"] == {"input": 300300, "output": 80, "cache_read": 0, "cache_creation": 0}
    assert te["model"] == "gpt-5.1-codex"
