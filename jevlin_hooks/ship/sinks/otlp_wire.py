"""Spans -> an OTLP ``ExportTraceServiceRequest``, written straight to the wire: protobuf bytes, or
the OTLP/JSON object.

Building opentelemetry-proto's message objects (a KeyValue and an AnyValue per attribute, 25 a
search span) and serializing them was a quarter of the daemon's CPU per record; the SDK pays the
same. The encoding itself is small and fixed (trace.proto, common.proto, resource.proto of
opentelemetry-proto 1.x), so it is written here, field by field, in field-number order as
protobuf's own serializer writes it: proto3 scalars are left out at their default (an empty
parent id, status code 0), a value of an ``AnyValue`` is always written (it is a oneof), and so
is the span's ``status`` (a message that is set). An attribute repeated within a batch (a
session's hashed id, the model, the tool, constant names) is encoded once per batch.
tests/test_otlp_wire.py pins both encodings to what the message classes make of the same spans:
the protobuf bytes parse into the very message the classes build, and the JSON is what
``json_format.MessageToDict`` gives, with OTLP/JSON's hex ids.

Values follow the sink's rules: a lone surrogate in a text becomes "?" (what the sink always gave
protobuf's encoder), an integer out of int64 range goes as text, a list as an array, anything
else as its text.
"""

from __future__ import annotations

import struct
from typing import Any

from jevlin_hooks.ship.sinks.otlp_spans import SpanData

INT64 = (-(2**63), 2**63 - 1)
_U64 = (1 << 64) - 1
_CACHE_TEXT_MAX = 256  # longer values (a history, a query) are one record's own: not worth keeping
_ONE = [bytes((i,)) for i in range(128)]
_DOUBLE = struct.Struct("<d")
_FIXED64 = struct.Struct("<Q")


def _varint(n: int) -> bytes:
    if n < 0x80:
        return _ONE[n]
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _ld(tag: bytes, payload: bytes) -> bytes:
    """A length-delimited field: its tag byte, the length, the bytes."""
    return tag + _varint(len(payload)) + payload


def _utf8(s: str) -> bytes:
    return s.encode("utf-8", "replace")


# --- protobuf -----------------------------------------------------------------------------------

def _any_pb(v: Any) -> bytes:
    """An AnyValue's bytes (without its own tag and length)."""
    if isinstance(v, bool):
        return b"\x10\x01" if v else b"\x10\x00"
    if isinstance(v, int) and INT64[0] <= v <= INT64[1]:
        return b"\x18" + _varint(v & _U64)
    if isinstance(v, float):
        return b"\x21" + _DOUBLE.pack(v)
    if isinstance(v, (list, tuple)):
        return _ld(b"\x2a", b"".join(_ld(b"\x0a", _any_pb(x)) for x in v))
    return _ld(b"\x0a", _utf8(str(v)))


def _kv_pb(key: str, v: Any) -> bytes:
    """A KeyValue as a repeated field of its parent (tag 1 of a Resource, 9 of a Span: ``tag``
    is added by the caller)."""
    return _ld(b"\x0a", _utf8(key)) + _ld(b"\x12", _any_pb(v))


class _Attrs:
    """Encoded attributes of one batch, each distinct short (key, value) encoded once."""

    def __init__(self) -> None:
        self.done: dict[tuple[str, type, Any], bytes] = {}

    def pb(self, tag: bytes, pairs: list[tuple[str, Any]]) -> list[bytes]:
        out = []
        done = self.done
        for k, v in pairs:
            if v is None:
                continue
            t = type(v)
            # kept: text up to _CACHE_TEXT_MAX, ints and bools (not floats: 0.0 == -0.0, written apart)
            if not ((t is str and len(v) <= _CACHE_TEXT_MAX) or t is int or t is bool):
                out.append(_ld(tag, _kv_pb(k, v)))
                continue
            key = (k, t, v)
            got = done.get(key)
            if got is None:
                got = done[key] = _ld(tag, _kv_pb(k, v))
            out.append(got)
        return out


def span_pb(s: SpanData, attrs: _Attrs) -> bytes:
    parts = [_ld(b"\x0a", s.trace_id), _ld(b"\x12", s.span_id)]
    if s.parent_id:
        parts.append(_ld(b"\x22", s.parent_id))
    if s.name:
        parts.append(_ld(b"\x2a", _utf8(s.name)))
    parts.append(b"\x30\x01")  # kind: SPAN_KIND_INTERNAL
    if s.start_ns:
        parts.append(b"\x39" + _FIXED64.pack(s.start_ns))
    if s.end_ns:
        parts.append(b"\x41" + _FIXED64.pack(s.end_ns))
    parts += attrs.pb(b"\x4a", s.attributes)
    status = (_ld(b"\x12", _utf8(s.status_message)) if s.status_message else b"") + \
        (b"\x18" + _varint(s.status) if s.status else b"")
    parts.append(_ld(b"\x7a", status))
    return b"".join(parts)


def request_pb(spans: list[bytes], service: str, version: str) -> bytes:
    """ExportTraceServiceRequest{resource_spans: [{resource, scope_spans: [{scope, spans}]}]}.
    The enclosing messages' lengths are counted first and the request joined once: nesting
    them (each a copy of everything inside it) copied a batch's megabytes four times, 14 ms for
    1,000 spans against 1.4 ms, a third of the encoding's CPU."""
    resource = _ld(b"\x0a", b"".join(_Attrs().pb(b"\x0a", [("service.name", service), ("service.version", version)])))
    scope = _ld(b"\x0a", _ld(b"\x0a", _utf8(service)) + _ld(b"\x12", _utf8(version)))
    parts = [scope]
    for s in spans:  # each span: tag 2 of ScopeSpans, its length, its bytes
        parts += (b"\x12", _varint(len(s)), s)
    scope_spans_len = sum(map(len, parts))
    head = b"\x12" + _varint(scope_spans_len)  # ResourceSpans.scope_spans
    resource_spans_len = len(resource) + len(head) + scope_spans_len
    return b"".join([b"\x0a", _varint(resource_spans_len), resource, head, *parts])


# --- OTLP/JSON ----------------------------------------------------------------------------------

def _text(s: str) -> str:
    return s.encode("utf-8", "replace").decode("utf-8")


def _any_json(v: Any) -> dict[str, Any]:
    """An AnyValue as protobuf's JSON mapping writes it: int64 as a decimal string."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int) and INT64[0] <= v <= INT64[1]:
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, (list, tuple)):
        return {"arrayValue": {"values": [_any_json(x) for x in v]} if v else {}}
    return {"stringValue": _text(str(v))}


def _attrs_json(pairs: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [{"key": _text(k), "value": _any_json(v)} for k, v in pairs if v is not None]


def span_json(s: SpanData) -> dict[str, Any]:
    """A span as OTLP/JSON: the protobuf JSON mapping (defaults left out, enums as integers,
    fixed64 as strings), except that trace and span ids are hex, as OTLP/JSON says."""
    out: dict[str, Any] = {"traceId": s.trace_id.hex(), "spanId": s.span_id.hex()}
    if s.parent_id:
        out["parentSpanId"] = s.parent_id.hex()
    if s.name:
        out["name"] = _text(s.name)
    out["kind"] = 1
    if s.start_ns:
        out["startTimeUnixNano"] = str(s.start_ns)
    if s.end_ns:
        out["endTimeUnixNano"] = str(s.end_ns)
    attrs = _attrs_json(s.attributes)
    if attrs:
        out["attributes"] = attrs
    status: dict[str, Any] = {}
    if s.status_message:
        status["message"] = _text(s.status_message)
    if s.status:
        status["code"] = s.status
    out["status"] = status
    return out


def request_json(spans: list[dict[str, Any]], service: str, version: str) -> dict[str, Any]:
    return {"resourceSpans": [{
        "resource": {"attributes": _attrs_json([("service.name", service), ("service.version", version)])},
        "scopeSpans": [{"scope": {"name": _text(service), "version": _text(version)}, "spans": spans}],
    }]}


def new_attrs() -> _Attrs:
    """A cache for one batch's attributes (span_pb)."""
    return _Attrs()
