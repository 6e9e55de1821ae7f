"""A backlog is prepared by worker processes (ship/prepare.py): the same safe records as the
daemon makes itself, each exactly once, nothing raw in what the sink receives, and nothing lost
when a worker or the daemon dies. Real daemon processes, a real HTTP server, real kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fault_server import FaultServer
from test_daemon import Daemon, spool_empty, wait_for, write_config
from test_failclosed_daemon import cli, daemon_log

from jevlin_hooks.privacy import ids, record
from jevlin_hooks.ship import prepare

pytestmark = pytest.mark.skipif(prepare.worker_count(1) < 1, reason="one core: the daemon prepares every record itself")
WORKERS = "workers = 1\n"  # [daemon] workers: none unless asked

N = prepare.MIN_BACKLOG + 452  # enough for the daemon to start workers
HANG = 180  # seconds: only a real hang takes this long (every wait below is for an event or a file)
GH = "ghp_" + "Wq7Xv2Lm4Nw6Pr9Ts1Uy3Ab5Cd7Ef0Gh2Ij4Q"
PW = "Tr0ub4dor-and-9-more"


def fill(home: str, n: int = N) -> dict[str, dict[str, Any]]:
    """``n`` raw records straight into spool/new (fsyncing each would make the test slow, and the
    writer is not what is tested); every tenth holds a secret, all hold raw ids."""
    new = os.path.join(home, "spool", "new")
    for sub in ("tmp", "new", "cur", "quarantine", "held"):
        os.makedirs(os.path.join(home, "spool", sub), mode=0o700, exist_ok=True)
    out = {}
    t0 = time.time_ns()
    for i in range(n):
        history = f"Step {i}: checking how the retry loop backs off before I change it."
        if i % 10 == 0:
            history += f"\nexport GITHUB_TOKEN={GH}\nmysql -u root -p{PW} prod\n"
        rec = {"v": 1, "record_id": f"{i:032x}", "kind": "search", "ts": "2026-11-30T10:00:00.000Z",
               "harness": "claude-code", "session_id": f"raw-session-{i // 300}", "turn_id": f"raw-turn-{i // 7}",
               "call_id": f"toolu_raw_{i:06d}", "parent_session_id": None, "window": 0, "seq": i + 1,
               "history": history, "host_meta": {"platform": "linux", "model": "claude-x"},
               "query": f"retry backoff {i}", "tool": "Bash", "status": "ok", "duration_ms": 12}
        with open(os.path.join(new, f"{t0 + i:020d}.1.{i:08x}.json"), "w") as f:
            json.dump(rec, f)
        out[rec["record_id"]] = rec
    return out


def _stat(pid: int | str) -> list[str] | None:
    """/proc/<pid>/stat after the command name: [state, ppid, ...]; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def written(pid: int) -> int:
    """Bytes ``pid`` has written (a worker writes only its answers)."""
    try:
        with open(f"/proc/{pid}/io") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("wchar:"))
    except (OSError, StopIteration, ValueError):
        return 0


def children(pid: int) -> list[int]:
    return [int(d) for d in os.listdir("/proc")
            if d.isdigit() and (f := _stat(d)) is not None and int(f[1]) == pid and f[0] != "Z"]


def status(home: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.load(open(os.path.join(home, "state", "daemon.json")))
        return data
    except (OSError, ValueError):
        return {}


def drain_once(home: str) -> None:
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                       env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr


@contextmanager
def started_with_workers(home: str, srv: FaultServer) -> Iterator[tuple[Daemon, dict[str, dict[str, Any]], list[int]]]:
    """A long-running daemon on a backlog, batches of 40 to a slow server: (daemon, records, its
    workers); killed on the way out if the test left it running."""
    write_config(home, "jevlin", srv.url, extra="batch_size = 40\n" + WORKERS)
    raw = fill(home)
    d = Daemon(home).start()
    try:
        assert d.proc is not None
        pid = d.proc.pid
        wait_for(lambda: len(children(pid)) == prepare.worker_count(1), HANG, "worker processes")
        yield d, raw, children(pid)
    finally:
        d.__exit__(None, None, None)


def restart_delivers_everything(home: str, srv: FaultServer, raw: dict[str, dict[str, Any]]) -> None:
    srv.set(default="ok")
    with Daemon(home) as again:
        wait_for(lambda: set(srv.received) == set(raw) and spool_empty(home), HANG, "every record after a restart")
        again.stop()


def test_workers_send_what_the_daemon_would_each_record_once_nothing_raw(home):
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url + "/v1/records", extra=WORKERS)
        raw = fill(home)
        bad = {"00000000000000000001.1.bad1.json": b"{not json", "00000000000000000002.1.bad2.json":
               json.dumps({"kind": "search", "record_id": "f" * 32, "ts": "2026-11-30T10:00:00Z"}).encode()}
        for name, body in bad.items():  # the oldest: in the first chunks a worker prepares
            with open(os.path.join(home, "spool", "new", name), "wb") as f:
                f.write(body)
        drain_once(home)
        assert spool_empty(home)
        assert "worker process(es) beside the daemon" in daemon_log(home)
        assert set(srv.received) == set(raw) and set(srv.received.values()) == {1}, "each record exactly once"
        quarantined = {n: json.load(open(os.path.join(home, "spool", "quarantine", n)))
                       for n in os.listdir(os.path.join(home, "spool", "quarantine"))}
        assert sorted(quarantined) == sorted(bad)
        assert [q["reason"] for _, q in sorted(quarantined.items())] == ["invalid record: not valid JSON",
                                                                         "invalid record: session_id missing"]
        assert all("sealed" in q for q in quarantined.values())
        key = ids.load_key(home)
        assert key is not None
        # byte for byte what make_safe gives in this process
        for rid, got in srv.records.items():
            assert got == record.make_safe(raw[rid], key), rid
        text = b"".join(srv.raw).decode("latin-1")
        for planted in (GH, PW, "raw-session-", "raw-turn-", "toolu_raw_"):
            assert planted not in text, f"{planted} reached the sink"
        assert "[REDACTED:" in text


def test_a_worker_killed_midway_loses_nothing_and_the_daemon_goes_on(home):
    with FaultServer(default="slow:0.05") as srv:
        with started_with_workers(home, srv) as (d, raw, workers):
            assert d.proc is not None
            key = ids.load_key(home)
            assert key is not None
            for w in workers:  # the key reaches a worker through its pipe, never its command line
                assert key.hex() not in open(f"/proc/{w}/cmdline").read()
            wait_for(lambda: len(srv.received) >= 200, HANG, "a few batches")
            os.kill(workers[0], signal.SIGKILL)
            wait_for(lambda: set(srv.received) == set(raw) and spool_empty(home), HANG, "every record")
            assert "a worker process failed" in daemon_log(home)
            pid = d.proc.pid
            wait_for(lambda: not children(pid), HANG, "workers gone once the backlog is drained")
            d.stop()
        assert d.proc is not None and d.proc.returncode == 0


def test_daemon_killed_with_workers_leaves_no_orphan_and_loses_nothing(home):
    with FaultServer(default="slow:0.05") as srv:
        with started_with_workers(home, srv) as (d, raw, workers):
            wait_for(lambda: len(srv.received) >= 200, HANG, "a few batches")
            d.kill9()
            # EOF on their stdin ends the workers: none is left behind scrubbing for nobody
            wait_for(lambda: not any(_alive(w) for w in workers), HANG, "workers exit")
        restart_delivers_everything(home, srv, raw)


def test_the_local_store_gets_the_same_rows_through_workers(home):
    """The default sink: every record a row, the search's result summary kept and scrubbed (the
    workers add the local extras exactly as the daemon does), nothing raw in the database."""
    import sqlite3

    write_config(home, "local", extra=WORKERS)
    raw = fill(home)
    for i, rid in enumerate(list(raw)[:50]):  # a result summary on some of them
        raw[rid]["result"] = {"lines": 3, "preview": f"result {i}\nexport GITHUB_TOKEN={GH}\n"}
    new = os.path.join(home, "spool", "new")
    by_id = {json.load(open(os.path.join(new, n)))["record_id"]: n for n in os.listdir(new)}
    for rid in list(raw)[:50]:
        with open(os.path.join(new, by_id[rid]), "w") as f:
            json.dump(raw[rid], f)
    drain_once(home)
    assert spool_empty(home) and "worker process(es)" in daemon_log(home)
    key = ids.load_key(home)
    assert key is not None
    db = sqlite3.connect(os.path.join(home, "traces.db"))
    rows = dict(db.execute("select record_id, body from records").fetchall())
    assert set(rows) == set(raw)
    for rid in list(raw)[:50] + list(raw)[-50:]:
        want = record.make_safe(raw[rid], key, local=True)
        assert json.loads(rows[rid]) == want, rid
    assert "[REDACTED:" in json.loads(rows[list(raw)[0]])["result"]["preview"]
    stored = open(os.path.join(home, "traces.db"), "rb").read()
    wal = os.path.join(home, "traces.db-wal")
    if os.path.exists(wal):
        stored += open(wal, "rb").read()
    for planted in (GH.encode(), PW.encode(), b"raw-session-", b"toolu_raw_"):
        assert planted not in stored


def test_sigterm_with_a_hung_worker_stops_the_daemon_and_loses_nothing(home):
    """A worker that stops answering (SIGSTOP) must not hold up SIGTERM: the daemon stops rather
    than wait out the worker's minute, kills the worker on its way out, and the next start sends
    everything. Nothing here depends on how fast the machine is: the test waits for the daemon to
    say (in its status) that it waits on the stopped worker, and checks which way it stopped (its
    log), not how long that took."""
    with FaultServer(default="slow:0.05") as srv:
        write_config(home, "jevlin", srv.url, extra="batch_size = 40\n" + WORKERS)
        raw = fill(home)
        d = Daemon(home).start()
        workers: list[int] = []
        try:
            assert d.proc is not None
            pid = d.proc.pid
            wait_for(lambda: len(children(pid)) == prepare.worker_count(1), HANG, "worker processes")
            workers = children(pid)
            for w in workers:
                os.kill(w, signal.SIGSTOP)
            # the daemon prepares what it listed itself, then waits on the chunks the stopped worker
            # holds, and says so
            wait_for(lambda: "waiting" in status(home), HANG, "the daemon waiting on the stopped worker")
            assert status(home)["waiting"]["pid"] in workers
            assert "preparing waiting" in cli(home, "daemon", "status").stdout
            assert len(srv.received) < len(raw), "some records wait on the hung worker"
            d.proc.send_signal(signal.SIGTERM)
            assert d.proc.wait(HANG) == 0
            assert "a worker process failed" not in daemon_log(home), "it waited out the worker instead"
            wait_for(lambda: not any(_alive(w) for w in workers), HANG, "the hung worker killed")
        finally:
            for w in workers:  # whatever happened above, no stopped worker outlives the test
                try:
                    os.kill(w, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            d.__exit__(None, None, None)
        restart_delivers_everything(home, srv, raw)


def test_a_stopped_worker_dies_with_a_daemon_killed_9(home):
    """A worker that cannot read the EOF that normally ends it (stopped) still goes when the
    daemon is killed -9: the kernel kills it with its parent (Linux)."""
    with FaultServer(default="slow:0.05") as srv:
        with started_with_workers(home, srv) as (d, raw, workers):
            # each worker is past its start-up (it has written an answer), as a worker that hangs is
            wait_for(lambda: all(written(w) > 0 for w in workers), HANG, "workers answering")
            for w in workers:
                os.kill(w, signal.SIGSTOP)
            try:
                d.kill9()
                wait_for(lambda: not any(_alive(w) for w in workers), HANG, "stopped workers gone with the daemon")
            finally:
                for w in workers:
                    try:
                        os.kill(w, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        restart_delivers_everything(home, srv, raw)
