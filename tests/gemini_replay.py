"""Replay a captured Gemini CLI scenario (tools/capture_gemini.py) through the real hook entry
point, with Gemini's chat files laid down as they stood at each event.

The hook reads a chat file's tail at the moment of the event (the turn so far, the last history
rewrite) and tells a subagent's tool call by which chat file was written last, so before each
event every file is cut back to the size it had then, with the mtime it had then
(``at_event.json``), and a file not yet written is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from conftest import run

from jevlin_hooks import replay

HARNESS = "gemini-cli"


def events(scenario: str) -> list[tuple[str, dict[str, Any]]]:
    return replay.scenario_events(scenario, HARNESS)


def _bundle(scenario: str) -> tuple[dict[str, str], dict[str, dict[str, list[int]]]]:
    d = os.path.join(replay.data_dir(HARNESS), "transcripts", scenario)
    with open(os.path.join(d, "paths.json"), encoding="utf-8") as f:
        written = json.load(f)
    with open(os.path.join(d, "at_event.json"), encoding="utf-8") as f:
        at_event = json.load(f)
    return {name: os.path.join(d, name) for name in written}, at_event


class Scenario:
    """A scenario's chat files under ``root`` (their layout below the capture root kept, so a
    subagent's file stays in its parent session's folder), set to any event's moment."""

    def __init__(self, scenario: str, root: str) -> None:
        self.scenario = scenario
        self.bundled, self.at_event = _bundle(scenario)
        originals = replay.session_files(scenario, HARNESS)
        self.mapping = {orig: os.path.join(root, orig.lstrip("/")) for orig in originals}
        self.target = {os.path.basename(orig): new for orig, new in self.mapping.items()}

    def set_to(self, event_file: str) -> None:
        at = self.at_event.get(event_file, {})
        for name, target in self.target.items():
            if name not in at:
                if os.path.exists(target):
                    os.unlink(target)
                continue
            size, mtime = at[name]
            with open(self.bundled[name], "rb") as f:
                data = f.read(size)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
            os.utime(target, ns=(mtime, mtime))

    def payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        return replay.rewrite(payload, self.mapping)


def replay_scenario(home: str, scenario: str, root: str, only: set[str] | None = None,
                    env: dict[str, str] | None = None) -> list[subprocess.CompletedProcess[bytes]]:
    """Every event of ``scenario`` (or those whose file name is in ``only``), in the order they fired."""
    sc = Scenario(scenario, root)
    out = []
    for name, payload in events(scenario):
        if only is not None and name not in only:
            continue
        sc.set_to(name)
        out.append(run(home, sc.payload(payload), HARNESS, env=env))
    return out
