"""Issue 31: `uninstall` says what it leaves and nothing of harnesses it never touched;
`uninstall --purge` removes our hooks, the daemon (a real one) and its service unit, JEVLIN_HOME
and the scrubber's cache: asking first on a terminal (a real pty), refusing without one unless
--yes, never removing what is not ours. Through the CLI, with a temp HOME and real files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from jevlin_hooks import uninstall
from jevlin_hooks.base import spool
from jevlin_hooks.ship import control

SETTINGS = b'{\n  "model": "opus"\n}\n'
FAKE_SYSTEMCTL = """#!/bin/sh
# systemd's user manager cannot run here: this stands in for systemctl and says what it was asked
echo "$@" >> "$FAKE_SYSTEMCTL_LOG"
if [ -n "$FAKE_SYSTEMCTL_FAIL" ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi
exit 0
"""


class User:
    """A temp HOME with Claude Code's settings of the user's, our home and cache inside it."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.home = root / "home"
        self.jhome = self.home / ".jevlin"
        self.cache = self.home / ".cache" / "jevlin-hooks"
        self.settings = self.home / ".claude" / "settings.json"
        self.settings.parent.mkdir(parents=True)
        self.settings.write_bytes(SETTINGS)
        self.bin = root / "bin"
        self.bin.mkdir()
        (self.bin / "systemctl").write_text(FAKE_SYSTEMCTL)
        os.chmod(self.bin / "systemctl", 0o755)
        self.log = root / "systemctl.log"

    def env(self, **extra: str) -> dict[str, str]:
        e = {k: v for k, v in os.environ.items()
             if not k.startswith(("HERMES", "XDG_")) and k not in ("CODEX_HOME", "PI_CODING_AGENT_DIR", "JEVLIN_HOME")}
        e.update(HOME=str(self.home), JEVLIN_HOME=str(self.jhome), XDG_CACHE_HOME=str(self.home / ".cache"),
                 XDG_CONFIG_HOME=str(self.home / ".config"), PATH=f"{self.bin}:/usr/bin:/bin",
                 FAKE_SYSTEMCTL_LOG=str(self.log))
        e.update(extra)
        return e

    def cli(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=self.env(**extra),
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)

    def ok(self, *args: str, **extra: str) -> str:
        p = self.cli(*args, **extra)
        assert p.returncode == 0, p.stderr
        return p.stdout

    def queue(self, n: int) -> None:
        spool.enqueue(str(self.jhome), [{"v": 1, "kind": "search", "record_id": f"{i:032x}"} for i in range(n)])

    def cache_file(self) -> None:
        self.cache.mkdir(parents=True)
        (self.cache / "prefilter-0123.hsdb").write_bytes(b"compiled")


def tree(root: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for d, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif name in files:
                with open(p, "rb") as f:
                    out[rel] = f.read()
            else:
                out[rel] = "dir"
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is gone for our purpose
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def user(tmp_path):
    u = User(tmp_path)
    yield u
    pid = control.running_pid(str(u.jhome)) if u.jhome.exists() else None
    if pid and pid > 0:  # never leave a daemon behind
        os.kill(pid, signal.SIGKILL)


def start_daemon(u: User) -> int:
    out = u.ok("daemon", "start")
    assert out.startswith("daemon started (pid ")
    pid = control.running_pid(str(u.jhome))
    assert pid and pid > 0 and alive(pid)
    return pid


def test_plain_uninstall_says_what_it_leaves_and_nothing_of_other_harnesses(user):
    user.ok("install", "--harness", "claude-code")
    pid = start_daemon(user)
    user.cache_file()
    out = user.ok("uninstall")
    lines = out.splitlines()
    assert lines[0] == f"removed our hooks from {user.settings} (backup: {user.settings}.jevlin-backup)" or \
        lines[0] == f"removed our hooks from {user.settings}"
    for other in (".codex", ".cursor", ".hermes", ".pi", "already", "free of"):
        assert other not in out, f"a line about a harness never touched: {out}"
    assert f"left: the daemon, running (pid {pid}): `jevlin-hooks daemon stop`" in lines
    assert any(ln.startswith(f"left: {user.jhome}: ") for ln in lines)
    assert f"left: {user.cache}: compiled scrub rules (no data of yours)" in lines
    assert lines[-1].startswith("remove all of it: `jevlin-hooks uninstall --purge`")
    assert user.settings.read_bytes() == SETTINGS
    assert alive(pid) and user.jhome.is_dir() and user.cache.is_dir(), "a plain uninstall removes none of it"
    assert user.ok("daemon", "stop").startswith("daemon stopped")


def test_uninstall_with_nothing_installed_says_so_in_one_line(user):
    out = user.ok("uninstall", "--harness", "all")
    assert out == "no hooks of ours to remove\n"
    out = user.ok("uninstall", "--purge")  # nothing to remove: nothing to ask, even without a terminal
    assert out.startswith("no hooks of ours to remove\n") and "removed" not in out


def test_purge_without_a_terminal_refuses_in_one_line_and_changes_nothing(user):
    user.ok("install", "--harness", "claude-code")
    user.queue(3)
    user.cache_file()
    before = tree(user.root)
    p = user.cli("uninstall", "--purge")
    assert p.returncode == 1 and p.stdout == "" and len(p.stderr.splitlines()) == 1, p.stderr
    assert "3 record(s) not delivered yet" in p.stderr and "add --yes" in p.stderr
    assert str(user.jhome) in p.stderr and str(user.cache) in p.stderr
    assert tree(user.root) == before


@pytest.mark.parametrize("systemd_reachable", [True, False])
def test_purge_yes_removes_everything_of_ours_and_stops_the_real_daemon(user, systemd_reachable):
    user.ok("install", "--harness", "claude-code")
    user.ok("install", "--harness", "cursor")  # creates ~/.cursor/hooks.json: removed again
    unit = user.home / ".config" / "systemd" / "user" / "jevlin-hooks.service"
    assert user.ok("daemon", "install-service").startswith(f"wrote {unit}")
    wants = unit.parent / "default.target.wants"
    wants.mkdir()
    os.symlink(unit, wants / "jevlin-hooks.service")  # what `systemctl --user enable` makes
    pid = start_daemon(user)
    user.cache_file()
    extra = {} if systemd_reachable else {"FAKE_SYSTEMCTL_FAIL": "1"}
    p = user.cli("uninstall", "--harness", "all", "--purge", "--yes", **extra)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert f"removed our hooks from {user.settings}" in out
    assert f"removed our hooks from {user.home / '.cursor' / 'hooks.json'}" in out
    disable = "systemctl --user disable --now jevlin-hooks.service"
    assert (f"ran `{disable}`" if systemd_reachable else f"could not run `{disable}` (Failed to connect") in out
    assert f"removed {unit}" in out and f"daemon stopped (pid {pid})" in out
    assert f"removed {user.jhome}: " in out and f"removed {user.cache} (compiled scrub rules)" in out
    assert not alive(pid)
    assert user.settings.read_bytes() == SETTINGS, "the user's settings, byte for byte"
    assert not (user.home / ".cursor").exists(), "what install created goes with it"
    assert not user.jhome.exists() and not user.cache.exists()
    assert not unit.exists() and not os.path.lexists(wants / "jevlin-hooks.service")
    assert "--user disable --now jevlin-hooks.service" in user.log.read_text()
    assert (user.settings.parent / "settings.json.jevlin-backup").exists(), "backups are the user's bytes: kept"
    assert "kept 1 backup(s)" in out


def test_purge_on_a_terminal_asks_first_and_says_what_is_lost(user):
    import pty

    user.ok("install", "--harness", "claude-code")
    user.queue(2)
    before = tree(user.root)

    def run(answer: bytes) -> tuple[int, str]:
        master, slave = pty.openpty()
        p = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "uninstall", "--purge"], env=user.env(),
                             stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 120  # a hang guard, not a timing
        while b"[y/N] " not in seen and time.monotonic() < deadline:
            seen += os.read(master, 4096)
        os.write(master, answer)
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        return p.wait(120), seen.decode().replace("\r\n", "\n")

    code, text = run(b"n\n")
    assert code == 1 and "nothing removed" in text
    assert "uninstall --purge removes:" in text and f"our hooks from {user.settings}" in text
    assert "2 record(s) not delivered yet (2 waiting), which will never be sent" in text
    assert tree(user.root) == before
    code, text = run(b"y\n")
    assert code == 0 and f"removed {user.jhome}" in text, text
    assert not user.jhome.exists() and user.settings.read_bytes() == SETTINGS


def test_purge_refuses_a_home_owned_by_another_user(user):
    if os.geteuid() != 0:
        pytest.skip("giving a directory to another user takes root")
    user.ok("install", "--harness", "claude-code")
    os.chown(user.jhome, 65534, 65534)
    before = tree(user.root)
    p = user.cli("uninstall", "--purge", "--yes")
    assert p.returncode == 1 and len(p.stderr.splitlines()) == 1 and "owned by uid 65534" in p.stderr
    assert tree(user.root) == before and b"jevlin_hooks" in user.settings.read_bytes()


def test_purge_refuses_the_home_directory_itself(user):
    (user.home / "notes").write_text("mine")
    before = tree(user.root)
    p = user.cli("uninstall", "--purge", "--yes", JEVLIN_HOME=str(user.home))
    assert p.returncode == 1 and "is your home directory or holds it" in p.stderr
    assert tree(user.root) == before


def test_purge_removes_only_what_is_ours_in_the_home(user):
    dot = user.root / "dotfiles" / "jevlin.toml"
    dot.parent.mkdir()
    dot.write_text("[miner]\nturn_end = true\n")
    user.ok("install", "--harness", "claude-code")
    os.symlink(dot, user.jhome / "config.toml")  # the user's config, kept in their dotfiles
    (user.jhome / "notes.txt").write_text("mine")
    out = user.ok("uninstall", "--purge", "--yes")
    assert f"left {user.jhome}: it holds what jevlin-hooks did not put there: notes.txt" in out
    assert sorted(os.listdir(user.jhome)) == ["notes.txt"]
    assert dot.read_text() == "[miner]\nturn_end = true\n", "a symlinked config: the link goes, the file stays"


def test_project_installs_are_named_by_uninstall_and_removed_by_purge(user):
    proj = user.root / "proj"
    (proj / ".claude").mkdir(parents=True)
    mine = b'{"permissions": {"allow": ["Bash(ls)"]}}\n'
    (proj / ".claude" / "settings.json").write_bytes(mine)
    user.ok("install", "--harness", "claude-code", "--project", str(proj))
    user.ok("install", "--harness", "cursor")
    out = user.ok("uninstall", "--harness", "cursor")
    assert (f"our hooks are still in {proj / '.claude' / 'settings.json'}: "
            f"`jevlin-hooks uninstall --harness claude-code --project {proj}`") in out
    out = user.ok("uninstall", "--purge", "--yes")
    assert f"removed our hooks from {proj / '.claude' / 'settings.json'}" in out
    assert (proj / ".claude" / "settings.json").read_bytes() == mine


def test_purge_needs_every_harness(user):
    for args in (("--harness", "claude-code"), ("--project", str(user.root))):
        p = user.cli("uninstall", "--purge", "--yes", *args)
        assert p.returncode == 1 and "--purge removes what every harness shares" in p.stderr


def test_a_service_unit_for_another_home_is_left_alone(user):
    user.ok("install", "--harness", "claude-code")
    unit = user.home / ".config" / "systemd" / "user" / "jevlin-hooks.service"
    unit.parent.mkdir(parents=True)
    text = control.SYSTEMD.format(cmd="python -m jevlin_hooks.ship.service run", home="/srv/other-jevlin")
    unit.write_text(text)
    out = user.ok("uninstall", "--purge", "--yes")
    assert str(unit) not in out and unit.read_text() == text
    assert not user.log.exists(), "systemctl was not asked to stop another home's daemon"


def test_dry_run_purge_says_what_would_go_and_changes_nothing(user):
    user.ok("install", "--harness", "claude-code")
    user.queue(1)
    before = tree(user.root)
    out = user.ok("uninstall", "--purge", "--dry-run")
    assert "uninstall --purge removes:" in out and f"{user.jhome}: " in out and "1 record(s) not delivered" in out
    assert tree(user.root) == before


def test_launchd_plist_is_unloaded_and_removed(tmp_path, monkeypatch):
    """macOS: the plist `daemon install-service` writes, recognised by the home it names, unloaded
    with launchctl (which cannot run here: a runner records what it would be asked), removed."""
    monkeypatch.setenv("HOME", str(tmp_path))
    home = str(tmp_path / ".jevlin")
    path, _ = control.install_service(home, platform="darwin")
    assert uninstall.service_unit(home, platform="darwin") == path
    assert uninstall.service_unit(str(tmp_path / "other"), platform="darwin") is None
    asked: list[list[str]] = []

    def runner(argv: Any) -> subprocess.CompletedProcess[str]:
        asked.append(list(argv))
        return subprocess.CompletedProcess(argv, 0, "", "")

    lines = uninstall.remove_service(path, runner, platform="darwin")
    assert asked == [["launchctl", "unload", "-w", path]]
    assert lines == [f"ran `launchctl unload -w {path}`", f"removed {path}"] and not os.path.exists(path)


def test_installs_record_names_the_harness_and_project(user):
    proj = user.root / "p"
    proj.mkdir()
    user.ok("install", "--harness", "cursor", "--project", str(proj))
    recs = json.loads((user.jhome / "state" / "installs.json").read_text())
    rec = recs[str(proj / ".cursor" / "hooks.json")]
    assert rec["harness"] == "cursor" and rec["project"] == str(proj)


def test_purge_of_a_symlinked_home_removes_it_and_the_link(user):
    real = user.root / "sync" / "jevlin"
    real.mkdir(parents=True, mode=0o700)
    user.home.mkdir(exist_ok=True)
    os.symlink(real, user.jhome)
    user.ok("install", "--harness", "claude-code")
    assert (real / "state" / "installs.json").exists()
    out = user.ok("uninstall", "--purge", "--yes")
    assert f"removed {user.jhome}: " in out
    assert not os.path.lexists(user.jhome) and not real.exists() and (user.root / "sync").is_dir()
    assert user.settings.read_bytes() == SETTINGS
