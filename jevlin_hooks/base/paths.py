"""Where things live under ``$JEVLIN_HOME``, and writing there safely.

Every directory is 0700 and every file 0600. Paths inside the home are walked one component
at a time with ``O_NOFOLLOW`` relative to an open directory descriptor, so a symlink planted
inside the home (``sessions -> /etc``, ``spool/new/x.json -> ~/.ssh/...``) is refused instead
of followed. The home itself may be a symlink: that is the user's choice, not a plant.
"""

from __future__ import annotations

import os
import sys

DIR_MODE = 0o700
FILE_MODE = 0o600
_O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_O_READ = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_O_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def home() -> str:
    env = os.environ.get("JEVLIN_HOME")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    return os.path.join(os.path.expanduser("~"), ".jevlin")


# What must belong to the user and be writable by nobody else: anything else is refused (another
# user who creates /tmp/jevlin first must not get their config obeyed or read our records).
GUARDED = ("sessions", "spool", "state", "logs")


def refusal(path: str, st: os.stat_result, what: str) -> str | None:
    uid = os.geteuid()
    if st.st_uid != uid:
        return f"{what} {path} is owned by uid {st.st_uid}, not you (uid {uid}): refused"
    if st.st_mode & 0o022:
        return f"{what} {path} is writable by group or others (mode {st.st_mode & 0o777:o}): refused; " \
               f"run `chmod go-w {path}`"
    return None


def untrusted(home: str) -> str | None:
    """Why ``home`` cannot be trusted (one line), or None. A missing home is fine: we create it.

    The home itself may be a symlink (followed: the target must be the user's); the directories
    inside it are checked without following, as ``open_dir`` walks them.
    """
    try:
        st = os.stat(home)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"JEVLIN_HOME {home} cannot be read ({exc.strerror})"
    if not (st.st_mode & 0o170000) == 0o040000:
        return f"JEVLIN_HOME {home} is not a directory"
    why = refusal(home, st, "JEVLIN_HOME")
    if why:
        return why
    for part in GUARDED:
        path = os.path.join(home, part)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"{path} cannot be read ({exc.strerror})"
        if (st.st_mode & 0o170000) != 0o040000:
            return f"{path} is not a plain directory (a symlink or a file): refused"
        why = refusal(path, st, "directory")
        if why:
            return why
    return None


class UnsafePath(OSError):
    """A path component inside the home is a symlink or not a directory."""


def open_dir(base: str, *parts: str, create: bool = True) -> int:
    """Return an fd for ``base/parts...``, creating missing directories 0700 when asked.

    ``base`` is created (with parents) if missing; every component below it is opened with
    O_NOFOLLOW so nothing inside the home can redirect a write.
    """
    if create and not os.path.isdir(base):
        os.makedirs(base, mode=DIR_MODE, exist_ok=True)
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in parts:
            try:
                nfd = os.open(part, _O_DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, DIR_MODE, dir_fd=fd)
                except FileExistsError:
                    pass
                nfd = os.open(part, _O_DIR, dir_fd=fd)
            except (NotADirectoryError, OSError) as exc:
                if isinstance(exc, FileNotFoundError):
                    raise
                if exc.errno in (40, 20, 62):  # ELOOP, ENOTDIR, ELOOP(macOS)
                    raise UnsafePath(exc.errno, "not a plain directory", part) from None
                raise
            os.close(fd)
            fd = nfd
        return fd
    except BaseException:
        os.close(fd)
        raise


def read_fd(fd: int, limit: int, chunk_size: int = 1 << 20) -> bytes:
    """At most ``limit`` bytes from an open file, whatever its size claims to be."""
    chunks = []
    total = 0
    while total < limit:
        chunk = os.read(fd, min(chunk_size, limit - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def read_bytes(dir_fd: int, name: str, limit: int = 64 << 20) -> bytes:
    fd = os.open(name, _O_READ, dir_fd=dir_fd)
    try:
        return read_fd(fd, limit)
    finally:
        os.close(fd)


def write_atomic(dir_fd: int, name: str, data: bytes, sync: bool = False) -> None:
    """Write ``name`` whole or not at all: tmp file (O_EXCL|O_NOFOLLOW) -> [fsync] -> rename.

    rename() replaces a symlink at ``name`` rather than writing through it.
    """
    tmp = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    write_new(dir_fd, tmp, data, sync)
    try:
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def write_new(dir_fd: int, name: str, data: bytes, sync: bool = True) -> None:
    """Create ``name`` exclusively (O_EXCL|O_NOFOLLOW) and write it whole; fsync when asked."""
    fd = os.open(name, _O_NEW, FILE_MODE, dir_fd=dir_fd)  # the name must not exist yet
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        if sync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(name, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    os.close(fd)


def open_lock(dir_fd: int, name: str) -> int:
    return os.open(
        name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), FILE_MODE,
        dir_fd=dir_fd,
    )


DAEMON_LOCK = "daemon.lock"  # state/daemon.lock: the instance lock of earlier versions, still taken
DAEMON_PID = "daemon.pid"


def try_daemon_lock(home: str) -> int | None:
    """The daemon's instance lock, taken without waiting: the held fd, or None when another
    process (a running daemon) holds it.

    The lock is on the home directory itself: a clean-up can delete any file under it (the lock
    file ``state/daemon.lock`` of earlier versions, or all of ``state/``) but the directory stays
    while the daemon works in it, so two daemons never share a home. Where a directory cannot be
    locked (flock emulated on some network file systems), the lock file is used instead.
    """
    import errno
    import fcntl

    if not os.path.isdir(home):
        os.makedirs(home, mode=DIR_MODE, exist_ok=True)
    fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
    return try_lock_file(home)


def try_lock_file(home: str) -> int | None:
    """The exclusive lock on ``state/daemon.lock`` (what earlier versions hold), without waiting."""
    import fcntl

    sfd = open_dir(home, "state")
    try:
        fd = open_lock(sfd, DAEMON_LOCK)
    finally:
        os.close(sfd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


_HEX = frozenset("0123456789abcdefABCDEF")


def _hashed_form(name: str) -> bool:
    """``h`` + 40 hex digits, in any case (a case-insensitive file system folds them)."""
    return len(name) == 41 and name[0] in "hH" and _HEX.issuperset(name[1:])


def safe_name(raw: str) -> str:
    """A file-name-safe token for an id we did not choose, one per id (injective).

    A plain id (up to 96 ASCII letters, digits, ``-``, ``_``: every real harness's) is its own
    name; any other becomes ``h`` + 40 hex digits of its SHA-256. A plain id that has exactly
    that form is hashed too, so an id equal to another id's hashed name never shares its file:
    kept names and hashed names cannot meet. No real id has that form (UUIDs have dashes, Claude
    agent ids 17 characters, Hermes ids a date), so no existing file changes name.
    """
    if 0 < len(raw) <= 96 and all(c.isascii() and (c.isalnum() or c in "-_") for c in raw) \
            and not _hashed_form(raw):
        return raw
    return "h" + sha256_hex(raw.encode("utf-8", "surrogatepass"))[:40]


def sha256(data: bytes) -> bytes:
    """SHA-256 from the interpreter's builtin module: importing hashlib costs a hook's budget."""
    try:  # by version: a failed import walks sys.path, which a hook cannot afford either
        if sys.version_info >= (3, 12):
            from _sha2 import sha256 as impl
        else:
            from _sha256 import sha256 as impl  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - interpreters built without the builtin module
        from hashlib import sha256 as impl
    digest: bytes = impl(data).digest()
    return digest


def sha256_hex(data: bytes) -> str:
    return sha256(data).hex()
