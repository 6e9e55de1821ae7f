"""`jevlin-hooks install|uninstall --harness claude-code` on real settings files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.claude_code import install as claude_install
from jevlin_hooks.harnesses.codex import install as codex_install
from jevlin_hooks.harnesses.cursor import install as cursor_install

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
    for event in claude_install.EVENTS:
        ours = [h for g in data["hooks"][event] for h in g["hooks"] if installkit.is_ours(h)]
        assert len(ours) == 1 and ours[0]["args"][-1] == "claude-code" and "async" not in ours[0]
        assert ours[0]["timeout"] <= 10
    first = path.read_bytes()
    p = cli(str(user), "install")
    assert "already up to date" in p.stdout and path.read_bytes() == first
    assert [n for n in os.listdir(user / ".claude") if "jevlin-backup" in n] == ["settings.json.jevlin-backup"]
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
    assert cli(str(h), "install", "--harness", "claude-code").returncode == 0
    assert (h / ".claude" / "settings.json").exists()
    assert cli(str(h), "uninstall", "--harness", "claude-code").returncode == 0
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


# --- Codex and Cursor -------------------------------------------------------------------------

CODEX_HOOKS = """{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "uvx codhc ruff check --fix",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
"""
CODEX_CONFIG = """# my codex config
model = "gpt-5.1-codex"
notify = ["notify-send", "codex"]

[profiles.work]
approval_policy = "on-request"
"""
CURSOR_HOOKS = """{
  "version": 1,
  "hooks": {
    "afterFileEdit": [
      {
        "command": "./hooks/format.sh"
      }
    ]
  }
}
"""


def codex_cli(home, codex_home, *args):
    env = dict(os.environ, HOME=str(home), JEVLIN_HOME=str(home / ".jevlin"), CODEX_HOME=str(codex_home))
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=env, capture_output=True, text=True)


def test_codex_round_trip_with_notify_chain(tmp_path):
    ch = tmp_path / "codex"
    ch.mkdir()
    (ch / "hooks.json").write_text(CODEX_HOOKS)
    (ch / "config.toml").write_text(CODEX_CONFIG)
    p = codex_cli(tmp_path, ch, "install", "--harness", "codex", "--notify")
    assert p.returncode == 1 and "notify already runs 'notify-send'" in p.stderr and "--chain" in p.stderr
    assert (ch / "config.toml").read_text() == CODEX_CONFIG and (ch / "hooks.json").read_text() == CODEX_HOOKS
    p = codex_cli(tmp_path, ch, "install", "--harness", "codex", "--notify", "--chain")
    assert p.returncode == 0 and "/hooks" in p.stdout, p.stderr
    import tomllib

    cfg = tomllib.loads((ch / "config.toml").read_text())
    assert cfg["model"] == "gpt-5.1-codex" and cfg["profiles"]["work"]["approval_policy"] == "on-request"
    assert cfg["notify"][-4:] == ["codex-notify", "--then", "notify-send", "codex"]
    hooks = json.loads((ch / "hooks.json").read_text())["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["command"] == "uvx codhc ruff check --fix"
    assert {e for e in hooks} >= set(codex_install.EVENTS)
    assert all(h["timeout"] <= 3 for g in hooks["SessionEnd"] for h in g["hooks"] if installkit.is_ours(h))
    first = ((ch / "hooks.json").read_bytes(), (ch / "config.toml").read_bytes())
    p = codex_cli(tmp_path, ch, "install", "--harness", "codex", "--notify", "--chain")
    assert p.returncode == 0 and ((ch / "hooks.json").read_bytes(), (ch / "config.toml").read_bytes()) == first
    p = codex_cli(tmp_path, ch, "uninstall", "--harness", "codex")
    assert p.returncode == 0, p.stderr
    assert (ch / "hooks.json").read_text() == CODEX_HOOKS and (ch / "config.toml").read_text() == CODEX_CONFIG


def test_codex_unparsable_config_is_left_alone(tmp_path):
    ch = tmp_path / "codex"
    ch.mkdir()
    (ch / "config.toml").write_text("notify = [")
    p = codex_cli(tmp_path, ch, "install", "--harness", "codex", "--notify")
    assert p.returncode == 1 and "not valid TOML" in p.stderr and (ch / "config.toml").read_text() == "notify = ["
    assert not (ch / "hooks.json").exists(), "nothing is written when any part cannot be"


def test_cursor_round_trip_user_and_project(tmp_path):
    (tmp_path / ".cursor").mkdir()
    path = tmp_path / ".cursor" / "hooks.json"
    path.write_text(CURSOR_HOOKS)
    p = cli(str(tmp_path), "install", "--harness", "cursor")
    assert p.returncode == 0, p.stderr
    data = json.loads(path.read_text())
    assert data["version"] == 1 and data["hooks"]["afterFileEdit"] == [{"command": "./hooks/format.sh"}]
    assert set(cursor_install.EVENTS) <= set(data["hooks"])
    assert all("cursor" in h["command"] for e in cursor_install.EVENTS for h in data["hooks"][e])
    assert cli(str(tmp_path), "install", "--harness", "cursor").stdout.count("already up to date") == 1
    assert cli(str(tmp_path), "uninstall", "--harness", "cursor").returncode == 0
    assert path.read_text() == CURSOR_HOOKS
    proj = tmp_path / "proj"
    proj.mkdir()
    assert cli(str(tmp_path), "install", "--harness", "cursor", "--project", str(proj)).returncode == 0
    assert (proj / ".cursor" / "hooks.json").exists() and path.read_text() == CURSOR_HOOKS


def test_install_all_dry_run(tmp_path):
    p = codex_cli(tmp_path, tmp_path / "codex", "install", "--harness", "all", "--dry-run")
    assert p.returncode == 0 and p.stdout.count("(after)") == 8, "claude-code, codex, cursor, hermes (2), pi, gemini-cli, copilot-cli"
    assert "extensions/jevlin-hooks.js (after)" in p.stdout and "shell-hooks-allowlist.json (after)" in p.stdout
    assert ".gemini/settings.json (after)" in p.stdout and ".copilot/hooks/jevlin.json (after)" in p.stdout
    assert not (tmp_path / ".claude").exists() and not (tmp_path / ".cursor").exists()
    assert not (tmp_path / ".pi").exists() and not (tmp_path / ".hermes").exists() and not (tmp_path / ".gemini").exists()
    assert not (tmp_path / ".copilot").exists()


def test_install_without_harness_uses_what_is_found(tmp_path):
    """No --harness: the harnesses found on this machine, named in the output; never silently
    only Claude Code."""
    h = tmp_path / "home"
    (h / ".codex").mkdir(parents=True)
    env = dict(os.environ, HOME=str(h), JEVLIN_HOME=str(h / ".jevlin"), PATH="/usr/bin:/bin", CODEX_HOME=str(h / ".codex"))
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "install"], env=env, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("found: codex (") and "not found: claude-code" in p.stdout
    assert (h / ".codex" / "hooks.json").exists()
    assert not (h / ".claude").exists()


def test_install_without_harness_and_nothing_found(tmp_path):
    env = dict(os.environ, HOME=str(tmp_path), JEVLIN_HOME=str(tmp_path / ".jevlin"), PATH="/usr/bin:/bin")
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "install"], env=env, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 1 and "no harness found" in p.stderr and p.stderr.count("\n") == 1
    assert os.listdir(tmp_path) == []


def test_grouped_hooks_take_the_harness_matchers(tmp_path, monkeypatch):
    """plan_grouped with a harness's own matchers (a regex for its tool events, none for the
    rest) beside the user's hooks; removing ours leaves the user's file as it was."""
    monkeypatch.setenv("JEVLIN_HOME", str(tmp_path / ".jevlin"))
    path = tmp_path / "settings.json"
    path.write_text('{"hooks": {"AfterTool": [{"matcher": "x", "hooks": [{"type": "command", "command": "mine"}]}]}}\n')
    change = installkit.plan_grouped(str(path), False, ("BeforeAgent", "AfterTool"),
                                     lambda e: {"type": "command", "command": installkit.shell_command("h")},
                                     matchers={"AfterTool": "run_shell_command|web_search"})
    hooks = json.loads(change.after)["hooks"]
    assert hooks["BeforeAgent"] == [{"hooks": [{"type": "command", "command": installkit.shell_command("h")}]}]
    assert [g.get("matcher") for g in hooks["AfterTool"]] == ["x", "run_shell_command|web_search"]
    path.write_bytes(change.after)
    removed = installkit.plan_grouped(str(path), True, ("BeforeAgent", "AfterTool"), lambda e: {})
    assert json.loads(removed.after) == {"hooks": {"AfterTool": [{"matcher": "x", "hooks": [
        {"type": "command", "command": "mine"}]}]}}
