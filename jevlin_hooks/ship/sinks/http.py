"""What the HTTP sinks share: one pooled client, a bounded POST, and what an answer means.

Every request has one deadline for the whole exchange (``[ship] timeout_s``, 120 s by default):
connecting, sending, the answer's status line and headers, and its body. Each read and write on
the socket waits at most until that deadline (:class:`_DeadlineBackend`), so a collector that
trickles its headers a byte at a time, or answers ``100 Continue`` forever, does not pin delivery:
the request fails at its deadline and is retried later.

An answer is read with a size cap on the bytes received and on the bytes they decompress to
(a gzip bomb costs at most 1 MiB of memory), and classified the same way for every sink by its
status alone (:func:`classify`):

- 2xx: delivered, whatever the body (over the cap, a gzip bomb, cut off at the deadline, not JSON):
  the records are never sent again; a body the sink cannot read only loses its details;
- 3xx, 401, 403, 404, 405, 407, 410, 415, 422, 426: the configuration is wrong: hold the whole
  queue, quarantine nothing, and say which key to change;
- 413 and any other 4xx: the batch as a whole was refused: send the halves (the daemon keeps
  splitting, and quarantines a record only when it is refused alone while others go through);
- 408, 425, 429, 5xx, network errors, no answer by the deadline: retry later, honouring
  Retry-After (at least 1 s).
"""

from __future__ import annotations

import gzip
import ipaddress
import json
import ssl
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from jevlin_hooks import __version__
from jevlin_hooks.base import redact
from jevlin_hooks.ship import codec
from jevlin_hooks.ship.sinks import RETRYABLE, Result, parse_retry_after

TIMEOUT = httpx.Timeout(30.0, connect=5.0)  # each step; the deadline bounds them all
MAX_RESPONSE_BYTES = 1 << 20  # our servers answer a few bytes; anything near this is wrong
DEADLINE_S = 120.0  # [ship] timeout_s when the config does not say


@dataclass
class Reply:
    status: int
    headers: httpx.Headers
    body: bytes | None  # decoded; None when unreadable (over the cap, cut off, an encoding we do not speak)


class _Deadline(threading.local):
    at: float | None = None  # time.monotonic() by which the request in this thread must be done


def _left(deadline: _Deadline, timeout: float | None, late: type[Exception]) -> float | None:
    """``timeout`` for one socket operation, cut to what is left of the request's deadline."""
    at = deadline.at
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise late("the answer deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    """A socket whose every read and write waits at most until the request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: _Deadline) -> None:
        self.inner = inner
        self.deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _left(self.deadline, timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, _left(self.deadline, timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        left = _left(self.deadline, timeout, httpcore.ConnectTimeout)
        return _Stream(self.inner.start_tls(ssl_context, server_hostname, left), self.deadline)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend, deadline: _Deadline) -> None:
        self.inner = inner
        self.deadline = deadline

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        left = _left(self.deadline, timeout, httpcore.ConnectTimeout)
        return _Stream(self.inner.connect_tcp(host, port, left, local_address, socket_options), self.deadline)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore.NetworkStream:
        left = _left(self.deadline, timeout, httpcore.ConnectTimeout)
        return _Stream(self.inner.connect_unix_socket(path, left, socket_options), self.deadline)

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class Client:
    """An httpx client whose every request is bounded by one deadline (``timeout_s``)."""

    def __init__(self, timeout_s: float | None = None, tls: bool = True) -> None:
        self.timeout_s = max(1.0, float(DEADLINE_S if timeout_s is None else timeout_s))
        self.deadline = _Deadline()
        # An http:// endpoint (a collector on localhost) never does TLS: loading the CA bundle
        # cost 50 ms of CPU at each start. The context it gets instead verifies as strictly and
        # trusts no certificate at all, so that were it ever used, every handshake would fail.
        transport = httpx.HTTPTransport(trust_env=False, verify=True if tls else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
        pool = transport._pool
        # httpcore takes a network backend at construction only; httpx does not pass one through
        pool._network_backend = _DeadlineBackend(pool._network_backend, self.deadline)
        self.http = httpx.Client(timeout=TIMEOUT, transport=transport, follow_redirects=False, trust_env=False,
                                 headers={"User-Agent": f"jevlin-hooks/{__version__}", "Accept-Encoding": "gzip"})

    def close(self) -> None:
        self.http.close()


def client(timeout_s: float | None = None, url: str = "") -> Client:
    """A client for requests to ``url`` (its scheme: an http:// one loads no CA bundle)."""
    return Client(timeout_s, tls=not url.lower().startswith("http://"))


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
    library's where isal has no wheel (pyproject.toml asks for it only where one exists): the same
    format, which the receiver reads the same (tests/test_platform_fallbacks.py)."""
    try:
        from isal import igzip
    except ImportError:  # no isal for this platform (Windows on ARM): docs/platforms.md
        return gzip.compress(data, compresslevel=1)
    out: bytes = igzip.compress(data, compresslevel=1)
    return out


def post(http: Client, url: str, data: bytes, headers: dict[str, str], content_type: str) -> Reply | Result:
    """POST ``data`` gzipped; the answer read within the caps and the deadline. A Result means
    no answer came (the status line and headers not complete by the deadline, a network error)."""
    if any(ord(c) < 32 or ord(c) == 127 for v in headers.values() for c in v):
        return _bad_chars()
    body = compress(data)
    http.deadline.at = time.monotonic() + http.timeout_s
    try:
        with http.http.stream("POST", url, content=body, headers={**headers, "Content-Type": content_type,
                                                                  "Content-Encoding": "gzip"}) as resp:
            return Reply(resp.status_code, resp.headers, _read_body(resp))
    except httpx.HTTPError as exc:  # connect errors, resets, timeouts: all retried later
        if http.deadline.at is not None and time.monotonic() >= http.deadline.at:
            return Result(retry=True, error=f"no answer within {http.timeout_s:.0f} s ([ship] timeout_s); "
                                            f"{type(exc).__name__}")
        return Result(retry=True, error=f"{type(exc).__name__}: {inert(redact.urls_in(str(exc)), 200)}")
    except (httpx.InvalidURL, UnicodeError):
        return _bad_chars()
    finally:
        http.deadline.at = None


def _read_body(resp: httpx.Response) -> bytes | None:
    """The answer's body, decoded, or None: over the cap (received or decompressed), cut off (a
    network error, the deadline), or in an encoding we do not read. The status is what counts."""
    raw = bytearray()
    try:
        for chunk in resp.iter_raw():
            raw += chunk
            if len(raw) > MAX_RESPONSE_BYTES:
                return None  # not read further: leaving the block closes the connection
    except httpx.HTTPError:
        return None
    try:
        return _decode(bytes(raw), resp.headers.get("Content-Encoding", ""))
    except _TooLarge:
        return None


def _bad_chars() -> Result:
    return Result(retry=True, hold="[ship] endpoint, api_key or headers hold characters HTTP cannot carry "
                                   "(a line break, a control character, non-ASCII): fix them in config.toml")


def post_json(http: Client, url: str, body: Any, headers: dict[str, str]) -> Reply | Result:
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
