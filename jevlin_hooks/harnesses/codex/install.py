"""`jevlin-hooks install --harness codex`: our hooks in Codex's hooks.json (``$CODEX_HOME``,
default ``~/.codex``, or with ``--project DIR`` the project's ``.codex/hooks.json``), and with
``--notify`` the legacy ``notify`` program in its config.toml (for Codex versions without hooks).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from jevlin_hooks import installkit

PROGRAM = "codex"
NEXT_STEP = "next: Codex runs only hooks you trust: start `codex`, type /hooks and approve the jevlin-hooks entries"

EVENTS = (
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "PostCompact",
    "SubagentStart", "SubagentStop", "Stop", "Interrupt", "SessionEnd",
    "StopFailure",  # sent by Codex versions newer than 0.169; 0.169 accepts and ignores the entry
)
SHORT = ("SessionEnd", "Interrupt")  # Codex caps these at 3 s


def home() -> str:
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def hooks_path(project: str | None) -> str:
    if project is not None:
        return os.path.join(os.path.abspath(project), ".codex", "hooks.json")
    return os.path.join(home(), "hooks.json")


def plan(path: str, remove: bool = False) -> installkit.Change:
    def handler(event: str) -> dict[str, Any]:
        return {"type": "command", "command": installkit.shell_command("codex"),
                "timeout": 3 if event in SHORT else installkit.TIMEOUT_S}

    return installkit.plan_grouped(path, remove, EVENTS, handler)


# --- notify in config.toml ----------------------------------------------------------------------


def config_path() -> str:
    return os.path.join(home(), "config.toml")


def notify_command(chain: list[str]) -> list[str]:
    cmd = installkit.argv("codex-notify")
    return cmd + (["--then", *chain] if chain else [])


def plan_notify(path: str, remove: bool = False, chain: bool = False) -> installkit.Change:
    """Set (or remove) `notify` in Codex's config.toml, every other key kept.

    A `notify` that already runs another program is not clobbered: without ``chain`` this
    refuses and says so; with it, ours runs first and then theirs, with the same argument.
    """
    before, data = installkit.read_toml(path)
    current = data.get("notify")
    ours = isinstance(current, list) and any(installkit.MARK in str(a) for a in current)
    theirs: list[str] = []
    if ours and isinstance(current, list) and "--then" in current:
        theirs = [str(a) for a in current[current.index("--then") + 1:]]
    elif current and not ours:
        if not isinstance(current, list) or not all(isinstance(a, str) for a in current):
            raise installkit.InstallError(f"{path}: notify is not a list of strings; left untouched")
        theirs = list(current)
    new = dict(data)
    if remove:
        if not ours:
            return installkit.Change(path, before, before)
        if theirs:
            new["notify"] = theirs
        else:
            new.pop("notify", None)
    else:
        if theirs and not ours and not chain:
            raise installkit.InstallError(
                f"{path}: notify already runs {theirs[0]!r}; rerun with --chain to run ours and then "
                "yours (same argument), or remove it first"
            )
        new["notify"] = notify_command(theirs)
    if new == data:
        return installkit.Change(path, before, before)
    return installkit.removal(path, before, remove) or installkit.Change(path, before, installkit.dump_toml(new))


def plans(project: str | None, remove: bool, opts: Mapping[str, Any]) -> list[installkit.Change]:
    out = [plan(hooks_path(project), remove=remove)]
    cpath = config_path()
    if opts.get("notify") or (remove and os.path.exists(cpath)):
        out.append(plan_notify(cpath, remove=remove, chain=bool(opts.get("chain"))))
    return out


def found() -> str | None:
    return installkit.found(PROGRAM, "~/.codex")
