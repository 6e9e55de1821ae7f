from __future__ import annotations

import os
import subprocess
import sys

from jevlin_hooks import installkit


def doctor(home, codex_home):
    env = dict(os.environ, HOME=str(home), JEVLIN_HOME=str(home / ".jevlin"), CODEX_HOME=str(codex_home),
               PATH="/usr/bin:/bin")
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "doctor"], env=env, capture_output=True, text=True)


def test_doctor_reports_each_problem_with_its_fix(tmp_path):
    ch = tmp_path / ".codex"
    ch.mkdir()
    (tmp_path / ".claude").mkdir()
    p = doctor(tmp_path, ch)
    assert p.returncode == 1
    assert "claude-code: found, hooks not installed; run `jevlin-hooks install --harness claude-code`" in p.stdout
    assert "codex: found, hooks not installed" in p.stdout
    env = dict(os.environ, HOME=str(tmp_path), JEVLIN_HOME=str(tmp_path / ".jevlin"), CODEX_HOME=str(ch))
    subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "install", "--harness", "all"], env=env, check=True,
                   capture_output=True)
    p = doctor(tmp_path, ch)
    assert "claude-code: hooks installed for all 13 events" in p.stdout
    assert "not trusted yet" in p.stdout and "/hooks" in p.stdout
    # What Codex's /hooks writes when the user approves: a trusted_hash per handler.
    import json

    hooks = json.load(open(ch / "hooks.json"))["hooks"]
    lines = []
    for event, groups in hooks.items():
        for gi, g in enumerate(groups):
            for hi, h in enumerate(g["hooks"]):
                if installkit.is_ours(h):
                    snake = "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")
                    lines.append(f'[hooks.state."{ch}/hooks.json:{snake}:{gi}:{hi}"]\ntrusted_hash = "sha256:abc"\n')
    (ch / "config.toml").write_text("".join(lines))
    p = doctor(tmp_path, ch)
    assert "our hooks are trusted" in p.stdout
    os.makedirs(tmp_path / ".jevlin" / "state", exist_ok=True)
    (tmp_path / ".jevlin" / "state" / "key").write_bytes(b"k" * 32)
    os.chmod(tmp_path / ".jevlin" / "state" / "key", 0o644)
    p = doctor(tmp_path, ch)
    assert "readable by others; run `chmod 600" in p.stdout and p.returncode == 1
    assert all(line[:4] in ("ok  ", "!!  ") for line in p.stdout.splitlines())
