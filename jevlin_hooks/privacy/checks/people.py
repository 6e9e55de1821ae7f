"""Checks of names by the place a message gives them (rules/people.py): a greeting's addressee."""

from __future__ import annotations

import re
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


# what an honorific follows that is a role, not a name (customer, member, user, manager, teacher)
_NOT_CJK_NAMES = frozenset("""
お客 客 会員 利用者 ユーザー 担当者 担当 皆 皆さま 皆 管理者 社長 部長 課長 先生 お母 お父 神 王 高 老师 管理员 用户 客户 顾客
医生 同学 大家 各位 这位 那位 该位 一位 两位 几位 고객 회원 사용자 관리자 선생 팀장 부장 과장 대리 사장 여러분 담당자 교수
학생 환자 기사 작가 어머 아버 부모 하느 하나 아드 스승 주인 원장 실장 대표 이사 감독 선배 후배 팀원 직원
""".split())


@check("honorific-name")
def honorific_name(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    """A name before its honorific, not a role's word (お客様, 고객님, 管理员先生)."""
    v = value.strip()
    return v not in _NOT_CJK_NAMES and v.replace(" ", "").replace("\u3000", "") not in _NOT_CJK_NAMES \
        and not any(v.endswith(w) for w in ("会員", "お客", "担当", "者", "員", "고객", "회원", "사용자", "관리자", "管理员", "用户",
                                            "客户"))


_CUSTOMER_NAME = re.compile(r"[ ]?([\u4e00-\u9fff]{2,3}?)(?:来电|致电|打电话|反馈|表示|说|询问|來電|致電)")


def customer_name(text: str, s: int, e: int) -> list[tuple[int, int]] | None:
    """The two or three Han characters after a customer word at [s, e), before a verb of
    calling or saying (客户赵雨桐来电); not a role's word."""
    m = _CUSTOMER_NAME.match(text, e, min(len(text), e + 8))
    if m is None or m.group(1) in _NOT_CJK_NAMES:
        return None
    return [m.span(1)]


register(Check("customer-name-cjk", span=lambda text, s, e, m: customer_name(text, s, e), from_word=customer_name,
               inside_words=True))
