"""`jevlin-hooks ui`: a local trajectory browser over the local store.

The standard library's threading HTTP server, bound to the loopback interface only: no account,
no network, nothing to install. Every request reads the store afresh (read-only), so the page
shows what the daemon has delivered so far. Requests whose Host header is not a loopback name are
refused, so a web page elsewhere cannot reach the store through DNS rebinding.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from jevlin_hooks.views import trajectory, trajectory_html

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

LIST_CSS = trajectory_html.CSS + """
form.filter { display:flex; gap:10px; align-items:center; margin: 8px 0 18px; flex-wrap: wrap; }
form.filter select, form.filter input { font: inherit; padding: 3px 6px; }
table.threads { width:100%; border-collapse: collapse; background:#fff; border:1px solid var(--line); }
table.threads th, table.threads td { text-align:left; padding:7px 10px; border-bottom:1px solid var(--line);
                                     vertical-align: top; }
table.threads th { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; }
table.threads td.nw { white-space: nowrap; }
table.threads td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.threads td .asked { margin: 2px 0 0; color: var(--muted); font-size: 13px; }
table.threads td .asked::before { content: none; }
.empty { color: var(--muted); padding: 20px 0; }
"""

SINCE_CHOICES = (("", "any time"), ("1h", "last hour"), ("1d", "last day"), ("7d", "last 7 days"),
                 ("30d", "last 30 days"))


def _page(title: str, body: str) -> bytes:
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">" + trajectory_html.CSP_META +
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)} \u00b7 jevlin</title><style>{LIST_CSS}</style></head><body><main>"
            f"{body}</main></body></html>\n").encode()


def list_page(home: str, harness: str | None, since: str | None) -> bytes:
    threads = trajectory.build(trajectory.load_records(home))
    since_ts = None
    if since:
        try:
            since_ts = trajectory.parse_since(since)
        except ValueError:
            since = None
    if harness not in trajectory.harnesses(threads):
        harness = None
    table = trajectory.rows(threads, harness, since_ts)
    options = "".join(f'<option value="{escape(h)}"{" selected" if h == harness else ""}>{escape(h)}</option>'
                      for h in trajectory.harnesses(threads))
    sinces = "".join(f'<option value="{v}"{" selected" if v == (since or "") else ""}>{label}</option>'
                     for v, label in SINCE_CHOICES)
    out = ["<h1>Threads</h1>",
           f'<div class="meta"><span>{len(trajectory.roots(threads))} thread(s) in the local store</span>'
           f"<span>{len(table)} shown</span></div>",
           '<form class="filter" method="get" action="/">'
           f'<label>harness <select name="harness"><option value="">all</option>{options}</select></label>'
           f'<label>active <select name="since">{sinces}</select></label>'
           '<button type="submit">filter</button></form>']
    if not table:
        out.append('<p class="empty">' + ("No thread matches this filter." if threads else
                   "No threads in the local store yet: the daemon fills it (<code>jevlin-hooks daemon start</code>)."
                   ) + "</p>")
    else:
        out.append('<table class="threads"><thead><tr><th>thread</th><th>harness</th><th>turns</th>'
                   "<th>searches</th><th>subagents</th><th>context window</th><th>tokens in/out</th><th>last active</th>"
                   "</tr></thead><tbody>")
        for r in table:
            asked = trajectory.title_said(r)
            tok = trajectory.tokens_said(r["tokens"])
            n_abandoned = r["abandoned"]
            flag = " " + trajectory_html.pill(f"{n_abandoned} abandoned", "abandoned") if n_abandoned else ""
            tok_cell = (f'<td class="num">{tok}</td>' if tok != "-" else
                        '<td class="num" title="not recorded: turn ends are off">-</td>')
            out.append(
                f'<tr data-thread="{escape(r["thread"])}"><td><a href="/thread/{quote(r["thread"])}">'
                f'<code>{escape(r["thread"][:12])}</code></a>{flag}'
                f'<div class="asked">{escape(_clip(asked, 120))}</div></td>'
                f'<td class="nw">{escape(r["harness"])}</td><td class="num">{r["turns"]}</td>'
                f'<td class="num">{r["searches"]}</td><td class="num">{r["subagents"]}</td>'
                f'<td class="num">{trajectory.windows_range(r["windows"])}</td>{tok_cell}'
                f'<td class="nw">{escape(r["last_active"][:16].replace("T", " "))}</td></tr>')
        out.append("</tbody></table>")
        if any(r["title_from"] != "prompt" for r in table):
            note = trajectory.NO_PROMPT_NOTE
            out.append(f'<p class="note">{escape(note[0].upper() + note[1:])}.</p>')
    out.append(f'<p class="note">Read from {escape(home)}/traces.db at '
               f'{datetime.now(UTC).strftime("%H:%M:%S UTC")}: ids are hashed and text is scrubbed.</p>')
    return _page("Threads", "".join(out))


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def thread_page(home: str, thread_id: str) -> bytes | None:
    threads = trajectory.build(trajectory.load_records(home))
    th = threads.get(thread_id)
    if th is None:
        return None
    return trajectory_html.render(th, back="/").encode()


def host_name(host: str) -> str:
    """The name in a Host header, without the port ("[::1]:8377" -> "[::1]")."""
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0]


def make_handler(home: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "jevlin-hooks-ui"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass  # a local tool: no access log on the user's terminal

        def _send(self, status: HTTPStatus, body: bytes, ctype: str = "text/html; charset=utf-8") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            # The pages are self-contained: no script at all, nothing from elsewhere, never framed.
            self.send_header("Content-Security-Policy", trajectory_html.CSP + "; frame-ancestors 'none'")
            self.send_header("X-Frame-Options", "DENY")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
            self.do_GET()

        def do_GET(self) -> None:  # noqa: N802
            if host_name(self.headers.get("Host") or "") not in LOOPBACK_NAMES:
                self._send(HTTPStatus.FORBIDDEN, _page("Forbidden", "<p>Only loopback names are served.</p>"))
                return
            url = urlsplit(self.path)
            try:
                if url.path == "/":
                    q = parse_qs(url.query)
                    body = list_page(home, (q.get("harness") or [""])[0] or None, (q.get("since") or [""])[0] or None)
                    self._send(HTTPStatus.OK, body)
                elif url.path.startswith("/thread/"):
                    page = thread_page(home, url.path[len("/thread/"):])
                    if page is None:
                        self._send(HTTPStatus.NOT_FOUND, _page("Not found", '<p>No such thread. <a href="/">All '
                                                                           "threads</a></p>"))
                    else:
                        self._send(HTTPStatus.OK, page)
                else:
                    self._send(HTTPStatus.NOT_FOUND, _page("Not found", '<p><a href="/">All threads</a></p>'))
            except Exception as exc:  # noqa: BLE001 - one bad request must not stop the browser
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR,
                           _page("Error", f"<p>Could not read the local store: {escape(type(exc).__name__)}: "
                                          f"{escape(str(exc)[:300])}</p>"))

    return Handler


def serve(home: str, port: int = 8377, open_browser: bool = False) -> int:
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(home))
    except OSError as exc:
        print(f"jevlin-hooks: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc} (try --port 0)",
              file=sys.stderr)
        return 1
    server.daemon_threads = True
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"serving the local store on {url} (loopback only; Ctrl-C stops)", flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
