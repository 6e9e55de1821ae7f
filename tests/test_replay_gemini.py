"""Each captured Gemini CLI 0.61.0 scenario (tools/capture_gemini.py) through the real entry point,
with Gemini's chat files as they stood at each event (tests/gemini_replay.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import hook_errors, queued, run, state_of
from gemini_replay import HARNESS, Scenario, events, replay_scenario

from jevlin_hooks.capture import context
from jevlin_hooks.harnesses.gemini_cli import capture
from jevlin_hooks.privacy import ids

ASKED = "Let me look up how our services configure httpx retries before changing the client."


def session_of(scenario: str) -> str:
    return events(scenario)[0][1]["session_id"]


def replay_ok(home: str, scenario: str, tmp_path) -> None:
    replay_scenario(home, scenario, str(tmp_path / "t"))
    assert hook_errors(home) == ""


def searches(home: str) -> list[dict]:
    return queued(home, "search")


def test_basic_one_search_with_its_history_and_turn(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    sid = session_of("basic")
    (rec,) = searches(probe_home)
    st = state_of(probe_home, sid, HARNESS)
    assert rec["harness"] == "gemini-cli" and rec["session_id"] == sid and rec["parent_session_id"] is None
    assert (rec["seq"], rec["window"], rec["status"]) == (1, 0, "ok")
    assert rec["query"] == "httpx retries" and rec["tool"] == "run_shell_command"
    assert rec["history"] == ASKED, "the model's text before the call, read from the chat file's tail"
    assert rec["call_id"].startswith("gemini-") and rec["turn_id"] == st["turns"][0]["id"]
    assert rec["host_meta"]["model"] == "gemini-3.8-flash"
    assert "for 'httpx retries'" in rec["result"]["preview"]
    (end,) = queued(probe_home, "turn_end")
    assert end["prompt"] == "SEARCH_PLEASE how do we retry httpx calls?" and end["search_count"] == 1
    assert end["final_message"].endswith("Done: the docs answer it.") and end["outcome"] == "completed"
    assert end["tokens"] == {"input": 200, "output": 40, "cache_read": 0, "cache_creation": 0}
    assert st["status"] == "ended" and st["pending"] == {}


def test_resume_is_the_same_thread_and_seq_goes_on(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    replay_ok(probe_home, "resume", tmp_path)  # its own copy of the chat file: both runs
    sid = session_of("basic")
    assert session_of("resume") == sid
    st = state_of(probe_home, sid, HARNESS)
    assert st["sources"] == ["startup", "resume"] and st["seq"] == 2 and len(st["turns"]) == 2
    recs = searches(probe_home)
    assert [r["seq"] for r in recs] == [1, 2] and {r["session_id"] for r in recs} == {sid}
    assert recs[1]["turn_id"] == st["turns"][1]["id"] != recs[0]["turn_id"]
    assert recs[1]["history"] == ASKED and recs[1]["window"] == 0


def test_a_new_session_is_a_new_thread(probe_home, tmp_path):
    replay_ok(probe_home, "basic", tmp_path)
    replay_ok(probe_home, "newsession", tmp_path)
    a, b = searches(probe_home)
    assert a["session_id"] != b["session_id"] and (a["seq"], b["seq"]) == (1, 1)


def test_compaction_counts_once_and_only_when_it_happened(probe_home, tmp_path):
    """Two runs: a search; then a resume whose first answer reports 900,000 prompt tokens, so
    Gemini compresses before its next call and the model searches again in the new window."""
    replay_ok(probe_home, "compact", tmp_path)
    sid = session_of("compact")
    recs = searches(probe_home)
    assert [(r["seq"], r["window"], r["query"]) for r in recs] == [
        (1, 0, "httpx retries"), (2, 0, "httpx retries"), (3, 1, "idempotency keys after the compaction")]
    assert recs[2]["history"] == "Continuing after the compaction: one more search."
    st = state_of(probe_home, sid, HARNESS)
    assert st["window"] == 1 and len(st["compactions_seen"]) == 1
    ends = queued(probe_home, "turn_end")
    assert [e["window"] for e in ends] == [0, 1]
    assert ends[1]["tokens"]["input"] == 900_200, "the turn's three model calls, across the compaction"
    # the same events again (a duplicated delivery, or the next prompt's look back): still one
    replay_scenario(probe_home, "compact", str(tmp_path / "t2"), only={"compact-29-BeforeTool.json",
                                                                      "compact-31-AfterAgent.json"})
    assert state_of(probe_home, sid, HARNESS)["window"] == 1


def test_a_compaction_after_the_last_message_is_seen_by_the_next_prompt(probe_home, tmp_path):
    """A turn that failed right after Gemini compacted (or an interactive /compress): the chat
    file ends with the history rewrite, and no BeforeTool or AfterAgent read it. The next
    BeforeAgent looks past the last message and counts it."""
    sc = Scenario("compact", str(tmp_path / "t"))
    evs = events("compact")
    for name, payload in evs[:8]:  # the first run, then the resumed run up to its first search
        sc.set_to(name)
        run(probe_home, sc.payload(payload), HARNESS)
    (chat,) = sc.target.values()
    with open(sc.bundled[os.path.basename(chat)], "rb") as f:
        lines = f.read().split(b"\n")
    cut = max(i for i, line in enumerate(lines) if line.startswith(b'{"$set":{"messages":'))
    with open(chat, "wb") as f:
        f.write(b"\n".join(lines[:cut + 1]) + b"\n")
    sid = session_of("compact")
    assert state_of(probe_home, sid, HARNESS)["window"] == 0
    prompt = next(p for _, p in evs if p["hook_event_name"] == "BeforeAgent")
    run(probe_home, sc.payload({**prompt, "prompt": "and now?", "timestamp": "2026-12-03T14:00:00.000Z"}), HARNESS)
    assert state_of(probe_home, sid, HARNESS)["window"] == 1
    assert hook_errors(probe_home) == ""


def test_basic_runs_never_count_a_compaction(probe_home, tmp_path):
    """PreCompress fires before every model call in 0.61: nothing of it reaches a window."""
    for s in ("basic", "resume", "failures", "parallel", "subagent"):
        replay_ok(probe_home, s, tmp_path / s)
    assert {r["window"] for r in searches(probe_home)} == {0}


def test_a_failing_search_is_recorded_once(probe_home, tmp_path):
    """`jevlin search --fail` exits 3: a normal AfterTool whose text says `Exit Code: 3`. The
    call with bad arguments fires no hook at all."""
    replay_ok(probe_home, "failures", tmp_path)
    (rec,) = searches(probe_home)
    assert rec["status"] == "error" and rec["query"] == "--fail refund retries" and rec["seq"] == 1


def test_parallel_calls_pair_by_tool_and_input(probe_home, tmp_path):
    """Two searches and google_web_search in one answer: three BeforeTools, then three AfterTools
    in the order the calls finished; each record is its own call's."""
    replay_ok(probe_home, "parallel", tmp_path)
    recs = sorted(searches(probe_home), key=lambda r: r["seq"])
    started = [p for _, p in events("parallel") if p["hook_event_name"] == "BeforeTool"]  # in the order they fired
    assert [r["tool"] for r in recs] == [p["tool_name"] for p in started]
    assert sorted((r["tool"], r["query"]) for r in recs) == [
        ("google_web_search", "httpx retry transport"), ("run_shell_command", "httpx timeouts"),
        ("run_shell_command", "webhook retries")]
    for r in recs:
        assert r["query"] in r["result"]["preview"] and r["status"] == "ok"
        assert r["history"] == "Three searches at once."
    assert len({r["call_id"] for r in recs}) == 3


def test_reversed_finish_order_still_pairs(probe_home, tmp_path):
    sc = Scenario("parallel", str(tmp_path / "t"))
    evs = events("parallel")
    before = [e for e in evs if e[1]["hook_event_name"] != "AfterTool"]
    after = [e for e in evs if e[1]["hook_event_name"] == "AfterTool"]
    order = before[:5] + after[::-1] + before[5:]
    for name, payload in order:
        sc.set_to(name)
        run(probe_home, sc.payload(payload), HARNESS)
    for r in searches(probe_home):
        assert r["query"] in r["result"]["preview"]


def test_subagent_searches_are_a_child_thread(probe_home, tmp_path):
    """invoke_agent beside a search of the parent's, in one answer: the child's search (its tool
    events carry the parent's session_id) goes to the thread its chat file names; the parent's
    search, whose AfterTool came while the child ran, stays the parent's."""
    replay_ok(probe_home, "subagent", tmp_path)
    sid = session_of("subagent")
    st = state_of(probe_home, sid, HARNESS)
    (child,) = st["agents"]
    recs = {r["query"]: r for r in searches(probe_home)}
    root, sub = recs["webhook timeouts"], recs["grpc retry policy"]
    assert root["session_id"] == sid and root["parent_session_id"] is None and root["seq"] == 1
    assert sub["session_id"] == child and sub["parent_session_id"] == sid and sub["seq"] == 1
    spawn = next(p for _, p in events("subagent") if p.get("tool_name") == "invoke_agent")
    assert sub["parent_call_id"] == capture.normalize(spawn, {"search": {}}, 0.0)["tool_use_id"]
    assert sub["turn_id"] == root["turn_id"] == st["turns"][0]["id"], "the root turn it ran in"
    assert sub["history"] == "I will search the docs for the retry policy."
    (end,) = queued(probe_home, "turn_end")
    assert end["search_count"] == 2


def test_a_duplicated_before_tool_counts_once(probe_home, tmp_path):
    sc = Scenario("basic", str(tmp_path / "t"))
    for name, payload in events("basic"):
        sc.set_to(name)
        run(probe_home, sc.payload(payload), HARNESS)
        if payload["hook_event_name"] == "BeforeTool":
            run(probe_home, sc.payload(payload), HARNESS)  # the hook installed twice, say
    assert len(searches(probe_home)) == 1


def test_input_rewritten_by_another_hook_still_closes_its_call(probe_home, tmp_path):
    """A BeforeTool hook of the user's may rewrite the input: AfterTool carries the rewritten one."""
    sc = Scenario("basic", str(tmp_path / "t"))
    for name, payload in events("basic"):
        sc.set_to(name)
        if payload["hook_event_name"] == "AfterTool":
            payload = {**payload, "tool_input": {**payload["tool_input"], "command": 'jevlin search --limit 5 "httpx retries"'}}
        run(probe_home, sc.payload(payload), HARNESS)
    (rec,) = searches(probe_home)
    assert rec["query"] == "httpx retries" and rec["status"] == "ok"
    assert state_of(probe_home, session_of("basic"), HARNESS)["turns"][0]["outcome"] == "completed"


def test_after_tool_without_its_start_is_still_recorded(probe_home, tmp_path):
    replay_scenario(probe_home, "basic", str(tmp_path / "t"),
                    only={n for n, p in events("basic") if p["hook_event_name"] != "BeforeTool"})
    (rec,) = searches(probe_home)
    assert rec["query"] == "httpx retries" and rec["seq"] == 1


AGENT = """\
import json, os, subprocess, sys
# The agent: its hooks and its shell tool are its children, as Gemini CLI's node process's are.
entry, payloads, command = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PID"}
for p in payloads:
    subprocess.run([sys.executable, "-I", "-S", entry, "gemini-cli"], input=json.dumps(p).encode(), env=env, check=True)
sys.stdout.write(subprocess.run(["bash", "-c", "( " + command + " )"], env=env, capture_output=True, check=True).stdout.decode())
"""


@pytest.mark.parametrize("which", [0, 1])
def test_context_resolves_to_the_right_pending_call(probe_home, tmp_path, which):
    """Two parallel searches pending: the search process finds its session through its ancestry
    (Gemini's shell names none) and its call by the command its shells were started with."""
    sc = Scenario("parallel", str(tmp_path / "t"))
    todo = [(n, p) for n, p in events("parallel") if p["hook_event_name"] != "AfterTool"][:5]
    payloads = []
    for name, payload in todo:
        sc.set_to(name)
        payloads.append(sc.payload(payload))
    with open(tmp_path / "payloads.json", "w") as f:
        json.dump(payloads, f)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "jevlin").write_text(f"#!{sys.executable}\nimport sys\nfrom jevlin_hooks.cli import main\n"
                                   "sys.exit(main(['context']))\n")
    (bindir / "jevlin").chmod(0o755)
    command = [p for p in payloads if p.get("tool_name") == "run_shell_command"][which]["tool_input"]["command"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))}
    env.update(JEVLIN_HOME=probe_home, PATH=f"{bindir}{os.pathsep}{env['PATH']}")
    entry = context.__file__.replace("context.py", "entry.py")
    p = subprocess.run([sys.executable, "-c", AGENT, entry, str(tmp_path / "payloads.json"), command],
                       env=env, capture_output=True, check=True)
    out = json.loads(p.stdout)
    st = state_of(probe_home, session_of("parallel"), HARNESS)
    pending = {v["command"]: v for v in st["pending"].values()}
    k = ids.load_key(probe_home, create=False)
    assert k is not None and out["source"] == "ancestry" and out["harness"] == "gemini-cli"
    assert out["session_id"] == ids.hash_id(session_of("parallel"), k)
    assert out["call_id"] == ids.hash_id(pending[command]["call_id"], k)
    assert len(pending) == 3 and out["seq"] == pending[command]["seq"]


@pytest.mark.parametrize(("resp", "status"), [
    ({"llmContent": "<untrusted_context>\nOutput: 2 results\nProcess Group PGID: 7\n</untrusted_context>"}, "ok"),
    ({"llmContent": "<untrusted_context>\nOutput: oops\nExit Code: 3\nProcess Group PGID: 7\n</untrusted_context>"},
     "error"),
    ({"llmContent": "<untrusted_context>\nOutput: x\nExit Code: 9 is in the text\nProcess Group PGID: 7\n"
                    "</untrusted_context>"}, "ok"),
    ({"llmContent": "<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 7\n</untrusted_context>"}, "empty"),
    ({"llmContent": "<untrusted_context>\nOutput: x\nSignal: 15\nProcess Group PGID: 7\n</untrusted_context>"},
     "error"),
    ({"llmContent": "Command was cancelled by user before it could complete. There was no output."}, "interrupted"),
    ({"llmContent": 'No search results or information found for query: "q"'}, "empty"),
    ({"llmContent": [{"text": "Web search results for \"q\": ..."}]}, "ok"),
    ({"llmContent": "x", "error": {"type": "EXECUTION_FAILED", "message": "boom"}}, "error"),
    ("not a dict", "ok"),
])
def test_status_of_a_tool_response(resp, status):
    assert capture._status(resp) == status


def test_garbage_never_fails_and_a_device_is_never_read(home, tmp_path):
    for payload in (b"{not json", b"[]", b'{"hook_event_name": "BeforeTool"}', b'{"session_id": 7}'):
        run(home, payload, HARNESS)
    fifo = str(tmp_path / "chat.jsonl")
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever
    for path in ("/dev/zero", fifo):
        run(home, {"session_id": "s", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                   "tool_input": {"command": f"jevlin search {path}"}, "transcript_path": path,
                   "timestamp": "2026-12-03T14:00:00.000Z"}, HARNESS)
    st = state_of(home, "s", HARNESS)
    assert len(st["pending"]) == 2 and all(p["history"] is None for p in st["pending"].values())
    assert "JSONError" in hook_errors(home) and hook_errors(home).count("\n") == 1, "only the unparsable one"
