"""What is wrong with a rule table, said before it scrubs anything (tests/test_scrub_rules.py runs it).

Scrubber() refuses a check name that does not exist and a group its pattern does not have; this
also finds two rules of one name, a rule without an example, and an example its own pattern does
not match. (A counter-example need not match the pattern: a near miss of the pattern is worth
keeping as much as one the check turns down.)
"""

from __future__ import annotations

from jevlin_hooks.privacy import checks
from jevlin_hooks.privacy.regex import UNANCHORED, Error, compile_bytes
from jevlin_hooks.privacy.rules import RULES, Rule, examples


def problems(rules: tuple[Rule, ...] = RULES) -> list[str]:
    """One line per problem, naming the rule; empty when the table is sound."""
    out = []
    seen: set[str] = set()
    for r in rules:
        if r.name in seen:
            out.append(f"{r.name}: two rules of this name")
        seen.add(r.name)
        if r.category not in ("secret", "pii"):
            out.append(f"{r.name}: category {r.category!r} (secret or pii)")
        try:
            checks.get(r.check)
        except checks.UnknownCheck as e:
            out.append(f"{r.name}: {e}")
        try:
            rx = compile_bytes(r.pattern)
        except Error as e:
            out.append(f"{r.name}: RE2 refuses the pattern: {e}")
            continue
        missing = [g for g in r.groups if g > rx.NumberOfCapturingGroups()]
        if missing:
            out.append(f"{r.name}: group {missing[0]} does not exist ({rx.NumberOfCapturingGroups()} groups)")
        if not r.examples:
            out.append(f"{r.name}: no example")
        for text in examples(r):
            data = text.encode("utf-8", "surrogatepass")
            if rx.Match(UNANCHORED, data, 0, len(data))[0][0] < 0:
                out.append(f"{r.name}: its pattern does not match its example {text[:60]!r}")
    return out
