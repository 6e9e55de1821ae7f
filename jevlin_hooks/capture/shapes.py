"""The shapes the hook path passes around, for type checkers only.

Never imported at run time: ``typing`` (which imports ``re``) costs more than a hook's whole
start-up budget, so every module names these under ``if TYPE_CHECKING:`` with string
annotations, and at run time they are the plain dicts that lineage files and queued records
are. tests/test_imports.py checks that no hook imports this module (or typing).

Field meanings: the normalized event in engine.py, the lineage state in lineage.py, the
records in DESIGN.md and docs/records.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NotRequired, Required, TypedDict

Config = dict[str, Any]
Tokens = dict[str, int]


class Event(TypedDict, total=False):
    """One hook event, normalized by a harness module (harnesses/<name>/capture.py: normalize)."""

    kind: Required[str]  # session_start | prompt | pre_tool | post_tool | tool_failed | ...
    now: Required[float]
    session_id: Required[str]  # the root thread's lineage
    turn_id: str | None
    agent_id: str | None  # a subagent (child thread) inside the root's lineage
    agent_type: str | None
    source: str  # session_start: startup | resume | compact | fork | ...
    cwd: str | None
    transcript_path: str | None
    agent_transcript_path: str | None
    model: str | None
    prompt: str
    tool_name: str
    tool_use_id: str | None
    search: str | None  # the query, or None when the call is not a search
    command: str
    call_key: str | None  # what several events describing one call share (Cursor)
    pair_key: str | None  # what a call's pre and post events share when neither names it (Gemini CLI)
    duration_ms: int | None
    status: str
    last_message: str | None
    error: str
    spawn_tools: tuple[str, ...]
    parent_call: str | None
    parent_conversation_id: str | None
    thread_id: str
    text: str
    agent_message: str
    tool_calls: list[str]
    # session_start of a child agent process, a fork or a resume (Pi); see engine.py
    parent_session_id: str | None
    forked_from: str | None
    resume: dict[str, Any] | None  # {compactions: [ids], seq}
    compaction_id: str | None  # compacted: counted once per id
    compaction_ids: list[str]  # compactions a harness's own file shows (Gemini CLI), each counted once
    outcome: str  # session_end: interrupted (default) | abandoned
    pi_session_file: str | None  # Pi's own session file, read back at a start (harnesses/pi/capture.py)
    pi_parent_file: str | None
    pi_file_size: int
    # what a harness shows only by its effects (Hermes; engine._note_effects)
    window_id: str | None  # the harness's own session id, which rotates at a compaction
    context_size: int  # messages in a model request ...
    context_grow_to: int  # ... and what the turn's next request should hold at least
    usage: Tokens | None  # the tokens of one model call
    resumed: bool
    parent_call_id: str | None  # a subagent with a lineage of its own: its spawning call ...
    parent_turn_id: str | None  # ... and the parent's turn
    in_parent_process: bool
    raw_session_id: str  # the harness's own session id before routing (Hermes, Copilot)
    hook_time: int | None  # the payload's own timestamp, ms (Copilot: finds the hook's line in its session file)
    platform: str | None  # Hermes: "subagent" for a child run
    result: dict[str, Any] | None  # what a search returned, for the local store (capture/results.py)
    # added by hook.py and the harness's enrich()
    agent_pid: int | None
    agent_pid_start: float | None
    history: str | None
    history_snapshot: str
    summary: dict[str, Any] | None  # the turn's usage: tokens, model, last_text
    # what the harness's file does not hold yet (Copilot writes it late): the engine holds the
    # record back (``Held.later``) and the harness's ``complete`` reads it at a later event
    history_later: dict[str, Any] | None  # a search's end: its history
    summary_later: dict[str, Any] | None  # the root's stop: the turn's summary (only when turn ends are sent)


class Compaction(TypedDict):
    seen: list[str]
    started: float


class Pending(TypedDict, total=False):
    """A search call under way, keyed ``<turn id>/<call id>`` in ``State.pending``."""

    record_id: Required[str]
    seq: Required[int]
    call_id: Required[str]
    turn_id: Required[str | None]
    agent_id: Required[str | None]
    window: Required[int]
    started: Required[float]
    tool: str
    query: str
    command: str
    transcript_path: str | None
    history: str | None
    call_keys: list[str]
    pair_key: str  # Gemini CLI: its post event finds it by this (engine._paired_call)
    result: dict[str, Any]
    status: str  # a held call (``Held``): what its end said
    duration_ms: int


class Turn(TypedDict, total=False):
    """The root thread's open turn."""

    id: Required[str]
    record_id: Required[str]
    started: Required[float]
    prompt: str | None
    tools: Required[list[str]]
    searches: Required[int]
    window: Required[int]
    texts: list[str]  # assistant text seen in the turn (Cursor): a search's history
    tokens: Tokens  # summed from the model calls' usage (Hermes)


class Held(TypedDict, total=False):
    """A record held back at its end because the harness's own file did not hold its content yet
    (``State.held``, oldest first): the harness's ``complete`` reads it at a later event of the
    session, or the daemon's sweep does (engine._release). Everything the end told is kept here."""

    kind: Required[str]  # search | turn_end
    ended: Required[float]
    later: Required[dict[str, Any]]  # the harness's own: where and what to read (Event.history_later / summary_later)
    call: Pending  # search: the ended call, with its status and duration
    turn: Turn  # turn_end: the closed turn, and what its record needs besides the summary
    outcome: str
    final: str | None
    model: str | None
    searches: int
    window: int


class DoneTurn(TypedDict):
    id: str
    started: float
    ended: float
    outcome: str
    searches: int
    tools: list[str]
    window: int
    model: str | None
    tokens: Tokens
    error: str | None


class Agent(TypedDict, total=False):
    """A subagent (child thread) under ``State.agents``."""

    agent_type: str | None
    status: Required[str]  # running | ended | abandoned
    seq: Required[int]
    window: Required[int]
    compact: Compaction | None
    turn_id: str | None
    parent_call: str | None
    parent_turn: str | None
    searches_by_turn: dict[str, int]
    pruned: bool  # a stand-in for an agent pruned long ago (never stored)


class State(TypedDict, total=False):
    """One harness session's lineage file (sessions/<harness>.<session>.json)."""

    v: Required[int]
    harness: Required[str]
    session_id: Required[str]
    updated: Required[float]
    status: Required[str]  # active | ended | abandoned
    start_seen: Required[bool]
    sources: Required[list[str]]
    cwd: str | None
    model: str | None
    agent_pid: int | None
    agent_pid_start: float | None
    window: Required[int]
    compact: Compaction | None
    seq: Required[int]
    searches: Required[int]
    turn: Required[Turn | None]
    turns: Required[list[DoneTurn]]
    closed_turns: Required[list[str]]
    pending: Required[dict[str, Pending]]
    held: list[Held]  # records waiting for the harness's file, oldest first (engine._release)
    closed_calls: Required[list[str]]
    closed_call_keys: list[str]
    agents: Required[dict[str, Agent]]
    agents_gone: list[str]  # ids of agents pruned from ``agents`` (a late event is recognised)
    agent_searches: dict[str, int]  # pruned agents' searches, by the root turn they count toward
    last_agent_call: str | None
    parent_session_id: str | None  # a child agent process names its parent at its start (Pi)
    parent_call: str | None  # a Hermes subagent's spawning call and the parent's turn
    parent_turn: str | None
    in_parent_process: bool  # a child run inside its parent's process: pid/cwd stay the parent's
    forked_from: str | None
    compactions_seen: list[str]  # compaction ids already counted (Pi)
    window_ids: list[str]  # the harness session ids seen (Hermes rotates one at a compaction)
    context_expect: list[Any]  # [turn id, messages the turn's next request should hold at least]


class SearchRecord(TypedDict):
    v: int
    result: NotRequired[dict[str, Any]]  # local store only: what came back (stripped by make_safe)
    record_id: str
    kind: str  # "search"
    ts: str
    harness: str
    session_id: str
    turn_id: str | None
    call_id: str
    parent_session_id: str | None
    parent_call_id: str | None
    parent_turn_id: str | None  # a subagent's: the root turn it was started in
    window: int
    seq: int
    history: str
    host_meta: dict[str, Any]
    query: str
    tool: str
    status: str
    duration_ms: int | None


class TurnEndRecord(TypedDict):
    v: int
    record_id: str
    kind: str  # "turn_end"
    ts: str
    harness: str
    session_id: str
    turn_id: str
    parent_session_id: str | None
    window: int
    prompt: str
    final_message: str
    tools: list[str]
    duration_ms: int
    outcome: str
    model: str | None
    tokens: Tokens
    search_count: int


Record = SearchRecord | TurnEndRecord
History = Callable[[Pending], "str | None"]
# a harness's ``complete(item, final)``: what its file now says of a held record (``{"history",
# "model"}`` for a search, ``{"summary"}`` for a turn end); None: not written yet. ``final``
# (the daemon's sweep): the best there is, never None.
Complete = Callable[[Held, bool], "dict[str, Any] | None"]
Transition = Callable[["State | None"], "tuple[State | None, list[Record]]"]

