"""Copilot CLI's lines in `jevlin-hooks doctor`: our hooks file, current and complete.

Nothing is said about Copilot's ``disableAllHooks`` setting: with it true in settings.json,
Copilot 1.0.102 still ran the files in its hooks directory (tried on the real program)."""

from __future__ import annotations

import os
import shutil

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.copilot_cli import install

INSTALL = "run `jevlin-hooks install --harness copilot-cli`"


def check(out: installkit.Findings) -> None:
    home = install.copilot_home()
    if not (shutil.which(install.PROGRAM) or os.path.isdir(home)):
        return
    path = install.hooks_path()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        out.append((False, f"copilot-cli: found, hooks not installed; {INSTALL}"))
        return
    except OSError as exc:
        out.append((False, f"copilot-cli: cannot read {path} ({exc.strerror}); {INSTALL}"))
        return
    if not install.is_ours(data):
        out.append((False, f"copilot-cli: {path} is not ours; move it away, then {INSTALL}"))
        return
    ours = install.actions(installkit.load_json(path))
    missing = [e for e in install.EVENTS if not any(install.is_ours_action(a) for a in ours.get(e, []))]
    if missing:
        out.append((False, f"copilot-cli: {len(missing)} event(s) without our hook ({', '.join(missing)}); {INSTALL}"))
    elif installkit.ENTRY not in data.decode("utf-8", "replace") or not os.path.exists(installkit.ENTRY):
        out.append((False, f"copilot-cli: hooks point at another install of jevlin-hooks; {INSTALL} again"))
    elif data != install.render():
        out.append((False, f"copilot-cli: hooks from another version or interpreter; {INSTALL} again"))
    else:
        out.append((True, f"copilot-cli: hooks installed for all {len(install.EVENTS)} events in {path} "
                          "(user hooks need no folder trust)"))
