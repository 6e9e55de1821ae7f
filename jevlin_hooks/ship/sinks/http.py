"""What the HTTP sinks share: one pooled client, a bounded POST, and what an answer means.

An answer is read with a size cap on the bytes received and on the bytes they decompress to
(a gzip bomb is an error for that attempt, not a few GiB of memory), and classified the same way
for every sink (:func:`classify`):

- 2xx: delivered, whatever the body says (a body the sink cannot read is still a success);
- 3xx, 401, 403, 404, 405, 407, 410, 415, 422, 426: the configuration is wrong: hold the whole
  queue, quarantine nothing, and say which key to change;
- 413 and any other 4xx: the batch as a whole was refused: send the halves (the daemon keeps
  splitting, and quarantines a record only when it is refused alone while others go through);
- 408, 425, 429, 5xx, network errors: retry later, honouring Retry-After (at least 1 s).
"""

from __future__ import annotations

import gzip
import ipaddress
import json
import time
import zlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from jevlin_hooks import __version__
from jevlin_hooks.base import redact
from jevlin_hooks.ship import codec
from jevlin_hooks.ship.sinks import RETRYABLE, Result, parse_retry_after

TIMEOUT = httpx.Timeout(30.0, connect=5.0)
MAX_RESPONSE_BYTES = 1 << 20  # our servers answer a few bytes; anything near this is wrong
DEADLINE_S = 120.0  # a server trickling its answer byte by byte does not hold a send forever


@dataclass
class Reply:
    status: int
    headers: httpx.Headers
    body: bytes | None  # decoded; None when unreadable (an encoding we do not speak, corrupt gzip)


def client() -> httpx.Client:
    return httpx.Client(timeout=TIMEOUT, headers={"User-Agent": f"jevlin-hooks/{__version__}",
                                                  "Accept-Encoding": "gzip"},
                        follow_redirects=False, trust_env=False)


def inert(text: str, limit: int = 300) -> str:
    """Server-supplied text made safe to print: control characters shown escaped, one line."""
    text = text[:limit]
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                   for c in text)


class _TooLarge(Exception):
    pass


def _decode(raw: bytes, encoding: str) -> bytes | None:
    for enc in reversed([e.strip().lower() for e in encoding.split(",") if e.strip()]):
        if enc == "identity":
            continue
        if enc not in ("gzip", "x-gzip", "deflate"):
            return None
        for wbits in ((47,) if enc != "deflate" else (15, -15)):  # 47: gzip or zlib header
            d = zlib.decompressobj(wbits)
            try:
                out = d.decompress(raw, MAX_RESPONSE_BYTES + 1)
            except zlib.error:
                continue
            if len(out) > MAX_RESPONSE_BYTES or d.unconsumed_tail:
                raise _TooLarge()
            raw = out
            break
        else:
            return None
    return raw


def where(url: str) -> str:
    """The endpoint as it may be shown: no password, no query value (base/redact.py)."""
    return inert(redact.endpoint(url), 200)


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def endpoint_problem(url: str, secret: str | None) -> str | None:
    """Why this endpoint must not be used (one line naming the key to change), or None.
    ``secret`` names the credential the sink would send with it (an api key, headers)."""
    if not url:
        return "[ship] endpoint is empty: set it to the URL to send to"
    try:
        u = urlsplit(url)
        host = u.hostname or ""
    except ValueError:
        return "[ship] endpoint is not a URL: set it to https://..."
    if u.scheme not in ("http", "https") or not host:
        return "[ship] endpoint must start with https:// (http:// only for this machine)"
    if u.scheme == "http" and not _loopback(host) and (secret or u.username or u.password):
        what = secret or "the credentials in [ship] endpoint"
        return f"refusing to send {what} over plain http:// to {inert(host, 100)}: use https:// in [ship] endpoint"
    return None


def compress(data: bytes) -> bytes:
    """gzip at level 1: most of the size win for a third of level 5's CPU (records are repetitive
    JSON). ISA-L (isal) writes the same format at the same ratio ten times faster (0.12 vs 1.5 ms
    a 1 MiB batch): it was 7% of the daemon's CPU per record draining a backlog. The standard
    library where it has no wheel."""
    try:
        from isal import igzip
    except ImportError:  # pragma: no cover - platforms without an isal wheel
        return gzip.compress(data, compresslevel=1)
    out: bytes = igzip.compress(data, compresslevel=1)
    return out


def post(http: httpx.Client, url: str, data: bytes, headers: dict[str, str], content_type: str) -> Reply | Result:
    """POST ``data`` gzipped; the answer read within the caps. A Result means no usable answer."""
    if any(ord(c) < 32 or ord(c) == 127 for v in headers.values() for c in v):
        return _bad_chars()
    body = compress(data)
    deadline = time.monotonic() + DEADLINE_S
    try:
        with http.stream("POST", url, content=body, headers={**headers, "Content-Type": content_type,
                                                             "Content-Encoding": "gzip"}) as resp:
            raw = bytearray()
            for chunk in resp.iter_raw():
                raw += chunk
                if len(raw) > MAX_RESPONSE_BYTES:
                    return Result(retry=True, error=f"HTTP {resp.status_code}: answer over "
                                                    f"{MAX_RESPONSE_BYTES >> 20} MiB, not read")
                if time.monotonic() > deadline:
                    return Result(retry=True, error=f"HTTP {resp.status_code}: answer took over {DEADLINE_S:.0f} s")
            try:
                decoded = _decode(bytes(raw), resp.headers.get("Content-Encoding", ""))
            except _TooLarge:
                return Result(retry=True, error=f"HTTP {resp.status_code}: answer over "
                                                f"{MAX_RESPONSE_BYTES >> 20} MiB once decompressed, not read")
            return Reply(resp.status_code, resp.headers, decoded)
    except httpx.HTTPError as exc:  # connect errors, resets, timeouts: all retried later
        return Result(retry=True, error=f"{type(exc).__name__}: {inert(redact.urls_in(str(exc)), 200)}")
    except (httpx.InvalidURL, UnicodeError):
        return _bad_chars()


def _bad_chars() -> Result:
    return Result(retry=True, hold="[ship] endpoint, api_key or headers hold characters HTTP cannot carry "
                                   "(a line break, a control character, non-ASCII): fix them in config.toml")


def post_json(http: httpx.Client, url: str, body: Any, headers: dict[str, str]) -> Reply | Result:
    return post(http, url, codec.dumps(body), headers, "application/json")


def json_object(reply: Reply) -> dict[str, Any] | None:
    """The answer's body as a JSON object, or None (empty, not JSON, not an object)."""
    if not reply.body:
        return None
    try:
        body = json.loads(reply.body)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


_CONFIG = {
    401: "not authenticated: set {auth} to a valid key",
    403: "forbidden: the key in {auth} has no access to this endpoint; use one that has",
    404: "no such endpoint: check the URL in [ship] endpoint",
    405: "that URL does not take POST: check the path in [ship] endpoint",
    407: "a proxy wants authentication: [ship] endpoint points at a proxy, not the server",
    410: "the endpoint is gone: check the URL in [ship] endpoint",
    415: "the server does not take this format: check {fmt}",
    422: "the server cannot read what we send: check that [ship] endpoint is an API that {fmt} speaks",
    426: "the server wants another protocol: use https:// in [ship] endpoint",
}


def classify(reply: Reply, url: str, auth: str = "[ship] api_key", fmt: str = "[ship] sink") -> Result | None:
    """None for a 2xx; otherwise what the answer means for the batch (see the module doc)."""
    code = reply.status
    if 200 <= code < 300:
        return None
    detail = inert(redact.urls_in(reply.body.decode("utf-8", "replace").replace("\n", " "))) if reply.body else ""
    error = f"HTTP {code}" + (f": {detail}" if detail else "")
    if 300 <= code < 400:
        loc = reply.headers.get("Location")
        to = f" to {inert(redact.endpoint(loc), 200)}" if loc else ""
        return Result(retry=True, error=error, hold=f"{where(url)} answers HTTP {code}, a redirect{to}: set [ship] "
                                                     "endpoint to the final URL (redirects are not followed, so a key "
                                                     "never goes anywhere else)")
    if code in _CONFIG:
        return Result(retry=True, error=error,
                      hold=f"{where(url)} answers HTTP {code}, " + _CONFIG[code].format(auth=auth, fmt=fmt))
    if code in RETRYABLE or code >= 500 or code < 200:
        return Result(retry=True, retry_after=parse_retry_after(reply.headers.get("Retry-After")), error=error)
    return Result(split=True, error=error)
