"""OTLP/HTTP JSON to any OpenTelemetry collector (Langfuse, LangSmith, Braintrust, Jaeger, ...).

A thread is a trace, a turn a span, a search a child span of its turn, following the
OpenTelemetry GenAI semantic conventions. Trace and span ids are derived from the (already
hashed) ids, so sending a record twice produces the same span, not a second one.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from jevlin_hooks import __version__
from jevlin_hooks.ship.sinks import Result
from jevlin_hooks.ship.sinks.http import classify, client, endpoint_problem, inert, json_object, post_json


def _hex(label: str, value: str, nbytes: int) -> str:
    return hashlib.sha256(f"{label}:{value}".encode()).hexdigest()[: nbytes * 2]


def trace_id(rec: dict[str, Any]) -> str:
    return _hex("trace", rec.get("parent_session_id") or rec["session_id"], 16)


def turn_span_id(rec: dict[str, Any]) -> str:
    return _hex("turn", f"{rec.get('parent_session_id') or rec['session_id']}/{rec.get('turn_id') or ''}", 8)


def _nanos(ts: str) -> int:
    dt = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return int(dt.timestamp() * 1_000_000) * 1000


def _attr(key: str, value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    if isinstance(value, list):
        return {"key": key, "value": {"arrayValue": {"values": [{"stringValue": str(v)} for v in value]}}}
    return {"key": key, "value": {"stringValue": str(value)}}


def _attrs(pairs: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [a for a in (_attr(k, v) for k, v in pairs) if a is not None]


def span(rec: dict[str, Any]) -> dict[str, Any]:
    start = _nanos(rec["ts"])
    dur = (rec.get("duration_ms") or 0) * 1_000_000
    common = [
        ("gen_ai.conversation.id", rec.get("parent_session_id") or rec["session_id"]),
        ("jevlin.session.id", rec["session_id"]),
        ("jevlin.parent_session.id", rec.get("parent_session_id")),
        ("jevlin.turn.id", rec.get("turn_id")),
        ("jevlin.window", rec.get("window")),
        ("jevlin.harness", rec.get("harness")),
        ("jevlin.record_id", rec["record_id"]),
    ]
    if rec["kind"] == "search":
        meta = rec.get("host_meta") or {}
        ok = rec.get("status") in ("ok", "empty")
        return {
            "traceId": trace_id(rec),
            "spanId": _hex("call", f"{rec['session_id']}/{rec['call_id']}", 8),
            "parentSpanId": turn_span_id(rec),
            "name": f"execute_tool {rec.get('tool') or 'search'}",
            "kind": 1,  # INTERNAL
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(start + dur),
            "attributes": _attrs(common + [
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", rec.get("tool")),
                ("gen_ai.tool.call.id", rec.get("call_id")),
                ("gen_ai.request.model", meta.get("model")),
                ("gen_ai.agent.id", rec["session_id"] if rec.get("parent_session_id") else None),
                ("jevlin.parent_call.id", rec.get("parent_call_id")),
                ("jevlin.seq", rec.get("seq")),
                ("jevlin.search.query", rec.get("query")),
                ("jevlin.search.status", rec.get("status")),
                ("jevlin.history", rec.get("history")),
                ("jevlin.redactions", meta.get("redactions")),
            ]),
            "status": {"code": 1} if ok else {"code": 2, "message": rec.get("status") or "error"},
        }
    tokens = rec.get("tokens") or {}
    ok = rec.get("outcome") == "completed"
    return {
        "traceId": trace_id(rec),
        "spanId": turn_span_id(rec),
        "name": f"invoke_agent turn {rec.get('window', 0)}",
        "kind": 1,
        "startTimeUnixNano": str(max(0, start - dur)),  # a turn_end's ts is when the turn ended
        "endTimeUnixNano": str(start),
        "attributes": _attrs(common + [
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.request.model", rec.get("model")),
            ("gen_ai.usage.input_tokens", tokens.get("input")),
            ("gen_ai.usage.output_tokens", tokens.get("output")),
            ("gen_ai.usage.cache_read.input_tokens", tokens.get("cache_read")),
            ("gen_ai.usage.cache_creation.input_tokens", tokens.get("cache_creation")),
            ("jevlin.turn.outcome", rec.get("outcome")),
            ("jevlin.turn.tools", rec.get("tools")),
            ("jevlin.turn.search_count", rec.get("search_count")),
            ("jevlin.turn.prompt", rec.get("prompt")),
            ("jevlin.turn.final_message", rec.get("final_message")),
        ]),
        "status": {"code": 1} if ok else {"code": 2, "message": rec.get("outcome") or "error"},
    }


def request(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {"resourceSpans": [{
        "resource": {"attributes": _attrs([("service.name", "jevlin-hooks"), ("service.version", __version__)])},
        "scopeSpans": [{"scope": {"name": "jevlin-hooks", "version": __version__},
                        "spans": [span(r) for r in records]}],
    }]}


class OtlpSink:
    name = "otlp"

    def __init__(self, endpoint: str, headers: dict[str, str]) -> None:
        self.url = endpoint.rstrip("/") + "/v1/traces" if endpoint else ""
        self.headers = {str(k): str(v) for k, v in headers.items()}
        self.http = client()

    def send(self, records: list[dict[str, Any]]) -> Result:
        ids = [r["record_id"] for r in records]
        problem = endpoint_problem(self.url, "[ship] headers" if self.headers else None)
        if problem:
            return Result(retry=True, error=problem, hold=problem)
        reply = post_json(self.http, self.url, request(records), self.headers)
        if isinstance(reply, Result):
            return reply
        verdict = classify(reply, self.url, auth="[ship] headers")
        if verdict is not None:
            return verdict
        note = None
        partial = (json_object(reply) or {}).get("partialSuccess")
        rejected = partial.get("rejectedSpans") if isinstance(partial, dict) else None
        if isinstance(rejected, (int, str)) and str(rejected).isdigit() and int(rejected) > 0:
            # OTLP does not say which spans: the batch is done (re-sending would be refused the
            # same way); the count and message stay visible in `status`.
            note = f"collector rejected {int(rejected)} span(s): {inert(str(partial.get('errorMessage')), 200)}"
        return Result(accepted=ids, note=note)

    def close(self) -> None:
        self.http.close()
