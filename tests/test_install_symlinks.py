"""Issue 29, item 13: a symlinked agent config (a dotfile manager's: stow, chezmoi, yadm) stays a
symlink. Install writes through it to the file it names, atomically beside that file; uninstall
gives the user's bytes back through it; a dangling link or a link to another user's file is
refused with one line and nothing changes. Real links (relative, absolute, a chain of two) for
every harness that writes a config, through the real CLI."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from jevlin_hooks.harnesses.hermes import install as hermes_install

# (harness, file under HOME, the user's bytes, extra install arguments)
CONFIGS = [
    ("claude-code", ".claude/settings.json", b'{\n  "model": "opus",\n  "env": {"FOO": "1"}\n}\n', ()),
    ("codex", ".codex/hooks.json", b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}\n', ()),
    ("codex", ".codex/config.toml", b'# mine\nmodel = "o5"\n', ("--notify",)),
    ("cursor", ".cursor/hooks.json", b'{"version": 1, "hooks": {"stop": [{"command": "./mine.sh"}]}}\n', ()),
    ("hermes", ".hermes/config.yaml", b"# my Hermes\nmodel:\n  default: m   # kept\n", ()),
    ("hermes", ".hermes/shell-hooks-allowlist.json",
     json.dumps({"approvals": [{"approved_at": "2026-11-01T10:00:00Z", "command": "/bin/mine", "event": "pre_tool_call",
                                "script_mtime_at_approval": None}]}, indent=2, sort_keys=True).encode(), ()),
]
KINDS = ("relative", "absolute", "chain")


def cli(home: Any, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("HERMES") and k not in ("CODEX_HOME", "PI_CODING_AGENT_DIR")}
    e.update(HOME=str(home), JEVLIN_HOME=str(home / ".jevlin"), XDG_CACHE_HOME=str(home / ".cache"), **env)
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=e, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def link(kind: str, home: Any, at: str, target: str) -> list[str]:
    """Make ``home/at`` a symlink of ``kind`` to ``target``; returns the links made, first first."""
    path = os.path.join(home, at)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if kind == "relative":
        os.symlink(os.path.relpath(target, os.path.dirname(path)), path)
        return [path]
    if kind == "absolute":
        os.symlink(target, path)
        return [path]
    middle = os.path.join(home, "links", at.replace("/", "_"))  # absolute, then relative
    os.makedirs(os.path.dirname(middle), exist_ok=True)
    os.symlink(os.path.relpath(target, os.path.dirname(middle)), middle)
    os.symlink(middle, path)
    return [path, middle]


def tree(root: Any) -> dict[str, Any]:
    """Every entry under root: links with what they say, files with bytes, mode and owner."""
    out: dict[str, Any] = {}
    for d, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(d, name)
            st = os.lstat(p)
            if os.path.islink(p):
                out[os.path.relpath(p, root)] = ("link", os.readlink(p))
            elif name in files:
                with open(p, "rb") as f:
                    out[os.path.relpath(p, root)] = (f.read(), st.st_mode, st.st_uid)
    return out


def foreign_file(tmp_path: Any) -> str:
    """A real file owned by another user: made and given away as root, else a system file."""
    if os.geteuid() == 0:
        path = tmp_path / "theirs.json"
        path.write_text("{}\n")
        os.chown(path, 65534, 65534)
        return str(path)
    for candidate in ("/etc/hostname", "/etc/passwd"):
        if os.path.isfile(candidate) and os.stat(candidate).st_uid != os.geteuid():
            return candidate
    pytest.skip("no file of another user to link to")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("harness,at,mine,extra", CONFIGS, ids=[c[1] for c in CONFIGS])
def test_install_writes_through_the_link_and_uninstall_gives_the_bytes_back(tmp_path, kind, harness, at, mine, extra):
    home = tmp_path / "home"
    dotfiles = tmp_path / "dotfiles"  # the user's repository the links lead into
    dotfiles.mkdir()
    target = dotfiles / os.path.basename(at)
    target.write_bytes(mine)
    os.chmod(target, 0o640)
    links = link(kind, home, at, str(target))
    said = {p: os.readlink(p) for p in links}
    p = cli(home, "install", "--harness", harness, *extra)
    assert p.returncode == 0, p.stderr
    assert f"through the symlink, in {target}" in p.stdout
    assert {q: os.readlink(q) for q in links} == said, "every link stays as it was"
    written = target.read_bytes()
    assert b"jevlin_hooks" in written and written != mine
    assert os.stat(target).st_mode & 0o777 == 0o640, "the file keeps its mode"
    assert os.listdir(dotfiles) == [target.name], "no temp file or backup left in the dotfiles repository"
    backup = links[0] + ".jevlin-backup"
    assert not os.path.islink(backup) and open(backup, "rb").read() == mine, "the backup sits beside the link"
    assert not [n for _, _, fs in os.walk(home) for n in fs if "jevlin-tmp" in n]
    p = cli(home, "install", "--harness", harness, *extra)
    assert p.returncode == 0 and target.read_bytes() == written, p.stderr
    p = cli(home, "uninstall", "--harness", harness)
    assert p.returncode == 0, p.stderr
    assert {q: os.readlink(q) for q in links} == said
    assert target.read_bytes() == mine, "the user's bytes, back through the link"


def test_uninstall_after_an_edit_through_the_link_removes_only_ours(tmp_path):
    home, target = tmp_path / "home", tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text('{"model": "opus"}\n')
    link("relative", home, ".claude/settings.json", str(target))
    assert cli(home, "install", "--harness", "claude-code").returncode == 0
    data = json.loads(target.read_text())
    data["theme"] = "dark"
    target.write_text(json.dumps(data, indent=2))
    assert cli(home, "uninstall", "--harness", "claude-code").returncode == 0
    assert os.path.islink(home / ".claude" / "settings.json")
    assert json.loads(target.read_text()) == {"model": "opus", "theme": "dark"}


@pytest.mark.parametrize("harness,at,mine,extra", CONFIGS, ids=[c[1] for c in CONFIGS])
def test_a_dangling_link_is_refused_and_nothing_changes(tmp_path, harness, at, mine, extra):
    home = tmp_path / "home"
    link("chain", home, at, str(tmp_path / "dotfiles" / "gone"))
    before = tree(tmp_path)
    p = cli(home, "install", "--harness", harness, *extra)
    assert p.returncode == 1 and len(p.stderr.splitlines()) == 1, p.stderr
    assert "dangling" in p.stderr and os.path.join(str(home), at) in p.stderr
    assert tree(tmp_path) == before


@pytest.mark.parametrize("harness,at,mine,extra", CONFIGS, ids=[c[1] for c in CONFIGS])
def test_a_link_to_another_users_file_is_refused_and_nothing_changes(tmp_path, harness, at, mine, extra):
    home = tmp_path / "home"
    theirs = foreign_file(tmp_path)
    link("absolute", home, at, theirs)
    before, their_bytes = tree(tmp_path), open(theirs, "rb").read()
    p = cli(home, "install", "--harness", harness, *extra)
    assert p.returncode == 1 and len(p.stderr.splitlines()) == 1, p.stderr
    assert "owned by uid" in p.stderr and "not you" in p.stderr
    assert tree(tmp_path) == before and open(theirs, "rb").read() == their_bytes


def test_uninstall_refuses_a_link_that_went_dangling(tmp_path):
    home, target = tmp_path / "home", tmp_path / "dotfiles" / "hooks.json"
    target.parent.mkdir()
    target.write_text('{"version": 1}\n')
    link("relative", home, ".cursor/hooks.json", str(target))
    assert cli(home, "install", "--harness", "cursor").returncode == 0
    target.rename(tmp_path / "dotfiles" / "moved.json")
    before = tree(tmp_path)
    p = cli(home, "uninstall", "--harness", "cursor")
    assert p.returncode == 1 and "dangling" in p.stderr and len(p.stderr.splitlines()) == 1
    assert tree(tmp_path) == before


def test_a_profile_linked_to_the_main_config_is_written_once(tmp_path):
    """Hermes: a profile home whose config.yaml and allowlist link to the main ones; one file,
    one write, our hooks once each."""
    home = tmp_path / "home"
    hh = home / ".hermes"
    (hh / "profiles" / "work").mkdir(parents=True)
    (hh / "config.yaml").write_text("model: {default: m}\n")
    (hh / hermes_install.ALLOWLIST).write_text('{"approvals": []}')
    for name in ("config.yaml", hermes_install.ALLOWLIST):
        os.symlink(os.path.join("..", "..", name), hh / "profiles" / "work" / name)
    p = cli(home, "install", "--harness", "hermes")
    assert p.returncode == 0, p.stderr
    assert "profiles/work/config.yaml: the same file as" in p.stdout
    data = hermes_install._yaml().load((hh / "config.yaml").read_text())
    assert all(len(data["hooks"][e]) == 1 for e in hermes_install.EVENTS)
    approvals = json.loads((hh / hermes_install.ALLOWLIST).read_text())["approvals"]
    assert len(approvals) == len(hermes_install.EVENTS)
    assert os.path.islink(hh / "profiles" / "work" / "config.yaml")
    assert cli(home, "uninstall", "--harness", "hermes").returncode == 0
    assert (hh / "config.yaml").read_text() == "model: {default: m}\n"
    assert (hh / hermes_install.ALLOWLIST).read_text() == '{"approvals": []}'


def test_pi_extension_linked_in_by_the_user_uninstall_removes_the_link_only(tmp_path):
    home = tmp_path / "home"
    assert cli(home, "install", "--harness", "pi").returncode == 0
    ext = home / ".pi" / "agent" / "extensions" / "jevlin-hooks.js"
    kept = tmp_path / "dotfiles" / "jevlin-hooks.js"
    kept.parent.mkdir()
    ext.rename(kept)
    os.symlink(kept, ext)
    p = cli(home, "uninstall", "--harness", "pi")
    assert p.returncode == 0 and "removed the symlink" in p.stdout, p.stderr
    assert not os.path.lexists(ext) and kept.exists()


def test_the_allowlist_lock_is_taken_through_the_link_name_hermes_uses(tmp_path):
    """Hermes locks ``<allowlist>.lock`` beside the name it reads (a symlink here); we take the
    same lock, so a held one makes install wait, and nothing is written when it stays held."""
    home, target = tmp_path / "home", tmp_path / "dotfiles" / "allow.json"
    target.parent.mkdir()
    target.write_text('{"approvals": []}')
    link("relative", home, ".hermes/" + hermes_install.ALLOWLIST, str(target))
    lock = str(home / ".hermes" / (hermes_install.ALLOWLIST + ".lock"))
    with open(lock, "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        holder = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE,
                                  pass_fds=(f.fileno(),))  # the lock lives in another process too
    try:
        before = tree(tmp_path)
        p = cli(home, "install", "--harness", "hermes", JEVLIN_INSTALL_LOCK_WAIT="0.3")
        assert p.returncode == 1 and f"its lock {lock} is held by" in p.stderr, p.stderr
        assert tree(tmp_path) == before
    finally:
        holder.communicate(b"")


@pytest.mark.parametrize("mask", [0o077, 0o022, 0o000])
def test_install_and_uninstall_keep_the_files_mode_whatever_the_umask(tmp_path, mask):
    """A user with umask 077 (common on shared machines) keeps a 0640 settings.json 0640: the
    temp file is made with the file's own mode, not the mode the umask leaves of it."""
    home = tmp_path
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"theme": "dark"}\n')
    os.chmod(settings, 0o640)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        e = dict(os.environ, HOME=str(home), JEVLIN_HOME=str(home / ".jevlin"), XDG_CACHE_HOME=str(home / ".cache"))
        return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=e, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=120, preexec_fn=lambda: os.umask(mask))

    assert run("install", "--harness", "claude-code").returncode == 0
    assert b"jevlin_hooks" in settings.read_bytes()
    assert os.stat(settings).st_mode & 0o777 == 0o640
    assert os.stat(str(settings) + ".jevlin-backup").st_mode & 0o777 == 0o640, "the backup is as closed as the file"
    assert run("uninstall", "--harness", "claude-code").returncode == 0
    assert settings.read_bytes() == b'{"theme": "dark"}\n' and os.stat(settings).st_mode & 0o777 == 0o640
