"""A scripted OpenAI Responses API on 127.0.0.1 for driving the real Codex offline.

``decide(request_body) -> list[item]``: items are ``{"type": "message", "text": ...}`` or
``{"type": "function_call", "name": "exec_command", "arguments": {...}}`` (call ids are assigned
here, unique per server). Answers stream as SSE: response.created, output_item.added/done,
output_text.delta, response.completed with usage.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

from http_helpers import LocalServer, QuietHandler

_ids = itertools.count(1)


def input_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("input") or [])


def last_user_text(body: dict[str, Any]) -> str:
    for item in reversed(body.get("input") or []):
        if item.get("type") == "message" and item.get("role") == "user":
            return "".join(c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict))
    return ""


def function_outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The function_call_output items after the last user message (this turn's tool results)."""
    items = body.get("input") or []
    out = []
    for item in reversed(items):
        if item.get("type") == "message" and item.get("role") == "user":
            break
        if item.get("type") == "function_call_output":
            out.append(item)
    return list(reversed(out))


class FakeResponses(LocalServer):
    def __init__(self, decide: Callable[[dict[str, Any]], list[dict[str, Any]]], prefix: str = "cx",
                 usage: int | Callable[[int], int] = 100) -> None:
        """``usage``: input tokens reported, or a function of the request number (from 1)."""
        self.decide = decide
        self.prefix = prefix
        self.usage = usage
        self.requests: list[dict[str, Any]] = []
        self.call_ids: list[str] = []
        outer = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self.send_json(200, {"data": [], "models": []})

            def do_POST(self) -> None:
                raw = self.read_body()
                if self.headers.get("Content-Encoding") == "zstd":
                    raw = b"{}"
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                outer.requests.append(body)
                items = outer.decide(body)
                rid = f"resp_{outer.prefix}_{next(_ids)}"
                events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": rid}}]
                for i, it in enumerate(items):
                    if it["type"] == "message":
                        mid = f"msg_{outer.prefix}_{next(_ids)}"
                        item = {"type": "message", "id": mid, "role": "assistant", "status": "completed",
                                "content": [{"type": "output_text", "text": it["text"], "annotations": []}]}
                        events.append({"type": "response.output_item.added", "output_index": i,
                                       "item": {**item, "content": [], "status": "in_progress"}})
                        events.append({"type": "response.output_text.delta", "item_id": mid, "output_index": i,
                                       "content_index": 0, "delta": it["text"]})
                        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
                    else:
                        cid = f"call_{outer.prefix}_{next(_ids):04d}"
                        outer.call_ids.append(cid)
                        item = {"type": "function_call", "id": f"fc_{cid}", "call_id": cid, "name": it["name"],
                                "arguments": json.dumps(it["arguments"]), "status": "completed"}
                        if it.get("namespace"):
                            item["namespace"] = it["namespace"]
                        events.append({"type": "response.output_item.added", "output_index": i, "item": item})
                        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
                u = outer.usage(len(outer.requests)) if callable(outer.usage) else outer.usage
                events.append({"type": "response.completed", "response": {
                    "id": rid, "usage": {"input_tokens": u, "input_tokens_details": {"cached_tokens": 0},
                                         "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                                         "total_tokens": u + 20}}})
                payload = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.serve(Handler, '/v1')

