"""The OTLP sink writes its requests itself (ship/sinks/otlp_wire.py): both encodings must be what
opentelemetry-proto's own message classes make of the same spans. The reference below builds the
messages with the classes, as the sink did before; the protobuf bytes must parse into the very
same message (and be byte for byte what the classes serialize), the JSON must be what
``json_format.MessageToDict`` writes, with OTLP/JSON's hex ids."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from jevlin_hooks import __version__
from jevlin_hooks.ship import codec
from jevlin_hooks.ship.sinks import otlp, otlp_wire
from jevlin_hooks.ship.sinks.otlp_spans import SpanData, build

INT64 = (-(2**63), 2**63 - 1)


# --- the reference: the message classes -------------------------------------------------------

def ref_text(s: str) -> str:
    return s.encode("utf-8", "replace").decode("utf-8")


def ref_value(v: Any) -> AnyValue:
    if isinstance(v, bool):
        return AnyValue(bool_value=v)
    if isinstance(v, int) and INT64[0] <= v <= INT64[1]:
        return AnyValue(int_value=v)
    if isinstance(v, float):
        return AnyValue(double_value=v)
    if isinstance(v, (list, tuple)):
        return AnyValue(array_value=ArrayValue(values=[ref_value(x) for x in v]))
    return AnyValue(string_value=ref_text(str(v)))


def ref_attrs(pairs: list[tuple[str, Any]]) -> list[KeyValue]:
    return [KeyValue(key=k, value=ref_value(v)) for k, v in pairs if v is not None]


def ref_request(spans: list[SpanData]) -> ExportTraceServiceRequest:
    protos = [Span(trace_id=s.trace_id, span_id=s.span_id, parent_span_id=s.parent_id or b"", name=ref_text(s.name),
                   kind=Span.SPAN_KIND_INTERNAL, start_time_unix_nano=s.start_ns, end_time_unix_nano=s.end_ns,
                   attributes=ref_attrs(s.attributes), status=Status(code=s.status, message=ref_text(s.status_message)))
              for s in spans]
    resource = Resource(attributes=ref_attrs([("service.name", "jevlin-hooks"), ("service.version", __version__)]))
    scope = InstrumentationScope(name="jevlin-hooks", version=__version__)
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(resource=resource, scope_spans=[
        ScopeSpans(scope=scope, spans=protos)])])


def ref_json(req: ExportTraceServiceRequest) -> Any:
    def hex_ids(obj: Any) -> Any:
        if isinstance(obj, dict):
            return {k: (base64.b64decode(v).hex() if k in ("traceId", "spanId", "parentSpanId") else hex_ids(v))
                    for k, v in obj.items()}
        if isinstance(obj, list):
            return [hex_ids(x) for x in obj]
        return obj
    return hex_ids(json_format.MessageToDict(req, use_integers_for_enums=True))


# --- spans to encode ----------------------------------------------------------------------------

def record(i: int, **over: Any) -> dict[str, Any]:
    r: dict[str, Any] = {"v": 1, "record_id": f"{i:032x}", "kind": "search", "ts": "2026-11-30T10:00:00.000Z",
                         "harness": "claude-code", "session_id": "s" * 64, "turn_id": "t" * 64, "call_id": "c" * 64,
                         "window": 0, "seq": i, "history": "a history", "query": "q", "tool": "Bash", "status": "ok",
                         "duration_ms": 40, "host_meta": {"platform": "linux", "model": "claude-x", "redactions": 0}}
    r.update(over)
    return r


ODD_VALUES = ["", "é ✓ 中文 🙂", "lone \ud83d surrogate", "x" * 300, 0, -1, 2**63 - 1, -(2**63), 2**63, 2**70,
              0.0, -2.5, 1e300, True, False, [], ["a", 1, 2.5, True, ["nested", "\udc00"]], {"k": "v"}]


def odd_spans() -> list[SpanData]:
    spans, _ = build([record(1), record(2, status="error", duration_ms=None),
                      record(3, parent_session_id="p" * 64, parent_call_id="x" * 64, parent_turn_id="t" * 64,
                             turn_id="u" * 64, host_meta={"agent_type": "type\ud800"}),
                      {**record(4), "kind": "turn_end", "outcome": "interrupted", "prompt": "p", "final_message": "",
                       "tokens": {"input": 3, "output": 5, "cache_read": 0, "cache_creation": 0}, "tools": ["Bash"],
                       "search_count": 2, "model": "claude-x"}], turn_end=True)
    for i, v in enumerate(ODD_VALUES):
        spans.append(SpanData(b"\x01" * 16, bytes([i + 1]) * 8, None, f"odd {i} \ud800", 0, 2**63 - 1,
                              [("odd", v), ("none", None), ("same", "shared")], i % 3, "" if i % 2 else "msg \udfff"))
    return spans


def generated_spans(n: int, seed: int) -> list[SpanData]:
    rng = random.Random(seed)
    recs = [record(i, seq=rng.randint(0, 2**53), window=rng.randint(0, 9), duration_ms=rng.randint(0, 10**6),
                   history="".join(rng.choice("ab é中🙂\n\t\"\\") for _ in range(rng.randint(0, 400))),
                   session_id=f"{rng.randint(0, 3):064x}") for i in range(n)]
    spans, bad = build(recs, turn_end=bool(seed % 2))
    assert not bad
    return spans


@pytest.mark.parametrize("spans", [odd_spans(), generated_spans(300, 1), generated_spans(300, 2)],
                         ids=["odd-values", "generated-1", "generated-2"])
def test_protobuf_is_what_the_message_classes_write(spans):
    attrs = otlp_wire.new_attrs()
    body, ctype = otlp.encode([otlp_wire.span_pb(s, attrs) for s in spans], otlp.PROTOBUF)
    want = ref_request(spans)
    assert ctype == "application/x-protobuf"
    assert ExportTraceServiceRequest.FromString(body) == want
    assert body == want.SerializeToString()


@pytest.mark.parametrize("spans", [odd_spans(), generated_spans(300, 3)], ids=["odd-values", "generated"])
def test_json_is_what_the_message_classes_write(spans):
    body, ctype = otlp.encode([otlp_wire.span_json(s) for s in spans], otlp.JSON)
    assert ctype == "application/json"
    got = json.loads(body)
    assert got == ref_json(ref_request(spans))
    assert body == codec.dumps(got)  # plain UTF-8 JSON that any reader takes


def test_an_attribute_shared_by_spans_is_encoded_once_per_batch_and_stays_the_same():
    attrs = otlp_wire.new_attrs()
    spans = generated_spans(50, 4)
    first = [otlp_wire.span_pb(s, attrs) for s in spans]
    assert 0 < len(attrs.done) < 50 * 10  # shared values kept once, long texts not kept
    assert all(len(k[2]) <= 256 for k in attrs.done if isinstance(k[2], str))
    again = [otlp_wire.span_pb(s, otlp_wire.new_attrs()) for s in spans]
    assert first == again
