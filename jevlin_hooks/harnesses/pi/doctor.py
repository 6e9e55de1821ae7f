"""Pi's lines in `jevlin-hooks doctor`."""

from __future__ import annotations

import os
import shutil

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.pi import install


def check(out: installkit.Findings) -> None:
    """Pi: our extension file in its agent dir, current, and pointing at an interpreter and entry
    point that exist (Pi would load it and get nothing otherwise)."""
    agent = install.agent_dir()
    if not (shutil.which("pi") or os.path.isdir(agent)):
        return
    path = install.extension_path()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        out.append((False, "pi: found, extension not installed; run `jevlin-hooks install --harness pi`"))
        return
    except OSError as exc:
        out.append((False, f"pi: cannot read {path} ({exc.strerror}); run `jevlin-hooks install --harness pi`"))
        return
    if not install.is_ours(data):
        out.append((False, f"pi: {path} is not ours; move it away, then `jevlin-hooks install --harness pi`"))
        return
    text = data.decode("utf-8", "replace")
    if installkit.ENTRY not in text or not os.path.exists(installkit.ENTRY):
        out.append((False, "pi: the extension points at another install of jevlin-hooks; run "
                           "`jevlin-hooks install --harness pi` again"))
    elif data != install.render():
        out.append((False, "pi: the extension is from another version or interpreter; run "
                           "`jevlin-hooks install --harness pi` again"))
    else:
        out.append((True, f"pi: extension installed in {path}; it loads at the next `pi` start "
                          "(not with `pi --no-extensions`)"))
