"""The real Claude Code (npm @anthropic-ai/claude-code, pinned in tests/e2e/package.json) with our
hooks installed, against a scripted model server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Any

import pytest
from fake_anthropic import FakeAnthropic, last_user_text, tool_results

from jevlin_hooks.base import spool
from jevlin_hooks.capture import lineage
from jevlin_hooks.privacy import ids

CLAUDE = os.path.join(os.path.dirname(__file__), "e2e", "node_modules", ".bin", "claude")
pytestmark = pytest.mark.e2e

if not os.path.exists(CLAUDE):
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError(f"{CLAUDE} missing: run `npm ci --prefix tests/e2e`")
    pytest.skip("Claude Code not installed (npm ci --prefix tests/e2e)", allow_module_level=True)

TEXT_BEFORE = "Let me look up how httpx retries work before answering."


def context_printed(body: dict[str, Any]) -> dict[str, Any] | None:
    """The stub prints `jevlin-hooks context`; Claude sends that output back as the tool result."""
    for m in body.get("messages", []):
        if m.get("role") != "user" or isinstance(m.get("content"), str):
            continue
        for b in m["content"]:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                content = b.get("content")
                text = content if isinstance(content, str) else "".join(
                    c.get("text", "") for c in content or [] if isinstance(c, dict))
                for line in text.splitlines():
                    if line.startswith("{") and '"trace"' in line:
                        return json.loads(line)
    return None


def decide(body: dict[str, Any]) -> list[dict[str, Any]]:
    text = last_user_text(body)
    if tool_results(body):
        return [{"type": "text", "text": "Done: the search answered it."}]
    if "SUBAGENT_TASK" in text:
        return [{"type": "text", "text": "Subagent searching now."},
                {"type": "tool_use", "name": "Bash",
                 "input": {"command": 'jevlin search "subagent query"', "description": "search"}}]
    if "DELEGATE_PLEASE" in text:
        return [{"type": "text", "text": "Delegating to a subagent."},
                {"type": "tool_use", "name": "Agent",
                 "input": {"description": "Run a search", "prompt": "SUBAGENT_TASK: run the search.",
                           "subagent_type": "general-purpose"}}]
    if "SEARCH_PLEASE" in text:
        return [{"type": "text", "text": TEXT_BEFORE},
                {"type": "tool_use", "name": "Bash",
                 "input": {"command": 'cd . && jevlin search "httpx retries"', "description": "search"}}]
    # /compact's summarization request, and anything else Claude Code asks on the side.
    return [{"type": "text", "text": "<summary>The user asked about httpx retries; we searched.</summary>"}]


class Env:
    def __init__(self, tmp_path: Any, turn_end: bool = False) -> None:
        self.root = tmp_path
        self.home = str(tmp_path / "home")
        self.jhome = str(tmp_path / "jevlin")
        self.work = str(tmp_path / "work")
        bindir = str(tmp_path / "bin")
        for d in (self.home, self.jhome, self.work, bindir):
            os.makedirs(d, exist_ok=True)
        cli = os.path.join(os.path.dirname(sys.executable), "jevlin-hooks")
        with open(os.path.join(bindir, "jevlin"), "w") as f:
            f.write(f"#!/bin/sh\n# stand-in for the real search client: prints its trace context\nexec {cli} context\n")
        os.chmod(os.path.join(bindir, "jevlin"), 0o755)
        with open(os.path.join(self.jhome, "config.toml"), "w") as f:
            # The daemon would ship (and so remove) the queued records these tests inspect.
            f.write(f"[miner]\nturn_end = {'true' if turn_end else 'false'}\n[daemon]\nautostart = false\n")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
        self.env.update(HOME=self.home, JEVLIN_HOME=self.jhome, PATH=bindir + os.pathsep + os.environ["PATH"],
                        ANTHROPIC_API_KEY="sk-ant-test", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                        DISABLE_AUTOUPDATER="1")
        p = subprocess.run([cli, "install", "--harness", "claude-code"], env=self.env, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr

    def claude(self, server: FakeAnthropic, *args: str) -> dict[str, Any]:
        env = dict(self.env, ANTHROPIC_BASE_URL=server.url)
        p = subprocess.run([CLAUDE, "-p", *args, "--allowedTools", "Bash", "Agent", "--output-format", "json"],
                           env=env, cwd=self.work, capture_output=True, text=True, timeout=180)
        assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-2000:])
        return json.loads(p.stdout)

    def records(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [r for r in spool.read_all(self.jhome) if kind is None or r["kind"] == kind]

    def state(self, sid: str) -> dict[str, Any]:
        st = lineage.read(self.jhome, lineage.file_name("claude-code", sid))
        assert st is not None
        return st

    def hook_log(self) -> str:
        path = os.path.join(self.jhome, "logs", "hook.log")
        return open(path).read() if os.path.exists(path) else ""


def test_search_compact_resume(tmp_path):
    e = Env(tmp_path)
    with FakeAnthropic(decide, prefix="a") as srv:
        out = e.claude(srv, "SEARCH_PLEASE how does httpx retry?")
        sid = out["session_id"]
        (rec,) = e.records("search")
        st = e.state(sid)
        key = ids.load_key(e.jhome, create=False)
        printed = next(c for c in map(context_printed, srv.requests) if c)
        # The call id the search sent in-band is the one that will be shipped.
        assert printed["call_id"] == ids.hash_id(rec["call_id"], key)
        assert printed["session_id"] == ids.hash_id(sid, key) and printed["source"] == "env"
        assert printed["seq"] == 1 and printed["window"] == 0
        assert printed["turn_id"] == ids.hash_id(rec["turn_id"], key)
        assert rec["call_id"] == srv.tool_ids[0]
        assert rec["session_id"] == sid and rec["seq"] == 1 and rec["window"] == 0
        assert rec["turn_id"] == st["turns"][0]["id"] and rec["status"] == "ok"
        assert TEXT_BEFORE in rec["history"]
        assert rec["query"] == "httpx retries" and rec["tool"] == "Bash"
        assert e.records("turn_end") == [], "turn_end is opt-in"
        assert st["turns"][0]["outcome"] == "completed" and st["turns"][0]["tokens"]["output"] > 0

        e.claude(srv, "/compact", "--resume", sid)
        assert e.state(sid)["window"] == 1

        e.claude(srv, "SEARCH_PLEASE and once more after the compaction", "--resume", sid)
        recs = e.records("search")
        assert [r["seq"] for r in recs] == [1, 2] and [r["window"] for r in recs] == [0, 1]
        assert {r["session_id"] for r in recs} == {sid}
        printed = [c for c in map(context_printed, srv.requests) if c][-1]
        assert printed["seq"] == 2 and printed["window"] == 1
    assert e.hook_log() == ""


def test_subagent_search_names_parent_and_turn_end_opt_in(tmp_path):
    e = Env(tmp_path, turn_end=True)
    with FakeAnthropic(decide, prefix="b") as srv:
        out = e.claude(srv, "DELEGATE_PLEASE find it with a subagent")
        sid = out["session_id"]
        recs = e.records("search")
        assert len(recs) == 1, recs
        rec = recs[0]
        st = e.state(sid)
        assert rec["parent_session_id"] == sid and rec["session_id"] in st["agents"]
        assert rec["query"] == "subagent query" and rec["seq"] == 1
        assert "Subagent searching now." in rec["history"]
        key = ids.load_key(e.jhome, create=False)
        printed = next(c for c in map(context_printed, srv.requests) if c)
        assert printed["parent_session_id"] == ids.hash_id(sid, key)
        assert printed["session_id"] == ids.hash_id(rec["session_id"], key)
        assert printed["call_id"] == ids.hash_id(rec["call_id"], key)
        ends = e.records("turn_end")
        assert len(ends) == 1 and ends[0]["search_count"] == 1 and ends[0]["session_id"] == sid
        assert ends[0]["prompt"] == "DELEGATE_PLEASE find it with a subagent"
    assert e.hook_log() == ""


def test_no_search_no_records(tmp_path):
    e = Env(tmp_path, turn_end=True)
    with FakeAnthropic(decide, prefix="c") as srv:
        e.claude(srv, "just say hi")
    assert e.records() == []
    shutil.rmtree(e.root, ignore_errors=True)
