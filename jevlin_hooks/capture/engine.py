"""Lineage transitions: (lineage state, normalized event) -> (new state, records to queue).

Pure apart from the clock and the ``history_for`` callback, so every rule here is testable
without a process. The state is one JSON document per harness session (see lineage.py); the
root thread lives at the top level and each subagent is a child thread under ``agents``.

The normalized event is a dict built by a harness module (harnesses/<name>/capture.py); its
fields are ``Event`` in shapes.py, the state's ``State``, the records' ``SearchRecord`` and
``TurnEndRecord``. ``apply`` notes what every event says about the session (cwd, model, agent
pid), lets the compaction step take compaction events, then runs the one handler for the
event's kind from ``HANDLERS``; a kind without a handler only notes the session. A new
harness reuses these kinds; a new kind is one ``_on_<kind>`` function and one table entry.

Kinds (``HANDLERS``): session_start, prompt, pre_tool, post_tool, tool_failed, tool_batch,
agent_text, notify_turn_complete, compacted, subagent_start, subagent_stop, stop, stop_failure,
interrupt, session_end; pre_compact and post_compact go to the compaction step; other and
agent_response only note the session. session_start may carry parent_session_id (a child
agent process: Pi), forked_from (the thread a fork came from) and resume {compactions: [ids],
seq} (what the harness's own session file says); compacted carries compaction_id (counted once
per id); session_end may carry outcome (default interrupted).
What a harness shows only by its effects (Hermes, see _note_effects): window_id,
context_size / context_grow_to, usage, resumed, parent_session_id / parent_call_id /
parent_turn_id, in_parent_process; and compaction_ids (compactions a harness's own file shows,
on whatever event read it: Gemini CLI), each counted once like ``compacted``.
A tool event without a call id may carry pair_key (what its pre and post events share: Gemini
CLI's tool name and input); a post event then closes the oldest pending call with that key.

Held records (``State.held``): a harness whose own file is written after its hook runs (Copilot
CLI) cannot always read a search's history at its end, nor a turn's summary at its stop, and
the agent must not wait for it. Such an event carries history_later / summary_later (what to read
later, the harness's own) instead: the call or turn closes as usual (end time, status,
duration), and only its record is held, with everything the end told. At every later event of
the session the harness's ``complete`` reads what is now written and the held records are queued,
oldest first; the daemon's sweep (close_stale) finishes what is left, with the best there is.
Seq and call id were fixed at the call's start, so a record queued later carries the same ones.
"""

from __future__ import annotations

import os
import sys
import time

from jevlin_hooks.base import spool

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from jevlin_hooks.capture.shapes import (
        Agent,
        Complete,
        Config,
        Event,
        Held,
        History,
        Pending,
        Record,
        SearchRecord,
        State,
        Tokens,
        Turn,
    )

    Handler = Callable[[State, Event, Config, History, list[Record]], None]

SCHEMA = 1
HISTORY_LIMIT = 32 * 1024
CLOSED_KEEP = 256
TURNS_KEEP = 64
# Finished subagents kept whole (a late or duplicated event of a recent one still finds it);
# older ones leave ``agents`` and only their id stays, in ``agents_gone`` (CLOSED_KEEP ids), so
# an orchestrator's thousands of subagents cost what 32 do. AGENTS_MAX bounds the running ones
# too (a SubagentStop that never came): past it the oldest without an open call go the same way.
AGENTS_ENDED_KEEP = 32
AGENTS_MAX = 256
# Held records wait for the harness's file; past this many (a file that stopped growing) the
# oldest goes out with what there is, so a lineage stays bounded.
HELD_MAX = 64
ZERO_TOKENS = {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0}


def iso(t: float) -> str:
    ms = int((t - int(t)) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{ms:03d}Z"


def _gen_id(prefix: str) -> str:
    return f"{prefix}-{os.urandom(8).hex()}"


def _no_history(p: Pending) -> str | None:
    return None


def new_state(harness: str, ev: Event) -> State:
    now = ev["now"]
    return {
        "v": SCHEMA,
        "harness": harness,
        "session_id": ev["session_id"],
        "updated": now,
        "status": "active",
        "start_seen": ev["kind"] == "session_start",
        "sources": [],
        "cwd": None,
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
        "agents": {},
        "last_agent_call": None,
    }


def apply(
    harness: str, state: State | None, ev: Event, cfg: Config, history_for: History = _no_history,
    complete: Complete | None = None,
) -> tuple[State, list[Record]]:
    """One event: note what it says about the session, queue the held records the harness's file
    now completes (``complete``), then run the handler for the event's kind."""
    if state is None:
        state = new_state(harness, ev)
    _note_event(state, ev)
    _note_effects(state, ev)
    records: list[Record] = []
    if state.get("held"):
        _release(state, complete, False, records)
    if not _compaction_step(state, ev):
        handler = HANDLERS.get(ev["kind"])
        if handler is not None:
            handler(state, ev, cfg, history_for, records)
    return state, records


def _note_event(state: State, ev: Event) -> None:
    state["updated"] = ev["now"]
    if ev.get("cwd"):
        state["cwd"] = ev["cwd"]
    if ev.get("model"):
        state["model"] = ev["model"]
    if ev.get("agent_pid"):
        state["agent_pid"] = ev["agent_pid"]
        state["agent_pid_start"] = ev.get("agent_pid_start")


# --- what a harness shows only by its effects (Hermes) -----------------------------------

def _note_effects(state: State, ev: Event) -> None:
    """Facts no event of their own announces: a compaction (window + 1), a resume, the parent of
    a subagent that has a lineage of its own, the tokens of one model call."""
    if ev.get("parent_session_id") and not state.get("parent_session_id"):
        # the child thread's records name the parent thread and the call that spawned it
        state["parent_session_id"] = ev.get("parent_session_id")
        state["parent_call"] = ev.get("parent_call_id")
        state["parent_turn"] = ev.get("parent_turn_id")
    if ev.get("in_parent_process"):
        # a child run inside its parent's process and workspace (a Hermes subagent): the pid and
        # cwd indexes stay the parent's
        state["in_parent_process"] = True
    if state.get("in_parent_process"):
        state["cwd"] = state["agent_pid"] = None
    if ev.get("window_id") or "context_size" in ev:
        _window_signals(state, ev)
    for cid in ev.get("compaction_ids") or ():
        _count_compaction(state, cid)
    usage = ev.get("usage")
    turn = state["turn"]
    if usage and turn is not None and ev.get("turn_id") in (None, turn["id"]):
        tokens = turn.setdefault("tokens", dict(ZERO_TOKENS))
        for k, v in usage.items():
            tokens[k] = tokens.get(k, 0) + v
    if ev.get("resumed") and state["status"] == "ended":
        state["status"] = "active"  # a resume that sends no SessionStart (Hermes --resume)
        _push(state["sources"], "resume", 16)


def _window_signals(state: State, ev: Event) -> None:
    """A compaction seen by its effects: the harness's session id changed inside the thread
    (``window_id``, a rotation), or a request of the same turn holds fewer messages than the
    last one grew to (``context_size``). Both can show one compaction on one event: +1 once."""
    new = False
    wid = ev.get("window_id")
    if wid:
        seen = state.setdefault("window_ids", [])
        if not seen:
            seen.append(wid)
        elif wid not in seen:
            _push(seen, wid, TURNS_KEEP)
            new = True
    size = ev.get("context_size")
    if size is not None:
        expect = state.get("context_expect")
        if expect and expect[0] == ev.get("turn_id") and size < expect[1]:
            new = True
        state["context_expect"] = [ev.get("turn_id"), ev.get("context_grow_to", size)]
    if new:
        state["window"] = state.get("window", 0) + 1


# --- compaction --------------------------------------------------------------------------

def _compaction_step(state: State, ev: Event) -> bool:
    """True when the event belongs to a compaction and nothing else happens for it.

    Compaction events: PreCompact, PostCompact, SessionStart(compact), and Claude's own
    compaction subagent (SubagentStop with agent_type "") inside an open compaction. Any
    other event ends its own thread's open compaction.
    """
    kind = ev["kind"]
    if kind == "session_start" and ev.get("source") == "compact":
        _compaction(state, ev, "compact_start")
        return True
    if kind in ("pre_compact", "post_compact"):
        _compaction(state, ev, kind)
        return True
    if kind == "subagent_stop" and state.get("compact") is not None and not ev.get("agent_type"):
        return True
    if kind not in ("other", "agent_response"):
        _end_compaction(state, ev)
    return False


def _compaction(state: State, ev: Event, name: str) -> None:
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


def _end_compaction(state: State, ev: Event) -> None:
    """An event of a thread ends that thread's compaction, and only that one: a background
    subagent's tool call landing between PreCompact and SessionStart(compact) must not make
    the root's compaction count twice (the window went 0 -> 2)."""
    aid = ev.get("agent_id")
    if aid:
        agent = state["agents"].get(aid)
        if agent is not None:
            agent["compact"] = None
    else:
        state["compact"] = None


# --- handlers, one per event kind --------------------------------------------------------

def _on_session_start(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    _push(state["sources"], ev.get("source") or "startup", 16)
    state["start_seen"] = True
    if state["status"] in ("ended", "abandoned"):
        state["status"] = "active"
    _note_origin(state, ev)


def _note_origin(state: State, ev: Event) -> None:
    """Where a thread came from, and what the harness's own session file says it holds: a
    resumed session keeps its window and seq even when this lineage file was lost (Pi)."""
    if ev.get("parent_session_id") and not state.get("parent_session_id"):
        state["parent_session_id"] = ev.get("parent_session_id")
    if ev.get("forked_from") and not state.get("forked_from"):
        state["forked_from"] = ev.get("forked_from")
    resume = ev.get("resume")
    if not isinstance(resume, dict):
        return
    ids = [c for c in resume.get("compactions") or [] if isinstance(c, str)]
    seen = state.setdefault("compactions_seen", [])
    for cid in ids:
        if cid not in seen:
            _push(seen, cid, TURNS_KEEP)
    state["window"] = max(state["window"], len(ids))
    if isinstance(resume.get("seq"), int) and resume["seq"] > state["seq"]:
        state["seq"] = resume["seq"]


def _on_compacted(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    """A compaction the harness names by id (Pi's session_compact): +1 window once per id,
    whether it arrives as an event, late, or read back from the harness's file at a start."""
    _count_compaction(state, ev.get("compaction_id"))


def _count_compaction(state: State, cid: str | None) -> None:
    seen = state.setdefault("compactions_seen", [])
    if cid is not None and cid in seen:
        return
    state["window"] += 1
    if cid is not None:
        _push(seen, cid, TURNS_KEEP)


def _on_prompt(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    if ev.get("agent_id"):
        agent = _agent(state, ev)
        if agent is not None:  # a subagent's own turn (Codex): its searches carry this turn id
            agent["turn_id"] = ev.get("turn_id") or agent.get("turn_id")
            agent["status"] = "running"
        return
    tid = ev.get("turn_id")
    turn = state["turn"]
    if tid and ((turn and turn["id"] == tid) or tid in state["closed_turns"]):
        return  # duplicate delivery
    if turn is not None:
        records += _close_turn(state, ev, cfg, "interrupted", history_for)
    _open_turn(state, ev, tid, ev.get("prompt"))


def _on_pre_tool(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    agent, turn = _note_tool(state, ev, cfg, history_for, records)
    call = ev.get("tool_use_id")
    if agent is None and call and (ev.get("tool_name") or "") in ev.get("spawn_tools", ("Agent", "Task")):
        state["last_agent_call"] = call
    if ev.get("search") is None or not call:
        return
    tid = _call_turn(ev, agent, turn)
    if _same_call(state, ev, tid) is not None:
        return  # another event describing a call already counted (Cursor)
    key = f"{tid}/{call}"
    if key in state["pending"] or key in state["closed_calls"]:
        return
    if turn is not None and ev.get("agent_message"):
        turn.setdefault("texts", []).append(ev["agent_message"][-HISTORY_LIMIT:])
    if turn is not None and turn.get("texts"):
        ev = {**ev, "history_snapshot": _clip_texts(turn["texts"])}
    _register_search(state, ev, agent, turn, tid, call)


def _on_post_tool(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    agent, turn = _note_tool(state, ev, cfg, history_for, records)
    if ev.get("search") is None:
        return
    key = _closing_call(state, ev, agent, turn)
    if key is None:
        return
    p = state["pending"].pop(key)
    _push(state["closed_calls"], key, CLOSED_KEEP)
    for ck in p.get("call_keys", []):
        _push(state.setdefault("closed_call_keys", []), ck, CLOSED_KEEP)
    status = ev.get("status") or ("error" if ev["kind"] == "tool_failed" else "ok")
    dur = ev.get("duration_ms")
    if not isinstance(dur, int) or isinstance(dur, bool) or dur < 0:
        dur = max(0, int((ev["now"] - p["started"]) * 1000))
    hist = ev.get("history")
    if hist is None:
        hist = p.get("history")
    result = ev.get("result")
    if result:
        p["result"] = result  # what came back, for the local store only (capture/results.py)
    later = ev.get("history_later")
    if hist is None and later:  # the harness's file does not hold it yet: the record waits
        p["status"] = status
        p["duration_ms"] = dur
        state.setdefault("held", []).append({"kind": "search", "ended": ev["now"], "later": later, "call": p})
        return
    if hist is None:
        hist = history_for(p)
    records.append(_search_record(state, p, status, dur, hist))


def _closing_call(state: State, ev: Event, agent: Agent | None, turn: Turn | None) -> str | None:
    """The pending key a post-tool event closes; registers the call when its start was never
    seen (installed mid-call, a lost event). None: the call was already closed."""
    tid = _call_turn(ev, agent, turn)
    call = ev.get("tool_use_id")
    if not call and ev.get("pair_key"):
        paired = _paired_call(state, ev)
        if paired is not None:
            return paired
    same = _same_call(state, ev, tid)  # another event of the same call (Cursor)
    if same is not None and not (call and f"{tid}/{call}" in state["pending"]):
        return same
    if not call:
        if _call_key_closed(state, ev):
            return None
        call = _synthetic_call_id(ev)
    key = f"{tid}/{call}"
    if key in state["closed_calls"] or (key not in state["pending"] and _call_key_closed(state, ev)):
        return None
    if key not in state["pending"]:
        _register_search(state, ev, agent, turn, tid, call)
    return key


def _paired_call(state: State, ev: Event) -> str | None:
    """The pending call a post-tool event without a call id closes, by its pair key (Gemini CLI:
    the tool and its input, which its pre and post events both carry): the oldest with that key,
    in whichever thread it was started (parallel calls finish in any order; identical ones are
    the same search, so which of them closes first changes nothing but their durations); else
    the oldest search of the same tool in the event's own thread (another hook rewrote the
    input between the two events). None: no start was seen."""
    key = ev.get("pair_key")
    keyed = [(k, p) for k, p in state["pending"].items() if p.get("pair_key")]
    for k, p in keyed:  # insertion order: the oldest first
        if p["pair_key"] == key:
            return k
    for k, p in keyed:
        if p.get("tool") == (ev.get("tool_name") or "") and p.get("agent_id") == ev.get("agent_id"):
            return k
    return None


def _call_key_closed(state: State, ev: Event) -> bool:
    ck = ev.get("call_key")
    return bool(ck) and ck in state.get("closed_call_keys", [])


def _on_tool_batch(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    tid = ev.get("turn_id") or (state["turn"]["id"] if state["turn"] else None)
    keys = [f"{tid}/{c}" for c in ev.get("tool_calls") or [] if f"{tid}/{c}" in state["pending"]]
    records += _close_pending(state, keys, "cancelled", ev["now"], history_for)


def _on_agent_text(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    """Cursor afterAgentResponse / agent_message: the text before a call, kept as history."""
    if ev.get("agent_id"):
        return
    turn = _ensure_turn(state, ev, cfg, history_for, records)
    if turn is not None and ev.get("text"):
        texts = turn.setdefault("texts", [])
        texts.append(ev["text"][-HISTORY_LIMIT:])
        while sum(len(t) for t in texts) > HISTORY_LIMIT and len(texts) > 1:
            texts.pop(0)


def _on_notify(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    """Codex `notify` agent-turn-complete: after Stop it is the same turn; alone, the only one."""
    tid = ev.get("turn_id")
    if ev.get("agent_id") or (tid and tid in state["closed_turns"]):
        return  # a child thread's turn, or one Stop already closed: a turn counts once
    if state["turn"] is None or (tid and state["turn"]["id"] != tid):
        if state["turn"] is not None:
            records += _close_turn(state, ev, cfg, "abandoned", history_for)
        _open_turn(state, ev, tid, ev.get("prompt"))
    records += _close_turn(state, ev, cfg, "completed", history_for)


def _on_subagent_start(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    if ev.get("agent_id") in state["agents"]:
        return
    agent = _agent(state, ev)
    if agent is not None and ev.get("parent_call"):
        agent["parent_call"] = ev["parent_call"]  # Cursor names the spawning call itself


def _on_subagent_stop(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    agent = _agent(state, ev)
    if agent is None or agent["status"] == "ended":
        return
    records += _close_pending(state, _pending_of(state, ev["agent_id"]), "interrupted", ev["now"], history_for)
    agent["status"] = "ended"
    _prune_agents(state)


_STOP_OUTCOME = {"stop": "completed", "stop_failure": "error", "interrupt": "interrupted"}


def _on_stop(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    if ev.get("agent_id"):  # a subagent's own Stop (Codex): ends its run, not the turn
        _on_subagent_stop(state, ev, cfg, history_for, records)
        return
    tid = ev.get("turn_id")
    if tid and tid in state["closed_turns"]:
        return
    if state["turn"] is None:
        _open_turn(state, ev, tid, None)
    elif tid and state["turn"]["id"] != tid:
        records += _close_turn(state, ev, cfg, "interrupted", history_for)
        _open_turn(state, ev, tid, None)
    outcome = _STOP_OUTCOME[ev["kind"]]
    if ev["kind"] == "stop" and ev.get("status") in ("error", "aborted"):
        outcome = "error" if ev["status"] == "error" else "interrupted"
    records += _close_turn(state, ev, cfg, outcome, history_for)


def _on_session_end(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> None:
    outcome = ev.get("outcome") or "interrupted"  # abandoned: the agent died without saying so (Pi)
    records += _end_session(state, ev, cfg, outcome, "ended" if outcome == "interrupted" else outcome, history_for)


# event kind -> handler; kinds not here (other, agent_response) only note the session
HANDLERS: dict[str, Handler] = {
    "session_start": _on_session_start,
    "prompt": _on_prompt,
    "pre_tool": _on_pre_tool,
    "post_tool": _on_post_tool,
    "tool_failed": _on_post_tool,
    "tool_batch": _on_tool_batch,
    "agent_text": _on_agent_text,
    "notify_turn_complete": _on_notify,
    "subagent_start": _on_subagent_start,
    "subagent_stop": _on_subagent_stop,
    "stop": _on_stop,
    "stop_failure": _on_stop,
    "interrupt": _on_stop,
    "session_end": _on_session_end,
    "compacted": _on_compacted,
}


# --- threads, turns and calls ------------------------------------------------------------

def _push(lst: list[Any], item: Any, keep: int) -> None:
    lst.append(item)
    if len(lst) > keep:
        del lst[: len(lst) - keep]


def _agent(state: State, ev: Event, create: bool = True) -> Agent | None:
    aid = ev.get("agent_id")
    if not aid:
        return None
    agents = state["agents"]
    if aid not in agents and aid in state.get("agents_gone", ()):
        # pruned long ago: a late event of it changes nothing kept (a copy, never stored)
        return {"status": "ended", "seq": 0, "window": 0, "turn_id": ev.get("turn_id"), "pruned": True}
    if aid not in agents and create:
        agents[aid] = {
            "agent_type": ev.get("agent_type"),
            "status": "running",
            "seq": 0,
            "window": 0,
            "turn_id": ev.get("turn_id"),
            "parent_call": state.get("last_agent_call"),
            # the root turn under way when it started: its searches count toward that turn
            "parent_turn": turn["id"] if (turn := state["turn"]) else None,
        }
    agent: Agent | None = agents.get(aid)
    return agent


def _prune_agents(state: State) -> None:
    """Bound ``agents``: finished ones past the newest AGENTS_ENDED_KEEP, then any past
    AGENTS_MAX without an open call, leave it; never one whose call's record is held (it names
    the agent's type, parent call and turn). What a later event can still need stays: the id
    (a late duplicate is recognised) and the searches counted toward a root turn still open."""
    agents = state["agents"]
    ended = [aid for aid, a in agents.items() if a["status"] in ("ended", "abandoned")]
    drop = ended[: max(0, len(ended) - AGENTS_ENDED_KEEP)]
    waiting = {h["call"].get("agent_id") for h in state.get("held", ()) if "call" in h}
    drop = [aid for aid in drop if aid not in waiting]
    if len(agents) - len(drop) > AGENTS_MAX:
        busy = {p.get("agent_id") for p in state["pending"].values()} | waiting
        extra = [aid for aid in agents if aid not in busy and aid not in drop]
        drop += extra[: len(agents) - len(drop) - AGENTS_MAX]
    if not drop:
        return
    open_turn = turn["id"] if (turn := state["turn"]) else None
    folded = state.setdefault("agent_searches", {})
    gone = state.setdefault("agents_gone", [])
    for aid in drop:
        a = agents.pop(aid)
        for tid, n in (a.get("searches_by_turn") or {}).items():
            if tid == open_turn or tid not in state["closed_turns"]:
                folded[tid] = folded.get(tid, 0) + n
        _push(gone, aid, CLOSED_KEEP)
    while len(folded) > TURNS_KEEP:  # counts for turns that will never close as root turns
        del folded[next(iter(folded))]


def _open_turn(state: State, ev: Event, turn_id: str | None, prompt: str | None) -> Turn:
    turn: Turn = {
        "id": turn_id or _gen_id("turn"),
        "record_id": os.urandom(16).hex(),
        "started": ev["now"],
        # cut as it would be queued (base/spool.py): a 12 MB prompt would otherwise be rewritten
        # with the lineage at every event of its turn
        "prompt": spool.cut_text(prompt) if prompt else prompt,
        "tools": [],
        "searches": 0,
        "window": state["window"],
    }
    state["turn"] = turn
    return turn


def _ensure_turn(state: State, ev: Event, cfg: Config, history_for: History, records: list[Record]) -> Turn | None:
    """The open root turn for this event; opens one for a turn we never saw start.

    A different turn id without its prompt means events were lost (hooks installed mid-turn,
    a crash): the old turn is closed as abandoned rather than silently merged.
    """
    turn: Turn | None = state["turn"]
    tid = ev.get("turn_id")
    if turn is not None and (not tid or turn["id"] == tid):
        return turn
    if tid and tid in state["closed_turns"]:
        return None  # a late event of a turn already closed
    if turn is not None:
        records += _close_turn(state, ev, cfg, "abandoned", history_for)
    return _open_turn(state, ev, tid, None)


def _note_tool(
    state: State, ev: Event, cfg: Config, history_for: History, records: list[Record],
) -> tuple[Agent | None, Turn | None]:
    """The thread a tool event belongs to (a subagent, or the root's turn); names the tool in the turn."""
    agent = _agent(state, ev)
    turn = _ensure_turn(state, ev, cfg, history_for, records) if agent is None else None
    tool = ev.get("tool_name") or ""
    if turn is not None and tool and tool not in turn["tools"]:
        turn["tools"].append(tool)
    return agent, turn


def _call_turn(ev: Event, agent: Agent | None, turn: Turn | None) -> str | None:
    """The turn id a call's records carry: the event's, else its subagent's or root turn's."""
    if ev.get("turn_id"):
        tid: str | None = ev["turn_id"]
        return tid
    if agent is not None:
        # a subagent without turns of its own (Gemini CLI) runs in the root turn that started it
        tid = agent.get("turn_id") or agent.get("parent_turn")
        return tid
    return turn["id"] if turn else None


def _clip_texts(texts: list[str]) -> str:
    text = "\n\n".join(t for t in texts if t)
    return text[-HISTORY_LIMIT:]


def _synthetic_call_id(ev: Event) -> str:
    """A call id for an event that has none (Cursor's beforeShellExecution)."""
    from jevlin_hooks.base import paths

    seed = f"{ev.get('turn_id')}|{ev.get('call_key') or ev.get('command') or ''}|{ev['now']}"
    return "call-" + paths.sha256_hex(seed.encode("utf-8", "surrogatepass"))[:24]


def _same_call(state: State, ev: Event, tid: str | None) -> str | None:
    """The pending call that another event already described (same turn, same call key)."""
    ck = ev.get("call_key")
    if not ck:
        return None
    for key, p in state["pending"].items():
        if p.get("turn_id") == tid and ck in p.get("call_keys", []) and p.get("agent_id") == ev.get("agent_id"):
            return str(key)
    return None


def _register_search(
    state: State, ev: Event, agent: Agent | None, turn: Turn | None, tid: str | None, call: str,
) -> None:
    holder = agent if agent is not None else state
    holder["seq"] = holder.get("seq", 0) + 1
    state["searches"] += 1
    if agent is not None:
        by_turn = agent.setdefault("searches_by_turn", {})
        owner = agent.get("parent_turn") or tid or ""
        by_turn[owner] = by_turn.get(owner, 0) + 1
    elif turn is not None:
        turn["searches"] += 1
    ck = ev.get("call_key")
    state["pending"][f"{tid}/{call}"] = {
        "record_id": os.urandom(16).hex(),
        "seq": holder["seq"],
        "call_id": call,
        "turn_id": tid,
        "agent_id": ev.get("agent_id"),
        "window": holder.get("window", 0),
        "started": ev["now"],
        "tool": ev.get("tool_name") or "",
        "query": ev.get("search") or "",
        "command": ev.get("command") or "",
        "transcript_path": ev.get("agent_transcript_path") or ev.get("transcript_path"),
        "history": ev.get("history_snapshot"),
        "call_keys": [ck] if ck else [],
    }
    pk = ev.get("pair_key")
    if pk:
        state["pending"][f"{tid}/{call}"]["pair_key"] = pk


def _pending_of(state: State, agent_id: str | None) -> list[str]:
    return [k for k, p in state["pending"].items() if p.get("agent_id") == agent_id]


def _close_pending(state: State, keys: list[str], status: str, now: float, history_for: History) -> list[Record]:
    out = []
    for key in keys:
        p = state["pending"].pop(key, None)
        if p is None:
            continue
        _push(state["closed_calls"], key, CLOSED_KEEP)
        dur = max(0, int((now - p["started"]) * 1000))
        out.append(_search_record(state, p, status, dur, history_for(p)))
    return out


def _close_turn(state: State, ev: Event, cfg: Config, outcome: str, history_for: History) -> list[Record]:
    turn = state["turn"]
    if turn is None:
        return []
    now = ev["now"]
    records = _close_pending(state, _pending_of(state, None), "interrupted", now, history_for)
    state["turn"] = None
    _push(state["closed_turns"], turn["id"], TURNS_KEEP)
    searches = turn["searches"] + state.get("agent_searches", {}).pop(turn["id"], 0) + sum(
        a.get("searches_by_turn", {}).get(turn["id"], 0) for a in state["agents"].values()
    )
    _push(state["turns"], {
        "id": turn["id"],
        "started": turn["started"],
        "ended": now,
        "outcome": outcome,
        "searches": searches,
        "tools": turn["tools"],
        "window": turn["window"],
        "model": None,
        "tokens": dict(ZERO_TOKENS),
        "error": ev.get("error") if outcome == "error" else None,
    }, TURNS_KEEP)
    end: Held = {"kind": "turn_end", "ended": now, "later": {}, "turn": turn, "outcome": outcome,
                 "final": ev.get("last_message"), "model": ev.get("model"), "searches": searches,
                 "window": state["window"]}  # where the turn ended: a compaction inside it shows
    send = bool(cfg.get("miner", {}).get("turn_end")) and searches > 0
    later = ev.get("summary_later")
    if send and later:  # the harness's file does not hold the summary yet: the record waits
        end["later"] = later
        state.setdefault("held", []).append(end)
        return records
    return records + _finish_turn(state, end, ev.get("summary") or {}, send)


def _finish_turn(state: State, end: Held, summary: dict[str, Any], send: bool = True) -> list[Record]:
    """A closed turn's usage, model and last text (from the harness's ``summary``), into its
    entry in ``turns`` and, when sent, its turn_end record."""
    turn = end["turn"]
    tokens: Tokens = summary.get("tokens") or turn.get("tokens") or dict(ZERO_TOKENS)
    model = summary.get("model") or end.get("model") or state.get("model")
    if model:
        state["model"] = model
    final = end.get("final")
    if final is None:
        final = summary.get("last_text")
    if final is None and turn.get("texts"):
        final = turn["texts"][-1]
    for done in reversed(state["turns"]):
        if done["id"] == turn["id"]:
            done["model"] = model
            done["tokens"] = tokens
            break
    if not send:
        return []
    return [_turn_end_record(state, turn, end["ended"], end.get("outcome") or "completed", final, model, tokens,
                             end.get("searches", 0), end.get("window", state["window"]))]


def _release(state: State, complete: Complete | None, final: bool, records: list[Record]) -> None:
    """Queue the held records, oldest first, that ``complete`` finds written; stop at the first it
    does not (the harness writes its file in order: a newer one would not be there either, and
    records go out in the order their calls ended). ``final`` (the sweep): each with the best
    there is. A harness that cannot read its file holds no session hostage: the record goes out
    without what it could not read."""
    held = state.get("held") or []
    while held:
        item = held[0]
        last = final or len(held) > HELD_MAX
        got: dict[str, Any] | None
        try:
            got = complete(item, last) if complete is not None else None
        except Exception:  # noqa: BLE001 - see above
            got = {}
        if got is None:
            if not last:
                break
            got = {}
        held.pop(0)
        if item["kind"] == "search" and "call" in item:
            p = item["call"]
            if got.get("model"):
                state["model"] = got["model"]
            records.append(_search_record(state, p, p.get("status") or "ok", p.get("duration_ms"), got.get("history")))
        elif item["kind"] == "turn_end" and "turn" in item:
            records += _finish_turn(state, item, got.get("summary") or {})
    if not held:
        state.pop("held", None)


def _end_session(
    state: State, ev: Event, cfg: Config, outcome: str, status: str, history_for: History,
) -> list[Record]:
    """Close everything still open: calls and the turn get ``outcome``, threads ``status``."""
    records = _close_pending(state, list(state["pending"]), outcome, ev["now"], history_for)
    if state["turn"] is not None:
        records += _close_turn(state, ev, cfg, outcome, history_for)
    for a in state["agents"].values():
        if a["status"] not in ("ended", "abandoned"):
            a["status"] = status
    _prune_agents(state)
    state["status"] = status
    state["updated"] = ev["now"]
    return records


def close_stale(
    state: State, cfg: Config, now: float, max_age: float, history_for: History = _no_history,
    complete: Complete | None = None,
) -> list[Record]:
    """Close what a crashed agent left open: pending searches and the turn, as abandoned; and
    queue the records still held (a session killed before its harness wrote their content, or
    ended before it did), each with the best its file holds now. ``complete``: the harness's;
    None: the one its registry entry names (the daemon hands over ``history_for`` only)."""
    if now - state.get("updated", now) < max_age:
        return []
    held = state.get("held")
    if state["turn"] is None and not state["pending"] and not held:
        return []
    records: list[Record] = []
    if held:
        _release(state, complete or _harness_complete(state.get("harness", "")), True, records)
    if state["turn"] is None and not state["pending"]:
        return records  # only held records were left: the session itself ended as it said
    ev: Event = {"kind": "session_end", "now": now, "session_id": state["session_id"]}
    return records + _end_session(state, ev, cfg, "abandoned", "abandoned", history_for)


def _harness_complete(harness: str) -> Complete | None:
    """A harness's ``complete`` (an optional part of its capture module, harnesses/parts.py)."""
    from jevlin_hooks import harnesses

    try:
        found: Complete | None = getattr(harnesses.capture(harness), "complete", None)
    except ValueError:  # a lineage file of a harness this version does not know
        return None
    return found


# --- records -----------------------------------------------------------------------------

def _search_record(state: State, p: Pending, status: str, duration_ms: int | None, history: str | None) -> Record:
    agent_id = p.get("agent_id")
    agent = state["agents"].get(agent_id) if agent_id else None
    host_meta: dict[str, Any] = {"platform": sys.platform}
    if state.get("model"):
        host_meta["model"] = state["model"]
    if agent and agent.get("agent_type"):
        host_meta["agent_type"] = agent["agent_type"]
    host_meta["history_source"] = "transcript" if history is not None else "none"
    if state.get("forked_from"):
        host_meta["forked_from"] = state["forked_from"]
    rec: SearchRecord = {
        "v": SCHEMA,
        "record_id": p["record_id"],
        "kind": "search",
        "ts": iso(p["started"]),
        "harness": state["harness"],
        "session_id": agent_id or state["session_id"],
        "turn_id": p.get("turn_id"),
        "call_id": p["call_id"],
        # a subagent names its session and spawning call; a root thread only when it is a
        # child agent that said so (a Pi child process; a Hermes subagent, with its call)
        "parent_session_id": state["session_id"] if agent_id else state.get("parent_session_id"),
        "parent_call_id": agent.get("parent_call") if agent else state.get("parent_call"),
        # the root turn the subagent was started in (a Codex child thread has turns of its own;
        # a Hermes subagent a lineage of its own): the OTLP sink puts its spans in that turn's trace
        "parent_turn_id": agent.get("parent_turn") if agent else state.get("parent_turn"),
        "window": p["window"],
        "seq": p["seq"],
        "history": history or "",
        "host_meta": host_meta,
        "query": p.get("query") or "",
        "tool": p.get("tool") or "",
        "status": status,
        "duration_ms": duration_ms,
    }
    if p.get("result"):
        rec["result"] = p["result"]
    return rec


def _turn_end_record(
    state: State, turn: Turn, now: float, outcome: str, final: str | None, model: str | None,
    tokens: dict[str, int], searches: int, window: int,
) -> Record:
    return {
        "v": SCHEMA,
        "record_id": turn["record_id"],
        "kind": "turn_end",
        "ts": iso(now),
        "harness": state["harness"],
        "session_id": state["session_id"],
        "turn_id": turn["id"],
        "parent_session_id": state.get("parent_session_id"),
        "window": window,
        "prompt": turn.get("prompt") or "",
        "final_message": final or "",
        "tools": turn["tools"],
        "duration_ms": max(0, int((now - turn["started"]) * 1000)),
        "outcome": outcome,
        "model": model,
        "tokens": tokens,
        "search_count": searches,
    }
