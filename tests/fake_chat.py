"""A scripted OpenAI Chat Completions API on 127.0.0.1 for driving the real Hermes Agent offline
(after shared/reference/hermes/harness/fake_chat.py, which captured the reference).

``SCRIPTS[tag]`` is a list of steps ``{"text", "tools": [{"name", "arguments"}], "usage"}``. The
newest user message holding ``[[tag]]`` picks the script; the step is the number of assistant
messages after it. Requests without ``tools`` (Hermes's auxiliary calls: titles, compression
summaries) get a plain answer. Streams SSE when asked to. Call ids are unique per server.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
import time
from typing import Any

from http_helpers import LocalServer, QuietHandler

BIG = {"prompt_tokens": 60000, "completion_tokens": 50, "total_tokens": 60050}
_TAG = re.compile(r"\[\[([a-z_]+)\]\]")


def shell(cmd: str) -> dict[str, Any]:
    return {"name": "terminal", "arguments": {"command": cmd}}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


class FakeChat(LocalServer):
    def __init__(self, scripts: dict[str, list[dict[str, Any]]]) -> None:
        self.scripts = scripts
        self.requests: list[dict[str, Any]] = []
        self.run = os.urandom(3).hex()
        self.ids = itertools.count(1)
        self.lock = threading.Lock()
        outer = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self.send_json(200, {"object": "list", "data": [
                        {"id": "fake-model", "object": "model", "owned_by": "fake", "context_length": 64000}]})
                else:
                    self.send_json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                try:
                    body = json.loads(self.read_body() or b"{}")
                except ValueError:
                    body = {}
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self.send_json(404, {"error": {"message": "not found"}})
                    return
                with outer.lock:
                    outer.requests.append(body)
                outer.answer(self, body)

        self.serve(Handler, "/v1")

    def pick(self, body: dict[str, Any]) -> dict[str, Any]:
        msgs = body.get("messages") or []
        if not body.get("tools"):
            everything = " ".join(_text(m.get("content")) for m in msgs).lower()
            if "summar" in everything or "compact" in everything:
                return {"text": "## Summary\nThe user asked for searches; the assistant ran jevlin search."}
            return {"text": "Fake session title" if "title" in everything else "ok"}
        for i in range(len(msgs) - 1, -1, -1):
            m = _TAG.search(_text(msgs[i].get("content"))) if msgs[i].get("role") == "user" else None
            if m:
                steps = self.scripts.get(m.group(1)) or [{"text": "No such script."}]
                step = sum(1 for x in msgs[i + 1:] if x.get("role") == "assistant")
                return steps[min(step, len(steps) - 1)]
        return {"text": "No scenario tag found."}

    def answer(self, h: QuietHandler, body: dict[str, Any]) -> None:
        step = self.pick(body)
        with self.lock:
            cid = f"chatcmpl-{self.run}-{next(self.ids)}"
            calls = [{"id": f"call_{self.run}_{next(self.ids):04d}", "type": "function",
                      "function": {"name": t["name"], "arguments": json.dumps(t["arguments"])}}
                     for t in step.get("tools", [])]
        usage = step.get("usage") or {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240}
        finish = "tool_calls" if calls else "stop"
        model = body.get("model") or "fake-model"
        text = step.get("text") or ""
        if not body.get("stream"):
            msg: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                msg["tool_calls"] = calls
            h.send_json(200, {"id": cid, "object": "chat.completion", "created": int(time.time()), "model": model,
                              "choices": [{"index": 0, "message": msg, "finish_reason": finish}], "usage": usage})
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Connection", "close")
        h.end_headers()

        def chunk(delta: dict[str, Any] | None, fin: str | None = None, use: dict[str, Any] | None = None) -> None:
            c: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                                 "model": model,
                                 "choices": [{"index": 0, "delta": delta, "finish_reason": fin}] if delta is not None else []}
            if use is not None:
                c["usage"] = use
            h.wfile.write(b"data: " + json.dumps(c).encode() + b"\n\n")

        chunk({"role": "assistant", "content": ""})
        if text:
            chunk({"content": text})
        for idx, c in enumerate(calls):
            chunk({"tool_calls": [{"index": idx, "id": c["id"], "type": "function",
                                   "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}}]})
        chunk({}, fin=finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            chunk(None, use=usage)
        h.wfile.write(b"data: [DONE]\n\n")
        h.wfile.flush()
        h.close_connection = True

    def call_ids(self) -> list[str]:
        """Every call id handed out, in order (the model's ids, as the records must carry them)."""
        out = []
        for body in self.requests:
            for m in body.get("messages") or []:
                for c in m.get("tool_calls") or []:
                    if c.get("id") not in out:
                        out.append(c["id"])
        return out
