"""What the HTTP sinks share: one pooled client, and turning a response into a Result."""

from __future__ import annotations

import gzip
from typing import Any

import httpx

from jevlin_hooks import __version__
from jevlin_hooks.ship import codec
from jevlin_hooks.ship.sinks import RETRYABLE, Result, parse_retry_after

TIMEOUT = httpx.Timeout(30.0, connect=5.0)


def client() -> httpx.Client:
    return httpx.Client(timeout=TIMEOUT, headers={"User-Agent": f"jevlin-hooks/{__version__}"},
                        follow_redirects=False, trust_env=False)


def post_json(http: httpx.Client, url: str, body: Any, headers: dict[str, str]) -> httpx.Response | Result:
    # level 1: most of the size win for a third of level 5's CPU (records are repetitive JSON)
    data = gzip.compress(codec.dumps(body), compresslevel=1)
    try:
        return http.post(url, content=data, headers={**headers, "Content-Type": "application/json",
                                                      "Content-Encoding": "gzip"})
    except httpx.HTTPError as exc:  # connect errors, resets, timeouts: all retried later
        return Result(retry=True, error=f"{type(exc).__name__}: {str(exc)[:200]}")


def failure(resp: httpx.Response, ids: list[str]) -> Result:
    """A non-2xx answer: retried later (408, 429, 5xx) or refused for good (other 4xx)."""
    detail = resp.text[:300].replace("\n", " ") if resp.content else ""
    error = f"HTTP {resp.status_code}" + (f": {detail}" if detail else "")
    if resp.status_code in RETRYABLE or resp.status_code >= 500:
        return Result(retry=True, retry_after=parse_retry_after(resp.headers.get("Retry-After")), error=error)
    return Result(rejected={rid: error for rid in ids}, error=error)
