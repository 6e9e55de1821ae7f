"""Codex hook payloads (and the legacy `notify` program) -> normalized events.

Facts (Codex 0.169.0, see shared/reference): every event has ``session_id`` and most a
``turn_id``; the shell is ``tool_name: "Bash"`` with ``tool_input.command``; ``tool_use_id`` is the
model's call id. A subagent's hooks keep the root ``session_id`` and add ``agent_id`` (the child
thread) with the child's own ``turn_id``; it is spawned by the ``spawn_agent`` tool. Compaction
fires PreCompact -> PostCompact -> SessionStart(compact). SIGINT fires ``Interrupt``. Codex sends
no assistant text before a call, so searches carry no history, by design.

``notify`` gets its JSON as the last argv argument (``agent-turn-complete``, ``thread-id``,
``turn-id``, ``input-messages``, ``last-assistant-message``). With hooks installed it arrives after
Stop and is recognised as the same turn; without hooks it is the only signal of a turn.
"""

from __future__ import annotations

from jevlin_hooks.capture import payloads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from jevlin_hooks.capture.shapes import Config, Event, Pending

NAME = "codex"

_KINDS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "PostToolUseFailure": "tool_failed",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
    "StopFailure": "stop_failure",
    "Interrupt": "interrupt",
    "SessionEnd": "session_end",
}
SPAWN_TOOLS = ("spawn_agent",)




def _status(resp: Any) -> str:
    if isinstance(resp, str):
        return "ok" if resp.strip() else "empty"
    if isinstance(resp, dict):
        code = resp.get("exit_code")
        if isinstance(code, int) and code != 0:
            return "error"
        out = resp.get("output") if "output" in resp else resp.get("stdout")
        if isinstance(out, str) and not out.strip():
            return "empty"
    return "ok"


def normalize(payload: Any, cfg: Config, now: float) -> Event | None:
    if not isinstance(payload, dict):
        return None
    if payload.get("type") == "agent-turn-complete":
        return _notify(payload, now)
    kind = _KINDS.get(payload.get("hook_event_name"))  # type: ignore[arg-type]
    session_id = payloads.text(payload, "session_id")
    if kind is None or session_id is None:
        return None
    ev = payloads.event(payload, kind, now, session_id, "turn_id", cfg, _status)
    ev["spawn_tools"] = SPAWN_TOOLS
    if kind == "subagent_stop":
        ev["agent_transcript_path"] = payloads.text(payload, "agent_transcript_path")
    return ev


def _notify(payload: dict[str, Any], now: float) -> Event | None:
    thread = payloads.text(payload, "thread-id")
    if thread is None:
        return None
    msgs = payload.get("input-messages")
    prompt = msgs[-1] if isinstance(msgs, list) and msgs and isinstance(msgs[-1], str) else ""
    last = payload.get("last-assistant-message")
    return {
        "kind": "notify_turn_complete",
        "now": now,
        "session_id": thread,  # the lineage is found by thread (hook.py maps a child thread to its root)
        "thread_id": thread,
        "turn_id": payloads.text(payload, "turn-id"),
        "agent_id": None,
        "prompt": prompt,
        "last_message": last if isinstance(last, str) else None,
    }


def answer(payload: Any) -> list[str]:
    return []  # Codex reads no answer from these events: print nothing


def read_payload(invoked_as: str, argv: list[str]) -> bytes | None:
    """`notify` gets its JSON as the last argument, not on stdin; it first runs the notify
    program the user had before ours (``--then PROGRAM ARGS...``). None: read stdin."""
    if invoked_as != "codex-notify":
        return None
    arg = argv[-1] if argv else "{}"
    chain = argv[argv.index("--then") + 1:-1] if "--then" in argv else []
    try:
        _chain(chain, arg)
    except OSError:
        pass
    return arg.encode("utf-8", "surrogatepass")


def route(ev: Event, home: str) -> None:
    """A subagent's hooks already carry the root session and the child as agent_id; only
    `notify`, which names the child thread alone, needs the index."""
    from jevlin_hooks.capture import lineage

    if ev["kind"] == "notify_turn_complete":
        idx = lineage.read_index(home, "codex-thread", lineage.workspace_key(ev["session_id"]))
        if idx and isinstance(idx.get("root"), str):
            ev["agent_id"] = ev["session_id"]
            ev["session_id"] = idx["root"]
    elif (child := ev.get("agent_id")) and ev["kind"] in ("subagent_start", "prompt"):
        lineage.write_index(home, "codex-thread", lineage.workspace_key(child), {"root": ev["session_id"]})


def enrich(ev: Event, cfg: Config) -> None:
    """A turn's tokens from the rollout (Codex sends no assistant text before a call)."""
    path = ev.get("transcript_path")
    if ev["kind"] in ("stop", "stop_failure", "interrupt") and path and not ev.get("agent_id"):
        from jevlin_hooks.capture import transcript

        ev["summary"] = transcript.codex_turn_usage(path, ev.get("turn_id"))


def history_for(p: Pending) -> str | None:
    return None  # Codex writes no assistant text before a call: no history, by design


def from_env(env: Mapping[str, str]) -> tuple[str, str | None, str | None] | None:
    """The session, the child thread inside a subagent, and the exact call."""
    sid = env.get("CODEX_SESSION_ID")
    if not sid:
        return None
    thread = env.get("CODEX_THREAD_ID")
    return sid, (thread if thread and thread != sid else None), env.get("CODEX_TOOL_CALL_ID")


def _chain(argv: list[str], payload_arg: str) -> None:
    """Run the notify program the user had before ours, with the same argument, detached."""
    if not argv:
        return
    import os

    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execvp(argv[0], argv + [payload_arg])
    finally:
        os._exit(0)


def neutral_answer() -> list[str]:
    return []  # for input we cannot read: print nothing
