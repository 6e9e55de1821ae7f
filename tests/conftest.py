from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))

from jevlin_hooks import replay
from jevlin_hooks.base import spool  # noqa: E402
from jevlin_hooks.capture import lineage

# Random-value tests draw fresh values on every local run (that is how they find what no one
# thought of); on CI (CI set, to anything, as every CI service sets it) they draw the same values
# each run, so that a red build is the code's doing and can be run again, and a failure prints
# the blob that replays it (@reproduce_failure). No example database there: it would make runs
# differ again. (Recent hypothesis loads a profile like it by itself; older ones do not.)
settings.register_profile("ci", derandomize=True, print_blob=True, database=None)
if "CI" in os.environ:
    settings.load_profile("ci")

# No test process may leave a daemon behind: hooks do not autostart one unless a test asks.
os.environ["JEVLIN_DAEMON_AUTOSTART"] = "0"

# A hook that cannot write its home counts the lost event in a file outside it, under
# $XDG_RUNTIME_DIR first (base/lost.py): keep the tests' counts out of the user's own directories.
_RUNTIME = __import__("tempfile").mkdtemp(prefix="jevlin-test-runtime-")
os.environ["XDG_RUNTIME_DIR"] = _RUNTIME
atexit.register(shutil.rmtree, _RUNTIME, True)

# Hooks started by pytest would name pytest (their parent) as the agent process, and every
# context lookup from a pytest child would then match by ancestry. They name this stand-in.
FAKE_AGENT = subprocess.Popen(["sleep", "86400"])
atexit.register(FAKE_AGENT.kill)

PROBE_CONFIG = """\
[miner]
turn_end = true
[search]
shell_commands = ["jevlin search", "/opt/probe/tool_probe.sh"]
[daemon]
autostart = false
"""


NO_AUTOSTART = "[daemon]\nautostart = false\n"


@pytest.fixture
def home(tmp_path: Any) -> str:
    """A fresh JEVLIN_HOME with default config, except that hooks do not start a daemon (a test
    that wants one starts it and stops it)."""
    h = str(tmp_path / "jhome")
    os.makedirs(h, mode=0o700)
    with open(os.path.join(h, "config.toml"), "w") as f:
        f.write(NO_AUTOSTART)
    return h


@pytest.fixture
def probe_home(home: str) -> str:
    """A home that writes turn ends and counts `jevlin search` (the bundled captures' searches) and
    the probe script of older hand-made payloads as search commands."""
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(PROBE_CONFIG)
    return home


def states(home: str) -> dict[str, dict[str, Any]]:
    return {n: lineage.read(home, n) for n in lineage.list_names(home)}  # type: ignore[misc]


def state_of(home: str, session_id: str, harness: str = "claude-code") -> dict[str, Any]:
    st = lineage.read(home, lineage.file_name(harness, session_id))
    assert st is not None, f"no lineage for {session_id}"
    return st


def queued(home: str, kind: str | None = None) -> list[dict[str, Any]]:
    return [r for r in spool.read_all(home) if kind is None or r["kind"] == kind]


# Scenarios run in-process through the hook's own entry function (replay.run_hook_inprocess):
# the same code and records as a process (test_inprocess.py checks that), several times faster.
# What only a process shows (stdin, exit codes, imports under -I -S, concurrency, signals) uses
# run_process. JEVLIN_TEST_SUBPROCESS=1 runs everything as processes, to compare.
INPROCESS = os.environ.get("JEVLIN_TEST_SUBPROCESS", "") in ("", "0")
run_hook = replay.run_hook_inprocess if INPROCESS else replay.run_hook


def run(home: str, payload: Any, harness: str = "claude-code", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    p = run_hook(home, payload, harness, env={"CLAUDE_PID": str(FAKE_AGENT.pid), **(env or {})})
    assert p.returncode == 0, p.stderr
    assert p.stdout == b"", p.stdout
    return p


def run_process(home: str, payload: Any, harness: str = "claude-code", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    p = replay.run_hook(home, payload, harness, env={"CLAUDE_PID": str(FAKE_AGENT.pid), **(env or {})})
    assert p.returncode == 0, p.stderr
    assert p.stdout == b"", p.stdout
    return p


def replay_scenario(home: str, scenario: str, root: str, harness: str = "claude-code") -> list[subprocess.CompletedProcess[bytes]]:
    return replay.replay(home, scenario, root, harness, inprocess=INPROCESS)


def hook_errors(home: str) -> str:
    try:
        with open(os.path.join(home, "logs", "hook.log")) as f:
            return f.read()
    except FileNotFoundError:
        return ""


@contextlib.contextmanager
def readonly_copy(src: str | None, dest: str) -> Iterator[str]:
    """``dest`` holding a copy of ``src``, made unwritable even for root (a read-only mount)."""
    os.makedirs(dest, exist_ok=True)
    if os.geteuid() != 0:
        if src:
            shutil.copytree(src, dest, dirs_exist_ok=True)
        for root, dirs, _ in os.walk(dest):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o500)
        os.chmod(dest, 0o500)
        try:
            yield dest
        finally:
            for root, _dirs, _ in os.walk(dest):
                os.chmod(root, 0o700)
        return
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", dest]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        if src:
            shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True)
        subprocess.run(["mount", "-o", "remount,ro", dest], check=True)
        yield dest
    finally:
        subprocess.run(["umount", "-l", dest])


def dumps(obj: Any) -> bytes:
    return json.dumps(obj).encode()
