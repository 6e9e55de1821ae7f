"""The OpenTelemetry Python SDK's side of bench/queue_vs_otel.py (run as its own process).

    python bench/otel_sdk_export.py SPOOL_DIR ENDPOINT

Reads every queued record in SPOOL_DIR (oldest first, as the daemon does), turns each into a
span with the record's fields as attributes (history and query included, no scrubbing, no
hashing), and exports them with a BatchSpanProcessor and the OTLP/HTTP protobuf exporter to
ENDPOINT/v1/traces; exits after force_flush. The queue is sized to hold every span (the
default, 2,048, would drop most of a deep queue), and the records stay where they are.
"""

from __future__ import annotations

import heapq
import json
import os
import sys

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor


def main() -> None:
    spool, endpoint = sys.argv[1], sys.argv[2]
    with os.scandir(spool) as it:
        names = heapq.nsmallest(1 << 30, (e.name for e in it if e.name.endswith(".json")))
    provider = TracerProvider(resource=Resource.create({"service.name": "otel-sdk-bench"}))
    provider.add_span_processor(BatchSpanProcessor(
        OTLPSpanExporter(endpoint=endpoint.rstrip("/") + "/v1/traces"),
        max_queue_size=max(2048, len(names)), max_export_batch_size=512, schedule_delay_millis=200))
    tracer = provider.get_tracer("bench")
    for name in names:
        with open(os.path.join(spool, name), "rb") as f:
            rec = json.loads(f.read())
        with tracer.start_as_current_span("execute_tool " + rec["tool"]) as span:
            span.set_attributes({
                "gen_ai.operation.name": "execute_tool", "gen_ai.conversation.id": rec["session_id"],
                "gen_ai.tool.name": rec["tool"], "gen_ai.tool.call.id": rec["call_id"],
                "jevlin.turn_id": rec["turn_id"], "jevlin.window": rec["window"], "jevlin.seq": rec["seq"],
                "jevlin.query": rec["query"], "jevlin.history": rec["history"], "jevlin.status": rec["status"],
                "jevlin.duration_ms": rec["duration_ms"], "jevlin.record_id": rec["record_id"],
            })
    provider.force_flush(timeout_millis=600_000)
    provider.shutdown()


if __name__ == "__main__":
    main()
