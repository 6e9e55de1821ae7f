"""The scrubbing engine: the rules compiled once as one object (scrubber.py's Scrubber), and the
parts it is made of: patterns.py (compiling and rewriting a rule's patterns), scan.py (the scan
loop), text.py (the views of a text and offsets), windows.py and anchored.py (rules searched only
on some lines), views.py (the text decoded: JSON escapes, entities, URL-encoding, shell quoting,
values split across lines, with joints.py finding the joints), prefilter.py (Hyperscan, where
installed), findings.py (what is found, and merging)."""

from __future__ import annotations

from jevlin_hooks.privacy.engine.findings import Finding, merge
from jevlin_hooks.privacy.engine.scrubber import FIELD_SEP, Hyperscan, Scrubber

__all__ = ["FIELD_SEP", "Finding", "Hyperscan", "Scrubber", "merge"]
