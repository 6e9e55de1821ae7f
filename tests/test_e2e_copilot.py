"""The real GitHub Copilot CLI (npm @github/copilot, pinned in tests/e2e/package.json) with our hooks
installed by `jevlin-hooks install --harness copilot-cli`, offline (COPILOT_OFFLINE, a BYOK
Anthropic provider) against a scripted model server on 127.0.0.1.

Every run has its own HOME, XDG dirs and JEVLIN_HOME; only the package Copilot extracts on its
first start (235 MB, ``$XDG_CACHE_HOME/copilot``) is shared, extracted once per test session.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fake_anthropic import FakeAnthropic, last_user_text, tool_results

from jevlin_hooks import replay
from jevlin_hooks.base import spool
from jevlin_hooks.capture import lineage
from jevlin_hooks.harnesses.copilot_cli import capture
from jevlin_hooks.privacy import ids

COPILOT = os.path.join(os.path.dirname(__file__), "e2e", "node_modules", ".bin", "copilot")
PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "copilot_hook_probe.py")
pytestmark = pytest.mark.e2e

if not os.path.exists(COPILOT):
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError(f"{COPILOT} missing: run `npm ci --prefix tests/e2e`")
    pytest.skip("Copilot CLI not installed (npm ci --prefix tests/e2e)", allow_module_level=True)

TEXT_BEFORE = "Let me search the team's notes for the retry policy."
CHILD_TEXT = "Child agent searching now."
RESUME_HINT = re.compile(r"copilot --resume=([0-9a-f-]{36})")


@pytest.fixture(scope="session")
def copilot_cache(tmp_path_factory: Any) -> Iterator[str]:
    """Copilot's extracted package, shared by every run of the test session (its first start
    extracts it under $XDG_CACHE_HOME/copilot; each run after that starts in a fraction of a
    second); removed afterwards (235 MB)."""
    cache = str(tmp_path_factory.mktemp("copilot-cache"))
    home = str(tmp_path_factory.mktemp("copilot-cache-home"))
    env = {"HOME": home, "XDG_CACHE_HOME": cache, "PATH": os.environ["PATH"], "COPILOT_OFFLINE": "true",
           "COPILOT_AUTO_UPDATE": "false"}
    p = subprocess.run([COPILOT, "--version"], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "1.0.102" in p.stdout, (p.stdout, p.stderr)
    yield cache
    shutil.rmtree(cache, ignore_errors=True)


def contexts(srv: FakeAnthropic) -> list[dict[str, Any]]:
    """What the stub `jevlin` printed (`jevlin-hooks context`), in the order the tool results came
    back to the model, each once."""
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for body in srv.requests:
        for m in body.get("messages") or []:
            if m.get("role") != "user" or isinstance(m.get("content"), str):
                continue
            for b in m["content"]:
                if not isinstance(b, dict) or b.get("type") != "tool_result" or b.get("tool_use_id") in seen:
                    continue
                seen.add(b.get("tool_use_id"))
                content = b.get("content")
                text = content if isinstance(content, str) else "".join(
                    c.get("text", "") for c in content or [] if isinstance(c, dict))
                found += [json.loads(line) for line in text.splitlines() if line.startswith("{") and '"trace"' in line]
    return found


def bash(command: str) -> dict[str, Any]:
    return {"type": "tool_use", "name": "bash", "input": {"command": command, "description": "search"}}


def decide(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The scripted model: the prompt's marker says what to do; a tool result ends the turn."""
    text = last_user_text(body)
    tools = [t.get("name") for t in body.get("tools") or []]
    if tool_results(body) or "bash" not in tools:
        return [{"type": "text", "text": "Done: the search answered it."}]  # and side requests
    if "SUBAGENT_TASK" in text:
        return [{"type": "text", "text": CHILD_TEXT}, bash('jevlin search "child query"')]
    if "DELEGATE_PLEASE" in text:
        return [{"type": "text", "text": "Delegating."},
                {"type": "tool_use", "name": "task", "input": {
                    "description": "search", "prompt": "SUBAGENT_TASK: run the search and report.",
                    "agent_type": "task", "name": "searcher", "mode": "sync"}}]
    if "TWICE_PLEASE" in text:
        return [{"type": "text", "text": "Two identical searches."},
                bash('jevlin search "same query"'), bash('jevlin search "same query"')]
    if "FAIL_PLEASE" in text:
        return [{"type": "text", "text": "This search will fail."}, bash("jevlin search FAIL")]
    if "BADARGS_PLEASE" in text:
        return [{"type": "tool_use", "name": "bash", "input": {"cmd": "jevlin search bad-args"}}]
    if "SEARCH_PLEASE" in text:
        return [{"type": "text", "text": TEXT_BEFORE}, bash('cd . && jevlin search "retry policy"')]
    return [{"type": "text", "text": "Nothing to search."}]


class Copilot:
    """One user's machine: HOME, Copilot's and our homes, a project, and the stub `jevlin`."""

    def __init__(self, tmp_path: Any, cache: str, turn_end: bool = False) -> None:
        self.root = tmp_path
        self.home = str(tmp_path / "home")
        self.jhome = str(tmp_path / "jevlin")
        self.work = str(tmp_path / "work")
        bindir = str(tmp_path / "bin")
        for d in (self.home, self.jhome, self.work, bindir):
            os.makedirs(d, exist_ok=True)
        cli = os.path.join(os.path.dirname(sys.executable), "jevlin-hooks")
        with open(os.path.join(bindir, "jevlin"), "w") as f:
            # stand-in for the search client: prints its trace context; `search FAIL` fails
            f.write(f'#!/bin/sh\n{cli} context\n[ "$2" = FAIL ] && exit 3\nexit 0\n')
        os.chmod(os.path.join(bindir, "jevlin"), 0o755)
        with open(os.path.join(self.jhome, "config.toml"), "w") as f:
            # the daemon would ship (and so remove) the queued records these tests read
            f.write(f"[miner]\nturn_end = {'true' if turn_end else 'false'}\n[daemon]\nautostart = false\n")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("COPILOT", "GH_", "GITHUB", "XDG_"))}
        xdg = {f"XDG_{k}_HOME": os.path.join(self.home, f".xdg-{k.lower()}") for k in ("CONFIG", "DATA", "STATE")}
        self.env.update(xdg, HOME=self.home, XDG_CACHE_HOME=cache, JEVLIN_HOME=self.jhome,
                        PATH=bindir + os.pathsep + os.environ["PATH"], COPILOT_OFFLINE="true",
                        COPILOT_AUTO_UPDATE="false", COPILOT_PROVIDER_TYPE="anthropic",
                        COPILOT_PROVIDER_API_KEY="sk-test", COPILOT_MODEL="claude-sonnet-4.6")
        p = subprocess.run([cli, "install", "--harness", "copilot-cli"], env=self.env, capture_output=True, text=True)
        assert p.returncode == 0 and "jevlin.json" in p.stdout, (p.stdout, p.stderr)

    def run(self, srv: FakeAnthropic, prompt: str, *args: str, env: dict[str, str] | None = None) -> str:
        """One `copilot -p` run; returns its session id (from the resume hint it prints)."""
        full = dict(self.env, COPILOT_PROVIDER_BASE_URL=srv.url, **(env or {}))
        p = subprocess.run([COPILOT, "-p", prompt, "--allow-all-tools", *args], env=full, cwd=self.work,
                           capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
        found = RESUME_HINT.search(p.stdout + p.stderr)
        assert found, (p.stdout[-2000:], p.stderr[-2000:])
        return found.group(1)

    def records(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [r for r in spool.read_all(self.jhome) if kind is None or r["kind"] == kind]

    def state(self, sid: str) -> dict[str, Any]:
        st = lineage.read(self.jhome, lineage.file_name("copilot-cli", sid))
        assert st is not None, f"no lineage for {sid}"
        return st

    def key(self) -> bytes:
        key = ids.load_key(self.jhome, create=False)
        assert key is not None
        return key

    def probe(self) -> str:
        """Each installed hook run through tests/copilot_hook_probe.py (the same hook, timed from
        the inside, its sleeps counted); the path of the log it writes, one line per hook run."""
        path = os.path.join(self.home, ".copilot", "hooks", "jevlin.json")
        with open(path) as f:
            hooks = json.load(f)
        entry = shlex.quote(replay.ENTRY)
        for actions in hooks["hooks"].values():
            for a in actions:
                assert entry in a["bash"], a
                a["bash"] = a["bash"].replace(entry, f"{shlex.quote(PROBE)} {entry}")
        with open(path, "w") as f:
            json.dump(hooks, f)
        log = os.path.join(str(self.root), "probe.jsonl")
        self.env["JEVLIN_PROBE_LOG"] = log
        return log

    def hook_log(self) -> str:
        path = os.path.join(self.jhome, "logs", "hook.log")
        return open(path).read() if os.path.exists(path) else ""


def test_search_record_matches_what_the_search_sent(tmp_path, copilot_cache):
    cp = Copilot(tmp_path, copilot_cache)
    sid_given = str(uuid.uuid4())
    with FakeAnthropic(decide, prefix="a") as srv:
        sid = cp.run(srv, "SEARCH_PLEASE what is our retry policy?", f"--session-id={sid_given}")
    assert sid == sid_given
    (rec,) = cp.records("search")
    (printed,) = contexts(srv)
    key = cp.key()
    assert printed["source"] == "env" and printed["harness"] == "copilot-cli"
    # the call id the search sent in-band is the one shipped, in the right thread and turn
    assert printed["call_id"] == ids.hash_id(rec["call_id"], key)
    assert printed["session_id"] == ids.hash_id(sid, key) and printed["parent_session_id"] == ids.hash_id(None, key)
    assert printed["turn_id"] == ids.hash_id(rec["turn_id"], key)
    assert printed["seq"] == rec["seq"] == 1 and printed["window"] == rec["window"] == 0
    assert rec["harness"] == "copilot-cli" and rec["session_id"] == sid and rec["parent_session_id"] is None
    assert rec["query"] == "retry policy" and rec["tool"] == "bash" and rec["status"] == "ok"
    assert rec["history"] == TEXT_BEFORE, "the assistant text before the call, from Copilot's session file"
    assert rec["host_meta"]["model"] == "claude-sonnet-4.6"
    st = cp.state(sid)
    assert [t["outcome"] for t in st["turns"]] == ["completed"] and st["turns"][0]["id"] == rec["turn_id"]
    assert st["pending"] == {} and st["status"] == "ended"
    assert cp.records("turn_end") == [], "turn ends are opt-in"
    assert cp.hook_log() == ""


def test_resume_and_continue_keep_the_thread_a_new_session_does_not(tmp_path, copilot_cache):
    cp = Copilot(tmp_path, copilot_cache, turn_end=True)
    with FakeAnthropic(decide, prefix="b") as srv:
        sid = cp.run(srv, "SEARCH_PLEASE first")
        assert cp.run(srv, "SEARCH_PLEASE after a resume", f"--resume={sid}") == sid
        assert cp.run(srv, "SEARCH_PLEASE after a continue", "--continue") == sid
        other = cp.run(srv, "SEARCH_PLEASE in a new session")
    assert other != sid
    recs = cp.records("search")
    assert [(r["session_id"], r["seq"]) for r in recs] == [(sid, 1), (sid, 2), (sid, 3), (other, 1)]
    assert len({r["turn_id"] for r in recs}) == 4 and all(r["window"] == 0 for r in recs)
    st = cp.state(sid)
    assert st["sources"] == ["startup", "resume", "resume"] and len(st["turns"]) == 3
    printed = contexts(srv)
    key = cp.key()
    assert [(p["session_id"], p["seq"]) for p in printed] == [(ids.hash_id(r["session_id"], key), r["seq"]) for r in recs]
    ends = cp.records("turn_end")
    assert [(e["session_id"], e["search_count"]) for e in ends] == [(sid, 1), (sid, 1), (sid, 1), (other, 1)]
    assert ends[1]["prompt"] == "SEARCH_PLEASE after a resume" and ends[0]["final_message"] == "Done: the search answered it."
    assert ends[0]["tokens"]["input"] == 200 and ends[0]["model"] == "claude-sonnet-4.6"
    assert cp.hook_log() == ""


def test_a_failing_search_is_recorded_once(tmp_path, copilot_cache):
    """A search command that exits non-zero (Copilot still calls it a success) and one Copilot
    refuses (bad arguments: postToolUseFailure): one record each, status error."""
    cp = Copilot(tmp_path, copilot_cache)
    with FakeAnthropic(decide, prefix="c") as srv:
        sid = cp.run(srv, "FAIL_PLEASE")
        cp.run(srv, "BADARGS_PLEASE", f"--resume={sid}")
    recs = cp.records("search")
    assert [(r["query"], r["status"], r["seq"]) for r in recs] == [("FAIL", "error", 1), ("bad-args", "error", 2)]
    assert recs[0]["history"] == "This search will fail." and recs[1]["history"] == ""
    assert cp.state(sid)["pending"] == {}
    assert cp.hook_log() == ""


def test_compaction_raises_the_window_once(tmp_path, copilot_cache):
    """The first answer reports a context near the limit: Copilot compacts after the tool (one
    preCompact), and the search the model makes after that is in window 1, with the next seq."""
    cp = Copilot(tmp_path, copilot_cache)

    def compacting(body: dict[str, Any]) -> list[dict[str, Any]]:
        results = json.dumps(body.get("messages") or [])
        if tool_results(body) and "bash" in [t.get("name") for t in body.get("tools") or []] \
                and "after the compaction" not in results:
            return [{"type": "text", "text": "One more after the compaction."}, bash('jevlin search "after the compaction"')]
        return decide(body)

    with FakeAnthropic(compacting, prefix="d", usage=lambda n: 19000 if n == 1 else 100) as srv:
        sid = cp.run(srv, "SEARCH_PLEASE before the compaction", env={"COPILOT_PROVIDER_MAX_PROMPT_TOKENS": "20000"})
    recs = cp.records("search")
    assert [(r["seq"], r["window"], r["query"]) for r in recs] == [(1, 0, "retry policy"), (2, 1, "after the compaction")]
    assert cp.state(sid)["window"] == 1
    assert [(p["seq"], p["window"]) for p in contexts(srv)] == [(1, 0), (2, 1)]
    assert cp.hook_log() == ""


def test_subagent_search_is_a_child_thread(tmp_path, copilot_cache):
    """The `task` tool's subagent, searching twice: its searches are its own thread, named by
    Copilot's agentId, with the root session as parent. Its shell names a third id no hook payload
    carries; a search's preToolUse reads it from Copilot's session file, without waiting, and
    indexes it. Where it is not written yet, `context` finds the same thread and call through the
    process ancestry (tests/test_replay_copilot.py covers the alias itself)."""
    cp = Copilot(tmp_path, copilot_cache)

    def twice(body: dict[str, Any]) -> list[dict[str, Any]]:
        first = (body.get("messages") or [{}])[0].get("content")
        done = json.dumps(body.get("messages") or [])
        if tool_results(body) and "SUBAGENT_TASK" in json.dumps(first) and "child query two" not in done:
            return [{"type": "text", "text": "Once more."}, bash('jevlin search "child query two"')]
        return decide(body)

    with FakeAnthropic(twice, prefix="e") as srv:
        sid = cp.run(srv, "DELEGATE_PLEASE find it with a subagent")
    recs = cp.records("search")
    st = cp.state(sid)
    (agent_id,) = st["agents"]
    assert all(r["session_id"] == agent_id != sid and r["parent_session_id"] == sid for r in recs)
    assert all(r["parent_call_id"] == st["agents"][agent_id]["parent_call"] is not None for r in recs)
    assert [(r["query"], r["seq"], r["history"]) for r in recs] == \
        [("child query", 1, CHILD_TEXT), ("child query two", 2, f"{CHILD_TEXT}\n\nOnce more.")]
    assert st["agents"][agent_id]["status"] == "ended" and st["seq"] == 0
    printed = contexts(srv)
    key = cp.key()
    # the shell id is there once Copilot wrote the subagent's first model call: with this instant
    # model not always by the second search (Copilot writes its file after ~90 ms of quiet)
    assert {p["source"] for p in printed} <= {"env", "ancestry"}
    for p, rec in zip(printed, recs, strict=True):
        assert p["session_id"] == ids.hash_id(agent_id, key) and p["parent_session_id"] == ids.hash_id(sid, key)
        assert p["call_id"] == ids.hash_id(rec["call_id"], key) and p["seq"] == rec["seq"]
    assert not [n for n in os.listdir(os.path.join(cp.jhome, "sessions")) if agent_id in n and n.endswith(".json")]
    assert cp.hook_log() == ""


def test_two_identical_searches_in_one_message_are_two_records(tmp_path, copilot_cache):
    """Copilot runs both calls' preToolUse, then both postToolUse: nothing in the payloads tells
    the two apart, and first-in first-out pairing gives each its own record."""
    cp = Copilot(tmp_path, copilot_cache)
    with FakeAnthropic(decide, prefix="f") as srv:
        sid = cp.run(srv, "TWICE_PLEASE")
    recs = cp.records("search")
    assert [(r["seq"], r["query"], r["status"]) for r in recs] == [(1, "same query", "ok"), (2, "same query", "ok")]
    assert len({r["call_id"] for r in recs}) == 2 and cp.state(sid)["pending"] == {}
    key = cp.key()
    assert {p["call_id"] for p in contexts(srv)} <= {ids.hash_id(r["call_id"], key) for r in recs}
    assert cp.hook_log() == ""


def test_no_hook_waits_for_copilot(tmp_path, copilot_cache):
    """Every hook as Copilot runs it, timed from the inside (tests/copilot_hook_probe.py): none
    sleeps, sessionEnd aside (its wait for a record still held is bounded), so a search's end
    costs the agent what any hook costs. Copilot writes its session file about 90 ms after a hook
    starts: a search's end finds its line there or not, and its record is queued then or at a
    later event; either way the records are complete: history, seq, in-band call id, turn end."""
    cp = Copilot(tmp_path, copilot_cache, turn_end=True)
    log = cp.probe()
    with FakeAnthropic(decide, prefix="g") as srv:
        sid = cp.run(srv, "SEARCH_PLEASE what is our retry policy?")
        cp.run(srv, "TWICE_PLEASE", f"--resume={sid}")
    with open(log) as f:
        runs = [json.loads(line) for line in f]
    ends = [r for r in runs if r["event"] in ("postToolUse", "postToolUseFailure")]
    print("\nsearch ends, the hook's own time (ms) and records held after it:",
          [(r["ms"], r["held"]) for r in ends if r["event"] == "postToolUse"])
    print("every hook (ms):", [(r["event"], r["ms"]) for r in runs])
    assert len(ends) >= 3  # the search's, the two identical ones' (and no sleep in any)
    assert [r for r in runs if r["sleeps"] and r["event"] != "sessionEnd"] == []
    assert all(sum(r["sleeps"]) <= capture.SESSION_END_WAIT + capture.POLL for r in runs)
    recs = cp.records("search")
    assert [(r["seq"], r["query"], r["history"]) for r in recs] == [
        (1, "retry policy", TEXT_BEFORE), (2, "same query", "Two identical searches."),
        (3, "same query", "Two identical searches.")]
    key = cp.key()
    printed = contexts(srv)
    assert printed[0]["call_id"] == ids.hash_id(recs[0]["call_id"], key)
    assert {p["call_id"] for p in printed[1:]} <= {ids.hash_id(r["call_id"], key) for r in recs[1:]}
    turn_ends = cp.records("turn_end")
    assert [(e["search_count"], e["final_message"]) for e in turn_ends] == \
        [(1, "Done: the search answered it."), (2, "Done: the search answered it.")]
    assert all(e["tokens"]["input"] > 0 and e["model"] == "claude-sonnet-4.6" for e in turn_ends)
    st = cp.state(sid)
    assert "held" not in st and st["pending"] == {} and lineage.open_names(cp.jhome) == []
    assert cp.hook_log() == ""


def test_copilot_killed_after_a_search_end_loses_no_record(tmp_path, copilot_cache):
    """kill -9 of Copilot as soon as a search's postToolUse hook has returned (before Copilot writes
    anything more, so usually before the hook's own line): no later event comes, and the record
    held in the lineage is queued by the daemon's sweep (`jevlin-hooks daemon run --once`, every
    session idle long enough), once, with the end's status and the call id the search sent."""
    cp = Copilot(tmp_path, copilot_cache)
    log = cp.probe()
    in_band = str(tmp_path / "in-band.jsonl")  # the model never sees the result: kept here too
    cli = os.path.join(os.path.dirname(sys.executable), "jevlin-hooks")
    with open(str(tmp_path / "bin" / "jevlin"), "w") as f:
        f.write(f"#!/bin/sh\n{cli} context | tee -a {shlex.quote(in_band)}\n")
    sid = str(uuid.uuid4())
    env = dict(cp.env, JEVLIN_PROBE_KILL_AFTER="postToolUse")
    with FakeAnthropic(decide, prefix="h") as srv:
        p = subprocess.run([COPILOT, "-p", "SEARCH_PLEASE then die", "--allow-all-tools", f"--session-id={sid}"],
                           env=dict(env, COPILOT_PROVIDER_BASE_URL=srv.url), cwd=cp.work, capture_output=True,
                           text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert p.returncode != 0, "Copilot was killed"
    with open(log) as f:
        runs = [json.loads(line) for line in f]
    assert [r["event"] for r in runs][-1] == "postToolUse" and runs[-1]["parent"] == "copilot", runs
    st = cp.state(sid)
    assert st["pending"] == {} and st["turn"] is not None, "the call ended, the turn never did"
    held = [h["call"] for h in st.get("held", [])]
    assert len(held) + len(cp.records("search")) == 1
    with open(os.path.join(cp.jhome, "config.toml"), "a") as f:
        f.write("abandon_after_s = 0\n")  # the [daemon] table is the file's last
    d = subprocess.run([cli, "daemon", "run", "--once"], env=cp.env, capture_output=True, text=True, timeout=120)
    assert d.returncode == 0, d.stderr
    db = sqlite3.connect(os.path.join(cp.jhome, "traces.db"))
    shipped = [json.loads(body) for (body,) in db.execute("SELECT body FROM records ORDER BY rowid")]
    db.close()
    (rec,) = [r for r in shipped if r["kind"] == "search"]
    with open(in_band) as f:
        (printed,) = [json.loads(line) for line in f]
    assert (rec["seq"], rec["status"], rec["query"]) == (1, "ok", "retry policy")
    assert rec["call_id"] == printed["call_id"] and rec["session_id"] == printed["session_id"]
    if held:
        assert rec["duration_ms"] == held[0]["duration_ms"], "the end's duration, not the sweep's"
    print(f"\nkilled after a search's end: {len(held)} record held, history {rec['history']!r} after the sweep")
    # the history Copilot's file holds after the kill: the call's own, or none (no line proves it)
    assert rec["history"] in (TEXT_BEFORE, "")
    st = cp.state(sid)
    assert "held" not in st and st["turn"] is None and lineage.open_names(cp.jhome) == []
    assert cp.hook_log() == ""
