"""The OTLP sink against a real HTTP server on 127.0.0.1, driven by the real daemon and by
captured Claude Code and Codex sessions replayed through the hook entry point."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from fault_server import FaultServer
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from test_daemon import Daemon, raw_record, spool_empty, wait_for

from jevlin_hooks import replay
from jevlin_hooks.base import spool
from jevlin_hooks.privacy import ids
from jevlin_hooks.ship.sinks import otlp

SCENARIOS = [("claude-code", "basic"), ("claude-code", "subagent"), ("claude-code", "subagent_fg"),
             ("claude-code", "compact"), ("codex", "basic"), ("codex", "subagent"), ("codex", "compact")]


def config(home: str, endpoint: str, turn_end: bool = False, protocol: str = "", headers: str = "{}") -> None:
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'[ship]\nsink = "otlp"\nendpoint = "{endpoint}"\notlp_protocol = "{protocol}"\nheaders = {headers}\n'
                f'[miner]\nturn_end = {"true" if turn_end else "false"}\n'
                '[search]\nshell_commands = ["jevlin search", "/opt/probe/tool_probe.sh"]\n'
                "[daemon]\nautostart = false\nbackoff_max_s = 0.3\nrescan_s = 0.2\n")


def drain(home: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                          env={**os.environ, "JEVLIN_HOME": home, **(env or {})}, capture_output=True, text=True,
                          timeout=120)


def status(home: str) -> str:
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "status"], env={**os.environ, "JEVLIN_HOME": home},
                          capture_output=True, text=True, timeout=60).stdout


def replay_all(home: str, tmp: str, scenarios: list[tuple[str, str]] = SCENARIOS) -> None:
    for harness, scenario in scenarios:
        for p in replay.replay(home, scenario, os.path.join(tmp, f"{harness}-{scenario}"), harness):
            assert p.returncode == 0 and p.stdout == b"", p.stderr


def attrs(span: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for a in span.get("attributes", []):
        v = a["value"]
        out[a["key"]] = next(iter(v.values())) if v else None
    return out


def check_tree(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """No span names a parent that was not sent, every parent is in the child's trace, every
    span id is sent once per content; returns spans by trace."""
    by_id: dict[str, dict[str, Any]] = {}
    for s in spans:
        if s["spanId"] in by_id:  # a synthesized span sent twice must be the same span
            assert by_id[s["spanId"]]["name"] == s["name"] and by_id[s["spanId"]]["traceId"] == s["traceId"]
        by_id[s["spanId"]] = s
    traces: dict[str, list[dict[str, Any]]] = {}
    for s in by_id.values():
        traces.setdefault(s["traceId"], []).append(s)
        parent = s.get("parentSpanId")
        if parent:
            assert parent in by_id, f"{s['name']} names a parent that is never sent"
            assert by_id[parent]["traceId"] == s["traceId"]
    return traces


def pb_spans(raw: bytes) -> list[Any]:
    req = ExportTraceServiceRequest.FromString(raw)
    return [s for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans]


# --- wire format ---------------------------------------------------------------------------------

def test_protobuf_by_default_json_on_request_same_spans(probe_home, tmp_path):
    replay_all(probe_home, str(tmp_path), [("claude-code", "subagent"), ("codex", "basic")])
    names = sorted(os.listdir(os.path.join(probe_home, "spool", "new")))
    copies = {n: open(os.path.join(probe_home, "spool", "new", n), "rb").read() for n in names}
    decoded: dict[str, list[tuple[str, str, str, str]]] = {}
    for protocol in ("", "http/json"):
        for n, data in copies.items():  # the same records, twice
            with open(os.path.join(probe_home, "spool", "new", n), "wb") as f:
                f.write(data)
        with FaultServer() as srv:
            config(probe_home, srv.url + "/", turn_end=True, protocol=protocol)  # base URL, trailing slash
            assert drain(probe_home).returncode == 0
        assert spool_empty(probe_home) and len(srv.raw) == 1
        assert srv.requests[0][1] == "/v1/traces" and srv.headers[0]["Content-Encoding"] == "gzip"
        if protocol == "":
            assert srv.headers[0]["Content-Type"] == "application/x-protobuf"
            spans = [(s.trace_id.hex(), s.span_id.hex(), s.parent_span_id.hex(), s.name) for s in pb_spans(srv.raw[0])]
        else:
            assert srv.headers[0]["Content-Type"] == "application/json"
            body = json.loads(srv.raw[0])
            js = [s for rs in body["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
            # OTLP/JSON: hex ids (not protobuf JSON's base64), integer enums
            assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in js)
            assert all(s["kind"] == 1 and isinstance(s["status"].get("code", 0), int) for s in js)
            # the second receiver: the OpenTelemetry project's own message classes read it back
            for s in js:
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in s:
                        s[k] = base64.b64encode(bytes.fromhex(s[k])).decode()
            req = json_format.Parse(json.dumps(body), ExportTraceServiceRequest())
            spans = [(s.trace_id.hex(), s.span_id.hex(), s.parent_span_id.hex(), s.name)
                     for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans]
        decoded[protocol or "pb"] = sorted(spans)
    assert decoded["pb"] == decoded["http/json"]
    assert len(decoded["pb"]) == 2 + 2 + 2  # two turns, two searches, a subagent and its spawning call


def test_endpoint_headers_protocol_resolution():
    r = otlp.resolve
    assert r({"endpoint": "https://x.example/api/otel"}, {}).url == "https://x.example/api/otel/v1/traces"
    assert r({"endpoint": "https://x.example/otel/v1/traces/"}, {}).url == "https://x.example/otel/v1/traces"
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
           "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Basic%20YWJj,x-project-name = jevlin "}
    t = r({"endpoint": "", "headers": {}, "otlp_protocol": ""}, env)
    assert (t.url, t.protocol, t.headers, t.error) == ("http://127.0.0.1:4318/v1/traces", "http/json",
                                                      {"Authorization": "Basic YWJj", "x-project-name": "jevlin"}, None)
    # the traces-only variable is used as it is; the config wins over every variable
    assert r({}, {**env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom"}).url == "http://c:4318/custom"
    t = r({"endpoint": "http://cfg:1", "headers": {"k": "v"}, "otlp_protocol": "http/protobuf"}, env)
    assert (t.url, t.protocol, t.headers) == ("http://cfg:1/v1/traces", "http/protobuf", {"k": "v"})
    assert "only OTLP/HTTP" in (r({"endpoint": "http://a"}, {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}).error or "")
    assert "no OTLP endpoint" in (r({}, {}).error or "")


def test_env_variables_drive_the_real_daemon(home):
    spool.enqueue(home, [raw_record(i) for i in range(3)])
    with FaultServer() as srv:
        config(home, "")
        p = drain(home, {"OTEL_EXPORTER_OTLP_ENDPOINT": srv.url, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
                         "OTEL_EXPORTER_OTLP_HEADERS": "x-team=a%2Cb"})
        assert p.returncode == 0, p.stderr
    assert len(srv.received) == 3 and srv.headers[0]["x-team"] == "a,b"
    assert srv.headers[0]["Content-Type"] == "application/json"


# --- the span tree -------------------------------------------------------------------------------

@pytest.mark.parametrize("turn_end", [False, True])
def test_span_tree_has_no_missing_parent_and_one_trace_per_turn(probe_home, tmp_path, turn_end):
    config(probe_home, "http://127.0.0.1:9", turn_end=turn_end)  # hooks queue turn ends only when on
    replay_all(probe_home, str(tmp_path))
    records = spool.read_all(probe_home)
    searches = [r for r in records if r["kind"] == "search"]
    turns = {(r.get("parent_session_id") or r["session_id"], r.get("parent_turn_id") or r["turn_id"]) for r in searches}
    with FaultServer() as srv:
        config(probe_home, srv.url, turn_end=turn_end)
        assert drain(probe_home).returncode == 0
    assert set(srv.received) == {r["record_id"] for r in records}, "every record arrived"
    traces = check_tree(srv.spans)
    assert len(traces) == len(turns), "one trace per turn"
    kinds = Counter(attrs(s)["openinference.span.kind"] for s in srv.spans)
    subagents = {(r["parent_session_id"], r["session_id"]) for r in searches if r.get("parent_session_id")}
    assert len(subagents) == 3  # claude background + foreground, codex
    turn_spans = sum(1 for r in records if r["kind"] == "turn_end") if turn_end else 0
    assert kinds["AGENT"] == turn_spans + len(subagents)
    assert kinds["TOOL"] == len(searches) + len(subagents)  # + the calls that started the subagents
    by_id = {s["spanId"]: s for s in srv.spans}
    for s in srv.spans:
        a = attrs(s)
        if a.get("jevlin.record_id") and a["gen_ai.operation.name"] == "execute_tool":
            assert a["input.value"] in {r["query"] for r in searches} and a["output.value"].startswith("ok")
            assert a["session.id"] == a["gen_ai.conversation.id"]
        if a["gen_ai.operation.name"] == "invoke_agent" and a.get("jevlin.synthesized"):
            call = by_id[s["parentSpanId"]]  # a subagent sits under the call that started it ...
            assert call["name"] in ("execute_tool Agent", "execute_tool spawn_agent")
            if turn_end:  # ... itself under the turn it was started in
                assert by_id[call["parentSpanId"]]["name"] in ("invoke_agent Claude Code", "invoke_agent Codex")
            else:
                assert not call.get("parentSpanId")
        if a["gen_ai.operation.name"] == "invoke_agent" and not a.get("jevlin.synthesized"):
            assert a["input.value"] and a["output.value"] and turn_end
    roots = [s for s in srv.spans if not s.get("parentSpanId")]
    if turn_end:  # with turn spans, each trace has exactly one root: its turn
        assert len(roots) == len(traces) and all(s["name"].startswith("invoke_agent") for s in roots)


def test_two_searches_sharing_a_call_id_are_two_spans(home):
    recs = [raw_record(1), raw_record(2)]
    recs[1]["call_id"] = recs[0]["call_id"]
    spool.enqueue(home, recs)
    with FaultServer() as srv:
        config(home, srv.url)
        assert drain(home).returncode == 0
    assert len({s["spanId"] for s in srv.spans}) == 2 and len(srv.received) == 2


def test_tokens_follow_the_genai_conventions_for_claude_and_codex(home):
    base = {"v": 1, "kind": "turn_end", "ts": "2026-11-30T10:00:05.000Z", "session_id": "s", "turn_id": "t",
            "parent_session_id": None, "window": 0, "prompt": "p", "final_message": "f", "tools": [],
            "duration_ms": 5, "outcome": "completed", "search_count": 1}
    # Claude (Anthropic usage): input excludes the cache; Codex (OpenAI usage): input includes it
    claude = {**base, "record_id": "a" * 32, "harness": "claude-code", "model": "claude-opus-4",
              "tokens": {"input": 10, "output": 5, "cache_read": 100, "cache_creation": 20}}
    codex = {**base, "record_id": "b" * 32, "harness": "codex", "session_id": "s2", "model": "gpt-5.1-codex",
             "tokens": {"input": 130, "output": 5, "cache_read": 100, "cache_creation": 20}}
    spool.enqueue(home, [claude, codex])
    with FaultServer() as srv:
        config(home, srv.url, turn_end=True)
        assert drain(home).returncode == 0
    got = {attrs(s)["gen_ai.provider.name"]: attrs(s) for s in srv.spans}
    for provider in ("anthropic", "openai"):
        a = got[provider]
        assert int(a["gen_ai.usage.input_tokens"]) == 130 == int(a["llm.token_count.prompt"])
        assert int(a["gen_ai.usage.cache_read.input_tokens"]) == 100
        assert int(a["gen_ai.usage.cache_creation.input_tokens"]) == 20
        assert int(a["llm.token_count.total"]) == 135


# --- HTTP semantics ------------------------------------------------------------------------------

def test_retryable_codes_with_retry_after_then_everything_arrives(home):
    with FaultServer(["429:1", "502", "503", "504", "body:junk"]) as srv:
        config(home, srv.url)
        rids = [r["record_id"] for r in (raw_record(i) for i in range(4))]
        spool.enqueue(home, [raw_record(i) for i in range(4)])
        with Daemon(home):
            wait_for(lambda: set(srv.received) == set(rids) and spool_empty(home), 60, "delivery")
    faults = [f for _, _, f in srv.requests]
    assert faults[:5] == ["429:1", "502", "503", "504", "body:junk"], "a 2xx with an unreadable body is a success"
    assert srv.requests[1][0] - srv.requests[0][0] >= 0.9, "Retry-After honoured"
    assert not os.listdir(os.path.join(home, "spool", "quarantine"))


@pytest.mark.parametrize("code,fix", [("401", "[ship] headers"), ("404", "[ship] endpoint"),
                                      ("415", '[ship] otlp_protocol (now "http/protobuf"; the other is "http/json")')])
def test_configuration_answers_hold_the_queue_and_name_the_fix(home, code, fix):
    spool.enqueue(home, [raw_record(i) for i in range(3)])
    with FaultServer(default=code) as srv:
        config(home, srv.url)
        p = drain(home)
        assert p.returncode == 1 and "stay queued" in p.stderr
        assert spool.count(home, "new") + spool.count(home, "cur") == 3
        assert not os.listdir(os.path.join(home, "spool", "quarantine"))
        assert fix in status(home)
        srv.set(default="ok")  # fixed: everything goes
        assert drain(home).returncode == 0
    assert len(srv.received) == 3 and spool_empty(home)


def test_partial_success_is_reported(home):
    with FaultServer(["partial:1"]) as srv:
        config(home, srv.url, headers='{ "x-langfuse-key" = "lf-1" }')
        spool.enqueue(home, [raw_record(i) for i in range(3)])
        assert drain(home).returncode == 0
    assert spool_empty(home) and srv.headers[0]["x-langfuse-key"] == "lf-1"
    assert not os.listdir(os.path.join(home, "spool", "quarantine")), "OTLP does not say which: none re-sent or held"
    assert "collector rejected 1 span" in status(home)


def test_nothing_raw_in_the_protobuf_body(probe_home, tmp_path):
    replay_all(probe_home, str(tmp_path), [("claude-code", "subagent"), ("codex", "subagent")])
    raw_ids = {v for r in spool.read_all(probe_home) for k, v in r.items()
               if k in ("session_id", "turn_id", "call_id", "parent_session_id", "parent_call_id", "parent_turn_id") and v}
    key = None
    with FaultServer() as srv:
        config(probe_home, srv.url, turn_end=True)
        assert drain(probe_home).returncode == 0
        key = ids.load_key(probe_home)
    body = b"".join(srv.raw)
    assert raw_ids and not any(v.encode() in body for v in raw_ids)
    assert key is not None and all(ids.hash_id(v, key).encode() in body for v in raw_ids)


def sub_record(i: int, **over: Any) -> dict[str, Any]:
    r = raw_record(i, session="child-thread")
    r.update(parent_session_id="sess-A", parent_call_id="toolu_spawn", parent_turn_id="turn-0", turn_id="child-turn")
    r.update(over)
    return r


def test_a_subagent_and_its_call_are_sent_once_per_daemon(home):
    spool.enqueue(home, [sub_record(i) for i in range(3)])
    with FaultServer() as srv:
        config(home, srv.url)
        with open(os.path.join(home, "config.toml"), "a") as f:
            f.write("batch_size = 1\n")  # three batches, one sink
        with Daemon(home) as d:
            wait_for(lambda: len(srv.received) == 3 and spool_empty(home), 30, "delivery")
            d.stop()
    assert len(srv.raw) == 3
    names = Counter(s["name"] for s in srv.spans)
    assert names == {"execute_tool Bash": 3, "execute_tool Agent": 1, "invoke_agent subagent": 1}
    check_tree(srv.spans)


def test_a_record_from_before_parent_turn_id_never_names_a_turn(home):
    """turn_end on, but a subagent record queued by an older version cannot say which root turn
    it belongs to: its spawning call is a root, not a child of a turn span that may not exist."""
    from jevlin_hooks.ship.sinks import otlp_spans

    old = sub_record(1)
    del old["parent_turn_id"]
    spans, bad = otlp_spans.build([old], turn_end=True)
    assert not bad and len(spans) == 3
    call = next(s for s in spans if s.name == "execute_tool Agent")
    assert call.parent_id is None
    ids_ = {s.span_id for s in spans}
    assert all(s.parent_id in ids_ for s in spans if s.parent_id)
    # with parent_turn_id the call sits under the turn (sent by that turn's turn_end record)
    spans, _ = otlp_spans.build([sub_record(1)], turn_end=True)
    turn = otlp_spans.turn_span({**raw_record(1), "kind": "turn_end", "turn_id": "turn-0", "record_id": "c" * 32})
    assert next(s for s in spans if s.name == "execute_tool Agent").parent_id == turn.span_id


def test_odd_values_never_cost_a_record_or_a_parent():
    """A lone surrogate, a duration of 2**63 ms, a seq beyond int64 (whatever the layers before
    let through): every span still encodes, the synthesized ones included, so no child loses
    its parent and no record is refused."""
    recs = [sub_record(0, duration_ms=2**63, query="bad \ud83d text"), sub_record(1, seq=2**70),
            raw_record(2, session="s\udc00")]
    for r in recs:
        r["host_meta"] = {"agent_type": "type\ud800"}
    with FaultServer() as srv:
        sink = otlp.OtlpSink({"endpoint": srv.url}, turn_end=False, env={})
        result = sink.send(recs)
        sink.close()
    assert sorted(result.accepted) == sorted(r["record_id"] for r in recs) and not result.rejected
    assert len(srv.received) == 3
    check_tree(srv.spans)
