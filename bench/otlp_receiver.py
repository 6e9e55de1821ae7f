"""An OTLP/HTTP trace receiver for the daemon benches, run as its own process.

    python bench/otlp_receiver.py        # prints its port on the first line of stdout

Every POST to /v1/traces is read whole, gunzipped when its Content-Encoding says gzip, and
decoded into opentelemetry-proto's ``ExportTraceServiceRequest``, whichever side sent it:
protobuf with ``ParseFromString``, OTLP/JSON with the standard JSON reader and
``json_format.ParseDict`` (after turning OTLP/JSON's hex trace and span ids into the base64 the
protobuf JSON mapping reads, as a collector does). The spans are counted from the decoded
message. A body that does not decode is answered 400 and counted as an error, so a bench whose
sender sends something no collector reads fails rather than counts.

GET /count answers ``{"spans", "requests", "bytes", "errors"}`` since the last POST /reset.
Answers are an empty ``ExportTraceServiceResponse`` in the request's encoding, at once.
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

_IDS = ("traceId", "spanId", "parentSpanId")


def _b64_ids(obj: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex; the protobuf JSON mapping reads base64."""
    if isinstance(obj, dict):
        return {k: (base64.b64encode(bytes.fromhex(v)).decode() if k in _IDS and isinstance(v, str)
                    else _b64_ids(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_b64_ids(x) for x in obj]
    return obj


def decode(body: bytes, content_type: str) -> ExportTraceServiceRequest:
    req = ExportTraceServiceRequest()
    if content_type.startswith("application/json"):
        json_format.ParseDict(_b64_ids(json.loads(body)), req)
    else:
        req.ParseFromString(body)
    return req


class Receiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # As production servers do (Go's net/http, nginx, uvicorn): with Nagle's algorithm on, the
    # answer's body waits for the client's delayed ACK of its headers, 40 ms per request.
    disable_nagle_algorithm = True
    counts = {"spans": 0, "requests": 0, "bytes": 0, "errors": 0}
    lock = threading.Lock()

    def log_message(self, *a: object) -> None:
        pass

    def _answer(self, code: int, body: bytes, ctype: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        with self.lock:
            out = json.dumps(self.counts).encode()
        self._answer(200, out, "application/json")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/reset":
            with self.lock:
                self.counts.update(spans=0, requests=0, bytes=0, errors=0)
            self._answer(200, b"{}", "application/json")
            return
        ctype = self.headers.get("Content-Type", "")
        try:
            body = gzip.decompress(raw) if self.headers.get("Content-Encoding") == "gzip" else raw
            req = decode(body, ctype)
            n = sum(len(ss.spans) for rs in req.resource_spans for ss in rs.scope_spans)
        except Exception:  # noqa: BLE001 - anything a collector could not read
            with self.lock:
                self.counts["errors"] += 1
            self._answer(400, b"{}", "application/json")
            return
        with self.lock:
            self.counts["spans"] += n
            self.counts["requests"] += 1
            self.counts["bytes"] += len(raw)
        if ctype.startswith("application/json"):
            self._answer(200, b"{}", "application/json")
        else:
            self._answer(200, b"", "application/x-protobuf")


def main() -> None:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
