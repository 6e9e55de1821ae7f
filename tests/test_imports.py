"""The hook path's start-up budget, pinned: what a hook process and `jevlin-hooks context`
import, and the two stand-ins that let them skip the standard modules (fastjson for json,
ids.hmac_sha256 for hmac/hashlib) checked against those modules."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import subprocess
import sys

import pi_replay
import pytest
from conftest import hook_errors
from hypothesis import given, settings
from hypothesis import strategies as st

from jevlin_hooks import demo, harnesses, replay
from jevlin_hooks.base import config, fastjson, paths
from jevlin_hooks.privacy import ids

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Each of these costs a hook more than its budget (json and typing import re; hashlib, hmac,
# shlex, tomllib, subprocess, dataclasses, argparse, inspect, enum pull in more still).
FORBIDDEN = {"json", "re", "typing", "hashlib", "hmac", "shlex", "tomllib", "subprocess", "dataclasses",
             "argparse", "inspect", "enum", "importlib.metadata", "logging", "datetime", "tempfile"}
# The standard modules a hook may import (beyond what the interpreter loads for `-I -S -c pass`).
# A new one here is a start-up cost: measure it with bench/hook_latency.py first.
STDLIB_ALLOWED = {
    "os", "posixpath", "genericpath", "stat", "_stat", "_collections_abc",  # frozen: loaded by `site` anyway
    "__future__", "_json", "_sha256", "_sha2", "fcntl", "time", "_signal",
}
# jevlin_hooks packages the hook path may use: the ground, capture, and the id key (ids); and of
# the harnesses, the registry and the running harness's folder and capture module (_check)
OURS_ALLOWED = ("jevlin_hooks.base", "jevlin_hooks.capture", "jevlin_hooks.privacy.ids")
# types only: importing them at run time imports typing
NEVER = ("jevlin_hooks.capture.shapes", "jevlin_hooks.harnesses.parts")

_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", re.M)


def _imported(stderr: bytes) -> set[str]:
    return set(_LINE.findall(stderr.decode(errors="replace")))


def _floor() -> set[str]:
    p = subprocess.run([sys.executable, "-X", "importtime", "-I", "-S", "-c", "pass"], capture_output=True, check=True)
    return _imported(p.stderr)


def _own_harness(harness: str) -> tuple[str, ...]:
    """Of the harnesses package, what a hook of this harness may import: the registry, its
    folder's package and its capture module (never its installer or doctor, nor another harness)."""
    pkg = harnesses.spec(harness).package
    return ("jevlin_hooks.harnesses", pkg, f"{pkg}.capture")


def _check(mods: set[str], floor: set[str], harness: str | None) -> None:
    bad = sorted(m for m in mods if m in FORBIDDEN or m.split(".")[0] in FORBIDDEN)
    assert not bad, f"the hook path imported {bad}"
    extra = sorted(m for m in mods - floor if not m.startswith("jevlin_hooks") and m not in STDLIB_ALLOWED)
    assert not extra, f"new imports on the hook path: {extra}"
    ours = sorted(m for m in mods if m.startswith("jevlin_hooks."))
    allowed = _own_harness(harness) if harness else ("jevlin_hooks.harnesses",)
    outside = [m for m in ours if not m.startswith(OURS_ALLOWED) and m != "jevlin_hooks.privacy" and m not in allowed]
    assert not outside and not set(NEVER) & set(ours), outside


def _cursor_events() -> list[dict]:
    conv, gen = "c-imports", "g-1"
    base = {"conversation_id": conv, "generation_id": gen, "workspace_roots": ["/w"], "model": "m"}
    shell = {"command": "jevlin search retry docs"}
    return [{**base, **e} for e in (
        {"hook_event_name": "sessionStart", "session_id": conv},
        {"hook_event_name": "beforeSubmitPrompt", "prompt": "find it"},
        {"hook_event_name": "afterAgentResponse", "text": "Searching."},
        {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": shell, "tool_use_id": "t1"},
        {"hook_event_name": "beforeShellExecution", **shell},
        {"hook_event_name": "afterShellExecution", **shell, "output": "found"},
        {"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": shell, "tool_use_id": "t1"},
        {"hook_event_name": "beforeMCPExecution", "tool_name": "search", "tool_input": '{"q": "x"}'},
        {"hook_event_name": "subagentStart", "subagent_id": "sub-1", "subagent_type": "explore"},
        {"hook_event_name": "subagentStop", "subagent_id": "sub-1"},
        {"hook_event_name": "preCompact"},
        {"hook_event_name": "stop", "status": "completed"},
        {"hook_event_name": "sessionEnd"},
    )]


def _events(harness: str, tmp: str) -> list[dict]:
    """The harness's captured sessions, whole and with their transcripts laid down (history
    lookups import what they import), enough of them that every event name occurs; or a
    synthetic session for a harness without captures."""
    if harness == "cursor":
        return _cursor_events()
    out: list[dict] = []
    seen: set[str] = set()
    for s in _scenarios(harness):
        events = [p for _, p in replay.scenario_events(s, harness)]
        names = {str(p.get("hook_event_name") or p.get("type")) for p in events}
        if names <= seen:
            continue  # every event of this session already occurs in one replayed
        seen |= names
        if harness in ("claude-code", "codex", "gemini-cli"):  # the harnesses whose history is in their files
            mapping = replay.lay_transcripts(s, os.path.join(tmp, "t"), harness)
            events = [replay.rewrite(p, mapping) for p in events]
        out += events
    return out


def _scenarios(harness: str) -> list[str]:
    if harness in ("claude-code", "codex"):
        return list(demo.CLAUDE if harness == "claude-code" else demo.CODEX)
    base = os.path.join(replay.data_dir(harness), "events")
    if not os.path.isdir(base):
        return []
    return sorted({n.rsplit("-", 2)[0] for n in os.listdir(base) if n.endswith(".json")})


# a harness whose agent streams to one resident recorder (Pi) defines closing_payload
STREAMING = [h for h in harnesses.HARNESSES if hasattr(harnesses.capture(h), "closing_payload")]


@pytest.mark.parametrize("harness", [h for h in harnesses.HARNESSES if h not in STREAMING])
def test_hook_process_imports_stay_within_the_budget(probe_home, tmp_path, harness):
    config.load(probe_home)  # the parsed config is cached: only an edited config.toml costs tomllib
    events = _events(harness, str(tmp_path))
    assert events, f"no events to replay for {harness}: add its captures or a synthetic session here"
    floor = _floor()
    seen: set[str] = set()
    for payload in events:
        p = replay.run_hook(probe_home, payload, harness, python_flags=("-X", "importtime"))
        assert p.returncode == 0
        mods = _imported(p.stderr)
        _check(mods, floor, harness)
        seen |= mods
    assert hook_errors(probe_home) == ""
    # the check saw the hook's real work: its engine, lineage and queue, through its own harness
    assert {"jevlin_hooks.capture.engine", "jevlin_hooks.capture.lineage", "jevlin_hooks.base.spool",
            f"{harnesses.spec(harness).package}.capture"} <= seen


def test_pi_recorder_imports_stay_within_the_budget(probe_home, tmp_path):
    """The resident recorder (`entry.py pi --stream`) fed every captured Pi session."""
    assert STREAMING == ["pi"], "a new streaming harness: feed its captures here too"
    config.load(probe_home)
    sessions = pi_replay.lay_sessions(str(tmp_path))
    names = sorted({n.rsplit("-", 2)[0] for n in os.listdir(os.path.join(pi_replay.DATA, "events"))})
    lines = [line for n in names for line in pi_replay.as_sent(pi_replay.captures(n), sessions)]
    p = pi_replay.stream(probe_home, lines, python_flags=("-X", "importtime"))
    assert p.returncode == 0
    mods = _imported(p.stderr)
    _check(mods, _floor(), "pi")
    assert hook_errors(probe_home) == ""
    assert {"jevlin_hooks.capture.engine", "jevlin_hooks.harnesses.pi.capture", "jevlin_hooks.base.spool"} <= mods


def test_a_garbled_payload_imports_no_more(home):
    p = replay.run_hook(home, b"{not json", "claude-code", python_flags=("-X", "importtime"))
    assert p.returncode == 0
    _check(_imported(p.stderr), _floor(), "claude-code")


def test_context_imports_stay_within_the_budget(probe_home):
    config.load(probe_home)
    for payload in [p for _, p in replay.scenario_events("basic")][:3]:  # a session with a turn open
        replay.run_hook(probe_home, payload)
    code = f"import sys; sys.path.insert(0, {ROOT!r}); from jevlin_hooks.cli import main; sys.exit(main())"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))}
    env["JEVLIN_HOME"] = probe_home
    p = subprocess.run([sys.executable, "-X", "importtime", "-I", "-S", "-c", code, "context"],
                       capture_output=True, env=env, check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout)  # it answered
    mods = _imported(p.stderr)
    _check(mods - {"jevlin_hooks.cli"}, _floor(), None)  # no harness variable set: the registry, no harness
    assert "jevlin_hooks.capture.context" in mods


# --- the stand-ins, against the modules they stand in for ------------------------------------

_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None)
@given(_documents)
def test_fastjson_reads_and_writes_what_json_does(doc):
    text = json.dumps(doc, separators=(",", ":"))
    assert fastjson.dumps(doc) == text
    assert fastjson.dumps(doc, sort_keys=True) == json.dumps(doc, separators=(",", ":"), sort_keys=True)
    assert fastjson.loads(text) == json.loads(text)
    pretty = json.dumps(doc, indent=2, ensure_ascii=False)
    assert fastjson.loads(pretty.encode("utf-8")) == json.loads(pretty)
    assert fastjson.loads(f" \n{pretty}\t") == doc


# one difference on purpose: raw control characters inside strings (transcripts carry them)
@given(st.text(alphabet=st.characters(min_codepoint=0x20), max_size=20) | st.sampled_from(["[1,]", '{"a" 1}', "01", "1 2"]))
def test_fastjson_refuses_what_json_refuses(text):
    try:
        json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            fastjson.loads(text)


@given(st.binary(max_size=200), st.binary(max_size=300))
def test_hmac_matches_the_standard_hmac(key, msg):
    assert ids.hmac_sha256(key, msg) == hmac.new(key, msg, hashlib.sha256).digest()


def test_hmac_keys_longer_than_a_block():
    key = bytes(range(256))
    assert ids.hmac_sha256(key, b"id") == hmac.new(key, b"id", hashlib.sha256).digest()
    assert ids.hash_id("session-1", key) == hmac.new(key, b"session-1", hashlib.sha256).hexdigest()


@given(st.binary(max_size=300))
def test_sha256_matches_hashlib(data):
    assert paths.sha256_hex(data) == hashlib.sha256(data).hexdigest()
