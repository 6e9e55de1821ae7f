"""`jevlin-hooks install|uninstall --harness claude-code` on real settings files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jevlin_hooks import install

USER_SETTINGS = """{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(git status)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/my-guard"
          }
        ]
      }
    ]
  },
  "env": {
    "FOO": "1"
  }
}
"""


def cli(home: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=home, JEVLIN_HOME=os.path.join(home, ".jevlin"))
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=env, capture_output=True, text=True)


@pytest.fixture
def user(tmp_path):
    h = tmp_path / "user"
    (h / ".claude").mkdir(parents=True)
    (h / ".claude" / "settings.json").write_text(USER_SETTINGS)
    return h


def test_round_trip_is_byte_identical(user):
    path = user / ".claude" / "settings.json"
    p = cli(str(user), "install")
    assert p.returncode == 0, p.stderr
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["env"] == {"FOO": "1"}
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "/usr/local/bin/my-guard"
    for event in install.CLAUDE_EVENTS:
        ours = [h for g in data["hooks"][event] for h in g["hooks"] if install._is_ours(h)]
        assert len(ours) == 1 and ours[0]["args"][-1] == "claude-code" and "async" not in ours[0]
        assert ours[0]["timeout"] <= 10
    first = path.read_bytes()
    p = cli(str(user), "install")
    assert "already up to date" in p.stdout and path.read_bytes() == first
    assert any(n.startswith("settings.json.jevlin-backup-") for n in os.listdir(user / ".claude"))
    assert cli(str(user), "uninstall").returncode == 0
    assert path.read_text() == USER_SETTINGS


def test_uninstall_after_user_edit_keeps_their_edit(user):
    path = user / ".claude" / "settings.json"
    cli(str(user), "install")
    data = json.loads(path.read_text())
    data["theme"] = "dark"
    path.write_text(json.dumps(data, indent=2))
    assert cli(str(user), "uninstall").returncode == 0
    after = json.loads(path.read_text())
    assert after["theme"] == "dark" and "jevlin_hooks" not in path.read_text()
    assert after["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "/usr/local/bin/my-guard"


def test_install_into_missing_file_and_remove_it_again(tmp_path):
    h = tmp_path / "fresh"
    h.mkdir()
    assert cli(str(h), "install").returncode == 0
    assert (h / ".claude" / "settings.json").exists()
    assert cli(str(h), "uninstall").returncode == 0
    assert not (h / ".claude" / "settings.json").exists()


def test_dry_run_writes_nothing(user):
    path = user / ".claude" / "settings.json"
    p = cli(str(user), "install", "--dry-run")
    assert p.returncode == 0 and "+" in p.stdout and "entry.py" in p.stdout
    assert path.read_text() == USER_SETTINGS


def test_unparsable_settings_left_untouched(user):
    path = user / ".claude" / "settings.json"
    path.write_text("{ not json")
    p = cli(str(user), "install")
    assert p.returncode == 1 and "not valid JSON" in p.stderr and p.stderr.count("\n") == 1
    assert path.read_text() == "{ not json"


def test_project_settings(tmp_path, user):
    proj = tmp_path / "proj"
    proj.mkdir()
    env_home = str(user)
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "install", "--project", str(proj)],
                       env=dict(os.environ, HOME=env_home, JEVLIN_HOME=os.path.join(env_home, ".jevlin")),
                       capture_output=True, text=True)
    assert p.returncode == 0
    assert "jevlin_hooks" in (proj / ".claude" / "settings.json").read_text()
    assert (user / ".claude" / "settings.json").read_text() == USER_SETTINGS
