"""The scrub rules: one table, read by the engine, the docs and `jevlin-hooks scrub --list-rules`.

Written for this project from the public descriptions of each credential format (vendor docs and
announcements of token prefixes), in RE2 syntax: no backtracking, so no input can make a rule
slow. A rule is one row (rule.py says what each field means); the table is in four parts, in the
order the engine runs them (structured credentials, vendor formats, credentials by context,
personal data). Where two findings overlap, the merged one is named for the longest.
"""

from __future__ import annotations

from jevlin_hooks.privacy.rules import context, documents, flags, people, pii, printed, structured, vendors
from jevlin_hooks.privacy.rules.rule import ALPHABETS, Rule, counter_examples, examples, expand, pattern_pieces

RULES: tuple[Rule, ...] = (*structured.RULES, *vendors.RULES, *context.RULES, *flags.RULES, *printed.RULES, *pii.RULES, *documents.RULES, *people.RULES)
BY_NAME = {r.name: r for r in RULES}

__all__ = ["ALPHABETS", "BY_NAME", "RULES", "Rule", "counter_examples", "examples", "expand", "pattern_pieces"]
