"""Pi (``@mariozechner/pi-coding-agent``) extension events -> normalized events.

Pi has no hook commands: our extension (``jevlin_hooks/pi_extension.js``, installed into
``~/.pi/agent/extensions/``) forwards its events, in the order it receives them, as JSON lines to
one resident ``entry.py pi --stream`` process (hook.serve). Each line is the event as Pi
delivered it, cut down to what is read here, with what the handler's ``ctx`` said:

    {"event": {"type": ..., ...}, "ctx": {"sessionId", "sessionFile", "cwd", "header", "model"},
     "jv": {"prompt": true (the first user message of an agent run), "parent": <parent session>,
            "ack": n (answer "n" once applied: the step before a search's process starts)}}

Facts (Pi 0.73.1, shared/reference/pi/FACTS.md): thread = ``ctx.sessionManager.getSessionId()``,
the ``id`` in the first line of the session file; resume (``pi -c``) keeps it and still says
``reason: "startup"``; fork/clone start a new id whose header names the parent file. Turn = one
agent run (agent_start..agent_end); Pi numbers none, so its id is derived from the session and
the prompt's timestamp. ``tool_call``/``tool_result`` carry the call; an unknown tool or invalid
arguments give only ``tool_execution_end``. Compaction: ``session_compact`` with the new
``compactionEntry`` (the only event that counts: ``session_before_compact`` can fire twice for
one compaction, or be cancelled). On session start the session file is read back (compaction
entries, search calls), so a resumed session keeps its window and seq even when our own
lineage was lost, and a compaction whose event never reached us still counts.
"""

from __future__ import annotations

import os

from jevlin_hooks.capture import payloads, searchmatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

    from jevlin_hooks.capture.shapes import Config, Event, Pending

NAME = "pi"
ENV_SESSION = "JEVLIN_PI_SESSION_ID"
SESSION_FILE_LIMIT = 256 << 20  # read back at most this much of a session file
HEADER_LIMIT = 64 << 10
STREAM_END = "jevlin_stream_end"  # our own: Pi's stream ended without this session's shutdown


def _d(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _s(d: Any, key: str) -> str | None:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, str) and v else None


def _texts(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(b["text"] for b in content
                     if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))


def _status(is_error: Any, content: Any) -> str:
    if is_error is True:
        return "error"
    text = _texts({"content": content})
    return "ok" if text.strip() else "empty"


def turn_id(session_id: str, user_message: Any) -> str | None:
    ts = user_message.get("timestamp") if isinstance(user_message, dict) else None
    if isinstance(ts, (int, float)) and not isinstance(ts, bool):
        return f"{session_id}:{int(ts)}"
    return None


def _summary(messages: Any) -> dict[str, Any]:
    """Tokens, model and last text of one agent run, from its assistant messages."""
    tokens = {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0}
    model = None
    last = None
    for m in messages if isinstance(messages, list) else []:
        if not isinstance(m, dict) or m.get("role") != "assistant":
            continue
        usage = _d(m.get("usage"))
        for ours, theirs in (("input", "input"), ("output", "output"), ("cache_read", "cacheRead"),
                             ("cache_creation", "cacheWrite")):
            v = usage.get(theirs)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                tokens[ours] += v
        model = _s(m, "model") or model
        text = _texts(m)
        if text:
            last = text
    return {"tokens": tokens, "model": model, "last_text": last}


def normalize(payload: Any, cfg: Config, now: float) -> Event | None:
    if not isinstance(payload, dict):
        return None
    event = _d(payload.get("event"))
    ctx = _d(payload.get("ctx"))
    jv = _d(payload.get("jv"))
    sid = _s(ctx, "sessionId")
    etype = _s(event, "type")
    if sid is None or etype is None:
        return None
    model = ctx.get("model")
    ev: Event = {
        "kind": "other",
        "now": now,
        "session_id": sid,
        "turn_id": None,
        "agent_id": None,
        "cwd": _s(ctx, "cwd"),
        "model": _s(model, "id"),
        "pi_session_file": _s(ctx, "sessionFile"),
    }
    if etype == "session_start":
        ev["kind"] = "session_start"
        ev["source"] = _s(event, "reason") or "startup"
        header = _d(ctx.get("header"))
        parent_file = _s(header, "parentSession")
        if parent_file is None and ev["source"] == "fork":
            parent_file = _s(event, "previousSessionFile")  # /fork at the first message names none
        ev["pi_parent_file"] = parent_file
        ev["parent_session_id"] = _s(jv, "parent")
        size = jv.get("fileSize")
        # what the file held when the session started; the file is read later, when Pi may have
        # appended this run's own entries
        ev["pi_file_size"] = size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else 0
        return ev
    if etype == "message_end":
        message = _d(event.get("message"))
        role = message.get("role")
        if role == "user" and jv.get("prompt") is True:
            ev["kind"] = "prompt"
            ev["turn_id"] = turn_id(sid, message)
            ev["prompt"] = _texts(message)
            return ev
        if role == "assistant":
            ev["kind"] = "agent_text"
            ev["text"] = _texts(message)
            ev["model"] = _s(message, "model") or ev["model"]
            return ev
        return None
    if etype in ("tool_call", "tool_result", "tool_execution_end"):
        tool = _s(event, "toolName") or ""
        tool_input = event.get("input") if etype != "tool_execution_end" else event.get("args")
        ev["kind"] = "pre_tool" if etype == "tool_call" else "post_tool"
        ev["tool_name"] = tool
        ev["tool_use_id"] = _s(event, "toolCallId")
        ev["search"] = searchmatch.classify(tool, tool_input, cfg.get("search", {}))
        if ev["search"] is not None and tool in searchmatch.SHELL_TOOLS:
            ev["command"] = searchmatch.shell_command(tool_input)
        if etype == "tool_result":
            ev["status"] = _status(event.get("isError"), event.get("content"))
            if ev["search"] is not None:
                payloads.keep_result(ev, event.get("content"), cfg)
        elif etype == "tool_execution_end":
            result = _d(event.get("result"))
            ev["status"] = _status(event.get("isError"), result.get("content"))
            if ev["search"] is not None:
                payloads.keep_result(ev, result.get("content"), cfg)
        return ev
    if etype == "agent_end":
        messages = event.get("messages")
        first_user = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), None) \
            if isinstance(messages, list) else None
        ev["turn_id"] = turn_id(sid, first_user)
        summary = _summary(messages)
        ev["summary"] = summary
        ev["last_message"] = summary["last_text"]
        ev["model"] = summary["model"] or ev["model"]
        last = next((m for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "assistant"), None) \
            if isinstance(messages, list) else None
        reason = _s(last, "stopReason")
        ev["kind"] = {"error": "stop_failure", "aborted": "interrupt"}.get(reason or "", "stop")
        if ev["kind"] == "stop_failure":
            ev["error"] = "error"
        return ev
    if etype == "session_compact":
        entry = event.get("compactionEntry")
        ev["kind"] = "compacted"
        ev["compaction_id"] = _s(entry, "id")
        return ev
    if etype == "session_shutdown":
        ev["kind"] = "session_end"
        return ev
    if etype == STREAM_END:
        ev["kind"] = "session_end"
        ev["outcome"] = "abandoned"
        return ev
    return None


def closing_payload(last: dict[str, Any]) -> dict[str, Any] | None:
    """What to apply when Pi's stream ends (Pi exited) and this session never shut down: Pi
    was killed (SIGINT skips session_shutdown), so what is still open was abandoned."""
    ctx = _d(last.get("ctx"))
    if _s(ctx, "sessionId") is None:
        return None
    return {"event": {"type": STREAM_END}, "ctx": {"sessionId": ctx["sessionId"]}}


def answer(payload: Any) -> list[str]:
    return []  # acks are written by the stream loop, not per event


def route(ev: Event, home: str) -> None:
    pass  # a child pi is a session of its own; its parent comes with session_start


def enrich(ev: Event, cfg: Config) -> None:
    """On session start: what Pi's own session file says (window, seq, where it was forked from)."""
    if ev["kind"] != "session_start":
        return
    path = ev.get("pi_session_file")
    size = ev.get("pi_file_size")
    if path and size:
        own = read_back(path, cfg, _entry_ids(ev.get("pi_parent_file")), size)
        if own is not None:
            ev["resume"] = own
    parent_file = ev.get("pi_parent_file")
    if parent_file:
        header = read_header(parent_file)
        parent = _s(header, "id")
        if parent and parent != ev["session_id"]:
            ev["forked_from"] = parent


def read_header(path: str) -> dict[str, Any] | None:
    from jevlin_hooks.base import fastjson
    from jevlin_hooks.capture.transcript import open_regular

    try:
        with os.fdopen(open_regular(path), "rb") as f:  # regular files only: a FIFO never blocks us
            line = f.readline(HEADER_LIMIT)
        value = fastjson.loads(line)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) and value.get("type") == "session" else None


def _entries(path: str, size: int = SESSION_FILE_LIMIT) -> Iterator[dict[str, Any]]:
    """The entries in the first ``size`` bytes of a session file (whole lines only)."""
    from jevlin_hooks.base import fastjson
    from jevlin_hooks.capture.transcript import open_regular

    with os.fdopen(open_regular(path), "rb") as f:  # regular files only: a FIFO never blocks us
        read = 0
        for line in f:
            read += len(line)
            if read > min(size, SESSION_FILE_LIMIT):
                return
            try:
                entry = fastjson.loads(line)
            except ValueError:
                continue  # a line Pi was writing when we read
            if isinstance(entry, dict):
                yield entry


def _entry_ids(path: str | None) -> set[str]:
    """Entry ids of a fork's parent file: a fork copies them (same ids); they are not its own."""
    if not path:
        return set()
    try:
        return {e["id"] for e in _entries(path) if isinstance(e.get("id"), str)}
    except OSError:
        return set()


def read_back(path: str, cfg: dict[str, Any], inherited: set[str], size: int) -> dict[str, Any] | None:
    """Compactions and search calls in the first ``size`` bytes of this session's file (entries a
    fork copied excluded)."""
    compactions: list[str] = []
    seq = 0
    search_cfg = cfg.get("search", {})
    try:
        for e in _entries(path, size):
            if e.get("id") in inherited:
                continue
            if e.get("type") == "compaction" and isinstance(e.get("id"), str):
                compactions.append(e["id"])
            message = e.get("message") if e.get("type") == "message" else None
            if isinstance(message, dict) and message.get("role") == "assistant" \
                    and isinstance(message.get("content"), list):
                for b in message["content"]:
                    if isinstance(b, dict) and b.get("type") == "toolCall" and isinstance(b.get("name"), str) \
                            and searchmatch.classify(b["name"], b.get("arguments"), search_cfg) is not None:
                        seq += 1
    except OSError:
        return None
    return {"compactions": compactions, "seq": seq}


def history_for(p: Pending) -> str | None:
    """A call closed later (interrupted, abandoned): the text snapshotted when it started."""
    h = p.get("history")
    return h if isinstance(h, str) else None


def from_env(env: Mapping[str, str]) -> tuple[str, str | None, str | None] | None:
    """Our extension exports the session id into Pi's environment; every tool shell inherits it."""
    sid = env.get(ENV_SESSION)
    return (sid, None, None) if sid else None


def read_payload(invoked_as: str, argv: list[str]) -> bytes | None:
    return None  # one payload on stdin (the extension itself streams: hook.serve)


def neutral_answer() -> list[str]:
    return []
