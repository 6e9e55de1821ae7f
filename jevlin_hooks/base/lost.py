"""Events a hook could not record, counted where `status` and `doctor` look.

A hook that cannot write its home (a read-only file system, a full disk, a home it may not
write) still exits 0 at once and prints nothing, and its log cannot be written either. So that
this is never silent ("hook errors: none" while every event is lost), each such event is counted:

- in ``state/lost`` inside the home: created ahead while there is room (at a session's start,
  by ``spool.prepare_counter``) and rewritten in place at a fixed width, so counting needs no
  new block on a full disk;
- when that cannot be written (a read-only file system, a home that cannot be created), in a
  file of the user's own outside the home, named after the home: under ``$XDG_RUNTIME_DIR``,
  else the user's cache directory (``~/Library/Caches`` on macOS, ``$XDG_CACHE_HOME`` or
  ``~/.cache``), else ``/tmp/jevlin-hooks-<uid>``; a ``jevlin-hooks`` directory 0700, a file
  0600, both checked to be the user's and opened without following a symlink.

Each counter holds ``count first last errno``: how many events, the first and the latest time,
and the latest error. ``status`` and ``doctor`` add the two up and also look at the home
directly (read-only? full? not writable?), so a home that cannot be written is named even
before any hook has tried it.
"""

from __future__ import annotations

import os
import sys
import time

from jevlin_hooks.base import paths, spool

NAME = spool.LOST  # made ahead by spool.prepare_counter, at the fixed width of _FORMAT
_FORMAT = "{:020d} {:012d} {:012d} {:05d}\n"
_DIR = "jevlin-hooks"
FULL_BYTES = 64 << 10  # less free space than this: a lineage file or a record may not fit


def _storage_errnos() -> frozenset[int]:
    import errno

    return frozenset(e for e in (errno.EROFS, errno.ENOSPC, getattr(errno, "EDQUOT", None), errno.EACCES,
                                 errno.EPERM, errno.EIO) if e is not None)


def counts(exc: BaseException) -> bool:
    """Whether ``exc`` means the home could not be written (so the event was not recorded)."""
    return isinstance(exc, OSError) and exc.errno in _storage_errnos()


def _fallback_dirs() -> list[tuple[str, str]]:
    """(an existing directory, the name of ours in it), most preferred first."""
    out = []
    run = os.environ.get("XDG_RUNTIME_DIR", "")
    if run.startswith("/"):
        out.append((run, _DIR))
    user = os.path.expanduser("~")
    if sys.platform == "darwin":
        out.append((os.path.join(user, "Library", "Caches"), _DIR))
    cache = os.environ.get("XDG_CACHE_HOME", "")
    out.append((cache if cache.startswith("/") else os.path.join(user, ".cache"), _DIR))
    out.append(("/tmp", f"{_DIR}-{os.geteuid()}"))
    return out


def _fallback_name(home: str) -> str:
    return paths.sha256_hex(home.encode("utf-8", "surrogatepass"))[:32] + "." + NAME


def _own_dir(base: str, name: str) -> int:
    """An fd for ``base/name``, created 0700 when missing (``base`` must exist); refused unless
    it is the user's and closed to others (another user may have made /tmp/jevlin-hooks-<uid>)."""
    if not os.path.isdir(base):
        raise FileNotFoundError(base)
    fd = paths.open_dir(base, name, create=True)
    st = os.fstat(fd)
    if st.st_uid != os.geteuid() or st.st_mode & 0o077:
        os.close(fd)
        raise PermissionError(f"{base} is not yours alone")
    return fd


def _bump(dfd: int, name: str, err: int, create: bool) -> None:
    import fcntl

    flags = os.O_RDWR | os.O_NOFOLLOW | (os.O_CREAT if create else 0)
    fd = os.open(name, flags, paths.FILE_MODE, dir_fd=dfd)
    try:
        st = os.fstat(fd)
        if (st.st_mode & 0o170000) != 0o100000 or st.st_uid != os.geteuid():
            raise PermissionError(name)
        fcntl.flock(fd, fcntl.LOCK_EX)
        n, first, _, _ = _parse(os.pread(fd, 256, 0))
        now = int(time.time())
        os.pwrite(fd, _FORMAT.format(n + 1, first or now, now, err).encode(), 0)
    finally:
        os.close(fd)


def count(home: str, exc: BaseException) -> None:
    """Count one event not recorded because of ``exc`` (when it is a storage error). Never
    raises: in the home when its counter can be rewritten, else in the fallback."""
    if not counts(exc):
        return
    err = int(getattr(exc, "errno", 0) or 0)
    try:
        sfd = paths.open_dir(home, "state", create=False)
        try:
            _bump(sfd, NAME, err, create=False)  # only one made ahead: never a new file in a failing home
            return
        finally:
            os.close(sfd)
    except OSError:
        pass
    for base, name in _fallback_dirs():
        try:
            dfd = _own_dir(base, name)
        except OSError:
            continue
        try:
            _bump(dfd, _fallback_name(home), err, create=True)
            return
        except OSError:
            continue
        finally:
            os.close(dfd)


def _parse(data: bytes) -> tuple[int, int, int, int]:
    fields = data.split()
    try:
        got = [int(f) for f in fields[:4]]
    except ValueError:
        return 0, 0, 0, 0
    got += [0] * (4 - len(got))
    return got[0], got[1], got[2], got[3]


def _read_at(dfd: int, name: str) -> tuple[int, int, int, int]:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dfd)
    except OSError:
        return 0, 0, 0, 0
    try:
        st = os.fstat(fd)
        if (st.st_mode & 0o170000) != 0o100000 or st.st_uid != os.geteuid():
            return 0, 0, 0, 0
        return _parse(os.pread(fd, 256, 0))
    finally:
        os.close(fd)


def read(home: str) -> tuple[int, int, int, int]:
    """``(events, first, last, errno)`` over the home's counter and the fallback ones."""
    found: list[tuple[int, int, int, int]] = []
    try:
        sfd = paths.open_dir(home, "state", create=False)
        try:
            found.append(_read_at(sfd, NAME))
        finally:
            os.close(sfd)
    except OSError:
        pass
    for base, name in _fallback_dirs():
        try:
            dfd = os.open(os.path.join(base, name), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            found.append(_read_at(dfd, _fallback_name(home)))
        finally:
            os.close(dfd)
    found = [f for f in found if f[0] > 0]
    if not found:
        return 0, 0, 0, 0
    latest = max(found, key=lambda f: f[2])
    return sum(f[0] for f in found), min(f[1] for f in found), latest[2], latest[3]


def unwritable(home: str) -> str | None:
    """Why a hook cannot record events in ``home`` now (one line), or None."""
    where = home
    while not os.path.isdir(where):  # a home not created yet: where it would be created
        parent = os.path.dirname(where)
        if parent == where:
            return None
        where = parent
    subject = home if where == home else f"{home} cannot be created: {where}"
    try:
        vfs = os.statvfs(where)
    except OSError:
        return None
    if vfs.f_flag & getattr(os, "ST_RDONLY", 1):
        return f"{subject} is on a read-only file system"
    free = (vfs.f_bfree if os.geteuid() == 0 else vfs.f_bavail) * vfs.f_frsize
    if free < FULL_BYTES:
        return f"the disk holding {home} is full ({free >> 10} KiB free)"
    if vfs.f_files and not vfs.f_favail:
        return f"the disk holding {home} has no free inodes"
    if where != home:
        return None if os.access(where, os.W_OK) else f"{subject} is not writable by you"
    for part in ("", "sessions", "spool", os.path.join("spool", "tmp"), os.path.join("spool", "new"), "state"):
        path = os.path.join(home, part)
        if os.path.isdir(path) and not os.access(path, os.W_OK):
            return f"{path.rstrip('/')} is not writable by you"
    return None


def _ago(t: float) -> str:
    d = max(0.0, time.time() - t)
    return f"{d:.0f}s ago" if d < 120 else f"{d / 60:.0f}m ago" if d < 7200 else f"{d / 3600:.1f}h ago" \
        if d < 172800 else f"{d / 86400:.0f}d ago"


def problems(home: str) -> list[tuple[bool, str]]:
    """What `status` and `doctor` say about recording, as (failing now, line); nothing when all
    is well."""
    why = unwritable(home)
    n, first, last, err = read(home)
    lost = f"{n} event(s) not recorded since {_ago(first)} (last {_ago(last)})" if n else ""
    if why:
        return [(True, f"NOT RECORDING: {why}; hooks cannot record events" + (f": {lost}" if lost else ""))]
    if n:
        return [(False, f"{lost}: {os.strerror(err) if err else 'the home could not be written'}; "
                        "it can be written again now")]
    return []
