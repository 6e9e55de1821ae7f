"""The check of printed-secret (rules/printed.py): where a command that prints a credential shows
its output, and whether that output is a value.

The match is the command, from its first word to the end of its line. The text before it on the
line says how the output is shown:

* a shell prompt (``$ ``, ``% ``, ``# ``, ``❯ ``, ``PS C:\\> ``, ``>>> ``, ``user@host:~$ ``) or
  nothing (a command alone on its line, as in a code block): the lines after it;
* ``⏺ Bash(`` (Claude-Code-like): the ``⎿`` block under it;
* ``• Ran `` (Codex-like): the ``└`` block under it; ``bash -lc '...'`` after an ``exec`` line:
  the lines after its ``succeeded in ...:`` line;
* ``"command": "`` (a JSON tool call): the next ``"output"``, ``"content"``, ``"text"`` or
  ``"stdout"`` string after the call (the tool result);
* anything else (prose, a command inside a sentence or a script): no output is read.

The output runs to the next prompt, a blank line, a fence or a transcript marker, and at most
``MAX_LINES`` lines; its value is its first line (with a PEM block, a JSON document or a value
wrapped over lines whole; a prompt glued to its end, where no newline was printed, cut off). It
is redacted unless it reads as an error message (``Error: ...``, ``not found``), is empty, a
placeholder or a mask; where the command names what it prints, that name must say credential
(checks/judges.credential_key), and under a name that only hints (``*_KEY``, ``*_ID``) the value
must look random.
"""

from __future__ import annotations

import re
from typing import Any

from jevlin_hooks.privacy.checks.judges import credential_key, masked, phrase_value, spaced_password
from jevlin_hooks.privacy.checks.registry import Check, register
from jevlin_hooks.privacy.heuristics import looks_fake, password_like, placeholder, random_looking_cached
from jevlin_hooks.privacy.rules.printed import COMMANDS

MAX_LINES = 40
MAX_OUTPUT = 16 * 1024

_COMPILED = [(c, re.compile(c.command), re.compile(c.name) if c.name else None) for c in COMMANDS]
_PROMPT = re.compile(r"[ \t]*(?:(?:\S[^\n]{0,100}?)?(?:[$%#>\u276f\u00bb\u279c\u03bb]|PS[ \t][^\n>]{0,100}>|In \[\d+\]:)[ \t]+)?"
                     r"(?:[^\n]{0,200}?(?:&&|;)[ \t]*)?(?:sudo[ \t]+(?:-\S+[ \t]+)*)?")
_CLAUDE = re.compile(r"[ \t]*\u23fa[ \t]*(?:Bash|Shell|PowerShell)\(")
_CODEX_RAN = re.compile(r"[ \t]*[\u2022\u25cf][ \t]*Ran[ \t]+")
_CODEX_SHELL = re.compile(r"[ \t]*(?:bash|zsh|sh)[ \t]+-l?c[ \t]+[\"']?")
_JSON_CALL = re.compile(r'\\?"(?:command|cmd)\\?"[ \t]*:[ \t]*(?:\[[^\]\n]*?)?\\?"')
_JSON_STRING_END = re.compile(r'(?:[^"\\\n]|\\.)*"')
_JSON_OUTPUT = re.compile(r'"(?:output|content|text|stdout|result|aggregated_output|formatted_output)"[ \t]*:[ \t]*"')
_STATUS = re.compile(r"[ \t]*(?:succeeded|exited[ \t]+-?\d+|failed)\b[^\n]*:[ \t]*\r?$|[ \t]*(?:Exit code|Wall time|Output)\b[^\n]*\r?$",
                     re.IGNORECASE)
_BLANKS = re.compile(r"[ \t]*")
_MARKER = re.compile(r"[ \t]*(?:[\u23bf\u2514\u2502\u21aa][ \t]*)?")
_OUTPUT_END = re.compile(r"[ \t]*(?:```|~~~|\u23fa|[\u2022\u25cf][ \t]|exec\r?$|codex\r?$|thinking\r?$|[$%\u276f][ \t]|PS[ \t][^\n>]*>|>>>[ \t])")
# An error or a notice, not a value: what CLIs print when there is nothing to print
_ERROR = re.compile(r"(?i)^(?:error|err|warning|warn|fatal|usage|no |not |none\b|null\b|unable|cannot|can't|could not|failed|invalid|"
                    r"unknown|an error|\[error\]|traceback|exception|permission|access denied|command not found|"
                    r"[\w.\-]+: (?:command not found|not found|no such)|bash:|zsh:|sh:|-bash:)|"
                    r"\b(?:not found|does not exist|no such|denied|not authorized|unauthorized|forbidden|expired)\b")


def _which(text: str, s: int, e: int) -> tuple[Any, Any] | None:
    """The table's row whose command starts at ``s``, with its name pattern."""
    for row, rx, name_rx in _COMPILED:
        if rx.match(text, s, e):
            return row, name_rx
    return None


def _name(name_rx: Any, command: str) -> str | None:
    m = name_rx.search(command)
    if m is None:
        return None
    return next((g for g in m.groups() if g), None)


def _lines(text: str, pos: int, end_at: Any = None) -> list[tuple[int, int]]:
    """The output's lines from ``pos`` as (content start, content end), transcript markers and
    indentation left out, up to a blank line, a prompt, a fence or a transcript marker."""
    out: list[tuple[int, int]] = []
    stop = min(len(text), pos + MAX_OUTPUT)
    while pos < stop and len(out) < MAX_LINES:
        nl = text.find("\n", pos, stop)
        le = stop if nl < 0 else nl
        if out and (_OUTPUT_END.match(text, pos, le) or end_at is not None and end_at(text, pos, le)):
            break
        cs = _MARKER.match(text, pos, le).end()  # type: ignore[union-attr]
        ce = le
        while ce > cs and text[ce - 1] in " \t\r":
            ce -= 1
        if ce == cs:
            break  # a blank line ends the output
        out.append((cs, ce))
        if nl < 0:
            break
        pos = nl + 1
    return out


def _value(text: str, lines: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The value among the output's lines: the first, with a PEM block, a JSON document or a value
    wrapped over lines whole."""
    if not lines:
        return None
    s, e = lines[0]
    out = _REPL_OUT.match(text, s, e)  # IPython's Out[3]:, irb's => before the value
    if out is not None:
        s = out.end()
        lines = [(s, e), *lines[1:]]
    first = text[s:e]
    if first.startswith("-----BEGIN"):
        for a, b in lines:
            if text.startswith("-----END", a):
                return s, b
        return s, lines[-1][1]
    if first[:1] in "{[" and first[-1:] not in "}]":
        depth = 0
        for a, b in lines:
            seg = text[a:b]
            depth += seg.count("{") + seg.count("[") - seg.count("}") - seg.count("]")
            if depth <= 0:
                return s, b
        return s, lines[-1][1]
    end = e
    if " " not in first and e - s >= 40:  # a value wrapped by the terminal: its pieces follow, one word each
        for a, b in lines[1:]:
            if " " in text[a:b] or b - a < 4 or text[b - 1] in _PROMPT_CHARS:
                break  # (user@host:~$, the next prompt with no command yet, is no piece)
            end = b
    return s, end


_REPL_OUT = re.compile(r"(?:Out\[\d+\]:|=>)[ \t]*")
_NEXT_PROMPT = re.compile(r"[$%#>\u276f][ \t]+\S")
_PROMPT_CHARS = "$%#>\u276f"


def _glued(text: str, s: int, e: int, prompt: str) -> int:
    """Where a value printed without a newline ends: the next prompt is glued to it
    (Zq8kL2pbastion%), with the next command after it (Zq8kL2p$ kubectl ...)."""
    v = text[s:e]
    if " " in v and not v.startswith(("{", "[")):
        m = _NEXT_PROMPT.search(v)
        if m is not None and " " not in v[:m.start()]:
            v = v[:m.start() + 1]  # the value and the prompt's last character: the rest of the prompt is cut below
    p = prompt.rstrip()
    k = 0  # the common ending of the value and this command's prompt (bastion% of a glued worker-2:~ bastion%)
    while k < min(len(v), len(p)) and v[-1 - k] == p[-1 - k]:
        k += 1
    if k and v[-k:][-1] in _PROMPT_CHARS:
        v = v[:-k]
    return s + len(v)


def _judged(v: str, kind: str) -> bool:
    """Whether what was printed is the credential: not an error, a placeholder, a mask, nothing."""
    if "\n" in v and v[:1] not in "{[":
        v = "".join(v.split())  # a value wrapped over lines, judged whole
    if not v or _ERROR.search(v[:200]) or masked(v) or looks_fake(v):
        return False
    if v.startswith("-----BEGIN"):
        return False  # a key or a certificate: private-key takes the one, the other is public
    if v[:1] in "{[":
        return True  # a secret's JSON payload (the other rules find what is inside too)
    if kind == "weak":
        return random_looking_cached(v)
    if any(c.isspace() for c in v):
        return phrase_value(v) or spaced_password(v)
    v = v.strip("\"'")
    return not placeholder(v, code=False) and (len(v) >= 6 or password_like(v))


def _json_output(text: str, s: int) -> tuple[int, int] | None:
    """The value in the JSON tool result after the call whose command string starts at ``s``."""
    m = _JSON_STRING_END.match(text, s)
    if m is None:
        return None
    out = _JSON_OUTPUT.search(text, m.end(), min(len(text), m.end() + MAX_OUTPUT))
    if out is None:
        return None
    body = _JSON_STRING_END.match(text, out.end())
    if body is None:
        return None
    vs, ve = out.end(), body.end() - 1
    v = text[vs:ve]
    while v.endswith("\\n"):
        v, ve = v[:-2], ve - 2
    first = v.split("\\n", 1)[0]
    if v[:1] not in "{[" and not v.startswith("-----BEGIN"):
        ve = vs + len(first)
    return vs, ve


def _command(text: str, ls: int, s: int, e: int) -> tuple[str, int, int] | None:
    """How the command on the line [ls, e) that the rule matched at ``s`` is shown (json,
    claude, ran, exec or prompt), where it starts and where it ends: the line tells, not the
    match (a row like `... | base64 -d` matches from any word)."""
    for call in _JSON_CALL.finditer(text, ls, e):  # (the match may have begun at the line's start)
        if _which(text, call.end(), e) is not None:
            end = _JSON_STRING_END.match(text, call.end())
            return ("json", call.end(), end.end() - 1) if end is not None else None
    for ctx, rx in (("claude", _CLAUDE), ("ran", _CODEX_RAN), ("exec", _CODEX_SHELL)):
        m = rx.match(text, ls, e)
        if m is not None:
            cs, ce = m.end(), e
            if ctx == "claude" and text[ce - 1:ce] == ")":
                ce -= 1
            elif ctx == "exec" and text[cs - 1] in "'\"":
                q = text.rfind(text[cs - 1], cs, e)
                ce = q if q > cs else e
            return ctx, cs, ce
    p = _PROMPT.match(text, ls, e)
    starts = [p.end()] if p is not None else []
    starts.append(_BLANKS.match(text, ls).end())  # type: ignore[union-attr]  # none: `... # comment`, `... > file`
    for cs in starts:
        if cs < e and (text[cs].isalpha() or text[cs] in "$.~/\\") and _which(text, cs, e) is not None:
            return "prompt", cs, e
    return None


def _output(text: str, ctx: str, cs: int, ce: int) -> tuple[int, int] | None:
    """Where the output value of the command at [cs, ce) is, shown the ``ctx`` way."""
    if ctx == "json":
        return _json_output(text, cs)
    nl = text.find("\n", ce)
    if nl < 0:
        return None
    pos = nl + 1
    if ctx == "claude":
        if not text.startswith("\u23bf", _BLANKS.match(text, pos).end()):  # type: ignore[union-attr]
            return None
        return _value(text, _lines(text, pos, _not_indented))
    if ctx == "ran":
        return _value(text, _lines(text, pos, _not_indented))
    if ctx == "exec":
        le = text.find("\n", pos)
        if le > 0 and _STATUS.fullmatch(text, pos, le):
            pos = le + 1
    return _value(text, _lines(text, pos))


def _not_indented(text: str, s: int, e: int) -> bool:
    """A transcript block's lines are indented; a line that is not begins what comes next."""
    return s < e and text[s] not in " \t"


def printed_span(text: str, s: int, e: int, m: Any) -> tuple[int, int] | None:
    ls = text.rfind("\n", 0, s) + 1
    shown = _command(text, ls, s, e)
    if shown is None:
        return None  # in a sentence, a script, a table: no output is shown after it
    ctx, cs, ce = shown
    found = _which(text, cs, ce)
    if found is None:
        return None
    _, name_rx = found
    kind = "strong"
    if name_rx is not None:
        name = _name(name_rx, text[cs:ce])
        kind = credential_key(name) if name else ""
        if not kind:
            return None  # the command prints something else: -field=username, printenv HOME
    span = _output(text, ctx, cs, ce)
    if span is None:
        return None
    vs, ve = span
    if ctx == "prompt":
        ve = _glued(text, vs, ve, text[ls:cs])
    if ve <= vs or not _judged(text[vs:ve], kind):
        return None
    return vs, ve


register(Check("printed", span=printed_span, whole=False))  # its span ends where the output does
