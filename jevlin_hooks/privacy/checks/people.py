"""Checks of names by the place a message gives them (rules/people.py): a greeting's addressee."""

from __future__ import annotations

from typing import Any

from jevlin_hooks.privacy.checks.registry import Check, check, register
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


def _email_name(text: str, s: int, e: int, m: Any) -> list[tuple[int, int]] | None:
    """The name near a personal address that its local part spells (not a role's mailbox)."""
    value = text[s:e]
    local = value.split("@", 1)[0]
    if local.split("+", 1)[0].lower() in labels.ROLE_MAILBOXES:
        return None
    return values.named_by_address(local, text, s, e) or None


register(Check("email-name", span=_email_name))
