"""The daemon against real servers on 127.0.0.1, real processes, real kill -9."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from conftest import run
from fault_server import FaultServer

from jevlin_hooks.base import spool
from jevlin_hooks.privacy import ids
from jevlin_hooks.ship import control, sinks


def write_config(home: str, sink: str = "local", endpoint: str = "", extra: str = "") -> None:
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'[ship]\nsink = "{sink}"\nendpoint = "{endpoint}"\napi_key = "test-key"\n'
                f"[daemon]\nautostart = false\nbackoff_max_s = 0.3\nrescan_s = 0.2\n{extra}")


def raw_record(i: int, session: str = "sess-A") -> dict[str, Any]:
    return {"v": 1, "record_id": f"{i:032x}", "kind": "search", "ts": "2026-11-30T10:00:00.000Z",
            "harness": "claude-code", "session_id": session, "turn_id": f"turn-{i // 10}", "call_id": f"toolu_{i:06d}",
            "parent_session_id": None, "window": 0, "seq": i + 1, "history": f"Searching for item {i}.",
            "host_meta": {"platform": "linux"}, "query": f"query {i}", "tool": "Bash", "status": "ok",
            "duration_ms": 12}


def queue(home: str, start: int, n: int) -> list[str]:
    recs = [raw_record(i) for i in range(start, start + n)]
    spool.enqueue(home, recs)
    return [r["record_id"] for r in recs]


class Daemon:
    def __init__(self, home: str, env: dict[str, str] | None = None) -> None:
        self.home = home
        self.env = {**os.environ, "JEVLIN_HOME": home, **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Daemon:
        self.proc = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.ship.service", "run"], env=self.env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        wait_for(lambda: (control.running_pid(self.home) or 0) > 0, HANG_S, "daemon start")
        return self

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(HANG_S)

    def __enter__(self) -> Daemon:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


# Every wait in the daemon tests is for an event, a file or a count; its timeout only catches a
# hang, so it is never shorter than this (a loaded machine is slow, not wrong).
HANG_S = 120.0


def wait_for(pred: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + max(timeout, HANG_S)
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def spool_empty(home: str) -> bool:
    return spool.count(home, "new") == 0 and spool.count(home, "cur") == 0


# --- local sink -------------------------------------------------------------------------------------

def test_local_sink_once_upserts_and_hashes(home):
    write_config(home)
    rids = queue(home, 0, 25)
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                       env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert spool_empty(home)
    db = sqlite3.connect(os.path.join(home, "traces.db"))
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    rows = db.execute("select record_id, session_id, call_id, seq, body from records order by seq").fetchall()
    assert [r[0] for r in rows] == rids
    key = ids.load_key(home)
    assert rows[0][1] == ids.hash_id("sess-A", key) and rows[0][2] == ids.hash_id("toolu_000000", key)
    assert "sess-A" not in open(os.path.join(home, "traces.db"), "rb").read().decode("latin-1")
    # a record sent twice is the same row
    spool.enqueue(home, [raw_record(3)])
    subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                   env={**os.environ, "JEVLIN_HOME": home}, check=True, timeout=60)
    assert db.execute("select count(*) from records").fetchone()[0] == 25


def test_malformed_records_go_to_quarantine_with_reason(home):
    write_config(home)
    queue(home, 0, 2)
    spool.enqueue(home, [{"kind": "search", "record_id": "not-hex"}])
    nfd = os.open(os.path.join(home, "spool", "new"), os.O_RDONLY)
    with open(os.path.join(home, "spool", "new", "99999999999999999999.1.x.json"), "w") as f:
        f.write("{not json")
    os.close(nfd)
    subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                   env={**os.environ, "JEVLIN_HOME": home}, check=True, timeout=60)
    out = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "quarantine", "list"],
                         env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True).stdout
    assert len(out.splitlines()) == 2 and "not valid JSON" in out and "record_id" in out
    out = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "status"],
                         env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True).stdout
    assert "2 quarantined" in out and "not running" in out


# --- platform sink, faults ----------------------------------------------------------------------------

def test_every_record_arrives_whatever_the_faults(home):
    with FaultServer(["500", "reset", "429:1", "503", "slow:1", "408", "reset", "500"]) as srv:
        write_config(home, "jevlin", srv.url + "/v1/records", extra="batch_size = 7\n")
        rids = queue(home, 0, 60)
        with Daemon(home) as d:
            wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home), 60, "all records")
            d.stop()
        assert all(v >= 1 for v in srv.received.values())
        assert set(srv.auth) == {"Bearer test-key"}
        # Retry-After: 1 was honoured before the next attempt
        times = [t for t, _, _ in srv.requests]
        i = next(k for k, (_, _, f) in enumerate(srv.requests) if f.startswith("429"))
        assert times[i + 1] - times[i] >= 0.9


def test_rejections_go_to_quarantine_a_refused_batch_is_split(home):
    with FaultServer(["reject:2", "400"]) as srv:
        write_config(home, "jevlin", srv.url, extra="batch_size = 5\n")
        queue(home, 0, 15)
        with Daemon(home) as d:
            wait_for(lambda: spool_empty(home), 30, "queue drained")
            d.stop()
        # the 400 refused a batch as a whole: its halves went through; only the two records the
        # platform named were quarantined
        assert len(srv.received) == 13
        reasons = [json.load(open(os.path.join(home, "spool", "quarantine", n)))["reason"]
                   for n in os.listdir(os.path.join(home, "spool", "quarantine"))]
        assert reasons == ["jevlin: schema says no"] * 2


def test_retry_after_http_date():
    now = 1_000_000.0
    assert sinks.parse_retry_after("120") == 120
    assert sinks.parse_retry_after("Mon, 12 Jan 1970 13:46:40 GMT", now) == 1.0  # now or past: 1 s, not 0
    assert abs(sinks.parse_retry_after("Mon, 12 Jan 1970 13:48:40 GMT", now) - 120) < 1
    assert sinks.parse_retry_after("soon") is None


def test_conservation_and_liveness_under_kill9(home):
    """A writer queues records while the daemon is kill -9'd at random moments and restarted and
    the server flips between healthy and failing. Afterwards every record has arrived (repeats
    only of a record_id) and new records still flow."""
    rng = random.Random(42)
    with FaultServer(default="ok") as srv:
        write_config(home, "jevlin", srv.url, extra="batch_size = 13\n")
        written: list[str] = []
        stop = threading.Event()

        def writer() -> None:
            i = 0
            while not stop.is_set() and i < 400:
                written.extend(queue(home, i, 5))
                i += 5
                time.sleep(rng.uniform(0.005, 0.03))

        t = threading.Thread(target=writer)
        t.start()
        d = Daemon(home).start()
        kills = 0
        # until the writer is done (however slow the machine), and at least four kills
        while t.is_alive() or kills < 4:
            srv.set(default=rng.choice(["ok", "ok", "500", "reset", "slow:0.3", "503"]))
            time.sleep(rng.uniform(0.2, 0.8))
            d.kill9()
            kills += 1
            d = Daemon(home).start()
        stop.set()
        t.join()
        srv.set(faults=[], default="ok")
        try:
            wait_for(lambda: set(srv.received) >= set(written) and spool_empty(home), 60, "conservation")
            assert kills >= 4 and len(written) == 400
            assert set(srv.received) == set(written)
            more = queue(home, 1000, 10)
            wait_for(lambda: set(srv.received) >= set(more), 20, "liveness")
        finally:
            d.stop()


# --- lifecycle ----------------------------------------------------------------------------------------

def test_one_instance_stale_pid_and_prompt_sigterm(home):
    with FaultServer(default="slow:30") as srv:
        write_config(home, "jevlin", srv.url)
        os.makedirs(os.path.join(home, "state"), exist_ok=True)
        with open(os.path.join(home, "state", "daemon.pid"), "w") as f:
            f.write("999999\n")  # left by a crash: must not block a start
        queue(home, 0, 3)
        with Daemon(home) as d:
            second = subprocess.run([sys.executable, "-m", "jevlin_hooks.ship.service", "run"],
                                    env=d.env, capture_output=True, text=True, timeout=30)
            assert second.returncode == 1 and "already running" in second.stderr
            wait_for(lambda: len(srv.requests) >= 1, 10, "a send in flight")
            d.stop()
        # SIGTERM ended the send under way (the server answers only after 30 s), not waited for it
        assert "stopped during a send" in open(os.path.join(home, "logs", "daemon.log")).read()
        # the abandoned batch is still there, and goes out after the next start
        assert spool.count(home, "cur") + spool.count(home, "new") == 3
        srv.set(default="ok")
        with Daemon(home) as d:
            wait_for(lambda: len(srv.received) == 3, 20, "resend after restart")
            d.stop()


def test_cli_start_stop_status(home):
    write_config(home)
    env = {**os.environ, "JEVLIN_HOME": home}
    cli = [sys.executable, "-m", "jevlin_hooks.cli", "daemon"]
    try:
        assert subprocess.run(cli + ["start"], env=env, capture_output=True, text=True).returncode == 0
        out = subprocess.run(cli + ["status"], env=env, capture_output=True, text=True).stdout
        assert "running (pid" in out
        queue(home, 0, 4)
        wait_for(lambda: spool_empty(home), 20, "drained by the started daemon")
        out = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "status"], env=env, capture_output=True,
                             text=True).stdout
        assert "delivered 4 today" in out
    finally:
        p = subprocess.run(cli + ["stop"], env=env, capture_output=True, text=True)
    assert p.returncode == 0 and "stopped" in p.stdout
    assert control.running_pid(home) is None


def test_autostart_from_session_start(home):
    write_config(home)
    with open(os.path.join(home, "config.toml"), "a") as f:
        f.write("")
    cfg = open(os.path.join(home, "config.toml")).read().replace("autostart = false", "autostart = true")
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(cfg)
    try:
        run(home, {"session_id": "s-auto", "hook_event_name": "SessionStart"}, env={"JEVLIN_DAEMON_AUTOSTART": "1"})
        wait_for(lambda: (control.running_pid(home) or 0) > 0, 10, "autostarted daemon")
        pid = control.running_pid(home)
        run(home, {"session_id": "s-auto", "hook_event_name": "SessionStart", "source": "resume"},
            env={"JEVLIN_DAEMON_AUTOSTART": "1"})
        assert control.running_pid(home) == pid, "a running daemon is not started twice"
    finally:
        control.stop(home)


def test_install_service_writes_a_unit(home, tmp_path):
    path, enable = control.install_service(home, "linux", str(tmp_path))
    text = open(path).read()
    assert path.endswith("systemd/user/jevlin-hooks.service") and "jevlin_hooks.ship.service run" in text
    assert f"JEVLIN_HOME={home}" in text and "systemctl --user" in enable
    path, enable = control.install_service(home, "darwin", str(tmp_path))
    assert path.endswith("LaunchAgents/dev.jevlin.hooks.plist") and "launchctl load" in enable


# --- config: hot reload, trace off, spool cap ------------------------------------------------------

def test_config_changes_apply_without_restart(home):
    with FaultServer() as srv:
        write_config(home)
        queue(home, 0, 3)
        with Daemon(home) as d:
            wait_for(lambda: spool_empty(home), 20, "local delivery")
            write_config(home, "jevlin", srv.url)
            time.sleep(0.1)
            more = queue(home, 100, 3)
            wait_for(lambda: set(srv.received) == set(more), 20, "delivery to the new sink")
            d.stop()


def test_trace_off_sends_nothing_and_holds_the_queue(home):
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        queue(home, 0, 5)
        with Daemon(home, env={"JEVLIN_TRACE": "off"}) as d:
            wait_for(lambda: spool.count(home, "held") == 5, 10, "records held")
            time.sleep(0.5)
            d.stop()
        assert srv.requests == [] and spool_empty(home)
        out = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "status"], env={**os.environ, "JEVLIN_HOME": home},
                             capture_output=True, text=True).stdout
        assert "5 held" in out
        subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "spool", "release-held"],
                       env={**os.environ, "JEVLIN_HOME": home}, check=True, capture_output=True)
        with Daemon(home) as d:
            wait_for(lambda: len(srv.received) == 5, 20, "released records sent")
            d.stop()


def test_spool_cap_is_loud(probe_home):
    write_config(probe_home, extra="")
    with open(os.path.join(probe_home, "config.toml"), "a") as f:
        f.write('[spool]\nmax_mb = 0.001\n[search]\nshell_commands = ["jevlin search"]\n')
    queue(probe_home, 0, 10)  # over 1 KB
    # a daemon pass notices the cap; nothing can drain to a sink that fails
    with FaultServer(default="500") as srv:
        cfg = open(os.path.join(probe_home, "config.toml")).read().replace('sink = "local"', 'sink = "jevlin"') \
            .replace('endpoint = ""', f'endpoint = "{srv.url}"')
        with open(os.path.join(probe_home, "config.toml"), "w") as f:
            f.write(cfg)
        with Daemon(probe_home) as d:
            wait_for(lambda: os.path.exists(os.path.join(probe_home, "state", "spool_full")), 10, "spool_full flag")
            d.stop()
    base = {"session_id": "cap", "prompt_id": "t"}
    run(probe_home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": "p"})
    run(probe_home, {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                     "tool_input": {"command": "jevlin search x"}, "tool_use_id": "c1"})
    run(probe_home, {**base, "hook_event_name": "PostToolUse", "tool_name": "Bash",
                     "tool_input": {"command": "jevlin search x"}, "tool_use_id": "c1", "tool_response": {"stdout": "r"}})
    assert spool.count(probe_home, "new") + spool.count(probe_home, "cur") == 10, "queued records are kept"
    out = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "status"], env={**os.environ, "JEVLIN_HOME": probe_home},
                         capture_output=True, text=True).stdout
    assert "SPOOL FULL" in out and "dropped   1 record(s)" in out
    assert "spool full" in open(os.path.join(probe_home, "logs", "hook.log")).read()


def test_spool_cap_checked_at_first_failure_and_stale_flag_at_start(home):
    """The first size check of a run waits for the first failed delivery (draining needs no
    size), but a flag left from before is judged at once, and a one-pass run that fails still
    raises the flag before it exits."""
    flag = os.path.join(home, "state", "spool_full")
    queue(home, 0, 10)
    with FaultServer(default="500") as srv:
        write_config(home, "jevlin", srv.url, extra='[spool]\nmax_mb = 0.001\n')
        p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                           env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=60)
        assert p.returncode == 1 and "delivery failed" in p.stderr
        assert os.path.exists(flag), "a failing run over the cap raises the flag"
        assert spool.count(home, "new") == 10
    # the user raises the cap; the server works: the stale flag goes at the first pass, before
    # the first send (not at the 30-second check), and everything is delivered
    flag_at_send: list[bool] = []
    with FaultServer(on_request=lambda fault: flag_at_send.append(os.path.exists(flag))) as srv:
        write_config(home, "jevlin", srv.url, extra='[spool]\nmax_mb = 50\n')
        with Daemon(home) as d:
            wait_for(lambda: spool_empty(home), 20, "the queue delivered")
            d.stop()
    assert not os.path.exists(flag) and flag_at_send and not flag_at_send[0]
    log_text = open(os.path.join(home, "logs", "daemon.log")).read()
    assert "spool full" in log_text and "back under its cap" in log_text


# --- privacy, end to end, every sink --------------------------------------------------------------

GH = "ghp_" + "Zq8Xv2Lm4Nw6Pr9Ts1Uy3Ab5Cd7Ef0Gh2Ij4K"
AWS = "AKIA" + "ZXCVBNMASDFGHJKL"
PW = "Tr0ub4dor-and-3-more"


@pytest.mark.parametrize("sink", ["local", "jevlin", "otlp"])
def test_no_secret_or_raw_id_reaches_any_sink(probe_home, sink, tmp_path):
    sid, tid, cid = "raw-session-7c1f", "raw-turn-9d2e", "toolu_raw_5a8b"
    transcript = tmp_path / "t.jsonl"
    line = {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
        {"type": "text", "text": f"I will use the token {GH} and password {PW}."},
        {"type": "tool_use", "id": cid, "name": "Bash", "input": {}}]}}
    transcript.write_text(json.dumps(line) + "\n")
    base = {"session_id": sid, "prompt_id": tid, "cwd": "/home/alice/proj", "transcript_path": str(transcript)}
    cmd = f"AWS_KEY={AWS} jevlin search 'rotate {GH}'"
    with FaultServer() as srv:
        write_config(probe_home, sink, srv.url)
        with open(os.path.join(probe_home, "config.toml"), "a") as f:
            f.write('[miner]\nturn_end = true\n[search]\nshell_commands = ["jevlin search"]\n')
        for ev in ({"hook_event_name": "SessionStart"},
                   {"hook_event_name": "UserPromptSubmit", "prompt": f"my password is {PW}, email alice@corp.example"},
                   {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}, "tool_use_id": cid},
                   {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}, "tool_use_id": cid,
                    "tool_response": {"stdout": f"secret output {AWS}"}},
                   {"hook_event_name": "Stop", "last_assistant_message": f"Done with {GH}"}):
            run(probe_home, {**base, **ev})
        assert spool.count(probe_home, "new") == 2
        subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                       env={**os.environ, "JEVLIN_HOME": probe_home}, check=True, timeout=60)
        assert spool_empty(probe_home)
        if sink == "local":
            received = open(os.path.join(probe_home, "traces.db"), "rb").read()
            wal = os.path.join(probe_home, "traces.db-wal")
            if os.path.exists(wal):
                received += open(wal, "rb").read()
        else:
            received = b"".join(srv.raw)
            assert len(srv.received) == 2
    text = received.decode("latin-1")
    # tool output never leaves: only the local store keeps a scrubbed summary of what came back
    tool_output = () if sink == "local" else ("secret output",)
    for raw in (sid, tid, cid, GH, AWS, PW, "alice", *tool_output):
        assert raw not in text, f"{raw} reached the {sink} sink"
    assert "REDACTED" in text
    if sink == "local":
        assert "secret output [REDACTED" in text


def test_local_store_refuses_a_planted_symlink(home, tmp_path):
    write_config(home)
    victim = tmp_path / "victim.db"
    victim.write_bytes(b"precious")
    os.symlink(victim, os.path.join(home, "traces.db"))
    queue(home, 0, 2)
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                       env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "delivery failed" in p.stderr and "stay queued" in p.stderr
    assert victim.read_bytes() == b"precious"
    assert spool.count(home, "new") + spool.count(home, "cur") == 2, "not acknowledged: still queued"
