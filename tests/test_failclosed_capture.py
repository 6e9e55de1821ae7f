"""Issue 10 on the hook side: cases 3, 4, 9, 10, 13, 15 and 17, each through real hook
processes with the captured Claude Code payloads (and the CLI where a user would look)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest
from conftest import FAKE_AGENT, PROBE_CONFIG, hook_errors, queued, run, state_of
from test_context import fake_jevlin, search_ctx

from jevlin_hooks import replay

CLI = [sys.executable, "-m", "jevlin_hooks.cli"]


def events(scenario: str) -> list[dict]:
    return [p for _, p in replay.scenario_events(scenario)]


def event(scenario: str, name: str) -> dict:
    return next(p for n, p in replay.scenario_events(scenario) if n.endswith(f"-{name}.json"))


def with_command(payload: dict, command: str) -> dict:
    return {**payload, "tool_input": {**payload["tool_input"], "command": command}}


def status(home: str) -> str:
    return subprocess.run([*CLI, "status"], env={**os.environ, "JEVLIN_HOME": home},
                          capture_output=True, text=True, check=True).stdout


# --- 3: a search query keeps what makes a secret recognisable ------------------------------------

@pytest.mark.parametrize("command,query", [
    ("jevlin search q --token hunter2hunter2hunter2", "q --token hunter2hunter2hunter2"),
    ("jevlin search rust async 2>/dev/null", "rust async"),
    ("jevlin search rust async 2>&1 | head -5", "rust async"),
    ("jevlin search 'tokio select' > out.txt", "tokio select"),
    ("jevlin search x &>log.txt; echo done", "x"),
    ("jevlin search --api-key=sk-live-abc123abc123abc123 docs <in.txt", "--api-key=sk-live-abc123abc123abc123 docs"),
])
def test_search_query_keeps_flags_and_drops_redirections(home, command, query):
    pre = with_command(event("basic", "PreToolUse"), command)
    post = with_command(event("basic", "PostToolUse"), command)
    for payload in [*events("basic")[:3], pre, post]:
        run(home, payload)
    (rec,) = queued(home, "search")
    assert rec["query"] == query


def test_flag_value_reaches_the_scrubber_with_its_flag(home):
    command = "jevlin search q --token hunter2hunter2hunter2"
    for payload in [*events("basic")[:3], with_command(event("basic", "PreToolUse"), command),
                    with_command(event("basic", "PostToolUse"), command)]:
        run(home, payload)
    p = subprocess.run([*CLI, "preview"], env={**os.environ, "JEVLIN_HOME": home},
                       capture_output=True, text=True, check=True)
    assert "hunter2hunter2hunter2" not in p.stdout and "--token [REDACTED" in p.stdout


# --- 4: only the agent that wrote a lineage file reads it -----------------------------------------

def start_search(home: str, cwd: str, command: str = "jevlin search q") -> None:
    base = {"session_id": "S1", "prompt_id": "T1", "cwd": cwd}
    run(home, {**base, "hook_event_name": "SessionStart", "source": "startup"})
    run(home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": "p"})
    run(home, {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}, "tool_use_id": "toolu_1"})


def test_users_own_terminal_in_the_workspace_gets_its_own_identity(home, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    start_search(home, str(ws))
    bindir = fake_jevlin(tmp_path)
    # the user's terminal, same directory, their own search: not the agent's session or call
    mine = search_ctx(home, "jevlin search something else", str(ws), bindir)
    assert mine["source"] == "shell" and mine["call_id"] is None and mine["seq"] is None
    plain = subprocess.run([*CLI, "context"], env={**os.environ, "JEVLIN_HOME": home}, cwd=str(ws),
                           capture_output=True, text=True, check=True)
    assert json.loads(plain.stdout)["source"] == "shell"
    # the agent's shell running exactly the pending command (Cursor: not a descendant)
    agent = search_ctx(home, "jevlin search q", str(ws), bindir)
    assert agent["source"] == "workspace" and agent["seq"] == 1


def test_descendant_of_the_agent_may_use_the_workspace(home, tmp_path):
    """The agent (this bash) wrote the lineage; its pid index is gone, the workspace remains:
    its descendant gets the lineage, a process beside it does not."""
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))}
    env["JEVLIN_HOME"] = home
    payload = json.dumps({"session_id": "S7", "hook_event_name": "SessionStart", "source": "startup",
                          "cwd": str(ws)})
    script = (
        f"echo '{payload}' | CLAUDE_PID=$$ {sys.executable} -I -S {replay.ENTRY} claude-code; "
        f"rm -r {home}/sessions/pid; {' '.join(CLI)} context"
    )
    p = subprocess.run(["bash", "-c", script], env=env, capture_output=True, check=True, cwd=str(ws))
    assert json.loads(p.stdout)["source"] == "workspace"
    beside = subprocess.run([*CLI, "context"], env=env, cwd=str(ws), capture_output=True, check=True)
    assert json.loads(beside.stdout)["source"] == "shell"


# --- 9: text is text -------------------------------------------------------------------------------

def lay_basic_with_surrogates(root: str) -> dict[str, str]:
    mapping = replay.lay_transcripts("basic", root)
    (path,) = mapping.values()
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            content = (entry.get("message") or {}).get("content")
            if isinstance(content, list) and any(isinstance(b, dict) and b.get("id") == "toolu_cc_0001" for b in content):
                content.insert(0, {"type": "text", "text": "narration \ud83d before the call"})
            out.append(json.dumps(entry) + "\n")  # ensure_ascii: written as the escape \ud83d
    with open(path, "w", encoding="ascii") as f:
        f.writelines(out)
    return mapping


def test_lone_surrogates_never_crash_a_hook_nor_drop_the_record(probe_home, tmp_path):
    mapping = lay_basic_with_surrogates(str(tmp_path / "t"))
    for payload in events("basic"):
        payload = replay.rewrite(payload, mapping)
        name = payload["hook_event_name"]
        if name == "UserPromptSubmit":
            payload["prompt"] = "prompt \ud83d with a half emoji"
        if name in ("PreToolUse", "PostToolUse"):
            payload = with_command(payload, payload["tool_input"]["command"] + " caf\udce9")
        if name == "Stop":
            payload["last_assistant_message"] = "final \udfff message"
        run(probe_home, payload)
    assert hook_errors(probe_home) == ""
    (search,) = queued(probe_home, "search")
    (turn_end,) = queued(probe_home, "turn_end")
    assert search["query"].endswith("caf\ufffd")
    assert "narration \ufffd before the call" in search["history"]
    assert turn_end["prompt"] == "prompt \ufffd with a half emoji"
    assert turn_end["final_message"] == "final \ufffd message"
    for name in os.listdir(os.path.join(probe_home, "spool", "new")):
        with open(os.path.join(probe_home, "spool", "new", name), "rb") as f:
            json.dumps(json.loads(f.read())).encode("utf-8")  # strict UTF-8 all the way


# --- 10: a broken lineage or state file is set aside -----------------------------------------------

@pytest.mark.parametrize("broken", [b'{"v": 1, "harness": "claude-code", "session_id": "0f3b', b'{"v":1', b"\x00\x00"])
def test_truncated_lineage_is_set_aside_and_the_session_goes_on(probe_home, broken):
    evs = events("basic")
    for payload in evs[:3]:
        run(probe_home, payload)
    sid = evs[0]["session_id"]
    path = os.path.join(probe_home, "sessions", f"claude-code.{sid}.json")
    with open(path, "wb") as f:
        f.write(broken)  # a disk that filled mid-write, a crash of an older version
    # status does not crash on it (it lists the file, cannot read it, and shows no row for it)
    shown = status(probe_home)
    assert "threads   1 kept" in shown and "  claude-code" not in shown
    for payload in evs[3:]:
        run(probe_home, payload)
    aside = [n for n in os.listdir(os.path.join(probe_home, "sessions")) if ".broken-" in n]
    assert len(aside) == 1 and aside[0].startswith(f"claude-code.{sid}.json.broken-")
    with open(os.path.join(probe_home, "sessions", aside[0]), "rb") as f:
        assert f.read() == broken
    log = hook_errors(probe_home)
    assert log.count("set aside") == 1 and "SystemError" not in log, log
    assert len(queued(probe_home, "search")) == 1  # the search after it is recorded
    assert state_of(probe_home, sid)["searches"] == 1


# --- 13: a full disk loses nothing silently --------------------------------------------------------

@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tiny tmpfs")
def test_records_a_hook_could_not_queue_are_counted_and_shown(tmp_path):
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", str(mnt)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        home = str(mnt / "jhome")
        os.makedirs(home, mode=0o700)
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(PROBE_CONFIG)
        evs = events("basic")
        for payload in evs[:3]:
            run(home, payload)
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT)  # fill the disk to the last byte
        try:
            for size in (65536, 4096, 1):
                while True:
                    try:
                        os.write(fd, b"x" * size)
                    except OSError:
                        break
        finally:
            os.close(fd)
        for payload in evs[3:]:
            run(home, payload)  # exit 0, silent, as always
        assert queued(home) == []
        os.unlink(mnt / "filler")
        out = status(home)
        line = next(ln for ln in out.splitlines() if ln.startswith("dropped"))
        # the search (the lineage could not be saved either, so its turn never counted it)
        assert int(line.split()[1]) >= 1 and "a hook could not queue" in line, out
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


# --- 15: only regular files are read ---------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "dir", "device", "socket"])
def test_transcript_that_is_not_a_regular_file_is_not_opened(probe_home, tmp_path, kind):
    path = str(tmp_path / "transcript.jsonl")
    sock = None
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        os.mkdir(path)
    elif kind == "device":
        path = "/dev/zero"  # endless: reading it backwards would never end either
    else:
        import socket

        sock = socket.socket(socket.AF_UNIX)
        sock.bind(path)
    try:
        for payload in events("basic"):
            run(probe_home, {**payload, "transcript_path": path})  # replay's timeout: 30 s
    finally:
        if sock is not None:
            sock.close()
    (search,) = queued(probe_home, "search")
    assert search["history"] == "" and search["host_meta"]["history_source"] == "none"


def test_fifo_transcript_does_not_hang_the_hook_even_with_a_writer_waiting(probe_home, tmp_path):
    """A writer that would unblock an open (and then never write): still not read."""
    path = str(tmp_path / "t.jsonl")
    os.mkfifo(path)
    holder: list[int] = []
    t = threading.Thread(target=lambda: holder.append(os.open(path, os.O_WRONLY)), daemon=True)
    t.start()
    try:
        for payload in events("basic"):
            run(probe_home, {**payload, "transcript_path": path})
    finally:
        if not holder:  # nobody opened it for reading: release the writer
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        t.join(5)
        for fd in holder:
            os.close(fd)
    assert len(queued(probe_home, "search")) == 1


# --- 17: compaction counted once, whatever lands in the middle -------------------------------------

def background_subagent(session_id: str) -> list[dict]:
    """A background subagent of the compacting session: its start and one tool call."""
    picks = [p for _, p in replay.scenario_events("subagent")
             if p.get("agent_id") and p["hook_event_name"] in ("SubagentStart", "PreToolUse", "PostToolUse")]
    assert [p["hook_event_name"] for p in picks] == ["SubagentStart", "PreToolUse", "PostToolUse"]
    return [{**p, "session_id": session_id, "agent_id": "bgagent1"} for p in picks]


@pytest.mark.parametrize("where", ["after PreCompact", "after SubagentStop", "after SessionStart"])
def test_compaction_counted_once_with_a_background_subagent_in_the_middle(home, where):
    evs = events("autocompact")
    sid = evs[0]["session_id"]
    bg = background_subagent(sid)
    names = [n.split("-", 2)[2][:-5] for n, _ in replay.scenario_events("autocompact")]
    cut = names.index(where.split()[1], names.index("PreCompact")) + 1
    start = names.index("PreCompact")
    for payload in evs[:start]:
        run(home, payload)
    run(home, bg[0])  # started before the compaction, runs in the background
    ordered = evs[start:cut] + bg[1:] + evs[cut:]
    for payload in ordered:
        run(home, payload)
    st = state_of(home, sid)
    assert st["window"] == 1, f"compaction counted {st['window']} times"
    assert st["agents"]["bgagent1"]["window"] == 0


def test_fake_agent_is_alive():
    assert FAKE_AGENT.poll() is None


# --- 7: terminal output is inert -------------------------------------------------------------------

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # write "rm -rf ~" to the clipboard
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def test_recorded_control_characters_are_shown_escaped(probe_home):
    for payload in events("basic"):
        name = payload["hook_event_name"]
        if name == "UserPromptSubmit":
            payload = {**payload, "prompt": f"fix the bug{OSC52}"}
        if name in ("PreToolUse", "PostToolUse"):
            # a short query (the captured one is wider than the view): its escapes stay in sight
            payload = with_command(payload, "jevlin search 'retries \x1b[2J\x9b1;1H'")
        if name == "Stop":
            payload = {**payload, "last_assistant_message": "done \u202eevil"}
        run(probe_home, payload)
    env = {**os.environ, "JEVLIN_HOME": probe_home}
    subprocess.run([*CLI, "daemon", "run", "--once"], env=env, check=True, capture_output=True)
    threads = subprocess.run([*CLI, "threads"], env=env, capture_output=True, text=True, check=True).stdout
    tid = threads.splitlines()[1].split()[0]
    thread = subprocess.run([*CLI, "thread", tid], env=env, capture_output=True, text=True, check=True).stdout
    for out in (threads, thread):
        assert not any(c in out for c in RAW), repr(out)
    assert "\\x1b]52;c;" in threads and "\\x1b]52;c;" in thread
    assert "\\u202eevil" in thread
    assert "retries \\x1b[2J" in thread  # the query, clipped to the width


def test_status_shows_control_characters_escaped(home):
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('trace = "\\u001b]52;c;cm0gLXJmIH4=\\u0007"\n')  # TOML escapes: a raw ESC in the value
    run(home, events("basic")[0])
    out = status(home)
    assert not any(c in out for c in RAW), repr(out)
    assert 'trace = "\\x1b]52;c;cm0gLXJmIH4=\\x07": must be "on" or "off"' in out


def test_pi_session_file_that_is_a_fifo_is_not_opened(probe_home, tmp_path):
    """Pi's recorder reads the session file a payload names: a FIFO there must not block it."""
    from pi_replay import as_sent, captures, lay_sessions, stream

    fifo = str(tmp_path / "session.jsonl")
    os.mkfifo(fifo)
    lines = as_sent(captures("basic"), lay_sessions(str(tmp_path / "pi")))
    for line in lines:
        line["ctx"] = {**line["ctx"], "sessionFile": fifo}
        if line["event"]["type"] == "session_start":
            line["jv"]["fileSize"] = 100  # makes the recorder read the file back
    p = stream(probe_home, lines)  # 60 s timeout: a blocked open would fail the test
    assert p.returncode == 0
    assert len(queued(probe_home, "search")) == 1
