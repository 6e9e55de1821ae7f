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

from jevlin_hooks.capture.harness import common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


def normalize(payload: Any, cfg: dict[str, Any], now: float) -> dict[str, Any] | None:
    if not isinstance(payload, dict):
        return None
    if payload.get("type") == "agent-turn-complete":
        return _notify(payload, now)
    kind = _KINDS.get(payload.get("hook_event_name"))  # type: ignore[arg-type]
    session_id = common.text(payload, "session_id")
    if kind is None or session_id is None:
        return None
    ev = common.event(payload, kind, now, session_id, "turn_id", cfg, _status)
    ev["spawn_tools"] = SPAWN_TOOLS
    if kind == "subagent_stop":
        ev["agent_transcript_path"] = common.text(payload, "agent_transcript_path")
    return ev


def _notify(payload: dict[str, Any], now: float) -> dict[str, Any] | None:
    thread = common.text(payload, "thread-id")
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
        "turn_id": common.text(payload, "turn-id"),
        "agent_id": None,
        "prompt": prompt,
        "last_message": last if isinstance(last, str) else None,
    }
