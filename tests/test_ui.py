"""`jevlin-hooks ui`: the local trajectory browser, served from the local store, looked at in a real
headless browser."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys

import pytest
from test_trajectory import CHROMIUM, S_MAIN, S_SUB, build_home, h


@pytest.fixture
def ui(probe_home, tmp_path):
    build_home(probe_home, tmp_path, claude=("basic", "subagent"), codex=("subagent",))
    proc = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "ui", "--port", "0"],
                            env={**os.environ, "JEVLIN_HOME": probe_home}, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # "serving the local store on http://127.0.0.1:PORT/ ..."
        url = line.split()[5]
        assert url.startswith("http://127.0.0.1:"), line
        yield probe_home, url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def get(url: str, path: str, host: str | None = None) -> tuple[int, str]:
    netloc = url.split("//")[1].rstrip("/")
    conn = http.client.HTTPConnection(netloc, timeout=30)
    conn.request("GET", path, headers={"Host": host or netloc})
    resp = conn.getresponse()
    return resp.status, resp.read().decode()


def test_list_filter_and_thread_pages(ui):
    home, url = ui
    status, page = get(url, "/")
    assert status == 200
    assert f'data-thread="{h(home, S_SUB)}"' in page and f'href="/thread/{h(home, S_SUB)}"' in page
    assert page.count("<tr data-thread=") == 3  # two Claude Code roots, one Codex root
    status, only = get(url, "/?harness=codex")
    assert status == 200 and only.count("<tr data-thread=") == 1 and '<option value="codex" selected>' in only
    status, recent = get(url, "/?since=1h")  # replayed just now
    assert status == 200 and recent.count("<tr data-thread=") == 3 and '<option value="1h" selected>' in recent
    status, th = get(url, f"/thread/{h(home, S_SUB)}")
    assert status == 200 and 'class="subagent"' in th and 'href="/"' in th
    assert get(url, "/thread/" + "0" * 64)[0] == 404


def test_only_loopback_names_are_served(ui):
    _, url = ui
    status, page = get(url, "/", host="attacker.example:80")
    assert status == 403 and "<tr" not in page


def test_no_raw_id_on_any_page(ui):
    home, url = ui
    pages = [get(url, "/")[1]] + [get(url, f"/thread/{h(home, s)}")[1] for s in (S_MAIN, S_SUB)]
    for raw in (S_MAIN, S_SUB):
        assert all(raw not in p for p in pages)


@pytest.mark.e2e  # a real browser: `./dev test` installs it, `./dev check` leaves it out
@pytest.mark.skipif(not CHROMIUM and not os.environ.get("JEVLIN_E2E_REQUIRED"), reason="needs Debian's chromium")
def test_in_a_real_browser(ui, tmp_path):
    assert CHROMIUM, "chromium is not installed (./dev test installs it)"
    home, url = ui
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    assert "Threads" in dom and dom.count("<tr data-thread=") == 3 and "claude-code" in dom and "codex" in dom
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", url + f"thread/{h(home, S_SUB)}"], capture_output=True,
                         text=True, timeout=120).stdout
    assert "Refund reasons need a NOT NULL reason column" in dom and "all threads" in dom
    shot = tmp_path / "ui.png"
    subprocess.run([CHROMIUM, *flags, f"--screenshot={shot}", "--window-size=1100,700", url],
                   capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000
