"""The harness registry (jevlin_hooks/harnesses/__init__.py): every registered harness has
every part where the registry says, and the hook entry point, install, doctor and the CLI all
name the same harnesses. mypy checks the parts' signatures (each folder's __init__.py); this
checks what mypy cannot: that the registry's names lead to them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jevlin_hooks import harnesses, install, installkit
from jevlin_hooks.capture import hook

CAPTURE = ("NAME", "normalize", "answer", "route", "enrich", "history_for", "from_env", "read_payload",
           "neutral_answer")


@pytest.mark.parametrize("name", harnesses.HARNESSES)
def test_each_harness_has_its_parts_in_its_folder(name):
    spec = harnesses.spec(name)
    cap = harnesses.capture(name)
    assert cap.__name__ == f"jevlin_hooks.harnesses.{spec.folder}.capture" and cap.NAME == name
    assert all(callable(getattr(cap, f)) for f in CAPTURE[1:])
    inst = harnesses.installer(name)
    assert inst.__name__ == f"jevlin_hooks.harnesses.{spec.folder}.install"
    assert inst.PROGRAM and inst.NEXT_STEP.startswith("next: ") and callable(inst.plans) and callable(inst.found)
    assert callable(harnesses.doctor(name).check)
    assert os.path.dirname(harnesses.data_dir(name)) == os.path.dirname(cap.__file__)


def test_names_are_unique_and_aliases_lead_to_their_harness():
    names = [s.name for s in harnesses.REGISTRY] + [a for s in harnesses.REGISTRY for a in s.aliases]
    assert len(names) == len(set(names))
    assert len({s.folder for s in harnesses.REGISTRY}) == len(harnesses.REGISTRY)
    assert harnesses.capture("codex-notify") is harnesses.capture("codex")
    with pytest.raises(ValueError, match="unknown harness 'gemini'"):
        harnesses.capture("gemini")


def test_an_unknown_harness_still_exits_quietly(home, monkeypatch):
    """The entry point with a name nobody registered: nothing printed, nothing raised, the reason
    in the hook log."""
    monkeypatch.setenv("JEVLIN_HOME", home)
    assert hook.run("no-such-harness", [], lambda: b"{}") == []
    with open(os.path.join(home, "logs", "hook.log"), encoding="utf-8") as f:
        assert "no-such-harness: ValueError" in f.read()


def test_install_and_the_cli_take_the_registry(tmp_path, monkeypatch):
    """`install --harness all` plans for every registered harness, and `--harness` offers them."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("JEVLIN_HOME", str(tmp_path / ".jevlin"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    for var in ("CODEX_HOME", "HERMES_HOME", "PI_CODING_AGENT_DIR", "GEMINI_CLI_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(var, raising=False)
    assert install.detect() == {}
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "install", "--help"], capture_output=True,
                       text=True, check=True)
    assert "{" + ",".join([*harnesses.HARNESSES, "all"]) + "}" in p.stdout.replace("\n", "").replace(" ", "")
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "install", "--harness", "all", "--dry-run"],
                       capture_output=True, text=True, check=True)
    planned = [c.path for name in harnesses.HARNESSES for c in install.plans_for(name, None, False)]
    assert len(planned) >= len(harnesses.HARNESSES)
    for path in planned:
        assert path.startswith(str(tmp_path)) and path + " (after)" in p.stdout
    assert installkit.ENTRY in p.stdout and os.listdir(tmp_path) == []
