"""``spool/quarantine``: records that cannot be sent as they are, kept without anything raw.

Each entry is one JSON file, ``<name>.json`` (the spool name the record had), holding the
reason and either the record in its safe form (``make_safe``: ids hashed, text scrubbed), or,
for a record that cannot be made safe (not JSON, a missing field), its raw bytes sealed with
AES-GCM under a key derived from the local key. ``release`` puts an entry back in the queue:
a safe record is sent as it is (not hashed twice), a sealed one goes through ``make_safe`` again.
Entries from versions that kept the raw record beside a ``.reason`` file are converted by
:func:`migrate`.
"""

from __future__ import annotations

import base64
import errno
import json
import os
import time
from dataclasses import dataclass
from typing import Any

from jevlin_hooks.base import paths
from jevlin_hooks.privacy import ids, record

SUB = "quarantine"
FORMAT = 1
_AAD = b"jevlin-hooks quarantine v1"


@dataclass
class Entry:
    name: str
    id: str
    at: float
    reason: str
    kind: str | None
    form: str  # "safe" | "sealed"


def entry_id(name: str) -> str:
    """The short id `quarantine list` shows: the random part of the spool name, or for a file
    named otherwise (copied in by hand) its stem, made inert: a control character, an escape
    sequence or a bidi override in a file name is shown escaped (``\\x1b``), never sent to the
    terminal, and that shown form is what selects the entry."""
    stem = name[:-5] if name.endswith(".json") else name
    parts = stem.split(".")
    short = parts[-1] if len(parts) == 3 and parts[0].isdigit() else stem
    if short.isprintable():
        return short
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                   for c in short)


def _box_key(key: bytes) -> bytes:
    return ids.hmac_sha256(key, b"jevlin-hooks quarantine seal")


# cryptography has no wheel for Intel macOS nor Windows on ARM (pyproject.toml asks for it only
# elsewhere): there a record that cannot be made safe stays queued, with this as the reason
NO_CRYPTOGRAPHY = ("sealing a record that cannot be made safe needs the cryptography package, which has no wheel "
                   "for this platform (docs/platforms.md); the record stays queued")


def seal(raw: bytes, key: bytes) -> str:
    """``raw`` encrypted and authenticated under a key derived from ``key``. OSError where the
    cryptography package is missing: callers keep the record where it is, as for a full disk."""
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise OSError(errno.ENOTSUP, NO_CRYPTOGRAPHY) from None

    nonce = os.urandom(12)
    return base64.b64encode(nonce + AESGCM(_box_key(key)).encrypt(nonce, raw, _AAD)).decode("ascii")


def unseal(sealed: str, key: bytes, *older: bytes) -> bytes:
    """The sealed bytes, opened with ``key`` or else one of ``older``. Raises ValueError when
    none opens it (sealed under a key that no longer exists)."""
    try:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise ValueError("opening a sealed record needs the cryptography package, which has no wheel for this "
                         "platform (docs/platforms.md)") from None
    try:
        blob = base64.b64decode(sealed, validate=True)
    except ValueError:
        raise ValueError("the sealed record is damaged (not base64)") from None
    for k in (key, *older):
        try:
            return AESGCM(_box_key(k)).decrypt(blob[:12], blob[12:], _AAD)
        except (InvalidTag, ValueError):
            continue
    raise ValueError("sealed under a key that no longer exists (rotated before this version "
                     "resealed entries); `jevlin-hooks quarantine purge ID --yes` removes it") from None


def safe_form(rec: Any, key: bytes, disabled: tuple[str, ...] = (), local: bool = False) -> dict[str, Any]:
    """What a queued record looks like when sent: a released entry as it was made safe, any
    other record through ``make_safe`` (``local``: with the local store's result summary).
    Raises ``record.InvalidRecord``."""
    if isinstance(rec, dict) and rec.get("released") == 1 and isinstance(rec.get("safe"), dict):
        return record.released(rec["safe"], disabled)
    return record.make_safe(rec, key, disabled, local)


def _write(home: str, name: str, body: dict[str, Any]) -> None:
    qfd = paths.open_dir(home, "spool", SUB)
    try:
        paths.write_atomic(qfd, name, json.dumps(body, sort_keys=True).encode(), sync=True)
    finally:
        os.close(qfd)


def put_safe(home: str, name: str, safe: dict[str, Any], reason: str) -> None:
    _write(home, name, {"quarantine": FORMAT, "at": time.time(), "reason": reason[:2000],
                        "kind": safe.get("kind"), "record_id": safe.get("record_id"), "safe": safe})


def put_sealed(home: str, name: str, raw: bytes, reason: str, key: bytes) -> None:
    _write(home, name, {"quarantine": FORMAT, "at": time.time(), "reason": reason[:2000], "sealed": seal(raw, key)})


def _names(home: str) -> list[str]:
    try:
        return sorted(n for n in os.listdir(os.path.join(home, "spool", SUB)) if n.endswith(".json"))
    except OSError:
        return []


def _read(home: str, name: str) -> Any:
    qfd = paths.open_dir(home, "spool", SUB, create=False)
    try:
        return paths.read_bytes(qfd, name, limit=32 << 20)
    finally:
        os.close(qfd)


def _unlink(home: str, *names: str) -> None:
    qfd = paths.open_dir(home, "spool", SUB, create=False)
    try:
        for n in names:
            try:
                os.unlink(n, dir_fd=qfd)
            except FileNotFoundError:
                pass
    finally:
        os.close(qfd)


def _load(data: bytes) -> dict[str, Any] | None:
    try:
        body = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return None
    return body if isinstance(body, dict) and body.get("quarantine") == FORMAT else None


def migrate(home: str, key: bytes, disabled: tuple[str, ...] = ()) -> int:
    """Convert entries that hold a raw record (older versions) into safe or sealed ones."""
    n = 0
    for name in _names(home):
        try:
            data = _read(home, name)
        except OSError:
            continue
        if _load(data) is not None:
            continue
        try:
            reason = _read(home, name + ".reason").decode("utf-8", "replace").strip() or "quarantined"
        except OSError:
            reason = "quarantined"
        try:
            put_safe(home, name, record.make_safe(json.loads(data.decode("utf-8", "replace")), key, disabled), reason)
        except Exception:  # noqa: BLE001 - not JSON, invalid, or the scrubber failed on it: seal it
            put_sealed(home, name, data, reason, key)
        _unlink(home, name + ".reason")
        n += 1
    return n


def entries(home: str) -> list[Entry]:
    out = []
    for name in _names(home):
        try:
            body = _load(_read(home, name))
        except OSError:
            continue
        if body is None:  # not converted yet (the daemon converts at its next start)
            out.append(Entry(name, entry_id(name), 0.0, "raw entry of an older version; converted at the "
                             "daemon's next start", None, "raw"))
            continue
        out.append(Entry(name, entry_id(name), float(body.get("at") or 0), str(body.get("reason") or ""),
                         body.get("kind") if isinstance(body.get("kind"), str) else None,
                         "safe" if "safe" in body else "sealed"))
    return out


def select(home: str, wanted: list[str]) -> tuple[list[Entry], list[str]]:
    """The entries named by id (all when none named), and the ids that matched nothing or
    more than one entry."""
    all_ = entries(home)
    if not wanted:
        return all_, []
    chosen, bad = [], []
    for w in wanted:
        hits = [e for e in all_ if e.id == w or e.name == w or e.name[:-5] == w]
        if len(hits) == 1:
            chosen.append(hits[0])
        else:
            bad.append(w)
    return chosen, bad


def release(home: str, chosen: list[Entry], key: bytes | None, disabled: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """Queue the chosen entries again; returns (how many, problems one line each).

    A safe entry is made safe again with today's rules first (``record.released``: every text
    scrubbed again, every id checked to be a hash): an entry an older version made, or one copied
    in by hand, never sends a secret or a raw id; one that fails stays where it is, with the
    reason. It is checked again when sent. A sealed one goes back raw, to be made safe when sent."""
    n, problems = 0, []
    older = [k for k in (_previous_key(home),) if k is not None]
    tfd = paths.open_dir(home, "spool", "tmp")
    nfd = paths.open_dir(home, "spool", "new")
    try:
        for e in chosen:
            try:
                body = _load(_read(home, e.name))
                if body is None:
                    problems.append(f"{e.id}: raw entry of an older version; start the daemon once to convert it")
                    continue
                if "safe" in body:
                    try:
                        safe = record.released(body["safe"], disabled)
                    except record.InvalidRecord as exc:
                        problems.append(f"{e.id}: refused, left in quarantine: {exc}")
                        continue
                    data = json.dumps({"v": 1, "released": 1, "safe": safe}).encode()
                else:
                    if key is None:
                        problems.append(f"{e.id}: no local key to open it")
                        continue
                    data = unseal(str(body.get("sealed", "")), key, *older)
                tmp = f"{e.name}.{os.urandom(4).hex()}"
                paths.write_new(tfd, tmp, data, sync=True)
                os.rename(tmp, e.name, src_dir_fd=tfd, dst_dir_fd=nfd)
                _unlink(home, e.name)
                n += 1
            except (OSError, ValueError) as exc:
                problems.append(f"{e.id}: {exc}")
        os.fsync(nfd)
    finally:
        os.close(tfd)
        os.close(nfd)
    return n, problems


def purge(home: str, chosen: list[Entry]) -> int:
    for e in chosen:
        _unlink(home, e.name, e.name + ".reason")
    return len(chosen)


# --- `key rotate`: sealed entries stay readable -------------------------------------------------

PREVIOUS_KEY = "key.previous"  # the key being replaced, kept only while entries are resealed


def _previous_key(home: str) -> bytes | None:
    """The key a rotation was replacing when it stopped half-way (a crash): entries it had not
    resealed yet still open with it."""
    try:
        sfd = paths.open_dir(home, "state", create=False)
    except OSError:
        return None
    try:
        fd = os.open(PREVIOUS_KEY, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=sfd)
    except OSError:
        return None
    finally:
        os.close(sfd)
    try:
        st = os.fstat(fd)
        if not (st.st_mode & 0o170000) == 0o100000 or st.st_mode & 0o077 or st.st_uid != os.geteuid():
            return None
        data = os.read(fd, 64)
    finally:
        os.close(fd)
    return data if len(data) == ids.KEY_BYTES else None


@dataclass
class Rotation:
    resealed: int  # sealed entries now under the new key
    unreadable: list[str]  # sealed under a key older than the one replaced: cannot be opened
    safe: int  # safe entries: their ids stay hashed under the old key, as their threads were


def _reseal(home: str, old: list[bytes], new: bytes) -> tuple[int, list[str]]:
    n, unreadable = 0, []
    for e in entries(home):
        if e.form != "sealed":
            continue
        try:
            body = _load(_read(home, e.name))
        except OSError:
            continue
        if body is None or "sealed" not in body:
            continue
        sealed = str(body["sealed"])
        try:
            unseal(sealed, new)
            continue  # under the new key already (resealed before a crash)
        except ValueError:
            pass
        try:
            if not old:
                raise ValueError("no older key")
            raw = unseal(sealed, *old)
        except ValueError:
            unreadable.append(e.id)
            continue
        body["sealed"] = seal(raw, new)
        _write(home, e.name, body)
        n += 1
    return n, unreadable


def rotate_key(home: str) -> Rotation:
    """A new local key, with every sealed quarantine entry resealed under it (else `release`
    could never open them again). Crash-safe: the old key is kept as ``state/key.previous``
    until every entry is resealed, and both open an entry meanwhile; a rotation that stopped
    half-way is finished first. Raises ids.KeyError_ when there are sealed entries and the
    current key cannot be used (they could not be resealed: fix the key first), OSError."""
    sealed = [e for e in entries(home) if e.form == "sealed"]
    leftover = _previous_key(home)
    old = ids.load_key(home, create=False) if sealed else None
    sfd = paths.open_dir(home, "state")
    try:
        if sealed and old is not None:
            if leftover is not None:  # a rotation stopped half-way: what it left goes under `old` first
                _reseal(home, [leftover], old)
            paths.write_atomic(sfd, PREVIOUS_KEY, old, sync=True)
        ids.rotate_key(home)
        new = ids.load_key(home, create=False)
        assert new is not None
        resealed, unreadable = _reseal(home, [k for k in (old, leftover) if k is not None], new) if sealed else (0, [])
        try:
            os.unlink(PREVIOUS_KEY, dir_fd=sfd)
        except FileNotFoundError:
            pass
    finally:
        os.close(sfd)
    return Rotation(resealed, unreadable, sum(1 for e in entries(home) if e.form == "safe"))
