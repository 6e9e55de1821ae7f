"""Our Pi extension (jevlin_hooks/harnesses/pi/data/jevlin-hooks.js, as install renders it) run by node with
a stand-in for Pi's `pi.on` and ctx, against the real recorder: what the real Pi cannot be made
to do on demand (a stale ctx that throws, a recorder that is slow to read while the process
exits with megabytes still to write to a recorder that is busy)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import hook_errors, queued

from jevlin_hooks.capture import lineage
from jevlin_hooks.harnesses.pi import install as install_pi

NODE = shutil.which("node")
if NODE is None:
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError("node missing")
    pytest.skip("node not installed", allow_module_level=True)

DRIVER = """
import * as fs from "node:fs";
import ext from "./ext.mjs";
const handlers = {};
ext({ on: (name, h) => { handlers[name] = h; } });
let stale = false;
const sm = { getSessionId: () => { if (stale) throw new Error("This extension ctx is stale"); return "sess-ext"; },
             getSessionFile: () => undefined, getHeader: () => ({ type: "session", id: "sess-ext" }) };
const ctx = { get sessionManager() { if (stale) throw new Error("stale"); return sm; }, cwd: process.cwd(),
              model: { provider: "x", id: "m" } };
const user = { role: "user", timestamp: 1796000000000, content: [{ type: "text", text: "go" }] };
%s
"""


def run_driver(tmp_path, body: str, home: str, python: str | None = None) -> subprocess.CompletedProcess[str]:
    text = install_pi.render().decode()
    if python:
        text = text.replace(json.dumps(os.path.realpath(sys.executable)), json.dumps(python))
    (tmp_path / "ext.mjs").write_text(text)
    (tmp_path / "driver.mjs").write_text(DRIVER % textwrap.dedent(body))
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEVLIN_PI")}
    env["JEVLIN_HOME"] = home
    p = subprocess.run([NODE, str(tmp_path / "driver.mjs")], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    return p


def wait_done(home: str) -> None:
    """The recorder exits at end of input, after pi (node) is gone; wait for its last write."""
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        st = lineage.read(home, lineage.file_name("pi", "sess-ext"))
        if st is not None and st.get("status") != "active":
            return
        time.sleep(0.05)
    raise AssertionError("the recorder did not finish")


def test_exit_with_megabytes_unwritten_and_a_busy_reader_loses_nothing(tmp_path, probe_home):
    """The recorder is busy (reading back a 40 MB session file at session start) while 3 MB of
    lines, far more than its pipe holds, are sent; node exits at once. It does not wait: what the
    pipe did not take goes to the recorder's tail file, and every event still arrives."""
    big_file = tmp_path / "big-session.jsonl"
    with open(big_file, "w") as f:
        f.write('{"type":"session","version":3,"id":"sess-ext"}\n')
        line = json.dumps({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "y" * 2000}]}})
        for i in range(20000):
            f.write(line.replace('"type": "message"', f'"type": "message", "id": "e{i}"') + "\n")
    p = run_driver(tmp_path, """
        sm.getSessionFile = () => BIG_FILE;
        await handlers.session_start({ type: "session_start", reason: "startup" }, ctx);
        const shared = globalThis[Symbol.for("jevlin-hooks.pi")];
        while (!shared.tail) await new Promise((r) => setTimeout(r, 10));  // the recorder has started
        await handlers.agent_start({ type: "agent_start" }, ctx);
        await handlers.message_end({ type: "message_end", message: user }, ctx);
        const big = "x".repeat(30000);
        for (let i = 1; i <= 100; i++) {
          await handlers.message_end({ type: "message_end", message: { role: "assistant", content: [{ type: "text", text: big + i }] } }, ctx);
          // not awaited: its line is written before the handler first waits (for the ack)
          handlers.tool_call({ type: "tool_call", toolName: "bash", toolCallId: "call" + i, input: { command: `jevlin search "q${i}"` } }, ctx);
        }
        process.on("exit", () => console.log("at-exit", shared.pending.length, fs.existsSync(shared.tail)));
        process.exit(0);
    """.replace("BIG_FILE", json.dumps(str(big_file))), probe_home)
    assert p.stdout.split() == ["at-exit", "0", "true"], "node left the rest in the tail file"
    wait_done(probe_home)
    st = lineage.read(probe_home, lineage.file_name("pi", "sess-ext"))
    assert st["seq"] == 100 and st["searches"] == 100
    recs = queued(probe_home, "search")
    assert sorted(r["seq"] for r in recs) == list(range(1, 101)) and {r["status"] for r in recs} == {"abandoned"}
    assert all(r["history"].endswith(f"x{r['seq']}") for r in recs)
    assert os.listdir(os.path.join(probe_home, "sessions", "stream-tail")) == [], "the tail file is consumed"
    assert hook_errors(probe_home) == ""


def test_a_stale_ctx_uses_the_last_session_and_nothing_throws(tmp_path, probe_home):
    p = run_driver(tmp_path, """
        await handlers.session_start({ type: "session_start", reason: "startup" }, ctx);
        console.log(process.env.JEVLIN_PI_SESSION_ID, process.env.JEVLIN_PI_PID === String(process.pid));
        await handlers.agent_start({ type: "agent_start" }, ctx);
        await handlers.message_end({ type: "message_end", message: user }, ctx);
        await handlers.tool_call({ type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: 'jevlin search "q"' } }, ctx);
        // when tool_call returns, the call is recorded: its command may start now
        const st = JSON.parse(fs.readFileSync(process.env.JEVLIN_HOME + "/sessions/pi.sess-ext.json", "utf8"));
        console.log("recorded", Object.values(st.pending).map((p) => `${p.call_id}:${p.seq}`).join(","));
        await handlers.tool_result({ type: "tool_result", toolName: "bash", toolCallId: "c1", input: { command: 'jevlin search "q"' }, content: [], isError: false }, ctx);
        stale = true;  // after session_shutdown every ctx getter throws
        await handlers.session_shutdown({ type: "session_shutdown", reason: "quit" }, ctx);
        await handlers.session_compact({ type: "session_compact", compactionEntry: { id: "abcd1234" } }, ctx);
        console.log(await handlers.message_end({ type: "message_end", message: null }, null));
    """, probe_home)
    assert p.stdout.split() == ["sess-ext", "true", "recorded", "c1:1", "undefined"]
    wait_done(probe_home)
    (rec,) = queued(probe_home, "search")
    assert rec["status"] == "empty" and rec["seq"] == 1
    st = lineage.read(probe_home, lineage.file_name("pi", "sess-ext"))
    assert st["window"] == 1 and st["status"] == "ended", "the late compaction reached the right session"
