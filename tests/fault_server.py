"""A sink server on 127.0.0.1 that can be told to fail: the platform API and OTLP/HTTP.

``faults`` is a list consumed one per request (then ``default``): "ok", "500", "503", "408",
"429:<retry-after>", "slow:<seconds>", "reset", "reject:<n>" (2xx, the first n records refused),
"400" (any status code), "garbage" (a 2xx with an unreadable body), "partial:<n>" (OTLP partialSuccess). OTLP bodies may be JSON or protobuf. Every request body is kept raw (for privacy checks)
and every accepted record counted by record_id.
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import struct
import threading
import time
from collections import Counter
from typing import Any

from http_helpers import LocalServer, QuietHandler


def otlp_body(body: bytes, content_type: str) -> Any:
    """A request body as JSON data; OTLP protobuf is read with the opentelemetry-proto classes."""
    if content_type.startswith("application/x-protobuf"):
        from google.protobuf import json_format
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        return json_format.MessageToDict(ExportTraceServiceRequest.FromString(body))
    return json.loads(body)


class FaultServer(LocalServer):
    def __init__(self, faults: list[str] | None = None, default: str = "ok") -> None:
        self.faults = list(faults or [])
        self.default = default
        self.lock = threading.Lock()
        self.received: Counter[str] = Counter()
        self.records: dict[str, dict[str, Any]] = {}
        self.raw: list[bytes] = []
        self.spans: list[dict[str, Any]] = []  # every OTLP span received, as JSON data
        self.requests: list[tuple[float, str, str]] = []  # (time, path, fault)
        self.auth: list[str | None] = []
        self.headers: list[dict[str, str]] = []
        outer = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = self.read_body()
                with outer.lock:
                    fault = outer.faults.pop(0) if outer.faults else outer.default
                    outer.requests.append((time.time(), self.path, fault))
                    outer.auth.append(self.headers.get("Authorization"))
                    outer.headers.append(dict(self.headers))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                with outer.lock:
                    outer.raw.append(body)
                if fault == "reset":
                    # linger 0 + close = RST. The socket object is shared with rfile/wfile, so
                    # close its fd directly or the peer would just wait.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    os.close(self.connection.detach())
                    self.close_connection = True
                    return
                if fault.startswith("slow:"):
                    time.sleep(float(fault.split(":")[1]))
                    fault = "ok"
                if fault.startswith("429:"):
                    return self.send_json(429, {"error": "slow down"}, {"Retry-After": fault.split(":", 1)[1]})
                if fault.isdigit():
                    return self.send_json(int(fault), {"error": fault})
                data = otlp_body(body, self.headers.get("Content-Type") or "")
                if self.path.endswith("/v1/traces"):
                    spans = [s for rs in data["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
                    with outer.lock:
                        outer.spans.extend(spans)
                        for s in spans:  # a synthesized span (a subagent, its spawning call) has no record
                            rid = next((a["value"]["stringValue"] for a in s["attributes"]
                                        if a["key"] == "jevlin.record_id"), None)
                            if rid is not None:
                                outer.received[rid] += 1
                                outer.records[rid] = s
                    if fault == "garbage":  # a 2xx whose body is not what the protocol says
                        self.send_response(200)
                        self.send_header("Content-Type", "application/x-protobuf")
                        junk = b"\xff\xffnot protobuf"
                        self.send_header("Content-Length", str(len(junk)))
                        self.end_headers()
                        self.wfile.write(junk)
                        return None
                    reply: dict[str, Any] = {}
                    if fault.startswith("partial:"):
                        reply = {"partialSuccess": {"rejectedSpans": int(fault.split(":")[1]), "errorMessage": "bad span"}}
                    return self.send_json(200, reply)
                records = data["records"]
                rejected = []
                if fault.startswith("reject:"):
                    rejected = [{"record_id": r["record_id"], "reason": "schema says no"}
                                for r in records[: int(fault.split(":")[1])]]
                refused = {r["record_id"] for r in rejected}
                with outer.lock:
                    for r in records:
                        if r["record_id"] not in refused:
                            outer.received[r["record_id"]] += 1
                            outer.records[r["record_id"]] = r
                return self.send_json(200, {"rejected": rejected} if rejected else {})


        self.serve(Handler)

    def set(self, faults: list[str] | None = None, default: str | None = None) -> None:
        with self.lock:
            if faults is not None:
                self.faults = list(faults)
            if default is not None:
                self.default = default

