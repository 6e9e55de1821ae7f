"""The in-process scenario layer runs the hook's own entry function (``hook.run``): every captured
scenario, replayed once as processes and once in-process, queues the same records."""

from __future__ import annotations

import os

import pytest
from conftest import PROBE_CONFIG, hook_errors

from jevlin_hooks import demo, replay
from jevlin_hooks.base import spool

# what differs between any two runs, processes or not: random record ids and the clock
VOLATILE = ("record_id", "ts")


def _records(home: str) -> list[dict]:
    out = []
    for r in spool.read_all(home):
        r = {k: v for k, v in r.items() if k not in VOLATILE}
        # measured by the clock unless the payload carries it (Claude Code's and Hermes's do)
        if r["kind"] == "turn_end" or r["harness"] not in ("claude-code", "hermes") or r["status"] != "ok":
            assert isinstance(r.pop("duration_ms"), int)
        out.append(r)
    return sorted(out, key=lambda r: (r["kind"], r["session_id"], str(r.get("turn_id")), r.get("seq") or 0))


def _home(tmp_path, name: str) -> str:
    h = str(tmp_path / name)
    os.makedirs(h, mode=0o700)
    with open(os.path.join(h, "config.toml"), "w") as f:
        f.write(PROBE_CONFIG)
    return h


HERMES = ("basic", "resume", "continue", "failure", "parallel", "interrupt", "compress_rotate_prep", "compress_rotate",
          "compress_prep", "compress", "subagent_z")


@pytest.mark.parametrize("harness,scenarios", [("claude-code", demo.CLAUDE), ("codex", demo.CODEX), ("hermes", HERMES)])
def test_inprocess_queues_what_processes_queue(tmp_path, harness, scenarios):
    by_process, in_process = _home(tmp_path, "p"), _home(tmp_path, "i")
    for s in scenarios:
        for p in replay.replay(by_process, s, str(tmp_path / "tp"), harness):
            assert p.returncode == 0 and p.stdout == b""
        for p in replay.replay(in_process, s, str(tmp_path / "ti"), harness, inprocess=True):
            assert p.returncode == 0 and p.stdout == b""
    assert hook_errors(by_process) == hook_errors(in_process) == ""
    expected = _records(by_process)
    assert len(expected) >= len(scenarios)
    got = _records(in_process)
    for e, g in zip(expected, got, strict=False):
        assert g == e
    assert len(got) == len(expected)
