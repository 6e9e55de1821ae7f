"""Hook and context start-to-exit wall time, side by side with the interpreter's floor.

    .venv/bin/python bench/hook_latency.py [--n 200] [--only pi|hermes|gemini|copilot] [--baseline OTHER/entry.py]

Each sample is one whole process, as the harness runs it: `python -I -S jevlin_hooks/capture/entry.py
claude-code` with a real Claude Code payload on stdin. Every event sample is interleaved with a
floor sample (`python -I -S -c pass`, same interpreter), so machine noise hits both alike; the
ratio of the two is what the budget is about (p50 <= 2x, p99 <= 4x). Search events use fresh
call ids so each does the real work (new seq, fsynced record), and the transcript holds the
call so PostToolUse finds its history without waiting.

Hermes: every event its installer subscribes, and (as the alternative we did not pick for
history) a process that reads the assistant row from a state.db with sqlite3.

Pi has no hook processes: its extension streams events to one resident recorder
(`entry.py pi --stream`) and waits only at a tool_call that may be a search, for the ack that
its seq and call id are recorded. That wait is measured here as the extension sees it (line
written into the recorder's pipe -> ack read back), with the recorder running, and for the
first search of a pi process, when the recorder is still starting (spawn included).

`jevlin-hooks context` is measured from a regular (non-editable) install in a scratch venv,
the way users get it; an editable install adds setuptools' import finder to every start.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from jevlin_hooks import replay  # noqa: E402

PY = os.path.realpath(sys.executable)
ENTRY = replay.ENTRY


def events() -> dict[str, dict]:
    out = {}
    for _name, p in replay.scenario_events("basic") + replay.scenario_events("compact"):
        out.setdefault(p["hook_event_name"], p)
    return out


def run(cmd: list[str], data: bytes, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, input=data, stdout=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - t0


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def pi_lines(i: int, session: str) -> tuple[bytes, bytes]:
    ctx = {"sessionId": session, "sessionFile": None, "cwd": "/tmp", "model": {"provider": "x", "id": "m"}}
    call = {"event": {"type": "tool_call", "toolName": "bash", "toolCallId": f"toolu_pi_{i:06d}",
                      "input": {"command": f'jevlin search "pi {i}"'}}, "ctx": ctx, "jv": {"ack": i}}
    done = {"event": {"type": "tool_result", "toolName": "bash", "toolCallId": f"toolu_pi_{i:06d}",
                      "input": {"command": f'jevlin search "pi {i}"'}, "content": [{"type": "text", "text": "."}],
                      "isError": False}, "ctx": ctx, "jv": {}}
    return (json.dumps(call) + "\n").encode(), (json.dumps(done) + "\n").encode()


def pi_start_lines(session: str) -> bytes:
    ctx = {"sessionId": session, "sessionFile": None, "cwd": "/tmp", "model": {"provider": "x", "id": "m"}}
    start = {"event": {"type": "session_start", "reason": "startup"}, "ctx": ctx, "jv": {"fileSize": 0}}
    prompt = {"event": {"type": "message_end", "message": {"role": "user", "timestamp": 1,
                                                           "content": [{"type": "text", "text": "search"}]}},
              "ctx": ctx, "jv": {"prompt": True}}
    text = {"event": {"type": "message_end", "message": {"role": "assistant", "timestamp": 2,
                                                         "content": [{"type": "text", "text": "Searching."}]}},
            "ctx": ctx, "jv": {}}
    return b"".join((json.dumps(x) + "\n").encode() for x in (start, prompt, text))


def wait_ack(proc: subprocess.Popen, want: int) -> None:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the recorder exited")
        if line.strip() == str(want).encode():
            return


def pi_rows(n: int, env: dict[str, str], floor_cmd: list[str]) -> list[tuple[str, list[float], list[float]]]:
    rows = []
    stream = [PY, "-I", "-S", ENTRY, "pi", "--stream"]
    # a running recorder (every search after the first in a pi process)
    proc = subprocess.Popen(stream, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    proc.stdin.write(pi_start_lines("pi-bench-warm"))
    proc.stdin.flush()
    floor, took = [], []
    for i in range(1, n + 1):
        call, done = pi_lines(i, "pi-bench-warm")
        floor.append(run(floor_cmd, b"", env))
        t0 = time.perf_counter()
        proc.stdin.write(call)
        proc.stdin.flush()
        wait_ack(proc, i)
        took.append(time.perf_counter() - t0)
        proc.stdin.write(done)
        proc.stdin.flush()
    proc.stdin.close()
    proc.wait()
    rows.append(("pi tool_call ack (search)", floor, took))
    # the first search of a pi process: the recorder starts, applies the session start, acks
    floor, took = [], []
    for i in range(1, n + 1):
        call, _ = pi_lines(i, f"pi-bench-cold-{i}")
        floor.append(run(floor_cmd, b"", env))
        t0 = time.perf_counter()
        proc = subprocess.Popen(stream, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        proc.stdin.write(pi_start_lines(f"pi-bench-cold-{i}") + call)
        proc.stdin.flush()
        wait_ack(proc, i)
        took.append(time.perf_counter() - t0)
        proc.stdin.close()
        proc.wait()
    rows.append(("pi ack, recorder starting", floor, took))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--only", choices=["pi", "hermes", "copilot", "gemini"], help="only these rows (with their floor)")
    ap.add_argument("--baseline", help="copilot rows: another tree's entry.py, measured sample by sample beside this one")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="jevlin-bench-")
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('[search]\nshell_commands = ["jevlin search"]\n[daemon]\nautostart = false\n')
    transcript = os.path.join(tmp, "t.jsonl")
    (compacted,) = replay.session_files("compact").values()  # the captured session after its /compact
    with open(compacted, "rb") as f:
        base_transcript = f.read()
    with open(transcript, "wb") as f:
        f.write(base_transcript)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE")}
    env.update(JEVLIN_HOME=home, CLAUDE_PID=str(os.getpid()))
    ev = events()
    hook = [PY, "-I", "-S", ENTRY, "claude-code"]
    floor_cmd = [PY, "-I", "-S", "-c", "pass"]

    def payload(name: str, i: int) -> dict:
        p = dict(ev[name], transcript_path=transcript)
        if name in ("PreToolUse", "PostToolUse"):
            p["tool_input"] = {"command": f'jevlin search "query {i}"'}
            p["tool_use_id"] = f"toolu_bench_{i:06d}"
        return p

    def add_call(i: int) -> None:
        line = {"type": "assistant", "message": {"id": f"msg_b{i}", "role": "assistant", "content": [
            {"type": "text", "text": f"Searching for query {i}."},
            {"type": "tool_use", "id": f"toolu_bench_{i:06d}", "name": "Bash", "input": {}}]}}
        with open(transcript, "a") as f:
            f.write(json.dumps(line) + "\n")

    def prep(name: str, i: int) -> bytes:
        if name == "PostToolUse":
            add_call(i)
            subprocess.run(hook, input=json.dumps(payload("PreToolUse", i)).encode(), env=env, check=True)
        if name in ("Stop",):
            subprocess.run(hook, input=json.dumps(dict(ev["UserPromptSubmit"], prompt_id=f"p{i}")).encode(),
                           env=env, check=True)
            return json.dumps(dict(ev["Stop"], prompt_id=f"p{i}", transcript_path=transcript)).encode()
        if name == "UserPromptSubmit":
            return json.dumps(dict(ev["UserPromptSubmit"], prompt_id=f"q{i}")).encode()
        return json.dumps(payload(name, i)).encode()

    subprocess.run(hook, input=json.dumps(ev["SessionStart"]).encode(), env=env, check=True)
    rows = []
    if args.only == "pi":
        report(pi_rows(args.n, env, floor_cmd), args.n)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    if args.only == "hermes":
        report(hermes_rows(args.n, env, floor_cmd, tmp), args.n)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    if args.only == "gemini":
        report(gemini_rows(args.n, env, floor_cmd, tmp), args.n)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    if args.only == "copilot":
        report(copilot_rows(args.n, env, floor_cmd, tmp, args.baseline), args.n)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    for name in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch",
                 "PreCompact", "Stop", "SessionEnd"):
        floor, took = [], []
        for i in range(args.n):
            data = prep(name, i)
            floor.append(run(floor_cmd, b"", env))
            took.append(run(hook, data, env))
        rows.append((f"hook {name}", floor, took))

    # Codex: a search PreToolUse, and `notify` (its JSON is an argument, not stdin)
    cx = {n.split("-")[-1][:-5]: p for n, p in replay.scenario_events("basic", "codex")}
    subprocess.run([PY, "-I", "-S", ENTRY, "codex"], input=json.dumps(cx["SessionStart"]).encode(), env=env, check=True)
    floor, took = [], []
    for i in range(args.n):
        p = dict(cx["PreToolUse"], tool_input={"command": f'jevlin search "codex {i}"'}, tool_use_id=f"call_b{i}")
        floor.append(run(floor_cmd, b"", env))
        took.append(run([PY, "-I", "-S", ENTRY, "codex"], json.dumps(p).encode(), env))
    rows.append(("codex PreToolUse", floor, took))
    floor, took = [], []
    for i in range(args.n):
        note = dict(cx["notify"], **{"turn-id": f"turn-b{i}"})
        floor.append(run(floor_cmd, b"", env))
        took.append(run([PY, "-I", "-S", ENTRY, "codex-notify", json.dumps(note)], b"", env))
    rows.append(("codex notify", floor, took))

    rows += hermes_rows(args.n, env, floor_cmd, tmp)
    rows += gemini_rows(args.n, env, floor_cmd, tmp)
    rows += copilot_rows(args.n, env, floor_cmd, tmp, args.baseline)

    # Pi: the one step the agent waits for, the ack of a search's tool_call
    rows += pi_rows(args.n, env, floor_cmd)

    # SessionStart with autostart on while the daemon runs: the check is one non-blocking flock
    # on the home directory, which this process holds here as the daemon would.
    from jevlin_hooks.base import paths

    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('[search]\nshell_commands = ["jevlin search"]\n[daemon]\nautostart = true\n')
    lock = paths.try_daemon_lock(home)
    assert lock is not None
    auto_env = dict(env, JEVLIN_DAEMON_AUTOSTART="1")
    floor, took = [], []
    for _ in range(args.n):
        floor.append(run(floor_cmd, b"", env))
        took.append(run(hook, json.dumps(ev["SessionStart"]).encode(), auto_env))
    rows.append(("hook SessionStart+autostart", floor, took))
    os.close(lock)

    # context, from a regular install of this tree in a scratch venv
    venv = os.path.join(tmp, "venv")
    subprocess.run([PY, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "--no-deps", ROOT], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cli = os.path.join(venv, "bin", "jevlin-hooks")
    vpy = os.path.join(venv, "bin", "python")
    ctx_env = dict(env, CLAUDE_CODE_SESSION_ID=ev["SessionStart"]["session_id"])
    subprocess.run(hook, input=json.dumps(payload("PreToolUse", 10**6 - 1)).encode(), env=env, check=True)
    floor, took = [], []
    for _ in range(args.n):
        floor.append(run([vpy, "-I", "-S", "-c", "pass"], b"", ctx_env))
        took.append(run([cli, "context"], b"", ctx_env))
    rows.append(("jevlin-hooks context", floor, took))

    report(rows, args.n)
    shutil.rmtree(tmp, ignore_errors=True)


def report(rows: list[tuple[str, list[float], list[float]]], n: int) -> None:
    """Per row: the floor's p50 and p99, the hook's p10-p99, and the ratios. `p99 x` is the
    hook's p99 over the floor's p50 (the budget's ratio); `p99/fp99` is p99 over the floor's own
    p99, which the same machine noise moves alike."""
    print(f"python {sys.version.split()[0]}  {os.cpu_count()} cpus  n={n} per row, interleaved with the floor")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    width = max([26] + [len(label) for label, _, _ in rows])
    print(f"{'what':<{width}} {'floor p50':>9} {'floor p99':>9} {'p10':>8} {'p50':>8} {'p90':>8} {'p99':>8} "
          f"{'p50 x':>6} {'p99 x':>6} {'p99/fp99':>8}")
    for label, floor, took in rows:
        f50, f99 = pct(floor, .5), pct(floor, .99)
        t10, t50, t90, t99 = pct(took, .1), pct(took, .5), pct(took, .9), pct(took, .99)
        print(f"{label:<{width}} {f50 * 1000:7.1f}ms {f99 * 1000:7.1f}ms {t10 * 1000:6.1f}ms {t50 * 1000:6.1f}ms "
              f"{t90 * 1000:6.1f}ms {t99 * 1000:6.1f}ms {t50 / f50:5.2f}x {t99 / f50:5.2f}x {t99 / f99:7.2f}x")


def gemini_rows(n: int, env: dict[str, str], floor_cmd: list[str], tmp: str) -> list[tuple]:
    """Every event `install --harness gemini-cli` hooks, run as installed (payload on stdin), with
    the captured basic session's chat file in place. Each search is a fresh one (its own command,
    so its own pair key); AfterTool's BeforeTool and AfterAgent's BeforeAgent run first, untimed."""
    ev = {p["hook_event_name"]: p for _name, p in replay.scenario_events("basic", "gemini-cli")}
    mapping = replay.lay_transcripts("basic", os.path.join(tmp, "gemini"), "gemini-cli")
    hook = [PY, "-I", "-S", ENTRY, "gemini-cli"]

    def payload(name: str, i: int) -> bytes:
        p = replay.rewrite(ev[name], mapping)
        if name in ("BeforeTool", "AfterTool"):
            p["tool_input"] = dict(p["tool_input"], command=f'jevlin search "gemini {i}"')
        return json.dumps(p).encode()

    subprocess.run(hook, input=payload("SessionStart", 0), env=env, check=True)
    rows = []
    for name in ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"):
        floor, took = [], []
        for i in range(n):
            first = {"AfterTool": "BeforeTool", "AfterAgent": "BeforeAgent"}.get(name)
            if first:
                subprocess.run(hook, input=payload(first, i), env=env, check=True, stdout=subprocess.DEVNULL)
            floor.append(run(floor_cmd, b"", env))
            took.append(run(hook, payload(name, i), env))
        rows.append((f"gemini {name}", floor, took))
    return rows


def copilot_rows(n: int, env: dict[str, str], floor_cmd: list[str], tmp: str,
                 baseline: str | None = None) -> list[tuple]:
    """Every event `install --harness copilot-cli` hooks (Copilot waits for each), run as
    installed: the event name as the argument, Copilot's own payload (no event name) on stdin.

    First with Copilot's session file already holding what each hook reads (the captured basic
    session, under COPILOT_HOME, plus each search's request and its post hook's own line), then
    ("late" rows) as Copilot really writes it: each hook's own line ~90 ms after the hook
    starts (a thread appends it then, while the hook runs), with turn ends on. There a search's
    end and an agentStop either wait for that line (the old hooks) or hold their record for a
    later event (the event after them is measured too: it reads what was held), and sessionEnd
    waits for what is still held.

    ``baseline``: another tree's entry.py, measured in the same loop, sample by sample (floor,
    this tree, that tree), each tree with its own JEVLIN_HOME and COPILOT_HOME."""
    trees = [("", ENTRY)] + ([(" (baseline)", baseline)] if baseline else [])
    ev: dict[str, dict] = {}
    for _name, p in replay.scenario_events("basic", "copilot-cli") + replay.scenario_events("subagent", "copilot-cli") \
            + replay.scenario_events("compact", "copilot-cli"):
        ev.setdefault(p["hook_event_name"], {k: v for k, v in p.items() if k != "hook_event_name"})
    sid = ev["sessionStart"]["sessionId"]
    benches = [_CopilotBench(os.path.join(tmp, f"copilot-tree{t}"), entry, env, ev, sid)
               for t, (_label, entry) in enumerate(trees)]
    rows = []
    for label in ("sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "preToolUse other",
                  "postToolUse other", "preCompact", "subagentStart", "subagentStop", "agentStop", "sessionEnd"):
        samples = [([], []) for _ in trees]
        for i in range(n):
            for b, (floor, took) in zip(benches, samples, strict=True):
                name, data = b.prep(label, i)
                floor.append(run(floor_cmd, b"", b.env))
                took.append(run(b.hook + [name], data, b.env))
        rows += [(f"copilot {label}{t}", floor, took) for (t, _), (floor, took) in zip(trees, samples, strict=True)]
    late = ("postToolUse, line late", "next event, after it", "agentStop, line late", "next prompt, after it",
            "sessionEnd, line late")
    samples_by = {label: [([], []) for _ in trees] for label in late}
    for i in range(n):
        for t, b in enumerate(benches):
            for label, floor_took in zip(late, b.late_turn(i, floor_cmd), strict=True):
                samples_by[label][t][0].append(floor_took[0])
                samples_by[label][t][1].append(floor_took[1])
    for label in late:
        rows += [(f"copilot {label}{t}", floor, took) for (t, _), (floor, took) in zip(trees, samples_by[label], strict=True)]
    for (t, _), b in zip(trees, benches, strict=True):
        print(f"copilot late rows{t}: {b.late_check()}", file=sys.stderr)
    return rows


class _CopilotBench:
    """One tree's hooks, home and Copilot session files."""

    LATE = 0.09  # Copilot writes a hook's own line this long after the hook starts

    def __init__(self, root: str, entry: str, env: dict[str, str], ev: dict[str, dict], sid: str) -> None:
        self.hook = [PY, "-I", "-S", entry, "copilot-cli"]
        self.ev = ev
        self.sid = sid
        self.copilot_home = os.path.join(root, "copilot")
        self.events_file = self.events_of(sid)
        os.makedirs(os.path.dirname(self.events_file))
        shutil.copyfile(os.path.join(replay.data_dir("copilot-cli"), "sessions", f"{sid}.events.jsonl"),
                        self.events_file)
        homes = {}
        for name, extra in (("home", ""), ("home-late", "[miner]\nturn_end = true\n")):
            homes[name] = os.path.join(root, name)
            os.makedirs(homes[name])
            with open(os.path.join(homes[name], "config.toml"), "w") as f:
                f.write('[search]\nshell_commands = ["jevlin search"]\n[daemon]\nautostart = false\n' + extra)
        self.env = dict(env, JEVLIN_HOME=homes["home"], COPILOT_HOME=self.copilot_home)
        self.late_env = dict(env, JEVLIN_HOME=homes["home-late"], COPILOT_HOME=self.copilot_home)
        self.stamp = 2_100_000_000_000
        self.hook_run("sessionStart", ev["sessionStart"])
        self.hook_run("userPromptSubmitted", ev["userPromptSubmitted"])

    def events_of(self, sid: str) -> str:
        return os.path.join(self.copilot_home, "session-state", sid, "events.jsonl")

    def hook_run(self, name: str, payload: dict, env: dict[str, str] | None = None) -> None:
        subprocess.run(self.hook + [name], input=json.dumps(payload).encode(), env=env or self.env, check=True)

    def call(self, name: str, i: int, tool: str = "bash", **extra: object) -> dict:
        args = {"command": f'jevlin search "copilot {i}"'} if tool == "bash" else {"path": f"/w/f{i}.py"}
        return dict(self.ev[name], sessionId=self.sid, timestamp=2_000_000_000_000 + i, toolName=tool, toolArgs=args,
                    **extra)

    def written(self, i: int) -> None:  # what Copilot has written by the time the post hook runs
        ask = {"type": "assistant.message", "data": {"content": f"Searching for copilot {i}.", "model": "m",
               "toolRequests": [{"toolCallId": f"toolu_b{i}", "name": "bash",
                                 "arguments": {"command": f'jevlin search "copilot {i}"'}}]}, "timestamp": "x"}
        own = {"type": "hook.start", "data": {"hookType": "postToolUse", "input": {
               "sessionId": self.sid, "timestamp": 2_000_000_000_000 + i}}, "timestamp": "x"}
        with open(self.events_file, "a") as f:
            f.write(json.dumps(ask) + "\n" + json.dumps(own) + "\n")

    def prep(self, name: str, i: int) -> tuple[str, bytes]:
        ev, sid = self.ev, self.sid
        if name == "preToolUse other":
            return "preToolUse", json.dumps(self.call("preToolUse", i, "view")).encode()
        if name == "postToolUse other":
            return "postToolUse", json.dumps(self.call("postToolUse", i, "view")).encode()
        if name == "preToolUse":
            return name, json.dumps(self.call(name, i)).encode()
        if name == "postToolUse":
            self.hook_run("preToolUse", self.call("preToolUse", i))
            self.written(i)
            return name, json.dumps(self.call(name, i)).encode()
        if name == "userPromptSubmitted":
            return name, json.dumps(dict(ev[name], sessionId=sid, prompt=f"prompt {i}")).encode()
        if name == "agentStop":
            self.hook_run("userPromptSubmitted", dict(ev["userPromptSubmitted"], sessionId=sid))
        if name in ("subagentStart", "subagentStop"):
            return name, json.dumps(dict(ev[name], sessionId=sid, agentId=f"agent-{name}-{i}", parentAgentId=sid)).encode()
        return name, json.dumps(dict(ev[name], sessionId=sid)).encode()

    # --- as Copilot writes its file: each hook's own line ~90 ms late -------------------------

    def line(self, path: str, entry: dict) -> None:
        with open(path, "a") as f:
            f.write(json.dumps(dict(entry, timestamp="2036-07-18T00:00:00.000Z")) + "\n")

    def own(self, hook: str, sid: str, ts: int) -> dict:
        return {"type": "hook.start", "data": {"hookType": hook, "input": {"sessionId": sid, "timestamp": ts}}}

    def copilot_writes(self, path: str, entries: list[dict]) -> Any:
        """A thread that appends ``entries`` to ``path`` LATE seconds from now, as Copilot does with
        a hook's own line once the hook has started; join() it."""
        import threading

        def copilot() -> None:
            time.sleep(self.LATE)
            for entry in entries:
                self.line(path, entry)

        writer = threading.Thread(target=copilot)
        writer.start()
        return writer

    def late_check(self) -> str:
        """What the late rows queued: each search with its history, each turn end with its tokens."""
        from jevlin_hooks.base import spool

        recs = spool.read_all(self.late_env["JEVLIN_HOME"])
        searches = [r for r in recs if r["kind"] == "search"]
        ends = [r for r in recs if r["kind"] == "turn_end"]
        return (f"{len(searches)} searches, {sum(r['history'].startswith('Searching') for r in searches)} with "
                f"their history; {len(ends)} turn ends, {sum(r['tokens']['input'] > 0 for r in ends)} with tokens")

    def timed(self, name: str, payload: dict) -> float:
        return run(self.hook + [name], json.dumps(payload).encode(), self.late_env)

    def late_turn(self, i: int, floor_cmd: list[str]) -> list[tuple[float, float]]:
        """One turn with a search, and one session's end, as Copilot writes its file: (floor, time)
        of each late row, in the order of ``copilot_rows``'s ``late``."""
        sid = f"late-{self.sid}"
        path = self.events_of(sid)
        self.stamp += 10
        ts = self.stamp
        base = {"sessionId": sid, "cwd": "/w"}
        if i == 0:
            os.makedirs(os.path.dirname(path))
            self.hook_run("sessionStart", dict(self.ev["sessionStart"], sessionId=sid), self.late_env)
            self.hook_run("userPromptSubmitted", {**base, "prompt": "late 0", "timestamp": ts}, self.late_env)
        search = {**base, "toolName": "bash", "toolArgs": {"command": f'jevlin search "late {i}"'}}
        self.line(path, {"type": "user.message", "data": {"content": f"late {i}"}})
        self.line(path, {"type": "assistant.message", "data": {"content": f"Searching late {i}.", "model": "m",
                   "toolRequests": [{"name": "bash", "arguments": search["toolArgs"]}]}})
        self.hook_run("preToolUse", {**search, "timestamp": ts + 1}, self.late_env)
        out = []
        post = {**search, "timestamp": ts + 2,
                "toolResult": {"resultType": "success", "textResultForLlm": "r\n<shellId: 0 completed with exit code 0>"}}
        floor = run(floor_cmd, b"", self.env)
        writer = self.copilot_writes(path, [self.own("postToolUse", sid, ts + 2)])
        out.append((floor, self.timed("postToolUse", post)))
        writer.join()
        other = {**base, "toolName": "view", "toolArgs": {"path": f"/w/{i}"}, "timestamp": ts + 3}
        out.append((run(floor_cmd, b"", self.env), self.timed("preToolUse", other)))
        self.line(path, {"type": "session.usage_record", "data": {"usage": {"model": "m", "inputTokens": 10}}})
        self.line(path, {"type": "assistant.message", "data": {"content": "Done.", "model": "m"}})
        floor = run(floor_cmd, b"", self.env)
        writer = self.copilot_writes(path, [self.own("agentStop", sid, ts + 4)])
        out.append((floor, self.timed("agentStop", {**base, "timestamp": ts + 4, "stopReason": "end_turn"})))
        writer.join()
        nxt = {**base, "prompt": f"late {i + 1}", "timestamp": ts + 10}
        out.append((run(floor_cmd, b"", self.env), self.timed("userPromptSubmitted", nxt)))
        # a session of its own that ends right after its agentStop (as `copilot -p` does): the
        # agentStop's own line comes LATE after that hook started, while sessionEnd runs
        end_sid = f"end-{i}-{self.sid}"
        end_path = self.events_of(end_sid)
        os.makedirs(os.path.dirname(end_path))
        eb = {"sessionId": end_sid, "cwd": "/w"}
        self.hook_run("sessionStart", dict(self.ev["sessionStart"], sessionId=end_sid), self.late_env)
        self.hook_run("userPromptSubmitted", {**eb, "prompt": "end", "timestamp": ts + 5}, self.late_env)
        esearch = {**eb, "toolName": "bash", "toolArgs": {"command": f'jevlin search "end {i}"'}}
        self.line(end_path, {"type": "user.message", "data": {"content": "end"}})
        self.line(end_path, {"type": "assistant.message", "data": {"content": "Searching.", "model": "m",
                   "toolRequests": [{"name": "bash", "arguments": esearch["toolArgs"]}]}})
        self.hook_run("preToolUse", {**esearch, "timestamp": ts + 6}, self.late_env)
        self.line(end_path, self.own("postToolUse", end_sid, ts + 7))
        self.hook_run("postToolUse", {**esearch, "timestamp": ts + 7, "toolResult": {"resultType": "success",
                      "textResultForLlm": "r"}}, self.late_env)
        self.line(end_path, {"type": "assistant.message", "data": {"content": "Done.", "model": "m"}})
        floor = run(floor_cmd, b"", self.env)
        writer = self.copilot_writes(end_path, [self.own("agentStop", end_sid, ts + 8),
                                                self.own("sessionEnd", end_sid, ts + 9)])
        self.timed("agentStop", {**eb, "timestamp": ts + 8})
        out.append((floor, self.timed("sessionEnd", {**eb, "timestamp": ts + 9})))
        writer.join()
        return out


def hermes_rows(n: int, env: dict[str, str], floor_cmd: list[str], tmp: str) -> list[tuple]:
    """Every event `install --harness hermes` subscribes (Hermes waits for each), with fresh
    turn and call ids so each does its real work; then the alternative we did not pick for
    history: reading the assistant row from a state.db at pre_tool_call (sqlite3 import + query)."""
    hook = [PY, "-I", "-S", ENTRY, "hermes"]
    ev: dict[str, dict] = {}
    for _name, p in (replay.scenario_events("basic", "hermes") + replay.scenario_events("subagent_z", "hermes")
                     + replay.scenario_events("apierror", "hermes")):
        ev.setdefault(p["hook_event_name"], p)
    sid = ev["on_session_start"]["session_id"]

    def with_extra(name: str, **extra: object) -> dict:
        return dict(ev[name], session_id=sid, extra=dict(ev[name]["extra"], **extra))

    def turn(i: int) -> str:
        return f"{sid}:bench:{i:08x}"

    def tool(name: str, i: int) -> dict:
        return dict(with_extra(name, turn_id=turn(0), tool_call_id=f"call_bench_{i:06d}"),
                    tool_input={"command": f'jevlin search "hermes {i}"'})

    def prep(name: str, i: int) -> bytes:
        if name == "pre_llm_call":
            return json.dumps(with_extra(name, turn_id=turn(10**6 + i), is_first_turn=False)).encode()
        if name == "post_api_request":
            return json.dumps(with_extra(name, turn_id=turn(0), api_call_count=i + 1)).encode()
        if name == "pre_tool_call":
            return json.dumps(tool(name, i)).encode()
        if name == "post_tool_call":
            subprocess.run(hook, input=json.dumps(tool("pre_tool_call", i)).encode(), env=env, check=True)
            return json.dumps(tool(name, i)).encode()
        if name in ("subagent_start", "subagent_stop"):
            child = f"child_{i:06d}"
            if name == "subagent_stop":
                start = with_extra("subagent_start", turn_id=turn(0), child_session_id=child)
                subprocess.run(hook, input=json.dumps(start).encode(), env=env, check=True)
            return json.dumps(with_extra(name, turn_id=turn(0), child_session_id=child)).encode()
        if name == "api_request_error":
            start = with_extra("pre_llm_call", turn_id=turn(3 * 10**6 + i))
            subprocess.run(hook, input=json.dumps(start).encode(), env=env, check=True)
            # the request body Hermes sends along (the fixture dropped its 44 KB of tool schemas)
            return json.dumps(with_extra(name, turn_id=turn(3 * 10**6 + i),
                                         request={"method": "POST", "body": "x" * 44000})).encode()
        if name == "on_session_end":
            start = with_extra("pre_llm_call", turn_id=turn(2 * 10**6 + i))
            subprocess.run(hook, input=json.dumps(start).encode(), env=env, check=True)
            return json.dumps(with_extra(name, turn_id=turn(2 * 10**6 + i))).encode()
        return json.dumps(with_extra(name)).encode()

    subprocess.run(hook, input=json.dumps(with_extra("on_session_start")).encode(), env=env, check=True)
    subprocess.run(hook, input=json.dumps(with_extra("pre_llm_call", turn_id=turn(0))).encode(), env=env, check=True)
    rows = []
    for name in ("on_session_start", "pre_llm_call", "post_api_request", "pre_tool_call", "post_tool_call",
                 "subagent_start", "subagent_stop", "on_session_end", "api_request_error", "on_session_finalize"):
        floor, took = [], []
        for i in range(n):
            data = prep(name, i)
            floor.append(run(floor_cmd, b"", env))
            took.append(run(hook, data, env))
        rows.append((f"hermes {name}", floor, took))

    db = os.path.join(tmp, "state.db")
    import sqlite3

    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, "
                "role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, timestamp REAL NOT NULL, "
                "active INTEGER NOT NULL DEFAULT 1)")
    con.execute("CREATE INDEX idx_messages_session ON messages(session_id, timestamp)")
    for i in range(2000):
        con.execute("INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES (?,?,?,?,?)",
                    (f"s{i % 50}", "assistant", f"text {i}", json.dumps([{"id": f"call_{i}"}]), i))
    con.commit()
    con.close()
    query = ("SELECT content FROM messages WHERE session_id='s7' AND role='assistant' AND active=1 "
             "AND tool_calls LIKE '%call_1957%' ORDER BY id DESC LIMIT 1")
    probe = [PY, "-I", "-S", "-c", f"import sqlite3; c = sqlite3.connect({'file:' + db + '?mode=ro'!r}, uri=True); "
             f"c.execute({query!r}).fetchall()"]
    floor, took = [], []
    for _ in range(n):
        floor.append(run(floor_cmd, b"", env))
        took.append(run(probe, b"", env))
    rows.append(("(not used) state.db read", floor, took))
    return rows


if __name__ == "__main__":
    main()
