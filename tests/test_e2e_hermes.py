"""The real Hermes Agent (PyPI hermes-agent==0.19.0 in .venv-hermes, made by `./dev test`) with our
hooks installed by `jevlin-hooks install --harness hermes`, against a scripted Chat Completions
server on 127.0.0.1. No `hooks_auto_accept`, no `--accept-hooks`: the hooks run because the
installer recorded the user's consent in Hermes's allowlist."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from fake_chat import BIG, FakeChat, shell

from jevlin_hooks.base import spool
from jevlin_hooks.capture import lineage
from jevlin_hooks.privacy import ids

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERMES = os.environ.get("JEVLIN_HERMES_BIN") or os.path.join(ROOT, ".venv-hermes", "bin", "hermes")
pytestmark = pytest.mark.e2e

if not os.path.exists(HERMES):
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError(f"{HERMES} missing: run `./dev test` (it makes .venv-hermes once)")
    pytest.skip("Hermes not installed (./dev test makes .venv-hermes)", allow_module_level=True)

USER_CONFIG = """\
# my own Hermes settings
model:
  provider: custom   # the local server
  base_url: {url}
  default: fake-model
  api_key: fake-key
  context_length: 64000
agent:
  api_max_retries: 0
hooks:
  post_llm_call:
    - command: /bin/true   # the user's own, never approved: Hermes skips it
compression:
  threshold: 0.5
  protect_first_n: 1
  protect_last_n: 2
{extra}"""

SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "basic": [
        {"text": "I will search for the deploy docs first.", "tools": [shell('jevlin search "deploy docs"')]},
        {"text": "Search done: found 2 results."},
    ],
    "resume": [
        {"text": "Searching again, this time for rollbacks.", "tools": [shell('jevlin search "rollbacks"')]},
        {"text": "Second search done."},
    ],
    "prep": [
        {"text": "Prep: one big search first.", "tools": [shell('jevlin search --big "p0"')]},
        {"text": "Prep done."},
    ],
    "compress": [
        {"text": "Compress step 1: searching c1.", "tools": [shell('jevlin search --big "c1"')], "usage": BIG},
        {"text": "Compress step 2: searching c2.", "tools": [shell('jevlin search --big "c2"')], "usage": BIG},
        {"text": "Compression scenario finished."},
    ],
    "subagent": [
        {"text": "Delegating the search to a subagent.",
         "tools": [{"name": "delegate_task", "arguments": {
             "goal": "[[child]] Run the search for sub and report the results.",
             "context": "Use the terminal tool.", "toolsets": ["terminal"]}}]},
        {"text": "Meanwhile the parent searches too.", "tools": [shell('jevlin search "after"')]},
        {"text": "The parent is done."},
    ],
    "child": [
        {"text": "Child: searching for sub.", "tools": [shell('jevlin search "sub"')]},
        {"text": "Child: found 2 results for sub."},
    ],
}


class Hermes:
    def __init__(self, tmp_path: Any, srv: FakeChat, extra_config: str = "") -> None:
        self.home = str(tmp_path / "home")
        self.hermes_home = os.path.join(self.home, ".hermes")
        self.jhome = str(tmp_path / "jevlin")
        self.work = os.path.join(self.home, "project")
        bindir = str(tmp_path / "bin")
        for d in (self.hermes_home, self.jhome, self.work, bindir):
            os.makedirs(d, exist_ok=True)
        with open(os.path.join(self.jhome, "config.toml"), "w") as f:
            f.write("[miner]\nturn_end = true\n[daemon]\nautostart = false\n")
        cli = os.path.join(os.path.dirname(sys.executable), "jevlin-hooks")
        # The stand-in search client prints results and what `jevlin-hooks context` resolves;
        # --big prints 30 KB so a later turn has something to compress.
        jevlin = os.path.join(bindir, "jevlin")
        with open(jevlin, "w") as f:
            f.write('#!/bin/sh\nif [ "$2" = "--big" ]; then i=0; while [ $i -lt 300 ]; do '
                    'echo "big result $i lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod"; '
                    f'i=$((i+1)); done; fi\necho "result 1 for $*"\necho "env=$HERMES_SESSION_ID"\nexec {cli} context\n')
        os.chmod(jevlin, 0o755)
        # Hermes snapshots a login shell for its terminal tool: PATH comes from the profile.
        with open(os.path.join(self.home, ".profile"), "w") as f:
            f.write(f'export PATH="{bindir}:$PATH"\n')
        with open(os.path.join(self.hermes_home, "config.yaml"), "w") as f:
            f.write(USER_CONFIG.format(url=srv.url, extra=extra_config))
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("HERMES", "OPENAI", "ANTHROPIC", "JEVLIN_HOME"))}
        self.env.update(HOME=self.home, JEVLIN_HOME=self.jhome, HTTPS_PROXY="http://127.0.0.1:9",
                        HTTP_PROXY="http://127.0.0.1:9", NO_PROXY="127.0.0.1,localhost")
        self.cli = cli
        with open(os.path.join(self.hermes_home, "config.yaml"), "rb") as f:
            self.user_config = f.read()
        p = subprocess.run([cli, "install", "--harness", "hermes"], env=self.env, capture_output=True, text=True)
        assert p.returncode == 0 and "allowlist" in p.stdout, (p.stdout, p.stderr)

    def chat(self, prompt: str, *extra: str) -> str:
        """`hermes chat -q` (one turn, then exit); returns the session id Hermes printed."""
        p = subprocess.run([HERMES, "chat", "-Q", *extra, "-q", prompt], cwd=self.work, env=self.env,
                           capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
                           start_new_session=True)
        assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
        found = re.findall(r"session_id: (\S+)", p.stdout + p.stderr)
        assert found, (p.stdout[-2000:], p.stderr[-2000:])
        return found[-1]

    def oneshot(self, prompt: str) -> None:
        p = subprocess.run([HERMES, "-z", prompt], cwd=self.work, env=self.env, capture_output=True, text=True,
                           timeout=240, stdin=subprocess.DEVNULL, start_new_session=True)
        assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])

    def records(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [r for r in spool.read_all(self.jhome) if kind is None or r["kind"] == kind]

    def state(self, sid: str) -> dict[str, Any]:
        st = lineage.read(self.jhome, lineage.file_name("hermes", sid))
        assert st is not None, f"no lineage for {sid}"
        return st

    def hook_log(self) -> str:
        path = os.path.join(self.jhome, "logs", "hook.log")
        return open(path).read() if os.path.exists(path) else ""

    def key(self) -> bytes:
        k = ids.load_key(self.jhome, create=False)
        assert k is not None
        return k


def tool_outputs(srv: FakeChat) -> dict[str, str]:
    """What each tool call printed, as Hermes sent it back to the model."""
    found: dict[str, str] = {}
    for body in srv.requests:
        for m in body.get("messages") or []:
            if m.get("role") != "tool" or m.get("tool_call_id") in found:
                continue
            content = m.get("content")
            text = content if isinstance(content, str) else json.dumps(content)
            try:
                text = json.loads(text).get("output", text)
            except (ValueError, AttributeError):
                pass
            found[m["tool_call_id"]] = str(text)
    return found


def printed_contexts(srv: FakeChat) -> dict[str, dict[str, Any]]:
    """What the stand-in `jevlin` printed (its `context` line), by the tool call it answered."""
    found = {}
    for call, text in tool_outputs(srv).items():
        for line in text.splitlines():
            if line.startswith("{") and '"trace"' in line:
                found[call] = json.loads(line)
    return found


def env_session(srv: FakeChat, call_id: str) -> str:
    """The HERMES_SESSION_ID the search's shell carried."""
    return re.findall(r"env=(\S*)", tool_outputs(srv)[call_id])[-1]


def agrees(ctx: dict[str, Any], rec: dict[str, Any], key: bytes) -> None:
    """`jevlin-hooks context` said what the record says (ids hashed alike)."""
    assert ctx["trace"] == "on" and ctx["harness"] == "hermes", ctx
    for name in ("session_id", "turn_id", "call_id", "parent_session_id"):
        assert ctx[name] == ids.hash_id(rec[name], key), (name, ctx, rec)
    assert (ctx["window"], ctx["seq"]) == (rec["window"], rec["seq"]), (ctx, rec)


def test_search_with_history_and_resume_continues_seq(tmp_path: Any) -> None:
    with FakeChat(SCRIPTS) as srv:
        h = Hermes(tmp_path, srv)
        sid = h.chat("[[basic]] Please search for the deploy docs.")
        sid2 = h.chat("[[resume]] Now search for rollbacks.", "--resume", sid)
    assert sid2 == sid and h.hook_log() == ""
    first, second = h.records("search")
    calls = srv.call_ids()
    assert first["harness"] == "hermes" and first["session_id"] == sid and first["call_id"] == calls[0]
    assert first["query"] == "deploy docs" and first["status"] == "ok" and first["seq"] == 1
    assert first["history"] == "I will search for the deploy docs first."
    assert first["host_meta"]["history_source"] == "transcript"
    assert first["turn_id"].startswith(sid + ":") and first["window"] == 0
    # --resume sends no on_session_start: the same thread goes on, seq continues
    assert second["session_id"] == sid and second["seq"] == 2 and second["turn_id"] != first["turn_id"]
    assert second["history"] == "Searching again, this time for rollbacks."
    turns = h.records("turn_end")
    assert [t["final_message"] for t in turns] == ["Search done: found 2 results.", "Second search done."]
    assert all(t["outcome"] == "completed" for t in turns)
    st = h.state(sid)
    assert st["sources"] == ["startup", "resume"] and st["seq"] == 2 and len(st["turns"]) == 2
    ctx = printed_contexts(srv)
    for rec in (first, second):
        agrees(ctx[rec["call_id"]], rec, h.key())
    # Hermes itself reads our entries as approved; the user's own hook stays unapproved
    listed = subprocess.run([HERMES, "hooks", "list"], env=h.env, capture_output=True, text=True, timeout=120).stdout
    assert listed.count("entry.py hermes") == 10 and listed.count("✓ allowed") == 10, listed
    assert "/bin/true" in listed
    # uninstall leaves config.yaml and the allowlist as they were (there was no allowlist)
    p = subprocess.run([h.cli, "uninstall", "--harness", "hermes"], env=h.env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert open(os.path.join(h.hermes_home, "config.yaml"), "rb").read() == h.user_config
    assert not os.path.exists(os.path.join(h.hermes_home, "shell-hooks-allowlist.json"))


def test_rotating_compression_is_one_thread_in_the_next_window(tmp_path: Any) -> None:
    """compression.in_place: false rotates the session id between two calls of one turn; the
    tool shell keeps the old id in HERMES_SESSION_ID (the first wrong-env case)."""
    with FakeChat(SCRIPTS) as srv:
        h = Hermes(tmp_path, srv, "  in_place: false\n")
        sid = h.chat("[[prep]] One big search first.")
        last = h.chat("[[compress]] Search c1 and c2.", "--resume", sid)
    assert h.hook_log() == ""
    assert last != sid, "Hermes rotated the session id (the scenario did not compress)"
    p0, c1, c2 = h.records("search")
    assert {r["session_id"] for r in (p0, c1, c2)} == {sid}, "a rotation is the same thread"
    assert c1["turn_id"] == c2["turn_id"] and [r["seq"] for r in (p0, c1, c2)] == [1, 2, 3]
    assert (c1["window"], c2["window"]) == (0, 1)
    assert c2["history"].endswith("Compress step 2: searching c2.")
    st = h.state(sid)
    assert st["window"] >= 2 and last in st["window_ids"]
    assert not os.path.exists(os.path.join(h.jhome, "sessions", lineage.file_name("hermes", last) + ".json"))
    turn = h.records("turn_end")[-1]
    assert turn["session_id"] == sid and turn["window"] == st["window"]
    # the wrong-env case happened: c2 ran after the rotation, its shell still named the old id
    assert env_session(srv, c2["call_id"]) == sid != st["window_ids"][1]
    ctx = printed_contexts(srv)
    for rec in (p0, c1, c2):
        agrees(ctx[rec["call_id"]], rec, h.key())


def test_in_place_compression_raises_the_window_on_the_same_session_id(tmp_path: Any) -> None:
    """compression.in_place at its shipped default: no event and no new id; the next request of
    the turn holds fewer messages than the last one grew to."""
    with FakeChat(SCRIPTS) as srv:
        h = Hermes(tmp_path, srv)
        sid = h.chat("[[prep]] One big search first.")
        assert h.chat("[[compress]] Search c1 and c2.", "--resume", sid) == sid
    assert h.hook_log() == ""
    summaries = [b for b in srv.requests if not b.get("tools")]
    assert any("summar" in json.dumps(b).lower() for b in summaries), "Hermes did not compress"
    p0, c1, c2 = h.records("search")
    assert {r["session_id"] for r in (p0, c1, c2)} == {sid}
    assert (p0["window"], c1["window"], c2["window"]) == (0, 0, 1)
    assert h.state(sid)["window"] >= 1 and h.state(sid)["window_ids"] == [sid]


def test_subagent_under_oneshot_records_its_parent(tmp_path: Any) -> None:
    """`hermes -z` runs delegate_task's child synchronously; afterwards the parent's tool shell
    holds the child's id in HERMES_SESSION_ID (the second wrong-env case)."""
    with FakeChat(SCRIPTS) as srv:
        h = Hermes(tmp_path, srv)
        h.oneshot("[[subagent]] Delegate a search for sub.")
    assert h.hook_log() == ""
    child, parent = h.records("search")
    delegate = next(c["id"] for b in srv.requests for m in b.get("messages") or []
                    for c in m.get("tool_calls") or [] if c["function"]["name"] == "delegate_task")
    assert child["query"] == "sub" and parent["query"] == "after"
    assert child["session_id"] != parent["session_id"]
    assert child["parent_session_id"] == parent["session_id"] and child["parent_call_id"] == delegate
    assert parent["parent_session_id"] is None and parent["parent_call_id"] is None
    assert child["history"] == "Child: searching for sub."
    assert parent["history"].endswith("Meanwhile the parent searches too.")
    st = h.state(parent["session_id"])
    assert st["agents"][child["session_id"]]["status"] == "ended"
    assert st["agents"][child["session_id"]]["parent_call"] == delegate
    # the wrong-env case happened: the parent's later search ran with the child's id
    assert env_session(srv, parent["call_id"]) == child["session_id"]
    ctx = printed_contexts(srv)
    for rec in (child, parent):
        agrees(ctx[rec["call_id"]], rec, h.key())
