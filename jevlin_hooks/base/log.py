"""A bounded log of our own failures under ``$JEVLIN_HOME/logs``.

Lines name the exception type and where it happened, never its message: messages can quote
payload values, and raw ids must not reach a log. Every log, the daemon's ``daemon.out`` included,
is opened by :func:`open_append`: never through a symlink or a hard link, mode 0600, rotated past
MAX_BYTES.
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


def open_append(dfd: int, name: str) -> int:
    """``name`` in the open directory ``dfd``, opened for appending, never through a link: a
    symlink (O_NOFOLLOW) or a second name of a file found elsewhere (a hard link: st_nlink > 1)
    is replaced by a new file of our own (only our name goes; the file it pointed at is left as
    it was). Mode 0600 whatever the file had; past MAX_BYTES it is rotated to ``name.1`` first.
    Raises OSError."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None:
        if not _plain(st):
            os.unlink(name, dir_fd=dfd)
        elif st.st_size > MAX_BYTES:
            os.rename(name, name + ".1", src_dir_fd=dfd, dst_dir_fd=dfd)  # replaces the entry, writes through nothing
    fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                 paths.FILE_MODE, dir_fd=dfd)
    try:
        st = os.fstat(fd)
        if not _plain(st):  # linked between the check and the open: not appended to
            raise OSError(1, "log file is linked elsewhere", name)
        if st.st_mode & 0o777 != paths.FILE_MODE:
            os.fchmod(fd, paths.FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _plain(st: os.stat_result) -> bool:
    """A regular file with one name, ours: anything else is not appended to."""
    return (st.st_mode & 0o170000) == 0o100000 and st.st_nlink == 1 and st.st_uid == os.geteuid()


def _append(dfd: int, name: str, line: str) -> None:
    """One stamped line at the end of ``logs/<name>`` (see open_append); never raises."""
    try:
        fd = open_append(dfd, name)
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
