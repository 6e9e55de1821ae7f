"""What a search returned, in short, for the local trajectory views only.

A trajectory answers "did the search move the task along?", so the local store keeps, per search,
how many lines came back and the first of them (at most 2 KiB). This is tool output: it is
scrubbed by the daemon and kept by the local sink only; ``make_safe`` never lets it reach any
other sink (it is not in a record's allow-list), and ``[privacy] local_results = false`` stops
it being queued at all.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PREVIEW_LIMIT = 2048
# where the harnesses put a tool's text: Claude Code stdout, Codex output, Pi/MCP content blocks,
# search tools' results lists, Hermes result
_TEXT_KEYS = ("stdout", "output", "content", "results", "result", "text", "title", "snippet", "url")


def _texts(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 4 or sum(len(s) for s in out) > 4 * PREVIEW_LIMIT:
        return
    if isinstance(value, str):
        if value.strip():
            out.append(value)
    elif isinstance(value, list):
        for item in value[:50]:
            _texts(item, out, depth + 1)
    elif isinstance(value, dict):
        for key in _TEXT_KEYS:
            if key in value:
                _texts(value[key], out, depth + 1)


def _lines(text: str) -> int:
    """Non-blank lines: exact up to 64 KiB, estimated in C above (blank runs counted once)."""
    if len(text) <= 65536:
        return sum(1 for line in text.splitlines() if line.strip())
    return text.count("\n") + (0 if text.endswith("\n") else 1) - text.count("\n\n")


def summary(response: Any) -> dict[str, Any] | None:
    """``{"lines": n, "preview": first lines}``; None when the response holds no text."""
    out: list[str] = []
    _texts(response, out)
    if not out:
        return None
    # Counted on the whole output (str.count runs in C); split only a head of it, so a huge
    # output costs the hook no more than a small one.
    count = sum(_lines(text) for text in out)
    head = [line for text in out for line in text[: 2 * PREVIEW_LIMIT].splitlines() if line.strip()]
    preview = "\n".join(head)
    if len(preview) > PREVIEW_LIMIT:
        cut = preview[:PREVIEW_LIMIT]
        preview = cut.rsplit("\n", 1)[0] if "\n" in cut else cut
    return {"lines": max(count, len(head)), "preview": preview}
