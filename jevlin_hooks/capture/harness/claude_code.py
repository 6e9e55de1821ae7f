"""Claude Code hook payloads -> normalized events.

Facts this relies on (Claude Code 2.1.328, see shared/reference): ``prompt_id`` is the turn;
subagent events keep the parent's ``session_id`` and add ``agent_id``; the Bash tool is
``tool_name: "Bash"`` with ``tool_input.command``; compaction fires PreCompact ->
SubagentStop(agent_type "") -> SessionStart(compact) -> PostCompact.
"""

from __future__ import annotations

from jevlin_hooks.capture.harness import common

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "claude-code"

_KINDS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "PostToolUseFailure": "tool_failed",
    "PostToolBatch": "tool_batch",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
    "StopFailure": "stop_failure",
    "SessionEnd": "session_end",
}


def _status(tool_response: Any) -> str:
    if isinstance(tool_response, dict):
        if tool_response.get("interrupted") is True:
            return "interrupted"
        if "stdout" in tool_response or "stderr" in tool_response:
            out = tool_response.get("stdout")
            err = tool_response.get("stderr")
            if not (isinstance(out, str) and out.strip()) and not (isinstance(err, str) and err.strip()):
                return "empty"
        results = tool_response.get("results")
        if isinstance(results, list) and not results:
            return "empty"
    elif isinstance(tool_response, str) and not tool_response.strip():
        return "empty"
    elif isinstance(tool_response, list) and not tool_response:
        return "empty"
    return "ok"


def normalize(payload: Any, cfg: dict[str, Any], now: float) -> dict[str, Any] | None:
    """The normalized event, or None for an event we do not track (or cannot trust)."""
    if not isinstance(payload, dict):
        return None
    if "cursor_version" in payload or "conversation_id" in payload:
        # Cursor runs ~/.claude hooks too ("third-party hooks"): its own hook has this event.
        return None
    kind = _KINDS.get(payload.get("hook_event_name"))  # type: ignore[arg-type]
    session_id = common.text(payload, "session_id")
    if kind is None or session_id is None:
        return None
    ev = common.event(payload, kind, now, session_id, "prompt_id", cfg, _status)
    if kind == "tool_batch":
        calls = payload.get("tool_calls")
        ev["tool_calls"] = [
            c["tool_use_id"] for c in calls
            if isinstance(c, dict) and isinstance(c.get("tool_use_id"), str)
        ] if isinstance(calls, list) else []
    if kind == "subagent_stop" or ev["agent_id"]:
        atp = common.text(payload, "agent_transcript_path")
        if atp is None and ev["agent_id"] and ev["transcript_path"]:
            from jevlin_hooks.capture import transcript

            atp = transcript.subagent_path(ev["transcript_path"], session_id, ev["agent_id"])
        ev["agent_transcript_path"] = atp
    return ev
