"""Issue 10, case 14: uninstall never creates or destroys a user's file; restore is only ever of
the file as it was just before our own install; one backup per file. Through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def cli(home: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CODEX_HOME"}
    env.update(HOME=home, JEVLIN_HOME=os.path.join(home, ".jevlin"))
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p


def tree(root: str) -> dict[str, bytes]:
    """Every user file under ``root`` (our own home left out), with its bytes."""
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".jevlin"]
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                out[os.path.relpath(os.path.join(d, f), root)] = fh.read()
    return out


@pytest.mark.parametrize("dirs", [False, True])
def test_uninstall_all_with_nothing_installed_changes_nothing(tmp_path, dirs):
    home = str(tmp_path)
    if dirs:  # the harnesses are there, with the user's own hooks, none of ours
        for d in (".claude", ".codex", ".cursor"):
            os.makedirs(os.path.join(home, d))
        with open(os.path.join(home, ".cursor", "hooks.json"), "w") as f:
            json.dump({"hooks": {"stop": [{"command": "./mine.sh"}]}}, f)  # no "version" key
        with open(os.path.join(home, ".codex", "config.toml"), "w") as f:
            f.write('model = "o5"\n')
    before = tree(home)
    cli(home, "uninstall", "--harness", "all")
    assert tree(home) == before


def test_users_own_settings_survive_install_then_uninstall(tmp_path):
    """The order from the issue: uninstall on a bare machine, the user writes their own
    settings, then install and uninstall. Their file comes back byte for byte."""
    home = str(tmp_path)
    cli(home, "uninstall", "--harness", "all")
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    mine = b'{"model": "opus"}\n'
    path.write_bytes(mine)
    cli(home, "install", "--harness", "claude-code")
    assert b"jevlin_hooks" in path.read_bytes()
    cli(home, "uninstall", "--harness", "claude-code")
    assert path.read_bytes() == mine


def test_restore_is_never_of_an_older_state_than_just_before_our_install(tmp_path):
    """install over A; the user edits (B, ours kept); install again; uninstall: B without ours,
    never A (that would throw away the user's edit)."""
    home = str(tmp_path)
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "A"}\n')
    cli(home, "install", "--harness", "claude-code")
    data = json.loads(path.read_text())
    data["model"] = "B"
    path.write_text(json.dumps(data))
    cli(home, "install", "--harness", "claude-code")
    cli(home, "uninstall", "--harness", "claude-code")
    after = json.loads(path.read_text())
    assert after["model"] == "B" and "jevlin_hooks" not in path.read_text()


def test_created_file_edited_by_the_user_is_not_deleted(tmp_path):
    home = str(tmp_path)
    cli(home, "install", "--harness", "cursor")  # creates ~/.cursor/hooks.json
    path = tmp_path / ".cursor" / "hooks.json"
    data = json.loads(path.read_text())
    data["hooks"]["stop"].append({"command": "./mine.sh"})
    path.write_text(json.dumps(data))
    cli(home, "uninstall", "--harness", "cursor")
    assert json.loads(path.read_text())["hooks"] == {"stop": [{"command": "./mine.sh"}]}


def test_one_backup_per_file(tmp_path):
    home = str(tmp_path)
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    mine = b'{"model": "opus"}\n'
    path.write_bytes(mine)
    for _ in range(3):
        cli(home, "install", "--harness", "claude-code")
        cli(home, "install", "--harness", "claude-code")
        cli(home, "uninstall", "--harness", "claude-code")
        assert path.read_bytes() == mine
    backups = [n for n in os.listdir(path.parent) if "jevlin-backup" in n]
    assert backups == ["settings.json.jevlin-backup"]
    assert (path.parent / backups[0]).read_bytes() == mine  # the newest: before the last change
