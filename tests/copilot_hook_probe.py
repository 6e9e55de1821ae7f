"""The installed Copilot hook, run as installed, with what it did written down.

tests/test_e2e_copilot.py installs it in place of entry.py (``python -I -S copilot_hook_probe.py
ENTRY copilot-cli EVENT``): it runs the very hook (hook.run, as entry.py's main does) and appends
one JSON line to ``$JEVLIN_PROBE_LOG``: the event, the hook's own time from stdin read to exit
(the interpreter's start aside: bench/hook_latency.py measures whole processes), every
``time.sleep`` it asked for, its parent (Copilot's own process) and how many records its session
holds afterwards (engine: held). With ``JEVLIN_PROBE_KILL_AFTER=<event>``, that event's hook kills
its parent with SIGKILL once it has run: Copilot killed after it.
"""

import os
import sys
import time

entry, harness, event = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(entry)))))

slept: list[float] = []
_sleep = time.sleep


def _counted(seconds: float) -> None:
    slept.append(seconds)
    _sleep(seconds)


time.sleep = _counted

from jevlin_hooks.capture import hook, lineage  # noqa: E402

data = hook._read_stdin()
hook._read_stdin = lambda: data  # the hook reads it from here (copilot_cli.capture.read_payload)
t0 = time.perf_counter()
out = hook.run(harness, [event])
took = time.perf_counter() - t0
for line in out:
    os.write(1, line.encode() + b"\n")

import json  # noqa: E402 - after the hook ran: not on its path

try:
    sid = json.loads(data).get("sessionId")
except ValueError:
    sid = None
state = lineage.read(os.environ["JEVLIN_HOME"], lineage.file_name(harness, sid)) if isinstance(sid, str) else None
parent = os.path.basename(os.readlink(f"/proc/{os.getppid()}/exe"))
with open(os.environ["JEVLIN_PROBE_LOG"], "a") as f:
    f.write(json.dumps({"event": event, "ms": round(took * 1000, 2), "sleeps": slept, "parent": parent,
                        "held": len((state or {}).get("held") or [])}) + "\n")
if os.environ.get("JEVLIN_PROBE_KILL_AFTER") == event:
    # Copilot killed right after this hook returned, before it writes anything more
    import signal  # noqa: E402

    os.kill(os.getppid(), signal.SIGKILL)
os._exit(0)
