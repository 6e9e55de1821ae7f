"""Where a label's value is, in the text around it: the fields a word of a label starts.

Given the position of a label word (the scrubber's keyword gate found it), :func:`fields_at`
gives ``(key, start, end)`` of each value that key names:

* the value after the key on its line: ``Key: value``, ``Key = value``, ``"key": "value"``,
  ``key="value"`` (logfmt, XML attributes), ``key=value&`` (forms), ``<key>value</key>``,
  ``key | value`` (psql's expanded rows), ``Key      value`` (aligned columns), ``Key<TAB>value``;
* or the line below a key that stands alone on its line (``Name`` then ``Riley Jones``).

A table's column under its header (CSV/TSV, Markdown, psql, box-drawing tables, aligned columns)
is the shared layout reader's (engine/fields.py), which asks checks/personal.py's field judge:
a header word is no inline key here.

A key starts where a field can: a line's start (after indentation, a bullet, ``**``), after
``{ [ , ; & ? | " ' < (`` or a tab or a run of spaces, or after one space before ``=``. A word
in the middle of prose ("the name of the file") is no key: nothing here guesses.
"""

from __future__ import annotations

import re

from jevlin_hooks.privacy.personal.keys import families

Field = tuple[str, int, int]

MAX_KEY = 48
# the rest of a key after its word: the word's end, and at most two more words (ID card no,
# social security number)
# (with the vowel signs of the Indic scripts, Thai, Arabic and Hebrew, which are no \w: आधार नंबर)
_MARKS = "\u0300-\u036f\u0591-\u05c7\u064b-\u065f\u0900-\u0dff\u0e30-\u0e4e"
# (a key may end in a gender's mark in brackets: Patient(in), Kunde (m/w/d), Cliente(a))
_KEY_RIGHT = re.compile(rf"[\w.'’°º#/\-{_MARKS}]*(?:[ ][\w.'’°º#/\-{_MARKS}]+){{0,2}}"
                        r"(?: ?\((?:in|innen|a|as|os|e|m/w/d|w/m/d|m/f/d|f/m/d|m/w|w/m)\))?")
_SEP = re.compile(r"""(\\?["'`]?\]?)(?:[ \t]*(:=|=>|[:=：|│┃])|(\t)|([ ]{2,})|[ \t]*(\n))""")
_OPENERS = frozenset("{[,;&?|│┃\t\"'<(`*>")
_BULLETS = frozenset(" \t-*•·#>")
_QUOTES = "\"'`"
# where an inline value ends: a tab, a cell's bar, a run of spaces (the next aligned column), a
# closing tag, or the next "Label:" of a list of pairs on one line
_VALUE_END = re.compile(r"\t|\s\|\s|\s?[│┃]|[ ]{3,}|</|[,;]\s*[^\W\d][\w .'’\-]{0,30}[:：]\s")
_TOKEN_END = re.compile(r"[\s&\"'<>;]")
_MORE_PAIRS = re.compile(r"[=&\"'<>;:]")
_RULE_LINE = re.compile(r"^[\s\-+=|:─━┼╪╋├┤┌┐└┘┬┴═╞╡╤╧╔╗╚╝╠╣╦╩║│┃]*$")
# what may follow a key: a separator, a quote before one, a cell's end, a tag's end or attribute
_AFTER_KEY = frozenset(":=：|│┃\t,;>\n\r\"'`\\] ")  # " ": only before a separator or a run of spaces


# read backwards (on the reversed text before the word): key characters, and with spaces single
# spaces between words
_KEY_BEFORE = (re.compile(rf"[\w.'’°º#/\-{_MARKS}]*"), re.compile(rf"[\w.'’°º#/\-{_MARKS}]*(?:[ ][\w.'’°º#/\-{_MARKS}]+)*"))


def _key_start(text: str, s: int, spaces: bool) -> int | None:
    """Where the key holding the word at ``s`` starts: back over key characters (and, with
    ``spaces``, single spaces: "Data de nascimento"); None past MAX_KEY (prose, not a label)."""
    lo = max(0, s - MAX_KEY)
    before = text[lo:s][::-1]
    i = s - _KEY_BEFORE[spaces].match(before).end()  # type: ignore[union-attr]
    if i == lo and lo > 0:
        return None
    while i < s and text[i] in "-#./ ":
        i += 1
    return i


def _start_kind(text: str, i: int) -> str | None:
    """How a field can start at ``i``: "line" (after indentation or a bullet), "opener" (after
    a bracket, a quote, a separator), "gap" (after a run of spaces), "space" (after one space:
    only a ``key=``), or None."""
    j = i
    while j > 0 and text[j - 1] in _BULLETS:
        j -= 1
    if j == 0 or text[j - 1] == "\n":
        return "line"
    if text[i - 1] in _OPENERS or text[j - 1] in _OPENERS:
        return "opener"
    if i >= 2 and text[i - 2:i] in (": ", "：") or text[i - 1] == "：":
        return "opener"  # a chat line's message after its speaker: [07:46] Li Wei: 姓名: 李静
    if i - j >= 2:
        return "gap"
    return "space" if i - j == 1 and text[i - 1] == " " else None


def fields_at(text: str, s: int, e: int) -> list[Field]:
    """The fields whose key holds the word at [s, e) (see the module's docstring)."""
    m = _KEY_RIGHT.match(text, e, min(len(text), e + MAX_KEY))
    ke = m.end() if m else e
    while ke > e and text[ke - 1] in " .-/'":
        if text[ke - 1] == "." and ke < len(text) and text[ke] in ":=：\"'`":
            break  # an abbreviation's dot ends the key ("USt-IdNr.": ..., Tel.: ...)
        ke -= 1
    after = text[ke] if ke < len(text) else "\n"
    if after not in _AFTER_KEY or after == " " and _SEP.match(text, ke) is None:
        return []  # a word in prose: no separator, no cell's end, no tag after the key
    if after in ",;":
        return []  # only a CSV header's cell ends so: the layout reader's (engine/fields.py)
    one = _key_start(text, s, False)
    if one is not None and one > 5 and text[one - 1] in "\"'" and text[one - 6:one - 1].lower() == "name=":
        return _form(text, one, text.find(text[one - 1], e, e + MAX_KEY))
    if one is not None and one > 0 and text[one - 1] == "<":
        te = e
        while te < len(text) and (text[te].isalnum() or text[te] in "_.-:"):
            te += 1
        return _xml(text, text[one:te], te) if families(text[one:te]) else []
    tried = set()
    # the key with its words before first: "tc kimlik" names Turkey's id where "kimlik" is any
    for ks in (_key_start(text, s, True), one):
        if ks is None or ks in tried or not families(text[ks:ke]):
            continue
        tried.add(ks)
        found = _fields(text, ks, ke)
        if found is not None:
            return found
    return []


def _fields(text: str, ks: int, ke: int) -> list[Field] | None:
    """The fields of the key at [ks, ke); None if no field can start at ``ks``."""
    start = _start_kind(text, ks)
    if start is None:
        return None
    key = text[ks:ke]
    if start != "space" and _header_cell(text, ks, ke):
        return []  # a table's header: its column is the layout reader's (engine/fields.py)
    sep = _SEP.match(text, ke)
    if sep is None or (start == "space" and sep.group(2) != "="):
        return None
    if sep.group(5) is not None or (sep.group(2) in (":", "：") and text.startswith("\n", _skip_blanks(text, sep.end()))):
        return _below(text, key, ks, sep.end()) if start == "line" else []
    span = _inline(text, sep.end(), sep.group(2))
    return [(key, span[0], span[1])] if span else []


def _skip_blanks(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _inline(text: str, i: int, op: str | None) -> tuple[int, int] | None:
    """The value that starts after the separator at ``i``."""
    tight = op == "=" and i < len(text) and text[i] not in " \t"
    i = _skip_blanks(text, i)
    while text.startswith(("**", "__"), i):
        i = _skip_blanks(text, i + 2)
    if i >= len(text) or text[i] == "\n":
        return None
    q = text[i]
    if q == "\\" and text[i + 1:i + 2] in ('"', "'"):  # JSON inside a JSON string: \"key\": \"value\"
        j = text.find("\\" + text[i + 1], i + 2, text.find("\n", i) % (len(text) + 1))
        return (i + 2, j) if j > i + 2 else None
    if q in _QUOTES:
        j = i + 1
        while j < len(text) and text[j] != q and text[j] != "\n":
            j += 2 if text[j] == "\\" else 1
        return (i + 1, j) if j < len(text) and text[j] == q else None
    end = text.find("\n", i)
    end = len(text) if end < 0 else end
    if tight:
        m = _TOKEN_END.search(text, i, end)
        if m is not None and text[m.start()] == " " and not _MORE_PAIRS.search(text, m.start(), end):
            m = None  # an env dump's unquoted value runs to its line's end (GIT_AUTHOR_NAME=Jane Doe)
    else:
        m = _VALUE_END.search(text, i, end)
        if op in ("|", "│", "┃"):
            bar = text.find(op, i, end)
            if bar >= 0 and (m is None or bar < m.start()):
                end = bar
    if m is not None:
        end = m.start()
    while end > i and text[end - 1] in " \t\r,;*|":
        end -= 1
    return (i, end) if end > i else None


def _below(text: str, key: str, ks: int, at: int) -> list[Field]:
    """A key alone on its line: its value is the next line."""
    line_start = text.rfind("\n", 0, ks) + 1
    if text[line_start:ks].strip(" \t-*•#"):
        return []
    nl = text.find("\n", at - 1 if text[at - 1] == "\n" else at)
    if nl < 0:
        return []
    vs = _skip_blanks(text, nl + 1)
    ve = text.find("\n", vs)
    ve = len(text) if ve < 0 else ve
    while ve > vs and text[ve - 1] in " \t\r":
        ve -= 1
    return [(key, vs, ve)] if ve > vs else []


_FORM_VALUE = re.compile(r"""\svalue\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)')""", re.IGNORECASE)


def _form(text: str, ks: int, ke: int) -> list[Field]:
    """A form's field named by its name attribute, the key at [ks, ke): an ``<input>``'s
    ``value="..."``, a ``<textarea>``'s text (``<textarea name="address">...</textarea>``)."""
    lt = text.rfind("<", max(0, ks - 200), ks)
    gt = text.find(">", ke, ke + 400) if ke > 0 else -1
    if lt < 0 or gt < 0 or "\n" in text[lt:ks]:
        return []
    tag = text[lt + 1:lt + 9].lower()
    key = text[ks:ke]
    if tag.startswith("input"):
        m = _FORM_VALUE.search(text, lt, gt)
        if m is None:
            return []
        g = 1 if m.start(1) >= 0 else 2
        return [(key, m.start(g), m.end(g))] if m.end(g) > m.start(g) else []
    if tag.startswith("textarea"):
        end = text.find("</", gt + 1, gt + 402)
        return [(key, gt + 1, end)] if end > gt + 1 else []
    return []


def _xml(text: str, key: str, ke: int) -> list[Field]:
    """``<key ...>value</key>``."""
    gt = text.find(">", ke, ke + 200)
    if gt < 0 or "\n" in text[ke:gt] or (gt > ke and text[ke] not in " \t") or text[gt - 1] == "/":
        return []
    lt = text.find("<", gt + 1, gt + 402)
    if lt < 0:
        return []
    vs, ve = gt + 1, lt
    while vs < ve and text[vs].isspace():
        vs += 1
    while ve > vs and text[ve - 1].isspace():
        ve -= 1
    return [(key, vs, ve)] if ve > vs else []


# --- tables ---------------------------------------------------------------------------------

_ROW_BARS = "|│┃"


def _header_cell(text: str, ks: int, ke: int) -> bool:
    """Whether the key at [ks, ke) is a cell of a header row: a row between bars with a rule line
    or another row of bars under it, or a TSV line of three cells or more over a row of as many.
    Its cells are no ``key | value`` nor ``key<TAB>value``."""
    ls = text.rfind("\n", 0, ks) + 1
    le = text.find("\n", ke)
    le = len(text) if le < 0 else le
    line = text[ls:le]
    if le >= len(text):
        return False
    ne = text.find("\n", le + 1)
    below = text[le + 1:len(text) if ne < 0 else ne]
    if line.count("\t") >= 2 and below.count("\t") >= line.count("\t"):
        return True
    if not any(b in line for b in _ROW_BARS):
        return False
    return _RULE_LINE.match(below) is not None and below.strip() != "" or \
        sum(below.count(b) for b in _ROW_BARS) >= sum(line.count(b) for b in _ROW_BARS) >= 2
