"""Issue 29 items 12 and 15: one daemon per home whatever a clean-up deletes, `daemon stop` signals
only our daemon, concurrent starts start one, and the daemon's output and logs are never written
through a link. The CLI and the daemon as real processes; real files, links and locks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

from fault_server import FaultServer
from test_daemon import Daemon, queue, spool_empty, wait_for, write_config
from test_failclosed_daemon import cli

from jevlin_hooks.base import log
from jevlin_hooks.ship import control

HANG = 120  # seconds: only a real hang takes this long


def daemons_for(home: str) -> list[int]:
    """The pids of daemon processes (any way they were started) whose JEVLIN_HOME is ``home``."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            args = open(f"/proc/{d}/cmdline", "rb").read().split(b"\0")
            env = open(f"/proc/{d}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if b"jevlin_hooks.ship.service" in args and f"JEVLIN_HOME={home}".encode() in env:
            stat = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
            if stat[0] != "Z":
                out.append(int(d))
    return out


def alive(p: subprocess.Popen[Any]) -> bool:
    return p.poll() is None


def write_pid_file(home: str, pid: int) -> None:
    os.makedirs(os.path.join(home, "state"), mode=0o700, exist_ok=True)
    with open(os.path.join(home, "state", "daemon.pid"), "w") as f:
        f.write(f"{pid}\n")


# --- 12: one daemon per home ----------------------------------------------------------------------

def test_one_daemon_per_home_even_when_a_clean_up_deletes_its_lock(home):
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        with Daemon(home) as d:
            assert d.proc is not None
            for gone in ("state/daemon.lock", "state"):  # the lock file, then the whole state/
                subprocess.run(["rm", "-rf", os.path.join(home, gone)], check=True)
                second = subprocess.run([sys.executable, "-m", "jevlin_hooks.ship.service", "run"],
                                        env=d.env, capture_output=True, text=True, timeout=HANG)
                assert second.returncode == 1 and "already running" in second.stderr, second.stderr
                started = cli(home, "daemon", "start")
                assert started.returncode == 0 and f"already running (pid {d.proc.pid})" in started.stdout
                assert daemons_for(home) == [d.proc.pid]
                assert f"running (pid {d.proc.pid})" in cli(home, "daemon", "status").stdout
            rids = queue(home, 0, 3)  # the one daemon still delivers
            wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home), HANG, "delivery")
            stopped = cli(home, "daemon", "stop")
            assert stopped.returncode == 0 and f"stopped (pid {d.proc.pid})" in stopped.stdout
            d.proc.wait(HANG)


def test_a_daemon_whose_home_is_replaced_stops(home):
    """A home deleted and made again is a new home: the daemon that locked the old directory stops
    at its next pass rather than work beside the daemon the new home may get."""
    write_config(home)
    with Daemon(home) as d:
        assert d.proc is not None
        os.rename(home, home + ".old")
        os.makedirs(os.path.join(home, "logs"), mode=0o700)
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(open(os.path.join(home + ".old", "config.toml")).read())
        assert d.proc.wait(HANG) == 0
        # said where the user looks now: the home at that path
        assert "JEVLIN_HOME was removed or replaced" in open(os.path.join(home, "logs", "daemon.log")).read()
        with Daemon(home) as again:  # the new home gets its own
            assert again.proc is not None and again.proc.poll() is None
            again.stop()


def test_daemon_stop_never_signals_a_process_that_is_not_our_daemon(home):
    write_config(home)
    bystander = subprocess.Popen(["sleep", "600"])
    locker: subprocess.Popen[bytes] | None = None
    try:
        # no daemon: a pid file left behind that now names someone else's process
        write_pid_file(home, bystander.pid)
        p = cli(home, "daemon", "stop")
        assert p.returncode == 0 and "not running" in p.stdout
        # something that is not a daemon holds the home's lock, and the pid file names it
        locker = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time\n"
                                   "fd = os.open(sys.argv[1], os.O_RDONLY)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
                                   "print('locked', flush=True)\ntime.sleep(600)\n", home], stdout=subprocess.PIPE)
        assert locker.stdout is not None and locker.stdout.readline() == b"locked\n"
        write_pid_file(home, locker.pid)
        p = cli(home, "daemon", "stop")
        assert p.returncode == 1 and "not a jevlin-hooks daemon" in p.stderr and "not signalled" in p.stderr
        locker.kill()
        locker.wait(HANG)
        # our daemon runs, but the pid file was overwritten: the lock's holder is stopped, no one else
        with Daemon(home) as d:
            assert d.proc is not None
            write_pid_file(home, bystander.pid)
            p = cli(home, "daemon", "stop")
            assert p.returncode == 0 and f"stopped (pid {d.proc.pid})" in p.stdout
            assert d.proc.wait(HANG) == 0
        assert alive(bystander)
    finally:
        for proc in (bystander, locker):
            if proc is not None:
                proc.kill()
                proc.wait(HANG)


def test_three_concurrent_starts_start_one_daemon(home):
    write_config(home)
    env = {**os.environ, "JEVLIN_HOME": home}
    starts = [subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "start"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    try:
        outs = [p.communicate(timeout=HANG) for p in starts]
        assert [p.returncode for p in starts] == [0, 0, 0], outs
        said = sorted("started" if "daemon started" in o else "running" if "already running" in o else o + e
                      for o, e in outs)
        assert said == ["running", "running", "started"], outs
        pid = control.running_pid(home)
        assert pid and pid > 0 and daemons_for(home) == [pid]
    finally:
        cli(home, "daemon", "stop")
    wait_for(lambda: daemons_for(home) == [], HANG, "the daemon gone")  # its lock goes a moment before it does


# --- 15: the daemon's output and logs --------------------------------------------------------------

def test_daemon_start_never_writes_its_output_through_a_link(home, tmp_path):
    write_config(home)
    logs = os.path.join(home, "logs")
    os.makedirs(logs, mode=0o700, exist_ok=True)
    out = os.path.join(logs, "daemon.out")
    for kind in ("symlink", "hardlink"):
        victim = tmp_path / f"victim-{kind}"
        victim.write_bytes(b"precious\n")
        if os.path.lexists(out):
            os.unlink(out)
        (os.symlink if kind == "symlink" else os.link)(victim, out)
        try:
            p = cli(home, "daemon", "start")
            assert p.returncode == 0, p.stderr
            st = os.lstat(out)
            assert os.path.isfile(out) and not os.path.islink(out) and st.st_nlink == 1
            assert st.st_mode & 0o777 == 0o600
        finally:
            cli(home, "daemon", "stop")
        assert victim.read_bytes() == b"precious\n", f"written through a {kind}"


def test_daemon_out_gets_mode_0600_and_is_capped(home):
    write_config(home)
    logs = os.path.join(home, "logs")
    os.makedirs(logs, mode=0o700, exist_ok=True)
    out = os.path.join(logs, "daemon.out")
    with open(out, "wb") as f:
        f.write(b"old line\n" * (log.MAX_BYTES // 9 + 10))  # over the cap
    os.chmod(out, 0o644)
    try:
        assert cli(home, "daemon", "start").returncode == 0
        assert os.stat(out).st_mode & 0o777 == 0o600
        assert os.path.getsize(out) < log.MAX_BYTES
        assert open(out + ".1", "rb").read(9) == b"old line\n"
        # while it runs: whatever reaches its output past the cap is rotated the same way
        os.unlink(out + ".1")
        with open(out, "ab") as f:
            f.write(b"more\n" * (log.MAX_BYTES // 5 + 10))
        queue(home, 0, 1)  # a pass, now rather than at the next rescan
        wait_for(lambda: os.path.exists(out + ".1") and os.path.getsize(out) < log.MAX_BYTES, HANG,
                 "daemon.out rotated by the running daemon")
        st = os.lstat(out)
        assert st.st_nlink == 1 and st.st_mode & 0o777 == 0o600
        wait_for(lambda: spool_empty(home), HANG, "delivery goes on")
    finally:
        cli(home, "daemon", "stop")


def test_no_log_is_appended_through_a_hard_link(home, tmp_path):
    write_config(home)
    queue(home, 0, 2)
    logs = os.path.join(home, "logs")
    os.makedirs(logs, mode=0o700, exist_ok=True)
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    os.link(victim, os.path.join(logs, "daemon.log"))
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                       env={**os.environ, "JEVLIN_HOME": home, "JEVLIN_TRACE": "off"}, capture_output=True,
                       text=True, timeout=HANG)
    assert p.returncode == 0, p.stderr
    assert victim.read_bytes() == b"precious\n"
    st = os.lstat(os.path.join(logs, "daemon.log"))
    assert st.st_nlink == 1 and st.st_mode & 0o777 == 0o600
    assert "moved 2 queued record(s) to spool/held" in open(os.path.join(logs, "daemon.log")).read()


def test_status_names_the_lock_holder_not_the_pid_file(home):
    """A pid file that names another process does not make `status` report it as the daemon."""
    write_config(home)
    with Daemon(home) as d:
        assert d.proc is not None
        write_pid_file(home, os.getpid())
        assert f"running (pid {d.proc.pid})" in cli(home, "daemon", "status").stdout
        st = json.load(open(os.path.join(home, "state", "daemon.json")))
        assert st["pid"] == d.proc.pid
        d.proc.send_signal(signal.SIGTERM)
        assert d.proc.wait(HANG) == 0
    # the pid file was not the daemon's any more: it is left alone
    assert open(os.path.join(home, "state", "daemon.pid")).read().strip() == str(os.getpid())
