"""Hyperscan, where it is installed, as the scrubber's keyword gate and pattern prefilter.

Both only answer "can it be there?", so the scrubber's output is the same with or without it
(tests/test_scrub_prefilter.py runs the corpora both ways):

* the keyword gate: which keywords occur in the lower-cased text. Aho-Corasick reports every
  occurrence (600 a varied 32 KiB message: `ac`, `id`, `key`, `token` are everywhere); here each
  keyword reports once (HS_FLAG_SINGLEMATCH), except the words that the located rules
  (credential-i18n, phone-number-labelled) start from, which report every occurrence;
* the prefilter: which patterns may match the one-byte view (HS_FLAG_PREFILTER: a superset, never
  less). A pattern that RE2 would scan all 32 KiB for, to find nothing, is skipped. Hyperscan
  scans all of them in one pass, where RE2 makes one pass each.

Without the module (no wheel for the platform) or when a database does not compile, build()
returns None and the scrubber keeps its Aho-Corasick gate and runs every selected pattern.

Compiling them takes 0.8-1.1 s of CPU (the keyword and pattern databases about 0.6 s, the long
texts' ends database 0.25 s; bench/scrub_startup.py), which every process that scrubs (the daemon,
each of its workers, `preview`) would pay. So every compiled database is kept in the user's cache
directory (platformdirs: ``~/.cache/jevlin-hooks`` on Linux, ``~/Library/Caches/jevlin-hooks`` on
macOS), in a file named by its kind and a digest of everything it was built from, and loaded in a
few milliseconds. Hyperscan does not check a database's integrity, and a prefilter that answers
wrong would skip a rule: the file carries the SHA-256 of its contents, checked before loading; a
file that is not the user's own regular file, is writable by others, or does not check out is
ignored and built again.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import threading
from collections.abc import Iterable
from typing import Any

from jevlin_hooks.base import paths
from jevlin_hooks.privacy.rules import pattern_pieces

try:
    import hyperscan

    Error: type[Exception] = hyperscan.error
except ImportError:  # no wheel for this platform (Linux on ARM): the scrubber's own gate runs
    hyperscan = None  # type: ignore[assignment]
    Error = RuntimeError


def available() -> bool:
    return hyperscan is not None


def _literal(word: str) -> bytes:
    return "".join(f"\\x{b:02x}" for b in word.encode("utf-8")).encode()


def to_hyperscan(pattern: str) -> str | None:
    """An RE2 pattern in Hyperscan's syntax, or None. Hyperscan's \\s also takes \\v, so \\s is
    spelled out as RE2's class (inside [^...] a wider \\s would lose matches); \\S is refused."""
    out: list[str] = []
    for _, piece, in_class in pattern_pieces(pattern):
        if piece == "\\S":
            return None
        out.append(("\\t\\n\\f\\r " if in_class else "[\\t\\n\\f\\r ]") if piece == "\\s" else piece)
    return "".join(out)


class Prefilter:
    """Block-mode databases: keywords over the lower-cased text's UTF-8, patterns over the
    one-byte view; and the patterns again for long texts, less those that the scrubber finds in long
    texts by Hyperscan's match ends anyway (build's ``long_skip``)."""

    def __init__(self, words: Any, patterns: Any, pattern_ids: frozenset[int], located: frozenset[int],
                 patterns_long: Any = None, long_ids: frozenset[int] | None = None) -> None:
        self._words, self._patterns = words, patterns
        self.pattern_ids = pattern_ids  # the patterns the prefilter answers for
        self._located = located
        self._same = long_ids is None  # no database of its own for long texts
        self._patterns_long = patterns if long_ids is None else patterns_long
        self.long_ids = pattern_ids if long_ids is None else long_ids  # what it answers for in long texts
        self._local = threading.local()  # a scratch space is for one scan at a time: one per thread

    def _scratch(self) -> tuple[Any, Any, Any]:
        got = getattr(self._local, "scratch", None)
        if got is None:
            words, pats = (hyperscan.Scratch(db) if db is not None else None for db in (self._words, self._patterns))
            longs = pats if self._same else hyperscan.Scratch(self._patterns_long) if self._patterns_long is not None else None
            got = self._local.scratch = (words, pats, longs)
        return got

    def keywords(self, lower_utf8: bytes) -> tuple[set[int], list[tuple[int, int]]]:
        """The keywords present (indices), and (index, end byte offset) of each located word."""
        present: set[int] = set()
        where: list[tuple[int, int]] = []
        located = self._located
        add, append = present.add, where.append

        def on_match(i: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
            add(i)
            if i in located:
                append((i, to))

        self._words.scan(lower_utf8, match_event_handler=on_match, scratch=self._scratch()[0])
        return present, where

    def possible(self, view: bytes, long: bool = False) -> set[int]:
        """The patterns (of pattern_ids, or of long_ids with ``long``) that may match ``view``."""
        found: set[int] = set()
        db = self._patterns_long if long else self._patterns
        if db is None:
            return found
        add = found.add

        def on_match(i: int, _from: int, _to: int, _flags: int, _ctx: object) -> None:
            add(i)

        db.scan(view, match_event_handler=on_match, scratch=self._scratch()[2 if long else 1])
        return found


class Ends:
    """A block-mode database of a few short patterns compiled as they are (no prefilter): where
    each match ends, every match. A rule whose matches are at most L bytes long starts no match
    more than L bytes before the first such end after a position, so RE2 need not walk there
    (scan.py's run). The long texts' one takes a quarter of a second to compile: cached."""

    def __init__(self, db: Any) -> None:
        self._db = db
        self._local = threading.local()

    def ends(self, view: bytes) -> dict[int, list[int]] | None:
        """Each pattern's match ends, ascending; None where there are too many to be worth a
        Python call each (hostile text: 1.1.1.1.1... ends a match every two bytes)."""
        got = _reports(self._db, self._local, view, 64 + len(view) // 512)
        if got is None:
            return None
        found: dict[int, list[int]] = {}
        for i, to in got:
            found.setdefault(i, []).append(to)
        for offsets in found.values():
            offsets.sort()  # Hyperscan reports in order of end already; RE2's loop relies on it
        return found


class Anchors:
    """A block-mode database of words, caseless, every occurrence reported: where the scrubber's
    line-searched rules may match (the lines that hold one). Kept apart from the pattern
    database so that short texts, searched whole, do not pay for the reports. Cached like the
    others (it compiles in a few milliseconds, but then every database comes from one place)."""

    def __init__(self, db: Any, lengths: dict[int, int]) -> None:
        self._db, self._lengths = db, lengths
        self._local = threading.local()

    def scan(self, view: bytes) -> list[tuple[int, int, int]] | None:
        """Every occurrence, as (word index, start, end) offsets in ``view``; None where there
        are too many to be worth a Python call each (hostile text: `net use ` over and over)."""
        got = _reports(self._db, self._local, view, 64 + len(view) // 256)
        lengths = self._lengths
        return None if got is None else [(k, to - lengths[k], to) for k, to in got]


def _reports(db: Any, local: threading.local, view: bytes, budget: int) -> list[tuple[int, int]] | None:
    """(id, end) of every match in ``view``, as Hyperscan reports them (by end); None past
    ``budget`` reports, where a Python call each costs more than what they would spare."""
    scratch = getattr(local, "scratch", None)
    if scratch is None:
        scratch = local.scratch = hyperscan.Scratch(db)
    out: list[tuple[int, int]] = []
    append = out.append
    left = [budget]

    def on_match(i: int, _from: int, to: int, _flags: int, _ctx: object) -> bool:
        append((i, to))
        left[0] -= 1
        return left[0] < 0  # True stops the scan

    try:
        db.scan(view, match_event_handler=on_match, scratch=scratch)
    except hyperscan.ScanTerminated:
        return None
    return out


def build_anchors(words: list[tuple[int, str]]) -> Anchors | None:
    """``words`` (index, ASCII word); None where Hyperscan is missing or refuses them."""
    if hyperscan is None or not words or not all(w.isascii() and w for _, w in words):
        return None
    key = _cache_key("anchors", words)
    db = _load_one("anchors", key)
    if db is None:
        db = _compile([(k, _literal(w)) for k, w in words], hyperscan.HS_FLAG_CASELESS)
        if db is None:
            return None
        _store("anchors", key, [hyperscan.dumpb(db)])
    return Anchors(db, {k: len(w) for k, w in words})


def build_ends(patterns: list[tuple[int, str]]) -> Ends | None:
    """None where Hyperscan is missing or refuses a pattern (RE2 walks as ever)."""
    if hyperscan is None or not patterns:
        return None
    exprs = [to_hyperscan(p) for _, p in patterns]
    if any(e is None for e in exprs):
        return None
    key = _cache_key("ends", patterns)
    db = _load_one("ends", key)
    if db is None:
        db = _compile([(i, e.encode()) for (i, _), e in zip(patterns, exprs, strict=True) if e is not None], 0)
        if db is None:
            return None
        # a scrubber builds two (every text, long texts): each keeps the other's file
        _store("ends", key, [hyperscan.dumpb(db)], keep=2)
    return Ends(db)


def build(words: list[str], located: Iterable[int], patterns: list[tuple[int, str]],
          long_skip: Iterable[int] = ()) -> Prefilter | None:
    """The databases, from the cache or compiled (then cached); None where Hyperscan is missing
    or refuses the keywords. Patterns of ``long_skip`` are left out of the long texts' database."""
    if hyperscan is None:
        return None
    loc = sorted(set(located))
    skip = sorted(set(long_skip))
    key = _cache_key("prefilter", words, loc, patterns, skip)
    data = _read("prefilter", key)
    cached = _decode(data) if data is not None else None
    if cached is not None:
        return cached
    pf = _build(words, loc, patterns, skip)
    if pf is not None:
        try:
            blobs = _encode(pf)
        except hyperscan.error:
            return pf
        _store("prefilter", key, blobs)
    return pf


def _build(words: list[str], located: Iterable[int], patterns: list[tuple[int, str]],
           long_skip: Iterable[int] = ()) -> Prefilter | None:
    """Compile the databases. A pattern Hyperscan refuses (an anchor inside the pattern) is left
    out of the prefilter: RE2 runs it."""
    try:
        wdb = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        loc = frozenset(located)
        wdb.compile(expressions=[_literal(w) for w in words], ids=list(range(len(words))),
                    flags=[0 if i in loc else hyperscan.HS_FLAG_SINGLEMATCH for i in range(len(words))])
    except hyperscan.error:
        return None
    flags = hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_SINGLEMATCH
    usable = [(pid, hs.encode()) for pid, hs in ((pid, to_hyperscan(p)) for pid, p in patterns) if hs is not None]
    pdb = _compile(usable, flags)
    if pdb is None:  # find the patterns it refuses, one by one, and leave them to RE2
        usable = [(pid, p) for pid, p in usable if _compile([(pid, p)], flags) is not None]
        pdb = _compile(usable, flags)
        if pdb is None:
            usable = []
    ids = frozenset(i for i, _ in usable)
    skip = ids.intersection(long_skip)
    if skip:
        long_usable = [(pid, p) for pid, p in usable if pid not in skip]
        ldb = _compile(long_usable, flags)
        if ldb is not None or not long_usable:
            return Prefilter(wdb, pdb, ids, loc, ldb, ids - skip)
    return Prefilter(wdb, pdb, ids, loc)


def _compile(patterns: list[tuple[int, bytes]], flags: int) -> Any:
    if not patterns:
        return None
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    try:
        db.compile(expressions=[p for _, p in patterns], ids=[i for i, _ in patterns], flags=[flags] * len(patterns))
    except hyperscan.error:
        return None
    return db


# --- the compiled databases, cached ------------------------------------------------------------

_MAGIC = b"jevlin-hooks prefilter 2\n"
_LEN = struct.Struct(">Q")
_CACHE_LIMIT = 64 << 20


def cache_dir() -> str:
    import platformdirs

    return platformdirs.user_cache_dir("jevlin-hooks", appauthor=False)


def _cache_key(kind: str, *what: object) -> str:
    """A digest of everything a database is built from (and Hyperscan's version): a file of
    ``kind`` named by it holds what those inputs compile to, nothing else."""
    got = json.dumps([getattr(hyperscan, "__version__", "?"), kind, *what]).encode()
    return hashlib.sha256(got).hexdigest()[:32]


def _file(kind: str, key: str) -> str:
    return f"{kind}-{key}.hsdb"


def _read(kind: str, key: str) -> bytes | None:
    """The cache file's bytes, where it is the user's own regular file in the user's own
    directory (paths.refusal); None otherwise, or where there is none."""
    try:
        dfd = paths.open_dir(cache_dir(), create=False)
    except OSError:
        return None
    try:
        if paths.refusal("cache", os.fstat(dfd), "directory"):
            return None
        fd = os.open(_file(kind, key), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                     dir_fd=dfd)
        try:
            st = os.fstat(fd)
            if (st.st_mode & 0o170000) != 0o100000 or paths.refusal("cache", st, "file"):
                return None
            return paths.read_fd(fd, _CACHE_LIMIT)
        finally:
            os.close(fd)
    except OSError:
        return None
    finally:
        os.close(dfd)


def _unpack(data: bytes, count: int) -> list[bytes] | None:
    """The ``count`` blobs of a cache file, or None where its digest does not check out or it
    does not hold exactly that many."""
    body = data[len(_MAGIC) + 32:]
    if not data.startswith(_MAGIC) or hashlib.sha256(body).digest() != data[len(_MAGIC):len(_MAGIC) + 32]:
        return None
    parts = []
    pos = 0
    try:
        for _ in range(count):
            (n,) = _LEN.unpack_from(body, pos)
            parts.append(body[pos + _LEN.size:pos + _LEN.size + n])
            pos += _LEN.size + n
    except struct.error:
        return None
    return parts if pos == len(body) else None


def _pack(blobs: list[bytes]) -> bytes:
    body = b"".join(_LEN.pack(len(b)) + b for b in blobs)
    return _MAGIC + hashlib.sha256(body).digest() + body


def _load_one(kind: str, key: str) -> Any:
    """A one-database file's database, or None (then it is compiled and stored again)."""
    data = _read(kind, key)
    parts = _unpack(data, 1) if data is not None else None
    if parts is None:
        return None
    try:
        return hyperscan.loadb(parts[0], hyperscan.HS_MODE_BLOCK)
    except hyperscan.error:
        return None  # another platform's build, another version


def _decode(data: bytes) -> Prefilter | None:
    """The databases in ``data``, or None for anything that does not check out."""
    parts = _unpack(data, 4)
    if parts is None:
        return None
    try:
        head = json.loads(parts[0])
        words = hyperscan.loadb(parts[1], hyperscan.HS_MODE_BLOCK)
        pats = hyperscan.loadb(parts[2], hyperscan.HS_MODE_BLOCK) if parts[2] else None
        long_ids = head["long_ids"]
        pats_long = hyperscan.loadb(parts[3], hyperscan.HS_MODE_BLOCK) if parts[3] else None
        return Prefilter(words, pats, frozenset(head["pattern_ids"]), frozenset(head["located"]), pats_long,
                         None if long_ids is None else frozenset(long_ids))
    except (ValueError, KeyError, TypeError, hyperscan.error):
        return None  # another platform's build, another version: compiled again


def _encode(pf: Prefilter) -> list[bytes]:
    own = not pf._same and pf._patterns_long is not None  # a long texts' database of its own, not empty
    head = json.dumps({"pattern_ids": sorted(pf.pattern_ids), "located": sorted(pf._located),
                       "long_ids": None if pf._same else sorted(pf.long_ids)}).encode()
    return [head, hyperscan.dumpb(pf._words), hyperscan.dumpb(pf._patterns) if pf._patterns is not None else b"",
            hyperscan.dumpb(pf._patterns_long) if own else b""]


def _store(kind: str, key: str, blobs: list[bytes], keep: int = 1) -> None:
    """Best effort: a cache that cannot be written costs the next process a compile, nothing more.
    Of the other files of ``kind`` (other versions' builds), the newest ``keep`` - 1 stay."""
    try:
        dfd = paths.open_dir(cache_dir())
    except OSError:
        return
    try:
        if paths.refusal("cache", os.fstat(dfd), "directory"):
            return
        paths.write_atomic(dfd, _file(kind, key), _pack(blobs))
        others = []
        for name in os.listdir(dfd):
            if name.startswith(kind + "-") and name.endswith(".hsdb") and name != _file(kind, key):
                try:
                    others.append((os.stat(name, dir_fd=dfd, follow_symlinks=False).st_mtime_ns, name))
                except OSError:
                    pass
        for _, name in sorted(others, reverse=True)[keep - 1:]:
            try:
                os.unlink(name, dir_fd=dfd)
            except OSError:
                pass
    except OSError:
        pass
    finally:
        os.close(dfd)
