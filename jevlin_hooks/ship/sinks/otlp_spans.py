"""Safe records -> the spans an OTLP backend shows: one trace per turn, no missing parent.

Follows the OpenTelemetry GenAI semantic conventions v1.40.0 (development status) and puts the
OpenInference attributes beside them (Phoenix, and most LLM tools, read those for their screens).
Every id here is already hashed (privacy.record.make_safe); every text is already scrubbed.

The tree, per turn of a root thread (trace id from the hashed root session and turn ids):

    invoke_agent Claude Code      AGENT, the turn_end record; sent only when [miner] turn_end is on
      execute_tool Bash           TOOL, one search record (span id from its record_id)
      execute_tool Agent          TOOL, synthesized: the call that started a subagent
        invoke_agent general-...  AGENT, synthesized: the subagent's run in this turn
          execute_tool Bash       TOOL, the subagent's search

With turn_end off the turn span is never sent, so nothing names it as a parent: the turn's
searches and spawning calls are the roots of its trace. The two synthesized spans carry only
what every one of the subagent's search records knows (ids, names, the agent type), so any of
those records can send them; their ids are deterministic, and a backend that sees one twice
keeps one (Phoenix keeps the first). Their times span the searches of the batch that sent them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

SEMCONV_VERSION = "1.40.0"

# kind values of opentelemetry.proto.trace.v1.Span.SpanKind and Status.StatusCode
KIND_INTERNAL = 1
STATUS_UNSET, STATUS_OK, STATUS_ERROR = 0, 1, 2

AGENT_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "cursor": "Cursor", "pi": "Pi", "hermes": "Hermes",
               "gemini-cli": "Gemini CLI", "copilot-cli": "GitHub Copilot CLI"}
# The tool each harness starts a subagent with: the name of the synthesized spawning-call span.
SPAWN_TOOLS = {"claude-code": "Agent", "codex": "spawn_agent", "cursor": "Task", "gemini-cli": "invoke_agent",
               "copilot-cli": "task"}
# Harnesses whose recorded input token count already includes cached tokens (OpenAI's usage
# shape); the others report disjoint buckets (Anthropic's), which GenAI's input_tokens sums.
INPUT_INCLUDES_CACHED = {"codex", "gemini-cli"}
# Tools that run at the model provider rather than on the user's machine.
PROVIDER_SIDE_TOOLS = {"WebSearch", "web_search", "google_web_search"}
OK_SEARCH = ("ok", "empty")


@dataclass
class SpanData:
    """One span, independent of the wire encoding (protobuf or JSON)."""

    trace_id: bytes
    span_id: bytes
    parent_id: bytes | None
    name: str
    start_ns: int
    end_ns: int
    attributes: list[tuple[str, Any]] = field(default_factory=list)
    status: int = STATUS_UNSET
    status_message: str = ""
    record_id: str | None = None  # None for a synthesized span


def _id(label: str, value: str, nbytes: int) -> bytes:
    raw = hashlib.sha256(f"{label}:{value}".encode("utf-8", "surrogatepass")).digest()[:nbytes]
    return raw if any(raw) else b"\x01" + raw[1:]  # an all-zero id is invalid in OTLP


MAX_NS = 2**63 - 1  # span times are fixed64; anything beyond is clamped, never an encoding error


def _nanos(ts: str) -> int:
    dt = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return min(MAX_NS, max(0, int(round(dt.timestamp() * 1000)) * 1_000_000))


def _after(start: int, duration_ms: Any) -> int:
    ms = duration_ms if isinstance(duration_ms, int) and not isinstance(duration_ms, bool) and duration_ms > 0 else 0
    return min(MAX_NS, start + ms * 1_000_000)


def provider(rec: dict[str, Any], model: str | None) -> str:
    m = (model or "").lower()
    if m.startswith("claude"):
        return "anthropic"
    if m.startswith(("gpt", "o1", "o3", "o4", "codex")):
        return "openai"
    if m.startswith("gemini"):
        return "gcp.gemini"
    return {"claude-code": "anthropic", "codex": "openai"}.get(rec.get("harness") or "", rec.get("harness") or "unknown")


@dataclass(frozen=True)
class Place:
    """Where a record's spans go: which trace, and which span (if any) stands for its turn."""

    root: str          # hashed root thread: session.id and gen_ai.conversation.id
    trace_id: bytes
    turn_span: bytes | None  # the turn span, only when it will be sent (turn_end on, turn known)
    turn_key: str


def place(rec: dict[str, Any], turn_end: bool) -> Place:
    root = rec.get("parent_session_id") or rec["session_id"]
    sub = bool(rec.get("parent_session_id"))
    # A subagent's turn is the root turn it was started in; an older record without
    # parent_turn_id cannot say which that is, so it is kept out of any turn's tree.
    turn = rec.get("parent_turn_id") if sub else rec.get("turn_id")
    if turn:
        key = f"{root}/turn/{turn}"
    elif sub and rec.get("turn_id"):  # a child's own turn (a child Pi process, an older record)
        key = f"{root}/child/{rec['session_id']}/{rec['turn_id']}"
    elif sub and rec.get("parent_call_id"):
        key = f"{root}/call/{rec['parent_call_id']}/{rec.get('turn_id') or ''}"
    else:
        key = f"{root}/record/{rec['record_id']}"
    turn_span = _id("turn", f"{root}/{turn}", 8) if (turn and turn_end) else None
    return Place(root, _id("trace", key, 16), turn_span, key)


def _common(rec: dict[str, Any], p: Place, model: str | None) -> list[tuple[str, Any]]:
    return [
        ("session.id", p.root),
        ("gen_ai.conversation.id", p.root),
        ("gen_ai.provider.name", provider(rec, model)),
        ("llm.provider", provider(rec, model)),
        ("llm.model_name", model),
        ("gen_ai.request.model", model),
        ("jevlin.harness", rec.get("harness")),
        ("jevlin.window", rec.get("window")),
    ]


def search_spans(rec: dict[str, Any], turn_end: bool) -> tuple[SpanData, list[SpanData]]:
    """The search's own span, and the synthesized spans above it (subagent searches only)."""
    p = place(rec, turn_end)
    meta = rec.get("host_meta") or {}
    model = meta.get("model") or None
    start = _nanos(rec["ts"])
    end = _after(start, rec.get("duration_ms"))
    harness = rec.get("harness") or ""
    sub = bool(rec.get("parent_session_id"))
    agent_name = (meta.get("agent_type") or "subagent") if sub else AGENT_NAMES.get(harness, harness)
    status = rec.get("status") or "ok"
    tool = rec.get("tool") or "search"
    duration = rec.get("duration_ms")
    output = status if duration is None else f"{status} ({duration} ms)"
    attrs = _common(rec, p, model) + [
        ("openinference.span.kind", "TOOL"),
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", tool),
        ("tool.name", tool),
        ("gen_ai.tool.call.id", rec.get("call_id")),
        ("gen_ai.tool.type", "extension" if tool in PROVIDER_SIDE_TOOLS else "function"),
        ("gen_ai.agent.name", agent_name),
        ("gen_ai.agent.id", rec["session_id"]),
        ("input.value", rec.get("query") or ""),
        ("input.mime_type", "text/plain"),
        ("output.value", output),
        ("output.mime_type", "text/plain"),
        ("error.type", None if status in OK_SEARCH else status),
        ("jevlin.record_id", rec["record_id"]),
        ("jevlin.thread.id", rec["session_id"]),
        ("jevlin.turn.id", rec.get("turn_id")),
        ("jevlin.parent_call.id", rec.get("parent_call_id")),
        ("jevlin.parent_turn.id", rec.get("parent_turn_id")),
        ("jevlin.seq", rec.get("seq")),
        ("jevlin.search.status", status),
        ("jevlin.history", rec.get("history") or None),
        ("jevlin.history_source", meta.get("history_source")),
        ("jevlin.redactions", meta.get("redactions")),
    ]
    synth: list[SpanData] = []
    parent = p.turn_span
    if sub:
        call_id = rec.get("parent_call_id")
        if call_id:
            call_span = _id("call", f"{p.turn_key}/{call_id}", 8)
            spawn = SPAWN_TOOLS.get(harness, "subagent")
            synth.append(SpanData(p.trace_id, call_span, parent, f"execute_tool {spawn}", start, end, _common(rec, p, model) + [
                ("openinference.span.kind", "TOOL"),
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", spawn),
                ("tool.name", spawn),
                ("gen_ai.tool.call.id", call_id),
                ("gen_ai.tool.type", "function"),
                ("gen_ai.agent.name", AGENT_NAMES.get(harness, harness)),
                ("gen_ai.agent.id", p.root),
                ("jevlin.synthesized", True),
            ], STATUS_UNSET))
            parent = call_span
        agent_span = _id("agent", f"{p.turn_key}/{rec['session_id']}", 8)
        synth.append(SpanData(p.trace_id, agent_span, parent, f"invoke_agent {agent_name}", start, end, _common(rec, p, model) + [
            ("openinference.span.kind", "AGENT"),
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.agent.name", agent_name),
            ("gen_ai.agent.id", rec["session_id"]),
            ("jevlin.thread.id", rec["session_id"]),
            ("jevlin.synthesized", True),
        ], STATUS_UNSET))
        parent = agent_span
    own = SpanData(p.trace_id, _id("span", rec["record_id"], 8), parent, f"execute_tool {tool}", start, end, attrs,
                   STATUS_OK if status in OK_SEARCH else STATUS_ERROR, "" if status in OK_SEARCH else status,
                   rec["record_id"])
    return own, synth


def token_attributes(harness: str, tokens: dict[str, Any]) -> list[tuple[str, Any]]:
    """GenAI's input_tokens includes cached tokens (read and written); Claude Code reports
    them apart from `input`, Codex inside it. Both come out the same way here."""
    if not any(isinstance(v, int) and v > 0 for v in tokens.values()):
        return []  # no usage known: say nothing rather than zero
    inp, out = int(tokens.get("input") or 0), int(tokens.get("output") or 0)
    read, write = int(tokens.get("cache_read") or 0), int(tokens.get("cache_creation") or 0)
    total_in = inp if harness in INPUT_INCLUDES_CACHED else inp + read + write
    return [
        ("gen_ai.usage.input_tokens", total_in),
        ("gen_ai.usage.output_tokens", out),
        ("gen_ai.usage.cache_read.input_tokens", read),
        ("gen_ai.usage.cache_creation.input_tokens", write),
        ("llm.token_count.prompt", total_in),
        ("llm.token_count.completion", out),
        ("llm.token_count.total", total_in + out),
        ("llm.token_count.prompt_details.cache_read", read),
        ("llm.token_count.prompt_details.cache_write", write),
    ]


def turn_span(rec: dict[str, Any]) -> SpanData:
    p = place(rec, True)
    end = _nanos(rec["ts"])  # a turn_end's ts is when the turn ended
    start = max(0, end - (_after(0, rec.get("duration_ms"))))
    harness = rec.get("harness") or ""
    model = rec.get("model") or None
    outcome = rec.get("outcome") or "completed"
    name = AGENT_NAMES.get(harness, harness)
    attrs = _common(rec, p, model) + [
        ("openinference.span.kind", "AGENT"),
        ("gen_ai.operation.name", "invoke_agent"),
        ("gen_ai.agent.name", name),
        ("gen_ai.agent.id", p.root),
        ("input.value", rec.get("prompt") or ""),
        ("input.mime_type", "text/plain"),
        # an interrupted or failed turn has no final message: its outcome is what it ended with
        ("output.value", rec.get("final_message") or f"({outcome})"),
        ("output.mime_type", "text/plain"),
        ("error.type", None if outcome == "completed" else outcome),
    ] + token_attributes(harness, rec.get("tokens") or {}) + [
        ("jevlin.record_id", rec["record_id"]),
        ("jevlin.turn.id", rec.get("turn_id")),
        ("jevlin.turn.outcome", outcome),
        ("jevlin.turn.tools", rec.get("tools") or None),
        ("jevlin.turn.search_count", rec.get("search_count")),
    ]
    span_id = p.turn_span or _id("span", rec["record_id"], 8)
    ok = outcome == "completed"
    return SpanData(p.trace_id, span_id, None, f"invoke_agent {name}", start, end, attrs,
                    STATUS_OK if ok else STATUS_ERROR, "" if ok else outcome, rec["record_id"])


def build(records: list[dict[str, Any]], turn_end: bool, skip: set[bytes] | frozenset[bytes] = frozenset()
          ) -> tuple[list[SpanData], dict[str, str]]:
    """Spans for a batch, and {record_id: reason} for records that cannot become a span.

    Synthesized spans come once per batch, stretched over the batch's searches below them;
    ``skip`` names synthesized spans already delivered (by this process), not sent again.
    """
    own: list[SpanData] = []
    synth: dict[bytes, SpanData] = {}
    bad: dict[str, str] = {}
    for rec in records:
        try:
            if rec.get("kind") == "turn_end":
                own.append(turn_span(rec))
                continue
            span, extra = search_spans(rec, turn_end)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            bad[str(rec.get("record_id"))] = f"cannot be made a span: {type(exc).__name__}"
            continue
        own.append(span)
        for s in extra:
            if s.span_id in skip:
                continue
            have = synth.get(s.span_id)
            if have is None:
                synth[s.span_id] = s
            else:
                have.start_ns = min(have.start_ns, s.start_ns)
                have.end_ns = max(have.end_ns, s.end_ns)
    return list(synth.values()) + own, bad
