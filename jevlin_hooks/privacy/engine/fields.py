"""The layout reader: keys and values laid out in tables, columns and labelled pairs, as fields.

What tools print is often not ``KEY=value``: secret managers and PaaS CLIs print aligned ``Key
Value`` columns and box-drawing tables, databases print psql and mysql tables, people paste
Markdown tables, CSV and TSV exports, web pages copied with the key on the line above its value,
and Azure, AWS SSM and GitLab print ``Name:``/``Value:`` pairs. The rules see only a line at a
time; here the layout says which key a value is under.

Contract
--------
``read(text, words)`` gives ``Field(key, start, end)`` items: ``key`` as the text writes it (a
header cell, a first-column cell, a label; its markup is the judge's to strip), and the value's
span ``[start, end)`` in ``text``, blanks, backticks, quotes and ``**`` around it left out. A
value may hold blanks (a passphrase, an address). Only keys holding one of ``words``
(lower-case) are read. The layouts:

* ``table``: rows of cells between ``|`` or box-drawing bars (Markdown, psql, mysql, AWS CLI
  ``--output table``, Rich/cli-table boxes), border and rule lines skipped. Each row's first cell
  is the key of its second (a key/value table); where a header row stands above a rule line,
  each cell is also a field under its column's header (a table of records);
* ``columns``: a block of lines whose second column starts at one position (aligned ``Key
  Value`` output: vault, heroku, PowerShell, kubectl, gcloud, az): first column the key, second
  the value; a key as long as the column, one blank before the value, is read too;
* ``delimited``: CSV, semicolon-separated or TSV under a header line of labels: each cell under
  its column's header (quoted cells with separators inside kept whole); a two-column file also
  as key, value;
* ``above``: a short label line and the line under it (``Secret access key`` / the key);
* ``pair``: ``Name: X`` (``Key:``, ``- name:``, JSON ``"name": "X"``) and, in the same record
  within a few lines, ``Value: Y`` in any of the languages of ``parts.VALUE_WORDS``.

``findings(text, lower, off)`` reads the fields the enabled judges (checks/judges.py) want and
asks each judge about each field: a judge's answer is the finding's rule. Every layout is
gated on a character or word it needs (a bar, a tab, a run of blanks after a word, a value
word), and the whole reader on the judges' key words, so text with no table pays a few
substring tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from jevlin_hooks.privacy.checks.judges import JUDGES, FieldJudge
from jevlin_hooks.privacy.engine.findings import Finding
from jevlin_hooks.privacy.rules.parts import NAME_WORDS, VALUE_WORDS

# Bounds: a table or a pair is read only in its first lines and bytes (a 20,000-row CSV is
# judged on its first 2,000 rows; a secret's column there is a secret's column everywhere).
MAX_ROWS = 2000
MAX_KEY = 80
MAX_VALUE = 4096


@dataclass(frozen=True, slots=True)
class Field:
    key: str
    start: int
    end: int


_BARS = "|\u2502\u2503\u2551"  # | │ ┃ ║
_BAR = re.compile(f"[{_BARS}]")
# a row (a line holding a bar), or a border line of + or box-drawing corners, which ties the rows
# above and below it into one table
_TABLE_LINE = re.compile(f"(?m)^[^\\n]*[{_BARS}][^\\n]*$|^[ \\t]*[+\\u2500-\\u257f][\\-=+\\u2500-\\u257f]{{2,}}[ \\t]*$")
_RULE_LINE = re.compile(r"[\s\-=+:|.\u2500-\u257f]*[\-=\u2500-\u257f]{3}[\s\-=+:|.\u2500-\u257f]*")
_WRAP = "`\"'"


def _inner(text: str, s: int, e: int) -> tuple[int, int]:
    """[s, e) without the blanks, and then the backticks, quotes and ** (bold) around it."""
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    while e - s >= 2:
        if text[s] in _WRAP and text[e - 1] == text[s]:
            s, e = s + 1, e - 1
        elif e - s > 4 and text.startswith("**", s) and text.endswith("**", s, e) and text[s + 2:e - 2].strip("*"):
            s, e = s + 2, e - 2
        else:
            break
    return s, e


def _cells(text: str, ls: int, le: int) -> list[tuple[int, int]]:
    """The cells of a table row [ls, le) between its bars; the empty ones outside its border
    bars dropped."""
    cuts = [m.start() for m in _BAR.finditer(text, ls, le)]
    bounds = [ls - 1, *cuts, le]
    cells = [(bounds[i] + 1, bounds[i + 1]) for i in range(len(bounds) - 1)]
    if cells and not text[cells[0][0]:cells[0][1]].strip():
        cells = cells[1:]
    if cells and not text[cells[-1][0]:cells[-1][1]].strip():
        cells = cells[:-1]
    return cells


def _blocks(matches: Iterable[re.Match[str]]) -> list[list[tuple[int, int]]]:
    """Line matches grouped into runs of consecutive lines, each line as (start, end)."""
    out: list[list[tuple[int, int]]] = []
    for m in matches:
        s, e = m.span()
        if out and s == out[-1][-1][1] + 1 and len(out[-1]) < MAX_ROWS:
            out[-1].append((s, e))
        else:
            out.append([(s, e)])
    return out


def _field(text: str, key: tuple[int, int], value: tuple[int, int], words: tuple[str, ...], out: list[Field]) -> None:
    ks, ke = _inner(text, *key)
    vs, ve = _inner(text, *value)
    if ks < ke <= ks + MAX_KEY and vs < ve <= vs + MAX_VALUE:
        k = text[ks:ke]
        low = k.lower()
        if any(w in low for w in words):
            out.append(Field(k, vs, ve))


def _tables(text: str, words: tuple[str, ...], out: list[Field]) -> None:
    for block in _blocks(_TABLE_LINE.finditer(text)):
        rows: list[tuple[list[tuple[int, int]], bool]] = []  # cells, a rule line under the row
        bordered = False
        for ls, le in block:
            if _RULE_LINE.fullmatch(text, ls, le):
                if rows:
                    rows[-1] = (rows[-1][0], True)
                continue
            stripped = text[ls:le].strip()
            bordered = bordered or (stripped[:1] in _BARS and stripped[-1:] in _BARS)
            rows.append((_cells(text, ls, le), False))
        # two rows, or one between border bars: `a | b` alone on a line is a shell pipe
        if not rows or len(rows) < 2 and not bordered:
            continue
        header = rows[0][0] if rows[0][1] and len(rows) > 1 else None
        for i, (cells, _) in enumerate(rows):
            if header is not None and i == 0:
                continue
            if len(cells) >= 2:
                _field(text, cells[0], cells[1], words, out)
            if header is not None and len(cells) == len(header):
                for h, c in zip(header, cells, strict=True):
                    _field(text, h, c, words, out)


# A line of a first column, a run of blanks (or a tab), and a second column
_ALIGNED = re.compile(r"(?m)^[ \t]*([^\s|\u2502\u2503\u2551](?:\S| (?=\S)){0,79})(?:[ \t]{2,}|\t)(\S)")
_NEXT_CELL = re.compile(r"[ \t]{2,}|\t")


def _columns(text: str, words: tuple[str, ...], out: list[Field]) -> None:
    """Aligned columns: runs of lines whose second column starts at one column."""
    found = [(m.start(), m.start(2)) for m in _ALIGNED.finditer(text)]
    i = 0
    while i < len(found):
        ls0, v0 = found[i]
        col = v0 - ls0
        end = text.find("\n", v0)
        j = i + 1
        # the run: the next lines whose value starts at the same column, and between them lines
        # that fit it (a key with no value; the longest key, one blank before its value)
        while j < len(found) and j - i < MAX_ROWS and end >= 0:
            ls, v = found[j]
            if v - ls != col or ls != end + 1 and not _fit(text, end + 1, ls, col):
                break
            end = text.find("\n", v)
            j += 1
        start = _extend_back(text, ls0, col)
        stop = _extend_on(text, end if end >= 0 else len(text), col)
        # two lines with a value in the column at least (one line alone is no table)
        if j - i >= 2 or _valued(text, start, ls0, col) + _valued(text, end + 1, stop, col) >= 1:
            _column_block(text, start, stop, col, words, out)
        i = j


def _fits(line: str, col: int) -> bool:
    body = line.rstrip()
    return bool(body) and (len(body) <= col and " " not in body.strip() or len(body) > col and body[col - 1] == " "
                           and body[col] != " " and "  " not in body[:col].strip())


def _fit(text: str, s: int, e: int, col: int) -> bool:
    """Whether every line in [s, e) fits a block of this column."""
    return e - s <= 4 * (col + 200) and all(_fits(line, col) for line in text[s:e - 1].split("\n"))


def _valued(text: str, s: int, e: int, col: int) -> int:
    """How many lines in [s, e) hold a value in the column."""
    return sum(1 for line in text[s:e].split("\n") if len(line.rstrip()) > col) if e > s else 0


def _extend_on(text: str, end: int, col: int) -> int:
    """The block's end, past the lines after it that fit its column (at most a few)."""
    for _ in range(4):
        if end >= len(text):
            break
        nl = text.find("\n", end + 1)
        stop = len(text) if nl < 0 else nl
        if not _fits(text[end + 1:stop], col):
            break
        end = stop
    return end


def _extend_back(text: str, start: int, col: int) -> int:
    """The block's start, before the lines above it that fit its column (at most a few)."""
    for _ in range(4):
        if start == 0:
            break
        ls = text.rfind("\n", 0, start - 1) + 1
        if not _fits(text[ls:start - 1], col):
            break
        start = ls
    return start


def _column_block(text: str, s: int, e: int, col: int, words: tuple[str, ...], out: list[Field]) -> None:
    pos = s
    while pos < e:
        nl = text.find("\n", pos, e)
        le = e if nl < 0 else nl
        if le - pos > col and text[pos + col - 1] in " \t" and not text[pos + col].isspace():
            key_end = pos + col
            m = _NEXT_CELL.search(text, key_end, le)
            key = text[pos:key_end]
            if key.strip() and "  " not in key.strip():
                _field(text, (pos, key_end), (key_end, m.start() if m else le), words, out)
        pos = le + 1


# A header line of 2+ labels between commas, semicolons or tabs (the same throughout)
_LABEL = r"\"?(?:[^\W\d]|/)[\w .\-/()#]{0,40}?\"?"
_HEADER = re.compile(rf"(?m)^[ \t]*{_LABEL}[ \t]*([,;\t])[ \t]*{_LABEL}(?:[ \t]*\1[ \t]*{_LABEL})*[ \t]*\r?$")
_CELL = {sep: re.compile(rf'[ \t]*"(?:[^"\n]|"")*"[ \t]*(?={re.escape(sep)}|\r?$)|[^{re.escape(sep)}\n]*') for sep in ",;\t"}


def _split(text: str, ls: int, le: int, sep: str) -> list[tuple[int, int]]:
    cells = []
    pos = ls
    rx = _CELL[sep]
    while True:
        m = rx.match(text, pos, le)
        end = m.end() if m else pos
        cells.append((pos, end))
        if end >= le or text[end] != sep:
            return cells
        pos = end + 1


def _delimited(text: str, words: tuple[str, ...], out: list[Field]) -> None:
    for m in _HEADER.finditer(text):
        if not any(w in m.group(0).lower() for w in words):
            continue
        sep = m.group(1)
        header = _split(text, m.start(), m.end(), sep)
        pos = m.end() + 1
        for _ in range(MAX_ROWS):
            nl = text.find("\n", pos)
            le = len(text) if nl < 0 else nl
            if pos >= len(text) or not text[pos:le].strip():
                break
            cells = _split(text, pos, le, sep)
            if len(cells) != len(header):
                break
            if len(cells) == 2:
                _field(text, cells[0], cells[1], words, out)
            for h, c in zip(header, cells, strict=True):
                _field(text, h, c, words, out)
            if nl < 0:
                break
            pos = nl + 1


# A label line (a few words, no sentence punctuation) and, looked at ahead, the line under it
_ABOVE = re.compile(r"(?m)^[ \t]*([^\W\d](?:[\w\-./()]| (?=\S)){0,40})[ \t]*:?[ \t]*\r?(?=\n[ \t]*(\S[^\n]{0,300}?)[ \t]*\r?$)")


def _above(text: str, words: tuple[str, ...], out: list[Field]) -> None:
    for m in _ABOVE.finditer(text):
        if m.group(1).count(" ") <= 4:
            _field(text, m.span(1), m.span(2), words, out)


def _pair_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    names = "|".join(re.escape(w) for w in NAME_WORDS)
    values = "|".join(re.escape(w) for w in VALUE_WORDS)
    # at a line's start (after a quote mark, a list dash or a table's bar) or in an object
    label = r"""(?:^[ \t>\-|\u2502\u2503\u2551]*|[{,][ \t]*)["']?(?:%s)["']?[ \t]*[:=|\u2502\u2503\u2551][ \t]*"""
    pair = re.compile(
        rf"""(?im){label % names}["']?([^\s"',{{}}](?:[^\s"',{{}}]| (?=[^\s"',{{}}])){{0,{MAX_KEY - 1}}})["']?[ \t]*,?"""
        rf"""(?:[^\n{{}}]*\n){{0,6}}?[^\n{{}}]*?{label % values}"""
        rf"""(?:"((?:[^"\\\n]|\\.){{1,{MAX_VALUE}}})"|([^\n]{{1,{MAX_VALUE}}}))""")
    return pair, re.compile("(?im)" + label % names)


_PAIR, _NAME_LABEL = _pair_patterns()
_PAIR_GATE = tuple(w.lower() for w in VALUE_WORDS)
# an object under a key that holds the key's value, as terraform output -json and Pulumi print
# a sensitive output: "db_password": {"sensitive": true, "value": "X"}
_OBJECT_VALUE = re.compile(r'(?i)"([^"\n]{1,80})"[ \t]*:[ \t]*\{[^{}]{0,200}?"value"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,4096})"')


def _pairs(text: str, lower: str, words: tuple[str, ...], out: list[Field]) -> None:
    if not any(w in lower for w in _PAIR_GATE):
        return
    for m in _PAIR.finditer(text):
        quoted = m.start(2) >= 0
        vs, ve = m.span(2) if quoted else m.span(3)
        if _NAME_LABEL.search(text, m.end(1), vs):
            continue  # Name: A, then Name: B and its value: A has none
        _field(text, m.span(1), (vs, ve if quoted else _bare_end(text, vs, ve)), words, out)
    if '"value"' in lower:
        for m in _OBJECT_VALUE.finditer(text):
            _field(text, m.span(1), m.span(2), words, out)


def _bare_end(text: str, s: int, e: int) -> int:
    """An unquoted value ends its line (and its table row's bar), or at a comma or brace that
    closes an inline object."""
    v = text[s:e].rstrip(" \t\r" + _BARS)
    if v.endswith(("}", ",")) and ("{" in text[max(0, s - 200):s]):
        return s + len(v.rstrip("},").rstrip())
    return s + len(v)


def read(text: str, words: tuple[str, ...], lower: str = "") -> list[Field]:
    """The fields in ``text`` whose key holds one of ``words`` (see the module's docstring)."""
    lower = lower or text.lower()
    out: list[Field] = []
    if "|" in text or not text.isascii() and any(b in text for b in _BARS[1:]):
        _tables(text, words, out)
    if "  " in text or "\t" in text:
        _columns(text, words, out)
    if "," in text or ";" in text or "\t" in text:
        _delimited(text, words, out)
    _above(text, words, out)
    _pairs(text, lower, words, out)
    return out


def findings(text: str, lower: str, off: set[str], judges: Iterable[FieldJudge] = JUDGES) -> list[Finding]:
    """What the enabled judges find in the fields of ``text`` (``lower``: its lower-cased form)."""
    on = [j for j in judges if j.name not in off]
    words = tuple(dict.fromkeys(w for j in on for w in j.key_words if w in lower))
    if not words:
        return []
    out: list[Finding] = []
    seen: set[tuple[str, int, int]] = set()
    for f in read(text, words, lower):
        low = f.key.lower()
        value = text[f.start:f.end]
        for j in on:
            if not any(w in low for w in j.key_words):
                continue
            rule = j.judge(f.key, value)
            if rule is not None and rule not in off and (rule, f.start, f.end) not in seen:
                seen.add((rule, f.start, f.end))
                out.append(Finding(rule, f.start, f.end))
    return out
