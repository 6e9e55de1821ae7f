"""`jevlin-hooks install --harness cursor`: our hooks in Cursor's hooks.json (``~/.cursor``, or
with ``--project DIR`` the project's ``.cursor/hooks.json``), in Cursor's flat shape."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from jevlin_hooks import installkit

PROGRAM = "cursor"
NEXT_STEP = "next: restart Cursor; if Cursor also runs your ~/.claude hooks, each event is still counted once"

EVENTS = (
    "sessionStart", "sessionEnd", "beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure",
    "beforeShellExecution", "afterShellExecution", "beforeMCPExecution", "afterMCPExecution",
    "afterAgentResponse", "preCompact", "subagentStart", "subagentStop", "stop",
)


def hooks_path(project: str | None) -> str:
    if project is not None:
        return os.path.join(os.path.abspath(project), ".cursor", "hooks.json")
    return os.path.join(os.path.expanduser("~"), ".cursor", "hooks.json")


def plan(path: str, remove: bool = False) -> installkit.Change:
    """Cursor's flat shape: {"version": 1, "hooks": {"event": [{"command", "timeout"}]}}."""
    before, data = installkit.read_json(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise installkit.InstallError(f"{path}: \"hooks\" is not an object; left untouched")
    hooks = json.loads(json.dumps(hooks))
    for event in list(hooks):
        if isinstance(hooks[event], list):
            hooks[event] = [h for h in hooks[event] if not installkit.is_ours(h)]
            if not hooks[event]:
                del hooks[event]
    if not remove:
        for event in EVENTS:
            hooks.setdefault(event, [])
            if not isinstance(hooks[event], list):
                raise installkit.InstallError(f"{path}: hooks.{event} is not a list; left untouched")
            hooks[event].append({"command": installkit.shell_command("cursor"), "timeout": installkit.TIMEOUT_S})
    new = dict(data)
    if hooks:
        new["hooks"] = hooks
        if not remove:
            new.setdefault("version", 1)
    else:
        new.pop("hooks", None)
    return installkit.finish_json(path, before, data, new, remove)


def plans(project: str | None, remove: bool, opts: Mapping[str, Any]) -> list[installkit.Change]:
    return [plan(hooks_path(project), remove=remove)]


def found() -> str | None:
    return installkit.found(PROGRAM, "~/.cursor")
