"""The Jevlin platform's JSON API.

``POST {endpoint}`` with ``{"records": [...]}`` (gzip), ``Authorization: Bearer <key>``.
2xx accepts the batch; a 2xx body ``{"rejected": [{"record_id", "reason"}]}`` refuses those
for good; 429/503 with Retry-After means later. ``record_id`` is the idempotency key.
"""

from __future__ import annotations

from typing import Any

from jevlin_hooks.ship.sinks import Result
from jevlin_hooks.ship.sinks.http import client, failure, post_json


class JevlinSink:
    name = "jevlin"

    def __init__(self, endpoint: str, api_key: str) -> None:
        self.endpoint = endpoint
        self.api_key = api_key
        self.http = client()

    def send(self, records: list[dict[str, Any]]) -> Result:
        ids = [r["record_id"] for r in records]
        if not self.endpoint:
            return Result(retry=True, error="[ship] endpoint is empty")
        if not self.api_key:
            return Result(retry=True, error="no API key ([ship] api_key or JEVLIN_API_KEY)")
        resp = post_json(self.http, self.endpoint, {"records": records}, {"Authorization": f"Bearer {self.api_key}"})
        if isinstance(resp, Result):
            return resp
        if not 200 <= resp.status_code < 300:
            return failure(resp, ids)
        rejected: dict[str, str] = {}
        try:
            body = resp.json() if resp.content else {}
        except ValueError:
            body = {}
        for item in (body.get("rejected") or []) if isinstance(body, dict) else []:
            if isinstance(item, dict) and item.get("record_id") in ids:
                rejected[item["record_id"]] = str(item.get("reason") or "rejected by the platform")
        return Result(accepted=[i for i in ids if i not in rejected], rejected=rejected)

    def close(self) -> None:
        self.http.close()
