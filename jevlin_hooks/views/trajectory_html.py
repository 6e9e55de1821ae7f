"""`jevlin-hooks thread ID --html FILE`: one self-contained page (no network, no CDN, no script
from elsewhere) showing a thread as the path the agent took."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from typing import Any

from jevlin_hooks.views.trajectory import (
    MARK,
    Thread,
    Turn,
    compaction_said,
    fmt_duration,
    parse_ts,
    tokens_said,
    windows_said,
)

# The pages are self-contained: no script at all (nor an inline handler: script-src falls back
# to default-src), nothing fetched from elsewhere, no <base>, forms only to the page's own origin.
# In a file as a <meta> tag; the `ui` server also sends it as a header.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'"
CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'

CSS = """
:root { --fg:#1d232a; --muted:#5f6b7a; --line:#d8dee6; --bg:#f6f8fa; --ok:#1f7a3d; --bad:#b42318; --warn:#9a6700;
        --accent:#3451b2; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color:var(--fg);
       background:var(--bg); }
main { max-width: 980px; margin: 0 auto; padding: 28px 20px 60px; }
h1 { font-size: 20px; margin: 0 0 4px; } h1 code { font-size: 17px; }
.meta { color: var(--muted); margin-bottom: 22px; }
.meta span { margin-right: 16px; white-space: nowrap; }
.turn { background:#fff; border:1px solid var(--line); border-radius:10px; padding:14px 18px; margin:14px 0; }
.turn > header { display:flex; flex-wrap:wrap; gap:10px; align-items:baseline; }
.turn > header b { font-size:16px; }
.pill { font-size:12px; border-radius:999px; padding:1px 9px; border:1px solid var(--line); color:var(--muted); }
.pill.completed, .pill.ok { color:var(--ok); border-color:#b7dfc4; background:#eefaf1; }
.pill.error, .pill.FAILED, .pill.abandoned, .pill.ABANDONED { color:var(--bad); border-color:#f3c0bb; background:#fff1f0; }
.pill.interrupted, .pill.INTERRUPTED, .pill.EMPTY, .pill.CANCELLED { color:var(--warn); border-color:#efd9a6; background:#fff8e6; }
.asked, .concluded { margin:10px 0 4px; }
.asked::before { content:"asked "; color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.05em; }
.concluded::before { content:"concluded "; color:var(--muted); font-size:12px; text-transform:uppercase;
                     letter-spacing:.05em; }
.step { border-left: 3px solid var(--line); margin: 10px 0 0 4px; padding: 2px 0 2px 14px; }
.history { color:#39424e; white-space: pre-wrap; background:var(--bg); border-radius:6px; padding:8px 10px;
           font-size:14px; max-height: 12em; overflow:auto; }
.search { margin-top:6px; display:flex; flex-wrap:wrap; gap:10px; align-items:baseline; }
.search .q { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:14px; }
.search .n { color:var(--accent); font-weight:600; }
.search .d { color:var(--muted); font-size:13px; }
.compaction { text-align:center; color:var(--muted); margin:18px 0; font-size:13px; }
.compaction::before, .compaction::after { content:""; display:inline-block; width:30%; border-top:1px dashed #aab4c0;
                                          vertical-align:middle; margin:0 10px; }
.subagent { border:1px dashed #aab4c0; border-radius:8px; padding:8px 12px; margin:10px 0 0 4px; background:#fbfcfd; }
.subagent > .label { font-size:13px; color:var(--muted); }
.subagent .turn { border:none; padding:6px 0; margin:4px 0; background:transparent; }
.warning { color:var(--bad); margin-top:8px; }
.note { color:var(--muted); font-size:13px; margin-top:24px; }
.result { margin:4px 0 0; font-size:13px; color:var(--muted); }
.result pre { white-space:pre-wrap; background:var(--bg); border-radius:6px; padding:6px 10px; margin:4px 0;
              max-height: 10em; overflow:auto; color:#39424e; }
nav.back { margin-bottom: 12px; font-size: 14px; } nav.back a { color: var(--accent); }
"""


def pill(text: str, cls: str | None = None) -> str:
    return f'<span class="pill {escape(cls or text)}">{escape(text)}</span>'


def _turn(turn: Turn, n: int, out: list[str]) -> None:
    end = turn.end or {}
    out.append(f'<section class="turn" data-outcome="{escape(turn.outcome)}"><header><b>Turn {n}</b>'
               f"{pill(turn.outcome) if turn.outcome != 'unknown' else ''}"
               f"<span class=\"d\">{fmt_duration(max(0.0, turn.stop - turn.start))}</span>")
    if end.get("tools"):
        out.append(f'<span class="d">tools: {escape(", ".join(end["tools"]))}</span>')
    tok = end.get("tokens") or {}
    if tok:
        out.append(f'<span class="d">tokens {tokens_said(tok, " in / ")} out</span>')
    out.append("</header>")
    if end.get("prompt"):
        out.append(f'<div class="asked">{escape(end["prompt"])}</div>')
    window = turn.window
    items: list[tuple[float, Any]] = [(parse_ts(s["ts"]), s) for s in turn.searches] + [(c.start, c) for c in turn.children]
    for _, item in sorted(items, key=lambda x: x[0]):
        if isinstance(item, Thread):
            label = f"Subagent <code>{escape(item.id[:12])}</code>"
            if item.agent_type:
                label += f" ({escape(item.agent_type)})"
            if item.parent_call:
                label += f", started by call <code>{escape(item.parent_call[:12])}</code>"
            out.append(f'<div class="subagent"><div class="label">{label}</div>')
            _turns(item, out)
            out.append("</div>")
            continue
        s = item
        if int(s.get("window") or 0) > window:
            out.append(f'<div class="compaction">{compaction_said(window, int(s["window"]))}</div>')
            window = int(s["window"])
        status = MARK.get(s.get("status") or "", str(s.get("status")))
        out.append(f'<div class="step" data-status="{escape(str(s.get("status")))}">')
        if s.get("history"):
            out.append(f'<div class="history">{escape(s["history"])}</div>')
        dur = f'{s["duration_ms"]} ms' if isinstance(s.get("duration_ms"), int) else ""
        out.append(f'<div class="search"><span class="n">search #{s.get("seq")}</span>'
                   f'<span class="q">{escape(s.get("query") or "")}</span>{pill(status)}'
                   f'<span class="d">{escape(s.get("tool") or "")} {dur}</span></div>')
        out.append(_result(s.get("result")) + "</div>")
    if end and int(end.get("window") or 0) > window:
        out.append(f'<div class="compaction">{compaction_said(window, int(end["window"]))}</div>')
    if end.get("final_message"):
        out.append(f'<div class="concluded">{escape(end["final_message"])}</div>')
    if turn.outcome == "abandoned":
        out.append(f'<div class="warning">Never ended (a crash or kill): got as far as {len(turn.searches)} search(es).</div>')
    out.append("</section>")


def _result(res: Any) -> str:
    """What the search returned, kept by the local store only (`[privacy] local_results`)."""
    if not isinstance(res, dict):
        return ""
    n = res.get("lines")
    head = f"{n} line(s) came back" if isinstance(n, int) else "came back"
    preview = res.get("preview") if isinstance(res.get("preview"), str) else ""
    return (f'<details class="result"><summary>{escape(head)}</summary>'
            f'<pre>{escape(preview)}</pre></details>') if preview else f'<div class="result d">{escape(head)}</div>'


def _turns(th: Thread, out: list[str]) -> None:
    window = None
    for n, t in enumerate(th.turns, 1):
        if window is not None and t.window > window:
            out.append(f'<div class="compaction">{compaction_said(window, t.window)}</div>')
        window = t.last_window
        _turn(t, n, out)


def render(th: Thread, back: str | None = None) -> str:
    """The page; ``back`` is the href of a link to the list (the local ui), none on a file."""
    started = datetime.fromtimestamp(th.start, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    tok = th.tokens()
    out = ["<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">", CSP_META,
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
           f"<title>Thread {escape(th.id[:12])} \u00b7 jevlin</title><style>{CSS}</style></head><body><main>",
           f'<nav class="back"><a href="{escape(back)}">\u2190 all threads</a></nav>' if back else "",
           f"<h1>Thread <code>{escape(th.id[:16])}</code></h1>",
           '<div class="meta">'
           f"<span>{escape(th.harness)}</span><span>started {started}</span>"
           f"<span>{len(th.turns)} turn(s)</span><span>{len(th.all_searches())} search(es)</span>"
           f"<span>{windows_said(th.windows)}</span><span>lasted {fmt_duration(max(0.0, th.stop - th.start))}</span>"
           + (f"<span>tokens {tok['input']} in / {tok['output']} out</span></div>" if tok else
              '<span title="not recorded: turn ends are off">tokens -</span></div>')]
    _turns(th, out)
    if not any(t.end for t in th.turns):
        out.append('<p class="note">Turn ends are off, so what each turn asked and concluded is not recorded '
                   "(<code>[miner] turn_end = true</code>).</p>")
    out.append('<p class="note">Built from the local store: ids are hashed and text is scrubbed, exactly as '
               "it would be sent.</p></main></body></html>\n")
    return "".join(out)
