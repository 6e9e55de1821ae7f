"""What every harness's installer is made of: the launcher command line, a planned change to one
file, the JSON and TOML readers and the Claude-shaped hooks merge, backups, byte-for-byte
restore, and the atomic write. Each harness's ``install.py`` plans its changes with these;
``install.py`` runs them across harnesses; doctor reads back what was written with the helpers
at the end. Nothing here knows a harness by name.

Idempotent (our entries are recognised by the entry script's path and replaced, never
duplicated), reversible (one backup per file, the newest, written before a change; uninstall
restores the file as it was just before our install, byte for byte, when the file is still
exactly what we wrote, and otherwise removes only our entries; where nothing of ours is
installed it writes nothing), and careful: a file we cannot parse is left untouched with a
clear message.

A config that is a symlink (stow, chezmoi's symlink mode, yadm alternates, a hand-made link:
a dotfile manager's doing) stays one: reads follow it, and a write lands on the file it finally
names (a temp file beside that file, renamed over it), so the link and the user's dotfiles repo
stay as they were arranged. A dangling link, a link to something that is not a regular file, and
a file owned by another user are refused with a one-line reason before anything is written.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jevlin_hooks.base import paths

# What every installed hook runs (never moved: users' config files name this path)
ENTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "capture", "entry.py")
MARK = "jevlin_hooks"
TIMEOUT_S = 5
# plan_grouped's default matchers: Claude Code's tool events match every tool (Codex's are the same)
CLAUDE_MATCHERS = {"PreToolUse": "*", "PostToolUse": "*", "PostToolUseFailure": "*"}


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
    # which harness planned it, and for --project which project: kept in the install record, so
    # `uninstall` can name (and --purge remove) our hooks in files another command wrote
    harness: str | None = None
    project: str | None = None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, self.path + " (now)", self.path + " (after)"))


# --- the launcher command line ------------------------------------------------------------------


def argv(harness: str) -> list[str]:
    """The hook's command line: this interpreter, isolated (-I -S: start-up speed), the entry
    script, the harness name it runs as."""
    return [sys.executable, "-I", "-S", ENTRY, harness]


def shell_command(harness: str) -> str:
    import shlex

    return shlex.join(argv(harness))


def hook_command(harness: str) -> dict[str, Any]:
    """A command handler with its arguments apart (Claude Code's "args")."""
    return {
        "type": "command",
        "command": sys.executable,
        "args": argv(harness)[1:],
        "timeout": TIMEOUT_S,
    }


def is_ours(hook: Any) -> bool:
    if not isinstance(hook, dict):
        return False
    args = hook.get("args")
    args = args if isinstance(args, list) else []
    text = str(hook.get("command", "")) + " " + " ".join(str(a) for a in args)
    return MARK in text and "entry.py" in text


def found(program: str, *dirs: str) -> str | None:
    """Evidence that a harness is used on this machine: its program on PATH or its config dir."""
    import shutil

    where = shutil.which(program)
    if where:
        return where
    for d in dirs:
        path = os.path.expanduser(d)
        if os.path.isdir(path):
            return path
    return None


# --- reading and merging ------------------------------------------------------------------------


def resolve(path: str) -> str:
    """The file a write to ``path`` changes: ``path`` itself, or for a symlink (a chain of them,
    relative or absolute) the file it finally names. Raises InstallError, one line, for what we
    must not write: a dangling link, a link loop, anything but a regular file, a file owned by
    another user. An absent ``path`` is itself (it will be created)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise InstallError(f"{path} cannot be read ({exc.strerror}); left untouched") from None
    real = path
    if stat.S_ISLNK(st.st_mode):
        real = os.path.realpath(path)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise InstallError(f"{path} is a symlink to {real}, which does not exist (a dangling link); "
                               "left untouched: point it at a file or remove it") from None
        except OSError as exc:
            why = "a symlink loop" if exc.errno == errno.ELOOP else exc.strerror
            raise InstallError(f"{path} is a symlink that cannot be followed ({why}); left untouched") from None
    link = f" (a symlink to {real})" if real != path else ""
    if not stat.S_ISREG(st.st_mode):
        raise InstallError(f"{path}{link} is not a regular file; left untouched")
    if st.st_uid != os.geteuid():
        raise InstallError(f"{path}{link} is owned by uid {st.st_uid}, not you (uid {os.geteuid()}); left untouched")
    return real


def same_file(path: str) -> str:
    """One name per file, whatever links lead to it (two links to one config are one file)."""
    return os.path.realpath(path)


def read_bytes(path: str) -> bytes | None:
    """The bytes of the file ``path`` names (through any symlink); None when it is absent.
    Raises InstallError for a file that must not be written (``resolve``)."""
    real = resolve(path)
    try:
        with open(real, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path} cannot be read ({exc.strerror}); left untouched") from None


def read_json(path: str) -> tuple[bytes | None, dict[str, Any]]:
    """The file's bytes (None: absent) and its JSON object ({} when absent or blank)."""
    raw = read_bytes(path)
    if raw is None:
        return None, {}
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); left untouched") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; left untouched")
    return raw, data


def read_toml(path: str) -> tuple[bytes | None, dict[str, Any]]:
    """The file's bytes (None: absent) and its TOML table ({} when absent or empty)."""
    import tomllib

    before = read_bytes(path)
    try:
        data = tomllib.loads(before.decode("utf-8")) if before else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); left untouched") from None
    return before, data


def dump_json(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def dump_toml(data: dict[str, Any]) -> bytes:
    import tomli_w

    return tomli_w.dumps(data).encode("utf-8")


def strip_grouped(hooks: dict[str, Any]) -> None:
    """Remove our handlers from event -> matcher groups -> handlers (a group left empty by that
    goes too; one the user left empty stays)."""
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


def plan_grouped(path: str, remove: bool, events: tuple[str, ...], handler: Callable[[str], dict[str, Any]],
                 matchers: Mapping[str, str] = CLAUDE_MATCHERS) -> Change:
    """Claude Code's hooks shape (Codex's too): {"hooks": {event: [{"matcher"?, "hooks":
    [handler(event)]}]}} in a JSON file, every other key kept; ours replaced, never duplicated.
    An event in ``matchers`` gets that matcher in its group; the others none."""
    before, data = read_json(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" is not an object; left untouched")
    hooks = json.loads(json.dumps(hooks))
    strip_grouped(hooks)
    if not remove:
        for event in events:
            group: dict[str, Any] = {"hooks": [handler(event)]}
            if event in matchers:
                group = {"matcher": matchers[event], **group}
            hooks.setdefault(event, [])
            if not isinstance(hooks[event], list):
                raise InstallError(f"{path}: hooks.{event} is not a list; left untouched")
            hooks[event].append(group)
    new = dict(data)
    if hooks:
        new["hooks"] = hooks
    else:
        new.pop("hooks", None)
    return finish_json(path, before, data, new, remove)


def finish_json(path: str, before: bytes | None, data: dict[str, Any], new: dict[str, Any], remove: bool) -> Change:
    """The change from ``data`` (read from ``before``) to ``new``: none when nothing of ours moves,
    the file as it was before our install when uninstall can restore it, else ``new`` as JSON."""
    if new == data and (before is not None or remove):
        return Change(path, before, before)  # nothing of ours to remove: nothing is written, nothing created
    return removal(path, before, remove) or Change(path, before, dump_json(new))


def removal(path: str, before: bytes | None, remove: bool, lock: str | None = None) -> Change | None:
    """For an uninstall, the change back to the file as it was just before our install (None
    when that cannot be had: then only our entries are removed)."""
    if not remove:
        return None
    restored = _restorable(path, before)
    if restored is None:
        return None
    return Change(path, before, restored if restored != b"\0absent" else None, lock)


# --- JSON with comments (Gemini CLI's settings.json) --------------------------------------------


def strip_json_comments(text: str) -> str:
    """``text`` with its ``//`` and ``/* */`` comments blanked (line ends kept), as Gemini CLI reads
    its settings (strip-json-comments): every other character stays where it was, so an offset
    in the result is the same offset in ``text``."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                if text[k] not in "\r\n":
                    out[k] = " "
            i = end
            continue
        i += 1
    return "".join(out)


def read_jsonc(path: str) -> tuple[bytes | None, dict[str, Any], str]:
    """A JSON file that may hold comments: its bytes (None: absent), its object ({} when absent
    or blank), and its text."""
    raw = read_bytes(path)
    if raw is None:
        return None, {}, ""
    try:
        text = raw.decode("utf-8")
        bare = strip_json_comments(text)
        data = json.loads(bare) if bare.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); left untouched") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; left untouched")
    return raw, data, text


def _members(bare: str) -> tuple[int, int, list[tuple[str, int, int, int]]]:
    """The top-level object of a valid JSON text (comments blanked): where it opens and closes,
    and each member's key, key start, value start and value end."""
    dec = json.JSONDecoder()
    ws = " \t\r\n"
    i = len(bare) - len(bare.lstrip(ws))
    start = i
    members: list[tuple[str, int, int, int]] = []
    i += 1
    while True:
        while bare[i] in ws or bare[i] == ",":
            i += 1
        if bare[i] == "}":
            return start, i, members
        key, at = dec.raw_decode(bare, i)
        colon = bare.index(":", at)
        vstart = colon + 1
        while bare[vstart] in ws:
            vstart += 1
        _, vend = dec.raw_decode(bare, vstart)
        members.append((key, i, vstart, vend))
        i = vend


def set_member(text: str, key: str, value: Any) -> str:
    """``text`` (a JSON object, comments allowed) with its top-level member ``key`` set to
    ``value`` (None: removed) and nothing else changed, comments included. InstallError (the file
    is left as it is) when a comment sits where the member would be rewritten or removed."""
    bare = strip_json_comments(text)
    if not bare.strip():
        return "" if value is None else dump_json({key: value}).decode("utf-8")
    start, close, members = _members(bare)
    found = [m for m in members if m[0] == key]
    if len(found) > 1:
        raise InstallError(f"\"{key}\" appears {len(found)} times; left untouched")
    line_start = text.rfind("\n", 0, members[-1][1]) + 1 if members else start
    indent = text[line_start:members[-1][1]] if members and not text[line_start:members[-1][1]].strip() else "  "
    rendered = None if value is None else json.dumps(value, indent=len(indent) or 2, ensure_ascii=False).replace(
        "\n", "\n" + indent)
    if found:
        _, kstart, vstart, vend = found[0]
        if rendered is not None:
            span = (vstart, vend)
            new = rendered
        else:
            idx = members.index(found[0])
            # the member and the comma that joins it: the one before it, or (first) the one after
            span = (members[idx - 1][3], vend) if idx else (kstart, members[1][1] if len(members) > 1 else vend)
            new = ""
        if text[span[0]:span[1]] != bare[span[0]:span[1]]:
            raise InstallError(f"a comment inside \"{key}\"; left untouched")
        return text[:span[0]] + new + text[span[1]:]
    if rendered is None:
        return text
    member = f'{indent}{json.dumps(key)}: {rendered}'
    if members:
        last = members[-1][3]
        head = (text[:last] + "," + text[last:close]).rstrip(" \t\r\n")
    else:
        head = text[:start + 1].rstrip(" \t\r\n")
    return head + "\n" + member + "\n" + text[close:]


# --- backups, restore, the write ---------------------------------------------------------------

BACKUP_SUFFIX = ".jevlin-backup"
# How long a write waits for a lock the harness itself holds (Hermes's allowlist) before it gives
# up and says who holds it; JEVLIN_INSTALL_LOCK_WAIT (seconds) sets another bound.
LOCK_WAIT_S = 10.0


def _record_path() -> str:
    return os.path.join(paths.home(), "state", "installs.json")


def records() -> dict[str, Any]:
    """What install wrote, by file: {real path: {path, harness, project, after_sha256, backup,
    pristine, created_dirs}} (``path`` as the harness names it, a symlink perhaps)."""
    try:
        with open(_record_path(), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _record(recs: dict[str, Any], path: str) -> tuple[str, dict[str, Any] | None]:
    """The record of the file ``path`` names and its key: the file's real path (one record
    however many links lead to it), or the path as named (how earlier versions keyed it)."""
    for key in (same_file(path), os.path.abspath(path)):
        rec = recs.get(key)
        if isinstance(rec, dict):
            return key, rec
    return same_file(path), None


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _restorable(path: str, current: bytes | None) -> bytes | None:
    """The file as it was just before our own install, if the file is still exactly what we
    wrote and that copy is intact; else None (then only our entries are removed)."""
    _, rec = _record(records(), path)
    if not rec or current is None or _sha(current) != rec.get("after_sha256"):
        return None
    pristine = rec.get("pristine")
    if pristine == "absent":
        # We created the file. A symlink there now is the user's doing (a dotfile manager
        # adopted it): the link stays, only our entries leave.
        return None if os.path.islink(path) else b"\0absent"
    if not isinstance(pristine, str) or not isinstance(rec.get("backup"), str):
        return None
    try:
        with open(rec["backup"], "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data if _sha(data) == pristine else None


def _write(path: str, data: bytes, mode: int) -> None:
    """``path`` whole or not at all: a temp file beside it (never through a link), fsync, rename."""
    tmp = path + ".jevlin-tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
    os.fchmod(fd, mode)  # the file's own mode, whatever the umask (077 would make a 0640 file 0600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def apply(change: Change, notice: Callable[[str], None] | None = None, held: bool = False) -> str | None:
    """Write the change (backup first). Returns the backup path, if one was written.

    One backup per file, ``<file>.jevlin-backup``, the newest: the file as it was before our
    last change. It is not rewritten when the file is exactly what we wrote last (a reinstall):
    then it still holds the file as it was before our install, which uninstall restores.

    A change with a lock takes it (unless ``held``: ``locks`` took it), waiting at most
    LOCK_WAIT_S (``notice`` hears once that it waits, and on whom), then gives up with
    InstallError, having written nothing.
    """
    if not change.changed:
        return None
    if change.lock is None:
        return _apply(change)
    with contextlib.ExitStack() as stack:
        if not held:
            stack.enter_context(_held(change.lock, change.path, notice))
        if read_bytes(change.path) != change.before:
            raise InstallError(f"{change.path} changed while we were planning; left untouched, run the command again")
        return _apply(change)


@contextlib.contextmanager
def locks(changes: list[Change], notice: Callable[[str], None] | None = None) -> Iterator[None]:
    """Every lock the changes need, held together, taken in one order: a lock that stays held
    fails the command before any file is written (no hooks left installed but not approved)."""
    wanted = {c.lock: c.path for c in changes if c.changed and c.lock is not None}
    with contextlib.ExitStack() as stack:
        for lock in sorted(wanted):
            stack.enter_context(_held(lock, wanted[lock], notice))
        yield


def _lock_wait() -> float:
    try:
        return max(0.0, float(os.environ.get("JEVLIN_INSTALL_LOCK_WAIT", LOCK_WAIT_S)))
    except ValueError:
        return LOCK_WAIT_S


@contextlib.contextmanager
def _held(lock: str, path: str, notice: Callable[[str], None] | None) -> Iterator[None]:
    """``lock`` held (flock, exclusive) while the block runs, waited for a bounded time."""
    import fcntl

    os.makedirs(os.path.dirname(lock), exist_ok=True)
    wait = _lock_wait()
    with open(lock, "a+", encoding="utf-8") as f:
        deadline = time.monotonic() + wait
        told = False
        while True:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pass
            if time.monotonic() >= deadline:
                raise InstallError(f"{path}: its lock {lock} is held by {_holder(lock)} and was not released "
                                   f"within {wait:g}s; left untouched: let that finish (or end it), then run "
                                   "the command again")
            if not told and notice is not None:
                notice(f"waiting up to {wait:g}s for {lock}, held by {_holder(lock)}")
                told = True
            time.sleep(0.05)
        yield  # the lock goes with the file


def _holder(lock: str) -> str:
    """Who holds ``lock``: "pid N (name)" where the system says (Linux), else "another process"."""
    from jevlin_hooks.ship.instance import lock_holder  # the daemon's lock reads /proc/locks the same way

    pid = lock_holder(lock)
    if not pid:
        return "another process"
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            return f"pid {pid} ({f.read().strip()})"
    except OSError:
        return f"pid {pid}"


def _apply(change: Change) -> str | None:
    recs = records()
    old_key, prev = _record(recs, change.path)
    recs.pop(old_key, None)
    key = same_file(change.path)
    ours_as_written = bool(prev and change.before is not None and _sha(change.before) == prev.get("after_sha256"))
    real = resolve(change.path)  # the file, or the file its symlink names (refused: nothing written)
    mode = 0o600
    try:
        mode = os.stat(real).st_mode & 0o777
    except FileNotFoundError:
        pass
    backup = None
    created: list[str] = []
    if change.before is not None and change.backup and not ours_as_written:
        # beside the name the harness reads, a file of its own: never inside the dotfiles
        # repository a link leads to, where it would be committed or linked back
        backup = change.path + BACKUP_SUFFIX
        _write(backup, change.before, mode)
    if change.after is None:
        os.unlink(change.path)  # a symlink: the link goes; the file it names is the user's to keep
        for d in (prev or {}).get("created_dirs", []):  # deepest first
            try:
                os.rmdir(d)  # only when empty: anything of the user's keeps it
            except OSError:
                break
    else:
        d = os.path.dirname(os.path.abspath(real))
        while not os.path.exists(d):
            created.append(d)
            d = os.path.dirname(d)
        os.makedirs(os.path.dirname(os.path.abspath(real)), exist_ok=True)
        _write(real, change.after, mode)
    where = {"path": os.path.abspath(change.path), "harness": change.harness, "project": change.project}
    if change.after is None or _is_uninstall(change):
        pass  # nothing of ours left in the file: nothing to remember
    elif change.before is None or MARK.encode() not in change.before:
        # our install into the user's own file (or none): this is what uninstall restores
        pristine = "absent" if change.before is None else (_sha(change.before) if backup else None)
        recs[key] = {**where, "after_sha256": _sha(change.after), "backup": backup, "pristine": pristine,
                     "created_dirs": created}
    elif ours_as_written and prev is not None:
        recs[key] = {**prev, **where, "after_sha256": _sha(change.after)}  # a reinstall over our own output
    else:
        # ours, but edited since: there is no "as it was before our install" to go back to
        recs[key] = {**where, "after_sha256": _sha(change.after), "backup": None, "pristine": None,
                     "created_dirs": []}
    os.makedirs(os.path.dirname(_record_path()), mode=0o700, exist_ok=True)
    with open(_record_path(), "w", encoding="utf-8") as f:
        json.dump(recs, f)
    return backup


def _is_uninstall(change: Change) -> bool:
    return change.after is not None and MARK not in change.after.decode("utf-8", "replace")


# --- reading back what was installed (doctor) ---------------------------------------------------

Findings = list[tuple[bool, str]]  # doctor's lines: (ok, text)


def load_json(path: str) -> Any:
    """A JSON file for doctor: its value, None when absent, "unreadable" when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return "unreadable"


def ours_in_grouped(data: Any) -> dict[str, list[tuple[int, int, dict[str, Any]]]]:
    """Our handlers in a Claude-shaped hooks file: event -> [(group index, handler index, handler)]."""
    found: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            for hi, h in enumerate(group.get("hooks", []) if isinstance(group, dict) else []):
                if is_ours(h):
                    found.setdefault(event, []).append((gi, hi, h))
    return found


def entry_ok(h: dict[str, Any]) -> bool:
    """The handler runs this install's entry script (not another copy of the package's)."""
    text = " ".join([str(h.get("command", ""))] + [str(a) for a in h.get("args", []) or []])
    return os.path.exists(ENTRY) and ENTRY in text


def hook_file(out: Findings, harness: str, present: bool, path: str) -> Any:
    """The harness's hook file, when the harness is on this machine ({} when the file is missing);
    None when the harness is absent or the file unreadable (reported)."""
    if not present:
        return None
    data = load_json(path)
    if data == "unreadable":
        out.append((False, f"{harness}: {path} is not valid JSON; fix it, then "
                           f"`jevlin-hooks install --harness {harness}`"))
        return None
    return {} if data is None else data
