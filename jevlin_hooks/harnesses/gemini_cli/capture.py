"""Gemini CLI hook payloads -> normalized events, with what Gemini's chat file adds.

Facts this relies on (Gemini CLI 0.61.0, shared/reference/gemini-cli/FACTS.md and its bundle):

- Every payload has ``session_id`` (kept by ``--resume``), ``transcript_path`` (the chat file,
  JSONL) and ``cwd``. There is no turn id: the engine makes one per BeforeAgent. There is no tool
  call id either, and the shell tool's environment names no session.
- A call is paired by its ``pair_key``: its tool name and input, which BeforeTool and AfterTool
  both carry (``executeToolWithHooks`` passes AfterTool the params it executed). Parallel calls
  finish in any order; identical ones are the same search, so pairing the oldest first is exact
  where it matters. Another hook may rewrite the input in BeforeTool: the engine then closes the
  oldest search of the same tool (engine._paired_call). The call id we record is made from the
  BeforeTool payload (session, timestamp, pair key), so a duplicated delivery counts once.
- History: Gemini records the model's answer in the chat file when its stream ends, before it
  schedules the answer's tool calls, so at BeforeTool the file's tail is the turn so far. It is
  read backwards from the end, bounded, to the turn's prompt.
- Compaction: PreCompress fires before every model call, compaction or not (it is not hooked).
  A compaction that happened rewrites the chat file's history in one ``{"$set": {"messages"``
  line whose first model message after the summary is the fixed "Got it. Thanks for the
  additional context!" with a fresh id: that id is the proof, counted once (engine
  ``compaction_ids``), by whichever of BeforeAgent, BeforeTool and AfterAgent reads it first.
- Subagents (``invoke_agent``) run inside the same process and fire BeforeTool/AfterTool with the
  parent's ``session_id`` and chat file. Each writes its own chat file,
  ``<chats>/<session_id>/<agent id>.jsonl``. The main file gets nothing while a subagent runs
  (all the BeforeTools of one model answer fire before any of its calls starts, and the next
  answer waits for all of them), so a tool event whose subagent file was written after the main
  file belongs to that subagent: the newest such file names the child thread. (Two subagents at
  once: a BeforeTool goes to the one that wrote last, which is its own unless the other wrote
  within this hook's start-up; its AfterTool pairs by key in whichever thread it started. A
  subagent's own compactions are not counted: its window stays 0.)
"""

from __future__ import annotations

import os

from jevlin_hooks.capture import payloads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from jevlin_hooks.capture.shapes import Config, Event, Pending

NAME = "gemini-cli"

_KINDS = {
    "SessionStart": "session_start",
    "BeforeAgent": "prompt",
    "BeforeTool": "pre_tool",
    "AfterTool": "post_tool",
    "AfterAgent": "stop",
    "SessionEnd": "session_end",
}
SPAWN_TOOLS = ("invoke_agent",)
MAX_SCAN = 8 << 20
HISTORY_LIMIT = 32 * 1024
# the model's reply that ChatCompressionService puts after the summary, in every compaction
COMPACTED = b'"type":"gemini","content":[{"text":"Got it. Thanks for the additional context!"}]'
# the shell tool's summary lines after a command's output (ShellToolInvocation.execute)
_TRAILER = ("Process Group PGID: ", "Background PIDs: ", "Signal: ", "Exit Code: ", "Error: ")


def _text_of(value: Any) -> str | None:
    """A tool response's ``llmContent``: a string or a list of parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [p.get("text") for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "\n".join(texts) if texts else None  # type: ignore[arg-type]
    return None


def _unwrap(text: str) -> str:
    """Without the ``<untrusted_context>`` wrapper Gemini puts around a command's output."""
    head, tail = "<untrusted_context>\n", "\n</untrusted_context>"
    if text.startswith(head) and text.endswith(tail):
        return text[len(head):-len(tail)]
    return text


def _status(resp: Any) -> str:
    """ok | empty | error | interrupted. A failed command is a normal AfterTool without an
    ``error``: its exit code is only in the text, among the summary lines after the output."""
    if not isinstance(resp, dict):
        return "ok"
    if resp.get("error"):
        return "error"
    text = _text_of(resp.get("llmContent"))
    if text is None:
        return "ok"
    text = _unwrap(text)
    if text.startswith("Command was cancelled"):
        return "interrupted"
    if text.startswith(("Command was automatically cancelled", "Tool execution blocked")):
        return "error"
    if text.startswith("No search results or information found"):  # google_web_search
        return "empty"
    lines = text.split("\n")
    while lines and _trailer(lines[-1]):
        line = lines.pop()
        if line.startswith(("Signal: ", "Error: ", "Exit Code: ")):
            return "error"  # Gemini writes an exit code only when it is not 0
    if lines == ["Output: (empty)"]:
        return "empty"
    return "ok"


def _trailer(line: str) -> bool:
    """One of the summary lines after a command's output (numbers where numbers go: output that
    happens to start the same way is not one)."""
    if not line.startswith(_TRAILER):
        return False
    value = line.split(": ", 1)[1]
    if line.startswith(("Exit Code: ", "Process Group PGID: ")):
        return value.lstrip("-").isdigit()
    return bool(value)


def _canon(value: Any) -> str:
    from jevlin_hooks.base import fastjson

    try:
        return fastjson.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return ""


def normalize(payload: Any, cfg: Config, now: float) -> Event | None:
    if not isinstance(payload, dict):
        return None
    kind = _KINDS.get(payload.get("hook_event_name"))  # type: ignore[arg-type]
    session_id = payloads.text(payload, "session_id")
    if kind is None or session_id is None:
        return None
    ev = payloads.event(payload, kind, now, session_id, "turn_id", cfg, _status)
    if kind in ("pre_tool", "post_tool"):
        ev["spawn_tools"] = SPAWN_TOOLS
        ev["pair_key"] = f"{ev['tool_name']}:{_canon(payload.get('tool_input'))}"
        if kind == "pre_tool":
            from jevlin_hooks.base import paths

            stamp = payloads.text(payload, "timestamp") or repr(now)
            seed = f"{session_id}|{stamp}|{ev['pair_key']}".encode("utf-8", "surrogatepass")
            ev["tool_use_id"] = "gemini-" + paths.sha256_hex(seed)[:24]
        elif ev.get("search") is not None:
            resp = payload.get("tool_response")
            text = _text_of(resp.get("llmContent")) if isinstance(resp, dict) else None
            payloads.keep_result(ev, _unwrap(text) if text else None, cfg)
    elif kind == "stop":
        ev["last_message"] = payloads.text(payload, "prompt_response")
    return ev


def answer(payload: Any) -> list[str]:
    return []  # nothing on stdout: Gemini reads an empty answer as "go on"


def route(ev: Event, home: str) -> None:
    pass  # a subagent's events carry the root session_id: enrich() names the child thread


def from_env(env: Mapping[str, str]) -> tuple[str, str | None, str | None] | None:
    return None  # the shell tool names no session: the agent process and the pending call do


def read_payload(invoked_as: str, argv: list[str]) -> bytes | None:
    return None  # the payload is on stdin


def neutral_answer() -> list[str]:
    return []


def history_for(p: Pending) -> str | None:
    return None  # a search's history is read at its BeforeTool, while the file's tail is its turn


# --- what the chat file adds ------------------------------------------------------------------

def enrich(ev: Event, cfg: Config) -> None:
    path = ev.get("transcript_path")
    kind = ev["kind"]
    if not path or kind in ("session_start", "session_end"):
        return
    search = ev.get("search") is not None
    if kind == "pre_tool" or (kind == "post_tool" and search):
        child = _subagent_file(path, ev["session_id"])
        if child is not None:
            ev["agent_id"], ev["agent_transcript_path"] = child
    if kind == "post_tool" or (kind == "pre_tool" and not search):
        return
    child_path = ev.get("agent_transcript_path")
    try:
        found = _scan(child_path or path, texts=kind == "pre_tool", summary=kind == "stop")
    except (OSError, ValueError):
        return  # no chat file (recording off, a disk full): the event still counts, without it
    if not child_path and found["compactions"]:
        ev["compaction_ids"] = found["compactions"][::-1]  # oldest first
    if found["model"] and not ev.get("model"):
        ev["model"] = found["model"]
    if kind == "pre_tool":
        ev["history_snapshot"] = _clip(found["texts"])
    elif kind == "stop":
        ev["summary"] = {"tokens": found["tokens"], "model": found["model"],
                         "last_text": found["texts"][-1] if found["texts"] else None}


def _subagent_file(path: str, session_id: str) -> tuple[str, str] | None:
    """(agent id, its chat file) when this tool event is a running subagent's: its file was
    written after the main chat file (the module docstring says why that proves it)."""
    try:
        entries = os.scandir(os.path.join(os.path.dirname(path), session_id))
    except OSError:
        return None  # no subagent ever ran in this session: the common case, one failed call
    try:
        main = os.stat(path).st_mtime_ns
    except OSError:
        main = 0
    best: tuple[int, str, str] | None = None
    with entries:
        for e in entries:
            if not e.name.endswith(".jsonl"):
                continue
            try:
                mtime = e.stat().st_mtime_ns
            except OSError:
                continue
            if mtime > main and (best is None or mtime > best[0]):
                best = (mtime, e.name[:-6], e.path)
    return (best[1], best[2]) if best else None


def _clip(texts: list[str]) -> str:
    joined = "\n\n".join(t for t in texts if t)
    raw = joined.encode("utf-8", "surrogatepass")
    if len(raw) <= HISTORY_LIMIT:
        return joined
    return raw[-HISTORY_LIMIT:].decode("utf-8", "ignore")


def _scan(path: str, texts: bool, summary: bool) -> dict[str, Any]:
    """The current turn, read backwards from the end of a chat file (at most MAX_SCAN bytes) down
    to its prompt (with ``texts``, only to the last rewrite of the whole history: a search's
    history is its window's; with neither, only to the last message): the model's texts (oldest
    first), its model, with ``summary`` its tokens, and the ids of the compactions among the
    history rewrites passed.

    A message line is written again whenever it changes (its tokens, then its tool calls with
    their results): the newest copy of each id is the one kept. Lines are told apart by their
    first bytes, and a model message is parsed without its tool calls, so a tool's long output
    costs a byte search, not a parse."""
    from jevlin_hooks.capture import transcript

    out: dict[str, Any] = {"texts": [], "model": None, "compactions": [],
                           "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0}}
    seen: set[bytes] = set()
    size = 0
    for line in transcript.lines_backwards(path, MAX_SCAN):
        if line.startswith(b'{"$set":{"messages":'):
            cid = _compaction_id(line)
            if cid:
                out["compactions"].append(cid)
            if texts:
                break  # a search's history is its window's: what came before was compacted
            continue
        if line.startswith(b'{"sessionId":'):
            break  # the file's record starts (again, on a resume)
        if not line.startswith(b'{"id":"'):
            continue
        if not (texts or summary):
            break  # a prompt looks only past the last message: the rewrites since (/compress, a failed turn)
        head = line[:256]  # id, timestamp, type: ChatRecordingService.newMessage's order
        if b'","type":"user","content":' in head:
            if b'"content":[{"functionResponse"' in head:
                continue
            break  # the turn's prompt
        if b'","type":"gemini","content":' not in head:
            continue
        mid = line[7:line.find(b'"', 7)]
        if mid in seen:
            continue
        seen.add(mid)
        msg = _message(line)
        if msg is None:
            continue
        if out["model"] is None and isinstance(msg.get("model"), str):
            out["model"] = msg["model"]
        if summary:
            _add_tokens(out["tokens"], msg.get("tokens"))
        text = _content_text(msg.get("content"))
        if text:
            out["texts"].append(text)
            size += len(text)
        if texts and size > HISTORY_LIMIT:
            break
    out["texts"].reverse()
    return out


def _message(line: bytes) -> dict[str, Any] | None:
    """A model message without its tool calls (their results can be long; every field we read
    comes before them)."""
    from jevlin_hooks.base import fastjson

    cut = line.find(b',"toolCalls":')
    try:
        msg = fastjson.loads(line if cut < 0 else line[:cut] + b"}")
    except ValueError:
        return None
    return msg if isinstance(msg, dict) else None


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # parts (a synthetic message): text, never thoughts
        return "".join(p["text"] for p in content
                       if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought"))
    return ""


def _add_tokens(total: dict[str, int], tokens: Any) -> None:
    """Gemini's counts: ``input`` includes what was cached (``cached``); thinking is output."""
    if not isinstance(tokens, dict):
        return

    def num(key: str) -> int:
        v = tokens.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0

    total["input"] += num("input")
    total["cache_read"] += num("cached")
    total["output"] += num("output") + num("thoughts")


def _compaction_id(line: bytes) -> str | None:
    """The id of the message a compaction put after its summary: the first such message of a
    history rewrite (the kept history after it may hold older ones, under new ids)."""
    at = line.find(COMPACTED)
    if at < 0:
        return None
    start = line.rfind(b'{"id":"', max(0, at - 200), at)
    if start < 0:
        return None
    end = line.find(b'"', start + 7)
    return line[start + 7:end].decode("utf-8", "replace") or None
