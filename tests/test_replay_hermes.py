"""Each captured Hermes 0.19.0 scenario (shared/reference/hermes, the events `install` subscribes)
through the real entry point, as subprocesses, in the order Hermes fired them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from conftest import hook_errors, queued, run_hook, states

from jevlin_hooks import replay
from jevlin_hooks.capture import lineage

BASIC = "20261130_152014_efa92f"
ROT = "20261130_152243_01adff"
ROTATED = ("20261130_152313_af465f", "20261130_152314_ecfff9", "20261130_152315_efc9f5")
INPLACE = "20261130_152210_60ecba"
PARENT_Z, CHILD_Z = "20261130_152348_58d941", "20261130_152351_4a9eae"
PARENT_BG, CHILD_BG = "20261130_152318_98668a", "20261130_152331_23c19e"


def replay_ok(home: str, *scenarios: str) -> None:
    for scenario in scenarios:
        events = replay.scenario_events(scenario, "hermes")
        assert events, scenario
        for _, payload in events:
            p = run_hook(home, payload, "hermes")
            assert p.returncode == 0 and p.stdout == b"", p
    assert hook_errors(home) == ""


def state(home: str, sid: str) -> dict[str, Any]:
    st = lineage.read(home, lineage.file_name("hermes", sid))
    assert st is not None, sid
    return st


def test_basic_resume_continue_one_thread_with_history(probe_home):
    replay_ok(probe_home, "basic", "resume", "continue")
    recs = queued(probe_home, "search")
    assert [r["query"] for r in recs] == ["x", "y", "w"] and [r["seq"] for r in recs] == [1, 2, 3]
    assert {r["session_id"] for r in recs} == {BASIC} and len({r["turn_id"] for r in recs}) == 3
    assert [r["history"] for r in recs] == ["I will search for x first.", "Searching again, this time for y.",
                                            "Continuing: searching for w."]
    assert recs[0]["call_id"] == "call_a70979_0002" and recs[0]["duration_ms"] == 442
    turns = queued(probe_home, "turn_end")
    assert [t["final_message"] for t in turns] == ["Search done: found 2 results for x.", "Second search done.",
                                                   "Continue search done."]
    # tokens: both model calls of the turn, from post_api_request's usage
    assert turns[0]["tokens"] == {"input": 2400, "output": 80, "cache_read": 0, "cache_creation": 0}
    assert turns[0]["model"] == "fake-model"
    st = state(probe_home, BASIC)
    assert st["sources"] == ["startup", "resume", "resume"] and st["status"] == "ended"


def test_failing_command_is_an_error_though_hermes_says_ok(probe_home):
    replay_ok(probe_home, "failure")
    (rec,) = queued(probe_home, "search")
    assert rec["status"] == "error" and rec["query"] == "--fail z"  # the query keeps flags


def test_parallel_calls_each_recorded(probe_home):
    replay_ok(probe_home, "parallel")
    recs = queued(probe_home, "search")
    assert [(r["query"], r["seq"]) for r in recs] == [("p1", 1), ("p2", 2)]
    assert recs[0]["history"] == recs[1]["history"] == "Running two searches at once."


def test_unknown_tool_and_api_error_record_no_search(probe_home):
    replay_ok(probe_home, "badtool", "apierror")
    assert queued(probe_home, "search") == []
    outcomes = {st["session_id"]: [t["outcome"] for t in st["turns"]] for st in states(probe_home).values()}
    assert outcomes == {"20261130_152126_51d2c0": ["completed"], "20261130_152157_283612": ["error"]}


def test_interrupt_closes_call_and_turn_as_interrupted(probe_home):
    replay_ok(probe_home, "interrupt")
    (rec,) = queued(probe_home, "search")
    (turn,) = queued(probe_home, "turn_end")
    assert rec["status"] == "interrupted" and turn["outcome"] == "interrupted"


def test_rotation_is_the_same_thread_one_window_per_new_id(probe_home):
    replay_ok(probe_home, "compress_rotate_prep", "compress_rotate")
    assert [s["session_id"] for s in states(probe_home).values()] == [ROT], "no lineage per rotated id"
    recs = queued(probe_home, "search")
    assert [(r["query"], r["window"], r["seq"]) for r in recs] == [
        ("--big p0", 0, 1), ("--big c1", 0, 2), ("--big c2", 1, 3), ("--big c3", 2, 4)]
    assert {r["session_id"] for r in recs} == {ROT}
    st = state(probe_home, ROT)
    assert st["window"] == 3 and st["window_ids"] == [ROT, *ROTATED]
    assert queued(probe_home, "turn_end")[-1]["window"] == 3


def test_in_place_compression_seen_by_the_shrunk_request(probe_home):
    """No event marks it: the request after a compaction holds fewer messages than the last grew
    to (Hermes compacted three times; the third kept the message count and is not seen)."""
    replay_ok(probe_home, "compress_prep", "compress")
    recs = queued(probe_home, "search")
    assert [(r["query"], r["window"]) for r in recs] == [("--big p0", 0), ("--big c1", 0), ("--big c2", 1), ("--big c3", 2)]
    assert state(probe_home, INPLACE)["window"] == 2


def test_subagent_oneshot_child_links_parent_and_delegate_call(probe_home):
    replay_ok(probe_home, "subagent_z")
    child, parent = queued(probe_home, "search")
    assert (child["session_id"], child["parent_session_id"], child["parent_call_id"]) == \
        (CHILD_Z, PARENT_Z, "call_a70979_0055")
    assert child["history"] == "Child: searching for sub." and child["seq"] == 1
    assert child["parent_turn_id"] == parent["turn_id"], "the parent turn it ran in (OTLP nests it there)"
    assert (parent["session_id"], parent["parent_session_id"], parent["query"]) == (PARENT_Z, None, "after")
    assert state(probe_home, PARENT_Z)["agents"][CHILD_Z]["status"] == "ended"
    child_turn = next(t for t in queued(probe_home, "turn_end") if t["session_id"] == CHILD_Z)
    assert child_turn["parent_session_id"] == PARENT_Z
    child_state = state(probe_home, CHILD_Z)
    assert child_state["agent_pid"] is None and child_state["cwd"] is None, "the indexes stay the parent's"
    assert child_state["status"] == "ended", "the parent's subagent_stop ends the child's own lineage"
    idx = lineage.read_index(probe_home, "cwd", lineage.workspace_key("/home/dev/project"))
    assert idx is not None and idx["lineage"] == lineage.file_name("hermes", PARENT_Z)


def test_background_subagent_links_parent(probe_home):
    replay_ok(probe_home, "subagent")
    child = next(r for r in queued(probe_home, "search") if r["query"] == "sub")
    assert (child["session_id"], child["parent_session_id"], child["parent_call_id"]) == \
        (CHILD_BG, PARENT_BG, "call_a70979_0047")


def context_in(home: str, env: dict[str, str], command: str) -> dict[str, Any]:
    """`jevlin-hooks context` from a shell whose command line holds ``command``, as Hermes's
    terminal tool runs it (bash -c '... eval '<command>' ...')."""
    cli = os.path.join(os.path.dirname(sys.executable), "jevlin-hooks")
    e = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES", "CLAUDE", "CODEX"))}
    e.update(JEVLIN_HOME=home, **env)
    # `jevlin` is the context lookup here; bash stays the parent, its argv holding the command
    script = f"jevlin() {{ {cli} context; }}; eval '{command}'; ec=$?; exit $ec"
    p = subprocess.run(["bash", "-c", script], env=e, capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


def test_context_takes_the_env_as_a_hint_only(probe_home):
    """The two captured wrong-env cases, replayed up to the search's pre_tool_call."""
    from jevlin_hooks.privacy import ids

    events = replay.scenario_events("subagent_z", "hermes")
    upto = next(i for i, (n, p) in enumerate(events) if p.get("tool_input") == {"command": 'jevlin search "after"'}
                and p["hook_event_name"] == "pre_tool_call")
    for _, payload in events[: upto + 1]:
        assert replay.run_hook(probe_home, payload, "hermes").returncode == 0
    key = ids.load_key(probe_home, create=False)
    ctx = context_in(probe_home, {"HERMES_SESSION_ID": CHILD_Z}, 'jevlin search "after"')
    assert ctx["session_id"] == ids.hash_id(PARENT_Z, key) and ctx["call_id"] == ids.hash_id("call_a70979_0060", key)
    assert ctx["parent_session_id"] is None and ctx["seq"] == 1
    events = replay.scenario_events("compress_rotate_prep", "hermes") + replay.scenario_events("compress_rotate", "hermes")
    upto = next(i for i, (n, p) in enumerate(events) if p["hook_event_name"] == "pre_tool_call"
                and p["tool_input"]["command"].endswith('"c3"'))
    for _, payload in events[: upto + 1]:
        assert replay.run_hook(probe_home, payload, "hermes").returncode == 0
    for env_sid in (ROT, ROTATED[1]):  # the stale id the shell keeps, and a rotated id (a later resume)
        ctx = context_in(probe_home, {"HERMES_SESSION_ID": env_sid}, 'jevlin search --big "c3"')
        assert ctx["session_id"] == ids.hash_id(ROT, key), env_sid
        assert (ctx["call_id"], ctx["window"], ctx["seq"]) == (ids.hash_id("call_a70979_0043", key), 2, 4)


def test_web_search_and_mcp_tools_are_searches_other_tools_are_not(home):
    """No capture ran these tools (web_search needs a key, no MCP server was set up): the basic
    scenario's tool events with Hermes's names for them (MCP: mcp_<server>_<tool>)."""
    events = [p for _, p in replay.scenario_events("basic", "hermes")]
    tools = [("web_search", {"query": "hermes web", "limit": 5}, "wc1"),
             ("mcp_jevlin_search", {"query": "hermes mcp"}, "mc1"),
             ("read_file", {"path": "x.py"}, "rf1")]
    for p in events:
        if p["hook_event_name"] in ("pre_tool_call", "post_tool_call"):
            for name, args, call in tools:
                out = dict(p, tool_name=name, tool_input=args, extra=dict(p["extra"], tool_call_id=call))
                assert replay.run_hook(home, out, "hermes").returncode == 0
        else:
            assert replay.run_hook(home, p, "hermes").returncode == 0
    assert hook_errors(home) == ""
    assert [(r["tool"], r["query"], r["call_id"]) for r in queued(home, "search")] == [
        ("web_search", "hermes web", "wc1"), ("mcp_jevlin_search", "hermes mcp", "mc1")]


JUNK = [None, 7, True, "", ["a"], {"a": 1}]


@pytest.mark.parametrize("name", ["pre_llm_call", "post_api_request", "pre_tool_call", "post_tool_call",
                                  "on_session_end", "subagent_start", "api_request_error"])
def test_wrong_types_in_any_field_are_survived_without_an_exception(home, name):
    """Each field of a captured payload (and of its `extra`) replaced by junk of every type:
    exit 0, nothing printed, nothing logged (the module checks types, it does not crash on them)."""
    scenario = {"subagent_start": "subagent_z", "api_request_error": "apierror"}.get(name, "basic")
    base = next(p for _, p in replay.scenario_events(scenario, "hermes") if p["hook_event_name"] == name)
    variants = [dict(base, **{k: j}) for k in base if k != "hook_event_name" for j in JUNK]
    variants += [dict(base, extra=dict(base["extra"], **{k: j})) for k in base["extra"] for j in JUNK]
    variants += [dict(base, extra=dict(base["extra"], response={"assistant_message": j})) for j in JUNK]
    for v in variants:
        p = replay.run_hook(home, v, "hermes")
        assert p.returncode == 0 and p.stdout == b"", v
    assert hook_errors(home) == ""
