"""Issue 29, loss that must not be silent and records that must stay readable (items 6, 7, 17):
real hook processes with the captured Claude Code payloads, a read-only mount and a full tmpfs,
the real daemon, `status` and `doctor`."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys

import pytest
from conftest import PROBE_CONFIG, queued, readonly_copy, run, run_process, state_of
from test_daemon import raw_record, spool_empty, write_config

from jevlin_hooks import replay
from jevlin_hooks.base import paths, spool
from jevlin_hooks.capture import lineage

CLI = [sys.executable, "-m", "jevlin_hooks.cli"]


def basic() -> list[dict]:
    return [p for _, p in replay.scenario_events("basic")]


@pytest.fixture
def user_dirs(tmp_path):
    """The platform's runtime and cache directories, the test's own (never the real ones)."""
    run_dir, cache = tmp_path / "run", tmp_path / "cache"
    run_dir.mkdir(mode=0o700)
    cache.mkdir(mode=0o700)
    return {"XDG_RUNTIME_DIR": str(run_dir), "XDG_CACHE_HOME": str(cache)}


def cli(home: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env={**os.environ, **env, "JEVLIN_HOME": home},
                          capture_output=True, text=True, timeout=120)


def recording_line(out: str) -> str:
    return next((line for line in out.splitlines() if line.startswith("recording ")), "")


def started_home(root: str) -> str:
    """A home where a session started (the key, the counters made ahead), as a user has one."""
    home = os.path.join(root, "jhome")
    os.makedirs(home, mode=0o700)
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(PROBE_CONFIG)
    for payload in basic()[:2]:
        run(home, payload)
    return home


# --- 6: a read-only home, a full disk: named, and the lost events counted ---------------------------

def test_a_read_only_home_is_named_and_its_lost_events_counted(tmp_path, user_dirs):
    src = started_home(str(tmp_path / "src"))
    with readonly_copy(os.path.dirname(src), str(tmp_path / "ro")) as ro:
        home = os.path.join(ro, "jhome")
        events = basic()[2:]
        for payload in events:
            run_process(home, payload, env=user_dirs)  # exit 0, silent, as always
        out = cli(home, user_dirs, "status").stdout
        line = recording_line(out)
        why = "is on a read-only file system" if os.geteuid() == 0 else "is not writable by you"
        assert line.startswith(f"recording NOT RECORDING: {home}") and why in line, out
        assert f"hooks cannot record events: {len(events)} event(s) not recorded since" in line, out
        assert "hook errors: none\n" not in out and "hook errors: none logged, and none could be" in out
        doctor = cli(home, user_dirs, "doctor")
        assert doctor.returncode == 1 and f"!!  recording: NOT RECORDING: {home}" in doctor.stdout
    counter = os.path.join(user_dirs["XDG_RUNTIME_DIR"], "jevlin-hooks")
    (name,) = os.listdir(counter)
    assert stat.S_IMODE(os.stat(counter).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(os.path.join(counter, name)).st_mode) == 0o600


def test_a_home_that_cannot_be_created_is_named_too(tmp_path, user_dirs):
    with readonly_copy(None, str(tmp_path / "ro")) as ro:
        home = os.path.join(ro, "jhome")
        for payload in basic():
            run_process(home, payload, env=user_dirs)
        out = cli(home, user_dirs, "status").stdout
        assert out.startswith(f"home      {home} (not created yet)\n"), out
        line = recording_line(out)
        assert f"NOT RECORDING: {home} cannot be created: {ro}" in line, out
        # every event but InstructionsLoaded, which records nothing anyway
        assert f"{len(basic()) - 1} event(s) not recorded" in line, out


def test_the_counter_never_follows_a_symlink(tmp_path, user_dirs):
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    with readonly_copy(None, str(tmp_path / "ro")) as ro:
        home = os.path.join(ro, "jhome")
        planted = os.path.join(user_dirs["XDG_RUNTIME_DIR"], "jevlin-hooks")
        os.mkdir(planted, 0o700)
        os.symlink(victim, os.path.join(planted, paths.sha256_hex(home.encode())[:32] + ".lost"))
        run_process(home, basic()[0], env=user_dirs)
        assert victim.read_text() == "untouched"
        # counted in the next place instead, and read back from there
        assert "1 event(s) not recorded" in recording_line(cli(home, user_dirs, "status").stdout)
        assert os.listdir(os.path.join(user_dirs["XDG_CACHE_HOME"], "jevlin-hooks"))


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tiny tmpfs")
def test_a_full_disk_is_named_and_its_lost_events_counted(tmp_path, user_dirs):
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", str(mnt)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        home = started_home(str(mnt))
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT)  # fill the disk to the last byte
        try:
            for size in (65536, 4096, 1):
                while True:
                    try:
                        os.write(fd, b"x" * size)
                    except OSError:
                        break
        finally:
            os.close(fd)
        events = basic()[2:]
        for payload in events:
            run_process(home, payload, env=user_dirs)
        out = cli(home, user_dirs, "status").stdout
        line = recording_line(out)
        assert f"recording NOT RECORDING: the disk holding {home} is full (0 KiB free)" in line, out
        assert f"{len(events)} event(s) not recorded since" in line, out
        assert "hook errors: none\n" not in out
        assert not os.listdir(user_dirs["XDG_RUNTIME_DIR"]), "counted inside the home: its counter was made ahead"
        os.unlink(mnt / "filler")
        out = cli(home, user_dirs, "status").stdout
        assert recording_line(out) .startswith(f"recording {len(events)} event(s) not recorded since"), out
        assert "No space left on device; it can be written again now" in out and "NOT RECORDING" not in out
        doctor = cli(home, user_dirs, "doctor").stdout
        assert f"ok  recording: {len(events)} event(s) not recorded" in doctor
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def test_a_healthy_home_says_nothing_about_recording(probe_home, user_dirs):
    for payload in basic():
        run(probe_home, payload)
    out = cli(probe_home, user_dirs, "status").stdout
    assert recording_line(out) == "" and "hook errors: none" in out


# --- 7: one record size limit for the hook and the daemon ----------------------------------------

def test_a_12_mb_cjk_prompt_is_cut_by_the_rule_and_delivered(probe_home, tmp_path):
    prompt = "\u6f22\u5b57\u304b\u306a" * (1 << 20)  # 4 Mi CJK characters: 12 MiB of UTF-8, 24 MiB as JSON
    events = basic()
    for payload in events:
        if payload["hook_event_name"] == "UserPromptSubmit":
            payload = {**payload, "prompt": prompt}
        run_process(probe_home, payload)
    (turn_end,) = queued(probe_home, "turn_end")
    new = os.path.join(probe_home, "spool", "new")
    assert max(os.path.getsize(os.path.join(new, n)) for n in os.listdir(new)) <= spool.MAX_RECORD
    mark = f" [... cut: {len(prompt)} characters in all]"
    assert turn_end["prompt"] == prompt[: spool.TEXT_LIMIT - len(mark)] + mark
    sessions = os.path.join(probe_home, "sessions")
    assert max(os.path.getsize(os.path.join(sessions, n)) for n in os.listdir(sessions)
               if n.endswith(".json")) < 1 << 20, "the lineage holds the cut prompt, not 24 MiB"
    p = subprocess.run([*CLI, "daemon", "run", "--once"], env={**os.environ, "JEVLIN_HOME": probe_home},
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert spool_empty(probe_home) and spool.count(probe_home, "quarantine") == 0
    db = sqlite3.connect(os.path.join(probe_home, "traces.db"))
    (body,) = [json.loads(b) for (b,) in db.execute("select body from records where kind = 'turn_end'")]
    assert body["prompt"].endswith(mark) and len(body["prompt"]) == spool.TEXT_LIMIT


def test_a_record_over_the_limit_even_cut_is_cut_shorter_and_marked_then_delivered(home):
    rec = {**raw_record(0), "kind": "turn_end", "turn_id": "t0", "prompt": "p", "final_message": "f",
           "outcome": "completed", "search_count": 1,
           "tools": [f"tool{i}-" + "\u00e9" * spool.TEXT_LIMIT for i in range(400)]}  # 400 x 384 KiB escaped
    for k in ("call_id", "seq", "query", "history", "status", "tool"):
        rec.pop(k)
    spool.enqueue(home, [rec])
    (name,) = os.listdir(os.path.join(home, "spool", "new"))
    assert os.path.getsize(os.path.join(home, "spool", "new", name)) <= spool.MAX_RECORD
    (got,) = queued(home)
    assert got["truncated"] is True and len(got["tools"]) == spool.SHORT_LIST
    for t, was in zip(got["tools"], rec["tools"], strict=False):
        assert len(t) == spool.SHORT_TEXT and t.endswith(f" [... cut: {len(was)} characters in all]")
    write_config(home)
    p = subprocess.run([*CLI, "daemon", "run", "--once"], env={**os.environ, "JEVLIN_HOME": home},
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and spool_empty(home) and spool.count(home, "quarantine") == 0, p.stderr


# --- 17: lineage file names cannot collide ---------------------------------------------------------

def start_search(home: str, session_id: str, query: str) -> None:
    base = {"session_id": session_id, "prompt_id": f"p-{query}", "cwd": "/w"}
    run(home, {**base, "hook_event_name": "SessionStart", "source": "startup"})
    run(home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": query})
    for name in ("PreToolUse", "PostToolUse"):
        run(home, {**base, "hook_event_name": name, "tool_name": "Bash", "tool_use_id": f"toolu-{query}",
                   "tool_input": {"command": f"jevlin search {query}"}, "tool_response": {"stdout": "r"}})


@pytest.mark.parametrize("upper", [False, True])
def test_an_id_equal_to_another_sessions_hashed_file_name_gets_its_own_lineage(probe_home, upper):
    weird = "session id with spaces/and:colons"  # not a plain id: its file is named by its hash
    hashed = lineage.file_name("claude-code", weird).split(".", 1)[1]
    assert hashed.startswith("h") and len(hashed) == 41
    twin = hashed.upper() if upper else hashed  # a case-insensitive file system folds the two
    start_search(probe_home, weird, "first")
    start_search(probe_home, twin, "second")
    a, b = state_of(probe_home, weird), state_of(probe_home, twin)
    assert a["session_id"] == weird and b["session_id"] == twin
    assert a["searches"] == 1 and b["searches"] == 1 and a["seq"] == 1 and b["seq"] == 1
    names = [n.lower() for n in os.listdir(os.path.join(probe_home, "sessions")) if n.endswith(".json")]
    assert len(names) == len(set(names)) == 2
    searches = {r["session_id"]: r["query"] for r in queued(probe_home, "search")}
    assert searches == {weird: "first", twin: "second"}


def test_real_ids_keep_their_file_names():
    """Nothing to migrate: every session and agent id in the bundled captures is still its own name."""
    seen = set()
    for scenario in ("basic", "subagent", "resume", "compact"):
        for _, p in replay.scenario_events(scenario):
            for key in ("session_id", "agent_id"):
                if isinstance(p.get(key), str):
                    seen.add(p[key])
    assert len(seen) >= 4
    for sid in seen:
        assert lineage.file_name("claude-code", sid) == f"claude-code.{sid}"
