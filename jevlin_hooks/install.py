"""Add and remove our hooks in each harness's own config file.

Idempotent (our entries are recognised by the entry script's path and replaced, never
duplicated), reversible (a backup is written before every change; uninstall restores the
backup byte for byte when the file is still exactly what we wrote, and otherwise removes only
our entries), and careful: a file we cannot parse is left untouched with a clear message.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

from jevlin_hooks import paths

ENTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "entry.py")
MARK = "jevlin_hooks"

# Every event that updates lineage or queues a record runs synchronously: `claude -p` kills
# async hooks when it exits (shared/reference: "async: true loses work").
CLAUDE_EVENTS = (
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
    "PostToolBatch", "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop",
    "StopFailure", "SessionEnd",
)
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
TIMEOUT_S = 5


class InstallError(Exception):
    pass


@dataclass
class Change:
    path: str
    before: bytes | None
    after: bytes | None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, self.path + " (now)", self.path + " (after)"))


def hook_command(harness: str) -> dict[str, Any]:
    return {
        "type": "command",
        "command": sys.executable,
        "args": ["-I", "-S", ENTRY, harness],
        "timeout": TIMEOUT_S,
    }


def _is_ours(hook: Any) -> bool:
    if not isinstance(hook, dict):
        return False
    text = str(hook.get("command", "")) + " " + " ".join(str(a) for a in hook.get("args", []) or [])
    return MARK in text and "entry.py" in text


def claude_settings_path(project: str | None) -> str:
    if project is not None:
        return os.path.join(os.path.abspath(project), ".claude", "settings.json")
    return os.path.join(os.path.expanduser("~"), ".claude", "settings.json")


def _read(path: str) -> tuple[bytes | None, dict[str, Any]]:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None, {}
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); left untouched") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; left untouched")
    return raw, data


def _strip_ours(hooks: dict[str, Any]) -> None:
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                remaining = [h for h in group["hooks"] if not _is_ours(h)]
                if not remaining and len(remaining) != len(group["hooks"]):
                    continue
                group = {**group, "hooks": remaining}
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]


def _dump(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def plan_claude(path: str, remove: bool = False) -> Change:
    before, data = _read(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" is not an object; left untouched")
    hooks = json.loads(json.dumps(hooks))
    _strip_ours(hooks)
    if not remove:
        for event in CLAUDE_EVENTS:
            group: dict[str, Any] = {"hooks": [hook_command("claude-code")]}
            if event in TOOL_EVENTS:
                group = {"matcher": "*", **group}
            hooks.setdefault(event, [])
            if not isinstance(hooks[event], list):
                raise InstallError(f"{path}: hooks.{event} is not a list; left untouched")
            hooks[event].append(group)
    new = dict(data)
    if hooks:
        new["hooks"] = hooks
    else:
        new.pop("hooks", None)
    if new == data and before is not None:
        return Change(path, before, before)
    if remove:
        restored = _restorable(path, before)
        if restored is not None:
            return Change(path, before, restored if restored != b"\0absent" else None)
    return Change(path, before, _dump(new))


def _record_path() -> str:
    return os.path.join(paths.home(), "state", "installs.json")


def _records() -> dict[str, Any]:
    try:
        with open(_record_path(), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _restorable(path: str, current: bytes | None) -> bytes | None:
    """The bytes from before our install, if the file is still exactly what we wrote."""
    rec = _records().get(os.path.abspath(path))
    if not rec or current is None or hashlib.sha256(current).hexdigest() != rec.get("after_sha256"):
        return None
    if rec.get("backup") is None:
        return b"\0absent"  # the file did not exist before we created it
    try:
        with open(rec["backup"], "rb") as f:
            return f.read()
    except OSError:
        return None


def apply(change: Change) -> str | None:
    """Write the change (backup first). Returns the backup path, if one was written."""
    if not change.changed:
        return None
    backup = None
    if change.before is not None:
        backup = f"{change.path}.jevlin-backup-{time.strftime('%Y%m%d-%H%M%S')}"
        n = 0
        while os.path.exists(backup):
            n += 1
            backup = f"{backup.rsplit('.', 1)[0]}.{n}" if n > 1 else f"{backup}.{n}"
        with open(backup, "wb") as f:
            f.write(change.before)
    if change.after is None:
        os.unlink(change.path)
    else:
        os.makedirs(os.path.dirname(change.path), exist_ok=True)
        tmp = change.path + ".jevlin-tmp"
        mode = 0o600
        try:
            mode = os.stat(change.path).st_mode & 0o777
        except FileNotFoundError:
            pass
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(change.after)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, change.path)
    recs = _records()
    key = os.path.abspath(change.path)
    if change.after is None or (key in recs and _is_uninstall(change)):
        recs.pop(key, None)
    else:
        recs[key] = {
            "after_sha256": hashlib.sha256(change.after).hexdigest() if change.after else None,
            "backup": recs.get(key, {}).get("backup", backup) if key in recs else backup,
        }
    os.makedirs(os.path.dirname(_record_path()), mode=0o700, exist_ok=True)
    with open(_record_path(), "w", encoding="utf-8") as f:
        json.dump(recs, f)
    return backup


def _is_uninstall(change: Change) -> bool:
    return change.after is not None and MARK not in change.after.decode("utf-8", "replace")
