"""The hook runtime: read stdin, normalize, update lineage, queue records, never fail.

Whatever happens here, the process prints nothing the harness did not ask for and exits 0:
the agent must never wait on us or fail because of us. Our own failures go to
``$JEVLIN_HOME/logs/hook.log`` (bounded). Only the standard library and our small modules are
imported, and only what the event needs.
"""

from __future__ import annotations

import os
import sys
import time

from jevlin_hooks.base import fastjson, paths

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_PAYLOAD = 64 << 20  # larger payloads are drained and dropped, logged
HISTORY_WAIT = 0.3  # Claude Code flushes its transcript about every 100 ms
POLL = 0.02


def _read_stdin() -> bytes:
    fd = 0
    chunks = []
    total = 0
    while True:
        try:
            chunk = os.read(fd, 1 << 20)
        except InterruptedError:
            continue
        except OSError:
            break
        if not chunk:
            break
        total += len(chunk)
        if total <= MAX_PAYLOAD:
            chunks.append(chunk)
    if total > MAX_PAYLOAD:
        raise OverflowError("payload over 64 MiB")
    return b"".join(chunks)


def _harness_module(harness: str) -> Any:
    if harness == "claude-code":
        from jevlin_hooks.capture.harness import claude_code as mod
    elif harness == "codex":
        from jevlin_hooks.capture.harness import codex as mod  # type: ignore[no-redef]
    elif harness == "cursor":
        from jevlin_hooks.capture.harness import cursor as mod  # type: ignore[no-redef]
    else:
        raise ValueError("unknown harness")
    return mod


def _agent_pid() -> int | None:
    env = os.environ.get("CLAUDE_PID")
    if env and env.isdigit():
        return int(env)
    from jevlin_hooks.capture import procinfo

    pid = os.getppid()
    if procinfo.comm(pid) in ("sh", "bash", "dash", "zsh", "fish"):
        pid = procinfo.parent(pid) or pid
    return pid


def _route(harness: str, ev: dict[str, Any], home: str) -> None:
    """Send a child thread's event to its root thread's lineage.

    Codex: a subagent's hooks already carry the root session and the child as agent_id; only
    `notify`, which names the child thread alone, needs the index. Cursor: a subagent is a
    conversation of its own, known from subagentStart or from its parent_conversation_id.
    """
    from jevlin_hooks.capture import lineage

    if harness == "codex":
        if ev["kind"] == "notify_turn_complete":
            idx = lineage.read_index(home, "codex-thread", lineage.workspace_key(ev["session_id"]))
            if idx and isinstance(idx.get("root"), str):
                ev["agent_id"] = ev["session_id"]
                ev["session_id"] = idx["root"]
        elif ev.get("agent_id") and ev["kind"] in ("subagent_start", "prompt"):
            lineage.write_index(home, "codex-thread", lineage.workspace_key(ev["agent_id"]), {"root": ev["session_id"]})
    elif harness == "cursor":
        if ev["kind"] == "subagent_start" and ev.get("agent_id"):
            lineage.write_index(home, "cursor-child", lineage.workspace_key(ev["agent_id"]), {"root": ev["session_id"]})
            return
        root = ev.get("parent_conversation_id")
        if not root:
            idx = lineage.read_index(home, "cursor-child", lineage.workspace_key(ev["session_id"]))
            root = idx.get("root") if idx and isinstance(idx.get("root"), str) else None
        if root and root != ev["session_id"]:
            ev["agent_id"] = ev["session_id"]
            ev["session_id"] = root
            if ev["kind"] in ("session_start", "session_end", "stop"):
                ev["kind"] = {"session_start": "subagent_start", "session_end": "subagent_stop",
                              "stop": "subagent_stop"}[ev["kind"]]


def _history(ev: dict[str, Any], wait: float) -> str | None:
    from jevlin_hooks.capture import transcript

    path = ev.get("agent_transcript_path") if ev.get("agent_id") else ev.get("transcript_path")
    call = ev.get("tool_use_id")
    if not path or not call:
        return None
    deadline = time.monotonic() + wait
    info: dict[str, Any] = {}
    while True:
        try:
            found = transcript.history(path, call, info=info)
        except OSError:
            found = None
        if found is not None or time.monotonic() >= deadline:
            if info.get("model") and not ev.get("model"):
                ev["model"] = info["model"]  # the model that made this call, for host_meta
            return found
        time.sleep(POLL)


def _summary(ev: dict[str, Any], wait: float) -> dict[str, Any] | None:
    from jevlin_hooks.capture import transcript

    path = ev.get("transcript_path")
    if not path:
        return None
    deadline = time.monotonic() + wait
    want = ev.get("last_message")
    while True:
        try:
            s = transcript.turn_summary(path, ev.get("turn_id"))
        except OSError:
            s = None
        done = s is not None and (not want or s.get("last_text") == want)
        if done or time.monotonic() >= deadline:
            return s
        time.sleep(POLL)


def handle(harness: str, payload: Any, home: str) -> list[str]:
    """Process one event; returns what to print on stdout (the harness's neutral answer)."""
    from jevlin_hooks.base import config

    mod = _harness_module(harness)
    answer = getattr(mod, "answer", lambda p: [])(payload)
    try:
        cfg = config.load(home)
    except (config.ConfigError, OSError) as exc:
        from jevlin_hooks.base import log

        log.write(home, "hook.log", f"{harness}: config unusable ({type(exc).__name__}); using defaults")
        cfg = config.defaults()
    if not config.trace_on(cfg):
        return answer
    now = time.time()
    ev = mod.normalize(payload, cfg, now)
    if ev is None:
        return answer
    if ev["kind"] in ("session_start", "prompt") and not ev.get("agent_id"):
        from jevlin_hooks.privacy import ids

        try:  # created here, outside any sandbox, so a sandboxed search can read it
            ids.load_key(home, create=True)
        except OSError as exc:
            from jevlin_hooks.base import log

            log.write(home, "hook.log", f"{harness}: key unusable: {exc}")
    if ev["kind"] in ("session_start", "prompt") and not ev.get("agent_id"):
        ev["agent_pid"] = _agent_pid()
    _route(harness, ev, home)
    if ev.get("search") is not None and ev["kind"] in ("post_tool", "tool_failed") and harness == "claude-code":
        ev["history"] = _history(ev, HISTORY_WAIT)
    if ev["kind"] in ("stop", "stop_failure") and not ev.get("agent_id") and harness == "claude-code":
        wait = HISTORY_WAIT if cfg.get("miner", {}).get("turn_end") else 0.0
        ev["summary"] = _summary(ev, wait)
    elif ev["kind"] in ("stop", "stop_failure", "interrupt") and harness == "codex" and ev.get("transcript_path") \
            and not ev.get("agent_id"):
        from jevlin_hooks.capture import transcript

        ev["summary"] = transcript.codex_turn_usage(ev["transcript_path"], ev.get("turn_id"))
    if ev.get("agent_pid"):
        from jevlin_hooks.capture import procinfo

        ev["agent_pid_start"] = procinfo.start_time(ev["agent_pid"])

    from jevlin_hooks.capture import engine, lineage

    def history_for(p: dict[str, Any]) -> str | None:
        path = p.get("transcript_path")
        if harness != "claude-code" or not path or not p.get("call_id"):
            return None
        from jevlin_hooks.capture import transcript

        try:
            return transcript.history(path, p["call_id"])
        except OSError:
            return None

    before: dict[str, Any] = {}

    def transition(state: dict[str, Any] | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        if state is not None:
            before["pid"] = state.get("agent_pid")
            before["cwd"] = state.get("cwd")
        return engine.apply(harness, state, ev, cfg, history_for)

    state = lineage.update(home, harness, ev["session_id"], transition)
    if state is not None:
        name = lineage.file_name(harness, ev["session_id"])
        if state.get("agent_pid") and state["agent_pid"] != before.get("pid"):
            lineage.write_index(home, "pid", str(state["agent_pid"]),
                                {"lineage": name, "start": state.get("agent_pid_start")})
        if state.get("cwd") and state["cwd"] != before.get("cwd"):
            lineage.write_index(home, "cwd", lineage.workspace_key(state["cwd"]),
                                {"lineage": name, "updated": now})
    if ev["kind"] == "session_start" and cfg.get("daemon", {}).get("autostart") \
            and os.environ.get("JEVLIN_DAEMON_AUTOSTART", "1") not in ("0", "off", "false"):
        _maybe_start_daemon(home)
    return answer


def _maybe_start_daemon(home: str) -> None:
    """Start the daemon when it is not running. Cheap when it runs: one non-blocking flock.

    A double fork and exec (no ``subprocess`` import) so the agent never waits on it, and the
    daemon runs without ``-I -S``: it needs site-packages (httpx, watchdog, re2).
    """
    fd = paths.try_daemon_lock(home)
    if fd is None:
        return  # held: the daemon runs
    os.close(fd)  # closing releases it for the daemon we start
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:  # first child: new session, fork the daemon, exit
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        lfd = paths.open_dir(home, "logs")
        try:
            out = os.open("daemon.out", os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600, dir_fd=lfd)
        finally:
            os.close(lfd)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        env = dict(os.environ, JEVLIN_HOME=home)
        os.execve(sys.executable, [sys.executable, "-m", "jevlin_hooks.ship.service", "run"], env)
    finally:
        os._exit(0)


def _chain(argv: list[str], payload_arg: str) -> None:
    """Run the notify program the user had before ours, with the same argument, detached."""
    if not argv:
        return
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execvp(argv[0], argv + [payload_arg])
    finally:
        os._exit(0)


def main(harness: str, argv: list[str] | None = None) -> None:
    home = paths.home()
    out: list[str] = []
    try:
        os.umask(0o077)
        if harness == "codex-notify":
            # Codex passes notify's JSON as the last argument, not on stdin.
            args = list(argv or [])
            arg = args[-1] if args else "{}"
            chain = args[args.index("--then") + 1:-1] if "--then" in args else []
            try:
                _chain(chain, arg)
            except OSError:
                pass
            payload = fastjson.loads(arg)
            out = handle("codex", payload, home)
        else:
            data = _read_stdin()
            payload = fastjson.loads(data)
            out = handle(harness, payload, home)
    except BaseException as exc:  # noqa: BLE001 - the whole point: never fail the agent
        if harness == "cursor" and not out:
            # The event is unknown, so answer what is neutral for every Cursor event: before*
            # hooks read "permission", beforeSubmitPrompt "continue"; the rest ignore both.
            out = ['{"permission":"allow","continue":true}']
        try:
            from jevlin_hooks.base import log

            log.write(home, "hook.log", f"{harness}: {log.describe(exc)}")
        except BaseException:  # noqa: BLE001
            pass
    try:
        for line in out:
            os.write(1, line.encode() + b"\n")
    except BaseException:  # noqa: BLE001
        pass
    os._exit(0)  # skip interpreter teardown: nothing left to flush, and it costs time
