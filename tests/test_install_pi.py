"""`jevlin-hooks install|uninstall --harness pi` and doctor's Pi section, on a real agent dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.pi import install as install_pi


def cli(home: str, *args: str, agent_dir: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PI_CODING_AGENT_DIR"}
    env.update(HOME=home, JEVLIN_HOME=os.path.join(home, ".jevlin"), PATH="/usr/bin:/bin")
    if agent_dir:
        env["PI_CODING_AGENT_DIR"] = agent_dir
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=env, capture_output=True, text=True)


def snapshot(root: str) -> dict[str, bytes | None]:
    """Every directory and file under root, with its bytes and mode."""
    out: dict[str, bytes | None] = {}
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
    agent = tmp_path / "user" / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.json").write_text('{"providers": {}}\n')
    (agent / "settings.json").write_text('{"defaultProvider": "anthropic",\n "theme": "dark"}\n')
    return tmp_path / "user"


@pytest.mark.parametrize("with_extensions", [False, True])
def test_round_trip_leaves_the_agent_dir_byte_identical(user, with_extensions):
    agent = user / ".pi" / "agent"
    if with_extensions:
        (agent / "extensions").mkdir()
        (agent / "extensions" / "mine.ts").write_text("export default function (pi) {}\n")
    before = snapshot(str(agent))
    p = cli(str(user), "install", "--harness", "pi")
    assert p.returncode == 0, p.stderr
    assert "pi --no-extensions" in p.stdout
    path = agent / "extensions" / "jevlin-hooks.js"
    text = path.read_text()
    assert text.startswith(install_pi.MARK)
    assert json.dumps(os.path.realpath(sys.executable)) in text and json.dumps(installkit.ENTRY) in text
    assert "__JEVLIN_" not in text
    imports = [line for line in text.splitlines() if line.startswith("import ")]
    assert imports and all('from "node:' in line for line in imports), "node: built-ins only"
    changed = {k for k in snapshot(str(agent)) if snapshot(str(agent)).get(k) != before.get(k)}
    assert changed <= {"extensions/jevlin-hooks.js", "extensions/"}, "nothing else in the agent dir is touched"
    p2 = cli(str(user), "install", "--harness", "pi")
    assert "already up to date" in p2.stdout
    p = cli(str(user), "uninstall", "--harness", "pi")
    assert p.returncode == 0, p.stderr
    assert snapshot(str(agent)) == before


def test_agent_dir_from_the_environment_and_project(tmp_path):
    agent = tmp_path / "elsewhere"
    p = cli(str(tmp_path), "install", "--harness", "pi", agent_dir=str(agent))
    assert p.returncode == 0 and (agent / "extensions" / "jevlin-hooks.js").exists()
    proj = tmp_path / "proj"
    proj.mkdir()
    p = cli(str(tmp_path), "install", "--harness", "pi", "--project", str(proj))
    assert p.returncode == 0 and (proj / ".pi" / "extensions" / "jevlin-hooks.js").exists()
    cli(str(tmp_path), "uninstall", "--harness", "pi", "--project", str(proj))
    assert os.listdir(proj) == []


def test_a_file_of_someone_else_under_our_name_is_left_alone(user):
    ext = user / ".pi" / "agent" / "extensions"
    ext.mkdir()
    (ext / "jevlin-hooks.js").write_text("// not ours\n")
    for cmd in ("install", "uninstall"):
        p = cli(str(user), cmd, "--harness", "pi")
        assert p.returncode != 0 and "not ours" in p.stderr
    assert (ext / "jevlin-hooks.js").read_text() == "// not ours\n"


def test_doctor_pi_section(user):
    p = cli(str(user), "doctor")
    assert "pi: found, extension not installed; run `jevlin-hooks install --harness pi`" in p.stdout
    cli(str(user), "install", "--harness", "pi")
    p = cli(str(user), "doctor")
    assert "ok  pi: extension installed in" in p.stdout and "pi --no-extensions" in p.stdout
    path = user / ".pi" / "agent" / "extensions" / "jevlin-hooks.js"
    path.write_text(path.read_text().replace(installkit.ENTRY, "/gone/entry.py"))
    p = cli(str(user), "doctor")
    assert "!!  pi: the extension points at another install" in p.stdout and p.returncode == 1
