"""The scrubbing engine: the rules compiled once as one object (scrubber.py's Scrubber), and the
parts it is made of: patterns.py (compiling and rewriting a rule's patterns), scan.py (the scan
loop), text.py (the views of a text and offsets), windows.py and anchored.py (rules searched only
on some lines), views.py (the text decoded: JSON escapes, entities, URL-encoding, shell quoting,
values split across lines, with joints.py finding the joints), whole.py (a secret's cut grown to
its whole token), prefilter.py (Hyperscan, where installed), findings.py (what is found, and
merging), everywhere.py (a value cut once is cut wherever else it occurs)."""

from __future__ import annotations

from jevlin_hooks.privacy.engine.everywhere import EVERYWHERE
from jevlin_hooks.privacy.engine.findings import Finding, merge
from jevlin_hooks.privacy.engine.scrubber import FIELD_SEP, Hyperscan, Scrubbed, Scrubber

__all__ = ["EVERYWHERE", "FIELD_SEP", "Finding", "Hyperscan", "Scrubbed", "Scrubber", "merge"]
