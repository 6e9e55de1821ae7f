"""Ids the record knows, inside its texts (issue 28, mechanism 6).

A record's id fields are hashed with the local key (ids.py); the same raw ids also turn up inside
its free text: a prompt with `claude --resume <session id>`, an assistant's `agentId: <subagent
id>`, a query naming a session, history quoting a tool_use_id. Each such occurrence becomes the
id's keyed hash, the very value of the hashed field, so the text still says which session or call
it meant and joins the record's ids, and no raw id leaves.

Spellings: an id is looked for as it is; an id of hex digits (a UUID, a 32-hex thread id, a
Hermes `20261130_152408_619c64`) also in upper and lower case, and a UUID also with and without
its dashes, each spelling standing for the one raw id its field carries. An id of other letters
(`toolu_01AbC...`, `call_xYz...`) is case-sensitive: another case is another id. An occurrence
counts only as a whole token: no letter or digit just before or after it (`session_<id>` and
`<id>.jsonl` count). Ids shorter than MIN_LENGTH are not looked for: a turn counted `3` or an id
`s1` names nothing outside the record, and replacing every `3` would wreck the text.

Cheap where nothing matches (nearly always): one `in` test a spelling a text, and a pattern is
compiled only for the spellings a text holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

MIN_LENGTH = 8
_HEX_ID = re.compile(r"[0-9a-fA-F_:.\-]+")
_HEX_DIGIT = re.compile(r"[0-9a-fA-F]")
_UUID = re.compile(r"([0-9a-fA-F]{8})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{12})")


def spellings(raw: str) -> set[str]:
    """The ways ``raw`` may be written in a text (see the module's docstring)."""
    forms = {raw}
    if _HEX_ID.fullmatch(raw) and _HEX_DIGIT.search(raw):
        forms |= {raw.lower(), raw.upper()}
        m = _UUID.fullmatch(raw)
        if m is not None:
            dashed, plain = "-".join(m.groups()), "".join(m.groups())
            forms |= {dashed.lower(), dashed.upper(), plain.lower(), plain.upper()}
    return forms


def table(raw_ids: Iterable[str | None], hashed: Callable[[str], str | None]) -> dict[str, str]:
    """Each spelling of each raw id worth looking for -> the id's hash. Ids that hash to
    themselves (a released record's, hashed already) and short ones are left out."""
    out: dict[str, str] = {}
    for raw in raw_ids:
        if not isinstance(raw, str) or len(raw) < MIN_LENGTH or raw.count(raw[0]) == len(raw):
            continue
        h = hashed(raw)
        if h is None or h == raw:
            continue
        for form in spellings(raw):
            out.setdefault(form, h)
    return out


def replace(texts: list[str], known: dict[str, str]) -> list[str]:
    """``texts`` with every whole occurrence of a known spelling replaced by the id's hash."""
    if not known:
        return texts
    return [_replace_one(t, known) for t in texts]


def _replace_one(text: str, known: dict[str, str]) -> str:
    present = [form for form in known if form in text]
    if not present:
        return text
    # the longest first: a Hermes turn id holds its session's id, and goes whole
    alternatives = "|".join(re.escape(f) for f in sorted(present, key=len, reverse=True))
    rx = re.compile(f"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])")
    return rx.sub(lambda m: known[m.group(0)], text)
