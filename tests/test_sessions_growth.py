"""Cost that does not grow with use: the open-session index, retention, and `status` with many
old sessions (real hook subprocesses with the captured Claude Code payloads)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

from conftest import run, state_of

from jevlin_hooks import replay
from jevlin_hooks.capture import lineage
from jevlin_hooks.ship import housekeeping

DAY = 86400


def payloads(scenario: str, session_id: str, cwd: str) -> list[dict]:
    """The captured Claude Code payloads of one scenario (the package's copy of
    shared/reference/claude-code), moved to another session id and workspace."""
    return [{**p, "session_id": session_id, "cwd": cwd} for _, p in replay.scenario_events(scenario)]


def age(home: str, days: float, *rel: str) -> None:
    t = time.time() - days * DAY
    for r in rel:
        path = os.path.join(home, "sessions", r)
        if r.endswith(".json") and "/" not in r:  # a lineage file: its last event too
            state = json.load(open(path))
            state["updated"] = t
            with open(path, "w") as f:
                json.dump(state, f)
        os.utime(os.path.join(home, "sessions", r), (t, t))


def cli(home: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env={**os.environ, "JEVLIN_HOME": home},
                          capture_output=True, text=True, timeout=120)


def sessions_files(home: str) -> set[str]:
    out = set()
    for root, _, files in os.walk(os.path.join(home, "sessions")):
        out |= {os.path.relpath(os.path.join(root, f), os.path.join(home, "sessions")) for f in files}
    return out


def test_open_index_follows_the_turn(home):
    ps = payloads("basic", "s-open", "/w/open")
    names = [p["hook_event_name"] for p in ps]
    name = lineage.file_name("claude-code", "s-open")
    for p in ps[: names.index("UserPromptSubmit") + 1]:
        run(home, p)
    assert lineage.open_names(home) == [name]  # a turn is under way
    for p in ps[names.index("UserPromptSubmit") + 1:]:
        run(home, p)
    assert lineage.open_names(home) == []  # Stop and SessionEnd closed it
    assert state_of(home, "s-open")["status"] == "ended"


def test_retention_deletes_closed_old_sessions_with_their_files_never_an_open_one(home):
    for sid, cwd in (("s-old", "/w/old"), ("s-new", "/w/new")):
        for p in payloads("basic", sid, cwd):
            run(home, p)
    # an open one: a search under way in a crashed agent, as old as the closed one
    ps = payloads("basic", "s-crashed", "/w/crashed")
    upto = [p["hook_event_name"] for p in ps].index("PreToolUse")
    for p in ps[: upto + 1]:
        run(home, p, env={"CLAUDE_PID": str(os.getpid())})
    old, crashed = lineage.file_name("claude-code", "s-old"), lineage.file_name("claude-code", "s-crashed")
    assert lineage.open_names(home) == [crashed]
    cwd_old = os.path.join("cwd", lineage.workspace_key("/w/old"))
    pid_crashed = os.path.join("pid", str(os.getpid()))
    before = sessions_files(home)
    assert {old + ".json", old + ".lock", cwd_old, pid_crashed} <= before
    age(home, 31, old + ".json", old + ".lock", cwd_old, crashed + ".json", crashed + ".lock", pid_crashed)

    gone = housekeeping.retention(home, 30, time.time())
    after = sessions_files(home)
    assert before - after == {old + ".json", old + ".lock", cwd_old}
    assert gone == {"sessions": 1, "locks": 1, "index": 0}
    # the open one stays whatever its age, with its lock, index entries and open marker
    assert {crashed + ".json", crashed + ".lock", pid_crashed, os.path.join("open", crashed)} <= after
    # the pid index still names the live session (the old session's entry was overwritten by it)
    assert json.load(open(os.path.join(home, "sessions", pid_crashed)))["lineage"] == crashed

    # the daemon's pass: the crashed session is closed as abandoned first, so it is recent
    # again and stays; the next retention (30 days on) removes it with its index entries
    assert cli(home, "daemon", "run", "--once").returncode == 0
    assert state_of(home, "s-crashed")["status"] == "abandoned" and lineage.open_names(home) == []
    age(home, 31, crashed + ".json", crashed + ".lock", pid_crashed)
    housekeeping.retention(home, 30, time.time())
    assert not any(n.startswith(crashed) or n == pid_crashed for n in sessions_files(home))
    assert lineage.file_name("claude-code", "s-new") + ".json" in sessions_files(home)


def test_retention_leaves_a_session_whose_lock_is_held(home):
    for p in payloads("basic", "s-busy", "/w/busy"):
        run(home, p)
    name = lineage.file_name("claude-code", "s-busy")
    age(home, 40, name + ".json", name + ".lock")
    dfd = os.open(os.path.join(home, "sessions"), os.O_RDONLY | os.O_DIRECTORY)
    try:
        held = lineage.lock(dfd, name + ".lock")
        assert housekeeping.retention(home, 30, time.time())["sessions"] == 0
        os.close(held)
        assert housekeeping.retention(home, 30, time.time())["sessions"] == 1
    finally:
        os.close(dfd)
    # an event for it after retention starts a new lineage under a new lock file
    run(home, payloads("basic", "s-busy", "/w/busy")[0])
    assert state_of(home, "s-busy")["status"] == "active"


def test_orphaned_child_thread_index_entries_go(home):
    os.makedirs(os.path.join(home, "sessions", "codex-thread"), mode=0o700)
    for key, root in (("k-gone", "never-existed"), ("k-live", "live-root")):
        with open(os.path.join(home, "sessions", "codex-thread", key), "w") as f:
            json.dump({"root": root}, f)
    with open(os.path.join(home, "sessions", lineage.file_name("codex", "live-root") + ".json"), "w") as f:
        json.dump({"v": 1}, f)
    os.makedirs(os.path.join(home, "sessions", "hermes-child"), mode=0o700)
    for key, parent in (("h-gone", "never-existed"), ("h-live", "live-root")):
        with open(os.path.join(home, "sessions", "hermes-child", key), "w") as f:
            json.dump({"parent": parent, "call": None, "turn": None}, f)
    age(home, 40, "codex-thread/k-gone", "codex-thread/k-live", "hermes-child/h-gone", "hermes-child/h-live")
    assert housekeeping.retention(home, 30, time.time())["index"] == 2
    assert os.listdir(os.path.join(home, "sessions", "codex-thread")) == ["k-live"]
    assert os.listdir(os.path.join(home, "sessions", "hermes-child")) == ["h-live"]


COUNT_OPENS = """
import os, sys
opened = []
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith("claude-code."):
        opened.append(args[0])
sys.addaudithook(hook)
{body}
sys.stdout.flush()
os.write(2, ("OPENED " + " ".join(opened) + "\\n").encode())
"""


def opened(home: str, body: str) -> tuple[str, list[str]]:
    p = subprocess.run([sys.executable, "-c", COUNT_OPENS.format(body=body)], env={**os.environ, "JEVLIN_HOME": home},
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    line = [x for x in p.stderr.splitlines() if x.startswith("OPENED")][-1]
    return p.stdout, line.split()[1:]


def many_old_sessions(home: str, n: int) -> str:
    """``n`` closed sessions 60 days old, copies of one the real hooks wrote; returns the one
    open session's name."""
    for p in payloads("basic", "template", "/w/t"):
        run(home, p)
    sdir = os.path.join(home, "sessions")
    src = os.path.join(sdir, lineage.file_name("claude-code", "template") + ".json")
    state = json.load(open(src))
    t = time.time() - 60 * DAY
    for i in range(n):
        name = lineage.file_name("claude-code", f"old-{i:05d}")
        with open(os.path.join(sdir, name + ".json"), "w") as f:
            json.dump({**state, "session_id": f"old-{i:05d}", "updated": t}, f)
        open(os.path.join(sdir, name + ".lock"), "w").close()
        os.utime(os.path.join(sdir, name + ".json"), (t, t))
    os.unlink(src)
    ps = payloads("basic", "live", "/w/live")
    for p in ps[: [q["hook_event_name"] for q in ps].index("PreToolUse") + 1]:
        run(home, p)
    return lineage.file_name("claude-code", "live")


def test_status_reads_only_the_sessions_it_prints(home):
    live = many_old_sessions(home, 2000)
    out, files = opened(home, "from jevlin_hooks.cli import main\nmain(['status'])")
    assert "threads   2001 kept, 1 with a turn or search open" in out
    assert len([ln for ln in out.splitlines() if ln.startswith("  claude-code")]) == 5
    assert len(files) == 5 and files[0] == live + ".json"


def test_sweep_reads_only_open_sessions(home):
    live = many_old_sessions(home, 300)
    age(home, 1, live + ".json")  # idle past abandon_after_s: the sweep closes it
    body = ("from jevlin_hooks.ship import housekeeping\nhousekeeping.build_open_index(os.environ['JEVLIN_HOME'])\n"
            "from jevlin_hooks.base import config\nfrom jevlin_hooks.ship.report import Report\n"
            "hk = housekeeping.Housekeeper(os.environ['JEVLIN_HOME'], Report(os.environ['JEVLIN_HOME']))\n"
            "hk.tick(config.defaults())")
    shutil.rmtree(os.path.join(home, "sessions", "open"))  # as left by a version without the index
    _, files = opened(home, body)
    # the one-time migration reads every file once; after it, the sweep reads the open ones only
    assert len(files) >= 301
    assert state_of(home, "live")["status"] == "abandoned"
    ps = payloads("basic", "live2", "/w/live2")
    for p in ps[: [q["hook_event_name"] for q in ps].index("PreToolUse") + 1]:
        run(home, p)
    live2 = lineage.file_name("claude-code", "live2")
    age(home, 1, live2 + ".json")
    _, files = opened(home, body)
    # the first pass's retention removed the 300 sixty-day-old closed sessions; this one lists
    # names only and opens nothing but the one open session (its state, then its lock to close it)
    assert not [n for n in os.listdir(os.path.join(home, "sessions")) if n.startswith("claude-code.old-")]
    assert set(files) == {live2 + ".json", live2 + ".lock"}
    assert state_of(home, "live2")["status"] == "abandoned"
