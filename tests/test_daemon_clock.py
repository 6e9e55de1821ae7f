"""The daemon and time: the answer deadline covers a whole request (issue 29 item 9), a 2xx whose
body never ends is delivered (item 10), backoff waits in monotonic time whatever the wall clock
does (item 11), and an idle daemon wakes only for events or its rescan and rewrites nothing
(issue 32 item 3). The daemon as a real process, a misbehaving server on 127.0.0.1, the CLI.

No test here measures speed: waits are for events and files, with timeouts that only a hang
reaches, and the idle test counts wake-ups and writes over a period it measures itself."""

from __future__ import annotations

import glob
import json
import os
import time
from typing import Any

import pytest
from fault_server import FaultServer
from test_daemon import Daemon, queue, spool_empty, wait_for, write_config
from test_failclosed_daemon import cli, daemon_log, queued

from jevlin_hooks.base import spool

HANG = 120  # seconds: only a real hang takes this long
FAKETIME = sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1"))


def with_timeout(home: str, seconds: float) -> None:
    """[ship] timeout_s (write_config puts its extra lines under [daemon])."""
    path = os.path.join(home, "config.toml")
    cfg = open(path).read().replace('api_key = "test-key"\n', f'api_key = "test-key"\ntimeout_s = {seconds}\n')
    with open(path, "w") as f:
        f.write(cfg)


def status_file(home: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.load(open(os.path.join(home, "state", "daemon.json")))
        return data
    except (OSError, ValueError):
        return {}


# --- 9: one deadline for the whole exchange ---------------------------------------------------------

@pytest.mark.parametrize("fault", ["trickle-headers", "continue"])
def test_an_answer_whose_headers_never_end_does_not_pin_delivery(home, fault):
    """A collector that trickles its headers, or answers `100 Continue` forever: the request is
    given up at [ship] timeout_s and the records go out at the next attempt, once each."""
    with FaultServer([fault]) as srv:
        write_config(home, "jevlin", srv.url)
        with_timeout(home, 2)
        rids = queue(home, 0, 3)
        with Daemon(home) as d:
            wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home), HANG, "delivery after the hang")
            d.stop()
        assert [f for _, _, f in srv.requests] == [fault, "ok"]
        assert set(srv.received.values()) == {1}
        assert srv.hung_up.is_set(), "the daemon hung up on the endless answer"
        assert "delivery failing: no answer within 2 s ([ship] timeout_s)" in daemon_log(home)


def test_status_shows_a_request_in_flight(home):
    with FaultServer(["trickle-headers"]) as srv:
        write_config(home, "jevlin", srv.url)
        with_timeout(home, 600)  # pinned for as long as the test looks at it
        queue(home, 0, 4)
        with Daemon(home) as d:
            wait_for(lambda: "sending   4 record(s) to the jevlin sink, request in flight for" in
                     cli(home, "status").stdout, HANG, "the request shown in flight")
            out = cli(home, "daemon", "status").stdout
            assert "(given up after 600s)" in out and "4 waiting, 0 in flight" not in out
            d.stop()  # SIGTERM during the send: the batch stays queued
        assert queued(home) == 4 and "stopped during a send" in daemon_log(home)
        assert "sending" not in cli(home, "status").stdout


@pytest.mark.parametrize("sink", ["jevlin", "otlp"])
def test_a_2xx_whose_body_never_ends_is_delivered_once(home, sink):
    with FaultServer(["trickle-body"]) as srv:
        write_config(home, sink, srv.url)
        with_timeout(home, 2)
        rids = queue(home, 0, 3)
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 0, p.stderr
        assert spool_empty(home) and set(srv.received) == set(rids) and len(srv.requests) == 1


# --- 11: backoff in monotonic time ------------------------------------------------------------------

@pytest.mark.skipif(not FAKETIME and not os.environ.get("JEVLIN_E2E_REQUIRED"),
                    reason="needs libfaketime (Debian: apt-get install faketime; `./dev test` installs it)")
def test_the_wall_clock_stepping_back_an_hour_does_not_stop_delivery(home, tmp_path):
    """The daemon runs under libfaketime (wall clock only: CLOCK_MONOTONIC is left alone, as the
    kernel does when the clock is set). While it backs off after a 429, its wall clock is stepped
    back an hour: the retry still comes after the server's Retry-After, not an hour later."""
    assert FAKETIME, "libfaketime is not installed"
    clock = tmp_path / "clock"
    clock.write_text("+0\n")
    env = {"LD_PRELOAD": FAKETIME[0], "FAKETIME_TIMESTAMP_FILE": str(clock), "FAKETIME_NO_CACHE": "1",
           "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
    with FaultServer(default="429:2") as srv:
        write_config(home, "jevlin", srv.url)
        rids = queue(home, 0, 3)
        with Daemon(home, env=env) as d:
            # the daemon has taken the 429 and is waiting to retry
            wait_for(lambda: "HTTP 429" in str(status_file(home).get("problem")), HANG, "a backoff under way")
            clock.write_text("-1h\n")
            srv.set(default="ok")
            wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home), HANG,
                     "delivery after the clock stepped back")
            wait_for(lambda: status_file(home).get("last_success"), HANG, "the success recorded")
            d.stop()
        # the daemon's wall clock was an hour behind when it delivered: the step did happen
        assert status_file(home)["last_success"] < time.time() - 3000


# --- issue 32 item 3: idle ---------------------------------------------------------------------------

IDLE_S = 8.0  # the period watched; the daemon's own rescan is 30 s


@pytest.mark.parametrize("trace", ["on", "off"])
def test_an_idle_daemon_wakes_rarely_and_writes_nothing(home, trace):
    """Default timings. Once the queue is drained (or, tracing off, held), the daemon sleeps until
    a record arrives, the config changes or its 30-second rescan: over the period watched, its
    status file is not rewritten and its loop wakes at most once per 30 s (``loop_passes``,
    written at exit)."""
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'trace = "{trace}"\n[ship]\nsink = "local"\n[daemon]\nautostart = false\n')
    queue(home, 0, 5)
    path = os.path.join(home, "state", "daemon.json")

    def settled() -> bool:
        st = status_file(home)
        if trace == "off":
            return st.get("trace") == "off" and spool.count(home, "held") == 5
        return spool_empty(home) and st.get("delivered_total") == 5 and st.get("in_flight") == 0 \
            and "sending" not in st

    with Daemon(home) as d:
        wait_for(settled, HANG, "the queue drained (or held) and the daemon idle")
        before = os.stat(path)
        idle = status_file(home)
        time.sleep(IDLE_S)
        after = os.stat(path)
        watched = time.time() - idle["updated"]
        assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), \
            "the status file was rewritten while nothing changed"
        d.stop()
    woke = status_file(home)["loop_passes"] - idle["loop_passes"]
    assert woke <= 1 + int(watched / 30), f"{woke} wake-ups in {watched:.0f}s idle"


def test_an_idle_daemon_wakes_for_a_record_or_a_config_change(home):
    """With the rescan an hour away, only the file system events can wake it."""
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        path = os.path.join(home, "config.toml")
        cfg = open(path).read().replace("rescan_s = 0.2", "rescan_s = 3600")
        with open(path, "w") as f:
            f.write(cfg)
        with Daemon(home) as d:
            rids = queue(home, 0, 2)
            wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home), HANG, "a record wakes it")
            wait_for(lambda: "sending" not in status_file(home), HANG, "idle again")
            with open(path) as f:
                cfg = f.read()
            with open(path, "w") as f:
                f.write('trace = "off"\n' + cfg)
            wait_for(lambda: status_file(home).get("trace") == "off", HANG, "a config change wakes it")
            d.stop()
