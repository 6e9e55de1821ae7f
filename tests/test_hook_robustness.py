"""Bad input never fails the agent: exit 0, no stdout, bounded time, no corrupt lineage."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time

import pytest
from conftest import hook_errors, queued, readonly_copy, state_of
from conftest import run_process as run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jevlin_hooks import replay

S = "9291ef5c-ce95-4fb4-83c9-c62badd920cd"  # the captured basic session


def basic(name: str) -> dict:
    return next(p for n, p in replay.scenario_events("basic") if n.endswith(f"-{name}.json"))


def check_lineage_intact(home: str) -> None:
    sdir = os.path.join(home, "sessions")
    if not os.path.isdir(sdir):
        return
    for n in os.listdir(sdir):
        if n.endswith(".json"):
            with open(os.path.join(sdir, n)) as f:
                assert json.load(f)["v"] == 1
        assert not n.endswith(".corrupt")


@pytest.mark.parametrize("data", [
    b"", b"\x00\xff\xfe" * 100, b"{", b'{"session_id":', b"[]", b"null", b"42", b'"str"',
    b'{"session_id": 5, "hook_event_name": "Stop"}',
    b'{"session_id": "s", "hook_event_name": ["PreToolUse"]}',
    b'{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": 7, "tool_input": "x"}',
    b'{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": ["jevlin","search"]}, "tool_use_id": {}}',
    b'{"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": {"a": 1}, "prompt_id": 3}',
    b'{"session_id": "s", "hook_event_name": "Stop", "transcript_path": "/nonexistent/\\u0000x"}',
    b'{"session_id": "../../etc/passwd", "hook_event_name": "SessionStart"}',
    b'{"session_id": "s", "hook_event_name": "NotAnEvent"}',
    b"[" * 100000,
])
def test_bad_stdin(home, data):
    p = subprocess.run(replay.run_hook.__defaults__ and [], input=b"") if False else replay.run_hook(home, data)
    assert p.returncode == 0 and p.stdout == b""
    check_lineage_intact(home)
    assert not os.path.exists("/etc/passwd.json")


def test_session_id_cannot_escape_sessions_dir(home):
    run(home, {"session_id": "../../escape", "hook_event_name": "SessionStart"})
    assert not os.path.exists(os.path.join(home, "escape.json"))
    assert state_of(home, "../../escape")["session_id"] == "../../escape"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["session_id", "hook_event_name", "tool_name", "tool_input", "tool_use_id",
                         "prompt_id", "agent_id", "source", "transcript_path", "tool_calls", "command"]),
        children, max_size=6),
    max_leaves=20,
), st.sampled_from(["SessionStart", "PreToolUse", "PostToolUse", "Stop", "SubagentStop", "PostToolBatch",
                    "UserPromptSubmit", "PreCompact", "SessionEnd"]))
def test_random_payloads(tmp_path_factory, value, event):
    home = str(tmp_path_factory.mktemp("h"))
    payload = value if not isinstance(value, dict) else {**value, "hook_event_name": event}
    if isinstance(payload, dict) and random.random() < 0.7:
        payload["session_id"] = "fuzz"
    p = replay.run_hook(home, json.dumps(payload).encode())
    assert p.returncode == 0 and p.stdout == b""
    check_lineage_intact(home)


def test_truncated_real_payloads(home):
    for _, p in replay.scenario_events("basic"):
        raw = json.dumps(p).encode()
        for cut in (1, len(raw) // 3, len(raw) // 2, len(raw) - 1):
            q = replay.run_hook(home, raw[:cut])
            assert q.returncode == 0 and q.stdout == b""
    check_lineage_intact(home)


def test_huge_payload_is_drained_and_handled(probe_home):
    run(probe_home, basic("UserPromptSubmit"))
    run(probe_home, basic("PreToolUse"))
    post = basic("PostToolUse")
    post["tool_response"]["stdout"] = "x" * (50 << 20)
    t0 = time.monotonic()
    p = replay.run_hook(probe_home, json.dumps(post).encode())
    elapsed = time.monotonic() - t0
    assert p.returncode == 0 and p.stdout == b""
    assert elapsed < 20  # generous: only that it ends (speed lives in bench/)
    (rec,) = queued(probe_home, "search")
    # tool output is never queued whole: only the local store's summary, at most 2 KiB of it
    assert rec["status"] == "ok" and "x" * 2049 not in json.dumps(rec) and len(json.dumps(rec)) < 16_384
    assert rec["result"]["lines"] == 1 and len(rec["result"]["preview"]) <= 2048


def test_unwritable_home(tmp_path):
    with readonly_copy(None, str(tmp_path / "ro")) as ro:
        home = os.path.join(ro, "jhome")
        for _, p in replay.scenario_events("basic"):
            q = replay.run_hook(home, p)
            assert q.returncode == 0 and q.stdout == b""
        q = replay.run_hook(ro, basic("SessionStart"))
        assert q.returncode == 0 and q.stdout == b""


def test_full_filesystem(tmp_path, probe_home):
    full = str(tmp_path / "full")
    os.makedirs(full)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", full]).returncode:
        pytest.skip("needs root to mount a small tmpfs")
    try:
        home = os.path.join(full, "jhome")
        os.makedirs(home)
        with open(os.path.join(probe_home, "config.toml")) as f, open(os.path.join(home, "config.toml"), "w") as g:
            g.write(f.read())
        run(home, basic("SessionStart"))
        run(home, basic("UserPromptSubmit"))
        run(home, basic("PreToolUse"))  # the search is pending in the lineage
        fd = os.open(os.path.join(full, "filler"), os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        for name in ("PostToolUse", "PostToolBatch", "Stop"):
            q = replay.run_hook(home, basic(name))
            assert q.returncode == 0 and q.stdout == b""
        check_lineage_intact(home)
        assert not [n for n in os.listdir(os.path.join(home, "sessions")) if n.endswith(".tmp")]
        os.unlink(os.path.join(full, "filler"))
        # Space back: the session goes on and nothing is corrupt.
        run(home, basic("Stop"))
        check_lineage_intact(home)
        # The search that could not be queued when it closed (disk full) is queued once later.
        (rec,) = queued(home, "search")
        assert rec["seq"] == 1 and rec["status"] == "interrupted"
    finally:
        subprocess.run(["umount", "-l", full])


def test_planted_symlinks_are_not_followed(home, tmp_path):
    target = tmp_path / "victim"
    target.mkdir()
    os.makedirs(os.path.join(home, "spool"), mode=0o700)
    os.symlink(str(target), os.path.join(home, "spool", "new"))
    base = {"session_id": "s", "prompt_id": "p", "cwd": "/w"}
    for ev in ({"hook_event_name": "SessionStart"}, {"hook_event_name": "UserPromptSubmit", "prompt": "x"},
               {"hook_event_name": "PreToolUse", "tool_name": "WebSearch", "tool_input": {"query": "q"}, "tool_use_id": "t1"},
               {"hook_event_name": "PostToolUse", "tool_name": "WebSearch", "tool_input": {"query": "q"}, "tool_use_id": "t1"}):
        run(home, {**base, **ev})
    assert os.listdir(target) == []
    assert "1 record(s) not queued (not a plain directory: spool/new)" in hook_errors(home)
    # a planted top-level directory: the whole home is refused, and the CLI says why
    shutil.rmtree(os.path.join(home, "sessions"))
    os.symlink(str(target), os.path.join(home, "sessions"))
    run(home, {"session_id": "s2", "hook_event_name": "SessionStart"})
    assert os.listdir(target) == []
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "status"], env={**os.environ, "JEVLIN_HOME": home},
                       capture_output=True, text=True, check=True)
    assert f"{os.path.join(home, 'sessions')} is not a plain directory" in p.stdout


def test_symlinked_lineage_file_is_replaced_not_written_through(home, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    os.makedirs(os.path.join(home, "sessions"), mode=0o700)
    os.symlink(str(victim), os.path.join(home, "sessions", "claude-code.s.json"))
    run(home, {"session_id": "s", "hook_event_name": "SessionStart"})
    run(home, {"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt_id": "p"})
    assert victim.read_text() == "precious"


def test_permissions(probe_home, tmp_path):
    replay_dir = str(tmp_path / "t")
    for p in replay.replay(probe_home, "basic", replay_dir):
        assert p.returncode == 0
    for root, dirs, files in os.walk(probe_home):
        for d in dirs:
            assert os.stat(os.path.join(root, d)).st_mode & 0o777 == 0o700, d
        for f in files:
            if f == "config.toml":
                continue
            assert os.stat(os.path.join(root, f)).st_mode & 0o777 == 0o600, f


def test_hook_failures_are_logged_without_raw_ids(home):
    os.makedirs(os.path.join(home, "sessions"), mode=0o700)
    with open(os.path.join(home, "sessions", "claude-code.secret-session-id.lock"), "w"):
        pass
    os.mkdir(os.path.join(home, "sessions", "claude-code.secret-session-id.json"))  # a dir: read fails
    run(home, {"session_id": "secret-session-id", "hook_event_name": "SessionStart"})
    log = hook_errors(home)
    assert log and "secret-session-id" not in log
