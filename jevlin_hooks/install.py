"""`jevlin-hooks install` / `uninstall` across harnesses: each registered harness's installer
(harnesses/<folder>/install.py) plans its changes; installkit.apply writes them."""

from __future__ import annotations

import os
from typing import Any

from jevlin_hooks import harnesses
from jevlin_hooks.installkit import Change


def plans_for(harness: str, project: str | None, remove: bool, opts: dict[str, Any] | None = None) -> list[Change]:
    out = list(harnesses.installer(harness).plans(project, remove, opts or {}))
    for change in out:  # kept in the install record: uninstall can name the command that removes it
        change.harness = harness
        change.project = None if project is None else os.path.abspath(project)
    return out


def next_step(harness: str) -> str:
    return harnesses.installer(harness).NEXT_STEP


def detect() -> dict[str, str]:
    """harness -> evidence, for the harnesses that look used on this machine."""
    out = {}
    for name in harnesses.HARNESSES:
        try:
            where = harnesses.installer(name).found()
        except OSError:
            where = None
        if where:
            out[name] = where
    return out
