"""Add and remove our hooks in each harness's own config file.

Idempotent (our entries are recognised by the entry script's path and replaced, never
duplicated), reversible (one backup per file, the newest, written before a change; uninstall
restores the file as it was just before our install, byte for byte, when the file is still
exactly what we wrote, and otherwise removes only our entries; where nothing of ours is
installed it writes nothing), and careful: a file we cannot parse is left untouched with a
clear message.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from jevlin_hooks.base import paths

ENTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "capture", "entry.py")
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
CODEX_EVENTS = (
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "PostCompact",
    "SubagentStart", "SubagentStop", "Stop", "Interrupt", "SessionEnd",
    "StopFailure",  # sent by Codex versions newer than 0.169; 0.169 accepts and ignores the entry
)
CODEX_SHORT = ("SessionEnd", "Interrupt")  # Codex caps these at 3 s
CURSOR_EVENTS = (
    "sessionStart", "sessionEnd", "beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure",
    "beforeShellExecution", "afterShellExecution", "beforeMCPExecution", "afterMCPExecution",
    "afterAgentResponse", "preCompact", "subagentStart", "subagentStop", "stop",
)


class InstallError(Exception):
    pass


@dataclass
class Change:
    path: str
    before: bytes | None
    after: bytes | None
    # a file the harness itself rewrites under a lock (Hermes's allowlist): held while we write,
    # and the change is refused if the file moved since it was planned
    lock: str | None = None
    backup: bool = True  # False for a file that is wholly ours (Pi's extension): nothing to restore

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, self.path + " (now)", self.path + " (after)"))


def shell_command(harness: str) -> str:
    import shlex

    return shlex.join([sys.executable, "-I", "-S", ENTRY, harness])


def hook_command(harness: str) -> dict[str, Any]:
    return {
        "type": "command",
        "command": sys.executable,
        "args": ["-I", "-S", ENTRY, harness],
        "timeout": TIMEOUT_S,
    }


def is_ours(hook: Any) -> bool:
    if not isinstance(hook, dict):
        return False
    args = hook.get("args")
    args = args if isinstance(args, list) else []
    text = str(hook.get("command", "")) + " " + " ".join(str(a) for a in args)
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
                remaining = [h for h in group["hooks"] if not is_ours(h)]
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
    return _plan_grouped(path, remove, CLAUDE_EVENTS, lambda event: hook_command("claude-code"))


def codex_home() -> str:
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def codex_hooks_path(project: str | None) -> str:
    if project is not None:
        return os.path.join(os.path.abspath(project), ".codex", "hooks.json")
    return os.path.join(codex_home(), "hooks.json")


def plan_codex(path: str, remove: bool = False) -> Change:
    def handler(event: str) -> dict[str, Any]:
        return {"type": "command", "command": shell_command("codex"), "timeout": 3 if event in CODEX_SHORT else TIMEOUT_S}

    return _plan_grouped(path, remove, CODEX_EVENTS, handler)


def cursor_hooks_path(project: str | None) -> str:
    if project is not None:
        return os.path.join(os.path.abspath(project), ".cursor", "hooks.json")
    return os.path.join(os.path.expanduser("~"), ".cursor", "hooks.json")


def plan_cursor(path: str, remove: bool = False) -> Change:
    """Cursor's flat shape: {"version": 1, "hooks": {"event": [{"command", "timeout"}]}}."""
    before, data = _read(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" is not an object; left untouched")
    hooks = json.loads(json.dumps(hooks))
    for event in list(hooks):
        if isinstance(hooks[event], list):
            hooks[event] = [h for h in hooks[event] if not is_ours(h)]
            if not hooks[event]:
                del hooks[event]
    if not remove:
        for event in CURSOR_EVENTS:
            hooks.setdefault(event, [])
            if not isinstance(hooks[event], list):
                raise InstallError(f"{path}: hooks.{event} is not a list; left untouched")
            hooks[event].append({"command": shell_command("cursor"), "timeout": TIMEOUT_S})
    new = dict(data)
    if hooks:
        new["hooks"] = hooks
        if not remove:
            new.setdefault("version", 1)
    else:
        new.pop("hooks", None)
    return _finish(path, before, data, new, remove)


def _plan_grouped(path: str, remove: bool, events: tuple[str, ...], handler: Any) -> Change:
    """Claude Code's and Codex's shape: event -> matcher groups -> handlers."""
    before, data = _read(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" is not an object; left untouched")
    hooks = json.loads(json.dumps(hooks))
    _strip_ours(hooks)
    if not remove:
        for event in events:
            group: dict[str, Any] = {"hooks": [handler(event)]}
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
    return _finish(path, before, data, new, remove)


def _finish(path: str, before: bytes | None, data: dict[str, Any], new: dict[str, Any], remove: bool) -> Change:
    if new == data and (before is not None or remove):
        return Change(path, before, before)  # nothing of ours to remove: nothing is written, nothing created
    if remove:
        restored = _restorable(path, before)
        if restored is not None:
            return Change(path, before, restored if restored != b"\0absent" else None)
    return Change(path, before, _dump(new))


# --- Codex notify in config.toml --------------------------------------------------------------


def codex_config_path() -> str:
    return os.path.join(codex_home(), "config.toml")


def notify_command(chain: list[str]) -> list[str]:
    cmd = [sys.executable, "-I", "-S", ENTRY, "codex-notify"]
    return cmd + (["--then", *chain] if chain else [])


def plan_codex_notify(path: str, remove: bool = False, chain: bool = False) -> Change:
    """Set (or remove) `notify` in Codex's config.toml, every other key kept.

    A `notify` that already runs another program is not clobbered: without ``chain`` this
    refuses and says so; with it, ours runs first and then theirs, with the same argument.
    """
    import tomllib

    import tomli_w

    try:
        with open(path, "rb") as f:
            before: bytes | None = f.read()
    except FileNotFoundError:
        before = None
    try:
        data = tomllib.loads(before.decode("utf-8")) if before else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); left untouched") from None
    current = data.get("notify")
    ours = isinstance(current, list) and any(MARK in str(a) for a in current)
    theirs: list[str] = []
    if ours and isinstance(current, list) and "--then" in current:
        theirs = [str(a) for a in current[current.index("--then") + 1:]]
    elif current and not ours:
        if not isinstance(current, list) or not all(isinstance(a, str) for a in current):
            raise InstallError(f"{path}: notify is not a list of strings; left untouched")
        theirs = list(current)
    new = dict(data)
    if remove:
        if not ours:
            return Change(path, before, before)
        if theirs:
            new["notify"] = theirs
        else:
            new.pop("notify", None)
    else:
        if theirs and not ours and not chain:
            raise InstallError(
                f"{path}: notify already runs {theirs[0]!r}; rerun with --chain to run ours and then "
                "yours (same argument), or remove it first"
            )
        new["notify"] = notify_command(theirs)
    if new == data:
        return Change(path, before, before)
    if remove:
        restored = _restorable(path, before)
        if restored is not None:
            return Change(path, before, restored if restored != b"\0absent" else None)
    return Change(path, before, tomli_w.dumps(new).encode("utf-8"))


def _record_path() -> str:
    return os.path.join(paths.home(), "state", "installs.json")


def _records() -> dict[str, Any]:
    try:
        with open(_record_path(), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


BACKUP_SUFFIX = ".jevlin-backup"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _restorable(path: str, current: bytes | None) -> bytes | None:
    """The file as it was just before our own install, if the file is still exactly what we
    wrote and that copy is intact; else None (then only our entries are removed)."""
    rec = _records().get(os.path.abspath(path))
    if not rec or current is None or _sha(current) != rec.get("after_sha256"):
        return None
    pristine = rec.get("pristine")
    if pristine == "absent":
        return b"\0absent"  # the file did not exist before we created it
    if not isinstance(pristine, str) or not isinstance(rec.get("backup"), str):
        return None
    try:
        with open(rec["backup"], "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data if _sha(data) == pristine else None


def _write(path: str, data: bytes, mode: int) -> None:
    tmp = path + ".jevlin-tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def apply(change: Change) -> str | None:
    """Write the change (backup first). Returns the backup path, if one was written.

    One backup per file, ``<file>.jevlin-backup``, the newest: the file as it was before our
    last change. It is not rewritten when the file is exactly what we wrote last (a reinstall):
    then it still holds the file as it was before our install, which uninstall restores.
    """
    if not change.changed:
        return None
    if change.lock is None:
        return _apply(change)
    import fcntl

    os.makedirs(os.path.dirname(change.lock), exist_ok=True)
    with open(change.lock, "a+", encoding="utf-8") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            with open(change.path, "rb") as f:
                now: bytes | None = f.read()
        except FileNotFoundError:
            now = None
        if now != change.before:
            raise InstallError(f"{change.path} changed while we were planning; left untouched, run the command again")
        return _apply(change)


def _apply(change: Change) -> str | None:
    recs = _records()
    key = os.path.abspath(change.path)
    prev = recs.get(key) if isinstance(recs.get(key), dict) else None
    ours_as_written = bool(prev and change.before is not None and _sha(change.before) == prev.get("after_sha256"))
    mode = 0o600
    try:
        mode = os.stat(change.path).st_mode & 0o777
    except FileNotFoundError:
        pass
    backup = None
    created: list[str] = []
    if change.before is not None and change.backup and not ours_as_written:
        backup = change.path + BACKUP_SUFFIX
        _write(backup, change.before, mode)
    if change.after is None:
        os.unlink(change.path)
        for d in (prev or {}).get("created_dirs", []):  # deepest first
            try:
                os.rmdir(d)  # only when empty: anything of the user's keeps it
            except OSError:
                break
    else:
        d = os.path.dirname(key)
        while not os.path.exists(d):
            created.append(d)
            d = os.path.dirname(d)
        os.makedirs(os.path.dirname(change.path), exist_ok=True)
        _write(change.path, change.after, mode)
    if change.after is None or _is_uninstall(change):
        recs.pop(key, None)
    elif change.before is None or MARK.encode() not in change.before:
        # our install into the user's own file (or none): this is what uninstall restores
        pristine = "absent" if change.before is None else (_sha(change.before) if backup else None)
        recs[key] = {"after_sha256": _sha(change.after), "backup": backup, "pristine": pristine,
                     "created_dirs": created}
    elif ours_as_written and prev is not None:
        recs[key] = {**prev, "after_sha256": _sha(change.after)}  # a reinstall over our own output
    else:
        # ours, but edited since: there is no "as it was before our install" to go back to
        recs[key] = {"after_sha256": _sha(change.after), "backup": None, "pristine": None, "created_dirs": []}
    os.makedirs(os.path.dirname(_record_path()), mode=0o700, exist_ok=True)
    with open(_record_path(), "w", encoding="utf-8") as f:
        json.dump(recs, f)
    return backup


def _is_uninstall(change: Change) -> bool:
    return change.after is not None and MARK not in change.after.decode("utf-8", "replace")


# --- one table: what `install --harness NAME` changes, and what the user does next ----------------

def _claude_plans(project: str | None, remove: bool, opts: dict[str, Any]) -> list[Change]:
    return [plan_claude(claude_settings_path(project), remove=remove)]


def _codex_plans(project: str | None, remove: bool, opts: dict[str, Any]) -> list[Change]:
    plans = [plan_codex(codex_hooks_path(project), remove=remove)]
    cpath = codex_config_path()
    if opts.get("notify") or (remove and os.path.exists(cpath)):
        plans.append(plan_codex_notify(cpath, remove=remove, chain=bool(opts.get("chain"))))
    return plans


def _cursor_plans(project: str | None, remove: bool, opts: dict[str, Any]) -> list[Change]:
    return [plan_cursor(cursor_hooks_path(project), remove=remove)]


def _hermes_plans(project: str | None, remove: bool, opts: dict[str, Any]) -> list[Change]:
    from jevlin_hooks import install_hermes

    return install_hermes.plans(project, remove, opts)


def _hermes_found() -> str | None:
    """Hermes on PATH, or its home (``HERMES_HOME`` or ~/.hermes)."""
    import shutil

    from jevlin_hooks import install_hermes

    return shutil.which("hermes") or (install_hermes.hermes_home() if os.path.isdir(install_hermes.hermes_home())
                                      else None)


def _pi_plans(project: str | None, remove: bool, opts: dict[str, Any]) -> list[Change]:
    from jevlin_hooks import install_pi

    return install_pi.plans(project, remove, opts)


def _pi_found() -> str | None:
    """Pi's program on PATH, or its agent dir (which PI_CODING_AGENT_DIR moves)."""
    import shutil

    from jevlin_hooks import install_pi

    where = shutil.which("pi")
    if where:
        return where
    agent = install_pi.agent_dir()
    return agent if os.path.isdir(agent) else None


def _found(program: str, *dirs: str) -> Any:
    """Evidence that a harness is used on this machine: its program on PATH or its config dir."""
    def check() -> str | None:
        import shutil

        where = shutil.which(program)
        if where:
            return where
        for d in dirs:
            path = os.path.expanduser(d)
            if os.path.isdir(path):
                return path
        return None
    return check


@dataclass
class Installer:
    plans: Any  # (project, remove, opts) -> list[Change]
    next_step: str
    found: Any = None  # () -> evidence (a path) that the harness is used here, or None


INSTALLERS: dict[str, Installer] = {
    "claude-code": Installer(_claude_plans,
                             "next: start a new Claude Code session; `jevlin-hooks status` shows what it records",
                             _found("claude", "~/.claude")),
    "codex": Installer(_codex_plans, "next: Codex runs only hooks you trust: start `codex`, type /hooks and approve "
                                     "the jevlin-hooks entries", _found("codex", "~/.codex")),
    "cursor": Installer(_cursor_plans, "next: restart Cursor; if Cursor also runs your ~/.claude hooks, each event "
                                       "is still counted once", _found("cursor", "~/.cursor")),
    "hermes": Installer(_hermes_plans, "next: Hermes runs the hooks from its next start (approved for you in "
                                       "shell-hooks-allowlist.json; `hermes hooks list` shows them); the terminal "
                                       "tool's login shell must find `jevlin` on PATH", _hermes_found),
    "pi": Installer(_pi_plans, "next: start `pi` (or type /reload in a running one); `pi --no-extensions` runs "
                               "without it", _pi_found),
}


def plans_for(harness: str, project: str | None, remove: bool, opts: dict[str, Any] | None = None) -> list[Change]:
    return list(INSTALLERS[harness].plans(project, remove, opts or {}))


def detect() -> dict[str, str]:
    """harness -> evidence, for the harnesses that look used on this machine."""
    out = {}
    for name, inst in INSTALLERS.items():
        try:
            where = inst.found() if inst.found else None
        except OSError:
            where = None
        if where:
            out[name] = where
    return out
