"""What a search returned is kept for the local store only, scrubbed; never sent to another sink."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import queued
from fault_server import FaultServer
from test_daemon import write_config

from jevlin_hooks import replay

MARKER = "RESULT-MARKER-7f3a"
SECRET = "ghp_" + "Zq8xW2vB7nM4kL9pR3tY6uI1oE5aS0dF2gH7"


def _replay_basic(home: str, tmp_path, response: dict) -> None:
    """The captured basic Claude Code session, its search's tool output replaced by ours."""
    mapping = replay.lay_transcripts("basic", str(tmp_path / "t"))
    for _, payload in replay.scenario_events("basic"):
        if payload.get("hook_event_name") == "PostToolUse":
            payload = {**payload, "tool_response": response}
        assert replay.run_hook(home, replay.rewrite(payload, mapping)).returncode == 0


def _drain(home: str) -> None:
    subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                   env={**os.environ, "JEVLIN_HOME": home}, check=True, capture_output=True, timeout=120)


def _out(lines: list[str]) -> dict:
    return {"stdout": "\n".join(lines), "stderr": "", "interrupted": False}


def test_local_store_keeps_a_scrubbed_summary(home, tmp_path):
    lines = [f"3 result(s) {MARKER}", f"1. docs/setup.md: export GITHUB_TOKEN={SECRET}", "2. adr/0031.md", "3. x"]
    _replay_basic(home, tmp_path, _out(lines))
    rec = [r for r in queued(home, "search")][0]
    assert rec["result"]["lines"] == 4 and MARKER in rec["result"]["preview"]
    _drain(home)
    import sqlite3

    body = json.loads(sqlite3.connect(os.path.join(home, "traces.db")).execute("SELECT body FROM records").fetchone()[0])
    assert body["result"]["lines"] == 4 and MARKER in body["result"]["preview"]
    assert SECRET not in json.dumps(body) and "[REDACTED" in body["result"]["preview"]
    tid = body["session_id"]
    view = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "thread", tid[:12]], capture_output=True,
                          text=True, env={**os.environ, "JEVLIN_HOME": home}, timeout=60).stdout
    assert f"4 line(s) back: 3 result(s) {MARKER}" in view


def test_a_long_output_is_cut_to_2_kib(home, tmp_path):
    _replay_basic(home, tmp_path, _out([f"line {i} " + "x" * 60 for i in range(500)]))
    res = queued(home, "search")[0]["result"]
    assert res["lines"] == 500 and len(res["preview"]) <= 2048 and res["preview"].startswith("line 0 ")


def test_no_other_sink_receives_it(tmp_path):
    import gzip

    for sink in ("jevlin", "otlp"):
        home = str(tmp_path / sink)
        os.makedirs(home, mode=0o700)
        with FaultServer(default="ok") as srv:
            write_config(home, sink, srv.url)
            _replay_basic(home, tmp_path / f"t-{sink}", _out([f"found {MARKER}", "more"]))
            assert MARKER in json.dumps(queued(home, "search"))
            _drain(home)
            assert srv.raw, f"{sink}: nothing was sent"
            sent = b"".join(gzip.decompress(b) if b[:2] == b"\x1f\x8b" else b for b in srv.raw)
            assert MARKER.encode() not in sent, sink


def test_turned_off_it_is_not_even_queued(home, tmp_path):
    with open(os.path.join(home, "config.toml"), "a") as f:
        f.write("[privacy]\nlocal_results = false\n")
    _replay_basic(home, tmp_path, _out([f"found {MARKER}"]))
    rec = queued(home, "search")[0]
    assert "result" not in rec and MARKER not in json.dumps(rec)


def test_every_harness_keeps_what_came_back(probe_home, tmp_path):
    """Hermes (a JSON string in extra.result), Pi (content blocks), Codex (the shell's output)."""
    from test_replay_hermes import replay_ok
    from test_replay_pi import play

    replay_ok(probe_home, "basic")
    play(probe_home, tmp_path, "basic")
    for p in replay.replay(probe_home, "basic", str(tmp_path / "cx"), "codex"):
        assert p.returncode == 0
    by = {r["harness"]: r for r in queued(probe_home, "search")}
    assert by["hermes"]["result"] == {"lines": 2, "preview": "result 1 for x: https://example.invalid/1\n"
                                                             "result 2 for x: https://example.invalid/2"}
    assert by["pi"]["result"]["lines"] >= 1 and by["pi"]["result"]["preview"]
    assert by["codex"]["result"]["lines"] >= 1 and by["codex"]["result"]["preview"]
