"""The captured Pi events (jevlin_hooks/harnesses/pi/data: the events of shared/reference/pi our extension
forwards, as Pi handed them to an extension, with what its ctx said, and the session files Pi
wrote) as our extension sends them, and one resident `entry.py pi --stream` fed with them.

``as_sent`` does what jevlin_hooks/pi_extension.js does with each event: the session id comes
from ctx, or (when ctx is stale, after session_shutdown) from the last one this process saw;
the first user message of an agent run is marked as the prompt; a child `pi` names the
session its parent exported. Events the extension does not forward are left out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Any

from jevlin_hooks import replay

DATA = replay.data_dir("pi")
CAPTURED_SESSIONS = "/home/dev/.pi/agent/sessions"  # where the captured sessions lived
FORWARDED = ("session_start", "message_end", "tool_call", "tool_result", "tool_execution_end",
             "agent_end", "session_compact", "session_shutdown")


def captures(scenario: str) -> list[dict[str, Any]]:
    base = os.path.join(DATA, "events")
    names = sorted((n for n in os.listdir(base) if n.startswith(scenario + "-") and n.endswith(".json")
                    and n[len(scenario) + 1:].split("-")[0].isdigit()), key=lambda n: int(n.split("-")[-2]))
    out = []
    for n in names:
        with open(os.path.join(base, n)) as f:
            out.append(json.load(f))
    return out


def lay_sessions(root: str) -> str:
    """The captured session files under ``root`` (the paths in the captures point here)."""
    target = os.path.join(root, "sessions")
    shutil.copytree(os.path.join(DATA, "sessions"), os.path.join(target, "--home-dev-project--"))
    return target


def _moved(path: Any, sessions: str | None) -> Any:
    if isinstance(path, str) and sessions and path.startswith(CAPTURED_SESSIONS):
        return sessions + path[len(CAPTURED_SESSIONS):]
    return path


def _size_of_lines(path: Any, lines: Any) -> int:
    """Bytes in the first ``lines`` lines: what the file held when the event fired."""
    if not isinstance(path, str) or not isinstance(lines, int) or not os.path.exists(path):
        return 0
    with open(path, "rb") as f:
        return sum(len(f.readline()) for _ in range(lines))


def as_sent(caps: list[dict[str, Any]], sessions: str | None = None) -> list[dict[str, Any]]:
    by_pid: dict[int, dict[str, Any]] = {}
    out = []
    for c in caps:
        ev = dict(c["event"])
        pid = c["meta"]["pid"]
        me = by_pid.setdefault(pid, {"ctx": None, "awaiting": False,
                                      "parent": c["meta"].get("env_at_load", {}).get("JEVLIN_PI_SESSION_ID")})
        ctx = c["ctx"]
        if "stale" not in ctx and ctx.get("sessionId"):
            me["ctx"] = {k: ctx.get(k) for k in ("sessionId", "sessionFile", "cwd", "header", "model")}
            me["ctx"]["sessionFile"] = _moved(ctx.get("sessionFile"), sessions)
            if isinstance(ctx.get("header"), dict):
                me["ctx"]["header"] = {"parentSession": _moved(ctx["header"].get("parentSession"), sessions)}
        if ev["type"] == "agent_start":
            me["awaiting"] = True
        if ev["type"] not in FORWARDED or me["ctx"] is None:
            continue
        jv: dict[str, Any] = {}
        if ev["type"] == "message_end":
            role = ev["message"].get("role")
            if role == "user" and me["awaiting"]:
                me["awaiting"] = False
                jv["prompt"] = True
            elif role != "assistant":
                continue
        if ev["type"] == "session_start":
            if me["parent"] and me["parent"] != me["ctx"]["sessionId"]:
                jv["parent"] = me["parent"]
            ev["previousSessionFile"] = _moved(ev.get("previousSessionFile"), sessions)
            jv["fileSize"] = _size_of_lines(me["ctx"]["sessionFile"], c["meta"].get("sessionFileLines"))
        out.append({"event": ev, "ctx": me["ctx"], "jv": jv})
    return out


def stream(
    home: str, lines: list[dict[str, Any]], env: dict[str, str] | None = None, python_flags: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[bytes]:
    """One resident process, as the extension runs it, fed every line and then end of input
    (``python_flags``: more interpreter options, such as ``-X importtime``)."""
    data = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_", "JEVLIN_PI"))}
    full_env.update(JEVLIN_HOME=home, **(env or {}))
    return subprocess.run([sys.executable, *python_flags, "-I", "-S", replay.ENTRY, "pi", "--stream"], input=data,
                          capture_output=True, env=full_env, timeout=60, check=False)
