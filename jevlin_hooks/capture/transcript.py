"""Reading a Claude Code transcript from its tail, bounded.

A transcript is JSONL that only grows (a long session reaches hundreds of MB). Everything here
reads backwards from the end in blocks and stops after ``MAX_SCAN`` bytes, so a 200 MB file
costs what a 2 KB one does. Lines are filtered by substring before they are parsed.
"""

from __future__ import annotations

import os

from jevlin_hooks.base import fastjson

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

MAX_SCAN = 8 << 20
BLOCK = 64 << 10
HISTORY_LIMIT = 32 * 1024


def lines_backwards(path: str, max_bytes: int = MAX_SCAN) -> Iterator[bytes]:
    """Complete lines from the end of ``path``, newest first, at most ``max_bytes`` read.

    Only a regular file is read: a FIFO, device, socket or directory raises OSError. The open
    itself must not block (O_NONBLOCK: opening a FIFO waits for a writer, forever), and the
    type is checked on the opened fd (fstat), not the name.
    """
    fd = open_regular(path)
    try:
        pos = os.lseek(fd, 0, os.SEEK_END)
        floor = max(0, pos - max_bytes)
        carry = b""
        first = True
        while pos > floor:
            size = min(BLOCK, pos - floor)
            pos -= size
            chunk = os.pread(fd, size, pos) + carry
            parts = chunk.split(b"\n")
            carry = parts[0]
            if first:
                first = False
                if parts[-1] != b"":
                    parts[-1] = b""  # a line still being written: not complete
            for line in reversed(parts[1:]):
                if line:
                    yield line
        if pos == 0 and carry:
            yield carry
    finally:
        os.close(fd)


def open_regular(path: str) -> int:
    """An fd on ``path`` if it is a regular file; OSError otherwise, without ever blocking."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if (mode & 0o170000) != 0o100000:
        os.close(fd)
        raise OSError(22, "not a regular file", path)
    return fd


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        obj = fastjson.loads(line.decode("utf-8", "replace"))
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _content(entry: dict[str, Any]) -> list[Any]:
    msg = entry.get("message")
    if not isinstance(msg, dict):
        return []
    content = msg.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _is_prompt(entry: dict[str, Any]) -> bool:
    """A user line that starts a turn, as opposed to one carrying tool results."""
    content = _content(entry)
    if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        return False
    # Claude Code's own marker after an interrupt is a user line in the same turn, not a prompt
    return not any(isinstance(b, dict) and isinstance(b.get("text"), str)
                   and b["text"].startswith("[Request interrupted by user") for b in content)


def _clip(texts: list[str]) -> str:
    joined = fastjson.valid_text("\n\n".join(t for t in texts if t))
    raw = joined.encode("utf-8")
    if len(raw) <= HISTORY_LIMIT:
        return joined
    return raw[-HISTORY_LIMIT:].decode("utf-8", "ignore")


def history(path: str, tool_use_id: str, max_bytes: int = MAX_SCAN, info: dict[str, Any] | None = None) -> str | None:
    """The assistant text written in this turn before the call ``tool_use_id``.

    None when the call is not in the transcript (yet): Claude Code flushes lazily. ``info``, when
    given, receives the model that made the call.
    """
    needle = tool_use_id.encode("utf-8")
    texts: list[str] = []  # newest first
    found = False
    try:
        for line in lines_backwards(path, max_bytes):
            if not found:
                if needle not in line or b'"assistant"' not in line:
                    continue
                entry = _parse(line)
                if entry is None or entry.get("type") != "assistant":
                    continue
                blocks = _content(entry)
                idx = next(
                    (i for i, b in enumerate(blocks)
                     if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == tool_use_id),
                    None,
                )
                if idx is None:
                    continue
                found = True
                model = (entry.get("message") or {}).get("model")
                if info is not None and isinstance(model, str) and model and not model.startswith("<"):
                    info["model"] = model
                for b in reversed(blocks[:idx]):
                    if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                        texts.append(b["text"])
                continue
            if b'"assistant"' in line:
                entry = _parse(line)
                # (a subagent's own transcript is all isSidechain lines: they count here)
                if entry and entry.get("type") == "assistant":
                    for b in reversed(_content(entry)):
                        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                            texts.append(b["text"])
            elif b'"user"' in line or b'"compact_boundary"' in line:
                entry = _parse(line)
                if entry is None:
                    continue
                if entry.get("subtype") == "compact_boundary":
                    break
                if entry.get("type") == "user" and _is_prompt(entry):
                    break
            if sum(len(t) for t in texts) > HISTORY_LIMIT:
                break
    except OSError:
        return None
    if not found:
        return None
    texts.reverse()
    return _clip(texts)


def turn_summary(path: str, turn_id: str | None, max_bytes: int = MAX_SCAN) -> dict[str, Any]:
    """Model, token usage and last assistant text of the turn ``turn_id``.

    One API response is written as several lines (one per content block) that repeat its
    usage, so each message id is counted once. Assistant lines carry no prompt id: they belong
    to the turn of the nearest user line above them, so they are held until that line is read.
    """
    seen: set[str] = set()
    tokens = {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0}
    model: str | None = None
    last_text: str | None = None
    held: list[dict[str, Any]] = []
    in_turn = False

    def commit() -> None:
        nonlocal model, last_text
        for msg in held:  # newest first
            if last_text is None:
                for b in reversed(msg.get("content") or []):
                    if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                        last_text = b["text"]
                        break
            m = msg.get("model")
            if model is None and isinstance(m, str) and m and not m.startswith("<"):
                model = m
            mid = msg.get("id")
            if not isinstance(mid, str) or mid in seen:
                continue
            seen.add(mid)
            usage = msg.get("usage")
            if isinstance(usage, dict):
                for key, src in (("input", "input_tokens"), ("output", "output_tokens"),
                                 ("cache_read", "cache_read_input_tokens"),
                                 ("cache_creation", "cache_creation_input_tokens")):
                    v = usage.get(src)
                    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
                        tokens[key] += v
        held.clear()

    try:
        for line in lines_backwards(path, max_bytes):
            if b'"assistant"' in line:
                entry = _parse(line)
                if entry and entry.get("type") == "assistant" and not entry.get("isSidechain"):
                    msg = entry.get("message")
                    if isinstance(msg, dict):
                        held.append(msg)
            elif b'"user"' in line and b'"promptId"' in line:
                entry = _parse(line)
                if not entry or entry.get("type") != "user" or entry.get("isSidechain"):
                    continue
                pid = entry.get("promptId")
                if not isinstance(pid, str):
                    continue
                if turn_id is None or pid == turn_id:
                    commit()
                    in_turn = True
                    if _is_prompt(entry):
                        break  # the turn's prompt: everything above belongs to earlier turns
                elif in_turn:
                    break
                else:
                    held.clear()
    except OSError:
        return {"found": False}
    return {"found": bool(seen), "model": model, "tokens": tokens, "last_text": last_text,
            "messages": len(seen)}


def subagent_path(transcript_path: str, session_id: str, agent_id: str) -> str:
    base = os.path.dirname(transcript_path)
    return os.path.join(base, session_id, "subagents", f"agent-{agent_id}.jsonl")


def _count(usage: dict[str, Any], key: str) -> int:
    v = usage.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0


def codex_turn_usage(path: str, turn_id: str | None, max_bytes: int = MAX_SCAN) -> dict[str, Any]:
    """A Codex turn's token usage from its rollout: the newest ``token_usage_record`` of the turn
    carries the turn's running total (``turn_token_usage``)."""
    if not turn_id:
        return {"found": False}
    needle = turn_id.encode("utf-8")
    try:
        for line in lines_backwards(path, max_bytes):
            if b'"token_usage_record"' not in line or needle not in line:
                continue
            entry = _parse(line)
            payload = (entry or {}).get("payload")
            if not isinstance(payload, dict) or payload.get("turn_id") != turn_id:
                continue
            usage = payload.get("turn_token_usage") or payload.get("usage")
            if not isinstance(usage, dict):
                continue

            return {"found": True, "tokens": {
                "input": _count(usage, "input_tokens"), "output": _count(usage, "output_tokens"),
                "cache_read": _count(usage, "cached_input_tokens"),
                "cache_creation": _count(usage, "cache_write_input_tokens")}}
    except OSError:
        pass
    return {"found": False}
