"""OTLP/HTTP to any OpenTelemetry backend: Phoenix, Langfuse, LangSmith, MLflow, a Collector.

Protobuf by default (Phoenix takes nothing else), JSON on request, always gzip. The request is
written by otlp_wire, exactly as the OpenTelemetry project's own `opentelemetry-proto` classes
write it (a test holds it to them), which read the answers; the span tree and its attributes are
in otlp_spans. Answers are read as every sink reads them (http.classify): 2xx
delivered (a body that cannot be read is still a success); 429, 502, 503, 504 (and 408, other
5xx) retried after `Retry-After`; 3xx, 401, 403, 404, 415, 422, ... hold the queue and name the
setting to fix; 413 and other 4xx split the batch to find the record at fault. OTLP adds
`partialSuccess`, read from the answer in its own encoding and shown in `status` (OTLP does not
say which spans, so the batch is not re-sent). A record that cannot be encoded is quarantined
alone.
"""

from __future__ import annotations

import os
import struct
import urllib.parse
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jevlin_hooks import __version__
from jevlin_hooks.base import redact
from jevlin_hooks.ship import codec
from jevlin_hooks.ship.sinks import Result, otlp_wire
from jevlin_hooks.ship.sinks.http import Reply, classify, client, endpoint_problem, inert, post
from jevlin_hooks.ship.sinks.otlp_spans import build

if TYPE_CHECKING:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

PROTOBUF = "http/protobuf"
JSON = "http/json"
TRACES_PATH = "/v1/traces"
SENT_SYNTH_KEEP = 20_000


# --- where to send, and how ---------------------------------------------------------------------

@dataclass
class Target:
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    protocol: str = PROTOBUF
    error: str | None = None  # a configuration that cannot work: the queue is held with this


def traces_url(endpoint: str) -> str:
    """A base URL gets `/v1/traces`; a URL that already ends with it is used as it is."""
    endpoint = endpoint.strip()
    if endpoint.rstrip("/").endswith(TRACES_PATH):
        return endpoint.rstrip("/")
    return endpoint.rstrip("/") + TRACES_PATH


def parse_headers(value: str) -> dict[str, str]:
    """OTEL_EXPORTER_OTLP_HEADERS: `k1=v1,k2=v2`, values percent-encoded."""
    out: dict[str, str] = {}
    for item in value.split(","):
        if "=" not in item:
            continue
        k, v = item.split("=", 1)
        k = urllib.parse.unquote(k.strip())
        if k:
            out[k] = urllib.parse.unquote(v.strip())
    return out


def resolve(ship: dict[str, Any], env: Mapping[str, str] | None = None) -> Target:
    """The config's settings, each one it leaves unset taken from the standard OTEL_* variables."""
    env = os.environ if env is None else env
    endpoint = (ship.get("endpoint") or "").strip()
    if endpoint:
        url = traces_url(endpoint)
    elif env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip():
        url = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].strip()  # the spec: used as it is
    elif env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
        url = traces_url(env["OTEL_EXPORTER_OTLP_ENDPOINT"])
    else:
        url = ""
    headers = {str(k): str(v) for k, v in (ship.get("headers") or {}).items()}
    if not headers:
        headers = parse_headers(env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or env.get("OTEL_EXPORTER_OTLP_HEADERS") or "")
    protocol = (ship.get("otlp_protocol") or "").strip()
    source = "[ship] otlp_protocol"
    if not protocol:
        protocol = (env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or PROTOBUF).strip()
        source = "OTEL_EXPORTER_OTLP_PROTOCOL"
    target = Target(url, headers, protocol)
    if not url:
        target.error = "no OTLP endpoint: set [ship] endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT)"
    elif not url.startswith(("http://", "https://")):
        target.error = f"[ship] endpoint must be an http:// or https:// URL, not {redact.endpoint(url)[:80]!r}"
    elif protocol not in (PROTOBUF, JSON):
        target.error = (f"{source} is {protocol!r}: only OTLP/HTTP is supported; "
                        f'set [ship] otlp_protocol = "{PROTOBUF}" or "{JSON}"')
    return target


# --- encoding ------------------------------------------------------------------------------------

def encode(spans: list[bytes] | list[dict[str, Any]], protocol: str) -> tuple[bytes, str]:
    """The request for spans encoded by otlp_wire (``span_pb`` for protobuf, ``span_json`` for JSON)."""
    if protocol == JSON:
        req = otlp_wire.request_json(spans, "jevlin-hooks", __version__)  # type: ignore[arg-type]
        return codec.dumps(req), "application/json"
    return otlp_wire.request_pb(spans, "jevlin-hooks", __version__), "application/x-protobuf"  # type: ignore[arg-type]


def parse_response(body: bytes, content_type: str) -> ExportTraceServiceResponse | None:
    # The message classes are for reading an answer only (a collector's partial success): most
    # answers are empty, and a daemon that is never told of one never imports them.
    from google.protobuf import json_format
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    msg = ExportTraceServiceResponse()
    if not body:
        return msg
    try:
        if "json" in content_type.lower():
            json_format.Parse(body.decode("utf-8", "replace"), msg, ignore_unknown_fields=True)
        else:
            msg.ParseFromString(body)
    except (DecodeError, json_format.ParseError, ValueError, RecursionError):
        return None
    return msg


# --- answers -------------------------------------------------------------------------------------

def answer(reply: Reply, ids: list[str], target: Target) -> Result:
    """What the backend's answer means: the shared classification (http.classify), plus what
    OTLP adds for a 2xx: its partialSuccess, read in the encoding the answer came in."""
    other = JSON if target.protocol == PROTOBUF else PROTOBUF
    verdict = classify(reply, target.url, auth="[ship] headers",
                       fmt=f'[ship] otlp_protocol (now "{target.protocol}"; the other is "{other}")')
    if verdict is not None:
        return verdict
    # most collectors answer an empty body: nothing to read (nor the message classes to import)
    msg = parse_response(reply.body, reply.headers.get("Content-Type") or "") if reply.body else None
    note = None
    if msg is not None and msg.HasField("partial_success"):
        ps = msg.partial_success
        text = inert(ps.error_message, 200)
        if ps.rejected_spans > 0:
            # OTLP does not say which spans: the batch is done (re-sending would be refused the
            # same way); the count and message stay visible in `status`.
            note = f"collector rejected {ps.rejected_spans} span(s): {text}"
        elif text:
            note = f"collector warning: {text}"
    return Result(accepted=list(ids), note=note)


# --- the sink ------------------------------------------------------------------------------------

class OtlpSink:
    name = "otlp"

    def __init__(self, ship: dict[str, Any], turn_end: bool = False, env: Mapping[str, str] | None = None) -> None:
        self.target = resolve(ship, env)
        self.turn_end = turn_end
        self.http = client(ship.get("timeout_s"), self.target.url)
        self.timeout_s = self.http.timeout_s  # the answer deadline, shown by `status` while a request waits
        # synthesized spans (a subagent and its spawning call) this process already delivered
        self.sent: OrderedDict[bytes, None] = OrderedDict()

    def send(self, records: list[dict[str, Any]]) -> Result:
        t = self.target
        problem = t.error or endpoint_problem(t.url, "[ship] headers" if t.headers else None)
        if problem:
            return Result(retry=True, error=problem, hold=problem)
        spans, bad = build(records, self.turn_end, frozenset(self.sent))
        encoded: list[Any] = []
        synth: list[bytes] = []
        attrs = otlp_wire.new_attrs()
        for s in spans:
            try:
                encoded.append(otlp_wire.span_json(s) if t.protocol == JSON else otlp_wire.span_pb(s, attrs))
            except (ValueError, TypeError, OverflowError, struct.error) as exc:  # nothing known reaches here
                if s.record_id is not None:
                    bad[s.record_id] = f"cannot be encoded: {type(exc).__name__}"
                continue
            if s.record_id is None:
                synth.append(s.span_id)
        ids = [r["record_id"] for r in records if r["record_id"] not in bad]
        if not ids:
            return Result(rejected=bad)
        body, ctype = encode(encoded, t.protocol)
        reply = post(self.http, t.url, body, t.headers, ctype)
        result = reply if isinstance(reply, Result) else answer(reply, ids, t)
        result.rejected.update(bad)
        if result.accepted:
            for sid in synth:
                self.sent[sid] = None
            while len(self.sent) > SENT_SYNTH_KEEP:
                self.sent.popitem(last=False)
        return result

    def close(self) -> None:
        self.http.close()
