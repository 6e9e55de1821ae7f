"""A scripted Gemini API (generativelanguage v1beta) on 127.0.0.1 for driving the real Gemini CLI
offline (``GOOGLE_GEMINI_BASE_URL``; it has no OpenAI-compatible mode).

``decide(request_body) -> list[block]`` answers the main loop's requests (the ones that declare
functions: the agent's turns and a subagent's); blocks are ``{"text": ...}`` or ``{"call": name,
"args": {...}}``. What the CLI asks on the side is answered here: JSON-mode requests (its model
router and next-speaker check) with a fixed verdict, ``google_web_search``'s grounded request with
``web(query)``, and anything else without tools (a compression's summary and its verification)
with a ``<state_snapshot>``. ``usage(n)`` is the prompt token count reported for the n-th
main-loop answer (from 1): a large one makes the CLI compress before its next model call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from http_helpers import LocalServer, QuietHandler

Decide = Callable[[dict[str, Any]], list[dict[str, Any]]]
SUMMARY = "<state_snapshot>The user asked for searches; they were run.</state_snapshot>"


def declared(body: dict[str, Any]) -> list[str]:
    return [fd.get("name") for t in body.get("tools") or [] for fd in t.get("functionDeclarations") or []]


def since_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The contents after the last model turn: this request's new user text or tool results."""
    contents = body.get("contents") or []
    cut = max([i for i, c in enumerate(contents) if c.get("role") == "model"], default=-1)
    return contents[cut + 1:]


def new_text(body: dict[str, Any]) -> str:
    return "\n".join(p.get("text", "") for c in since_model(body) for p in c.get("parts") or [] if isinstance(p, dict))


def function_responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p["functionResponse"] for c in since_model(body) for p in c.get("parts") or []
            if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]


def all_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("contents") or [])


class FakeGemini(LocalServer):
    def __init__(self, decide: Decide, usage: Callable[[int], int] = lambda n: 100,
                 web: Callable[[str], str] = lambda q: f"Results for {q}: https://example.invalid/{len(q)}") -> None:
        self.decide = decide
        self.usage = usage
        self.web = web
        self.requests: list[dict[str, Any]] = []  # the main loop's, in order
        self.side: list[str] = []  # what each side request was: "json", "web", "summary"
        outer = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self.send_json(200, {})

            def do_POST(self) -> None:
                try:
                    body = json.loads(self.read_body() or b"{}")
                except ValueError:
                    body = {}
                if ":countTokens" in self.path:
                    self.send_json(200, {"totalTokens": 50})
                    return
                prompt = 100
                gen = body.get("generationConfig") or {}
                if gen.get("responseMimeType") == "application/json" or "responseJsonSchema" in gen:
                    outer.side.append("json")
                    parts = [{"text": json.dumps({"reasoning": "scripted", "next_speaker": "user",
                                                  "model_choice": "flash", "complexity_reasoning": "scripted",
                                                  "complexity_score": 1})}]
                elif any("googleSearch" in t for t in body.get("tools") or []):
                    outer.side.append("web")
                    query = new_text(body)
                    parts = [{"text": outer.web(query)}]
                elif not declared(body):
                    outer.side.append("summary")
                    parts = [{"text": SUMMARY}]
                else:
                    outer.requests.append(body)
                    prompt = outer.usage(len(outer.requests))
                    parts = []
                    for b in outer.decide(body):
                        if "call" in b:
                            parts.append({"functionCall": {"name": b["call"], "args": b.get("args", {})}})
                        else:
                            parts.append({"text": b["text"]})
                answer = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                          "index": 0}],
                          "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": 20,
                                            "totalTokenCount": prompt + 20},
                          "modelVersion": "scripted"}
                if ":streamGenerateContent" in self.path:
                    data = ("data: " + json.dumps(answer) + "\r\n\r\n").encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                else:
                    self.send_json(200, answer)

        self.serve(Handler)
