"""`jevlin-hooks install|uninstall --harness hermes` on real files: config.yaml merged round-trip,
consent recorded in Hermes's allowlist, in the home and every profile home; `doctor` on drift."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from jevlin_hooks.harnesses.hermes import install as install_hermes

USER_CONFIG = """\
# my Hermes settings
model:
  provider: custom   # the local one
  default: "fake-model"
hooks:
  pre_tool_call:
    - command: "/usr/local/bin/my-guard.sh"   # keep me
      matcher: "terminal"
      timeout: 3
  on_session_end:
    - command: /usr/local/bin/notify-done
agent:
  api_max_retries: 0   # no retries
"""
USER_ALLOWLIST = json.dumps({"approvals": [{
    "approved_at": "2026-11-01T10:00:00.000000Z", "command": "/usr/local/bin/my-guard.sh",
    "event": "pre_tool_call", "script_mtime_at_approval": None}]}, indent=2, sort_keys=True)


def cli(home: Any, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    e.update(HOME=str(home), JEVLIN_HOME=str(home / ".jevlin"), **env)
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=e, capture_output=True, text=True)


def user_home(tmp_path: Any, profiles: tuple[str, ...] = ()) -> Any:
    hh = tmp_path / ".hermes"
    hh.mkdir()
    (hh / "config.yaml").write_text(USER_CONFIG)
    (hh / "shell-hooks-allowlist.json").write_text(USER_ALLOWLIST)
    for name in profiles:
        (hh / "profiles" / name).mkdir(parents=True)
    return hh


def ours(path: Any) -> dict[str, list[dict[str, Any]]]:
    data = install_hermes._yaml().load(path.read_text())
    return {e: [h for h in hs if install_hermes.is_ours(h)] for e, hs in data["hooks"].items()
            if any(install_hermes.is_ours(h) for h in hs)}


def test_round_trip_keeps_the_users_hooks_comments_and_approvals(tmp_path):
    hh = user_home(tmp_path, profiles=("work",))
    p = cli(tmp_path, "install", "--harness", "hermes")
    assert p.returncode == 0 and "allowlist" in p.stdout, p.stderr
    text = (hh / "config.yaml").read_text()
    assert text.startswith(USER_CONFIG.split("hooks:")[0]), "everything before hooks: unchanged"
    assert '- command: "/usr/local/bin/my-guard.sh"   # keep me' in text and "# no retries" in text
    found = ours(hh / "config.yaml")
    assert set(found) == set(install_hermes.EVENTS) and "pre_api_request" not in found
    cmds = {h["command"] for hs in found.values() for h in hs}
    assert cmds == {install_hermes.command()} and all(len(hs) == 1 for hs in found.values())
    for event in install_hermes.TOOL_EVENTS:
        assert found[event][0]["matcher"] == "terminal|delegate_task|WebSearch|web_search|google_web_search|mcp__jevlin__.*|mcp_jevlin_.*"
    assert "matcher" not in found["pre_llm_call"][0]
    allow = json.loads((hh / "shell-hooks-allowlist.json").read_text())["approvals"]
    assert allow[0]["command"] == "/usr/local/bin/my-guard.sh"
    assert {(a["event"], a["command"]) for a in allow[1:]} == {(e, install_hermes.command()) for e in install_hermes.EVENTS}
    assert all(set(a) == {"event", "command", "approved_at", "script_mtime_at_approval"} for a in allow)
    assert "hooks_auto_accept" not in text
    # the profile home got the same, from a config that did not exist
    assert set(ours(hh / "profiles" / "work" / "config.yaml")) == set(install_hermes.EVENTS)
    # a second install changes nothing: the command (Hermes's consent key) stays byte-identical
    before = {f: f.read_bytes() for f in (hh / "config.yaml", hh / "shell-hooks-allowlist.json")}
    p = cli(tmp_path, "install", "--harness", "hermes")
    assert p.returncode == 0 and p.stdout.count("already up to date") == 4, p.stdout
    assert {f: f.read_bytes() for f in before} == before
    p = cli(tmp_path, "uninstall", "--harness", "hermes")
    assert p.returncode == 0, p.stderr
    assert (hh / "config.yaml").read_text() == USER_CONFIG
    assert (hh / "shell-hooks-allowlist.json").read_text() == USER_ALLOWLIST
    assert not (hh / "profiles" / "work" / "config.yaml").exists()
    assert not (hh / "profiles" / "work" / "shell-hooks-allowlist.json").exists()


def test_uninstall_after_the_user_edited_removes_only_ours(tmp_path):
    hh = user_home(tmp_path)
    assert cli(tmp_path, "install", "--harness", "hermes").returncode == 0
    with open(hh / "config.yaml", "a") as f:
        f.write("display:\n  skin: dark   # added after install\n")
    allow = json.loads((hh / "shell-hooks-allowlist.json").read_text())
    allow["approvals"].append({"event": "post_tool_call", "command": "/opt/other.sh", "approved_at": "x",
                               "script_mtime_at_approval": None})
    (hh / "shell-hooks-allowlist.json").write_text(json.dumps(allow, indent=2, sort_keys=True))
    assert cli(tmp_path, "uninstall", "--harness", "hermes").returncode == 0
    assert (hh / "config.yaml").read_text() == USER_CONFIG + "display:\n  skin: dark   # added after install\n"
    left = json.loads((hh / "shell-hooks-allowlist.json").read_text())["approvals"]
    assert [a["command"] for a in left] == ["/usr/local/bin/my-guard.sh", "/opt/other.sh"]


def test_hermes_home_variable_and_unparsable_yaml_refused(tmp_path):
    elsewhere = tmp_path / "hh"
    elsewhere.mkdir()
    (elsewhere / "config.yaml").write_text("model: [unclosed\n")
    p = cli(tmp_path, "install", "--harness", "hermes", HERMES_HOME=str(elsewhere))
    assert p.returncode == 1 and "not valid YAML" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert (elsewhere / "config.yaml").read_text() == "model: [unclosed\n"
    assert not (elsewhere / "shell-hooks-allowlist.json").exists(), "nothing is written when any part cannot be"
    (elsewhere / "config.yaml").write_text("model: {default: m}\n")
    assert cli(tmp_path, "install", "--harness", "hermes", HERMES_HOME=str(elsewhere)).returncode == 0
    assert set(ours(elsewhere / "config.yaml")) == set(install_hermes.EVENTS)
    assert not (tmp_path / ".hermes").exists()


def test_doctor_reports_installed_approved_and_consent_drift(tmp_path):
    hh = user_home(tmp_path)
    p = cli(tmp_path, "doctor")
    assert "hermes: found, hooks not installed" in p.stdout
    cli(tmp_path, "install", "--harness", "hermes")
    p = cli(tmp_path, "doctor")
    assert "ok  hermes: hooks installed for all 10 events" in p.stdout
    assert "ok  hermes: our hooks are approved" in p.stdout
    # consent is keyed by the exact command: an approval of another command (an older install's
    # interpreter path) does not approve this one
    path = hh / "shell-hooks-allowlist.json"
    allow = json.loads(path.read_text())
    allow["approvals"][1]["command"] = "/old/venv/bin/python3 -I -S /old/jevlin_hooks/capture/entry.py hermes"
    path.write_text(json.dumps(allow))
    p = cli(tmp_path, "doctor")
    assert "hermes: 1 of our hooks not approved" in p.stdout and "consent drift" in p.stdout
    assert p.returncode == 1
    assert cli(tmp_path, "install", "--harness", "hermes").returncode == 0
    assert "ok  hermes: our hooks are approved" in cli(tmp_path, "doctor").stdout
