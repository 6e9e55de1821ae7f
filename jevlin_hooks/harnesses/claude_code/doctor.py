"""Claude Code's lines in `jevlin-hooks doctor`: every event hooked, by this install, and hooks
not switched off as a whole."""

from __future__ import annotations

import os
import shutil

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.claude_code import install


def check(out: installkit.Findings) -> None:
    path = install.settings_path(None)
    data = installkit.hook_file(out, "claude-code", bool(shutil.which("claude") or os.path.isdir(os.path.dirname(path))),
                                path)
    if data is None:
        return
    ours = installkit.ours_in_grouped(data)
    missing = [e for e in install.EVENTS if e not in ours]
    if not ours:
        out.append((False, "claude-code: found, hooks not installed; run `jevlin-hooks install --harness claude-code`"))
        return
    if missing:
        out.append((False, f"claude-code: {len(missing)} event(s) without our hook ({', '.join(missing)}); "
                           "run `jevlin-hooks install --harness claude-code`"))
    elif not all(installkit.entry_ok(h) for v in ours.values() for _, _, h in v):
        out.append((False, "claude-code: hooks point at another install of jevlin-hooks; run `jevlin-hooks install` again"))
    else:
        out.append((True, f"claude-code: hooks installed for all {len(install.EVENTS)} events in {path}"))
    if isinstance(data, dict) and data.get("disableAllHooks") is True:
        out.append((False, f"claude-code: \"disableAllHooks\": true in {path}: no hook runs; remove it"))
