"""What `uninstall` leaves behind, and `uninstall --purge` removing it.

Removing our hooks is `install.py`'s job; this is everything else of ours: the daemon and the
service unit that starts it, ``$JEVLIN_HOME`` (config, hashing key, queue, local store), the
scrubber's cache directory, and our hooks in files an earlier command installed (a ``--project``,
another harness). A plain uninstall names what is left and how to remove it; --purge removes it.

Only what is ours goes: inside the home, the names jevlin-hooks creates (anything else there is
left and named); a service unit only when it runs this home's daemon; the cache directory named
for us. A home owned by another user, the user's home directory itself and its ancestors are
refused. Backups we made of the user's files (``<file>.jevlin-backup``) hold their bytes: named,
never deleted.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from jevlin_hooks import harnesses, install, installkit
from jevlin_hooks.base import spool
from jevlin_hooks.installkit import Change

# What jevlin-hooks creates in $JEVLIN_HOME (docs/files.md); nothing else there is removed.
HOME_ENTRIES = ("config.toml", "sessions", "spool", "state", "logs",
                "traces.db", "traces.db-wal", "traces.db-shm", "traces.db-journal")
QUEUES = ("new", "cur", "held", "quarantine")  # records not delivered, in spool/
SERVICE_NAME = "jevlin-hooks.service"

Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


class PurgeError(Exception):
    """Something that must hold before the home goes did not (the daemon did not stop)."""


@dataclass
class Elsewhere:
    """Our hooks in a file this command did not plan (recorded by an earlier install)."""

    path: str
    harness: str | None
    project: str | None
    default: bool  # the harness's own file under today's environment: `--harness H` removes them

    def how(self) -> str:
        if self.harness and self.project:
            return f"`jevlin-hooks uninstall --harness {self.harness} --project {shlex.quote(self.project)}`"
        if self.harness and self.default:
            return f"`jevlin-hooks uninstall --harness {self.harness}`"
        return ("uninstall with the environment it was installed with (HOME, CODEX_HOME, HERMES_HOME, "
                "PI_CODING_AGENT_DIR), or take out the entries that run jevlin_hooks by hand")


@dataclass
class Survey:
    home: str
    home_exists: bool
    queued: dict[str, int]
    pid: int | None  # the running daemon's, -1: starting
    service: str | None  # our service unit file, when it runs this home's daemon
    cache: str | None  # our cache directory, when there is one
    backups: list[str] = field(default_factory=list)
    elsewhere: list[Elsewhere] = field(default_factory=list)

    @property
    def undelivered(self) -> int:
        return sum(self.queued.values())


def refusal(home: str) -> str | None:
    """Why --purge must not remove ``home`` (one line), or None."""
    real = os.path.realpath(home)
    user = os.path.realpath(os.path.expanduser("~"))
    if real == os.sep or real == user or user.startswith(real.rstrip(os.sep) + os.sep):
        return f"JEVLIN_HOME {home} is your home directory or holds it: refused, nothing removed"
    try:
        st = os.stat(home)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"JEVLIN_HOME {home} cannot be read ({exc.strerror}): refused, nothing removed"
    if st.st_uid != os.geteuid():
        return (f"JEVLIN_HOME {home} is owned by uid {st.st_uid}, not you (uid {os.geteuid()}): refused, "
                "nothing removed")
    return None


def cache_dir() -> str:
    from jevlin_hooks.privacy.engine.prefilter import cache_dir as where  # one place names it

    return where()


def service_unit(home: str, platform: str | None = None) -> str | None:
    """The service file `daemon install-service` wrote, if it runs this home's daemon."""
    from jevlin_hooks.ship import control

    path = control.service_path(platform)
    try:
        with open(path, "rb") as f:
            raw = f.read(1 << 16)
    except OSError:
        return None
    if (platform or sys.platform) == "darwin":
        import plistlib

        try:
            data = plistlib.loads(raw)
        except Exception:  # noqa: BLE001 - not a plist we can read: not one we wrote
            return None
        env = data.get("EnvironmentVariables") if isinstance(data, dict) else None
        named = env.get("JEVLIN_HOME") if isinstance(env, dict) else None
    else:
        lines = raw.decode("utf-8", "replace").splitlines()
        named = next((ln.split("=", 2)[2] for ln in lines if ln.startswith("Environment=JEVLIN_HOME=")), None)
    same = isinstance(named, str) and os.path.realpath(named) == os.path.realpath(home)
    return path if same else None


def survey(home: str, plans: list[Change]) -> Survey:
    from jevlin_hooks.ship import control

    cache = cache_dir()
    s = Survey(home=home, home_exists=os.path.isdir(home),
               queued={q: spool.count(home, q) for q in QUEUES},
               pid=control.running_pid(home), service=service_unit(home),
               cache=cache if os.path.lexists(cache) else None)
    s.elsewhere = _elsewhere(plans)
    seen = set()
    for path in [c.path for c in plans] + [e.path for e in s.elsewhere]:
        backup = path + installkit.BACKUP_SUFFIX
        if backup not in seen and os.path.isfile(backup):
            seen.add(backup)
            s.backups.append(backup)
    return s


def _elsewhere(plans: list[Change]) -> list[Elsewhere]:
    """Files install recorded that still hold our hooks and that ``plans`` does not cover."""
    planned = {installkit.same_file(c.path) for c in plans}
    defaults: set[str] = set()
    for name in harnesses.HARNESSES:
        try:
            defaults |= {installkit.same_file(c.path) for c in install.plans_for(name, None, True)}
        except (installkit.InstallError, OSError):
            continue
    out = []
    for key, rec in sorted(installkit.records().items()):
        path = rec.get("path") if isinstance(rec.get("path"), str) else key
        if installkit.same_file(path) in planned:
            continue
        try:
            data = installkit.read_bytes(path)
        except installkit.InstallError:
            data = None
        if data is None or installkit.MARK.encode() not in data:
            continue  # gone, or ours taken out since: nothing left there
        harness, project = rec.get("harness"), rec.get("project")
        out.append(Elsewhere(path, harness if isinstance(harness, str) else None,
                             project if isinstance(project, str) else None,
                             installkit.same_file(path) in defaults))
    return out


def project_plans(s: Survey) -> list[Change]:
    """--purge takes our hooks out of the project files earlier installs wrote, too."""
    out = []
    for e in s.elsewhere:
        if e.harness in harnesses.HARNESSES and e.project:
            out += [c for c in install.plans_for(e.harness, e.project, True)
                    if installkit.same_file(c.path) == installkit.same_file(e.path)]
    return out


def _home_what(s: Survey) -> str:
    """What the home holds, in words: only what is there."""
    real = os.path.realpath(s.home)
    parts = [word for name, word in (("config.toml", "your config"), (os.path.join("state", "key"), "the hashing key"),
                                     ("traces.db", "the local store")) if os.path.lexists(os.path.join(real, name))]
    if s.undelivered:
        parts.append(f"{s.undelivered} record(s) not delivered yet ({_queue_words(s)})")
    return ", ".join(parts) or "install records"


def _queue_words(s: Survey) -> str:
    words = {"new": "waiting", "cur": "in flight", "held": "held", "quarantine": "quarantined"}
    return ", ".join(f"{k} {words[q]}" for q, k in s.queued.items() if k)


def left_lines(s: Survey) -> list[str]:
    """After a plain uninstall: what is still here, and how to remove it."""
    out = [f"our hooks are still in {e.path}: {e.how()}" for e in s.elsewhere]
    if s.pid:
        out.append(f"left: the daemon, running (pid {s.pid}): `jevlin-hooks daemon stop`")
    if s.service:
        out.append(f"left: {s.service}, which starts the daemon at login")
    if s.home_exists:
        out.append(f"left: {s.home}: {_home_what(s)}")
    if s.cache:
        out.append(f"left: {s.cache}: compiled scrub rules (no data of yours)")
    if s.backups:
        out.append(f"left: {len(s.backups)} backup(s) of your files as they were before an install: "
                   + ", ".join(s.backups))
    if s.pid or s.service or s.home_exists or s.cache:
        out.append("remove all of it: `jevlin-hooks uninstall --purge` (asks first; it keeps the backups)")
    return out


def plan_lines(s: Survey, hooks: list[Change]) -> list[str]:
    """What --purge is about to remove, for the question (and --dry-run)."""
    out = ["uninstall --purge removes:"]
    if hooks:
        out.append("  our hooks from " + ", ".join(c.path for c in hooks))
    if s.service:
        out.append(f"  the service unit {s.service}")
    if s.pid:
        out.append(f"  the running daemon (pid {s.pid})")
    if s.home_exists:
        lost = ", which will never be sent" if s.undelivered else ""
        out.append(f"  {s.home}: {_home_what(s)}{lost}")
    if s.cache:
        out.append(f"  {s.cache}: compiled scrub rules (no data of yours)")
    if len(out) == 1:
        out.append("  nothing: none of it is here")
    out += [f"  and leaves {e.path} (our hooks are still there): {e.how()}" for e in s.elsewhere if not e.project]
    if s.backups:
        out.append(f"  and keeps {len(s.backups)} backup(s) of your files: " + ", ".join(s.backups))
    return out


def nothing_here(s: Survey, hooks: list[Change]) -> bool:
    """Nothing for --purge to remove: no question to ask."""
    return not (hooks or s.service or s.pid or s.home_exists or s.cache)


def no_terminal(s: Survey, hooks: list[Change]) -> str:
    what = (["our hooks"] if hooks else []) + (["the service unit"] if s.service else []) \
        + ([f"the daemon (pid {s.pid})"] if s.pid else []) + ([s.home] if s.home_exists else []) \
        + ([s.cache] if s.cache else [])
    n = s.undelivered
    return ("uninstall --purge removes " + ", ".join(what)
            + (f" ({n} record(s) not delivered yet, never to be sent)" if n else "")
            + "; there is no terminal to ask on: add --yes to go ahead")


def _run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)


def remove_service(path: str, run: Runner = _run, platform: str | None = None) -> list[str]:
    """Stop and disable the service the unit at ``path`` runs, then remove the unit."""
    systemd = (platform or sys.platform) != "darwin"
    argv = ["systemctl", "--user", "disable", "--now", SERVICE_NAME] if systemd else ["launchctl", "unload", "-w", path]
    why = _try(run, argv)
    out = [f"ran `{shlex.join(argv)}`" if why is None else
           f"could not run `{shlex.join(argv)}` ({why}); the unit goes anyway"]
    try:
        if systemd:
            # what `systemctl enable` linked to the unit goes with it, even when systemctl could not be reached
            for wants in _wants_dirs(os.path.dirname(path)):
                link = os.path.join(wants, SERVICE_NAME)
                if os.path.islink(link) and os.path.realpath(link) == os.path.realpath(path):
                    os.unlink(link)
        os.unlink(path)
    except OSError as exc:
        return [*out, f"left {exc.filename or path}: {exc.strerror or exc}"]
    out.append(f"removed {path}")
    if systemd:
        _try(run, ["systemctl", "--user", "daemon-reload"])  # best effort: it forgets the unit now
    return out


def _wants_dirs(unit_dir: str) -> list[str]:
    try:
        return [os.path.join(unit_dir, n) for n in os.listdir(unit_dir) if n.endswith(".wants")]
    except OSError:
        return []


def _try(run: Runner, argv: Sequence[str]) -> str | None:
    try:
        p = run(argv)
    except FileNotFoundError:
        return f"{argv[0]} not found"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if p.returncode != 0:
        first = (p.stderr or p.stdout or "").strip().splitlines()
        return first[0] if first else f"exit status {p.returncode}"
    return None


def purge(s: Survey, run: Runner = _run) -> list[str]:
    """The service, the daemon, the home, the cache: in that order (the daemon must be stopped
    before its home goes). Returns what was done, one line each; PurgeError if the daemon does
    not stop (then the home and cache are left as they are)."""
    from jevlin_hooks.ship import control

    out = []
    if s.service:
        out += remove_service(s.service, run)
    ok, msg = control.stop(s.home)  # `jevlin-hooks daemon stop`'s own path
    if not ok:
        raise PurgeError(f"{msg}; {s.home} and the cache are left: run the command again")
    if s.pid:  # stopped now, or with its service just before
        out.append(msg if msg.startswith("daemon stopped") else f"daemon stopped (pid {s.pid}) with its service")
    if s.home_exists:
        out += _remove_home(s)
    if s.cache:
        out += _remove_ours(s.cache, "compiled scrub rules")
    return out


def _remove_home(s: Survey) -> list[str]:
    what = _home_what(s)
    real = os.path.realpath(s.home)
    problems = [why for why in (_remove(os.path.join(real, name)) for name in HOME_ENTRIES) if why]
    try:
        rest = sorted(os.listdir(real))
    except OSError:
        rest = []
    if not problems and not rest:
        try:
            os.rmdir(real)
            if real != os.path.abspath(s.home) and os.path.islink(s.home):
                os.unlink(s.home)  # the link to the home just removed would name nothing
        except OSError as exc:  # a hook that just ran made something there again
            return [f"removed what is ours in {s.home}", f"left {s.home}: {exc.strerror or exc}"]
        return [f"removed {s.home}: {what}"]
    out = [f"removed what is ours in {s.home}"] + [f"left {p}" for p in problems]
    if rest:
        out.append(f"left {s.home}: it holds what jevlin-hooks did not put there: "
                   + ", ".join(rest[:5]) + (f" and {len(rest) - 5} more" if len(rest) > 5 else ""))
    return out


def _remove_ours(path: str, what: str) -> list[str]:
    why = _remove(path)
    return [f"left {why}"] if why else [f"removed {path} ({what})"]


def _remove(path: str) -> str | None:
    """Remove ``path`` (a directory with all it holds; a symlink itself, never what it names).
    None when done or absent; else why it is left."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if st.st_uid != os.geteuid():
        return f"{path}: owned by uid {st.st_uid}, not you"
    try:
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(path)  # never follows a symlink inside: it removes the link
        else:
            os.unlink(path)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    return None
