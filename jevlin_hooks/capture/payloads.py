"""What Claude Code and Codex hook payloads share: Codex adopted Claude Code's hook shape
(``hook_event_name``, ``session_id``, ``tool_name``/``tool_input``/``tool_use_id``,
``last_assistant_message``), so one reader serves both; each harness module names its own
events, its turn id field and how a tool response reads as a status."""

from __future__ import annotations

from jevlin_hooks.capture import searchmatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from jevlin_hooks.capture.shapes import Config, Event


def text(d: dict[str, Any], key: str) -> str | None:
    v = d.get(key)
    return v if isinstance(v, str) and v else None


def keep_result(ev: Event, response: Any, cfg: Config) -> None:
    """A short summary of what the search returned, for the local store (capture/results.py)."""
    if cfg.get("privacy", {}).get("local_results", True):
        from jevlin_hooks.capture import results

        ev["result"] = results.summary(response)


def event(payload: dict[str, Any], kind: str, now: float, session_id: str, turn_key: str,
          cfg: Config, status_of: Callable[[Any], str]) -> Event:
    agent_type = payload.get("agent_type")
    ev: Event = {
        "kind": kind,
        "now": now,
        "session_id": session_id,
        "turn_id": text(payload, turn_key),
        "agent_id": text(payload, "agent_id"),
        "agent_type": agent_type if isinstance(agent_type, str) else None,
        "cwd": text(payload, "cwd"),
        "transcript_path": text(payload, "transcript_path"),
        "model": text(payload, "model"),
    }
    if kind == "session_start":
        ev["source"] = text(payload, "source") or "startup"
    elif kind == "prompt":
        prompt = payload.get("prompt")
        ev["prompt"] = prompt if isinstance(prompt, str) else ""
    elif kind in ("pre_tool", "post_tool", "tool_failed"):
        tool = text(payload, "tool_name") or ""
        tool_input = payload.get("tool_input")
        ev["tool_name"] = tool
        ev["tool_use_id"] = text(payload, "tool_use_id")
        ev["search"] = searchmatch.classify(tool, tool_input, cfg.get("search", {}))
        if ev["search"] is not None and tool in searchmatch.SHELL_TOOLS:
            ev["command"] = searchmatch.shell_command(tool_input)
        dur = payload.get("duration_ms")
        ev["duration_ms"] = dur if isinstance(dur, int) and not isinstance(dur, bool) else None
        if kind == "post_tool":
            ev["status"] = status_of(payload.get("tool_response"))
            if ev["search"] is not None:
                keep_result(ev, payload.get("tool_response"), cfg)
        elif kind == "tool_failed":
            ev["status"] = "interrupted" if payload.get("is_interrupt") is True else "error"
    elif kind in ("stop", "stop_failure", "subagent_stop"):
        msg = payload.get("last_assistant_message")
        ev["last_message"] = msg if isinstance(msg, str) else None
        if kind == "stop_failure":
            ev["error"] = text(payload, "error") or "error"
    return ev
