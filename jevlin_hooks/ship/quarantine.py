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
    """The short id `quarantine list` shows: the random part of the spool name."""
    stem = name[:-5] if name.endswith(".json") else name
    parts = stem.split(".")
    return parts[-1] if len(parts) == 3 and parts[0].isdigit() else stem


def _box_key(key: bytes) -> bytes:
    return ids.hmac_sha256(key, b"jevlin-hooks quarantine seal")


def seal(raw: bytes, key: bytes) -> str:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(12)
    return base64.b64encode(nonce + AESGCM(_box_key(key)).encrypt(nonce, raw, _AAD)).decode("ascii")


def unseal(sealed: str, key: bytes) -> bytes:
    """Raises ValueError when the entry was sealed under another key (after `key rotate`)."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    blob = base64.b64decode(sealed)
    try:
        return AESGCM(_box_key(key)).decrypt(blob[:12], blob[12:], _AAD)
    except InvalidTag:
        raise ValueError("sealed under another key (the key was rotated since)") from None


def safe_form(rec: Any, key: bytes, disabled: tuple[str, ...] = ()) -> dict[str, Any]:
    """What a queued record looks like when sent: a released entry as it was made safe, any
    other record through ``make_safe``. Raises ``record.InvalidRecord``."""
    if isinstance(rec, dict) and rec.get("released") == 1 and isinstance(rec.get("safe"), dict):
        return record.released(rec["safe"])
    return record.make_safe(rec, key, disabled)


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


def release(home: str, chosen: list[Entry], key: bytes | None) -> tuple[int, list[str]]:
    """Queue the chosen entries again; returns (how many, problems one line each)."""
    n, problems = 0, []
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
                    data = json.dumps({"v": 1, "released": 1, "safe": body["safe"]}).encode()
                else:
                    if key is None:
                        problems.append(f"{e.id}: no local key to open it")
                        continue
                    data = unseal(str(body.get("sealed", "")), key)
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
