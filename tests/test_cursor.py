"""Cursor contract tests: payloads written from Cursor's documented fields (Cursor cannot run here).

Each event through the real entry point as a subprocess: what it prints (the answer Cursor
expects), the lineage, and the queued records, including the duplicate deliveries."""

from __future__ import annotations

import json

import pytest
from conftest import queued, run_hook, state_of

from jevlin_hooks import replay

CONV = "c0nv-1111-2222"
GEN1, GEN2 = "gen-aaaa", "gen-bbbb"


def ev(name: str, gen: str | None = GEN1, conv: str = CONV, **kw) -> dict:
    base = {"conversation_id": conv, "generation_id": gen, "model": "claude-4-sonnet", "hook_event_name": name,
            "cursor_version": "1.7.2", "workspace_roots": ["/home/dev/project"], "user_email": "dev@example.com",
            "transcript_path": None}
    if gen is None:
        base.pop("generation_id")
    base.update(kw)
    return base


def send(home: str, payload: dict, harness: str = "cursor") -> bytes:
    p = run_hook(home, payload, harness)
    assert p.returncode == 0, p.stderr
    return p.stdout


ANSWERS = {
    "beforeShellExecution": {"permission": "allow"},
    "beforeMCPExecution": {"permission": "allow"},
    "preToolUse": {"permission": "allow"},
    "beforeSubmitPrompt": {"continue": True},
    "stop": {},
    "afterShellExecution": {},
    "sessionStart": {},
}


@pytest.mark.parametrize("name,answer", ANSWERS.items())
def test_every_event_gets_its_neutral_answer(home, name, answer):
    out = send(home, ev(name, command="ls", tool_name="Shell", tool_input={"command": "ls"}, prompt="p",
                        status="completed", session_id=CONV))
    assert json.loads(out) == answer
    assert b"followup_message" not in out


@pytest.mark.parametrize("data", [b"", b"{", b"[]", b'{"hook_event_name": "preToolUse"}', b"\xff" * 100])
def test_bad_input_still_allows(home, data):
    p = replay.run_hook(home, data, "cursor")
    assert p.returncode == 0
    # an event that cannot be read gets the answer that is neutral for every event
    assert json.loads(p.stdout) in ({"permission": "allow", "continue": True}, {"permission": "allow"}, {})


def conversation(home: str, duplicate_claude_copy: bool = False) -> None:
    cmd = 'jevlin search "cursor retry docs"'
    events = [
        ev("sessionStart", gen=None, session_id=CONV, is_background_agent=False, composer_mode="agent"),
        ev("beforeSubmitPrompt", prompt="how does retry work?", attachments=[]),
        ev("afterAgentResponse", text="I'll search the retry docs first."),
        ev("preToolUse", tool_name="Shell", tool_input={"command": cmd}, tool_use_id="tu_1"),
        ev("beforeShellExecution", command=cmd, cwd="/home/dev/project"),
        ev("afterShellExecution", command=cmd, cwd="/home/dev/project", output="result", duration=120),
        ev("postToolUse", tool_name="Shell", tool_input={"command": cmd}, tool_use_id="tu_1",
           tool_output='{"stdout": "result"}', duration=125),
        ev("preToolUse", tool_name="MCP:search", tool_input={"query": "mcp query"}, tool_use_id="tu_2"),
        ev("beforeMCPExecution", tool_name="search", tool_input=json.dumps({"query": "mcp query"})),
        ev("afterMCPExecution", tool_name="search", tool_input=json.dumps({"query": "mcp query"}), result_json="{}",
           duration=30),
        ev("postToolUse", tool_name="MCP:search", tool_input={"query": "mcp query"}, tool_use_id="tu_2",
           tool_output="{}", duration=31),
        ev("afterAgentResponse", text="Found it: retries back off exponentially."),
        ev("stop", status="completed", loop_count=0),
    ]
    for e in events:
        send(home, e)
        if duplicate_claude_copy:
            # Cursor's "third-party hooks" also run ~/.claude hooks: the same event arrives there
            assert send(home, e, "claude-code") == b""


def test_conversation_counts_each_call_once(home):
    with open(f"{home}/config.toml", "a") as f:
        f.write('[search]\ntools = ["MCP:search"]\n[miner]\nturn_end = true\n')
    conversation(home)
    st = state_of(home, CONV, "cursor")
    assert st["seq"] == 2 and st["turns"][0]["outcome"] == "completed"
    recs = queued(home, "search")
    assert [(r["seq"], r["query"], r["call_id"]) for r in recs] == [(1, "cursor retry docs", "tu_1"), (2, "mcp query", "tu_2")]
    assert recs[0]["history"] == "I'll search the retry docs first." and recs[0]["duration_ms"] == 120
    (te,) = queued(home, "turn_end")
    assert te["final_message"] == "Found it: retries back off exponentially." and te["search_count"] == 2


def test_duplicate_delivery_through_claude_hooks(home):
    conversation(home, duplicate_claude_copy=True)
    assert [r["seq"] for r in queued(home, "search")] == [1]
    assert not [n for n in __import__("os").listdir(f"{home}/sessions") if n.startswith("claude-code.")]


def test_shell_events_without_tool_use(home):
    """Only beforeShellExecution/afterShellExecution (no preToolUse): still one search."""
    cmd = "cd repo && jevlin search 'only shell'"
    for e in (ev("beforeSubmitPrompt", prompt="p"), ev("beforeShellExecution", command=cmd),
              ev("afterShellExecution", command=cmd, output="", duration=5), ev("stop", status="aborted")):
        send(home, e)
    (rec,) = queued(home, "search")
    assert rec["query"] == "only shell" and rec["status"] == "empty" and rec["call_id"].startswith("call-")
    assert state_of(home, CONV, "cursor")["turns"][0]["outcome"] == "interrupted"


def test_compaction_and_generations(home):
    send(home, ev("beforeSubmitPrompt", prompt="one"))
    send(home, ev("preCompact", trigger="auto", context_usage_percent=91, context_tokens=180000,
                  context_window_size=200000, is_first_compaction=True))
    send(home, ev("stop", status="completed"))
    send(home, ev("beforeSubmitPrompt", gen=GEN2, prompt="two"))
    send(home, ev("stop", gen=GEN2, status="error"))
    st = state_of(home, CONV, "cursor")
    assert st["window"] == 1 and [t["id"] for t in st["turns"]] == [GEN1, GEN2]
    assert [t["outcome"] for t in st["turns"]] == ["completed", "error"]


def test_subagent_conversation_is_a_child_thread(home):
    child = "c0nv-child-3333"
    send(home, ev("beforeSubmitPrompt", prompt="delegate"))
    send(home, ev("subagentStart", subagent_id=child, subagent_type="explore", task="search it",
                  parent_conversation_id=CONV, tool_call_id="tu_task"))
    cmd = "jevlin search 'from the child'"
    send(home, ev("beforeShellExecution", conv=child, gen="gen-child", command=cmd))
    send(home, ev("afterShellExecution", conv=child, gen="gen-child", command=cmd, output="x", duration=3))
    send(home, ev("subagentStop", subagent_id=child, status="completed", summary="done", duration_ms=900,
                  agent_transcript_path=None))
    (rec,) = queued(home, "search")
    assert rec["session_id"] == child and rec["parent_session_id"] == CONV and rec["seq"] == 1
    st = state_of(home, CONV, "cursor")
    assert st["agents"][child]["status"] == "ended" and st["agents"][child]["agent_type"] == "explore"
