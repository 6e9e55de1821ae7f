"""Every name ``[privacy] disabled_rules`` may hold: the rules, the field judges and the
mechanisms that turn off by name (the layout reader, the decoded views, whole-token cuts,
once-found-everywhere).

The config (base/config.py, on the hook path, where the scrubber is not imported) refuses any
other name, from a copy of this list in base/rule_names.py that a test holds equal to it. After
adding a rule or a switch, write the copy again:

    .venv/bin/python -m jevlin_hooks.privacy.switches > jevlin_hooks/base/rule_names.py
"""

from __future__ import annotations

from jevlin_hooks.privacy.checks.judges import JUDGES, LAYOUT
from jevlin_hooks.privacy.engine import everywhere, fieldend, views, whole
from jevlin_hooks.privacy.rules import RULES


def names() -> list[str]:
    """The names, sorted."""
    return sorted({r.name for r in RULES} | {j.name for j in JUDGES}
                  | {LAYOUT, whole.NAME, fieldend.NAME, everywhere.EVERYWHERE, *views.OFF})


def module_text() -> str:
    """base/rule_names.py as it must read."""
    lines = ['"""The names `[privacy] disabled_rules` may hold (written by `python -m jevlin_hooks.privacy.switches`;',
             'tests/test_scrub_switches.py holds it equal to the scrubber\'s rules and switches)."""', "",
             "from __future__ import annotations", "", "NAMES = frozenset(("]
    lines += [f'    "{n}",' for n in names()]
    lines += ["))", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(module_text(), end="")
