"""`jevlin-hooks daemon start|stop|status|install-service`, and whether the daemon runs."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time

from jevlin_hooks.base import paths, spool
from jevlin_hooks.ship import daemon_state as status_file

# from paths, not from service: `status` must not import the daemon (and its scrubbing engine)
LOCK_NAME = paths.DAEMON_LOCK
PID_NAME = paths.DAEMON_PID


def running_pid(home: str) -> int | None:
    """The daemon's pid if one holds the lock for this home, else None (a stale pid file is ignored)."""
    path = os.path.join(home, "state", LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    except OSError:
        pass
    finally:
        os.close(fd)
    try:
        with open(os.path.join(home, "state", PID_NAME)) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return -1  # running, pid file not written yet


def command() -> list[str]:
    return [sys.executable, "-m", "jevlin_hooks.ship.service", "run"]


def start(home: str, wait: float = 5.0) -> tuple[bool, str]:
    pid = running_pid(home)
    if pid:
        return True, f"daemon already running (pid {pid})"
    os.makedirs(os.path.join(home, "logs"), mode=0o700, exist_ok=True)
    logf = open(os.path.join(home, "logs", "daemon.out"), "ab")  # noqa: SIM115 - handed to the child
    env = dict(os.environ, JEVLIN_HOME=home)
    subprocess.Popen(command(), stdin=subprocess.DEVNULL, stdout=logf, stderr=logf, env=env,
                     start_new_session=True, close_fds=True)
    logf.close()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        pid = running_pid(home)
        if pid and pid > 0:
            return True, f"daemon started (pid {pid})"
        time.sleep(0.05)
    return False, f"daemon did not start within {wait:.0f}s; see {os.path.join(home, 'logs', 'daemon.out')}"


def stop(home: str, wait: float = 10.0) -> tuple[bool, str]:
    pid = running_pid(home)
    if not pid:
        return True, "daemon not running"
    if pid < 0:
        return False, "daemon is starting; try again"
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True, "daemon not running"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not running_pid(home):
            return True, f"daemon stopped (pid {pid})"
        time.sleep(0.05)
    return False, f"daemon (pid {pid}) did not stop within {wait:.0f}s"


def _ago(t: float | None) -> str:
    if not t:
        return "never"
    d = time.time() - t
    return f"{d:.0f}s ago" if d < 120 else f"{d / 60:.0f}m ago" if d < 7200 else f"{d / 3600:.1f}h ago"


def status_lines(home: str) -> list[str]:
    st = status_file.load(home)
    pid = running_pid(home)
    state = f"running (pid {pid})" if pid else "not running"
    lines = [f"daemon    {state}   sink: {st.get('sink', '-')}"]
    if not pid:
        lines[0] += "   (start: jevlin-hooks daemon start)"
    new, cur, quar = (spool.count(home, d) for d in ("new", "cur", "quarantine"))
    held = spool.count(home, "held")
    age = spool.oldest_age(home)
    lines.append(f"queue     {new} waiting, {cur} in flight, {quar} quarantined"
                 + (f", {held} held (queued before trace was turned off)" if held else "")
                 + (f"; oldest waiting {age:.0f}s" if age is not None else ""))
    lines.append(f"delivered {status_file.delivered_today(st)} today, {st.get('delivered_total', 0)} in all; "
                 f"last success {_ago(st.get('last_success'))}")
    if st.get("last_error"):
        lines.append(f"last error {st['last_error']} ({_ago(st.get('last_error_at'))})")
    if st.get("next_retry") and st["next_retry"] > time.time():
        lines.append(f"next retry in {st['next_retry'] - time.time():.0f}s")
    if st.get("last_note"):
        lines.append(f"note      {st['last_note']}")
    if st.get("config_error"):
        lines.append(f"config    {st['config_error']}")
    if os.path.exists(os.path.join(home, "state", "spool_full")):
        lines.append("SPOOL FULL: hooks are not queueing new records ([spool] max_mb); see logs/hook.log")
    dropped = _dropped(home)
    if dropped:
        lines.append(f"dropped   {dropped} record(s) not queued because the spool was full")
    return lines


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


def install_service(home: str, platform: str | None = None, base: str | None = None) -> tuple[str, str]:
    """Write the user service file; returns (path, the command that enables it)."""
    platform = platform or sys.platform
    base = base or os.path.expanduser("~")
    cmd = command()
    if platform == "darwin":
        from xml.sax.saxutils import escape

        path = os.path.join(base, "Library", "LaunchAgents", "dev.jevlin.hooks.plist")
        body = LAUNCHD.format(args="".join(f"<string>{escape(a)}</string>" for a in cmd), home=escape(home))
        enable = f"launchctl load -w {path}"
    else:
        import shlex

        path = os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(base, ".config"),
                            "systemd", "user", "jevlin-hooks.service")
        body = SYSTEMD.format(cmd=shlex.join(cmd), home=home)
        enable = "systemctl --user daemon-reload && systemctl --user enable --now jevlin-hooks.service"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)
    return path, enable
