"""Every captured Pi scenario (shared/reference/pi: 747 events Pi 0.73.1 handed an extension;
the 220 our extension forwards are bundled in jevlin_hooks/harnesses/pi/data) through the real recorder, `entry.py pi --stream`, as our extension feeds it: the orderings
the reference shows (the next turn's events before the previous turn_end, session_start twice
in RPC mode, events after session_shutdown with a stale ctx), resume, fork, compaction,
subagents, failures and interrupts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import hook_errors, queued, states
from pi_replay import as_sent, captures, lay_sessions, stream

from jevlin_hooks import replay
from jevlin_hooks.capture import lineage

BASIC = "01a22d08-1d0f-7768-88b4-4f3d6ae5e44f"


def pi_state(home: str, sid: str) -> dict:
    st = lineage.read(home, lineage.file_name("pi", sid))
    assert st is not None, f"no lineage for {sid}"
    return st


def play(home: str, tmp_path, *scenarios: str, drop: tuple[str, ...] = ()) -> list[dict]:
    sessions = str(tmp_path / "pi-sessions")
    if not os.path.isdir(sessions):
        lay_sessions(str(tmp_path / "pi-sessions-root"))
        os.rename(str(tmp_path / "pi-sessions-root" / "sessions"), sessions)
    lines = []
    for sc in scenarios:
        caps = [c for c in captures(sc) if f"{sc}-{c['meta']['seq']:03d}" not in drop]
        lines += as_sent(caps, sessions)
    p = stream(home, lines)
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    out = p.stdout.decode().splitlines()
    assert json.loads(out[0])["search"]["shell_commands"], "the first line out is the [search] config"
    return lines


def test_basic_search_turn_and_history(probe_home, tmp_path):
    play(probe_home, tmp_path, "basic")
    (rec,) = queued(probe_home, "search")
    assert rec["harness"] == "pi" and rec["session_id"] == BASIC and rec["query"] == "x"
    assert (rec["seq"], rec["window"], rec["status"]) == (1, 0, "ok")
    assert rec["history"] == "Searching." and rec["call_id"] == "toolu_fake60c9940001"
    assert rec["turn_id"] == f"{BASIC}:1796051836587", "turn = the session and its prompt's timestamp"
    (turn,) = queued(probe_home, "turn_end")
    assert turn["prompt"] == "please search for x" and turn["final_message"] == "Done."
    assert turn["tokens"] == {"input": 200, "output": 40, "cache_read": 0, "cache_creation": 0}
    assert turn["outcome"] == "completed" and turn["model"] == "fake-model"
    assert pi_state(probe_home, BASIC)["status"] == "ended"
    assert hook_errors(probe_home) == ""


def test_parallel_calls_and_next_turn_before_turn_end(probe_home, tmp_path):
    """multi: three calls in one message, results in completion order; the next LLM round's
    direct events came before the previous turn_end. One agent run is one turn."""
    play(probe_home, tmp_path, "multi")
    recs = sorted(queued(probe_home, "search"), key=lambda r: r["seq"])
    assert [(r["seq"], r["query"], r["status"]) for r in recs] == [(1, "m1", "ok"), (2, "m2", "ok")]
    assert len({r["turn_id"] for r in recs}) == 1 and all(r["history"] == "Running three." for r in recs)
    (turn,) = queued(probe_home, "turn_end")
    assert turn["search_count"] == 2 and sorted(turn["tools"]) == ["bash", "read"]


def test_rpc_sessions_fire_session_start_twice_and_forks_name_their_source(probe_home, tmp_path):
    lines = play(probe_home, tmp_path, "rpc_session")
    starts = [x for x in lines if x["event"]["type"] == "session_start"]
    assert len(starts) == 9, "startup once, then fork, clone, new and resume twice each"
    original, fork, clone, new = ("01a22d08-4b0b-7513-9973-2a1ec3a7f900", "01a22d08-4c41-713d-b2ed-b28f1ee9e919",
                                  "01a22d08-4d05-70ab-9a5f-49a38060866e", "01a22d08-4d20-72e5-a2f2-c3e9b0748ac7")
    assert set(states(probe_home)) == {lineage.file_name("pi", s) for s in (original, fork, clone, new)}
    # /fork at the first message: no parentSession in the header, the previous file says it
    assert pi_state(probe_home, fork)["forked_from"] == original
    # /clone: the header names the fork's file, whose name holds another uuid than its id
    assert pi_state(probe_home, clone)["forked_from"] == fork
    assert pi_state(probe_home, new).get("forked_from") is None
    recs = {r["session_id"]: r for r in queued(probe_home, "search")}
    assert recs[original]["seq"] == 1 and recs[fork]["seq"] == 1 and "forked_from" not in recs[original]["host_meta"]
    assert recs[fork]["host_meta"]["forked_from"] == original
    for sid in (original, fork, clone, new):
        st = pi_state(probe_home, sid)
        assert st["window"] == 0 and st["turn"] is None and not st["pending"], sid
    assert hook_errors(probe_home) == ""


def test_compaction_after_shutdown_with_a_stale_ctx_still_counts(probe_home, tmp_path):
    """autocompact: one compaction before the second prompt (session_before_compact fired twice
    for it), one that finished after session_shutdown and reached us with a stale ctx."""
    play(probe_home, tmp_path, "autocompact")
    sid = "01a22d08-6afb-703b-aefd-509f42b3a434"
    recs = sorted(queued(probe_home, "search"), key=lambda r: r["seq"])
    assert [(r["seq"], r["window"], r["query"]) for r in recs] == [(1, 0, "a1"), (2, 1, "a2")]
    assert pi_state(probe_home, sid)["window"] == 2


def test_a_compaction_whose_event_was_lost_is_read_back_at_the_next_start(probe_home, tmp_path):
    """The post-shutdown session_compact never arrives (pi was killed first); the next start of
    the session reads Pi's file, where the entry was written, and the window still counts it."""
    lines = play(probe_home, tmp_path, "autocompact", drop=("autocompact-449",))
    sid = "01a22d08-6afb-703b-aefd-509f42b3a434"
    assert pi_state(probe_home, sid)["window"] == 1
    start = next(x for x in lines if x["event"]["type"] == "session_start")
    path = start["ctx"]["sessionFile"]
    resumed = {**start, "jv": {"fileSize": os.path.getsize(path)}}
    assert stream(probe_home, [resumed]).returncode == 0
    st = pi_state(probe_home, sid)
    assert st["window"] == 2 and st["seq"] == 2, "Pi's file: two compactions, two search calls"
    # and counting it again when it does arrive late changes nothing
    late = as_sent([c for c in captures("autocompact") if c["meta"]["seq"] in (374, 449)],
                   str(tmp_path / "pi-sessions"))[-1:]
    assert late[0]["event"]["type"] == "session_compact"
    stream(probe_home, late)
    assert pi_state(probe_home, sid)["window"] == 2


def test_manual_compaction_raises_the_window_once(probe_home, tmp_path):
    play(probe_home, tmp_path, "compact")
    recs = sorted(queued(probe_home, "search"), key=lambda r: r["seq"])
    assert [(r["seq"], r["window"]) for r in recs] == [(1, 0), (2, 0), (3, 1)]
    assert pi_state(probe_home, recs[0]["session_id"])["window"] == 1


def test_resume_and_fork_on_a_home_that_never_saw_them(probe_home, tmp_path):
    """Our lineage is gone (or never existed): pi -c reads its place back from Pi's file; a
    fork is a new thread whose copied entries are not its own."""
    play(probe_home, tmp_path, "resume", "resume_id")
    recs = sorted(queued(probe_home, "search"), key=lambda r: r["seq"])
    assert [r["session_id"] for r in recs] == [BASIC, BASIC]
    assert [r["seq"] for r in recs] == [2, 3], "basic's search is in the file: resume goes on from it"
    play(probe_home, tmp_path, "fork")
    (forked,) = [r for r in queued(probe_home, "search") if r["session_id"] != BASIC]
    assert forked["seq"] == 1 and forked["host_meta"]["forked_from"] == BASIC


def test_failures_count_calls_pi_refused(home, tmp_path):
    """An unknown tool gets only tool_execution_end: with it configured as a search, it still
    counts (error); a command that exits 3 is an error too."""
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('[search]\nshell_commands = ["jevlin fail"]\ntools = ["websearch"]\n[daemon]\nautostart = false\n')
    play(home, tmp_path, "failures")
    recs = sorted(queued(home, "search"), key=lambda r: r["seq"])
    assert [(r["seq"], r["tool"], r["status"]) for r in recs] == [(1, "bash", "error"), (2, "websearch", "error")]


@pytest.mark.parametrize(("scenario", "status"), [("interrupt_INT", "abandoned"), ("interrupt_TERM", "interrupted")])
def test_interrupts(probe_home, tmp_path, scenario, status):
    """SIGINT: no session_shutdown, the stream just ends; SIGTERM: session_shutdown."""
    play(probe_home, tmp_path, scenario)
    (rec,) = queued(probe_home, "search")
    assert rec["status"] == status
    (turn,) = queued(probe_home, "turn_end")
    assert turn["outcome"] == status


def test_child_pi_names_its_parent(probe_home, tmp_path):
    play(probe_home, tmp_path, "subagent")
    parent, child = "01a22d09-0899-7452-bd85-d30a002c8f11", "01a22d09-1877-753f-beee-968dcc0ecb0d"
    (rec,) = queued(probe_home, "search")
    assert rec["session_id"] == child and rec["parent_session_id"] == parent
    turns = {t["session_id"]: t for t in queued(probe_home, "turn_end")}
    assert turns[child]["parent_session_id"] == parent


def test_apierror_ends_the_turn_as_error(probe_home, tmp_path):
    play(probe_home, tmp_path, "apierror")
    st = pi_state(probe_home, "01a22d08-8ce7-7220-ae5f-889e049e7ff0")
    assert [t["outcome"] for t in st["turns"]] == ["error"]


def test_bad_lines_never_stop_the_stream_and_acks_are_always_answered(home):
    good = as_sent(captures("basic"))
    junk = [b"\xff\xfe not json", b"[1, 2", b'{"event": 7, "ctx": "x", "jv": {"ack": 5}}', b"{}"]
    data = b"\n".join(junk) + b"\n" + b"".join(json.dumps(x).encode() + b"\n" for x in good)
    data += b'{"event": {"type": "tool_call"}, "jv": {"ack": 9}}\n'
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEVLIN_PI")}
    p = subprocess.run([sys.executable, "-I", "-S", replay.ENTRY, "pi", "--stream"], input=data,
                       capture_output=True, env={**env, "JEVLIN_HOME": home}, timeout=60)
    assert p.returncode == 0 and p.stderr == b""
    assert p.stdout.decode().splitlines()[1:] == ["5", "9"]
    assert [r["query"] for r in queued(home, "search")] == ["x"]


def test_trace_off_records_nothing_and_still_answers(home):
    lines = as_sent(captures("basic"))
    for x in lines:
        if x["event"]["type"] == "tool_call":
            x["jv"]["ack"] = 1
    p = stream(home, lines, env={"JEVLIN_TRACE": "off"})
    assert p.returncode == 0 and p.stdout.decode().splitlines()[1:] == ["1"]
    assert queued(home) == [] and states(home) == {}
