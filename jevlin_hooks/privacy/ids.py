"""Keyed hashing of every id that leaves the machine.

HMAC-SHA256 with 32 random bytes kept in ``$JEVLIN_HOME/state/key`` (0600, created once).
The same function serves ``jevlin-hooks context`` (the call id a search sends in-band) and the
daemon (the call id shipped), so the two agree. HMAC is spelled out over ``paths.sha256`` (the
interpreter's builtin module) because ``hmac``/``hashlib`` cost more import time than a hook can
spend; tests/test_imports.py checks it against ``hmac``.
"""

from __future__ import annotations

import os
import stat

from jevlin_hooks.base import paths

KEY_NAME = "key"
KEY_BYTES = 32


class KeyError_(PermissionError):
    """The key file exists but cannot be trusted or read."""


def _check(st: os.stat_result, path: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise KeyError_("state/key is not a regular file; remove it and run `jevlin-hooks key rotate`")
    if st.st_mode & 0o077:
        # chmod, not rotate: the mode is all that is wrong, and a new key splits every thread in two
        shown = path if all(c.isalnum() or c in "/._-+~@" for c in path) else "'" + path.replace("'", "'\\''") + "'"
        raise KeyError_(f"state/key is readable by others (mode {stat.S_IMODE(st.st_mode):o}); run `chmod 600 {shown}`")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise KeyError_("state/key belongs to another user; refusing to use it")


def load_key(home: str | None = None, create: bool = True) -> bytes | None:
    """The local key; created on first use when ``create`` and the home is writable.

    Returns None when there is no key and it cannot or may not be created.
    """
    home = home or paths.home()
    try:
        sfd = paths.open_dir(home, "state", create=create)
    except OSError:
        return None
    try:
        try:
            fd = os.open(KEY_NAME, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=sfd)
        except FileNotFoundError:
            if not create:
                return None
            key = os.urandom(KEY_BYTES)
            try:
                fd = os.open(
                    KEY_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=sfd
                )
            except FileExistsError:  # another process won the race: use its key
                return load_key(home, create=False)
            except OSError:
                return None
            try:
                os.write(fd, key)
                os.fsync(fd)
            finally:
                os.close(fd)
            return key
        except OSError as exc:
            if exc.errno in (40, 62):
                raise KeyError_("state/key is a symlink; refusing to use it") from None
            raise
        try:
            _check(os.fstat(fd), os.path.join(home, "state", KEY_NAME))
            key = os.read(fd, 4096)
        finally:
            os.close(fd)
        if len(key) != KEY_BYTES:
            raise KeyError_("state/key is not 32 bytes; run `jevlin-hooks key rotate`")
        return key
    finally:
        os.close(sfd)


def rotate_key(home: str | None = None) -> None:
    home = home or paths.home()
    sfd = paths.open_dir(home, "state")
    try:
        paths.write_atomic(sfd, KEY_NAME, os.urandom(KEY_BYTES), sync=True)
    finally:
        os.close(sfd)


_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


def hmac_sha256(key: bytes, msg: bytes) -> bytes:
    if len(key) > 64:
        key = paths.sha256(key)
    key = key.ljust(64, b"\0")
    return paths.sha256(key.translate(_OPAD) + paths.sha256(key.translate(_IPAD) + msg))


# A session's id comes back with every one of its records (a turn's with each of its searches):
# the daemon hashes each distinct id once. Bounded; emptied when full.
_HASHED: dict[tuple[bytes, str], str] = {}
_HASHED_MAX = 4096


def hash_id(raw: str | None, key: bytes) -> str | None:
    """The shipped form of an id: 64 hex digits, stable for one key."""
    if raw is None or raw == "":
        return None
    text = str(raw)
    done = _HASHED.get((key, text))
    if done is None:
        done = hmac_sha256(key, text.encode("utf-8", "surrogatepass")).hex()
        if len(_HASHED) >= _HASHED_MAX:
            _HASHED.clear()
        _HASHED[(key, text)] = done
    return done
