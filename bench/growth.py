"""Cost against use: the curves that must stay flat, in one run.

    .venv/bin/python bench/growth.py [--quick] [--n 30]

1. subagents: a session that has run 1 / 100 / 1,000 / 10,000 finished subagents (built with the
   engine on the captured Claude Code payloads, then written once); its lineage file size, and a
   search PreToolUse hook on it (whole process, real payload) beside the same hook on the same
   session without subagents, samples interleaved.
2. old sessions: 1 / 1,000 / 10,000 closed sessions in sessions/ (copies of one the real hook
   wrote, 60 days old; retention has not run yet): `jevlin-hooks status` wall time and peak RSS,
   the daemon's abandoned-session sweep, and then one retention pass removing them.
3. a late transcript flush: PostToolUse on a 9 MiB transcript whose call is written 150 ms
   after the hook starts (it polls), CPU of the hook process beside the call already present.
4. queue: 1k / 10k / 100k queued records, the daemon beside the OpenTelemetry SDK
   (bench/queue_vs_otel.py).

--quick: subagents up to 1,000, old sessions up to 1,000, queue 1k and 10k.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from jevlin_hooks import replay  # noqa: E402
from jevlin_hooks.base import config, fastjson  # noqa: E402
from jevlin_hooks.capture import engine, lineage  # noqa: E402
from jevlin_hooks.harnesses.claude_code import capture as claude_code  # noqa: E402

PY = os.path.realpath(sys.executable)
HOOK = [PY, "-I", "-S", replay.ENTRY, "claude-code"]
CFG = '[search]\nshell_commands = ["jevlin search"]\n[daemon]\nautostart = false\n'


def events(scenario: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for _, p in replay.scenario_events(scenario):
        out.setdefault(p["hook_event_name"], []).append(p)
    return out


def new_home(tmp: str, name: str) -> str:
    home = os.path.join(tmp, name)
    os.makedirs(home, mode=0o700)
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(CFG)
    return home


def env_for(home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX"))}
    env.update(JEVLIN_HOME=home, CLAUDE_PID=str(os.getpid()))
    return env


def timed(cmd: list[str], data: bytes, env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
    proc.stdin.write(data)  # type: ignore[union-attr]
    proc.stdin.close()  # type: ignore[union-attr]
    _, _, ru = os.wait4(proc.pid, 0)
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def p50(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


# --- 1. subagents -----------------------------------------------------------------------------

def build_subagent_session(home: str, sid: str, n: int) -> None:
    """n finished foreground subagents (each with one search), 100 per turn, through the engine
    as the hook runs it, written once at the end (n = 0: the same session without them)."""
    ev = events("subagent_fg")
    cfg = config.defaults()
    cfg["search"]["shell_commands"] = ["jevlin search", "/opt/probe/tool_probe.sh"]
    state = None
    now = time.time()
    seq = replay.subagent_shapes()

    def step(p: dict) -> None:
        nonlocal state
        e = claude_code.normalize({**p, "session_id": sid}, cfg, now)
        assert e is not None
        state, _ = engine.apply("claude-code", state, e, cfg)

    step({**ev["UserPromptSubmit"][0], "prompt_id": "p0"})
    for i in range(n):
        if i % 100 == 0 and i:
            step({**ev["Stop"][0], "prompt_id": f"p{i // 100 - 1}"})
            step({**ev["UserPromptSubmit"][0], "prompt_id": f"p{i // 100}"})
        for p in seq:
            q = {**p, "prompt_id": f"p{i // 100}"}
            if "agent_id" in q:
                q["agent_id"] = f"a{i:016x}"
            if "tool_use_id" in q:
                q["tool_use_id"] = f"toolu_{'s' if q.get('tool_name') == 'Agent' else 'b'}{i:06d}"
            step(q)
    step({**ev["Stop"][0], "prompt_id": f"p{max(n - 1, 0) // 100}"})
    os.makedirs(os.path.join(home, "sessions"), mode=0o700, exist_ok=True)
    with open(os.path.join(home, "sessions", lineage.file_name("claude-code", sid) + ".json"), "wb") as f:
        f.write(fastjson.dumps(state).encode("ascii"))


def subagent_curve(tmp: str, sizes: list[int], n: int) -> None:
    print("\n1. subagents: lineage size and a search PreToolUse hook (p50 of whole processes, interleaved)")
    print(f"{'subagents':>10} {'build s':>8} {'lineage':>10} {'0 subs p50':>10} {'this p50':>9} {'ratio':>6}")
    base = events("basic")["PreToolUse"][0]
    for count in sizes:
        home = new_home(tmp, f"sub{count}")
        t0 = time.perf_counter()
        build_subagent_session(home, "big", count)
        build = time.perf_counter() - t0
        build_subagent_session(home, "small", 0)  # the same turn, no subagent: the fresh session
        size = os.path.getsize(os.path.join(home, "sessions", "claude-code.big.json"))
        env = env_for(home)
        fresh, big = [], []
        for i in range(n):
            for sid, out in (("small", fresh), ("big", big)):
                p = {**base, "session_id": sid, "prompt_id": "q",
                     "tool_input": {"command": f"jevlin search q{i}"}, "tool_use_id": f"toolu_g{i:06d}"}
                out.append(timed(HOOK, json.dumps(p).encode(), env)[0])
        print(f"{count:>10,} {build:>8.1f} {size / 1024:>8.1f}KB {p50(fresh) * 1000:>8.1f}ms "
              f"{p50(big) * 1000:>7.1f}ms {p50(big) / p50(fresh):>5.2f}x")


# --- 2. old sessions --------------------------------------------------------------------------

def old_sessions(home: str, count: int) -> None:
    env = env_for(home)
    for _, p in replay.scenario_events("subagent"):
        subprocess.run(HOOK, input=json.dumps({**p, "session_id": "template"}).encode(), env=env, check=True)
    sdir = os.path.join(home, "sessions")
    src = os.path.join(sdir, "claude-code.template.json")
    state = json.load(open(src))
    os.unlink(src)
    t = time.time() - 60 * 86400
    for i in range(count):
        name = os.path.join(sdir, f"claude-code.old-{i:06d}")
        with open(name + ".json", "w") as f:
            json.dump({**state, "session_id": f"old-{i:06d}", "updated": t}, f)
        open(name + ".lock", "w").close()
        os.utime(name + ".json", (t, t))
        os.utime(name + ".lock", (t, t))


def sessions_curve(tmp: str, sizes: list[int]) -> None:
    print("\n2. old sessions: status, the abandoned-session sweep, one retention pass")
    print(f"{'sessions':>10} {'file':>8} {'status s':>9} {'CPU s':>6} {'status RSS':>11} {'sweep ms':>9} "
          f"{'retention s':>12} {'left':>6}")
    from jevlin_hooks.ship import housekeeping

    for count in sizes:
        home = new_home(tmp, f"old{count}")
        old_sessions(home, count)
        one = os.path.getsize(os.path.join(home, "sessions", "claude-code.old-000000.json")) if count else 0
        env = env_for(home)
        walls, cpus, rss = [], [], 0.0
        for _ in range(5):
            w, c, r = timed([sys.executable, "-m", "jevlin_hooks.cli", "status"], b"", env)
            walls.append(w)
            cpus.append(c)
            rss = max(rss, r)
        housekeeping.build_open_index(home)  # the once-per-home migration (the daemon does it at start)
        t0 = time.perf_counter()
        housekeeping.sweep_abandoned(home, time.time(), 3600, lambda name, st: False)
        sweep = time.perf_counter() - t0
        t0 = time.perf_counter()
        housekeeping.retention(home, 30, time.time())
        ret = time.perf_counter() - t0
        left = len([n for n in os.listdir(os.path.join(home, "sessions")) if n.endswith(".json")])
        print(f"{count:>10,} {one / 1024:>6.1f}KB {p50(walls):>9.3f} {p50(cpus):>6.3f} {rss:>9.0f}MB {sweep * 1000:>9.2f} "
              f"{ret:>12.2f} {left:>6}")
        shutil.rmtree(home, ignore_errors=True)


# --- 3. late flush ----------------------------------------------------------------------------

def late_flush(tmp: str, n: int) -> None:
    print("\n3. PostToolUse on a 9 MiB transcript: the call already written vs written 150 ms late (CPU of the hook)")
    home = new_home(tmp, "late")
    env = env_for(home)
    ev = events("basic")
    path = os.path.join(tmp, "big.jsonl")
    filler = json.dumps({"type": "user", "promptId": "old", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "x", "content": "o" * 8000}]}}) + "\n"
    with open(path, "w") as f:
        f.write(filler * (9 * 1024 * 1024 // len(filler)))
        f.write(json.dumps({"type": "user", "promptId": "p", "message": {"role": "user", "content": "go"}}) + "\n")
    subprocess.run(HOOK, input=json.dumps({**ev["UserPromptSubmit"][0], "prompt_id": "p"}).encode(), env=env, check=True)
    rows: dict[str, list[tuple[float, float]]] = {"present": [], "late": []}
    for i in range(n):
        for mode in ("present", "late"):
            call = f"toolu_late{mode[0]}{i:05d}"
            line = json.dumps({"type": "assistant", "message": {"id": f"m{call}", "model": "claude-x", "content": [
                {"type": "text", "text": "Searching."}, {"type": "tool_use", "id": call, "name": "Bash", "input": {}}]}}) + "\n"
            p = {**ev["PreToolUse"][0], "prompt_id": "p", "transcript_path": path,
                 "tool_input": {"command": f"jevlin search {call}"}, "tool_use_id": call}
            subprocess.run(HOOK, input=json.dumps(p).encode(), env=env, check=True)
            post = {**ev["PostToolUse"][0], "prompt_id": "p", "transcript_path": path,
                    "tool_input": p["tool_input"], "tool_use_id": call}
            if mode == "present":
                with open(path, "a") as f:
                    f.write(line)
                w, cpu, _ = timed(HOOK, json.dumps(post).encode(), env)
            else:
                timer = threading.Timer(0.15, lambda line=line: open(path, "a").write(line))
                timer.start()
                w, cpu, _ = timed(HOOK, json.dumps(post).encode(), env)
                timer.join()
            rows[mode].append((w, cpu))
    for mode, xs in rows.items():
        print(f"  call {mode:<8} wall p50 {p50([x[0] for x in xs]) * 1000:6.1f} ms   "
              f"CPU p50 {p50([x[1] for x in xs]) * 1000:6.1f} ms")
    # the same 15 polls in-process: incremental (HistoryPoll) vs reading the tail afresh each time
    from jevlin_hooks.capture import transcript

    for label, fresh in (("incremental polls", False), ("re-read every poll", True)):
        c0 = time.process_time()
        call = f"toolu_inproc_{label[:2]}"
        poll = transcript.HistoryPoll(path, call)
        for k in range(15):
            found = transcript.history(path, call) if fresh else poll.poll()
            assert found is None
            with open(path, "a") as f:
                f.write(json.dumps({"type": "progress", "k": k}) + "\n")
        print(f"  15 polls before the call appears, {label:<18} CPU {(time.process_time() - c0) * 1000:6.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--n", type=int, default=30, help="hook samples per point")
    ap.add_argument("--skip", default="", help="comma-separated sections to skip: subagents,sessions,late,queue")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    tmp = tempfile.mkdtemp(prefix="jevlin-growth-")
    print(f"python {sys.version.split()[0]}  {os.cpu_count()} cpus  load {os.getloadavg()[0]:.1f}")
    try:
        if "subagents" not in skip:
            subagent_curve(tmp, [1, 100, 1000] if args.quick else [1, 100, 1000, 10000], args.n)
        if "sessions" not in skip:
            sessions_curve(tmp, [1, 1000] if args.quick else [1, 1000, 10000])
        if "late" not in skip:
            late_flush(tmp, max(5, args.n // 3))
        if "queue" not in skip:
            import queue_vs_otel

            print("\n4. queue: the daemon (scrub + hash + spans + gzip + POST + delete) beside the OpenTelemetry SDK, "
                  "OTLP/HTTP protobuf both")
            queue_vs_otel.print_rows(queue_vs_otel.bench([1000, 10000] if args.quick else [1000, 10000, 100000],
                                                         ["protobuf"], rounds=2, cores=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
