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


def lines_backwards(path: str, max_bytes: int = MAX_SCAN, where: dict[str, int] | None = None) -> Iterator[bytes]:
    """Complete lines from the end of ``path``, newest first, at most ``max_bytes`` read.

    Only a regular file is read: a FIFO, device, socket or directory raises OSError. The open
    itself must not block (O_NONBLOCK: opening a FIFO waits for a writer, forever), and the
    type is checked on the opened fd (fstat), not the name. ``where``, when given, receives
    ``end`` (the offset just past the last complete line, or -1 when the newest block holds no
    line end) and ``read`` (bytes read so far).
    """
    fd = open_regular(path)
    try:
        pos = os.lseek(fd, 0, os.SEEK_END)
        floor = max(0, pos - max_bytes)
        carry = b""
        first = True
        if where is not None:
            where["end"] = -1 if pos else 0
            where["read"] = 0
        while pos > floor:
            size = min(BLOCK, pos - floor)
            pos -= size
            chunk = os.pread(fd, size, pos) + carry
            if where is not None:
                where["read"] += size
            parts = chunk.split(b"\n")
            carry = parts[0]
            if first:
                first = False
                if where is not None and len(parts) > 1:
                    where["end"] = pos + len(chunk) - len(parts[-1])
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


def _texts(blocks: list[Any]) -> list[str]:
    return [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]


def _call_index(blocks: list[Any], tool_use_id: str) -> int | None:
    return next((i for i, b in enumerate(blocks)
                 if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == tool_use_id), None)


def _boundary(line: bytes) -> bool | None:
    """True for a line that starts a turn or a context window (a prompt, a compaction), False
    for another user line, None for neither. Tool results are known without parsing."""
    if b'"compact_boundary"' not in line and (b'"user"' not in line or b'"tool_result"' in line):
        return None if b'"user"' not in line else False
    entry = _parse(line)
    if entry is None:
        return False
    return entry.get("subtype") == "compact_boundary" or (entry.get("type") == "user" and _is_prompt(entry))


class HistoryPoll:
    """The history of one call, asked again and again while Claude Code has not flushed it.

    The first ``poll`` reads the tail backwards, bounded (``history``), and keeps the text the
    current turn has written so far; each later one reads only the bytes appended since and
    goes on from there, so waiting for a lazy flush costs the new lines, not 8 MiB a poll.
    ``bytes_read`` counts what was read.
    """

    def __init__(self, path: str, tool_use_id: str, max_bytes: int = MAX_SCAN) -> None:
        self.path = path
        self.call = tool_use_id
        self.max_bytes = max_bytes
        self.end = -1  # just past the last complete line read; -1: read backwards next time
        self.texts: list[str] = []  # the current turn's text so far, oldest first
        self.bytes_read = 0
        self.info: dict[str, Any] = {}

    def poll(self) -> str | None:
        if self.end >= 0:
            try:
                return self._forward()
            except _Restart:
                pass
        return self._backwards()

    def _found(self, entry: dict[str, Any], before: list[str]) -> str:
        model = (entry.get("message") or {}).get("model")
        if isinstance(model, str) and model and not model.startswith("<"):
            self.info["model"] = model
        return _clip(before)

    def _backwards(self) -> str | None:
        needle = self.call.encode("utf-8")
        texts: list[str] = []  # newest first, from the call back to its turn's start
        tail: list[str] = []  # newest first, from the end back to the current turn's start
        tail_done = False
        found: dict[str, Any] | None = None
        where: dict[str, int] = {}
        try:
            for line in lines_backwards(self.path, self.max_bytes, where):
                if found is None:
                    if needle in line and b'"assistant"' in line:
                        entry = _parse(line)
                        blocks = _content(entry) if entry and entry.get("type") == "assistant" else []
                        idx = _call_index(blocks, self.call)
                        if idx is not None:
                            found = entry
                            texts += reversed(_texts(blocks[:idx]))
                            continue
                    if tail_done:
                        continue
                    if b'"assistant"' in line:
                        entry = _parse(line)
                        if entry and entry.get("type") == "assistant":
                            tail += reversed(_texts(_content(entry)))
                    elif _boundary(line):
                        tail_done = True
                    if sum(len(t) for t in tail) > HISTORY_LIMIT:
                        tail_done = True
                    continue
                if b'"assistant"' in line:
                    entry = _parse(line)
                    # (a subagent's own transcript is all isSidechain lines: they count here)
                    if entry and entry.get("type") == "assistant":
                        texts += reversed(_texts(_content(entry)))
                elif _boundary(line):
                    break
                if sum(len(t) for t in texts) > HISTORY_LIMIT:
                    break
        except OSError:
            return None
        finally:
            self.bytes_read += where.get("read", 0)
        if found is not None:
            texts.reverse()
            return self._found(found, texts)
        tail.reverse()
        self.texts = tail
        self.end = where.get("end", -1)
        return None

    def _forward(self) -> str | None:
        needle = self.call.encode("utf-8")
        try:
            fd = open_regular(self.path)
        except OSError:
            return None
        try:
            size = os.fstat(fd).st_size
            if size < self.end or size - self.end > self.max_bytes:
                raise _Restart()  # replaced or truncated, or more came than a backward read costs
            data = os.pread(fd, size - self.end, self.end) if size > self.end else b""
        finally:
            os.close(fd)
        self.bytes_read += len(data)
        last = data.rfind(b"\n")
        if last < 0:
            return None  # nothing new, or only a line still being written
        self.end += last + 1
        for line in data[:last].split(b"\n"):
            if not line:
                continue
            if b'"assistant"' in line:
                entry = _parse(line)
                if not entry or entry.get("type") != "assistant":
                    continue
                blocks = _content(entry)
                idx = _call_index(blocks, self.call) if needle in line else None
                if idx is not None:
                    return self._found(entry, self.texts + _texts(blocks[:idx]))
                self.texts += _texts(blocks)
                while len(self.texts) > 1 and sum(len(t) for t in self.texts[1:]) > HISTORY_LIMIT:
                    del self.texts[0]
            elif _boundary(line):
                self.texts = []
        return None


class _Restart(Exception):
    pass


def history(path: str, tool_use_id: str, max_bytes: int = MAX_SCAN, info: dict[str, Any] | None = None) -> str | None:
    """The assistant text written in this turn before the call ``tool_use_id``.

    None when the call is not in the transcript (yet): Claude Code flushes lazily. ``info``, when
    given, receives the model that made the call.
    """
    poll = HistoryPoll(path, tool_use_id, max_bytes)
    found = poll.poll()
    if info is not None:
        info.update(poll.info)
    return found


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
