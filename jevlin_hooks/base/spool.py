"""The durable queue: a maildir under ``$JEVLIN_HOME/spool``.

A record is written to ``tmp/``, fsynced, then renamed into ``new/``: a reader never sees a
half-written record and a crash never leaves one in ``new/``. The daemon (one per home: an
flock) reads a record where it is and deletes it only after a sink acknowledged it, so a
daemon killed at any point leaves every unacknowledged record in ``new/``; ``quarantine/``
keeps what can never be sent as it is (see ``jevlin_hooks.ship.quarantine``). ``cur/`` is where
earlier versions moved the records they were sending: whatever is found there goes back to
``new/`` when the daemon starts.
"""

from __future__ import annotations

import os
import time

from jevlin_hooks.base import fastjson, paths

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

SCHEMA_VERSION = 1
SUBDIRS = ("tmp", "new", "cur", "quarantine", "held")

# One limit for both sides: a hook never queues a record over MAX_RECORD bytes and the daemon
# reads up to MAX_RECORD, so a record a hook accepted is a record the daemon can read (a 12 MB
# CJK prompt is 24 MiB as the escaped JSON queued). A string longer than TEXT_LIMIT characters is
# cut to that when queued, with a mark saying how long it was: no sink gets more of a text than
# that anyway (privacy/record.py cuts at the same limit before scrubbing).
MAX_RECORD = 16 << 20
TEXT_LIMIT = 64 * 1024
# A record that still does not fit (hundreds of long strings: no hook record has them) has its
# strings cut to this many characters and its lists to this many items, and says so (`truncated`).
SHORT_TEXT, SHORT_LIST = 1024, 256
# An id cut would be another id (and no longer the one `context` hashed): ids are never cut.
_IDS = frozenset(("record_id", "session_id", "turn_id", "call_id", "parent_session_id", "parent_call_id",
                  "parent_turn_id"))


def cut_text(value: str, limit: int = TEXT_LIMIT) -> str:
    """``value`` if it has at most ``limit`` characters, else its head with a mark at the end
    (``[... cut: 12000000 characters in all]``), ``limit`` characters with the mark."""
    if len(value) <= limit:
        return value
    mark = f" [... cut: {len(value)} characters in all]"
    return value[: max(0, limit - len(mark))] + mark


def _cut(obj: Any, text: int, items: int | None, key: str = "") -> Any:
    if isinstance(obj, str):
        return obj if key in _IDS else cut_text(obj, text)
    if isinstance(obj, dict):
        return {k: _cut(v, text, items, k if isinstance(k, str) else "") for k, v in obj.items()}
    if isinstance(obj, list):
        return [_cut(v, text, items) for v in (obj if items is None else obj[:items])]
    return obj


class TooLarge(ValueError):
    """A record over MAX_RECORD even with every text and list cut short: its ids alone are."""


def encode(rec: Mapping[str, Any]) -> bytes:
    """The bytes a hook queues for ``rec``: ASCII JSON of at most MAX_RECORD bytes, every string
    over TEXT_LIMIT characters cut and marked (see above). Raises TooLarge."""
    data = fastjson.dumps(rec).encode("ascii")
    if len(data) <= TEXT_LIMIT:  # fewer bytes than the limit has characters: nothing to cut
        return data
    data = fastjson.dumps(_cut(rec, TEXT_LIMIT, None)).encode("ascii")
    if len(data) <= MAX_RECORD:
        return data
    data = fastjson.dumps({**_cut(rec, SHORT_TEXT, SHORT_LIST), "truncated": True}).encode("ascii")
    if len(data) <= MAX_RECORD:
        return data
    raise TooLarge(f"over the {MAX_RECORD >> 20} MiB record limit even cut short")


class NotQueued(OSError):
    """Records a hook could not queue (counted in ``state/dropped``, shown by ``status``)."""


class SpoolFull(NotQueued):
    """The daemon flagged the spool as over its size cap: new records are not queued."""


DROPPED = "dropped"
_WIDTH = 20  # the count is rewritten in place, fixed width: no new block needed on a full disk


# Events a hook could not record (base/lost.py counts them: `count first last errno`); made
# ahead here, with `dropped`, because a hook has this module loaded already.
LOST = "lost"
LOST_ZERO = b"0" * 20 + b" " + b"0" * 12 + b" " + b"0" * 12 + b" " + b"0" * 5 + b"\n"


def prepare_counter(home: str) -> None:
    """Create ``state/dropped`` and ``state/lost`` while there is room, so counting later needs
    no new space."""
    try:
        sfd = paths.open_dir(home, "state")
    except OSError:
        return
    try:
        for name, zero in ((DROPPED, b"0" * _WIDTH + b"\n"), (LOST, LOST_ZERO)):
            try:
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, paths.FILE_MODE, dir_fd=sfd)
            except OSError:
                continue  # there already (or no room now: counting will try again)
            try:
                os.write(fd, zero)
            except OSError:
                pass
            finally:
                os.close(fd)
    finally:
        os.close(sfd)


def _count_dropped(home: str, n: int) -> None:
    import fcntl

    try:
        sfd = paths.open_dir(home, "state")
        try:
            fd = os.open(DROPPED, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, paths.FILE_MODE, dir_fd=sfd)
        finally:
            os.close(sfd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                prev = int(os.pread(fd, 64, 0).strip() or 0)
            except ValueError:
                prev = 0
            os.pwrite(fd, str(prev + n).zfill(_WIDTH).encode() + b"\n", 0)
        finally:
            os.close(fd)
    except OSError:
        pass


def new_record_id() -> str:
    return os.urandom(16).hex()


def record_name() -> str:
    # Names sort by creation time, so a scan delivers roughly in order.
    return f"{time.time_ns():020d}.{os.getpid()}.{os.urandom(4).hex()}.json"


def _why(exc: OSError) -> str:
    where = f": spool/{exc.filename}" if isinstance(exc.filename, str) and "/" not in exc.filename else ""
    return f"{exc.strerror or type(exc).__name__}{where}"


def enqueue(home: str, records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Queue records durably; returns the names written to ``new/``."""
    if not records:
        return []
    if os.path.exists(os.path.join(home, "state", "spool_full")):
        _count_dropped(home, len(records))
        raise SpoolFull(f"spool full ([spool] max_mb): {len(records)} record(s) not queued")
    names: list[str] = []
    try:
        tfd = paths.open_dir(home, "spool", "tmp")
        try:
            nfd = paths.open_dir(home, "spool", "new")
        except BaseException:
            os.close(tfd)
            raise
    except OSError as exc:
        _count_dropped(home, len(records))
        raise NotQueued(exc.errno, f"{len(records)} record(s) not queued ({_why(exc)})") from None
    too_large = 0
    try:
        for rec in records:
            if "v" not in rec or "record_id" not in rec:
                rec = {"v": SCHEMA_VERSION, "record_id": new_record_id(), **rec}
            try:
                data = encode(rec)
            except TooLarge:
                too_large += 1
                continue
            name = record_name()
            paths.write_new(tfd, name, data, sync=True)
            try:
                os.rename(name, name, src_dir_fd=tfd, dst_dir_fd=nfd)
            except BaseException:
                os.unlink(name, dir_fd=tfd)
                raise
            names.append(name)
        os.fsync(nfd)  # make the renames themselves durable
    except OSError as exc:  # a full disk, an I/O error: what was not written is counted
        _count_dropped(home, len(records) - len(names))
        raise NotQueued(exc.errno, f"{len(records) - len(names)} record(s) not queued ({_why(exc)})") from None
    finally:
        os.close(tfd)
        os.close(nfd)
    if too_large:
        _count_dropped(home, too_large)
        raise NotQueued(f"{too_large} record(s) not queued (ids over the {MAX_RECORD >> 20} MiB record limit)")
    return names


def count(home: str, sub: str = "new") -> int:
    try:
        return sum(1 for e in os.scandir(os.path.join(home, "spool", sub)) if e.name.endswith(".json"))
    except OSError:
        return 0


def read_all(home: str, sub: str = "new") -> list[dict[str, Any]]:
    """Every record in one spool directory, oldest first (small queues: demo, status, tests)."""
    out: list[dict[str, Any]] = []
    try:
        dfd = paths.open_dir(home, "spool", sub, create=False)
    except OSError:
        return out
    try:
        for name in sorted(n for n in os.listdir(dfd) if n.endswith(".json")):
            try:
                out.append(fastjson.loads(paths.read_bytes(dfd, name)))
            except (OSError, ValueError):
                continue
    finally:
        os.close(dfd)
    return out


# --- the daemon's side -----------------------------------------------------------------------

# The daemon pins the spool's directory fds for a batch instead of walking the path (three
# O_NOFOLLOW opens) for every record it moves.
_PINNED: dict[tuple[str, str], int] = {}


def pin(home: str) -> None:
    unpin()
    for sub in SUBDIRS:
        _PINNED[(home, sub)] = paths.open_dir(home, "spool", sub)


def unpin() -> None:
    for fd in _PINNED.values():
        os.close(fd)
    _PINNED.clear()


def _dir(home: str, sub: str, create: bool = True) -> tuple[int, bool]:
    fd = _PINNED.get((home, sub))
    if fd is not None:
        return fd, False
    return paths.open_dir(home, "spool", sub, create=create), True


def _release(fd: int, owned: bool) -> None:
    if owned:
        os.close(fd)


def oldest(home: str, limit: int, sub: str = "new") -> list[str]:
    """The ``limit`` oldest record names, without holding the whole listing in memory."""
    return oldest_counted(home, limit, sub)[0]


def oldest_counted(home: str, limit: int, sub: str = "new") -> tuple[list[str], int]:
    """``oldest`` and how many records there are in all (one pass)."""
    import heapq

    total = 0

    def names(it: Any) -> Any:
        nonlocal total
        for e in it:
            if e.name.endswith(".json"):
                total += 1
                yield e.name

    try:
        with os.scandir(os.path.join(home, "spool", sub)) as it:
            return heapq.nsmallest(limit, names(it)), total
    except OSError:
        return [], 0


def _move(home: str, name: str, src: str, dst: str) -> bool:
    sfd, sown = _dir(home, src)
    dfd, down = _dir(home, dst)
    try:
        os.rename(name, name, src_dir_fd=sfd, dst_dir_fd=dfd)
        return True
    except FileNotFoundError:
        return False
    finally:
        _release(sfd, sown)
        _release(dfd, down)


def read(home: str, sub: str, name: str) -> bytes:
    dfd, owned = _dir(home, sub, create=False)
    try:
        return paths.read_bytes(dfd, name, limit=MAX_RECORD)
    finally:
        _release(dfd, owned)


def ack(home: str, names: list[str]) -> None:
    """A sink acknowledged these (or they are in quarantine now): only now do they leave the spool."""
    if not names:
        return
    dfd, owned = _dir(home, "new")
    try:
        for name in names:
            try:
                os.unlink(name, dir_fd=dfd)
            except FileNotFoundError:
                pass
        os.fsync(dfd)
    finally:
        _release(dfd, owned)


def reclaim(home: str) -> int:
    """What an earlier version's daemon left in cur/ (it moved records there while sending them)
    goes back to new/."""
    n = 0
    for name in oldest(home, 1 << 30, "cur"):
        n += _move(home, name, "cur", "new")
    return n


def hold_all(home: str) -> int:
    """Tracing was turned off: everything queued moves to held/ and is never sent by itself."""
    n = 0
    for sub in ("cur", "new"):
        for name in oldest(home, 1 << 30, sub):
            n += _move(home, name, sub, "held")
    return n


def release_held(home: str) -> int:
    n = 0
    for name in oldest(home, 1 << 30, "held"):
        n += _move(home, name, "held", "new")
    return n


def size_bytes(home: str, subs: tuple[str, ...] = ("new", "cur")) -> int:
    total = 0
    for sub in subs:
        try:
            with os.scandir(os.path.join(home, "spool", sub)) as it:
                for e in it:
                    try:
                        total += e.stat(follow_symlinks=False).st_size
                    except OSError:
                        pass
        except OSError:
            pass
    return total


def oldest_age(home: str, sub: str = "new") -> float | None:
    """Seconds since the oldest waiting record was queued (its name starts with time_ns)."""
    first = oldest(home, 1, sub)
    if not first:
        return None
    try:
        return max(0.0, time.time() - int(first[0].split(".", 1)[0]) / 1e9)
    except ValueError:
        return None
