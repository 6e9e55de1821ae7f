"""Checks of names by the place a message gives them (rules/people.py): a greeting's addressee."""

from __future__ import annotations

from typing import Any

from jevlin_hooks.privacy.checks.registry import check
from jevlin_hooks.privacy.personal import values
from jevlin_hooks.privacy.rules import labels


@check("greeting-name")
def greeting_name(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A first name, a title and a name, or a full name; not a group (team, all, everyone)."""
    return values.addressee(value) is not None


@check("email-encoded")
def email_encoded(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """An address whose @ is %40: not a role's mailbox."""
    return value[:value.lower().find("%40")].split("+", 1)[0].lower() not in labels.ROLE_MAILBOXES
