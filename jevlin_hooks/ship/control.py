"""`jevlin-hooks daemon start|stop|status|install-service`, and whether the daemon runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from jevlin_hooks.base import config, log, paths, spool
from jevlin_hooks.ship import daemon_state as status_file
from jevlin_hooks.ship import instance

# from instance, not from service: `status` must not import the daemon (and its scrubbing engine)
LOCK_NAME = instance.LOCK_NAME
PID_NAME = instance.PID_NAME


def running_pid(home: str) -> int | None:
    """The daemon's pid if one holds the lock for this home, -1 when the lock is held but its
    holder cannot be named as our daemon, else None (a stale pid file is ignored)."""
    pid, why = instance.running(home)
    if pid is not None:
        return pid
    return -1 if why else None


def command() -> list[str]:
    return [sys.executable, "-m", "jevlin_hooks.ship.service", "run"]


def _open_output(home: str) -> int:
    """logs/daemon.out for the daemon's stdout and stderr: never through a symlink or a hard
    link, mode 0600, rotated past the logs' size cap (log.open_append)."""
    dfd = paths.open_dir(home, "logs")
    try:
        return log.open_append(dfd, "daemon.out")
    finally:
        os.close(dfd)


def start(home: str, wait: float = 30.0) -> tuple[bool, str]:
    """Start a daemon unless one runs. Several at once: one starts, the others say it is running."""
    pid = running_pid(home)
    if pid:
        return True, "daemon already running" + (f" (pid {pid})" if pid > 0 else "")
    out = _open_output(home)
    env = dict(os.environ, JEVLIN_HOME=home)
    try:
        child = subprocess.Popen(command(), stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env,
                                 start_new_session=True, close_fds=True)
    finally:
        os.close(out)
    launched = time.time()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if child.poll() is not None:
            other = running_pid(home)
            if other and other != child.pid:  # another start won the lock first
                return True, "daemon already running" + (f" (pid {other})" if other > 0 else "")
            why = status_file.load(home).get("start_error") or f"exit status {child.returncode}"
            return False, f"daemon could not start: {why}; see {os.path.join(home, 'logs', 'daemon.log')}"
        st = status_file.load(home)
        if st.get("running") and st.get("pid") == child.pid and (st.get("started") or 0) >= launched - 1:
            return True, f"daemon started (pid {child.pid})"
        time.sleep(0.05)
    if child.poll() is None and running_pid(home) == child.pid:  # running, but could not write its status (a full disk)
        return True, f"daemon started (pid {child.pid})"
    return False, f"daemon did not start within {wait:.0f}s; see {os.path.join(home, 'logs', 'daemon.out')}"


def stop(home: str, wait: float = 30.0) -> tuple[bool, str]:
    """SIGTERM to our daemon, never to a pid the pid file names without it running our daemon."""
    pid, why = instance.running(home)
    if pid is None and why is None:
        return True, "daemon not running"
    if pid is None:
        return False, f"daemon not stopped: {why}"
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True, "daemon not running"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if instance.running(home) == (None, None):
            return True, f"daemon stopped (pid {pid})"
        time.sleep(0.05)
    return False, f"daemon (pid {pid}) did not stop within {wait:.0f}s"


def _ago(t: float | None) -> str:
    if not t:
        return "never"
    d = time.time() - t
    return f"{d:.0f}s ago" if d < 120 else f"{d / 60:.0f}m ago" if d < 7200 else f"{d / 3600:.1f}h ago"


def problems(home: str, st: dict[str, Any] | None = None) -> list[str]:
    """What stops delivery now, one line each with its fix (`status` and `doctor` show these).
    A problem is cleared by the daemon as soon as what caused it works again."""
    st = status_file.load(home) if st is None else st
    out = []
    pid = running_pid(home)
    if not pid and st.get("start_error"):
        out.append(f"daemon could not start ({_ago(st.get('start_error_at'))}): {st['start_error']}; "
                   "see logs/daemon.log, fix it, then `jevlin-hooks daemon start`")
    problem = st.get("problem")
    # A config that cannot be used is reported from the config itself (the `config` line).
    if isinstance(problem, dict) and problem.get("message") and problem.get("source") != "config":
        since = f" (since {_ago(problem.get('since'))})"
        if problem.get("kind") == "held":
            out.append(f"HELD: {problem['message']}{since}")
        else:
            out.append(f"failing: {problem['message']}{since}; retried with backoff")
    return out


def status_lines(home: str) -> list[str]:
    st = status_file.load(home)
    pid = running_pid(home)
    state = (f"running (pid {pid})" if pid > 0 else "running (pid not known yet)") if pid else "not running"
    # a stopped daemon's last sink is history, not a setting: only a running one's is shown
    lines = [f"daemon    {state}   sink: {st.get('sink', '-') if pid else '-'}"]
    if not pid:
        lines[0] += "   (start: jevlin-hooks daemon start)"
    new, cur, quar = (spool.count(home, d) for d in ("new", "cur", "quarantine"))
    held = spool.count(home, "held")
    age = spool.oldest_age(home)
    # The daemon sends records from new/ where they are: the batch it is sending is in new/ too
    # (cur/ holds only what an earlier version left there, sent after its next start).
    sending = min(new, st.get("in_flight") or 0) if pid and isinstance(st.get("in_flight"), int) else 0
    lines.append(f"queue     {new - sending} waiting, {sending + cur} in flight, {quar} quarantined"
                 + (f", {held} held (queued before trace was turned off)" if held else "")
                 + (f"; oldest waiting {age:.0f}s" if age is not None else ""))
    if quar:
        lines.append("          quarantined records: `jevlin-hooks quarantine list`, then `release` or `purge --yes`")
    lines.append(f"delivered {status_file.delivered_today(st)} today, {st.get('delivered_total', 0)} in all; "
                 f"last success {_ago(st.get('last_success'))}")
    now = problems(home, st)
    lines += [f"problem   {p}" for p in now]
    if not now and st.get("last_error"):
        lines.append(f"last error {st['last_error']} ({_ago(st.get('last_error_at'))})")
    if pid:
        lines += _activity(st)
    if st.get("next_retry") and st["next_retry"] > time.time() and pid:
        lines.append(f"next retry in {st['next_retry'] - time.time():.0f}s")
    if st.get("last_note"):
        lines.append(f"note      {st['last_note']}")
    _, why = config.settings(home, use_cache=False)
    if why:  # the one line hooks, daemon, status and doctor all give
        lines.append(f"config    {why}")
    if os.path.exists(os.path.join(home, "state", "spool_full")):
        lines.append("SPOOL FULL: hooks are not queueing new records ([spool] max_mb); see logs/hook.log")
    dropped = _dropped(home)
    if dropped:
        lines.append(f"dropped   {dropped} record(s) a hook could not queue (spool full or disk error); "
                     "see logs/hook.log")
    return lines


def _activity(st: dict[str, Any]) -> list[str]:
    """What a running daemon is waiting on, when that takes a while: a request in flight (until
    its answer deadline), a worker process's answer."""
    out = []
    now = time.time()
    sending = st.get("sending")
    if isinstance(sending, dict) and isinstance(sending.get("since"), (int, float)):
        limit = sending.get("deadline_s")
        out.append(f"sending   {sending.get('records', '?')} record(s) to the {sending.get('sink', '?')} sink, "
                   f"request in flight for {max(0.0, now - sending['since']):.0f}s"
                   + (f" (given up after {limit:.0f}s)" if isinstance(limit, (int, float)) else ""))
    waiting = st.get("waiting")
    if isinstance(waiting, dict) and isinstance(waiting.get("since"), (int, float)):
        out.append(f"preparing waiting {max(0.0, now - waiting['since']):.0f}s for worker process "
                   f"{waiting.get('pid', '?')} (given up after {waiting.get('gives_up_s', 60):.0f}s)")
    return out


def _dropped(home: str) -> int:
    try:
        with open(os.path.join(home, "state", "dropped")) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


SYSTEMD = """[Unit]
Description=jevlin-hooks daemon: ships agent search traces, scrubbed and hashed

[Service]
ExecStart={cmd}
Environment=JEVLIN_HOME={home}
Restart=on-failure
RestartSec=5

[Install]
WantedBy=default.target
"""

LAUNCHD = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>dev.jevlin.hooks</string>
  <key>ProgramArguments</key><array>{args}</array>
  <key>EnvironmentVariables</key><dict><key>JEVLIN_HOME</key><string>{home}</string></dict>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
  <key>StandardErrorPath</key><string>{home}/logs/daemon.out</string>
</dict>
</plist>
"""


def service_path(platform: str | None = None, base: str | None = None) -> str:
    """Where install_service writes the user service file (uninstall --purge removes it)."""
    base = base or os.path.expanduser("~")
    if (platform or sys.platform) == "darwin":
        return os.path.join(base, "Library", "LaunchAgents", "dev.jevlin.hooks.plist")
    return os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(base, ".config"),
                        "systemd", "user", "jevlin-hooks.service")


def install_service(home: str, platform: str | None = None, base: str | None = None) -> tuple[str, str]:
    """Write the user service file; returns (path, the command that enables it)."""
    platform = platform or sys.platform
    path = service_path(platform, base)
    cmd = command()
    if platform == "darwin":
        from xml.sax.saxutils import escape

        body = LAUNCHD.format(args="".join(f"<string>{escape(a)}</string>" for a in cmd), home=escape(home))
        enable = f"launchctl load -w {path}"
    else:
        import shlex

        body = SYSTEMD.format(cmd=shlex.join(cmd), home=home)
        enable = "systemctl --user daemon-reload && systemctl --user enable --now jevlin-hooks.service"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)
    return path, enable
