"""The OTLP sink against the real Arize Phoenix (pinned in tests/e2e/phoenix-requirements.txt,
installed into .venv-phoenix by `./dev test`): captured Claude Code and Codex sessions and one
with planted secrets go through the real hook entry point and the real daemon with
`sink = "otlp"`, then Phoenix's REST API and its SQLite file are read back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from agent_sessions import SECRETS, queue_sessions
from backend_server import ROOT, BackendServer, free_port, get
from test_otlp import config, drain

PHOENIX = os.environ.get("JEVLIN_PHOENIX") or os.path.join(ROOT, ".venv-phoenix", "bin", "phoenix")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.e2e

if not os.path.exists(PHOENIX):
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError(f"{PHOENIX} missing: `./dev test` installs Arize Phoenix into .venv-phoenix")
    pytest.skip("Arize Phoenix not installed (./dev test installs it into .venv-phoenix)", allow_module_level=True)

class Phoenix(BackendServer):
    def __init__(self, workdir: str) -> None:
        port = free_port()
        super().__init__("phoenix", [PHOENIX, "serve"], {
            "PHOENIX_WORKING_DIR": workdir, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(port),
            "PHOENIX_GRPC_PORT": str(free_port()), "PHOENIX_TELEMETRY_ENABLED": "false"}, workdir, port, "/healthz")

    def all(self, project: str, what: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        cursor = ""
        for _ in range(100):
            page = get(f"{self.url}/v1/projects/{project}/{what}?limit=1000" + (f"&cursor={cursor}" if cursor else ""))
            out += page["data"]
            cursor = page.get("next_cursor") or ""
            if not cursor:
                break
        return out


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: Any) -> Iterator[Phoenix]:
    p = Phoenix(str(tmp_path_factory.mktemp("phoenix")))
    try:
        yield p
    finally:
        p.stop()


def attr(span: dict[str, Any], key: str) -> Any:
    return span["attributes"].get(key)


def shoot(url: str, path: str, profile: str) -> None:
    assert CHROMIUM, "chromium is not installed (./dev test installs it)"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", f"--user-data-dir={profile}",
                    "--window-size=1600,1000", "--virtual-time-budget=15000", f"--screenshot={path}", url],
                   capture_output=True, timeout=180)


@pytest.mark.parametrize("turn_end", [True, False], ids=["turn_end_on", "turn_end_off"])
def test_phoenix_shows_whole_private_traces(phoenix, probe_home, tmp_path, turn_end):
    project = f"jevlin-turn-end-{'on' if turn_end else 'off'}"
    # the header picks Phoenix's project: [ship] headers reach the backend
    config(probe_home, phoenix.url, turn_end=turn_end, headers=f'{{ "x-project-name" = "{project}" }}')
    exp = queue_sessions(probe_home, str(tmp_path))
    p = drain(probe_home)
    assert p.returncode == 0, p.stderr

    deadline = time.monotonic() + 60  # Phoenix inserts in the background, in batches
    spans: list[dict[str, Any]] = []
    while len(spans) < exp.spans and time.monotonic() < deadline:
        time.sleep(0.5)
        try:
            spans = phoenix.all(project, "spans")
        except urllib.error.HTTPError as exc:  # the project exists once its first span is in
            assert exc.code == 404
    assert len(spans) == exp.spans

    # every record arrived, each as one span
    got = [attr(s, "jevlin.record_id") for s in spans if attr(s, "jevlin.record_id")]
    assert len(got) == len(exp.records) and set(got) == exp.records
    # no orphan parents, and one trace per turn
    span_ids = {s["context"]["span_id"] for s in spans}
    assert all(s["parent_id"] in span_ids for s in spans if s["parent_id"]), "a span names a parent Phoenix never got"
    traces = phoenix.all(project, "traces")
    assert len(traces) == len({s["context"]["trace_id"] for s in spans}) == exp.turns
    # sessions = threads (hashed), and every trace is in one
    sessions = phoenix.all(project, "sessions")
    assert {s["session_id"] for s in sessions} == exp.threads
    assert sorted(t["trace_id"] for s in sessions for t in s["traces"]) == sorted(t["trace_id"] for t in traces)
    # kinds, names and content where Phoenix's screens look
    for s in spans:
        op = attr(s, "gen_ai.operation.name")
        assert s["span_kind"] == {"execute_tool": "TOOL", "invoke_agent": "AGENT"}[op]
        assert s["name"].startswith(op + " ")
        if attr(s, "jevlin.record_id"):
            assert attr(s, "input.value") and attr(s, "output.value"), s["name"]
    kinds = {s["span_kind"] for s in spans}
    assert kinds == {"TOOL", "AGENT"}
    if turn_end:
        roots = [s for s in spans if not s["parent_id"]]
        assert len(roots) == len(traces) and all(s["span_kind"] == "AGENT" for s in roots)
        assert any(attr(s, "llm.token_count.prompt") for s in roots)
    # nothing raw anywhere Phoenix stored: REST answers and its database files
    stored = phoenix.stored("phoenix.db") + json.dumps(spans).encode()
    assert all(t.encode() in stored for t in exp.threads), "the check reads what Phoenix stored"
    leaked = [v for v in (*exp.raw_ids, *SECRETS) if v.encode() in stored]
    assert not leaked, f"raw ids or secrets reached Phoenix: {leaked}"
    assert b"REDACTED" in stored

    shots = os.environ.get("JEVLIN_PHOENIX_SCREENSHOTS")
    if shots and turn_end:  # for docs/backends.md: a subagent's trace, and the sessions view
        os.makedirs(shots, exist_ok=True)
        pid = next(p["id"] for p in get(phoenix.url + "/v1/projects")["data"] if p["name"] == project)
        sub = next(s for s in spans if s["name"] == "invoke_agent default")
        shoot(f"{phoenix.url}/projects/{pid}/traces/{sub['context']['trace_id']}", os.path.join(shots, "phoenix-trace.png"),
              str(tmp_path / "chromium"))
        shoot(f"{phoenix.url}/projects/{pid}/sessions", os.path.join(shots, "phoenix-sessions.png"),
              str(tmp_path / "chromium"))
