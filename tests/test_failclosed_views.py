"""Issue 29, the local views (item 4 and the store half of 16): `threads`, `thread`,
`thread --html` and `ui` refuse a home that is not the user's, carry a Content-Security-Policy
that forbids scripts (and still render in headless Chromium), and work on a home whose path holds
`?`, `#` or `%`. Stores built by real hooks and the real daemon."""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys

import pytest
from conftest import PROBE_CONFIG
from test_trajectory import CHROMIUM, S_MAIN, build_home, cli, h

from jevlin_hooks.views import trajectory_html

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make files of another user")
needs_chromium = pytest.mark.skipif(not CHROMIUM and not os.environ.get("JEVLIN_E2E_REQUIRED"),
                                    reason="needs Debian's chromium")


def make_home(path: str) -> str:
    os.makedirs(path, mode=0o700)
    with open(os.path.join(path, "config.toml"), "w") as f:
        f.write(PROBE_CONFIG)
    return path


@pytest.fixture
def small_store(tmp_path):
    home = make_home(str(tmp_path / "jhome"))
    build_home(home, tmp_path, claude=("basic",), codex=())
    return home


def view_commands(tid: str, out: str) -> list[list[str]]:
    return [["threads"], ["threads", "--json"], ["thread", tid[:8]], ["thread", tid[:8], "--html", out],
            ["summarize", tid[:8]]]


def ui_refuses(home: str) -> str:
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "ui", "--port", "0"],
                       env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "serving" not in p.stdout
    return p.stderr


# --- 4: another user's home is refused ------------------------------------------------------------

@needs_root
def test_views_refuse_a_home_owned_by_another_user(small_store, tmp_path):
    home = small_store
    tid = h(home, S_MAIN)
    for root, dirs, files in os.walk(home):
        for n in [*dirs, *files]:
            os.chown(os.path.join(root, n), 65534, 65534)
    os.chown(home, 65534, 65534)
    page = str(tmp_path / "page.html")
    refused = f"jevlin-hooks: JEVLIN_HOME {home} is owned by uid 65534, not you (uid 0): refused"
    for args in view_commands(tid, page):
        p = cli(home, *args)
        assert p.returncode == 1 and p.stdout == "" and p.stderr.strip() == refused, (args, p.stdout, p.stderr)
    assert refused in ui_refuses(home)
    assert not os.path.exists(page), "nothing from their store is written out"


def test_views_refuse_a_home_others_may_write(small_store, tmp_path):
    tid = h(small_store, S_MAIN)
    os.chmod(small_store, 0o770)
    for args in view_commands(tid, str(tmp_path / "page.html")):
        p = cli(small_store, *args)
        assert p.returncode == 1 and "is writable by group or others (mode 770): refused" in p.stderr, args
    assert "is writable by group or others" in ui_refuses(small_store)


def test_views_refuse_a_store_that_is_a_symlink(tmp_path):
    home = make_home(str(tmp_path / "jhome"))
    elsewhere = tmp_path / "elsewhere.db"
    elsewhere.write_bytes(b"")
    os.symlink(elsewhere, os.path.join(home, "traces.db"))
    p = cli(home, "threads")
    assert p.returncode == 1 and "traces.db is not a regular file (a symlink?): refused" in p.stderr
    assert "not a regular file" in ui_refuses(home)


# --- 4: a Content-Security-Policy that forbids scripts ---------------------------------------------

def csp_of(html: str) -> str:
    (policy,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    return policy


def forbids_scripts(policy: str) -> None:
    parts = {p.split()[0]: p.split()[1:] for p in policy.split(";") if p.strip()}
    assert parts["default-src"] == ["'none'"], policy
    assert "script-src" not in parts and "script-src-attr" not in parts and "script-src-elem" not in parts, \
        "no script allowance: scripts and inline handlers fall back to default-src 'none'"
    assert "'unsafe-inline'" not in " ".join(v for k, vs in parts.items() if k != "style-src" for v in vs)


@pytest.fixture
def ui_server(small_store):
    proc = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "ui", "--port", "0"],
                            env={**os.environ, "JEVLIN_HOME": small_store}, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        yield small_store, line.split()[5].split("//")[1].rstrip("/")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def get(netloc: str, path: str) -> tuple[int, str, str]:
    conn = http.client.HTTPConnection(netloc, timeout=30)
    conn.request("GET", path, headers={"Host": netloc})
    resp = conn.getresponse()
    return resp.status, resp.getheader("Content-Security-Policy") or "", resp.read().decode()


def test_every_ui_page_carries_the_policy_as_header_and_meta(ui_server):
    home, netloc = ui_server
    for path, want in (("/", 200), (f"/thread/{h(home, S_MAIN)}", 200), ("/thread/" + "0" * 64, 404), ("/x", 404)):
        status, header, body = get(netloc, path)
        assert status == want, path
        forbids_scripts(header)
        assert "frame-ancestors 'none'" in header
        forbids_scripts(csp_of(body))


def inject(html: str, policy: bool) -> str:
    """The page with a script and an inline handler in its body (what an escaping bug would let a
    record do); ``policy`` False takes the page's policy out, to show the browser runs them then."""
    if not policy:
        html = html.replace(trajectory_html.CSP_META, "")
    evil = ("<script>document.title = 'script ran'</script>"
            "<img src=\"data:,x\" onerror=\"document.title = 'handler ran'\">")
    return html.replace("<main>", "<main>" + evil, 1)


@needs_chromium
def test_the_page_policy_stops_scripts_and_handlers_in_a_real_browser(small_store, tmp_path):
    assert CHROMIUM
    page = tmp_path / "t.html"
    p = cli(small_store, "thread", h(small_store, S_MAIN)[:8], "--html", str(page))
    assert p.returncode == 0, p.stderr
    html = page.read_text()
    forbids_scripts(csp_of(html))
    assert html.index(trajectory_html.CSP_META) < html.index("<style>"), "in the head, before any content"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    titles = {}
    for policy in (True, False):
        probe = tmp_path / f"probe-{policy}.html"
        probe.write_text(inject(html, policy))
        dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", probe.as_uri()], capture_output=True, text=True,
                             timeout=120).stdout
        assert "Before touching the webhook client" in dom or "jevlin search" in dom, "the page renders"
        titles[policy] = re.search(r"<title>(.*?)</title>", dom).group(1)
    assert "ran" not in titles[True], titles
    assert "ran" in titles[False], "without the policy the same page runs them: the check can fail"


# --- 16: a home path with ?, # or % -----------------------------------------------------------------

def test_views_work_on_a_home_whose_path_holds_uri_characters(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    home = make_home(str(base / "we?ird#ho%41me"))
    threads = build_home(home, tmp_path, claude=("basic",), codex=())
    assert threads, "the daemon filled the store"
    before = sorted(os.listdir(base))
    tid = h(home, S_MAIN)
    p = cli(home, "threads", "--json")
    assert p.returncode == 0 and tid in p.stdout, p.stderr
    assert cli(home, "thread", tid[:8]).returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "ui", "--port", "0"],
                            env={**os.environ, "JEVLIN_HOME": home}, stdout=subprocess.PIPE, text=True)
    try:
        netloc = proc.stdout.readline().split()[5].split("//")[1].rstrip("/")
        status, _, page = get(netloc, "/")
        assert status == 200 and f'data-thread="{tid}"' in page
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert sorted(os.listdir(base)) == before == ["we?ird#ho%41me"], "no stray database beside the home"
    assert not [n for n in os.listdir(home) if n.startswith("traces.db") and n != "traces.db"
                and not n.endswith(("-wal", "-shm"))]

