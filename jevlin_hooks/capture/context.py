"""Which lineage does this search process belong to? Read-only.

Lookup order (narrowest evidence wins, DESIGN.md "Identity"):
1. the environment: ``CLAUDE_CODE_SESSION_ID`` (Claude Code's shell tool), ``CODEX_SESSION_ID`` /
   ``CODEX_THREAD_ID`` / ``CODEX_TOOL_CALL_ID`` (Codex's), ``HERMES_SESSION_ID`` (Hermes's, only a
   hint: a rotated id is mapped to its thread, and a subagent's id to its parent thread when the
   parent's pending call is this command);
2. inside that lineage, the pending call the PreToolUse hook recorded for this command;
3. process ancestry: an ancestor that is a known agent process (``sessions/pid``);
4. the workspace, exact match (``sessions/cwd``): never "the nearest parent directory";
5. a per-shell identity (session leader pid and start time), hashed with the local key.

Nothing here writes under ``$JEVLIN_HOME`` except the key on first use, when it can: a search
may run in a sandbox that can read the home but not write it.
"""

from __future__ import annotations

import os

from jevlin_hooks.capture import lineage, procinfo

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from jevlin_hooks.capture.shapes import Pending, State

UNUSABLE = "settings unusable, so tracing is off; `jevlin-hooks status` says why"


def _choose_call(state: State, agent_id: str | None, call_id: str | None) -> Pending | None:
    pending = list(state.get("pending", {}).values())
    if call_id:
        for p in pending:
            if p.get("call_id") == call_id:
                return p
        return None
    if agent_id is not None:
        pending = [p for p in pending if p.get("agent_id") == agent_id] or pending
    if len(pending) <= 1:
        return pending[0] if pending else None
    # Several searches in flight (parallel calls, subagents): the one whose command text is
    # what one of our ancestor shells was started with.
    lines = [procinfo.cmdline(pid) for pid in procinfo.ancestors()[:8]]
    matching = [p for p in pending if p.get("command") and any(p["command"] in line for line in lines)]
    pick = matching or pending
    return max(pick, key=lambda p: p.get("started", 0))


def _named(home: str, harness: str, session_id: str) -> State | None:
    """The lineage a session id names: its own, or the thread it rotated away from (Hermes)."""
    state = lineage.read(home, lineage.file_name(harness, session_id))
    if state is None:
        idx = lineage.read_index(home, "alias", lineage.workspace_key(f"{harness}:{session_id}"))
        if idx and isinstance(idx.get("lineage"), str):
            state = lineage.read(home, idx["lineage"])
    return state


def _command_matches(state: State, lines: list[str]) -> bool:
    return any((c := p.get("command")) and any(c in line for line in lines)
               for p in state.get("pending", {}).values())


def _parent_if_its_call(home: str, harness: str, state: State) -> State:
    """A subagent's id in the environment may be stale: Hermes's tool shell keeps the child's id
    in the parent's later tools. The thread whose pending call this command is wins."""
    parent = lineage.read(home, lineage.file_name(harness, state.get("parent_session_id") or ""))
    if parent is None or not parent.get("pending"):
        return state
    lines = [procinfo.cmdline(pid) for pid in procinfo.ancestors()[:8]]
    if _command_matches(parent, lines) and not _command_matches(state, lines):
        return parent
    return state


def _from_state(
    state: State, source: str, agent_id: str | None = None, call_id: str | None = None
) -> dict[str, Any]:
    call = _choose_call(state, agent_id, call_id)
    if call is not None and call.get("agent_id"):
        agent_id = call["agent_id"]
    agent = state.get("agents", {}).get(agent_id) if agent_id else None
    turn = state.get("turn")
    out: dict[str, Any] = {
        "source": source,
        "harness": state.get("harness"),
        "raw_session_id": agent_id if agent_id else state.get("session_id"),
        "raw_parent_session_id": state.get("session_id") if agent_id else state.get("parent_session_id"),
        "raw_turn_id": (call and call.get("turn_id")) or (agent and agent.get("turn_id")) or (turn and turn["id"]),
        "raw_call_id": (call and call["call_id"]) or call_id,
        "window": call["window"] if call else (agent or state).get("window", 0),
        "seq": call["seq"] if call else None,
    }
    return out


def _argv(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read(1 << 20)
    except OSError:
        return []
    return raw.decode("utf-8", "surrogateescape").split("\0")[:-1] if raw else []


def _runs(argv: list[str], command: str) -> bool:
    """Is ``argv`` exactly ``command``: ``sh -c <command>``, or the command's own words (its
    program as a path, or behind the interpreter of a script: ``python3 /usr/bin/jevlin ...``)?"""
    if not argv or not command:
        return False
    if argv[-1] == command and len(argv) >= 2:
        return True
    from jevlin_hooks.capture import searchmatch

    commands = searchmatch.simple_commands(command)
    if len(commands) != 1:
        return False
    words = commands[0]
    k = len(words)
    if len(argv) < k or argv[len(argv) - k + 1:] != words[1:]:
        return False
    return argv[len(argv) - k].rsplit("/", 1)[-1] == words[0].rsplit("/", 1)[-1]


def _belongs(state: State) -> bool:
    """May this process take the workspace's lineage? Only a descendant of the agent that wrote
    it, or (a harness whose shell tool does not descend from the process that runs its hooks,
    such as Cursor) the process running exactly a pending call's command. Anything else (the
    user's own terminal, another agent in the same directory) gets its per-shell identity."""
    chain = [os.getpid(), *procinfo.ancestors()]
    pid = state.get("agent_pid")
    if isinstance(pid, int) and pid in chain and procinfo.start_time(pid) == state.get("agent_pid_start"):
        return True
    found = [p.get("command") for p in (state.get("pending") or {}).values() if isinstance(p, dict)]
    commands = [c for c in found if isinstance(c, str) and c]
    if not commands:
        return False
    for pid in chain[:8]:
        argv = _argv(pid)
        if any(_runs(argv, c) for c in commands):
            return True
    return False


def resolve_raw(home: str, env: Mapping[str, str] | None = None, cwd: str | None = None) -> dict[str, Any]:
    env = os.environ if env is None else env
    from jevlin_hooks import harnesses

    for name, var in harnesses.ENV_SESSION.items():
        if not env.get(var):
            continue  # only the harness whose shell this is gets imported
        named = harnesses.capture(name).from_env(env)
        if named is None:
            continue
        state = _named(home, name, named[0])
        if state is not None:
            if state.get("parent_session_id") and named[2] is None:
                state = _parent_if_its_call(home, name, state)
            return _from_state(state, "env", named[1], named[2])
    # Our own pid first: a shell that runs one command execs it, so the agent's shell tool
    # process can be this very process.
    for pid in [os.getpid(), *procinfo.ancestors()]:
        idx = lineage.read_index(home, "pid", str(pid))
        if idx and idx.get("start") == procinfo.start_time(pid):
            state = lineage.read(home, idx.get("lineage", ""))
            if state is not None and state.get("status") != "ended":
                return _from_state(state, "ancestry")
    try:
        here = cwd or os.getcwd()
    except OSError:
        here = None
    if here:
        idx = lineage.read_index(home, "cwd", lineage.workspace_key(here))
        if idx:
            state = lineage.read(home, idx.get("lineage", ""))
            where = state.get("cwd") if state is not None else None
            if state is not None and where and os.path.normpath(where) == os.path.normpath(here) \
                    and state.get("status") != "ended" and _belongs(state):
                return _from_state(state, "workspace")
    leader = os.getsid(0)
    return {
        "source": "shell",
        "harness": "shell",
        "raw_session_id": f"shell:{leader}:{procinfo.start_time(leader)}:{os.getuid()}",
        "raw_parent_session_id": None,
        "raw_turn_id": None,
        "raw_call_id": None,
        "window": 0,
        "seq": None,
    }


def resolve(home: str, env: Mapping[str, str] | None = None, cwd: str | None = None) -> dict[str, Any]:
    """The trace fields a search sends in-band: ids hashed with the local key."""
    from jevlin_hooks.base import config

    cfg, _ = config.settings(home)
    if cfg is None:  # fail closed: a config we cannot use means tracing is off
        # a fixed text: this answer may travel with the search, and the reason names local paths
        return {"trace": "off", "error": UNUSABLE}
    if not config.trace_on(cfg):
        return {"trace": "off"}
    raw = resolve_raw(home, env, cwd)
    from jevlin_hooks.privacy import ids

    try:
        key = ids.load_key(home, create=False) or ids.load_key(home, create=True)
    except ids.KeyError_ as exc:
        return {"trace": "on", "error": str(exc), "source": raw["source"]}
    if key is None:
        return {"trace": "on", "error": "no local key yet (no hook has run)", "source": raw["source"]}
    out = {"trace": "on", "source": raw["source"], "harness": raw["harness"]}
    for name in ("session_id", "parent_session_id", "turn_id", "call_id"):
        out[name] = ids.hash_id(raw[f"raw_{name}"], key)
    out["window"] = raw["window"]
    out["seq"] = raw["seq"]
    return out


def main() -> int:
    from jevlin_hooks.base import fastjson, paths

    try:
        out = resolve(paths.home())
    except Exception as exc:  # noqa: BLE001 - a search must never fail because of us
        out = {"trace": "on", "error": type(exc).__name__}
    os.write(1, (fastjson.dumps(out) + "\n").encode())
    return 0
