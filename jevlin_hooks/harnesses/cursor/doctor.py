"""Cursor's lines in `jevlin-hooks doctor`."""

from __future__ import annotations

import os
import shutil

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.cursor import install

# With its third-party hooks setting on, Cursor also runs the hooks in Claude Code's user settings
CLAUDE_SETTINGS = os.path.join("~", ".claude", "settings.json")


def check(out: installkit.Findings) -> None:
    path = install.hooks_path(None)
    data = installkit.hook_file(out, "cursor", bool(shutil.which("cursor") or os.path.isdir(os.path.dirname(path))),
                                path)
    if data is None:
        return
    hooks = data.get("hooks") if isinstance(data, dict) else None
    ours = [e for e, hs in (hooks or {}).items() if isinstance(hs, list) and any(installkit.is_ours(h) for h in hs)]
    if not ours:
        out.append((False, "cursor: found, hooks not installed; run `jevlin-hooks install --harness cursor`"))
        return
    out.append((True, f"cursor: hooks installed for {len(ours)} events in {path}"))
    claude = installkit.ours_in_grouped(installkit.load_json(os.path.expanduser(CLAUDE_SETTINGS)))
    if claude:
        out.append((True, "cursor: with Cursor's third-party hooks on, your ~/.claude hooks see Cursor's events too; "
                          "those copies are recognised and counted once"))
