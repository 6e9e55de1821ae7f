"""A scripted Anthropic Messages API on 127.0.0.1 for driving the real Claude Code offline.

The test gives a ``decide(request_body) -> list[block]`` function; blocks are
``{"type": "text", "text": ...}`` or ``{"type": "tool_use", "name": ..., "input": {...}}``
(ids are assigned here, unique per server). Responses are streamed as Anthropic SSE events.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

from http_helpers import LocalServer, QuietHandler

Decide = Callable[[dict[str, Any]], list[dict[str, Any]]]
_ids = itertools.count(1)


def last_user_text(body: dict[str, Any]) -> str:
    msgs = body.get("messages") or []
    for m in reversed(msgs):
        if m.get("role") != "user":
            continue
        c = m.get("content")
        if isinstance(c, str):
            return c
        return "\n".join(b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text")
    return ""


def all_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("messages") or [])


def tool_results(body: dict[str, Any]) -> list[str]:
    msgs = body.get("messages") or []
    if not msgs or msgs[-1].get("role") != "user" or isinstance(msgs[-1].get("content"), str):
        return []
    return [b.get("tool_use_id") for b in msgs[-1]["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


class FakeAnthropic(LocalServer):
    def __init__(self, decide: Decide, prefix: str = "e2e", usage: int | Callable[[int], int] = 100) -> None:
        """``usage``: input tokens reported, or a function of the request number (from 1). A
        ``{"type": "error", "status": N}`` block from ``decide`` answers with that HTTP error."""
        self.decide = decide
        self.usage = usage
        self.prefix = prefix
        self.requests: list[dict[str, Any]] = []
        self.tool_ids: list[str] = []
        outer = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self.send_json(200, {})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                raw = self.read_body()
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                if "count_tokens" in self.path:
                    self.send_json(200, {"input_tokens": 100})
                    return
                if not self.path.startswith("/v1/messages"):
                    self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                    return
                outer.requests.append(body)
                blocks = outer.decide(body)
                if blocks and blocks[0]["type"] == "error":
                    self.send_json(blocks[0]["status"], {"type": "error", "error": {
                        "type": "invalid_request_error", "message": blocks[0].get("message", "bad request")}})
                    return
                for b in blocks:
                    if b["type"] == "tool_use" and "id" not in b:
                        b["id"] = f"toolu_{outer.prefix}_{next(_ids):04d}"
                        outer.tool_ids.append(b["id"])
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                mid = f"msg_{outer.prefix}_{next(_ids):04d}"
                model = body.get("model", "claude-test")
                used = outer.usage(len(outer.requests)) if callable(outer.usage) else outer.usage
                usage = {"input_tokens": used, "output_tokens": 20, "cache_read_input_tokens": 0,
                         "cache_creation_input_tokens": 0}
                if not body.get("stream"):
                    content = [dict(b) for b in blocks]
                    self.send_json(200, {"id": mid, "type": "message", "role": "assistant", "model": model,
                                     "content": content, "stop_reason": stop, "stop_sequence": None,
                                     "usage": usage})
                    return
                events: list[tuple[str, dict[str, Any]]] = [("message_start", {
                    "type": "message_start",
                    "message": {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
                                "stop_reason": None, "stop_sequence": None,
                                "usage": {**usage, "output_tokens": 1}}})]
                for i, b in enumerate(blocks):
                    if b["type"] == "text":
                        events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                               "content_block": {"type": "text", "text": ""}}))
                        events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                               "delta": {"type": "text_delta", "text": b["text"]}}))
                    else:
                        events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                               "content_block": {"type": "tool_use", "id": b["id"],
                                                                                 "name": b["name"], "input": {}}}))
                        events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                               "delta": {"type": "input_json_delta",
                                                                         "partial_json": json.dumps(b["input"])}}))
                    events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
                events.append(("message_delta", {"type": "message_delta",
                                                 "delta": {"stop_reason": stop, "stop_sequence": None},
                                                 "usage": {"output_tokens": 20}}))
                events.append(("message_stop", {"type": "message_stop"}))
                payload = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.serve(Handler)

