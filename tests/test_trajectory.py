"""Trajectories from replayed real sessions: hooks -> queue -> daemon -> local store -> views."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from conftest import PROBE_CONFIG, replay_scenario, run

from jevlin_hooks import replay
from jevlin_hooks.privacy import ids
from jevlin_hooks.views import trajectory, ui

S_MAIN = "9291ef5c-ce95-4fb4-83c9-c62badd920cd"
S_AUTO = "0dd28daf-ed0c-46b7-9bf1-f09702bcdaa2"
S_SUB = "9c6348be-271d-4ac2-abe5-e2d8cbfe883e"
S_INT = "d3321331-e699-4ede-9de7-2075948b0058"
S_CX_SUB = "01a22d85-b98b-7e83-b1fd-6a6581ee6cd1"
AGENT = "a055573b55a64ddb3"
FIRST_ASKED = "Our refund webhook times out when Stripe retries it. How should the httpx client retry here?"


def drain(home: str) -> None:
    subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                   env={**os.environ, "JEVLIN_HOME": home}, check=True, capture_output=True, timeout=120)


def cli(home: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env={**os.environ, "JEVLIN_HOME": home},
                          capture_output=True, text=True, timeout=60)


def build_home(home: str, tmp, claude=("basic", "resume", "compact", "autocompact", "subagent", "interrupt"),
               codex=("subagent",)) -> dict[str, trajectory.Thread]:
    for s in claude:
        for p in replay_scenario(home, s, str(tmp / "t"), "claude-code"):
            assert p.returncode == 0
    for s in codex:
        for p in replay_scenario(home, s, str(tmp / "tc"), "codex"):
            assert p.returncode == 0
    drain(home)
    return trajectory.build(trajectory.load_records(home))


@pytest.fixture
def store(probe_home, tmp_path):
    return probe_home, build_home(probe_home, tmp_path)


def h(home: str, raw: str) -> str:
    return ids.hash_id(raw, ids.load_key(home, create=False))


def test_threads_table(store):
    home, threads = store
    rows = {r["thread"]: r for r in trajectory.rows(threads)}
    main = rows[h(home, S_MAIN)]
    assert main["harness"] == "claude-code" and main["turns"] == 2 and main["searches"] == 2
    assert main["first_asked"] == FIRST_ASKED and main["tokens"]["input"] == 400
    assert rows[h(home, S_AUTO)]["windows"] == 2
    done = [t for t in trajectory.roots(threads) if all(x.outcome == "completed" for x in t.turns)]
    assert len(done) >= 4 and all(t.tokens()["input"] > 0 for t in done), "every transcript tokens need is bundled"
    sub = rows[h(home, S_SUB)]
    assert sub["subagents"] == 1 and sub["searches"] == 1
    assert h(home, AGENT) not in rows, "a subagent is shown under its parent, not as a thread"
    assert rows[h(home, S_CX_SUB)]["harness"] == "codex" and rows[h(home, S_CX_SUB)]["subagents"] == 1
    p = cli(home, "threads", "--json", "--harness", "codex")
    assert {r["harness"] for r in json.loads(p.stdout)} == {"codex"}
    assert json.loads(cli(home, "threads", "--json", "--since", "2099-01-01").stdout) == []
    assert len(json.loads(cli(home, "threads", "--json", "--since", "1h").stdout)) == len(rows)
    assert cli(home, "threads", "--since", "yesterday").returncode == 1


def test_thread_view_text(store):
    home, threads = store
    out = cli(home, "thread", h(home, S_AUTO)[:6]).stdout
    assert "search #1  Bash  ok  155 ms" in out and "context compacted: window 0 \u2192 1" in out
    assert "context windows 0-1" in out, "the header numbers windows as the compaction line does"
    assert out.index("search #1") < out.index("context compacted") < out.index("concluded: Picking up after the compaction")
    assert all(len(line) <= 80 for line in out.splitlines())
    out = cli(home, "thread", h(home, S_SUB)[:8]).stdout
    assert f"subagent {h(home, AGENT)[:10]} (general-purpose), started by call " \
           f"{h(home, 'toolu_cc_0020')[:10]}" in out
    assert out.index("asked: Refund reasons need") < out.index("subagent ") < out.index("concluded: I asked a subagent")
    out = cli(home, "thread", h(home, S_INT)[:8]).stdout
    assert "INTERRUPTED" in out and "turn 1  INTERRUPTED" in out
    main = cli(home, "thread", h(home, S_MAIN)[:8]).stdout
    assert "│ Before touching the webhook client" in main and main.index("turn 1") < main.index("turn 2")
    assert "context window 0" in main and "compacted" not in main
    assert cli(home, "thread", "zzzz").returncode == 1


def _list_row(text: str, thread: str) -> list[str]:
    """The columns of a thread's line in the `threads` table."""
    return next(line for line in text.splitlines() if line.startswith(thread[:12])).split()


def _ui_row(page: str, thread: str) -> str:
    return page.split(f'<tr data-thread="{thread}">', 1)[1].split("</tr>", 1)[0]


def test_windows_are_numbered_alike_in_every_view(store):
    """One convention: windows numbered from 0, as the records' `window` field is, in the list,
    the text and HTML pages and the local ui; no view shows a count where another shows a number."""
    home, threads = store
    auto, main = h(home, S_AUTO), h(home, S_MAIN)
    table = cli(home, "threads").stdout
    assert table.splitlines()[0].split()[4] == "window"
    assert _list_row(table, auto)[4] == "0-1" and _list_row(table, main)[4] == "0"
    assert "context windows 0-1" in cli(home, "thread", auto[:8]).stdout
    assert "context window 0" in cli(home, "thread", main[:8]).stdout
    page = ui.list_page(home, None, None).decode()
    assert "<th>context window</th>" in page
    assert '<td class="num">0-1</td>' in _ui_row(page, auto) and '<td class="num">0</td>' in _ui_row(page, main)
    assert "context windows 0-1" in ui.thread_page(home, auto).decode()
    assert "context window 0<" in ui.thread_page(home, main).decode()
    records = [r for r in trajectory.load_records(home) if r["session_id"] == auto]
    assert sorted({r["window"] for r in records}) == [0, 1], "the record field the views follow"


def test_turn_ends_off_shows_not_recorded_and_a_title(home, tmp_path):
    """The default install (turn ends off): tokens are not recorded, so every view says `-`, never
    0; and each thread in the list is still named, by its first search."""
    build_home(home, tmp_path, claude=("basic", "autocompact"), codex=("subagent",))
    threads = trajectory.build(trajectory.load_records(home))
    rows = {r["thread"]: r for r in trajectory.rows(threads)}
    main = rows[h(home, S_MAIN)]
    assert main["first_asked"] is None and main["tokens"] is None
    assert main["title"] == "how do we configure httpx retries and backoff for outbound calls"
    assert main["title_from"] == "query"
    assert all(r["title"] and r["title_from"] == "query" and r["tokens"] is None for r in rows.values())
    table = cli(home, "threads").stdout
    assert _list_row(table, h(home, S_MAIN))[6] == "-" and "0/0" not in table
    assert "  first search: how do we configure httpx retries" in table
    assert trajectory.NO_PROMPT_NOTE in " ".join(table.split()) and "no prompt recorded" not in table
    assert all(len(line) <= 80 for line in table.splitlines())
    assert json.loads(cli(home, "threads", "--json").stdout)[0]["tokens"] is None
    assert json.loads(cli(home, "summarize", h(home, S_MAIN)[:8]).stdout)["tokens"] is None
    text = cli(home, "thread", h(home, S_MAIN)[:8]).stdout
    assert "tokens" not in text and "turn ends are off" in text
    page = ui.thread_page(home, h(home, S_MAIN)).decode()
    assert '<span title="not recorded: turn ends are off">tokens -</span>' in page and "tokens 0" not in page
    listing = ui.list_page(home, None, None).decode()
    assert '<td class="num" title="not recorded: turn ends are off">-</td>' in _ui_row(listing, h(home, S_MAIN))
    assert "0/0" not in listing and "first search: how do we configure httpx retries" in listing


def test_title_falls_back_to_the_text_before_the_first_search():
    base = {"kind": "search", "harness": "codex", "session_id": "s", "turn_id": "t", "window": 0}
    records = [{**base, "seq": 2, "ts": "2026-12-01T10:00:02Z", "query": "later", "history": ""},
               {**base, "seq": 1, "ts": "2026-12-01T10:00:01Z", "query": " ",
                "history": "Reading the handler first.\n\nI'll look up our retry rules.\n"}]
    th = trajectory.build(records)["s"]
    assert trajectory.title(th) == ("I'll look up our retry rules.", "history")
    row = trajectory.rows({"s": th})[0]
    assert trajectory.title_said(row) == "before its first search: I'll look up our retry rules."
    assert trajectory.title(trajectory.build([{**records[0], "query": ""}])["s"]) == (None, None)


def test_stop_failure_turn(probe_home, tmp_path):
    events = [p for n, p in replay.scenario_events("basic") if "Stop" not in n and "SessionEnd" not in n]
    failure = next(p for n, p in replay.scenario_events("apierror") if n.endswith("StopFailure.json"))
    for p in events:
        run(probe_home, p)
    run(probe_home, {**failure, "session_id": S_MAIN, "prompt_id": events[-1]["prompt_id"]})
    drain(probe_home)
    th = trajectory.find(trajectory.build(trajectory.load_records(probe_home)), h(probe_home, S_MAIN)[:8])
    assert th.turns[0].outcome == "error"
    summary = trajectory.summarize(th)
    assert summary["finished"] is False and {"turn": 1, "outcome": "error"} in summary["errors"]
    assert "ERROR" in trajectory.render_text(th)


def test_abandoned_session_is_closed_by_the_daemon(probe_home, tmp_path):
    base = {"session_id": "crashed-session", "prompt_id": "t1", "cwd": "/w"}
    run(probe_home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": "do it"})
    for i in (1, 2):
        run(probe_home, {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                         "tool_input": {"command": f"jevlin search q{i}"}, "tool_use_id": f"c{i}"})
    run(probe_home, {**base, "hook_event_name": "PostToolUse", "tool_name": "Bash",
                     "tool_input": {"command": "jevlin search q1"}, "tool_use_id": "c1", "tool_response": {"stdout": "r"}})
    # the agent was killed: no Stop, no SessionEnd. An hour and more passes.
    path = os.path.join(probe_home, "sessions", "claude-code.crashed-session.json")
    old = time.time() - 7200
    state = json.load(open(path))
    state["updated"] = old
    json.dump(state, open(path, "w"))
    os.utime(path, (old, old))
    drain(probe_home)
    th = trajectory.find(trajectory.build(trajectory.load_records(probe_home)), h(probe_home, "crashed-session")[:8])
    assert [s["status"] for s in th.turns[0].searches] == ["ok", "abandoned"]
    assert th.turns[0].outcome == "abandoned" and th.abandoned() == 2
    text = trajectory.render_text(th)
    assert "ABANDONED" in text and "never ended (crash or kill): got as far as 2 search(es)" in text
    row = trajectory.rows(trajectory.build(trajectory.load_records(probe_home)))[0]
    assert row["abandoned"] == 2


def test_summaries_are_stable_across_runs(tmp_path):
    out = []
    for n in (1, 2):
        home = str(tmp_path / f"h{n}")
        os.makedirs(home)
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(PROBE_CONFIG)
        build_home(home, tmp_path / f"x{n}", claude=("basic", "resume", "subagent"), codex=())
        threads = trajectory.build(trajectory.load_records(home))
        sums = sorted(json.dumps(trajectory.summarize(t), sort_keys=True) for t in trajectory.roots(threads))
        out.append(sums)
        p = cli(home, "summarize", h(home, S_MAIN)[:8])
        s = json.loads(p.stdout)
        assert s["tool_sequence"] == ["Bash", "Bash"] and s["search_count"] == 2 and s["finished"] is True
        assert s["tokens"]["input"] == 400 and [t["searches"][0]["seq"] for t in s["turns"]] == [1, 2]
    assert out[0] == out[1], "two runs of the same sessions summarize identically"


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.e2e  # a real browser: `./dev test` installs it, `./dev check` leaves it out
@pytest.mark.skipif(not CHROMIUM and not os.environ.get("JEVLIN_E2E_REQUIRED"), reason="needs Debian's chromium")
def test_html_page_in_a_real_browser(store, tmp_path):
    assert CHROMIUM, "chromium is not installed (./dev test installs it)"
    home, _ = store
    page = tmp_path / "sub.html"
    p = cli(home, "thread", h(home, S_SUB)[:8], "--html", str(page))
    assert p.returncode == 0 and str(page) in p.stdout
    html = page.read_text()
    assert "http://" not in html and "https://" not in html and "<script src" not in html, "self-contained"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert "Refund reasons need a NOT NULL reason column" in dom and "I asked a subagent for the migration conventions" in dom
    assert 'class="subagent"' in dom and "general-purpose" in dom and "search #1" in dom
    shot = tmp_path / "page.png"
    subprocess.run([CHROMIUM, *flags, f"--screenshot={shot}", "--window-size=1000,800", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000
    # a compaction and an interruption, as a person sees them
    page2 = tmp_path / "auto.html"
    cli(home, "thread", h(home, S_AUTO)[:8], "--html", str(page2))
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page2.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert "context compacted: window 0 \u2192 1" in dom and "context windows 0-1" in dom
    page3 = tmp_path / "int.html"
    cli(home, "thread", h(home, S_INT)[:8], "--html", str(page3))
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page3.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert 'data-status="interrupted"' in dom and "INTERRUPTED" in dom


def _demo(tmp_path, *args: str) -> str:
    """`jevlin-hooks demo` with a HOME, cache and TMPDIR of its own, so what it leaves can be seen."""
    for d in ("home", "cache", "tmp"):
        (tmp_path / d).mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "JEVLIN_HOME"}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"), TMPDIR=str(tmp_path / "tmp"))
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "demo", *args], capture_output=True, text=True,
                       timeout=300, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_demo_runs_the_whole_path(tmp_path):
    out = _demo(tmp_path)
    assert out.startswith("This demo turns on `[miner] turn_end`, which a default install leaves off")
    assert "every hook exited 0 and printed nothing" in out and "0 left" in out
    assert "$ jevlin-hooks threads" in out and "claude-code" in out and "codex" in out
    assert "subagent " in out and "started by call" in out
    assert "/opt/probe" not in out and "'how do we configure httpx retries" in out, "real jevlin search questions"
    html = [line.split()[-1] for line in out.splitlines() if line.startswith("HTML: ")][0]
    assert os.path.exists(html) and "<!doctype html>" in open(html).read()
    # the banner's sessions, `status` and `threads` agree, or the demo says why they differ
    ran = re.search(r"(\d+) sessions ran \(`status` says (\d+) kept\)", " ".join(out.split()))
    assert ran and ran[1] == ran[2] and f"so {ran[1]} sessions)" in " ".join(out.split())
    # the closing commands run exactly as printed, from where the demo ran
    cmds = [line.strip() for line in out.splitlines() if line.startswith("  JEVLIN_HOME=")]
    assert [c.split()[2] for c in cmds] == ["threads", "thread", "summarize", "status"]
    got = {c.split()[2]: subprocess.run(["sh", "-c", c], capture_output=True, text=True, timeout=60, cwd=tmp_path)
           for c in cmds}
    assert all(p.returncode == 0 for p in got.values()), {k: p.stderr for k, p in got.items()}
    table = out.split("$ jevlin-hooks threads\n", 1)[1].split("\n\n", 1)[0]
    assert got["threads"].stdout.strip() == table.strip()
    assert f"threads   {ran[2]} kept" in got["status"].stdout
    listed = len([line for line in table.splitlines()[1:] if not line.startswith(" ")])
    assert f"`threads` lists the {listed} that searched" in " ".join(out.split())
    # what it leaves, it names: one scratch directory (with the command that removes it) and the
    # scrubber's cache files; nothing in HOME
    root = os.path.dirname(html)
    assert os.listdir(tmp_path / "tmp") == [os.path.basename(root)] and f"  rm -rf {root}\n" in out
    assert os.listdir(tmp_path / "home") == []
    cached = [str(f) for f in (tmp_path / "cache").rglob("*") if f.is_file()]
    assert all(re.fullmatch(r"(prefilter|ends|anchors)-[0-9a-f]+\.hsdb", os.path.basename(f)) for f in cached), cached
    named = re.search(r"Also made: the scrubber's compiled rules, (.*?) \(", out)
    assert named is None or all(os.path.exists(f) for f in named[1].split(", "))
    assert "no daemon is left running" in out


def test_demo_with_turn_ends_off_shows_a_default_install(tmp_path):
    out = _demo(tmp_path, "--turn-end", "off")
    assert out.startswith("Turn ends are off, as in a default install")
    table = out.split("$ jevlin-hooks threads\n", 1)[1].split("\n\n", 1)[0]
    assert "  first search: " in table and "0/0" not in table and "(turn ends are off" not in table
    assert "asked:" not in out and "concluded:" not in out
