"""Once found, everywhere (issue 28, mechanism 7): a value the rules cut in one place is cut at
every other place it occurs, where its context is gone (a password caught in a config and
repeated in the narration; a user name found in a home path and shown again in a shell prompt
`jdoe@host` or an `ls -l` owner column).

The scrubber does it within each text (Scrubber.scrub, scrub_fields) and gives what it cut, by
value, to its caller (never logged, never in a Finding); the record step (privacy/record.py)
cuts those values in the record's other fields with :func:`cut_in`, with one str.find pass a value
(see occurrences for why not an automaton). Only values worth it spread
(:func:`worth`): found by their context (a rule whose value is the whole match finds it again
wherever it is: the Scrubber's ``spreads``), long enough or a user name, so that `admin` or `1234` cut in one place does
not wipe the word everywhere. An occurrence counts only as a whole token (no letter or digit
joins it on either side) unless the value is long (LONG characters), when no shorter token
could hold it by chance. Turned off with the pseudo rule name EVERYWHERE in ``disabled``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from jevlin_hooks.privacy.engine.findings import Finding, merge

EVERYWHERE = "everywhere"  # disabled_rules = ["everywhere"] turns the mechanism off
MIN_LENGTH = 8  # a secret value shorter than this spreads only with two kinds of characters and 6 of them
LONG = 16  # from this length an occurrence need not stand alone
NAME_LENGTH = 3  # a user name from a home path: jdoe, mk2
_NAME_RULES = frozenset(("home-username",))
_BLANKS = re.compile(r"\s+")
_PUNCTUATION = ".,:;!?()[]{}<>\"'`"
# a file-name suffix glued to a value (X.jsonl, X.txt): the value also spreads without it
_SUFFIX = re.compile(r"(.{8,}?)\.[a-z]{1,5}")

Cut = tuple[str, str]  # (value, rule)


class Cuts(tuple[Cut, ...]):
    """What a text gave up, (value, rule) pairs: secrets. Its repr says how many, never which."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} cut values>"


NO_CUTS = Cuts()


def worth(value: str, rule: str) -> bool:
    """Whether a value cut by ``rule`` is cut wherever else it occurs: a user name of 3 characters
    or more; any other value of MIN_LENGTH or more that is not only digits (a 12-digit number is
    an account id as often as a card's tail), or of 6 or more with letters and digits or symbols.
    A value of blanks and one repeated character never."""
    v = value.strip()
    if len(v) != len(value) or not v or v.count(v[0]) == len(v):
        return False
    if rule in _NAME_RULES:
        return len(v) >= NAME_LENGTH
    if v.isdigit():
        return len(v) >= 12 and len(set(v)) >= 4
    if len(v) >= MIN_LENGTH:
        return True
    return len(v) >= 6 and not v.isalpha() and any(map(str.isalpha, v))


def cuts_of(text: str, findings: Iterable[Finding], spreads: frozenset[str]) -> list[Cut]:
    """What the findings cut out of ``text``, worth spreading; also without the punctuation a
    finding may end in (`the password is X:` cut `X:`, and X is what comes again) or a file-name
suffix glued to it (`X.jsonl`), and a value cut
    across a line joint in its joined form (a wrapped token repeated whole)."""
    out: list[Cut] = []
    seen: set[str] = set()
    for f in findings:
        if f.rule not in spreads:
            continue  # a vendor token, a JWT, an e-mail address: its rule finds it wherever it is
        v = text[f.start:f.end]
        forms = [v]
        bare = v.strip(_PUNCTUATION)
        if bare != v:
            forms.append(bare)
        stem = _SUFFIX.fullmatch(bare)
        if stem is not None:
            forms.append(stem.group(1))  # `the password is X.jsonl` cut X.jsonl; X alone comes again
        if "\n" in v:
            joined = _BLANKS.sub("", bare)
            if len(joined) >= LONG:
                forms.append(joined)
        for form in forms:
            if form not in seen and worth(form, f.rule):
                seen.add(form)
                out.append((form, f.rule))
    return out


def _whole(text: str, s: int, e: int, value: str) -> bool:
    """An occurrence no letter or digit extends (for a value shorter than LONG)."""
    if len(value) >= LONG:
        return True
    return not (s > 0 and text[s - 1].isalnum() and value[0].isalnum()
                or e < len(text) and text[e].isalnum() and value[-1].isalnum())


def occurrences(text: str, cuts: Sequence[Cut]) -> list[Finding]:
    """Every whole occurrence of a cut value in ``text``, as a finding of the rule that cut it
    (overlapping ones too: merge() joins them). One str.find pass a value: measured against an
    Aho-Corasick automaton over the values (privacy/automaton.py) on bench/scrub_speed.py's varied
    mix (27 values a 32 KiB message), building it cost more than all the finds (0.75 ms with its
    quickest build, 3-8 ms with its default, against 0.7 ms), and texts are at most 64 KiB."""
    out: list[Finding] = []
    for value, rule in cuts:
        i = text.find(value)
        while i >= 0:
            e = i + len(value)
            if _whole(text, i, e, value):
                out.append(Finding(rule, i, e))
            i = text.find(value, i + 1)
    return out


def spread(text: str, findings: list[Finding], spreads: frozenset[str]) -> list[Finding]:
    """The findings of ``text`` (merged) and a finding at every other whole occurrence of what
    they cut (by the rules in ``spreads``), unmerged (the caller merges)."""
    cuts = cuts_of(text, findings, spreads)
    if not cuts:
        return findings
    extra = [f for f in occurrences(text, cuts) if not inside(f, findings)]
    return findings + extra if extra else findings


def inside(f: Finding, findings: list[Finding]) -> bool:
    """Whether ``f`` lies inside one of ``findings`` (merged, so sorted and apart): the value where
    it was found."""
    lo, hi = 0, len(findings)
    while lo < hi:
        mid = (lo + hi) // 2
        if findings[mid].end < f.end:
            lo = mid + 1
        else:
            hi = mid
    return lo < len(findings) and findings[lo].start <= f.start


def cut_in(clean: str, cuts: Sequence[Cut]) -> tuple[str, int]:
    """``clean`` (a text already scrubbed) with every whole occurrence of the cut values redacted
    as the rule that cut them was, and how many were: the values another field of the record
    gave up."""
    if not cuts or not clean:
        return clean, 0
    found = occurrences(clean, cuts)
    if not found:
        return clean, 0
    parts: list[str] = []
    pos = 0
    merged = merge(found)
    for f in merged:
        parts.append(clean[pos:f.start])
        parts.append(f"[REDACTED:{f.rule}]")
        pos = f.end
    parts.append(clean[pos:])
    return "".join(parts), len(merged)
