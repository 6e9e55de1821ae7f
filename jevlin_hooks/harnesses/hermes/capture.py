"""Hermes Agent shell-hook payloads -> normalized events.

Facts (hermes-agent 0.19.0, shared/reference/hermes/FACTS.md): every payload is
``{hook_event_name, tool_name, tool_input, session_id, cwd, extra}``; the turn-scoped events carry
``extra.turn_id`` = ``<session id at turn start>:<task id>:<hex>``, stable for the whole turn.
Event names mislead, so they are mapped by what they do: ``pre_llm_call`` starts a user turn,
``on_session_end`` ends every turn (the Stop equivalent), ``on_session_finalize`` is process exit
(``hermes -z`` skips it). ``post_api_request`` fires after each model call and before its tools
run: its ``extra.response.assistant_message.content`` is the history of the searches that follow.

Ids: thread = the session id; a compression with ``in_place: false`` rotates the session id
mid-turn while the turn id keeps the old prefix, so a session id that differs from its turn id's
prefix is the same thread in a new window (an ``alias`` index maps it to the thread's lineage).
In-place compression (the default) keeps the id; its only trace in our events is the next
request holding fewer messages than the last one grew to (``context_size``). A subagent
(``delegate_task``) is a session of its own whose events name no parent: ``subagent_start``
(sent with the parent's session id) links it, and its lineage carries the parent and the
delegate_task call.
"""

from __future__ import annotations

from jevlin_hooks.capture import payloads, searchmatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from jevlin_hooks.capture.shapes import Config, Event, Pending, Record, State

NAME = "hermes"
SHELL_TOOL = "terminal"
SPAWN_TOOLS = ("delegate_task",)

_KINDS = {
    "on_session_start": "session_start",
    "pre_llm_call": "prompt",
    "post_api_request": "agent_text",
    "api_request_error": "stop_failure",
    "pre_tool_call": "pre_tool",
    "post_tool_call": "post_tool",
    "subagent_start": "subagent_start",
    "subagent_stop": "subagent_stop",
    "on_session_end": "stop",
    "on_session_finalize": "session_end",
}
# post_api_request's usage keys -> ours
_USAGE = (("input_tokens", "input"), ("output_tokens", "output"), ("cache_read_tokens", "cache_read"),
          ("cache_write_tokens", "cache_creation"))
# post_tool_call's own status -> a record status
_STATUS = {"ok": "ok", "error": "error", "blocked": "blocked", "cancelled": "interrupted"}


def _s(d: Any, key: str) -> str | None:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, str) and v else None


def _int(d: Any, key: str) -> int | None:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def turn_session(turn_id: str | None) -> str | None:
    """The session id a turn started in (the turn id's first field)."""
    if not turn_id or ":" not in turn_id:
        return None
    return turn_id.split(":", 1)[0] or None


def normalize(payload: Any, cfg: Config, now: float) -> Event | None:
    if not isinstance(payload, dict):
        return None
    name = _s(payload, "hook_event_name") or ""
    kind = _KINDS.get(name)
    sid = _s(payload, "session_id")
    if kind is None or sid is None:
        return None
    extra = payload.get("extra")
    if not isinstance(extra, dict):
        extra = {}
    turn_id = _s(extra, "turn_id") or _s(extra, "parent_turn_id")
    ev: Event = {
        "kind": kind,
        "now": now,
        "session_id": sid,
        "raw_session_id": sid,
        "turn_id": turn_id,
        "agent_id": None,
        "cwd": _s(payload, "cwd"),
        "model": _s(extra, "model") or _s(extra, "response_model"),
        "platform": _s(extra, "platform"),
        "spawn_tools": SPAWN_TOOLS,
    }
    if kind == "session_start":
        ev["source"] = "startup"
    elif kind == "prompt":
        msg = extra.get("user_message")
        ev["prompt"] = msg if isinstance(msg, str) else ""
        # --resume / --continue send no on_session_start: the first turn of this process says so
        ev["resumed"] = extra.get("is_first_turn") is False
    elif kind == "agent_text":
        resp = extra.get("response")
        am = resp.get("assistant_message") if isinstance(resp, dict) else None
        text = am.get("content") if isinstance(am, dict) else None
        ev["text"] = text if isinstance(text, str) else ""
        size, calls = _int(extra, "message_count"), _int(extra, "assistant_tool_call_count")
        usage = extra.get("usage")
        if isinstance(usage, dict):
            ev["usage"] = {ours: v for theirs, ours in _USAGE if isinstance(v := usage.get(theirs), int)
                           and not isinstance(v, bool)}
        if size is not None:
            # the next request of this turn holds at least this one, the assistant message and
            # one result per tool call; fewer means Hermes compacted in between
            ev["context_size"] = size
            ev["context_grow_to"] = size + 1 + (calls or 0)
    elif kind == "stop_failure":
        retries, most = _int(extra, "retry_count"), _int(extra, "max_retries")
        if extra.get("retryable") is True and retries is not None and most is not None and retries < most:
            return None  # Hermes retries: the turn goes on
        err = extra.get("error")
        ev["error"] = (_s(err, "type") if isinstance(err, dict) else None) or _s(extra, "reason") or "error"
        ev["last_message"] = None
    elif kind in ("pre_tool", "post_tool"):
        tool = _s(payload, "tool_name") or ""
        tool_input = payload.get("tool_input")
        ev["tool_name"] = tool
        ev["tool_use_id"] = _s(extra, "tool_call_id")
        search_cfg = cfg.get("search", {})
        if tool == SHELL_TOOL:
            command = searchmatch.shell_command(tool_input)
            ev["command"] = command
            ev["search"] = searchmatch.match_shell(command, search_cfg.get("shell_commands", []))
        else:
            ev["search"] = searchmatch.classify(tool, tool_input, search_cfg)
        if kind == "post_tool":
            dur = _int(extra, "duration_ms")
            ev["duration_ms"] = dur if dur is not None and dur >= 0 else None
            result = _result(extra)  # parsed once: the status and the summary both read it
            ev["status"] = _post_status(extra, result)
            if ev["search"] is not None:
                payloads.keep_result(ev, result, cfg)
    elif kind in ("subagent_start", "subagent_stop"):
        ev["agent_id"] = _s(extra, "child_session_id")
        ev["agent_type"] = _s(extra, "child_role")
        if ev["agent_id"] is None:
            return None
    elif kind == "stop":
        if extra.get("interrupted") is True:
            ev["kind"] = "interrupt"
        ev["last_message"] = None  # the final text came with the last post_api_request
    return ev


def _result(extra: dict[str, Any]) -> Any:
    """The tool's result: Hermes passes the terminal's as a JSON string ({"output": ...})."""
    result = extra.get("result")
    if isinstance(result, str) and result.startswith("{"):
        from jevlin_hooks.base import fastjson

        try:
            return fastjson.loads(result)
        except ValueError:
            return result
    return result


def _post_status(extra: dict[str, Any], result: Any) -> str:
    """``result`` is ``_result(extra)``: a terminal's JSON string already parsed."""
    status = _STATUS.get(_s(extra, "status") or "ok", "error")
    if status != "ok":
        return status
    if isinstance(result, dict):
        # a command exiting non-zero is still status "ok" to Hermes; its exit code says otherwise
        code = result.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return "error"
        out = result.get("output")
        if isinstance(out, str) and not out.strip() and not result.get("error"):
            return "empty"
    return status


def answer(payload: Any) -> list[str]:
    return []  # Hermes parses stdout for decisions: an observer prints nothing


def neutral_answer() -> list[str]:
    return []


def read_payload(invoked_as: str, argv: list[str]) -> bytes | None:
    return None  # the payload is on stdin


def _alias_key(sid: str) -> str:
    from jevlin_hooks.capture import lineage

    return lineage.workspace_key(f"{NAME}:{sid}")


def thread_of(home: str, sid: str) -> str:
    """The thread a session id belongs to: itself, or the thread it rotated away from."""
    from jevlin_hooks.capture import lineage

    idx = lineage.read_index(home, "alias", _alias_key(sid))
    root = idx.get("root") if idx else None
    return root if isinstance(root, str) and root else sid


def route(ev: Event, home: str) -> None:
    """Map a rotated session id onto its thread, and link a subagent's session to its parent."""
    from jevlin_hooks.capture import lineage

    sid = ev["session_id"]
    thread = thread_of(home, sid)
    started_in = turn_session(ev.get("turn_id"))
    if started_in and started_in != sid and ev["kind"] not in ("subagent_start", "subagent_stop"):
        # the session id rotated inside this turn (compression.in_place: false)
        prior = thread_of(home, started_in)
        if prior != thread:
            lineage.write_index(home, "alias", _alias_key(sid),
                                {"root": prior, "lineage": lineage.file_name(NAME, prior)})
            thread = prior
    ev["session_id"] = thread
    ev["window_id"] = sid
    child = ev.get("agent_id")
    if ev["kind"] == "subagent_start" and child:
        parent = lineage.read(home, lineage.file_name(NAME, thread))
        lineage.write_index(home, "hermes-child", _alias_key(child),
                            {"parent": thread, "call": parent.get("last_agent_call") if parent else None,
                             "turn": ev.get("turn_id")})
        ev["window_id"] = None  # sent with the parent's id: says nothing about its window
    elif ev["kind"] == "subagent_stop":
        ev["window_id"] = None
        if child:
            _end_child(home, child, ev["now"])
    elif ev.get("platform") == "subagent" or ev["kind"] in ("prompt", "session_start"):
        link = lineage.read_index(home, "hermes-child", _alias_key(thread))
        if link and isinstance(link.get("parent"), str):
            ev["parent_session_id"] = link["parent"]
            ev["parent_call_id"] = link.get("call") if isinstance(link.get("call"), str) else None
            ev["parent_turn_id"] = link.get("turn") if isinstance(link.get("turn"), str) else None
            ev["in_parent_process"] = True


def _end_child(home: str, child: str, now: float) -> None:
    """The child's own lineage ends with its run: Hermes sends it no on_session_finalize (the
    process goes on), so the parent's subagent_stop closes it (what is still open: interrupted)."""
    from jevlin_hooks.base import config
    from jevlin_hooks.capture import engine, lineage

    try:
        cfg = config.load(home)
    except (config.ConfigError, OSError):
        cfg = config.defaults()
    end: Event = {"kind": "session_end", "now": now, "session_id": child}

    def transition(state: State | None) -> tuple[State | None, list[Record]]:
        if state is None or state.get("status") == "ended":
            return state, []
        return engine.apply(NAME, state, end, cfg)

    lineage.update(home, NAME, child, transition)


def enrich(ev: Event, cfg: Config) -> None:
    pass  # history arrives as events (post_api_request)


def history_for(p: Pending) -> str | None:
    return None  # the history was snapshotted when the call started


def from_env(env: Mapping[str, str]) -> tuple[str, str | None, str | None] | None:
    """Only a hint: Hermes's tool shell keeps the old id after a rotation and the child's id
    after a subagent started. context.py resolves rotations through the alias index and checks
    the parent thread's pending calls by command text."""
    sid = env.get("HERMES_SESSION_ID")
    return (sid, None, None) if sid else None
