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
    from collections.abc import Callable
    from typing import Any

    from jevlin_hooks.capture.shapes import Record, State

MAX_PAYLOAD = 64 << 20  # larger payloads are drained and dropped, logged


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


def _agent_pid() -> int | None:
    env = os.environ.get("CLAUDE_PID")
    if env and env.isdigit():
        return int(env)
    from jevlin_hooks.capture import procinfo

    pid = os.getppid()
    if procinfo.comm(pid) in ("sh", "bash", "dash", "zsh", "fish"):
        pid = procinfo.parent(pid) or pid
    return pid


def _log_reason(home: str, why: str, log_it: bool) -> None:
    """The one line saying why settings cannot be used, in hook.log once: a config error is new
    once per version of the file (cached); an environment one is remembered by the log."""
    if not log_it:
        return
    from jevlin_hooks.base import log

    (log.write_once if why.startswith("JEVLIN_TRACE") else log.write)(home, "hook.log", why)


def handle(harness: str, payload: Any, home: str) -> list[str]:
    """Process one event; returns what to print on stdout (the harness's neutral answer)."""
    from jevlin_hooks import harnesses
    from jevlin_hooks.base import config

    mod = harnesses.capture(harness)
    answer: list[str] = mod.answer(payload)
    cfg, why, log_it = config.check(home)
    if cfg is None:  # fail closed: nothing is queued; the reason is logged once
        _log_reason(home, why, log_it)
        return answer
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
            from jevlin_hooks.base import spool

            spool.prepare_counter(home)
        except OSError as exc:
            from jevlin_hooks.base import log

            log.write(home, "hook.log", f"{harness}: key unusable: {exc}")
        ev["agent_pid"] = _agent_pid()
    mod.route(ev, home)
    mod.enrich(ev, cfg)
    pid = ev.get("agent_pid")
    if pid:
        from jevlin_hooks.capture import procinfo

        ev["agent_pid_start"] = procinfo.start_time(pid)

    from jevlin_hooks.capture import engine, lineage

    before: dict[str, Any] = {}
    complete = getattr(mod, "complete", None)  # an optional part: a harness that holds records

    def transition(state: State | None) -> tuple[State | None, list[Record]]:
        if state is not None:
            before["pid"] = state.get("agent_pid")
            before["cwd"] = state.get("cwd")
        return engine.apply(mod.NAME, state, ev, cfg, mod.history_for, complete)

    state = lineage.update(home, mod.NAME, ev["session_id"], transition)
    if state is not None:
        name = lineage.file_name(mod.NAME, ev["session_id"])
        if state.get("agent_pid") and state["agent_pid"] != before.get("pid"):
            lineage.write_index(home, "pid", str(state["agent_pid"]),
                                {"lineage": name, "start": state.get("agent_pid_start")})
        cwd = state.get("cwd")
        if cwd and cwd != before.get("cwd"):
            lineage.write_index(home, "cwd", lineage.workspace_key(cwd),
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
        from jevlin_hooks.base import log

        lfd = paths.open_dir(home, "logs")
        try:
            out = log.open_append(lfd, "daemon.out")  # no symlink or hard link followed, 0600, capped
        finally:
            os.close(lfd)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        env = dict(os.environ, JEVLIN_HOME=home)
        os.execve(sys.executable, [sys.executable, "-m", "jevlin_hooks.ship.service", "run"], env)
    finally:
        os._exit(0)


F_SETPIPE_SZ = 1031  # Linux: a bigger pipe lets the agent write ahead without ever blocking


def serve(harness: str, home: str) -> None:
    """One resident process for an agent that streams its events (Pi's extension): JSON lines
    on stdin, applied one by one in the order they came; a line with ``jv.ack = n`` is answered
    ``n`` on stdout once applied (the agent waits for that before a search's process starts).

    The first line out is the ``[search]`` config, so the extension waits only for calls that
    may be searches, and the path of this process's tail file: what the agent could not get
    into the pipe before it exited goes there (it never waits for a slow reader), and is read
    as the rest of the stream at end of input. Then each session whose stream stopped without
    its shutdown gets the harness's closing event. Never fails: a bad line is logged.
    """
    import fcntl

    from jevlin_hooks import harnesses
    from jevlin_hooks.base import config

    mod = harnesses.capture(harness)
    try:
        fcntl.fcntl(0, F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    # Fail closed: with settings we cannot use no call is a search (the agent waits for none),
    # and each line's handle() records nothing; a refused home gets no tail file either.
    cfg, why, log_it = config.check(home)
    if cfg is None:
        _log_reason(home, why, log_it)
    tail = _tail_dir(home) if paths.untrusted(home) is None else None
    name = f"{os.getpid()}.jsonl"
    hello: dict[str, Any] = {"search": cfg.get("search", {}) if cfg else {}}
    if tail is not None:
        hello["tail"] = os.path.join(home, "sessions", TAIL_DIR, name)
    _say(hello)
    last: dict[str, Any] = {}  # session -> its last payload
    closed: set[str] = set()
    buf = b""
    while True:
        try:
            chunk = os.read(0, 1 << 20)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if chunk:
            buf += chunk
            if b"\n" not in chunk:
                if len(buf) > MAX_PAYLOAD:
                    buf = b""  # a line too long to be ours: dropped (and logged below)
                    _log(home, harness, OverflowError("stream line over 64 MiB"))
                continue
            lines = buf.split(b"\n")
            buf = lines.pop()
        else:
            if tail is not None:
                buf += _take_tail(tail, name, home, harness)
            lines = buf.split(b"\n")
        for line in lines:
            if line.strip():
                _serve_line(harness, home, mod, line, last, closed)
        if not chunk:
            break
    if tail is not None:
        os.close(tail)
    close = getattr(mod, "closing_payload", None)
    for sid, payload in last.items():
        if close is not None and sid not in closed:
            try:
                end = close(payload)
                if end is not None:
                    handle(harness, end, home)
            except BaseException as exc:  # noqa: BLE001
                _log(home, harness, exc)


TAIL_DIR = "stream-tail"


def _tail_dir(home: str) -> int | None:
    try:
        fd = paths.open_dir(home, "sessions", TAIL_DIR)
    except OSError:
        return None
    try:  # a file left under this pid by a process long gone is not ours
        os.unlink(f"{os.getpid()}.jsonl", dir_fd=fd)
    except OSError:
        pass
    return fd


def _take_tail(dfd: int, name: str, home: str, harness: str) -> bytes:
    try:
        data = paths.read_bytes(dfd, name, limit=256 << 20)
    except FileNotFoundError:
        return b""
    except OSError as exc:
        _log(home, harness, exc)
        return b""
    try:
        os.unlink(name, dir_fd=dfd)
    except OSError:
        pass
    return data


def _serve_line(harness: str, home: str, mod: Any, line: bytes, last: dict[str, Any], closed: set[str]) -> None:
    ack = None
    try:
        payload = fastjson.loads(line)
        jv = payload.get("jv") if isinstance(payload, dict) else None
        ack = jv.get("ack") if isinstance(jv, dict) else None
        handle(harness, payload, home)
        ctx = payload.get("ctx") if isinstance(payload, dict) else None
        sid = ctx.get("sessionId") if isinstance(ctx, dict) else None
        if isinstance(sid, str):
            last[sid] = payload
            etype = (payload.get("event") or {}).get("type") if isinstance(payload.get("event"), dict) else None
            if etype == "session_shutdown":
                closed.add(sid)
            elif etype == "session_start":
                closed.discard(sid)
    except BaseException as exc:  # noqa: BLE001 - one bad line never stops the stream
        _log(home, harness, exc)
    if isinstance(ack, int) and not isinstance(ack, bool):
        _say(ack)


def _say(value: Any) -> None:
    try:
        os.write(1, (fastjson.dumps(value) + "\n").encode())
    except OSError:
        pass  # the agent is gone: nobody waits for the answer


def _log(home: str, harness: str, exc: BaseException) -> None:
    try:
        from jevlin_hooks.base import log

        log.write(home, "hook.log", f"{harness}: {log.describe(exc)}")
        _count_lost(home, exc)
    except BaseException:  # noqa: BLE001
        pass


def _count_lost(home: str, exc: BaseException) -> None:
    """An event the home could not take (read-only, full, not writable) is counted where
    `status` finds it even when the log cannot be written either (base/lost.py)."""
    if isinstance(exc, OSError):
        from jevlin_hooks.base import lost

        lost.count(home, exc)


def run(harness: str, argv: list[str], stdin: Callable[[], bytes] = _read_stdin) -> list[str]:
    """Everything a hook process does except printing and exiting: returns what to print.

    Never raises. ``main`` is this plus the output; the tests' in-process scenarios call it
    directly, so both paths run the same code.
    """
    home = paths.home()
    out: list[str] = []
    mod = None
    try:
        os.umask(0o077)
        from jevlin_hooks import harnesses

        mod = harnesses.capture(harness)
        data = mod.read_payload(harness, argv)
        payload = fastjson.loads(stdin() if data is None else data)
        out = handle(harness, payload, home)
    except BaseException as exc:  # noqa: BLE001 - the whole point: never fail the agent
        if mod is not None and not out:
            try:
                out = mod.neutral_answer()
            except BaseException:  # noqa: BLE001
                pass
        try:
            from jevlin_hooks.base import log

            if paths.untrusted(home) is None:  # never write into a home we refused
                log.write(home, "hook.log", f"{harness}: {log.describe(exc)}")
                _count_lost(home, exc)
        except BaseException:  # noqa: BLE001
            pass
    return out


def main(harness: str, argv: list[str] | None = None) -> None:
    if argv and argv[0] == "--stream":
        home = paths.home()
        try:
            os.umask(0o077)
            serve(harness, home)
        except BaseException as exc:  # noqa: BLE001 - never fail the agent
            _log(home, harness, exc)
        os._exit(0)
    out = run(harness, list(argv or []))
    try:
        for line in out:
            os.write(1, line.encode() + b"\n")
    except BaseException:  # noqa: BLE001
        pass
    os._exit(0)  # skip interpreter teardown: nothing left to flush, and it costs time
