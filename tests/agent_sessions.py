"""The sessions the end-to-end backend tests send: every captured Claude Code and Codex session,
and one whose prompt, search, transcript and answer hold planted secrets; and what a backend
must then hold."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from conftest import run

from jevlin_hooks import replay
from jevlin_hooks.base import spool
from jevlin_hooks.privacy import ids

GH = "ghp_" + "Qm7Rt2Vx9Lc4Nb8Hs3Kd6Fw1Zp5Jy0Ga3Ue7T"
AWS = "AKIA" + "QWERTYUIOPLKJHGF"
PW = "Sunfl0wer-and-7-more"
SECRETS = (GH, AWS, PW, "alice@corp.example", "secret output")
# every captured session of both harnesses
SCENARIOS = sorted({(h, f.rsplit("-", 2)[0]) for h in ("claude-code", "codex")
                    for f in os.listdir(os.path.join(replay.data_dir(h), "events"))})


def plant_secrets(home: str, tmp: str) -> None:
    """A Claude Code session whose prompt, search, transcript and answer hold secrets."""
    sid, tid, cid = "raw-session-4e1a", "raw-turn-7b3c", "toolu_raw_9f2d"
    transcript = os.path.join(tmp, "secret.jsonl")
    line = {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
        {"type": "text", "text": f"I will use the token {GH} and the password {PW}."},
        {"type": "tool_use", "id": cid, "name": "Bash", "input": {}}]}}
    with open(transcript, "w") as f:
        f.write(json.dumps(line) + "\n")
    base = {"session_id": sid, "prompt_id": tid, "cwd": "/home/alice/proj", "transcript_path": transcript}
    cmd = f"AWS_KEY={AWS} jevlin search 'rotate {GH}'"
    for ev in ({"hook_event_name": "SessionStart"},
               {"hook_event_name": "UserPromptSubmit", "prompt": f"my password is {PW}, email alice@corp.example"},
               {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}, "tool_use_id": cid},
               {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}, "tool_use_id": cid,
                "tool_response": {"stdout": f"secret output {AWS}"}},
               {"hook_event_name": "Stop", "last_assistant_message": f"Done with {GH}"}):
        run(home, {**base, **ev})


@dataclass
class Expected:
    """What a backend must show for the raw (queued) records ``raw``."""

    records: set[str]     # record ids: one span each
    spans: int            # + an invoke_agent span and its spawning call per subagent run
    threads: set[str]     # hashed root threads: the backend's sessions
    turns: int            # one trace each
    raw_ids: set[str]     # ids as the agents wrote them: must never reach the backend

    @classmethod
    def of(cls, raw: list[dict[str, Any]], key: bytes) -> Expected:
        searches = [r for r in raw if r["kind"] == "search"]
        runs = {(r["parent_session_id"], r.get("parent_turn_id"), r["session_id"]) for r in searches
                if r.get("parent_session_id")}
        return cls(
            records={r["record_id"] for r in raw},
            spans=len(raw) + 2 * len(runs),
            threads={ids.hash_id(r.get("parent_session_id") or r["session_id"], key) for r in raw},
            turns=len({(r.get("parent_session_id") or r["session_id"], r.get("parent_turn_id") or r["turn_id"])
                       for r in raw}),
            raw_ids={v for r in raw for k, v in r.items() if k.endswith(("session_id", "turn_id", "call_id")) and v},
        )


def queue_sessions(home: str, tmp: str) -> Expected:
    """Replay every captured session and the planted one through the hooks into ``home``'s
    queue (its config already written); what a backend must then show."""
    from test_otlp import replay_all

    replay_all(home, tmp, SCENARIOS)
    plant_secrets(home, tmp)
    raw = spool.read_all(home)
    key = ids.load_key(home)
    assert key is not None
    searches = [r for r in raw if r["kind"] == "search"]
    assert len(searches) >= 10 and any(r.get("parent_session_id") for r in searches)
    return Expected.of(raw, key)
