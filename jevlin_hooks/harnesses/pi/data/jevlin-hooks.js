// jevlin-hooks for Pi: gives every Jevlin search its agent context (thread, window, turn, call).
// Written by `jevlin-hooks install --harness pi`; `jevlin-hooks uninstall --harness pi` removes it.
// Self-contained: only node: built-ins, no npm install, no settings edit.
//
// Pi awaits tool_call and tool_result handlers; message/turn/agent events go through a queue it
// does not wait for, and some can arrive after session_shutdown, when every ctx getter throws.
// So: one resident Python process per pi process (`entry.py pi --stream`, detached) gets every
// forwarded event as a JSON line, in the order Pi delivered them, written straight into its
// pipe (a synchronous write: nothing is lost when `pi -p` exits right after the last event, and
// the process reads what is left after pi is gone; what a full pipe could not take by then goes
// to the tail file the process named, read as the rest of the stream). The only wait is at a
// tool_call that may be a search: its line asks for an ack, so its seq and call id are recorded
// before the command starts. Lineage lives in Python alone (jevlin_hooks/capture/harness/pi.py).
// No handler throws into Pi.
import { spawn } from "node:child_process";
import * as fs from "node:fs";

const PYTHON = __JEVLIN_PYTHON__;
const ENTRY = __JEVLIN_ENTRY__;
const ACK_TIMEOUT_MS = 2000; // a wedged recorder never holds a search longer than this
const EXIT_FLUSH_MS = 2000; // only when there is no tail file to leave the rest in
const TEXT_MAX = 32 * 1024; // history is the last 32 KiB of assistant text
const INPUT_MAX = 64 * 1024;
const SHELL_TOOLS = ["bash", "Bash", "Shell", "shell", "exec_command", "local_shell", "run_shell_command"];
const QUERY_KEYS = ["command", "cmd", "query", "q", "search_query", "search", "queries", "keywords", "prompt"];
const KEY = Symbol.for("jevlin-hooks.pi");

// One recorder per pi process: Pi builds the extension again for each session it switches to.
function shared() {
  let s = globalThis[KEY];
  if (!s) {
    const env = process.env;
    s = {
      // a pi started inside another pi's tool (a subagent) inherits the session that one exported
      parent: env.JEVLIN_PI_SESSION_ID && env.JEVLIN_PI_PID !== String(process.pid) ? env.JEVLIN_PI_SESSION_ID : null,
      off: (env.JEVLIN_TRACE || "").toLowerCase() === "off",
      child: null, fd: -1, pending: [], retry: null, spawns: 0, tail: null,
      acks: new Map(), nextAck: 1, out: "", search: null, held: new Set(),
    };
    globalThis[KEY] = s;
    process.on("exit", () => {
      try {
        for (const release of s.held) release();
        if (!flush(s, 0) && !leaveTail(s)) flush(s, Date.now() + EXIT_FLUSH_MS);
      } catch {}
    });
  }
  return s;
}

function start(s) {
  if (s.child) return true;
  if (s.spawns >= 3) return false; // the interpreter is gone: stop trying, never fail pi
  s.spawns += 1;
  try {
    const child = spawn(PYTHON, ["-I", "-S", ENTRY, "pi", "--stream"],
      { detached: true, stdio: ["pipe", "pipe", "ignore"], env: process.env });
    const gone = () => { if (s.child === child) drop(s); };
    child.on("error", gone);
    child.on("exit", gone);
    child.stdin.on("error", () => {});
    child.stdout.on("error", () => {});
    child.stdout.on("data", (d) => answer(s, d));
    child.unref(); child.stdin.unref(); child.stdout.unref(); // never keep pi alive
    const h = child.stdin._handle;
    s.fd = h && typeof h.fd === "number" && h.fd >= 0 ? h.fd : -1;
    s.child = child;
    return true;
  } catch {
    return false;
  }
}

// The recorder is gone: nobody will answer, so nothing waits for it.
function drop(s) {
  s.child = null; s.fd = -1; s.out = ""; s.tail = null; s.search = null;
  for (const done of s.acks.values()) done();
  s.acks.clear();
}

function answer(s, data) {
  s.out += data.toString("utf8");
  let i;
  while ((i = s.out.indexOf("\n")) >= 0) {
    const line = s.out.slice(0, i);
    s.out = s.out.slice(i + 1);
    let v;
    try { v = JSON.parse(line); } catch { continue; }
    if (typeof v === "number") {
      const done = s.acks.get(v);
      if (done) { s.acks.delete(v); done(); }
    } else if (v && typeof v === "object" && v.search) {
      s.search = v.search;
      if (typeof v.tail === "string") s.tail = v.tail;
    }
  }
}

// Write what is pending into the pipe now. Until `deadline` a full pipe is retried (at exit);
// otherwise later, from a timer. A pipe whose reader is gone drops the lines (and a new
// recorder starts at the next event).
function flush(s, deadline) {
  while (s.pending.length && s.child) {
    const buf = s.pending[0];
    let n;
    try {
      if (s.fd >= 0) n = fs.writeSync(s.fd, buf);
      else { s.child.stdin.write(buf); n = buf.length; }
    } catch (e) {
      if (e && e.code === "EAGAIN") {
        if (deadline && Date.now() < deadline) continue;
        if (!s.retry) {
          s.retry = setTimeout(() => { s.retry = null; try { flush(s, 0); } catch {} }, 5);
          s.retry.unref();
        }
        return false;
      }
      s.pending = [];
      // Only a recorder that really started: after a failed spawn (a missing interpreter) the
      // child has no pid, and kill() would reach kill(0): pi's whole process group.
      try { if (Number.isInteger(s.child.pid) && s.child.pid > 0) s.child.kill(); } catch {}
      drop(s);
      return false;
    }
    if (n < buf.length) s.pending[0] = buf.subarray(n);
    else s.pending.shift();
  }
  return s.pending.length === 0;
}

// At exit, with the recorder still behind: what the pipe did not take, into the recorder's tail
// file (created here, 0600, never through a symlink), so pi exits without waiting.
function leaveTail(s) {
  if (!s.tail || !s.child || !s.pending.length) return false;
  const c = fs.constants;
  let fd = -1;
  try {
    fd = fs.openSync(s.tail, c.O_WRONLY | c.O_CREAT | c.O_EXCL | c.O_NOFOLLOW, 0o600);
    const data = Buffer.concat(s.pending);
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off);
    s.pending = [];
    return true;
  } catch {
    return false;
  } finally {
    if (fd >= 0) try { fs.closeSync(fd); } catch {}
  }
}

function send(s, line) {
  if (s.off) return false;
  let buf;
  try { buf = Buffer.from(JSON.stringify(line) + "\n", "utf8"); } catch { return false; }
  if (!start(s)) return false;
  s.pending.push(buf);
  flush(s, 0);
  return s.child !== null;
}

function glob(pattern, name) {
  const parts = String(pattern).split("*");
  if (parts.length === 1) return pattern === name;
  if (!name.startsWith(parts[0]) || !name.endsWith(parts[parts.length - 1])) return false;
  let pos = parts[0].length;
  const end = name.length - parts[parts.length - 1].length;
  for (const p of parts.slice(1, -1)) {
    const at = name.indexOf(p, pos);
    if (at < 0 || at + p.length > end) return false;
    pos = at + p.length;
  }
  return pos <= end;
}

// A cheap "could this be a search?" from the recorder's [search] config; the recorder decides.
function mightSearch(s, tool, input) {
  const cfg = s.search;
  if (!cfg) return true; // config not known yet: ask
  if ((cfg.tools || []).some((p) => glob(p, tool))) return true;
  if (!SHELL_TOOLS.includes(tool)) return false;
  const cmd = input && typeof input === "object" ? String(input.command ?? input.cmd ?? "") : String(input ?? "");
  return (cfg.shell_commands || []).some((c) => {
    const word = String(c).trim().split(/\s+/)[0] || "";
    const base = word.split("/").pop();
    return base !== "" && cmd.includes(base);
  });
}

function cut(text, max) {
  return typeof text === "string" && text.length > max ? text.slice(-max) : text;
}

function slimInput(v) {
  try {
    const j = JSON.stringify(v);
    if (j === undefined || j.length <= INPUT_MAX) return v ?? null;
  } catch { return null; }
  const out = {};
  if (v && typeof v === "object") for (const k of QUERY_KEYS) if (typeof v[k] === "string") out[k] = v[k].slice(0, INPUT_MAX);
  return out;
}

// A tool's output stays here: only whether there was any (ok / empty).
function slimContent(content) {
  const list = Array.isArray(content) ? content : [];
  const any = list.some((b) => b && b.type === "text" && typeof b.text === "string" && b.text.trim() !== "");
  return [{ type: "text", text: any ? "." : "" }];
}

function slimMessage(m, withText) {
  if (!m || typeof m !== "object") return null;
  const u = m.usage && typeof m.usage === "object" ? m.usage : null;
  const out = {
    role: m.role, timestamp: m.timestamp, model: m.model, provider: m.provider, stopReason: m.stopReason,
    usage: u ? { input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite } : undefined,
  };
  if (withText) {
    out.content = typeof m.content === "string" ? cut(m.content, TEXT_MAX)
      : (Array.isArray(m.content) ? m.content : []).filter((b) => b && b.type === "text" && typeof b.text === "string")
        .map((b) => ({ type: "text", text: cut(b.text, TEXT_MAX) }));
  }
  return out;
}

function hasText(m) {
  if (!m) return false;
  if (typeof m.content === "string") return m.content !== "";
  return Array.isArray(m.content) && m.content.some((b) => b && b.type === "text" && b.text);
}

export default function jevlinHooks(pi) {
  const s = shared();
  const me = { ctx: null, awaitingPrompt: false, running: false, shutdown: null };

  // The session, as ctx tells it now; after session_shutdown ctx is stale: the last one seen.
  const session = (ctx) => {
    try {
      const sm = ctx.sessionManager;
      const id = sm.getSessionId();
      if (typeof id === "string" && id) {
        let header = null;
        try {
          const h = sm.getHeader();
          if (h && typeof h === "object") header = { parentSession: h.parentSession };
        } catch {}
        const m = ctx.model;
        me.ctx = {
          sessionId: id, sessionFile: sm.getSessionFile() ?? null, cwd: ctx.cwd, header,
          model: m ? { provider: m.provider, id: m.id } : null,
        };
      }
    } catch {}
    return me.ctx;
  };

  const on = (name, handler) => {
    pi.on(name, async (event, ctx) => {
      try {
        if (s.off) return undefined;
        const c = session(ctx);
        if (c) await handler(event, c);
      } catch {}
      return undefined;
    });
  };
  const forward = (c, event, jv) => send(s, { event, ctx: c, jv: jv || {} });

  on("session_start", (e, c) => {
    // every later tool shell (and a child pi) sees which session it runs in
    process.env.JEVLIN_PI_SESSION_ID = c.sessionId;
    process.env.JEVLIN_PI_PID = String(process.pid);
    const jv = s.parent && s.parent !== c.sessionId ? { parent: s.parent } : {};
    // what Pi's file holds now (a resumed session's past); the recorder may read it later,
    // when this run has already appended to it
    let size = 0;
    try { if (c.sessionFile) size = fs.statSync(c.sessionFile).size; } catch {}
    jv.fileSize = size;
    forward(c, { type: "session_start", reason: e.reason, previousSessionFile: e.previousSessionFile }, jv);
  });
  on("agent_start", () => { me.awaitingPrompt = true; me.running = true; });
  on("message_end", (e, c) => {
    const m = e.message;
    if (!m || typeof m !== "object") return;
    if (m.role === "user" && me.awaitingPrompt) {
      me.awaitingPrompt = false; // the prompt of this agent run: the turn
      forward(c, { type: "message_end", message: slimMessage(m, true) }, { prompt: true });
    } else if (m.role === "assistant" && hasText(m)) {
      forward(c, { type: "message_end", message: slimMessage(m, true) });
    }
  });
  on("tool_call", async (e, c) => {
    const event = { type: "tool_call", toolName: e.toolName, toolCallId: e.toolCallId, input: slimInput(e.input) };
    if (!mightSearch(s, String(e.toolName ?? ""), e.input)) {
      forward(c, event);
      return;
    }
    const n = s.nextAck++;
    const acked = new Promise((resolve) => {
      // ref'd on purpose: while pi awaits this, it is what keeps `pi -p` from exiting
      const timer = setTimeout(() => { s.acks.delete(n); resolve(); }, ACK_TIMEOUT_MS);
      s.acks.set(n, () => { clearTimeout(timer); resolve(); });
    });
    if (!forward(c, event, { ack: n })) { s.acks.delete(n); return; }
    await acked; // the search's seq and call id are recorded: now its process may start
  });
  on("tool_result", (e, c) => {
    forward(c, { type: "tool_result", toolName: e.toolName, toolCallId: e.toolCallId, input: slimInput(e.input),
                 content: slimContent(e.content), isError: e.isError === true });
  });
  on("tool_execution_end", (e, c) => {
    // the only event for a call Pi refused (unknown tool, invalid arguments)
    forward(c, { type: "tool_execution_end", toolName: e.toolName, toolCallId: e.toolCallId, args: slimInput(e.args),
                 result: { content: slimContent(e.result && e.result.content) }, isError: e.isError === true });
  });
  on("agent_end", (e, c) => {
    me.awaitingPrompt = false;
    me.running = false;
    const msgs = Array.isArray(e.messages) ? e.messages : [];
    let last = -1;
    msgs.forEach((m, i) => { if (m && m.role === "assistant") last = i; });
    forward(c, { type: "agent_end", messages: msgs.map((m, i) => slimMessage(m, i === last)) });
    if (me.shutdown) me.shutdown();
  });
  on("session_compact", (e, c) => {
    const entry = e.compactionEntry || {};
    forward(c, { type: "session_compact", compactionEntry: { type: "compaction", id: entry.id, tokensBefore: entry.tokensBefore } });
  });
  on("session_shutdown", (e, c) => {
    const line = () => {
      s.held.delete(me.shutdown);
      me.shutdown = null;
      forward(c, { type: "session_shutdown", reason: e.reason });
    };
    if (!me.running) { line(); return; }
    // Pi's queue still holds this run's last events (a slow handler elsewhere): they arrive after
    // session_shutdown. Hold the shutdown until agent_end, or until pi exits without one.
    me.shutdown = line;
    s.held.add(line);
  });
}
