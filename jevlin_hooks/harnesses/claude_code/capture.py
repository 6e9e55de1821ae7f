"""Claude Code hook payloads -> normalized events.

Facts this relies on (Claude Code 2.1.328, see shared/reference): ``prompt_id`` is the turn;
subagent events keep the parent's ``session_id`` and add ``agent_id``; the Bash tool is
``tool_name: "Bash"`` with ``tool_input.command``; compaction fires PreCompact ->
SubagentStop(agent_type "") -> SessionStart(compact) -> PostCompact.
"""

from __future__ import annotations

import time

from jevlin_hooks.capture import payloads

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from jevlin_hooks.capture.shapes import Config, Event, Pending

NAME = "claude-code"
HISTORY_WAIT = 0.3  # Claude Code flushes its transcript about every 100 ms
POLL = 0.02

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


def normalize(payload: Any, cfg: Config, now: float) -> Event | None:
    """The normalized event, or None for an event we do not track (or cannot trust)."""
    if not isinstance(payload, dict):
        return None
    if "cursor_version" in payload or "conversation_id" in payload:
        # Cursor runs ~/.claude hooks too ("third-party hooks"): its own hook has this event.
        return None
    kind = _KINDS.get(payload.get("hook_event_name"))  # type: ignore[arg-type]
    session_id = payloads.text(payload, "session_id")
    if kind is None or session_id is None:
        return None
    ev = payloads.event(payload, kind, now, session_id, "prompt_id", cfg, _status)
    if kind == "tool_batch":
        calls = payload.get("tool_calls")
        ev["tool_calls"] = [
            c["tool_use_id"] for c in calls
            if isinstance(c, dict) and isinstance(c.get("tool_use_id"), str)
        ] if isinstance(calls, list) else []
    if kind == "subagent_stop" or ev["agent_id"]:
        atp = payloads.text(payload, "agent_transcript_path")
        if atp is None and ev["agent_id"] and ev["transcript_path"]:
            from jevlin_hooks.capture import transcript

            atp = transcript.subagent_path(ev["transcript_path"], session_id, ev["agent_id"])
        ev["agent_transcript_path"] = atp
    return ev


def answer(payload: Any) -> list[str]:
    return []  # Claude Code reads no answer from these events: print nothing


def route(ev: Event, home: str) -> None:
    pass  # subagent events already carry the root session_id and their agent_id


def from_env(env: Mapping[str, str]) -> tuple[str, str | None, str | None] | None:
    """The shell tool has the session (not which subagent: the pending call tells that)."""
    sid = env.get("CLAUDE_CODE_SESSION_ID")
    return (sid, None, None) if sid else None


def enrich(ev: Event, cfg: Config) -> None:
    """History for a search from the transcript; the turn's summary at Stop."""
    if ev.get("search") is not None and ev["kind"] in ("post_tool", "tool_failed"):
        ev["history"] = _history(ev, HISTORY_WAIT)
    if ev["kind"] in ("stop", "stop_failure") and not ev.get("agent_id"):
        wait = HISTORY_WAIT if cfg.get("miner", {}).get("turn_end") else 0.0
        ev["summary"] = _summary(ev, wait)
    elif ev["kind"] == "session_end" and not ev.get("agent_id") and cfg.get("miner", {}).get("turn_end"):
        # an interrupted turn gets no Stop: what it used so far is in the transcript (no wait:
        # the session is over and nothing more will be flushed)
        ev["summary"] = _summary(ev, 0.0)


def history_for(p: Pending) -> str | None:
    path = p.get("transcript_path")
    if not path or not p.get("call_id"):
        return None
    from jevlin_hooks.capture import transcript

    try:
        return transcript.history(path, p["call_id"])
    except OSError:
        return None


def _history(ev: Event, wait: float) -> str | None:
    from jevlin_hooks.capture import transcript

    path = ev.get("agent_transcript_path") if ev.get("agent_id") else ev.get("transcript_path")
    call = ev.get("tool_use_id")
    if not path or not call:
        return None
    deadline = time.monotonic() + wait
    poll = transcript.HistoryPoll(path, call)  # after the first look, each poll reads only what was appended
    while True:
        try:
            found = poll.poll()
        except OSError:
            found = None
        if found is not None or time.monotonic() >= deadline:
            if poll.info.get("model") and not ev.get("model"):
                ev["model"] = poll.info["model"]  # the model that made this call, for host_meta
            return found
        time.sleep(POLL)


def _summary(ev: Event, wait: float) -> dict[str, Any] | None:
    from jevlin_hooks.capture import transcript

    path = ev.get("transcript_path")
    if not path:
        return None
    deadline = time.monotonic() + wait
    want = ev.get("last_message")
    while True:
        try:
            s = transcript.turn_summary(path, ev.get("turn_id"))
        except OSError:
            s = None
        done = s is not None and (not want or s.get("last_text") == want)
        if done or time.monotonic() >= deadline:
            return s
        time.sleep(POLL)


def read_payload(invoked_as: str, argv: list[str]) -> bytes | None:
    return None  # the payload is on stdin


def neutral_answer() -> list[str]:
    return []  # for input we cannot read: print nothing
