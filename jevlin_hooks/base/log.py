"""A bounded log of our own failures under ``$JEVLIN_HOME/logs``.

Lines name the exception type and where it happened, never its message: messages can quote
payload values, and raw ids must not reach a log.
"""

from __future__ import annotations

import os
import time

from jevlin_hooks.base import paths

MAX_BYTES = 256 * 1024


def write(home: str, name: str, line: str) -> None:
    try:
        dfd = paths.open_dir(home, "logs")
    except OSError:
        return
    try:
        _append(dfd, name, line)
    finally:
        os.close(dfd)


def _append(dfd: int, name: str, line: str) -> None:
    """One stamped line at the end of ``logs/<name>``, rotated past MAX_BYTES; never raises."""
    try:
        try:
            if os.stat(name, dir_fd=dfd, follow_symlinks=False).st_size > MAX_BYTES:
                os.rename(name, name + ".1", src_dir_fd=dfd, dst_dir_fd=dfd)
        except FileNotFoundError:
            pass
        fd = os.open(
            name,
            os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW,
            paths.FILE_MODE,
            dir_fd=dfd,
        )
        try:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            os.write(fd, f"{stamp} {line}\n".encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def write_once(home: str, name: str, line: str) -> None:
    """``write``, unless this same line was the last one written through here (a reason that
    holds for every event, such as a bad ``JEVLIN_TRACE``, is logged once, not per event)."""
    marker = f".{name}.once"
    data = line.encode("utf-8", "replace")
    try:
        dfd = paths.open_dir(home, "logs")
    except OSError:
        return
    try:
        try:
            if paths.read_bytes(dfd, marker, limit=4096) == data:
                return
        except OSError:
            pass
        try:
            paths.write_atomic(dfd, marker, data)
        except OSError:
            pass
        _append(dfd, name, line)  # the directory already open: no second open_dir
    finally:
        os.close(dfd)


def describe(exc: BaseException) -> str:
    """Exception type and innermost frames of our code, without the message."""
    tb = exc.__traceback__
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(f"{os.path.basename(code.co_filename)}:{tb.tb_lineno}:{code.co_name}")
        tb = tb.tb_next
    errno = getattr(exc, "errno", None)
    kind = type(exc).__name__ + (f"[errno {errno}]" if errno else "")
    return kind + " at " + " < ".join(reversed(frames[-4:]))


def tail(home: str, name: str, lines: int = 5) -> list[str]:
    try:
        dfd = paths.open_dir(home, "logs", create=False)
    except OSError:
        return []
    try:
        data = paths.read_bytes(dfd, name, limit=MAX_BYTES * 2)
    except OSError:
        return []
    finally:
        os.close(dfd)
    return data.decode("utf-8", "replace").splitlines()[-lines:]
