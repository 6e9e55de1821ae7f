"""Feed captured harness events through the real hook entry point, as the harness does.

Used by ``jevlin-hooks demo`` and by the tests: each event is one ``python -I -S entry.py``
process with the payload on stdin, exactly what the installed hook command runs. The
scenario's transcripts (Claude Code) or rollouts (Codex) are laid down first, as they stood when
the captured scenario ended, and the payloads are pointed at them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from jevlin_hooks import harnesses

ENTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "capture", "entry.py")

# Where each harness's captured session files are: Claude Code's transcripts, Codex's rollouts.
SESSION_FILES = {"claude-code": "transcripts", "codex": "rollouts"}


def data_dir(harness: str = "claude-code") -> str:
    return harnesses.data_dir(harness)


def scenario_events(scenario: str, harness: str = "claude-code") -> list[tuple[str, dict[str, Any]]]:
    base = os.path.join(data_dir(harness), "events")
    files = [f for f in os.listdir(base) if f.startswith(scenario + "-") and f.endswith(".json")]
    files.sort(key=lambda f: int(f.split("-")[-2]))
    out = []
    for f in files:
        with open(os.path.join(base, f), encoding="utf-8") as fh:
            out.append((f, json.load(fh)))
    return out


def session_files(scenario: str, harness: str = "claude-code") -> dict[str, str]:
    """{path the program wrote the file at: bundled copy} for the scenario's transcripts (or
    rollouts), as they stood when the scenario ended (tools/capture_demo.py)."""
    d = os.path.join(data_dir(harness), SESSION_FILES.get(harness, "transcripts"), scenario)
    try:
        with open(os.path.join(d, "paths.json"), encoding="utf-8") as f:
            written = json.load(f)
    except FileNotFoundError:
        return {}
    return {original: os.path.join(d, name) for name, original in written.items()}


def lay_transcripts(scenario: str, root: str, harness: str = "claude-code") -> dict[str, str]:
    """Write the scenario's transcripts/rollouts under ``root`` (keeping their layout below the
    capture's root, so a subagent's transcript stays beside its parent's); returns {original
    path: new path}."""
    mapping: dict[str, str] = {}
    for original, bundled in session_files(scenario, harness).items():
        target = os.path.join(root, original.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(bundled, "rb") as f, open(target, "wb") as g:
            g.write(f.read())
        mapping[original] = target
    return mapping


def rewrite(payload: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    out = dict(payload)
    for key in ("transcript_path", "agent_transcript_path"):
        if out.get(key) in mapping:
            out[key] = mapping[out[key]]
    return out


def _hook_call(
    home: str, payload: dict[str, Any] | bytes, harness: str, env: dict[str, str] | None,
) -> tuple[list[str], bytes, dict[str, str]]:
    """The hook's argv (after the entry script), stdin and environment, as the harness gives them.
    Codex's `notify` gets its JSON as the last argument (and nothing on stdin), everything else
    on stdin."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))}
    full_env["JEVLIN_HOME"] = home
    full_env.update(env or {})
    if harness == "codex" and isinstance(payload, dict) and payload.get("type") == "agent-turn-complete":
        return ["codex-notify", data.decode()], b"", full_env
    return [harness], data, full_env


def run_hook(
    home: str, payload: dict[str, Any] | bytes, harness: str = "claude-code",
    env: dict[str, str] | None = None, timeout: float = 30, python_flags: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[bytes]:
    """One hook process, as the harness runs it (``python_flags``: more interpreter options,
    such as ``-X importtime``)."""
    args, data, full_env = _hook_call(home, payload, harness, env)
    argv = [sys.executable, *python_flags, "-I", "-S", ENTRY, *args]
    return subprocess.run(argv, input=data, capture_output=True, env=full_env, timeout=timeout, check=False)


def run_hook_inprocess(
    home: str, payload: dict[str, Any] | bytes, harness: str = "claude-code",
    env: dict[str, str] | None = None, timeout: float = 30,
) -> subprocess.CompletedProcess[bytes]:
    """The same hook, run by the same entry function (``hook.run``) inside this process: the
    environment and umask the process would have, restored afterwards. Much faster than a
    process; what only a process shows (stdin, exit codes, the -I -S import set, signals, a
    daemon start) stays with ``run_hook``, and so does any call that may start a daemon."""
    args, data, full_env = _hook_call(home, payload, harness, env)
    if full_env.get("JEVLIN_DAEMON_AUTOSTART", "1") not in ("0", "off", "false"):
        return run_hook(home, payload, harness, env, timeout)  # a daemon start forks: a process's job
    # a hook process's parent is this process (the agent, as far as the hook can tell)
    full_env.setdefault("CLAUDE_PID", str(os.getpid()))
    from jevlin_hooks.capture import hook

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(full_env)
    mask = os.umask(0o077)
    try:
        out = hook.run(args[0], args[1:], lambda: data)
    finally:
        os.umask(mask)
        os.environ.clear()
        os.environ.update(saved)
    stdout = b"".join(line.encode() + b"\n" for line in out)
    return subprocess.CompletedProcess([ENTRY, *args], 0, stdout, b"")


def replay(
    home: str, scenario: str, transcripts_root: str, harness: str = "claude-code", inprocess: bool = False,
) -> list[subprocess.CompletedProcess[bytes]]:
    os.makedirs(transcripts_root, exist_ok=True)
    mapping = lay_transcripts(scenario, transcripts_root, harness)
    runner = run_hook_inprocess if inprocess else run_hook
    return [runner(home, rewrite(p, mapping), harness) for _, p in scenario_events(scenario, harness)]


def subagent_shapes() -> list[dict[str, Any]]:
    """The captured Claude Code payloads of a foreground subagent, by role and in order: the Agent
    call, its start, its search (Pre and Post), its stop, the Agent call's result (the growth
    bench and tests/test_subagent_growth.py build thousands of subagents from these)."""
    evs = [p for _, p in scenario_events("subagent_fg")]

    def one(event: str, child: bool) -> dict[str, Any]:
        return next(p for p in evs if p["hook_event_name"] == event and bool(p.get("agent_id")) == child
                    and (event not in ("PreToolUse", "PostToolUse") or (p.get("tool_name") == "Agent") != child))

    return [one("PreToolUse", False), one("SubagentStart", True), one("PreToolUse", True),
            one("PostToolUse", True), one("SubagentStop", True), one("PostToolUse", False)]
