"""Ruled columns: a header line, a rule of dash runs under it, rows in the runs' columns.

SQLite's ``.mode column``, SQL Server's ``sqlcmd``, Oracle's SQL*Plus, PowerShell's
``Format-Table`` and many CLIs print records so: no bars, the column's extent given by the run
of dashes under its header::

    mrn            patient        dob
    -------------  -------------  ----------
    KH2019/092064  Ida Sørensen   1976-09-10

Each cell is a field under its column's header (engine/fields.py asks the judges). A cell runs
from its run's start to the next run's start (a long value may spill into the gap); the rows end
at a blank line, another rule, or a line whose text crosses a gap between two runs (a prompt,
a remark after the table).
"""

from __future__ import annotations

import re

Span = tuple[int, int]
Cell = tuple[Span, Span]  # (header cell, value cell)

_RULE = re.compile(r"[ \t]*-{2,}(?:[ \t]+-{2,})+[ \t]*\r?")
_RUN = re.compile(r"-{2,}")
MAX_ROWS = 2000


def _line_end(text: str, s: int) -> int:
    nl = text.find("\n", s)
    return len(text) if nl < 0 else nl


def rule_below(text: str, le: int) -> bool:
    """Whether the line after the one ending at ``le`` is a rule of two dash runs or more (a
    byte test first: a line that does not start with blanks and a dash is no rule)."""
    if le + 3 >= len(text):
        return False
    s = le + 1
    if text[s] not in "- \t":
        return False
    return _RULE.fullmatch(text, s, _line_end(text, s)) is not None


def read(text: str, line: Span) -> list[Cell]:
    """The cells of the ruled table whose header is ``line`` (the caller checked rule_below):
    (header span, value span) of each cell of each row."""
    ls, le = line
    rs = le + 1
    re_ = _line_end(text, rs)
    runs = [(m.start() - rs, m.end() - rs) for m in _RUN.finditer(text, rs, re_)]
    heads = [(ls + a, min(le, ls + b)) for a, b in runs]
    cells: list[Cell] = []
    pos = re_
    for _ in range(MAX_ROWS):
        if pos >= len(text):
            break
        s = pos + 1
        e = _line_end(text, s)
        row = text[s:e].rstrip("\r")
        if not row.strip() or _RULE.fullmatch(row):
            break
        # the gaps between the runs hold blanks in a row (a value may spill into a gap's
        # start, never across it)
        if any(len(row) > b and not row[b:runs[i + 1][0]].count(" ") + row[b:runs[i + 1][0]].count("\t")
               for i, (_, b) in enumerate(runs[:-1])):
            break
        for i, (a, _) in enumerate(runs):
            if a >= len(row):
                break
            end = runs[i + 1][0] if i + 1 < len(runs) else len(row)
            cells.append((heads[i], (s + a, s + min(end, len(row)))))
        pos = e
    return cells
