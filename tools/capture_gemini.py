"""Re-capture the Gemini CLI sessions bundled in jevlin_hooks/harnesses/gemini_cli/data.

    npm ci --prefix tests/e2e            # the pinned Gemini CLI 0.61.0
    .venv/bin/python tools/capture_gemini.py

The real Gemini CLI, offline, against the scripted Gemini API of the tests (tests/fake_gemini.py)
on 127.0.0.1, with a dumping hook registered exactly as `install --harness gemini-cli` registers
ours (the same events, the same tool matcher). Each payload is saved as
``data/events/<scenario>-<NN>-<Event>.json`` (NN: the order they fired in). Gemini's chat files are
copied to ``data/transcripts/<scenario>/`` as they stood when the scenario ended, with
``paths.json`` naming where each was written and ``at_event.json`` the size and mtime each had when
each event fired: the hook reads a chat file's tail at the moment of the event, so a replay lays
each file down as it was then (tests/gemini_replay.py). Nothing is scrubbed: every byte comes from
the scripted server, the stub ``jevlin`` below and this file.

Scenarios: basic (one search), resume (``--resume latest``: same session, one more search),
compact (a new session, then a resume whose first answer reports 900,000 prompt tokens: Gemini
compresses before its next model call, and the model searches again after it), failures (a search
that exits 3, a call with bad arguments that fires no hook), parallel (two searches and
google_web_search in one answer), subagent (invoke_agent, whose child searches, beside a search of
the parent's in the same answer), newsession (a second session in the same project).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests"))

from fake_gemini import FakeGemini, all_text, declared, function_responses, new_text  # noqa: E402

from jevlin_hooks import harnesses  # noqa: E402
from jevlin_hooks.base import config  # noqa: E402
from jevlin_hooks.harnesses.gemini_cli import install  # noqa: E402

CAPTURE_ROOT = "/tmp/jevlin-capture-gemini"  # fixed, so the paths in the payloads do not change per run
GEMINI = os.path.join(REPO, "tests", "e2e", "node_modules", ".bin", "gemini")
HOME = os.path.join(CAPTURE_ROOT, "home", "maya")
WORK = os.path.join(HOME, "src", "payments-api")
STUBS = os.path.join(CAPTURE_ROOT, "bin")
OUT = harnesses.data_dir("gemini-cli")

STUB = textwrap.dedent(f"""\
    #!{sys.executable}
    import sys
    args = sys.argv[1:]
    if args[:1] != ["search"]:
        sys.exit(2)
    if "--fail" in args:
        print("jevlin: the search service answered 503", file=sys.stderr)
        sys.exit(3)
    q = " ".join(a for a in args[1:] if not a.startswith("--"))
    print(f"2 result(s) for {{q!r}} in eng-docs")
    print("1. docs/platform/http-clients.md#retries\\n   httpx.HTTPTransport(retries=3) for connect errors only")
    print("2. adr/0031-webhook-timeouts.md\\n   webhook handlers answer within 5 s")
    """)

DUMP_HOOK = textwrap.dedent(f"""\
    #!{sys.executable}
    # Saves the payload as <scenario>-<NN>-<Event>.json and the chat files' sizes and mtimes now.
    import fcntl, json, os, sys
    raw = sys.stdin.read()
    with open({os.path.join(CAPTURE_ROOT, "state")!r}, "r+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        st = json.load(f)
        st["n"] += 1
        p = json.loads(raw)
        name = "%s-%02d-%s.json" % (st["scenario"], st["n"], p.get("hook_event_name", "unknown"))
        chats = os.path.dirname(p.get("transcript_path") or "/nonexistent/x")
        seen = {{}}
        for base, _, files in os.walk(chats):
            for fn in files:
                if fn.endswith(".jsonl"):
                    s = os.stat(os.path.join(base, fn))
                    seen[fn] = [s.st_size, s.st_mtime_ns]
        st["at_event"][name] = seen
        with open(os.path.join(st["out"], "events", name), "w") as g:
            g.write(raw)
        f.seek(0); f.truncate(); json.dump(st, f)
    """)

ASKED = "Let me look up how our services configure httpx retries before changing the client."


def say(text: str, *calls: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"text": text}, *calls]


def shell(query: str, extra: str = "") -> dict[str, Any]:
    return {"call": "run_shell_command", "args": {"command": f'jevlin search {extra}"{query}"',
                                                  "description": "Search the team's docs"}}


def decide(body: dict[str, Any]) -> list[dict[str, Any]]:
    text, done = new_text(body), function_responses(body)
    if "complete_task" in declared(body):  # the generalist subagent
        if done:
            return [{"call": "complete_task", "args": {"result": {"response": "Retries: 3, connect errors only."}}}]
        return say("I will search the docs for the retry policy.", shell("grpc retry policy"))
    everything = all_text(body)
    if done:
        if "RESUMED_COMPACT" in everything and "after the compaction" not in everything:
            return say("Continuing after the compaction: one more search.", shell("idempotency keys after the compaction"))
        return say("Done: the docs answer it.")
    if "FAIL_PLEASE" in text:
        return [{"call": "run_shell_command", "args": {"command": 'jevlin search --fail "refund retries"'}},
                {"call": "run_shell_command", "args": {"cmd": "jevlin search bad-arguments"}}]
    if "PARALLEL_PLEASE" in text:
        return say("Three searches at once.", shell("httpx timeouts"), shell("webhook retries"),
                   {"call": "google_web_search", "args": {"query": "httpx retry transport"}})
    if "DELEGATE_PLEASE" in text:
        return say("A subagent will read the gRPC docs while I search the webhook ones.",
                   {"call": "invoke_agent", "args": {"agent_name": "generalist",
                                                     "prompt": "Find the gRPC retry policy in our docs."}},
                   shell("webhook timeouts"))
    if "SEARCH_PLEASE" in text or "RESUMED_COMPACT" in text:
        return say(ASKED, shell("httpx retries"))
    return say("Nothing to search.")


SCENARIOS: list[tuple[str, list[list[str]], Any]] = [
    ("basic", [["-p", "SEARCH_PLEASE how do we retry httpx calls?"]], None),
    ("resume", [["--resume", "latest", "-p", "SEARCH_PLEASE and how do we back off?"]], None),
    ("newsession", [["-p", "SEARCH_PLEASE a second session about httpx"]], None),
    # request 1 of the first run, then 1: the resumed run's first answer reports 900,000 tokens
    ("compact", [["-p", "SEARCH_PLEASE before the compaction"],
                 ["--resume", "latest", "-p", "RESUMED_COMPACT search again"]],
     lambda n: 900_000 if n == 3 else 100),
    ("failures", [["-p", "FAIL_PLEASE"]], None),
    ("parallel", [["-p", "PARALLEL_PLEASE"]], None),
    ("subagent", [["-p", "DELEGATE_PLEASE"]], None),
]


def settings(dump: str) -> dict[str, Any]:
    """Gemini's settings with the dumping hook where `install` puts ours."""
    match = install.matcher(config.defaults()["search"]["tools"])
    hooks: dict[str, Any] = {}
    for event in install.EVENTS:
        group: dict[str, Any] = {"hooks": [{**install.handler(), "command": dump}]}
        if event in install.TOOL_EVENTS:
            group = {"matcher": match, **group}
        hooks[event] = [group]
    return {"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True}, "telemetry": {"enabled": False},
            "hooks": hooks}


def main() -> None:
    shutil.rmtree(CAPTURE_ROOT, ignore_errors=True)
    for d in (os.path.join(HOME, ".gemini"), WORK, STUBS):
        os.makedirs(d)
    subprocess.run(["git", "init", "-q", WORK], check=True)
    for name, text in (("jevlin", STUB), ("dump-hook", DUMP_HOOK)):
        with open(os.path.join(STUBS, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(STUBS, name), 0o755)
    with open(os.path.join(HOME, ".gemini", "settings.json"), "w") as f:
        json.dump(settings(os.path.join(STUBS, "dump-hook")), f, indent=2)
    for d in ("events", "transcripts"):
        shutil.rmtree(os.path.join(OUT, d), ignore_errors=True)
    os.makedirs(os.path.join(OUT, "events"))
    state = os.path.join(CAPTURE_ROOT, "state")
    n = 0
    chats = os.path.join(HOME, ".gemini", "tmp", "payments-api", "chats")
    for scenario, runs, usage in SCENARIOS:
        if scenario in ("newsession", "compact", "failures", "parallel", "subagent"):
            shutil.rmtree(chats, ignore_errors=True)  # each its own session file(s), nothing older
        with open(state, "w") as f:
            json.dump({"n": n, "scenario": scenario, "out": OUT, "at_event": {}}, f)
        with FakeGemini(decide, usage=usage or (lambda k: 100)) as srv:
            env = {"HOME": HOME, "PATH": f"{STUBS}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb",
                   "GEMINI_CLI_TRUST_WORKSPACE": "true", "GOOGLE_GEMINI_BASE_URL": srv.url, "GEMINI_API_KEY": "fake"}
            for args in runs:
                p = subprocess.run([GEMINI, *args, "--yolo"], cwd=WORK, env=env, capture_output=True, text=True,
                                   timeout=180)
                print(f"[{scenario}] rc={p.returncode} {p.stdout.strip()[-200:]!r}")
                if p.returncode != 0:
                    sys.exit(p.stderr[-3000:])
        with open(state) as f:
            st = json.load(f)
        n = st["n"]
        dest = os.path.join(OUT, "transcripts", scenario)
        os.makedirs(dest)
        written = {}
        for base, _, files in os.walk(chats):
            for fn in files:
                if fn.endswith(".jsonl"):
                    shutil.copyfile(os.path.join(base, fn), os.path.join(dest, fn))
                    written[fn] = os.path.join(base, fn)
        with open(os.path.join(dest, "paths.json"), "w") as f:
            json.dump(written, f, indent=1)
        with open(os.path.join(dest, "at_event.json"), "w") as f:
            json.dump(st["at_event"], f, indent=1)
    print(f"{n} events in {os.path.join(OUT, 'events')}")


if __name__ == "__main__":
    main()
