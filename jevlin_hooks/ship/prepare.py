"""Turning queued spool files into safe records, in this process or in worker processes.

Making a record safe (parse, validate, hash the ids, scrub every text) is most of the daemon's
CPU per record, and it is pure: the same bytes and settings give the same safe record. So while
a backlog lasts the daemon hands chunks of queued names to worker processes and sends what they
return while they prepare the next chunks (the scrubbing of batch N+1 runs on another core
during the POST of batch N), and prepares records itself whenever theirs are not ready yet (a
record may then leave a little before an older one: order is a hint). Trickling records (the
usual case) are prepared inline; starting workers costs a tenth of a second and is only worth
it for a backlog.

Nothing about durability changes: a worker only reads files in ``spool/new``; deleting stays
the daemon's job after the sink's acknowledgement. A worker that dies, hangs or answers
garbage is stopped and its chunks are prepared inline (the files are still in ``new/``); the
daemon logs it once and goes on without workers until its next start. Workers run at a lower
priority (nice 10), so an agent working beside a catching-up daemon keeps its cores.

Protocol (one worker = one ``python -I -c`` child, stdin/stdout pipes, frames of a 4-byte
big-endian length and JSON): the first frame from the daemon holds the settings (home, the
local key as hex, disabled rules, whether local extras are kept); then each frame is a list of
names and each answer frame a list of ``[name, raw_size, safe | null, reason | null,
error type | null, traceback frames | null]`` in the same order. EOF on stdin ends the worker. The key never appears in
a command line (``/proc/<pid>/cmdline`` is readable by every user).
"""

from __future__ import annotations

import os
import queue
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jevlin_hooks.base import spool
from jevlin_hooks.privacy import record
from jevlin_hooks.ship import codec, quarantine

CHUNK = 64  # names per frame (and per inline preparation): pipe, framing and scrubbing costs spread
# Records scrubbed in one call at most (their raw sizes): the rule set's fixed cost per call is
# spread over a few dozen daemon records (1-3 KiB), and a chunk of 64 records of 16 MiB each is
# never joined into one string.
SCRUB_GROUP_BYTES = 256 << 10
DEPTH = 4  # chunks handed to each worker ahead of what the daemon consumes
MIN_BACKLOG = 2048  # below this many queued records, workers cost more than they save
ANSWER_TIMEOUT_S = 60.0  # RE2 is linear: a chunk of 64 records taking a minute is a broken worker
SLOW_S = 1.0  # waiting this long on a worker is shown in `status`
_HEADER = struct.Struct(">I")
_MAX_FRAME = 256 << 20


class Stopped(Exception):
    """The daemon is stopping: no more waiting for workers."""


@dataclass
class Item:
    """One queued record, prepared: ``safe`` to send, or ``reason`` it goes to quarantine;
    neither: the file is gone (``error`` None) or cannot be read now (``error`` set)."""

    name: str
    size: int  # bytes on disk: what the batch budget counts
    safe: dict[str, Any] | None
    reason: str | None
    error: str | None = None  # an unexpected exception's type name
    frames: str | None = None  # where it happened (frames only, never its message)


@dataclass(frozen=True)
class Settings:
    key: bytes
    disabled: tuple[str, ...]
    local: bool  # the local sink keeps a search's result summary beside the safe record


def prepare(raw: bytes, s: Settings) -> tuple[dict[str, Any] | None, str | None, BaseException | None]:
    """``(safe, None, None)``, or ``(None, reason for quarantine, the exception if unexpected)``."""
    try:
        rec = codec.loads(raw)
    except ValueError:
        return None, "invalid record: not valid JSON", None
    try:
        safe = quarantine.safe_form(rec, s.key, s.disabled, s.local)
        return safe, None, None
    except record.InvalidRecord as exc:
        return None, f"invalid record: {exc}", None
    except Exception as exc:  # noqa: BLE001 - a scrubber bug on one record must not stop the rest
        return None, f"could not be made safe ({type(exc).__name__}); release it after an upgrade", exc


def prepare_many(raws: list[bytes], s: Settings) -> list[tuple[dict[str, Any] | None, str | None, BaseException | None]]:
    """``prepare`` for each of ``raws``, their texts scrubbed together (record.make_safe_many).
    If scrubbing them together fails, each is prepared on its own, so that one record a scrubber
    bug fails on is quarantined alone."""
    out: list[tuple[dict[str, Any] | None, str | None, BaseException | None]] = []
    recs: list[Any] = []
    where: list[int] = []  # out's index of each parsed record
    for raw in raws:
        try:
            rec = codec.loads(raw)
        except ValueError:
            out.append((None, "invalid record: not valid JSON", None))
            continue
        if isinstance(rec, dict) and rec.get("released") == 1:
            out.append(prepare(raw, s))  # a released entry (quarantine.safe_form): on its own
            continue
        out.append((None, None, None))
        where.append(len(out) - 1)
        recs.append(rec)
    if not recs:
        return out
    try:
        safes = record.make_safe_many(recs, s.key, s.disabled, s.local)
    except Exception:  # noqa: BLE001 - find the one that fails: each alone
        for i in where:
            out[i] = prepare(raws[i], s)
        return out
    for i, safe in zip(where, safes, strict=True):
        if isinstance(safe, dict):
            out[i] = (safe, None, None)
        elif isinstance(safe, record.InvalidRecord):
            out[i] = (None, f"invalid record: {safe}", None)
        else:
            out[i] = (None, f"could not be made safe ({type(safe).__name__}); release it after an upgrade", safe)
    return out


def _frames(exc: BaseException) -> str:
    """The traceback's frames, never the exception's message (it may quote a raw value)."""
    return "".join(traceback.format_tb(exc.__traceback__)).rstrip()


def prepare_named(home: str, name: str, s: Settings) -> Item:
    """Read ``spool/new/name`` and prepare it."""
    return prepare_chunk(home, [name], s)[0]


def prepare_chunk(home: str, names: list[str], s: Settings) -> list[Item]:
    """Read ``spool/new/<name>`` for each name and prepare them, scrubbed together in groups of
    up to SCRUB_GROUP_BYTES (prepare_many)."""
    items: list[Item | None] = []
    group: list[tuple[int, str, bytes]] = []
    size = 0

    def flush() -> None:
        nonlocal size
        for (i, name, raw), (safe, reason, exc) in zip(group, prepare_many([r for _, _, r in group], s), strict=True):
            items[i] = (Item(name, len(raw), safe, reason) if exc is None
                        else Item(name, len(raw), safe, reason, type(exc).__name__, _frames(exc)))
        group.clear()
        size = 0

    for name in names:
        try:
            raw = spool.read(home, "new", name)
        except FileNotFoundError:
            items.append(Item(name, 0, None, None))
            continue
        except OSError as err:
            items.append(Item(name, 0, None, None, type(err).__name__))
            continue
        if group and size + len(raw) > SCRUB_GROUP_BYTES:
            flush()
        items.append(None)
        group.append((len(items) - 1, name, raw))
        size += len(raw)
    if group:
        flush()
    out = [it for it in items if it is not None]
    assert len(out) == len(names)
    return out


# --- the worker's side -------------------------------------------------------------------------


def _read_exact(fd: int, n: int) -> bytes:
    parts: list[bytes] = []
    while n:
        b = os.read(fd, min(n, 1 << 20))
        if not b:
            raise EOFError
        parts.append(b)
        n -= len(b)
    return b"".join(parts)


def _read_raw_frame(fd: int) -> bytes:
    (n,) = _HEADER.unpack(_read_exact(fd, _HEADER.size))
    if n > _MAX_FRAME:
        raise ValueError("frame too large")
    return _read_exact(fd, n)


def _read_frame(fd: int) -> Any:
    return codec.loads(_read_raw_frame(fd))


def _write_frame(fd: int, obj: Any) -> None:
    data = codec.dumps(obj)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def worker_main() -> int:
    """A worker's loop: settings, then names in, prepared records out, until EOF."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the daemon ends us (EOF)
    try:
        os.nice(10)
    except OSError:
        pass
    fin, fout = sys.stdin.fileno(), sys.stdout.fileno()
    try:
        first = _read_frame(fin)
        s = Settings(bytes.fromhex(first["key"]), tuple(first["disabled"]), bool(first["local"]))
        home = first["home"]
        spool.pin(home)
        while True:
            names = _read_frame(fin)
            _write_frame(fout, [[it.name, it.size, it.safe, it.reason, it.error, it.frames]
                                for it in prepare_chunk(home, names, s)])
    except (EOFError, BrokenPipeError):
        return 0


# --- the daemon's side -------------------------------------------------------------------------


# First thing in a worker, before its imports (Linux): the kernel kills it when the daemon dies,
# even a worker that cannot read the EOF that normally ends it (stopped, or stuck), so none is left
# behind scrubbing for nobody.
_DIE_WITH_PARENT = """import sys
if sys.platform.startswith("linux"):
    try:
        import ctypes, signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
"""


class _Worker:
    def __init__(self, home: str, s: Settings) -> None:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        code = _DIE_WITH_PARENT + (f"import sys; sys.path.insert(0, {root!r}); from jevlin_hooks.ship import prepare; "
                                   "sys.exit(prepare.worker_main())")
        self.proc = subprocess.Popen([sys.executable, "-I", "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, close_fds=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.fin, self.fout = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        _widen(self.fout)
        # Answers are read as soon as they come: a 200 KB answer left in a 64 KB pipe would
        # block the worker until the daemon got to it, instead of preparing its next chunk.
        self.answers: queue.SimpleQueue[bytes | BaseException] = queue.SimpleQueue()
        self.reader = threading.Thread(target=self._read, name="jevlin-prepare-reader", daemon=True)
        self.reader.start()
        _write_frame(self.fin, {"home": home, "key": s.key.hex(), "disabled": list(s.disabled), "local": s.local})

    def _read(self) -> None:
        try:
            while True:
                self.answers.put(_read_raw_frame(self.fout))
        except BaseException as exc:  # noqa: BLE001 - EOF, a closed pipe, garbage: the taker decides
            self.answers.put(exc)

    def send(self, names: list[str]) -> None:
        _write_frame(self.fin, names)

    def answer(self, timeout: float, stop: threading.Event,
               slow: Callable[[int, float], None] | None = None) -> list[Any]:
        """The oldest chunk's answer; raises on EOF, garbage or timeout, and Stopped as soon as
        ``stop`` is set (SIGTERM must not wait on a hung worker). ``slow(pid, waited)`` is told
        once, after SLOW_S without an answer (so `status` can show the wait)."""
        start = time.monotonic()
        deadline = start + timeout
        told = slow is None
        while True:
            if stop.is_set():
                raise Stopped
            try:
                raw = self.answers.get(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
                break
            except queue.Empty:
                now = time.monotonic()
                if now >= deadline:
                    raise TimeoutError("no answer") from None
                if not told and now - start >= SLOW_S:
                    told = True
                    assert slow is not None
                    slow(self.proc.pid, now - start)
        if isinstance(raw, BaseException):
            self.answers.put(raw)  # every later answer fails the same way
            raise raw
        got = codec.loads(raw)
        if not isinstance(got, list):
            raise ValueError("answer is not a list")
        return got

    def stop(self, kill: bool = False) -> None:
        """EOF on its stdin ends the worker; ``kill``: at once, without waiting for it to read
        that (a stopping daemon need not wait on a worker that hangs: its work is pure, and what
        it held is still in new/). Its stdout is closed only once the reader thread saw EOF there
        (closing a descriptor another thread reads could hand the number to a file opened
        meanwhile)."""
        if kill:
            self.proc.kill()
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=5)
        if not self.reader.is_alive() and self.proc.stdout is not None:
            self.proc.stdout.close()


def _widen(fd: int) -> None:
    """Room in the pipe for all the answers a worker may have outstanding (DEPTH chunks of about
    200 KB), so it never waits on the daemon's reader thread, which needs the GIL to read and
    gets it only every few milliseconds while the daemon itself is busy. Linux only (up to
    /proc/sys/fs/pipe-max-size, 1 MiB by default); elsewhere the pipe stays as it is."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):
        pass


def _item(row: Any, name: str) -> Item:
    """A worker's answer for ``name``, checked: anything else is a broken worker."""
    if (not isinstance(row, list) or len(row) != 6 or row[0] != name or not isinstance(row[1], int)
            or not (row[2] is None or isinstance(row[2], dict)) or not (row[3] is None or isinstance(row[3], str))):
        raise ValueError("malformed answer")
    error = row[4] if isinstance(row[4], str) else None
    frames = row[5] if isinstance(row[5], str) else None
    return Item(name, row[1], row[2], row[3], error, frames)


def worker_count(wanted: int) -> int:
    """``[daemon] workers``, at most one fewer than the cores the daemon may use: it prepares
    records itself while it waits for theirs. None by default: each worker holds its own
    scrubbing engine (about 55 MB, its Hyperscan databases 22 MB of it), and on a shared two-core
    machine one worker drained a backlog no faster than the daemon alone (bench/README.md)."""
    return max(0, min(wanted, usable_cores() - 1))


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (taskset, a container's cpuset) where
    the system says, else the machine's. A daemon pinned to one core that started a worker there
    would only add the worker's start-up and the pipe's copies to the same core's work."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS, Windows: no affinity to read
        return os.cpu_count() or 1


class Pool:
    """Workers preparing chunks of claimed names ahead of the daemon. ``take`` returns the
    chunks in the order they were submitted."""

    def __init__(self, home: str, s: Settings, n: int) -> None:
        self.workers: list[_Worker] = []
        self.order: deque[tuple[_Worker, list[str]]] = deque()
        try:
            for _ in range(n):
                self.workers.append(_Worker(home, s))
        except BaseException:
            self.close()
            raise
        self.turn = 0

    def room(self) -> int:
        """How many more chunks may be handed out now."""
        return DEPTH * len(self.workers) - len(self.order)

    def submit(self, names: list[str]) -> None:
        w = self.workers[self.turn % len(self.workers)]
        self.turn += 1
        w.send(names)
        self.order.append((w, names))

    def ready(self) -> bool:
        """Whether ``take`` would return without waiting."""
        return bool(self.order) and not self.order[0][0].answers.empty()

    def outstanding(self) -> list[str]:
        return [n for _, names in self.order for n in names]

    def take(self, stop: threading.Event, slow: Callable[[int, float], None] | None = None) -> list[Item]:
        """The oldest submitted chunk, prepared. Raises Stopped when ``stop`` is set, anything
        else when a worker failed: the caller then prepares ``outstanding()`` itself."""
        w, names = self.order[0]
        rows = w.answer(ANSWER_TIMEOUT_S, stop, slow)
        items = [_item(row, name) for row, name in zip(rows, names, strict=True)]
        self.order.popleft()
        return items

    def close(self, kill: bool = False) -> None:
        for w in self.workers:
            w.stop(kill)
        self.workers = []
        self.order.clear()
