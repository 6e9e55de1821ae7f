"""GitHub Copilot CLI hook payloads -> normalized events.

Facts this relies on (Copilot CLI 1.0.102, shared/reference/copilot-cli/FACTS.md, and the
end-to-end tests on the real program):

- We install Copilot's native hook format (``"version": 1``, camelCase event names). Its payloads
  name no event: the installed command passes the event as its one argument, and
  ``read_payload`` writes it into the payload as ``hook_event_name`` (the captures under
  ``data/events/`` are stored as the hook reads them, with that key).
- ``sessionId`` is the thread; ``--resume`` and ``--continue`` keep it. No payload carries a turn id
  or a tool-call id: the engine makes each turn's id at the prompt, and a call gets an id of ours
  at its preToolUse. postToolUse / postToolUseFailure name no call: each closes the oldest open
  call of the same thread with the same tool, command and query (``_pair``). Why that is the
  right one: Copilot runs one session's hooks one at a time, even for parallel tool calls (pre,
  pre, post, post); a call's end comes after its start in its own thread; and two open calls
  with the same tool and input differ in nothing we record but their ids, so which of them an
  end closes changes no record's content. A call whose start we never saw is recorded at its
  end, once.
- A subagent (the ``task`` tool): subagentStart / subagentStop come on the parent's ``sessionId``
  with ``agentId``; the subagent's own events have ``sessionId = agentId`` and ``parentAgentId``.
  Its events go to the root thread's lineage as that agent (``route``; a nested one through the
  ``copilot-agent`` index).
- The assistant text is only in Copilot's own session file,
  ``$COPILOT_HOME/session-state/<root session>/events.jsonl`` (subagents write to their root's),
  which Copilot writes lazily: about 90 ms after a hook starts, while it waits for the hook. So
  no hook waits for it. A search's history is read there once this very hook's own
  ``hook.start`` line is in the file (matched by its timestamp): everything before that line is
  then there too, and an older identical call is never taken for this one. At the search's
  postToolUse the line is usually not written yet: the event then carries ``history_later``, the
  engine holds the record (the call itself ends, with its status and duration), and
  ``complete`` reads the history at the session's next event, when Copilot has written it.
  sessionEnd, the last hook, waits for what is still held, briefly (``_settle``); the daemon's
  sweep queues what a killed Copilot left. The file written past the hook's time without that
  line means it will not come: no history. The turn's summary at agentStop (turn ends on) is
  read and held the same way.
"""

from __future__ import annotations

import os
import time

from jevlin_hooks.capture import payloads, searchmatch

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any

    from jevlin_hooks.capture.shapes import Config, Event, Held, Pending

NAME = "copilot-cli"
EVENT_KEY = "hook_event_name"
# Copilot writes its session file about 90 ms after a hook starts. No hook waits for it but
# sessionEnd, the session's last, and only when a record is still held for it (``_settle``): until
# it is written, or this long at most (a Copilot slowed down); then the daemon's sweep takes over.
SESSION_END_WAIT = 0.5
POLL = 0.02
HISTORY_LIMIT = 32 * 1024
# This hook's own hook.start line is among the file's last lines once written (Copilot waits for
# the hook, so little comes after it): looked for in this many bytes from the end, no further.
ANCHOR_SCAN = 1 << 20
SPAWN_TOOLS = ("task",)

# the events we install (install.py EVENTS), Copilot's native names
_KINDS = {
    "sessionStart": "session_start",
    "userPromptSubmitted": "prompt",
    "preToolUse": "pre_tool",
    "postToolUse": "post_tool",
    "postToolUseFailure": "tool_failed",
    "preCompact": "pre_compact",
    "subagentStart": "subagent_start",
    "subagentStop": "subagent_stop",
    "agentStop": "stop",
    "sessionEnd": "session_end",
}
_SOURCES = {"new": "startup", "startup": "startup", "resume": "resume"}
_EXIT = "completed with exit code "


def _s(d: dict[str, Any], key: str) -> str | None:
    v = d.get(key)
    return v if isinstance(v, str) and v else None


# --- reading the payload ---------------------------------------------------------------------

def read_payload(invoked_as: str, argv: list[str]) -> bytes | None:
    """stdin, with the event our command names (``entry.py copilot-cli preToolUse``) written into
    it; None (read stdin as it is) for a command without a known event."""
    event = argv[0] if argv else ""
    if event not in _KINDS:
        return None
    from jevlin_hooks.capture import hook

    return with_event(hook._read_stdin(), event)


def with_event(raw: bytes, event: str) -> bytes:
    """``raw`` (a JSON object) with ``hook_event_name`` first; anything else unchanged (normalize
    then refuses it). Spliced, not parsed and written again: a payload can be large, and the
    hook parses it once. A key of the payload's own comes later and wins."""
    body = raw.lstrip()
    if body[:1] != b"{":
        return raw
    rest = body[1:].lstrip()
    head = b'{"' + EVENT_KEY.encode() + b'":"' + event.encode() + b'"'
    return head + (rest if rest[:1] == b"}" else b"," + rest)


# --- payload -> event --------------------------------------------------------------------------

def normalize(payload: Any, cfg: Config, now: float) -> Event | None:
    if not isinstance(payload, dict):
        return None
    kind = _KINDS.get(_s(payload, EVENT_KEY) or "")
    sid = _s(payload, "sessionId")
    if kind is None or sid is None:
        return None
    agent = _s(payload, "agentId")
    ts = payload.get("timestamp")
    ev: Event = {
        "kind": kind,
        "now": now,
        "session_id": sid,
        "raw_session_id": sid,
        "turn_id": None,
        "agent_id": None,
        "agent_type": _s(payload, "agentType"),
        "cwd": _s(payload, "cwd"),
        "transcript_path": _s(payload, "transcriptPath"),
        "model": None,
        "hook_time": ts if isinstance(ts, int) and not isinstance(ts, bool) else None,
        "spawn_tools": SPAWN_TOOLS,
    }
    if agent and agent != sid:
        ev["agent_id"] = agent  # subagentStart / subagentStop, on the parent's session
    elif agent:
        # the subagent's own event: its session is its own id; the thread is its parent's
        # (route maps a parent that is itself a subagent to the root)
        ev["agent_id"] = agent
        ev["session_id"] = _s(payload, "parentAgentId") or sid
    if kind == "session_start":
        ev["source"] = _SOURCES.get(_s(payload, "source") or "", "startup")
    elif kind == "prompt":
        prompt = payload.get("prompt")
        ev["prompt"] = prompt if isinstance(prompt, str) else ""
        if ev["agent_id"]:
            # a subagent's prompt opens its own turn: the id its searches carry
            ev["turn_id"] = "turn-" + os.urandom(8).hex()
    elif kind in ("pre_tool", "post_tool", "tool_failed"):
        _tool(ev, payload, cfg)
    elif kind == "subagent_stop":
        response = payload.get("response")
        ev["last_message"] = response if isinstance(response, str) else None
    elif kind == "stop" and ev["agent_id"]:
        # a subagent's own agentStop ends one of its turns, not the subagent (subagentStop does,
        # and the root's turn is not this one): noted, nothing more
        ev["kind"] = "other"
    return ev


def _tool(ev: Event, payload: dict[str, Any], cfg: Config) -> None:
    tool = _s(payload, "toolName") or ""
    args = payload.get("toolArgs")
    ev["tool_name"] = tool
    ev["tool_use_id"] = None
    ev["search"] = searchmatch.classify(tool, args, cfg.get("search", {}))
    if ev["search"] is not None and tool in searchmatch.SHELL_TOOLS:
        ev["command"] = searchmatch.shell_command(args)
    if ev["kind"] == "pre_tool":
        if ev["search"] is not None or tool in SPAWN_TOOLS:
            # Copilot names no call: ours, random (two calls' payloads may be byte-identical)
            ev["tool_use_id"] = "copilot-" + os.urandom(12).hex()
    elif ev["kind"] == "tool_failed":
        ev["status"] = "error"
    else:
        result = payload.get("toolResult")
        text, status = _result(result)
        ev["status"] = status
        if ev["search"] is not None:
            payloads.keep_result(ev, text if text is not None else result, cfg)


def _result(result: Any) -> tuple[str | None, str]:
    """The tool's text without the shell's closing line, and the call's status: a shell command
    that exits non-zero is still ``resultType: "success"`` to Copilot; only its last line says."""
    if not isinstance(result, dict):
        return None, "ok"
    kind = result.get("resultType")
    text = result.get("textResultForLlm")
    if not isinstance(text, str):
        return None, "ok" if kind in (None, "success") else "error"
    body, code = _split_exit(text)
    if kind not in (None, "success") or (code is not None and code != 0):
        return body, "error"
    return body, "ok" if body.strip() else "empty"


def _split_exit(text: str) -> tuple[str, int | None]:
    """``...\\n<shellId: 0 completed with exit code 3>`` -> (``...``, 3); other text unchanged."""
    end = text.rstrip()
    start = end.rfind("<shellId:")
    if start < 0 or not end.endswith(">") or "\n" in end[start:]:
        return text, None
    marker = end[start + 1:-1]
    at = marker.find(_EXIT)
    digits = marker[at + len(_EXIT):] if at >= 0 else ""
    code = int(digits) if digits.isdigit() else None
    return end[:start].rstrip("\n"), code


def answer(payload: Any) -> list[str]:
    return []  # no output is Copilot's "go on" for every hook (a decision would be a JSON object)


def neutral_answer() -> list[str]:
    return []


# --- the thread a subagent's events belong to, and the call a post event closes -------------

AGENT_INDEX = "copilot-agent"


def route(ev: Event, home: str) -> None:
    """A subagent's events go to its root thread as that agent; a post event of a search gets
    the call it closes."""
    from jevlin_hooks.capture import lineage

    child = ev.get("agent_id")
    if child:
        # the parent named may itself be a subagent (nested): its root is in the index
        idx = lineage.read_index(home, AGENT_INDEX, lineage.workspace_key(ev["session_id"]))
        if idx and isinstance(idx.get("root"), str):
            ev["session_id"] = idx["root"]
        if ev["session_id"] == child:
            ev["agent_id"] = None  # no parent known: a thread of its own
        elif ev["kind"] == "subagent_start":
            lineage.write_index(home, AGENT_INDEX, lineage.workspace_key(child), {"root": ev["session_id"]})
    if ev["kind"] in ("post_tool", "tool_failed") and ev.get("search") is not None:
        _pair(ev, home)
    elif ev["kind"] == "pre_tool" and ev.get("search") is not None and ev.get("agent_id"):
        _index_shell(ev, home)
    elif ev["kind"] == "session_end":
        _settle(ev, home)


def _index_shell(ev: Event, home: str) -> None:
    """A subagent's shell names it by an id of Copilot's own (``COPILOT_AGENT_SESSION_ID``) that no
    hook payload carries; Copilot's session file does, as ``accounting.sourceSessionId`` of the
    subagent's model calls (seen equal on every real run). At each of the subagent's searches
    until it is found, that id is read there (never waited for) and indexed as an alias of the
    root thread, so the search's `context` finds its thread from its environment. At the first
    search Copilot has often not written the line yet: that search's `context` finds the same
    thread and call through the process ancestry (the copilot process runs both the hooks and
    the shell), and the next one through the alias."""
    from jevlin_hooks.capture import lineage

    child = ev.get("agent_id") or ""
    key = lineage.workspace_key(child)
    idx = lineage.read_index(home, AGENT_INDEX, key) or {}
    if idx.get("shell"):
        return
    path = ev.get("transcript_path") or events_path(ev["session_id"])
    ts = ev.get("hook_time")
    shell = _read_once(path, lambda: _shell_id(path, child, ts), None)
    if not isinstance(shell, str) or not shell or shell == child:
        return
    lineage.write_index(home, "alias", lineage.workspace_key(f"{NAME}:{shell}"),
                        {"lineage": lineage.file_name(NAME, ev["session_id"])})
    lineage.write_index(home, AGENT_INDEX, key, {**idx, "root": ev["session_id"], "shell": shell})


def _shell_id(path: str, agent: str, ts: int | None) -> str | None:
    """The newest ``accounting.sourceSessionId`` of ``agent``'s model calls, among the file's
    newest lines; "" when the file goes on past ``ts`` (ms) without one, None: not written yet."""
    from jevlin_hooks.capture import transcript

    needle = agent.encode()
    where: dict[str, int] = {}
    written: float | None = None
    for line in transcript.lines_backwards(path, transcript.MAX_SCAN, where):
        if written is None:
            written = _stamp(line) or 0.0
        if b'"session.usage_record"' in line and needle in line:
            entry = _parse(line) or {}
            data = entry.get("data")
            usage = data.get("usage") if isinstance(data, dict) and entry.get("agentId") == agent else None
            accounting = usage.get("accounting") if isinstance(usage, dict) else None
            source = accounting.get("sourceSessionId") if isinstance(accounting, dict) else None
            if isinstance(source, str):
                return source
        if where.get("read", 0) > ANCHOR_SCAN:
            break
    return "" if written is not None and ts is not None and round(written * 1000) > ts else None


def _settle(ev: Event, home: str) -> None:
    """sessionEnd, the session's last hook: the records still held (their content was not written
    at their events) are queued by this event's transition if the file holds them by then. It is
    written about 90 ms after this hook starts: the hook waits for the newest held record's content
    (Copilot writes in order: the older ones are there then too), at most SESSION_END_WAIT. The
    one wait of our hooks, once per session and only when something is held. Read without the
    lineage lock, like ``_pair``; what is still not written after it, the daemon's sweep queues."""
    from jevlin_hooks.capture import lineage

    state = lineage.read(home, lineage.file_name(NAME, ev["session_id"]))
    held = state.get("held") if state is not None else None
    if not held:
        return
    newest = held[-1]
    path = newest["later"].get("path") or ""
    _poll(path, lambda: complete(newest, False), SESSION_END_WAIT)


def _pair(ev: Event, home: str) -> None:
    """The open call this post event ends: the oldest of its thread with the same tool, command
    and query. Read without the lineage lock: Copilot runs a session's hooks one at a time, and
    the engine, under the lock, closes only a call still open (a call already closed is not
    recorded twice). None found: the engine records the call at this end, once."""
    from jevlin_hooks.capture import lineage

    state = lineage.read(home, lineage.file_name(NAME, ev["session_id"]))
    if state is None:
        return
    want = (ev.get("agent_id"), ev.get("tool_name") or "", ev.get("command") or "", ev.get("search") or "")
    best: Pending | None = None
    for p in (state.get("pending") or {}).values():
        if (p.get("agent_id"), p.get("tool") or "", p.get("command") or "", p.get("query") or "") != want:
            continue
        if best is None or p.get("started", 0) < best.get("started", 0):
            best = p
    if best is not None:
        ev["tool_use_id"] = best["call_id"]


# --- what Copilot's own session file adds ------------------------------------------------------

def events_path(session_id: str, env: Mapping[str, str] | None = None) -> str:
    """Copilot's session file for a root session: ``$COPILOT_HOME`` (default ``~/.copilot``)."""
    env = os.environ if env is None else env
    base = env.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")
    return os.path.join(base, "session-state", session_id, "events.jsonl")


def enrich(ev: Event, cfg: Config) -> None:
    """The session file's path on the events that need it; a search's history at its end; the
    turn's usage and last text at the root's agentStop. Each read once: what is not written yet
    is read by ``complete`` at a later event (``history_later``, ``summary_later``)."""
    kind = ev["kind"]
    searching = ev.get("search") is not None
    if not ((kind in ("pre_tool", "post_tool", "tool_failed") and searching) or kind == "stop"):
        return
    path = ev.get("transcript_path") or events_path(ev["session_id"])
    ev["transcript_path"] = path
    where: dict[str, int] = {}
    if kind in ("post_tool", "tool_failed"):
        hook = "postToolUse" if kind == "post_tool" else "postToolUseFailure"
        info: dict[str, Any] = {}
        holds = _matcher(ev.get("tool_name") or "", ev.get("command") or "", ev.get("search") or "")
        anchor = _anchor(ev, hook)
        found = _read_once(path, lambda: _history(path, anchor, ev.get("agent_id"), holds, info, where=where), "")
        if found is None and anchor is not None:
            ev["history_later"] = _later(path, anchor, where)
        else:
            # "": looked, none (the engine would otherwise look again without the anchor)
            ev["history"] = found if found is not None else ""
        if info.get("model"):
            ev["model"] = info["model"]
    elif kind == "stop":
        anchor = _anchor(ev, "agentStop")
        if anchor is None:
            ev["summary"] = None
            return
        ev["summary"] = _read_once(path, lambda: _summary(path, anchor, where=where), {"found": False})
        if ev["summary"] is None and cfg.get("miner", {}).get("turn_end"):
            ev["summary_later"] = _later(path, anchor, where)


def complete(item: Held, final: bool) -> dict[str, Any] | None:
    """What the session file says now of a record the engine held (engine._release): a search's
    history and model, or a turn's summary, read from its hook's own line back, as at its event.
    None: that line is still not written. ``final`` (the daemon's sweep; a record held too long):
    the best there is without it, provided the file was written after the call or turn started
    (else its newest request or turn may be an older one's): the call's newest request
    (``history_for``), the last turn's entries."""
    later = item["later"]
    path = later.get("path") or ""
    anchor = _later_anchor(later)
    back_to = later.get("from")
    if item["kind"] == "turn_end":
        summary = _read_once(path, lambda: _summary(path, anchor, back_to=back_to), {"found": False})
        if summary is None and final:
            since = item["turn"]["started"] if "turn" in item else None
            summary = _read_once(path, lambda: _summary(path, None, since=since), {"found": False})
        if summary is None:
            return {"summary": {"found": False}} if final else None
        return {"summary": summary}
    p: Pending = item["call"]
    info: dict[str, Any] = {}
    holds = _matcher(p.get("tool") or "", p.get("command") or "", p.get("query") or "")
    found = _read_once(path, lambda: _history(path, anchor, p.get("agent_id"), holds, info, back_to=back_to), "")
    if found is None:
        if not final:
            return None
        found = history_for(p) or ""
    return {"history": found, "model": info.get("model")}


def _later(path: str, anchor: Anchor, where: dict[str, int]) -> dict[str, Any]:
    """What ``complete`` needs: the file, the hook's own line, and where the file ended when the
    line was not in it (the line comes after that offset, however much Copilot writes after it)."""
    return {"path": path, "anchor": list(anchor), "from": max(0, where.get("end", 0))}


def _later_anchor(later: dict[str, Any]) -> Anchor | None:
    a = later.get("anchor")
    if isinstance(a, list) and len(a) == 3 and isinstance(a[0], str) and isinstance(a[1], int) \
            and isinstance(a[2], str):
        return (a[0], a[1], a[2])
    return None


def history_for(p: Pending) -> str | None:
    """A call closed without its end (a call Copilot refused or timed out sends none; a turn that
    stopped, a session that ended): the newest request of it in the session file, once the file
    holds a line written after the call started (so that request is this call's, not an older
    one's with the same input)."""
    path = p.get("transcript_path")
    if not path:
        return None
    holds = _matcher(p.get("tool") or "", p.get("command") or "", p.get("query") or "")
    try:
        return _history(path, None, p.get("agent_id"), holds, {}, since=p["started"])
    except OSError:
        return None


def from_env(env: Mapping[str, str]) -> tuple[str, str | None, str | None] | None:
    """The shell tool's ``COPILOT_AGENT_SESSION_ID``: the session in the main agent. In a subagent
    it is an id of Copilot's own that no hook payload names: ``_index_shell`` made it an alias of
    the root thread at the subagent's first search, and the pending call of this command names
    the subagent. Without the alias the lookup goes on to the process ancestry (the copilot
    process runs both our hooks and the shell)."""
    sid = env.get("COPILOT_AGENT_SESSION_ID")
    return (sid, None, None) if sid else None


def _read_once(path: str, read: Callable[[], Any], gone: Any) -> Any:
    """``read()``: None when what it looks for is not written yet. Copilot makes the session's
    directory at its start and the file at its first write: no file in the directory is "not
    yet"; no directory (Copilot keeps its sessions elsewhere) or another error is ``gone``: it
    will not come."""
    try:
        return read()
    except FileNotFoundError:
        return None if os.path.isdir(os.path.dirname(path)) else gone
    except OSError:
        return gone


def _poll(path: str, read: Callable[[], Any], wait: float) -> Any:
    """``read()`` until it finds something or ``wait`` seconds passed (sessionEnd only: _settle);
    a file that will not come (``_read_once``) is not waited for."""
    deadline = time.monotonic() + wait
    while True:
        found = _read_once(path, read, False)
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(POLL)


# An anchor: this hook's own ``hook.start`` line (type, the payload's ms timestamp, its session)
Anchor = tuple[str, int, str]


def _anchor(ev: Event, hook: str) -> Anchor | None:
    ts = ev.get("hook_time")
    return (hook, ts, ev.get("raw_session_id") or ev["session_id"]) if ts is not None else None


def _matcher(tool: str, command: str, query: str) -> Callable[[Any], bool]:
    """Whether an assistant message's tool requests hold this call (same tool, command, query)."""

    def holds(requests: Any) -> bool:
        for r in requests if isinstance(requests, list) else []:
            if not isinstance(r, dict) or r.get("name") != tool:
                continue
            args = r.get("arguments")
            if command:
                if searchmatch.shell_command(args) == command:
                    return True
            elif searchmatch.tool_query(args) == query:
                return True
        return False

    return holds


class _Past(Exception):
    """The file was written past the moment looked for, without what was looked for: Copilot
    writes its lines in order, so it will not come, and waiting longer is no use."""


def _stamp(line: bytes) -> float | None:
    value = (_parse(line) or {}).get("timestamp")
    return _epoch(value) if isinstance(value, str) else None


def _entries(path: str, anchor: Anchor | None, wanted: tuple[bytes, ...], since: float | None = None,
             back_to: int | None = None, where: dict[str, int] | None = None) -> Iterator[dict[str, Any]] | None:
    """The session file's entries of the ``wanted`` types, newest first, from the anchor line on.
    None: the anchor is not written yet; _Past: the file goes on past its time without it.
    Without an anchor, from the end, provided the newest line was written after ``since`` (epoch
    seconds; None: it was not). The anchor is looked for among the newest ANCHOR_SCAN bytes (at
    its own event it is among the last lines); read at a later event, down to ``back_to``, where
    the file ended when it was not there yet. ``where`` receives the file's end (lines_backwards)."""
    from jevlin_hooks.capture import transcript

    where = {} if where is None else where
    lines = transcript.lines_backwards(path, transcript.MAX_SCAN, where)
    newest = next(lines, None)
    if newest is None:
        return None
    written = _stamp(newest)
    lines = _chain(newest, lines)
    if anchor is None:
        if since is not None and (written is None or written <= since):
            return None
        return _typed(lines, wanted)
    hook, ts, sid = anchor
    stamp = str(ts).encode()
    scan = ANCHOR_SCAN
    if back_to is not None:
        scan = min(transcript.MAX_SCAN, max(ANCHOR_SCAN, where.get("end", 0) - back_to + transcript.BLOCK))
    for line in lines:
        if b'"hook.start"' in line and stamp in line:
            data = (_parse(line) or {}).get("data")
            inp = data.get("input") if isinstance(data, dict) and data.get("hookType") == hook else None
            if isinstance(inp, dict) and inp.get("timestamp") == ts and inp.get("sessionId") == sid:
                return _typed(lines, wanted)
        if where.get("read", 0) > scan:
            break  # not among the lines it can be in: a long file costs no more
    if written is not None and round(written * 1000) > ts:
        raise _Past()
    return None


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield first
    yield from rest


def _epoch(iso: str) -> float | None:
    """``2026-11-30T16:08:44.299Z`` (Copilot's timestamps, UTC) in epoch seconds; by hand, as
    time.strptime and datetime cost a hook more than its budget."""
    try:
        y, mo, d = int(iso[0:4]), int(iso[5:7]), int(iso[8:10])
        h, mi, sec = int(iso[11:13]), int(iso[14:16]), float(iso[17:].rstrip("Z"))
    except ValueError:
        return None
    y -= mo <= 2  # days from the civil date (H. Hinnant's algorithm): March-based years
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days * 86400 + h * 3600 + mi * 60 + sec


def _typed(lines: Iterator[bytes], wanted: tuple[bytes, ...]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if any(w in line for w in wanted):
            entry = _parse(line)
            if entry is not None and isinstance(entry.get("data"), dict):
                yield entry


def _parse(line: bytes) -> dict[str, Any] | None:
    from jevlin_hooks.base import fastjson

    try:
        obj = fastjson.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _history(path: str, anchor: Anchor | None, agent: str | None, holds: Callable[[Any], bool],
             info: dict[str, Any], since: float | None = None, back_to: int | None = None,
             where: dict[str, int] | None = None) -> str | None:
    """The thread's assistant text in its turn up to the message that made this call, the
    newest such message before the anchor. None: the anchor is not written yet; "" when it is
    but the call's message is not there (nothing to come)."""
    try:
        entries = _entries(path, anchor, (b'"assistant.message"', b'"user.message"', b'"session.compaction_complete"'),
                           since, back_to, where)
    except _Past:
        return ""
    if entries is None:
        return None
    texts: list[str] = []
    found = False
    size = 0
    for entry in entries:
        if (entry.get("agentId") or None) != agent:
            continue
        kind, data = entry.get("type"), entry["data"]
        if kind != "assistant.message":
            if found:
                break  # the turn's prompt, or a compaction: where this context starts
            continue
        if not found:
            if not holds(data.get("toolRequests")):
                continue
            found = True
            model = data.get("model")
            if isinstance(model, str) and model:
                info["model"] = model
        text = data.get("content")
        if isinstance(text, str) and text:
            texts.append(text)
            size += len(text)
            if size > HISTORY_LIMIT:
                break
    if not found:
        return "" if anchor is not None else None
    return _clip(texts[::-1])


def _clip(texts: list[str]) -> str:
    from jevlin_hooks.base import fastjson

    joined = fastjson.valid_text("\n\n".join(texts))
    raw = joined.encode("utf-8")
    if len(raw) <= HISTORY_LIMIT:
        return joined
    return raw[-HISTORY_LIMIT:].decode("utf-8", "ignore")


_USAGE = (("input", "inputTokens"), ("output", "outputTokens"), ("cache_read", "cacheReadTokens"),
          ("cache_creation", "cacheWriteTokens"))


def _summary(path: str, anchor: Anchor | None, back_to: int | None = None,
             where: dict[str, int] | None = None, since: float | None = None) -> dict[str, Any] | None:
    """The root turn's tokens, model and last text: its entries between its prompt and this
    agentStop (a subagent's lines carry ``agentId`` and are not counted here). Without an
    anchor, the file's last turn as far as it is written, provided its newest line is newer
    than ``since`` (None: not yet)."""
    try:
        entries = _entries(path, anchor, (b'"assistant.message"', b'"user.message"', b'"session.usage_record"'),
                           since, back_to, where)
    except _Past:
        return {"found": False}
    if entries is None:
        return None
    tokens = {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0}
    model: str | None = None
    last: str | None = None
    for entry in entries:
        if entry.get("agentId"):
            continue
        kind, data = entry.get("type"), entry["data"]
        if kind == "user.message":
            break
        if kind == "assistant.message":
            text = data.get("content")
            if last is None and isinstance(text, str) and text:
                last = text
        elif kind == "session.usage_record" and isinstance(data.get("usage"), dict):
            usage = data["usage"]
            for key, src in _USAGE:
                v = usage.get(src)
                if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
                    tokens[key] += v
            if model is None and isinstance(usage.get("model"), str):
                model = usage["model"]
    return {"found": True, "tokens": tokens, "model": model, "last_text": last}
