"""Each captured GitHub Copilot CLI 1.0.102 scenario through the real hook entry point, with
Copilot's own session files where it wrote them (under a COPILOT_HOME); and the pieces no real
run shows on demand: the event name from the command line, a call whose start was lost, calls
that look alike, a session file not written yet."""

from __future__ import annotations

import calendar
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import hook_errors, queued, run, state_of

from jevlin_hooks import replay
from jevlin_hooks.capture import context, lineage
from jevlin_hooks.harnesses.copilot_cli import capture
from jevlin_hooks.privacy import ids

H = "copilot-cli"
S_BASIC = "e1a15705-2231-4894-931a-310cc0993bcd"
S_FAIL = "61005887-04fc-41bb-b771-2ffe0bf00f68"
S_SUB = "b9311889-f333-4e5a-b65c-a749b594694c"
CHILD = "f6fcac56-f334-4e81-bc6c-a7df1e2e1dc6"
SHELL_ID = "10f05783-9c13-47c6-ab80-197094e46796"  # COPILOT_AGENT_SESSION_ID in the subagent's shell
S_COMPACT = "5dcc62a9-c88b-42f1-9b99-8c774abc8a0a"


def sweep(home: str) -> list[dict[str, Any]]:
    """The daemon's sweep of abandoned sessions, through its CLI (`daemon run --once`, every
    session idle long enough: `abandon_after_s = 0`), then its delivery to the local sink: every
    record shipped so far, in the order it was queued, as shipped (ids hashed, text scrubbed)."""
    path = os.path.join(home, "config.toml")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("[daemon]\n", "[daemon]\nabandon_after_s = 0\n", 1))
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                       env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    with open(path, "w") as f:
        f.write(text)
    db = sqlite3.connect(os.path.join(home, "traces.db"))
    try:
        return [json.loads(body) for (body,) in db.execute("SELECT body FROM records ORDER BY rowid")]
    finally:
        db.close()


def lay_sessions(root: str, upto: dict[str, int] | None = None) -> str:
    """A COPILOT_HOME holding the captured session files where Copilot wrote them
    (``session-state/<id>/events.jsonl``); ``upto`` keeps only a file's first lines."""
    home = os.path.join(root, "copilot-home")
    base = os.path.join(replay.data_dir(H), "sessions")
    for name in os.listdir(base):
        sid = name.split(".")[0]
        os.makedirs(os.path.join(home, "session-state", sid), exist_ok=True)
        with open(os.path.join(base, name), "rb") as f:
            lines = f.read().splitlines(keepends=True)
        with open(os.path.join(home, "session-state", sid, "events.jsonl"), "wb") as f:
            f.writelines(lines[: (upto or {}).get(sid, len(lines))])
    return home


def events(scenario: str, copilot_home: str) -> list[dict[str, Any]]:
    out = []
    for _, p in replay.scenario_events(scenario, H):
        if p.get("transcriptPath"):  # the payload names the file where Copilot wrote it
            p = dict(p, transcriptPath=capture.events_path(p["transcriptPath"].split("/")[-2],
                                                           {"COPILOT_HOME": copilot_home}))
        out.append(p)
    return out


def play(home: str, payloads: list[dict[str, Any]], copilot_home: str) -> None:
    for p in payloads:
        run(home, p, H, env={"COPILOT_HOME": copilot_home})


def replay_ok(home: str, tmp_path: Any, *scenarios: str) -> str:
    ch = lay_sessions(str(tmp_path))
    for s in scenarios:
        play(home, events(s, ch), ch)
    assert hook_errors(home) == ""
    return ch


def test_basic_search_with_history_and_turn_end(probe_home, tmp_path):
    replay_ok(probe_home, tmp_path, "basic")
    st = state_of(probe_home, S_BASIC, H)
    assert st["seq"] == 1 and st["pending"] == {} and st["status"] == "ended"
    assert [t["outcome"] for t in st["turns"]] == ["completed"]
    (rec,) = queued(probe_home, "search")
    assert rec["harness"] == H and rec["session_id"] == S_BASIC and rec["parent_session_id"] is None
    assert rec["call_id"].startswith("copilot-") and rec["turn_id"] == st["turns"][0]["id"]
    assert (rec["seq"], rec["window"], rec["query"], rec["tool"], rec["status"]) == (1, 0, "x", "bash", "ok")
    assert rec["history"] == "Searching." and rec["host_meta"]["history_source"] == "transcript"
    assert rec["host_meta"]["model"] == "claude-sonnet-4.6"
    assert rec["result"]["lines"] == 2, "the shell's closing line is not a result"
    (end,) = queued(probe_home, "turn_end")
    assert (end["prompt"], end["final_message"], end["outcome"], end["search_count"]) == \
        ("please search for x", "Done.", "completed", 1)
    assert end["tokens"] == {"input": 200, "output": 40, "cache_read": 0, "cache_creation": 0}


def test_continue_and_resume_keep_the_thread(probe_home, tmp_path):
    replay_ok(probe_home, tmp_path, "basic", "continue", "resume")
    st = state_of(probe_home, S_BASIC, H)
    assert st["sources"] == ["startup", "resume", "resume"] and len(st["turns"]) == 3
    recs = queued(probe_home, "search")
    assert [(r["session_id"], r["seq"], r["query"]) for r in recs] == [(S_BASIC, 1, "x"), (S_BASIC, 2, "y"), (S_BASIC, 3, "y")]
    assert [r["history"] for r in recs] == ["Searching.", "Searching again.", "Searching again."]
    assert len({r["turn_id"] for r in recs}) == 3


def test_failures_each_recorded_once(probe_home, tmp_path):
    """`jevlin fail` is no search; the search Copilot refused for its arguments (preToolUse, then
    postToolUseFailure) is one record with status error; `websearch` (an unknown tool) is no search
    unless configured as one."""
    replay_ok(probe_home, tmp_path, "failures")
    (rec,) = queued(probe_home, "search")
    assert (rec["query"], rec["status"], rec["seq"], rec["session_id"]) == ("bad-args", "error", 1, S_FAIL)
    assert rec["history"] == "Trying.", "the turn's text before the call (the call's own message has none)"
    assert state_of(probe_home, S_FAIL, H)["pending"] == {}


def test_a_failing_search_tool_without_its_start_is_recorded_once(probe_home, tmp_path):
    path = os.path.join(probe_home, "config.toml")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("[search]\n", '[search]\ntools = ["websearch"]\n'))
    ch = lay_sessions(str(tmp_path))
    evs = events("failures", ch)
    # the websearch call, without its preToolUse: recorded at its end
    evs = [p for p in evs if not (p["hook_event_name"] == "preToolUse" and p["toolName"] == "websearch")]
    play(probe_home, evs, ch)
    recs = queued(probe_home, "search")
    assert [(r["tool"], r["query"], r["status"]) for r in recs] == [("websearch", "x", "error"), ("bash", "bad-args", "error")]
    assert recs[0]["call_id"] != recs[1]["call_id"] and hook_errors(probe_home) == ""


def test_subagent_search_is_its_own_thread(probe_home, tmp_path):
    replay_ok(probe_home, tmp_path, "subagent")
    st = state_of(probe_home, S_SUB, H)
    assert list(st["agents"]) == [CHILD] and st["agents"][CHILD]["status"] == "ended"
    assert st["agents"][CHILD]["agent_type"] == "task" and st["seq"] == 0
    (rec,) = queued(probe_home, "search")
    assert rec["session_id"] == CHILD and rec["parent_session_id"] == S_SUB and rec["seq"] == 1
    assert rec["parent_call_id"] == st["agents"][CHILD]["parent_call"] and rec["parent_call_id"].startswith("copilot-")
    assert rec["parent_turn_id"] == st["turns"][0]["id"] != rec["turn_id"], "the child's own turn"
    assert rec["history"] == "", "the child wrote no text before its call"
    # the child's agentStop ended neither the root's turn nor the child: one root turn, completed
    assert [(t["outcome"], t["searches"]) for t in st["turns"]] == [("completed", 1)]
    assert not [n for n in os.listdir(os.path.join(probe_home, "sessions")) if CHILD in n]
    assert lineage.read_index(probe_home, capture.AGENT_INDEX, lineage.workspace_key(CHILD)) == \
        {"root": S_SUB, "shell": SHELL_ID}


def test_nested_subagent_goes_to_the_root(probe_home, tmp_path):
    """A subagent started by a subagent: its events name its parent (the first subagent), whose
    root the index knows."""
    ch = lay_sessions(str(tmp_path))
    evs = events("subagent", ch)
    play(probe_home, evs[:5], ch)  # root start, prompt, task call, subagentStart, child prompt
    grand = "0a0a0a0a-0000-4000-8000-000000000001"
    base = {"cwd": "/w", "timestamp": 1796054926300, "agentType": "task"}
    play(probe_home, [
        {**base, "hook_event_name": "subagentStart", "sessionId": CHILD, "agentId": grand, "parentAgentId": CHILD,
         "agentName": "task"},
        {**base, "hook_event_name": "preToolUse", "sessionId": grand, "agentId": grand, "parentAgentId": CHILD,
         "toolName": "bash", "toolArgs": {"command": 'jevlin search "deep"'}},
        {**base, "hook_event_name": "postToolUse", "sessionId": grand, "agentId": grand, "parentAgentId": CHILD,
         "toolName": "bash", "toolArgs": {"command": 'jevlin search "deep"'},
         "toolResult": {"resultType": "success", "textResultForLlm": "r\n<shellId: 1 completed with exit code 0>"}},
    ], ch)
    (rec,) = queued(probe_home, "search")
    assert rec["session_id"] == grand and rec["parent_session_id"] == S_SUB and rec["query"] == "deep"
    assert set(state_of(probe_home, S_SUB, H)["agents"]) == {CHILD, grand} and hook_errors(probe_home) == ""


def test_compaction_raises_the_window_once_each(probe_home, tmp_path):
    replay_ok(probe_home, tmp_path, "compact")
    st = state_of(probe_home, S_COMPACT, H)
    assert st["window"] == 1 and st["turns"][0]["window"] == 0
    replay_ok(probe_home, tmp_path, "compact2", "compact_slash")  # a resume that compacts, then /compact
    st = state_of(probe_home, S_COMPACT, H)
    assert st["window"] == 3 and st["turn"] is None and st["seq"] == 2
    recs = queued(probe_home, "search")
    assert [(r["seq"], r["window"], r["query"]) for r in recs] == [(1, 0, "c1"), (2, 1, "c2")]
    assert [e["window"] for e in queued(probe_home, "turn_end")] == [1, 2], "where each turn ended"


def test_the_installed_command_line_names_the_event(probe_home, tmp_path):
    """As Copilot runs it: `entry.py copilot-cli <event>` with the payload as Copilot wrote it
    (no event name in it) on stdin; the same records as the replays."""
    ch = lay_sessions(str(tmp_path))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "COPILOT_"))}
    env.update(JEVLIN_HOME=probe_home, COPILOT_HOME=ch)
    for p in events("basic", ch):
        raw = {k: v for k, v in p.items() if k != "hook_event_name"}
        out = subprocess.run([sys.executable, "-I", "-S", replay.ENTRY, H, p["hook_event_name"]],
                             input=json.dumps(raw, indent=1).encode(), capture_output=True, env=env, timeout=30)
        assert out.returncode == 0 and out.stdout == b"" and out.stderr == b"", out
    (rec,) = queued(probe_home, "search")
    assert (rec["query"], rec["history"], rec["status"]) == ("x", "Searching.", "ok")
    assert hook_errors(probe_home) == ""


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b"{}", b'{"sessionId": 7}'])
def test_unreadable_payloads_exit_quietly(home, stdin):
    env = dict(os.environ, JEVLIN_HOME=home)
    out = subprocess.run([sys.executable, "-I", "-S", replay.ENTRY, H, "preToolUse"], input=stdin,
                         capture_output=True, env=env, timeout=30)
    assert out.returncode == 0 and out.stdout == b"" and out.stderr == b""
    assert queued(home) == [] and lineage.list_names(home) == []


def test_with_event_splices_the_name_in():
    for raw, want in [(b"{}", {"hook_event_name": "agentStop"}),
                      (b' \n{ "a": 1 }', {"hook_event_name": "agentStop", "a": 1}),
                      (b'{"hook_event_name": "theirs"}', {"hook_event_name": "theirs"})]:
        assert json.loads(capture.with_event(raw, "agentStop")) == want
    assert capture.with_event(b"[1]", "agentStop") == b"[1]"
    assert capture.read_payload(H, []) is None and capture.read_payload(H, ["permissionRequest"]) is None


@pytest.mark.parametrize(("text", "kind", "status"), [
    ("a\nb\n<shellId: 0 completed with exit code 0>", "success", "ok"),
    ("err\n<shellId: 3 completed with exit code 3>\n", "success", "error"),
    ("<shellId: 0 completed with exit code 0>", "success", "empty"),
    ("output that names <shellId: in passing", "success", "ok"),
    ("denied", "rejected", "error"),
])
def test_status_from_the_tool_result(text, kind, status):
    assert capture._result({"resultType": kind, "textResultForLlm": text})[1] == status


def _tool_events(sid: str, command: str, ts: int) -> tuple[dict[str, Any], dict[str, Any]]:
    base = {"sessionId": sid, "cwd": "/w", "toolName": "bash", "toolArgs": {"command": command}}
    return ({**base, "hook_event_name": "preToolUse", "timestamp": ts},
            {**base, "hook_event_name": "postToolUse", "timestamp": ts + 500,
             "toolResult": {"resultType": "success", "textResultForLlm": "found\n<shellId: 0 completed with exit code 0>"}})


def test_calls_that_look_alike_are_paired_first_in_first_out(probe_home, tmp_path):
    """pre, pre, post, post of one command (Copilot's order for parallel calls): two records, the
    first end closing the first start; a different command in between is not taken for either."""
    ch = str(tmp_path / "ch")
    sid = "11111111-2222-4333-8444-555555555555"
    pre1, post1 = _tool_events(sid, 'jevlin search "same"', 1000)
    pre2, post2 = _tool_events(sid, 'jevlin search "same"', 1001)
    pre3, post3 = _tool_events(sid, 'jevlin search "other"', 1002)
    start = {"hook_event_name": "sessionStart", "sessionId": sid, "cwd": "/w", "source": "new", "timestamp": 1}
    prompt = {"hook_event_name": "userPromptSubmitted", "sessionId": sid, "cwd": "/w", "prompt": "go", "timestamp": 2}
    play(probe_home, [start, prompt, pre1, pre2, pre3], ch)
    calls = {p["seq"]: p["call_id"] for p in state_of(probe_home, sid, H)["pending"].values()}
    play(probe_home, [post3, post1], ch)
    left = state_of(probe_home, sid, H)["pending"]
    assert [p["call_id"] for p in left.values()] == [calls[2]], "the oldest of the two alike closed first"
    play(probe_home, [post2], ch)
    recs = queued(probe_home, "search")
    assert [(r["seq"], r["call_id"], r["query"]) for r in recs] == \
        [(3, calls[3], "other"), (1, calls[1], "same"), (2, calls[2], "same")]
    play(probe_home, [post2], ch)  # an end with no start left open: its own record, once
    assert len(queued(probe_home, "search")) == 4 and hook_errors(probe_home) == ""


def test_history_is_this_hooks_own_calls(probe_home, tmp_path):
    """The session file as Copilot may leave it when the resume's postToolUse runs: written up to
    the end of the continue run, whose identical call (same command) is there. The older call is
    not taken for this one: while the file stays so, the record is held (the call has ended), and
    the daemon's sweep queues it with no history rather than a wrong one. Written fully: found."""
    full = lay_sessions(str(tmp_path / "full"))
    path = capture.events_path(S_BASIC, {"COPILOT_HOME": full})
    with open(path, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    shutdowns = [i for i, line in enumerate(lines) if b'"session.shutdown"' in line]
    assert len(shutdowns) == 3, "basic, continue, resume"
    early = lay_sessions(str(tmp_path / "early"), {S_BASIC: shutdowns[1] + 1})
    for ch, want in ((early, ""), (full, "Searching again.")):
        home = str(tmp_path / f"jhome-{len(want)}")
        shutil.copytree(probe_home, home)
        play(home, events("basic", ch) + events("continue", ch) + events("resume", ch), ch)
        recs = queued(home, "search")
        assert [r["query"] for r in recs] == ["x", "y", "y"][: len(recs)] and recs[1]["history"] == "Searching again."
        if want:
            assert recs[2]["history"] == want and "held" not in state_of(home, S_BASIC, H)
            continue
        held = state_of(home, S_BASIC, H)["held"]
        assert len(recs) == 2 and [(h["kind"], h.get("call", {}).get("query")) for h in held] == \
            [("search", "y"), ("turn_end", None)]
        shipped = sweep(home)
        assert [(r["seq"], r["history"]) for r in shipped if r["kind"] == "search"] == \
            [(1, "Searching."), (2, "Searching again."), (3, "")]
        # nor is the continue run's turn taken for the resume's: no summary rather than a wrong one
        last = [r for r in shipped if r["kind"] == "turn_end"][-1]
        assert (last["prompt"], last["final_message"], last["tokens"]["input"]) == ("please search for y", "", 0)
        assert "held" not in state_of(home, S_BASIC, H) and hook_errors(home) == ""


@pytest.mark.parametrize("written_since", [True, False])
def test_a_call_closed_without_its_end_takes_its_history_from_the_file(probe_home, tmp_path, written_since):
    """A call Copilot refused sends no post event: the turn's end closes it, and its history is the
    file's newest request of it, once the file holds a line written after the call started
    (before that, the newest request may be an older identical call's)."""
    ch = lay_sessions(str(tmp_path))
    evs = [p for p in events("basic", ch) if p["hook_event_name"] != "postToolUse"]
    pre = evs.index(next(p for p in evs if p["hook_event_name"] == "preToolUse"))
    play(probe_home, evs[: pre + 1], ch)
    if written_since:  # Copilot goes on writing its file after the call started
        line = {"type": "assistant.turn_end", "data": {"turnId": "0"}, "id": "x",
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.999Z", time.gmtime(time.time() + 1))}
        with open(capture.events_path(S_BASIC, {"COPILOT_HOME": ch}), "a") as f:
            f.write(json.dumps(line) + "\n")
    play(probe_home, evs[pre + 1:], ch)
    (rec,) = queued(probe_home, "search")
    assert rec["status"] == "interrupted" and rec["history"] == ("Searching." if written_since else "")


def test_copilot_timestamps_read_as_epoch_seconds():
    for iso in ("2026-11-30T16:08:44.299Z", "1970-01-01T00:00:00.000Z", "2024-02-29T23:59:59.500Z",
                "2000-03-01T00:00:00.000Z", "2100-12-31T12:00:00.000Z"):
        want = calendar.timegm(time.strptime(iso[:19], "%Y-%m-%dT%H:%M:%S")) + float(iso[19:-1])
        assert capture._epoch(iso) == pytest.approx(want)
    assert capture._epoch("yesterday") is None


def test_the_anchor_is_looked_for_among_the_newest_lines_only(tmp_path):
    """A long session file costs a post event what a short one does: its own line is looked for in
    the last ANCHOR_SCAN bytes (a hook's own line is written last, Copilot waiting on the hook)."""
    ch = lay_sessions(str(tmp_path))
    path = capture.events_path(S_BASIC, {"COPILOT_HOME": ch})
    post = next(p for _, p in replay.scenario_events("basic", H) if p["hook_event_name"] == "postToolUse")
    anchor = ("postToolUse", post["timestamp"], S_BASIC)
    holds = capture._matcher("bash", 'jevlin search "x"', "x")
    assert capture._history(path, anchor, None, holds, {}) == "Searching."
    with open(path, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if str(post["timestamp"]).encode() in line and b"hook.start" in line)
    filler = json.dumps({"type": "session.info", "data": {"text": "." * 1000}}).encode() + b"\n"
    # beyond the bound, with newer lines after it: as good as not there (no history, no waiting)
    for after, found in ((capture.ANCHOR_SCAN // 2, "Searching."), (capture.ANCHOR_SCAN * 2, "")):
        with open(path, "wb") as f:
            f.writelines(lines[: at + 1] + [filler] * (after // len(filler)) + lines[at + 1:])
        assert capture._history(path, anchor, None, holds, {}) == found


def test_context_in_the_main_agent_and_in_a_subagent(probe_home, tmp_path):
    """`context` while a search runs: in the main agent the shell names the session; in the
    subagent it names Copilot's own third id, which the subagent's search indexed as an alias of
    its thread (read from Copilot's session file), and the pending call names the subagent."""
    ch = lay_sessions(str(tmp_path))
    basic = events("basic", ch)
    play(probe_home, basic[:3], ch)  # start, prompt, the search's preToolUse
    raw = context.resolve_raw(probe_home, env={"COPILOT_AGENT_SESSION_ID": S_BASIC})
    (pending,) = state_of(probe_home, S_BASIC, H)["pending"].values()
    assert (raw["source"], raw["raw_session_id"], raw["raw_call_id"], raw["seq"]) == ("env", S_BASIC, pending["call_id"], 1)

    sub = events("subagent", ch)
    child_pre = next(i for i, p in enumerate(sub) if p["hook_event_name"] == "preToolUse" and p.get("agentId"))
    play(probe_home, sub[: child_pre + 1], ch)
    assert lineage.read_index(probe_home, capture.AGENT_INDEX, lineage.workspace_key(CHILD)) == \
        {"root": S_SUB, "shell": SHELL_ID}
    raw = context.resolve_raw(probe_home, env={"COPILOT_AGENT_SESSION_ID": SHELL_ID})
    (pending,) = state_of(probe_home, S_SUB, H)["pending"].values()
    assert (raw["source"], raw["raw_session_id"], raw["raw_parent_session_id"], raw["raw_call_id"]) == \
        ("env", CHILD, S_SUB, pending["call_id"])
    play(probe_home, sub[child_pre + 1:], ch)
    assert hook_errors(probe_home) == ""


def test_a_subagent_whose_shell_id_is_not_written_yet(probe_home, tmp_path):
    """Copilot's session file without the subagent's model calls, and never written further: no
    alias is made up, nothing waits, and the search is recorded all the same (held, then queued
    by the daemon's sweep, without history)."""
    full = lay_sessions(str(tmp_path / "full"))
    with open(capture.events_path(S_SUB, {"COPILOT_HOME": full}), "rb") as f:
        lines = f.read().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if b'"subagent.started"' in line)
    ch = lay_sessions(str(tmp_path / "early"), {S_SUB: first})
    play(probe_home, events("subagent", ch), ch)
    assert queued(probe_home, "search") == []
    assert "shell" not in lineage.read_index(probe_home, capture.AGENT_INDEX, lineage.workspace_key(CHILD))
    (rec,) = [r for r in sweep(probe_home) if r["kind"] == "search"]
    key = ids.load_key(probe_home)
    assert rec["session_id"] == ids.hash_id(CHILD, key) and rec["history"] == "" and rec["seq"] == 1
    assert hook_errors(probe_home) == ""


def test_copilot_web_search_is_a_search(probe_home, tmp_path):
    """Copilot's own `web_search` tool (offered when signed in to GitHub, so not in the offline
    runs): its calls come as every tool's do, and `web_search` is in the default [search] tools."""
    sid = "22222222-3333-4444-8555-666666666666"
    base = {"sessionId": sid, "cwd": "/w", "toolName": "web_search", "toolArgs": {"query": "copilot hooks"}}
    play(probe_home, [
        {"hook_event_name": "sessionStart", "sessionId": sid, "cwd": "/w", "source": "new", "timestamp": 1},
        {"hook_event_name": "userPromptSubmitted", "sessionId": sid, "cwd": "/w", "prompt": "look it up", "timestamp": 2},
        {**base, "hook_event_name": "preToolUse", "timestamp": 3},
        {**base, "hook_event_name": "postToolUse", "timestamp": 4,
         "toolResult": {"resultType": "success", "textResultForLlm": "Copilot CLI hooks reference ..."}},
    ], str(tmp_path / "ch"))
    (rec,) = queued(probe_home, "search")
    assert (rec["tool"], rec["query"], rec["status"], rec["seq"]) == ("web_search", "copilot hooks", "ok", 1)
    assert hook_errors(probe_home) == ""


def test_a_file_written_past_the_hook_without_its_line_ends_the_wait(tmp_path):
    """Copilot writes its lines in order: once the file holds a line newer than this hook's start
    and not this hook's own line, that line will not come (another Copilot version's format): no
    history at once (""), where a file not written that far yet means wait (None)."""
    ch = lay_sessions(str(tmp_path))
    path = capture.events_path(S_BASIC, {"COPILOT_HOME": ch})
    post = next(p for _, p in replay.scenario_events("basic", H) if p["hook_event_name"] == "postToolUse")
    anchor = ("postToolUse", post["timestamp"], S_BASIC)
    holds = capture._matcher("bash", 'jevlin search "x"', "x")
    with open(path, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if str(post["timestamp"]).encode() in line and b"hook.start" in line)
    with open(path, "wb") as f:
        f.writelines(lines[:at] + lines[at + 1:])  # the file goes on, without this hook's line
    assert capture._history(path, anchor, None, holds, {}) == ""
    assert capture._summary(path, ("agentStop", post["timestamp"], S_BASIC)) == {"found": False}
    with open(path, "wb") as f:
        f.writelines(lines[:at])  # written up to just before it
    assert capture._history(path, anchor, None, holds, {}) is None


def test_a_session_file_not_made_yet_is_waited_for(probe_home, tmp_path):
    """Copilot makes the session's directory at its start and its events.jsonl only at its first
    write, which can come while the first search's postToolUse hook waits: the hook waits for it
    (a missing directory, Copilot keeping its sessions elsewhere, is not waited for)."""
    import threading

    full = lay_sessions(str(tmp_path / "full"))
    ch = str(tmp_path / "ch")
    target = capture.events_path(S_BASIC, {"COPILOT_HOME": ch})
    os.makedirs(os.path.dirname(target))
    evs = events("basic", ch)
    post = next(i for i, p in enumerate(evs) if p["hook_event_name"] == "postToolUse")
    play(probe_home, evs[:post], ch)

    def first_write() -> None:
        time.sleep(0.2)
        shutil.copyfile(capture.events_path(S_BASIC, {"COPILOT_HOME": full}), target)

    writer = threading.Thread(target=first_write)
    writer.start()
    play(probe_home, evs[post:], ch)
    writer.join()
    (rec,) = queued(probe_home, "search")
    assert rec["history"] == "Searching." and hook_errors(probe_home) == ""


def test_otlp_spans_name_copilot_and_its_task_call(probe_home, tmp_path):
    """Through the OTLP sink: the turn is `invoke_agent GitHub Copilot CLI`, the subagent sits
    under the `task` call that started it, and no span names a parent that is not sent."""
    from fault_server import FaultServer
    from test_otlp import attrs, check_tree, config, drain

    config(probe_home, "http://127.0.0.1:9", turn_end=True)
    replay_ok(probe_home, tmp_path, "subagent")
    with FaultServer() as srv:
        config(probe_home, srv.url, turn_end=True)
        assert drain(probe_home).returncode == 0
    check_tree(srv.spans)
    by_id = {s["spanId"]: s for s in srv.spans}
    names = sorted(s["name"] for s in by_id.values())
    assert names == ["execute_tool bash", "execute_tool task", "invoke_agent GitHub Copilot CLI", "invoke_agent task"]
    search = next(s for s in by_id.values() if s["name"] == "execute_tool bash")
    agent = by_id[search["parentSpanId"]]
    call = by_id[agent["parentSpanId"]]
    assert (agent["name"], call["name"]) == ("invoke_agent task", "execute_tool task")
    assert by_id[call["parentSpanId"]]["name"] == "invoke_agent GitHub Copilot CLI"
    assert attrs(search)["input.value"] == "sub"


# --- a session file written late, as Copilot writes it --------------------------------------------

def own_lines(lines: list[bytes]) -> dict[tuple[str, int], int]:
    """(hook, payload timestamp) -> the index of that hook's own ``hook.start`` line."""
    out = {}
    for i, line in enumerate(lines):
        entry = json.loads(line)
        inp = entry["data"].get("input") if entry["type"] == "hook.start" else None
        if isinstance(inp, dict) and isinstance(inp.get("timestamp"), int):
            out[(entry["data"]["hookType"], inp["timestamp"])] = i
    return out


def play_late(home: str, payloads: list[dict[str, Any]], ch: str, sid: str, lag: int = 0) -> Iterator[dict[str, Any]]:
    """Each hook run as Copilot runs it on a real machine: its session file holds what came before
    this hook's own ``hook.start`` line (``lag`` 0), or before the previous hook's (1); that line,
    and what follows, Copilot writes ~90 ms after the hook started. Yields each payload once its
    hook has run; the file is left as the last hook saw it."""
    path = capture.events_path(sid, {"COPILOT_HOME": ch})
    with open(path, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    at = own_lines(lines)
    seen: list[int] = []
    cut = 0
    for p in payloads:
        k = at.get((p["hook_event_name"], p["timestamp"]))
        if k is not None:
            seen.append(k)
        if len(seen) > lag:
            cut = max(cut, seen[-1 - lag])
        with open(path, "wb") as f:
            f.writelines(lines[:cut])
        run(home, p, H, env={"COPILOT_HOME": ch})
        yield p


def write_all(ch: str, sid: str) -> None:
    """Copilot went on (or exited): its whole session file is written."""
    shutil.copyfile(os.path.join(replay.data_dir(H), "sessions", f"{sid}.events.jsonl"), capture.events_path(sid, {"COPILOT_HOME": ch}))


def content(r: dict[str, Any]) -> dict[str, Any]:
    """A record without what differs between two runs of one scenario (ids we draw, clock)."""
    return {k: v for k, v in r.items() if k not in ("record_id", "ts", "turn_id", "call_id", "duration_ms")}


def test_a_search_end_not_written_yet_is_queued_at_the_next_event(probe_home, tmp_path):
    """At the search's postToolUse Copilot has not written the hook's own line: nothing waits. The
    call ends there (no longer pending, its status and duration kept) and its record is held; the
    next event (agentStop) queues it with the history it would have had. The turn end held at
    agentStop the same way goes out at sessionEnd. The records are those of a file written in
    time, the call id the one `context` gave the search in-band, the duration the end's."""
    ch = lay_sessions(str(tmp_path / "late"))
    seen: dict[str, Any] = {}
    for p in play_late(probe_home, events("basic", ch), ch, S_BASIC):
        st = state_of(probe_home, S_BASIC, H)
        name = p["hook_event_name"]
        if name == "preToolUse":
            seen["in_band"] = context.resolve_raw(probe_home, env={"COPILOT_AGENT_SESSION_ID": S_BASIC})["raw_call_id"]
        elif name == "postToolUse":
            assert queued(probe_home) == [] and st["pending"] == {}
            (held,) = st["held"]
            call = held["call"]
            assert (held["kind"], call["status"], call["call_id"], call["seq"]) == ("search", "ok", seen["in_band"], 1)
            assert held["later"]["anchor"] == ["postToolUse", p["timestamp"], S_BASIC]
            seen["duration"] = call["duration_ms"]
            assert lineage.open_names(probe_home) == [lineage.file_name(H, S_BASIC)], "the sweep would find it"
        elif name == "agentStop":
            assert [r["kind"] for r in queued(probe_home)] == ["search"]
            assert [h["kind"] for h in st["held"]] == ["turn_end"] and st["turn"] is None
    st = state_of(probe_home, S_BASIC, H)
    assert "held" not in st and st["status"] == "ended" and lineage.open_names(probe_home) == []
    late = queued(probe_home)
    assert [r["kind"] for r in late] == ["search", "turn_end"]
    assert (late[0]["call_id"], late[0]["duration_ms"]) == (seen["in_band"], seen["duration"])
    assert late[0]["history"] == "Searching." and late[1]["tokens"]["input"] == 200
    on_time = str(tmp_path / "jhome-on-time")
    shutil.copytree(probe_home, on_time)
    shutil.rmtree(os.path.join(on_time, "sessions"))
    shutil.rmtree(os.path.join(on_time, "spool"))
    replay_ok(on_time, tmp_path / "on-time", "basic")
    assert [content(r) for r in late] == [content(r) for r in queued(on_time)]
    assert hook_errors(probe_home) == ""


def test_held_records_go_out_in_the_order_their_calls_ended(probe_home, tmp_path):
    """Copilot a hook behind (each hook's file lacks the previous hook's line too): the search
    waits past agentStop, and at sessionEnd goes out before the turn end, which is still not
    written and waits for the sweep; the session ended as it said."""
    ch = lay_sessions(str(tmp_path))
    for p in play_late(probe_home, events("basic", ch), ch, S_BASIC, lag=1):
        if p["hook_event_name"] == "agentStop":
            assert queued(probe_home) == []
            assert [h["kind"] for h in state_of(probe_home, S_BASIC, H)["held"]] == ["search", "turn_end"]
    assert [r["kind"] for r in queued(probe_home)] == ["search"]
    st = state_of(probe_home, S_BASIC, H)
    assert [h["kind"] for h in st["held"]] == ["turn_end"] and st["status"] == "ended"
    write_all(ch, S_BASIC)  # Copilot exited
    shipped = sweep(probe_home)
    assert [r["kind"] for r in shipped] == ["search", "turn_end"]
    end = shipped[1]
    assert (end["outcome"], end["final_message"], end["search_count"]) == ("completed", "Done.", 1)
    assert end["tokens"] == {"input": 200, "output": 40, "cache_read": 0, "cache_creation": 0}
    st = state_of(probe_home, S_BASIC, H)
    assert "held" not in st and st["status"] == "ended" and lineage.open_names(probe_home) == []
    assert hook_errors(probe_home) == ""


def test_session_end_waits_briefly_for_what_is_held(probe_home, tmp_path):
    """sessionEnd is the last hook: what is still held then, it waits for (Copilot writes its file
    about 90 ms after a hook starts), so a session's records are queued when it ends."""
    import threading

    ch = lay_sessions(str(tmp_path))
    evs = events("basic", ch)
    for _ in play_late(probe_home, evs[:-1], ch, S_BASIC, lag=1):
        pass
    assert [h["kind"] for h in state_of(probe_home, S_BASIC, H)["held"]] == ["search", "turn_end"]

    def copilot_writes() -> None:
        time.sleep(0.15)
        write_all(ch, S_BASIC)

    writer = threading.Thread(target=copilot_writes)
    writer.start()
    run(probe_home, evs[-1], H, env={"COPILOT_HOME": ch})
    writer.join()
    assert [r["kind"] for r in queued(probe_home)] == ["search", "turn_end"]
    assert "held" not in state_of(probe_home, S_BASIC, H) and hook_errors(probe_home) == ""


@pytest.mark.parametrize("flushed", [True, False])
def test_a_session_killed_after_a_search_end_is_queued_by_the_sweep(probe_home, tmp_path, flushed):
    """Copilot killed right after a search's postToolUse, its record held: no event comes again,
    and the daemon's sweep queues it with the end's status and duration, the call id the search
    sent in-band, and the best history the file holds: the call's own, if Copilot wrote the hook's
    line before it died; else none (no line of the file proves which request is this call's). The
    turn, never stopped, ends as abandoned."""
    ch = lay_sessions(str(tmp_path))
    evs = events("basic", ch)
    post = next(i for i, p in enumerate(evs) if p["hook_event_name"] == "postToolUse")
    for p in play_late(probe_home, evs[: post + 1], ch, S_BASIC):
        if p["hook_event_name"] == "preToolUse":
            in_band = context.resolve_raw(probe_home, env={"COPILOT_AGENT_SESSION_ID": S_BASIC})["raw_call_id"]
    (held,) = state_of(probe_home, S_BASIC, H)["held"]
    path = capture.events_path(S_BASIC, {"COPILOT_HOME": ch})
    if flushed:  # the hook's own line and what follows it made it to the file
        with open(os.path.join(replay.data_dir(H), "sessions", f"{S_BASIC}.events.jsonl"), "rb") as f:
            lines = f.read().splitlines(keepends=True)
        own = own_lines(lines)[("postToolUse", evs[post]["timestamp"])]
        with open(path, "wb") as f:
            f.writelines(lines[: own + 3])
    shipped = sweep(probe_home)
    key = ids.load_key(probe_home)
    (rec,) = [r for r in shipped if r["kind"] == "search"]
    assert (rec["seq"], rec["status"], rec["duration_ms"]) == (1, "ok", held["call"]["duration_ms"])
    assert rec["call_id"] == ids.hash_id(in_band, key)
    assert rec["history"] == ("Searching." if flushed else "")
    (end,) = [r for r in shipped if r["kind"] == "turn_end"]
    assert (end["outcome"], end["search_count"]) == ("abandoned", 1)
    st = state_of(probe_home, S_BASIC, H)
    assert "held" not in st and st["status"] == "abandoned" and lineage.open_names(probe_home) == []


def test_a_held_search_finds_its_line_however_much_followed(probe_home, tmp_path):
    """Read at a later event, the hook's own line may lie further from the end than at its own
    (ANCHOR_SCAN): it is looked for down to where the file ended when it was not there."""
    ch = lay_sessions(str(tmp_path))
    evs = events("basic", ch)
    post = next(i for i, p in enumerate(evs) if p["hook_event_name"] == "postToolUse")
    for _ in play_late(probe_home, evs[: post + 1], ch, S_BASIC):
        pass
    assert state_of(probe_home, S_BASIC, H)["held"]
    with open(os.path.join(replay.data_dir(H), "sessions", f"{S_BASIC}.events.jsonl"), "rb") as f:
        lines = f.read().splitlines(keepends=True)
    own = own_lines(lines)[("postToolUse", evs[post]["timestamp"])]
    filler = json.dumps({"type": "tool.execution_complete", "data": {"result": "." * 4000},
                         "timestamp": "2026-11-30T16:08:39.923Z"}).encode() + b"\n"
    big = filler * (2 * capture.ANCHOR_SCAN // len(filler))
    with open(capture.events_path(S_BASIC, {"COPILOT_HOME": ch}), "wb") as f:
        f.writelines(lines[: own + 1] + [big] + lines[own + 1: own + 9])
    run(probe_home, evs[post + 1], H, env={"COPILOT_HOME": ch})  # agentStop
    (rec,) = queued(probe_home, "search")
    assert rec["history"] == "Searching." and hook_errors(probe_home) == ""


def test_a_file_that_stops_growing_holds_a_bounded_number_of_records(probe_home, tmp_path):
    """Copilot's session file never written again (its writer gone, the file left behind): every
    search end is held, and past HELD_MAX the oldest goes out with what there is. The lineage stays
    bounded, nothing is lost, and the records leave in the order the calls ended."""
    from jevlin_hooks.capture import engine

    ch = str(tmp_path / "ch")
    sid = "33333333-4444-4555-8666-777777777777"
    path = capture.events_path(sid, {"COPILOT_HOME": ch})
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(json.dumps({"type": "session.start", "data": {}, "timestamp": "2026-11-30T16:08:39.557Z"}) + "\n")
    now = int(time.time() * 1000)
    play(probe_home, [
        {"hook_event_name": "sessionStart", "sessionId": sid, "cwd": "/w", "source": "new", "timestamp": now},
        {"hook_event_name": "userPromptSubmitted", "sessionId": sid, "cwd": "/w", "prompt": "go", "timestamp": now + 1},
    ], ch)
    n = engine.HELD_MAX + 6
    for i in range(n):
        play(probe_home, list(_tool_events(sid, f'jevlin search "q{i}"', now + 10 + 2 * i)), ch)
        assert len(state_of(probe_home, sid, H).get("held", [])) <= engine.HELD_MAX + 1
    held = state_of(probe_home, sid, H)["held"]
    recs = queued(probe_home, "search")
    assert [r["seq"] for r in recs] + [h["call"]["seq"] for h in held] == list(range(1, n + 1))
    assert recs and all(r["history"] == "" and r["status"] == "ok" for r in recs)
    assert hook_errors(probe_home) == ""
