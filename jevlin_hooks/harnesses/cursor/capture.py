"""Cursor hook payloads -> normalized events, and the answer each event expects on stdout.

Cursor cannot run here: this follows its documented fields (shared/reference/README.md).
Thread = ``conversation_id`` (one lineage file per conversation), turn = ``generation_id``.
A search may be described by several events (preToolUse + beforeShellExecution, or
preToolUse + beforeMCPExecution, and their after* twins): each carries a ``call_key`` built
from what the events share (the command, or the MCP tool and its input), and the engine
counts a call once whichever of them arrive. History comes from afterAgentResponse (and an
``agent_message`` field where one is present).
"""

from __future__ import annotations

from jevlin_hooks.capture import searchmatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from jevlin_hooks.capture.shapes import Config, Event, Pending

NAME = "cursor"

_KINDS = {
    "sessionStart": "session_start",
    "sessionEnd": "session_end",
    "beforeSubmitPrompt": "prompt",
    "preToolUse": "pre_tool",
    "postToolUse": "post_tool",
    "postToolUseFailure": "tool_failed",
    "beforeShellExecution": "pre_tool",
    "afterShellExecution": "post_tool",
    "beforeMCPExecution": "pre_tool",
    "afterMCPExecution": "post_tool",
    "afterAgentResponse": "agent_text",
    "afterAgentThought": "other",
    "preCompact": "pre_compact",
    "subagentStart": "subagent_start",
    "subagentStop": "subagent_stop",
    "stop": "stop",
}
_ALLOW = ('{"permission":"allow"}',)
_ANSWERS = {
    "beforeShellExecution": _ALLOW,
    "beforeMCPExecution": _ALLOW,
    "preToolUse": _ALLOW,
    "beforeReadFile": _ALLOW,
    "beforeSubmitPrompt": ('{"continue":true}',),
}


def answer(payload: Any) -> list[str]:
    """The neutral answer: allow, continue, or ``{}``. Never a followup_message."""
    name = payload.get("hook_event_name") if isinstance(payload, dict) else None
    return list(_ANSWERS.get(name, ("{}",)))  # type: ignore[arg-type]


def _s(d: dict[str, Any], key: str) -> str | None:
    v = d.get(key)
    return v if isinstance(v, str) and v else None


def _mcp_name(tool: str) -> str:
    return tool if tool.startswith("MCP:") else f"MCP:{tool}"


def _tool_call(ev: Event, name: str, payload: dict[str, Any], cfg: Config) -> None:
    """Tool name, query, command and call key of a tool event, whichever event shape it is."""
    search_cfg = cfg.get("search", {})
    tool = _s(payload, "tool_name") or ""
    tool_input = payload.get("tool_input")
    if name in ("beforeShellExecution", "afterShellExecution"):
        _shell_call(ev, _s(payload, "command") or "", search_cfg)
    elif name in ("beforeMCPExecution", "afterMCPExecution") or tool.startswith("MCP:"):
        tool = _mcp_name(tool)
        ev["tool_name"] = tool
        ev["call_key"] = f"mcp:{tool}:{_canon(tool_input)}"
        ev["search"] = _classify_mcp(tool, tool_input, search_cfg)
    elif tool in ("Shell", "shell", "run_terminal_cmd"):
        _shell_call(ev, searchmatch.shell_command(tool_input), search_cfg)
    else:
        ev["tool_name"] = tool
        ev["call_key"] = None
        ev["search"] = searchmatch.classify(tool, tool_input, search_cfg)


def _shell_call(ev: Event, command: str, search_cfg: dict[str, Any]) -> None:
    ev["tool_name"] = "Shell"
    ev["command"] = command
    ev["call_key"] = f"shell:{command}"
    ev["search"] = searchmatch.match_shell(command, search_cfg.get("shell_commands", []))


def _classify_mcp(tool: str, tool_input: Any, search_cfg: dict[str, Any]) -> str | None:
    bare = tool[4:]
    for pattern in search_cfg.get("tools", ()):
        if searchmatch.glob(pattern, tool) or searchmatch.glob(pattern, bare):
            return searchmatch.tool_query(tool_input)
    return None


def _canon(value: Any) -> str:
    """The same tool input, whether an event sent it as JSON text or as an object."""
    from jevlin_hooks.base import fastjson

    if isinstance(value, str):
        text = value
        try:
            value = fastjson.loads(text)
        except ValueError:
            return text
    try:
        return fastjson.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return ""


def normalize(payload: Any, cfg: Config, now: float) -> Event | None:
    if not isinstance(payload, dict):
        return None
    name = _s(payload, "hook_event_name") or ""
    kind = _KINDS.get(name)
    conv = _s(payload, "conversation_id") or (_s(payload, "session_id") if name == "sessionStart" else None)
    if kind is None or conv is None or kind == "other":
        return None
    roots = payload.get("workspace_roots")
    ev: Event = {
        "kind": kind,
        "now": now,
        "session_id": conv,
        "turn_id": _s(payload, "generation_id"),
        "agent_id": None,
        "parent_conversation_id": _s(payload, "parent_conversation_id"),
        "cwd": roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None,
        "transcript_path": _s(payload, "transcript_path"),
        "model": _s(payload, "model"),
    }
    if kind == "session_start":
        ev["source"] = "startup"
    elif kind == "prompt":
        prompt = payload.get("prompt")
        ev["prompt"] = prompt if isinstance(prompt, str) else ""
    elif kind in ("pre_tool", "post_tool", "tool_failed"):
        _tool_call(ev, name, payload, cfg)
        ev["tool_use_id"] = _s(payload, "tool_use_id")
        dur = payload.get("duration")
        if isinstance(dur, (int, float)) and not isinstance(dur, bool) and dur >= 0:
            ev["duration_ms"] = int(dur)
        if kind == "tool_failed":
            ev["status"] = "error"
        elif kind == "post_tool":
            out = payload.get("output", payload.get("tool_output", payload.get("result_json")))
            ev["status"] = "empty" if isinstance(out, str) and not out.strip() else "ok"
            if ev.get("search") is not None:
                from jevlin_hooks.capture import payloads

                payloads.keep_result(ev, out, cfg)
    elif kind == "agent_text":
        text = payload.get("text")
        ev["text"] = text if isinstance(text, str) else ""
    elif kind == "subagent_start":
        ev["agent_id"] = _s(payload, "subagent_id")
        ev["agent_type"] = _s(payload, "subagent_type")
        ev["parent_call"] = _s(payload, "tool_call_id")
    elif kind == "subagent_stop":
        ev["agent_id"] = _s(payload, "subagent_id")
    elif kind == "stop":
        status = _s(payload, "status") or "completed"
        ev["status"] = status
        ev["last_message"] = None
    if kind in ("pre_tool", "post_tool") and isinstance(payload.get("agent_message"), str):
        ev["agent_message"] = payload["agent_message"]
    return ev


def route(ev: Event, home: str) -> None:
    """A subagent is a conversation of its own, known from subagentStart or from its
    parent_conversation_id: its events go to the root conversation's lineage."""
    from jevlin_hooks.capture import lineage

    child = ev.get("agent_id")
    if ev["kind"] == "subagent_start" and child:
        lineage.write_index(home, "cursor-child", lineage.workspace_key(child), {"root": ev["session_id"]})
        return
    root = ev.get("parent_conversation_id")
    if not root:
        idx = lineage.read_index(home, "cursor-child", lineage.workspace_key(ev["session_id"]))
        root = idx.get("root") if idx and isinstance(idx.get("root"), str) else None
    if root and root != ev["session_id"]:
        ev["agent_id"] = ev["session_id"]
        ev["session_id"] = root
        if ev["kind"] in ("session_start", "session_end", "stop"):
            ev["kind"] = {"session_start": "subagent_start", "session_end": "subagent_stop",
                          "stop": "subagent_stop"}[ev["kind"]]


def enrich(ev: Event, cfg: Config) -> None:
    pass  # history arrives as events (afterAgentResponse, agent_message)


def history_for(p: Pending) -> str | None:
    return None


def from_env(env: Mapping[str, str]) -> tuple[str, str | None, str | None] | None:
    return None  # Cursor's shell does not name the conversation: the pending call does


def neutral_answer() -> list[str]:
    """For input we cannot read: what is neutral for every Cursor event. before* hooks read
    "permission", beforeSubmitPrompt "continue"; the rest ignore both."""
    return ['{"permission":"allow","continue":true}']


def read_payload(invoked_as: str, argv: list[str]) -> bytes | None:
    return None  # the payload is on stdin
