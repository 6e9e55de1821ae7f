"""The value checks by name: what a rule's ``check`` field refers to.

A rule's match is only a candidate; its check says whether the value is a secret (or personal
data) rather than a placeholder, a name, code or a number of another kind. Each check is one
small function registered under its name, with what it needs from the engine and what the engine
may do to spare it work, as attributes:

* ``accept(value, text, start, end, m, lower)``: the value (the rule's group) at [start, end) of
  ``text``; ``m`` the match's groups (``group(i)``, ``start(i)``, ``end(i)``) where
  ``needs_match``, else None; ``lower`` the lower-cased text where the engine has it, else "";
* ``span(text, s, e, m)``: for the checks that say where the finding is (a YAML block's lines, an
  IBAN's exact length, the word after a credential word), the span or None;
* ``from_word(text, s, e)``: for the rules that start from the gate's word positions instead of
  their own pattern (s, e: the word), the span of the value after it, or None (or a list of
  spans: the cells of a table column whose header holds the word); ``inside_words``: the word
  may also stand inside a key (``customer_email``, ``dateOfBirth``: after ``_ . -`` or a
  lower-case letter before its capital), where from_word reads the whole key;
* ``rejects(text, data, s0, e0)``: the check's commonest refusals told from the match alone,
  before RE2 works out its groups; ``value_span(data, s0, e0)``: the value group read off a
  group-less match (see values.py and prose.py for why each is exact);
* ``text_gate(lower)``: the rule runs only on texts where this holds;
* ``public_pem_kept``: a value that is the base64 of a PEM certificate or public key stays (all
  but a Kubernetes Secret's data).
* ``whole``: False where the span is the whole value by construction (what a command printed, up
  to the prompt glued after it): engine/whole.py does not grow it to a token's edges.

A rule naming a check that is not here is an error when the engine compiles the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Accept = Callable[[str, str, int, int, Any, str], bool]
SpanHook = Callable[[str, int, int, Any], "tuple[int, int] | list[tuple[int, int]] | None"]
FromWord = Callable[[str, int, int], "tuple[int, int] | list[tuple[int, int]] | None"]
Rejects = Callable[[str, bytes, int, int], bool]
ValueSpan = Callable[[bytes, int, int], "tuple[int, int]"]


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    accept: Accept | None = None
    span: SpanHook | None = None
    from_word: FromWord | None = None
    inside_words: bool = False
    needs_match: bool = False
    rejects: Rejects | None = None
    value_span: ValueSpan | None = None
    text_gate: Callable[[str], bool] | None = None
    public_pem_kept: bool = True
    whole: bool = True


CHECKS: dict[str, Check] = {}


class UnknownCheck(LookupError):
    """A rule names a check that does not exist."""


def register(c: Check) -> Check:
    if c.name in CHECKS:
        raise ValueError(f"two checks named {c.name!r}")
    CHECKS[c.name] = c
    return c


def check(name: str, **attributes: Any) -> Callable[[Accept], Accept]:
    """Register the decorated function as the value check ``name``, with ``attributes``."""
    def add(fn: Accept) -> Accept:
        register(Check(name, accept=fn, **attributes))
        return fn
    return add


def get(name: str) -> Check | None:
    """The check ``name``; None for "" (no check); UnknownCheck for a name that is not registered."""
    if not name:
        return None
    try:
        return CHECKS[name]
    except KeyError:
        raise UnknownCheck(f"no value check named {name!r} (known: {', '.join(sorted(CHECKS))})") from None
