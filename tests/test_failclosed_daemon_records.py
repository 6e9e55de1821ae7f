"""Issue 10, the daemon's side of bad records, bad state and a full disk (cases 5, 8, 9, 12, 13):
the real daemon as a subprocess, real hooks, real SQLite, the CLI."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import run
from fault_server import FaultServer
from test_daemon import Daemon, queue, raw_record, spool_empty, wait_for, write_config
from test_failclosed_daemon import cli, daemon_log, queued

from jevlin_hooks.base import spool
from jevlin_hooks.privacy import ids, record

GH = "ghp_" + "Zq8Xv2Lm4Nw6Pr9Ts1Uy3Ab5Cd7Ef0Gh2Ij4K"
RAW_SESSION = "raw-session-7c1f"
RAW_CALL = "toolu_raw_5a8b"


def quarantine_bytes(home: str) -> bytes:
    qdir = os.path.join(home, "spool", "quarantine")
    return b"".join(open(os.path.join(qdir, n), "rb").read() for n in sorted(os.listdir(qdir)))


def secret_record(i: int) -> dict:
    rec = raw_record(i, RAW_SESSION)
    rec.update(call_id=RAW_CALL, history=f"I will use the token {GH} now.", query=f"rotate {GH}")
    return rec


# --- 5: quarantine never holds raw data ---------------------------------------------------------

def test_quarantine_keeps_records_safe_or_sealed_never_raw(home):
    with FaultServer(["reject:1"]) as srv:
        write_config(home, "jevlin", srv.url)
        bad = secret_record(0)
        bad["window"] = "zero"  # can never be made safe: sealed
        spool.enqueue(home, [bad, secret_record(1)])  # the second one the platform refuses: safe form
        assert cli(home, "daemon", "run", "--once").returncode == 0
        assert srv.received == {} and spool_empty(home)
    stored = quarantine_bytes(home)
    for raw in (RAW_SESSION, RAW_CALL, GH):
        assert raw.encode() not in stored, f"{raw} kept in clear in the quarantine"
    listed = cli(home, "quarantine", "list").stdout.splitlines()
    assert len(listed) == 2
    sealed = next(line for line in listed if " sealed " in line)
    safe = next(line for line in listed if " safe " in line)
    assert "window must be a non-negative integer" in sealed and "jevlin: schema says no" in safe
    qdir = os.path.join(home, "spool", "quarantine")
    body = next(e["safe"] for e in (json.load(open(os.path.join(qdir, n))) for n in os.listdir(qdir)) if "safe" in e)
    assert body["session_id"] == ids.hash_id(RAW_SESSION, ids.load_key(home)) and "[REDACTED:" in body["history"]
    # a sealed record released goes back as it was (and, still invalid, back to quarantine)
    sealed_id = sealed.split()[0]
    assert "1 quarantined record(s) queued again" in cli(home, "quarantine", "release", sealed_id).stdout
    assert spool.read_all(home, "new")[0]["window"] == "zero"
    cli(home, "daemon", "run", "--once")
    assert spool.count(home, "quarantine") == 2 and spool_empty(home)
    p = cli(home, "quarantine", "purge")
    assert p.returncode == 1 and "--yes" in p.stderr and spool.count(home, "quarantine") == 2
    assert "2 quarantined record(s) deleted" in cli(home, "quarantine", "purge", "--yes").stdout
    assert cli(home, "quarantine", "list").stdout == ""


def test_raw_quarantine_files_of_older_versions_are_made_safe(home):
    write_config(home)
    qdir = os.path.join(home, "spool", "quarantine")
    os.makedirs(qdir, mode=0o700)
    rec = secret_record(3)
    name = "00000001764500000000000000.1234.abcd0123.json"
    with open(os.path.join(qdir, name), "w") as f:
        json.dump(rec, f)
    with open(os.path.join(qdir, name + ".reason"), "w") as f:
        f.write("jevlin: HTTP 400: old reason\n")
    with open(os.path.join(qdir, "00000001764500000000000001.1234.ffff0000.json"), "w") as f:
        f.write('{"session_id": "' + RAW_SESSION + '", not json')
    queue(home, 10, 1)  # something to deliver: the daemon converts the quarantine when it has the key
    assert cli(home, "daemon", "run", "--once").returncode == 0
    stored = quarantine_bytes(home)
    for raw in (RAW_SESSION, RAW_CALL, GH):
        assert raw.encode() not in stored
    assert not [n for n in os.listdir(qdir) if n.endswith(".reason")]
    listed = cli(home, "quarantine", "list").stdout
    assert "abcd0123" in listed and "old reason" in listed and "ffff0000" in listed
    assert "made safe or sealed" in daemon_log(home)
    cli(home, "quarantine", "release", "abcd0123")
    assert cli(home, "daemon", "run", "--once").returncode == 0
    db = sqlite3.connect(os.path.join(home, "traces.db"))
    (sid,) = db.execute("select session_id from records where record_id = ?", (rec["record_id"],)).fetchone()
    assert sid == ids.hash_id(RAW_SESSION, ids.load_key(home)), "hashed once, with the local key"


# --- 8 and 9: numbers clamped, text repaired, nothing dropped --------------------------------------

@pytest.mark.parametrize("sink", ["local", "jevlin", "otlp"])
def test_huge_numbers_and_lone_surrogates_never_block_delivery(home, sink):
    recs = [raw_record(i) for i in range(6)]
    recs[1]["duration_ms"] = 2**63
    recs[2]["duration_ms"] = 1e300
    recs[3]["seq"] = 2**70
    recs[4]["history"] = "cut emoji \ud83d here"
    recs[5]["query"] = "caf\udce9 \ud83d\ude00"
    with FaultServer() as srv:
        write_config(home, sink, srv.url)
        spool.enqueue(home, recs)
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 0, p.stderr
        assert spool_empty(home) and spool.count(home, "quarantine") == 0
        if sink == "local":
            db = sqlite3.connect(os.path.join(home, "traces.db"))
            got = {r: json.loads(b) for r, b in db.execute("select record_id, body from records")}
        else:
            got = dict(srv.records)
    assert set(got) == {r["record_id"] for r in recs}
    text = json.dumps(got)
    if sink != "otlp":
        assert got[recs[1]["record_id"]]["duration_ms"] == record.MAX_DURATION_MS
        assert got[recs[2]["record_id"]]["duration_ms"] == record.MAX_DURATION_MS
        assert got[recs[3]["record_id"]]["seq"] == record.MAX_COUNT
        assert got[recs[4]["record_id"]]["history"] == "cut emoji \ufffd here"
        assert got[recs[5]["record_id"]]["query"] == "caf\ufffd \U0001f600"
    assert "\\ud83d\"" not in text and "\\udce9" not in text


def test_the_sweep_survives_lone_surrogates(probe_home):
    cfg = open(os.path.join(probe_home, "config.toml")).read().replace("[daemon]\n", "[daemon]\nabandon_after_s = 1\n")
    with open(os.path.join(probe_home, "config.toml"), "w") as f:
        f.write(cfg)
    base = {"session_id": "sur-1", "prompt_id": "t1", "cwd": "/tmp"}
    cmd = "jevlin search caf\udce9"
    gone = subprocess.Popen(["true"])
    gone.wait()
    agent = {"CLAUDE_PID": str(gone.pid)}  # the agent died: its open turn and call are abandoned
    run(probe_home, {**base, "hook_event_name": "SessionStart"}, env=agent)
    run(probe_home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": "fix the \ud83d bug"}, env=agent)
    run(probe_home, {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": cmd},
                     "tool_use_id": "c1"}, env=agent)
    time.sleep(1.2)  # older than abandon_after_s by the lineage's own clock
    old = time.time() - 120
    for n in os.listdir(os.path.join(probe_home, "sessions")):
        if n.endswith(".json"):
            os.utime(os.path.join(probe_home, "sessions", n), (old, old))
    p = cli(probe_home, "daemon", "run", "--once")
    assert p.returncode == 0, p.stderr
    assert "closed an abandoned claude-code session" in daemon_log(probe_home)
    assert spool.count(probe_home, "quarantine") == 0
    db = sqlite3.connect(os.path.join(probe_home, "traces.db"))
    rows = [json.loads(b) for (b,) in db.execute("select body from records")]
    search = next(r for r in rows if r["kind"] == "search")
    assert search["status"] == "abandoned" and "\ufffd" in search["query"]


# --- 12: a daemon that cannot start, or cannot hash, says why -------------------------------------

def test_a_daemon_that_cannot_start_says_why_in_log_status_and_doctor(home):
    write_config(home)
    os.makedirs(os.path.join(home, "spool"), mode=0o700)
    with open(os.path.join(home, "spool", "new"), "w") as f:
        f.write("a file where the queue's directory should be")
    p = cli(home, "daemon", "start")
    assert p.returncode == 1 and "could not start: not a plain directory (new)" in p.stderr, p.stderr
    log = daemon_log(home)
    assert "cannot start: not a plain directory (new)" in log and "Traceback" in log
    status = cli(home, "status").stdout
    assert "daemon could not start" in status and "not a plain directory (new)" in status
    assert "!!  delivery: daemon could not start" in cli(home, "doctor").stdout
    os.unlink(os.path.join(home, "spool", "new"))
    try:
        assert cli(home, "daemon", "start").returncode == 0
        assert "could not start" not in cli(home, "status").stdout
    finally:
        assert cli(home, "daemon", "stop").returncode == 0


def test_a_key_anyone_can_read_holds_delivery_and_says_how_to_fix_it(home):
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        key = os.path.join(home, "state", "key")
        ids.load_key(home)
        os.chmod(key, 0o644)
        rids = queue(home, 0, 4)
        with Daemon(home) as d:
            wait_for(lambda: "HELD: cannot use the local key" in cli(home, "status").stdout, 20, "held")
            status = cli(home, "status").stdout
            assert "readable by others" in status and "chmod 600" in status
            assert srv.requests == [] and queued(home) == 4
            os.chmod(key, 0o600)
            wait_for(lambda: set(srv.received) == set(rids), 30, "delivery once the key is fixed")
            wait_for(lambda: "HELD" not in cli(home, "status").stdout, 10, "problem cleared")
            d.stop()


def test_an_unexpected_error_in_the_loop_is_logged_backed_off_and_survived(home):
    write_config(home)
    first = queue(home, 0, 3)
    with Daemon(home) as d:
        wait_for(lambda: spool_empty(home), 20, "first delivery")
        held = os.path.join(home, "spool", "held")
        os.rmdir(held)
        with open(held, "w") as f:  # the loop now fails on every pass, wherever it opens the spool
            f.write("not a directory")
        more = queue(home, 100, 3)
        problem = "failing: error in the daemon loop: not a plain directory (held)"
        wait_for(lambda: problem in cli(home, "status").stdout, 20, "shown")
        time.sleep(1.0)
        assert d.proc.poll() is None, "the daemon is still running"
        log = daemon_log(home)
        assert log.count("error in the daemon loop: not a plain directory (held)\n    Traceback") == 1
        assert log.count("delivery failing: error in the daemon loop") == 1
        os.unlink(held)
        os.mkdir(held, 0o700)
        wait_for(lambda: spool_empty(home), 30, "delivery once the cause is gone")
        wait_for(lambda: "failing" not in cli(home, "status").stdout, 10, "problem cleared")
        d.stop()
    db = sqlite3.connect(os.path.join(home, "traces.db"))
    assert {r for (r,) in db.execute("select record_id from records")} == set(first) | set(more)


def test_a_sink_that_raises_is_logged_backed_off_and_the_bad_record_set_aside(home):
    """A sink bug cannot be produced by a real record (they are all clamped and cleaned), so the
    real local sink is wrapped to raise on one record: the only stand-in in these tests."""
    from jevlin_hooks.ship import scheduler

    write_config(home, extra="batch_size = 8\n")
    queue(home, 0, 8)
    d = scheduler.Scheduler(home)
    d._reload()
    dl = d.deliverer
    real = dl.open_sink()

    class Raising:
        name = "local"

        def __init__(self, bad_seq: int | None) -> None:
            self.bad_seq = bad_seq

        def send(self, records):
            if self.bad_seq is None or any(r["seq"] == self.bad_seq for r in records):
                raise KeyError("bug")
            return real.send(records)

        def close(self) -> None:
            real.close()

    dl.sink = Raising(None)  # raises for everything: the sink is at fault, no record is
    spool.pin(home)
    try:
        d._claim(8)
        dl.send(once=False)
        dl.send(once=False)
    finally:
        spool.unpin()
    assert spool.count(home, "quarantine") == 0 and len(dl.inflight) == 8 and dl.wait_left() > 0
    assert daemon_log(home).count("KeyError in sink local\n    Traceback") == 1, "logged once, not per attempt"
    dl.sink = Raising(5)  # raises only when record seq 5 is in the batch: that record is set aside
    dl.next_try = 0
    spool.pin(home)
    try:
        dl.send(once=False)
    finally:
        spool.unpin()
    dl.sink.close()
    assert dl.inflight == [] and spool_empty(home)
    assert "KeyError in sink local" in cli(home, "quarantine", "list").stdout
    db = sqlite3.connect(os.path.join(home, "traces.db"))
    assert sorted(s for (s,) in db.execute("select seq from records")) == [1, 2, 3, 4, 6, 7, 8]


# --- 13: a full disk ------------------------------------------------------------------------------

def test_the_daemon_starts_and_delivers_on_a_full_disk(tmp_path):
    full = str(tmp_path / "full")
    os.makedirs(full)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", full]).returncode:
        pytest.skip("needs root to mount a small tmpfs")
    try:
        home = os.path.join(full, "jhome")
        os.makedirs(home, mode=0o700)
        with FaultServer() as srv:
            write_config(home, "jevlin", srv.url)
            ids.load_key(home)
            rids = queue(home, 0, 20)
            qdir = os.path.join(home, "spool", "quarantine")
            os.makedirs(qdir, mode=0o700)
            with open(os.path.join(qdir, "00000001764500000000000000.1.abcd0123.json"), "w") as f:
                json.dump(secret_record(99), f)  # an older version's raw entry: converting it needs space
            fd = os.open(os.path.join(full, "filler"), os.O_WRONLY | os.O_CREAT)
            try:
                while True:
                    os.write(fd, b"\0" * 4096)
            except OSError:
                pass
            finally:
                os.close(fd)
            with Daemon(home) as d:
                wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home), 30, "delivery on a full disk")
                out = cli(home, "daemon", "status").stdout
                assert f"running (pid {d.proc.pid})" in out
                p = cli(home, "daemon", "stop")
                assert p.returncode == 0 and "stopped" in p.stdout
                d.proc.wait(10)
    finally:
        subprocess.run(["umount", "-l", full])


def test_an_unreadable_entry_stays_queued_and_the_rest_goes_out(home):
    """Something in spool/new that cannot be read (here a directory with a record's name: EISDIR)
    is neither sent, nor quarantined, nor dropped: it stays where it is, and does not stop the
    records around it."""
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        rids = queue(home, 0, 5)
        names = sorted(os.listdir(os.path.join(home, "spool", "new")))
        odd = names[2][:-5] + "0.json"  # sorts among the records
        os.mkdir(os.path.join(home, "spool", "new", odd), 0o700)
        p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                           env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert set(srv.received) == set(rids)
        assert os.listdir(os.path.join(home, "spool", "new")) == [odd]
        assert spool.count(home, "quarantine") == 0
