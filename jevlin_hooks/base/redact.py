"""An endpoint as it may be shown: `config show`, `status`, `doctor`, the logs.

``[ship] endpoint`` (and the OTEL_EXPORTER_OTLP_* variables) may carry a credential: a token in
the query string (``?api_key=...``), a password in ``user:password@host`` (with or without a
scheme), a token as the user name (``https://TOKEN@host``). Every place that shows or logs an
endpoint passes it through :func:`endpoint`; text that may quote one (an HTTP library's error
message, a redirect's ``Location``) goes through :func:`urls_in`. Values become ``***``; names
(the scheme, host, port, path, query keys) stay, so the user still sees which endpoint it is.
Written without ``urllib``: its parser reads ``user:pw@host`` as a scheme ``user``.
"""

from __future__ import annotations

MASK = "***"
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.")


def _query(q: str) -> str:
    """Every value of a query string (or fragment) masked; a bare token (no ``=``) is a value."""
    parts = []
    for part in q.replace(";", "&").split("&"):
        if not part:
            continue
        name, eq, _ = part.partition("=")
        parts.append(f"{name}={MASK}" if eq else MASK)
    return "&".join(parts)


def endpoint(url: str) -> str:
    """``url`` with the password of its user info, a lone user name, every query value and the
    fragment masked: ``https://u:***@h/p?token=***``, ``u:***@h:5432/db``, ``https://***@h/``."""
    rest = url.strip()
    head = ""
    sep = rest.find("://")
    if sep > 0 and rest[0].isalpha() and all(c in _SCHEME_CHARS for c in rest[:sep]):
        head, rest = rest[: sep + 3], rest[sep + 3:]
    # The authority ends at the first /, ? or #; a user info ends at its last @ (a password may
    # hold an unencoded @).
    end = len(rest)
    for c in "/?#":
        i = rest.find(c)
        if 0 <= i < end:
            end = i
    authority, tail = rest[:end], rest[end:]
    at = authority.rfind("@")
    if at >= 0:
        user, colon, _ = authority[:at].partition(":")
        authority = (f"{user}:{MASK}" if colon else MASK) + authority[at:]
    path, hash_, fragment = tail.partition("#")
    path, qmark, query = path.partition("?")
    out = head + authority + path
    if qmark:
        out += "?" + _query(query)
    if hash_:
        out += "#" + (MASK if fragment else "")
    return out


def urls_in(text: str) -> str:
    """``text`` with every URL-like word in it (``scheme://...``, ``user:pw@host``, or a path
    with a query, as a server's error page may echo the request) shown as :func:`endpoint` shows
    it."""
    if "://" not in text and "@" not in text and "?" not in text:
        return text
    import re

    return re.sub(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+|[^\s'\"<>/@:]+:[^\s'\"<>/]*@[^\s'\"<>]+"
                  r"|[^\s'\"<>?]*\?[^\s'\"<>]*=[^\s'\"<>]*",
                  lambda m: endpoint(m.group(0)), text)
