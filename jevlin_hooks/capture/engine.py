"""Lineage transitions: (lineage state, normalized event) -> (new state, records to queue).

Pure apart from the clock and the ``history_for`` callback, so every rule here is testable
without a process. The state is one JSON document per harness session (see lineage.py); the
root thread lives at the top level and each subagent is a child thread under ``agents``.

Normalized event (a dict, built by jevlin_hooks.capture.harness.*):
  kind        session_start | prompt | pre_tool | post_tool | tool_failed | tool_batch |
              pre_compact | post_compact | subagent_start | subagent_stop | stop |
              stop_failure | interrupt | session_end | agent_response | other
  session_id, turn_id, agent_id, agent_type, source, tool_name, tool_use_id, tool_input,
  search (the query, or None when the call is not a search), history, status, duration_ms,
  prompt, last_message, error, model, cwd, transcript_path, tool_calls, summary, now;
  window_id / context_size / context_grow_to (a compaction seen only by its effects, Hermes);
  usage (one model call's tokens, added to the open turn, Hermes); resumed (a resume without
  SessionStart, Hermes);
  parent_session_id / parent_call_id (a subagent with a lineage of its own, Hermes)
"""

from __future__ import annotations

import os
import sys
import time

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    History = Callable[[dict[str, Any]], str | None]

SCHEMA = 1
HISTORY_LIMIT = 32 * 1024
CLOSED_KEEP = 256
TURNS_KEEP = 64
COMPACTION = ("pre_compact", "post_compact", "compact_start")


def iso(t: float) -> str:
    ms = int((t - int(t)) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{ms:03d}Z"


def _gen_id(prefix: str) -> str:
    return f"{prefix}-{os.urandom(8).hex()}"


def new_state(harness: str, ev: dict[str, Any]) -> dict[str, Any]:
    now = ev["now"]
    return {
        "v": SCHEMA,
        "harness": harness,
        "session_id": ev["session_id"],
        "created": now,
        "updated": now,
        "status": "active",
        "start_seen": ev["kind"] == "session_start",
        "sources": [],
        "cwd": None,
        "transcript_path": None,
        "model": None,
        "agent_pid": None,
        "window": 0,
        "compact": None,
        "seq": 0,
        "searches": 0,
        "turn": None,
        "turns": [],
        "closed_turns": [],
        "pending": {},
        "closed_calls": [],
        "tools_seen": [],
        "agents": {},
        "last_agent_call": None,
        "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0},
        "events": 0,
        "abandoned_turns": 0,
    }


def _push(lst: list[Any], item: Any, keep: int) -> None:
    lst.append(item)
    if len(lst) > keep:
        del lst[: len(lst) - keep]


def _agent(state: dict[str, Any], ev: dict[str, Any], create: bool = True) -> dict[str, Any] | None:
    aid = ev.get("agent_id")
    if not aid:
        return None
    agents = state["agents"]
    if aid not in agents and create:
        agents[aid] = {
            "agent_type": ev.get("agent_type"),
            "started": ev["now"],
            "start_seen": ev["kind"] == "subagent_start",
            "status": "running",
            "seq": 0,
            "window": 0,
            "turn_id": ev.get("turn_id"),
            "parent_call": state.get("last_agent_call"),
            # the root turn under way when it started: its searches count toward that turn
            "parent_turn": (state.get("turn") or {}).get("id"),
            "tools": [],
            "searches": 0,
            "ended": None,
        }
    return agents.get(aid)


def _open_turn(state: dict[str, Any], ev: dict[str, Any], turn_id: str | None, prompt: str | None) -> dict[str, Any]:
    turn = {
        "id": turn_id or _gen_id("turn"),
        "record_id": os.urandom(16).hex(),
        "started": ev["now"],
        "prompt": prompt,
        "tools": [],
        "searches": 0,
        "window": state["window"],
        "start_seen": ev["kind"] == "prompt",
    }
    state["turn"] = turn
    return turn


def _ensure_turn(
    state: dict[str, Any], ev: dict[str, Any], cfg: dict[str, Any], history_for: History,
    records: list[dict[str, Any]],
) -> dict[str, Any] | None:
    """The open root turn for this event; opens one for a turn we never saw start.

    A different turn id without its prompt means events were lost (hooks installed mid-turn,
    a crash): the old turn is closed as abandoned rather than silently merged.
    """
    turn = state["turn"]
    tid = ev.get("turn_id")
    if turn is not None and (not tid or turn["id"] == tid):
        return turn
    if tid and tid in state["closed_turns"]:
        return None  # a late event of a turn already closed
    if turn is not None:
        records += _close_turn(state, ev, cfg, "abandoned", history_for)
    return _open_turn(state, ev, tid, None)


def _search_record(
    state: dict[str, Any], p: dict[str, Any], status: str, duration_ms: int | None, history: str | None
) -> dict[str, Any]:
    agent = p.get("agent_id")
    host_meta: dict[str, Any] = {"platform": sys.platform}
    if state.get("model"):
        host_meta["model"] = state["model"]
    if agent:
        a = state["agents"].get(agent) or {}
        if a.get("agent_type"):
            host_meta["agent_type"] = a["agent_type"]
    host_meta["history_source"] = "transcript" if history is not None else "none"
    return {
        "v": SCHEMA,
        "record_id": p["record_id"],
        "kind": "search",
        "ts": iso(p["started"]),
        "harness": state["harness"],
        "session_id": agent or state["session_id"],
        "turn_id": p.get("turn_id"),
        "call_id": p["call_id"],
        "parent_session_id": state["session_id"] if agent else state.get("parent_session_id"),
        "parent_call_id": (state["agents"].get(agent) or {}).get("parent_call") if agent else state.get("parent_call"),
        "window": p["window"],
        "seq": p["seq"],
        "history": history or "",
        "host_meta": host_meta,
        "query": p.get("query") or "",
        "tool": p.get("tool") or "",
        "status": status,
        "duration_ms": duration_ms,
    }


def _close_pending(
    state: dict[str, Any], keys: list[str], status: str, now: float, history_for: History
) -> list[dict[str, Any]]:
    out = []
    for key in keys:
        p = state["pending"].pop(key, None)
        if p is None:
            continue
        _push(state["closed_calls"], key, CLOSED_KEEP)
        dur = max(0, int((now - p["started"]) * 1000))
        out.append(_search_record(state, p, status, dur, history_for(p)))
    return out


def _pending_of(state: dict[str, Any], agent_id: str | None, turn_id: str | None = None) -> list[str]:
    return [
        k for k, p in state["pending"].items()
        if p.get("agent_id") == agent_id and (turn_id is None or p.get("turn_id") == turn_id)
    ]


def _close_turn(
    state: dict[str, Any], ev: dict[str, Any], cfg: dict[str, Any], outcome: str, history_for: History
) -> list[dict[str, Any]]:
    turn = state["turn"]
    if turn is None:
        return []
    now = ev["now"]
    records = _close_pending(state, _pending_of(state, None), "interrupted", now, history_for)
    state["turn"] = None
    _push(state["closed_turns"], turn["id"], TURNS_KEEP)
    summary = ev.get("summary") or {}
    tokens = summary.get("tokens") or turn.get("tokens") or {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0}
    model = summary.get("model") or ev.get("model") or state.get("model")
    if model:
        state["model"] = model
    for k, v in tokens.items():
        state["tokens"][k] = state["tokens"].get(k, 0) + v
    final = ev.get("last_message")
    if final is None:
        final = summary.get("last_text")
    if final is None and turn.get("texts"):
        final = turn["texts"][-1]
    searches = turn["searches"] + sum(
        a.get("searches_by_turn", {}).get(turn["id"], 0) for a in state["agents"].values()
    )
    done = {
        "id": turn["id"],
        "started": turn["started"],
        "ended": now,
        "outcome": outcome,
        "searches": searches,
        "tools": turn["tools"],
        "window": turn["window"],
        "model": model,
        "tokens": tokens,
        "error": ev.get("error") if outcome == "error" else None,
    }
    _push(state["turns"], done, TURNS_KEEP)
    if outcome == "abandoned":
        state["abandoned_turns"] += 1
    if cfg.get("miner", {}).get("turn_end") and searches > 0:
        records.append({
            "v": SCHEMA,
            "record_id": turn["record_id"],
            "kind": "turn_end",
            "ts": iso(now),
            "harness": state["harness"],
            "session_id": state["session_id"],
            "turn_id": turn["id"],
            "parent_session_id": state.get("parent_session_id"),
            "window": state["window"],  # where the turn ended: a compaction inside it shows
            "prompt": turn.get("prompt") or "",
            "final_message": final or "",
            "tools": turn["tools"],
            "duration_ms": max(0, int((now - turn["started"]) * 1000)),
            "outcome": outcome,
            "model": model,
            "tokens": tokens,
            "search_count": searches,
        })
    return records


def _compaction(state: dict[str, Any], ev: dict[str, Any], name: str) -> None:
    """Count a compaction once, however many of its events arrive (and in whichever order)."""
    agent = _agent(state, ev, create=False) if ev.get("agent_id") and name != "compact_start" else None
    holder = agent if agent is not None else state
    c = holder.get("compact")
    if c is None:
        holder["window"] = holder.get("window", 0) + 1
        holder["compact"] = {"seen": [name], "started": ev["now"]}
    elif name not in c["seen"]:
        c["seen"].append(name)
    # the same event name twice inside one open compaction is a duplicate delivery


def _link_parent(state: dict[str, Any], ev: dict[str, Any]) -> None:
    """A thread that is another thread's subagent but has a lineage of its own (Hermes): its
    records name the parent thread and the call that spawned it."""
    state["parent_session_id"] = ev["parent_session_id"]
    state["parent_call"] = ev.get("parent_call_id")


def _window_signals(state: dict[str, Any], ev: dict[str, Any]) -> None:
    """A compaction no event announces (Hermes), seen by its effects: the harness's session id
    changed inside the thread (``window_id``, a rotation), or a request of the same turn holds
    fewer messages than the last one grew to (``context_size``). Both can show the same
    compaction on one event: the window rises once."""
    new = False
    wid = ev.get("window_id")
    if wid:
        seen = state.setdefault("window_ids", [])
        if not seen:
            seen.append(wid)
        elif wid not in seen:
            _push(seen, wid, TURNS_KEEP)
            new = True
    if "context_size" in ev:
        expect = state.get("context_expect")
        if expect and expect[0] == ev.get("turn_id") and ev["context_size"] < expect[1]:
            new = True
        state["context_expect"] = [ev.get("turn_id"), ev.get("context_grow_to", ev["context_size"])]
    if new:
        state["window"] = state.get("window", 0) + 1


def _add_usage(turn: dict[str, Any], usage: dict[str, int]) -> None:
    """One model call's tokens, for a harness that reports them per call (Hermes)."""
    tokens = turn.setdefault("tokens", {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0})
    for k, v in usage.items():
        tokens[k] = tokens.get(k, 0) + v


def _end_compaction(state: dict[str, Any]) -> None:
    state["compact"] = None
    for a in state["agents"].values():
        a["compact"] = None


def apply(
    harness: str,
    state: dict[str, Any] | None,
    ev: dict[str, Any],
    cfg: dict[str, Any],
    history_for: History = lambda p: None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if state is None:
        state = new_state(harness, ev)
    kind = ev["kind"]
    now = ev["now"]
    state["updated"] = now
    state["events"] = state.get("events", 0) + 1
    for key in ("cwd", "transcript_path"):
        if ev.get(key):
            state[key] = ev[key]
    if ev.get("model"):
        state["model"] = ev["model"]
    if ev.get("agent_pid"):
        state["agent_pid"] = ev["agent_pid"]
        state["agent_pid_start"] = ev.get("agent_pid_start")
    records: list[dict[str, Any]] = []
    if ev.get("parent_session_id") and not state.get("parent_session_id"):
        _link_parent(state, ev)
    if ev.get("window_id") or "context_size" in ev:
        _window_signals(state, ev)
    if ev.get("usage") and state["turn"] is not None and ev.get("turn_id") in (None, state["turn"]["id"]):
        _add_usage(state["turn"], ev["usage"])
    if ev.get("resumed") and state["status"] == "ended":
        state["status"] = "active"  # a resume that sends no SessionStart (Hermes --resume)
        _push(state["sources"], "resume", 16)

    # Compaction events: PreCompact, PostCompact, SessionStart(compact), and Claude's own
    # compaction subagent (SubagentStop with agent_type "") inside an open compaction.
    if kind == "session_start" and ev.get("source") == "compact":
        _compaction(state, ev, "compact_start")
        return state, records
    if kind in ("pre_compact", "post_compact"):
        _compaction(state, ev, kind)
        return state, records
    if kind == "subagent_stop" and state.get("compact") is not None and not ev.get("agent_type"):
        return state, records
    if kind not in ("other", "agent_response"):
        _end_compaction(state)

    if kind == "session_start":
        src = ev.get("source") or "startup"
        _push(state["sources"], src, 16)
        state["start_seen"] = True
        if state["status"] == "ended":
            state["status"] = "active"
        return state, records

    if kind == "prompt" and ev.get("agent_id"):
        agent = _agent(state, ev)
        if agent is not None:  # a subagent's own turn (Codex): its searches carry this turn id
            agent["turn_id"] = ev.get("turn_id") or agent.get("turn_id")
            agent["status"] = "running"
        return state, records

    if kind == "prompt":
        tid = ev.get("turn_id")
        turn = state["turn"]
        if tid and ((turn and turn["id"] == tid) or tid in state["closed_turns"]):
            return state, records  # duplicate delivery
        if turn is not None:
            records += _close_turn(state, ev, cfg, "interrupted", history_for)
        _open_turn(state, ev, tid, ev.get("prompt"))
        return state, records

    if kind == "pre_tool":
        agent, turn = _note_tool(state, ev, cfg, history_for, records)
        tool = ev.get("tool_name") or ""
        if agent is None and tool in ev.get("spawn_tools", ("Agent", "Task")) and ev.get("tool_use_id"):
            state["last_agent_call"] = ev["tool_use_id"]
        if ev.get("search") is None or not ev.get("tool_use_id"):
            return state, records
        tid = ev.get("turn_id") or (turn["id"] if turn else None)
        if agent is not None and not ev.get("turn_id"):
            tid = agent.get("turn_id")
        if _same_call(state, ev, tid) is not None:
            return state, records  # another event describing a call already counted (Cursor)
        if not ev.get("tool_use_id"):
            ev = {**ev, "tool_use_id": _synthetic_call_id(ev)}
        key = f"{tid}/{ev['tool_use_id']}"
        if key in state["pending"] or key in state["closed_calls"]:
            return state, records
        if turn is not None and ev.get("agent_message"):
            turn.setdefault("texts", []).append(ev["agent_message"][-HISTORY_LIMIT:])
        if turn is not None and turn.get("texts"):
            ev = {**ev, "history_snapshot": _clip_texts(turn["texts"])}
        _register_search(state, ev, agent, turn, tid, key)
        return state, records

    if kind in ("post_tool", "tool_failed"):
        agent, turn = _note_tool(state, ev, cfg, history_for, records)
        if ev.get("search") is None:
            return state, records
        tid = ev.get("turn_id") or (turn["id"] if turn else None)
        if agent is not None and not ev.get("turn_id"):
            tid = agent.get("turn_id")
        key = None
        if ev.get("tool_use_id"):
            key = f"{tid}/{ev['tool_use_id']}"
            if key not in state["pending"]:
                key = _same_call(state, ev, tid) or key
        else:
            key = _same_call(state, ev, tid)
            if key is None:
                if ev.get("call_key") and ev["call_key"] in state.get("closed_call_keys", []):
                    return state, records
                ev = {**ev, "tool_use_id": _synthetic_call_id(ev)}
                key = f"{tid}/{ev['tool_use_id']}"
        if key in state["closed_calls"] or (ev.get("call_key") and key not in state["pending"]
                                            and ev["call_key"] in state.get("closed_call_keys", [])):
            return state, records
        if key not in state["pending"]:  # no PreToolUse seen (installed mid-call, lost event)
            _register_search(state, ev, agent, turn, tid, key)
        p = state["pending"].pop(key)
        _push(state["closed_calls"], key, CLOSED_KEEP)
        for ck in p.get("call_keys", []):
            _push(state.setdefault("closed_call_keys", []), ck, CLOSED_KEEP)
        status = ev.get("status") or ("error" if kind == "tool_failed" else "ok")
        dur = ev.get("duration_ms")
        if not isinstance(dur, int) or isinstance(dur, bool) or dur < 0:
            dur = max(0, int((now - p["started"]) * 1000))
        hist = ev.get("history")
        if hist is None:
            hist = p.get("history")
        if hist is None:
            hist = history_for(p)
        records.append(_search_record(state, p, status, dur, hist))
        return state, records

    if kind == "tool_batch":
        calls = ev.get("tool_calls") or []
        tid = ev.get("turn_id") or (state["turn"]["id"] if state["turn"] else None)
        keys = [f"{tid}/{c}" for c in calls if f"{tid}/{c}" in state["pending"]]
        records += _close_pending(state, keys, "cancelled", now, history_for)
        return state, records

    if kind == "agent_text":  # Cursor afterAgentResponse / agent_message: the text before a call
        if ev.get("agent_id"):
            return state, records
        turn = _ensure_turn(state, ev, cfg, history_for, records)
        if turn is not None and ev.get("text"):
            texts = turn.setdefault("texts", [])
            texts.append(ev["text"][-HISTORY_LIMIT:])
            while sum(len(t) for t in texts) > HISTORY_LIMIT and len(texts) > 1:
                texts.pop(0)
        return state, records

    if kind == "notify_turn_complete":
        tid = ev.get("turn_id")
        if ev.get("agent_id"):
            agent = _agent(state, ev, create=False)
            if agent is not None and agent.get("turn_id") == tid:
                agent["last_turn_done"] = tid
            return state, records
        if tid and tid in state["closed_turns"]:
            return state, records  # Stop already closed it: the turn counts once
        if state["turn"] is None or (tid and state["turn"]["id"] != tid):
            if state["turn"] is not None:
                records += _close_turn(state, ev, cfg, "abandoned", history_for)
            _open_turn(state, ev, tid, ev.get("prompt"))
        records += _close_turn(state, ev, cfg, "completed", history_for)
        return state, records

    if kind == "subagent_start":
        if ev.get("agent_id") in state["agents"]:
            return state, records
        agent = _agent(state, ev)
        if agent is not None and ev.get("parent_call"):
            agent["parent_call"] = ev["parent_call"]  # Cursor names the spawning call itself
        return state, records

    if kind == "subagent_stop":
        agent = _agent(state, ev)
        if agent is None or agent["status"] == "ended":
            return state, records
        records += _close_pending(state, _pending_of(state, ev["agent_id"]), "interrupted", now, history_for)
        agent["status"] = "ended"
        agent["ended"] = now
        return state, records

    if kind in ("stop", "stop_failure", "interrupt"):
        tid = ev.get("turn_id")
        if ev.get("agent_id"):  # a subagent's own Stop (Codex): ends its run, not the turn
            return apply(harness, state, {**ev, "kind": "subagent_stop"}, cfg, history_for)
        if tid and tid in state["closed_turns"]:
            return state, records
        if state["turn"] is None:
            _open_turn(state, ev, tid, None)
        elif tid and state["turn"]["id"] != tid:
            records += _close_turn(state, ev, cfg, "interrupted", history_for)
            _open_turn(state, ev, tid, None)
        outcome = {"stop": "completed", "stop_failure": "error", "interrupt": "interrupted"}[kind]
        if kind == "stop" and ev.get("status") in ("error", "aborted"):
            outcome = "error" if ev["status"] == "error" else "interrupted"
        records += _close_turn(state, ev, cfg, outcome, history_for)
        return state, records

    if kind == "session_end":
        records += _end_session(state, ev, cfg, "interrupted", "ended", history_for)
        return state, records

    return state, records


def _note_tool(
    state: dict[str, Any], ev: dict[str, Any], cfg: dict[str, Any], history_for: History,
    records: list[dict[str, Any]],
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The thread a tool event belongs to (a subagent, or the root's turn); names the tool there."""
    agent = _agent(state, ev)
    turn = _ensure_turn(state, ev, cfg, history_for, records) if agent is None else None
    tool = ev.get("tool_name") or ""
    holder = agent if agent is not None else turn
    if holder is not None and tool and tool not in holder["tools"]:
        holder["tools"].append(tool)
    return agent, turn


def _clip_texts(texts: list[str]) -> str:
    text = "\n\n".join(t for t in texts if t)
    return text[-HISTORY_LIMIT:]


def _synthetic_call_id(ev: dict[str, Any]) -> str:
    """A call id for an event that has none (Cursor's beforeShellExecution)."""
    from jevlin_hooks.privacy import ids

    seed = f"{ev.get('turn_id')}|{ev.get('call_key') or ev.get('command') or ''}|{ev['now']}"
    return "call-" + ids._sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _same_call(state: dict[str, Any], ev: dict[str, Any], tid: str | None) -> str | None:
    """The pending call that another event already described (same turn, same call key)."""
    ck = ev.get("call_key")
    if not ck:
        return None
    for key, p in state["pending"].items():
        if p.get("turn_id") == tid and ck in p.get("call_keys", []) and p.get("agent_id") == ev.get("agent_id"):
            if ev.get("tool_use_id") and ev["tool_use_id"] != p["call_id"]:
                p.setdefault("alt_ids", []).append(ev["tool_use_id"])
            return key
    return None


def _register_search(
    state: dict[str, Any], ev: dict[str, Any], agent: dict[str, Any] | None,
    turn: dict[str, Any] | None, tid: str | None, key: str,
) -> None:
    holder = agent if agent is not None else state
    holder["seq"] = holder.get("seq", 0) + 1
    state["searches"] += 1
    if agent is not None:
        agent["searches"] += 1
        by_turn = agent.setdefault("searches_by_turn", {})
        owner = agent.get("parent_turn") or tid or ""
        by_turn[owner] = by_turn.get(owner, 0) + 1
    elif turn is not None:
        turn["searches"] += 1
    state["pending"][key] = {
        "record_id": os.urandom(16).hex(),
        "seq": holder["seq"],
        "call_id": ev["tool_use_id"],
        "turn_id": tid,
        "agent_id": ev.get("agent_id"),
        "window": holder.get("window", 0),
        "started": ev["now"],
        "tool": ev.get("tool_name") or "",
        "query": ev.get("search") or "",
        "command": ev.get("command") or "",
        "transcript_path": ev.get("agent_transcript_path") or ev.get("transcript_path"),
        "history": ev.get("history_snapshot"),
        "call_keys": [ev["call_key"]] if ev.get("call_key") else [],
    }


def close_stale(
    state: dict[str, Any], cfg: dict[str, Any], now: float, max_age: float,
    history_for: History = lambda p: None,
) -> list[dict[str, Any]]:
    """Close what a crashed agent left open: pending searches and the turn, as abandoned."""
    if now - state.get("updated", now) < max_age:
        return []
    if state["turn"] is None and not state["pending"]:
        return []
    ev = {"kind": "session_end", "now": now, "session_id": state["session_id"]}
    return _end_session(state, ev, cfg, "abandoned", "abandoned", history_for)


def _end_session(
    state: dict[str, Any], ev: dict[str, Any], cfg: dict[str, Any], outcome: str, status: str,
    history_for: History,
) -> list[dict[str, Any]]:
    """Close everything still open: calls and the turn get ``outcome``, threads ``status``."""
    now = ev["now"]
    records = _close_pending(state, list(state["pending"]), outcome, now, history_for)
    if state["turn"] is not None:
        records += _close_turn(state, ev, cfg, outcome, history_for)
    for a in state["agents"].values():
        if a["status"] not in ("ended", "abandoned"):
            a["status"] = status
            a["ended"] = now
    state["status"] = status
    state["ended"] = state["updated"] = now
    return records
