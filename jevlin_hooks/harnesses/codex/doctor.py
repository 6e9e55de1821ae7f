"""Codex's lines in `jevlin-hooks doctor`: hooks installed, trusted (Codex skips a hook the
user has not approved in /hooks), and notify."""

from __future__ import annotations

import os
import shutil
from typing import Any

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.codex import install


def _snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")


def check(out: installkit.Findings) -> None:
    home = install.home()
    path = install.hooks_path(None)
    data = installkit.hook_file(out, "codex", bool(shutil.which("codex") or os.path.isdir(home)), path)
    if data is None:
        return
    cfg = _config(home)
    ours = installkit.ours_in_grouped(data)
    if not ours:
        out.append((False, "codex: found, hooks not installed; run `jevlin-hooks install --harness codex`"))
    else:
        out.append((True, f"codex: hooks installed for {len(ours)} events in {path}"))
        # Codex runs a hooks.json handler only once the user trusted it (/hooks), recorded
        # in config.toml as hooks.state."<path>:<event>:<group>:<handler>".trusted_hash.
        state = (cfg.get("hooks") or {}).get("state") or {}
        trusted = {k for k, v in state.items() if isinstance(v, dict) and v.get("trusted_hash")}
        # Codex keys trust by the hooks.json path, canonicalised when CODEX_HOME is set.
        untrusted = [(e, gi, hi) for e, v in ours.items() for gi, hi, _ in v
                     if not {f"{p}:{_snake(e)}:{gi}:{hi}" for p in (path, os.path.realpath(path))} & trusted]
        if untrusted:
            out.append((False, f"codex: {len(untrusted)} of our hooks not trusted yet, so Codex skips them; "
                               "start `codex`, type /hooks and approve them"))
        else:
            out.append((True, "codex: our hooks are trusted (re-approve in /hooks after any reinstall)"))
    notify = cfg.get("notify")
    if isinstance(notify, list) and any(installkit.MARK in str(a) for a in notify):
        out.append((True, "codex: notify runs jevlin-hooks (turns are counted once with hooks)"))


def _config(home: str) -> dict[str, Any]:
    try:
        import tomllib

        with open(os.path.join(home, "config.toml"), "rb") as f:
            return tomllib.load(f)
    except (OSError, ValueError):
        return {}
