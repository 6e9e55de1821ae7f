"""The OTLP sink against the real Arize Phoenix (pinned in tests/e2e/phoenix-requirements.txt,
installed into .venv-phoenix by `./dev test`): captured Claude Code and Codex sessions and one
with planted secrets go through the real hook entry point and the real daemon with
`sink = "otlp"`, then Phoenix's REST API and its SQLite file are read back."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import run
from test_otlp import config, drain, replay_all

from jevlin_hooks import replay
from jevlin_hooks.base import spool
from jevlin_hooks.privacy import ids

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHOENIX = os.environ.get("JEVLIN_PHOENIX") or os.path.join(ROOT, ".venv-phoenix", "bin", "phoenix")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.e2e

if not os.path.exists(PHOENIX):
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError(f"{PHOENIX} missing: `./dev test` installs Arize Phoenix into .venv-phoenix")
    pytest.skip("Arize Phoenix not installed (./dev test installs it into .venv-phoenix)", allow_module_level=True)

GH = "ghp_" + "Qm7Rt2Vx9Lc4Nb8Hs3Kd6Fw1Zp5Jy0Ga3Ue7T"
AWS = "AKIA" + "QWERTYUIOPLKJHGF"
PW = "Sunfl0wer-and-7-more"
SECRETS = (GH, AWS, PW, "alice@corp.example", "secret output")
# every captured session of both harnesses
SCENARIOS = sorted({(h, f.rsplit("-", 2)[0]) for h in ("claude-code", "codex")
                    for f in os.listdir(os.path.join(replay.data_dir(h), "events"))})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:  # noqa: S310 - 127.0.0.1 only
        return json.load(r)


class Phoenix:
    def __init__(self, workdir: str) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "PHOENIX_WORKING_DIR": workdir,
               "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(self.port), "PHOENIX_GRPC_PORT": str(free_port()),
               "PHOENIX_TELEMETRY_ENABLED": "false"}
        self.log = open(os.path.join(workdir, "phoenix.log"), "wb")
        t0 = time.monotonic()
        self.proc = subprocess.Popen([PHOENIX, "serve"], cwd=workdir, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        while time.monotonic() - t0 < 240:
            if self.proc.poll() is not None:
                raise RuntimeError(f"phoenix exited: {self.tail()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as r:  # noqa: S310
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError(f"phoenix did not start: {self.tail()}")
        print(f"phoenix serve up in {time.monotonic() - t0:.1f} s", file=sys.stderr)

    def tail(self) -> str:
        self.log.flush()
        with open(os.path.join(self.workdir, "phoenix.log"), "rb") as f:
            return f.read()[-2000:].decode("utf-8", "replace")

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

    def stored(self) -> bytes:
        """Every byte Phoenix keeps: its SQLite database, WAL included."""
        data = b""
        for name in os.listdir(self.workdir):
            if name.startswith("phoenix.db"):
                with open(os.path.join(self.workdir, name), "rb") as f:
                    data += f.read()
        return data

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: Any) -> Iterator[Phoenix]:
    p = Phoenix(str(tmp_path_factory.mktemp("phoenix")))
    try:
        yield p
    finally:
        p.stop()


def plant_secrets(home: str, tmp: str) -> None:
    """A Claude Code session whose prompt, search, transcript and answer hold secrets."""
    sid, tid, cid = "raw-session-4e1a", "raw-turn-7b3c", "toolu_raw_9f2d"
    transcript = os.path.join(tmp, "secret.jsonl")
    line = {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
        {"type": "text", "text": f"I will use the token {GH} and the password {PW}."},
        {"type": "tool_use", "id": cid, "name": "Bash", "input": {}}]}}
    with open(transcript, "w") as f:
        f.write(json.dumps(line) + "\n")
    base = {"session_id": sid, "prompt_id": tid, "cwd": "/home/alice/proj", "transcript_path": transcript}
    cmd = f"AWS_KEY={AWS} jevlin search 'rotate {GH}'"
    for ev in ({"hook_event_name": "SessionStart"},
               {"hook_event_name": "UserPromptSubmit", "prompt": f"my password is {PW}, email alice@corp.example"},
               {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}, "tool_use_id": cid},
               {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}, "tool_use_id": cid,
                "tool_response": {"stdout": f"secret output {AWS}"}},
               {"hook_event_name": "Stop", "last_assistant_message": f"Done with {GH}"}):
        run(home, {**base, **ev})


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
    replay_all(probe_home, str(tmp_path), SCENARIOS)
    plant_secrets(probe_home, str(tmp_path))
    raw = spool.read_all(probe_home)
    key = ids.load_key(probe_home)
    assert key is not None
    searches = [r for r in raw if r["kind"] == "search"]
    assert len(searches) >= 10 and any(r.get("parent_session_id") for r in searches)
    subagent_runs = {(r["parent_session_id"], r.get("parent_turn_id"), r["session_id"]) for r in searches
                     if r.get("parent_session_id")}
    expected = len(raw) + 2 * len(subagent_runs)  # + each run's invoke_agent and its spawning call
    threads = {ids.hash_id(r.get("parent_session_id") or r["session_id"], key) for r in raw}
    turns = {(r.get("parent_session_id") or r["session_id"], r.get("parent_turn_id") or r["turn_id"]) for r in raw}
    raw_ids = {v for r in raw for k, v in r.items() if k.endswith(("session_id", "turn_id", "call_id")) and v}

    p = drain(probe_home)
    assert p.returncode == 0, p.stderr

    deadline = time.monotonic() + 60  # Phoenix inserts in the background, in batches
    spans: list[dict[str, Any]] = []
    while len(spans) < expected and time.monotonic() < deadline:
        time.sleep(0.5)
        try:
            spans = phoenix.all(project, "spans")
        except urllib.error.HTTPError as exc:  # the project exists once its first span is in
            assert exc.code == 404
    assert len(spans) == expected

    # every record arrived, each as one span
    got = [attr(s, "jevlin.record_id") for s in spans if attr(s, "jevlin.record_id")]
    assert sorted(got) == sorted(r["record_id"] for r in raw)
    # no orphan parents, and one trace per turn
    span_ids = {s["context"]["span_id"] for s in spans}
    assert all(s["parent_id"] in span_ids for s in spans if s["parent_id"]), "a span names a parent Phoenix never got"
    traces = phoenix.all(project, "traces")
    assert len(traces) == len({s["context"]["trace_id"] for s in spans}) == len(turns)
    # sessions = threads (hashed), and every trace is in one
    sessions = phoenix.all(project, "sessions")
    assert {s["session_id"] for s in sessions} == threads
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
    stored = phoenix.stored() + json.dumps(spans).encode()
    assert all(t.encode() in stored for t in threads), "the check reads what Phoenix stored"
    leaked = [v for v in (*raw_ids, *SECRETS) if v.encode() in stored]
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
