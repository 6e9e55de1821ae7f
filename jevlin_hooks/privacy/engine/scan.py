"""The scan loop: one compiled pattern over a text, each match checked, findings appended.

Also the two other ways a rule is looked for: the e-mail pattern only around each @
(next_email), and the rules that start from the gate's word positions (located_findings).
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from jevlin_hooks.privacy.checks import Check
from jevlin_hooks.privacy.engine.findings import Finding
from jevlin_hooks.privacy.engine.patterns import Pattern, submatches
from jevlin_hooks.privacy.engine.text import ASCII_OFFSETS, Groups, Offsets
from jevlin_hooks.privacy.engine.windows import NEAR_REACH
from jevlin_hooks.privacy.heuristics import looks_fake, pem64_private
from jevlin_hooks.privacy.regex import UNANCHORED
from jevlin_hooks.privacy.rules import Rule

_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# the e-mail rule's local part and domain characters
_EMAIL_LOCAL_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-"
_EMAIL_LOCAL = frozenset(_EMAIL_LOCAL_CHARS)
_EMAIL_DOMAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
_EMAIL_DOMAIN_RUN = re.compile(rb"[A-Za-z0-9.\-]*")
_EMAIL_SEEK_BYTES = 1024  # looking around each @ pays where there is under one @ a KiB


def run(c: Pattern, text: str, lower: str, ascii_view: bytes, utf8s: list[tuple[bytes, Offsets]],
         out: list[Finding], across: list[int] | None = None,
         by_end: tuple[list[int], int] | None = None, windows: list[tuple[int, int]] | None = None) -> None:
    """One compiled pattern over the text, each match checked; findings appended to ``out``.
    With ``across``, a match that spans none of those positions is passed over unchecked: its
    finding, inside the match, could not span one either (a span hook's can: those are checked).
    With ``by_end`` (Hyperscan's match ends, the longest match), RE2 starts near the next match.
    With ``windows`` (ascending, apart), RE2 searches only them, each with the whole text as
    context: the rule's matches all lie inside them (see windows.py)."""
    rule = c.rule
    if c.unicode and not text.isascii():
        if not utf8s:
            b = text.encode("utf-8", "replace")
            utf8s.append((b, Offsets(b, False)))
        data, pos = utf8s[0]
    else:
        data, pos = ascii_view, ASCII_OFFSETS
    n = len(data)
    scan = c.scan
    match = scan or c.rx.Match
    # what the loop reads for every candidate, read once (150 candidates a varied message)
    accept, name, near, groups = c.accept, rule.name, rule.near, c.groups
    word_start, secret, ascii_pos = c.word_start, c.secret, pos.ascii
    rejects = c.rejects
    span_hook = c.span
    read_value = c.value_span if ascii_pos else None
    groups_for_check = c.needs_match
    skip_far = across is not None and ascii_pos and span_hook is None
    joints_at = across or []
    seek = c.around_at_sign
    pem_kept = c.public_pem_kept
    seen = [0]  # the @ looked at (see _next_email)
    at = 0
    for w0, w1 in windows if windows is not None else ((0, n),):
        at, n = max(at, w0), w1
        while at <= n:
            if by_end is not None:
                # Hyperscan's match ends (ascending): no match starts more than the rule's longest
                # match before the first end after `at`, and none at all past the last
                k = bisect.bisect_right(by_end[0], at)
                if k == len(by_end[0]):
                    break
                # (a length of 0: the match stays on its line, which starts after the line break
                # before its last character)
                end = by_end[0][k]
                start = end - by_end[1] if by_end[1] else data.rfind(b"\n", 0, end - 1)
                spans = match(UNANCHORED, data, max(at, start), n)
            elif seek:
                spans = next_email(match, data, at, seen)
            else:
                spans = match(UNANCHORED, data, at, n)
            s0, e0 = spans[0]
            if s0 < 0:
                break
            if word_start and s0 > 0 and data[s0 - 1] in _WORD_BYTES:
                at = s0 + 1  # where \b would have failed: look again from the next byte
                continue
            at = e0 if e0 > at else at + 1
            if skip_far:
                k = bisect.bisect_right(joints_at, s0)
                if k == len(joints_at) or joints_at[k] >= e0:
                    continue
            if rejects is not None and rejects(text, data, s0, e0):
                continue
            if scan is not None:
                if read_value is not None:  # the group read off the match: the match is all the check needs
                    spans = [(s0, e0), read_value(data, s0, e0)]
                else:
                    spans = submatches(c, data, s0, e0)
            for g in groups:
                s, e = spans[g]
                if e > s:
                    break
            else:
                continue
            if not ascii_pos:
                s, e = pos.char(s), pos.char(e)
            if span_hook is not None:
                span = span_hook(text, s, e, Groups(spans, text, pos))
                if span is None:
                    continue
                for s, e in span if isinstance(span, list) else (span,):  # a list: a table column's cells
                    if not (secret and looks_fake(text[s:e], text, e)):
                        out.append(Finding(name, s, e))
                continue
            value = text[s:e]
            # Every test below only rejects, so their order changes nothing but the cost: the rule's
            # own check first, since most candidates fail it on a cached key-name test or a shape
            # test (a digest, a UUID) before the placeholder regexes would have to run.
            if near and not near_word(lower, s, near):
                continue
            if accept is not None and not accept(value, text, s, e, Groups(spans, text, pos) if groups_for_check else None, lower):
                continue
            if secret and (looks_fake(value, text, e) or value.startswith("LS0tLS1CRUdJTi") and not pem64_private(value)
                           and pem_kept):
                continue
            out.append(Finding(name, s, e))


def next_email(match: Any, data: bytes, at: int, seen: list[int]) -> Any:
    """``match(UNANCHORED, data, at, len(data))`` for the e-mail pattern, with RE2 looking only
    around each @: an address holds one, its local part is the run of local characters just
    before it and its domain lies in the run of domain characters after it (RE2 cannot skip ahead
    to the @ itself, as it does to a literal a match starts with). The byte after the domain run
    stays in view, for the closing \b. A Python step an @ against RE2's 1.5 ns a byte: where
    the @ come more than one a KiB (hostile text, a list of addresses), RE2 walks as before."""
    n = len(data)
    while True:
        at_sign = data.find(b"@", at)
        if at_sign < 0:
            return _NO_MATCH
        seen[0] += 1
        if seen[0] > 16 + at_sign // _EMAIL_SEEK_BYTES:
            return match(UNANCHORED, data, at, n)
        # the local part's run before the @ and the domain's after it, byte by byte for the first
        # 64 (an address's parts are short), then in C (linear in the text, however hostile)
        p, stop = at_sign, max(at, at_sign - 64)
        while p > stop and data[p - 1] in _EMAIL_LOCAL:
            p -= 1
        if p == stop > at:
            before = data[at:at_sign]
            p = at_sign - (len(before) - len(before.rstrip(_EMAIL_LOCAL_CHARS)))
        end, stop = at_sign + 1, min(n, at_sign + 65)
        while end < stop and data[end] in _EMAIL_DOMAIN:
            end += 1
        if end == stop < n:
            end = _EMAIL_DOMAIN_RUN.match(data, end).end()  # type: ignore[union-attr]
        spans = match(UNANCHORED, data, p, min(n, end + 1))
        if spans[0][0] >= 0:
            return spans
        at = at_sign + 1  # no address around this @: the next one starts after it


_NO_MATCH = [(-1, -1)]


def near_word(lower: str, start: int, words: tuple[str, ...]) -> bool:
    """Whether a word starts in the NEAR_REACH (64) characters before ``start`` (OKTA_TOKEN, not rookTable)."""
    window = lower[max(0, start - NEAR_REACH):start]
    for w in words:
        i = window.find(w)
        while i >= 0:
            if i == 0 or not window[i - 1].isalpha():
                return True
            i = window.find(w, i + 1)
    return False


def located_findings(rule: Rule, check: Check, text: str, lower: str, hits: list[tuple[int, int, int]],
                     words: list[str], own: frozenset[str] | None = None) -> list[Finding]:
    """A rule that starts from the gate's keyword positions (credential-i18n, phone-number-labelled):
    for each of its words standing alone, the value its check finds after the word. ``own``: the
    rule's keywords as a set, where the caller keeps one (the label rules have hundreds)."""
    out = []
    n = len(text)
    if own is None:
        own = frozenset(rule.keywords)
    after_word = check.from_word
    assert after_word is not None, rule.name
    inside = check.inside_words
    for k, s, e in hits:
        word = words[k]
        if word not in own:
            continue
        if inside:
            if not key_part(text, s, e):
                continue
        elif word.isascii():
            # a word in Latin letters stands alone (mdp and clave hide inside base64, tel in hotel)
            if s > 0 and (lower[s - 1].isascii() and (lower[s - 1].isalnum() or lower[s - 1] == "_")):
                continue
            if e < n and lower[e].isascii() and lower[e].isalnum() and word[-1].isalnum():
                continue  # (a word ending in an apostrophe, dell', d', runs into the next word)
        span = after_word(text, s, e)
        if span is None:
            continue
        for a, b in span if isinstance(span, list) else (span,):  # a list: a table column's cells
            if not (rule.category == "secret" and looks_fake(text[a:b], text, b)):
                out.append(Finding(rule.name, a, b))
    return out


def key_part(text: str, s: int, e: int) -> bool:
    """Whether the word at [s, e) is a word of a key: alone, or a part of one between ``_ . -``,
    digits or a case change (customer_email, dateOfBirth, phoneNumber, address1; not tel in
    hotel or telemetry, sin in using, name in filename or namespace). Letters of scripts without
    case stand as they are."""
    if s > 0 and text[s].isalnum():
        c = text[s - 1]
        if c.isalnum() and c.isascii() and not (c.islower() and text[s].isupper()):
            return False
    if e < len(text) and text[e - 1].isalnum():
        c = text[e]
        if c.isalpha() and c.isascii() and not (c.isupper() and text[e - 1].islower()):
            return False
    return True
