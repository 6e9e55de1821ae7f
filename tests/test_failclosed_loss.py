"""Issue 29, loss that must not be silent and records that must stay readable (items 6, 7, 17):
real hook processes with the captured Claude Code payloads, a read-only mount and a full tmpfs,
the real daemon, `status` and `doctor`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import PROBE_CONFIG, queued, run, state_of

from jevlin_hooks import replay
from jevlin_hooks.capture import lineage

CLI = [sys.executable, "-m", "jevlin_hooks.cli"]


def basic() -> list[dict]:
    return [p for _, p in replay.scenario_events("basic")]


@pytest.fixture
def user_dirs(tmp_path):
    """The platform's runtime and cache directories, the test's own (never the real ones)."""
    run_dir, cache = tmp_path / "run", tmp_path / "cache"
    run_dir.mkdir(mode=0o700)
    cache.mkdir(mode=0o700)
    return {"XDG_RUNTIME_DIR": str(run_dir), "XDG_CACHE_HOME": str(cache)}


def cli(home: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env={**os.environ, **env, "JEVLIN_HOME": home},
                          capture_output=True, text=True, timeout=120)


def recording_line(out: str) -> str:
    return next((line for line in out.splitlines() if line.startswith("recording ")), "")


def started_home(root: str) -> str:
    """A home where a session started (the key, the counters made ahead), as a user has one."""
    home = os.path.join(root, "jhome")
    os.makedirs(home, mode=0o700)
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(PROBE_CONFIG)
    for payload in basic()[:2]:
        run(home, payload)
    return home


# --- 17: lineage file names cannot collide ---------------------------------------------------------

def start_search(home: str, session_id: str, query: str) -> None:
    base = {"session_id": session_id, "prompt_id": f"p-{query}", "cwd": "/w"}
    run(home, {**base, "hook_event_name": "SessionStart", "source": "startup"})
    run(home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": query})
    for name in ("PreToolUse", "PostToolUse"):
        run(home, {**base, "hook_event_name": name, "tool_name": "Bash", "tool_use_id": f"toolu-{query}",
                   "tool_input": {"command": f"jevlin search {query}"}, "tool_response": {"stdout": "r"}})


@pytest.mark.parametrize("upper", [False, True])
def test_an_id_equal_to_another_sessions_hashed_file_name_gets_its_own_lineage(probe_home, upper):
    weird = "session id with spaces/and:colons"  # not a plain id: its file is named by its hash
    hashed = lineage.file_name("claude-code", weird).split(".", 1)[1]
    assert hashed.startswith("h") and len(hashed) == 41
    twin = hashed.upper() if upper else hashed  # a case-insensitive file system folds the two
    start_search(probe_home, weird, "first")
    start_search(probe_home, twin, "second")
    a, b = state_of(probe_home, weird), state_of(probe_home, twin)
    assert a["session_id"] == weird and b["session_id"] == twin
    assert a["searches"] == 1 and b["searches"] == 1 and a["seq"] == 1 and b["seq"] == 1
    names = [n.lower() for n in os.listdir(os.path.join(probe_home, "sessions")) if n.endswith(".json")]
    assert len(names) == len(set(names)) == 2
    searches = {r["session_id"]: r["query"] for r in queued(probe_home, "search")}
    assert searches == {weird: "first", twin: "second"}


def test_real_ids_keep_their_file_names():
    """Nothing to migrate: every session and agent id in the bundled captures is still its own name."""
    seen = set()
    for scenario in ("basic", "subagent", "resume", "compact"):
        for _, p in replay.scenario_events(scenario):
            for key in ("session_id", "agent_id"):
                if isinstance(p.get(key), str):
                    seen.add(p[key])
    assert len(seen) >= 4
    for sid in seen:
        assert lineage.file_name("claude-code", sid) == f"claude-code.{sid}"
