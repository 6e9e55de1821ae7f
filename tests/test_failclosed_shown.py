"""Issue 29 item 5: an endpoint's credentials are never shown. `config show`, `status`, `doctor`,
the daemon's log and its state file, with the real daemon against a real server on 127.0.0.1."""

from __future__ import annotations

import json
import os

import pytest
from fault_server import FaultServer
from http_helpers import LocalServer, QuietHandler
from test_daemon import queue, write_config
from test_failclosed_daemon import cli, daemon_log

PW = "hunter2pw"
TOKEN = "tok_Q8v2Lm4Nw6Pr9Ts1"


@pytest.mark.parametrize("endpoint,shown", [
    (f"https://user:{PW}@example.com/v1?api_key={TOKEN}&x=1#{TOKEN}", "https://user:***@example.com/v1?api_key=***&x=***#***"),
    (f"user:{PW}@db.example:5432/x", "user:***@db.example:5432/x"),  # no scheme
    (f"user:{PW}@db.example", "user:***@db.example"),
    (f"https://{TOKEN}@example.com/org/repo.git", "https://***@example.com/org/repo.git"),  # a token as the user
    (f"https://example.com/x?{TOKEN}", "https://example.com/x?***"),
    (f"https://user:p@{PW}@example.com/", "https://user:***@example.com/"),  # an unencoded @ in the password
    (f"https://example.com/x;y?a={TOKEN};b={TOKEN}", "https://example.com/x;y?a=***&b=***"),
    ("https://collector.example:4318/v1/traces", "https://collector.example:4318/v1/traces"),  # nothing to hide
])
def test_config_show_masks_an_endpoints_credentials(home, endpoint, shown):
    write_config(home, "otlp", endpoint)
    p = cli(home, "config", "show")
    assert p.returncode == 0, p.stderr
    assert f'ship.endpoint = "{shown}"  # file' in p.stdout.splitlines()
    assert PW not in p.stdout and TOKEN not in p.stdout


def secret_free(home: str, *texts: str) -> None:
    state = open(os.path.join(home, "state", "daemon.json")).read()
    for text in (*texts, daemon_log(home), state):
        assert PW not in text and TOKEN not in text, text


def test_a_held_endpoint_is_named_without_its_credentials(home):
    """A 404 holds the queue and names the endpoint: in status, doctor, the log and the state file."""
    with FaultServer(default="404") as srv:
        endpoint = f"http://user:{PW}@127.0.0.1:{srv.port}/v1?api_key={TOKEN}"
        write_config(home, "jevlin", endpoint)
        queue(home, 0, 2)
        assert cli(home, "daemon", "run", "--once").returncode == 1
        assert srv.requests, "the server was asked"
    status, doctor = cli(home, "status").stdout, cli(home, "doctor").stdout
    shown = f"http://user:***@127.0.0.1:{srv.port}/v1?api_key=*** answers HTTP 404"
    assert shown in status and shown in doctor and shown in daemon_log(home)
    assert json.load(open(os.path.join(home, "state", "daemon.json")))["problem"]["message"].startswith(shown)
    secret_free(home, status, doctor)


def test_a_redirect_to_a_credentialed_location_is_shown_masked(home):
    with FaultServer(default="redirect:302") as srv:
        write_config(home, "jevlin", f"{srv.url}/v1")
        srv.url = f"http://user:{PW}@127.0.0.1:{srv.port}/v2?sig={TOKEN}"  # where the server sends us
        queue(home, 0, 1)
        assert cli(home, "daemon", "run", "--once").returncode == 1
    status = cli(home, "status").stdout
    assert f"a redirect to http://user:***@127.0.0.1:{srv.port}/v2?sig=***: set [ship] endpoint" in status, status
    secret_free(home, status)


def test_an_endpoint_without_a_scheme_is_refused_without_its_password(home):
    write_config(home, "otlp", f"user:{PW}@127.0.0.1:9/v1/traces?token={TOKEN}")
    queue(home, 0, 1)
    p = cli(home, "daemon", "run", "--once")
    assert p.returncode == 1
    status = cli(home, "status").stdout
    assert "[ship] endpoint must be an http:// or https:// URL, not 'user:***@127.0.0.1:9/v1/traces" in status, status
    secret_free(home, status, p.stdout, p.stderr, cli(home, "doctor").stdout)


class EchoServer(LocalServer):
    """A server whose error page quotes the request line back, as many do."""

    def __init__(self, code: int) -> None:
        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                self.read_body()
                body = f"no route for POST {self.path}".encode()
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.serve(Handler)


def test_an_error_page_quoting_the_request_does_not_leak_its_token(home):
    with EchoServer(500) as srv:
        write_config(home, "jevlin", f"{srv.url}/v1?api_key={TOKEN}")
        queue(home, 0, 1)
        assert cli(home, "daemon", "run", "--once").returncode == 1
    status = cli(home, "status").stdout
    assert "failing: HTTP 500: no route for POST /v1?api_key=***" in status, status
    secret_free(home, status, cli(home, "doctor").stdout)
