"""No fragments, by construction: a secret's cut covers the whole token it falls in.

A rule may match part of a token: a pattern of bounded length before a longer value, a value class
narrower than the value, a wrapped value's first piece. Wherever that happens, what the cut leaves
of the token is a fragment of the secret. Here, the one place where findings become cuts, each
secret's span grows to the token's edges: the run of token characters on both sides, and across
the joints of a wrapped value (joints.py) to its other pieces. Personal data is left as found (a
phone number or an address is not a token).

The token alphabet is chosen not to eat what stands next to a value:
- letters, digits, _ - + (every alphabet secrets are written in: hex, base32, base64, base64url);
- . and ~ only between two of those (a JWT's parts, a version of a token; not a full stop);
- / where the segment beyond it does not read as a word of a path or URL (base64 holds /,
  /home/dev/ or /v1/charges does not), and never //;
- %2F %2B %3D (a base64 character URL-encoded); = only as padding at the end.
A space, a quote, = : , ; @ & ? # \\ and every other character end a token, so a key name
(``api_key=``), JSON punctuation, a URL's host and a neighbouring word stay.
"""

from __future__ import annotations

import re
import string

from jevlin_hooks.privacy.engine import joints as joints_
from jevlin_hooks.privacy.engine.findings import Finding

NAME = "whole-token"  # turns this off, in `disabled_rules`, as a rule's name does
TOKEN = frozenset(string.ascii_letters + string.digits + "_-+")
_INNER = frozenset(".~")
_PERCENT = frozenset(("2F", "2B", "3D", "2f", "2b", "3d"))
_PERCENT_INNER = frozenset(("2F", "2B", "2f", "2b"))  # %3D is padding: at the end only
# a path's or URL's segment: words (home, Makefile, README, orders-api, search_task, app.yaml),
# a number, a short name with digits (v1, py3, ec2)
_PART = r"(?:[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[a-z]+[0-9]{1,3})"
_WORD = re.compile(rf"{_PART}(?:[-_.]{_PART})*")
_SEGMENT = 64  # a path's word is shorter: longer segments are read as token
_FLAG = re.compile(r"-{1,2}[A-Za-z]{1,2}")
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_+\-]+")  # TOKEN's characters (ASCII letters only: no re.I, no \w)
_INDENT = " \t" + "".join(joints_.CONTINUATION_MARKS)


def whole(text: str, view: bytes, findings: list[Finding], joints: list[joints_.Joint],
          secret: frozenset[str], prefixes: dict[str, tuple[str, ...]] | None = None) -> list[Finding]:
    """``findings`` with each secret's span grown to the edges of the token it is in, across the
    joints (line end, continuation start, "") of a wrapped value, and across a line end where
    the line looks wrapped at a width the joints could not tell (joints.continues). ``view``:
    the text's one-byte view. ``prefixes``: each rule's keywords, lower-cased; a match that
    starts with one starts its token (AGE-SECRET-KEY-1..., ghp_...), so its cut is not carried
    back over a line end onto the line before (an age public key above its secret key)."""
    # a joint read as " " (the wrap fell on a space) ends the token: -1, never crossed
    ahead = {a: (b if not r else -1) for a, b, r in joints}
    back = {b: (a if not r else -1) for a, b, r in joints}
    out = []
    for f in findings:
        if f.rule not in secret:
            out.append(f)
            continue
        starts = prefixes is not None and text[f.start:f.start + 64].lower().startswith(prefixes.get(f.rule, ()) or ("\x00",))
        s, e = _left(text, view, f.start, back, not starts), _right(text, view, f.end, ahead)
        if _FLAG.fullmatch(text, s, f.start):
            s = f.start  # a command-line flag the value is glued to (mysql -pSECRET) stays
        out.append(f if (s, e) == (f.start, f.end) else Finding(f.rule, s, e))
    return out


def _right(text: str, view: bytes, e: int, ahead: dict[int, int]) -> int:
    n = len(text)
    while True:
        while e < n:
            c = text[e]
            if c in TOKEN:
                e = _TOKEN_RUN.match(text, e).end()  # type: ignore[union-attr]  # (the run at once: one step each, in C)
            elif c in _INNER and e + 1 < n and text[e + 1] in TOKEN:
                e += 1
            elif c == "%" and text[e + 1:e + 3] in _PERCENT and (text[e + 1:e + 3] in _PERCENT_INNER or not _token_at(text, e + 3)):
                e += 3
            elif c == "/" and e + 1 < n and text[e + 1] in TOKEN and not _word(text, e + 1, True):
                e += 1
            else:
                break
        j = ahead.get(e)
        if j is None and e < n and text[e] == "\n":
            j = joints_.continues(text, view, e)
        if j is None or j < 0 or j >= n or text[j] not in TOKEN:
            break
        e = j
    p = e
    while p < n and text[p] == "=":
        p += 1
    return p if p == n or text[p] not in TOKEN else e


def _token_at(text: str, i: int) -> bool:
    return i < len(text) and text[i] in TOKEN


def _left(text: str, view: bytes, s: int, back: dict[int, int], across: bool = True) -> int:
    while True:
        while s > 0:
            c = text[s - 1]
            if s > 2 and text[s - 3] == "%" and text[s - 2] in string.hexdigits and c in string.hexdigits:
                if text[s - 2:s] not in _PERCENT_INNER:
                    break  # a URL-encoded character that is no token's (%22 ")
                s -= 3
            elif c in TOKEN:
                s -= 1
            elif c in _INNER and s > 1 and text[s - 2] in TOKEN:
                s -= 1
            elif c == "/" and s > 1 and text[s - 2] in TOKEN and not _word(text, s - 1, False):
                s -= 1
            else:
                break
        if not across:
            break
        j = back.get(s)
        if j is None:
            nl = text.rfind("\n", 0, s)
            # (only where s starts the line's content: after its indentation and a mark)
            if nl > 0 and not text[nl + 1:s].strip(_INDENT) and joints_.continues(text, view, nl) == s:
                j = nl
        if j is None or j <= 0 or text[j - 1] not in TOKEN:
            break
        s = j
    return s


def _word(text: str, at: int, forward: bool) -> bool:
    """Whether the segment starting at ``at`` (forward) or ending there (backward), up to the
    next character that is not a token character or a dot, reads as a word of a path or URL."""
    if forward:
        end = at
        while end < len(text) and end - at < _SEGMENT and (text[end] in TOKEN or text[end] == "."):
            end += 1
        seg = text[at:end]
    else:
        start = at
        while start > 0 and at - start < _SEGMENT and (text[start - 1] in TOKEN or text[start - 1] == "."):
            start -= 1
        seg = text[start:at]
    return len(seg) < _SEGMENT and _WORD.fullmatch(seg.strip(".")) is not None
