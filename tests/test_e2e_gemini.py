"""The real Gemini CLI (npm @google/gemini-cli, pinned in tests/e2e/package.json) with our hooks
installed by `jevlin-hooks install --harness gemini-cli`, offline against a scripted Gemini API on
127.0.0.1 (tests/fake_gemini.py), in a temporary HOME: the user's ~/.gemini is never read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from fake_gemini import FakeGemini, all_text, declared, function_responses, new_text

from jevlin_hooks.base import spool
from jevlin_hooks.capture import lineage
from jevlin_hooks.privacy import ids

GEMINI = os.path.join(os.path.dirname(__file__), "e2e", "node_modules", ".bin", "gemini")
pytestmark = pytest.mark.e2e

if not os.path.exists(GEMINI):
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError(f"{GEMINI} missing: run `npm ci --prefix tests/e2e`")
    pytest.skip("Gemini CLI not installed (npm ci --prefix tests/e2e)", allow_module_level=True)

TEXT_BEFORE = "Let me look up how httpx retries work before answering."
# What a Gemini user has before installing us: an API key login, no telemetry, no update checks.
SETTINGS = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True}, "telemetry": {"enabled": False}}


def shell(command: str) -> dict[str, Any]:
    return {"call": "run_shell_command", "args": {"command": command, "description": "search"}}


def decide(body: dict[str, Any]) -> list[dict[str, Any]]:
    text, done = new_text(body), function_responses(body)
    if "complete_task" in declared(body):  # the generalist subagent's loop
        if done:
            return [{"call": "complete_task", "args": {"result": {"response": "found it"}}}]
        return [{"text": "Subagent searching now."}, shell('jevlin search "subagent query"')]
    everything = all_text(body)
    if done:
        if "COMPACT_PLEASE" in everything and "after the compaction" not in everything:
            return [{"text": "Searching again, after the compaction."}, shell('jevlin search "after the compaction"')]
        return [{"text": "Done: the search answered it."}]
    if "DELEGATE_PLEASE" in text:
        return [{"text": "Delegating."}, {"call": "invoke_agent", "args": {
            "agent_name": "generalist", "prompt": "SUBAGENT_TASK: run the search."}}]
    if "MANY_PLEASE" in text:
        return [{"text": "Three at once."}, shell('jevlin search --fail "refunds"'), shell('jevlin search "retries"'),
                {"call": "google_web_search", "args": {"query": "httpx retry transport"}}]
    if "SEARCH_PLEASE" in text or "COMPACT_PLEASE" in text:
        return [{"text": TEXT_BEFORE}, shell('cd . && jevlin search "httpx retries"')]
    return [{"text": "Nothing to search."}]


def printed(srv: FakeGemini) -> dict[str, dict[str, Any]]:
    """query -> what the stub `jevlin` printed (its `jevlin-hooks context`), from the tool results
    Gemini sent back to the model."""
    out: dict[str, dict[str, Any]] = {}
    for body in srv.requests:
        for fr in function_responses(body):
            resp = fr.get("response") or {}
            lines = str(resp.get("output", "")).splitlines()
            query = next((line.split("ARGS: search ", 1)[1] for line in lines if "ARGS: search " in line), None)
            ctx = next((json.loads(line) for line in lines if line.startswith("{") and '"trace"' in line), None)
            if query and ctx:
                out[query] = ctx
    return out


class Gemini:
    def __init__(self, tmp_path: Any, turn_end: bool = False) -> None:
        self.home = str(tmp_path / "home")
        self.jhome = str(tmp_path / "jevlin")
        self.work = str(tmp_path / "work")
        bindir = str(tmp_path / "bin")
        for d in (os.path.join(self.home, ".gemini"), self.jhome, self.work, bindir):
            os.makedirs(d, exist_ok=True)
        subprocess.run(["git", "init", "-q", self.work], check=True)
        with open(os.path.join(self.home, ".gemini", "settings.json"), "w") as f:
            json.dump(SETTINGS, f, indent=2)
        with open(os.path.join(self.jhome, "config.toml"), "w") as f:
            # The daemon would ship (and so remove) the queued records these tests inspect.
            f.write(f"[miner]\nturn_end = {'true' if turn_end else 'false'}\n[daemon]\nautostart = false\n")
        cli = os.path.join(os.path.dirname(sys.executable), "jevlin-hooks")
        with open(os.path.join(bindir, "jevlin"), "w") as f:
            # stand-in for the real search client: says what it was asked and prints its trace context
            f.write(f'#!/bin/sh\necho "ARGS: $*"\n{cli} context\ncase "$*" in *--fail*) exit 3;; esac\n')
        os.chmod(os.path.join(bindir, "jevlin"), 0o755)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "CLAUDE", "CODEX"))}
        self.env.update(HOME=self.home, JEVLIN_HOME=self.jhome, PATH=bindir + os.pathsep + os.environ["PATH"],
                        TERM="dumb", GEMINI_API_KEY="fake-key", GEMINI_CLI_TRUST_WORKSPACE="true")
        p = subprocess.run([cli, "install", "--harness", "gemini-cli"], env=self.env, capture_output=True, text=True)
        assert p.returncode == 0 and "settings.json" in p.stdout, p.stderr

    def run(self, srv: FakeGemini, *args: str) -> subprocess.CompletedProcess[str]:
        env = dict(self.env, GOOGLE_GEMINI_BASE_URL=srv.url)
        p = subprocess.run([GEMINI, *args, "--yolo"], env=env, cwd=self.work, capture_output=True, text=True,
                           timeout=180, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-2000:])
        return p

    def records(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [r for r in spool.read_all(self.jhome) if kind is None or r["kind"] == kind]

    def state(self, sid: str) -> dict[str, Any]:
        st = lineage.read(self.jhome, lineage.file_name("gemini-cli", sid))
        assert st is not None
        return st

    def key(self) -> bytes:
        k = ids.load_key(self.jhome, create=False)
        assert k is not None
        return k

    def hook_log(self) -> str:
        path = os.path.join(self.jhome, "logs", "hook.log")
        return open(path).read() if os.path.exists(path) else ""


def same(ctx: dict[str, Any], rec: dict[str, Any], key: bytes) -> None:
    """The call the search sent in-band is the one shipped."""
    assert ctx["trace"] == "on" and ctx["source"] == "ancestry" and ctx["harness"] == "gemini-cli", ctx
    for field in ("session_id", "turn_id", "call_id", "parent_session_id"):
        assert ctx[field] == (ids.hash_id(rec[field], key) if rec[field] else None), field
    assert (ctx["seq"], ctx["window"]) == (rec["seq"], rec["window"])


def test_search_resume_compaction_and_a_second_session(tmp_path):
    g = Gemini(tmp_path, turn_end=True)
    # main-loop request 3 is the resumed run's first answer: it reports 900,000 prompt tokens, so
    # Gemini compresses the history before its next model call
    with FakeGemini(decide, usage=lambda n: 900_000 if n == 3 else 100) as srv:
        g.run(srv, "-p", "SEARCH_PLEASE how does httpx retry?")
        (rec,) = g.records("search")
        sid = rec["session_id"]
        assert (rec["seq"], rec["window"], rec["status"], rec["harness"]) == (1, 0, "ok", "gemini-cli")
        assert rec["query"] == "httpx retries" and rec["tool"] == "run_shell_command"
        assert rec["history"] == TEXT_BEFORE and rec["parent_session_id"] is None
        same(printed(srv)["httpx retries"], rec, g.key())
        assert srv.side.count("summary") == 0, "no compaction yet"

        g.run(srv, "--resume", "latest", "-p", "COMPACT_PLEASE once more")
        assert srv.side.count("summary") == 2, "Gemini summarised (and verified the summary): a real compaction"
        recs = g.records("search")
        assert [(r["session_id"], r["seq"], r["window"]) for r in recs] == [(sid, 1, 0), (sid, 2, 0), (sid, 3, 1)]
        assert recs[2]["query"] == "after the compaction" and recs[2]["history"] == "Searching again, after the compaction."
        same(printed(srv)["after the compaction"], recs[2], g.key())
        st = g.state(sid)
        assert st["window"] == 1 and st["sources"] == ["startup", "resume"] and st["seq"] == 3
        ends = g.records("turn_end")
        assert [(e["window"], e["search_count"], e["outcome"]) for e in ends] == [(0, 1, "completed"), (1, 2, "completed")]
        assert ends[1]["prompt"] == "COMPACT_PLEASE once more" and ends[1]["tokens"]["input"] >= 900_000

        g.run(srv, "-p", "SEARCH_PLEASE in a new session")
        new = g.records("search")[-1]
        assert new["session_id"] != sid and (new["seq"], new["window"]) == (1, 0)
    assert g.hook_log() == ""


def test_a_failing_search_parallel_calls_and_web_search(tmp_path):
    g = Gemini(tmp_path)
    with FakeGemini(decide) as srv:
        g.run(srv, "-p", "MANY_PLEASE")
    recs = {r["query"]: r for r in g.records("search")}
    assert set(recs) == {"--fail refunds", "retries", "httpx retry transport"}
    assert recs["--fail refunds"]["status"] == "error", "exit 3, said only in the tool's text"
    assert recs["retries"]["status"] == "ok" and recs["httpx retry transport"]["tool"] == "google_web_search"
    assert sorted(r["seq"] for r in recs.values()) == [1, 2, 3] and len(g.records("search")) == 3
    seen = printed(srv)
    for query in ("--fail refunds", "retries"):  # parallel shells: each found its own pending call
        same(seen[query], recs[query], g.key())
    assert srv.side.count("web") == 1
    assert g.hook_log() == ""


def test_subagent_search_is_a_child_thread(tmp_path):
    g = Gemini(tmp_path)
    with FakeGemini(decide) as srv:
        g.run(srv, "-p", "DELEGATE_PLEASE find it with a subagent")
    (rec,) = g.records("search")
    sid = next(iter(lineage.list_names(g.jhome))).split(".", 1)[1]
    st = g.state(sid)
    assert rec["parent_session_id"] == sid and rec["session_id"] in st["agents"] and rec["session_id"] != sid
    assert rec["seq"] == 1 and rec["query"] == "subagent query" and rec["history"] == "Subagent searching now."
    assert rec["turn_id"] == st["turns"][0]["id"] and rec["parent_call_id"]
    assert os.path.exists(os.path.join(g.home, ".gemini", "tmp", "work", "chats", sid, rec["session_id"] + ".jsonl"))
    same(printed(srv)["subagent query"], rec, g.key())
    assert g.hook_log() == ""
