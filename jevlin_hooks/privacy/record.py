"""Make a queued record safe to send: validate, keep allow-listed fields, hash ids, scrub text.

This is the one place a raw record becomes what leaves the machine; the daemon and
`jevlin-hooks preview` both call :func:`make_safe`, so a preview shows exactly what a sink gets.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from jevlin_hooks.base import spool
from jevlin_hooks.privacy import ids, known_ids, scrub
from jevlin_hooks.privacy.checks.tokens import k8s_secret
from jevlin_hooks.privacy.engine import everywhere

# What may leave, per kind (DESIGN.md "Records"), plus the schema version `v`.
ALLOWED: dict[str, tuple[str, ...]] = {
    "search": ("v", "record_id", "kind", "ts", "harness", "session_id", "turn_id", "call_id",
               "parent_session_id", "parent_call_id", "parent_turn_id", "window", "seq", "history", "host_meta",
               "query", "tool", "status", "duration_ms"),
    "turn_end": ("v", "record_id", "kind", "ts", "harness", "session_id", "turn_id",
                 "parent_session_id", "window", "prompt", "final_message", "tools", "duration_ms",
                 "outcome", "model", "tokens", "search_count"),
}
ID_FIELDS = ("session_id", "turn_id", "call_id", "parent_session_id", "parent_call_id", "parent_turn_id")
TEXT_FIELDS = ("history", "query", "prompt", "final_message")
_ID_SET = frozenset(ID_FIELDS)
_TEXT_SET = frozenset(TEXT_FIELDS)
_NAME_FIELDS = frozenset(("model", "tool", "status", "outcome", "harness"))
_HEX = frozenset("0123456789abcdef")
HOST_META_KEYS = ("platform", "model", "agent_type", "history_source", "harness_version")
HOST_META_IDS = ("forked_from",)  # thread ids inside host_meta: hashed like the id fields
TOKEN_KEYS = ("input", "output", "cache_read", "cache_creation")
# Free text is cut to this many characters before scrubbing (history is 32 KiB already), which
# also bounds the scrubbing time of any one record: the limit hooks cut at when queueing, with
# its mark kept (base/spool.py).
TEXT_LIMIT = spool.TEXT_LIMIT
NAME_LIMIT = 200
PREVIEW_LIMIT = 4096  # a search's result summary, kept by the local store only


class InvalidRecord(ValueError):
    """A record that can never be sent as it is: it goes to quarantine with this reason.
    Reasons never quote a value of the record (they are shown and kept in clear)."""


# Numbers are clamped into what every sink can encode (SQLite's and OTLP's int64, a JSON
# reader's exact integers) and into what can be true: a duration over a year is a broken clock
# or a unit mistake (Cursor's `duration: 1e300`), not a year-long search.
MAX_COUNT = 2**53 - 1
MAX_DURATION_MS = 366 * 86400 * 1000
CLAMPED: dict[str, int] = {"window": MAX_COUNT, "seq": MAX_COUNT, "search_count": MAX_COUNT,
                           "duration_ms": MAX_DURATION_MS}


def text(value: str) -> str:
    """Valid Unicode: a lone surrogate (``\\ud83d`` from a cut emoji) becomes U+FFFD, a pair
    that arrived as two code points becomes its character. Never drops the text."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _number(v: Any, hi: int) -> Any:
    """An int clamped to [0, hi]; a finite float rounded then clamped; anything else unchanged
    (left for validate to refuse)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        if v != v:  # NaN: no value at all
            return None
        if v in (float("inf"), float("-inf")):
            return hi if v > 0 else 0
        v = round(v)
    if isinstance(v, int):
        return min(max(v, 0), hi)
    return v


def _plain(v: Any, depth: int = 0) -> Any:
    """Any JSON value made encodable everywhere: valid text, bounded ints, finite floats."""
    if isinstance(v, str):
        return text(v)
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return min(max(v, -MAX_COUNT), MAX_COUNT)
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else None
    if depth > 8:
        return None
    if isinstance(v, list):
        return [_plain(x, depth + 1) for x in v]
    if isinstance(v, dict):
        return {text(str(k)): _plain(x, depth + 1) for k, x in v.items()}
    return None


def clean(rec: Any) -> dict[str, Any]:
    """The record with invalid code points replaced and numbers clamped, then validated.
    Raises InvalidRecord for what no clamping can save (a missing id, a string for a window)."""
    if not isinstance(rec, dict):
        raise InvalidRecord("not a JSON object")
    out: dict[str, Any] = {}
    for k, v in rec.items():
        k = text(k) if type(k) is str else text(str(k))
        if type(v) is str:
            # Ids keep their code points: they are hashed as they are (surrogatepass), as `context` does.
            out[k] = v if k in _ID_SET or v.isascii() else text(v)
        elif k in CLAMPED:
            out[k] = _number(v, CLAMPED[k])
        else:
            out[k] = _plain(v)
    tokens = out.get("tokens")
    if isinstance(tokens, dict):
        out["tokens"] = {k: _number(v, MAX_COUNT) for k, v in tokens.items()}
    validate(out)
    return out


def _int(rec: dict[str, Any], key: str, required: bool = False) -> None:
    v = rec.get(key)
    if v is None and not required:
        return
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise InvalidRecord(f"{key} must be a non-negative integer")


def _ts_ok(ts: str) -> bool:
    from datetime import datetime

    try:
        datetime.fromisoformat(ts.replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


def validate(rec: Any) -> None:
    if not isinstance(rec, dict):
        raise InvalidRecord("not a JSON object")
    kind = rec.get("kind")
    if kind not in ALLOWED:
        raise InvalidRecord("unknown kind" + (f" {kind!r}" if isinstance(kind, str) and kind.isidentifier()
                                              and len(kind) <= 32 else ""))
    rid = rec.get("record_id")
    if not isinstance(rid, str) or not (8 <= len(rid) <= 64) or not _HEX.issuperset(rid):
        raise InvalidRecord("record_id must be 8-64 lowercase hex digits")
    for key in ("session_id", "harness", "ts"):
        if not isinstance(rec.get(key), str) or not rec[key]:
            raise InvalidRecord(f"{key} missing")
    if len(rec["ts"]) > 64 or not _ts_ok(rec["ts"]):
        raise InvalidRecord("ts is not an ISO 8601 time")
    for key in ID_FIELDS + TEXT_FIELDS + ("tool", "status", "outcome", "model"):
        if rec.get(key) is not None and not isinstance(rec[key], str):
            raise InvalidRecord(f"{key} must be a string")
    _int(rec, "window", required=True)
    _int(rec, "duration_ms")
    if kind == "search":
        _int(rec, "seq", required=True)
        if not isinstance(rec.get("call_id"), str):
            raise InvalidRecord("call_id missing")
    else:
        _int(rec, "search_count")


def is_hashed(value: Any) -> bool:
    """What ``ids.hash_id`` makes: 64 lowercase hex digits."""
    return isinstance(value, str) and len(value) == 64 and _HEX.issuperset(value)


def released(safe: Any, disabled_rules: tuple[str, ...] = ()) -> dict[str, Any]:
    """A record that was made safe before (quarantined, then released), made safe again with
    today's rules before it is sent: cleaned, validated, cut to the allow-list and every text
    scrubbed again (an older version's rules may have missed a secret). Its ids are hashes
    already and are not hashed twice; an id that is not a hash refuses the record (InvalidRecord),
    so an entry copied in by hand never sends a raw id."""
    rec = clean(safe)
    meta: dict[str, Any] = rec["host_meta"] if isinstance(rec.get("host_meta"), dict) else {}
    for name, value in [*((f, rec.get(f)) for f in ID_FIELDS), *((f"host_meta.{k}", meta.get(k)) for k in HOST_META_IDS)]:
        if value not in (None, "") and not is_hashed(value):
            raise InvalidRecord(f"{name} is not a hashed id (an entry of an older version, or copied in by hand): "
                                "never sent, it could be a raw id")
    before = meta.get("redactions")
    out = _safe(rec, disabled_rules, lambda value: value or None)
    if rec["kind"] == "search" and isinstance(before, int) and not isinstance(before, bool) and before > 0:
        out["host_meta"]["redactions"] += min(before, MAX_COUNT)
    return out


def scrub_texts(texts: list[str], disabled: tuple[str, ...], known: dict[str, str]) -> list[tuple[str, int]]:
    """What making a record safe does to its texts, ``[(clean, redactions)]``: the raw ids the
    record carries become their hashes wherever a text holds them (known_ids.py; ``known`` from
    known_ids.table); every text is scrubbed in one pass; and a value cut in one text is cut in
    all the others (engine/everywhere.py), unless `everywhere` is among the disabled rules."""
    return _spread(scrub.scrub_fields(known_ids.replace(texts, known), disabled), disabled)


def _spread(results: list[Any], disabled: tuple[str, ...]) -> list[tuple[str, int]]:
    """One record's scrubbed texts ``(clean, n, cuts)``, each value cut in one cut in all."""
    cuts: dict[str, str] = {}
    if len(results) > 1 and everywhere.EVERYWHERE not in disabled:
        for _, _, gave in results:
            for value, rule in gave:
                cuts.setdefault(value, rule)
    if not cuts:
        return [(clean, n) for clean, n, _ in results]
    pairs = tuple(cuts.items())
    out = []
    for clean, n, _ in results:
        clean, more = everywhere.cut_in(clean, pairs)
        out.append((clean, n + more))
    return out


def _known(rec: dict[str, Any], hashed: Callable[[Any], str | None]) -> dict[str, str]:
    """The record's raw ids (id fields, host_meta ids), each spelling -> its hash (known_ids.table)."""
    meta = rec.get("host_meta")
    raw = [rec.get(f) for f in ID_FIELDS] + ([meta.get(k) for k in HOST_META_IDS] if isinstance(meta, dict) else [])
    return known_ids.table(raw, hashed)


def _cut(value: Any, limit: int) -> str:
    if not isinstance(value, str):
        return "" if value is None else str(value)
    return value[:limit] if len(value) > limit else value


def make_safe(rec: Any, key: bytes, disabled_rules: tuple[str, ...] = (), local: bool = False) -> dict[str, Any]:
    """The record as it may leave the machine. Raises InvalidRecord.

    Every text of the record (prose, names, host_meta strings) is collected first and scrubbed
    in one pass (scrub_texts): per field, the rule set's fixed cost was most of the daemon's
    per-record CPU.

    With ``local``, for the local store only: a search's result summary (capture/results.py) is
    made safe in the same pass (its ids hashed, scrubbed, the values cut in the other fields cut
    in it too) and kept as ``result``. No other sink may be given a record made so."""
    return _safe(clean(rec), disabled_rules, _hasher(key), local)


# Between two records scrubbed in one call: longer than any rule looks around its match (64
# characters before it, for a keyword), made of what no rule reads as a value (NUL) on lines of its
# own, so that no record's text is read as the context of another's. A finding that covers it all
# the same (a PEM block whose END is in a later record) is found by its count: the records on
# both sides are then scrubbed alone.
RECORD_SEP = "\n".join(["\x00"] * 40)


def make_safe_many(recs: list[Any], key: bytes, disabled_rules: tuple[str, ...] = (),
                   local: bool = False) -> list[dict[str, Any] | Exception]:
    """``make_safe`` for several records, in order: each one's safe form, or the exception that
    refused it (InvalidRecord). Their texts are scrubbed in one ``scrub_many`` (the rule set's
    fixed cost per call was a third of a daemon record's scrubbing), each record's output
    exactly what it is alone: a record whose text holds what a rule reads from the whole text
    (a Kubernetes Secret's kind) is scrubbed on its own, and so is one that a finding joined to
    its neighbour. Known ids and values cut once spread within each record only (scrub_texts).
    ``local`` as in make_safe."""
    out: list[dict[str, Any] | Exception] = []
    texts: list[str] = []
    # (index in out, clean record, slots, first text, number of texts)
    pending: list[tuple[int, dict[str, Any], list[tuple[Any, Any, bool]], int, int]] = []
    hashed = _hasher(key)
    for rec in recs:
        try:
            c = clean(rec)
            safe, slots, own = _collect(c, hashed, local)
            own = known_ids.replace(own, _known(c, hashed))
        except Exception as exc:  # noqa: BLE001 - refused alone; the others go on
            out.append(exc)
            continue
        out.append(safe)
        if _reads_whole_text(own):
            out[-1] = _apply(c, safe, slots, _spread(scrub.scrub_fields(own, disabled_rules), disabled_rules))
            continue
        if pending:
            texts.append(RECORD_SEP)
        pending.append((len(out) - 1, c, slots, len(texts), len(own)))
        texts += own
    done = scrub.scrub_fields(texts, disabled_rules) if texts else []
    for k, (i, c, slots, at, n) in enumerate(pending):
        joined = (k > 0 and done[at - 1][1] > 0) or (k + 1 < len(pending) and done[at + n][1] > 0)
        unscrubbed = out[i]
        assert isinstance(unscrubbed, dict)
        own_texts = texts[at:at + n]
        mine = scrub.scrub_fields(own_texts, disabled_rules) if joined else done[at:at + n]
        out[i] = _apply(c, unscrubbed, slots, _spread(mine, disabled_rules))
    return out


# Whatever lower-cases to "kind:" (KELVIN SIGN too): only such a text is lower-cased to be checked.
_KIND = re.compile("kind:", re.IGNORECASE)


def _reads_whole_text(texts: list[str]) -> bool:
    """Whether a rule's check would read these texts beyond its match: the one such check is the
    Kubernetes Secret rule's (its check's text gate, k8s_secret: a kind anywhere in the text). Pinned by
    tests/test_daemon_prepare_batch.py: records scrubbed together give what each gives alone."""
    return any(_KIND.search(t) is not None and k8s_secret(t.lower()) for t in texts)


def _hasher(key: bytes) -> Callable[[Any], str | None]:
    return lambda value: ids.hash_id(value, key)


def _safe(rec: dict[str, Any], disabled_rules: tuple[str, ...], hashed: Callable[[Any], str | None],
          local: bool = False) -> dict[str, Any]:
    """``make_safe`` once the record is clean, each id made safe by ``hashed``."""
    out, slots, texts = _collect(rec, hashed, local)
    return _apply(rec, out, slots, scrub_texts(texts, disabled_rules, _known(rec, hashed)))


def _collect(rec: dict[str, Any], hashed: Callable[[Any], str | None], local: bool = False
             ) -> tuple[dict[str, Any], list[tuple[Any, Any, bool]], list[str]]:
    """The safe record with ids made safe and texts not scrubbed yet; where each text goes, and
    the texts."""
    out: dict[str, Any] = {}
    # (container, key, counts toward `redactions`) for each text, in the order of `texts`
    slots: list[tuple[Any, Any, bool]] = []
    texts: list[str] = []

    def add_text(container: Any, k: Any, value: Any, limit: int, counted: bool) -> None:
        v = _cut(value, limit)
        if v:
            slots.append((container, k, counted))
            texts.append(v)
        container[k] = v

    for field in ALLOWED[rec["kind"]]:
        if field not in rec:
            continue
        value = rec[field]
        if field in _ID_SET:
            out[field] = hashed(value)
        elif field in _TEXT_SET:
            add_text(out, field, value, TEXT_LIMIT, True)
        elif field == "host_meta":
            meta: dict[str, Any] = {}
            if isinstance(value, dict):
                for k in HOST_META_KEYS:
                    v = value.get(k)
                    if isinstance(v, str):
                        add_text(meta, k, v, NAME_LIMIT, True)
                    elif isinstance(v, (int, float, bool)):
                        meta[k] = v
                for k in HOST_META_IDS:
                    if isinstance(value.get(k), str) and value[k]:
                        meta[k] = hashed(value[k])
            out[field] = meta
        elif field == "tools":
            names: list[str] = []
            for n in value if isinstance(value, list) else []:
                if isinstance(n, str):
                    names.append("")
                    add_text(names, len(names) - 1, n, NAME_LIMIT, False)
            out[field] = names
        elif field == "tokens":
            tok = value if isinstance(value, dict) else {}
            out[field] = {k: tok[k] for k in TOKEN_KEYS if isinstance(tok.get(k), int) and not isinstance(tok.get(k), bool)}
        elif field in _NAME_FIELDS and isinstance(value, str):
            add_text(out, field, value, NAME_LIMIT, False)
        else:
            out[field] = value
    res = rec.get("result") if local and rec["kind"] == "search" else None
    if isinstance(res, dict) and isinstance(res.get("preview"), str):
        lines = res.get("lines")
        out["result"] = {"lines": lines if isinstance(lines, int) and not isinstance(lines, bool) and lines >= 0 else 0}
        add_text(out["result"], "preview", res["preview"], PREVIEW_LIMIT, False)
    return out, slots, texts


def _apply(rec: dict[str, Any], out: dict[str, Any], slots: list[tuple[Any, Any, bool]],
           scrubbed: list[tuple[str, int]]) -> dict[str, Any]:
    """The scrubbed texts put where ``_collect`` found them, and the count of redactions."""
    redactions = 0
    for (container, k, counted), (clean_text, n) in zip(slots, scrubbed, strict=True):
        container[k] = clean_text
        redactions += n if counted else 0
    if rec["kind"] == "search":
        out.setdefault("host_meta", {})["redactions"] = redactions
    return out
