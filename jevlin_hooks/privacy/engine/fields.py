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
* ``pair``: ``Name: X`` (``Key:``, ``Property:``, ``- name:``, JSON ``"name": "X"``) and, in the
  same record within a few lines, ``Value: Y`` in any of the languages of ``parts.VALUE_WORDS``;
  an object under a key holding its ``"value"`` (terraform output -json), a Terraform
  ``variable``/``output`` block's ``default``/``value``.

``findings(text, view, off, where)`` reads the fields the enabled judges (checks/judges.py) want
and asks each judge about each field: a judge's answer is the finding's rule. ``"layout"`` in
``off`` (disabled_rules) turns the reader off.

What it costs: a key holds one of the words, so the reader starts from the lines holding one (one
regex pass finds them) and reads only the layouts those lines belong to (a table around a row
with a bar, a block of columns around an aligned line, the rows under a header, the line under a
label, the value label after a name label). Text with no key word pays a few substring tests.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from jevlin_hooks.privacy import automaton
from jevlin_hooks.privacy.checks.judges import JUDGES, LAYOUT, FieldJudge, cell_word, cell_words
from jevlin_hooks.privacy.engine import ruled
from jevlin_hooks.privacy.engine.findings import Finding
from jevlin_hooks.privacy.engine.text import one_byte_view
from jevlin_hooks.privacy.regex import UNANCHORED, compile_bytes
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
# a border line of + or box-drawing corners ties the rows above and below it into one table
# (and psql's rule line under its header, dashes joined by + with no bar: ------+------)
_BORDER = re.compile(r"[ \t]*(?:[+\u2500-\u257f][\-=+\u2500-\u257f]{2,}|-+(?:\+-+)+)[ \t]*\r?")
_RULE_LINE = re.compile(r"[\s\-=+:|.\u2500-\u257f]*[\-=\u2500-\u257f]{3}[\s\-=+:|.\u2500-\u257f]*")
_WRAP = "`\"'"
Span = tuple[int, int]


def _inner(text: str, s: int, e: int) -> Span:
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


def _holds(key: str, words: tuple[str, ...]) -> bool:
    return _words_rx(words).search(key) is not None or cell_word(key, cell_words(words))


def _field(text: str, key: Span, value: Span, words: tuple[str, ...], out: list[Field]) -> None:
    ks, ke = _inner(text, *key)
    if not ks < ke <= ks + MAX_KEY:
        return
    k = text[ks:ke]
    if _holds(k, words):
        vs, ve = _inner(text, *value)
        if vs < ve <= vs + MAX_VALUE:
            out.append(Field(k, vs, ve))


# --- lines ----------------------------------------------------------------------------------

def _line(text: str, pos: int) -> Span:
    le = text.find("\n", pos)
    return text.rfind("\n", 0, pos) + 1, len(text) if le < 0 else le


def _above_line(text: str, ls: int) -> Span | None:
    return None if ls == 0 else (text.rfind("\n", 0, ls - 1) + 1, ls - 1)


def _below_line(text: str, le: int) -> Span | None:
    if le >= len(text):
        return None
    nl = text.find("\n", le + 1)
    return le + 1, len(text) if nl < 0 else nl


def _run(text: str, line: Span, fits: Callable[[str, int, int], bool]) -> list[Span]:
    """The lines around ``line`` (which fits) that fit, up and down, at most MAX_ROWS each way."""
    up: list[Span] = []
    cur: Span | None = line
    for _ in range(MAX_ROWS):
        cur = _above_line(text, cur[0]) if cur else None
        if cur is None or not fits(text, *cur):
            break
        up.append(cur)
    down: list[Span] = []
    cur = line
    for _ in range(MAX_ROWS):
        cur = _below_line(text, cur[1]) if cur else None
        if cur is None or not fits(text, *cur):
            break
        down.append(cur)
    return [*reversed(up), line, *down]


# --- tables between bars --------------------------------------------------------------------

def _table_line(text: str, s: int, e: int) -> bool:
    return _BAR.search(text, s, e) is not None or _BORDER.fullmatch(text, s, e) is not None


def _cells(text: str, ls: int, le: int) -> list[Span]:
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


def _table(text: str, block: list[Span], words: tuple[str, ...], out: list[Field]) -> None:
    rows: list[tuple[list[Span], bool]] = []  # cells, a rule line under the row
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
        return
    header = rows[0][0] if rows[0][1] and len(rows) > 1 else None
    # name | type | value (wrangler secret list, SSM tables): the first cell keys the value column, not the type
    vcol = next((j for j, (hs, he) in enumerate(header) if j > 1 and text[hs:he].strip(" `*").lower() in VALUE_WORDS),
                0) if header is not None else 0
    for i, (cells, _) in enumerate(rows):
        if header is not None and i == 0:
            continue
        if len(cells) > max(vcol, 1):
            _field(text, cells[0], cells[vcol or 1], words, out)
        if header is not None and len(cells) == len(header):
            for h, c in zip(header, cells, strict=True):
                _field(text, h, c, words, out)


# --- aligned columns ------------------------------------------------------------------------

_NEXT_CELL = re.compile(r"[ \t]{2,}|\t")
_LONGEST_KEY = re.compile(r"[ \t]*([^\s=:|]+) (?=[^\s=:])")  # (KEY = value is an assignment's)
_COLUMN_BREAKS = ("  ", "\t")


def _column_of(text: str, s: int, e: int) -> int | None:
    """Where the second column of the line [s, e) starts: after the first run of two blanks or a
    tab that follows a first column (string searches: this runs on every line holding a key word)."""
    i = s
    while i < e and text[i] in " \t":
        i += 1
    if i == e or text[i] in _BARS:
        return None
    cut = min((p for p in (text.find(b, i, e) for b in _COLUMN_BREAKS) if p >= 0), default=-1)
    if cut < 0 or cut - i > 80:
        return None
    v = cut
    while v < e and text[v] in " \t":
        v += 1
    return v - s if v < e else None


def _valued(text: str, s: int, e: int, col: int) -> bool:
    """A value at the column, after a key of words apart by single blanks (the longest key may
    have just one blank before the value: KUBERNETES_SERVICE_HOST 10.96.0.1)."""
    return (e - s > col and text[s + col - 1] in " \t" and not text[s + col].isspace()
            and not text[s:s + col].isspace() and "  " not in text[s:s + col].strip())


def _fits(text: str, s: int, e: int, col: int) -> bool:
    """A line of the block: a value at the column, or a key alone (http_proxy_password)."""
    body = text[s:e].rstrip()
    if not body:
        return False
    return _valued(text, s, e, col) or len(body) <= col and " " not in body.strip()


def _columns(text: str, line: Span, words: tuple[str, ...], out: list[Field]) -> list[Span]:
    """The block of aligned columns around ``line``, read; its lines (or none)."""
    s, e = line
    col0 = _column_of(text, s, e)
    # (where the word is in the value only, this line gives no field: the line of its key will)
    cols: list[int | None] = [col0] if col0 is not None and _holds(text[s:s + col0], words) else []
    # a key as long as the column, one blank after it (its line's first double blank may be in a
    # later column): the neighbours say where the column is
    m = _LONGEST_KEY.match(text, s, e)
    if m is not None and _holds(m.group(1), words):
        cols += [_column_of(text, *n) for n in (_above_line(text, s), _below_line(text, e)) if n is not None]
    if not cols:
        return []
    for col in dict.fromkeys(c for c in cols if c):
        if not _fits(text, s, e, col):
            continue
        block = _run(text, line, functools.partial(_fits, col=col))
        valued = [ln for ln in block if _valued(text, *ln, col)]
        # two lines with values at least, one of them apart by two blanks or a tab (prose has one)
        if len(valued) < 2 or not any(_column_of(text, *ln) == col for ln in valued):
            continue
        for ls, le in valued:
            m = _NEXT_CELL.search(text, ls + col, le)
            _field(text, (ls, ls + col), (ls + col, m.start() if m else le), words, out)
        return block
    return []


# --- CSV, semicolon-separated, TSV ----------------------------------------------------------

# A header's labels: words and names of 40 characters at most, quoted or not
# (an apostrophe only inside a word: Driver's license, nom d'utilisateur; N° de passeport)
# (and the vowel signs of the Indic scripts, Thai, Arabic and Hebrew, which are no \w: नाम, ชื่อ)
_MARKS = "\u0300-\u036f\u0591-\u05c7\u064b-\u065f\u0900-\u0dff\u0e30-\u0e4e"
_LABEL = re.compile(rf'"?(?:[^\W\d]|/)(?:[\w .\-/()#°º{_MARKS}]|(?<=\w)\'(?=\w)){{0,40}}"?')
_NOT_LABEL = re.compile(rf'[^\w .\-/()#°º",;|\t\r\'{_MARKS}]|(?<!\w)\'|\'(?!\w)')
_CELL = {sep: re.compile(rf'[ \t]*"(?:[^"\n]|"")*"[ \t]*(?={re.escape(sep)}|\r?$)|[^{re.escape(sep)}\n]*') for sep in ",;\t|"}


def _header(text: str, s: int, e: int) -> str | None:
    """The separator of a header line of two or more labels between commas, semicolons, tabs or
    bars (sqlite's and psql's unaligned output: id|email|full_name; a Markdown table's row, which
    starts with a bar, is a table's: engine/fields.py _table)."""
    if _NOT_LABEL.search(text, s, e):
        return None  # (code, logs and data lines hold = : { and the like)
    line = text[s:e]
    for sep in "\t;,|":
        if sep in line:
            cells = line.split(sep)
            if all(len(c) <= 44 and _LABEL.fullmatch(c.strip(" \t\r")) for c in cells):
                return sep
            return None
    return None


def _split(text: str, ls: int, le: int, sep: str) -> list[Span]:
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


def _delimited(text: str, line: Span, words: tuple[str, ...], out: list[Field]) -> list[Span]:
    """The rows under ``line`` if it is a header of labels, read; the lines read (or none)."""
    sep = _header(text, *line)
    if sep is None:
        return []
    header = _split(text, *line, sep)
    block = [line]
    cur: Span | None = line
    for _ in range(MAX_ROWS):
        cur = _below_line(text, cur[1]) if cur else None
        if cur is None or not text[cur[0]:cur[1]].strip():
            break
        cells = _split(text, *cur, sep)
        if len(cells) != len(header):
            break
        block.append(cur)
        if len(cells) == 2:
            _field(text, cells[0], cells[1], words, out)
        for h, c in zip(header, cells, strict=True):
            _field(text, h, c, words, out)
    return block


# --- a label above its value ----------------------------------------------------------------

_ABOVE = re.compile(r"[ \t]*([^\W\d](?:[\w\-./()]| (?=\S)){0,40})[ \t]*:?[ \t]*\r?\n[ \t]*(\S[^\n]{0,300}?)[ \t]*\r?(?:\n|$)")


# a label is not a sentence (the token is glpat-...) and its value not a KEY=value line
_COPULA = frozenset(("is", "are", "was", "were", "ist", "est", "es", "è", "é", "is:", "was:"))
_ASSIGNMENT = re.compile(r"[A-Za-z_][\w.\-]*[ \t]*(?:=|: )")


def _above(text: str, line: Span, words: tuple[str, ...], out: list[Field]) -> None:
    m = _ABOVE.match(text, line[0])
    # (a value indented deeper than its label is a block's body: class TokenBucket: / def ...)
    if m is not None and m.end(1) <= line[1] and m.group(1).count(" ") <= 4 \
            and m.start(2) - text.rfind("\n", 0, m.start(2)) <= m.start(1) - line[0] + 1 \
            and _COPULA.isdisjoint(m.group(1).lower().split()) and not _ASSIGNMENT.match(m.group(2)):
        _field(text, m.span(1), m.span(2), words, out)


# --- Name:/Value: pairs ---------------------------------------------------------------------

def _pair_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    names = "|".join(re.escape(w) for w in NAME_WORDS)
    values = "|".join(re.escape(w) for w in VALUE_WORDS)
    # at a line's start (after a quote mark, a list dash or a table's bar) or in an object
    label = r"""(?:^[ \t>\-|\u2502\u2503\u2551]*|[{,][ \t]*)["']?(?:%s)["']?[ \t]*[:=|\u2502\u2503\u2551][ \t]*"""
    # the name ends its line or its object's entry (logfmt's name=x token=y is no pair)
    name = re.compile(rf"""(?im){label % names}["']?([^\s"',{{}}](?:[^\s"',{{}}]| (?=[^\s"',{{}}])){{0,{MAX_KEY - 1}}})["']?"""
                      r"""(?=[ \t]*(?:[,}\]|\u2502\u2503\u2551]|\r?$))""")
    value = re.compile(rf"""(?im){label % values}(?:"((?:[^"\\\n]|\\.){{1,{MAX_VALUE}}})"|([^\n]{{1,{MAX_VALUE}}}))""")
    return name, value, re.compile("(?im)" + label % names)


_NAME_PAIR, _VALUE_PAIR, _NAME_LABEL = _pair_patterns()
_VALUE_WORD = re.compile("|".join(re.escape(w) for w in VALUE_WORDS))
_PAIR_REACH = 6  # lines from the name to its value
# an object under a key that holds the key's value, as terraform output -json and Pulumi print
# a sensitive output: "db_password": {"sensitive": true, "value": "X"}
_OBJECT_KEY = re.compile(r'"([^"\n]{1,80})"[ \t]*:[ \t]*\{')
_OBJECT_VALUE = re.compile(r'(?i)[^{}]{0,200}?"value"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,4096})"')


# a Terraform variable or output named like a credential, its default or value inside the block:
# variable "db_password" { type = string  sensitive = true  default = "X" }
_HCL_BLOCK = re.compile(r'[ \t]*(?:variable|output)[ \t]+"([^"\n]{1,80})"[ \t]*\{')
_HCL_VALUE = re.compile(r'(?:[^{}]{0,600}?\n)?[ \t]*(?:default|value)[ \t]*=[ \t]*"((?:[^"\\\n]|\\.){1,4096})"')


def _pairs(text: str, line: Span, words: tuple[str, ...], out: list[Field]) -> None:
    ls, le = line
    hcl = _HCL_BLOCK.match(text, ls, le)
    if hcl is not None:
        v = _HCL_VALUE.match(text, hcl.end())
        if v is not None:
            _field(text, hcl.span(1), v.span(1), words, out)
        return
    reach = le
    for _ in range(_PAIR_REACH):
        nl = text.find("\n", reach + 1)
        reach = len(text) if nl < 0 else nl
    near = text[ls:reach].lower()
    # (a pair needs a value word within reach, an object its brace: substring tests, where the
    # pair patterns cost 10-20 us a line)
    if "{" not in text[ls:le] and _VALUE_WORD.search(near) is None:
        return
    for m in _NAME_PAIR.finditer(text, ls, le):
        v = _VALUE_PAIR.search(text, m.end(), reach)
        if v is None or _NAME_LABEL.search(text, m.end(), v.start()) or any(c in text[m.end():v.start()] for c in "{}"):
            continue  # Name: A, then Name: B and its value: A has none
        quoted = v.start(1) >= 0
        vs, ve = v.span(1) if quoted else v.span(2)
        _field(text, m.span(1), (vs, ve if quoted else _bare_end(text, vs, ve)), words, out)
    if "{" not in text[ls:le] or '"value"' not in text[ls:le + 260].lower():
        return
    for m in _OBJECT_KEY.finditer(text, ls, le):
        v = _OBJECT_VALUE.match(text, m.end())
        if v is not None:
            _field(text, m.span(1), v.span(1), words, out)


def _bare_end(text: str, s: int, e: int) -> int:
    """An unquoted value ends its line (and its table row's bar), or at a comma or brace that
    closes an inline object (a brace the value opened, ${API_KEY}, is its own)."""
    v = text[s:e].rstrip(" \t\r" + _BARS)
    if v.endswith(("}", ",")) and "{" in text[max(0, s - 200):s]:
        w = v[:-1].rstrip() if v.endswith(",") else v
        while w.endswith("}") and w.count("{") < w.count("}"):
            w = w[:-1].rstrip()
        v = w
    return s + len(v)


# --- reading --------------------------------------------------------------------------------

@functools.lru_cache(maxsize=64)
def _words_rx(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)), re.IGNORECASE)


@functools.lru_cache(maxsize=64)
def _shapes_rx(words: tuple[str, ...]) -> Any:
    """Whether a line that holds a key word has the shape of a layout's line, as one RE2
    pattern on the one-byte view (where a bar, a letter or a word outside ASCII is \\x1a: this
    says "maybe", the readers say which)."""
    w = "|".join(re.escape(x) if x.isascii() else r"\x1a+" for x in sorted(words, key=len, reverse=True))
    names = "|".join(re.escape(x) if x.isascii() else r"\x1a+" for x in NAME_WORDS)
    token = r"""[^\s,;"=:{}\[\]<>$`|*]"""  # a character of a key or a label
    cell = rf"""[ \t]*"?{token}+(?: {token}+){{0,4}}"?[ \t]*"""  # five words at most
    label = r"""[A-Za-z0-9_\x1a\-./()']"""
    return compile_bytes(
        # a table's row: a bar first or between blanks; a box's bars (\x1a here) first and last
        r"""(?im)^(?:[ \t]*\||[^\n]* \| |[ \t]*\x1a [^\n]* \x1a[ \t]*\r?$"""
        # a name label and its name (Name: X, "name": "X", - name: X, key | X; not logfmt's
        # name=x token=y), or an object under a name
        rf"""|[^\n]*?(?:[{{,][ \t]*|^[ \t>\-]*)["']?(?:{names})["']?[ \t]*[:=][ \t]*["']?[^\s"',{{}}]+(?: [^\s"',{{}}]+){{0,3}}["']?"""
        rf"""[ \t]*(?:[,}}\]]|\r?$)|[^\n]*?"[^"\n]*(?:{w})[^"\n]*"[ \t]*:[ \t]*\{{"""
        rf"""|[ \t]*(?:variable|output)[ \t]+"[^"\n]*(?:{w})[^"\n]*"[ \t]*\{{"""  # a Terraform variable or output
        rf"""|(?:{cell}[,;\t|])+{cell}\r?$"""  # a header: labels between commas, semicolons, tabs or bars
        r"""|[ \t]*\S+(?: \S+)*(?:[ \t][ \t]+|\t)\S"""  # a first column, then two blanks or a tab
        rf"""|[ \t]*[A-Za-z_][\w.\-]*?(?:{w})[\w.\-]* [^\s=:\-]"""  # a key as long as its column, one blank after it
        rf"""|[ \t]*[A-Za-z\x1a]{label}*(?: {label}+){{0,3}}:?[ \t]*\r?$)""")  # a label above its value: four words at most


@functools.lru_cache(maxsize=64)
def _words_automaton(words: tuple[str, ...]) -> Any:
    return automaton.build([w for w in words if w.isascii()])


def _hit_lines(text: str, view: bytes, words: tuple[str, ...], where: list[int] | None = None) -> list[Span]:
    """The lines holding one of ``words``, in order: where the caller found them (``where``), or
    one Aho-Corasick pass over the lower-cased one-byte view (ASCII, its offsets the text's) and
    for a word outside ASCII a regex ignoring case on the text."""
    if where is not None:
        hits = sorted(where)
    else:
        low = view.lower().decode("ascii")
        hits = [s for _, s, _ in _words_automaton(words).find_matches_as_indexes(low)]
        other = tuple(w for w in words if not w.isascii())
        if other:
            hits = sorted(hits + [m.start() for m in _words_rx(other).finditer(text)])
    lines: list[Span] = []
    n = len(view)
    for p in hits:
        if lines and p <= lines[-1][1]:
            continue
        nl = view.find(b"\n", p)
        lines.append((view.rfind(b"\n", 0, p) + 1, n if nl < 0 else nl))
    return lines


def _word_lines(text: str, view: bytes, words: tuple[str, ...], where: list[int] | None = None) -> list[Span]:
    """The lines holding one of ``words`` that may belong to a layout, in order: the lines
    holding a word (_hit_lines), then one RE2 pass over them, joined, for the layouts' shapes. A
    line of prose or code costs one step of Python."""
    lines = _hit_lines(text, view, words, where)
    if not lines:
        return []
    data = b"\n".join(view[a:b] for a, b in lines)
    rx = _shapes_rx(words)
    starts = list(itertools.accumulate((b - a + 1 for a, b in lines[:-1]), initial=0))  # each line's start in data
    out: list[Span] = []
    at, n = 0, len(data)
    while at < n:
        s0 = rx.Match(UNANCHORED, data, at, n)[0][0]
        if s0 < 0:
            break
        out.append(lines[bisect.bisect_right(starts, s0) - 1])  # (a match starts at a line's start)
        nl = data.find(b"\n", s0)
        if nl < 0:
            break
        at = nl + 1
    return out


_BLOCK_HEADS = ("class ", "def ", "async def ", "if ", "elif ", "else", "for ", "while ", "try", "except", "with ",
                "finally", "match ", "case ", "switch ", "function ", "func ")


def read(text: str, words: tuple[str, ...], view: bytes = b"", where: list[int] | None = None) -> list[Field]:
    """The fields in ``text`` whose key holds one of ``words`` (see the module's docstring);
    ``view``: its one-byte view (engine/text.py), where the caller has it; ``where``: where the
    words occur, where the caller knows."""
    view = view or one_byte_view(text)
    out: list[Field] = []
    read_lines: set[int] = set()  # lines of the tables, blocks and files read already
    for line in _word_lines(text, view, words, where):
        ls, le = line
        if ls in read_lines:
            continue
        body = text[ls:le]
        if body.rstrip().endswith(":") and body.lstrip().startswith(_BLOCK_HEADS):
            continue  # class TokenBucket:, def handle(self):: code, whose body is indented under it
        if ruled.rule_below(text, le):  # a header over a rule of dash runs (sqlite, sqlcmd, PowerShell)
            # (its rows are also read as the other layouts read them: Key/Value columns)
            for k, v in ruled.read(text, line):
                _field(text, k, v, words, out)
        if _BAR.search(body):
            block = _run(text, line, _table_line)
            read_lines.update(s for s, _ in block)
            _table(text, block, words, out)
        _pairs(text, line, words, out)  # (key | X and Name   : X are pairs too)
        if "," in body or ";" in body or "\t" in body or "|" in body:
            read_lines.update(s for s, _ in _delimited(text, line, words, out))
        read_lines.update(s for s, _ in _columns(text, line, words, out))
        if le - ls <= 64:
            _above(text, line, words, out)
    return out


def key_words(judges: Iterable[FieldJudge] = JUDGES) -> tuple[str, ...]:
    """The words the judges' keys hold: the scrubber's keyword gate finds them for the reader."""
    return tuple(dict.fromkeys(w for j in judges for w in j.key_words))


@functools.lru_cache(maxsize=64)
def _key_words_of(judges: tuple[FieldJudge, ...]) -> tuple[str, ...]:
    """key_words, once per set of enabled judges (hundreds of words: not on every text)."""
    return key_words(judges)


def findings(text: str, view: bytes, off: set[str], where: list[int] | None = None,
             judges: Iterable[FieldJudge] = JUDGES) -> list[Finding]:
    """What the enabled judges find in the fields of ``text`` (``view``: its one-byte view;
    ``where``: where the judges' key words occur, as the scrubber's gate found them, or None to
    look here)."""
    if LAYOUT in off or where is not None and not where:
        return []
    on = tuple(j for j in judges if j.name not in off)
    words = _key_words_of(on)
    if not words:
        return []
    out: list[Finding] = []
    seen: set[tuple[str, int, int]] = set()
    for f in read(text, words, view, where):
        low = f.key.lower()
        value = text[f.start:f.end]
        for j in on:
            if not any(w in low for w in j.key_words) and not cell_word(low, cell_words(j.key_words)):
                continue
            rule = j.judge(f.key, value)
            if rule is not None and rule not in off and (rule, f.start, f.end) not in seen:
                seen.add((rule, f.start, f.end))
                out.append(Finding(rule, f.start, f.end))
    return out
