"""`jevlin-hooks install --harness claude-code`: our hooks in Claude Code's settings.json
(``~/.claude/settings.json``, or with ``--project DIR`` the project's ``.claude/settings.json``),
merged into the user's own hooks and keys."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from jevlin_hooks import installkit

PROGRAM = "claude"
NEXT_STEP = "next: start a new Claude Code session; `jevlin-hooks status` shows what it records"

# Every event that updates lineage or queues a record runs synchronously: `claude -p` kills
# async hooks when it exits (shared/reference: "async: true loses work").
EVENTS = (
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
    "PostToolBatch", "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop",
    "StopFailure", "SessionEnd",
)


def settings_path(project: str | None) -> str:
    if project is not None:
        return os.path.join(os.path.abspath(project), ".claude", "settings.json")
    return os.path.join(os.path.expanduser("~"), ".claude", "settings.json")


def plan(path: str, remove: bool = False) -> installkit.Change:
    return installkit.plan_grouped(path, remove, EVENTS, lambda event: installkit.hook_command("claude-code"))


def plans(project: str | None, remove: bool, opts: Mapping[str, Any]) -> list[installkit.Change]:
    return [plan(settings_path(project), remove=remove)]


def found() -> str | None:
    return installkit.found(PROGRAM, "~/.claude")
