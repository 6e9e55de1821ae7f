"""`jevlin-hooks install --harness pi`: one self-contained extension file in Pi's agent dir.

Pi loads every ``*.js`` in ``${PI_CODING_AGENT_DIR:-~/.pi/agent}/extensions/`` at start (and on
``/reload``). Ours imports only ``node:`` built-ins, so nothing is npm-installed and no Pi
setting is edited: install writes that one file, uninstall removes exactly that file (and the
``extensions/`` directory when install created it and it is empty again).

The file carries the absolute interpreter and entry point: a ``python3`` found through a pyenv
shim costs 260-300 ms a call (shared/reference/pi/FACTS.md section 7).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from jevlin_hooks import installkit

PROGRAM = "pi"
NEXT_STEP = "next: start `pi` (or type /reload in a running one); `pi --no-extensions` runs without it"

FILE_NAME = "jevlin-hooks.js"
MARK = "// jevlin-hooks for Pi:"
TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", FILE_NAME)


def agent_dir() -> str:
    return os.environ.get("PI_CODING_AGENT_DIR") or os.path.join(os.path.expanduser("~"), ".pi", "agent")


def extension_path(project: str | None = None) -> str:
    """The global extension, or with ``--project DIR`` Pi's project-local one (DIR/.pi/extensions)."""
    if project is not None:
        return os.path.join(os.path.abspath(project), ".pi", "extensions", FILE_NAME)
    return os.path.join(agent_dir(), "extensions", FILE_NAME)


def render() -> bytes:
    """The extension as install writes it: the template with this interpreter and entry point."""
    with open(TEMPLATE, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("__JEVLIN_PYTHON__", json.dumps(os.path.realpath(sys.executable)))
    text = text.replace("__JEVLIN_ENTRY__", json.dumps(installkit.ENTRY))
    return text.encode("utf-8")


def is_ours(data: bytes | None) -> bool:
    return data is not None and data.startswith(MARK.encode())


def plan(path: str, remove: bool = False) -> installkit.Change:
    before = installkit.read_bytes(path)  # through a symlink; a dangling one is refused
    if before is not None and not is_ours(before):
        raise installkit.InstallError(f"{path} exists and is not ours; left untouched")
    # No backup: the file is ours alone, and a backup beside it would sit in Pi's extensions dir.
    return installkit.Change(path, before, None if remove else render(), backup=False)


def plans(project: str | None, remove: bool, opts: Mapping[str, Any]) -> list[installkit.Change]:
    return [plan(extension_path(project), remove=remove)]


def found() -> str | None:
    """Pi's program on PATH, or its agent dir (which PI_CODING_AGENT_DIR moves)."""
    import shutil

    where = shutil.which(PROGRAM)
    if where:
        return where
    agent = agent_dir()
    return agent if os.path.isdir(agent) else None
