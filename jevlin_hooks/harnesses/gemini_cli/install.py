"""`jevlin-hooks install --harness gemini-cli`: our hooks in Gemini CLI's settings.json
(``~/.gemini/settings.json``, under ``$GEMINI_CLI_HOME`` when set; with ``--project DIR`` the
project's ``.gemini/settings.json``), merged into the user's own hooks and keys.

Gemini reads that file as JSON with comments: only its ``"hooks"`` member is rewritten, and every
other byte (comments, key order, layout) stays as it was. Install never trusts a folder: Gemini
runs no hook, the user's own included, in a folder the user has not trusted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from jevlin_hooks import installkit

PROGRAM = "gemini"
NEXT_STEP = ("next: start `gemini` in a folder you trust; Gemini CLI runs no hook in an untrusted one "
             "(it asks when it starts there; install never trusts a folder for you)")

# Never BeforeModel, AfterModel or BeforeToolSelection: they carry the whole conversation, on every
# model call. Nor PreCompress: it fires before every model call, compaction or not (the chat file
# shows the compactions that happened; capture.py). Gemini waits for each hook.
EVENTS = ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd")
TOOL_EVENTS = ("BeforeTool", "AfterTool")
# the tools whose calls spawn our hook (every other tool costs nothing): the shell, the spawner of
# subagents, and the [search] tools (reinstall after changing that list)
ALWAYS_MATCHED = ("run_shell_command", "invoke_agent")
HOOK_NAME = "jevlin-hooks"  # what Gemini's /hooks list and `hooksConfig.disabled` call it


def gemini_dir() -> str:
    return os.path.join(os.environ.get("GEMINI_CLI_HOME") or os.path.expanduser("~"), ".gemini")


def settings_path(project: str | None) -> str:
    if project is not None:
        return os.path.join(os.path.abspath(project), ".gemini", "settings.json")
    return os.path.join(gemini_dir(), "settings.json")


def matcher(search_tools: list[str]) -> str:
    """A JavaScript regex for the tool events' matcher. Gemini tests it unanchored
    (``new RegExp(m).test(name)``): anchored here, so `run_shell_command` is not `my_run_shell_command_x`."""
    import re

    alts = list(ALWAYS_MATCHED)
    for pattern in search_tools:
        alt = ".*".join(re.escape(p) for p in pattern.split("*"))
        if alt not in alts:
            alts.append(alt)
    return "^(?:" + "|".join(alts) + ")$"


def search_tools() -> list[str]:
    from jevlin_hooks.base import config, paths

    try:
        cfg = config.load(paths.home())
    except (config.ConfigError, OSError):
        cfg = config.defaults()
    return [t for t in cfg.get("search", {}).get("tools", []) if isinstance(t, str)]


def handler() -> dict[str, Any]:
    return {"type": "command", "name": HOOK_NAME, "command": installkit.shell_command("gemini-cli"),
            "timeout": installkit.TIMEOUT_S * 1000}  # Gemini counts milliseconds


def plan(path: str, remove: bool = False, tools: list[str] | None = None) -> installkit.Change:
    before, data, text = installkit.read_jsonc(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise installkit.InstallError(f"{path}: \"hooks\" is not an object; left untouched")
    hooks = json.loads(json.dumps(hooks))
    installkit.strip_grouped(hooks)
    if not remove:
        match = matcher(search_tools() if tools is None else tools)
        for event in EVENTS:
            group: dict[str, Any] = {"hooks": [handler()]}
            if event in TOOL_EVENTS:
                group = {"matcher": match, **group}
            hooks.setdefault(event, [])
            if not isinstance(hooks[event], list):
                raise installkit.InstallError(f"{path}: hooks.{event} is not a list; left untouched")
            hooks[event].append(group)
    if hooks == data.get("hooks", {}) and (before is not None or remove):
        return installkit.Change(path, before, before)  # nothing of ours moves: nothing is written
    restored = installkit.removal(path, before, remove)
    if restored is not None:
        return restored
    try:
        after = installkit.set_member(text, "hooks", hooks or None)
    except installkit.InstallError as exc:
        raise installkit.InstallError(f"{path}: {exc}") from None
    return installkit.Change(path, before, after.encode("utf-8"))


def plans(project: str | None, remove: bool, opts: Mapping[str, Any]) -> list[installkit.Change]:
    return [plan(settings_path(project), remove=remove)]


def found() -> str | None:
    return installkit.found(PROGRAM, gemini_dir())
