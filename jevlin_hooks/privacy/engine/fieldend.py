"""An unquoted value given to a key that starts its field runs to the field's end.

In an INI or properties file, a YAML mapping or a .NET configuration dump, the value of
``key = value`` / ``key: value`` / ``a.b.password=value`` is everything up to the end of its
line: ``password = staple otter battery rocket`` is one passphrase, and a Django key holds
``( ) & % #``, which end a token (whole.py). A rule reads such a value up to its first space or
bracket, so its cut left the rest of the secret behind. Here a secret's cut that starts right after
such a key grows to where the field ends: the end of the line, or before the first of
- a comment (`` #``, `` //``), an aside (`` (``, `` [``, `` - ``, `` — ``), or a run of two or more
  blanks (a column, a tab);
- a field separator: ``; `` (a configuration dump, a shell's next command), `` && ``, `` || ``, `` | ``;
- the next ``key=`` (logfmt, a shell's env prefix) or ``key: ``;
- the closing backtick, where the key opened a code span (`` `KEY=value` ``).
A key starts its field at the line's start (after indentation, a list or quote mark, ``export``,
``set``), after a backtick, or after ``; ``. A shell variable's ``NAME=value`` (no blank around
``=``) is one shell word, so its value ends at the first blank too: ``PGPASSWORD=x psql -h host``.
A value in quotes is the rules' own business.
"""

from __future__ import annotations

import bisect
import itertools
import re

from jevlin_hooks.privacy.engine.findings import Finding

NAME = "field-end"  # turns this off, in `disabled_rules`, as a rule's name does

# what stands before the value: a field's start, its key, the assignment
_KEY = re.compile(
    r"(?:^|(?<=`)|(?<=;[ \t]))[ \t]*(?:[-*>|\u2502\u23bf\u2514\u251c+][ \t]+)*"
    r"(?:(?:export|set|setx|declare[ \t]+-x)[ \t]+)?"
    r"(?P<key>[A-Za-z_$@][\w.\-:\[\]@$]{0,80})(?P<op>[ \t]*(?::=|=|:)[ \t]*)\Z"
)
# a shell variable's NAME=value: the value is one shell word (PGPASSWORD=x psql -h host ...)
_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BLANK = re.compile(r"[ \t]")
# where a field ends, searched from the value's end
_END = re.compile(r"[ \t]+(?:#|//|[(\[{<]|[-\u2013\u2014]+(?:[ \t]|$))|[ \t]{2,}|\t|;(?:[ \t]|$)|[ \t]+(?:&&|\|\|?)(?:[ \t]|$)"
                  r"|[ \t]+[A-Za-z_][\w.\-]{0,80}(?:=|:[ \t])")
_MAX = 512  # a field longer than this is prose or a minified line, not a value


def grow(text: str, findings: list[Finding], rules: frozenset[str]) -> list[Finding]:
    """``findings`` with each cut of ``rules`` (those whose value is what a key is given) that
    starts right after a key opening its field grown to the field's end."""
    if not any(f.rule in rules for f in findings):
        return findings
    # a value another rule knows by its format (ghp_..., AKIA...) ends where that format does:
    # covered where a known span starting at or before it reaches its end (prefix maxima of the
    # ends, by start: a text with many findings costs n log n, not n squared)
    known = sorted((f.start, f.end) for f in findings if f.rule not in rules)
    starts = [a for a, _ in known]
    reach = list(itertools.accumulate((b for _, b in known), max))
    out = []
    for f in findings:
        e = f.end
        i = bisect.bisect_right(starts, f.start)
        if f.rule in rules and not (i and reach[i - 1] >= f.end):
            e = _end(text, f)
        out.append(f if e == f.end else Finding(f.rule, f.start, e))
    return out


def _end(text: str, f: Finding) -> int:
    s, e = f.start, f.end
    if s == 0 or text[s - 1] in "\"'`" or e >= len(text) or text[e] in "\r\n":
        return e
    line = text.rfind("\n", 0, s) + 1
    if s - line > 200:
        return e
    lead = text[line:s]
    m = _KEY.search(lead)
    if m is None:
        return e
    stop = text.find("\n", e)
    stop = len(text) if stop < 0 else stop
    if m.start() > 0 and lead[m.start() - 1] == "`":
        close = text.find("`", e, stop)
        stop = close if close >= 0 else stop
    if m.group("op") == "=" and _SHELL_NAME.fullmatch(m.group("key")):
        blank = _BLANK.search(text, e, stop)
        stop = blank.start() if blank is not None else stop
    if stop - e > _MAX:
        return e
    end = _END.search(text, e, stop)
    if end is not None:
        stop = end.start()
    while stop > e and text[stop - 1] in " \t\r,;":
        stop -= 1
    return max(stop, e)
