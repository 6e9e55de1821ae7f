"""One daemon per ``$JEVLIN_HOME``, and whether a pid is that daemon.

The daemon holds an exclusive flock on the home directory for its life (``paths.try_daemon_lock``:
a clean-up that deletes ``state/daemon.lock``, or all of ``state/``, cannot delete a directory the
daemon works in) and on ``state/daemon.lock`` as well, the lock earlier versions take, so an older
daemon and a newer one never run side by side either. Each pass the daemon checks that its home is
still the directory it locked (``still_home``): a home deleted and made again is a new home, and
the daemon that locked the old one stops rather than run beside the next one.

Who holds the lock is read from the kernel (``/proc/locks`` on Linux), not from ``state/daemon.pid``,
which anyone can write; the pid file is only the fallback where the kernel does not say (macOS).
Either way a pid is signalled only if it runs our daemon (its command line) as this user. Light on
purpose: ``status`` and ``daemon stop`` import this, never the daemon.
"""

from __future__ import annotations

import fcntl
import os
import subprocess

from jevlin_hooks.base import paths

LOCK_NAME = paths.DAEMON_LOCK
PID_NAME = paths.DAEMON_PID


def acquire(home: str) -> list[int] | None:
    """The held lock descriptors (close them to release), or None when a daemon runs already."""
    first = paths.try_daemon_lock(home)
    if first is None:
        return None
    if (os.fstat(first).st_mode & 0o170000) != 0o040000:
        return [first]  # the home could not be locked: this already is the lock file
    try:
        legacy = paths.try_lock_file(home)
    except BaseException:
        os.close(first)
        raise
    if legacy is None:  # an earlier version's daemon runs here
        os.close(first)
        return None
    return [first, legacy]


def still_home(home: str, locked: list[int]) -> bool:
    """Whether ``home`` is still the directory the first of ``locked`` holds."""
    try:
        now, held = os.stat(home), os.fstat(locked[0])
    except OSError:
        return False
    if (held.st_mode & 0o170000) != 0o040000:
        return True  # a lock file: nothing to compare
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _held(path: str, directory: bool) -> bool:
    """Whether someone holds an exclusive flock on ``path``: a shared one cannot be taken."""
    flags = (os.O_RDONLY | os.O_DIRECTORY) if directory else (os.O_RDONLY | os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def _locked_paths(home: str) -> list[tuple[str, bool]]:
    return [(home, True), (os.path.join(home, "state", LOCK_NAME), False)]


def holder(home: str) -> int | None:
    """The pid holding a daemon lock on ``home`` as the kernel reports it, or None (not held, or
    no /proc/locks)."""
    for path, directory in _locked_paths(home):
        if _held(path, directory):
            pid = lock_holder(path)
            if pid is not None:
                return pid
    return None


def lock_holder(path: str) -> int | None:
    """The pid holding an exclusive flock on ``path``, from /proc/locks (Linux)."""
    try:
        st = os.stat(path)
        with open("/proc/locks") as f:
            for line in f:
                parts = line.split()
                # 1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF
                if len(parts) >= 6 and parts[1] == "FLOCK" and parts[3] == "WRITE":
                    dev_ino = parts[5].split(":")
                    if len(dev_ino) == 3 and int(dev_ino[2]) == st.st_ino and \
                            (int(dev_ino[0], 16), int(dev_ino[1], 16)) == (os.major(st.st_dev), os.minor(st.st_dev)):
                        return int(parts[4])
    except (OSError, ValueError):
        pass
    return None


def _pid_file(home: str) -> int | None:
    try:
        with open(os.path.join(home, "state", PID_NAME)) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def command_line(pid: int) -> list[str] | None:
    """``pid``'s arguments if it runs as this user, else None."""
    try:
        if os.stat(f"/proc/{pid}").st_uid != os.geteuid():
            return None
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except FileNotFoundError:
        if os.path.isdir("/proc/self"):
            return None  # Linux, and it is gone
    except OSError:
        return None
    try:  # no /proc (macOS, BSD): ps says
        out = subprocess.run(["ps", "-o", "uid=", "-o", "command=", "-p", str(pid)], capture_output=True,
                             text=True, timeout=5).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    if not out or out[0] != str(os.geteuid()):
        return None
    return out[1:]


def is_daemon(pid: int) -> bool:
    """Whether ``pid`` runs a jevlin-hooks daemon (``python -m jevlin_hooks.ship.service run``, or
    ``jevlin-hooks daemon run``) as this user."""
    if pid <= 0:
        return False
    args = command_line(pid)
    if not args:
        return False
    if "jevlin_hooks.ship.service" in args:
        return "run" in args
    for i, a in enumerate(args[:-2]):
        if os.path.basename(a) in ("jevlin-hooks", "jevlin_hooks.cli") and args[i + 1:i + 3] == ["daemon", "run"]:
            return True
    return False


def running(home: str) -> tuple[int | None, str | None]:
    """``(pid, None)``: our daemon runs with that pid; ``(None, None)``: no daemon; ``(None, why)``:
    the lock is held but its holder cannot be named as our daemon (then nothing is signalled)."""
    if not any(_held(path, directory) for path, directory in _locked_paths(home)):
        return None, None
    pid = holder(home)
    source = "the lock on JEVLIN_HOME"
    if pid is None:
        pid = _pid_file(home)
        source = f"state/{PID_NAME}"
        if pid is None:
            return None, "a daemon holds the lock but has not written its pid yet"
    if not is_daemon(pid):
        return None, f"{source} names pid {pid}, which is not a jevlin-hooks daemon of yours: not signalled"
    return pid, None
