"""Issue 10, the daemon against hostile or misconfigured servers (cases 6, 11, 12, 16): the real
daemon (`daemon run --once`, or the long-running one as a subprocess), a real HTTP server on
127.0.0.1, the CLI."""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from typing import Any

import pytest
from fault_server import FaultServer
from test_daemon import Daemon, queue, raw_record, spool_empty, wait_for, write_config

from jevlin_hooks.base import spool
from jevlin_hooks.ship.sinks import Result


def cli(home: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env={**os.environ, "JEVLIN_HOME": home},
                          capture_output=True, text=True, timeout=120)


def queued(home: str) -> int:
    return spool.count(home, "new") + spool.count(home, "cur")


def daemon_log(home: str) -> str:
    try:
        return open(os.path.join(home, "logs", "daemon.log")).read()
    except FileNotFoundError:
        return ""


# --- 11: what an HTTP answer means ---------------------------------------------------------------

@pytest.mark.parametrize("fault,fix", [
    ("redirect:301", "[ship] endpoint to the final URL"), ("redirect:308", "[ship] endpoint to the final URL"),
    ("401", "set [ship] api_key (or JEVLIN_API_KEY) to a valid key"), ("403", "[ship] api_key"),
    ("404", "check the URL in [ship] endpoint"), ("407", "[ship] endpoint points at a proxy"),
    ("415", "check [ship] sink"), ("422", "[ship] endpoint is an API"),
])
def test_config_answers_hold_the_whole_queue_until_fixed(home, fault, fix):
    with FaultServer(default=fault) as srv:
        write_config(home, "jevlin", srv.url)
        queue(home, 0, 6)
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 1 and "held" in p.stderr and fix in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
        assert queued(home) == 6 and spool.count(home, "quarantine") == 0, "held, nothing quarantined"
        status = cli(home, "status").stdout
        assert "HELD" in status and fix in status and "6 waiting, 0 in flight" in status
        doctor = cli(home, "doctor")
        assert doctor.returncode == 1 and f"!!  delivery: HELD: {srv.url.split('//')[1]}" in doctor.stdout.replace(
            "http://", "")
        if fault.startswith("redirect"):
            assert f"to {srv.url}/moved" in status
            assert len(srv.requests) == 1, "a redirect is not followed"
        # the server is fixed: everything goes out, and the problem is gone from status and doctor
        srv.set(default="ok")
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 0, p.stderr
        assert len(srv.received) == 6 and spool_empty(home)
        assert "HELD" not in cli(home, "status").stdout
        assert "delivery:" not in cli(home, "doctor").stdout


def test_a_held_queue_goes_out_as_soon_as_the_config_is_fixed(home):
    """The long-running daemon: a wrong key holds the queue (no quarantine, no hot loop); the
    right key in config.toml delivers everything, without a restart."""
    with FaultServer(default="auth:right-key") as srv:
        write_config(home, "jevlin", srv.url)  # api_key = "test-key": wrong
        rids = queue(home, 0, 12)
        with Daemon(home) as d:
            wait_for(lambda: "HELD" in cli(home, "status").stdout, 20, "held")
            wait_for(lambda: len(srv.requests) >= 3, 20, "held attempts")
            times = [t for t, _, _ in srv.requests]
            gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
            assert min(gaps) >= 0.95, f"held, yet retried after {min(gaps):.2f}s"  # no hot loop
            assert spool.count(home, "quarantine") == 0 and queued(home) == 12
            cfg = open(os.path.join(home, "config.toml")).read().replace('"test-key"', '"right-key"')
            with open(os.path.join(home, "config.toml"), "w") as f:
                f.write(cfg)
            wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home), 20, "delivery after the fix")
            wait_for(lambda: "HELD" not in cli(home, "status").stdout, 10, "problem cleared")
            d.stop()
    log = daemon_log(home)
    assert log.count("delivery held:") == 1 and "delivery works again" in log


def test_413_splits_the_batch_and_every_record_arrives(home):
    with FaultServer(default="max:3") as srv:
        write_config(home, "jevlin", srv.url, extra="batch_size = 20\n")
        rids = queue(home, 0, 40)
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 0, p.stderr
        assert set(srv.received) == set(rids) and spool_empty(home)
        assert spool.count(home, "quarantine") == 0
        assert max(srv.sizes) == 20 and 3 in srv.sizes  # tried whole, then in halves


def test_a_record_refused_alone_is_quarantined_the_rest_goes_on(home):
    with FaultServer(default="poison:POISON") as srv:
        write_config(home, "jevlin", srv.url, extra="batch_size = 16\n")
        recs = [raw_record(i) for i in range(30)]
        recs[7]["query"] = "POISON pill"
        spool.enqueue(home, recs)
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 0, p.stderr
        assert set(srv.received) == {r["record_id"] for r in recs} - {recs[7]["record_id"]}
        assert spool_empty(home) and spool.count(home, "quarantine") == 1
        listed = cli(home, "quarantine", "list").stdout
        assert "search" in listed and "HTTP 400" in listed and "bad record in batch" in listed
        # the server accepts it now: released, it is sent as it was made safe (not hashed twice)
        srv.set(default="ok")
        assert "1 quarantined record(s) queued again" in cli(home, "quarantine", "release").stdout
        shown = cli(home, "preview").stdout
        assert recs[7]["record_id"] in shown and "invalid" not in shown
        assert cli(home, "daemon", "run", "--once").returncode == 0
        assert recs[7]["record_id"] in srv.received
        assert srv.records[recs[7]["record_id"]]["session_id"] == srv.records[recs[0]["record_id"]]["session_id"]
        assert spool.count(home, "quarantine") == 0


def test_a_server_refusing_every_record_quarantines_none(home):
    with FaultServer(default="400") as srv:
        write_config(home, "jevlin", srv.url, extra="batch_size = 8\n")
        queue(home, 0, 8)
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 1 and "HTTP 400" in p.stderr
        assert queued(home) == 8 and spool.count(home, "quarantine") == 0
        assert srv.received == {}
        assert "failing: HTTP 400" in cli(home, "status").stdout


@pytest.mark.parametrize("retry_after", ["0", "-5"])
def test_retry_after_zero_or_negative_waits_at_least_a_second(home, retry_after):
    with FaultServer([f"429:{retry_after}", f"429:{retry_after}"]) as srv:
        write_config(home, "jevlin", srv.url)
        rids = queue(home, 0, 3)
        with Daemon(home) as d:
            wait_for(lambda: set(srv.received) == set(rids), 20, "delivery after 429s")
            d.stop()
        times = [t for t, _, _ in srv.requests]
        assert len(times) == 3 and times[1] - times[0] >= 0.95 and times[2] - times[1] >= 0.95


@pytest.mark.parametrize("sink", ["jevlin", "otlp"])
@pytest.mark.parametrize("body", ["html", "list", "junk", "badrejected", "badpartial", "badgzip", "brotli"])
def test_a_2xx_body_the_sink_does_not_understand_is_a_success(home, sink, body):
    with FaultServer([f"body:{body}"]) as srv:
        write_config(home, sink, srv.url)
        rids = queue(home, 0, 4)
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 0, p.stderr
        assert spool_empty(home) and spool.count(home, "quarantine") == 0
        assert set(srv.received) == set(rids) and len(srv.requests) == 1, "sent once, not again"


# --- 16: bounded answers (and issue 29 item 10: a 2xx is delivered whatever its body) -------------------------------------------------------------------------

def _once_with_peak_rss(home: str) -> tuple[int, int, str]:
    """`daemon run --once` in a parent that runs only it: (exit status, its peak RSS in KiB, stderr)."""
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run([sys.executable, '-m', 'jevlin_hooks.cli', 'daemon', 'run', '--once'],"
             " capture_output=True, text=True)\n"
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stderr.write(p.stderr)\n")
    p = subprocess.run([sys.executable, "-c", probe], env={**os.environ, "JEVLIN_HOME": home},
                       capture_output=True, text=True, timeout=300)
    code, rss_kib = map(int, p.stdout.split())
    return code, rss_kib, p.stderr


@pytest.mark.parametrize("sink", ["jevlin", "otlp"])
@pytest.mark.parametrize("fault", ["bomb:512", "big:8"])
def test_a_2xx_with_a_huge_or_bombed_body_is_delivered_once(home, sink, fault):
    """Issue 29 item 10: the server said 2xx, so the records are delivered, whatever the body (a
    gzip bomb of 512 MiB, 8 MiB of plain text): never sent again, and never read past 1 MiB."""
    with FaultServer([fault]) as srv:
        write_config(home, sink, srv.url)
        rids = queue(home, 0, 3)
        code, rss_kib, err = _once_with_peak_rss(home)
        assert code == 0, err
        assert rss_kib < 256 * 1024, f"daemon peaked at {rss_kib // 1024} MiB"
        assert spool_empty(home) and spool.count(home, "quarantine") == 0
        assert set(srv.received) == set(rids) and len(srv.requests) == 1, "delivered once, not sent again"
        assert cli(home, "daemon", "run", "--once").returncode == 0
        assert len(srv.requests) == 1


def test_an_error_with_a_huge_body_is_retried_by_its_status(home):
    """A 503 with 8 MiB of body is a 503: retried later (read no further than 1 MiB)."""
    with FaultServer(["error:503:8"]) as srv:
        write_config(home, "jevlin", srv.url)
        rids = queue(home, 0, 3)
        code, rss_kib, err = _once_with_peak_rss(home)
        assert code == 1 and "HTTP 503" in err, err
        assert rss_kib < 256 * 1024, f"daemon peaked at {rss_kib // 1024} MiB"
        assert queued(home) == 3 and spool.count(home, "quarantine") == 0
        assert cli(home, "daemon", "run", "--once").returncode == 0
        assert set(srv.received) == set(rids)


# --- 6: no key over plain http -------------------------------------------------------------------

@pytest.mark.parametrize("sink,key", [("jevlin", "[ship] api_key"), ("otlp", "[ship] headers")])
def test_no_key_over_plain_http_to_another_host(home, sink, key):
    write_config(home, sink, "http://collector.example.invalid:4318/x")
    if sink == "otlp":
        with open(os.path.join(home, "config.toml")) as f:
            cfg = f.read().replace('api_key = "test-key"', 'headers = { "x-honeycomb-team" = "secret-team-key" }')
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(cfg)
    queue(home, 0, 2)
    p = cli(home, "daemon", "run", "--once")
    assert p.returncode == 1
    line = p.stderr.strip()
    assert len(line.splitlines()) == 1 and f"refusing to send {key}" in line and "plain http://" in line
    assert "use https:// in [ship] endpoint" in line and "secret-team-key" not in line and "test-key" not in line
    assert queued(home) == 2 and spool.count(home, "quarantine") == 0
    assert f"refusing to send {key}" in cli(home, "status").stdout


def test_plain_http_to_this_machine_is_fine(home):
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url.replace("127.0.0.1", "localhost"))
        queue(home, 0, 2)
        assert cli(home, "daemon", "run", "--once").returncode == 0
        assert srv.auth == ["Bearer test-key"]


# --- 12: failures are logged once per change, doctor shows only what is wrong now -----------------

def test_delivery_failures_logged_once_per_change_of_state(home):
    with FaultServer(default="500") as srv:
        write_config(home, "jevlin", srv.url)
        rids = queue(home, 0, 3)
        with Daemon(home) as d:
            wait_for(lambda: len(srv.requests) >= 4, 20, "several failed attempts")
            srv.set(default="ok")
            # the server has the records before the daemon reads its answer: a stop in between would
            # put them back in the queue (at least once), so wait for the daemon to have taken the answer
            wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home)
                     and "delivery works again" in daemon_log(home), 20, "recovery")
            d.stop()
    log = daemon_log(home)
    assert log.count("delivery failing: HTTP 500") == 1, log
    assert log.count("delivery works again") == 1
    doctor = cli(home, "doctor").stdout
    assert "delivery:" not in doctor, "a past failure is not a current problem"


def test_connection_refused_and_empty_endpoint_are_logged_and_shown(home):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    write_config(home, "jevlin", f"http://127.0.0.1:{port}/v1")
    queue(home, 0, 2)
    assert cli(home, "daemon", "run", "--once").returncode == 1
    assert "delivery failing: ConnectError" in daemon_log(home)
    assert "failing: ConnectError" in cli(home, "doctor").stdout
    write_config(home, "jevlin", "")
    p = cli(home, "daemon", "run", "--once")
    assert p.returncode == 1 and "[ship] endpoint is empty" in p.stderr
    assert "delivery held: [ship] endpoint is empty" in daemon_log(home)
    doctor = cli(home, "doctor").stdout
    assert "[ship] endpoint is empty" in doctor and "ConnectError" not in doctor
    assert queued(home) == 2


def test_status_json_problem_is_machine_readable(home):
    with FaultServer(default="404") as srv:
        write_config(home, "jevlin", srv.url)
        queue(home, 0, 1)
        cli(home, "daemon", "run", "--once")
    st = json.load(open(os.path.join(home, "state", "daemon.json")))
    assert st["problem"]["kind"] == "held" and "HTTP 404" in st["problem"]["message"]


def test_a_key_with_a_line_break_is_held_not_sent(home):
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        cfg = open(os.path.join(home, "config.toml")).read().replace('"test-key"', '"test-key\\r\\nX-Injected: 1"')
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(cfg)
        queue(home, 0, 2)
        p = cli(home, "daemon", "run", "--once")
        assert p.returncode == 1 and "hold characters HTTP cannot carry" in p.stderr
        assert srv.requests == [] and queued(home) == 2


# --- a client made for an http:// endpoint loads no CA bundle, and trusts nothing ---------------

def _https_server(tmp_path: Any) -> tuple[Any, list[bytes], Any]:
    """A TLS server on 127.0.0.1 with a self-signed certificate (made by the openssl program),
    answering 200 to whatever it reads; (the server, the requests it read, its thread)."""
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = socket.create_server(("127.0.0.1", 0))
    srv.settimeout(30)
    got: list[bytes] = []

    def serve() -> None:
        try:
            conn, _ = srv.accept()
            with ctx.wrap_socket(conn, server_side=True) as tls:
                got.append(tls.recv(65536))
                tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except (OSError, ssl.SSLError):
            pass  # the client refused the handshake: what the test wants

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return srv, got, t


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl program to make a certificate")
def test_a_client_for_an_http_endpoint_trusts_no_certificate(tmp_path):
    from jevlin_hooks.ship.sinks import http

    plain = http.client(5, "http://127.0.0.1:4318")
    tls = http.client(5, "https://collector.example")
    try:
        plain_ctx = plain.http._transport._pool._ssl_context  # type: ignore[attr-defined]
        tls_ctx = tls.http._transport._pool._ssl_context  # type: ignore[attr-defined]
        # verifying as strictly as the real one, with no trust anchor at all
        assert plain_ctx.verify_mode == ssl.CERT_REQUIRED and plain_ctx.check_hostname
        assert plain_ctx.cert_store_stats()["x509_ca"] == 0
        assert tls_ctx.verify_mode == ssl.CERT_REQUIRED and tls_ctx.cert_store_stats()["x509_ca"] > 0
        srv, got, t = _https_server(tmp_path)
        try:
            url = f"https://127.0.0.1:{srv.getsockname()[1]}/v1/traces"
            out = http.post(plain, url, b"payload", {}, "application/x-protobuf")
        finally:
            t.join(30)
            srv.close()
        assert isinstance(out, Result) and out.retry and "ConnectError" in (out.error or "")
        assert got == []  # not a byte of the request was sent
    finally:
        plain.close()
        tls.close()
