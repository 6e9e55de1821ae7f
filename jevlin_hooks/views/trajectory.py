"""Threads read back from the local store as the path the agent took.

Built only from what the local sink stored (scrubbed, hashed records), so a trajectory shows
exactly what would have left the machine. A thread is a session (or a subagent's child thread);
a turn groups the searches that share its turn id, with its `turn_end` (when `[miner] turn_end`
is on) giving the prompt, the conclusion, tools, tokens and outcome. Windows come from the
records, so a compaction shows as the window number rising between two turns or searches.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from jevlin_hooks.base import paths
from jevlin_hooks.views.term import inert

UNFINISHED = ("abandoned",)
BAD_SEARCH = ("error", "interrupted", "abandoned", "cancelled")


@dataclass
class Turn:
    id: str
    searches: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None
    children: list[Thread] = field(default_factory=list)

    @property
    def window(self) -> int:
        """The window the turn started in (a turn_end carries the one it ended in)."""
        wins = [int(s.get("window") or 0) for s in self.searches]
        if self.end is not None:
            wins.append(int(self.end.get("window") or 0))
        return min(wins, default=0)

    @property
    def last_window(self) -> int:
        wins = [int(s.get("window") or 0) for s in self.searches] + [self.window]
        if self.end is not None:
            wins.append(int(self.end.get("window") or 0))
        return max(wins)

    @property
    def start(self) -> float:
        times = [parse_ts(s["ts"]) for s in self.searches]
        if self.end is not None:
            times.append(parse_ts(self.end["ts"]) - (self.end.get("duration_ms") or 0) / 1000)
        return min(times) if times else 0.0

    @property
    def stop(self) -> float:
        times = [parse_ts(s["ts"]) + (s.get("duration_ms") or 0) / 1000 for s in self.searches]
        if self.end is not None:
            times.append(parse_ts(self.end["ts"]))
        return max(times) if times else 0.0

    @property
    def outcome(self) -> str:
        if self.end is not None:
            return str(self.end.get("outcome") or "?")
        if any(s.get("status") == "abandoned" for s in self.searches):
            return "abandoned"
        return "unknown"


@dataclass
class Thread:
    id: str
    harness: str
    parent: str | None = None
    parent_call: str | None = None
    agent_type: str | None = None
    turns: list[Turn] = field(default_factory=list)

    @property
    def searches(self) -> list[dict[str, Any]]:
        return [s for t in self.turns for s in t.searches]

    def all_searches(self) -> list[dict[str, Any]]:
        return self.searches + [s for t in self.turns for c in t.children for s in c.all_searches()]

    @property
    def start(self) -> float:
        return min((t.start for t in self.turns), default=0.0)

    @property
    def stop(self) -> float:
        return max([t.stop for t in self.turns] + [c.stop for t in self.turns for c in t.children], default=0.0)

    @property
    def windows(self) -> int:
        return max((t.last_window for t in self.turns), default=0) + 1

    def tokens(self) -> dict[str, int] | None:
        """The turns' token counts summed, or None when no turn end recorded any (turn ends are
        off by default): a count that was not recorded is shown as not recorded, never as 0."""
        tot = {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0}
        seen = False
        for t in self.turns:
            got = (t.end or {}).get("tokens")
            if not isinstance(got, dict):
                continue
            seen = True
            for k, v in got.items():
                if k in tot and isinstance(v, int):
                    tot[k] += v
        return tot if seen else None

    def abandoned(self) -> int:
        n = sum(1 for t in self.turns if t.outcome in UNFINISHED)
        n += sum(1 for s in self.searches if s.get("status") == "abandoned")
        return n + sum(c.abandoned() for t in self.turns for c in t.children)


def parse_ts(value: str) -> float:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, AttributeError):
        return 0.0


STORE = "traces.db"


def refusal(home: str) -> str | None:
    """Why the views must not read this home (one line), or None: the same check the hooks, the
    daemon and `status` make (another user's home, or one others may write), and the store
    itself must be a regular file of the user's (not a symlink planted beside it)."""
    why = paths.untrusted(home)
    if why:
        return why
    path = os.path.join(home, STORE)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return f"the local store {path} is not a regular file (a symlink?): refused"
    return paths.refusal(path, st, "the local store")


def load_records(home: str) -> list[dict[str, Any]]:
    path = os.path.join(home, STORE)
    if not os.path.exists(path):
        return []
    # A URI, so `mode=ro` holds: the path quoted, or a `?`, `#` or `%` in the home would end it
    # early (and SQLite would create a stray database at the cut-off path).
    db = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
    try:
        return [json.loads(body) for (body,) in db.execute("SELECT body FROM records ORDER BY ts, seq")]
    finally:
        db.close()


def build(records: list[dict[str, Any]]) -> dict[str, Thread]:
    """Every thread by id; child threads are also placed under the turn they ran in."""
    threads: dict[str, Thread] = {}
    turns: dict[tuple[str, str], Turn] = {}
    for r in records:
        tid = r["session_id"]
        th = threads.get(tid)
        if th is None:
            th = threads[tid] = Thread(tid, r.get("harness") or "?", r.get("parent_session_id"))
        if r.get("parent_call_id"):
            th.parent_call = r["parent_call_id"]
        if r["kind"] == "search" and (r.get("host_meta") or {}).get("agent_type"):
            th.agent_type = r["host_meta"]["agent_type"]
        key = (tid, r.get("turn_id") or "")
        turn = turns.get(key)
        if turn is None:
            turn = turns[key] = Turn(r.get("turn_id") or "")
            th.turns.append(turn)
        if r["kind"] == "search":
            turn.searches.append(r)
        else:
            turn.end = r
    for th in threads.values():
        for t in th.turns:
            t.searches.sort(key=lambda s: (s.get("seq") or 0, s["ts"]))
        th.turns.sort(key=lambda t: t.start)
    for th in threads.values():
        parent = threads.get(th.parent or "")
        if parent is None or not th.turns:
            continue
        # the parent's turn that was under way when the child started (or the last before it)
        first = th.start
        host = None
        for t in parent.turns:
            if t.start <= first + 0.001:
                host = t
        (host or parent.turns[0]).children.append(th)
    return threads


def roots(threads: dict[str, Thread]) -> list[Thread]:
    return [t for t in threads.values() if t.parent is None or t.parent not in threads]


def find(threads: dict[str, Thread], prefix: str) -> Thread:
    hits = [t for t in threads.values() if t.id.startswith(prefix)]
    if not hits:
        raise LookupError(f"no thread starts with {prefix!r} (see `jevlin-hooks threads`)")
    if len(hits) > 1:
        raise LookupError(f"{prefix!r} matches {len(hits)} threads; give more characters: "
                          + ", ".join(t.id[:16] for t in hits[:5]))
    return hits[0]


# --- `threads` --------------------------------------------------------------------------------


def parse_since(value: str, now: float | None = None) -> float:
    now = time.time() if now is None else now
    units = {"m": 60, "h": 3600, "d": 86400, "w": 604800}
    if value and value[-1] in units and value[:-1].replace(".", "", 1).isdigit():
        return now - float(value[:-1]) * units[value[-1]]
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"--since {value!r}: use 30m, 2h, 7d, 1w or an ISO date") from None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp()


def harnesses(threads: dict[str, Thread]) -> list[str]:
    return sorted({th.harness for th in roots(threads)})


def rows(threads: dict[str, Thread], harness: str | None = None, since: float | None = None) -> list[dict[str, Any]]:
    out = []
    for th in roots(threads):
        if harness and th.harness != harness:
            continue
        if since is not None and th.stop < since:
            continue
        first = next((t.end.get("prompt") for t in th.turns if t.end and t.end.get("prompt")), None)
        children = [c for t in th.turns for c in t.children]
        said, source = title(th)
        out.append({
            "thread": th.id,
            "harness": th.harness,
            "first_asked": first,
            "title": said,
            "title_from": source,
            "turns": len(th.turns),
            "searches": len(th.all_searches()),
            "subagents": len(children),
            "windows": th.windows,
            "duration_s": round(max(0.0, th.stop - th.start), 3),
            "tokens": th.tokens(),
            "abandoned": th.abandoned(),
            "last_active": datetime.fromtimestamp(th.stop, UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        })
    out.sort(key=lambda r: str(r["last_active"]), reverse=True)
    return out


def title(th: Thread) -> tuple[str | None, str | None]:
    """What a thread is about, from its records (scrubbed): the first prompt when turn ends are
    on; else the first search's query; else the assistant text just before that search (its
    last line). The second value says which ("prompt", "query", "history"), None for nothing."""
    for t in th.turns:
        if t.end and t.end.get("prompt"):
            return str(t.end["prompt"]), "prompt"
    first = min(th.all_searches(), key=lambda s: (parse_ts(s["ts"]), s.get("seq") or 0), default=None)
    if first is None:
        return None, None
    if str(first.get("query") or "").strip():
        return str(first["query"]), "query"
    lines = [line for line in str(first.get("history") or "").splitlines() if line.strip()]
    return (lines[-1], "history") if lines else (None, None)


TITLE_SAID = {"prompt": "", "query": "first search: ", "history": "before its first search: "}
NO_PROMPT_NOTE = ("prompts are recorded only with [miner] turn_end = true: "
                  "rows without one show the thread's first search")


def title_said(row: dict[str, Any]) -> str:
    """A row's title as the list shows it, saying where it came from when it is not the prompt."""
    if not row.get("title"):
        return "(nothing recorded to name this thread)"
    return TITLE_SAID.get(row.get("title_from") or "", "") + str(row["title"])


def tokens_said(tok: dict[str, int] | None, sep: str = "/") -> str:
    """in/out tokens, or "-" when they were not recorded (turn ends off): never 0/0."""
    if not tok:
        return "-"
    return f"{tok.get('input', '-')}{sep}{tok.get('output', '-')}"


def _clip(text: str | None, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: max(0, n - 1)] + "\u2026"


def fmt_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 120:
        return f"{seconds:.1f}s"
    return f"{seconds / 60:.0f}m" if seconds < 7200 else f"{seconds / 3600:.1f}h"


def windows_range(n: int) -> str:
    """A thread's context windows by number, for a thread that had ``n`` of them. Every view
    numbers windows from 0, as the records' ``window`` field, `context`, `status` and the OTLP
    attribute ``jevlin.window`` do: one compaction makes windows 0-1. No view shows the count
    as a label, so "1" never stands for the window another view calls 0."""
    return "0" if n <= 1 else f"0-{n - 1}"


def windows_said(n: int) -> str:
    """How the thread views name a thread's context windows (see windows_range)."""
    return f"context window{'s' if n > 1 else ''} {windows_range(n)}"


def compaction_said(before: int, after: int) -> str:
    """How every view marks a compaction: the window numbers on both sides of it."""
    return f"context compacted: window {before} \u2192 {after}"


def render_rows(table: list[dict[str, Any]]) -> str:
    if not table:
        return "no threads in the local store yet (the daemon fills it: `jevlin-hooks daemon start`)"
    lines = [f"{'thread':<12} {'harness':<11} {'turns':>5} {'srch':>4} {'window':>6} {'dur':>6} {'tok in/out':>11} "
             f"{'last active':<16}"]
    for r in table:
        flag = f" {r['abandoned']} abandoned" if r["abandoned"] else ""
        lines.append(f"{r['thread'][:12]:<12} {r['harness']:<11} {r['turns']:>5} {r['searches']:>4} "
                     f"{windows_range(r['windows']):>6} {fmt_duration(r['duration_s']):>6} {tokens_said(r['tokens']):>11} "
                     f"{r['last_active'][:16].replace('T', ' '):<16}")
        lines.append(f"  {_clip(title_said(r), 74 - len(flag))}{flag}")
    if any(r.get("title_from") != "prompt" for r in table):
        import textwrap

        lines += ["", *textwrap.wrap(f"({NO_PROMPT_NOTE})", 80)]
    return inert("\n".join(lines))  # recorded text never drives the terminal


# --- `thread` -----------------------------------------------------------------------------------

MARK = {"ok": "ok", "empty": "EMPTY", "error": "FAILED", "interrupted": "INTERRUPTED",
        "abandoned": "ABANDONED", "cancelled": "CANCELLED"}


TURN_END_HINT = "turn ends are off, so prompts and conclusions are not shown: [miner] turn_end = true"


def render_text(th: Thread, width: int = 80, turn_end_hint: str = TURN_END_HINT) -> str:
    import textwrap

    out: list[str] = []
    head = (f"thread {th.id[:12]}  {th.harness}  {len(th.turns)} turn(s)  {len(th.all_searches())} search(es)  "
            f"{windows_said(th.windows)}")
    out.append(head[:width])
    started = datetime.fromtimestamp(th.start, UTC).strftime("%Y-%m-%d %H:%M:%S")
    out.append(f"started {started} UTC, lasted {fmt_duration(max(0.0, th.stop - th.start))}"[:width])
    out.append("\u2500" * width)
    _render_turns(th, out, "", width, textwrap)
    if not any(t.end for t in th.turns):
        out.append(f"({turn_end_hint})")
    return inert("\n".join(out))  # recorded text never drives the terminal


def _wrap(textwrap: Any, text: str, prefix: str, width: int, limit: int = 6) -> list[str]:
    lines = textwrap.wrap(" ".join(text.split()), width=max(20, width - len(prefix))) or [""]
    if len(lines) > limit:
        lines = lines[: limit - 1] + ["\u2026 " + lines[-1]]
    return [prefix + line for line in lines]


def _render_turns(th: Thread, out: list[str], indent: str, width: int, textwrap: Any) -> None:
    window = None
    for n, t in enumerate(th.turns, 1):
        if window is not None and t.window > window:
            out.append(f"{indent}\u2500\u2500 {compaction_said(window, t.window)} \u2500\u2500")
        window = t.last_window
        end = t.end or {}
        tok = end.get("tokens") or {}
        bits = [f"turn {n}"]
        if t.outcome != "unknown":  # a subagent's run, or turn ends off: no outcome recorded
            bits.append(t.outcome if t.outcome == "completed" else t.outcome.upper())
        bits.append(fmt_duration(max(0.0, t.stop - t.start)))
        if end.get("tools"):
            bits.append("tools " + ",".join(end["tools"]))
        if tok:
            bits.append(f"tokens {tokens_said(tok)}")
        out.append((indent + "  ".join(bits))[:width])
        if end.get("prompt"):
            out += _wrap(textwrap, "asked: " + end["prompt"], indent + "  ", width, 3)
        prev_window = t.window
        items: list[tuple[float, Any]] = [(parse_ts(s["ts"]), s) for s in t.searches] + [(c.start, c) for c in t.children]
        for _, item in sorted(items, key=lambda x: x[0]):
            if isinstance(item, Thread):
                label = f"subagent {item.id[:10]}" + (f" ({item.agent_type})" if item.agent_type else "")
                if item.parent_call:
                    label += f", started by call {item.parent_call[:10]}"
                out.append(f"{indent}  \u251c {label}"[:width])
                _render_turns(item, out, indent + "  \u2502   ", width, textwrap)
                continue
            s = item
            if int(s.get("window") or 0) > prev_window:
                out.append(f"{indent}  \u2500\u2500 {compaction_said(prev_window, int(s['window']))} \u2500\u2500")
                prev_window = int(s["window"])
            if s.get("history"):
                out += _wrap(textwrap, s["history"], indent + "  \u2502 ", width, 4)
            status = MARK.get(s.get("status") or "", str(s.get("status")))
            dur = f"{s['duration_ms']} ms" if isinstance(s.get("duration_ms"), int) else "-"
            line = f"{indent}  \u251c search #{s.get('seq')}  {s.get('tool') or ''}  {status}  {dur}  "
            out.append(line + _clip(repr(s.get("query") or ""), max(10, width - len(line))))
            res = s.get("result")
            if isinstance(res, dict) and isinstance(res.get("preview"), str):
                first = res["preview"].split("\n", 1)[0]
                n_lines = res.get("lines") if isinstance(res.get("lines"), int) else "-"
                said = f"{indent}  \u2502   \u21b3 {n_lines} line(s) back: "
                out.append(said + _clip(first, max(10, width - len(said))))
        if end and int(end.get("window") or 0) > prev_window:
            out.append(f"{indent}  \u2500\u2500 {compaction_said(prev_window, int(end['window']))} \u2500\u2500")
        if end.get("final_message"):
            out += _wrap(textwrap, "concluded: " + end["final_message"], indent + "  ", width, 3)
        if t.outcome == "abandoned":
            got = f"{len(t.searches)} search(es)"
            if t.searches:
                got += f", last #{t.searches[-1].get('seq')} {MARK.get(t.searches[-1].get('status') or '', '')}"
            out.append(f"{indent}  !! never ended (crash or kill): got as far as {got}"[:width])


def summarize(th: Thread) -> dict[str, Any]:
    """Stable JSON for diffing two runs of a task: no ids, no timestamps."""
    def one(t: Thread) -> dict[str, Any]:
        turns: list[dict[str, Any]] = []
        for turn in t.turns:
            turns.append({
                "outcome": turn.outcome,
                "window": turn.window,
                "tools": (turn.end or {}).get("tools") or sorted({s.get("tool") or "" for s in turn.searches}),
                "searches": [{"seq": s.get("seq"), "tool": s.get("tool"), "query": s.get("query"),
                              "status": s.get("status")} for s in turn.searches],
                "subagents": [one(c) for c in turn.children],
            })
        errors = [{"seq": s.get("seq"), "status": s.get("status")} for s in t.searches if s.get("status") in BAD_SEARCH]
        errors += [{"turn": i + 1, "outcome": x.outcome} for i, x in enumerate(t.turns)
                   if x.outcome in ("error", "interrupted", "abandoned")]
        return {
            "harness": t.harness,
            "turns": turns,
            "tool_sequence": [tool for turn in turns for tool in turn["tools"]],
            "search_count": len(t.all_searches()),
            "errors": errors,
            "windows": t.windows,
            "finished": bool(t.turns) and t.turns[-1].outcome == "completed",
            "tokens": t.tokens(),
        }

    return one(th)
