"""`jevlin-hooks context`: where a search belongs, read-only, ids hashed with the local key."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import readonly_copy, run

from jevlin_hooks.capture import context
from jevlin_hooks.privacy import ids

CLI = [sys.executable, "-c", "import sys; from jevlin_hooks.cli import main; sys.exit(main())", "context"]


def ctx(home: str, env: dict[str, str] | None = None, cwd: str | None = None) -> dict:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))}
    full.update(JEVLIN_HOME=home, **(env or {}))
    p = subprocess.run(CLI, env=full, cwd=cwd, capture_output=True, check=True)
    return json.loads(p.stdout)


def start_search(home: str, sid: str = "S1", call: str = "toolu_1", agent: str | None = None, cwd: str = "/w",
                 command: str = "jevlin search q") -> None:
    base = {"session_id": sid, "prompt_id": "T1", "cwd": cwd}
    run(home, {**base, "hook_event_name": "SessionStart", "source": "startup"})
    run(home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": "p"})
    ev = {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash",
          "tool_input": {"command": command}, "tool_use_id": call}
    if agent:
        ev["agent_id"] = agent
    run(home, ev)


def key(home: str) -> bytes:
    k = ids.load_key(home, create=False)
    assert k is not None
    return k


def test_env_and_pending_call(home):
    start_search(home)
    out = ctx(home, {"CLAUDE_CODE_SESSION_ID": "S1"})
    k = key(home)
    assert out["source"] == "env" and out["harness"] == "claude-code"
    assert out["session_id"] == ids.hash_id("S1", k)
    assert out["call_id"] == ids.hash_id("toolu_1", k)
    assert out["turn_id"] == ids.hash_id("T1", k)
    assert out["seq"] == 1 and out["window"] == 0 and out["parent_session_id"] is None
    assert "S1" not in json.dumps(out) and "toolu_1" not in json.dumps(out)


def test_subagent_pending_call_names_parent(home):
    start_search(home, agent="agentX")
    out = ctx(home, {"CLAUDE_CODE_SESSION_ID": "S1"})
    k = key(home)
    assert out["session_id"] == ids.hash_id("agentX", k)
    assert out["parent_session_id"] == ids.hash_id("S1", k)


def test_two_sessions_one_workspace(home):
    start_search(home, "S1", "toolu_a")
    start_search(home, "S2", "toolu_b")
    k = key(home)
    assert ctx(home, {"CLAUDE_CODE_SESSION_ID": "S2"})["call_id"] == ids.hash_id("toolu_b", k)
    assert ctx(home, {"CLAUDE_CODE_SESSION_ID": "S1"})["call_id"] == ids.hash_id("toolu_a", k)


def test_parallel_pending_calls_matched_by_command_text(home):
    start_search(home, call="toolu_1", command="jevlin search first")
    run(home, {"session_id": "S1", "prompt_id": "T1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "jevlin search second"}, "tool_use_id": "toolu_2"})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))}
    env.update(JEVLIN_HOME=home, CLAUDE_CODE_SESSION_ID="S1")
    # As Claude's Bash tool runs it: bash -c '<command>' with the command text in argv.
    script = f"{sys.executable} -c 'import sys; from jevlin_hooks.cli import main; sys.exit(main())' context; : jevlin search first"
    p = subprocess.run(["bash", "-c", script], env=env, capture_output=True, check=True)
    assert json.loads(p.stdout)["call_id"] == ids.hash_id("toolu_1", key(home))


def fake_jevlin(tmp_path) -> str:
    """A `jevlin` program on PATH whose search asks `jevlin-hooks context` (as the real one does)."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    prog = bindir / "jevlin"
    prog.write_text(f"#!{sys.executable}\nimport sys\nfrom jevlin_hooks.cli import main\nsys.exit(main(['context']))\n")
    prog.chmod(0o755)
    return str(bindir)


def search_ctx(home: str, command: str, cwd: str, bindir: str) -> dict:
    """The context as the search sees it when the agent's shell runs ``command`` (bash -c)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))}
    full.update(JEVLIN_HOME=home, PATH=bindir + os.pathsep + full.get("PATH", ""))
    p = subprocess.run(["bash", "-c", command], env=full, cwd=cwd, capture_output=True, check=True)
    return json.loads(p.stdout)


def test_workspace_is_exact_never_a_parent_directory(home, tmp_path):
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    start_search(home, cwd=str(ws))
    bindir = fake_jevlin(tmp_path)
    assert search_ctx(home, "jevlin search q", str(ws), bindir)["source"] == "workspace"
    sub = search_ctx(home, "jevlin search q", str(ws / "sub"), bindir)
    assert sub["source"] == "shell" and sub["call_id"] is None


def test_ancestry(home):
    # A hook recorded CLAUDE_PID = our own shell's pid; a search started below it finds it.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))}
    env["JEVLIN_HOME"] = home
    script = (
        f"echo '{{\"session_id\":\"S9\",\"hook_event_name\":\"SessionStart\"}}' | "
        f"CLAUDE_PID=$$ {sys.executable} -I -S {context.__file__.replace('context.py', 'entry.py')} claude-code; "
        f"{sys.executable} -c 'import sys; from jevlin_hooks.cli import main; sys.exit(main())' context"
    )
    p = subprocess.run(["bash", "-c", script], env=env, capture_output=True, check=True, cwd="/")
    out = json.loads(p.stdout)
    assert out["source"] == "ancestry" and out["session_id"] == ids.hash_id("S9", key(home))


def test_shell_identity_is_stable_and_hashed(home, tmp_path):
    ids.load_key(home)
    a = ctx(home, cwd=str(tmp_path))
    b = ctx(home, cwd=str(tmp_path))
    assert a["source"] == "shell" and a["session_id"] == b["session_id"] and len(a["session_id"]) == 64


def test_read_only_home(home, tmp_path):
    start_search(home)
    expected = ctx(home, {"CLAUDE_CODE_SESSION_ID": "S1"})
    with readonly_copy(home, str(tmp_path / "ro")) as ro:
        out = ctx(ro, {"CLAUDE_CODE_SESSION_ID": "S1"})
    assert out == expected


def test_trace_off(home):
    start_search(home)
    assert ctx(home, {"CLAUDE_CODE_SESSION_ID": "S1", "JEVLIN_TRACE": "off"}) == {"trace": "off"}


def test_key_readable_by_others_is_refused(home):
    start_search(home)
    os.chmod(os.path.join(home, "state", "key"), 0o644)
    out = ctx(home, {"CLAUDE_CODE_SESSION_ID": "S1"})
    assert "readable by others" in out["error"] and "session_id" not in out
