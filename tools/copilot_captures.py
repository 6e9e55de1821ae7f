"""Bundle the GitHub Copilot CLI 1.0.102 reference captures as jevlin_hooks/harnesses/copilot_cli/data.

    .venv/bin/python tools/copilot_captures.py /work/shared/reference/copilot-cli/captures

The captures are the real program's hook payloads (``<scenario>-<NNN>-<event>.json``:
``{"stdin", "argv", "meta"}``, recorded by the reference's dump_hook.py with the native hook
format) and its own session files (``sessions/<id>.events.jsonl``). This keeps, for the scenarios
in Copilot's native format and the events ``install`` hooks:

- ``data/events/<scenario>-<NNN>-<event>.json``: the payload as our hook reads it, that is the
  stdin Copilot wrote with ``hook_event_name`` first, the event our command line passes
  (capture.py ``read_payload``); NNN is the order they fired in;
- ``data/sessions/<id>.events.jsonl``: each session file those scenarios wrote, as it stood when
  the captures ended (the replay tests put it where Copilot wrote it, under a COPILOT_HOME).

Nothing is scrubbed: every byte came from the reference's scripted model server and stub
``jevlin``, none of it a secret.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from jevlin_hooks.harnesses.copilot_cli import install  # noqa: E402

SCENARIOS = ("basic", "continue", "resume", "failures", "subagent", "compact", "compact2", "compact_slash")
DATA = os.path.join(REPO, "jevlin_hooks", "harnesses", "copilot_cli", "data")


def main(captures: str) -> None:
    events_dir = os.path.join(DATA, "events")
    sessions_dir = os.path.join(DATA, "sessions")
    for d in (events_dir, sessions_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    sessions = set()
    for name in sorted(os.listdir(captures)):
        if not name.endswith(".json"):
            continue
        scenario, number, event = name[:-5].rsplit("-", 2)
        if scenario not in SCENARIOS or event not in install.EVENTS:
            continue
        with open(os.path.join(captures, name), encoding="utf-8") as f:
            stdin = json.load(f)["stdin"]
        sessions.add(stdin["sessionId"] if not stdin.get("parentAgentId") else stdin["parentAgentId"])
        with open(os.path.join(events_dir, name), "w", encoding="utf-8") as f:
            json.dump({"hook_event_name": event, **stdin}, f, ensure_ascii=False)
            f.write("\n")
    for sid in sorted(sessions):
        shutil.copyfile(os.path.join(captures, "sessions", f"{sid}.events.jsonl"),
                        os.path.join(sessions_dir, f"{sid}.events.jsonl"))
    print(f"{len(os.listdir(events_dir))} events, {len(sessions)} session files in {DATA}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/reference/copilot-cli/captures")
