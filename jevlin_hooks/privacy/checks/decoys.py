"""Public values that the credential and address rules would otherwise take: what each is, told
from its own shape and what the text says around it (issue 28, precision).

* a digest under a name: ``node-modules-<64 hex>``, ``Linux-pip-<40 hex>`` (a CI cache key, an
  artefact named for its content's hash): the digest is public, as a bare one is;
* a Twilio account SID (``AC`` + 32 hex): the account's public id, in every API URL; the auth
  token beside it is the secret (twilio-key takes the API key SIDs, SK...);
* a namespaced id under a key that only hints: ``key=sku:IU-4783-24``, ``cache_key: user:1234``
  (a cache's or a store's key, short after its namespace; a long random rest stays a candidate);
* a Sentry DSN's public key (``https://<32 hex>@o123.ingest.sentry.io/456``): public by Sentry's
  documentation, served in every page that reports errors; a DSN with a secret part
  (``https://<key>:<secret>@...``) still loses the secret (url-credentials);
* the data of a Kubernetes manifest of another kind (a ConfigMap's ``RELEASE: <sha>``, its
  ``binaryData``) in a text that also holds a Secret: only the Secret's document (between
  ``---`` lines) holds secrets;
* the content of a site-verification ``<meta>`` (``google-site-verification``,
  ``msvalidate.01``, ``facebook-domain-verification``): served in the page it verifies;
* a server's address as the tools that connect print it (curl's ``Connected to host (IP)`` and
  ``Trying IP:port``, ssh_config ``HostName IP``, WireGuard ``Endpoint = IP:port``, ping's
  ``PING host (IP)``, host/dig ``has address IP``, ``IN A IP``, nginx ``proxy_pass``/``server``
  in an upstream): a machine's, no one's.
"""

from __future__ import annotations

import re

_NAMED_DIGEST = re.compile(r"(?:[A-Za-z][A-Za-z0-9]*[-_.]){1,6}(?:[0-9a-f]{40}|[0-9a-f]{64})")
_ACCOUNT_SID = re.compile(r"AC[0-9a-f]{32}")
_NAMESPACED_ID = re.compile(r"[a-z][a-z0-9_\-]{1,24}:[A-Za-z0-9][A-Za-z0-9_.\-]{0,19}")
_SENTRY_AFTER = re.compile(r"@[A-Za-z0-9.\-]*(?:sentry|ingest)[A-Za-z0-9.\-]*(?::\d+)?/(?:api/)?\d+(?:[/\s\"'`,;)\]}]|$)")
_HEX32 = re.compile(r"[0-9a-f]{32}")
_SERVER_BEFORE = re.compile(
    r"(?i)(?:\bconnected to [^\s()]+ \(|\btrying |^[ \t]*hostname[ \t]+|^[ \t]*endpoint[ \t]*=[ \t]*|\bping [^\s()]+ \("
    r"|\bhas address |\bin[ \t]+a[ \t]+|\bproxy_pass[ \t]+https?://|^[ \t]*server[ \t]+)$", re.MULTILINE)


def named_digest(value: str) -> bool:
    """A name then a hex digest of 40 or 64 digits (node-modules-<sha256>), or a Twilio account SID."""
    return _NAMED_DIGEST.fullmatch(value) is not None or _ACCOUNT_SID.fullmatch(value) is not None


def namespaced_id(value: str) -> bool:
    """A short id under a namespace: sku:IU-4783-24, user:1234, order:B0MEAX8SH6."""
    return _NAMESPACED_ID.fullmatch(value) is not None


def sentry_public_key(text: str, start: int, end: int) -> bool:
    """Whether the URL user name at [start, end) is a Sentry DSN's public key (32 hex, then @ a
    Sentry host and a numeric project id, no secret part)."""
    return _HEX32.fullmatch(text, start, end) is not None and _SENTRY_AFTER.match(text, end) is not None


def server_address(text: str, start: int) -> bool:
    """Whether the address at ``start`` follows what a tool prints before a server's address."""
    ls = text.rfind("\n", 0, start) + 1
    return _SERVER_BEFORE.search(text[max(ls, start - 80):start]) is not None


_DOC_BREAK = re.compile(r"(?m)^---[ \t]*\r?$")


def other_manifest(lower: str, start: int, secret_kinds: tuple[str, ...]) -> bool:
    """Whether the YAML document holding ``start`` (between --- lines) has a kind, and it is no Secret."""
    s = 0
    for b in _DOC_BREAK.finditer(lower, 0, start):
        s = b.end()
    after = _DOC_BREAK.search(lower, start)
    doc = lower[s:after.start() if after else len(lower)]
    return "kind:" in doc and not any(k in doc for k in secret_kinds)


_VERIFICATION = re.compile(r"(?i)<meta[^<>]*\bname=[\"']?[^\"'<>]*(?:verification|verify|validate)[^<>]*$")


def site_verification(text: str, start: int) -> bool:
    """Whether the value at ``start`` is the content of a site-verification <meta> tag."""
    return _VERIFICATION.search(text, max(0, start - 200), start) is not None
