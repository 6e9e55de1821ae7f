"""The Jevlin platform's JSON API.

``POST {endpoint}`` with ``{"records": [...]}`` (gzip), ``Authorization: Bearer <key>``.
2xx accepts the batch; a 2xx body ``{"rejected": [{"record_id", "reason"}]}`` refuses those
for good; 429/503 with Retry-After means later. ``record_id`` is the idempotency key. What any
other answer means is :func:`jevlin_hooks.ship.sinks.http.classify`.
"""

from __future__ import annotations

from typing import Any

from jevlin_hooks.ship import codec
from jevlin_hooks.ship.sinks import Result
from jevlin_hooks.ship.sinks.http import classify, client, endpoint_problem, inert, json_object, post

AUTH = "[ship] api_key (or JEVLIN_API_KEY)"


class JevlinSink:
    name = "jevlin"

    def __init__(self, endpoint: str, api_key: str, timeout_s: float | None = None) -> None:
        self.endpoint = endpoint
        self.api_key = api_key
        self.http = client(timeout_s, endpoint)
        self.timeout_s = self.http.timeout_s  # the answer deadline, shown by `status` while a request waits

    def send(self, records: list[dict[str, Any]]) -> Result:
        problem = endpoint_problem(self.endpoint, AUTH)
        if problem:
            return Result(retry=True, error=problem, hold=problem)
        if not self.api_key:
            msg = f"no API key: set {AUTH}"
            return Result(retry=True, error=msg, hold=msg)
        # Each record encoded alone: one that JSON cannot carry is refused alone, with its reason.
        parts: list[bytes] = []
        ids: list[str] = []
        rejected: dict[str, str] = {}
        for r in records:
            try:
                parts.append(codec.dumps_strict(r))
                ids.append(r["record_id"])
            except (TypeError, ValueError) as exc:
                rejected[r["record_id"]] = f"cannot be encoded as JSON: {type(exc).__name__}"
        if not parts:
            return Result(rejected=rejected)
        data = b'{"records":[' + b",".join(parts) + b"]}"
        reply = post(self.http, self.endpoint, data, {"Authorization": f"Bearer {self.api_key}"}, "application/json")
        if isinstance(reply, Result):
            return reply
        verdict = classify(reply, self.endpoint, AUTH)
        if verdict is not None:
            verdict.rejected.update(rejected)
            return verdict
        body = json_object(reply) or {}
        items = body.get("rejected")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("record_id") in ids:
                rejected[item["record_id"]] = inert(str(item.get("reason") or "rejected by the platform"))
        return Result(accepted=[i for i in ids if i not in rejected], rejected=rejected)

    def close(self) -> None:
        self.http.close()
