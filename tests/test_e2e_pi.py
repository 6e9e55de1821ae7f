"""The real Pi (npm @mariozechner/pi-coding-agent, pinned in tests/e2e/package.json) with our
extension installed by `jevlin-hooks install --harness pi`, against the scripted Anthropic server
on 127.0.0.1 (Pi speaks the Messages API: a `fake` provider in its models.json)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
from fake_anthropic import FakeAnthropic, last_user_text, tool_results

from jevlin_hooks.base import spool
from jevlin_hooks.capture import lineage
from jevlin_hooks.privacy import ids

PI = os.path.join(os.path.dirname(__file__), "e2e", "node_modules", ".bin", "pi")
ENTRY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "jevlin_hooks", "capture",
                     "entry.py")
pytestmark = pytest.mark.e2e

if not os.path.exists(PI):
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError(f"{PI} missing: run `npm ci --prefix tests/e2e`")
    pytest.skip("Pi not installed (npm ci --prefix tests/e2e)", allow_module_level=True)

TEXT_BEFORE = "Let me look up how httpx retries work before answering."


def printed_contexts(srv: FakeAnthropic) -> list[dict[str, Any]]:
    """What the stub `jevlin` printed, as Pi sent it back in tool_result blocks (each once)."""
    found: dict[str, dict[str, Any]] = {}
    for body in srv.requests:
        for m in body.get("messages", []):
            if m.get("role") != "user" or isinstance(m.get("content"), str):
                continue
            for b in m["content"]:
                if not (isinstance(b, dict) and b.get("type") == "tool_result"):
                    continue
                content = b.get("content")
                text = content if isinstance(content, str) else "".join(
                    c.get("text", "") for c in content or [] if isinstance(c, dict))
                for line in text.splitlines():
                    if line.startswith("{") and '"trace"' in line:
                        found[b["tool_use_id"]] = json.loads(line)
    return list(found.values())


def decide(body: dict[str, Any]) -> list[dict[str, Any]]:
    text = last_user_text(body)
    if "summarization" in json.dumps(body.get("system", "")):
        return [{"type": "text", "text": "## Goal\nThe user searched for httpx retries."}]
    if tool_results(body):
        return [{"type": "text", "text": "Done: the search answered it."}]
    if "SUBAGENT_TASK" in text:
        return [{"type": "text", "text": "Child searching now."},
                {"type": "tool_use", "name": "bash", "input": {"command": 'jevlin search "child query"'}}]
    if "DELEGATE_PLEASE" in text:
        return [{"type": "text", "text": "Starting a child pi."},
                {"type": "tool_use", "name": "bash",
                 "input": {"command": f'{PI} --no-session -p "SUBAGENT_TASK: run the search"'}}]
    if "SLOW_PLEASE" in text:
        return [{"type": "text", "text": "A slow one."},
                {"type": "tool_use", "name": "bash", "input": {"command": 'jevlin search "slow" && sleep 8'}}]
    if "SEARCH_PLEASE" in text:
        return [{"type": "text", "text": TEXT_BEFORE},
                {"type": "tool_use", "name": "bash", "input": {"command": 'cd . && jevlin search "httpx retries"'}}]
    return [{"type": "text", "text": "Nothing to search."}]


class Pi:
    def __init__(self, tmp_path: Any, srv: FakeAnthropic) -> None:
        self.home = str(tmp_path / "home")
        self.jhome = str(tmp_path / "jevlin")
        self.work = str(tmp_path / "work")
        bindir = str(tmp_path / "bin")
        for d in (self.home, self.work, bindir):
            os.makedirs(d, exist_ok=True)
        self.reset_jevlin_home()
        cli = os.path.join(os.path.dirname(sys.executable), "jevlin-hooks")
        with open(os.path.join(bindir, "jevlin"), "w") as f:
            f.write(f"#!/bin/sh\n# stand-in for the real search client: prints its trace context\nexec {cli} context\n")
        os.chmod(os.path.join(bindir, "jevlin"), 0o755)
        self.agent = os.path.join(self.home, ".pi", "agent")
        os.makedirs(self.agent)
        with open(os.path.join(self.agent, "models.json"), "w") as f:
            json.dump({"providers": {"fake": {"baseUrl": srv.url, "api": "anthropic-messages", "apiKey": "sk-fake",
                                              "models": [{"id": "fake-model", "contextWindow": 200000,
                                                          "maxTokens": 4096}]}}}, f)
        with open(os.path.join(self.agent, "settings.json"), "w") as f:
            json.dump({"defaultProvider": "fake", "defaultModel": "fake-model", "quietStartup": True,
                       "compaction": {"keepRecentTokens": 40}}, f)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "JEVLIN_PI", "PI_"))}
        self.env.update(HOME=self.home, JEVLIN_HOME=self.jhome, PATH=f"{bindir}:{self.env['PATH']}", PI_OFFLINE="1")
        p = subprocess.run([cli, "install", "--harness", "pi"], env=self.env, capture_output=True, text=True)
        assert p.returncode == 0 and "jevlin-hooks.js" in p.stdout, p.stderr

    def reset_jevlin_home(self) -> None:
        shutil.rmtree(self.jhome, ignore_errors=True)
        os.makedirs(self.jhome)
        with open(os.path.join(self.jhome, "config.toml"), "w") as f:
            f.write("[daemon]\nautostart = false\n[miner]\nturn_end = true\n")

    def run(self, *args: str, rc: int = 0) -> subprocess.CompletedProcess[str]:
        p = subprocess.run([PI, *args], cwd=self.work, env=self.env, capture_output=True, text=True, timeout=180,
                           stdin=subprocess.DEVNULL, start_new_session=True)
        assert p.returncode == rc, (p.stdout[-3000:], p.stderr[-3000:])
        assert "Extension error" not in p.stderr and "jevlin" not in p.stderr, p.stderr[-3000:]
        self.wait_recorders()
        return p

    def wait_recorders(self) -> None:
        """Pi has exited; its recorder reads what is left in its pipe and exits too. Wait for it
        (bounded) so the test reads the lineage the last event left."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and recorders(self.jhome):
            time.sleep(0.05)
        assert not recorders(self.jhome), "a recorder still runs 30 s after pi exited"

    def records(self, kind: str | None = None) -> list[dict[str, Any]]:
        recs = [r for r in spool.read_all(self.jhome) if kind is None or r["kind"] == kind]
        return sorted(recs, key=lambda r: (r["ts"], r.get("seq") or 0))

    def state(self, sid: str) -> dict[str, Any]:
        st = lineage.read(self.jhome, lineage.file_name("pi", sid))
        assert st is not None, f"no lineage for {sid}"
        return st

    def hook_log(self) -> str:
        path = os.path.join(self.jhome, "logs", "hook.log")
        return open(path).read() if os.path.exists(path) else ""

    def session_ids(self) -> list[str]:
        out = []
        for root, _, files in os.walk(os.path.join(self.agent, "sessions")):
            for name in sorted(files):
                with open(os.path.join(root, name)) as f:
                    out.append(json.loads(f.readline())["id"])
        return out


def recorders(jhome: str) -> list[int]:
    """Our `entry.py pi --stream` processes that write into this JEVLIN_HOME."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if ENTRY.encode() not in argv or b"--stream" not in argv:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"JEVLIN_HOME={jhome}".encode() in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.fixture
def srv():
    with FakeAnthropic(decide, prefix="pi") as s:
        yield s


def test_search_record_has_history_and_matches_the_context_printed_inside_the_tool(tmp_path, srv):
    pi = Pi(tmp_path, srv)
    pi.run("-p", "SEARCH_PLEASE how does httpx retry?")
    (rec,) = pi.records("search")
    (sid,) = pi.session_ids()
    assert rec["session_id"] == sid, "thread = the id in the first line of Pi's session file"
    assert rec["harness"] == "pi" and rec["query"] == "httpx retries" and rec["tool"] == "bash"
    assert rec["seq"] == 1 and rec["window"] == 0 and rec["status"] == "ok"
    assert rec["history"] == TEXT_BEFORE and rec["call_id"] == srv.tool_ids[0]
    assert rec["host_meta"]["model"] == "fake-model"
    (printed,) = printed_contexts(srv)
    key = ids.load_key(pi.jhome, create=False)
    assert printed["source"] == "env" and printed["harness"] == "pi"
    for field in ("session_id", "turn_id", "call_id"):
        assert printed[field] == ids.hash_id(rec[field], key), field
    assert printed["seq"] == 1 and printed["window"] == 0
    (turn,) = pi.records("turn_end")
    assert turn["turn_id"] == rec["turn_id"] and turn["outcome"] == "completed"
    assert turn["prompt"] == "SEARCH_PLEASE how does httpx retry?" and turn["final_message"] == "Done: the search answered it."
    assert turn["tokens"] == {"input": 200, "output": 40, "cache_read": 0, "cache_creation": 0}
    assert pi.state(sid)["status"] == "ended"
    assert pi.hook_log() == ""


def test_continue_keeps_the_thread_and_seq_goes_on(tmp_path, srv):
    pi = Pi(tmp_path, srv)
    pi.run("-p", "SEARCH_PLEASE first")
    pi.run("-c", "-p", "SEARCH_PLEASE second")
    recs = pi.records("search")
    assert [r["seq"] for r in recs] == [1, 2]
    assert recs[0]["session_id"] == recs[1]["session_id"] and len(pi.session_ids()) == 1
    assert recs[0]["turn_id"] != recs[1]["turn_id"]
    assert [p["seq"] for p in printed_contexts(srv)] == [1, 2]
    assert pi.hook_log() == ""


def rpc(pi: Pi, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drive `pi --mode rpc`: each prompt waits for its agent_end and for Pi to be idle again."""
    proc = subprocess.Popen([PI, "--mode", "rpc"], cwd=pi.work, env=pi.env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    seen: list[dict[str, Any]] = []
    n = 0

    def read_until(pred: Any) -> dict[str, Any]:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            seen.append(msg)
            if pred(msg):
                return msg
        raise AssertionError("pi exited")

    def call(cmd: dict[str, Any]) -> dict[str, Any]:
        nonlocal n
        n += 1
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({**cmd, "id": f"r{n}"}) + "\n")
        proc.stdin.flush()
        return read_until(lambda m: m.get("type") == "response" and m.get("id") == f"r{n}")

    try:
        for step in steps:
            resp = call(step)
            assert resp.get("success") is not False, resp
            if step["type"] == "prompt":
                read_until(lambda m: m.get("type") == "agent_end")
                for _ in range(200):
                    state = call({"type": "get_state"})["data"]
                    if not state.get("isStreaming") and not state.get("isCompacting"):
                        break
                    time.sleep(0.05)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)
    pi.wait_recorders()
    return seen


def test_rpc_compact_raises_the_window_once_and_a_wiped_home_keeps_it_on_continue(tmp_path, srv):
    pi = Pi(tmp_path, srv)
    rpc(pi, [{"type": "prompt", "message": "SEARCH_PLEASE before"}, {"type": "compact"},
             {"type": "prompt", "message": "SEARCH_PLEASE after"}])
    recs = pi.records("search")
    assert [(r["seq"], r["window"]) for r in recs] == [(1, 0), (2, 1)]
    sid = recs[0]["session_id"]
    assert pi.state(sid)["window"] == 1
    assert [(p["seq"], p["window"]) for p in printed_contexts(srv)] == [(1, 0), (2, 1)]

    # Our own lineage is lost; Pi's session file still says what happened.
    pi.reset_jevlin_home()
    pi.run("-c", "-p", "SEARCH_PLEASE after the wipe")
    (rec,) = pi.records("search")
    assert rec["session_id"] == sid and rec["window"] == 1 and rec["seq"] == 3
    assert printed_contexts(srv)[-1]["window"] == 1
    assert pi.hook_log() == ""


def test_fork_starts_a_new_thread_that_names_its_source(tmp_path, srv):
    pi = Pi(tmp_path, srv)
    pi.run("-p", "SEARCH_PLEASE original")
    (first,) = pi.session_ids()
    pi.run("--fork", first, "-p", "SEARCH_PLEASE forked")
    recs = pi.records("search")
    assert len(recs) == 2
    forked = recs[1]
    assert forked["session_id"] != first and forked["session_id"] in pi.session_ids()
    assert forked["seq"] == 1 and forked["window"] == 0, "a fork is a new thread: copied entries are not its own"
    assert forked["host_meta"]["forked_from"] == first
    assert "forked_from" not in recs[0]["host_meta"]
    assert pi.hook_log() == ""


def test_a_child_pi_records_its_parent(tmp_path, srv):
    pi = Pi(tmp_path, srv)
    pi.run("-p", "DELEGATE_PLEASE search through a child pi")
    (rec,) = pi.records("search")
    (parent,) = pi.session_ids()  # the child ran with --no-session: no file of its own
    assert rec["query"] == "child query" and rec["session_id"] != parent
    assert rec["parent_session_id"] == parent and rec["seq"] == 1
    (printed,) = printed_contexts(srv)
    key = ids.load_key(pi.jhome, create=False)
    assert printed["session_id"] == ids.hash_id(rec["session_id"], key), "the child exported its own session"
    assert printed["call_id"] == ids.hash_id(rec["call_id"], key)
    turns = {t["session_id"]: t for t in pi.records("turn_end")}
    assert turns[rec["session_id"]]["parent_session_id"] == parent
    assert pi.hook_log() == ""


@pytest.mark.parametrize(("sig", "rc", "status"), [(signal.SIGINT, 130, "abandoned"), (signal.SIGTERM, 143, "interrupted")])
def test_a_killed_pi_closes_its_open_search(tmp_path, srv, sig, rc, status):
    """SIGINT kills `pi -p` without session_shutdown (the stream's end tells); SIGTERM sends it."""
    pi = Pi(tmp_path, srv)
    # its own session: pi stops its tool's process group on a signal, and that group must not be
    # pytest's
    proc = subprocess.Popen([PI, "-p", "SLOW_PLEASE"], cwd=pi.work, env=pi.env, stdin=subprocess.DEVNULL,
                            start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        states = [lineage.read(pi.jhome, n) for n in lineage.list_names(pi.jhome)]
        if any(st and st.get("pending") for st in states):
            break
        time.sleep(0.05)
    else:
        proc.kill()
        raise AssertionError("the search never started")
    proc.send_signal(sig)
    assert proc.wait(timeout=30) in (rc, -sig)
    pi.wait_recorders()
    (rec,) = pi.records("search")
    assert rec["status"] == status and rec["query"] == "slow"
    (turn,) = pi.records("turn_end")
    assert turn["outcome"] == status


def test_a_broken_install_never_fails_pi(tmp_path, srv):
    """The interpreter the extension names is gone: pi runs as if we were not there."""
    pi = Pi(tmp_path, srv)
    path = os.path.join(pi.agent, "extensions", "jevlin-hooks.js")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace(json.dumps(os.path.realpath(sys.executable)), json.dumps("/nonexistent/python3")))
    p = pi.run("-p", "SEARCH_PLEASE anyway")
    assert "Done: the search answered it." in p.stdout
    assert len(srv.requests) == 2 and pi.records() == []


def test_a_run_whose_last_events_come_after_shutdown_still_completes(tmp_path, srv):
    """Another extension's slow turn_end stalls Pi's event queue: `pi -p` fires session_shutdown
    while the run's turn_end and agent_end are still queued; they reach us after it."""
    pi = Pi(tmp_path, srv)
    with open(os.path.join(pi.agent, "extensions", "slow.js"), "w") as f:
        f.write("export default function (pi) {\n"
                "  pi.on('turn_end', async () => { await new Promise((r) => setTimeout(r, 700)); });\n}\n")
    pi.run("-p", "SEARCH_PLEASE with a slow neighbour")
    (rec,) = pi.records("search")
    assert rec["status"] == "ok"
    (turn,) = pi.records("turn_end")
    assert turn["outcome"] == "completed" and turn["final_message"] == "Done: the search answered it."
    assert pi.state(rec["session_id"])["status"] == "ended"
