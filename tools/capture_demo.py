"""Re-capture the sessions bundled in jevlin_hooks/harnesses/<folder>/data from the real Claude Code and Codex.

    npm ci --prefix tests/e2e            # the pinned Claude Code 2.1.328 and Codex 0.169.0
    .venv/bin/python tools/capture_demo.py [--only claude-code|codex]

One developer's day on a small payments service, played by the real programs offline against the
scripted model servers of the tests (tests/fake_anthropic.py, tests/fake_responses.py) on
127.0.0.1. Every hook event the programs fire goes to a dumping hook that saves the payload as
``jevlin_hooks/harnesses/<folder>/data/events/<scenario>-<NN>-<Event>.json`` (NN: the order they fired in
this capture); after each scenario the transcripts (Claude Code) and rollouts (Codex) its sessions
wrote are copied to ``.../transcripts/<scenario>/`` (``rollouts/`` for Codex), as they stood when the
scenario ended, with ``paths.json`` naming where each was written (under ``CAPTURE_ROOT``). Nothing is scrubbed: every byte comes
from these scripted servers, the stub ``jevlin`` below and this file, and none of it is a secret.

The searches are ``jevlin search "<question>"`` commands; ``jevlin`` is a stub on PATH (Codex runs
commands in a login shell, so the stub's directory goes on PATH in the capture home's profile)
that prints made-up but plausible results. One search sleeps so the interrupt lands during it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests"))

from fake_anthropic import FakeAnthropic, last_user_text  # noqa: E402
from fake_responses import FakeResponses, function_outputs  # noqa: E402
from fake_responses import last_user_text as cx_last_user_text  # noqa: E402

from jevlin_hooks import harnesses  # noqa: E402

CAPTURE_ROOT = "/tmp/jevlin-capture"  # fixed, so the paths in the payloads do not change per run
BIN = os.path.join(REPO, "tests", "e2e", "node_modules", ".bin")
HOME = os.path.join(CAPTURE_ROOT, "home", "maya")
WORK = os.path.join(HOME, "src", "payments-api")
STUBS = os.path.join(CAPTURE_ROOT, "bin")

CLAUDE_EVENTS = ("SessionStart", "InstructionsLoaded", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
                 "PostToolUse", "PostToolUseFailure", "PostToolBatch", "PreCompact", "PostCompact",
                 "SubagentStart", "SubagentStop", "Stop", "StopFailure", "SessionEnd")
CODEX_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "PostCompact",
                "SubagentStart", "SubagentStop", "Stop", "Interrupt", "SessionEnd")

# What the stub search prints, by a word of the question; made up, plausible.
RESULTS = {
    "httpx": [("docs/platform/http-clients.md#retries", "Outbound HTTP: use httpx.HTTPTransport(retries=3) for "
               "connect errors only; wrap idempotent calls in tenacity with exponential backoff (0.5s, x2, max 8s)."),
              ("adr/0031-webhook-timeouts.md", "Webhook handlers answer within 5 s and hand slow work to the queue; "
               "Stripe retries for 3 days, so handlers must be idempotent on event.id."),
              ("src/payments_api/clients/base.py", "make_client(): the shared httpx.Client with timeouts "
               "(connect 2s, read 10s) and the retrying transport.")],
    "grpc": [("docs/platform/grpc.md#retry-policy", "Ledger calls set a 3 s deadline and use the service config "
              "retryPolicy (maxAttempts 4, UNAVAILABLE only); never retry DEADLINE_EXCEEDED on writes."),
             ("services/ledger/README.md", "PostEntry is idempotent on (account, idempotency_key).")],
    "idempotency": [("adr/0027-idempotency-keys.md", "Refund requests carry Idempotency-Key; keys live 24 h in "
                     "the idempotency_keys table, unique on (merchant_id, key)."),
                    ("src/payments_api/refunds/service.py", "RefundService.create() checks the key before "
                     "calling the processor.")],
    "alembic": [("docs/runbooks/migrations.md", "Add the column nullable, backfill in batches of 10k, then add "
                 "the NOT NULL constraint in a second migration; never lock refunds for more than 1 s."),
                ("migrations/versions/2024_11_refund_reason.py", "A recent example of the two-step pattern.")],
    "flaky": [("docs/testing/flaky-tests.md", "Freeze time with time_machine instead of sleeping; the refunds "
               "suite uses the frozen_clock fixture."),
              ("tests/conftest.py", "frozen_clock: a time_machine travel to 2024-01-01T00:00Z.")],
    "pagination": [("docs/api/pagination.md", "List endpoints use opaque cursors (base64 of the last id and "
                    "created_at); limit defaults to 50, max 200.")],
    "webhook": [("adr/0031-webhook-timeouts.md", "Webhook handlers answer within 5 s and hand slow work to the "
                 "queue (payments_api.tasks.enqueue); the processor call runs in the worker with retries."),
                ("src/payments_api/webhooks/stripe.py", "handle_event(): verifies the signature, dedups on event.id.")],
    "rate": [("docs/platform/rate-limits.md", "The processor allows 100 refund calls per second per merchant; "
              "the client backs off on 429 honouring Retry-After.")],
}


def stub_search_script() -> str:
    """The `jevlin` stand-in: `jevlin search "question"` prints a few results."""
    return textwrap.dedent(f"""\
        #!{sys.executable}
        import json, sys, time
        RESULTS = json.loads({json.dumps(json.dumps(RESULTS))})
        args = sys.argv[1:]
        if not args or args[0] != "search":
            print("usage: jevlin search QUESTION", file=sys.stderr)
            sys.exit(2)
        q = " ".join(a for a in args[1:] if not a.startswith("--"))
        if "settlement" in q:
            time.sleep(30)  # the interrupt scenario stops the agent while this runs
        hits = next((v for k, v in RESULTS.items() if k in q.lower()), [])
        print(f"{{len(hits)}} result(s) for {{q!r}} in eng-docs (updated 2h ago)")
        for i, (where, text) in enumerate(hits, 1):
            print(f"{{i}}. {{where}}\\n   {{text}}")
        """)


DUMP_HOOK = f"""\
#!{sys.executable}
# Saves each hook payload as <scenario>-<NN>-<Event>.json; prints nothing, exits 0.
import fcntl, json, os, sys
root = {CAPTURE_ROOT!r}
notify = len(sys.argv) > 2 and sys.argv[1] == "notify"
raw = sys.argv[-1] if notify else sys.stdin.read()
with open(os.path.join(root, "state"), "r+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    st = json.load(f)
    st["n"] += 1
    f.seek(0); f.truncate(); json.dump(st, f)
try:
    event = "notify" if notify else json.loads(raw).get("hook_event_name", "unknown")
except ValueError:
    event = "unparsed"
name = "%s-%02d-%s.json" % (st["scenario"], st["n"], event)
with open(os.path.join(st["out"], "events", name), "w") as g:
    g.write(raw)
"""


class Day:
    """The capture root: the developer's home, project, stub programs and the dump state."""

    def __init__(self, harness: str) -> None:
        self.harness = harness
        self.out = harnesses.data_dir(harness)
        shutil.rmtree(CAPTURE_ROOT, ignore_errors=True)
        for d in (HOME, WORK, STUBS):
            os.makedirs(d)
        shutil.rmtree(os.path.join(self.out, "events"), ignore_errors=True)
        shutil.rmtree(os.path.join(self.out, "transcripts"), ignore_errors=True)
        shutil.rmtree(os.path.join(self.out, "rollouts"), ignore_errors=True)
        os.makedirs(os.path.join(self.out, "events"))
        self._write(os.path.join(STUBS, "jevlin"), stub_search_script(), 0o755)
        self._write(os.path.join(STUBS, "dump-hook"), DUMP_HOOK, 0o755)
        self._write(os.path.join(STUBS, "pytest"), "#!/bin/sh\necho 'FAILED tests/test_refunds.py::test_partial_refund"
                    " - AssertionError: 4999 != 5000'\necho '1 failed, 41 passed in 2.31s'\nexit 3\n", 0o755)
        profile = f'export PATH="{STUBS}:$PATH"\n'
        self._write(os.path.join(HOME, ".bash_profile"), profile)
        self._write(os.path.join(HOME, ".profile"), profile)
        self._write(os.path.join(WORK, "CLAUDE.md"), "# payments-api\n\nBefore changing a client, a retry or a "
                    "migration, look up our conventions with `jevlin search \"<question>\"`.\n")
        self._write(os.path.join(WORK, "AGENTS.md"), "Look up our conventions with `jevlin search \"<question>\"`.\n")
        self.scenario("none")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("CLAUDE", "ANTHROPIC", "CODEX", "OPENAI", "JEVLIN"))}
        self.env.update(HOME=HOME, PATH=STUBS + os.pathsep + os.environ["PATH"])

    @staticmethod
    def _write(path: str, text: str, mode: int = 0o644) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(path, mode)

    def scenario(self, name: str) -> None:
        path = os.path.join(CAPTURE_ROOT, "state")
        n = 0
        if os.path.exists(path):
            with open(path) as f:
                n = json.load(f)["n"]
        with open(path, "w") as f:
            json.dump({"scenario": name, "n": n, "out": self.out}, f)

    def events(self, scenario: str) -> list[dict[str, Any]]:
        d = os.path.join(self.out, "events")
        names = sorted((f for f in os.listdir(d) if f.startswith(scenario + "-")), key=lambda f: int(f.split("-")[-2]))
        out = []
        for f in names:
            with open(os.path.join(d, f)) as g:
                out.append(json.load(g))
        return out

    def forget(self, scenario: str) -> None:
        d = os.path.join(self.out, "events")
        for f in os.listdir(d):
            if f.startswith(scenario + "-"):
                os.remove(os.path.join(d, f))

    def keep_transcripts(self, scenario: str, sub: str) -> None:
        """Copy what the scenario's sessions wrote, as it stands now, under <sub>/<scenario>/."""
        found: set[str] = set()
        for p in self.events(scenario):
            for key in ("transcript_path", "agent_transcript_path"):
                if isinstance(p.get(key), str):
                    found.add(p[key])
            tp, sid = p.get("transcript_path"), p.get("session_id")
            if isinstance(tp, str) and sid:
                subdir = os.path.join(os.path.dirname(tp), sid, "subagents")
                if os.path.isdir(subdir):
                    found.update(os.path.join(subdir, f) for f in os.listdir(subdir) if f.endswith(".jsonl"))
        kept: dict[str, str] = {}
        for src in sorted(found):
            if not os.path.exists(src) or not src.startswith(CAPTURE_ROOT + "/"):
                continue
            dest = os.path.join(self.out, sub, scenario, os.path.basename(src))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(src, dest)
            kept[os.path.basename(src)] = src
        if kept:
            with open(os.path.join(self.out, sub, scenario, "paths.json"), "w") as f:
                json.dump(kept, f, indent=1, sort_keys=True)


# --- Claude Code -----------------------------------------------------------------------------------

def search(command_q: str, said: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": said},
            {"type": "tool_use", "name": "Bash",
             "input": {"command": f'jevlin search "{command_q}"', "description": "Search the team's docs"}}]


def last_tool_command(body: dict[str, Any]) -> str:
    """The command (or Agent prompt, or file path) of the call whose result the request carries."""
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "assistant" and isinstance(m.get("content"), list):
            for b in reversed(m["content"]):
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    inp = b.get("input") or {}
                    return str(inp.get("command") or inp.get("prompt") or inp.get("file_path") or "")
            return ""
    return ""


def has_tool_result(body: dict[str, Any]) -> bool:
    """Whether a tool's result came back since the model last spoke (Claude Code may add a
    reminder message after it)."""
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "assistant":
            return False
        c = m.get("content")
        if isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c):
            return True
    return False


# Each scripted turn: a phrase of the prompt -> the first answer; then, by a phrase of the call
# whose result came back -> the next answer.
CLAUDE_FIRST: dict[str, list[dict[str, Any]]] = {
    "refund webhook": search("how do we configure httpx retries and backoff for outbound calls",
                             "Before touching the webhook client I'll check how we configure httpx retries "
                             "here, so the fix follows the team's convention."),
    "ledger service": search("grpc retry policy and deadlines for the ledger service",
                             "The ledger client is gRPC, not httpx; let me look up our retry policy for it."),
    "Now move the processor call": search("webhook handler time budget and moving work to the queue",
                                          "Before moving the call I'll check how webhook handlers hand work to "
                                          "the queue."),
    "idempotency": search("idempotency keys for refund requests",
                          "I'll look up how refund requests are made idempotent before I change the handler."),
    "Refund reasons": [{"type": "text", "text": "This needs the migration conventions and a look at the "
                        "refund model; I'll hand the convention lookup to a subagent while I read the code."},
                       {"type": "tool_use", "name": "Agent",
                        "input": {"description": "Find migration conventions", "subagent_type": "general-purpose",
                                  "prompt": "Find our conventions for adding a NOT NULL column to a big table "
                                            "with alembic, and report them in three bullet points."}}],
    "Find our conventions": search("alembic add not null column to a large table",
                                   "Searching the team docs for the migration pattern."),
    "pagination rules? Use": [{"type": "text", "text": "I'll have a subagent look up the pagination rules."},
                   {"type": "tool_use", "name": "Agent",
                    "input": {"description": "Look up pagination rules", "subagent_type": "general-purpose",
                              "prompt": "Look up our cursor paging rules for list endpoints."}}],
    "cursor paging": search("cursor pagination rules for list endpoints",
                                "Checking the API guidelines for pagination."),
    "test_partial_refund": [{"type": "text", "text": "Let me run the failing test first."},
                            {"type": "tool_use", "name": "Bash",
                             "input": {"command": "pytest -q tests/test_refunds.py", "description": "Run tests"}}],
    "settlement": search("settlement batch cutoff time and timezone",
                         "I'll check when the settlement batch cuts off before answering."),
    "rate limit": [{"type": "error", "status": 400, "message": "prompt is too long: 1203512 tokens > 1000000 maximum"}],
    "flaky": search("flaky tests time freezing in the refunds suite",
                    "Let me see how we deal with time in the refunds tests."),
}
CLAUDE_THEN: dict[str, list[dict[str, Any]]] = {
    # the Agent calls first: their prompts name the same topics as the searches
    "Find our conventions": [{"type": "text", "text": "I asked a subagent for the migration conventions; I'll "
                              "write the migration when it reports."}],
    "Look up our cursor paging": [{"type": "text", "text": "A subagent is looking the pagination rules up."}],
    "webhook handler": [{"type": "text", "text": "The handler will verify, dedup on event.id and enqueue; the "
                         "worker makes the processor call with the retrying client."}],
    "httpx retries": [{"type": "text", "text": "Our convention: retries=3 on the transport for connect errors, "
                       "tenacity with exponential backoff for idempotent calls, and webhook handlers answer within "
                       "5 s. I'll move the processor call out of the webhook handler onto the queue."}],
    "grpc retry": [{"type": "text", "text": "For the ledger: a 3 s deadline and the service-config retryPolicy "
                    "(4 attempts, UNAVAILABLE only). PostEntry is idempotent, so retries are safe there."}],
    "idempotency keys": [{"type": "text", "text": "Refunds carry an Idempotency-Key checked in "
                          "RefundService.create(); the handler should pass event.id as the key."}],
    "alembic": [{"type": "text", "text": "Conventions: add the column nullable, backfill in 10k batches, then "
                 "add NOT NULL in a second migration."}],
    "cursor pagination": [{"type": "text", "text": "Opaque cursors, limit 50 by default and 200 at most."}],
    "pytest": [{"type": "text", "text": "The test fails by one cent: a rounding error. I'll write the fix."},
               {"type": "tool_use", "name": "Write",
                "input": {"file_path": f"{WORK}/src/payments_api/refunds/amounts.py",
                          "content": "from decimal import ROUND_HALF_EVEN, Decimal\n"}}],
    "amounts.py": [{"type": "text", "text": "I can't write files in this mode; the fix is to round with "
                    "ROUND_HALF_EVEN in refunds/amounts.py."}],
    "time freezing": [{"type": "text", "text": "Use the frozen_clock fixture instead of sleeping."}],
}


def claude_decide(body: dict[str, Any]) -> list[dict[str, Any]]:
    if has_tool_result(body):
        cmd = last_tool_command(body)
        return next((v for k, v in CLAUDE_THEN.items() if k in cmd), [{"type": "text", "text": "Done."}])
    text = last_user_text(body)
    if "<task-notification>" in text:
        if "cursor" in text:
            return [{"type": "text", "text": "The subagent found them: opaque cursors, limit 50 by default, 200 "
                     "at most."}]
        return [{"type": "text", "text": "The subagent reports the convention: nullable column, batched "
                 "backfill, NOT NULL in a second migration. I'll write the migration that way."}]
    if "continued from a previous conversation" in text:  # the turn goes on after an auto-compaction
        return [{"type": "text", "text": "Picking up after the compaction: the refunds tests sleep instead of "
                 "freezing time; switch them to the frozen_clock fixture."}]
    for k, v in CLAUDE_FIRST.items():
        if k in text:
            return [dict(b) for b in v]
    # /compact's and auto-compaction's summary request, and anything Claude Code asks on the side
    return [{"type": "text", "text": "<summary>Maya is making the refund webhook robust: httpx retries per "
             "docs/platform/http-clients.md, the ledger's gRPC retry policy, idempotency keys.</summary>"}]


class ClaudeRun:
    def __init__(self, day: Day, server: FakeAnthropic) -> None:
        self.day = day
        self.env = dict(day.env, ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="sk-ant-capture-not-a-key",
                        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
        settings = {"hooks": {e: [{"matcher": "*", "hooks": [{"type": "command", "command": f"{STUBS}/dump-hook",
                                                              "timeout": 10}]}] for e in CLAUDE_EVENTS}}
        os.makedirs(os.path.join(HOME, ".claude"), exist_ok=True)
        with open(os.path.join(HOME, ".claude", "settings.json"), "w") as f:
            json.dump(settings, f, indent=2)

    def __call__(self, scenario: str, *args: str, interrupt_on: str | None = None, ok: bool = True,
                 needs: str | None = None) -> dict[str, Any]:
        """``needs``: an event the run must show; Claude Code exits right after an API error, and
        now and then before its StopFailure hook has written anything, so that run is made again."""
        for _ in range(5):
            out = self._once(scenario, *args, interrupt_on=interrupt_on, ok=ok)
            if needs is None or any(p.get("hook_event_name") == needs for p in self.day.events(scenario)):
                return out
            self.day.forget(scenario)
        raise SystemExit(f"{scenario}: no {needs} in 5 runs")

    def _once(self, scenario: str, *args: str, interrupt_on: str | None, ok: bool) -> dict[str, Any]:
        self.day.scenario(scenario)
        argv = [os.path.join(BIN, "claude"), "-p", *args, "--allowedTools", "Bash", "Agent", "--output-format", "json"]
        p = subprocess.Popen(argv, env=self.env, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if interrupt_on:
            wait_for_event(self.day, scenario, interrupt_on)
            time.sleep(0.5)
            p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=240)
        if ok and p.returncode != 0:
            raise SystemExit(f"claude failed in {scenario}: {out[-2000:]} {err[-2000:]}")
        time.sleep(1.0)  # background work and the transcript's lazy flush
        self.day.keep_transcripts(scenario, "transcripts")
        try:
            return json.loads(out)
        except ValueError:
            return {}


def wait_for_event(day: Day, scenario: str, event: str) -> None:
    for _ in range(600):
        if any(f.startswith(scenario + "-") and f.endswith(f"-{event}.json")
               for f in os.listdir(os.path.join(day.out, "events"))):
            return
        time.sleep(0.05)
    raise SystemExit(f"{scenario}: {event} never came")


def capture_claude() -> None:
    day = Day("claude-code")
    # autocompact: the answer after the search reports a context near the window's size
    big: dict[str, bool] = {"on": False}
    with FakeAnthropic(claude_decide, prefix="cc", usage=lambda n: 985000 if big["on"] else 100) as srv:
        run = ClaudeRun(day, srv)
        out = run("basic", "Our refund webhook times out when Stripe retries it. How should the httpx client "
                  "retry here?")
        sid = out["session_id"]
        run("resume", "Does the same apply to the ledger service client?", "--resume", sid)
        run("compact", "/compact", "--resume", sid)
        run("aftercompact", "Now move the processor call out of the webhook handler.", "--resume", sid)
        run("fork", "Try the idempotency angle instead: how are refund requests made safe to retry?",
            "--resume", sid, "--fork-session")
        big["on"] = True
        run("autocompact", "Why is test_refund_flaky flaky? Check the flaky tests guide.")
        big["on"] = False
        run("subagent", "Refund reasons need a NOT NULL reason column on refunds (40M rows). Plan the migration.")
        run("subagent_fg", "What are our pagination rules? Use a subagent.")
        run("failures", "test_partial_refund fails on main; fix it.")
        run("apierror", "Summarize every rate limit we have, with the full docs pasted in.", ok=False,
            needs="StopFailure")
        run("interrupt", "When is the settlement cutoff?", interrupt_on="PreToolUse", ok=False)


# --- Codex -----------------------------------------------------------------------------------------

def cx_search(q: str, said: str) -> list[dict[str, Any]]:
    return [{"type": "message", "text": said},
            {"type": "function_call", "name": "exec_command", "arguments": {"cmd": f'jevlin search "{q}"'}}]


CODEX_FIRST: dict[str, list[dict[str, Any]]] = {
    "rate limit": cx_search("processor rate limits for refund calls",
                            "I'll check our documented processor rate limits before adding the throttle."),
    "429": cx_search("rate limit backoff on 429 with Retry-After",
                     "Let me look up how the client should back off on 429."),
    "idempotency": cx_search("idempotency keys for refund requests",
                             "First I'll look up how refund idempotency keys work here."),
    "migration": [{"type": "function_call", "name": "spawn_agent", "namespace": "multi_agent_v1",
                   "arguments": {"message": "Look up our alembic conventions for adding a NOT NULL column "
                                            "and report them briefly."}}],
    "alembic conventions": cx_search("alembic add not null column to a large table",
                                     "Searching the team docs for the migration pattern."),
    "test_partial_refund": [{"type": "message", "text": "Running the failing test first."},
                            {"type": "function_call", "name": "exec_command",
                             "arguments": {"cmd": "pytest -q tests/test_refunds.py"}}],
    "settlement": cx_search("settlement batch cutoff time and timezone",
                            "I'll check when the settlement batch cuts off."),
}
CODEX_THEN = {
    "processor rate limits": "100 refund calls per second per merchant; back off on 429 honouring Retry-After.",
    "429": "Honour Retry-After on 429 and cap the wait at 30 s.",
    "idempotency keys": "Refunds carry an Idempotency-Key, unique per merchant for 24 h.",
    "alembic": "Nullable column, backfill in 10k batches, NOT NULL in a second migration.",
    "pytest": "The test fails by one cent: round with ROUND_HALF_EVEN in refunds/amounts.py.",
}


def codex_decide(body: dict[str, Any]) -> list[dict[str, Any]]:
    done_waiting = [{"type": "message", "text": "The subagent reports: nullable column, batched backfill, NOT NULL "
                     "in a second migration. I'll write the migration that way."}]
    outs = function_outputs(body)
    everything = json.dumps(body.get("input") or [])
    if outs:
        if "agent_id" in json.dumps(outs) and "wait_agent" not in everything:
            agent = json.loads(outs[-1]["output"])["agent_id"]
            return [{"type": "function_call", "name": "wait_agent", "namespace": "multi_agent_v1",
                     "arguments": {"targets": [agent], "timeout_ms": 60000}}]
        if "wait_agent" in everything and "alembic add" not in json.dumps(outs):
            return done_waiting
        call = outs[-1].get("call_id")
        args = ""
        for item in body.get("input") or []:
            if item.get("type") == "function_call" and item.get("call_id") == call:
                args = str(item.get("arguments") or "")
        return [{"type": "message", "text": next((v for k, v in CODEX_THEN.items() if k in args), "Done.")}]
    if "wait_agent" in everything:  # the child's report came back as a message after the wait
        return done_waiting
    text = cx_last_user_text(body)
    for k, v in CODEX_FIRST.items():
        if k in text:
            return [dict(b) for b in v]
    return [{"type": "message", "text": "SUMMARY: Maya is adding a refund throttle: processor rate limits, "
             "backoff on 429, idempotency keys."}]


class CodexRun:
    def __init__(self, day: Day, server: FakeResponses) -> None:
        self.day = day
        self.codex_home = os.path.join(HOME, ".codex")
        os.makedirs(self.codex_home, exist_ok=True)
        self.env = dict(day.env, CODEX_HOME=self.codex_home, FAKE_KEY="sk-capture-not-a-key")
        self.server = server
        hooks = {"hooks": {e: [{"matcher": "*", "hooks": [{"type": "command", "command": f"{STUBS}/dump-hook",
                                                           "timeout": 10}]}] for e in CODEX_EVENTS}}
        with open(os.path.join(self.codex_home, "hooks.json"), "w") as f:
            json.dump(hooks, f, indent=2)

    def config(self, compact_limit: int | None) -> None:
        limit = f"model_auto_compact_token_limit = {compact_limit}\n" if compact_limit else ""
        with open(os.path.join(self.codex_home, "config.toml"), "w") as f:
            f.write(f'model = "gpt-5.1-codex"\nmodel_provider = "fake"\napproval_policy = "never"\n'
                    f'sandbox_mode = "danger-full-access"\n{limit}'
                    f'notify = ["{STUBS}/dump-hook", "notify"]\n'
                    f'[model_providers.fake]\nname = "fake"\nbase_url = "{self.server.url}"\nwire_api = "responses"\n'
                    f'env_key = "FAKE_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n')

    def __call__(self, scenario: str, prompt: str, *pre: str, compact_limit: int | None = None,
                 interrupt_on: str | None = None) -> str:
        self.day.scenario(scenario)
        self.config(compact_limit)
        argv = [os.path.join(BIN, "codex"), "exec", *pre[:1], "--skip-git-repo-check", "--json",
                "--dangerously-bypass-hook-trust", *(["-C", WORK] if not pre else []), *pre[1:], prompt]
        p = subprocess.Popen(argv, env=self.env, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, stdin=subprocess.DEVNULL)
        if interrupt_on:
            wait_for_event(self.day, scenario, interrupt_on)
            time.sleep(0.5)
            p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=240)
        if not interrupt_on and p.returncode != 0:
            raise SystemExit(f"codex failed in {scenario}: {out[-2000:]} {err[-2000:]}")
        time.sleep(1.0)
        self.day.keep_transcripts(scenario, "rollouts")
        for line in out.splitlines():
            if '"thread.started"' in line:
                return str(json.loads(line)["thread_id"])
        return ""


def capture_codex() -> None:
    day = Day("codex")
    big = {"on": False}
    with FakeResponses(codex_decide, prefix="cx", usage=lambda n: 300000 if big["on"] else 100) as srv:
        run = CodexRun(day, srv)
        tid = run("basic", "Add a throttle to refund calls; what are the processor's rate limits?")
        run("resume", "And how should we back off when the processor answers 429?", "resume", tid)
        run("failures", "test_partial_refund fails on main; find out why.")
        big_once = iter([True])
        big["on"] = True

        def usage(n: int) -> int:
            return 300000 if big["on"] and next(big_once, False) else 100

        srv.usage = usage
        run("compact", "Before the throttle, check the idempotency keys for refund requests.", compact_limit=1000)
        big["on"] = False
        run("subagent", "Plan the migration for the refund reason column; have a subagent find our conventions.")
        run("interrupt", "When is the settlement cutoff?", interrupt_on="PreToolUse")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("claude-code", "codex"))
    args = ap.parse_args(argv)
    jobs: list[tuple[str, Callable[[], None]]] = [("claude-code", capture_claude), ("codex", capture_codex)]
    for name, job in jobs:
        if args.only in (None, name):
            print(f"capturing {name} ...", flush=True)
            job()
            print(f"  {len(os.listdir(os.path.join(harnesses.data_dir(name), 'events')))} events", flush=True)
    shutil.rmtree(CAPTURE_ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
