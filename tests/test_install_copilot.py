"""`jevlin-hooks install|uninstall --harness copilot-cli` and doctor's Copilot section, on a real
Copilot home: one file of ours in its hooks directory, nothing else touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.copilot_cli import install as install_copilot

NOT_OURS = "is not ours"


def cli(home: str, *args: str, copilot_home: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COPILOT_HOME"}
    env.update(HOME=home, JEVLIN_HOME=os.path.join(home, ".jevlin"), PATH="/usr/bin:/bin")
    if copilot_home:
        env["COPILOT_HOME"] = copilot_home
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=env, capture_output=True, text=True)


def snapshot(root: str) -> dict[str, bytes]:
    """Every directory and file under root, with its bytes and mode."""
    out: dict[str, bytes] = {}
    for d, dirs, files in os.walk(root):
        for name in dirs:
            out[os.path.relpath(os.path.join(d, name), root) + "/"] = oct(os.stat(os.path.join(d, name)).st_mode).encode()
        for name in files:
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read() + oct(os.stat(path).st_mode).encode()
    return out


@pytest.fixture
def user(tmp_path):
    """A Copilot user with settings, a hooks file of their own and a session."""
    ch = tmp_path / "user" / ".copilot"
    (ch / "hooks").mkdir(parents=True)
    (ch / "session-state" / "abc").mkdir(parents=True)
    (ch / "settings.json").write_text('{\n  "model": "claude-sonnet-4.6",\n  "hooks": {}\n}\n')
    (ch / "hooks" / "lint.json").write_text('{"version": 1, "hooks": {"postToolUse": '
                                             '[{"type": "command", "bash": "./lint.sh"}]}}\n')
    (ch / "session-state" / "abc" / "events.jsonl").write_text('{"type": "session.start"}\n')
    return tmp_path / "user"


def test_round_trip_leaves_the_copilot_home_byte_identical(user):
    ch = user / ".copilot"
    before = snapshot(str(ch))
    p = cli(str(user), "install", "--harness", "copilot-cli")
    assert p.returncode == 0, p.stderr
    path = ch / "hooks" / "jevlin.json"
    assert f"installed hooks in {path}" in p.stdout and "next: start a new `copilot` session" in p.stdout and "trust" in p.stdout
    assert "backup" not in p.stdout, "nothing of the user's to back up"
    data = json.loads(path.read_text())
    assert data["version"] == 1 and list(data["hooks"]) == list(install_copilot.EVENTS)
    for event, actions in data["hooks"].items():
        (action,) = actions
        assert action["type"] == "command" and action["timeoutSec"] == installkit.TIMEOUT_S
        assert action["bash"].endswith(f"{installkit.ENTRY} copilot-cli {event}") and "-I -S" in action["bash"]
    changed = {k for k, v in snapshot(str(ch)).items() if before.get(k) != v}
    assert changed == {"hooks/jevlin.json"}, "no file of the user's is touched"
    assert "already up to date" in cli(str(user), "install", "--harness", "copilot-cli").stdout
    p = cli(str(user), "uninstall", "--harness", "copilot-cli")
    assert p.returncode == 0 and "removed our hooks from" in p.stdout, p.stderr
    assert snapshot(str(ch)) == before
    assert "no hooks of ours to remove" in cli(str(user), "uninstall", "--harness", "copilot-cli").stdout


def test_install_on_a_fresh_machine_and_uninstall_leave_nothing(tmp_path):
    p = cli(str(tmp_path), "install", "--harness", "copilot-cli")
    assert p.returncode == 0 and (tmp_path / ".copilot" / "hooks" / "jevlin.json").exists(), p.stderr
    assert cli(str(tmp_path), "uninstall", "--harness", "copilot-cli").returncode == 0
    assert not (tmp_path / ".copilot").exists(), "the directories install made go with it"


def test_dry_run_writes_nothing(user):
    before = snapshot(str(user))
    p = cli(str(user), "install", "--harness", "copilot-cli", "--dry-run")
    assert p.returncode == 0 and "jevlin.json (after)" in p.stdout and '"preToolUse"' in p.stdout
    assert snapshot(str(user)) == before


def test_a_file_of_that_name_not_ours_is_left_alone(user):
    path = user / ".copilot" / "hooks" / "jevlin.json"
    path.write_text('{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "./mine.sh"}]}}\n')
    before = path.read_bytes()
    for cmd in ("install", "uninstall"):
        p = cli(str(user), cmd, "--harness", "copilot-cli")
        assert p.returncode == 1 and NOT_OURS in p.stderr and p.stderr.count("\n") == 1
        assert path.read_bytes() == before


def test_copilot_home_and_project(tmp_path):
    ch = tmp_path / "elsewhere"
    p = cli(str(tmp_path), "install", "--harness", "copilot-cli", copilot_home=str(ch))
    assert p.returncode == 0 and (ch / "hooks" / "jevlin.json").exists() and not (tmp_path / ".copilot").exists()
    proj = tmp_path / "proj"
    proj.mkdir()
    p = cli(str(tmp_path), "install", "--harness", "copilot-cli", "--project", str(proj))
    assert p.returncode == 0 and (proj / ".github" / "hooks" / "jevlin.json").exists(), p.stderr
    assert cli(str(tmp_path), "uninstall", "--harness", "copilot-cli", "--project", str(proj)).returncode == 0
    assert os.listdir(proj) == []


def test_an_older_install_is_replaced(user):
    """A file of ours from another interpreter or version: install rewrites it, doctor says so first."""
    path = user / ".copilot" / "hooks" / "jevlin.json"
    assert cli(str(user), "install", "--harness", "copilot-cli").returncode == 0
    path.write_text(path.read_text().replace(sys.executable, "/opt/old/bin/python3"))
    out = cli(str(user), "doctor").stdout
    assert "!!  copilot-cli: hooks from another version or interpreter" in out
    assert cli(str(user), "install", "--harness", "copilot-cli").returncode == 0
    assert path.read_bytes() == install_copilot.render()


def doctor_lines(home: str) -> list[str]:
    return [line for line in cli(home, "doctor").stdout.splitlines() if "copilot-cli" in line]


def test_doctor_says_what_is_wrong_and_how_to_fix_it(user):
    ch = user / ".copilot"
    assert doctor_lines(str(user)) == [
        "!!  copilot-cli: found, hooks not installed; run `jevlin-hooks install --harness copilot-cli`"]
    assert cli(str(user), "install", "--harness", "copilot-cli").returncode == 0
    (ok,) = doctor_lines(str(user))
    assert ok.startswith("ok  copilot-cli: hooks installed for all 10 events") and "need no folder trust" in ok
    path = ch / "hooks" / "jevlin.json"
    data = json.loads(path.read_text())
    del data["hooks"]["postToolUse"]
    path.write_text(json.dumps(data))
    (missing,) = doctor_lines(str(user))
    assert missing.startswith("!!  copilot-cli: 1 event(s) without our hook (postToolUse)")
    path.write_text("{")
    (bad,) = doctor_lines(str(user))
    assert bad.startswith(f"!!  copilot-cli: {path} is not ours")


def test_doctor_is_silent_without_copilot(tmp_path):
    assert doctor_lines(str(tmp_path)) == []
