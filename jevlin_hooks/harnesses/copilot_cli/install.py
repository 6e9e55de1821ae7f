"""`jevlin-hooks install --harness copilot-cli`: one hooks file that is wholly ours,
``${COPILOT_HOME:-~/.copilot}/hooks/jevlin.json`` (or with ``--project DIR``,
``DIR/.github/hooks/jevlin.json``).

Copilot CLI loads every ``*.json`` in its user hooks directory at each start, with no trust or
approval step, so no file of the user's is edited: install writes that one file and uninstall
deletes exactly that file (and the directories install created, when they are empty again).
A project's ``.github/hooks/`` runs only in a folder the user trusts (``--trust-folder``, or
trusted once interactively): install never trusts a folder.

The file is in Copilot's native format (``"version": 1``, camelCase events) rather than the
Claude-Code-compatible one it also reads: the native payloads are the documented ones, the same
for every event (the compatible format sends two events in the native shape anyway, renames the
tools to Claude's and sends no ``userPromptTransformed``), and they cannot be mistaken for Claude
Code's own by anything reading them. The native payload names no event, so each command passes
its event as an argument (capture.py ``read_payload``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from jevlin_hooks import installkit

PROGRAM = "copilot"
NEXT_STEP = ("next: start a new `copilot` session (hooks load at its start; a project's .github/hooks run only "
             "in a folder you trust, your own need no trust)")

FILE_NAME = "jevlin.json"
# What the lineage needs, nothing more: not permissionRequest, userPromptTransformed (they change
# nothing we record), nor errorOccurred or notification (never seen to fire here).
EVENTS = (
    "sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure",
    "preCompact", "subagentStart", "subagentStop", "agentStop", "sessionEnd",
)


def copilot_home() -> str:
    return os.environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")


def hooks_path(project: str | None = None) -> str:
    if project is not None:
        return os.path.join(os.path.abspath(project), ".github", "hooks", FILE_NAME)
    return os.path.join(copilot_home(), "hooks", FILE_NAME)


def command(event: str) -> str:
    """What Copilot runs for ``event`` (with ``bash -c``): the hook, told which event it is."""
    return f"{installkit.shell_command('copilot-cli')} {event}"


def render() -> bytes:
    hooks = {e: [{"type": "command", "bash": command(e), "timeoutSec": installkit.TIMEOUT_S}] for e in EVENTS}
    return installkit.dump_json({"version": 1, "hooks": hooks})


def actions(data: Any) -> dict[str, list[Any]]:
    """event -> its actions, from a parsed hooks file ({} for anything else)."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return {}
    return {e: a for e, a in hooks.items() if isinstance(a, list)}


def is_ours_action(action: Any) -> bool:
    return isinstance(action, dict) and installkit.is_ours({"command": action.get("bash", "")})


def is_ours(data: bytes) -> bool:
    """A file every action of which runs our hook (what install writes, from any version)."""
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return False
    found = [a for acts in actions(parsed).values() for a in acts]
    return bool(found) and all(is_ours_action(a) for a in found)


def plan(path: str, remove: bool = False) -> installkit.Change:
    before = installkit.read_bytes(path)
    if before is not None and not is_ours(before):
        raise installkit.InstallError(f"{path} exists and is not ours; left untouched")
    # No backup: the file is ours alone, there is nothing of the user's to restore.
    return installkit.Change(path, before, None if remove else render(), backup=False)


def plans(project: str | None, remove: bool, opts: Mapping[str, Any]) -> list[installkit.Change]:
    return [plan(hooks_path(project), remove=remove)]


def found() -> str | None:
    return installkit.found(PROGRAM, copilot_home())
