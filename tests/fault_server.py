"""A sink server on 127.0.0.1 that can be told to fail: the platform API and OTLP/HTTP.

``faults`` is a list consumed one per request (then ``default``):

- "ok"; "slow:<seconds>"; "reset" (TCP RST); "partial:<n>" (OTLP partialSuccess);
- "reject:<n>": 2xx, the first n records refused in the body;
- a status: "400", "401", "403", "404", "407", "408", "415", "422", "500", "503";
- "429:<retry-after>" (any text: "0", "-5", an HTTP date);
- "redirect:<code>": a 3xx to another path on this server;
- "auth:<key>": 401 unless the request carries ``Authorization: Bearer <key>``, else ok;
- "max:<n>": 413 for a batch of more than n records, else ok;
- "poison:<text>": 400 for a batch holding a record whose query contains <text>, else ok;
- "bomb:<MiB>": 200 with a gzip body that decompresses to that many MiB;
- "big:<MiB>": 200 with that many MiB of plain body;
- "body:<kind>": 200 with a body the sink does not understand ("html", "list", "junk",
  "badrejected", "badpartial", "badgzip", "brotli");
- "error:<status>:<MiB>": that status with that many MiB of body;
- "trickle-headers": a status line, then one header byte every TRICKLE_S, never done;
- "continue": "100 Continue" every TRICKLE_S, never a final answer;
- "trickle-body": 200 (the records accepted), then one body byte every TRICKLE_S, never done.
The trickles go on until the client hangs up (or HANG_MAX_S). ``on_request(fault)`` is called
for each request before it is answered.

OTLP bodies may be protobuf (read with the opentelemetry-proto classes) or JSON. Every request
body is kept raw (for privacy checks) and every accepted record counted by record_id.
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import struct
import threading
import time
import zlib
from collections import Counter
from typing import Any

from http_helpers import LocalServer, QuietHandler

ODD_BODIES: dict[str, tuple[bytes, dict[str, str]]] = {
    "html": (b"<html><body>Accepted, thanks!</body></html>", {"Content-Type": "text/html"}),
    "list": (b'[{"rejected": "everything"}]', {"Content-Type": "application/json"}),
    "junk": (b"\x00\xff\x1b]52;c;aGk=\x07 not json", {"Content-Type": "application/json"}),
    "badrejected": (b'{"rejected": "all of them", "partialSuccess": 7}', {"Content-Type": "application/json"}),
    "badpartial": (b'{"partialSuccess": {"rejectedSpans": "many", "errorMessage": null}}',
                   {"Content-Type": "application/json"}),
    "badgzip": (b"\x1f\x8b\x08\x00 this is not gzip", {"Content-Type": "application/json", "Content-Encoding": "gzip"}),
    "brotli": (b"\x8b\x02\x80{}\x03", {"Content-Type": "application/json", "Content-Encoding": "br"}),
}


def gzip_bomb(mib: int) -> bytes:
    """``mib`` MiB of zeros, gzipped (about 1 KiB per MiB), built without holding them."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    return b"".join([*(z.compress(block) for _ in range(mib)), z.flush()])


def otlp_body(body: bytes, content_type: str) -> Any:
    """A request body as JSON data; OTLP protobuf is read with the opentelemetry-proto classes."""
    if content_type.startswith("application/x-protobuf"):
        from google.protobuf import json_format
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        return json_format.MessageToDict(ExportTraceServiceRequest.FromString(body))
    return json.loads(body)


TRICKLE_S = 0.2
HANG_MAX_S = 300.0


class FaultServer(LocalServer):
    def __init__(self, faults: list[str] | None = None, default: str = "ok",
                 on_request: Any = None) -> None:
        self.faults = list(faults or [])
        self.default = default
        self.on_request = on_request
        self.hung_up = threading.Event()  # a client hung up on a trickled answer
        self.lock = threading.Lock()
        self.received: Counter[str] = Counter()
        self.records: dict[str, dict[str, Any]] = {}
        self.raw: list[bytes] = []
        self.spans: list[dict[str, Any]] = []  # every OTLP span received, as JSON data
        self.requests: list[tuple[float, str, str]] = []  # (time, path, fault)
        self.sizes: list[int] = []  # records per request
        self.auth: list[str | None] = []
        self.headers: list[dict[str, str]] = []
        outer = self

        class Handler(QuietHandler):
            def send_bytes(self, code: int, data: bytes, headers: dict[str, str]) -> None:
                self.send_response(code)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def trickle(self, head: bytes, unit: bytes) -> None:
                """``head``, then ``unit`` every TRICKLE_S until the client hangs up."""
                self.close_connection = True
                deadline = time.monotonic() + HANG_MAX_S
                try:
                    self.wfile.write(head)
                    self.wfile.flush()
                    while time.monotonic() < deadline:
                        time.sleep(TRICKLE_S)
                        self.wfile.write(unit)
                        self.wfile.flush()
                except OSError:
                    outer.hung_up.set()

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
                if outer.on_request is not None:
                    outer.on_request(fault)
                if fault == "trickle-headers":
                    return self.trickle(b"HTTP/1.1 200 OK\r\nX-Slow: ", b"x")
                if fault == "continue":
                    return self.trickle(b"", b"HTTP/1.1 100 Continue\r\n\r\n")
                if fault.startswith("error:"):
                    _, code, mib = fault.split(":")
                    return self.send_bytes(int(code), b" " * (int(mib) << 20), {"Content-Type": "text/plain"})
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
                if fault.startswith("auth:"):
                    if self.headers.get("Authorization") != f"Bearer {fault.split(':', 1)[1]}":
                        return self.send_json(401, {"error": "bad key"})
                    fault = "ok"
                if fault.startswith("429:"):
                    return self.send_json(429, {"error": "slow down"}, {"Retry-After": fault.split(":", 1)[1]})
                if fault.isdigit():
                    return self.send_json(int(fault), {"error": fault})
                if fault.startswith("redirect:"):
                    return self.send_json(int(fault.split(":")[1]), {}, {"Location": f"{outer.url}/moved"})
                data = otlp_body(body, self.headers.get("Content-Type") or "")
                otlp = self.path.endswith("/v1/traces")
                if otlp:
                    spans = [s for rs in data["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
                    with outer.lock:
                        outer.spans.extend(spans)
                    # a synthesized span (a subagent, its spawning call) stands for no record
                    items = [(rid, s) for s in spans if (rid := next((a["value"]["stringValue"] for a in s["attributes"]
                                                                      if a["key"] == "jevlin.record_id"), None))]
                else:
                    items = [(r["record_id"], r) for r in data["records"]]
                with outer.lock:
                    outer.sizes.append(len(items))
                if fault.startswith("max:") and len(items) > int(fault.split(":")[1]):
                    return self.send_json(413, {"error": "batch too large"})
                if fault.startswith("poison:") and any(fault.split(":", 1)[1] in json.dumps(x) for _, x in items):
                    return self.send_json(400, {"error": "bad record in batch"})
                rejected = []
                if fault.startswith("reject:"):
                    rejected = [{"record_id": rid, "reason": "schema says no"} for rid, _ in items[: int(fault.split(":")[1])]]
                refused = {r["record_id"] for r in rejected}
                with outer.lock:
                    for rid, x in items:
                        if rid not in refused:
                            outer.received[rid] += 1
                            outer.records[rid] = x
                if fault.startswith("body:"):
                    data, headers = ODD_BODIES[fault.split(":")[1]]
                    return self.send_bytes(200, data, headers)
                if fault.startswith("bomb:"):  # a 2xx: the records were accepted, whatever follows
                    return self.send_bytes(200, gzip_bomb(int(fault.split(":")[1])),
                                           {"Content-Type": "application/json", "Content-Encoding": "gzip"})
                if fault.startswith("big:"):
                    return self.send_bytes(200, b" " * (int(fault.split(":")[1]) << 20), {"Content-Type": "application/json"})
                if fault == "trickle-body":
                    return self.trickle(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                        b"Content-Length: 100000\r\n\r\n{", b" ")
                if otlp:
                    reply: dict[str, Any] = {}
                    if fault.startswith("partial:"):
                        reply = {"partialSuccess": {"rejectedSpans": int(fault.split(":")[1]), "errorMessage": "bad span"}}
                    return self.send_json(200, reply)
                return self.send_json(200, {"rejected": rejected} if rejected else {})

        self.serve(Handler)

    def set(self, faults: list[str] | None = None, default: str | None = None) -> None:
        with self.lock:
            if faults is not None:
                self.faults = list(faults)
            if default is not None:
                self.default = default
