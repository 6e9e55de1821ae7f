"""The OpenTelemetry Python SDK's side of bench/queue_vs_otel.py (run as its own process).

    python bench/otel_sdk_export.py SPOOL_DIR TRACES_URL [protobuf|json] [none|gzip]

Reads every queued record in SPOOL_DIR (oldest first, as the daemon does) and makes each one a
span through the SDK's API (``tracer.start_span`` with the record's start time, ``end`` with its
end time), with the same name and the same attributes the daemon's OTLP sink gives it
(``otlp_spans.search_spans``, on the raw record: no scrubbing, no hashing), then exports them
with a BatchSpanProcessor (batches of 512, as the daemon's 500) and the SDK's OTLP/HTTP exporter:
``opentelemetry-exporter-otlp-proto-http`` for protobuf, ``opentelemetry-exporter-otlp-json-http``
for JSON. Exits after ``force_flush``. The queue is sized to hold every span (the default, 2,048,
would drop most of a deep queue); the records stay where they are.
"""

from __future__ import annotations

import heapq
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: E402

from jevlin_hooks.ship.sinks.otlp_spans import search_spans  # noqa: E402


def exporter(url: str, protocol: str, compression: str) -> object:
    if protocol == "json":
        from opentelemetry.exporter.otlp.common.http import Compression as JCompression
        from opentelemetry.exporter.otlp.json.http.trace_exporter import OTLPSpanExporter as JsonExporter

        return JsonExporter(endpoint=url, compression=JCompression.from_str(compression))
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(endpoint=url, compression=Compression(compression))


def main() -> None:
    spool, url = sys.argv[1], sys.argv[2]
    protocol = sys.argv[3] if len(sys.argv) > 3 else "protobuf"
    compression = sys.argv[4] if len(sys.argv) > 4 else "none"
    with os.scandir(spool) as it:
        names = heapq.nsmallest(1 << 30, (e.name for e in it if e.name.endswith(".json")))
    provider = TracerProvider(resource=Resource.create({"service.name": "otel-sdk-bench"}))
    provider.add_span_processor(BatchSpanProcessor(
        exporter(url, protocol, compression),  # type: ignore[arg-type]
        max_queue_size=max(2048, len(names)), max_export_batch_size=512, schedule_delay_millis=200))
    tracer = provider.get_tracer("bench")
    for name in names:
        with open(os.path.join(spool, name), "rb") as f:
            rec = json.loads(f.read())
        own, _ = search_spans(rec, False)
        span = tracer.start_span(own.name, start_time=own.start_ns,
                                 attributes={k: v for k, v in own.attributes if v is not None})
        span.end(end_time=own.end_ns)
    provider.force_flush(timeout_millis=600_000)
    provider.shutdown()


if __name__ == "__main__":
    main()
