"""Issue 29, item 14: Hermes's config.yaml with anchors and aliases, and its allowlist's lock.

Never append into a shared anchor (each of our hooks once per event, with its matcher; the user's
other keys as they were); an alias chain cannot make install take long (refused, one line); a held
allowlist lock makes install wait a bounded time, say on whom, and write nothing if it stays held.
Real files, a real lock held by another process, the real CLI (and the real Hermes, where built).
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
from typing import Any

import pytest
from ruamel.yaml import YAML

from jevlin_hooks.harnesses.hermes import install as hermes_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERMES = os.environ.get("JEVLIN_HERMES_BIN") or os.path.join(ROOT, ".venv-hermes", "bin", "hermes")
OURS = "jevlin_hooks"

SHARED_LIST = """\
# guards, shared by two events
x-guards: &guards
  - command: /usr/local/bin/audit.sh   # audit every tool call
    matcher: terminal
    timeout: 3
model:
  default: fake-model   # mine
hooks:
  pre_tool_call: *guards
  post_tool_call: *guards
display: {skin: dark}
"""
SHARED_HOOKS = """\
base-hooks: &base
  on_session_end:
    - command: /usr/local/bin/notify-done
hooks: *base
agent:
  api_max_retries: 0
"""
MERGED = """\
common: &common
  pre_tool_call:
    - command: /usr/local/bin/guard
      matcher: terminal
hooks:
  <<: *common
  on_session_end:
    - command: /usr/local/bin/done
"""
DEFINED_IN_HOOKS = """\
hooks:
  pre_tool_call: &g
    - command: /usr/local/bin/guard
  post_tool_call: *g
audit: *g
"""
DOCS = {"shared-list": SHARED_LIST, "shared-hooks": SHARED_HOOKS, "merge-key": MERGED,
        "anchor-in-hooks": DEFINED_IN_HOOKS}
# the text of each document that is not ours to change: it stays byte for byte
KEPT = {"shared-list": [SHARED_LIST.split("hooks:")[0], "display: {skin: dark}\n"],
        "shared-hooks": ["base-hooks: &base\n  on_session_end:\n    - command: /usr/local/bin/notify-done\n",
                         "agent:\n  api_max_retries: 0\n"],
        "merge-key": [MERGED.split("hooks:")[0], "  <<: *common\n"],
        "anchor-in-hooks": []}


def cli(home: Any, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=_env(home, **env),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)


def _env(home: Any, **env: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    e.update(HOME=str(home), JEVLIN_HOME=str(home / ".jevlin"), XDG_CACHE_HOME=str(home / ".cache"), **env)
    return e


def hermes_home(tmp_path: Any, text: str) -> Any:
    hh = tmp_path / ".hermes"
    hh.mkdir()
    (hh / "config.yaml").write_text(text)
    return hh


def resolved(text: str) -> Any:
    """What any reader sees: aliases and merge keys resolved (ruamel's safe loader)."""
    return YAML(typ="safe").load(text)


def tree(root: Any) -> dict[str, bytes]:
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                out[os.path.relpath(os.path.join(d, f), root)] = fh.read()
    return out


@pytest.mark.parametrize("name", DOCS)
def test_our_hooks_run_once_each_and_the_anchor_is_not_touched(tmp_path, name):
    text = DOCS[name]
    hh = hermes_home(tmp_path, text)
    p = cli(tmp_path, "install", "--harness", "hermes")
    assert p.returncode == 0, p.stderr
    after = (hh / "config.yaml").read_text()
    seen = resolved(after)
    mine = resolved(text)
    for event in hermes_install.EVENTS:
        ours = [h for h in seen["hooks"][event] if OURS in h["command"]]
        assert len(ours) == 1, (event, after)
        assert ("matcher" in ours[0]) == (event in hermes_install.TOOL_EVENTS)
        theirs = [h for h in seen["hooks"][event] if OURS not in h["command"]]
        assert theirs == (mine.get("hooks") or {}).get(event, []), "the user's hooks of the event, in order"
    for key, value in mine.items():
        if key != "hooks":
            assert seen[key] == value, f"{key} is not ours: the anchor keeps what it held"
    for block in KEPT[name]:
        assert block in after, f"byte for byte: {block!r}"
    first = (hh / "config.yaml").read_bytes()
    p = cli(tmp_path, "install", "--harness", "hermes")
    assert p.returncode == 0 and (hh / "config.yaml").read_bytes() == first, "a reinstall changes nothing"
    assert cli(tmp_path, "uninstall", "--harness", "hermes").returncode == 0
    assert (hh / "config.yaml").read_text() == text


@pytest.mark.parametrize("name", DOCS)
def test_uninstall_after_an_edit_takes_out_only_ours(tmp_path, name):
    hh = hermes_home(tmp_path, DOCS[name])
    assert cli(tmp_path, "install", "--harness", "hermes").returncode == 0
    with open(hh / "config.yaml", "a") as f:
        f.write("terminal: {backend: local}   # added after install\n")
    assert cli(tmp_path, "uninstall", "--harness", "hermes").returncode == 0
    after = (hh / "config.yaml").read_text()
    assert OURS not in after and "# added after install" in after
    assert resolved(after) == {**resolved(DOCS[name]), "terminal": {"backend": "local"}}
    for anchor in re.findall(r"&(\w+)", DOCS[name]):
        assert f"&{anchor}" in after, "every anchor of the user's is still there"


def test_our_entry_appended_into_an_anchor_by_an_older_install_is_taken_out_everywhere(tmp_path):
    """An older install appended into the shared list, so its entry ran under every alias; this
    one takes it out of the anchor and gives each event its own."""
    old = SHARED_LIST.replace("    timeout: 3\n", f"    timeout: 3\n  - command: {hermes_install.command()}\n"
                                                   "    matcher: terminal\n", 1)
    hh = hermes_home(tmp_path, old)
    assert cli(tmp_path, "install", "--harness", "hermes").returncode == 0
    seen = resolved((hh / "config.yaml").read_text())
    assert [h["command"] for h in seen["x-guards"]] == ["/usr/local/bin/audit.sh"]
    for event in hermes_install.EVENTS:
        assert len([h for h in seen["hooks"][event] if OURS in h["command"]]) == 1
    assert cli(tmp_path, "uninstall", "--harness", "hermes").returncode == 0
    assert OURS not in (hh / "config.yaml").read_text()


@pytest.mark.e2e
@pytest.mark.skipif(not os.path.exists(HERMES), reason="Hermes not installed (./dev test makes .venv-hermes)")
def test_hermes_itself_lists_each_of_our_hooks_once(tmp_path):
    hh = hermes_home(tmp_path, SHARED_LIST)
    assert cli(tmp_path, "install", "--harness", "hermes").returncode == 0
    env = {**_env(tmp_path), "HERMES_HOME": str(hh)}
    listed = subprocess.run([HERMES, "hooks", "list"], env=env, capture_output=True, text=True, timeout=120).stdout
    sections = dict(re.findall(r"\[(\w+)\]\n((?:    .*\n?)*)", listed))
    assert set(sections) == set(hermes_install.EVENTS), listed
    for event, body in sections.items():
        assert body.count("entry.py hermes") == 1, (event, body)
        assert body.count("/usr/local/bin/audit.sh") == (event in hermes_install.TOOL_EVENTS)


def lol(levels: int, width: int) -> str:
    lines = ['a0: &a0 ["lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\nhooks: {}\n"


def merge_fan(n: int) -> str:
    """Each mapping merges every one before it: 2^n keys' worth of merging from n lines."""
    lines = ["m0: &m0 {k0: 1}"]
    lines += [f"m{i}: &m{i} {{<<: [" + ", ".join(f"*m{j}" for j in range(i)) + f"], k{i}: 1}}" for i in range(1, n)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text,why", [
    (lol(9, 9), "aliases expand to 102,908,556 more nodes"),
    (lol(40, 2), "aliases expand to about 10^12 more nodes"),
    (merge_fan(60), "aliases expand to about 10^"),
    ("a: &a [1, *a]\n", "recursive alias"),
], ids=["laughs", "chain", "merge-fan", "recursive"])
def test_an_alias_bomb_is_refused_in_one_line_and_nothing_is_written(tmp_path, text, why):
    hh = hermes_home(tmp_path, text)
    p = cli(tmp_path, "install", "--harness", "hermes")
    assert p.returncode == 1 and len(p.stderr.splitlines()) == 1, p.stderr
    assert why in p.stderr and str(hh / "config.yaml") in p.stderr and "left untouched" in p.stderr
    assert tree(tmp_path / ".hermes") == {"config.yaml": text.encode()}
    assert not (tmp_path / ".jevlin" / "state" / "installs.json").exists()
    doctor = cli(tmp_path, "doctor").stdout
    assert f"!!  hermes: {hh / 'config.yaml'}: " in doctor and why in doctor, doctor


def test_reuse_well_within_the_limit_installs(tmp_path):
    text = "x-env: &env {A: '1', B: '2'}\n" + "".join(f"t{i}: {{env: *env}}\n" for i in range(200))
    hh = hermes_home(tmp_path, text)
    p = cli(tmp_path, "install", "--harness", "hermes")
    assert p.returncode == 0, p.stderr
    after = (hh / "config.yaml").read_text()
    assert after.startswith(text) and "*env" in after


def test_a_config_too_large_is_refused(tmp_path):
    text = "# " + "x" * hermes_install.MAX_BYTES + "\nmodel: {default: m}\n"
    hermes_home(tmp_path, text)
    p = cli(tmp_path, "install", "--harness", "hermes")
    assert p.returncode == 1 and "larger than 1 MiB" in p.stderr and len(p.stderr.splitlines()) == 1


HOLD = """\
import fcntl, sys
f = open(sys.argv[1], "a+")
fcntl.flock(f.fileno(), fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()  # until the test lets go
"""


def hold(lock: Any) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_a_lock_that_stays_held_fails_install_saying_on_whom_and_nothing_changes(tmp_path):
    hh = hermes_home(tmp_path, "model: {default: m}\n")
    (hh / "profiles" / "work").mkdir(parents=True)
    holder = hold(hh / "profiles" / "work" / (hermes_install.ALLOWLIST + ".lock"))
    try:
        before = tree(tmp_path)
        p = cli(tmp_path, "install", "--harness", "hermes", JEVLIN_INSTALL_LOCK_WAIT="0.5")
        lines = p.stderr.splitlines()
        assert p.returncode == 1 and len(lines) == 2, p.stderr
        assert lines[0].startswith("jevlin-hooks: waiting up to 0.5s for ") and f"held by pid {holder.pid} (" in lines[0]
        assert f"held by pid {holder.pid} (" in lines[1] and "was not released within 0.5s" in lines[1]
        assert tree(tmp_path) == before, "no file changed: not the main home's either (every lock first)"
    finally:
        holder.communicate("", timeout=60)


def test_install_waits_for_a_lock_and_goes_on_once_it_is_released(tmp_path):
    hh = hermes_home(tmp_path, "model: {default: m}\n")
    holder = hold(hh / (hermes_install.ALLOWLIST + ".lock"))
    p = subprocess.Popen([sys.executable, "-m", "jevlin_hooks.cli", "install", "--harness", "hermes"],
                         env=_env(tmp_path, JEVLIN_INSTALL_LOCK_WAIT="120"), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stderr is not None
        # a hang guard, not a timing: an install that never says it waits fails here, not forever
        assert select.select([p.stderr], [], [], 120)[0], "install neither waited aloud nor finished"
        waiting = p.stderr.readline()
        assert "waiting up to 120s for" in waiting and f"held by pid {holder.pid}" in waiting
        assert not (hh / hermes_install.ALLOWLIST).exists(), "nothing written while it waits"
    finally:
        holder.communicate("", timeout=60)
        try:
            out, err = p.communicate(timeout=120)
        finally:
            p.kill()
    assert p.returncode == 0, err
    approvals = json.loads((hh / hermes_install.ALLOWLIST).read_text())["approvals"]
    assert len(approvals) == len(hermes_install.EVENTS)
