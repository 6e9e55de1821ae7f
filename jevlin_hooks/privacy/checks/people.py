"""Checks of names by the place a message gives them (rules/people.py): a greeting's addressee."""

from __future__ import annotations

from typing import Any

from jevlin_hooks.privacy.checks.registry import check
from jevlin_hooks.privacy.personal import values


@check("greeting-name")
def greeting_name(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A first name, a title and a name, or a full name; not a group (team, all, everyone)."""
    return values.addressee(value) is not None
