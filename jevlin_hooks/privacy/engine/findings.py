"""What the scrubber finds: a rule's name and a span, never the secret; and how findings merge."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    rule: str
    start: int
    end: int


def merge(findings: list[Finding]) -> list[Finding]:
    """Overlapping or touching findings become one, named for its longest part."""
    merged: list[tuple[int, int, str, int]] = []
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if merged and f.start <= merged[-1][1]:
            s, e, name, longest = merged[-1]
            if f.end - f.start > longest:
                name, longest = f.rule, f.end - f.start
            merged[-1] = (s, max(e, f.end), name, longest)
        else:
            merged.append((f.start, f.end, f.rule, f.end - f.start))
    return [Finding(name, s, e) for s, e, name, _ in merged]
