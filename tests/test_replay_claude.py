"""Each captured Claude Code 2.1.328 scenario through the real entry point, as subprocesses."""

from __future__ import annotations

import json
import os

from conftest import hook_errors, queued, replay_scenario, run, state_of

from jevlin_hooks import replay

S_MAIN = "9291ef5c-ce95-4fb4-83c9-c62badd920cd"
S_SUB = "9c6348be-271d-4ac2-abe5-e2d8cbfe883e"
S_SUB_FG = "ddd70b56-62fc-470c-bcd3-ba6aaaf7725c"
S_AUTO = "0dd28daf-ed0c-46b7-9bf1-f09702bcdaa2"
S_FAIL = "08a94085-52b3-4399-980d-454f803fc902"
S_API = "2648408a-221e-4a02-801f-b3f9542ff594"
S_INT = "d3321331-e699-4ede-9de7-2075948b0058"
S_FORK = "48e03e57-3a71-4e7b-955e-112433fca321"
AGENT = "a055573b55a64ddb3"
HTTPX_ANSWER = ("Our convention: retries=3 on the transport for connect errors, tenacity with exponential backoff "
                "for idempotent calls, and webhook handlers answer within 5 s. I'll move the processor call out "
                "of the webhook handler onto the queue.")


def replay_ok(home: str, scenario: str, tmp_path) -> None:
    for p in replay_scenario(home, scenario, str(tmp_path / "transcripts")):
        assert p.returncode == 0 and p.stdout == b""
    assert hook_errors(home) == ""


def test_basic_one_search_with_history_and_turn_end(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    st = state_of(probe_home, S_MAIN)
    assert st["window"] == 0 and st["seq"] == 1 and st["status"] == "ended"
    (turn,) = st["turns"]
    assert turn["id"] == "da67ffb2-675f-4f3d-b8a0-db8c673d90c2"
    assert turn["outcome"] == "completed" and turn["tools"] == ["Bash"]
    assert turn["tokens"] == {"input": 200, "output": 40, "cache_read": 0, "cache_creation": 0}
    assert turn["model"] == "claude-opus-5-5"
    (rec,) = queued(probe_home, "search")
    assert rec["session_id"] == S_MAIN and rec["turn_id"] == turn["id"]
    assert rec["call_id"] == "toolu_cc_0001" and rec["seq"] == 1 and rec["window"] == 0
    assert rec["history"] == ("Before touching the webhook client I'll check how we configure httpx retries here, "
                              "so the fix follows the team's convention.")
    assert rec["status"] == "ok" and rec["duration_ms"] == 190 and rec["host_meta"]["model"] == "claude-opus-5-5"
    assert rec["query"] == "how do we configure httpx retries and backoff for outbound calls"
    assert rec["parent_session_id"] is None and rec["v"] == 1 and len(rec["record_id"]) == 32
    (te,) = queued(probe_home, "turn_end")
    assert te["outcome"] == "completed" and te["final_message"] == HTTPX_ANSWER
    assert te["prompt"] == ("Our refund webhook times out when Stripe retries it. How should the httpx client "
                            "retry here?") and te["tools"] == ["Bash"] and te["search_count"] == 1
    assert te["tokens"]["input"] == 200 and te["model"] == "claude-opus-5-5"


def test_resume_continues_the_thread_then_compact_raises_window(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    replay_ok(probe_home, "resume", tmp_path)
    st = state_of(probe_home, S_MAIN)
    assert st["sources"] == ["startup", "resume"]
    assert st["seq"] == 2 and st["window"] == 0 and len(st["turns"]) == 2
    recs = queued(probe_home, "search")
    assert [r["seq"] for r in recs] == [1, 2]
    assert {r["session_id"] for r in recs} == {S_MAIN}
    replay_ok(probe_home, "compact", tmp_path)
    st = state_of(probe_home, S_MAIN)
    assert st["window"] == 1, "PreCompact, SubagentStop, SessionStart(compact), PostCompact count once"
    assert st["seq"] == 2


def test_duplicated_compaction_events_count_once(probe_home, tmp_path):
    events = [p for _, p in replay.scenario_events("compact")]
    for p in events[:-1] + events[1:-1] + [events[-1]]:  # every compaction event twice
        run(probe_home, p)
    assert state_of(probe_home, S_MAIN)["window"] == 1


def test_autocompact_raises_window_and_keeps_seq(probe_home, tmp_path):
    replay_ok(probe_home, "autocompact", tmp_path)
    st = state_of(probe_home, S_AUTO)
    assert st["window"] == 1 and st["seq"] == 1
    (rec,) = queued(probe_home, "search")
    assert rec["window"] == 0  # the search ran before the compaction
    assert st["agents"] == {}, "the compaction's own SubagentStop is not a subagent"


def test_background_subagent_search_names_its_parent(probe_home, tmp_path):
    replay_ok(probe_home, "subagent", tmp_path)
    st = state_of(probe_home, S_SUB)
    agent = st["agents"][AGENT]
    assert agent["agent_type"] == "general-purpose" and agent["status"] == "ended"
    assert agent["parent_call"] == "toolu_cc_0020"
    (rec,) = queued(probe_home, "search")
    assert rec["session_id"] == AGENT and rec["parent_session_id"] == S_SUB
    assert rec["seq"] == 1 and rec["status"] == "ok"
    assert rec["turn_id"] == "35b2b214-370c-401b-91e9-a88225d023b2"
    assert rec["call_id"] == "toolu_cc_0022"
    assert rec["host_meta"]["agent_type"] == "general-purpose"
    # The parent's Stop came while the subagent still ran: its search was not cut short.
    assert [t["outcome"] for t in st["turns"]] == ["completed", "completed"]
    assert st["turns"][0]["searches"] == 1  # counted while the subagent ran
    assert st["seq"] == 0, "the root thread made no search of its own"


def test_foreground_subagent(probe_home, tmp_path):
    replay_ok(probe_home, "subagent_fg", tmp_path)
    st = state_of(probe_home, S_SUB_FG)
    recs = queued(probe_home, "search")
    assert recs and all(r["parent_session_id"] == S_SUB_FG for r in recs)
    assert all(r["session_id"] in st["agents"] for r in recs)


def test_fork_starts_a_new_thread(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    (name, start), *_ = replay.scenario_events("fork")
    assert start["source"] == "fork", name
    run(probe_home, start)
    fork = state_of(probe_home, S_FORK)
    assert fork["sources"] == ["fork"] and fork["seq"] == 0 and fork["window"] == 0
    assert state_of(probe_home, S_MAIN)["seq"] == 1


def test_interrupted_search_is_queued_at_session_end(probe_home, tmp_path):
    replay_ok(probe_home, "interrupt", tmp_path)
    (rec,) = queued(probe_home, "search")
    assert rec["status"] == "interrupted" and rec["seq"] == 1
    st = state_of(probe_home, S_INT)
    assert st["pending"] == {} and st["turns"][0]["outcome"] == "interrupted"
    (turn,) = queued(probe_home, "turn_end")  # the tokens it had used by then, from the transcript
    assert turn["outcome"] == "interrupted" and turn["tokens"]["input"] > 0 and turn["tokens"]["output"] > 0


def test_stop_failure_outcome(probe_home, tmp_path):
    replay_ok(probe_home, "apierror", tmp_path)
    st = state_of(probe_home, S_API)
    (turn,) = st["turns"]
    assert turn["outcome"] == "error" and turn["error"] == "invalid_request"
    assert queued(probe_home) == [], "no search in the turn: no turn_end even when opted in"


def test_failures_non_search_tools_are_named_not_counted(probe_home, tmp_path):
    replay_ok(probe_home, "failures", tmp_path)
    st = state_of(probe_home, S_FAIL)
    assert st["seq"] == 0 and st["turns"][0]["tools"] == ["Bash", "Write"]
    assert queued(probe_home) == []


def test_failed_search_is_queued_with_error_status(probe_home, tmp_path):
    events = [p for _, p in replay.scenario_events("failures")]
    for p in events:
        if p.get("tool_input", {}).get("command", "").startswith("pytest -q"):
            p = {**p, "tool_input": {**p["tool_input"], "command": "jevlin search 'will fail'; exit 3"}}
        run(probe_home, p)
    (rec,) = queued(probe_home, "search")
    assert rec["status"] == "error" and rec["query"] == "will fail" and rec["duration_ms"] == 189


def test_search_config_decides_what_counts(home, tmp_path):
    """The default [search] counts the captured `jevlin search "..."`; a config that names only
    another command counts nothing."""
    replay_ok(home, "basic", tmp_path)
    assert state_of(home, S_MAIN)["seq"] == 1 and [r["kind"] for r in queued(home)] == ["search"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.toml").write_text('[search]\nshell_commands = ["/opt/probe/tool_probe.sh"]\n'
                                       '[daemon]\nautostart = false\n')
    replay_ok(str(other), "basic", tmp_path)
    assert state_of(str(other), S_MAIN)["seq"] == 0 and queued(str(other)) == []


def test_turn_end_only_when_opted_in(home, tmp_path):
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('[search]\nshell_commands = ["jevlin search"]\n[daemon]\nautostart = false\n')
    replay_ok(home, "basic", tmp_path)
    assert [r["kind"] for r in queued(home)] == ["search"]


def test_trace_off_queues_nothing(probe_home, tmp_path):
    for _, p in replay.scenario_events("basic"):
        run(probe_home, p, env={"JEVLIN_TRACE": "off"})
    assert queued(probe_home) == []
    with open(os.path.join(probe_home, "config.toml"), "a") as f:
        f.write("")
    cfg = open(os.path.join(probe_home, "config.toml")).read()
    with open(os.path.join(probe_home, "config.toml"), "w") as f:
        f.write('trace = "off"\n' + cfg)
    replay_ok(probe_home, "basic", tmp_path)
    assert queued(probe_home) == []


def test_duplicated_events_change_nothing(probe_home, tmp_path):
    events = [p for _, p in replay.scenario_events("basic")]
    mapping = replay.lay_transcripts("basic", str(tmp_path / "t"))
    for p in events:
        run(probe_home, replay.rewrite(p, mapping))
        run(probe_home, replay.rewrite(p, mapping))
    st = state_of(probe_home, S_MAIN)
    assert st["seq"] == 1 and len(st["turns"]) == 1
    assert len(queued(probe_home, "search")) == 1 and len(queued(probe_home, "turn_end")) == 1


def test_events_for_a_session_never_seen_starting(probe_home, tmp_path):
    events = [p for name, p in replay.scenario_events("basic") if "SessionStart" not in name and "UserPrompt" not in name]
    for p in events:
        run(probe_home, p)
    st = state_of(probe_home, S_MAIN)
    assert st["start_seen"] is False and st["seq"] == 1
    assert st["turns"][0]["outcome"] == "completed"
    assert len(queued(probe_home, "search")) == 1


def test_subagent_stop_without_start(probe_home):
    p = {"session_id": "s-x", "hook_event_name": "SubagentStop", "agent_id": "agent-lost",
         "agent_type": "Explore", "prompt_id": "p1", "last_assistant_message": "done"}
    run(probe_home, p)
    st = state_of(probe_home, "s-x")
    assert st["agents"]["agent-lost"]["status"] == "ended"


def test_stop_before_transcript_flushed(probe_home, tmp_path):
    """Stop arrives while the transcript still lacks the final message: bounded wait, then go on."""
    events = dict((name.split("-")[-1][:-5], p) for name, p in replay.scenario_events("basic"))
    t = tmp_path / "late.jsonl"
    t.write_text("")
    for name in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"):
        run(probe_home, {**events[name], "transcript_path": str(t)})
    (te,) = queued(probe_home, "turn_end")
    assert te["final_message"] == HTTPX_ANSWER
    (rec,) = queued(probe_home, "search")
    assert rec["history"] == "" and rec["host_meta"]["history_source"] == "none"


def test_post_tool_use_waits_for_a_call_flushed_late(probe_home, tmp_path):
    """PostToolUse runs before Claude Code wrote the call to its transcript: the hook polls
    (reading only what is appended) and still finds the text before the call."""
    import threading

    events = dict((name.split("-")[-1][:-5], p) for name, p in replay.scenario_events("basic"))
    call = events["PostToolUse"]["tool_use_id"]
    t = tmp_path / "late.jsonl"
    head = [{"type": "user", "promptId": "p", "message": {"role": "user", "content": "go"}},
            {"type": "assistant", "message": {"id": "m1", "model": "claude-opus-5-5", "content": [
                {"type": "text", "text": "Looking it up."}]}}]
    t.write_text("".join(json.dumps(x) + "\n" for x in head) + "x" * 300_000 + "\n")  # an earlier, long line
    late = {"type": "assistant", "message": {"id": "m2", "model": "claude-opus-5-5", "content": [
        {"type": "text", "text": "Searching."}, {"type": "tool_use", "id": call, "name": "Bash", "input": {}}]}}
    for name in ("SessionStart", "UserPromptSubmit", "PreToolUse"):
        run(probe_home, {**events[name], "transcript_path": str(t)})
    timer = threading.Timer(0.12, lambda: t.open("a").write(json.dumps(late) + "\n"))
    timer.start()
    run(probe_home, {**events["PostToolUse"], "transcript_path": str(t)})
    timer.join()
    (rec,) = queued(probe_home, "search")
    assert rec["history"] == "Looking it up.\n\nSearching." and rec["host_meta"]["history_source"] == "transcript"
    from jevlin_hooks.capture import transcript

    assert transcript.history(str(t), call) == rec["history"]  # what one full read finds
